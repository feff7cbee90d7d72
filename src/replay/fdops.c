/*
 * fdops: the replayed calls on an fd (execops.h): reads and writes in
 * their plain, positioned and vectored forms (split when longer than a
 * buffer), seeks, syncs, fcntl's safe subset, the stat and attribute
 * calls on an fd, sendfile, copy_file_range, and the file API calls of
 * fileops.h with the real fds of their vfds.  exec.c's top comment lists
 * what is not replayed as captured.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "execops.h"
#include "fileops.h"
#include "vfds.h"

enum io_call { IO_READ, IO_PREAD, IO_READV, IO_PREADV, IO_PREADV2,
	       IO_WRITE, IO_PWRITE, IO_WRITEV, IO_PWRITEV, IO_PWRITEV2 };

/*
 * The replayed data calls go through syscall(2), not through their glibc
 * wrappers: in a process with threads, glibc makes each of them a
 * cancellation point with two atomic read-modify-writes around the call,
 * a cost as large as a short syscall's own.  The engine never cancels a
 * thread.  The vectored calls with an offset take it as low and high
 * halves (pos_l, pos_h).
 */
_Static_assert(sizeof(long) == 8,
	       "pread64 and pwrite64 take the offset in one register");
#define OFF_LO(off) ((unsigned long)(uint64_t)(off))
#define OFF_HI(off) ((unsigned long)((uint64_t)(off) >> 32 >> 32))

/* One call of kind @c on at most @len bytes of @buf at @off. */
static ssize_t io_once(enum io_call c, int fd, char *buf, size_t len,
		       off_t off, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	switch (c) {
	case IO_READ: return syscall(SYS_read, fd, buf, len);
	case IO_PREAD: return syscall(SYS_pread64, fd, buf, len, off);
	case IO_READV: return syscall(SYS_readv, fd, &iov, 1);
	case IO_PREADV:
		return syscall(SYS_preadv, fd, &iov, 1, OFF_LO(off), OFF_HI(off));
	case IO_PREADV2:
		return syscall(SYS_preadv2, fd, &iov, 1, OFF_LO(off), OFF_HI(off),
			       flags);
	case IO_WRITE: return syscall(SYS_write, fd, buf, len);
	case IO_PWRITE: return syscall(SYS_pwrite64, fd, buf, len, off);
	case IO_WRITEV: return syscall(SYS_writev, fd, &iov, 1);
	case IO_PWRITEV:
		return syscall(SYS_pwritev, fd, &iov, 1, OFF_LO(off), OFF_HI(off));
	case IO_PWRITEV2:
		return syscall(SYS_pwritev2, fd, &iov, 1, OFF_LO(off), OFF_HI(off),
			       flags);
	}
	errno = ENOSYS;
	return -1;
}

/* Read or write op->count bytes: in one call, unless it is more than the
 * buffer holds (exec_write_data(), exec_read_buf()). */
static int64_t do_io(struct exec_ctx *x, const struct rlog_op *op, int fd,
		     enum io_call c)
{
	bool writing = c >= IO_WRITE;
	bool v2 = c == IO_PREADV2 || c == IO_PWRITEV2;
	uint64_t want = op->have & RL_COUNT && op->count > 0 ?
			(uint64_t)op->count : 0;
	size_t len = want < IO_MAX ? (size_t)want : IO_MAX, cap = 0;
	char *buf = writing ? (char *)exec_write_data(x, len, &cap) :
			      exec_read_buf(x, len, &cap);
	off_t off = op->have & RL_OFFSET ? (off_t)op->offset : v2 ? -1 : 0;
	int flags = v2 && (op->have & RL_FLAGS) ? (int)op->flags : 0;
	uint64_t done = 0;

	if (!buf)
		return -ENOMEM;

	do {
		size_t n = want - done < cap ? (size_t)(want - done) : cap;
		ssize_t r = io_once(c, fd, buf, n, off, flags);
		if (r < 0)
			return done ? (int64_t)done : -(int64_t)errno;
		done += (uint64_t)r;
		if (off >= 0)
			off += r;
		if ((size_t)r < n || !r)
			break;
	} while (done < want);
	return (int64_t)done;
}

