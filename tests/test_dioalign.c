/*
 * Tests of the replay's direct I/O alignment (src/replay/dioalign.c) and of
 * O_DIRECT operations replayed through exec.c, on loop devices whose
 * logical blocks are 512 bytes (ext4) and 4096 bytes (xfs, as `losetup
 * --sector-size 4096`), and on a tmpfs (no block device).  What the module
 * answers is compared with a statx of the test's own, and with the sector
 * size the loop device was given; the statx calls it makes are counted:
 * one per device.
 *
 * On Linux 6.x every loop device reports a memory alignment of 512 bytes
 * (its queue's DMA alignment) whatever its sector size; the offset
 * alignment is the sector size.  The replay's buffers follow the larger.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../src/replay/exec.h"
#include "testutil.h"
#include "../src/replay/dioalign.h"

/* The file systems: each on its own loop device. */
static const struct fs {
	const char *name;
	unsigned sector;	/* logical block size of its loop device */
	unsigned mb;
	const char *mkfs[4];
} fss[] = {
	{ "ext4", 512, 32, { "mkfs.ext4", "-q", "-F", NULL } },
	/* xfsprogs refuses file systems below 300 MB; the image is sparse. */
	{ "xfs", 4096, 320, { "mkfs.xfs", "-q", "-f", NULL } },
};
#define NFS (sizeof(fss) / sizeof(fss[0]))

static char *top;		/* scratch directory */
static char *mnt[NFS];		/* mounted file systems, NULL if not */

static void fs_setup(void)
{
	if (geteuid() != 0) {
		printf("dioalign: loop devices skipped: not root\n");
		return;
	}
	top = tu_mkdtemp();
	for (size_t i = 0; i < NFS; i++) {
		char *dir = tu_join(top, fss[i].name);

		if (tu_mount_loop(dir, fss[i].mb, fss[i].sector, fss[i].mkfs))
			mnt[i] = dir;
		else
			free(dir);
	}
}

static void fs_teardown(void)
{
	for (size_t i = 0; i < NFS; i++) {
		if (mnt[i] && umount2(mnt[i], 0) < 0)
			printf("dioalign: cannot unmount %s: %s\n", mnt[i],
			       strerror(errno));
		free(mnt[i]);
		mnt[i] = NULL;
	}
	if (top)
		tu_rmtree(top);
	free(top);
	top = NULL;
}

/* A new directory @dir/@name (malloc'd). */
static char *mkdir_in(const char *dir, const char *name)
{
	char *path = tu_join(dir, name);

	ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "%s: %s",
		      path, strerror(errno));
	return path;
}

/* @path created and opened with O_DIRECT. */
static int open_direct(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	return fd;
}

/* What statx says @fd needs: the larger of its two alignments. */
static size_t statx_align(int fd)
{
	struct statx stx;

	ck_assert_int_eq(statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx), 0);
	ck_assert_msg(stx.stx_mask & STATX_DIOALIGN, "no STATX_DIOALIGN");
	return stx.stx_dio_mem_align > stx.stx_dio_offset_align ?
	       stx.stx_dio_mem_align : stx.stx_dio_offset_align;
}

/* The alignment of each file system's files: statx's, which is the loop
 * device's sector size; asked once for two sandboxes on the device; a
 * file outside them, and a module without sandboxes, ask each time. */
START_TEST(test_statx_per_device)
{
	const struct fs *f = &fss[_i];
	char *roots[2], *p1, *p2, *other, *op;
	struct dioalign *d;
	int fd1, fd2, fd3;
	size_t want;

	if (!mnt[_i]) {
		printf("dioalign: %s skipped: not mounted\n", f->name);
		return;
	}
	roots[0] = mkdir_in(mnt[_i], "a");
	roots[1] = mkdir_in(mnt[_i], "b");
	other = mkdir_in(mnt[_i], "c");
	p1 = tu_join(roots[0], "f");
	p2 = tu_join(roots[1], "f");
	op = tu_join(other, "f");
	fd1 = open_direct(p1);
	fd2 = open_direct(p2);
	fd3 = open_direct(op);
	want = statx_align(fd1);
	ck_assert_uint_eq(want, f->sector);

	d = dioalign_new(roots, roots, 2);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(dioalign_probes(d), 0);
	ck_assert_uint_eq(dioalign_of(d, fd1, p1), want);
	ck_assert_uint_eq(dioalign_probes(d), 1);
	ck_assert_uint_eq(dioalign_of(d, fd2, p2), want);
	ck_assert_uint_eq(dioalign_of(d, fd1, p1), want);
	ck_assert_uint_eq(dioalign_probes(d), 1);
	/* Not below a root: a mount of its own may be there. */
	ck_assert_uint_eq(dioalign_of(d, fd3, op), want);
	ck_assert_uint_eq(dioalign_of(d, fd2, NULL), want);
	ck_assert_uint_eq(dioalign_probes(d), 3);
	dioalign_free(d);
	ck_assert_uint_eq(dioalign_of(NULL, fd1, p1), want);
	printf("dioalign: %s on %u-byte sectors: buffers aligned to %zu\n",
	       f->name, f->sector, want);

	close(fd1);
	close(fd2);
	close(fd3);
	free(p1);
	free(p2);
	free(op);
	free(other);
	free(roots[0]);
	free(roots[1]);
}
END_TEST

