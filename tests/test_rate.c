/*
 * Tests of the replay's rate caps (--rate-iops, --rate-mbps; rate.c):
 * a replay capped at 1,000 IOPS as fast as possible never runs ahead of
 * the cap, and (in the timing case) performs 1,000 +- 2% reads in every
 * full second of its time series; separate read and write caps hold each
 * class to its own; the wait is reported as throttle delay and stays out
 * of the syscalls' latency; caps work at a speed (-s); malformed caps are
 * refused.  The sandboxes are on a tmpfs in a scratch directory.
 *
 * A cap is a lower bound on time that no load can break: the operations
 * of a class start at least 1/cap apart (rate.c's gate never lends a turn
 * that went unused), so they cannot finish early, only late.  How close
 * to the cap a replay gets, second by second, depends on the CPU the
 * replay gets: those bounds are TU_TIGHT's.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioriot/replay.h"
#include "testutil.h"

#define MS 1000000ULL
#define READ_LEN 4096u

static char *scratch, *sandbox, *replay_path;

static void setup(void)
{
	char *mnt, *dot, *data;

	scratch = tu_scratch();
	mnt = tu_join(scratch, "mnt");
	dot = tu_join(mnt, ".ioriot");
	sandbox = tu_join(dot, "t");
	ck_assert_msg(tu_mount_tmpfs(mnt), "sandboxes must be on a mountpoint");
	ck_assert_int_eq(mkdir(dot, 0755), 0);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);
	data = calloc(1, READ_LEN);
	ck_assert_ptr_nonnull(data);
	free(tu_write(sandbox, "f", data, READ_LEN));
	free(data);
	replay_path = tu_join(scratch, "t.replay");
	free(mnt);
	free(dot);
}

static void teardown(void)
{
	free(scratch);
	free(sandbox);
	free(replay_path);
}

/*
 * Write the replay file: @rtl timelines that each open the sandbox's file
 * f, make @reads preads of READ_LEN bytes captured @step_ns apart and
 * close it, then @wtl timelines that make @writes pwrites alike.
 */
static void write_replay(unsigned rtl, unsigned reads, unsigned wtl,
			 unsigned writes, uint64_t step_ns)
{
	FILE *f = fopen(replay_path, "w");
	unsigned seq = 0;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=root|\n");
	fprintf(f, "#|sandbox=%s|\n#INIT\n#OPS\n", sandbox);
	for (unsigned t = 1; t <= rtl + wtl; t++) {
		bool rd = t <= rtl;
		unsigned n = rd ? reads : writes;
		uint64_t at = 0;

		fprintf(f, "%u %u:%u 0 10 - openat 3 vfd=%u path=%s/f "
			"flags=0x2\n", ++seq, t, t, t, sandbox);
		for (unsigned i = 0; i < n; i++) {
			at += step_ns;
			fprintf(f, "%u %u:%u %llu 10 - %s %u fd=%u off=0 "
				"count=%u\n", ++seq, t, t,
				(unsigned long long)at, rd ? "pread64" :
				"pwrite64", READ_LEN, t, READ_LEN);
		}
		fprintf(f, "%u %u:%u %llu 10 - close 0 fd=%u\n", ++seq, t, t,
			(unsigned long long)(at + step_ns), t);
	}
	fprintf(f, "#END|ops=%u|\n", seq);
	ck_assert_int_eq(fclose(f), 0);
}

static int run_lib(const struct replay_rate *rate, double speed,
		   struct replay_summary *sum)
{
	struct replay_options opt = {
		.replay_path = replay_path, .speed = speed, .rate = *rate,
	};
	char err[512];
	int ret = replay_run(&opt, sum, err, sizeof(err));

	if (ret)
		fprintf(stderr, "replay_run: %s\n", err);
	return ret;
}

/* The index of column @name in CSV header @head, or -1. */
static int column(const char *head, const char *name)
{
	size_t len = strlen(name);
	int i = 0;

	for (const char *p = head; *p && *p != '\n'; i++) {
		if (!strncmp(p, name, len) && (p[len] == ',' || p[len] == '\n'))
			return i;
		p += strcspn(p, ",\n");
		if (*p == ',')
			p++;
	}
	return -1;
}

/* Field @i of CSV row @row as a number. */
static double field(const char *row, int i)
{
	while (i-- > 0) {
		row = strchr(row, ',');
		ck_assert_ptr_nonnull(row);
		row++;
	}
	return strtod(row, NULL);
}

