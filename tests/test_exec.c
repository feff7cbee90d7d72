/*
 * Tests of the single-operation executor (src/replay/exec.c): every kind of
 * operation against a sandbox in a scratch directory ("<scratch>/m" plays
 * the mountpoint), the vfd lifecycle, and several threads replaying at
 * once.  The tests run unconfined: confinement is jail.c's, tested in
 * test_jail.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../src/replay/exec.h"
#include "../src/replay/execops.h"
#include "../src/replay/fileops.h"
#include "ioriot/replaylimits.h"
#include "testutil.h"

#define ANY_OK INT64_MIN	/* expected: any result >= 0 */
#define MAPADDR 0x7f0000001000ll
#define SENTINEL "keep me"

static char *scratch, *sandbox, *sentinel;
static struct exec_ctx X;

static void setup(void)
{
	char *dir = tu_scratch(), *m, *dot;

	scratch = realpath(dir, NULL);
	free(dir);
	ck_assert_ptr_nonnull(scratch);
	m = tu_join(scratch, "m");
	dot = tu_join(m, ".ioriot");
	sandbox = tu_join(dot, "t");
	ck_assert_msg(tu_mount_tmpfs(m), "sandboxes must be on a mountpoint");
	ck_assert_int_eq(mkdir(dot, 0755), 0);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);
	sentinel = tu_write_str(scratch, "sentinel", SENTINEL);
	free(m);
	free(dot);

	char err[256] = "";
	ck_assert_msg(exec_init(&X, geteuid(), getegid(), err,
				sizeof(err)) == 0, "%s", err);
}

static void teardown(void)
{
	exec_destroy(&X);
	free(scratch);
	free(sandbox);
	free(sentinel);
}

static void check_sentinel(void)
{
	char *text = tu_read(sentinel, NULL);

	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, SENTINEL);
	free(text);
}

/* "@sandbox/@rel" ("" is the root, "/..." stays as it is), in one of a
 * few rotating buffers. */
static const char *sbpath(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;
	char *b = buf[i++ % 4];

	if (rel[0] == '/')
		snprintf(b, PATH_MAX, "%s", rel);
	else if (!rel[0])
		snprintf(b, PATH_MAX, "%s", sandbox);
	else
		snprintf(b, PATH_MAX, "%s/%s", sandbox, rel);
	return b;
}

/* One row of an operation script. */
struct step {
	enum sys_id sys;
	int64_t ret;			/* captured */
	const char *path, *path2, *target, *name;
	uint64_t fd, fd2, vfd;
	unsigned have;			/* bits beyond path/fd/fd2/vfd/target */
	int64_t flags, mode, off, off2, whence, count, cmd, arg, uid, gid;
	uint64_t addr, stride;
	int64_t want;
};

static void run_step(const struct step *s, size_t i)
{
	struct rlog_op op = {
		.id = i + 1, .sys = s->sys, .ret = s->ret, .have = s->have,
		.fd = s->fd, .fd2 = s->fd2, .vfd = s->vfd, .flags = s->flags,
		.mode = s->mode, .offset = s->off, .offset2 = s->off2,
		.whence = s->whence, .count = s->count, .cmd = s->cmd,
		.arg = s->arg, .uid = s->uid, .gid = s->gid, .addr = s->addr,
		.stride = s->stride, .pid = 1, .tid = 1, .dur_ns = 0,
	};
	int64_t res = 12345;

	if (s->path) {
		op.path = sbpath(s->path);
		op.path_len = (uint32_t)strlen(op.path);
		op.have |= RL_PATH;
	}
	if (s->path2) {
		op.path2 = sbpath(s->path2);
		op.path2_len = (uint32_t)strlen(op.path2);
		op.have |= RL_PATH2;
	}
	if (s->target) {
		op.target = sbpath(s->target);
		op.target_len = (uint32_t)strlen(op.target);
		op.have |= RL_TARGET;
	}
	if (s->name) {
		op.name = s->name;
		op.name_len = (uint32_t)strlen(s->name);
		op.have |= RL_NAME;
	}
	op.have |= (s->fd ? RL_FD : 0) | (s->fd2 ? RL_FD2 : 0) |
		   (s->vfd ? RL_VFD : 0);
	ck_assert_int_eq(exec_op(&X, &op, &res), 0);
	if (s->want == ANY_OK)
		ck_assert_msg(res >= 0, "step %zu (%s): got %lld", i,
			      sys_info(s->sys)->name, (long long)res);
	else
		ck_assert_msg(res == s->want, "step %zu (%s): got %lld, want %lld",
			      i, sys_info(s->sys)->name, (long long)res,
			      (long long)s->want);
}

#define F RL_FLAGS
#define M RL_MODE
#define C RL_COUNT
#define O RL_OFFSET

