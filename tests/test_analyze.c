/*
 * test_analyze: ioriot --analyze.  Every figure of a hand-built capture log
 * (tests/data/analyze/hand.capture) and of the replay file generated from
 * it checked exactly in the JSON the analysis prints, read back with the
 * project's JSON reader; the cap on rows; the folded stacks against
 * flamegraph.pl's grammar; the errors; and a small program captured by the
 * BPF probe (tests/workloads/analyze.c), whose writes, reads, syncs and
 * working set the test knows.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/analyze.h"
#include "ioriot/capture.h"
#include "ioriot/json.h"
#include "testutil.h"
#include "workloads/analyze.h"

#define ERRLEN 4352

static char *data_path(const char *name)
{
	char *p;

	ck_assert(asprintf(&p, "%s/analyze/%s", tu_datadir(), name) > 0);
	return p;
}

/* Analyse @path with @opt (path set here) into JSON, parsed. */
static json_t *analyze_json(struct analyze_options *opt,
			    const char *path)
{
	char *dir = tu_scratch(), *out = tu_join(dir, "out.json");
	char err[ERRLEN] = "";
	struct jv_error jerr;
	FILE *f = fopen(out, "w");

	ck_assert_ptr_nonnull(f);
	opt->path = path;
	opt->format = ANALYZE_JSON;
	opt->tool_version = "test";
	ck_assert_msg(analyze_run(opt, f, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(fclose(f), 0);
	json_t *v = jv_load(out, &jerr);
	ck_assert_msg(v, "%s:%u:%u: %s", out, jerr.line, jerr.col, jerr.msg);
	free(out);
	free(dir);
	return v;
}

/* Analyse tests/data/analyze/@name with @opt into JSON, parsed. */
static json_t *analyze_data(const char *name,
			    struct analyze_options opt)
{
	char *path = data_path(name);
	json_t *v = analyze_json(&opt, path);

	free(path);
	return v;
}

/* The value at the dotted @path ("a.b.3.c": members and indexes). */
static const json_t *at(const json_t *v,
			const char *path)
{
	char *copy = strdup(path), *save = NULL;

	for (char *k = strtok_r(copy, ".", &save); k && v;
	     k = strtok_r(NULL, ".", &save)) {
		if (json_typeof(v) == JSON_ARRAY)
			v = jv_at(v, (size_t)atoi(k));
		else
			v = json_object_get(v, k);
	}
	ck_assert_msg(v, "no %s", path);
	free(copy);
	return v;
}

static int64_t num(const json_t *v, const char *path)
{
	int64_t n;

	ck_assert_msg(jv_int(at(v, path), &n) == 0, "%s: no integer", path);
	return n;
}

static double real(const json_t *v, const char *path)
{
	double d;

	ck_assert_msg(jv_number(at(v, path), &d) == 0, "%s: no number", path);
	return d;
}

static const char *str(const json_t *v, const char *path)
{
	const char *s = json_string_value(at(v, path));

	ck_assert_msg(s, "%s: no string", path);
	return s;
}

static bool is_null(const json_t *v, const char *path)
{
	return json_typeof(at(v, path)) == JSON_NULL;
}

/* The element of array @list whose @key is the string @want. */
static const json_t *find(const json_t *list,
			  const char *key, const char *want)
{
	for (size_t i = 0; i < jv_count(list); i++) {
		const json_t *name = json_object_get(jv_at(list, i), key);
		if (json_is_string(name) &&
		    !strcmp(json_string_value(name), want))
			return jv_at(list, i);
	}
	ck_abort_msg("no %s %s", key, want);
	return NULL;
}

/* The count of bucket @le (key @key) in a bucket list, 0 if absent. */
static int64_t bucket(const json_t *list, const char *key,
		      int64_t le)
{
	for (size_t i = 0; i < jv_count(list); i++) {
		const json_t *b = jv_at(list, i);
		int64_t v, n;
		ck_assert_int_eq(jv_int(json_object_get(b, key), &v), 0);
		ck_assert_int_eq(jv_int(json_object_get(b, "count"), &n), 0);
		if (v == le)
			return n;
	}
	return 0;
}

/* The figures the hand-built log and its replay file share. */
static void check_hand(const json_t *v, bool replay)
{
	const json_t *files = at(v, "top.files.by_ops"), *f, *s;

	ck_assert_str_eq(str(v, "format"), "ioriot-analysis");
	ck_assert_int_eq(num(v, "format_version"), 1);
	ck_assert_str_eq(str(v, "source.kind"), replay ? "replay" : "capture");
	ck_assert_int_eq(num(v, "source.version"), replay ? 1 : 4);
	ck_assert_int_eq(num(v, "totals.duration_ns"), 1600000020);
	ck_assert_int_eq(num(v, "totals.operations"), 14);
	ck_assert_int_eq(num(v, "totals.failed"), 1);
	ck_assert_int_eq(num(v, "totals.bytes_read"), 8192 + 4096 + 512);
	ck_assert_int_eq(num(v, "totals.bytes_written"), 4096 + 4096 + 100);
	ck_assert_int_eq(num(v, "totals.processes"), 2);
	ck_assert_int_eq(num(v, "totals.threads"), 3);
	ck_assert_int_eq(num(v, "totals.files"), 3);
	ck_assert_int_eq(num(v, "totals.directories"), 2);
	/* /data/a: [0, 12288) and [16384, 16484); /data/sub/b: 512 */
	ck_assert_int_eq(num(v, "totals.working_set_bytes"), 12288 + 100 + 512);
	ck_assert_int_eq(num(v, "totals.syncs"), 2);

	s = find(at(v, "syscalls"), "name", "read");
	ck_assert_int_eq(num(s, "ops"), 2);
	ck_assert_int_eq(num(s, "bytes"), 12288);
	ck_assert_int_eq(num(s, "time_ns"), 800);
	ck_assert_str_eq(str(s, "class"), "read");
	s = find(at(v, "syscalls"), "name", "stat");
	ck_assert_int_eq(num(s, "failed"), 1);
	ck_assert_str_eq(str(s, "class"), "meta");
	ck_assert_int_eq(num(v, "syscalls.0.ops"), 2);	/* by ops */
	ck_assert_int_eq(jv_count(at(v, "syscalls")), 10);

	s = find(at(v, "classes"), "class", "sync");
	ck_assert_int_eq(num(s, "ops"), 2);
	ck_assert_int_eq(num(s, "time_ns"), 1002000);
	ck_assert_int_eq(num(s, "latency.count"), 2);
	ck_assert_int_eq(num(s, "latency.p50_ns"), 2048);
	ck_assert_int_eq(num(s, "latency.p99_ns"), 1000000);	/* the max */
	ck_assert_int_eq(num(s, "latency.max_ns"), 1000000);
	ck_assert_int_eq(bucket(at(s, "latency.buckets"), "le_ns", 2048), 1);
	ck_assert_int_eq(bucket(at(s, "latency.buckets"), "le_ns", 1 << 20), 1);
	ck_assert_int_eq(num(find(at(v, "classes"), "class", "open"), "ops"), 4);
	ck_assert_int_eq(num(find(at(v, "classes"), "class", "other"), "ops"), 1);

	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 8192), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 4096), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 512), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.write"), "le_bytes", 4096), 2);
	ck_assert_int_eq(bucket(at(v, "request_sizes.write"), "le_bytes", 128), 1);
	ck_assert_int_eq(jv_count(at(v, "request_sizes.write")), 2);

	/* /data/a: write 0 (seq), write 4096 (seq), pwrite 16384, read 0
	 * after the lseek, read 8192 (seq) */
	ck_assert_int_eq(num(v, "top.n"), 20);
	ck_assert_int_eq(jv_count(files), 3);
	f = jv_at(files, 0);
	ck_assert_str_eq(str(f, "name"), "/data/a");
	ck_assert_int_eq(num(f, "ops"), 9);
	ck_assert_int_eq(num(f, "bytes_read"), 12288);
	ck_assert_int_eq(num(f, "bytes_written"), 8292);
	ck_assert_int_eq(num(f, "time_ns"), 5750);
	ck_assert_double_eq_tol(real(f, "sequential_share"), 0.6, 1e-9);
	ck_assert_double_eq_tol(real(f, "read_share"), 12288.0 / 20580, 1e-6);
	ck_assert_int_eq(num(f, "working_set_bytes"), 12388);
	ck_assert_int_eq(num(f, "syncs"), 1);
	ck_assert_int_eq(num(f, "bytes_between_syncs_mean"), 8192);
	f = find(files, "name", "/data/missing");
	ck_assert(is_null(f, "sequential_share"));
	ck_assert(is_null(f, "read_share"));
	ck_assert(is_null(f, "bytes_between_syncs_mean"));
	f = jv_at(at(v, "top.files.by_time"), 0);
	ck_assert_str_eq(str(f, "name"), "/data/sub/b");
	ck_assert_int_eq(num(f, "time_ns"), 1000160);
	ck_assert_double_eq_tol(real(f, "sequential_share"), 1, 1e-9);

	f = jv_at(at(v, "top.directories.by_ops"), 0);
	ck_assert_str_eq(str(f, "name"), "/data");
	ck_assert_int_eq(num(f, "ops"), 10);
	ck_assert_int_eq(num(f, "working_set_bytes"), 12388);
	f = jv_at(at(v, "top.directories.by_ops"), 1);
	ck_assert_str_eq(str(f, "name"), "/data/sub");
	ck_assert_int_eq(num(f, "ops"), 4);

	f = jv_at(at(v, "top.processes.by_ops"), 0);
	ck_assert_str_eq(str(f, "name"), replay ? "100" : "100 db");
	ck_assert_int_eq(num(f, "ops"), 9);
	ck_assert_int_eq(num(f, "bytes_written"), 8292);
	f = jv_at(at(v, "top.threads.by_ops"), 2);
	ck_assert_str_eq(str(f, "name"), "100:101");
	ck_assert_int_eq(num(f, "ops"), 1);

	ck_assert_int_eq(num(v, "sync.calls"), 2);
	ck_assert_int_eq(num(v, "sync.bytes_between.count"), 2);
	ck_assert_int_eq(num(v, "sync.bytes_between.mean"), 4096);
	ck_assert_int_eq(num(v, "sync.bytes_between.max"), 8192);

	ck_assert_int_eq(num(v, "timeline.interval_ns"), 1000000000);
	ck_assert_int_eq(jv_count(at(v, "timeline.rows")), 2);
	ck_assert_int_eq(num(v, "timeline.rows.0.ops"), 12);
	ck_assert_int_eq(num(v, "timeline.rows.0.read_bytes"), 12800);
	ck_assert_int_eq(num(v, "timeline.rows.0.write_ops"), 3);
	ck_assert_int_eq(num(v, "timeline.rows.0.in_flight_max"), 2);
	ck_assert_double_eq_tol(real(v, "timeline.rows.0.in_flight_mean"),
				5930 / 1e9, 1e-15);
	ck_assert_int_eq(num(v, "timeline.rows.1.t_ns"), 1000000000);
	ck_assert_int_eq(num(v, "timeline.rows.1.ops"), 2);
	ck_assert_int_eq(num(v, "timeline.rows.1.in_flight_max"), 1);
}

