/*
 * fields: puts the raw arguments of a probe record under the capture log's
 * keys, per syscall (x86_64 signatures).  Pure, so it is unit-tested.
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <string.h>

#include "ioriot/capture.h"

/*
 * Argument layouts: one character per syscall argument, in order.
 *   d e  fd (int)       p P  path (the string comes with the record)
 *   f    flags (int)    m    mode / prot (int)
 *   O    offset (64)    c    count / length (64)
 *   Q    second offset (64)
 *   W    whence (int)   F    fcntl command (int)   G  arg or gid
 *   U    uid (int)      a    address (64)          _  not logged
 *   A    second address (64): an iocb's user address, an io_uring
 *        request's user_data
 */
static const char *const layouts[SYS_COUNT] = {
	[SYS_OPEN] = "pfm", [SYS_OPENAT] = "dpfm", [SYS_OPENAT2] = "dp",
	[SYS_CREAT] = "pm", [SYS_CLOSE] = "d", [SYS_CLOSE_RANGE] = "def",
	[SYS_READ] = "d_c", [SYS_PREAD64] = "d_cO", [SYS_READV] = "d",
	[SYS_PREADV] = "d__O", [SYS_PREADV2] = "d__O_f",
	[SYS_WRITE] = "d_c", [SYS_PWRITE64] = "d_cO", [SYS_WRITEV] = "d",
	[SYS_PWRITEV] = "d__O", [SYS_PWRITEV2] = "d__O_f",
	[SYS_LSEEK] = "dOW", [SYS_SENDFILE] = "de_c",
	[SYS_COPY_FILE_RANGE] = "d_e_cf", [SYS_FSYNC] = "d",
	[SYS_FDATASYNC] = "d", [SYS_SYNC] = "", [SYS_SYNCFS] = "d",
	[SYS_SYNC_FILE_RANGE] = "dOcf", [SYS_FALLOCATE] = "dmOc",
	[SYS_FTRUNCATE] = "dc", [SYS_TRUNCATE] = "pc",
	[SYS_FADVISE64] = "dOcf", [SYS_READAHEAD] = "dOc",
	[SYS_STAT] = "p", [SYS_LSTAT] = "p", [SYS_FSTAT] = "d",
	[SYS_NEWFSTATAT] = "dp_f", [SYS_STATX] = "dpf", [SYS_STATFS] = "p",
	[SYS_FSTATFS] = "d", [SYS_ACCESS] = "pm", [SYS_FACCESSAT] = "dpm",
	[SYS_FACCESSAT2] = "dpmf", [SYS_GETDENTS] = "d_c",
	[SYS_GETDENTS64] = "d_c", [SYS_MKDIR] = "pm", [SYS_MKDIRAT] = "dpm",
	/* mknod's device number is not logged; bind's path comes from its
	 * sockaddr_un with the record, its socket fd is not logged. */
	[SYS_MKNOD] = "pm", [SYS_MKNODAT] = "dpm", [SYS_BIND] = "",
	[SYS_RMDIR] = "p", [SYS_UNLINK] = "p", [SYS_UNLINKAT] = "dpf",
	[SYS_RENAME] = "pP", [SYS_RENAMEAT] = "dpeP",
	[SYS_RENAMEAT2] = "dpePf", [SYS_LINK] = "pP", [SYS_LINKAT] = "dpePf",
	[SYS_SYMLINK] = "pP", [SYS_SYMLINKAT] = "pdP",
	[SYS_READLINK] = "pPc", [SYS_READLINKAT] = "dpPc",
	[SYS_CHMOD] = "pm", [SYS_FCHMOD] = "dm", [SYS_FCHMODAT] = "dpm",
	[SYS_FCHMODAT2] = "dpmf",
	[SYS_CHOWN] = "pUG", [SYS_FCHOWN] = "dUG", [SYS_LCHOWN] = "pUG",
	[SYS_FCHOWNAT] = "dpUGf", [SYS_UTIMENSAT] = "dp_f",
	[SYS_FCNTL] = "dFG", [SYS_DUP] = "d", [SYS_DUP2] = "de",
	[SYS_DUP3] = "def", [SYS_CHDIR] = "p", [SYS_FCHDIR] = "d",
	[SYS_MMAP] = "acmfdO", [SYS_MUNMAP] = "ac", [SYS_MSYNC] = "acf",
	[SYS_MREMAP] = "a_cf",	/* c: the new size */ [SYS_MADVISE] = "acf",
	[SYS_EXIT_GROUP] = "", [SYS_FORK] = "",
	[SYS_EXEC] = "", [SYS_EXIT] = "",
	/* AIO: a is the context id (io_setup's comes with the record), G
	 * io_getevents' min_nr. */
	[SYS_IO_SETUP] = "c", [SYS_IO_DESTROY] = "a", [SYS_IO_SUBMIT] = "ac",
	[SYS_IO_CANCEL] = "aA", [SYS_IO_GETEVENTS] = "aGc",
	[SYS_IO_PGETEVENTS] = "aGc", [SYS_IOCB] = "aAdOcf",
	[SYS_IO_EVENT] = "aA",
	/* io_uring: e is the ring's fd in records; the flags, cq_entries,
	 * opcode, sqe flags and buffer index come with the record. */
	[SYS_IO_URING_SETUP] = "c", [SYS_IO_URING_ENTER] = "dcGf",
	[SYS_IO_URING_REGISTER] = "dF_c", [SYS_SQE] = "edOcfA",
	[SYS_CQE] = "eAF", [SYS_URING_FILE] = "edO", [SYS_URING_BUF] = "ecO",
	/* Page records: the page's address and its offset in the file. */
	[SYS_MMAP_READ] = "aO", [SYS_MMAP_WRITE] = "aO",
	/* ioctl: what its argument pointed to comes with the record
	 * (ioctl_fields()).  Extended attributes: P is the name, G the
	 * flags of a set, f the AT_ flags of the *at forms (their size and
	 * flags come with the record). */
	[SYS_IOCTL] = "dF",
	[SYS_SETXATTR] = "pP_cG", [SYS_LSETXATTR] = "pP_cG",
	[SYS_FSETXATTR] = "dP_cG", [SYS_SETXATTRAT] = "dpfP",
	[SYS_GETXATTR] = "pP_c", [SYS_LGETXATTR] = "pP_c",
	[SYS_FGETXATTR] = "dP_c", [SYS_GETXATTRAT] = "dpfP",
	[SYS_LISTXATTR] = "p_c", [SYS_LLISTXATTR] = "p_c",
	[SYS_FLISTXATTR] = "d_c", [SYS_LISTXATTRAT] = "dpf_c",
	[SYS_REMOVEXATTR] = "pP", [SYS_LREMOVEXATTR] = "pP",
	[SYS_FREMOVEXATTR] = "dP", [SYS_REMOVEXATTRAT] = "dpfP",
	[SYS_FLOCK] = "df", [SYS_SPLICE] = "d_e_cf", [SYS_TEE] = "decf",
	[SYS_DEDUPE] = "dQc",
	/* futex: a the word's address, F the operation with its flags,
	 * G the value (a wait's expected word, a wake's count). */
	[SYS_FUTEX] = "aFG",
	/* wake: a the waking thread (its process << 32 | its thread), c
	 * how long the woken one slept (ns); the record's thread is the
	 * woken one, its time the wake's.  Its R (runq_gap) is the woken
	 * thread's wait for a CPU from its previous event to the wake. */
	[SYS_WAKE] = "ac",
};

