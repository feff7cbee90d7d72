/*
 * exec: carries out one replay operation as the syscall it was captured as
 * (exec.h), once, failing ones included.
 *
 * Paths go to the kernel in the *at form of the call (openat2 stays
 * openat2), relative to the fd of their sandbox root (roots.h: the same
 * file, fewer components to walk), or as the replay file names them,
 * absolute: the calling thread is confined to the sandboxes (jail.h), so
 * the kernel resolves them, their symlinks and their ".." as it did in
 * the capture, and none leads out.
 *
 * Results: what the call returned, or -errno.  Where the replayed value
 * cannot equal the captured one although the call did the same thing, a
 * success is reported as the captured value: the fd of an open, the address
 * of an mmap, the length of a readlink of an absolute target (rewritten
 * into the sandbox).
 *
 * Not replayed as captured (documented choices):
 *  - chown, fchown, lchown, fchownat give the file to the test user (its
 *    own ids), which needs no privilege on its own files and costs the
 *    same inode update; set-user-ID and set-group-ID bits of the modes of
 *    open, mkdir and the chmod calls are dropped and counted.
 *  - Every open adds O_NONBLOCK (but O_PATH ones), and F_SETFL keeps it:
 *    an open of a FIFO never waits for its other end, and no read, write,
 *    splice or AIO request on one waits for data or room (EAGAIN), which
 *    the test user, who may swap any file of the sandbox for a FIFO and
 *    hold it open, or a hand-written replay file could otherwise make
 *    last for ever.  Regular files and directories ignore the flag, but
 *    for io_uring, which completes a read or write that would wait with
 *    EAGAIN on such a file: they lose it before their first request
 *    (vfd_get_blocking(): a statx and an ioctl FIONBIO, once per open),
 *    and F_SETFL does not add it to them.
 *  - fcntl: F_GETFL, F_SETFL (without O_ASYNC) run as captured; the lock
 *    commands run with the captured struct flock, and a blocking one waits
 *    a bounded time (locks.c); in logs of older captures, which lack the
 *    struct, they run as an F_GETLK probe of the whole file; every other
 *    command gives -EINVAL.
 *  - splice replaces the captured pipe by one of the thread's own
 *    (splice.c); extended attribute values are generated data (xattr.c).
 *  - mmap never uses MAP_FIXED and drops PROT_EXEC; munmap unmaps the whole
 *    mapping that holds the captured address; msync and madvise work on
 *    the part of it the capture named (madvise with the advice of
 *    safe_advice() only).  A captured address names a mapping of the
 *    operation's own captured process only.
 *  - mmap_read and mmap_write touch one byte of each page, a load or a
 *    store, through the replay's mapping: the same page faults as
 *    captured.  A page the mapping or the file no longer has (SIGBUS,
 *    SIGSEGV) ends the operation short, not the replay.
 *  - A sendfile without a write side (captured to a socket) goes to
 *    /dev/null.
 *  - The replay runs with umask 0 (exec_init()): an operation that makes
 *    an inode passes the permissions the capture's call got, its mode
 *    less the captured umask (umask=; without one, less the replay's
 *    own umask), whatever umask each captured process had.
 *  - bind of a Unix socket to a path is replayed as the inode it made:
 *    mknodat(S_IFSOCK) with the permissions the socket got, 0777 less the
 *    umask.  bind takes no mode, only the process's umask, which the
 *    timelines share; unix_bind makes the inode with that same mknod,
 *    and no sun_path limit applies to the longer sandbox path.  EEXIST
 *    is reported as bind's EADDRINUSE.
 *  - mknod and mknodat make sockets, FIFOs and regular files; device
 *    nodes are never made (-EPERM, what a user without CAP_MKNOD gets),
 *    and the device number is not captured.
 *  - Reads go to a per-thread buffer of READ_BUF bytes, grown for a
 *    larger read; writes come from the generated data, a larger shared
 *    copy of its pattern for a larger write.  A read or write of more
 *    than IO_MAX bytes takes several calls.  An open with
 *    O_DIRECT (or an fcntl F_SETFL that sets it) learns the file's direct
 *    I/O alignment (dioalign.h: one statx per device, not captured, made
 *    with flags no replayed statx has); the read buffers follow the
 *    largest alignment learnt so far, the generated data is aligned to
 *    DIOALIGN_MAX, so O_DIRECT reads and writes with the captured offsets
 *    and lengths replay as the same direct I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "aio.h"
#include "dioalign.h"
#include "uring.h"
#include "fileops.h"
#include "roots.h"
#include "vfds.h"
#include "exec.h"
#include "ioriot/syscalls.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452	/* Linux 6.6; one number on every architecture */
#endif