/*
 * Replay with ioriot -r, as fast as possible, with the extra arguments
 * @args (NULL-terminated), a time series of 1 s intervals and JSON
 * statistics; the CSV's text, the JSON's in *@json.
 */
static char *run_cli(const char *const *args, char **json)
{
	char *csv = tu_join(scratch, "t.csv"), *stats = tu_join(scratch,
							       "t.json");
	/* The sandbox is made by hand: --reuse. */
	char *argv[32] = { (char *)tu_bin(), "--allow-root", "-r", replay_path,
			   "--reuse", "-D", "-q", "--csv", csv, "--interval",
			   "1", "-S", stats };
	char *out, *err, *text;
	int n = 13, rc;

	while (*args)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	text = tu_read(csv, NULL);
	ck_assert_ptr_nonnull(text);
	*json = tu_read(stats, NULL);
	ck_assert_ptr_nonnull(*json);
	free(out);
	free(err);
	free(csv);
	free(stats);
	return text;
}

/*
 * Check CSV @text's column @col against a cap of @want operations a
 * second: the rows add up to @total (to the CSV's rounding), and the last
 * row, written when every operation had completed, ends no earlier than
 * they could have started, one every 1/@want s from the first: a busy
 * host only makes them later.  (The rows before it are not held to that:
 * a tick counts what completed until it has read every thread's figures,
 * a little after its time_s, longer when the host keeps it waiting.)
 * With @tight also every full 1 s row (+- 2%) held its interval's worth
 * of @want a second +- 2%.  Returns the number of full rows.
 */
