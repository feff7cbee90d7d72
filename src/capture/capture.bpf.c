// SPDX-License-Identifier: Apache-2.0
/*
 * capture.bpf.c: the kernel side of the eBPF capture.  Two programs on the
 * raw sys_enter and sys_exit tracepoints see every syscall.  They capture
 * the syscalls of the TRACED list themselves, from a table by syscall
 * number that the loader fills (nr_specs), and pass the few with more to
 * do by tail call to programs of their own; the syscalls of captured
 * processes that are not captured are counted per number.  The raw
 * tracepoints cost about half of what the per-syscall tracepoints
 * (syscalls:sys_enter_X) do, which copy every call's arguments into a
 * record before any program runs; a tail call costs about 30 ns, a third
 * of an entry's own work, so only those few take one
 * (docs/benchmarks-history.md §7.4).  BTF tracepoints follow fork, exec
 * and exit; the page fault tracepoints I/O through file mappings, with
 * the probe's own table of each process's file mappings.  Entry stores
 * the arguments per thread, exit sends one struct ioriot_event
 * (include/ioriot/event.h) with duration, result and paths through
 * per-CPU rings (cpuring.bpf.h).  Events the rings cannot take are
 * counted, never dropped silently.  One object, one concern a file: this
 * one holds the state, the filters and the file API; Linux AIO, io_uring,
 * file mappings and process events are in capture_aio.bpf.h,
 * capture_uring.bpf.h, capture_mmap.bpf.h and capture_tasks.bpf.h,
 * included where they are needed.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ioriot/event.h"
#include "ioriot/syscall_table.h"
#include "cpuring.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Filters, set by the loader before load. */
const volatile __u32 own_tgid = 0;	/* ioriot itself: never captured */
const volatile bool filter_tgid = false;	/* only tgids in `tracked` */
const volatile bool filter_comm = false;	/* only tasks named targ_comm */
const volatile char targ_comm[16] = {};
/* --cgroup: only processes in the cgroup whose directory's inode number
 * is targ_cgroup or below it, in the default (v2) hierarchy, or with
 * targ_cgroup_ssid >= 0 in that v1 controller's. */
const volatile bool filter_cgroup = false;
const volatile __u64 targ_cgroup = 0;
const volatile __s32 targ_cgroup_ssid = -1;

/* 1 for each syscall number the probe captures (or records as a process
 * event), set by the loader before load from the programs it loads. */
const volatile __u8 captured_nr[IORIOT_UNCAP_SLOTS] = {};

/* Events no ring could take. */
__u64 lost_events = 0;

/* Set by the loader when the capture ends: detaching hundreds of
 * tracepoints takes seconds, recording stops at once. */
volatile bool stopped = false;

/* Set by the loader while it measures the probe's own cost (calib.c): the
 * id (tgid << 32 | pid) of its thread whose calls are traced, 0 else. */
volatile __u64 calib_id = 0;

/* Syscalls of the captured processes not captured, per number. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IORIOT_UNCAP_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} uncaptured SEC(".maps");

/* The entry and exit programs of the syscalls that have their own, by
 * syscall number, set by the loader after load; the dispatchers
 * (on_sys_enter, on_sys_exit) tail-call them. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, IORIOT_UNCAP_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} enter_progs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, IORIOT_UNCAP_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} exit_progs SEC(".maps");

/* Arguments of the syscall each thread is in. */
struct inflight {
	__u64 time_ns;		/* 0: none in flight */
	__u32 sys;		/* whose entry this is */
	__u16 nr;		/* its syscall number */
	__u64 args[6];
	__u64 extra[2];
	__u32 flags;
	__u32 umask;		/* with IORIOT_EV_UMASK */
	/* Time on a CPU (cpu_read()): at this entry, and at the end of
	 * the thread's last event sent (mark_ns 0: none yet). */
	__u64 cpu_at, sw_at;
	__u64 cpu_gap;		/* at this entry: on-CPU ns since the mark */
	__u32 gap_known;	/* cpu_gap is set */
	__u32 pad;
	__u64 mark_ns, mark_cpu, mark_sw;
	__u64 mark_rq;		/* run_delay at the mark */
	__u64 rq_gap;		/* at this entry: ns waited for a CPU since
				 * the mark (with gap_known) */
	__u64 sleep_ns;		/* --sync: when it went to sleep, 0: awake */
	__u64 irq_ns;		/* interrupt work while it ran, in all */
	__u64 irq_at, mark_irq;	/* irq_ns at this entry, at the mark */
};

/* Task storage: a hash map update per syscall costs several times more. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps");

/*
 * Kernels before 5.11 (Debian 11's 5.10) give tracing programs neither task
 * storage nor bpf_get_current_task_btf(): a CO-RE check of the kernel's
 * helper list picks, at load time, hash maps keyed by thread id instead,
 * whose entries go when their thread exits.  The verifier never sees the
 * branch not taken.
 */
#define HAVE_TASK_STORAGE \
	bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)

/* The task's run delay is there to read (CONFIG_SCHED_INFO, which
 * Debian's kernels and most others have): a load-time constant too. */
#define HAVE_RUN_DELAY bpf_core_field_exists(struct task_struct, sched_info)

#define THREAD_MAX 65536	/* threads with per-thread state, old kernels */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, THREAD_MAX);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight_tid SEC(".maps");

/*
 * The task a program runs for and its ids, as bpf_get_current_pid_tgid()
 * gives them, read once per run: each helper call costs a call and a
 * return, which the kernel's return thunks make dear
 * (docs/benchmarks-history.md §7.6).
 */
struct self {
	struct task_struct *task;	/* NULL without task storage */
	__u64 id;			/* tgid << 32 | pid */
};

static __always_inline void self_get(struct self *me)
{
	if (HAVE_TASK_STORAGE) {
		me->task = bpf_get_current_task_btf();
		me->id = (__u64)me->task->tgid << 32 | (__u32)me->task->pid;
	} else {
		me->task = NULL;
		me->id = bpf_get_current_pid_tgid();
	}
}

/* The entry of thread @me in @storage (task storage) or @by_tid (its hash
 * map twin), made from @zero if @create and missing; NULL if none. */