#define DATA_LEN (1u << 20)	/* generated bytes for writes */
#define READ_BUF (1u << 20)	/* per-thread buffer for reads */
#define IO_MAX (64u << 20)	/* the most a read or write moves in a call */

/* Generated bytes for writes longer than DATA_LEN: the pattern of
 * exec_ctx's data repeated, shared by the threads, replaced by a longer
 * one when needed (the older ones stay until exec_destroy()). */
struct exec_bigdata {
	char *p;
	size_t len;
	struct exec_bigdata *older;
};

_Static_assert(READ_BUF % DIOALIGN_MAX == 0 && DATA_LEN % DIOALIGN_MAX == 0,
	       "transfers are split into multiples of any alignment");
_Static_assert(IO_MAX % READ_BUF == 0 && IO_MAX % DATA_LEN == 0,
	       "buffers grow by doubling up to IO_MAX");

static pthread_key_t rbuf_key;
static pthread_once_t rbuf_once = PTHREAD_ONCE_INIT;
static int rbuf_key_err;
static __thread char *rbuf;
static __thread size_t rbuf_len, rbuf_align;

static void rbuf_key_make(void)
{
	rbuf_key_err = pthread_key_create(&rbuf_key, free);
}

/*
 * This thread's read buffer, aligned to x->dio_align, of at least @len
 * bytes (READ_BUF at least, IO_MAX at most; fewer if it cannot grow):
 * its size in *@cap.  NULL when there is none at all.
 */
static char *read_buf(struct exec_ctx *x, size_t len, size_t *cap)
{
	size_t align = atomic_load_explicit(&x->dio_align,
					    memory_order_acquire);
	size_t size = rbuf_len > READ_BUF ? rbuf_len : READ_BUF;
	char *buf;

	while (size < len && size < IO_MAX)
		size <<= 1;
	if (rbuf && rbuf_align >= align && rbuf_len >= size)
		goto out;
	if (pthread_once(&rbuf_once, rbuf_key_make) || rbuf_key_err)
		return NULL;
	buf = aligned_alloc(align, size);
	if (!buf || pthread_setspecific(rbuf_key, buf)) {
		free(buf);
		if (rbuf && rbuf_align >= align)
			goto out;	/* cannot grow: smaller calls */
		return NULL;
	}
	free(rbuf);
	rbuf = buf;
	rbuf_len = size;
	rbuf_align = align;
out:
	if (cap)
		*cap = rbuf_len;
	return rbuf;
}

/* Generated bytes for a write of @len: x->data, or a shared buffer of its
 * pattern of at least @len bytes (IO_MAX at most; x->data if it cannot be
 * made): its size in *@cap. */