/* fd operations and the vfd lifecycle. */
static const struct step fd_steps[] = {
	{ SYS_OPENAT, 3, "f", .vfd = 1, .have = F | M,
	  .flags = O_CREAT | O_RDWR, .mode = 0644, .want = 3 },
	{ SYS_WRITE, 100, .fd = 1, .have = C, .count = 100, .want = 100 },
	{ SYS_PWRITE64, 50, .fd = 1, .have = C | O, .count = 50, .off = 200,
	  .want = 50 },
	{ SYS_FSTAT, 0, .fd = 1, .want = 0 },
	{ SYS_LSEEK, 0, .fd = 1, .have = O | RL_WHENCE, .whence = SEEK_SET,
	  .want = 0 },
	{ SYS_READ, 250, .fd = 1, .have = C, .count = 4096, .want = 250 },
	{ SYS_PREAD64, 5, .fd = 1, .have = C | O, .count = 10, .off = 245,
	  .want = 5 },
	{ SYS_READV, 0, .fd = 1, .have = C, .count = 10, .want = 0 },
	{ SYS_WRITEV, 10, .fd = 1, .have = C, .count = 10, .want = 10 },
	{ SYS_PREADV, 10, .fd = 1, .have = C | O, .count = 10, .want = 10 },
	{ SYS_PWRITEV, 10, .fd = 1, .have = C | O, .count = 10, .off = 300,
	  .want = 10 },
	{ SYS_PREADV2, 5, .fd = 1, .have = C | O, .count = 5, .want = 5 },
	{ SYS_PWRITEV2, 5, .fd = 1, .have = C | O, .count = 5, .want = 5 },
	{ SYS_LSEEK, 310, .fd = 1, .have = O | RL_WHENCE, .whence = SEEK_END,
	  .want = 310 },
	{ SYS_FSYNC, 0, .fd = 1, .want = 0 },
	{ SYS_FDATASYNC, 0, .fd = 1, .want = 0 },
	{ SYS_SYNCFS, 0, .fd = 1, .want = 0 },
	{ SYS_SYNC_FILE_RANGE, 0, .fd = 1, .have = O | C | F, .want = 0 },
	{ SYS_FALLOCATE, 0, .fd = 1, .have = M | O | C, .count = 8192,
	  .want = 0 },
	{ SYS_FTRUNCATE, 0, .fd = 1, .have = C, .count = 2000, .want = 0 },
	{ SYS_FADVISE64, 0, .fd = 1, .have = O | C | F,
	  .flags = POSIX_FADV_SEQUENTIAL, .want = 0 },
	{ SYS_FADVISE64, -EINVAL, .fd = 1, .have = F, .flags = 99,
	  .want = -EINVAL },
	{ SYS_READAHEAD, 0, .fd = 1, .have = O | C, .count = 4096, .want = 0 },
	{ SYS_FSTATFS, 0, .fd = 1, .want = 0 },
	{ SYS_FCHMOD, 0, .fd = 1, .have = M, .mode = 0600, .want = 0 },
	{ SYS_FCHOWN, 0, .fd = 1, .have = RL_UID | RL_GID, .uid = -1,
	  .gid = -1, .want = 0 },
	{ SYS_FCNTL, 0x8002, .fd = 1, .have = RL_CMD, .cmd = F_GETFL,
	  .want = ANY_OK },
	{ SYS_FCNTL, 0, .fd = 1, .have = RL_CMD | RL_ARG, .cmd = F_SETFL,
	  .arg = O_NONBLOCK, .want = 0 },
	{ SYS_FCNTL, 0, .fd = 1, .have = RL_CMD, .cmd = F_SETLKW, .want = 0 },
	{ SYS_FCNTL, 0, .fd = 1, .have = RL_CMD, .cmd = F_NOTIFY,
	  .want = -EINVAL },
	{ SYS_NEWFSTATAT, 0, .fd = 1, .want = 0 },
	{ SYS_STATX, 0, .fd = 1, .want = 0 },
	{ SYS_UTIMENSAT, 0, .fd = 1, .want = 0 },
	{ SYS_FACCESSAT2, 0, .fd = 1, .have = M, .mode = R_OK, .want = 0 },
	/* mmap: the captured address stands for the mapping. */
	{ SYS_MMAP, MAPADDR, .fd = 1, .have = C | M | F | O, .count = 4096,
	  .mode = PROT_READ | PROT_WRITE, .flags = MAP_SHARED | MAP_FIXED,
	  .want = MAPADDR },
	{ SYS_MSYNC, 0, .fd = 1, .have = RL_ADDR | C | F, .addr = MAPADDR,
	  .count = 4096, .flags = MS_SYNC, .want = 0 },
	{ SYS_MUNMAP, 0, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 4096, .want = 0 },
	{ SYS_MUNMAP, 0, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 4096, .want = -EINVAL },
	{ SYS_MMAP, -ENODEV, .fd = 1, .have = C, .count = 0, .want = -EINVAL },
	/* transfers */
	{ SYS_OPEN, 4, "g", .vfd = 2, .have = F | M,
	  .flags = O_CREAT | O_WRONLY, .mode = 0644, .want = 4 },
	{ SYS_COPY_FILE_RANGE, 100, .fd = 1, .fd2 = 2,
	  .have = C | O | RL_OFFSET2, .count = 100, .want = 100 },
	{ SYS_SENDFILE, 10, .fd = 1, .fd2 = 2, .have = C | O, .count = 10,
	  .want = 10 },
	{ SYS_SENDFILE, 10, .fd = 1, .have = C | O, .count = 10, .want = 10 },
	{ SYS_COPY_FILE_RANGE, 100, .fd = 1, .have = C, .count = 100,
	  .want = -EBADF },
	{ SYS_CLOSE, 0, .fd = 2, .want = 0 },
	{ SYS_SENDFILE, 10, .fd = 1, .fd2 = 2, .have = C, .count = 10,
	  .want = -EBADF },
	{ SYS_CLOSE, 0, .fd = 1, .want = 0 },
	{ SYS_READ, 10, .fd = 1, .have = C, .count = 10, .want = -EBADF },
	{ SYS_FSTAT, 0, .fd = 1, .want = -EBADF },
	{ SYS_CLOSE, 0, .fd = 1, .want = -EBADF },
	{ SYS_WRITE, 10, .fd = 9, .have = C, .count = 10, .want = -EBADF },
	/* reopening a vfd number replaces the old fd */
	{ SYS_OPEN, 3, "f", .vfd = 5, .want = 3 },
	{ SYS_OPEN, 4, "g", .vfd = 5, .want = 4 },
	{ SYS_READ, 100, .fd = 5, .have = C, .count = 1000, .want = 100 },
	{ SYS_CREAT, 6, "g", .vfd = 6, .have = M, .mode = 0600, .want = 6 },
	{ SYS_READ, -EBADF, .fd = 6, .have = C, .count = 10, .want = -EBADF },
	{ SYS_FSTAT, 0, .fd = 6, .want = 0 },
	/* a large write takes several chunks */
	{ SYS_PWRITE64, 3 << 20, .fd = 6, .have = C | O, .count = 3 << 20,
	  .want = 3 << 20 },
	{ SYS_OPEN, -ENOENT, "missing", .want = -ENOENT },
	{ SYS_OPEN, -EEXIST, "f", .have = F, .flags = O_CREAT | O_EXCL,
	  .want = -EEXIST },
	{ SYS_OPEN, 7, "", .vfd = 7, .have = F,
	  .flags = O_RDONLY | O_DIRECTORY, .want = 7 },
	{ SYS_GETDENTS64, 120, .fd = 7, .have = C, .count = 4096,
	  .want = ANY_OK },
	{ SYS_SYNC, 0, .want = 0 },
	{ SYS_DUP, 8, .fd = 7, .want = -ENOSYS },
	{ SYS_CHDIR, 0, "", .want = -ENOSYS },
	{ SYS_EXIT, 0, .want = -ENOSYS },
};