static __always_inline void *thread_of(const struct self *me, void *storage,
				       void *by_tid, const void *zero,
				       bool create)
{
	__u32 tid = (__u32)me->id;
	void *v;

	if (HAVE_TASK_STORAGE)
		return bpf_task_storage_get(storage, me->task, NULL, create ?
					    BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	v = bpf_map_lookup_elem(by_tid, &tid);
	if (!v && create) {
		bpf_map_update_elem(by_tid, &tid, zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(by_tid, &tid);
	}
	return v;
}

/* The same for the current thread. */
static __always_inline void *thread_get(void *storage, void *by_tid,
					const void *zero, bool create)
{
	struct self me;

	self_get(&me);
	return thread_of(&me, storage, by_tid, zero, create);
}

/* Never written: the first state of a thread on old kernels. */
static const struct inflight inflight_zero;

static __always_inline struct inflight *inflight_of(const struct self *me,
						    bool create)
{
	return thread_of(me, &inflight, &inflight_tid, &inflight_zero, create);
}

static __always_inline struct inflight *inflight_get(bool create)
{
	return thread_get(&inflight, &inflight_tid, &inflight_zero, create);
}

/*
 * Interrupt work: device interrupts, soft interrupts, high-resolution
 * timers (sleeps, timeouts, the scheduler's tick), counted per CPU by
 * their tracepoints' entries and exits.  Its time is not the interrupted
 * thread's work, though a kernel without CONFIG_IRQ_TIME_ACCOUNTING
 * charges it to the thread's runtime: the I/O completions of a slow
 * device would count as the program's computing.  Each thread's share is
 * summed (struct inflight's irq_ns) and kept out of its on-CPU times.
 * With --sync, a wake inside interrupt work is no task's (the task it
 * interrupted did not end the sleep).  (The kernel's own preempt count
 * says the same, but its per-CPU symbol is not in every kernel's symbol
 * table.)  A soft interrupt run in a task's context at its end
 * (local_bh_enable: a loopback TCP send) counts as interrupt work too.
 * No CPU switches tasks inside interrupt work, so each switch sets its
 * CPU's depth back to 0: an entry whose exit came before the exit's
 * program was attached leaves no lasting count.
 */
struct irq_cpu {
	__s32 depth;
	__u32 pad;
	__u64 since;		/* the outermost entry's time */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irq_cpu);
} irq_cpus SEC(".maps");

static __always_inline struct irq_cpu *irq_cpu_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&irq_cpus, &zero);
}

static __always_inline int irq_enter(void)
{
	struct irq_cpu *c = irq_cpu_get();

	if (c && c->depth++ == 0)
		c->since = bpf_ktime_get_ns();
	return 0;
}

/* An exit whose entry came before the probe was attached leaves 0.  The
 * outermost exit charges the time to the interrupted thread, if it is
 * one the probe keeps state for. */
static __always_inline int irq_exit(void)
{
	struct irq_cpu *c = irq_cpu_get();
	struct inflight *in;

	if (!c || c->depth <= 0 || --c->depth > 0 || !c->since)
		return 0;
	in = inflight_get(false);
	if (in)
		in->irq_ns += bpf_ktime_get_ns() - c->since;
	c->since = 0;
	return 0;
}