/* The have bit of layout character @c, 0 for none. */
static unsigned have_of(char c)
{
	switch (c) {
	case 'd': return CAP_FD;
	case 'e': return CAP_FD2;
	case 'f': return CAP_FLAGS;
	case 'm': return CAP_MODE;
	case 'O': return CAP_OFFSET;
	case 'c': return CAP_COUNT;
	case 'W': return CAP_WHENCE;
	case 'F': return CAP_CMD;
	case 'G': return CAP_ARG;
	case 'U': return CAP_UID;
	case 'a': return CAP_ADDR;
	case 'A': return CAP_ADDR2;
	default: return 0;
	}
}

/* The clone and dedupe ranges of an ioctl record (IORIOT_EV_IOCTL_ARGS),
 * FICLONE's source fd, and the source's size. */
static void ioctl_fields(const struct ioriot_event *e, struct cap_event *ce)
{
	uint32_t cmd = (uint32_t)e->args[1];

	ce->cmd = cmd;		/* an unsigned int: as the kernel reads it */
	if (cmd == FICLONE || (cmd == FICLONERANGE &&
			       (e->flags & IORIOT_EV_IOCTL_ARGS))) {
		ce->fd2 = (int32_t)e->args[2];
		ce->have |= CAP_FD2;
	}
	if (e->flags & IORIOT_EV_IOCTL_ARGS) {
		ce->offset = (int64_t)e->args[3];
		ce->count = (int64_t)e->args[4];
		ce->have |= CAP_OFFSET | CAP_COUNT;
		if (cmd == FICLONERANGE) {
			ce->offset2 = (int64_t)e->args[5];
			ce->have |= CAP_OFFSET2;
		} else if (cmd == FIDEDUPERANGE) {
			ce->arg = (int64_t)e->args[2];
			ce->have |= CAP_ARG;
		}
	}
	if (e->flags & IORIOT_EV_SRC_SIZE) {
		ce->size = (int64_t)e->extra[0];
		ce->have |= CAP_SIZE;
	}
}