/* path operations */
static const struct step path_steps[] = {
	{ SYS_STAT, -ENOENT, "f", .want = -ENOENT },
	{ SYS_CREAT, 3, "f", .vfd = 1, .have = M, .mode = 0644, .want = 3 },
	{ SYS_CLOSE, 0, .fd = 1, .want = 0 },
	{ SYS_STAT, 0, "f", .want = 0 },
	{ SYS_LSTAT, 0, "f", .want = 0 },
	{ SYS_NEWFSTATAT, 0, "f", .want = 0 },
	{ SYS_NEWFSTATAT, 0, "f", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_STATX, 0, "f", .want = 0 },
	{ SYS_STATX, 0, "f", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_STATFS, 0, "f", .want = 0 },
	{ SYS_ACCESS, 0, "f", .have = M, .mode = R_OK, .want = 0 },
	{ SYS_FACCESSAT, -ENOENT, "nope", .want = -ENOENT },
	{ SYS_FACCESSAT2, 0, "f", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_STAT, 0, "", .want = 0 },
	{ SYS_LSTAT, 0, "", .want = 0 },
	{ SYS_STATX, 0, "", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_STATFS, 0, "", .want = 0 },
	{ SYS_MKDIR, 0, "d", .have = M, .mode = 0755, .want = 0 },
	{ SYS_MKDIR, -EEXIST, "d", .want = -EEXIST },
	{ SYS_MKDIRAT, 0, "d/e", .want = 0 },
	{ SYS_MKDIR, -ENOENT, "x/y", .want = -ENOENT },
	{ SYS_MKDIR, -EEXIST, "", .want = -EEXIST },
	{ SYS_RMDIR, -ENOTEMPTY, "d", .want = -ENOTEMPTY },
	{ SYS_UNLINKAT, 0, "d/e", .have = F, .flags = AT_REMOVEDIR,
	  .want = 0 },
	{ SYS_RMDIR, 0, "d", .want = 0 },
	{ SYS_RMDIR, -ENOENT, "d", .want = -ENOENT },
	{ SYS_CHMOD, 0, "f", .have = M, .mode = 0640, .want = 0 },
	{ SYS_FCHMODAT2, 0, "f", .have = M | F, .mode = 0640,
	  .flags = AT_SYMLINK_NOFOLLOW, .want = 0 },
	{ SYS_FCHMODAT, 0, "f", .have = M, .mode = 0600, .want = 0 },
	{ SYS_CHMOD, 0, "", .have = M, .mode = 0755, .want = 0 },
	{ SYS_CHOWN, 0, "f", .have = RL_UID | RL_GID, .uid = -1, .gid = -1,
	  .want = 0 },
	{ SYS_LCHOWN, 0, "f", .want = 0 },
	{ SYS_FCHOWNAT, 0, "f", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_UTIMENSAT, 0, "f", .want = 0 },
	{ SYS_UTIMENSAT, 0, "f", .have = F, .flags = AT_SYMLINK_NOFOLLOW,
	  .want = 0 },
	{ SYS_TRUNCATE, 0, "f", .have = C, .count = 777, .want = 0 },
	{ SYS_TRUNCATE, -ENOENT, "nope", .have = C, .want = -ENOENT },
	{ SYS_SYMLINK, 0, "l", .target = "f", .want = 0 },
	{ SYS_SYMLINK, -EEXIST, "l", .target = "f", .want = -EEXIST },
	{ SYS_READLINK, 42, "l", .have = C, .count = 4096, .want = 42 },
	{ SYS_READLINKAT, -EINVAL, "f", .have = C, .count = 4096,
	  .want = -EINVAL },
	{ SYS_LSTAT, 0, "l", .want = 0 },
	{ SYS_STAT, 0, "l", .want = 0 },
	{ SYS_LINK, 0, "f", "h", .want = 0 },
	{ SYS_LINKAT, -EEXIST, "f", "h", .want = -EEXIST },
	{ SYS_RENAME, 0, "h", "i", .want = 0 },
	{ SYS_RENAMEAT2, -EEXIST, "i", "f", .have = F,
	  .flags = RENAME_NOREPLACE, .want = -EEXIST },
	{ SYS_RENAMEAT, 0, "i", "j", .want = 0 },
	{ SYS_UNLINK, 0, "j", .want = 0 },
	{ SYS_UNLINK, -ENOENT, "j", .want = -ENOENT },
	{ SYS_UNLINK, 0, "l", .want = 0 },
	/* O_TMPFILE in the root, then linked in by its vfd */
	{ SYS_OPENAT, 5, "", .vfd = 2, .have = F | M,
	  .flags = O_TMPFILE | O_RDWR, .mode = 0600, .want = 5 },
	{ SYS_WRITE, 5, .fd = 2, .have = C, .count = 5, .want = 5 },
	{ SYS_LINKAT, 0, .path2 = "t", .fd = 2, .have = F,
	  .flags = AT_EMPTY_PATH, .want = 0 },
	{ SYS_CLOSE, 0, .fd = 2, .want = 0 },
	{ SYS_STAT, 0, "t", .want = 0 },
};

