/*
 * Tests of the syscall table's class column (syscall_table.h): every view
 * of an operation's class (sys_class_of(), series_class_of(), the rate
 * caps, the time series' bytes, uring_completion_reads()) agrees with the
 * column for every id, and the calls the views used to disagree on are
 * where docs/guide.md says they are.
 */
#include <linux/aio_abi.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/series.h"
#include "ioriot/syscalls.h"
#include "ioriot/uring.h"
#include "../src/replay/rate.h"
#include "testutil.h"

#define R (1u << REPLAY_RATE_READ)
#define W (1u << REPLAY_RATE_WRITE)

/* What each view makes of a table class, written out here rather than
 * derived, so that a consumer that drifts from the column fails. */
static const struct view {
	enum sys_class cls;
	enum series_class series;
	unsigned rate;
} views[OC_COUNT] = {
	[OC_READ] = { CLS_READ, SC_READ, R },
	[OC_WRITE] = { CLS_WRITE, SC_WRITE, W },
	[OC_COPY] = { CLS_WRITE, SC_WRITE, R | W },
	[OC_ALTER] = { CLS_WRITE, SC_WRITE, 0 },
	[OC_OPEN] = { CLS_OPEN, SC_OPEN, 0 },
	[OC_META] = { CLS_META, SC_META, 0 },
	[OC_NAMESPACE] = { CLS_META, SC_NAMESPACE, 0 },
	[OC_SYNC] = { CLS_SYNC, SC_SYNC, 0 },
	[OC_OTHER] = { CLS_OTHER, SC_OTHER, 0 },
};

/* Every id: a class, the same as its replay name's, and every view's
 * class is the one its column maps to. */
START_TEST(test_every_id_agrees)
{
	unsigned used[OC_COUNT] = { 0 };

	for (int id = 0; id < SYS_COUNT; id++) {
		const struct sys_info *si = sys_info(id);
		enum sys_op_class oc = si->cls;
		const struct view *v;

		ck_assert_msg(oc < OC_COUNT, "%s has no class", si->name);
		used[oc]++;
		v = &views[oc];
		ck_assert_msg(sys_info(sys_canonical(id))->cls == oc,
			      "%s is not of its replay name's class",
			      si->name);
		ck_assert_msg(sys_class_of(id) == v->cls,
			      "%s: sys_class_of is %s", si->name,
			      sys_class_name(sys_class_of(id)));
		ck_assert_msg(series_class_of(id) == v->series,
			      "%s: series_class_of is %s", si->name,
			      series_class_name(series_class_of(id)));
		ck_assert_msg(rate_sys_classes(id) == v->rate,
			      "%s: rate classes %#x", si->name,
			      rate_sys_classes(id));
		ck_assert_uint_eq(sys_data_dirs(id),
				  (v->rate & R ? SYS_DATA_READ : 0) |
				  (v->rate & W ? SYS_DATA_WRITE : 0));
		if (si->kind == SK_URING_DATA)
			ck_assert_int_eq(uring_completion_reads(id),
					 oc == OC_READ);
		else
			ck_assert(!uring_completion_reads(id));
	}
	for (int c = 0; c < OC_COUNT; c++)
		ck_assert_msg(used[c], "table class %d has no operation", c);
}
END_TEST

/* The calls the views used to disagree on (issue 34), as decided in
 * syscall_table.h and listed in docs/guide.md. */