/* fcntl: the safe subset (exec.c). */
static int64_t do_fcntl(struct exec_ctx *x, const struct rlog_op *op, int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int cmd = op->have & RL_CMD ? (int)op->cmd : -1;
	int fl_flags = (int)(op->have & RL_ARG ? op->arg : 0) & ~O_ASYNC;
	int64_t r;

	switch (cmd) {
	case F_GETFL:
		return neg_errno(fcntl(fd, F_GETFL));
	case F_SETFL:
		/* O_NONBLOCK stays where the open added it (see the top of
		 * the file), but on regular files and directories, where
		 * only io_uring heeds it (vfd_get_blocking()). */
		if (!fd_is_file_or_dir(fd))
			fl_flags |= O_NONBLOCK;
		r = neg_errno(fcntl(fd, F_SETFL, fl_flags));
		if (r == 0 && (fl_flags & O_DIRECT))
			exec_dio_learn(x, fd, NULL);
		return r;
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		if (op->have & RL_WHENCE)
			return lock_call(op, fd, &x->stop);
		return neg_errno(fcntl(fd, F_GETLK, &fl));
	default:
		return -EINVAL;
	}
}

static int64_t do_sendfile(struct exec_ctx *x, const struct rlog_op *op,
			   int in)
{
	off_t off = op->offset;
	size_t count = op->have & RL_COUNT ? (size_t)op->count : 0;
	int out = op->have & RL_FD2 ? vfd_get(x, op->fd2) : x->devnull;

	if (out < 0)
		return -EBADF;
	return neg_errno(sendfile(out, in, op->have & RL_OFFSET ? &off : NULL,
				  count));
}

static int64_t do_copy_range(struct exec_ctx *x, const struct rlog_op *op,
			     int in)
{
	off_t off = op->offset, off2 = op->offset2;
	int out = op->have & RL_FD2 ? vfd_get(x, op->fd2) : -1;

	if (out < 0)
		return -EBADF;
	return neg_errno(copy_file_range(in, op->have & RL_OFFSET ? &off : NULL,
					 out, op->have & RL_OFFSET2 ? &off2 : NULL,
					 op->have & RL_COUNT ?
					 (size_t)op->count : 0, 0));
}