static unsigned check_rows(const char *text, const char *col, double want,
			   double total, bool tight)
{
	int ci = column(text, col), ii = column(text, "interval_s");
	int ti = column(text, "time_s");
	double sum = 0, t = 0;
	unsigned full = 0;

	ck_assert_msg(ci >= 0 && ii >= 0 && ti >= 0, "no %s column:\n%s", col,
		      text);
	for (const char *line = strchr(text, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		double interval = field(line + 1, ii);
		double ops = field(line + 1, ci) * interval;

		t = field(line + 1, ti);
		sum += ops;
		/* The rest after the last full second is no full row; a
		 * tick that came late lengthens its row and shortens the
		 * next by as much (ticks are due at whole seconds). */
		if (interval < 0.98)
			continue;
		full++;
		ck_assert_msg(!tight || (ops >= want * interval * 0.98 - 0.5 &&
					 ops <= want * interval * 1.02 + 0.5),
			      "%s: %.1f in a %.3f s row, want %.0f/s +- 2%%:\n%s",
			      col, ops, interval, want, text);
	}
	/* interval_s has 3 decimals: a row's count is within 0.5 op per
	 * 1000 a second. */
	ck_assert_msg(sum > total - 2 && sum < total + 2,
		      "%s: %.1f in all, want %.0f:\n%s", col, sum, total, text);
	/* The first starts at 0 s at the earliest, the last (@total - 1) /
	 * @want s later; time_s within 0.5 ms. */
	ck_assert_msg(t + 0.0005 >= (total - 1) / want,
		      "%s: %.0f in %.3f s, faster than the cap of %.0f/s:\n%s",
		      col, total, t, want, text);
	return full;
}

/*
 * The issue's test: 2,200 reads from 4 timelines, as fast as possible,
 * capped at 1,000 IOPS: never ahead of the cap; tight, every full second
 * holds 1,000 +- 2% of them, and there are two; the JSON statistics
 * report the cap and its delay.
 */
START_TEST(test_iops_buckets)
{
	static const char *const args[] = { "--rate-iops", "1000", NULL };
	char *json, *text;
	unsigned full;

	write_replay(4, 550, 0, 0, 1000);
	text = run_cli(args, &json);
	full = check_rows(text, "read_ops_per_s", 1000, 2200, TU_TIGHT);
	/* 2.2 s: two full seconds (a late replay has more; a late tick
	 * shortens the row after it). */
	ck_assert(!TU_TIGHT || full == 2);
	ck_assert_msg(strstr(json, "\"rate_limit\": {\"per\": \"process\", "
			     "\"iops\": {\"total\": 1000}, \"mbps\": null,"),
		      "%s", json);
	ck_assert_msg(strstr(json, "\"read\": {\"ops\": 2200, \"throttled\": "),
		      "%s", json);
	free(json);
	free(text);
}
END_TEST

/* R,W: reads and writes each held to their own cap, at the same time. */
START_TEST(test_read_write_caps)
{
	static const char *const args[] = { "--rate-iops", "600,200", NULL };
	char *json, *text;
	unsigned full;

	/* Reads end after 2.2 s, writes after 2.5 s: two full rows each. */
	write_replay(2, 660, 2, 250, 1000);
	text = run_cli(args, &json);
	full = check_rows(text, "read_ops_per_s", 600, 1320, TU_TIGHT);
	ck_assert(!TU_TIGHT || full == 2);
	full = check_rows(text, "write_ops_per_s", 200, 500, TU_TIGHT);
	ck_assert(!TU_TIGHT || full == 2);
	ck_assert_msg(strstr(json, "\"iops\": {\"read\": 600, \"write\": 200}"),
		      "%s", json);
	free(json);
	free(text);
}
END_TEST

/*
 * The wait for the cap is throttle delay, not latency: at 200 IOPS over
 * 4 timelines each read waits about 20 ms for its turn, and takes
 * microseconds on tmpfs.  Operations the caps do not count (open, close)
 * wait for nothing of their own.  A write-only cap leaves reads alone.
 * How long the waits and reads were is the timing case's to judge: a
 * thread the host let wait finds its turn already due.
 */
START_TEST(test_delay_not_latency)
{
	struct replay_rate rate = { .iops = { 200 }, .iops_shared = true };
	struct replay_summary *sum = malloc(sizeof(*sum));
	const struct replay_throttle_stats *t;

	ck_assert_ptr_nonnull(sum);
	write_replay(4, 50, 0, 0, 1000);
	ck_assert_int_eq(run_lib(&rate, 0, sum), 0);
	t = &sum->throttle[REPLAY_RATE_READ];
	ck_assert_uint_eq(sum->ops, 4 * 52);
	ck_assert_uint_eq(t->ops, 200);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_WRITE].ops, 0);
	ck_assert_uint_gt(t->throttled, 0);
	ck_assert_uint_ge(t->delay_max_ns, t->delay_p99_ns);
	ck_assert_uint_ge(t->delay_p99_ns, t->delay_p50_ns);
	ck_assert_uint_gt(t->delay_ns, 0);
	/* 200 operations at 200 a second: a second at least. */
	ck_assert_uint_ge(sum->duration_ns, 990 * MS);
	ck_assert(sum->rate.iops_shared && sum->rate.iops[0] == 200);
	if (TU_TIGHT) {
		ck_assert_uint_ge(t->throttled, 190);
		ck_assert_uint_ge(t->delay_p50_ns, 10 * MS);
		ck_assert_uint_gt(t->delay_ns, 200 * 10 * MS);
		ck_assert_uint_lt(sum->duration_ns, 1500 * MS);
		ck_assert_uint_lt(replay_hist_percentile(
					  sum->sys[SYS_PREAD64].lat, 50), 1 * MS);
	}

	/* ,W: writes are capped, the reads go as fast as they can. */
	rate = (struct replay_rate){ .iops = { 0, 50 } };
	write_replay(1, 200, 1, 10, 1000);
	ck_assert_int_eq(run_lib(&rate, 0, sum), 0);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_READ].ops, 0);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_WRITE].ops, 10);
	/* 10 writes at 50 a second: the last starts 180 ms in. */
	ck_assert_uint_ge(sum->duration_ns, 175 * MS);
	ck_assert(!TU_TIGHT || sum->duration_ns < 600 * MS);
	free(sum);
}
END_TEST

/* MB/s: 4 KiB reads at 0.4096 MB/s are 100 a second. */
START_TEST(test_mbps)
{
	struct replay_rate rate = { .mbps = { 0.4096 }, .mbps_shared = true };
	struct replay_summary *sum = malloc(sizeof(*sum));

	ck_assert_ptr_nonnull(sum);
	write_replay(2, 30, 2, 20, 1000);
	ck_assert_int_eq(run_lib(&rate, 0, sum), 0);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_READ].ops, 60);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_WRITE].ops, 40);
	/* 100 operations, the last starts 990 ms in. */
	ck_assert_uint_ge(sum->duration_ns, 985 * MS);
	ck_assert(!TU_TIGHT || sum->duration_ns < 1400 * MS);
	free(sum);
}
END_TEST

/*
 * At -s 1 the caps apply after the pace: 300 reads captured 1 ms apart
 * (0.3 s) at 500 IOPS take 0.6 s; the timeline runs late, and the
 * lateness shows it (the last read is due at 0.3 s and cannot start
 * before 0.598 s), while each read's own delay is a turn's (tight: the
 * host may keep a waiting thread from its turn for a while).
 */