START_TEST(test_hand_capture)
{
	json_t *v = analyze_data("hand.capture",
				 (struct analyze_options){ 0 });
	const json_t *nr = at(v, "not_replayed");

	check_hand(v, false);
	ck_assert_str_eq(str(v, "source.host"), "testhost");
	ck_assert_str_eq(str(v, "source.kernel"), "6.1.0");
	ck_assert_int_eq(num(nr, "lost_events"), 0);
	ck_assert_int_eq(num(nr, "uncaptured.ioctl"), 3);
	ck_assert_int_eq(num(nr, "uncaptured.fsetxattr"), 1);
	ck_assert(is_null(nr, "uring_skipped"));
	/* the read of fd 5, never opened; the exec record */
	ck_assert_int_eq(jv_count(at(nr, "filtered")), 2);
	for (size_t i = 0; i < 2; i++) {
		int64_t n;
		ck_assert_int_eq(jv_int(jv_at(at(nr, "filtered"), i), &n), 0);
		ck_assert_int_eq(n, 1);
	}
	json_decref(v);
}
END_TEST

/*
 * The threads' time (tests/data/generate/cpu.capture): calls, the gaps
 * between a thread's operations, on a CPU as cpu= says (at most the gap),
 * waiting for the rest, unknown without cpu=; per process and thread, in
 * JSON and text.  Thread 500:500 has gaps of 900, 2900, 3900, 900, 400
 * and 500 ns with cpu= 800, 780, 3170, 100, 300 and 400; thread 502:502
 * one of 100 with 100; thread 600:600 one of 900 without cpu=.
 */
