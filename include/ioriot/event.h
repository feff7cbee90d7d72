/*
 * event: the record the BPF capture probe sends to user space through its
 * per-CPU rings, and the rings' layout: the only ABI shared between
 * src/capture/capture.bpf.c and the loader.  Fixed-width fields only.
 *
 * A record is struct ioriot_event followed by path_len[0] bytes of the first
 * path and path_len[1] bytes of the second (no NULs); it is padded to 8
 * bytes.  @sys holds an enum sys_id (syscalls.h).
 */
#ifndef IORIOT_EVENT_H
#define IORIOT_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IORIOT_EV_PATH_MAX 4096		/* PATH_MAX, with its NUL */

/* Bits of ioriot_event.flags. */
#define IORIOT_EV_STAT		(1u << 0)	/* extra[0] st_size, extra[1] st_mode */
#define IORIOT_EV_OFFSET	(1u << 1)	/* extra[0] *offset at entry (sendfile,
						 * copy_file_range in) */
#define IORIOT_EV_OFFSET2	(1u << 2)	/* extra[1] *offset at entry (out) */
#define IORIOT_EV_PATH_CUT	(1u << 3)	/* a path did not fit: dropped */
#define IORIOT_EV_CHILD		(1u << 4)	/* extra[0] child tgid, extra[1] tid */
#define IORIOT_EV_HOW		(1u << 5)	/* openat2: extra[0] flags, [1] mode */
#define IORIOT_EV_NO_RET	(1u << 6)	/* no return (exit_group) */
#define IORIOT_EV_IOV		(1u << 7)	/* extra[0] the iovecs' total length */
#define IORIOT_EV_AIOCTX	(1u << 8)	/* io_setup: extra[0] the new ctx id */
#define IORIOT_EV_IOCB		(1u << 9)	/* iocb record: extra[0] opcode |
						 * aio_flags << 16, extra[1] resfd;
						 * args: ctx, iocb address, fd,
						 * offset, nbytes, rw_flags */
#define IORIOT_EV_NO_COUNT	(1u << 10)	/* iocb record: vectored with more
						 * iovecs than summed: no nbytes */
#define IORIOT_EV_RING		(1u << 11)	/* io_uring_enter on a registered
						 * ring index: extra[0] the ring's
						 * fd, learnt during the call */
#define IORIOT_EV_URING_SETUP	(1u << 12)	/* io_uring_setup: extra[0] the
						 * setup flags, extra[1] cq_entries */
#define IORIOT_EV_SQE		(1u << 13)	/* sqe record: extra[0] opcode |
						 * sqe flags << 8 | buf_index << 16
						 * | IORIOT_EV_SQE_BUF; args: ring
						 * fd, fd or fixed index, offset,
						 * length, op flags, user_data */
#define IORIOT_EV_ABSENT	(1u << 14)	/* extra[1]: bit i set, argument i
						 * of the layout is absent */
