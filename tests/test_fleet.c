/*
 * Tests of a fleet's replays: --start-at (two replays started by two
 * processes with the same TIME begin within 5 ms of it and of each other,
 * as their JSON stats record; a start already past goes at once and says
 * how late; bad TIMEs are refused), --merge (sums, merged histograms and
 * their percentiles, the hosts, the span; a merge read by --compare and
 * --report; its errors) and the host in --compare.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/cli.h"
#include "ioriot/clock.h"
#include "ioriot/json.h"
#include "ioriot/report.h"
#include "testutil.h"

#define NS ((int64_t)1000000000)
/*
 * A replay with --start-at never starts before its target (startat_wait()
 * returns at or after it).  How soon after is the host's: a busy one wakes
 * a thread late by milliseconds, or by more.  make check asserts only what
 * no load breaks, a start within a second (a wait that slept past the
 * target, or none at all, is off by seconds); the timing case that both
 * start within SKEW_MAX_NS of the target and of each other.  The start's
 * precision is bench/fleet.sh's figure.
 */
#define SKEW_MAX_NS 100000000LL		/* 100 ms */
#define SKEW_LOOSE_NS NS

/* Start ioriot with @args, its output to /dev/null, without waiting. */
static pid_t spawn(const char *const *args)
{
	char *argv[TU_MAX_ARGS + 2];
	pid_t pid;

	tu_ioriot_argv(args, argv);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(tu_bin(), argv);
		_exit(127);
	}
	return pid;
}

static int wait_exit(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A replay file of test @name with its sandbox on the tmpfs @mnt: a file
 * is created, written and closed. */
static char *replay_file(const char *dir, const char *mnt, const char *name)
{
	char *text, *path, file[64];

	ck_assert(tu_mount_tmpfs(mnt));
	ck_assert(asprintf(&text,
		"#|replay_version=1|name=%2$s|user=root|\n"
		"#|sandbox=%1$s/.ioriot/%2$s|\n#INIT\nd %1$s/.ioriot/%2$s/d\n"
		"x %1$s/.ioriot/%2$s/d/f\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/.ioriot/%2$s/d/f "
		"flags=0x41 mode=0644\n"
		"2 7:7 2000 1000 - write 4096 fd=1 count=4096\n"
		"3 7:7 4000 1000 - close 0 fd=1\n"
		"#END|ops=3|\n", mnt, name) > 0);
	snprintf(file, sizeof(file), "%s.replay", name);
	path = tu_write_str(dir, file, text);
	free(text);
	return path;
}

static json_t *load(const char *path)
{
	struct jv_error je;
	json_t *v = jv_load(path, &je);

	ck_assert_msg(v, "%s:%u: %s", path, je.line, je.msg);
	return v;
}

/* The integer at @key of @obj (after the object path @sub, or NULL). */
static int64_t int_of(const json_t *obj, const char *sub,
		      const char *key)
{
	int64_t v;

	if (sub)
		obj = json_object_get(obj, sub);
	ck_assert_msg(jv_int(json_object_get(obj, key), &v) == 0,
		      "no integer %s", key);
	return v;
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Two replays, two processes, two sandboxes on two mounts, one
 * --start-at: neither starts early (without it they start seconds
 * early), both within SKEW_LOOSE_NS of the target, tight SKEW_MAX_NS, and
 * of each other. */
START_TEST(test_start_together)
{
	char *dir = tu_scratch(), *m1 = tu_join(dir, "m1"), *m2 = tu_join(dir, "m2");
	char *r1 = replay_file(dir, m1, "fleet1"), *r2 = replay_file(dir, m2, "fleet2");
	char *s1 = tu_join(dir, "h1.json"), *s2 = tu_join(dir, "h2.json");
	char *merged = tu_join(dir, "fleet.json"), *out, *err, at[64];
	/* Two to three seconds ahead: enough for both to start, init and get
	 * ready on a busy machine. */
	int64_t target = (int64_t)(clock_ns(CLOCK_REALTIME) / NS + 3) * NS;
	json_t *j1, *j2, *jm;

	snprintf(at, sizeof(at), "@%" PRId64, target / NS);
	const char *a1[] = { "-R", r1, "-D", "-q", "--allow-root", "-s", "1",
			     "--start-at", at, "-S", s1, NULL };
	const char *a2[] = { "-R", r2, "-D", "-q", "--allow-root",
			     "--start-at", at, "-S", s2, NULL };
	pid_t p1 = spawn(a1), p2 = spawn(a2);

	ck_assert_int_eq(wait_exit(p1), 0);
	ck_assert_int_eq(wait_exit(p2), 0);
	j1 = load(s1);
	j2 = load(s2);
	ck_assert_int_eq(int_of(j1, "start_at", "target_ns"), target);
	ck_assert_int_eq(int_of(j2, "start_at", "target_ns"), target);
	int64_t k1 = int_of(j1, "start_at", "skew_ns");
	int64_t k2 = int_of(j2, "start_at", "skew_ns");
	int64_t st1 = int_of(j1, NULL, "started_ns");
	int64_t st2 = int_of(j2, NULL, "started_ns");
	int64_t max = TU_TIGHT ? SKEW_MAX_NS : SKEW_LOOSE_NS;

	ck_assert_msg(k1 >= 0 && k2 >= 0 && k1 < max && k2 < max &&
		      abs64(st1 - st2) < max,
		      "skews %" PRId64 " and %" PRId64 " ns, starts %" PRId64
		      " ns apart", k1, k2, st1 - st2);
	/* The skew is the recorded start against the target. */
	ck_assert_int_eq(st1 - target, k1);
	ck_assert_int_eq(st2 - target, k2);
	ck_assert_int_eq(int_of(j1, NULL, "performed_ioops"), 3);
	/* adjtimex answers on Linux: the clock's state is there. */
	ck_assert(json_is_object(json_object_get(json_object_get(j1,
						 "start_at"), "clock")));
	int_of(json_object_get(j1, "start_at"), "clock", "maxerror_ns");

	/* The two merged: sums, two hosts, the span. */
	const char *margs[] = { "--merge", s1, s2, "-o", merged, NULL };
	ck_assert_int_eq(tu_run_args(margs, &out, &err), 0);
	ck_assert_str_eq(err, "");
	jm = load(merged);
	ck_assert_int_eq(int_of(jm, NULL, "performed_ioops"), 6);
	ck_assert_uint_eq(jv_count(json_object_get(jm, "hosts")), 2);
	ck_assert_int_eq(int_of(jm, NULL, "started_ns"), st1 < st2 ? st1 : st2);
	int64_t end1 = st1 + int_of(j1, NULL, "total_time_ns");
	int64_t end2 = st2 + int_of(j2, NULL, "total_time_ns");
	ck_assert_int_eq(int_of(jm, NULL, "total_time_ns"),
			 (end1 > end2 ? end1 : end2) - (st1 < st2 ? st1 : st2));
	ck_assert_int_eq(int_of(jm, "start_at", "spread_ns"), abs64(st1 - st2));
	ck_assert_int_eq(int_of(jm, "start_at", "skew_ns"),
			 abs64(k1) >= abs64(k2) ? k1 : k2);
	free(out);
	free(err);

	json_decref(j1);
	json_decref(j2);
	json_decref(jm);
	free(merged);
	free(s1);
	free(s2);
	free(r1);
	free(r2);
	free(m1);
	free(m2);
	free(dir);
}
END_TEST

/* A TIME already past (within the second allowed) starts at once, says
 * how late in the text stats and on stderr. */
START_TEST(test_start_late)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "m");
	char *replay = replay_file(dir, mnt, "late"), *out, *err, at[64];
	uint64_t now = clock_ns(CLOCK_REALTIME);

	snprintf(at, sizeof(at), "%.3f", (double)(now - 500000000) / 1e9);
	const char *args[] = { "-R", replay, "-D", "--allow-root",
			       "--start-at", at, NULL };
	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "\tStart at: ") && strstr(out, "\tClock: ") &&
		      strstr(err, "s after --start-at"), "out: %s\nerr: %s",
		      out, err);
	double skew_us = atof(strstr(strstr(out, "\tStart at: "), "skew ") + 5);
	ck_assert_msg(skew_us >= 400000 && skew_us < 5e6, "skew %.1f us",
		      skew_us);
	free(out);
	free(err);
	free(replay);
	free(mnt);
	free(dir);
}
END_TEST

