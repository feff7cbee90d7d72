/*
 * exec: carries out one replay operation as the syscall it was captured as
 * (exec.h), once, failing ones included: exec_op() dispatches it by its
 * kind to the calls on a path (pathops.c), on an fd (fdops.c), the file
 * API (fileops.h), mappings, AIO and io_uring; the data buffers are
 * iobuf.c's.  The context's set-up and tear-down are here.
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
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aio.h"
#include "dioalign.h"
#include "uring.h"
#include "execops.h"
#include "fileops.h"
#include "vfds.h"

int exec_op(struct exec_ctx *x, const struct rlog_op *op, int64_t *result)
{
	enum sys_id sys;

	if ((unsigned)op->sys >= SYS_COUNT) {
		*result = -ENOSYS;
		return 0;
	}
	/* Every thread's read buffer comes first: later failures are the
	 * operation's own. */
	if (!exec_read_buf(x, 0, NULL))
		return -ENOMEM;
	sys = sys_canonical(op->sys);
	switch (sys_info(sys)->kind) {
	case SK_OPEN:
		if (!(op->have & RL_PATH)) {
			*result = -EINVAL;
			return 0;
		}
		return exec_open_op(x, op, sys, result);
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
		return exec_fileapi_op(x, op, sys_info(sys)->kind, result);
	case SK_AIO_SETUP: case SK_AIO_DESTROY: case SK_AIO_SUBMIT:
	case SK_AIO_CANCEL: case SK_AIO_GETEVENTS: case SK_IOCB:
	case SK_AIO_DATA: case SK_AIO_DONE:
		return aio_exec(x->aio, op, sys_info(sys)->kind == SK_IOCB && (op->have & RL_FD) ?
				vfd_get(x, op->fd) : -1, x->data, x->data_len,
				atomic_load_explicit(&x->dio_align,
						     memory_order_acquire),
				&x->stop, result);
	case SK_URING_SETUP: case SK_URING_ENTER: case SK_URING_REGISTER:
	case SK_URING_SQE: case SK_URING_FILE: case SK_URING_BUF:
	case SK_URING_DATA: case SK_URING_DONE:
		return uring_exec(x->uring, op, op->have & RL_FD &&
				  sys_info(sys)->kind != SK_URING_DATA &&
				  sys_info(sys)->kind != SK_URING_DONE ?
				  vfd_get_blocking(x, op->fd) : -1, x->data, x->data_len,
				  atomic_load_explicit(&x->dio_align,
						       memory_order_acquire),
				  &x->uring_flags_dropped, &x->stop, result);
	case SK_STATAT: case SK_LINK:
		if (!(op->have & RL_PATH) && (op->have & RL_FD))
			break;		/* AT_EMPTY_PATH on a vfd */
		/* fall through */
	case SK_PATHOP: case SK_TRUNCATE: case SK_MKDIR: case SK_RMDIR:
	case SK_UNLINK: case SK_RENAME: case SK_SYMLINK: case SK_MKNOD:
		*result = exec_path_op(x, op, sys);
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
	return exec_fd_op(x, op, sys, fd, result);
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
	if (!x->vfds || u64map_init(&x->maps) || !(x->aio = aio_table_new(&x->budget)) ||
	    !(x->uring = uring_table_new(&x->budget)) ||
	    !(x->dedupe = dedupe_table_new()) || exec_data_init(x)) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
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
	exec_data_free(x);
	if (x->devnull > 0)
		close(x->devnull);
	if (x->umask_taken)
		umask(x->umask);
	pthread_mutex_destroy(&x->lock);
	memset(x, 0, sizeof(*x));
}