static __always_inline bool in_interrupt_ctx(void)
{
	struct irq_cpu *c = irq_cpu_get();

	return c && c->depth > 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(on_irq_entry) { return irq_enter(); }
SEC("tp_btf/irq_handler_exit")
int BPF_PROG(on_irq_exit) { return irq_exit(); }
SEC("tp_btf/softirq_entry")
int BPF_PROG(on_softirq_entry) { return irq_enter(); }
SEC("tp_btf/softirq_exit")
int BPF_PROG(on_softirq_exit) { return irq_exit(); }
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(on_hrtimer_entry) { return irq_enter(); }
SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(on_hrtimer_exit) { return irq_exit(); }

/* The current task, for CO-RE reads on every kernel. */
static __always_inline struct task_struct *current_task(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

/*
 * The current thread's time on a CPU, as the scheduler accounts it
 * (se.sum_exec_runtime, ns), its context switches (nvcsw + nivcsw), and
 * the ns it has waited runnable for a CPU (sched_info.run_delay; 0 on a
 * kernel built without CONFIG_SCHED_INFO, where the member is absent).
 * The scheduler adds to the runtime only at its ticks and at switches, so
 * it lags by up to a tick; the switch count is exact, and so is the run
 * delay of a running thread (added when it was switched in).
 */
static __always_inline void cpu_read(const struct self *me, __u64 *rt,
				     __u64 *sw, __u64 *rq)
{
	struct task_struct *t = me->task;

	if (HAVE_TASK_STORAGE) {
		*rt = t->se.sum_exec_runtime;
		*sw = t->nvcsw + t->nivcsw;
		*rq = HAVE_RUN_DELAY ? t->sched_info.run_delay : 0;
	} else {
		t = current_task();
		*rt = BPF_CORE_READ(t, se.sum_exec_runtime);
		*sw = BPF_CORE_READ(t, nvcsw) + BPF_CORE_READ(t, nivcsw);
		*rq = HAVE_RUN_DELAY ? BPF_CORE_READ(t, sched_info.run_delay)
				     : 0;
	}
}

/*
 * On-CPU ns of a span of @span ns that began with runtime @rt0, @sw0
 * switches and @irq0 ns of interrupt work and ends with @rt1, @sw1 and
 * @irq1: all of it if the thread was never switched out (exact), else the
 * runtime's growth (a tick's lag at each end), at most @span; less the
 * interrupt work in it.
 */
static __always_inline __u64 cpu_span(__u64 span, __u64 rt0, __u64 sw0,
				      __u64 irq0, __u64 rt1, __u64 sw1,
				      __u64 irq1)
{
	__u64 d = rt1 > rt0 ? rt1 - rt0 : 0, irq = irq1 - irq0;

	if (sw1 == sw0 || d > span)
		d = span;
	return d > irq ? d - irq : 0;
}

/* At an entry at @now: the on-CPU ns since the thread's last event sent
 * ended, and the values its exit measures from. */
static __always_inline void cpu_enter(const struct self *me,
				      struct inflight *in, __u64 now)
{
	__u64 rt, sw, rq;

	cpu_read(me, &rt, &sw, &rq);
	in->gap_known = in->mark_ns && now >= in->mark_ns;
	if (in->gap_known) {
		in->cpu_gap = cpu_span(now - in->mark_ns, in->mark_cpu,
				       in->mark_sw, in->mark_irq, rt, sw,
				       in->irq_ns);
		in->rq_gap = rq > in->mark_rq ? rq - in->mark_rq : 0;
	}
	in->cpu_at = rt;
	in->sw_at = sw;
	in->irq_at = in->irq_ns;
}

/* At the exit of the call whose event @ev is sent: its on-CPU times, and
 * the mark the thread's next event measures from. */
static __always_inline void cpu_exit(const struct self *me,
				     struct inflight *in,
				     struct ioriot_event *ev)
{
	__u64 rt, sw, rq;

	cpu_read(me, &rt, &sw, &rq);
	ev->cpu_call = cpu_span(ev->dur_ns, in->cpu_at, in->sw_at, in->irq_at,
				rt, sw, in->irq_ns);
	ev->flags |= IORIOT_EV_CPU_CALL;
	if (in->gap_known) {
		ev->cpu_gap = in->cpu_gap;
		ev->flags |= IORIOT_EV_CPU_GAP;
		if (HAVE_RUN_DELAY) {
			ev->runq_gap = in->rq_gap;
			ev->flags |= IORIOT_EV_RUNQ_GAP;
		}
	}
	in->mark_ns = ev->time_ns + ev->dur_ns;
	in->mark_cpu = rt;
	in->mark_rq = rq;
	in->mark_sw = sw;
	in->mark_irq = in->irq_ns;
}

/* -x PID: the process and its descendants. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* --cgroup: per process, 2 if it is in the cgroup, 1 if not, as found at
 * its first event on its own thread (the records of its rings' and AIO
 * contexts' completions run on others). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} cgroup_verdict SEC(".maps");

/* What an exit handler reads beyond the arguments. */
enum extra_kind {
	EX_NONE,
	EX_STAT1,	/* struct stat at argument 1 */
	EX_STAT2,	/* struct stat at argument 2 */
	EX_STATX,	/* struct statx at argument 4 */
	EX_SENDFILE,	/* loff_t *offset at argument 2, read at entry */
	EX_COPY,	/* loff_t * at arguments 1 and 3, read at entry */
	EX_OPENAT2,	/* struct open_how at argument 2, read at entry */
	EX_IOV,		/* iovec array at argument 1, count at 2: summed */
	EX_READLINK,	/* the second "path" is the link target readlink
			 * wrote: RET bytes, no NUL */
	EX_AIOCTX,	/* io_setup: the aio_context_t at argument 1, read
			 * at exit */
	EX_URING_SETUP,	/* io_uring_setup: flags and cq_entries of the
			 * struct io_uring_params at argument 1, at exit */
	EX_FCNTL,	/* a lock command's struct flock at argument 2, read
			 * at entry */
	EX_IOCTL,	/* FICLONE's source size, FICLONERANGE's struct
			 * file_clone_range, FIDEDUPERANGE's struct
			 * file_dedupe_range at argument 2, read at entry */
	EX_SETXATTR,	/* a three-entry POSIX ACL value at argument 2 (its
			 * size at 3), read at exit */
	EX_XATTRAT,	/* struct xattr_args at argument 4, read at entry */
	EX_SETXATTRAT,	/* both: the ACL value from struct xattr_args */
};

/* fcntl lock commands (asm-generic/fcntl.h, as on x86_64). */
#define F_GETLK_ 5
#define F_SETLK_ 6
#define F_SETLKW_ 7
#define F_OFD_GETLK_ 36
#define F_OFD_SETLK_ 37
#define F_OFD_SETLKW_ 38

/* The ioctl commands captured (linux/fs.h); others are counted as not
 * captured under ioctl. */
#define FICLONE_ 0x40049409u
#define FICLONERANGE_ 0x4020940du
#define FIDEDUPERANGE_ 0xc0189436u

/* A POSIX ACL xattr (linux/posix_acl_xattr.h): a 4-byte version, then
 * 8-byte entries of tag, permissions and id. */
#define ACL_VERSION_ 2
#define ACL_MINIMAL_SIZE (4 + 3 * 8)

#define IOV_MAX_SUMMED 8	/* more iovecs: the record has no total */

/* Open flags that make a new inode (x86_64 values; O_TMPFILE is
 * __O_TMPFILE | O_DIRECTORY). */
#define OPEN_O_CREAT 0100
#define OPEN_O_TMPFILE_BIT 020000000
#define SOCK_AF_UNIX 1

/* The deepest cgroup level --cgroup looks up from a task's cgroup. */
#define CGROUP_DEPTH_MAX 32

/* Whether the current task is in cgroup targ_cgroup or below. */
static __always_inline bool current_in_cgroup(void)
{
	struct css_set *cset = BPF_CORE_READ(current_task(), cgroups);
	struct cgroup *cg = NULL;

	if (targ_cgroup_ssid < 0) {
		cg = BPF_CORE_READ(cset, dfl_cgrp);
	} else {
		struct cgroup_subsys_state **subsys = (void *)cset +
			bpf_core_field_offset(struct css_set, subsys);
		struct cgroup_subsys_state *css = NULL;

		bpf_probe_read_kernel(&css, sizeof(css), subsys +
				      (targ_cgroup_ssid & 15));
		cg = BPF_CORE_READ(css, cgroup);
	}
	for (int i = 0; i < CGROUP_DEPTH_MAX && cg; i++) {
		if (BPF_CORE_READ(cg, kn, id) == targ_cgroup)
			return true;
		cg = BPF_CORE_READ(cg, self.parent, cgroup);
	}
	return false;
}

/* Whether process @tgid is in the cgroup: looked up for the current
 * task's process, then remembered. */
static __always_inline bool in_cgroup(__u32 tgid)
{
	__u8 *verdict = bpf_map_lookup_elem(&cgroup_verdict, &tgid), v;

	if (verdict)
		return *verdict == 2;
	if (tgid != bpf_get_current_pid_tgid() >> 32)
		return false;
	v = current_in_cgroup() ? 2 : 1;
	bpf_map_update_elem(&cgroup_verdict, &tgid, &v, BPF_ANY);
	return v == 2;
}

static __always_inline bool wanted(__u32 tgid)
{
	if (stopped || tgid == own_tgid)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&tracked, &tgid))
		return false;
	if (filter_cgroup && !in_cgroup(tgid))
		return false;
	if (filter_comm) {
		/* The process's name (its leader's): threads often rename
		 * themselves (java's workers do). */
		struct task_struct *task = current_task();
		char comm[16];
		BPF_CORE_READ_STR_INTO(&comm, task, group_leader, comm);
		for (int i = 0; i < 16; i++) {
			if (comm[i] != targ_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	return true;
}

static __always_inline __u64 read_user_u64(__u64 uptr)
{
	__u64 v = 0;

	if (uptr)
		bpf_probe_read_user(&v, sizeof(v), (const void *)uptr);
	return v;
}

/*
 * The umask the kernel applies to the mode of the inode the call makes:
 * the calling task's at entry (fs_struct, shared by the tasks cloned
 * with CLONE_FS), so processes that were there before the capture, and
 * threads with or without a umask of their own, are alike.
 */
static __always_inline void take_umask(struct inflight *in)
{
	struct task_struct *task = current_task();

	in->umask = BPF_CORE_READ(task, fs, umask);
	in->flags |= IORIOT_EV_UMASK;
}

/* Whether the call @sys (@in: its arguments) makes an inode whose mode
 * the umask masks: an open with O_CREAT or O_TMPFILE, mkdir, mknod. */
static __always_inline bool makes_inode(__u32 sys, const struct inflight *in)
{
	__u64 open_flags;

	switch (sys) {
	case SYS_CREAT: case SYS_MKDIR: case SYS_MKDIRAT: case SYS_MKNOD:
	case SYS_MKNODAT:
		return true;
	case SYS_OPEN:
		open_flags = in->args[1];
		break;
	case SYS_OPENAT:
		open_flags = in->args[2];
		break;
	case SYS_OPENAT2:
		if (!(in->flags & IORIOT_EV_HOW))
			return false;
		open_flags = in->extra[0];
		break;
	default:
		return false;
	}
	return open_flags & (OPEN_O_CREAT | OPEN_O_TMPFILE_BIT);
}

/* The size of the file open on fd @fd of the current task, if any. */
static __always_inline bool fd_file_size(__s64 fd, __u64 *size)
{
	struct task_struct *task = current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *f = NULL;

	if (!fdt || fd < 0 || fd >= BPF_CORE_READ(fdt, max_fds))
		return false;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd) || !f)
		return false;
	*size = BPF_CORE_READ(f, f_inode, i_size);
	return true;
}

/* What ioctl's argument points to, read at entry (IORIOT_EV_IOCTL_ARGS):
 * the argument's place takes the source fd or the destination count, the
 * free places after it the ranges; FIDEDUPERANGE keeps the pointer in
 * extra[1] for its exit, which reads the results. */
static __always_inline void ioctl_args(struct inflight *in)
{
	__u32 cmd = (__u32)in->args[1];
	__u64 arg = in->args[2];
	__u16 count = 0;

	if (cmd == FIDEDUPERANGE_) {
		in->args[3] = read_user_u64(arg);	/* src_offset */
		in->args[4] = read_user_u64(arg + 8);	/* src_length */
		bpf_probe_read_user(&count, sizeof(count), (void *)(arg + 16));
		in->args[2] = count;
		in->extra[1] = arg;
		in->flags |= IORIOT_EV_IOCTL_ARGS;
		return;
	}
	if (cmd == FICLONERANGE_) {
		in->args[2] = read_user_u64(arg);	/* src_fd */
		in->args[3] = read_user_u64(arg + 8);	/* src_offset */
		in->args[4] = read_user_u64(arg + 16);	/* src_length */
		in->args[5] = read_user_u64(arg + 24);	/* dest_offset */
		in->flags |= IORIOT_EV_IOCTL_ARGS;
	}
	if (fd_file_size((__s32)in->args[2], &in->extra[0]))
		in->flags |= IORIOT_EV_SRC_SIZE;
}

/* A syscall as its programs see it: number and arguments at entry, the
 * result at exit, from the registers the raw tracepoints pass. */
struct sys_ctx {
	long id;
	__u64 args[6];
	long ret;
};

#if defined(__TARGET_ARCH_x86)
#define SYSCALL_NR(regs) ((regs)->orig_ax)
#define SYSCALL_ARG(regs, i) ((i) == 0 ? (regs)->di : (i) == 1 ? (regs)->si :	\
			      (i) == 2 ? (regs)->dx : (i) == 3 ? (regs)->r10 :	\
			      (i) == 4 ? (regs)->r8 : (regs)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_NR(regs) ((regs)->syscallno)
#define SYSCALL_ARG(regs, i) ((i) == 0 ? (regs)->orig_x0 : (regs)->regs[i])
#else
#error "the capture reads syscall arguments from x86-64 or arm64 registers"
#endif

/* @c from the registers at the entry of syscall @id. */
static __always_inline void sys_ctx_enter(struct sys_ctx *c,
					  const struct pt_regs *regs, long id)
{
	c->id = id;
	c->ret = 0;
	for (int i = 0; i < 6; i++)
		c->args[i] = SYSCALL_ARG(regs, i);
}

/*
 * SYS_ENTER(name) { body } defines syscall @name's entry program, a tail
 * call target of on_sys_enter, whose body sees `const struct sys_ctx
 * *ctx`; SYS_EXIT(name) its exit program.  The loader finds them by their
 * names, enter_NAME and exit_NAME.
 */
#define SYS_ENTER(name)								\
static __always_inline int enter_##name##_body(const struct sys_ctx *ctx);	\
SEC("tp_btf/sys_enter")								\
int BPF_PROG(enter_##name, struct pt_regs *regs, long id)			\
{										\
	struct sys_ctx c;							\
										\
	sys_ctx_enter(&c, regs, id);						\
	return enter_##name##_body(&c);						\
}										\
static __always_inline int enter_##name##_body(const struct sys_ctx *ctx)

#define SYS_EXIT(name)								\
static __always_inline int exit_##name##_body(const struct sys_ctx *ctx);	\
SEC("tp_btf/sys_exit")								\
int BPF_PROG(exit_##name, struct pt_regs *regs, long ret)			\
{										\
	struct sys_ctx c = { .id = SYSCALL_NR(regs), .ret = ret };		\
										\
	return exit_##name##_body(&c);						\
}										\
static __always_inline int exit_##name##_body(const struct sys_ctx *ctx)

static __always_inline struct inflight *
enter_common(const struct self *me, const struct sys_ctx *ctx, __u32 sys,
	     int nargs, enum extra_kind kind)
{
	struct inflight *in = NULL;

	/* With -x, a thread that has state is one the filter let in before,
	 * and stays in until its process exits: one look-up instead of the
	 * filter's hash look-up and then the state's. */
	if (filter_tgid && !filter_comm && !filter_cgroup && !stopped)
		in = inflight_of(me, false);
	if (!in) {
		if (me->id != calib_id && !wanted(me->id >> 32))
			return NULL;
		in = inflight_of(me, true);
		if (!in) {
			__sync_fetch_and_add(&lost_events, 1);
			return NULL;
		}
	}
	in->time_ns = bpf_ktime_get_ns();
	cpu_enter(me, in, in->time_ns);
	in->sys = sys;
	in->nr = (__u16)ctx->id;
	in->flags = 0;
	in->umask = 0;
	/* Only the syscall's own arguments: the registers of the others
	 * hold whatever the caller left there. */
	in->args[0] = nargs > 0 ? ctx->args[0] : 0;
	in->args[1] = nargs > 1 ? ctx->args[1] : 0;
	in->args[2] = nargs > 2 ? ctx->args[2] : 0;
	in->args[3] = nargs > 3 ? ctx->args[3] : 0;
	in->args[4] = nargs > 4 ? ctx->args[4] : 0;
	in->args[5] = nargs > 5 ? ctx->args[5] : 0;
	/* In-out arguments must be read before the kernel changes them. */
	if (kind == EX_SENDFILE && in->args[2]) {
		in->extra[0] = read_user_u64(in->args[2]);
		in->flags |= IORIOT_EV_OFFSET;
	} else if (kind == EX_COPY) {
		if (in->args[1]) {
			in->extra[0] = read_user_u64(in->args[1]);
			in->flags |= IORIOT_EV_OFFSET;
		}
		if (in->args[3]) {
			in->extra[1] = read_user_u64(in->args[3]);
			in->flags |= IORIOT_EV_OFFSET2;
		}
	} else if (kind == EX_IOV && in->args[2] <= IOV_MAX_SUMMED) {
		/* The bytes asked for, as read and write have them in count. */
		__u64 total = 0;
		for (int i = 0; i < IOV_MAX_SUMMED; i++) {
			if (i >= in->args[2])
				break;
			total += read_user_u64(in->args[1] + i * 16 + 8);
		}
		in->extra[0] = total;
		in->flags |= IORIOT_EV_IOV;
	} else if (kind == EX_OPENAT2 && in->args[2]) {
		in->extra[0] = read_user_u64(in->args[2]);	/* how->flags */
		in->extra[1] = read_user_u64(in->args[2] + 8);	/* how->mode */
		in->flags |= IORIOT_EV_HOW;
	} else if (kind == EX_FCNTL && in->args[2]) {
		__u32 cmd = (__u32)in->args[1];
		__u32 type_whence = 0;

		if (cmd == F_GETLK_ || cmd == F_SETLK_ || cmd == F_SETLKW_ ||
		    cmd == F_OFD_GETLK_ || cmd == F_OFD_SETLK_ ||
		    cmd == F_OFD_SETLKW_) {
			/* struct flock: short l_type, l_whence; off_t
			 * l_start, l_len; ... */
			bpf_probe_read_user(&type_whence, sizeof(type_whence),
					    (void *)in->args[2]);
			in->extra[0] = read_user_u64(in->args[2] + 8);
			in->extra[1] = read_user_u64(in->args[2] + 16);
			in->args[2] = type_whence;
			in->flags |= IORIOT_EV_FLOCK;
		}
	} else if (kind == EX_IOCTL) {
		ioctl_args(in);
	} else if ((kind == EX_XATTRAT || kind == EX_SETXATTRAT) &&
		   in->args[4]) {
		/* struct xattr_args: __u64 value; __u32 size, flags; */
		in->extra[0] = read_user_u64(in->args[4]);
		in->extra[1] = read_user_u64(in->args[4] + 8);
		in->flags |= IORIOT_EV_XATTR_ARGS;
	}
	if (makes_inode(sys, in))
		take_umask(in);
	return in;
}

/* The entry of syscall @sys with @nargs arguments: its state for the exit
 * (its own exit program's), if its process is captured.  Returns 0. */
static __always_inline int on_enter(const struct sys_ctx *ctx, __u32 sys,
				    int nargs, enum extra_kind kind)
{
	struct self me;

	self_get(&me);
	enter_common(&me, ctx, sys, nargs, kind);
	return 0;
}

/* Read user string @uptr into @dst; returns its length without the NUL, or
 * 0 with IORIOT_EV_PATH_CUT set if it did not fit or could not be read. */
static __always_inline __u16 read_path(char *dst, __u64 uptr, __u32 *flags)
{
	long n;

	if (!uptr)
		return 0;
	n = bpf_probe_read_user_str(dst, IORIOT_EV_PATH_MAX, (const void *)uptr);
	if (n == IORIOT_EV_PATH_MAX) {
		/* Full buffer: a path of exactly PATH_MAX - 1 bytes fits only
		 * if its NUL is where the read put one. */
		char next = 1;
		bpf_probe_read_user(&next, 1, (const void *)(uptr + n - 1));
		if (next == 0)
			return (__u16)(n - 1);
	}
	if (n <= 0 || n >= IORIOT_EV_PATH_MAX) {
		if (n != 1)
			*flags |= IORIOT_EV_PATH_CUT;
		return 0;
	}
	return (__u16)(n - 1);
}

/* The @n bytes readlink wrote at user @uptr (no NUL) into @dst, for the
 * record's second path; 0 bytes when there are none or too many. */
static __always_inline __u16 read_target(char *dst, __u64 uptr, long n,
					 __u32 *flags)
{
	__u32 size;

	if (n <= 0 || !uptr)
		return 0;
	if (n >= IORIOT_EV_PATH_MAX) {
		*flags |= IORIOT_EV_PATH_CUT;
		return 0;
	}
	size = (__u32)n & (IORIOT_EV_PATH_MAX - 1);
	if (bpf_probe_read_user(dst, size, (const void *)uptr))
		return 0;
	return (__u16)size;
}

/* st_size and st_mode of the struct stat/statx at user @buf. */
static __always_inline void read_stat(struct ioriot_event *ev, __u64 buf,
				      bool statx)
{
	__u64 size = 0;
	__u32 mode = 0;
	__u16 xmode = 0;

	if (!buf)
		return;
	if (statx) {
		bpf_probe_read_user(&size, sizeof(size),
				    (void *)(buf + offsetof(struct statx, stx_size)));
		bpf_probe_read_user(&xmode, sizeof(xmode),
				    (void *)(buf + offsetof(struct statx, stx_mode)));
		mode = xmode;
	} else {
		bpf_probe_read_user(&size, sizeof(size),
				    (void *)(buf + offsetof(struct stat, st_size)));
		bpf_probe_read_user(&mode, sizeof(mode),
				    (void *)(buf + offsetof(struct stat, st_mode)));
	}
	ev->extra[0] = size;
	ev->extra[1] = mode;
	ev->flags |= IORIOT_EV_STAT;
}

/*
 * A setxattr of a POSIX ACL (a name system.posix_acl_...) of three entries
 * (user, group, other: what cp -a and tar set, a mode in ACL form): its
 * permissions as mode bits in extra[0] (IORIOT_EV_ACL).  The value is
 * data otherwise; only this form of it is a mode.  @name is the name read
 * (@len bytes), @value and @size the value's user address and size.
 */
static __always_inline void read_acl(struct ioriot_event *ev, const char *name,
				     __u32 len, __u64 value, __u64 size)
{
	static const char prefix[] = "system.posix_acl_";
	__u8 acl[ACL_MINIMAL_SIZE];

	if (size != ACL_MINIMAL_SIZE || len < sizeof(prefix) - 1 || !value)
		return;
	for (int i = 0; i < (int)sizeof(prefix) - 1; i++)
		if (name[i] != prefix[i])
			return;
	if (bpf_probe_read_user(acl, sizeof(acl), (void *)value))
		return;
	/* Little-endian fields: version 2, tags 0x01, 0x04, 0x20. */
	if (acl[0] != ACL_VERSION_ || acl[1] || acl[2] || acl[3] ||
	    acl[4] != 0x01 || acl[5] || acl[12] != 0x04 || acl[13] ||
	    acl[20] != 0x20 || acl[21])
		return;
	ev->extra[0] = (acl[6] & 7) << 6 | (acl[14] & 7) << 3 | (acl[22] & 7);
	ev->flags |= IORIOT_EV_ACL;
}

/* Fill the fixed part of an event from the exit context and @in, all but
 * its duration (the caller's: set_end()). */
static __always_inline void fill(struct ioriot_event *ev, __u64 id, __u32 sys,
				 const struct inflight *in, long ret)
{
	ev->time_ns = in->time_ns;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->sys = sys;
	ev->flags = in->flags;
	ev->ret = ret;
	for (int i = 0; i < 6; i++)
		ev->args[i] = in->args[i];
	ev->extra[0] = in->extra[0];
	ev->extra[1] = in->extra[1];
	ev->path_len[0] = ev->path_len[1] = 0;
	ev->umask = in->umask;
	ev->cpu_gap = ev->cpu_call = ev->runq_gap = 0;
}

/*
 * The call of @ev ends now, on its thread's clock and CPU time.  Called
 * once the probe's work at the exit is done, just before the record is
 * committed: that work (paths and results read, the ring) is the call's
 * as the program saw it under capture, and none of it is left in the gap
 * to the thread's next call, which --think replays (capture-format §4.1).
 */
static __always_inline void set_end(const struct self *me,
				    struct inflight *in,
				    struct ioriot_event *ev)
{
	ev->dur_ns = bpf_ktime_get_ns() - in->time_ns;
	cpu_exit(me, in, ev);
}

/* Send the event of the syscall whose entry left @in, if it is @sys's;
 * @p1 and @p2 are its path arguments (-1: none), @kind what else to
 * read.  Returns 0. */
static __always_inline int exit_with(const struct self *me,
				     const struct sys_ctx *ctx,
				     struct inflight *in, __u32 sys, int p1,
				     int p2, enum extra_kind kind)
{
	struct scratch *s;
	__u32 len0 = 0, len1 = 0;
	struct rec out;

	/* An exit pairs with its own entry only (attaching takes a while:
	 * a syscall may have entered before its entry was attached). */
	if (!in || !in->time_ns || in->sys != sys)
		return 0;
	s = rec_begin(&out);
	if (!s) {
		__sync_fetch_and_add(&lost_events, 1);
		goto done;
	}
	fill(&s->ev, me->id, sys, in, ctx->ret);
	if (p1 >= 0)
		len0 = read_path(s->paths, in->args[p1 & 7], &s->ev.flags);
	if (p2 >= 0 && kind == EX_READLINK)
		len1 = read_target(s->paths + (len0 & (IORIOT_EV_PATH_MAX - 1)),
				   in->args[p2 & 7], ctx->ret, &s->ev.flags);
	else if (p2 >= 0)
		len1 = read_path(s->paths + (len0 & (IORIOT_EV_PATH_MAX - 1)),
				 in->args[p2 & 7], &s->ev.flags);
	if (ctx->ret == 0) {
		if (kind == EX_STAT1)
			read_stat(&s->ev, in->args[1], false);
		else if (kind == EX_STAT2)
			read_stat(&s->ev, in->args[2], false);
		else if (kind == EX_STATX)
			read_stat(&s->ev, in->args[4], true);
		else if (kind == EX_SETXATTR)
			read_acl(&s->ev, s->paths + (len0 & (IORIOT_EV_PATH_MAX - 1)),
				 len1, in->args[2], in->args[3]);
		else if (kind == EX_SETXATTRAT &&
			 (in->flags & IORIOT_EV_XATTR_ARGS))
			read_acl(&s->ev, s->paths + (len0 & (IORIOT_EV_PATH_MAX - 1)),
				 len1, in->extra[0], (__u32)in->extra[1]);
		else if (kind == EX_AIOCTX && in->args[1]) {
			s->ev.extra[0] = read_user_u64(in->args[1]);
			s->ev.flags |= IORIOT_EV_AIOCTX;
		}
	}
	/* The size of the file an open found: INIT makes it so (a log
	 * preallocated before the capture is overwritten, not appended). */
	if (ctx->ret >= 0 && (sys == SYS_OPEN || sys == SYS_OPENAT ||
			      sys == SYS_OPENAT2 || sys == SYS_CREAT) &&
	    fd_file_size(ctx->ret, &s->ev.args[5]))
		s->ev.flags |= IORIOT_EV_OPEN_SIZE;
	if (kind == EX_URING_SETUP && ctx->ret >= 0 && in->args[1]) {
		__u32 v = 0;

		bpf_probe_read_user(&v, sizeof(v), (void *)(in->args[1] +
				    offsetof(struct io_uring_params, flags)));
		s->ev.extra[0] = v;
		v = 0;
		bpf_probe_read_user(&v, sizeof(v), (void *)(in->args[1] +
				    offsetof(struct io_uring_params, cq_entries)));
		s->ev.extra[1] = v;
		s->ev.flags |= IORIOT_EV_URING_SETUP;
	}
	set_end(me, in, &s->ev);
	rec_end(&out, len0 & (IORIOT_EV_PATH_MAX - 1),
		len1 & (IORIOT_EV_PATH_MAX - 1));
done:
	in->time_ns = 0;	/* consumed: an exit without entry sends nothing */
	return 0;
}

static __always_inline int on_exit(const struct sys_ctx *ctx, __u32 sys,
				   int p1, int p2, enum extra_kind kind)
{
	struct self me;

	self_get(&me);
	return exit_with(&me, ctx, inflight_of(&me, false), sys, p1, p2, kind);
}

/*
 * The syscalls on_sys_enter and on_sys_exit capture themselves, without a
 * program of their own: name (as the kernel's tracepoints spell it),
 * number of arguments, id, path arguments (-1: none), what else the exit
 * reads.  The loader maps each name to its number and fills nr_specs.
 */
#define TRACED(X) \
	X(open, 3, SYS_OPEN, 0, -1, EX_NONE) \
	X(openat, 4, SYS_OPENAT, 1, -1, EX_NONE) \
	X(openat2, 4, SYS_OPENAT2, 1, -1, EX_OPENAT2) \
	X(creat, 2, SYS_CREAT, 0, -1, EX_NONE) \
	X(close, 1, SYS_CLOSE, -1, -1, EX_NONE) \
	X(close_range, 3, SYS_CLOSE_RANGE, -1, -1, EX_NONE) \
	X(read, 3, SYS_READ, -1, -1, EX_NONE) \
	X(pread64, 4, SYS_PREAD64, -1, -1, EX_NONE) \
	X(readv, 3, SYS_READV, -1, -1, EX_IOV) \
	X(preadv, 5, SYS_PREADV, -1, -1, EX_IOV) \
	X(preadv2, 6, SYS_PREADV2, -1, -1, EX_IOV) \
	X(write, 3, SYS_WRITE, -1, -1, EX_NONE) \
	X(pwrite64, 4, SYS_PWRITE64, -1, -1, EX_NONE) \
	X(writev, 3, SYS_WRITEV, -1, -1, EX_IOV) \
	X(pwritev, 5, SYS_PWRITEV, -1, -1, EX_IOV) \
	X(pwritev2, 6, SYS_PWRITEV2, -1, -1, EX_IOV) \
	X(lseek, 3, SYS_LSEEK, -1, -1, EX_NONE) \
	X(sendfile64, 4, SYS_SENDFILE, -1, -1, EX_SENDFILE) \
	X(copy_file_range, 6, SYS_COPY_FILE_RANGE, -1, -1, EX_COPY) \
	X(fsync, 1, SYS_FSYNC, -1, -1, EX_NONE) \
	X(fdatasync, 1, SYS_FDATASYNC, -1, -1, EX_NONE) \
	X(sync, 0, SYS_SYNC, -1, -1, EX_NONE) \
	X(syncfs, 1, SYS_SYNCFS, -1, -1, EX_NONE) \
	X(sync_file_range, 4, SYS_SYNC_FILE_RANGE, -1, -1, EX_NONE) \
	X(fallocate, 4, SYS_FALLOCATE, -1, -1, EX_NONE) \
	X(ftruncate, 2, SYS_FTRUNCATE, -1, -1, EX_NONE) \
	X(truncate, 2, SYS_TRUNCATE, 0, -1, EX_NONE) \
	X(fadvise64, 4, SYS_FADVISE64, -1, -1, EX_NONE) \
	X(readahead, 3, SYS_READAHEAD, -1, -1, EX_NONE) \
	X(newstat, 2, SYS_STAT, 0, -1, EX_STAT1) \
	X(newlstat, 2, SYS_LSTAT, 0, -1, EX_STAT1) \
	X(newfstat, 2, SYS_FSTAT, -1, -1, EX_STAT1) \
	X(newfstatat, 4, SYS_NEWFSTATAT, 1, -1, EX_STAT2) \
	X(statx, 5, SYS_STATX, 1, -1, EX_STATX) \
	X(statfs, 2, SYS_STATFS, 0, -1, EX_NONE) \
	X(fstatfs, 2, SYS_FSTATFS, -1, -1, EX_NONE) \
	X(access, 2, SYS_ACCESS, 0, -1, EX_NONE) \
	X(faccessat, 3, SYS_FACCESSAT, 1, -1, EX_NONE) \
	X(faccessat2, 4, SYS_FACCESSAT2, 1, -1, EX_NONE) \
	X(getdents, 3, SYS_GETDENTS, -1, -1, EX_NONE) \
	X(getdents64, 3, SYS_GETDENTS64, -1, -1, EX_NONE) \
	X(mkdir, 2, SYS_MKDIR, 0, -1, EX_NONE) \
	X(mkdirat, 3, SYS_MKDIRAT, 1, -1, EX_NONE) \
	X(mknod, 3, SYS_MKNOD, 0, -1, EX_NONE) \
	X(mknodat, 4, SYS_MKNODAT, 1, -1, EX_NONE) \
	X(rmdir, 1, SYS_RMDIR, 0, -1, EX_NONE) \
	X(unlink, 1, SYS_UNLINK, 0, -1, EX_NONE) \
	X(unlinkat, 3, SYS_UNLINKAT, 1, -1, EX_NONE) \
	X(rename, 2, SYS_RENAME, 0, 1, EX_NONE) \
	X(renameat, 4, SYS_RENAMEAT, 1, 3, EX_NONE) \
	X(renameat2, 5, SYS_RENAMEAT2, 1, 3, EX_NONE) \
	X(link, 2, SYS_LINK, 0, 1, EX_NONE) \
	X(linkat, 5, SYS_LINKAT, 1, 3, EX_NONE) \
	X(symlink, 2, SYS_SYMLINK, 0, 1, EX_NONE) \
	X(symlinkat, 3, SYS_SYMLINKAT, 0, 2, EX_NONE) \
	X(readlink, 3, SYS_READLINK, 0, 1, EX_READLINK) \
	X(readlinkat, 4, SYS_READLINKAT, 1, 2, EX_READLINK) \
	X(chmod, 2, SYS_CHMOD, 0, -1, EX_NONE) \
	X(fchmod, 2, SYS_FCHMOD, -1, -1, EX_NONE) \
	X(fchmodat, 3, SYS_FCHMODAT, 1, -1, EX_NONE) \
	X(fchmodat2, 4, SYS_FCHMODAT2, 1, -1, EX_NONE) \
	X(chown, 3, SYS_CHOWN, 0, -1, EX_NONE) \
	X(fchown, 3, SYS_FCHOWN, -1, -1, EX_NONE) \
	X(lchown, 3, SYS_LCHOWN, 0, -1, EX_NONE) \
	X(fchownat, 5, SYS_FCHOWNAT, 1, -1, EX_NONE) \
	X(utimensat, 4, SYS_UTIMENSAT, 1, -1, EX_NONE) \
	X(fcntl, 3, SYS_FCNTL, -1, -1, EX_FCNTL) \
	X(dup, 1, SYS_DUP, -1, -1, EX_NONE) \
	X(dup2, 2, SYS_DUP2, -1, -1, EX_NONE) \
	X(dup3, 3, SYS_DUP3, -1, -1, EX_NONE) \
	X(chdir, 1, SYS_CHDIR, 0, -1, EX_NONE) \
	X(fchdir, 1, SYS_FCHDIR, -1, -1, EX_NONE) \
	X(msync, 3, SYS_MSYNC, -1, -1, EX_NONE) \
	X(madvise, 3, SYS_MADVISE, -1, -1, EX_NONE) \
	X(setxattr, 5, SYS_SETXATTR, 0, 1, EX_SETXATTR) \
	X(lsetxattr, 5, SYS_LSETXATTR, 0, 1, EX_SETXATTR) \
	X(fsetxattr, 5, SYS_FSETXATTR, -1, 1, EX_SETXATTR) \
	X(setxattrat, 6, SYS_SETXATTRAT, 1, 3, EX_SETXATTRAT) \
	X(getxattr, 4, SYS_GETXATTR, 0, 1, EX_NONE) \
	X(lgetxattr, 4, SYS_LGETXATTR, 0, 1, EX_NONE) \
	X(fgetxattr, 4, SYS_FGETXATTR, -1, 1, EX_NONE) \
	X(getxattrat, 6, SYS_GETXATTRAT, 1, 3, EX_XATTRAT) \
	X(listxattr, 3, SYS_LISTXATTR, 0, -1, EX_NONE) \
	X(llistxattr, 3, SYS_LLISTXATTR, 0, -1, EX_NONE) \
	X(flistxattr, 3, SYS_FLISTXATTR, -1, -1, EX_NONE) \
	X(listxattrat, 5, SYS_LISTXATTRAT, 1, -1, EX_NONE) \
	X(removexattr, 2, SYS_REMOVEXATTR, 0, 1, EX_NONE) \
	X(lremovexattr, 2, SYS_LREMOVEXATTR, 0, 1, EX_NONE) \
	X(fremovexattr, 2, SYS_FREMOVEXATTR, -1, 1, EX_NONE) \
	X(removexattrat, 4, SYS_REMOVEXATTRAT, 1, 3, EX_NONE) \
	X(flock, 2, SYS_FLOCK, -1, -1, EX_NONE) \
	X(splice, 6, SYS_SPLICE, -1, -1, EX_COPY) \
	X(tee, 4, SYS_TEE, -1, -1, EX_NONE) \
	X(io_setup, 2, SYS_IO_SETUP, -1, -1, EX_AIOCTX) \
	X(io_destroy, 1, SYS_IO_DESTROY, -1, -1, EX_NONE) \
	X(io_cancel, 3, SYS_IO_CANCEL, -1, -1, EX_NONE) \
	X(io_uring_setup, 2, SYS_IO_URING_SETUP, -1, -1, EX_URING_SETUP) \
	X(io_uring_enter, 6, SYS_IO_URING_ENTER, -1, -1, EX_NONE)

#define TRACE_SPEC(name, nargs, sys, p1, p2, kind) \
	{ #name, sys, nargs, p1, p2, kind },
const volatile struct trace_spec trace_specs[] = { TRACED(TRACE_SPEC) };

/* What on_sys_enter needs of a trace_specs entry, by syscall number, set
 * by the loader before load. */
const volatile struct nr_spec nr_specs[IORIOT_UNCAP_SLOTS] = {};


#include "capture_aio.bpf.h"

/*
 * ioctl: only FICLONE, FICLONERANGE and FIDEDUPERANGE are captured; every
 * other command of a captured process counts as an uncaptured ioctl (its
 * syscall number's counter, as if no program were attached).
 * FIDEDUPERANGE's exit sends one dedupe record per destination (at most
 * IORIOT_EV_DEDUPE_MAX; the rest count as lost) before the ioctl's own
 * event, all with its entry time, as io_submit's iocbs.
 */
SYS_ENTER(ioctl)
{
	__u32 cmd = (__u32)ctx->args[1];
	__u32 nr = (__u32)ctx->id;
	__u64 *count;

	if (cmd == FICLONE_ || cmd == FICLONERANGE_ || cmd == FIDEDUPERANGE_)
		return on_enter(ctx, SYS_IOCTL, 3, EX_IOCTL);
	if (nr >= IORIOT_UNCAP_OTHER_ABI || !wanted(bpf_get_current_pid_tgid() >> 32))
		return 0;
	count = bpf_map_lookup_elem(&uncaptured, &nr);
	if (count)
		*count += 1;
	return 0;
}

SYS_EXIT(ioctl)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = inflight_get(false);
	__u64 info, n;
	__u32 sent = 0;

	if (!in || !in->time_ns || in->sys != SYS_IOCTL)
		return 0;
	info = in->extra[1] + 24;	/* file_dedupe_range_info[] */
	n = in->args[2];
	for (int i = 0; (__u32)in->args[1] == FIDEDUPERANGE_ &&
			in->extra[1] && i < IORIOT_EV_DEDUPE_MAX; i++) {
		struct ioriot_event *ev;
		struct rec out;
		__s32 status = 0;

		if (i >= n)
			break;
		ev = rec_event(&out);
		if (!ev)
			break;
		fill(ev, id, SYS_DEDUPE, in, 0);
		ev->dur_ns = 0;
		ev->flags = 0;
		/* s64 dest_fd, u64 dest_offset, bytes_deduped, s32 status */
		ev->args[0] = read_user_u64(info + i * 32);
		ev->args[1] = read_user_u64(info + i * 32 + 8);
		ev->args[2] = read_user_u64(info + i * 32 + 16);
		bpf_probe_read_user(&status, sizeof(status),
				    (void *)(info + i * 32 + 24));
		ev->ret = status;
		ev->args[3] = ev->args[4] = ev->args[5] = 0;
		ev->extra[0] = ev->extra[1] = 0;
		rec_end(&out, 0, 0);
		sent++;
	}
	if ((__u32)in->args[1] == FIDEDUPERANGE_ && n > sent)
		__sync_fetch_and_add(&lost_events, n - sent);
	in->extra[1] = 0;
	return on_exit(ctx, SYS_IOCTL, -1, -1, EX_IOCTL);
}

#include "capture_uring.bpf.h"

/*
 * bind(2) of a Unix socket to a path makes a socket inode there, under
 * the umask: captured as an event with that path (sun_path, up to its
 * NUL or the address length).  Other binds (Internet addresses, abstract
 * Unix names) touch no file: counted as syscalls not captured, under
 * their syscall number (the tracepoint's id).
 */
#define SUN_PATH_MAX 108

SYS_ENTER(bind)
{
	__u64 addr = ctx->args[1], len = ctx->args[2];
	struct inflight *in;
	__u16 family = 0;
	char first = 0;

	if (!wanted(bpf_get_current_pid_tgid() >> 32))
		return 0;
	on_enter(ctx, SYS_BIND, 3, EX_NONE);
	in = inflight_get(false);
	if (!in || in->sys != SYS_BIND)
		return 0;
	/* The syscall tracepoints' record has an int __syscall_nr where
	 * raw_syscalls' has a long id: its low half. */
	in->extra[1] = (__u32)ctx->id;
	if (len > 2 && addr &&
	    !bpf_probe_read_user(&family, sizeof(family), (void *)addr) &&
	    family == SOCK_AF_UNIX &&
	    !bpf_probe_read_user(&first, 1, (void *)(addr + 2)) && first)
		take_umask(in);
	return 0;
}

SYS_EXIT(bind)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = inflight_get(false);
	__u32 nr, n, len = 0;
	struct scratch *s;
	struct self me;
	struct rec rec;
	__u64 *count;

	if (!in || !in->time_ns || in->sys != SYS_BIND)
		return 0;
	if (!(in->flags & IORIOT_EV_UMASK)) {
		nr = in->extra[1] < IORIOT_UNCAP_OTHER_ABI ?
		     (__u32)in->extra[1] : IORIOT_UNCAP_OTHER_ABI;
		count = bpf_map_lookup_elem(&uncaptured, &nr);
		if (count)
			*count += 1;
		goto out;
	}
	s = rec_begin(&rec);
	if (!s) {
		__sync_fetch_and_add(&lost_events, 1);
		goto out;
	}
	fill(&s->ev, id, SYS_BIND, in, ctx->ret);
	self_get(&me);
	set_end(&me, in, &s->ev);
	s->ev.extra[1] = 0;
	n = in->args[2] - 2 < SUN_PATH_MAX ? (__u32)(in->args[2] - 2) :
					      SUN_PATH_MAX;
	if (n > SUN_PATH_MAX)
		n = SUN_PATH_MAX;
	if (bpf_probe_read_user(s->paths, n, (void *)(in->args[1] + 2)))
		n = 0;
	for (int i = 0; i < SUN_PATH_MAX; i++) {
		if (i >= n || !s->paths[i])
			break;
		len++;
	}
	rec_end(&rec, len, 0);
out:
	in->time_ns = 0;
	return 0;
}

#include "capture_mmap.bpf.h"

/* exit_group does not return: sent at entry. */
SYS_ENTER(exit_group)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct scratch *s;
	struct rec rec;

	if (!wanted(id >> 32))
		return 0;
	if (!(s = rec_begin(&rec))) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	__builtin_memset(&s->ev, 0, sizeof(s->ev));
	s->ev.time_ns = bpf_ktime_get_ns();
	s->ev.pid = id >> 32;
	s->ev.tid = (__u32)id;
	s->ev.sys = SYS_EXIT_GROUP;
	s->ev.flags = IORIOT_EV_NO_RET;
	s->ev.args[0] = ctx->args[0];
	rec_end(&rec, 0, 0);
	return 0;
}

/* The entry of a TRACED syscall, number @nr: its state, with what its exit
 * reads, if its process is captured. */
static __always_inline int trace_enter(const struct self *me,
				       const struct pt_regs *regs, long id,
				       __u32 nr)
{
	const volatile struct nr_spec *spec = &nr_specs[nr];
	struct sys_ctx c;

	sys_ctx_enter(&c, regs, id);
	enter_common(me, &c, spec->sys, spec->nargs, spec->kind);
	return 0;
}

#ifdef __TARGET_ARCH_x86
#define X86_TS_COMPAT 0x0002	/* thread_info.status: an ia32 syscall */
#endif

/*
 * Every syscall of every task: a captured one is entered here (the TRACED
 * list) or by its own entry program, either after the process filter; the
 * others of the captured processes are counted.  Numbers first, the cheap test; the process
 * filter after.  The number of an ia32 syscall means another syscall:
 * counted in the other-ABI slot, as are x32 numbers (__X32_SYSCALL_BIT) and
 * all beyond the table.  A captured number without a program (fork, exec:
 * their process events have tracepoints of their own) ends here.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	__u32 nr = (__u32)id;
	struct self me;
	__u64 *count;

	if (id < 0)
		return 0;	/* skipped by seccomp or a tracer */
	self_get(&me);
#ifdef __TARGET_ARCH_x86
	if ((HAVE_TASK_STORAGE ? me.task->thread_info.status
			       : BPF_CORE_READ(current_task(), thread_info.status))
	    & X86_TS_COMPAT)
		nr = IORIOT_UNCAP_OTHER_ABI;
#endif
	if (id >= IORIOT_UNCAP_OTHER_ABI)
		nr = IORIOT_UNCAP_OTHER_ABI;
	else if (nr != IORIOT_UNCAP_OTHER_ABI && captured_nr[nr]) {
		if (nr_specs[nr].traced)
			return trace_enter(&me, regs, id, nr);
		bpf_tail_call(ctx, &enter_progs, nr);
		return 0;
	}
	if (!wanted(me.id >> 32))
		return 0;
	count = bpf_map_lookup_elem(&uncaptured, &nr);
	if (count)
		*count += 1;
	return 0;
}

/*
 * Every syscall's exit: a TRACED syscall's event is sent here, the others
 * go to the exit program of their number, if any.  Each sends only what
 * its own entry left (an ia32 syscall's number may name another, but its
 * entry left nothing).
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 nr = SYSCALL_NR(regs);
	const volatile struct nr_spec *spec;
	struct inflight *in;
	struct self me;

	if (nr >= IORIOT_UNCAP_OTHER_ABI || !captured_nr[nr])
		return 0;
	spec = &nr_specs[nr];
	if (!spec->traced) {
		bpf_tail_call(ctx, &exit_progs, (__u32)nr);
		return 0;
	}
	self_get(&me);
	in = inflight_of(&me, false);
	if (in && in->nr == nr) {
		struct sys_ctx c = { .id = (long)nr, .ret = ret };

		return exit_with(&me, &c, in, spec->sys, spec->p1, spec->p2,
				 spec->kind);
	}
	return 0;
}

#include "capture_tasks.bpf.h"