/* --start-at's forms: each gives the same instant. */
START_TEST(test_start_forms)
{
	uint64_t t = (clock_ns(CLOCK_REALTIME) / NS + 60) * NS;
	time_t secs = (time_t)(t / NS);
	struct tm utc;
	char iso[64], plus[64], epoch[64], frac[64], at[64];
	struct cli_opts o;

	ck_assert_ptr_nonnull(gmtime_r(&secs, &utc));
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &utc);
	secs += 3600 + 30 * 60;
	ck_assert_ptr_nonnull(gmtime_r(&secs, &utc));
	strftime(plus, sizeof(plus), "%Y-%m-%dT%H:%M:%S.25+01:30", &utc);
	snprintf(epoch, sizeof(epoch), "%" PRIu64, t / NS);
	snprintf(frac, sizeof(frac), "%" PRIu64 ".000000001", t / NS);
	snprintf(at, sizeof(at), "@%" PRIu64 ".5", t / NS);
	const struct {
		const char *arg;
		uint64_t want;
	} forms[] = {
		{ iso, t }, { plus, t + 250000000 }, { epoch, t },
		{ frac, t + 1 }, { at, t + 500000000 },
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *argv[] = { "ioriot", "-r", "x.replay", "--start-at",
				 (char *)forms[i].arg, NULL };

		ck_assert_msg(cli_parse(5, argv, &o) == 0, "%s", forms[i].arg);
		ck_assert_msg(o.start_at_ns == forms[i].want, "%s: %" PRIu64
			      " != %" PRIu64, forms[i].arg, o.start_at_ns,
			      forms[i].want);
	}
}
END_TEST