START_TEST(test_with_speed)
{
	struct replay_rate rate = { .iops = { 500 }, .iops_shared = true };
	struct replay_summary *sum = malloc(sizeof(*sum));

	ck_assert_ptr_nonnull(sum);
	write_replay(1, 300, 0, 0, 1 * MS);
	ck_assert_int_eq(run_lib(&rate, 1, sum), 0);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_READ].ops, 300);
	ck_assert_uint_ge(sum->duration_ns, 595 * MS);
	ck_assert(sum->timed);
	ck_assert_uint_ge(sum->lateness_max_ns, 250 * MS);
	if (TU_TIGHT) {
		ck_assert_uint_lt(sum->duration_ns, 900 * MS);
		ck_assert_uint_lt(sum->throttle[REPLAY_RATE_READ].delay_max_ns,
				  100 * MS);
	}

	/* Captured slower than the cap: nothing waits for it (tight: a
	 * read the host delayed by 8 ms finds the next one's turn not yet
	 * come). */
	write_replay(1, 20, 0, 0, 10 * MS);
	ck_assert_int_eq(run_lib(&rate, 1, sum), 0);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_READ].ops, 20);
	ck_assert(!TU_TIGHT || sum->throttle[REPLAY_RATE_READ].throttled == 0);
	free(sum);
}
END_TEST

/*
 * Which operations count: copy_file_range as a read and a write, sendfile
 * as a read, AIO requests as their iocb lines queue them (an fsync one
 * not), and neither the AIO completions nor the other calls.
 */
START_TEST(test_classes)
{
	struct replay_rate rate = { .iops = { 1000, 1000 } };
	struct replay_summary *sum = malloc(sizeof(*sum));
	FILE *f = fopen(replay_path, "w");
	static const char *const ops[] = {
		"copy_file_range 4096 fd=1 fd2=2 count=4096",
		"sendfile 4096 fd=1 fd2=2 count=4096 off=0",
		"io_setup 0 count=16 ctx=1",
		"iocb 0 fd=1 off=0 count=4096 cmd=0 ctx=1 tag=1",
		"iocb 0 fd=2 off=0 count=512 cmd=1 ctx=1 tag=2",
		"iocb 0 fd=2 cmd=2 ctx=1 tag=3",
		"io_submit 3 count=3 ctx=1",
		"io_getevents 3 count=8 ctx=1 min=3",
		"aio_pread 4096 fd=1 ctx=1 tag=1",
		"aio_pwrite 512 fd=2 ctx=1 tag=2",
		"aio_fsync 0 fd=2 ctx=1 tag=3",
		"io_destroy 0 ctx=1",
		"fsync 0 fd=2",
		"close 0 fd=2",
		"close 0 fd=1",
	};
	unsigned seq = 0;

	ck_assert_ptr_nonnull(sum);
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=root|\n");
	fprintf(f, "#|sandbox=%s|\n#INIT\n#OPS\n", sandbox);
	fprintf(f, "%u 1:1 0 10 - openat 3 vfd=1 path=%s/f flags=0x2\n", ++seq,
		sandbox);
	fprintf(f, "%u 1:1 0 10 - openat 4 vfd=2 path=%s/g flags=0x42 "
		"mode=0644\n", ++seq, sandbox);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		seq++;
		fprintf(f, "%u 1:1 %u 10 - %s\n", seq, seq, ops[i]);
	}
	fprintf(f, "#END|ops=%u|\n", seq);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(run_lib(&rate, 0, sum), 0);
	ck_assert_uint_eq(sum->ops, seq);
	ck_assert_uint_eq(sum->sys[SYS_AIO_PREAD].ops, 1);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_READ].ops, 3);
	ck_assert_uint_eq(sum->throttle[REPLAY_RATE_WRITE].ops, 2);
	free(sum);
}
END_TEST

/*
 * The generator's golden io_uring and mmap files, initialised and
 * replayed by ioriot -R: io_uring requests count as their sqe lines queue
 * them (2 reads, 1 write, the fsync not), mmap_read and mmap_write once
 * per page (4 and 7).
 */