#define LOCK(c, type, start, len) \
	.have = RL_CMD | RL_ARG | RL_WHENCE | O | C, .cmd = (c), \
	.arg = (type), .whence = SEEK_SET, .off = (start), .count = (len)
#define XA(n) .name = (n)

/* The file API: xattrs, locks (blocking ones bounded), splice, clones,
 * mknod.  The sandbox is a tmpfs: it shares no extents. */
static const struct step fileapi_steps[] = {
	{ SYS_OPENAT, 3, "f", .vfd = 1, .have = F | M,
	  .flags = O_CREAT | O_RDWR, .mode = 0644, .want = 3 },
	{ SYS_OPENAT, 4, "g", .vfd = 2, .have = F | M,
	  .flags = O_CREAT | O_RDWR, .mode = 0644, .want = 4 },
	{ SYS_OPENAT, 5, "f", .vfd = 3, .have = F, .flags = O_RDWR, .want = 5 },
	{ SYS_PWRITE64, 8192, .fd = 1, .have = C | O, .count = 8192,
	  .want = 8192 },
	/* extended attributes: generated values of the captured sizes */
	{ SYS_FSETXATTR, 0, .fd = 1, XA("user.a"), .have = C | RL_ARG,
	  .count = 5, .want = 0 },
	{ SYS_FGETXATTR, 5, .fd = 1, XA("user.a"), .have = C, .count = 0,
	  .want = 5 },
	{ SYS_GETXATTR, 5, "f", XA("user.a"), .have = C, .count = 64,
	  .want = 5 },
	{ SYS_LGETXATTR, 5, "f", XA("user.a"), .have = C, .count = 2,
	  .want = -ERANGE },
	{ SYS_LISTXATTR, 7, "f", .have = C, .count = 0, .want = 7 },
	{ SYS_FLISTXATTR, 7, .fd = 1, .have = C, .count = 64, .want = 7 },
	{ SYS_LLISTXATTR, 7, "f", .have = C, .count = 64, .want = 7 },
	{ SYS_SETXATTR, 0, "f", XA("user.b"), .have = C | RL_ARG, .count = 3,
	  .arg = XATTR_CREATE, .want = 0 },
	{ SYS_LSETXATTR, -EEXIST, "f", XA("user.b"), .have = C | RL_ARG,
	  .count = 3, .arg = XATTR_CREATE, .want = -EEXIST },
	{ SYS_REMOVEXATTR, 0, "f", XA("user.b"), .want = 0 },
	{ SYS_LREMOVEXATTR, -ENODATA, "f", XA("user.b"), .want = -ENODATA },
	{ SYS_FREMOVEXATTR, 0, .fd = 1, XA("user.a"), .want = 0 },
	{ SYS_SETXATTRAT, 0, "f", XA("user.at"), .have = C | F, .count = 2,
	  .want = 0 },
	{ SYS_GETXATTRAT, 2, "f", XA("user.at"), .have = C, .count = 64,
	  .want = 2 },
	{ SYS_LISTXATTRAT, 8, "f", .have = C, .count = 64, .want = 8 },
	{ SYS_REMOVEXATTRAT, 0, "f", XA("user.at"), .want = 0 },
	{ SYS_GETXATTRAT, -ENODATA, .fd = 1, XA("user.at"), .have = C | F,
	  .flags = AT_EMPTY_PATH, .want = -ENODATA },
	{ SYS_GETXATTR, -EINVAL, "f", .have = C, .want = -EINVAL },
	{ SYS_FGETXATTR, 0, .fd = 9, XA("user.a"), .want = -EBADF },
	/* the three-entry ACL is built from its mode: f becomes 0640 */
	{ SYS_FSETXATTR, 0, .fd = 1, XA("system.posix_acl_access"),
	  .have = C | M, .count = 28, .mode = 0640, .want = 0 },
	/* locks: POSIX ones of one process never conflict with each other,
	 * OFD and flock ones do; a blocking one gives up */
	{ SYS_FCNTL, 0, .fd = 1, LOCK(F_SETLK, F_WRLCK, 0, 10), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_SETLKW, F_RDLCK, 5, 10), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 1, LOCK(F_GETLK, F_WRLCK, 0, 0), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_OFD_SETLK, F_WRLCK, 0, 10),
	  .want = -EAGAIN },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_OFD_SETLKW, F_WRLCK, 0, 10),
	  .want = -ETIMEDOUT },
	{ SYS_FCNTL, 0, .fd = 1, LOCK(F_SETLKW, F_UNLCK, 0, 0), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_OFD_SETLKW, F_WRLCK, 0, 10), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_OFD_GETLK, F_WRLCK, 0, 0), .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, LOCK(F_OFD_SETLK, F_UNLCK, 0, 0), .want = 0 },
	/* without its range (an older capture's): a probe, as before */
	{ SYS_FCNTL, 0, .fd = 3, .have = RL_CMD | RL_ARG, .cmd = F_SETLK,
	  .arg = 0x7ffd0000, .want = 0 },
	{ SYS_FCNTL, 0, .fd = 3, .have = RL_CMD | RL_WHENCE, .cmd = F_SETLK,
	  .want = -EINVAL },	/* a range without its type */
	{ SYS_FLOCK, 0, .fd = 1, .have = F, .flags = LOCK_EX, .want = 0 },
	{ SYS_FLOCK, 0, .fd = 3, .have = F, .flags = LOCK_SH | LOCK_NB,
	  .want = -EWOULDBLOCK },
	{ SYS_FLOCK, 0, .fd = 3, .have = F, .flags = LOCK_SH,
	  .want = -ETIMEDOUT },
	{ SYS_FLOCK, 0, .fd = 1, .have = F, .flags = LOCK_UN, .want = 0 },
	{ SYS_FLOCK, 0, .fd = 3, .have = F, .flags = LOCK_SH, .want = 0 },
	{ SYS_FLOCK, 0, .fd = 3, .want = -EINVAL },
	/* splice: the pipe side is the thread's own pipe */
	{ SYS_SPLICE, 100, .fd = 1, .have = C | O, .count = 100, .off = 10,
	  .want = 100 },
	{ SYS_SPLICE, 100, .fd2 = 2, .have = C | RL_OFFSET2, .count = 4096,
	  .off2 = 50, .want = 100 },
	{ SYS_SPLICE, 7, .fd2 = 2, .have = C, .count = 4096, .want = 7 },
	{ SYS_SPLICE, 0, .want = -EBADF },
	{ SYS_SPLICE, 10, .fd = 9, .have = C, .count = 10, .want = -EBADF },
	/* clones and dedupe: a tmpfs cannot */
	{ SYS_IOCTL, 0, .fd = 2, .fd2 = 1, .have = RL_CMD, .cmd = FICLONE,
	  .want = -EOPNOTSUPP },
	{ SYS_IOCTL, 0, .fd = 2, .fd2 = 1, .have = RL_CMD | O | C | RL_OFFSET2,
	  .cmd = FICLONERANGE, .count = 4096, .want = -EOPNOTSUPP },
	{ SYS_IOCTL, 0, .fd = 2, .fd2 = 9, .have = RL_CMD, .cmd = FICLONE,
	  .want = -EBADF },
	{ SYS_IOCTL, 0, .fd = 2, .have = RL_CMD, .cmd = FIONREAD,
	  .want = -EINVAL },
	{ SYS_DEDUPE_DONE, 0, .fd = 2, .want = -EINVAL },
	{ SYS_DEDUPE, 0, .fd = 2, .have = RL_OFFSET2, .want = 0 },
	{ SYS_DEDUPE, 0, .fd = 3, .have = RL_OFFSET2, .off2 = 4096, .want = 0 },
	{ SYS_IOCTL, 0, .fd = 1, .have = RL_CMD | O | C | RL_ARG,
	  .cmd = FIDEDUPERANGE, .count = 4096, .arg = 2, .want = -EOPNOTSUPP },
	/* each destination's result is the call's error; then none is left */
	{ SYS_DEDUPE_DONE, 0, .fd = 2, .want = -EOPNOTSUPP },
	{ SYS_DEDUPE_DONE, 0, .fd = 3, .want = -EOPNOTSUPP },
	{ SYS_DEDUPE_DONE, 0, .fd = 3, .want = -EINVAL },
	{ SYS_DEDUPE, 0, .fd = 9, .have = RL_OFFSET2, .want = -EBADF },
	/* mknod: FIFOs and files; never a device */
	{ SYS_MKNOD, 0, "fifo", .have = M, .mode = S_IFIFO | 0644, .want = 0 },
	{ SYS_MKNODAT, 0, "reg", .have = M, .mode = 0600, .want = 0 },
	{ SYS_MKNODAT, 0, "null", .have = M, .mode = S_IFCHR | 0600,
	  .want = -EPERM },
	{ SYS_MKNOD, 0, "blk", .have = M, .mode = S_IFBLK | 0600,
	  .want = -EPERM },
	{ SYS_MKNOD, -EEXIST, "fifo", .have = M, .mode = S_IFIFO | 0644,
	  .want = -EEXIST },
};