/* Bad TIMEs and misplaced options: exit 2, a message naming the fault. */
START_TEST(test_start_refused)
{
	uint64_t now = clock_ns(CLOCK_REALTIME) / NS;
	char past[32], ahead[32];

	snprintf(past, sizeof(past), "@%" PRIu64, now - 10);
	snprintf(ahead, sizeof(ahead), "%" PRIu64, now + 2 * 86400);
	const struct {
		const char *args[8];
		const char *says;
	} bad[] = {
		{ { "-r", "x.replay", "--start-at", "tomorrow", NULL }, "'tomorrow'" },
		{ { "-r", "x.replay", "--start-at", "", NULL }, "ISO 8601" },
		{ { "-r", "x.replay", "--start-at", "@", NULL }, "epoch seconds" },
		{ { "-r", "x.replay", "--start-at", "17956008001.", NULL }, "not" },
		{ { "-r", "x.replay", "--start-at", "1795600800.1234567891", NULL },
		  "not" },
		{ { "-r", "x.replay", "--start-at", "2026-11-25T10:00:00", NULL },
		  "with a zone" },
		{ { "-r", "x.replay", "--start-at", "2027-02-30T10:00:00Z", NULL },
		  "not '2027-02-30" },
		{ { "-r", "x.replay", "--start-at", "2027-01-01T10:00:00+25:00",
		    NULL }, "not" },
		{ { "-r", "x.replay", "--start-at", past, NULL }, "in the past" },
		{ { "-r", "x.replay", "--start-at", ahead, NULL }, "24 hours" },
		{ { "--compare", "a.json", "--start-at", ahead, NULL }, "ahead" },
		{ { "-d", "--start-at", "@9999999999", NULL }, "ahead" },
		{ { "-i", "x.replay", "--start-at", past + 1, NULL }, "past" },
		{ { "--merge", "a.json", "-o", NULL }, "needs an argument" },
		{ { "-r", "x.replay", "-o", "y.json", NULL }, "-o goes with --merge" },
		{ { "--merge", NULL }, "--merge needs stats files" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out, *err;

		ck_assert_int_eq(tu_run_args(bad[i].args, &out, &err), 2);
		ck_assert_msg(strstr(err, bad[i].says), "%zu: %s", i, err);
		free(out);
		free(err);
	}
	/* A TIME that is fine goes only with -r and -R. */
	snprintf(ahead, sizeof(ahead), "@%" PRIu64, now + 60);
	const char *d[] = { "-d", "--start-at", ahead, NULL };
	char *out, *err;

	ck_assert_int_eq(tu_run_args(d, &out, &err), 2);
	ck_assert_msg(strstr(err, "--start-at goes with -r or -R"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/*
 * A stats file of host @host: @ops reads with latency histogram @hist
 * (a JSON array of pairs), started at @start_ns, lasting @total_ns, and
 * format_version @version; @extra is put before "syscalls".
 */
static char *stats_file(const char *dir, const char *name, const char *host,
			int version, long long start_ns, long long total_ns,
			int ops, const char *hist, const char *extra)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"{\n  \"format\": \"ioriot-stats\",\n  \"format_version\": %d,\n"
		"  \"host\": \"%s\",\n  \"test\": \"mail\",\n"
		"  \"started_ns\": %lld,\n  \"finished_ns\": %lld,\n"
		"  \"interrupted\": false, \"workers\": 2, "
		"\"threads_per_worker\": 3, \"threads\": 6, \"processes\": 2,"
		" \"timelines\": 6,\n  \"highest_loadavg\": 1.5, "
		"\"performed_ioops\": %d, \"average_ioops_per_s\": 1.0, "
		"\"time_ahead_ns\": -%d, \"total_time_ns\": %lld, "
		"\"captured_time_ns\": 100, \"setid_stripped\": 1, "
		"\"uring_flags_dropped\": 0,\n"
		"  \"start_lateness_ns\": {\"p50\": 15, \"p99\": 15, \"max\": 15},\n"
		"  \"start_lateness_histogram\": [[15, %d]],\n"
		"  \"uncaptured\": {\"not_replayed\": {\"ioctl\": 2}, \"other\": 1},\n"
		"  \"uring_not_replayed\": null,%s\n"
		"  \"syscalls\": {\"read\": {\"ops\": %d, \"bytes\": %d, "
		"\"differ\": 1, \"short\": 1, \"short_bytes\": 10, "
		"\"latency_ns\": {\"p50\": 1, \"p95\": 1, \"p99\": 1, "
		"\"p99.9\": 1, \"max\": 900000}, \"captured_latency_ns\": "
		"{\"p50\": 1, \"p95\": 1, \"p99\": 1, \"p99.9\": 1, \"max\": 5}, "
		"\"latency_histogram\": %s, \"captured_latency_histogram\": "
		"[[7, %d]], \"differ_by_result\": {\"short\": 1}}},\n"
		"  \"block_devices\": [{\"device\": \"vda\", \"r_per_s\": 1.0, "
		"\"w_per_s\": 0, \"r_mb_per_s\": 1.5, \"w_mb_per_s\": 0, "
		"\"r_await_ms\": 0.5, \"w_await_ms\": 0, \"util_pct\": 3.0}]\n}\n",
		version, host, start_ns, start_ns + total_ns + 1000, ops,
		ops * 10, total_ns, ops, extra, ops, ops * 4096, hist, ops) > 0);
	path = tu_write_str(dir, name, text);
	free(text);
	return path;
}

/* The count of the bucket whose largest value is @le in histogram @h. */
static int64_t bucket(const json_t *h, int64_t le)
{
	for (size_t i = 0; i < jv_count(h); i++) {
		int64_t v, n;

		jv_int(jv_at(jv_at(h, i), 0), &v);
		jv_int(jv_at(jv_at(h, i), 1), &n);
		if (v == le)
			return n;
	}
	return 0;
}

/* --merge: sums, merged histograms and the percentiles they give, a row
 * per host, the span; its output read by --compare and --report, and
 * merged again. */
START_TEST(test_merge)
{
	char *dir = tu_scratch(), *out, *err, *text;
	/* 10 reads at ~1 us on a; 90 at ~64 us on b: the fleet's p50 is
	 * b's bucket, its p95 too; a's p50 is 1023. */
	char *a = stats_file(dir, "a.json", "web1", 1, 5 * NS, 2 * NS, 10,
			     "[[1023, 10]]", "");
	char *b = stats_file(dir, "b.json", "web2", 1, 5 * NS + 3000, 3 * NS, 90,
			     "[[1023, 5], [65535, 85]]", "");
	char *fleet = tu_join(dir, "fleet.json"), *html = tu_join(dir, "f.html");
	const char *args[] = { "--merge", a, b, "-o", fleet, NULL };
	json_t *m;
	const json_t *read, *hosts, *hist;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_msg(strstr(out, "Merged 2 runs into "), "%s", out);
	free(out);
	free(err);
	m = load(fleet);
	ck_assert_str_eq(jv_member_string(m, "format"), "ioriot-stats");
	ck_assert_int_eq(int_of(m, NULL, "format_version"), 1);
	ck_assert_int_eq(int_of(m, NULL, "performed_ioops"), 100);
	ck_assert_int_eq(int_of(m, NULL, "threads"), 12);
	ck_assert_int_eq(int_of(m, NULL, "workers"), 4);
	ck_assert_int_eq(int_of(m, NULL, "setid_stripped"), 2);
	ck_assert_int_eq(int_of(m, NULL, "time_ahead_ns"), -900);
	ck_assert_int_eq(int_of(m, NULL, "started_ns"), 5 * NS);
	ck_assert_int_eq(int_of(m, NULL, "total_time_ns"), 3 * NS + 3000);
	ck_assert_int_eq(int_of(m, "uncaptured", "other"), 2);
	ck_assert_int_eq(int_of(json_object_get(m, "uncaptured"),
				"not_replayed", "ioctl"), 4);
	read = json_object_get(json_object_get(m, "syscalls"), "read");
	ck_assert_ptr_nonnull(read);
	ck_assert_int_eq(int_of(read, NULL, "ops"), 100);
	ck_assert_int_eq(int_of(read, NULL, "bytes"), 100 * 4096);
	ck_assert_int_eq(int_of(read, NULL, "differ"), 2);
	ck_assert_int_eq(int_of(read, NULL, "short_bytes"), 20);
	ck_assert_int_eq(int_of(read, "differ_by_result", "short"), 2);
	hist = json_object_get(read, "latency_histogram");
	ck_assert_int_eq(bucket(hist, 1023), 15);
	ck_assert_int_eq(bucket(hist, 65535), 85);
	hist = json_object_get(read, "captured_latency_histogram");
	ck_assert_int_eq(bucket(hist, 7), 100);
	/* Percentiles of the merged histogram: 15% at 1 us, 85% at 64 us,
	 * as the value of the bucket whose largest value 65535 is
	 * (64512..65535). */
	ck_assert_int_eq(int_of(read, "latency_ns", "p50"), 65024);
	ck_assert_int_eq(int_of(read, "latency_ns", "p99"), 65024);
	ck_assert_int_eq(int_of(read, "latency_ns", "max"), 900000);
	ck_assert_int_eq(int_of(read, "captured_latency_ns", "p50"), 5);
	ck_assert_int_eq(int_of(m, "start_lateness_ns", "max"), 15);
	hist = json_object_get(m, "start_lateness_histogram");
	ck_assert_int_eq(bucket(hist, 15), 100);
	hosts = json_object_get(m, "hosts");
	ck_assert_uint_eq(jv_count(hosts), 2);
	ck_assert_str_eq(jv_member_string(jv_at(hosts, 0), "host"), "web1");
	ck_assert_str_eq(jv_member_string(jv_at(hosts, 1), "host"), "web2");
	ck_assert_int_eq(int_of(jv_at(hosts, 1), NULL, "performed_ioops"), 90);
	ck_assert_str_eq(jv_member_string(jv_at(json_object_get(m,
			 "block_devices"), 1), "device"), "web2:vda");

	/* --compare reads it: a column of 2 hosts beside the hosts'. */
	const char *cmp[] = { "--compare", a, b, fleet, NULL };
	ck_assert_int_eq(tu_run_args(cmp, &out, &err), 0);
	ck_assert_msg(strstr(out, "\nHost ") && strstr(out, " web1 ") &&
		      strstr(out, " web2 ") && strstr(out, " 2 hosts\n") &&
		      strstr(out, "\nPerformed ioops ") && strstr(out, " 100\n"),
		      "%s", out);
	free(out);
	free(err);
	const char *cmpj[] = { "--compare", "--output-format", "json", a, fleet,
			       NULL };
	ck_assert_int_eq(tu_run_args(cmpj, &out, &err), 0);
	ck_assert_msg(strstr(out, "\"host\": \"web1\"") &&
		      strstr(out, "\"host\": \"2 hosts\""), "%s", out);
	free(out);
	free(err);
	/* --report too. */
	const char *rep[] = { "--report", html, a, fleet, NULL };
	ck_assert_int_eq(tu_run_args(rep, &out, &err), 0);
	free(out);
	free(err);
	text = tu_read(html, NULL);
	ck_assert_msg(text && strstr(text, "fleet"), "no report");
	free(text);

	/* A merge merged again: its hosts rows are kept. */
	char *c = stats_file(dir, "c.json", "web3", 1, 4 * NS, NS, 1,
			     "[[0, 1]]", "");
	const char *again[] = { "--merge", fleet, c, NULL };
	ck_assert_int_eq(tu_run_args(again, &out, &err), 0);
	ck_assert_msg(strstr(out, "\"host\": \"web1\"") &&
		      strstr(out, "\"host\": \"web3\"") &&
		      strstr(out, "\"performed_ioops\": 101,") &&
		      strstr(out, "\"device\": \"web2:vda\"") &&
		      !strstr(out, "?:web2"), "%s", out);
	free(out);
	free(err);
	json_decref(m);
	free(c);
	free(a);
	free(b);
	free(html);
	free(fleet);
	free(dir);
}
END_TEST

/* Which of the sample's latencies a host of test_merge_union has: the
 * log-uniform ones (0), the others (1), all (2). */
static bool on_host(size_t i, int host)
{
	return host == 2 || (i % 10 < 4) == (host == 0);
}

/* The JSON statistics (report_write_json()) of reads with the latencies
 * of @v (@n) on @host, each captured as half as long, as dir/@name. */
static char *sample_stats(const char *dir, const char *name, const uint64_t *v,
			  size_t n, int host, struct replay_sys_stats *st)
{
	struct replay_summary *sum = calloc(1, sizeof(*sum));
	struct report_info info = { .name = "mail", .host = name,
				    .started_ns = 5 * NS,
				    .finished_ns = 6 * NS };
	char *path = tu_join(dir, name);
	FILE *f = fopen(path, "w");

	ck_assert(sum && f);
	for (size_t i = 0; i < n; i++) {
		struct replay_sys_stats *r = &sum->sys[SYS_READ];

		if (!on_host(i, host))
			continue;
		r->ops++;
		r->lat[replay_hist_bucket(v[i])]++;
		r->cap_lat[replay_hist_bucket(v[i] / 2)]++;
		if (v[i] > r->lat_max)
			r->lat_max = v[i];
		if (v[i] / 2 > r->cap_lat_max)
			r->cap_lat_max = v[i] / 2;
	}
	sum->ops = sum->sys[SYS_READ].ops;
	sum->duration_ns = NS;
	ck_assert_int_eq(report_write_json(f, &info, sum), 0);
	ck_assert_int_eq(fclose(f), 0);
	if (st)
		*st = sum->sys[SYS_READ];
	free(sum);
	return path;
}

/* The histogram @key of syscall read in @doc, by bucket. */
static uint64_t *histogram_of(const json_t *doc, const char *key)
{
	const json_t *read = json_object_get(json_object_get(doc, "syscalls"),
					     "read");
	const json_t *a = json_object_get(read, key);
	uint64_t *h = calloc(REPLAY_HIST_BUCKETS, sizeof(*h));

	ck_assert(h && a);
	for (size_t i = 0; i < jv_count(a); i++) {
		int64_t le, n;

		ck_assert_int_eq(jv_int(jv_at(jv_at(a, i), 0), &le), 0);
		ck_assert_int_eq(jv_int(jv_at(jv_at(a, i), 1), &n), 0);
		ck_assert_uint_eq(replay_hist_top(replay_hist_bucket(
			(uint64_t)le)), (uint64_t)le);
		h[replay_hist_bucket((uint64_t)le)] += (uint64_t)n;
	}
	return h;
}

/* --merge of a host whose disk filled, or that met I/O errors or the
 * replay's limits, with a whole one: the merge is as incomplete as its
 * worst host (counts summed), and --compare says so. */
START_TEST(test_merge_incomplete)
{
	char *dir = tu_scratch(), *out, *err;
	char *a = stats_file(dir, "a.json", "web1", 1, 5 * NS, 2 * NS, 10,
			     "[[1023, 10]]", "");
	char *b = stats_file(dir, "b.json", "web2", 1, 5 * NS, 2 * NS, 10,
			     "[[1023, 10]]", "\n  \"disk_full\": true, "
			     "\"disk_full_ops\": 12, \"io_error_ops\": 3, "
			     "\"over_limit\": 2,");
	char *fleet = tu_join(dir, "fleet.json");
	const char *args[] = { "--merge", a, b, "-o", fleet, NULL };
	const char *cmp[] = { "--compare", a, fleet, NULL };
	json_t *m;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	free(out);
	free(err);
	m = load(fleet);
	ck_assert(json_is_true(json_object_get(m, "disk_full")));
	ck_assert_int_eq(int_of(m, NULL, "disk_full_ops"), 12);
	ck_assert_int_eq(int_of(m, NULL, "io_error_ops"), 3);
	ck_assert_int_eq(int_of(m, NULL, "over_limit"), 2);
	ck_assert(json_is_true(json_object_get(jv_at(json_object_get(m,
			"hosts"), 1), "disk_full")));
	json_decref(m);
	ck_assert_int_eq(tu_run_args(cmp, &out, &err), 0);
	ck_assert_msg(strstr(out, "incomplete: disk full (12 operations), "
			     "I/O errors (3 operations)"), "%s", out);
	free(out);
	free(err);
	free(fleet);
	free(a);
	free(b);
	free(dir);
}
END_TEST

/* --merge of two hosts' latencies from different distributions equals
 * the statistics of their union: the histograms bucket by bucket, the
 * percentiles; a file merged alone reads back as it was written. */
START_TEST(test_merge_union)
{
	enum { N = 100000 };
	char *dir = tu_scratch(), *out, *err;
	uint64_t *v = malloc(N * sizeof(*v)), *h;
	struct replay_sys_stats *all = malloc(sizeof(*all));
	char *m = tu_join(dir, "m.json"), *m1 = tu_join(dir, "m1.json");
	json_t *ja, *ju, *jm, *jm1;
	const json_t *ra, *ru, *rm, *rm1;

	ck_assert(v && all);
	tu_latency_sample(v, N);
	char *a = sample_stats(dir, "a.json", v, N, 0, NULL);
	char *b = sample_stats(dir, "b.json", v, N, 1, NULL);
	char *u = sample_stats(dir, "u.json", v, N, 2, all);
	const char *args[] = { "--merge", a, b, "-o", m, NULL };

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	free(out);
	free(err);
	const char *alone[] = { "--merge", a, "-o", m1, NULL };
	ck_assert_int_eq(tu_run_args(alone, &out, &err), 0);
	free(out);
	free(err);
	ja = load(a);
	ju = load(u);
	jm = load(m);
	jm1 = load(m1);
	h = histogram_of(jm, "latency_histogram");
	ck_assert(!memcmp(h, all->lat, sizeof(all->lat)));
	free(h);
	h = histogram_of(jm, "captured_latency_histogram");
	ck_assert(!memcmp(h, all->cap_lat, sizeof(all->cap_lat)));
	free(h);
	ra = json_object_get(json_object_get(ja, "syscalls"), "read");
	ru = json_object_get(json_object_get(ju, "syscalls"), "read");
	rm = json_object_get(json_object_get(jm, "syscalls"), "read");
	rm1 = json_object_get(json_object_get(jm1, "syscalls"), "read");
	ck_assert(json_equal(json_object_get(rm, "latency_ns"),
			     json_object_get(ru, "latency_ns")));
	ck_assert(json_equal(json_object_get(rm, "captured_latency_ns"),
			     json_object_get(ru, "captured_latency_ns")));
	ck_assert(json_equal(json_object_get(rm, "latency_histogram"),
			     json_object_get(ru, "latency_histogram")));
	/* A round trip: written, read back by --merge, the same. */
	ck_assert(json_equal(json_object_get(rm1, "latency_ns"),
			     json_object_get(ra, "latency_ns")));
	ck_assert(json_equal(json_object_get(rm1, "captured_latency_ns"),
			     json_object_get(ra, "captured_latency_ns")));
	ck_assert(json_equal(json_object_get(rm1, "latency_histogram"),
			     json_object_get(ra, "latency_histogram")));
	json_decref(ja);
	json_decref(ju);
	json_decref(jm);
	json_decref(jm1);
	free(a);
	free(b);
	free(u);
	free(m);
	free(m1);
	free(all);
	free(v);
	free(dir);
}
END_TEST

/* Statistics of an older ioriot, log2 buckets [2^(b-1), 2^b) written as
 * LE 2^b - 1: each is the top of a bucket of today, its count goes
 * there; the percentiles are that bucket's value. */
START_TEST(test_merge_older)
{
	char *dir = tu_scratch(), *out, *err;
	const char *pairs = "[[0, 1], [1, 1], [3, 2], [1023, 3], [1048575, 3]]";
	char *old = stats_file(dir, "old.json", "web1", 1, NS, NS, 10, pairs,
			       "");
	char *m = tu_join(dir, "m.json");
	const char *args[] = { "--merge", old, "-o", m, NULL };
	const json_t *read;
	json_t *jm, *want;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	jm = load(m);
	read = json_object_get(json_object_get(jm, "syscalls"), "read");
	want = json_loads(pairs, 0, NULL);
	ck_assert(json_equal(json_object_get(read, "latency_histogram"), want));
	/* The 5th of 10 in 512..1023, today's 1008..1023: 1016. */
	ck_assert_int_eq(int_of(read, "latency_ns", "p50"), 1016);
	/* The 10th in 524288..1048575, today's 1032192..1048575, above the
	 * maximum: the maximum. */
	ck_assert_int_eq(int_of(read, "latency_ns", "p99"), 900000);
	json_decref(want);
	json_decref(jm);
	free(old);
	free(m);
	free(dir);
}
END_TEST

/* Names that are not UTF-8 (a file name here, any bytes on Linux): the
 * merged statistics and --compare's JSON hold them as %XX and are read
 * back. */
START_TEST(test_merge_not_utf8)
{
	char *dir = tu_scratch(), *out, *err;
	char *a = stats_file(dir, "a.json", "web1", 1, NS, NS, 1, "[[1023, 1]]",
			     "");
	char *b = stats_file(dir, "h\xff\xe9.json", "web2", 1, NS, NS, 2,
			     "[[1023, 2]]", "");
	char *merged = tu_join(dir, "m.json"), *file;
	const char *margs[] = { "--merge", a, b, "-o", merged, NULL };
	const char *cargs[] = { "--compare", "--output-format", "json", merged,
				b, NULL };
	const json_t *hosts, *runs;
	struct jv_error je;
	json_t *m, *c;

	ck_assert_int_eq(tu_run_args(margs, &out, &err), 0);
	free(out);
	free(err);
	m = load(merged);
	hosts = json_object_get(m, "hosts");
	ck_assert_uint_eq(jv_count(hosts), 2);
	ck_assert(asprintf(&file, "%s/h%%FF%%E9.json", dir) > 0);
	ck_assert_str_eq(jv_member_string(jv_at(hosts, 1),
					  "file"), file);

	ck_assert_int_eq(tu_run_args(cargs, &out, &err), 0);
	c = jv_parse(out, strlen(out), &je);
	ck_assert_msg(c, "%u:%u: %s\n%s", je.line, je.col, je.msg, out);
	runs = json_object_get(c, "runs");
	ck_assert_uint_eq(jv_count(runs), 2);
	ck_assert_str_eq(jv_member_string(jv_at(runs, 1),
					  "label"), "h%FF%E9");
	json_decref(c);
	json_decref(m);
	free(out);
	free(err);
	free(file);
	free(merged);
	free(b);
	free(a);
	free(dir);
}
END_TEST

/* A "rate_limit" member of caps @caps, @n ops of each class, of them
 * @n - 1 throttled for @n * 100 ns in all, the longest @n * 10 ns. */
static char *rate_member(const char *caps, int n)
{
	char *m;

	ck_assert(asprintf(&m, "\n  \"rate_limit\": {\"per\": \"process\", %s,\n"
		"    \"read\": {\"ops\": %d, \"throttled\": %d, "
		"\"delay_total_ns\": %d, \"delay_ns\": {\"p50\": 5, \"p99\": 9, "
		"\"max\": %d}},\n    \"write\": {\"ops\": %d, \"throttled\": %d, "
		"\"delay_total_ns\": %d, \"delay_ns\": {\"p50\": 5, \"p99\": 9, "
		"\"max\": %d}}},", caps, n, n - 1, n * 100, n * 10, n, n - 1,
		n * 100, n * 10) > 0);
	return m;
}

/*
 * Runs under rate caps (--rate-iops, --rate-mbps): a merge of runs of the
 * same caps has them and the throttling summed (the delays' p50 and p99
 * null: no histogram to merge), each host's row its own; runs of other
 * caps, or with and without, are refused; --compare shows the caps and the
 * throttling beside runs without.
 */
START_TEST(test_merge_rate)
{
	static const char *const caps = "\"iops\": {\"read\": 700, "
		"\"write\": 300}, \"mbps\": null";
	char *dir = tu_scratch(), *out, *err;
	char *ra = rate_member(caps, 10), *rb = rate_member(caps, 90);
	char *rc = rate_member("\"iops\": {\"total\": 1000}, \"mbps\": null", 5);
	char *rm = rate_member("\"iops\": {\"read\": 700, \"write\": 300}, "
			       "\"mbps\": {\"total\": 50}", 5);
	char *rp = rate_member("\"iops\": {\"read\": 700, \"write\": 300}, "
			       "\"mbps\": null", 5);
	char *a = stats_file(dir, "a.json", "web1", 1, NS, NS, 10, "[[1023, 10]]",
			     ra);
	char *b = stats_file(dir, "b.json", "web2", 1, NS, NS, 90, "[[1023, 90]]",
			     rb);
	char *c = stats_file(dir, "c.json", "web3", 1, NS, NS, 5, "[[1023, 5]]",
			     rc);
	char *d = stats_file(dir, "d.json", "web4", 1, NS, NS, 5, "[[1023, 5]]",
			     "");
	char *e = stats_file(dir, "e.json", "web5", 1, NS, NS, 5, "[[1023, 5]]",
			     "\n  \"rate_limit\": null,");
	char *mb = stats_file(dir, "mb.json", "web6", 1, NS, NS, 5,
			      "[[1023, 5]]", rm);
	char *per = NULL;
	char *fleet = tu_join(dir, "fleet.json");
	const char *args[] = { "--merge", a, b, "-o", fleet, NULL };
	const json_t *rate, *read;
	json_t *m;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	free(out);
	free(err);
	m = load(fleet);
	rate = json_object_get(m, "rate_limit");
	ck_assert_str_eq(jv_member_string(rate, "per"), "process");
	ck_assert_int_eq(int_of(rate, "iops", "read"), 700);
	ck_assert_int_eq(int_of(rate, "iops", "write"), 300);
	ck_assert(json_is_null(json_object_get(rate, "mbps")));
	read = json_object_get(rate, "read");
	ck_assert_int_eq(int_of(read, NULL, "ops"), 100);
	ck_assert_int_eq(int_of(read, NULL, "throttled"), 98);
	ck_assert_int_eq(int_of(read, NULL, "delay_total_ns"), 10000);
	ck_assert_int_eq(int_of(read, "delay_ns", "max"), 900);
	ck_assert(json_is_null(json_object_get(json_object_get(read, "delay_ns"),
					       "p50")));
	ck_assert_int_eq(int_of(json_object_get(rate, "write"), NULL,
				"throttled"), 98);
	read = json_object_get(json_object_get(jv_at(json_object_get(m, "hosts"),
				1), "rate_limit"), "read");
	ck_assert_int_eq(int_of(read, NULL, "ops"), 90);
	ck_assert_int_eq(int_of(read, "delay_ns", "p50"), 5);
	json_decref(m);

	/* Merged again with a run of the same caps. */
	const char *again[] = { "--merge", fleet, a, NULL };
	ck_assert_int_eq(tu_run_args(again, &out, &err), 0);
	ck_assert_msg(strstr(out, "\"throttled\": 107"), "%s", out);
	free(out);
	free(err);

	/* Without caps, absent or null: merged, null. */
	const char *none[] = { "--merge", d, e, NULL };
	ck_assert_int_eq(tu_run_args(none, &out, &err), 0);
	ck_assert_msg(strstr(out, "\n  \"rate_limit\": null,\n") &&
		      strstr(out, "\"start_at\": null, \"rate_limit\": null}"),
		      "%s", out);
	free(out);
	free(err);

	/* Other caps (iops, mbps, per), or none beside caps: refused. */
	ck_assert_ptr_nonnull(strstr(rp, "\"process\""));
	memcpy(strstr(rp, "\"process\""), "\"machine\"", 9);
	per = stats_file(dir, "per.json", "web7", 1, NS, NS, 5, "[[1023, 5]]",
			 rp);
	const char *pairs[][2] = { { a, c }, { a, d }, { d, a }, { a, e },
				   { a, mb }, { a, per } };
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const char *bad[] = { "--merge", pairs[i][0], pairs[i][1],
				      NULL };

		ck_assert_int_eq(tu_run_args(bad, &out, &err), 1);
		char *says;

		ck_assert(asprintf(&says, "%s: /rate_limit: other rate caps "
			  "than %s's (--rate-iops, --rate-mbps): runs of "
			  "different caps are compared (--compare), not merged",
			  pairs[i][1], pairs[i][0]) > 0);
		ck_assert_msg(strstr(err, says), "%zu: %s", i, err);
		free(says);
		free(out);
		free(err);
	}

	/* --compare: the caps and the throttling, "-" for the run without. */
	const char *cmp[] = { "--compare", a, d, NULL };
	ck_assert_int_eq(tu_run_args(cmp, &out, &err), 0);
	ck_assert_msg(strstr(out, "\nRate caps per process ") &&
		      strstr(out, "\nops/s, reads                       "
			     "700.00         -\n") &&
		      strstr(out, "\nreads throttled                         "
			     "9         -\n") &&
		      strstr(out, "\nread delay (s)                   "
			     "0.000001         -\n") &&
		      !strstr(out, "MB/s, reads"), "%s", out);
	free(out);
	free(err);
	const char *plain[] = { "--compare", d, d, NULL };
	ck_assert_int_eq(tu_run_args(plain, &out, &err), 0);
	ck_assert_msg(!strstr(out, "Rate caps"), "%s", out);
	free(out);
	free(err);
	free(ra);
	free(rb);
	free(rc);
	free(rm);
	free(rp);
	free(e);
	free(mb);
	free(per);
	free(a);
	free(b);
	free(c);
	free(d);
	free(fleet);
	free(dir);
}
END_TEST