START_TEST(test_decided)
{
	static const struct { enum sys_id id; enum sys_op_class c; } want[] = {
		{ SYS_SENDFILE, OC_READ }, { SYS_COPY_FILE_RANGE, OC_COPY },
		{ SYS_SPLICE, OC_OTHER }, { SYS_TEE, OC_OTHER },
		{ SYS_READAHEAD, OC_READ }, { SYS_FADVISE64, OC_OTHER },
		{ SYS_FALLOCATE, OC_ALTER }, { SYS_FTRUNCATE, OC_ALTER },
		{ SYS_TRUNCATE, OC_ALTER }, { SYS_IOCTL, OC_ALTER },
		{ SYS_MSYNC, OC_SYNC }, { SYS_DUP2, OC_OPEN },
		{ SYS_FCHDIR, OC_META }, { SYS_RENAMEAT2, OC_NAMESPACE },
		{ SYS_MMAP_READ, OC_READ }, { SYS_MMAP_WRITE, OC_WRITE },
		{ SYS_MMAP, OC_OTHER }, { SYS_MUNMAP, OC_OTHER },
		{ SYS_AIO_PREADV, OC_READ }, { SYS_AIO_PWRITE, OC_WRITE },
		{ SYS_AIO_FDSYNC, OC_SYNC }, { SYS_URING_READ_FIXED, OC_READ },
		{ SYS_URING_WRITEV, OC_WRITE }, { SYS_URING_FSYNC, OC_SYNC },
		{ SYS_URING_FTRUNCATE, OC_ALTER },
		{ SYS_URING_FADVISE, OC_OTHER }, { SYS_URING_NOP, OC_OTHER },
		{ SYS_IOCB, OC_OTHER }, { SYS_SQE, OC_OTHER },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(sys_info(want[i].id)->cls == want[i].c,
			      "%s is class %d, not %d",
			      sys_info(want[i].id)->name,
			      sys_info(want[i].id)->cls, want[i].c);
	/* sendfile, spelled out in every view: a read. */
	ck_assert_int_eq(sys_class_of(SYS_SENDFILE), CLS_READ);
	ck_assert_int_eq(series_class_of(SYS_SENDFILE), SC_READ);
	ck_assert_uint_eq(rate_sys_classes(SYS_SENDFILE), R);
	ck_assert_str_eq(sys_class_name(sys_class_of(SYS_SENDFILE)), "read");
}
END_TEST

/* An AIO or io_uring request counts in the rate caps as its opcode's
 * completion does in the table; its completion line does not count. */
START_TEST(test_rate_requests)
{
	static const struct { enum sys_id sys; int64_t cmd; unsigned c; } ops[] = {
		{ SYS_IOCB, IOCB_CMD_PREAD, R }, { SYS_IOCB, IOCB_CMD_PREADV, R },
		{ SYS_IOCB, IOCB_CMD_PWRITE, W },
		{ SYS_IOCB, IOCB_CMD_PWRITEV, W },
		{ SYS_IOCB, IOCB_CMD_FSYNC, 0 }, { SYS_IOCB, IOCB_CMD_NOOP, 0 },
		{ SYS_SQE, URING_OP_READV, R }, { SYS_SQE, URING_OP_READ, R },
		{ SYS_SQE, URING_OP_READ_FIXED, R },
		{ SYS_SQE, URING_OP_WRITE, W },
		{ SYS_SQE, URING_OP_WRITE_FIXED, W },
		{ SYS_SQE, URING_OP_FALLOCATE, 0 }, { SYS_SQE, URING_OP_NOP, 0 },
		{ SYS_SQE, 1000, 0 },
		{ SYS_AIO_PREAD, -1, 0 }, { SYS_URING_WRITE, -1, 0 },
		{ SYS_AIO_FSYNC, -1, 0 },
		{ SYS_SENDFILE, -1, R }, { SYS_COPY_FILE_RANGE, -1, R | W },
		{ SYS_READAHEAD, -1, R }, { SYS_FTRUNCATE, -1, 0 },
		{ SYS_SPLICE, -1, 0 },
	};
	struct replay_rate cap = { .iops = { 1e9, 1e9 } };
	static struct rate_limiter lim;	/* cache-line aligned gates */
	struct rate_limiter *l = &lim;

	rate_init(l, &cap);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct rlog_op op;
		struct rate_turn turn;

		memset(&op, 0, sizeof(op));
		op.sys = ops[i].sys;
		if (ops[i].cmd >= 0) {
			op.have |= RL_CMD;
			op.cmd = ops[i].cmd;
		}
		rate_claim(l, &op, 0, &turn);
		ck_assert_msg(turn.classes == ops[i].c, "%s cmd %lld: %#x",
			      sys_info(ops[i].sys)->name,
			      (long long)ops[i].cmd, turn.classes);
	}
}
END_TEST

Suite *syscalls_suite(void)
{
	Suite *s = suite_create("syscalls");
	TCase *tc = tcase_create("syscalls");

	tcase_add_test(tc, test_every_id_agrees);
	tcase_add_test(tc, test_decided);
	tcase_add_test(tc, test_rate_requests);
	suite_add_tcase(s, tc);
	return s;
}