static void run_steps(const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_step(&steps[i], i);
}

START_TEST(test_fd_ops)
{
	struct stat st;
	char *f = tu_join(sandbox, "f"), *g = tu_join(sandbox, "g");

	run_steps(fd_steps, sizeof(fd_steps) / sizeof(fd_steps[0]));
	ck_assert_int_eq(stat(g, &st), 0);
	ck_assert_int_eq(st.st_size, 3 << 20);
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_size, 2000);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	free(f);
	free(g);
	check_sentinel();
}
END_TEST

START_TEST(test_fileapi_ops)
{
	struct stat st;
	char *f = tu_join(sandbox, "f"), *g = tu_join(sandbox, "g");
	char *fifo = tu_join(sandbox, "fifo"), *null = tu_join(sandbox, "null");
	char *blk = tu_join(sandbox, "blk");

	run_steps(fileapi_steps, sizeof(fileapi_steps) /
		  sizeof(fileapi_steps[0]));
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(stat(g, &st), 0);
	ck_assert_int_eq(st.st_size, 150);	/* 100 at 50, then 7 at 0 */
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(lstat(null, &st), -1);
	ck_assert_int_eq(lstat(blk, &st), -1);
	free(f);
	free(g);
	free(fifo);
	free(null);
	free(blk);
	check_sentinel();
}
END_TEST