static const char *write_data(struct exec_ctx *x, size_t len, size_t *cap)
{
	struct exec_bigdata *b;
	size_t size = 2 * x->data_len;
	char *p;

	if (len > IO_MAX)
		len = IO_MAX;
	b = atomic_load_explicit(&x->big, memory_order_acquire);
	if (len <= x->data_len || (b && b->len >= len))
		goto out;
	pthread_mutex_lock(&x->lock);
	b = atomic_load_explicit(&x->big, memory_order_relaxed);
	if (!b || b->len < len) {
		struct exec_bigdata *nb = malloc(sizeof(*nb));

		while (size < len)
			size <<= 1;
		p = nb ? aligned_alloc(DIOALIGN_MAX, size) : NULL;
		if (p) {
			for (size_t off = 0; off < size; off += x->data_len)
				memcpy(p + off, x->data, x->data_len);
			nb->p = p;
			nb->len = size;
			nb->older = b;
			atomic_store_explicit(&x->big, nb, memory_order_release);
			b = nb;
		} else {
			free(nb);
		}
	}
	pthread_mutex_unlock(&x->lock);
out:
	if (len <= x->data_len || !b || b->len < len) {
		*cap = x->data_len;
		return x->data;
	}
	*cap = b->len;
	return b->p;
}

/* Direct I/O on @fd (opened as @path, or NULL): the buffers follow its
 * alignment from now on. */
static void dio_learn(struct exec_ctx *x, int fd, const char *path)
{
	size_t align = dioalign_of(x->dio, fd, path);
	size_t cur = atomic_load_explicit(&x->dio_align, memory_order_relaxed);

	while (cur < align &&
	       !atomic_compare_exchange_weak_explicit(&x->dio_align, &cur,
						      align,
						      memory_order_release,
						      memory_order_relaxed))
		;
}

/* Captured mode bits @mode as replayed: never set-user-ID or set-group-ID
 * (each operation that had them counts in x->setid_stripped). */
static mode_t safe_mode(struct exec_ctx *x, int64_t mode)
{
	mode_t m = (mode_t)mode & 07777;

	if (m & (S_ISUID | S_ISGID)) {
		atomic_fetch_add_explicit(&x->setid_stripped, 1,
					  memory_order_relaxed);
		m &= ~(mode_t)(S_ISUID | S_ISGID);
	}
	return m;
}

/* The permission bits an operation that makes an inode with mode @mode
 * passes under the replay's umask 0: less the captured umask, else less
 * the replay's own, as the kernel masked them. */
static mode_t created_mode(struct exec_ctx *x, const struct rlog_op *op,
			   int64_t mode)
{
	mode_t mask = op->have & RL_UMASK ? (mode_t)op->umask & 0777 :
					    x->umask;

	return safe_mode(x, mode) & ~mask;
}

/* op->path as the kernel gets it: relative to *@dfd (roots.h). */
static inline const char *at_path(const struct exec_ctx *x,
				  const struct rlog_op *op, int *dfd)
{
	return roots_at(x->roots, op->path, op->path_len, dfd);
}

/* op->path2 as the kernel gets it: relative to *@dfd (roots.h). */
static inline const char *at_path2(const struct exec_ctx *x,
				   const struct rlog_op *op, int *dfd)
{
	return roots_at(x->roots, op->path2, op->path2_len, dfd);
}

/* mknod, mknodat: sockets, FIFOs and regular files (type 0 is one);
 * never a device node; -EINVAL without a mode. */
static int64_t do_mknod(struct exec_ctx *x, const struct rlog_op *op)
{
	mode_t type = (mode_t)op->mode & S_IFMT;
	const char *p;
	int dfd;

	if (!(op->have & RL_MODE))
		return -EINVAL;
	if (S_ISCHR(type) || S_ISBLK(type))
		return -EPERM;
	p = at_path(x, op, &dfd);
	return neg_errno(mknodat(dfd, p, type | created_mode(x, op, op->mode),
				 0));
}

/* bind of a Unix socket to op->path: the socket inode, 0777 less the
 * umask (see the top of the file). */
static int64_t do_bind(struct exec_ctx *x, const struct rlog_op *op)
{
	int dfd;
	const char *p = at_path(x, op, &dfd);
	int64_t r = neg_errno(mknodat(dfd, p, S_IFSOCK |
				      created_mode(x, op, 0777), 0));

	return r == -EEXIST ? -EADDRINUSE : r;
}

