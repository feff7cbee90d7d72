/*
 * pathops: the replayed calls on a path (execops.h): opens, the stat,
 * access, chmod, chown and time calls, readlink, mkdir, mknod, bind (as
 * the socket inode it made), unlink, rmdir, rename, link and symlink,
 * each the one syscall captured in its *at form with the path relative to
 * its sandbox root's fd (roots.h).  exec.c's top comment lists what is
 * not replayed as captured.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "execops.h"
#include "fileops.h"
#include "vfds.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452	/* Linux 6.6; one number on every architecture */
#endif

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
 * umask (exec.c). */
static int64_t do_bind(struct exec_ctx *x, const struct rlog_op *op)
{
	int dfd;
	const char *p = at_path(x, op, &dfd);
	int64_t r = neg_errno(mknodat(dfd, p, S_IFSOCK |
				      created_mode(x, op, 0777), 0));

	return r == -EEXIST ? -EADDRINUSE : r;
}

int exec_open_op(struct exec_ctx *x, const struct rlog_op *op,
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

	/* Never waiting for a FIFO's other end (exec.c);
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
		exec_dio_learn(x, (int)fd, op->path);
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
	char *buf = exec_read_buf(x, 0, NULL);
	size_t size = op->have & RL_COUNT && op->count > 0 &&
		      op->count < READ_BUF ? (size_t)op->count : PATH_MAX;
	int dfd;
	const char *p = at_path(x, op, &dfd);
	ssize_t n = readlinkat(dfd, p, buf, size);

	if (n < 0)
		return -errno;
	return n > 0 && buf[0] == '/' && op->ret >= 0 ? op->ret : n;
}

int64_t exec_path_op(struct exec_ctx *x, const struct rlog_op *op,
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