/*
 * POSIX ACL values the replay sets (xattr.c): a file system that keeps ACLs
 * (ext4 on a loop image) takes a longer one of the captured size, named
 * users and the mask in it (cp -a of a file with setfacl -m u:...), and
 * gives it back whole; one of a size no ACL has stays generated data,
 * which the kernel refuses (EOPNOTSUPP: no ACL version it knows).
 */
START_TEST(test_acl_values)
{
	static const char name[] = "system.posix_acl_access";
	char *dir = tu_scratch(), *mnt = tu_join(dir, "ext4"), *f;
	char data[64] = { 0 }, buf[64];
	struct rlog_op op = {
		.sys = SYS_SETXATTR, .name = name, .name_len = sizeof(name) - 1,
		.have = RL_PATH | RL_NAME | RL_COUNT, .count = 4 + 6 * 8,
	};

	if (geteuid() != 0 || !tu_mount_image(mnt, "mkfs.ext4", "-F", 16)) {
		printf("test_acl_values skipped: no ext4 image (needs root)\n");
		free(mnt);
		free(dir);
		return;
	}
	f = tu_write_str(mnt, "f", "x");
	op.path = f;
	ck_assert_int_eq(xattr_call(&op, -1, data, buf, sizeof(buf)), 0);
	ck_assert_int_eq(getxattr(f, name, buf, sizeof(buf)), 52);
	op.count = 30;
	ck_assert_int_eq(xattr_call(&op, -1, data, buf, sizeof(buf)),
			 -EOPNOTSUPP);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	free(f);
	free(mnt);
	free(dir);
}
END_TEST

START_TEST(test_path_ops)
{
	struct stat st;
	char *f = tu_join(sandbox, "f"), *t = tu_join(sandbox, "t");
	char *text;
	size_t len;

	run_steps(path_steps, sizeof(path_steps) / sizeof(path_steps[0]));
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_size, 777);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_ptr_nonnull(text = tu_read(t, &len));
	ck_assert_uint_eq(len, 5);
	for (size_t i = 0; i < len; i++)
		ck_assert_int_ne(text[i], 0);	/* generated, non-zero */
	free(text);
	free(f);
	free(t);
	check_sentinel();
}
END_TEST

#define NTHREADS 8
#define NFILES 50

static void *worker(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	char path[PATH_MAX];
	int fails = 0;

	for (int k = 0; k < NFILES; k++) {
		uint64_t vfd = t * 1000 + (uint64_t)k + 1;
		snprintf(path, sizeof(path), "%s/t%lu-%d", sandbox,
			 (unsigned long)t, k);
		struct rlog_op ops[3] = {
			{ .sys = SYS_OPENAT, .ret = 3, .path = path,
			  .path_len = (uint32_t)strlen(path), .vfd = vfd,
			  .flags = O_CREAT | O_WRONLY, .mode = 0644,
			  .have = RL_PATH | RL_VFD | RL_FLAGS | RL_MODE },
			{ .sys = SYS_WRITE, .ret = 4096, .fd = vfd,
			  .count = 4096, .have = RL_FD | RL_COUNT },
			{ .sys = SYS_CLOSE, .ret = 0, .fd = vfd, .have = RL_FD },
		};
		for (int i = 0; i < 3; i++) {
			int64_t res;
			if (exec_op(&X, &ops[i], &res) || res != ops[i].ret)
				fails++;
		}
	}
	return (void *)(uintptr_t)fails;
}

/* Run @sys on @rel with mode @mode (with RL_MODE if @have_mode) and
 * umask @mask (with RL_UMASK if >= 0); its result. */
static int64_t make_node(enum sys_id sys, const char *rel, int64_t flags,
			 bool have_mode, int64_t mode, int64_t mask)
{
	struct rlog_op op = { .id = 1, .sys = sys, .flags = flags,
			      .mode = mode, .umask = mask < 0 ? 0 : mask };
	int64_t res = 12345;

	op.path = sbpath(rel);
	op.path_len = (uint32_t)strlen(op.path);
	op.have = RL_PATH | (flags ? RL_FLAGS : 0) | (have_mode ? RL_MODE : 0) |
		  (mask >= 0 ? RL_UMASK : 0);
	ck_assert_int_eq(exec_op(&X, &op, &res), 0);
	return res;
}

static mode_t mode_of(const char *rel)
{
	struct stat st;

	ck_assert_msg(lstat(sbpath(rel), &st) == 0, "%s: %s", rel,
		      strerror(errno));
	return st.st_mode;
}