START_TEST(test_thread_time)
{
	char *path;
	json_t *v;
	const json_t *t, *p;
	char *argv[] = { "ioriot", "--analyze", NULL, NULL }, *text = NULL;

	ck_assert(asprintf(&path, "%s/generate/cpu.capture", tu_datadir()) > 0);
	v = analyze_json(&(struct analyze_options){ 0 }, path);
	t = at(v, "totals.thread_time");
	ck_assert_int_eq(num(t, "calls_ns"), 1200);
	ck_assert_int_eq(num(t, "gaps_ns"), 9500 + 100 + 900);
	ck_assert_int_eq(num(t, "on_cpu_ns"), 5550 + 100);
	ck_assert_int_eq(num(t, "waiting_ns"), 3950);
	ck_assert_int_eq(num(t, "unknown_ns"), 900);
	ck_assert_int_eq(num(t, "probe_ns"), 0);
	ck_assert(real(t, "on_cpu_share") > 0.48 &&
		  real(t, "on_cpu_share") < 0.49);
	p = find(at(v, "top.processes.by_ops"), "name", "500");
	ck_assert_int_eq(num(p, "time_ns"), 700);
	ck_assert_int_eq(num(p, "gaps_ns"), 9500);
	ck_assert_int_eq(num(p, "on_cpu_ns"), 5550);
	ck_assert_int_eq(num(p, "waiting_ns"), 3950);
	ck_assert_int_eq(num(p, "unknown_ns"), 0);
	p = find(at(v, "top.threads.by_ops"), "name", "600:600");
	ck_assert_int_eq(num(p, "unknown_ns"), 900);
	json_decref(v);

	argv[2] = path;
	ck_assert_int_eq(tu_run(argv, &text, NULL), 0);
	ck_assert_msg(strstr(text, "  Thread time            10% in calls, 48% "
			     "on a CPU between them, 34% waiting, 8% not known "
			     "(no cpu=)\n"), "%s", text);
	ck_assert_msg(strstr(text, "    7%   54%   39%    0%  500\n"), "%s",
		      text);
	free(text);
	free(path);
}
END_TEST