/* The owner a chown sets: the replaying user's own ids, so that the call
 * succeeds without privilege on the test user's files; -1 stays -1. */
static uid_t own_uid(const struct exec_ctx *x, const struct rlog_op *op)
{
	return op->have & RL_UID && op->uid != -1 ? x->uid : (uid_t)-1;
}

static gid_t own_gid(const struct exec_ctx *x, const struct rlog_op *op)
{
	return op->have & RL_GID && op->gid != -1 ? x->gid : (gid_t)-1;
}

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
 * buffer holds (write_data(), read_buf()). */
static int64_t do_io(struct exec_ctx *x, const struct rlog_op *op, int fd,
		     enum io_call c)
{
	bool writing = c >= IO_WRITE;
	bool v2 = c == IO_PREADV2 || c == IO_PWRITEV2;
	uint64_t want = op->have & RL_COUNT && op->count > 0 ?
			(uint64_t)op->count : 0;
	size_t len = want < IO_MAX ? (size_t)want : IO_MAX, cap = 0;
	char *buf = writing ? (char *)write_data(x, len, &cap) :
			      read_buf(x, len, &cap);
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

/* fcntl: the safe subset (see the top of the file). */
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
			dio_learn(x, fd, NULL);
		return r;
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		if (op->have & RL_WHENCE)
			return lock_call(op, fd);
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

/* Operations on an fd (op->fd): -ENOSYS in *@result for other ops.
 * Returns 0 or -ENOMEM. */
static int fd_op(struct exec_ctx *x, const struct rlog_op *op,
		 enum sys_id sys, int fd,
		 int64_t *result)
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
		buf = read_buf(x, 0, NULL);
		r = neg_errno(syscall(SYS_getdents64, fd, buf,
				      count > 0 && count < READ_BUF ?
				      (size_t)count : READ_BUF));
		break;
	case SYS_FCHMOD: r = neg_errno(fchmod(fd, safe_mode(x, mode))); break;
	case SYS_FCHOWN:
		r = neg_errno(fchown(fd, own_uid(x, op), own_gid(x, op)));
		break;
	case SYS_FCNTL: r = do_fcntl(x, op, fd); break;
	case SYS_FLOCK: r = lock_call(op, fd); break;
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

/* open, openat, openat2, creat: the *at form of the call, or openat2. */
static int open_op(struct exec_ctx *x, const struct rlog_op *op,
		   enum sys_id sys, int64_t *result)
{
	int flags = sys == SYS_CREAT ? O_CREAT | O_WRONLY | O_TRUNC :
		    op->have & RL_FLAGS ? (int)op->flags : O_RDONLY;
	bool creating = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
	mode_t mode = creating ? created_mode(x, op, op->have & RL_MODE ?
					      op->mode : 0644) : 0;
	bool nonblock_added = !(flags & (O_PATH | O_NONBLOCK));
	int dfd;
	const char *p = at_path(x, op, &dfd);
	long fd;