int capture_event_fields(const struct ioriot_event *e, const char *p1,
			 const char *p2, struct cap_event *ce)
{
	const char *layout;

	if (e->sys >= SYS_COUNT || !(layout = layouts[e->sys]))
		return -EINVAL;
	memset(ce, 0, sizeof(*ce));
	ce->fd = ce->fd2 = -1;
	ce->path = ce->path2 = "";
	ce->sys = (enum sys_id)e->sys;
	ce->pid = e->pid;
	ce->tid = e->tid;
	ce->time_ns = e->time_ns;
	ce->dur_ns = e->dur_ns;
	ce->have = CAP_DUR;
	if (!(e->flags & IORIOT_EV_NO_RET)) {
		ce->ret = e->ret;
		ce->have |= CAP_RET;
	}
	for (int i = 0; i < 6 && layout[i]; i++) {
		uint64_t raw = e->args[i];
		int32_t i32 = (int32_t)raw;	/* int arguments: low half */

		switch (layout[i]) {
		case 'd': ce->fd = i32; ce->have |= CAP_FD; break;
		case 'e': ce->fd2 = i32; ce->have |= CAP_FD2; break;
		case 'f': ce->flags = i32; ce->have |= CAP_FLAGS; break;
		case 'm': ce->mode = i32; ce->have |= CAP_MODE; break;
		case 'O': ce->offset = (int64_t)raw; ce->have |= CAP_OFFSET; break;
		case 'Q': ce->offset2 = (int64_t)raw; ce->have |= CAP_OFFSET2; break;
		case 'c': ce->count = (int64_t)raw; ce->have |= CAP_COUNT; break;
		case 'W': ce->whence = i32; ce->have |= CAP_WHENCE; break;
		case 'F': ce->cmd = i32; ce->have |= CAP_CMD; break;
		case 'G': ce->arg = e->sys == SYS_FCNTL ? (int64_t)raw : i32;
			  ce->have |= CAP_ARG; break;
		case 'U': ce->uid = i32; ce->have |= CAP_UID; break;
		case 'a': ce->addr = raw; ce->have |= CAP_ADDR; break;
		case 'A': ce->addr2 = raw; ce->have |= CAP_ADDR2; break;
		case 'p':
			ce->path = p1;
			ce->path_len = e->path_len[0];
			ce->have |= CAP_PATH;
			break;
		case 'P':
			ce->path2 = p2;
			ce->path2_len = e->path_len[1];
			ce->have |= CAP_PATH2;
			break;
		}
	}
	/* An absent path (utimensat(fd, NULL)) or empty one (AT_EMPTY_PATH)
	 * is logged as no path. */
	if ((ce->have & CAP_PATH) && !ce->path_len)
		ce->have &= ~CAP_PATH;
	/* readlink's P, the target it read, is there only when it succeeded. */
	if ((ce->have & CAP_PATH2) && !ce->path2_len)
		ce->have &= ~CAP_PATH2;
	if (e->flags & IORIOT_EV_STAT) {
		ce->size = (int64_t)e->extra[0];
		ce->mode = (int64_t)e->extra[1];
		ce->have |= CAP_SIZE | CAP_MODE;
	}
	if (e->flags & IORIOT_EV_OPEN_SIZE) {
		ce->size = (int64_t)e->args[5];
		ce->have |= CAP_SIZE;
	}
	if (e->flags & IORIOT_EV_OFFSET) {
		ce->offset = (int64_t)e->extra[0];
		ce->have |= CAP_OFFSET;
	}
	if (e->flags & IORIOT_EV_OFFSET2) {
		ce->offset2 = (int64_t)e->extra[1];
		ce->have |= CAP_OFFSET2;
	}
	if (e->flags & IORIOT_EV_IOV) {
		ce->count = (int64_t)e->extra[0];
		ce->have |= CAP_COUNT;
	}
	if (e->flags & IORIOT_EV_HOW) {
		ce->flags = (int64_t)e->extra[0];
		ce->mode = (int64_t)e->extra[1];
		ce->have |= CAP_FLAGS | CAP_MODE;
	}
	if (e->flags & IORIOT_EV_CHILD) {
		ce->child_pid = (uint32_t)e->extra[0];
		ce->child_tid = (uint32_t)e->extra[1];
		ce->have |= CAP_CHILD;
	}
	if (e->flags & IORIOT_EV_AIOCTX) {
		ce->addr = e->extra[0];
		ce->have |= CAP_ADDR;
	}
	if (e->flags & IORIOT_EV_IOCB) {
		ce->cmd = (int64_t)(e->extra[0] & 0xffff);	/* opcode */
		ce->arg = (int64_t)(e->extra[0] >> 16);		/* aio_flags */
		ce->have |= CAP_CMD | CAP_ARG;
		if (ce->arg & IOCB_FLAG_RESFD) {
			ce->fd2 = (int32_t)e->extra[1];
			ce->have |= CAP_FD2;
		}
	}
	if (e->flags & IORIOT_EV_NO_COUNT)
		ce->have &= ~CAP_COUNT;
	if (e->flags & IORIOT_EV_ABSENT)
		for (int i = 0; i < 6 && layout[i]; i++)
			if (e->extra[1] & (1ull << i))
				ce->have &= ~have_of(layout[i]);
	if ((e->flags & IORIOT_EV_RING) && e->sys == SYS_IO_URING_ENTER) {
		ce->fd = (int64_t)e->extra[0];
		ce->have |= CAP_FD;
	}
	if ((e->flags & IORIOT_EV_URING_SETUP) && e->sys == SYS_IO_URING_SETUP) {
		ce->flags = (int64_t)e->extra[0];
		ce->arg = (int64_t)e->extra[1];
		ce->have |= CAP_FLAGS | CAP_ARG;
	}
	if ((e->flags & IORIOT_EV_SQE) && e->sys == SYS_SQE) {
		ce->cmd = (int64_t)(e->extra[0] & 0xff);	/* opcode */
		ce->arg = (int64_t)(e->extra[0] >> 8 & 0xff);	/* sqe flags */
		ce->have |= CAP_CMD | CAP_ARG;
		if (e->extra[0] & IORIOT_EV_SQE_BUF) {
			ce->buf_index = (int64_t)(e->extra[0] >> 16 & 0xffff);
			ce->have |= CAP_BUF;
		}
	}
	if (e->flags & IORIOT_EV_UMASK) {
		ce->umask = e->umask & 0777;
		ce->have |= CAP_UMASK;
	}
	if (e->flags & IORIOT_EV_CPU_GAP) {
		ce->cpu_ns = e->cpu_gap;
		ce->have |= CAP_CPU;
		if (e->flags & IORIOT_EV_RUNQ_GAP) {
			ce->runq_ns = e->runq_gap;
			ce->have |= CAP_RUNQ;
		}
	}
	if (e->sys == SYS_WAKE && (e->flags & IORIOT_EV_RUNQ_GAP)) {
		ce->runq_ns = e->runq_gap;
		ce->have |= CAP_RUNQ;
	}
	if (e->flags & IORIOT_EV_CPU_CALL) {
		ce->cpu_call_ns = e->cpu_call < e->dur_ns ? e->cpu_call : e->dur_ns;
		ce->have |= CAP_CPU_CALL;
	}
	if (e->sys == SYS_BIND && e->path_len[0]) {
		ce->path = p1;
		ce->path_len = e->path_len[0];
		ce->have |= CAP_PATH;
	}
	if (e->flags & IORIOT_EV_FLOCK) {
		/* A lock command: the struct flock, not its address. */
		ce->arg = (int16_t)(e->args[2] & 0xffff);	/* l_type */
		ce->whence = (int16_t)(e->args[2] >> 16 & 0xffff);
		ce->offset = (int64_t)e->extra[0];
		ce->count = (int64_t)e->extra[1];
		ce->have |= CAP_WHENCE | CAP_OFFSET | CAP_COUNT;
	}
	if (e->sys == SYS_IOCTL)
		ioctl_fields(e, ce);
	if (e->flags & IORIOT_EV_XATTR_ARGS) {
		ce->count = (int64_t)(uint32_t)e->extra[1];	/* size */
		ce->have |= CAP_COUNT;
		if (e->sys == SYS_SETXATTRAT) {
			ce->arg = (int64_t)(uint32_t)(e->extra[1] >> 32);
			ce->have |= CAP_ARG;
		}
	}
	if (e->flags & IORIOT_EV_ACL) {
		ce->mode = (int64_t)e->extra[0];
		ce->have |= CAP_MODE;
	}
	if (e->sys == SYS_EXEC && e->path_len[0]) {
		ce->path = p1;
		ce->path_len = e->path_len[0];
		ce->have |= CAP_PATH;
	}
	return 0;
}