/*
 * --analyze of tests/data/generate/@name.capture: its totals.thread_time
 * member @key is @ns in the JSON, and the text's thread time line holds
 * @line.
 */
static void check_thread_time(const char *name, const char *key, int64_t ns,
			      const char *line)
{
	char *path;
	json_t *v;
	char *argv[] = { "ioriot", "--analyze", NULL, NULL }, *text = NULL;

	ck_assert(asprintf(&path, "%s/generate/%s.capture", tu_datadir(),
			   name) > 0);
	v = analyze_json(&(struct analyze_options){ 0 }, path);
	ck_assert_int_eq(num(at(v, "totals.thread_time"), key), ns);
	json_decref(v);

	argv[2] = path;
	ck_assert_int_eq(tu_run(argv, &text, NULL), 0);
	ck_assert_msg(strstr(text, line), "%s", text);
	free(text);
	free(path);
}

/*
 * The capture probe's part of the on-CPU time (tests/data/generate/
 * probe.capture, replay-format §4.7): the probe= generate writes, at most
 * each gap's on-CPU part, 150 + 550 + 750 + 100 + 750 + 900 ns of 10,100
 * ns of thread time (of 5,280 ns on a CPU), in JSON and text.
 */
START_TEST(test_thread_time_probe)
{
	check_thread_time("probe", "on_cpu_ns", 5280, "  Thread time ");
	check_thread_time("probe", "probe_ns", 3200,
			  "  Thread time            8% in calls, 52% on a CPU "
			  "between them (32% the capture probe's), 40% "
			  "waiting\n");
}
END_TEST

/*
 * The wait for a CPU (runq=, from the log's R) is a part of the waiting,
 * each gap's at most what is left of it after cpu=:
 * tests/data/generate/runq.capture's 400 + 55 + 70 + 1,290 (of 2^64 - 1)
 * + 61 ns, of 10,700 ns of thread time (18%).
 */
START_TEST(test_thread_time_runq)
{
	check_thread_time("runq", "runq_ns", 1876,
			  "% waiting (18% for a CPU)\n");
}
END_TEST

START_TEST(test_hand_replay)
{
	json_t *v = analyze_data("hand.replay",
				 (struct analyze_options){ 0 });

	check_hand(v, true);
	ck_assert(is_null(v, "source.host"));
	ck_assert(is_null(v, "not_replayed.lost_events"));
	ck_assert(is_null(v, "not_replayed.filtered"));
	ck_assert_int_eq(num(v, "not_replayed.uncaptured.ioctl"), 3);
	json_decref(v);
}
END_TEST

/*
 * Process names: a process is named after the program it exec'd, or its
 * parent's when it only forked, or the name the /proc snapshot gave it
 * when it ran before the capture; a process with no operation is no row.
 */
START_TEST(test_names)
{
	json_t *v = analyze_data("names.capture",
				 (struct analyze_options){ 0 });

	ck_assert_int_eq(num(v, "totals.processes"), 3);
	ck_assert_int_eq(jv_count(at(v, "top.processes.by_ops")), 3);
	ck_assert_str_eq(str(v, "top.processes.by_ops.0.name"), "300 cat");
	ck_assert_int_eq(num(v, "top.processes.by_ops.0.ops"), 2);
	ck_assert_str_eq(str(v, "top.processes.by_ops.1.name"), "200 db");
	ck_assert_str_eq(str(v, "top.processes.by_ops.2.name"), "500 pgdaemon");
	json_decref(v);
}
END_TEST