	/* Never waiting for a FIFO's other end (see the top of the file);
	 * openat2 takes no other flag with O_PATH. */
	flags |= O_CLOEXEC | (flags & O_PATH ? 0 : O_NONBLOCK);
	if (sys == SYS_OPENAT2) {
		struct open_how how = { .flags = (uint64_t)flags, .mode = mode };

		fd = syscall(SYS_openat2, dfd, p, &how, sizeof(how));
	} else {
		fd = syscall(SYS_openat, dfd, p, flags, mode);
	}
	if (fd < 0) {
		*result = -errno;
		return 0;
	}
	*result = op->ret >= 0 ? op->ret : fd;
	if (flags & O_DIRECT)
		dio_learn(x, (int)fd, op->path);
	if (!(op->have & RL_VFD)) {
		close((int)fd);
		return 0;
	}
	return vfd_put(x, op->vfd, (int)fd, nonblock_added);
}

/* readlink: the captured length where the target was rewritten into the
 * sandbox (an absolute one), else what the call read. */
static int64_t do_readlink(struct exec_ctx *x, const struct rlog_op *op)
{
	char *buf = read_buf(x, 0, NULL);
	size_t size = op->have & RL_COUNT && op->count > 0 &&
		      op->count < READ_BUF ? (size_t)op->count : PATH_MAX;
	int dfd;
	const char *p = at_path(x, op, &dfd);
	ssize_t n = readlinkat(dfd, p, buf, size);

	if (n < 0)
		return -errno;
	return n > 0 && buf[0] == '/' && op->ret >= 0 ? op->ret : n;
}

/* Operations on op->path (and op->path2 or op->target), each the one
 * syscall captured, in its *at form. */
static int64_t path_op(struct exec_ctx *x, const struct rlog_op *op,
		       enum sys_id sys)
{
	const char *p, *p2 = NULL;
	int dfd, dfd2 = AT_FDCWD;
	int flags = op->have & RL_FLAGS ? (int)op->flags : 0;
	int mode = op->have & RL_MODE ? (int)op->mode : F_OK;
	int nofollow = flags & AT_SYMLINK_NOFOLLOW;
	struct statfs sfs;
	struct statx stx;
	struct stat st;