/* A file system without a block device that does not report direct I/O
 * alignment (tmpfs): a page, asked once. */
START_TEST(test_no_block_device)
{
	char *dir = tu_scratch(), *m = tu_join(dir, "m"), *p1, *p2;
	struct dioalign *d;
	int fd1, fd2;

	if (!tu_mount_tmpfs(m)) {
		printf("dioalign: tmpfs skipped\n");
		free(m);
		free(dir);
		return;
	}
	p1 = tu_join(m, "f1");
	p2 = tu_join(m, "f2");
	fd1 = open_direct(p1);
	fd2 = open_direct(p2);
	d = dioalign_new(&m, &m, 1);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(dioalign_of(d, fd1, p1), 4096);
	ck_assert_uint_eq(dioalign_of(d, fd2, p2), 4096);
	ck_assert_uint_eq(dioalign_probes(d), 1);
	dioalign_free(d);
	close(fd1);
	close(fd2);
	free(p1);
	free(p2);
	free(m);
	free(dir);
}
END_TEST

/* One operation on @x: its result. */
static int64_t run(struct exec_ctx *x, struct rlog_op op)
{
	int64_t res = 12345;

	if (op.path)
		op.path_len = (uint32_t)strlen(op.path);
	ck_assert_int_eq(exec_op(x, &op, &res), 0);
	return res;
}

/*
 * O_DIRECT replayed by exec.c: the open learns the alignment (the read
 * buffers follow it), aligned writes and reads replay, a read at an
 * offset the device cannot do directly fails as the kernel says, and an
 * fcntl F_SETFL that sets O_DIRECT learns it too.
 */
START_TEST(test_exec_direct)
{
	const struct fs *f = &fss[_i];
	char *root, *path, *path2, err[256] = "";
	struct exec_ctx x;

	if (!mnt[_i]) {
		printf("dioalign: %s skipped: not mounted\n", f->name);
		return;
	}
	root = mkdir_in(mnt[_i], "x");
	path = tu_join(root, "direct");
	path2 = tu_join(root, "later");
	ck_assert_msg(exec_init(&x, 0, 0, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(exec_learn_sandboxes(&x, &root, &root, 1), 0);
	ck_assert_uint_eq(atomic_load(&x.dio_align), DIOALIGN_MIN);

	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_OPENAT, .ret = 3,
		.path = path, .vfd = 1, .have = RL_PATH | RL_VFD | RL_FLAGS |
		RL_MODE, .flags = O_CREAT | O_RDWR | O_DIRECT, .mode = 0644 }),
		3);
	ck_assert_uint_eq(atomic_load(&x.dio_align), f->sector);
	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_PWRITE64,
		.ret = 65536, .fd = 1, .have = RL_FD | RL_COUNT | RL_OFFSET,
		.count = 65536, .offset = 0 }), 65536);
	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_PREAD64,
		.ret = 8192, .fd = 1, .have = RL_FD | RL_COUNT | RL_OFFSET,
		.count = 8192, .offset = 4096 }), 8192);
	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_PREAD64,
		.ret = 512, .fd = 1, .have = RL_FD | RL_COUNT | RL_OFFSET,
		.count = 512, .offset = 512 }),
		f->sector > 512 ? -EINVAL : 512);

	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_OPENAT, .ret = 4,
		.path = path2, .vfd = 2, .have = RL_PATH | RL_VFD | RL_FLAGS |
		RL_MODE, .flags = O_CREAT | O_RDWR, .mode = 0644 }), 4);
	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_FCNTL, .ret = 0,
		.fd = 2, .have = RL_FD | RL_CMD | RL_ARG, .cmd = F_SETFL,
		.arg = O_DIRECT }), 0);
	ck_assert_int_eq(run(&x, (struct rlog_op){ .sys = SYS_PWRITE64,
		.ret = 4096, .fd = 2, .have = RL_FD | RL_COUNT | RL_OFFSET,
		.count = 4096, .offset = 8192 }), 4096);
	/* The open asked once for the device; F_SETFL names no path. */
	ck_assert_uint_eq(dioalign_probes(x.dio), 2);
	ck_assert_uint_eq(atomic_load(&x.dio_align), f->sector);

	exec_destroy(&x);
	free(path);
	free(path2);
	free(root);
}
END_TEST

Suite *dioalign_suite(void)
{
	Suite *s = suite_create("dioalign");
	TCase *tc = tcase_create("loop");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_unchecked_fixture(tc, fs_setup, fs_teardown);
	tcase_add_loop_test(tc, test_statx_per_device, 0, (int)NFS);
	tcase_add_loop_test(tc, test_exec_direct, 0, (int)NFS);
	tcase_add_test(tc, test_no_block_device);
	suite_add_tcase(s, tc);
	return s;
}