/* Linux AIO (tests/data/analyze/aio.replay, replay-format §4.2's example):
 * the completions at their iocb's offsets, reaped by another thread. */
START_TEST(test_aio)
{
	json_t *v = analyze_data("aio.replay",
				 (struct analyze_options){ 0 });
	const json_t *f = at(v, "top.files.by_ops.0");

	ck_assert_int_eq(num(v, "totals.bytes_read"), 4096);
	ck_assert_int_eq(num(v, "totals.bytes_written"), 512);
	ck_assert_int_eq(num(v, "totals.working_set_bytes"), 4096 + 512);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 4096), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.write"), "le_bytes", 512), 1);
	ck_assert_str_eq(str(f, "name"), "/db");
	ck_assert_int_eq(num(f, "ops"), 6);	/* open, 2 iocbs, 2 done, close */
	/* the write at 0 comes first; the read at 8192 is not where it ended */
	ck_assert_double_eq_tol(real(f, "sequential_share"), 0.5, 1e-9);
	ck_assert_str_eq(str(v, "top.threads.by_bytes.0.name"), "5:6");
	json_decref(v);
}
END_TEST

/* io_uring requests (tests/data/generate/uring.replay): their completions
 * are the reads and writes, at the offsets of their sqe lines. */
START_TEST(test_uring)
{
	char *file;
	struct analyze_options opt = { 0 };

	ck_assert(asprintf(&file, "%s/generate/uring.replay", tu_datadir()) > 0);
	json_t *v = analyze_json(&opt, file);
	const json_t *f = at(v, "top.files.by_ops.0");

	ck_assert_int_eq(num(v, "totals.bytes_read"), 4096 + 100);
	ck_assert_int_eq(num(v, "totals.bytes_written"), 512);
	ck_assert_int_eq(num(v, "totals.syncs"), 1);
	/* 8192 + 4096 and 0 + 512; the 100 bytes at the file position are
	 * at no known offset */
	ck_assert_int_eq(num(v, "totals.working_set_bytes"), 4096 + 512);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 4096), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", 128), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.write"), "le_bytes", 512), 1);
	ck_assert_str_eq(str(f, "name"), "/data/db");
	ck_assert_double_eq_tol(real(f, "sequential_share"), 0, 1e-9);
	ck_assert_int_eq(num(f, "bytes_between_syncs_mean"), 512);
	ck_assert_int_eq(num(v, "not_replayed.uring_skipped.timeout"), 1);
	ck_assert_int_eq(num(find(at(v, "syscalls"), "name", "sqe"), "ops"), 4);
	json_decref(v);
	free(file);
}
END_TEST

/* Past the cap, rows go to one "other" row: counted, not dropped. */
START_TEST(test_cap)
{
	struct analyze_options opt = { .max_rows = 1, .top = 5 };
	json_t *v = analyze_data("hand.capture", opt);
	const json_t *files = at(v, "top.files.by_ops"), *o;

	ck_assert_int_eq(num(v, "totals.files"), 1);
	ck_assert(json_typeof(at(v, "totals.rows_capped")) == JSON_TRUE);
	ck_assert_int_eq(jv_count(files), 2);
	ck_assert_str_eq(str(files, "0.name"), "/data/a");
	o = jv_at(files, 1);
	ck_assert(is_null(o, "name"));
	ck_assert(json_typeof(at(o, "other")) == JSON_TRUE);
	ck_assert_int_eq(num(o, "ops"), 5);
	ck_assert_int_eq(num(o, "bytes_read"), 512);
	/* the other row's own ranges are not tracked */
	ck_assert_int_eq(num(v, "totals.working_set_bytes"), 12388);
	ck_assert_int_eq(num(at(v, "top.processes.by_ops"), "1.ops"), 5);
	ck_assert_int_eq(num(v, "totals.operations"), 14);
	json_decref(v);
}
END_TEST

