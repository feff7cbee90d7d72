/*
 * fileapi: a capture workload (tests/test_capture.c) of the file API
 * beyond reads and writes, through syscall(2) so that the C library
 * changes no call: the clone and dedupe ioctls, extended attributes in
 * every form, file locks, splice and tee, mknod, and the hints and syncs
 * (sync_file_range, fadvise64, readahead, syncfs).
 *
 * Usage: fileapi DIR [nodev].  Before the capture it makes DIR/src and DIR/dst,
 * FA_SIZE bytes each of the same data, and gives src the attribute
 * FA_PRE (FA_PRE_LEN bytes).  Then it waits for one byte on stdin (the
 * probe is attached) and, on DIR (an xfs with reflink for the ioctls to
 * succeed; elsewhere they fail, which the test expects too):
 *  - FICLONE of src into dst; FICLONERANGE of src's first block to dst's
 *    second; FIDEDUPERANGE of src's first block with dst's first; an
 *    FIONREAD ioctl (not captured);
 *  - fsetxattr user.a, fgetxattr FA_PRE (size only), getxattr FA_PRE,
 *    lgetxattr, getxattr of a missing name (ENODATA), flistxattr,
 *    listxattr, llistxattr, setxattr user.b (XATTR_CREATE), lsetxattr
 *    user.c, removexattr user.b, lremovexattr user.c, fremovexattr user.a,
 *    fsetxattr of a three-entry POSIX ACL of FA_ACL_MODE, and setxattrat,
 *    getxattrat, listxattrat, removexattrat (Linux 6.13; their result does
 *    not matter);
 *  - on src: F_SETLK of a write lock of 20 bytes at 10, F_GETLK, F_SETLKW
 *    unlock; F_OFD_SETLK of a read lock of 100 bytes at 0, F_OFD_GETLK,
 *    F_OFD_SETLKW unlock; flock LOCK_EX, LOCK_UN, LOCK_SH | LOCK_NB,
 *    LOCK_UN;
 *  - splice of FA_SPLICE bytes of src at 0 into a pipe, tee of FA_TEE of
 *    them into another pipe, splice of the FA_SPLICE bytes into dst at
 *    FA_SIZE;
 *  - mknod of the FIFO DIR/fifo, mknodat of the regular file DIR/reg,
 *    mknod of the character device DIR/null (1:3; it needs root; not with
 *    nodev: a replay makes no device), each removed again;
 *  - sync_file_range, fadvise64 (POSIX_FADV_WILLNEED), readahead of src's
 *    first block, syncfs.
 * Every call whose result matters is checked: on failure it prints what
 * failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileapi.h"

#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_getxattrat 464
#define SYS_listxattrat 465
#define SYS_removexattrat 466
#endif

struct at_args {
	uint64_t value;
	uint32_t size, flags;
};

static void fail(const char *what, int line)
{
	fprintf(stderr, "fileapi:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static char *join(const char *dir, const char *name)
{
	char *p;

	CHECK(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void make_file(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);

	CHECK(fd >= 0 && write(fd, data, FA_SIZE) == FA_SIZE && close(fd) == 0);
}

static void clones(int s, int d)
{
	struct file_clone_range cr = { .src_fd = s, .src_offset = 0,
				       .src_length = FA_BLOCK,
				       .dest_offset = FA_BLOCK };
	struct file_dedupe_range *dr = calloc(1, sizeof(*dr) +
					      sizeof(dr->info[0]));
	int n;

	CHECK(dr);
	syscall(SYS_ioctl, d, FICLONE, s);
	syscall(SYS_ioctl, d, FICLONERANGE, &cr);
	dr->src_offset = 0;
	dr->src_length = FA_BLOCK;
	dr->dest_count = 1;
	dr->info[0].dest_fd = d;
	dr->info[0].dest_offset = 0;
	syscall(SYS_ioctl, s, FIDEDUPERANGE, dr);
	free(dr);
	CHECK(syscall(SYS_ioctl, s, FIONREAD, &n) == 0);
}

static void xattrs(int s, const char *src)
{
	/* version 2; user rw-, group r--, other ---; ids undefined */
	static const unsigned char acl[28] = {
		2, 0, 0, 0, 0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	struct at_args args = { .value = (uintptr_t)"at", .size = 2 };
	char buf[256];

	CHECK(syscall(SYS_fsetxattr, s, "user.a", "hello", 5, 0) == 0);
	CHECK(syscall(SYS_fgetxattr, s, FA_PRE, NULL, 0) == FA_PRE_LEN);
	CHECK(syscall(SYS_getxattr, src, FA_PRE, buf, sizeof(buf)) ==
	      FA_PRE_LEN);
	CHECK(syscall(SYS_lgetxattr, src, FA_PRE, buf, sizeof(buf)) ==
	      FA_PRE_LEN);
	CHECK(syscall(SYS_getxattr, src, "user.none", buf, sizeof(buf)) < 0 &&
	      errno == ENODATA);
	CHECK(syscall(SYS_flistxattr, s, NULL, 0) > 0);
	CHECK(syscall(SYS_listxattr, src, buf, sizeof(buf)) > 0);
	CHECK(syscall(SYS_llistxattr, src, buf, sizeof(buf)) > 0);
	CHECK(syscall(SYS_setxattr, src, "user.b", "xy", 2, XATTR_CREATE) == 0);
	CHECK(syscall(SYS_lsetxattr, src, "user.c", "z", 1, 0) == 0);
	CHECK(syscall(SYS_removexattr, src, "user.b") == 0);
	CHECK(syscall(SYS_lremovexattr, src, "user.c") == 0);
	CHECK(syscall(SYS_fremovexattr, s, "user.a") == 0);
	CHECK(syscall(SYS_fsetxattr, s, "system.posix_acl_access", acl,
		      sizeof(acl), 0) == 0);
	syscall(SYS_setxattrat, AT_FDCWD, src, 0, "user.at", &args,
		sizeof(args));
	args.value = (uintptr_t)buf;
	args.size = sizeof(buf);
	syscall(SYS_getxattrat, AT_FDCWD, src, 0, "user.at", &args,
		sizeof(args));
	syscall(SYS_listxattrat, AT_FDCWD, src, 0, buf, sizeof(buf));
	syscall(SYS_removexattrat, AT_FDCWD, src, 0, "user.at");
}