START_TEST(test_golden_classes)
{
	static const struct {
		const char *name, *reads, *writes;
	} golden[] = {
		{ "uring", "\"read\": {\"ops\": 2, ",
		  "\"write\": {\"ops\": 1, " },
		{ "mmapio", "\"read\": {\"ops\": 4, ",
		  "\"write\": {\"ops\": 7, " },
	};
	char *mnt = tu_join(scratch, "mnt");

	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		char *src, *text, *stats, *json, *out, *err, *p, *sb;
		FILE *f;
		int rc;

		ck_assert(asprintf(&src, "%s/generate/%s.replay", tu_datadir(),
				   golden[i].name) > 0);
		text = tu_read(src, NULL);
		ck_assert_ptr_nonnull(text);
		stats = tu_join(scratch, "golden.json");
		f = fopen(replay_path, "w");
		ck_assert_ptr_nonnull(f);
		/* The sandbox /.ioriot/test goes onto the tmpfs, its user is
		 * root. */
		for (p = text; *p; ) {
			if (!strncmp(p, "/.ioriot/test", 13)) {
				fprintf(f, "%s/.ioriot/test", mnt);
				p += 13;
			} else if (!strncmp(p, "|mount=/|fstype=ext4|", 21)) {
				fprintf(f, "|mount=%s|fstype=tmpfs|", mnt);
				p += 21;
			} else if (!strncmp(p, "user=tester|", 12)) {
				fputs("user=root|", f);
				p += 12;
			} else {
				fputc(*p++, f);
			}
		}
		ck_assert_int_eq(fclose(f), 0);
		char *argv[] = { (char *)tu_bin(), "--allow-root", "-R",
				 replay_path, "-D", "-q", "--rate-iops",
				 "1000,1000", "-S", stats, NULL };
		rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc == 0, "%s: exit %d: %s", golden[i].name, rc,
			      err);
		json = tu_read(stats, NULL);
		ck_assert_ptr_nonnull(json);
		ck_assert_msg(strstr(json, golden[i].reads) &&
			      strstr(json, golden[i].writes), "%s: want %s%s: %s",
			      golden[i].name, golden[i].reads, golden[i].writes,
			      json);
		sb = tu_join(mnt, ".ioriot/test");
		tu_rmtree(sb);
		free(sb);
		free(json);
		free(out);
		free(err);
		free(stats);
		free(text);
		free(src);
	}
	free(mnt);
}
END_TEST

/* Malformed caps, and caps without a replay: a message, exit status 2
 * or at least non-zero. */
START_TEST(test_bad_caps)
{
	static const char *const bad[][2] = {
		{ "--rate-iops", "0" }, { "--rate-iops", "x" },
		{ "--rate-iops", "-5" }, { "--rate-iops", "" },
		{ "--rate-iops", "," }, { "--rate-iops", "1,2,3" },
		{ "--rate-iops", "100,0" }, { "--rate-iops", "10x" },
		{ "--rate-iops", "nan" }, { "--rate-iops", "1e10" },
		{ "--rate-mbps", "0" }, { "--rate-mbps", "-1,5" },
		{ "--rate-mbps", "5,abc" },
	};

	write_replay(1, 1, 0, 0, 1000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)tu_bin(), "--allow-root", "-r",
				 replay_path, "-D", (char *)bad[i][0],
				 (char *)bad[i][1], NULL };
		char *out, *err;
		int rc = tu_run(argv, &out, &err);

		ck_assert_msg(rc != 0, "%s '%s' accepted", bad[i][0],
			      bad[i][1]);
		ck_assert_msg(strstr(err, bad[i][0]) &&
			      strstr(err, "expects R (reads and writes "
				     "together), R,W"),
			      "%s '%s': %s", bad[i][0], bad[i][1], err);
		free(out);
		free(err);
	}
	{
		char *argv[] = { (char *)tu_bin(), "-i", replay_path,
				 "--rate-iops", "100", NULL };
		char *out, *err;
		int rc = tu_run(argv, &out, &err);

		ck_assert_int_ne(rc, 0);
		ck_assert_msg(strstr(err, "--rate-iops goes with -r or -R"), "%s", err);
		free(out);
		free(err);
	}
}
END_TEST

Suite *rate_suite(void)
{
	Suite *s = suite_create("rate");
	TCase *tc = tcase_create("caps");
	TCase *tt = tu_timing_case("rate timing");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tt, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tt, setup, teardown);
	tcase_set_timeout(tt, 60);
	tu_add_timed_test(tc, tt, test_iops_buckets);
	tu_add_timed_test(tc, tt, test_read_write_caps);
	tu_add_timed_test(tc, tt, test_delay_not_latency);
	tu_add_timed_test(tc, tt, test_mbps);
	tu_add_timed_test(tc, tt, test_with_speed);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_golden_classes);
	tcase_add_test(tc, test_bad_caps);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);
	return s;
}