#define IORIOT_EV_FLOCK		(1u << 15)	/* fcntl lock command: args[2]
						 * l_type | l_whence << 16 (the
						 * struct flock pointer's place),
						 * extra[0] l_start, [1] l_len */
#define IORIOT_EV_IOCTL_ARGS	(1u << 16)	/* ioctl: what its argument
						 * pointed to replaces it.
						 * FICLONERANGE: args[2] src fd,
						 * [3] src offset, [4] length,
						 * [5] dest offset; FIDEDUPERANGE:
						 * args[2] dest_count, [3] src
						 * offset, [4] length */
#define IORIOT_EV_SRC_SIZE	(1u << 17)	/* FICLONE, FICLONERANGE: extra[0]
						 * the source's size at entry */
#define IORIOT_EV_XATTR_ARGS	(1u << 18)	/* setxattrat, getxattrat: extra[1]
						 * struct xattr_args' size |
						 * flags << 32 */
#define IORIOT_EV_ACL		(1u << 19)	/* a set of a POSIX ACL of three
						 * entries: extra[0] its
						 * permissions as mode bits */
#define IORIOT_EV_OPEN_SIZE	(1u << 20)	/* open family: args[5] the
						 * opened file's size at exit */
/* A high bit, apart from the argument bits above.  umask: the calling
 * task's umask at a call that makes an inode. */
#define IORIOT_EV_UMASK		(1u << 24)
/* cpu_gap: the thread's on-CPU ns from the end of its previous event sent
 * (a syscall's exit, a page record) to this one's start. */
#define IORIOT_EV_CPU_GAP	(1u << 25)
/* cpu_call: the thread's on-CPU ns within the call (entry to exit). */
#define IORIOT_EV_CPU_CALL	(1u << 26)
/* runq_gap: the ns the thread waited runnable for a CPU over the span of
 * cpu_gap (the scheduler's run delay), with IORIOT_EV_CPU_GAP; on a wake
 * record (SYS_WAKE), the woken thread's from the end of its previous
 * event sent to the wake. */
#define IORIOT_EV_RUNQ_GAP	(1u << 27)

/*
 * A page record (sys SYS_MMAP_READ or SYS_MMAP_WRITE, IORIOT_EV_NO_RET,
 * dur_ns 0): a page fault of a captured process on a file mapping the
 * probe follows.  args[0] is the page's user address, args[1] its offset
 * in the file; time_ns when the fault was taken.
 */
#define IORIOT_EV_PAGE_SIZE	4096

/*
 * The file mappings the probe follows, per process (a hash map by tgid):
 * made by mmap during the capture (not executable, not MAP_DENYWRITE: the
 * dynamic linker's), or found in /proc/PID/maps when it starts.  Ranges
 * never overlap; a free slot has end 0.  A process with more file
 * mappings than slots gets no more (counted).
 */
#define IORIOT_EV_MAPS		64

struct ioriot_map_range {
	__u64 start, end;	/* [start, end), page aligned; end 0: free */
	__u64 offset;		/* the file offset of start */
	__u64 shared;		/* MAP_SHARED: a write fault dirties the file */
};

struct ioriot_maps {
	struct ioriot_map_range r[IORIOT_EV_MAPS];
	struct ioriot_map_range cut;	/* the probe's scratch: the upper
					 * part of a range cut in two */
};

/* io_submit: iocbs read per call; io_getevents: io_events read per call;
 * io_uring_register: files or buffers read per call.  Those beyond are
 * counted as lost. */
#define IORIOT_EV_AIO_MAX	64
#define IORIOT_EV_URING_REG_MAX	64

/* In an sqe record's extra[0]: the request names a buffer (buf_index). */
#define IORIOT_EV_SQE_BUF	(1ull << 32)

/* FIDEDUPERANGE: destinations recorded per call (dedupe records, each
 * args[0] dest fd, [1] dest offset, [2] bytes_deduped, ret its status);
 * those beyond are counted as lost. */
#define IORIOT_EV_DEDUPE_MAX	16

/*
 * The probe counts the syscalls of the captured processes that it does
 * not capture per CPU, in an array of IORIOT_UNCAP_SLOTS counters indexed
 * by syscall number; the last slot counts every syscall of another ABI
 * (32-bit compat, x32) and every number beyond.
 */
#define IORIOT_UNCAP_SLOTS 1024
#define IORIOT_UNCAP_OTHER_ABI (IORIOT_UNCAP_SLOTS - 1)

/*
 * A syscall the probe's dispatchers capture themselves (capture.bpf.c's
 * TRACED list, trace_specs): its name as the kernel's tracepoints spell
 * it, enum sys_id, number of arguments, path arguments (-1: none) and the
 * probe's enum extra_kind.  The loader maps names to syscall numbers and
 * sets one struct nr_spec per number (nr_specs) before load.
 */
struct trace_spec {
	char name[24];
	__u16 sys;
	__s8 nargs, p1, p2;
	__u8 kind;
};

struct nr_spec {
	__u16 sys;
	__s8 nargs, p1, p2;
	__u8 kind;
	__u8 traced;		/* 0: no trace_specs entry for the number */
};

/*
 * The per-CPU rings the records travel in (architecture.md §4.2).  Ring r
 * is data elements base .. base + elems - 1 of one array map, each
 * IORIOT_RING_ELEM bytes; a record is struct ioriot_ring_rec and the
 * record, padded to 8 bytes.  Positions count bytes from the start and
 * never wrap: position p is byte p % IORIOT_RING_ELEM of element
 * base + (p / IORIOT_RING_ELEM) % elems.  No record starts beyond
 * IORIOT_RING_REC_LAST in an element: the writer, and the reader after it,
 * go on at the next element instead.  CPU c writes into ring 2c, or into
 * ring 2c + 1 while 2c is busy (a program that interrupted another on its
 * CPU) or full.  Only the probe writes head and busy, only the reader tail;
 * the loader sets base, elems and size before the probe is attached.
 */
#define IORIOT_RING_ELEM_SHIFT 20
#define IORIOT_RING_ELEM (1u << IORIOT_RING_ELEM_SHIFT)
#define IORIOT_RING_REC_MAX 8336	/* header, event, two paths of up to
					 * IORIOT_EV_PATH_MAX - 1 bytes */
#define IORIOT_RING_REC_LAST (IORIOT_RING_ELEM - IORIOT_RING_REC_MAX)

struct ioriot_ring_pos {
	__u64 head;		/* bytes written */
	__u64 busy;		/* 1 while a program writes */
	__u32 base, elems;	/* the ring's first element, how many: a
				 * power of 2 */
	__u64 size;		/* elems * IORIOT_RING_ELEM */
	__u64 pad0[4];
	__u64 tail;		/* bytes read, on a cache line of its own */
	__u64 pad1[7];
};

struct ioriot_ring_rec {
	__u32 len;		/* with this header, a multiple of 8 */
	__u32 pad;
};

struct ioriot_event {
	__u64 time_ns;		/* syscall entry, CLOCK_MONOTONIC */
	__u64 dur_ns;
	__u32 pid, tid;		/* tgid and pid of the task */
	__u32 sys;		/* enum sys_id */
	__u32 flags;		/* IORIOT_EV_* */
	__s64 ret;
	__u64 args[6];		/* the raw syscall arguments */
	__u64 extra[2];		/* see the flags */
	__u16 path_len[2];	/* bytes of each path that follows, 0: none */
	__u32 umask;		/* see IORIOT_EV_UMASK, else 0 */
	__u64 cpu_gap;		/* see IORIOT_EV_CPU_GAP, else 0 */
	__u64 cpu_call;		/* see IORIOT_EV_CPU_CALL, else 0 */
	__u64 runq_gap;		/* see IORIOT_EV_RUNQ_GAP, else 0 */
};

_Static_assert(IORIOT_RING_REC_MAX >= ((sizeof(struct ioriot_ring_rec) +
	       sizeof(struct ioriot_event) + 2 * (IORIOT_EV_PATH_MAX - 1) + 7) &
	       ~7u), "a record with two paths fits IORIOT_RING_REC_MAX");

#endif
