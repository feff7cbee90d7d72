/*
 * Tests of diskstats.h: reading /proc/diskstats lines and the iostat -x
 * style figures of an interval, on hand-made files; the devices under
 * sandboxes (on loop devices: the sweep suite).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/diskstats.h"
#include "testutil.h"

/* major minor name rd rd_merged rd_sect rd_ms wr wr_merged wr_sect wr_ms
 * in_flight io_ms (then fields the reader ignores). */
static const char before[] =
	"   8       0 sda 100 0 2000 50 200 0 4000 400 0 1000 1450 0 0 0 0\n"
	"   8      16 sdb 10 0 80 1 0 0 0 0 0 2 1\n"
	"   7       0 loop0 5 0 40 1 5 0 40 1 0 2 2\n"
	" 259       0 gone 1 0 8 1 1 0 8 1 0 1 1\n";
static const char after[] =
	/* 200 reads of 4 KiB in 2 s taking 400 ms; 100 writes of 8 KiB
	 * taking 300 ms; busy 1 s of 2. */
	"   8       0 sda 300 0 3600 450 300 0 5600 700 0 2000 2450 0 0 0 0\n"
	"   8      16 sdb 10 0 80 1 0 0 0 0 0 2 1\n"	/* idle */
	"   7       0 loop0 1 0 8 0 1 0 8 0 0 1 1\n"	/* reset: backwards */
	" 259       1 new 9 0 72 9 0 0 0 0 0 9 9\n";	/* not in before */

/* diskstats_read() of the file at @path: -errno of open(2) too. */
static int read_path(struct diskstats *ds, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = diskstats_read(ds, fd);
	close(fd);
	return rc;
}

START_TEST(test_delta)
{
	char *dir = tu_scratch();
	char *b = tu_write_str(dir, "before", before);
	char *a = tu_write_str(dir, "after", after);
	struct diskstats ds_b, ds_a;
	struct disk_figures fig[8];

	ck_assert_int_eq(read_path(&ds_b, b), 0);
	ck_assert_int_eq(read_path(&ds_a, a), 0);
	ck_assert_uint_eq(ds_b.n, 4);
	ck_assert_str_eq(ds_b.dev[2].name, "loop0");
	ck_assert_uint_eq(ds_a.dev[0].io_ticks_ms, 2000);
	ck_assert_uint_eq(diskstats_delta(&ds_b, &ds_a, 2.0, fig), 1);
	ck_assert_str_eq(fig[0].name, "sda");
	ck_assert_double_eq_tol(fig[0].rd_per_s, 100.0, 1e-9);
	ck_assert_double_eq_tol(fig[0].wr_per_s, 50.0, 1e-9);
	ck_assert_double_eq_tol(fig[0].rd_mb_per_s, 1600.0 * 512 / 1e6 / 2,
				1e-9);
	ck_assert_double_eq_tol(fig[0].wr_mb_per_s, 1600.0 * 512 / 1e6 / 2,
				1e-9);
	ck_assert_double_eq_tol(fig[0].rd_await_ms, 2.0, 1e-9);
	ck_assert_double_eq_tol(fig[0].wr_await_ms, 3.0, 1e-9);
	ck_assert_double_eq_tol(fig[0].util_pct, 50.0, 1e-9);
	/* Utilisation is capped at 100%. */
	ck_assert_uint_eq(diskstats_delta(&ds_b, &ds_a, 0.5, fig), 1);
	ck_assert_double_eq_tol(fig[0].util_pct, 100.0, 1e-9);
	diskstats_free(&ds_b);
	diskstats_free(&ds_a);
	diskstats_free(&ds_a);		/* twice, and NULL, are fine */
	diskstats_free(NULL);
	free(a);
	free(b);
	free(dir);
}
END_TEST

/* Lines in another format, and a missing file. */
START_TEST(test_errors)
{
	char *dir = tu_scratch();
	char *bad = tu_write_str(dir, "bad", "   8 0 sda 1 2 3\n"
				 "   8 16 sdb 1 0 8 1 0 0 0 0 0 1 1\n");
	char *missing = tu_join(dir, "missing");
	struct diskstats ds;

	/* A line in another format is skipped, the rest is read. */
	ck_assert_int_eq(read_path(&ds, bad), 0);
	ck_assert_uint_eq(ds.n, 1);
	ck_assert_str_eq(ds.dev[0].name, "sdb");
	diskstats_free(&ds);
	ck_assert_int_eq(read_path(&ds, missing), -ENOENT);
	ck_assert_int_eq(read_path(&ds, "/proc/diskstats"), 0);
	diskstats_free(&ds);
	free(bad);
	free(missing);
	free(dir);
}
END_TEST

/* The figures of a set's devices only, idle ones too, each pointing to
 * its device (and so to the sandboxes it serves). */
START_TEST(test_delta_of)
{
	char *dir = tu_scratch();
	char *b = tu_write_str(dir, "before", before);
	char *a = tu_write_str(dir, "after", after);
	struct disk_device devs[3] = {
		{ .name = "sdb" }, { .name = "sda" }, { .name = "absent" },
	};
	struct disk_set set = { .dev = devs, .n = 3 };
	struct diskstats ds_b, ds_a;
	struct disk_figures fig[3];

	ck_assert_int_eq(read_path(&ds_b, b), 0);
	ck_assert_int_eq(read_path(&ds_a, a), 0);
	ck_assert_uint_eq(diskstats_delta_of(&ds_b, &ds_a, 2.0, &set, fig), 2);
	ck_assert_str_eq(fig[0].name, "sdb");
	ck_assert_ptr_eq(fig[0].dev, &devs[0]);
	ck_assert_double_eq_tol(fig[0].rd_per_s, 0, 1e-9);
	ck_assert_str_eq(fig[1].name, "sda");
	ck_assert_ptr_eq(fig[1].dev, &devs[1]);
	ck_assert_double_eq_tol(fig[1].rd_per_s, 100.0, 1e-9);
	diskstats_free(&ds_b);
	diskstats_free(&ds_a);
	free(a);
	free(b);
	free(dir);
}
END_TEST

/* A sandbox on a file system without a block device adds none but has
 * its mount; one not made yet is looked up by its nearest parent. */
START_TEST(test_devices_anonymous)
{
	char *const roots[] = { "/proc/.ioriot/t", "/" };
	struct disk_set set;

	ck_assert_int_eq(diskstats_devices(&set, roots, 1), 0);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_str_eq(set.mounts[0], "/proc");
	diskstats_devices_free(&set);
	diskstats_devices_free(&set);	/* twice, and NULL, are fine */
	diskstats_devices_free(NULL);
	ck_assert_int_eq(diskstats_devices(&set, roots, 2), 0);
	ck_assert_str_eq(set.mounts[1], "/");
	for (size_t i = 0; i < set.n; i++) {
		ck_assert_uint_eq(set.dev[i].nsandboxes, 1);
		ck_assert_uint_eq(set.dev[i].sandboxes[0], 1);
		ck_assert(diskstats_set_holds(&set, &set.dev[i]));
	}
	diskstats_devices_free(&set);
}
END_TEST

Suite *diskstats_suite(void)
{
	Suite *s = suite_create("diskstats");
	TCase *tc = tcase_create("diskstats");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_delta);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_delta_of);
	tcase_add_test(tc, test_devices_anonymous);
	suite_add_tcase(s, tc);
	return s;
}