/* The rows after the top N are summed in a last "other" row. */
START_TEST(test_top)
{
	json_t *v = analyze_data("hand.capture",
				 (struct analyze_options){ .top = 1 });
	const json_t *o = at(v, "top.files.by_ops.1");

	ck_assert_int_eq(num(v, "top.n"), 1);
	ck_assert_int_eq(jv_count(at(v, "top.files.by_ops")), 2);
	ck_assert(json_typeof(at(v, "totals.rows_capped")) == JSON_FALSE);
	ck_assert(json_typeof(at(o, "other")) == JSON_TRUE);
	ck_assert_int_eq(num(o, "ops"), 5);
	ck_assert_int_eq(num(o, "bytes_read"), 512);
	ck_assert_int_eq(num(o, "working_set_bytes"), 512);
	ck_assert_double_eq_tol(real(o, "sequential_share"), 1, 1e-9);
	ck_assert_int_eq(num(o, "syncs"), 1);
	o = at(v, "top.threads.by_ops.1");
	ck_assert_int_eq(num(o, "ops"), 6);
	json_decref(v);
}
END_TEST

/* Each line of folded output @text is "frame;frame... WEIGHT"; returns
 * the sum of the weights. */
static uint64_t check_folded(const char *text, size_t *lines)
{
	regex_t re;
	uint64_t sum = 0;
	char *copy = strdup(text), *save = NULL;

	ck_assert_int_eq(regcomp(&re, "^[^ ;]+(;[^ ;]+)* [0-9]+$",
				 REG_EXTENDED | REG_NOSUB), 0);
	*lines = 0;
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(regexec(&re, l, 0, NULL, 0) == 0,
			      "not a folded stack: '%s'", l);
		sum += strtoull(strrchr(l, ' ') + 1, NULL, 10);
		(*lines)++;
	}
	regfree(&re);
	free(copy);
	return sum;
}

/* True if @text holds anything but printable ASCII, line ends and the
 * one UTF-8 character of controls.capture's names, U+00E9. */
static bool has_control(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (p[0] == 0xc3 && p[1] == 0xa9)
			p++;
		else if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
			return true;
	}
	return false;
}

/*
 * Names with control characters (tests/data/analyze/controls.capture: an
 * ESC sequence, a newline, a C1 CSI, a right-to-left override, a byte that
 * is no UTF-8; in file and process names and the host's) reach neither the
 * terminal nor the folded stacks as they are: the tables show them as %XX,
 * the stacks as '_'; UTF-8 stays.
 */