static void locks(int s)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = 10, .l_len = 20 };

	CHECK(syscall(SYS_fcntl, s, F_SETLK, &fl) == 0);
	CHECK(syscall(SYS_fcntl, s, F_GETLK, &fl) == 0);
	fl = (struct flock){ .l_type = F_UNLCK, .l_whence = SEEK_SET,
			     .l_start = 10, .l_len = 20 };
	CHECK(syscall(SYS_fcntl, s, F_SETLKW, &fl) == 0);
	fl = (struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 100 };
	CHECK(syscall(SYS_fcntl, s, F_OFD_SETLK, &fl) == 0);
	CHECK(syscall(SYS_fcntl, s, F_OFD_GETLK, &fl) == 0);
	fl = (struct flock){ .l_type = F_UNLCK, .l_whence = SEEK_SET,
			     .l_start = 0, .l_len = 100 };
	CHECK(syscall(SYS_fcntl, s, F_OFD_SETLKW, &fl) == 0);
	CHECK(syscall(SYS_flock, s, LOCK_EX) == 0);
	CHECK(syscall(SYS_flock, s, LOCK_UN) == 0);
	CHECK(syscall(SYS_flock, s, LOCK_SH | LOCK_NB) == 0);
	CHECK(syscall(SYS_flock, s, LOCK_UN) == 0);
}

static void splices(int s, int d)
{
	loff_t in = 0, out = FA_SIZE;
	int p[2], q[2];

	CHECK(pipe2(p, O_CLOEXEC) == 0 && pipe2(q, O_CLOEXEC) == 0);
	CHECK(syscall(SYS_splice, s, &in, p[1], NULL, FA_SPLICE, 0) ==
	      FA_SPLICE);
	CHECK(syscall(SYS_tee, p[0], q[1], FA_TEE, 0) == FA_TEE);
	CHECK(syscall(SYS_splice, p[0], NULL, d, &out, FA_SPLICE, 0) ==
	      FA_SPLICE);
	CHECK(close(p[0]) == 0 && close(p[1]) == 0 && close(q[0]) == 0 &&
	      close(q[1]) == 0);
}

static void nodes(const char *dir, int dirfd, int dev)
{
	char *fifo = join(dir, "fifo"), *null = join(dir, "null");

	CHECK(syscall(SYS_mknod, fifo, S_IFIFO | 0644, 0) == 0);
	CHECK(syscall(SYS_mknodat, dirfd, "reg", S_IFREG | 0600, 0) == 0);
	CHECK(!dev || syscall(SYS_mknod, null, S_IFCHR | 0600,
			      makedev(1, 3)) == 0);
	CHECK(unlink(fifo) == 0 && unlinkat(dirfd, "reg", 0) == 0 &&
	      (!dev || unlink(null) == 0));
	free(fifo);
	free(null);
}

static void hints(int s)
{
	CHECK(syscall(SYS_sync_file_range, s, 0, FA_BLOCK,
		      SYNC_FILE_RANGE_WRITE) == 0);
	CHECK(syscall(SYS_fadvise64, s, 0, FA_BLOCK, POSIX_FADV_WILLNEED) == 0);
	CHECK(syscall(SYS_readahead, s, 0, FA_BLOCK) == 0);
	CHECK(syscall(SYS_syncfs, s) == 0);
}

int main(int argc, char **argv)
{
	char *src, *dst, *data, go;
	int dirfd, s, d;

	CHECK(argc == 2 || (argc == 3 && !strcmp(argv[2], "nodev")));
	src = join(argv[1], "src");
	dst = join(argv[1], "dst");
	CHECK((data = malloc(FA_SIZE)));
	for (int i = 0; i < FA_SIZE; i++)
		data[i] = (char)('a' + i % 26);
	make_file(src, data);
	make_file(dst, data);
	CHECK(setxattr(src, FA_PRE, "12345", FA_PRE_LEN, 0) == 0);
	CHECK(read(0, &go, 1) >= 0);

	CHECK((dirfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0);
	CHECK((s = open(src, O_RDWR | O_CLOEXEC)) >= 0);
	CHECK((d = open(dst, O_RDWR | O_CLOEXEC)) >= 0);
	clones(s, d);
	xattrs(s, src);
	locks(s);
	splices(s, d);
	nodes(argv[1], dirfd, argc == 2);
	hints(s);
	CHECK(close(d) == 0 && close(s) == 0 && close(dirfd) == 0);
	free(data);
	free(src);
	free(dst);
	return 0;
}