	if (!(op->have & RL_PATH))
		return -EINVAL;
	switch (sys) {
	case SYS_RENAME: case SYS_RENAMEAT: case SYS_RENAMEAT2: case SYS_LINK:
	case SYS_LINKAT:
		if (!(op->have & RL_PATH2))
			return -EINVAL;
		break;
	case SYS_SYMLINK: case SYS_SYMLINKAT:
		if (!(op->have & RL_TARGET))
			return -EINVAL;
		break;
	default:
		break;
	}
	p = at_path(x, op, &dfd);
	if (op->have & RL_PATH2)
		p2 = at_path2(x, op, &dfd2);
	switch (sys) {
	case SYS_STAT: return neg_errno(fstatat(dfd, p, &st, 0));
	case SYS_LSTAT:
		return neg_errno(fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW));
	case SYS_NEWFSTATAT:
		return neg_errno(fstatat(dfd, p, &st, flags &
					 (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT)));
	case SYS_STATX:
		return neg_errno(statx(dfd, p, flags & (AT_SYMLINK_NOFOLLOW |
						AT_NO_AUTOMOUNT |
						AT_STATX_SYNC_TYPE),
				       STATX_BASIC_STATS, &stx));
	case SYS_STATFS: return neg_errno(statfs(op->path, &sfs));
	case SYS_ACCESS: case SYS_FACCESSAT:	/* glibc would make faccessat2 */
		return neg_errno(syscall(SYS_faccessat, dfd, p, mode));
	case SYS_FACCESSAT2:
		return neg_errno(faccessat(dfd, p, mode, flags &
					   (AT_EACCESS | AT_SYMLINK_NOFOLLOW)));
	case SYS_READLINK: case SYS_READLINKAT: return do_readlink(x, op);
	case SYS_CHMOD: case SYS_FCHMODAT:
		return neg_errno(fchmodat(dfd, p, safe_mode(x, op->mode), 0));
	case SYS_FCHMODAT2:
		return neg_errno(syscall(SYS_fchmodat2, dfd, p,
					 safe_mode(x, op->mode), nofollow));
	case SYS_CHOWN:
		return neg_errno(fchownat(dfd, p, own_uid(x, op),
					  own_gid(x, op), 0));
	case SYS_LCHOWN:
		return neg_errno(fchownat(dfd, p, own_uid(x, op),
					  own_gid(x, op), AT_SYMLINK_NOFOLLOW));
	case SYS_FCHOWNAT:
		return neg_errno(fchownat(dfd, p, own_uid(x, op),
					  own_gid(x, op), nofollow));
	case SYS_UTIMENSAT:
		return neg_errno(utimensat(dfd, p, NULL, nofollow));
	case SYS_TRUNCATE:
		return neg_errno(truncate(op->path, op->have & RL_COUNT ?
					  (off_t)op->count : 0));
	case SYS_MKDIR: case SYS_MKDIRAT:
		return neg_errno(mkdirat(dfd, p, created_mode(x, op,
						op->have & RL_MODE ?
						op->mode : 0777)));
	case SYS_MKNOD: case SYS_MKNODAT: return do_mknod(x, op);
	case SYS_BIND: return do_bind(x, op);
	case SYS_RMDIR: return neg_errno(unlinkat(dfd, p, AT_REMOVEDIR));
	case SYS_UNLINK: return neg_errno(unlinkat(dfd, p, 0));
	case SYS_UNLINKAT:
		return neg_errno(unlinkat(dfd, p, flags & AT_REMOVEDIR));
	case SYS_RENAME: case SYS_RENAMEAT:
		return neg_errno(renameat(dfd, p, dfd2, p2));
	case SYS_RENAMEAT2:
		return neg_errno(renameat2(dfd, p, dfd2, p2,
					   (unsigned)flags & (RENAME_NOREPLACE |
							      RENAME_EXCHANGE)));
	case SYS_LINK: return neg_errno(linkat(dfd, p, dfd2, p2, 0));
	case SYS_LINKAT:
		return neg_errno(linkat(dfd, p, dfd2, p2,
					flags & AT_SYMLINK_FOLLOW));
	case SYS_SYMLINK: case SYS_SYMLINKAT:
		return neg_errno(symlinkat(op->target, dfd, p));
	default:
		return -ENOSYS;
	}
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

/* The file API calls of fileops.h: *@result and 0, or -ENOMEM. */
static int fileapi_op(struct exec_ctx *x, const struct rlog_op *op,
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
		char *buf = read_buf(x, 0, NULL);

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

int exec_op(struct exec_ctx *x, const struct rlog_op *op, int64_t *result)
{
	enum sys_id sys;

	if ((unsigned)op->sys >= SYS_COUNT) {
		*result = -ENOSYS;
		return 0;
	}
	/* Every thread's read buffer comes first: later failures are the
	 * operation's own. */
	if (!read_buf(x, 0, NULL))
		return -ENOMEM;
	sys = sys_canonical(op->sys);
	switch (sys_info(sys)->kind) {
	case SK_OPEN:
		if (!(op->have & RL_PATH)) {
			*result = -EINVAL;
			return 0;
		}
		return open_op(x, op, sys, result);
	case SK_SYNC:
		sync();
		*result = 0;
		return 0;
	case SK_ADDR:
		*result = sys == SYS_MREMAP ? -ENOSYS : mapping_addr_call(x, op);
		return 0;
	case SK_MAPPAGE:
		*result = mapping_pages(x, op);
		return 0;
	case SK_CLOSE: {
		void *v = op->have & RL_FD ? vfd_del(x, op->fd) : NULL;

		*result = v ? neg_errno(syscall(SYS_close, vfd_entry_fd(v))) : -EBADF;
		return 0;
	}
	case SK_READ: case SK_WRITE: case SK_SEEK: case SK_READDIR:
	case SK_FDOP: case SK_FCNTL: case SK_MMAP: case SK_SENDFILE:
	case SK_COPY_RANGE: case SK_FLOCK: case SK_IOCTL:
		break;
	case SK_XATTR: case SK_SPLICE: case SK_DEDUPE: case SK_DEDUPE_DONE:
		return fileapi_op(x, op, sys_info(sys)->kind, result);
	case SK_AIO_SETUP: case SK_AIO_DESTROY: case SK_AIO_SUBMIT:
	case SK_AIO_CANCEL: case SK_AIO_GETEVENTS: case SK_IOCB:
	case SK_AIO_DATA: case SK_AIO_DONE:
		return aio_exec(x->aio, op, sys_info(sys)->kind == SK_IOCB && (op->have & RL_FD) ?
				vfd_get(x, op->fd) : -1, x->data, x->data_len,
				atomic_load_explicit(&x->dio_align,
						     memory_order_acquire),
				result);
	case SK_URING_SETUP: case SK_URING_ENTER: case SK_URING_REGISTER:
	case SK_URING_SQE: case SK_URING_FILE: case SK_URING_BUF:
	case SK_URING_DATA: case SK_URING_DONE:
		return uring_exec(x->uring, op, op->have & RL_FD &&
				  sys_info(sys)->kind != SK_URING_DATA &&
				  sys_info(sys)->kind != SK_URING_DONE ?
				  vfd_get_blocking(x, op->fd) : -1, x->data, x->data_len,
				  atomic_load_explicit(&x->dio_align,
						       memory_order_acquire),
				  &x->uring_flags_dropped, result);
	case SK_STATAT: case SK_LINK:
		if (!(op->have & RL_PATH) && (op->have & RL_FD))
			break;		/* AT_EMPTY_PATH on a vfd */
		/* fall through */
	case SK_PATHOP: case SK_TRUNCATE: case SK_MKDIR: case SK_RMDIR:
	case SK_UNLINK: case SK_RENAME: case SK_SYMLINK: case SK_MKNOD:
		*result = path_op(x, op, sys);
		return 0;
	default:
		*result = -ENOSYS;
		return 0;
	}
	int fd = op->have & RL_FD ? vfd_get(x, op->fd) : -1;
	if (fd < 0) {
		*result = -EBADF;
		return 0;
	}
	return fd_op(x, op, sys, fd, result);
}

/* Fill @buf with non-zero, non-repeating bytes (xorshift). */
static void gen_data(char *buf, size_t len)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < len; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		buf[i] = (char)((s & 0xff) | 1);
	}
}