START_TEST(test_control_names)
{
	char *dir = tu_scratch(), *out = tu_join(dir, "c.folded");
	char *log = data_path("controls.capture"), *text = NULL;
	char *argv[] = { "ioriot", "--analyze", log, "--folded", out, NULL };
	static const char *const shown[] = {
		"  /data/a%1B[2Jb\n", "  /data/c%0Ad\n", "  /data/csi%C2%9B2J\n",
		"  /data/rlo%E2%80%AEtxt.exe\n", "  /data/latin%E9\n",
		"  /data/caf\xc3\xa9\n", "  100 x%1B[31mRED\n",
		", host evil%1B]0;x%07host, kernel 6.1.0%0A)\n",
	};
	size_t lines;

	ck_assert_int_eq(tu_run(argv, &text, NULL), 0);
	ck_assert_msg(!has_control(text), "raw control bytes in:\n%s", text);
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		ck_assert_msg(strstr(text, shown[i]), "'%s' not shown", shown[i]);
	free(text);

	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert(!has_control(text));
	ck_assert_uint_eq(check_folded(text, &lines), 6);
	ck_assert_uint_eq(lines, 6);
	ck_assert_ptr_nonnull(strstr(text, "100_x_[31mRED;stat;data;c_d 1\n"));
	ck_assert_ptr_nonnull(strstr(text, ";data;caf\xc3\xa9 1\n"));
	free(text);
	free(log);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* --folded is opened as every output of ioriot: never through a symlink
 * planted where it is written (as root in /tmp, it would overwrite the
 * link's target), never over the input. */
START_TEST(test_folded_refused)
{
	char *dir = tu_scratch(), *err = NULL;
	char *target = tu_write_str(dir, "target", "secret\n");
	char *link = tu_join(dir, "x.folded"), *text;
	char *in = tu_join(dir, "in.capture"), *log = data_path("hand.capture");
	char *orig = tu_read(log, NULL);
	char *argv[] = { "ioriot", "-q", "--analyze", log, "--folded", link,
			 NULL };

	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
	ck_assert_msg(strstr(err, "x.folded: Too many levels of symbolic links"),
		      "%s", err);
	free(err);
	text = tu_read(target, NULL);
	ck_assert_str_eq(text, "secret\n");
	free(text);

	free(tu_write_str(dir, "in.capture", orig));
	argv[3] = argv[5] = in;
	ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
	ck_assert_msg(strstr(err, "in.capture: is the input file"), "%s", err);
	free(err);
	text = tu_read(in, NULL);
	ck_assert_str_eq(text, orig);
	free(text);
	free(orig);
	free(log);
	free(in);
	free(link);
	free(target);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_folded)
{
	static const struct {
		const char *weight;
		uint64_t total;
		size_t lines;
	} cases[] = {
		{ "ops", 14, 12 },	/* 12 distinct stacks */
		{ "bytes", 12800 + 8292, 4 },
		{ "time", 5930 + 1000020, 12 },
	};
	char *dir = tu_scratch(), *out = tu_join(dir, "x.folded");
	char *log = data_path("hand.capture"), *stdout_text = NULL;
	char *argv[] = { "ioriot", "--analyze", log, "--folded", out,
			 "--folded-weight", (char *)cases[_i].weight, NULL };
	size_t lines;

	ck_assert_int_eq(tu_run(argv, &stdout_text, NULL), 0);
	ck_assert_ptr_nonnull(strstr(stdout_text, "Analysis of"));
	char *text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(check_folded(text, &lines), cases[_i].total);
	ck_assert_uint_eq(lines, cases[_i].lines);
	if (_i == 0) {
		ck_assert_ptr_nonnull(strstr(text, "100_db;write;data;a 2\n"));
		ck_assert_ptr_nonnull(strstr(text, "200;stat;data;missing 1\n"));
	}
	free(text);
	free(stdout_text);
	free(out);
	free(log);
	free(dir);
}
END_TEST

/* With json_stacks the JSON has the folded stacks, heaviest first, the
 * same as --folded's lines; without it none. */
START_TEST(test_folded_json)
{
	json_t *v = analyze_data("hand.capture",
		(struct analyze_options){ .json_stacks = true });
	const json_t *rows = at(v, "folded"), *row;
	uint64_t ops = 0, bytes = 0, last = UINT64_MAX;
	bool db_write = false;

	ck_assert_int_eq(json_typeof(rows), JSON_ARRAY);
	ck_assert_uint_eq(jv_count(rows), 12);
	for (size_t i = 0; i < jv_count(rows); i++) {
		const char *path;

		row = jv_at(rows, i);
		ck_assert_uint_le((uint64_t)num(row, "ops"), last);
		last = (uint64_t)num(row, "ops");
		ops += last;
		bytes += (uint64_t)num(row, "bytes");
		path = str(row, "path");
		if (path && !strcmp(str(row, "process"), "100 db") &&
		    !strcmp(str(row, "syscall"), "write")) {
			ck_assert_msg(strstr(path, "/data/a"), "%s", path);
			ck_assert_int_eq(num(row, "ops"), 2);
			db_write = true;
		}
	}
	ck_assert(db_write);
	ck_assert_uint_eq(ops, 14);
	ck_assert_uint_eq(bytes, 12800 + 8292);
	json_decref(v);
	v = analyze_data("hand.capture", (struct analyze_options){ 0 });
	ck_assert_ptr_null(json_object_get(v, "folded"));
	json_decref(v);
}
END_TEST

/* Malformed input: file:line, non-zero exit, nothing printed. */
START_TEST(test_errors)
{
	char *dir = tu_scratch(), *out = NULL, *err = NULL;
	char *bad = tu_write_str(dir, "bad.replay",
		"#|replay_version=1|name=test|user=tester|\n"
		"#|sandbox=/.ioriot/test|mount=/|fstype=ext4|\n#INIT\n#OPS\n"
		"1 100:100 0 10 - openat 3 vfd=1 path=/.ioriot/test/x "
		"flags=0x0\n"
		"2 100:100 nonsense\n#END|ops=2|\n");
	char *argv[] = { "ioriot", "--analyze", bad, NULL };
	char *usage[] = { "ioriot", "-c", "a.capture", "-r", "a.replay",
			  "--top", "3", NULL };

	ck_assert_int_eq(tu_run(argv, &out, &err), 1);
	ck_assert_msg(strstr(err, "bad.replay:6"), "%s", err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	ck_assert_int_eq(tu_run(usage, NULL, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "--analyze"));
	free(err);
	free(bad);
	free(dir);
}
END_TEST

struct watch {
	pid_t pid;
	int status;
	int go;
	volatile sig_atomic_t stop;
};

static void let_go(void *ctx)
{
	struct watch *w = ctx;

	ck_assert_int_eq(write(w->go, "g", 1), 1);
}

static void *reap(void *arg)
{
	struct watch *w = arg;

	while (waitpid(w->pid, &w->status, 0) < 0 && errno == EINTR)
		;
	usleep(100000);
	__atomic_store_n(&w->stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Start the workload on @dir, blocked reading its go byte. */
static void start(struct watch *w, const char *dir)
{
	char *bin = tu_join(getenv("IORIOT_WORKLOADS"), "analyze");
	int p[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	w->pid = fork();
	ck_assert_int_ge(w->pid, 0);
	if (w->pid == 0) {
		if (dup2(p[0], 0) < 0)
			_exit(126);
		execl(bin, bin, dir, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	w->go = p[1];
	/* Blocked in read(0, ...): what it did before is not captured. */
	ck_assert_msg(tu_wait_reading_stdin(w->pid),
		      "the workload did not start");
	free(bin);
}

/*
 * The analysis workload captured by the probe: its writes, reads, syncs,
 * request sizes, sequential share and working set, exactly.
 */
START_TEST(test_workload)
{
	const char *why = tu_cannot_capture();
	struct watch w = { 0 };
	struct capture_summary sum;
	char err[ERRLEN] = "";
	pthread_t th;

	if (why) {
		printf("analyze: workload test skipped: %s\n", why);
		return;
	}
	char *dir = tu_scratch(), *log = tu_join(dir, "w.capture");
	char *file = tu_join(dir, "data");
	start(&w, dir);
	struct capture_options copt = {
		.output = log, .pid = (uint32_t)w.pid,
		.duration_ns = 20ULL * 1000000000ULL, .stop = &w.stop,
		.ready = let_go, .ready_ctx = &w,
	};
	ck_assert_int_eq(pthread_create(&th, NULL, reap, &w), 0);
	int rc = capture_run(&copt, &sum, err, sizeof(err));
	close(w.go);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "capture: %s", err);
	ck_assert(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0);

	struct analyze_options opt = { 0 };
	json_t *v = analyze_json(&opt, log);
	const json_t *f = find(at(v, "top.files.by_ops"), "name", file);
	const uint64_t blk = ANALYZE_BLOCK;
	const int64_t writes = ANALYZE_SEQ + ANALYZE_RANDOM;

	ck_assert_int_eq(num(find(at(v, "syscalls"), "name", "write"), "ops"),
			 ANALYZE_SEQ);
	ck_assert_int_eq(num(find(at(v, "syscalls"), "name", "pwrite64"), "ops"),
			 ANALYZE_RANDOM);
	ck_assert_int_eq(num(find(at(v, "syscalls"), "name", "fsync"), "ops"),
			 ANALYZE_SYNCS);
	ck_assert_int_eq(num(v, "sync.calls"), ANALYZE_SYNCS);
	ck_assert_int_eq(bucket(at(v, "request_sizes.write"), "le_bytes", blk),
			 writes);
	ck_assert_int_eq(jv_count(at(v, "request_sizes.write")), 1);
	ck_assert_int_eq(bucket(at(v, "request_sizes.read"), "le_bytes", blk),
			 ANALYZE_READS);
	ck_assert_int_eq(num(f, "bytes_written"), writes * (int64_t)blk);
	ck_assert_int_eq(num(f, "bytes_read"), ANALYZE_READS * (int64_t)blk);
	ck_assert_int_eq(num(f, "syncs"), ANALYZE_SYNCS);
	ck_assert_int_eq(num(f, "working_set_bytes"), ANALYZE_SEQ * (int64_t)blk);
	/* all write()s; no pwrite(); the read()s but the first, at 0 after
	 * the last pwrite */
	ck_assert_double_eq_tol(real(f, "sequential_share"),
				(double)(ANALYZE_SEQ + ANALYZE_READS - 1) /
				(double)(writes + ANALYZE_READS), 1e-6);
	/* fsync 1: the write()s; the others: SYNC_EVERY pwrite()s each */
	ck_assert_int_eq(num(f, "bytes_between_syncs_mean"),
			 (int64_t)(writes * blk / ANALYZE_SYNCS));
	ck_assert_int_eq(num(v, "sync.bytes_between.max"),
			 ANALYZE_SEQ * (int64_t)blk);
	json_decref(v);
	free(file);
	free(log);
	free(dir);
}
END_TEST

Suite *analyze_suite(void)
{
	Suite *s = suite_create("analyze");
	TCase *tc = tcase_create("analyze");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_hand_capture);
	tcase_add_test(tc, test_hand_replay);
	tcase_add_test(tc, test_thread_time);
	tcase_add_test(tc, test_thread_time_probe);
	tcase_add_test(tc, test_thread_time_runq);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_aio);
	tcase_add_test(tc, test_uring);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_top);
	tcase_add_loop_test(tc, test_folded, 0, 3);
	tcase_add_test(tc, test_folded_json);
	tcase_add_test(tc, test_control_names);
	tcase_add_test(tc, test_folded_refused);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_workload);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