int exec_fd_op(struct exec_ctx *x, const struct rlog_op *op, enum sys_id sys,
	       int fd, int64_t *result)
{
	struct stat st;
	struct statfs sfs;
	struct statx stx;
	char *buf;
	off_t off = op->have & RL_OFFSET ? (off_t)op->offset : 0;
	off_t count = op->have & RL_COUNT ? (off_t)op->count : 0;
	int flags = op->have & RL_FLAGS ? (int)op->flags : 0;
	int mode = op->have & RL_MODE ? (int)op->mode : 0;
	int64_t r;

	switch (sys) {
	case SYS_READ: r = do_io(x, op, fd, IO_READ); break;
	case SYS_PREAD64: r = do_io(x, op, fd, IO_PREAD); break;
	case SYS_READV: r = do_io(x, op, fd, IO_READV); break;
	case SYS_PREADV: r = do_io(x, op, fd, IO_PREADV); break;
	case SYS_PREADV2: r = do_io(x, op, fd, IO_PREADV2); break;
	case SYS_WRITE: r = do_io(x, op, fd, IO_WRITE); break;
	case SYS_PWRITE64: r = do_io(x, op, fd, IO_PWRITE); break;
	case SYS_WRITEV: r = do_io(x, op, fd, IO_WRITEV); break;
	case SYS_PWRITEV: r = do_io(x, op, fd, IO_PWRITEV); break;
	case SYS_PWRITEV2: r = do_io(x, op, fd, IO_PWRITEV2); break;
	case SYS_LSEEK:
		r = neg_errno(lseek(fd, off, op->have & RL_WHENCE ?
				    (int)op->whence : SEEK_SET));
		break;
	case SYS_FSYNC: r = neg_errno(syscall(SYS_fsync, fd)); break;
	case SYS_FDATASYNC: r = neg_errno(syscall(SYS_fdatasync, fd)); break;
	case SYS_SYNCFS: r = neg_errno(syncfs(fd)); break;
	case SYS_SYNC_FILE_RANGE:
		r = neg_errno(sync_file_range(fd, off, count,
					      (unsigned)flags));
		break;
	case SYS_FALLOCATE: r = neg_errno(fallocate(fd, mode, off, count)); break;
	case SYS_FTRUNCATE: r = neg_errno(ftruncate(fd, count)); break;
	case SYS_FADVISE64:
		r = -(int64_t)posix_fadvise(fd, off, count, flags);
		break;
	case SYS_READAHEAD:
		r = neg_errno(readahead(fd, off, (size_t)count));
		break;
	case SYS_FSTAT: r = neg_errno(fstat(fd, &st)); break;
	case SYS_NEWFSTATAT: r = neg_errno(fstat(fd, &st)); break;
	case SYS_STATX:
		r = neg_errno(statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
				    &stx));
		break;
	case SYS_FSTATFS: r = neg_errno(fstatfs(fd, &sfs)); break;
	case SYS_FACCESSAT2:
		r = neg_errno(faccessat(fd, "", mode, AT_EMPTY_PATH |
					(flags & AT_EACCESS)));
		break;
	case SYS_UTIMENSAT: r = neg_errno(futimens(fd, NULL)); break;
	case SYS_GETDENTS64:
		buf = exec_read_buf(x, 0, NULL);
		r = neg_errno(syscall(SYS_getdents64, fd, buf,
				      count > 0 && count < READ_BUF ?
				      (size_t)count : READ_BUF));
		break;
	case SYS_FCHMOD: r = neg_errno(fchmod(fd, safe_mode(x, mode))); break;
	case SYS_FCHOWN:
		r = neg_errno(fchown(fd, own_uid(x, op), own_gid(x, op)));
		break;
	case SYS_FCNTL: r = do_fcntl(x, op, fd); break;
	case SYS_FLOCK: r = lock_call(op, fd, &x->stop); break;
	case SYS_IOCTL: {
		int rc, fd2 = op->have & RL_FD2 ? vfd_get(x, op->fd2) : -1;

		r = clone_call(x->dedupe, op, fd, fd2, &rc);
		if (rc)
			return rc;
		break;
	}
	case SYS_MMAP: return mapping_mmap(x, op, fd, result);
	case SYS_SENDFILE: r = do_sendfile(x, op, fd); break;
	case SYS_COPY_FILE_RANGE: r = do_copy_range(x, op, fd); break;
	case SYS_LINKAT: {
		int dfd2;
		const char *p2;

		if (!(op->have & RL_PATH2)) {
			r = -EINVAL;
			break;
		}
		p2 = at_path2(x, op, &dfd2);
		r = neg_errno(linkat(fd, "", dfd2, p2, AT_EMPTY_PATH));
		break;
	}
	default:
		r = -ENOSYS;
	}
	*result = r;
	return 0;
}


/* The real fd of op's vfd @have (RL_FD or RL_FD2: @vfd), -1 if the line
 * has none, -2 if it is not open. */
static int line_fd(struct exec_ctx *x, const struct rlog_op *op,
		   unsigned have, uint64_t vfd)
{
	int fd;

	if (!(op->have & have))
		return -1;
	fd = vfd_get(x, vfd);
	return fd < 0 ? -2 : fd;
}

int exec_fileapi_op(struct exec_ctx *x, const struct rlog_op *op,
		    enum sys_kind kind, int64_t *result)
{
	int fd = line_fd(x, op, RL_FD, op->fd);
	int fd2 = line_fd(x, op, RL_FD2, op->fd2);
	int rc = 0;

	if (fd == -2 || fd2 == -2) {
		*result = -EBADF;
		return 0;
	}
	switch (kind) {
	case SK_XATTR: {
		char *buf = exec_read_buf(x, 0, NULL);

		if (!buf)
			return -ENOMEM;
		*result = xattr_call(op, fd, x->data, buf, READ_BUF);
		break;
	}
	case SK_SPLICE:
		*result = splice_call(op, fd, fd2, x->data, x->data_len);
		break;
	default:	/* SK_DEDUPE, SK_DEDUPE_DONE */
		*result = clone_call(x->dedupe, op, fd, fd2, &rc);
		break;
	}
	return rc;
}