int exec_learn_sandboxes(struct exec_ctx *x, char *const *roots,
			 char *const *host, size_t n)
{
	dioalign_free(x->dio);
	x->dio = dioalign_new(roots, host, n);
	return x->dio ? 0 : -ENOMEM;
}

int exec_init(struct exec_ctx *x, uid_t uid, gid_t gid, char *err,
	      size_t errlen)
{
	int rc;

	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->lock, NULL);
	x->umask = umask(0);
	x->umask_taken = true;
	x->uid = uid;
	x->gid = gid;
	atomic_init(&x->dio_align, DIOALIGN_MIN);
	x->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (x->devnull < 0) {
		rc = -errno;
		snprintf(err, errlen, "/dev/null: %s", strerror(errno));
		goto fail;
	}
	x->vfds = vfd_table_new();
	if (!x->vfds || u64map_init(&x->maps) || !(x->aio = aio_table_new()) ||
	    !(x->uring = uring_table_new()) ||
	    !(x->dedupe = dedupe_table_new()) ||
	    !(x->data = aligned_alloc(DIOALIGN_MAX, DATA_LEN))) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	x->data_len = DATA_LEN;
	gen_data(x->data, x->data_len);
	return 0;
fail:
	exec_destroy(x);
	return rc;
}

int exec_open_roots(struct exec_ctx *x, char *const *roots, size_t n)
{
	roots_close(x->roots);
	x->roots = roots_open(roots, n);
	return x->roots ? 0 : -errno;
}

void exec_destroy(struct exec_ctx *x)
{
	/* Its contexts and rings first: their requests use the vfds' files. */
	aio_table_free(x->aio);
	uring_table_free(x->uring);
	dedupe_table_free(x->dedupe);
	vfd_table_free(x->vfds);
	mappings_free(x);
	dioalign_free(x->dio);
	roots_close(x->roots);
	for (struct exec_bigdata *b = atomic_load(&x->big), *older; b;
	     b = older) {
		older = b->older;
		free(b->p);
		free(b);
	}
	free(x->data);
	if (x->devnull > 0)
		close(x->devnull);
	if (x->umask_taken)
		umask(x->umask);
	pthread_mutex_destroy(&x->lock);
	memset(x, 0, sizeof(*x));
}