/* --merge refuses, exit 1, naming the file and the value (or the line and
 * column of a syntax error): no output made. */
START_TEST(test_merge_refused)
{
	char *dir = tu_scratch(), *out, *err;
	char *a = stats_file(dir, "a.json", "web1", 1, NS, NS, 1, "[[1023, 1]]", "");
	char *v2 = stats_file(dir, "v2.json", "web2", 2, NS, NS, 1,
			      "[[1023, 1]]", "");
	char *nohist = stats_file(dir, "old.json", "web2", 1, NS, NS, 1,
				  "null", "");
	char *badbucket = stats_file(dir, "bucket.json", "web2", 1, NS, NS, 1,
				     "[[1000, 1]]", "");
	char *count = stats_file(dir, "count.json", "web2", 1, NS, NS, 1,
				 "[[1023, 2]]", "");
	char *syntax = tu_write_str(dir, "syntax.json", "{\n  \"test\": \"x\",\n"
				    "  \"oops\"\n}\n");
	char *other = tu_write_str(dir, "other.json",
				   "{\"format\": \"ioriot-analysis\"}\n");
	char *missing = tu_join(dir, "missing.json");
	char *outfile = tu_join(dir, "out.json");
	/* A name with '/', '~' and an escape byte: escaped in the pointer
	 * (RFC 6901), the control byte replaced. */
	char *names = stats_file(dir, "names.json", "web2", 1, NS, NS, 1,
				 "[[1023, 1]]", "");
	const char *by = "{\"short\": 1}";
	size_t nlen;
	char *text = tu_read(names, &nlen), *at = strstr(text, by), *odd;

	ck_assert(at);
	*at = '\0';
	ck_assert(asprintf(&odd, "%s{\"a/b~c\\u001b[2J\": -1}%s", text,
			   at + strlen(by)) > 0);
	free(tu_write_str(dir, "names.json", odd));
	free(odd);
	free(text);
	const struct {
		const char *file;
		const char *says;
	} bad[] = {
		{ v2, "v2.json: /format_version: 2, but " },
		{ nohist, "old.json: /syscalls/read/latency_histogram: "
		  "expected an array" },
		{ badbucket, "bucket.json: /syscalls/read/latency_histogram/0: "
		  "a value that is no bucket's largest" },
		{ count, "count.json: /syscalls/read: the histograms' counts" },
		{ names, "names.json: /syscalls/read/differ_by_result/a~1b~0c?[2J: "
		  "expected an integer >= 0" },
		{ syntax, "syntax.json:4:1: " },
		{ other, "other.json: /test: missing" },
		{ missing, "missing.json: " },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *args[] = { "--merge", a, bad[i].file, "-o", outfile,
				       NULL };

		ck_assert_int_eq(tu_run_args(args, &out, &err), 1);
		ck_assert_msg(strstr(err, bad[i].says), "%zu: %s", i, err);
		ck_assert_int_eq(access(outfile, F_OK), -1);
		free(out);
		free(err);
	}
	/* The reasons named. */
	const char *h[] = { "--merge", a, nohist, NULL };
	ck_assert_int_eq(tu_run_args(h, &out, &err), 1);
	ck_assert_msg(strstr(err, "/syscalls/read/latency_histogram: "
			     "expected an array"), "%s", err);
	free(out);
	free(err);
	/* -o never overwrites an input. */
	const char *self[] = { "--merge", a, "-o", a, NULL };
	ck_assert_int_eq(tu_run_args(self, &out, &err), 1);
	free(out);
	free(err);
	free(a);
	free(v2);
	free(nohist);
	free(badbucket);
	free(count);
	free(names);
	free(syntax);
	free(other);
	free(missing);
	free(outfile);
	free(dir);
}
END_TEST

Suite *fleet_suite(void)
{
	Suite *s = suite_create("fleet");
	TCase *tc = tcase_create("start_at");
	TCase *tt = tu_timing_case("fleet timing");

	tcase_add_unchecked_fixture(tt, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tt, 30);
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tu_add_timed_test(tc, tt, test_start_together);
	tcase_add_test(tc, test_start_late);
	tcase_add_test(tc, test_start_forms);
	tcase_add_test(tc, test_start_refused);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);

	tc = tcase_create("merge");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_merge_incomplete);
	tcase_add_test(tc, test_merge_refused);
	tcase_add_test(tc, test_merge_rate);
	tcase_add_test(tc, test_merge_not_utf8);
	tcase_add_test(tc, test_merge_union);
	tcase_add_test(tc, test_merge_older);
	suite_add_tcase(s, tc);
	return s;
}
