/*
 * Tests of replay_result_compare() and replay_result_slot() (replay.h):
 * when a replayed result counts as differing from the captured one, by the
 * kind of its syscall: byte counts equal, short or more; fds and addresses
 * compared as success only; other values equal; errnos equal.
 */
#include <errno.h>
#include <stdint.h>

#include "ioriot/replay.h"
#include "testutil.h"

#define ADDR 0x7f3a2c000000LL	/* an mmap address */

static const struct {
	enum sys_id sys;
	int64_t want, got;	/* captured, replayed */
	enum replay_match m;
	unsigned slot;		/* differ_by_result slot unless REPLAY_SAME */
} cases[] = {
	/* Byte counts, every kind and some of the vector forms. */
	{ SYS_READ, 4096, 4096, REPLAY_SAME, 0 },
	{ SYS_READ, 4096, 100, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_READ, 4096, 0, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_READ, 100, 4096, REPLAY_MORE, REPLAY_RESULT_MORE },
	{ SYS_READ, 4096, -EIO, REPLAY_ERRNO, EIO },
	{ SYS_READ, -EBADF, 4096, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_READ, -EBADF, -EBADF, REPLAY_SAME, 0 },
	{ SYS_READ, -EBADF, -EISDIR, REPLAY_ERRNO, EISDIR },
	{ SYS_PREADV2, 512, 511, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_WRITE, 1000, 1000, REPLAY_SAME, 0 },
	{ SYS_WRITE, 1000, 10, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_PWRITEV, 10, 1000, REPLAY_MORE, REPLAY_RESULT_MORE },
	{ SYS_WRITE, 1000, -ENOSPC, REPLAY_ERRNO, ENOSPC },
	{ SYS_SENDFILE, 8192, 8192, REPLAY_SAME, 0 },
	{ SYS_SENDFILE, 8192, 4096, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_COPY_FILE_RANGE, 100, 0, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_COPY_FILE_RANGE, 0, 100, REPLAY_MORE, REPLAY_RESULT_MORE },
	{ SYS_GETDENTS64, 1024, 1024, REPLAY_SAME, 0 },
	{ SYS_GETDENTS64, 1024, 48, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_GETDENTS64, 0, 48, REPLAY_MORE, REPLAY_RESULT_MORE },
	/* Values that must be equal. */
	{ SYS_LSEEK, 20000, 20000, REPLAY_SAME, 0 },
	{ SYS_LSEEK, 20000, 100, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_LLSEEK, 100, 20000, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_LSEEK, -ENXIO, 100, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_READLINKAT, 12, 12, REPLAY_SAME, 0 },
	{ SYS_READLINK, 12, 30, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_READLINK, 12, -EINVAL, REPLAY_ERRNO, EINVAL },
	{ SYS_FSYNC, 0, 0, REPLAY_SAME, 0 },
	{ SYS_READAHEAD, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_FSYNC, 0, -EIO, REPLAY_ERRNO, EIO },
	{ SYS_STAT, 0, 0, REPLAY_SAME, 0 },
	{ SYS_STAT, -ENOENT, 0, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_STAT, -ENOENT, -ELOOP, REPLAY_ERRNO, ELOOP },
	{ SYS_NEWFSTATAT, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_STATX, 0, -ENOENT, REPLAY_ERRNO, ENOENT },
	{ SYS_TRUNCATE, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_TRUNCATE, -EFBIG, -EFBIG, REPLAY_SAME, 0 },
	{ SYS_MKDIRAT, 0, -EEXIST, REPLAY_ERRNO, EEXIST },
	{ SYS_MKDIR, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_RMDIR, -ENOTEMPTY, 0, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_RMDIR, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_UNLINKAT, -ENOENT, -ENOENT, REPLAY_SAME, 0 },
	{ SYS_UNLINK, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_RENAMEAT2, 0, -EXDEV, REPLAY_ERRNO, EXDEV },
	{ SYS_RENAME, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_LINKAT, 0, 0, REPLAY_SAME, 0 },
	{ SYS_LINK, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_SYMLINK, -EEXIST, 0, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_SYMLINKAT, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_CLOSE, 0, -EBADF, REPLAY_ERRNO, EBADF },
	{ SYS_CLOSE, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_CLOSE_RANGE, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_SYNC, 0, 0, REPLAY_SAME, 0 },
	{ SYS_SYNC, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_CHDIR, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_FCHDIR, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	/* fds, addresses and fcntl flags: success is enough. */
	{ SYS_OPENAT, 3, 7, REPLAY_SAME, 0 },
	{ SYS_CREAT, 3, -EACCES, REPLAY_ERRNO, EACCES },
	{ SYS_OPEN, -ENOENT, 5, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_OPENAT2, -ENOENT, -ENOENT, REPLAY_SAME, 0 },
	{ SYS_DUP, 4, 9, REPLAY_SAME, 0 },
	{ SYS_DUP2, 4, -EBADF, REPLAY_ERRNO, EBADF },
	{ SYS_FCNTL, 0x8000, 0x28000, REPLAY_SAME, 0 },
	{ SYS_FCNTL, 0, -EINVAL, REPLAY_ERRNO, EINVAL },
	{ SYS_MMAP, ADDR, ADDR + 4096, REPLAY_SAME, 0 },
	{ SYS_MMAP, ADDR, -EACCES, REPLAY_ERRNO, EACCES },
	{ SYS_MMAP, -ENOMEM, ADDR, REPLAY_OK, REPLAY_RESULT_OK },
	{ SYS_MMAP, -ENOMEM, -ENOMEM, REPLAY_SAME, 0 },
	/* Below -4095 an mmap result is an address, not an errno. */
	{ SYS_MMAP2, -8192, ADDR, REPLAY_SAME, 0 },
	{ SYS_MREMAP, ADDR, ADDR + 8192, REPLAY_SAME, 0 },
	{ SYS_MUNMAP, 0, -EINVAL, REPLAY_ERRNO, EINVAL },
	/* Linux AIO: the number submitted and the completions' bytes count;
	 * how many completions one io_getevents reaped does not. */
	{ SYS_IO_SETUP, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_IO_DESTROY, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_IO_SUBMIT, 4, 2, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_IO_CANCEL, 0, -EAGAIN, REPLAY_ERRNO, EAGAIN },
	{ SYS_IO_CANCEL, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_IO_GETEVENTS, 4, 2, REPLAY_SAME, 0 },
	{ SYS_IO_PGETEVENTS, 4, -EINTR, REPLAY_ERRNO, EINTR },
	{ SYS_AIO_PREAD, 4096, 512, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_AIO_PWRITE, 4096, -EIO, REPLAY_ERRNO, EIO },
	{ SYS_AIO_FSYNC, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	/* io_uring: the ring's fd and how many an enter submitted (requests
	 * left out of the replay are not in its batch) are compared as
	 * success only; registers and completions as values. */
	{ SYS_IO_URING_SETUP, 5, 9, REPLAY_SAME, 0 },
	{ SYS_IO_URING_SETUP, 5, -EINVAL, REPLAY_ERRNO, EINVAL },
	{ SYS_IO_URING_ENTER, 5, 4, REPLAY_SAME, 0 },
	{ SYS_IO_URING_ENTER, 5, -EBUSY, REPLAY_ERRNO, EBUSY },
	{ SYS_IO_URING_REGISTER, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_IO_URING_REGISTER, 0, -EBADF, REPLAY_ERRNO, EBADF },
	{ SYS_URING_READ, 4096, 512, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_URING_WRITE_FIXED, 4096, 8192, REPLAY_MORE, REPLAY_RESULT_MORE },
	{ SYS_URING_READV, -ECANCELED, -ECANCELED, REPLAY_SAME, 0 },
	{ SYS_URING_FSYNC, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	/* mknod and bind: 0, or an errno */
	{ SYS_MKNODAT, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_BIND, 0, -EADDRINUSE, REPLAY_ERRNO, EADDRINUSE },
	/* the file API: a clone's status, attribute sizes, splice's bytes */
	{ SYS_IOCTL, 0, -EOPNOTSUPP, REPLAY_ERRNO, EOPNOTSUPP },
	{ SYS_IOCTL, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_GETXATTR, 5, 3, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_FLISTXATTR, 16, 16, REPLAY_SAME, 0 },
	{ SYS_FLOCK, 0, -ETIMEDOUT, REPLAY_ERRNO, ETIMEDOUT },
	{ SYS_FLOCK, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	{ SYS_SPLICE, 100, 40, REPLAY_SHORT, REPLAY_RESULT_SHORT },
	{ SYS_TEE, 50, 60, REPLAY_MORE, REPLAY_RESULT_MORE },
	{ SYS_DEDUPE_DONE, 0, 1, REPLAY_VALUE, REPLAY_RESULT_VALUE },
	/* errnos without a slot of their own */
	{ SYS_MKDIR, 0, -(REPLAY_RESULT_EOTHER - 1), REPLAY_ERRNO,
	  REPLAY_RESULT_EOTHER - 1 },
	{ SYS_MKDIR, 0, -REPLAY_RESULT_EOTHER, REPLAY_ERRNO,
	  REPLAY_RESULT_EOTHER },
	{ SYS_MKDIR, 0, -4000, REPLAY_ERRNO, REPLAY_RESULT_EOTHER },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

START_TEST(test_rules)
{
	enum replay_match m = replay_result_compare(cases[_i].sys,
						    cases[_i].want,
						    cases[_i].got);

	ck_assert_msg(m == cases[_i].m, "%s: captured %lld, replayed %lld: "
		      "%d, expected %d", sys_info(cases[_i].sys)->name,
		      (long long)cases[_i].want, (long long)cases[_i].got, m,
		      cases[_i].m);
	if (m != REPLAY_SAME)
		ck_assert_uint_eq(replay_result_slot(m, cases[_i].got),
				  cases[_i].slot);
}
END_TEST

/* Every kind of syscall with a result has a case where the two values
 * differ, and the errno rules hold for every syscall. */
START_TEST(test_every_kind)
{
	for (int k = SK_OPEN; k < SK_EXIT_GROUP; k++) {
		bool found = false;

		for (size_t i = 0; i < NCASES && !found; i++)
			found = sys_info(cases[i].sys)->kind == (enum sys_kind)k &&
				cases[i].want >= 0 && cases[i].got >= 0 &&
				cases[i].want != cases[i].got;
		ck_assert_msg(found, "no case for kind %d", k);
	}
	for (int s = 0; s < SYS_COUNT; s++) {
		if (sys_info(s)->kind >= SK_EXIT_GROUP)
			continue;
		ck_assert_int_eq(replay_result_compare(s, -ENOENT, -ENOENT),
				 REPLAY_SAME);
		ck_assert_int_eq(replay_result_compare(s, -ENOENT, -EACCES),
				 REPLAY_ERRNO);
		ck_assert_int_eq(replay_result_compare(s, 0, -EACCES),
				 REPLAY_ERRNO);
		ck_assert_int_eq(replay_result_compare(s, -ENOENT, 0),
				 REPLAY_OK);
		ck_assert_int_eq(replay_result_compare(s, 0, 0), REPLAY_SAME);
	}
}
END_TEST

Suite *result_suite(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("compare");

	tcase_add_loop_test(tc, test_rules, 0, NCASES);
	tcase_add_test(tc, test_every_kind);
	suite_add_tcase(s, tc);
	return s;
}