/*
 * Inodes are made with the captured permissions: the mode less the
 * captured umask, or without one less the umask the replay found; the
 * replay's own umask is 0 meanwhile.  bind makes a socket inode, mknod
 * no device.
 */
START_TEST(test_created_modes)
{
	mode_t now = umask(0);

	ck_assert_uint_eq(now, 0);
	ck_assert_int_eq(make_node(SYS_MKDIRAT, "d", 0, true, 0777, 027), 0);
	ck_assert_uint_eq(mode_of("d"), S_IFDIR | 0750);
	ck_assert_int_eq(make_node(SYS_OPENAT, "f", O_CREAT | O_WRONLY, true,
				   0666, 077), 0);
	ck_assert_uint_eq(mode_of("f"), S_IFREG | 0600);
	ck_assert_int_eq(make_node(SYS_OPENAT, "g", O_CREAT | O_WRONLY, true,
				   0666, -1), 0);
	ck_assert_uint_eq(mode_of("g"), S_IFREG | (0666 & ~X.umask));
	ck_assert_int_eq(make_node(SYS_MKNODAT, "fifo", 0, true,
				   S_IFIFO | 0666, 027), 0);
	ck_assert_uint_eq(mode_of("fifo"), S_IFIFO | 0640);
	ck_assert_int_eq(make_node(SYS_MKNOD, "reg", 0, true, 0604, 0), 0);
	ck_assert_uint_eq(mode_of("reg"), S_IFREG | 0604);
	ck_assert_int_eq(make_node(SYS_MKNOD, "dev", 0, true, S_IFCHR | 0666,
				   0), -EPERM);
	ck_assert_int_eq(make_node(SYS_MKNOD, "nomode", 0, false, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(access(sbpath("dev"), F_OK), -1);
	ck_assert_int_eq(access(sbpath("nomode"), F_OK), -1);
	ck_assert_int_eq(make_node(SYS_BIND, "sock", 0, false, 0, 022), 0);
	ck_assert_uint_eq(mode_of("sock"), S_IFSOCK | 0755);
	ck_assert_int_eq(make_node(SYS_BIND, "sock", 0, false, 0, 022),
			 -EADDRINUSE);
	ck_assert_int_eq(make_node(SYS_BIND, "nodir/sock", 0, false, 0, 022),
			 -ENOENT);
	check_sentinel();
}
END_TEST

START_TEST(test_threads)
{
	pthread_t th[NTHREADS];
	struct stat st;
	char path[PATH_MAX];

	for (uintptr_t t = 0; t < NTHREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker,
						(void *)t), 0);
	for (int t = 0; t < NTHREADS; t++) {
		void *fails;
		ck_assert_int_eq(pthread_join(th[t], &fails), 0);
		ck_assert_uint_eq((uintptr_t)fails, 0);
	}
	for (int t = 0; t < NTHREADS; t++) {
		for (int k = 0; k < NFILES; k++) {
			snprintf(path, sizeof(path), "%s/t%d-%d", sandbox, t, k);
			ck_assert_int_eq(stat(path, &st), 0);
			ck_assert_int_eq(st.st_size, 4096);
		}
	}
	for (int i = 0; i < EXEC_VFD_SHARDS; i++)
		ck_assert_uint_eq(X.vfds[i].map.count, 0);
}
END_TEST

#define PG 4096
#define MAPADDR2 0x7f0000100000ll

/* Pages through mappings: mmap_read and mmap_write touch the pages the
 * captured address and stride name, in the mapping that holds it; a page
 * beyond the end of the file ends the operation short (SIGBUS caught),
 * one the mapping lacks or may not be written is -EFAULT; madvise. */
static const struct step page_steps[] = {
	{ SYS_OPENAT, 3, "p", .vfd = 1, .have = F | M,
	  .flags = O_CREAT | O_RDWR, .mode = 0644, .want = 3 },
	{ SYS_FTRUNCATE, 0, .fd = 1, .have = C, .count = 3 * PG, .want = 0 },
	{ SYS_MMAP, MAPADDR, .fd = 1, .have = C | M | F | O, .count = 5 * PG,
	  .mode = PROT_READ | PROT_WRITE, .flags = MAP_SHARED, .want = MAPADDR },
	{ SYS_MADVISE, 0, .fd = 1, .have = RL_ADDR | C | F, .addr = MAPADDR,
	  .count = 5 * PG, .flags = MADV_RANDOM, .want = 0 },
	{ SYS_MMAP_READ, 3, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 3, .want = 3 },
	{ SYS_MMAP_WRITE, 1, .fd = 1, .have = RL_ADDR | C | O,
	  .addr = MAPADDR + PG, .off = PG, .count = 1, .want = 1 },
	/* pages 0 and 2 */
	{ SYS_MMAP_WRITE, 2, .fd = 1, .have = RL_ADDR | C | RL_STRIDE,
	  .addr = MAPADDR, .count = 2, .stride = 2, .want = 2 },
	{ SYS_MSYNC, 0, .fd = 1, .have = RL_ADDR | C | F, .addr = MAPADDR,
	  .count = 5 * PG, .flags = MS_SYNC, .want = 0 },
	/* pages 1 to 4: pages 3 and 4 are beyond the file's 3 pages */
	{ SYS_MMAP_READ, 4, .fd = 1, .have = RL_ADDR | C,
	  .addr = MAPADDR + PG, .count = 4, .want = 2 },
	{ SYS_MMAP_WRITE, 2, .fd = 1, .have = RL_ADDR | C,
	  .addr = MAPADDR + 2 * PG, .count = 2, .want = 1 },
	/* a stride past the mapping's end: the first page only */
	{ SYS_MMAP_READ, 2, .fd = 1, .have = RL_ADDR | C | RL_STRIDE,
	  .addr = MAPADDR, .count = 2, .stride = 1000, .want = 1 },
	{ SYS_MMAP_READ, 2, .fd = 1, .have = RL_ADDR | C | RL_STRIDE,
	  .addr = MAPADDR, .count = 2, .stride = 0, .want = -EINVAL },
	{ SYS_MMAP_READ, 1, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 0, .want = -EINVAL },
	{ SYS_MMAP_READ, 1, .fd = 1, .have = RL_ADDR | C,
	  .addr = MAPADDR + 5 * PG, .count = 1, .want = -EFAULT },
	{ SYS_MADVISE, 0, .fd = 1, .have = RL_ADDR | C | F, .addr = MAPADDR,
	  .count = PG, .flags = MADV_HWPOISON, .want = -EINVAL },
	{ SYS_MADVISE, 0, .fd = 1, .have = RL_ADDR | C | F,
	  .addr = MAPADDR + PG, .count = PG, .flags = MADV_DONTNEED,
	  .want = 0 },
	/* a read-only mapping of the same file */
	{ SYS_MMAP, MAPADDR2, .fd = 1, .have = C | M | F, .count = PG,
	  .mode = PROT_READ, .flags = MAP_SHARED, .want = MAPADDR2 },
	{ SYS_MMAP_WRITE, 1, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR2,
	  .count = 1, .want = -EFAULT },
	{ SYS_MMAP_READ, 1, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR2,
	  .count = 1, .want = 1 },
	{ SYS_MUNMAP, 0, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 5 * PG, .want = 0 },
	{ SYS_MMAP_READ, 1, .fd = 1, .have = RL_ADDR | C, .addr = MAPADDR,
	  .count = 1, .want = -EFAULT },
	{ SYS_MSYNC, 0, .fd = 1, .have = RL_ADDR | C | F, .addr = MAPADDR2,
	  .count = PG, .flags = MS_SYNC, .want = 0 },
	{ SYS_CLOSE, 0, .fd = 1, .want = 0 },
};

START_TEST(test_page_ops)
{
	char *p = tu_join(sandbox, "p"), *text;
	size_t len;

	run_steps(page_steps, sizeof(page_steps) / sizeof(page_steps[0]));
	/* The byte of each page written; page 1 read only after. */
	ck_assert_ptr_nonnull(text = tu_read(p, &len));
	ck_assert_uint_eq(len, 3 * PG);
	for (int pg = 0; pg < 3; pg++)
		ck_assert_msg(text[pg * PG] == X.data[0], "page %d", pg);
	ck_assert_int_eq(text[PG + 1], 0);
	free(text);
	free(p);
	check_sentinel();
}
END_TEST

/* A vfd left open and a mapping left mapped are released by
 * exec_destroy() (in teardown; ASan sees a leak). */
START_TEST(test_release)
{
	const struct step steps[] = {
		{ SYS_OPEN, 3, "f", .vfd = 1, .have = F | M,
		  .flags = O_CREAT | O_RDWR, .mode = 0644, .want = 3 },
		{ SYS_FTRUNCATE, 0, .fd = 1, .have = C, .count = 4096,
		  .want = 0 },
		{ SYS_MMAP, MAPADDR, .fd = 1, .have = C | M | F, .count = 4096,
		  .mode = PROT_READ, .flags = MAP_PRIVATE, .want = MAPADDR },
	};
	run_steps(steps, sizeof(steps) / sizeof(steps[0]));
}
END_TEST

/* A thread's read buffer for a read of IO_MAX (the caller's thread
 * ends: its buffer goes, what it grew stays counted). */
static void *grow_read_buf(void *arg)
{
	size_t *cap = arg;

	if (!exec_read_buf(&X, IO_MAX, cap))
		*cap = 0;
	return NULL;
}

/*
 * What the threads' read buffers grow beyond READ_BUF is bounded for the
 * whole replay (REPLAY_READ_BUFS_MAX): threads that read IO_MAX get it
 * while the bound allows, the others keep READ_BUF and read in several
 * calls.  Before, each of up to 65536 threads could hold IO_MAX.
 */
START_TEST(test_read_bufs_bounded)
{
	size_t full = REPLAY_READ_BUFS_MAX / (IO_MAX - READ_BUF), n = full + 4;
	size_t big = 0, small = 0;

	for (size_t i = 0; i < n; i++) {
		pthread_t t;
		size_t cap = 0;

		ck_assert_int_eq(pthread_create(&t, NULL, grow_read_buf, &cap), 0);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
		big += cap == IO_MAX;
		small += cap == READ_BUF;
	}
	ck_assert_uint_eq(big, full);
	ck_assert_uint_eq(small, n - full);
}
END_TEST

Suite *exec_suite(void)
{
	Suite *s = suite_create("exec");
	TCase *tc = tcase_create("ops");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fd_ops);
	tcase_add_test(tc, test_path_ops);
	tcase_add_test(tc, test_created_modes);
	tcase_add_test(tc, test_page_ops);
	tcase_add_test(tc, test_fileapi_ops);
	tcase_add_test(tc, test_acl_values);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_release);
	tcase_add_test(tc, test_read_bufs_bounded);
	suite_add_tcase(s, tc);
	return s;
}
