/*
 * Tests of compare.h and `ioriot --compare`: golden stats files in
 * tests/data/compare and their tables compared byte for byte, the marking
 * of best values, column names, stats files that are refused (with file
 * and position), and docs/examples/scheduler-loop.sh run on a loop device.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ioriot/compare.h"
#include "ioriot/json.h"
#include "testutil.h"

#define MAX_FILES 12

/* "@datadir/compare/@name", malloc'd. */
static char *data(const char *name)
{
	char *path;

	ck_assert(asprintf(&path, "%s/compare/%s", tu_datadir(), name) > 0);
	return path;
}

/* The table of the files @paths, written by compare_write(). */
static char *table_of(char *const *paths, size_t n)
{
	struct compare *c = compare_new();
	char err[512], *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(compare_add(c, paths[i], err, sizeof(err)) == 0,
			      "%s", err);
	ck_assert_int_eq(compare_write(f, c), 0);
	ck_assert_int_eq(fclose(f), 0);
	compare_free(c);
	return text;
}

/* Run ioriot --compare with @paths; its exit status. */
static int run_compare(char *const *paths, size_t n, char **out, char **err)
{
	char *argv[MAX_FILES + 3] = { "ioriot", "--compare" };

	ck_assert_uint_le(n, MAX_FILES);
	for (size_t i = 0; i < n; i++)
		argv[i + 2] = paths[i];
	argv[n + 2] = NULL;
	return tu_run(argv, out, err);
}

/* Golden tables: the files, and the expected output. */
static const struct {
	const char *files[MAX_FILES];
	const char *expected;
} golden[] = {
	/* Ties (both marked), a run without write, a syscall and a device
	 * only one run has, rows that are all equal; results
	 * that differ, short ones only in mq-deadline (the others are files
	 * of a version without "short": "-"), no rows where all are 0. */
	{ { "none.json", "mq-deadline.json", "kyber.json", "bfq.json", NULL },
	  "four.txt" },
	/* One run: nothing to mark; no syscalls, no devices. */
	{ { "idle.json", NULL }, "one.txt" },
	/* No run timed: no lateness rows. */
	{ { "kyber-fast.json", "idle.json", NULL }, "untimed.txt" },
	/* Runs of -s 0 and -s F (older files without "pacing": by their
	 * lateness): a warning, nothing marked. */
	{ { "none.json", "idle.json", NULL }, "mixed.txt" },
};

START_TEST(test_golden)
{
	char *paths[MAX_FILES] = { NULL }, *expected_path = data(golden[_i].expected);
	char *expected = tu_read(expected_path, NULL), *text, *out, *err;
	size_t n = 0;

	ck_assert_msg(expected, "cannot read %s", expected_path);
	for (; golden[_i].files[n]; n++)
		paths[n] = data(golden[_i].files[n]);
	text = table_of(paths, n);
	ck_assert_msg(!strcmp(text, expected), "%s: got\n%s", expected_path,
		      text);
	free(text);

	/* The command line prints the same, and nothing else. */
	ck_assert_int_eq(run_compare(paths, n, &out, &err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(out, expected);
	free(out);
	free(err);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(expected);
	free(expected_path);
}
END_TEST

/* A minimal stats file of test @test with total time @ns. */
static char *write_run(const char *dir, const char *name, const char *test,
		       long long ns)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"{\"test\": \"%s\", \"highest_loadavg\": 0.5, "
		"\"performed_ioops\": 10, \"average_ioops_per_s\": 100.0, "
		"\"time_ahead_ns\": 0, \"total_time_ns\": %lld, "
		"\"start_lateness_ns\": null, \"syscalls\": {}, "
		"\"block_devices\": []}\n", test, ns) > 0);
	path = tu_write_str(dir, name, text);
	free(text);
	return path;
}

/* The line of @text that starts with @label. */
static char *line_of(const char *text, const char *label)
{
	size_t len = strlen(label);

	for (const char *p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, label, len))
			return strndup(p, strcspn(p, "\n"));
	}
	ck_abort_msg("no line '%s' in\n%s", label, text);
	return NULL;
}

/* A file of --repeat's runs of test "t" labelled @label (given), one run
 * per total time in @ms (milliseconds), each of @ops operations. */
static char *write_runs(const char *dir, const char *name, const char *label,
			const double *ms, size_t n, long ops)
{
	char *text = NULL, *path;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"format\": \"ioriot-stats-runs\", \"runs\": [");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s{\"test\": \"t\", \"label\": \"%s\", "
			"\"label_given\": true, \"pacing\": \"fast\", "
			"\"highest_loadavg\": 0.5, \"performed_ioops\": %ld, "
			"\"average_ioops_per_s\": %.3f, \"time_ahead_ns\": 0, "
			"\"total_time_ns\": %.0f, \"start_lateness_ns\": null, "
			"\"syscalls\": {}, \"block_devices\": [], \"classes\": "
			"{\"sync\": {\"ops\": 9, \"latency_ns\": {\"p50\": 1000, "
			"\"p99\": %.0f}}}}", i ? ", " : "", label, ops,
			(double)ops / (ms[i] / 1e3), ms[i] * 1e6,
			2000 + 10 * (double)i);
	fprintf(f, "], \"summary\": {}}\n");
	ck_assert_int_eq(fclose(f), 0);
	path = tu_write_str(dir, name, text);
	free(text);
	return path;
}

/* The verdict of --compare's JSON of @paths (@n files), parsed. */
static json_t *verdict_of(char *const *paths, size_t n)
{
	struct compare *c = compare_new();
	char err[512], *json = NULL;
	struct jv_error jerr;
	size_t len;
	json_t *doc, *v;
	FILE *f = open_memstream(&json, &len);

	ck_assert(c && f);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(compare_add(c, paths[i], err, sizeof(err)) == 0,
			      "%s", err);
	ck_assert_int_eq(compare_write_json(f, c), 0);
	ck_assert_int_eq(fclose(f), 0);
	doc = jv_parse(json, len, &jerr);
	ck_assert_msg(doc, "%u:%u: %s", jerr.line, jerr.col, jerr.msg);
	v = json_incref(json_object_get(doc, "verdict"));
	ck_assert_ptr_nonnull(v);
	json_decref(doc);
	compare_free(c);
	free(json);
	return v;
}

/* Total times of two configurations' runs, in ms, and the verdict. */
static const struct {
	double a[5], b[5];
	size_t na, nb;
	const char *winner;	/* NULL: none */
	const char *reason;	/* NULL: none, else a part of it */
} verdicts[] = {
	/* B is 20% faster, runs within 1%: B, its interval below 0. */
	{ { 2000, 2020, 1980, 2010, 1990 }, { 1600, 1620, 1580, 1610, 1590 },
	  5, 5, "B", NULL },
	/* The same configuration twice (A/A): within the noise. */
	{ { 2000, 2050, 1950, 2020, 1980 }, { 2010, 1970, 2030, 1990, 2000 },
	  5, 5, NULL, "no significant difference" },
	/* 22% apart, but one run of mq-deadline differs by as much as
	 * that (the example): no verdict from 3 and 2 runs. */
	{ { 2030, 1660, 1900 }, { 1300, 1500 }, 3, 2, NULL,
	  "no significant difference" },
	/* One run each: the noise is unknown, however far apart. */
	{ { 2000 }, { 1000 }, 1, 1, NULL, "noise unknown" },
};

START_TEST(test_verdict)
{
	char *dir = tu_scratch(), *paths[2], *text;
	json_t *v;
	double lo, hi, d;

	paths[0] = write_runs(dir, "a.json", "A", verdicts[_i].a,
			      verdicts[_i].na, 100);
	paths[1] = write_runs(dir, "b.json", "B", verdicts[_i].b,
			      verdicts[_i].nb, 100);
	v = verdict_of(paths, 2);
	ck_assert_str_eq(jv_member_string(v, "figure"), "total_time_ns");
	if (verdicts[_i].winner) {
		ck_assert_str_eq(jv_member_string(v, "winner"),
				 verdicts[_i].winner);
		ck_assert(json_is_null(json_object_get(v, "reason")));
		ck_assert_int_eq(jv_number(json_object_get(v, "difference"), &d), 0);
		ck_assert_int_eq(jv_number(jv_at(json_object_get(v, "ci"), 0),
					   &lo), 0);
		ck_assert_int_eq(jv_number(jv_at(json_object_get(v, "ci"), 1),
					   &hi), 0);
		ck_assert_msg(lo <= d && d <= hi && hi < 0, "%g [%g, %g]", d,
			      lo, hi);
		ck_assert(fabs(d + 0.2) < 0.01);
		/* Per figure: the second's difference to the first. */
		const json_t *g1 = jv_at(json_object_get(jv_at(json_object_get(
			v, "figures"), 0), "groups"), 1);

		ck_assert_int_eq(jv_number(json_object_get(g1, "difference"),
					   &d), 0);
		ck_assert(fabs(d + 0.2) < 0.01);
		ck_assert_uint_eq(jv_count(json_object_get(g1, "difference_ci")),
				  2);
	} else {
		ck_assert(json_is_null(json_object_get(v, "winner")));
		ck_assert_msg(strstr(jv_member_string(v, "reason"),
				     verdicts[_i].reason), "%s",
			      jv_member_string(v, "reason"));
	}
	/* The text says so in words, and marks no run. */
	text = table_of(paths, 2);
	ck_assert_msg(strstr(text, verdicts[_i].winner ? "Verdict: B: Total "
			     "time (s) -20.0% against A" :
			     verdicts[_i].reason), "%s", text);
	free(text);
	json_decref(v);
	free(paths[0]);
	free(paths[1]);
	free(dir);
}
END_TEST

/* Single-run files are a configuration each, unless --label named them
 * alike; the runs of a file of repeated runs are one. */
START_TEST(test_groups)
{
	char *dir = tu_scratch(), *paths[3];
	const double a1[] = { 2000 }, a2[] = { 2010 }, b[] = { 1000, 1010 };
	json_t *v, *runs;
	int64_t n;

	paths[0] = write_runs(dir, "a1.json", "A", a1, 1, 100);
	paths[1] = write_runs(dir, "a2.json", "A", a2, 1, 100);
	paths[2] = write_runs(dir, "b.json", "B", b, 2, 100);
	v = verdict_of(paths, 3);
	runs = json_object_get(v, "runs");
	ck_assert_uint_eq(jv_count(runs), 2);
	ck_assert_int_eq(jv_int(json_object_get(runs, "A"), &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(jv_int(json_object_get(runs, "B"), &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(jv_member_string(v, "winner"), "B");
	json_decref(v);
	/* Other operation counts: never a verdict. */
	free(paths[1]);
	paths[1] = write_runs(dir, "a2.json", "A", a2, 1, 99);
	v = verdict_of(paths, 3);
	ck_assert(json_is_null(json_object_get(v, "winner")));
	ck_assert_ptr_nonnull(strstr(jv_member_string(v, "reason"),
				     "different numbers of operations"));
	json_decref(v);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
	free(dir);
}
END_TEST

/* --output-format json of runs paced differently: no verdict, and the
 * reason says why. */
START_TEST(test_json_mixed_pacing)
{
	char *paths[2] = { data("none.json"), data("idle.json") };
	json_t *v = verdict_of(paths, 2);

	ck_assert(json_is_null(json_object_get(v, "winner")));
	ck_assert_ptr_nonnull(strstr(jv_member_string(v, "reason"),
				     "paced differently"));
	json_decref(v);
	free(paths[0]);
	free(paths[1]);
}
END_TEST

/* The row of @doc whose figure is @label. */
static const json_t *row_of(const json_t *doc,
			    const char *label)
{
	const json_t *rows = json_object_get(doc, "rows");

	for (size_t i = 0; i < jv_count(rows); i++) {
		const char *f = jv_member_string(jv_at(rows, i), "figure");

		if (f && !strcmp(f, label))
			return jv_at(rows, i);
	}
	ck_abort_msg("no row '%s'", label);
	return NULL;
}

/* --output-format json: the runs, their configurations and the rows as
 * read. */
START_TEST(test_json_output)
{
	char *paths[4], *json = NULL, *text;
	static const char *const names[] = { "none.json", "mq-deadline.json",
					     "kyber.json", "bfq.json" };
	struct compare *c = compare_new();
	struct jv_error jerr;
	json_t *doc;
	char err[512];
	size_t len;
	FILE *f = open_memstream(&json, &len);

	ck_assert(c && f);
	for (int i = 0; i < 4; i++) {
		paths[i] = data(names[i]);
		ck_assert_msg(compare_add(c, paths[i], err, sizeof(err)) == 0,
			      "%s", err);
	}
	ck_assert_int_eq(compare_write_json(f, c), 0);
	ck_assert_int_eq(fclose(f), 0);
	doc = jv_parse(json, len, &jerr);
	ck_assert_msg(doc, "%u:%u: %s", jerr.line, jerr.col, jerr.msg);
	ck_assert_str_eq(jv_member_string(doc, "format"), "ioriot-compare");
	ck_assert_uint_eq(jv_count(json_object_get(doc, "runs")), 4);
	ck_assert_str_eq(jv_member_string(jv_at(json_object_get(doc, "runs"),
						1), "label"), "mq-deadline");
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
							    "format_version")), 2);
	ck_assert_str_eq(jv_member_string(row_of(doc, "Total time (s)"),
					  "best"), "lower");
	ck_assert_ptr_null(json_object_get(row_of(doc, "Total time (s)"),
					   "best_runs"));
	ck_assert_str_eq(jv_member_string(jv_at(json_object_get(doc, "runs"),
						2), "pacing"), "timed");
	ck_assert_str_eq(jv_member_string(jv_at(json_object_get(doc, "runs"),
						2), "configuration"), "kyber");
	ck_assert_uint_eq(jv_count(json_object_get(doc, "configurations")), 4);
	text = table_of(paths, 4);
	ck_assert_ptr_null(strchr(text, '*'));
	json_decref(doc);
	compare_free(c);
	free(text);
	free(json);
	for (int i = 0; i < 4; i++)
		free(paths[i]);
}
END_TEST

/* The JSON of --compare --output-format json of @paths, parsed. */
static json_t *json_of(char *const *paths, size_t n)
{
	char *argv[MAX_FILES + 5] = { "ioriot", "--compare", "--output-format",
				      "json" };
	char *out, *err;
	struct jv_error jerr;
	json_t *doc;

	ck_assert_uint_le(n, MAX_FILES);
	for (size_t i = 0; i < n; i++)
		argv[i + 4] = paths[i];
	argv[n + 4] = NULL;
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	ck_assert_str_eq(err, "");
	doc = jv_parse(out, strlen(out), &jerr);
	ck_assert_msg(doc, "%u:%u: %s", jerr.line, jerr.col, jerr.msg);
	free(out);
	free(err);
	return doc;
}

/* Run @j's "incomplete" in @doc: null, or its reasons joined by "|". */
static char *incomplete_of(const json_t *doc, size_t j)
{
	const json_t *v = json_object_get(jv_at(json_object_get(doc, "runs"),
						j), "incomplete");
	char *text = NULL;
	size_t len;
	FILE *f;

	ck_assert_ptr_nonnull(v);
	if (json_is_null(v))
		return strdup("null");
	ck_assert(json_is_array(v));
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < jv_count(v); i++) {
		ck_assert(json_is_string(jv_at(v, i)));
		fprintf(f, "%s%s", i ? "|" : "",
			json_string_value(jv_at(v, i)));
	}
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/*
 * Runs that ended badly (a signal, a full test mount, I/O errors) are
 * shown, marked: a '*' after the name, a footnote with why, a line that
 * says they were left out of the verdict, and "incomplete" in the JSON;
 * the verdict counts only the whole run.
 */
START_TEST(test_incomplete)
{
	static const char *const names[] = {
		"none.json", "interrupted.json", "disk-full.json",
		"io-errors.json",
	};
	static const char *const why[] = {
		"null", "interrupted", "disk full (12 operations)",
		"I/O errors (3 operations)",
	};
	char *paths[5], *text, *line, *out, *err, *got;
	json_t *doc, *runs;
	int64_t n;

	for (int i = 0; i < 4; i++)
		paths[i] = data(names[i]);
	text = table_of(paths, 4);
	line = line_of(text, " ");
	ck_assert_str_eq(line, "                         better             "
			 "none  interrupted*  disk-full*  io-errors*");
	free(line);
	ck_assert_ptr_nonnull(strstr(text, "\n\n* interrupted: incomplete: "
				     "interrupted\n* disk-full: incomplete: "
				     "disk full (12 operations)\n* io-errors: "
				     "incomplete: I/O errors (3 operations)\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nLeft out of the verdict: 3 "
				     "incomplete runs (marked * below).\n"));
	ck_assert_ptr_nonnull(strstr(text, "No verdict: a configuration has "
				     "no complete run.\n"));
	ck_assert_ptr_null(strstr(text, "none*"));
	ck_assert_int_eq(run_compare(paths, 4, &out, &err), 0);
	ck_assert_str_eq(out, text);
	free(out);
	free(err);
	free(text);

	doc = json_of(paths, 4);
	for (size_t j = 0; j < 4; j++) {
		got = incomplete_of(doc, j);
		ck_assert_str_eq(got, why[j]);
		free(got);
	}
	runs = json_object_get(json_object_get(doc, "verdict"), "runs");
	ck_assert_int_eq(jv_int(json_object_get(runs, "none"), &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(jv_int(json_object_get(runs, "disk-full"), &n), 0);
	ck_assert_int_eq(n, 0);
	json_decref(doc);

	/* Reasons together, a count of 1, "disk_full" without a count. */
	{
		char *dir = tu_scratch();
		char *src = tu_read(paths[0], NULL), *mod, *at;

		ck_assert_ptr_nonnull(src);
		at = strstr(src, "\"test\"");
		ck_assert_ptr_nonnull(at);
		ck_assert(asprintf(&mod, "%.*s\"interrupted\": true, "
				   "\"disk_full\": true, \"io_error_ops\": 1, "
				   "%s", (int)(at - src), src, at) > 0);
		paths[4] = tu_write_str(dir, "all.json", mod);
		text = table_of(paths + 4, 1);
		ck_assert_ptr_nonnull(strstr(text, "\n* all: incomplete: "
					     "interrupted, disk full, I/O errors "
					     "(1 operation)\n"));
		ck_assert_ptr_nonnull(strstr(text, "\nLeft out of the verdict: "
					     "1 incomplete run (marked * "
					     "below).\n"));
		free(text);
		doc = json_of(paths + 4, 1);
		got = incomplete_of(doc, 0);
		ck_assert_str_eq(got, "interrupted|disk full|I/O errors "
				 "(1 operation)");
		free(got);
		json_decref(doc);
		free(mod);
		free(src);
		free(dir);
	}
	for (int i = 0; i < 5; i++)
		free(paths[i]);
}
END_TEST

/* Columns are named after the files: the base name without ".json". */
START_TEST(test_labels)
{
	char *dir = tu_scratch(), *sub = tu_join(dir, "sub.json");
	char *paths[4], *text, *line;

	ck_assert_int_eq(mkdir(sub, 0755), 0);
	paths[0] = write_run(sub, "run.v2.json", "first", 1);
	paths[1] = write_run(dir, "noext", "second", 2);
	paths[2] = write_run(dir, ".json", "third", 3);
	paths[3] = write_run(dir, "tab\there.json", "fourth\\tname", 4);
	text = table_of(paths, 4);
	line = line_of(text, " ");
	ck_assert_str_eq(line, "                 better    run.v2     noext     "
			 ".json     tab?here");
	free(line);
	line = line_of(text, "Test");
	ck_assert_str_eq(line, "Test                        first    second     "
			 "third  fourth?name");
	free(line);
	free(text);
	for (int i = 0; i < 4; i++)
		free(paths[i]);
	free(sub);
	free(dir);
}
END_TEST

/* A C1 control in UTF-8 or as a lone byte and a right-to-left override
 * in a label or a test name are shown as '?', byte by byte: they cannot
 * drive the terminal or reorder the table. */
START_TEST(test_label_controls)
{
	char *dir = tu_scratch(), *paths[2], *text, *line;

	paths[0] = write_run(dir, "csi\xc2\x9b" "2J.json", "rlo\\u202eexe", 1);
	paths[1] = write_run(dir, "c1\x9b.json", "ok", 2);
	text = table_of(paths, 2);
	line = line_of(text, " ");
	ck_assert_str_eq(line, "                 better    csi??2J       c1?");
	free(line);
	line = line_of(text, "Test");
	ck_assert_str_eq(line, "Test                     rlo???exe        ok");
	free(line);
	free(text);
	for (int i = 0; i < 2; i++)
		free(paths[i]);
	free(dir);
}
END_TEST

/* Nine runs, the fastest last: every column, no mark (one run each: the
 * noise is unknown). */
START_TEST(test_many_runs)
{
	char *dir = tu_scratch(), *paths[9], name[16], *text, *line, *out, *err;

	for (int i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "run%d.json", i + 1);
		paths[i] = write_run(dir, name, "t", 9000000000LL - i * 1000000);
	}
	text = table_of(paths, 9);
	line = line_of(text, " ");
	ck_assert_str_eq(line, "                 better      run1      run2"
			 "      run3      run4      run5      run6"
			 "      run7      run8      run9");
	free(line);
	line = line_of(text, "Total time (s)   lower");
	ck_assert_ptr_nonnull(strstr(line, "8.992000"));
	ck_assert_ptr_null(strchr(line, '*'));
	ck_assert_ptr_nonnull(strstr(text, "No verdict: 1 run of a "
				     "configuration: noise unknown.\n"));
	free(line);
	ck_assert_int_eq(run_compare(paths, 9, &out, &err), 0);
	ck_assert_str_eq(out, text);
	free(out);
	free(err);
	free(text);
	for (int i = 0; i < 9; i++)
		free(paths[i]);
	free(dir);
}
END_TEST

/* Parts of a valid stats file, one member per line, to be varied. */
#define HEAD "{\n  \"test\": \"t\",\n  \"highest_loadavg\": 0.5,\n" \
	"  \"performed_ioops\": 10,\n  \"average_ioops_per_s\": 100.0,\n" \
	"  \"time_ahead_ns\": 0,\n"				/* lines 1-6 */
#define TOTAL "  \"total_time_ns\": 1000,\n"			/* line 7 */
#define LATE "  \"start_lateness_ns\": null,\n"			/* line 8 */
#define SYS(entry) "  \"syscalls\": {\n    " entry "\n  },\n"	/* 9-11 */
#define READ "\"read\": {\"latency_ns\": {\"p50\": 1, \"p95\": 1, " \
	"\"p99\": 1, \"p99.9\": 1, \"max\": 1}}"
#define DEVS(entry) "  \"block_devices\": [\n    " entry "\n  ]\n}\n"	/* 12-15 */
#define SDA "{\"device\": \"sda\", \"r_per_s\": 1, \"w_per_s\": 1, " \
	"\"r_mb_per_s\": 1, \"w_mb_per_s\": 1, \"r_await_ms\": 1, " \
	"\"w_await_ms\": 1"
#define VALID HEAD TOTAL LATE SYS(READ) DEVS(SDA ", \"util_pct\": 1}")

/* Files that are refused: the code, and the message after the path. */
static const struct {
	const char *name;
	const char *text;	/* NULL: no such file */
	int code;
	const char *msg;
} refused[] = {
	{ "empty.json", "", -EINVAL,
	  ":1:1: '[' or '{' expected near end of file" },
	{ "comma.json", "{\n  \"test\": \"t\",\n}\n", -EINVAL,
	  ":3:1: string or '}' expected near '}'" },
	{ "text.txt", "Stats of test 't':\n", -EINVAL,
	  ":1:5: '[' or '{' expected near 'Stats'" },
	{ "dup.json", "{\n  \"test\": \"t\",\n  \"test\": \"u\"}", -EINVAL,
	  ":3:8: duplicate object key near '\"test\"'" },
	{ "array.json", "[]\n", -EINVAL,
	  ": expected an object of replay statistics" },
	{ "nototal.json", HEAD LATE SYS(READ) DEVS(SDA ", \"util_pct\": 1}"),
	  -EINVAL, ": /total_time_ns: missing" },
	{ "string.json", HEAD "  \"total_time_ns\": \"1000\",\n" LATE SYS(READ)
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /total_time_ns: expected an integer" },
	{ "double.json", HEAD "  \"total_time_ns\": 1e3,\n" LATE SYS(READ)
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /total_time_ns: expected an integer" },
	{ "late.json", HEAD TOTAL "  \"start_lateness_ns\": 5,\n" SYS(READ)
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /start_lateness_ns: expected an object or null" },
	{ "late99.json", HEAD TOTAL "  \"start_lateness_ns\": {\"p50\": 1, "
	  "\"max\": 2},\n" SYS(READ) DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /start_lateness_ns/p99: missing" },
	{ "sysarray.json", HEAD TOTAL LATE "  \"syscalls\": [],\n"
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /syscalls: expected an object" },
	{ "read.json", HEAD TOTAL LATE SYS("\"read\": 5")
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /syscalls/read: expected an object" },
	{ "pointer.json", HEAD TOTAL LATE SYS("\"a/b~c\\n\": {}")
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /syscalls/a~1b~0c?/latency_ns: missing" },
	{ "p999.json", HEAD TOTAL LATE SYS("\"read\": {\"latency_ns\": "
	  "{\"p50\": 1, \"p95\": 1, \"p99\": 1, \"max\": 1}}")
	  DEVS(SDA ", \"util_pct\": 1}"), -EINVAL,
	  ": /syscalls/read/latency_ns/p99.9: missing" },
	/* "short" may be absent (older files), but not of another type. */
	{ "short.json", HEAD TOTAL LATE SYS("\"read\": {\"short\": 1.5, "
	  "\"latency_ns\": {\"p50\": 1, \"p95\": 1, \"p99\": 1, "
	  "\"p99.9\": 1, \"max\": 1}}") DEVS(SDA ", \"util_pct\": 1}"),
	  -EINVAL, ": /syscalls/read/short: expected an integer" },
	{ "util.json", HEAD TOTAL LATE SYS(READ) DEVS(SDA "}"), -EINVAL,
	  ": /block_devices/0/util_pct: missing" },
	{ "devnum.json", HEAD TOTAL LATE SYS(READ)
	  DEVS(SDA ", \"util_pct\": 1}, 7"), -EINVAL,
	  ": /block_devices/1: expected an object" },
	{ "devname.json", HEAD TOTAL LATE SYS(READ)
	  DEVS("{\"device\": 8}"), -EINVAL,
	  ": /block_devices/0/device: expected a string" },
	{ "missing.json", NULL, -ENOENT, ": No such file or directory" },
};

START_TEST(test_refused)
{
	char *dir = tu_scratch(), *path, *expected, *good, err[512];
	char *paths[3], *out, *cerr;
	struct compare *c = compare_new();

	path = refused[_i].text ?
	       tu_write_str(dir, refused[_i].name, refused[_i].text) :
	       tu_join(dir, refused[_i].name);
	ck_assert(asprintf(&expected, "%s%s", path, refused[_i].msg) > 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(compare_add(c, path, err, sizeof(err)),
			 refused[_i].code);
	ck_assert_str_eq(err, expected);
	compare_free(c);

	/* On the command line: every bad file is named, no table, exit 1. */
	good = tu_write_str(dir, "good.json", VALID);
	paths[0] = good;
	paths[1] = path;
	paths[2] = path;
	ck_assert_int_eq(run_compare(paths, 3, &out, &cerr), 1);
	ck_assert_str_eq(out, "");
	free(expected);
	ck_assert(asprintf(&expected, "ioriot: %s%s\n"
			   "ioriot: %s%s\n", path, refused[_i].msg,
			   path, refused[_i].msg) > 0);
	ck_assert_str_eq(cerr, expected);
	free(out);
	free(cerr);
	free(expected);
	free(good);
	free(path);
	free(dir);
}
END_TEST

/* The parts of VALID pass, a directory does not, nor too many entries. */
START_TEST(test_limits)
{
	char *dir = tu_scratch(), *valid = tu_write_str(dir, "v.json", VALID);
	char *text, *big, err[512], *expected;
	struct compare *c = compare_new();
	size_t cap = 64 + (COMPARE_MAX_ITEMS + 1) * 128, n;

	ck_assert_ptr_nonnull(c);
	ck_assert_msg(compare_add(c, valid, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(compare_add(c, dir, err, sizeof(err)), -EISDIR);
	ck_assert(asprintf(&expected, "%s: Is a directory", dir) > 0);
	ck_assert_str_eq(err, expected);
	free(expected);

	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	n = (size_t)snprintf(text, cap, "%s", HEAD TOTAL LATE "  \"syscalls\": {");
	for (int i = 0; i <= COMPARE_MAX_ITEMS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s\"s%d\": {\"latency_ns\": "
				      "{\"p50\": 1, \"p95\": 1, \"p99\": 1, "
				      "\"p99.9\": 1, \"max\": 1}}", i ? ", " : "", i);
	snprintf(text + n, cap - n, "},\n" DEVS(SDA ", \"util_pct\": 1}"));
	big = tu_write_str(dir, "big.json", text);
	ck_assert_int_eq(compare_add(c, big, err, sizeof(err)), -E2BIG);
	ck_assert(asprintf(&expected, "%s: /syscalls: more than 4096 entries",
			   big) > 0);
	ck_assert_str_eq(err, expected);
	free(expected);
	compare_free(c);
	compare_free(NULL);
	free(big);
	free(text);
	free(valid);
	free(dir);
}
END_TEST

/* --compare is a mode of its own, needs files, and --help explains it. */
START_TEST(test_cli)
{
	char *argv[6] = { "ioriot", "--compare", NULL };
	char *out, *err, *file = data("idle.json");

	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "ioriot: --compare needs stats files"), "%s", err);
	free(out);
	free(err);

	argv[2] = "-r";
	argv[3] = "x.replay";
	argv[4] = file;
	ck_assert_int_eq(tu_run(argv, &out, &err), 2);
	ck_assert_msg(strstr(err, "cannot be combined"), "%s", err);
	free(out);
	free(err);

	/* Options may come before the files. */
	argv[2] = "-q";
	argv[3] = file;
	argv[4] = NULL;
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	ck_assert_msg(!strncmp(out, "Configurations: 1 ", 18) &&
		      strstr(out, "\nReplay runs: 1, "), "%s", out);
	free(out);
	free(err);

	argv[1] = "--help";
	argv[2] = NULL;
	ck_assert_int_eq(tu_run(argv, &out, &err), 0);
	ck_assert_msg(strstr(out, "--compare FILE...") &&
		      strstr(out, "Welch's t-test"), "%s", out);
	free(out);
	free(err);
	free(file);
}
END_TEST

/* Run docs/examples/scheduler-loop.sh with @args (NULL-terminated) by sh,
 * its stdout and stderr in *@log (malloc'd, "" if unreadable); the exit
 * status. */
static int run_script(const char *dir, const char *const *args, char **log)
{
	const char *argv[16] = { "sh", "-c",
		"log=$1; shift; exec sh \"$@\" > \"$log\" 2>&1", "sh" };
	char *path = tu_join(dir, "script.log"), *script;
	int n = 4, rc;

	ck_assert(asprintf(&script, "%s/../../docs/examples/scheduler-loop.sh",
			   tu_datadir()) > 0);
	argv[n++] = path;
	argv[n++] = script;
	for (; *args; args++) {
		ck_assert_int_lt(n, 15);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	setenv("IORIOT_BIN", tu_bin(), 1);	/* this test's own process */
	rc = tu_exec(argv, false);
	*log = tu_read(path, NULL);
	if (!*log)
		*log = strdup("");
	free(script);
	free(path);
	return rc;
}

/* A replay file for test "t" in @dir whose sandbox is @mnt/.ioriot/t:
 * a file is created, written, synced and closed. */
static char *loop_replay(const char *dir, const char *mnt)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=nobody|\n"
		"#|sandbox=%1$s/.ioriot/t|\n#INIT\nd %1$s/.ioriot/t/d\n"
		"x %1$s/.ioriot/t/d/f\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/.ioriot/t/d/f "
		"flags=0x41 mode=0644\n"
		"2 7:7 2000 1000 - write 65536 fd=1 count=65536\n"
		"3 7:7 4000 1000 - fsync 0 fd=1\n"
		"4 7:7 6000 1000 - close 0 fd=1\n"
		"#END|ops=4|\n", mnt) > 0);
	path = tu_write_str(dir, "t.replay", text);
	free(text);
	return path;
}

/* Write @sched to the scheduler file @path; 0 or -errno. */
static int set_scheduler(const char *path, const char *sched)
{
	FILE *f = fopen(path, "we");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(sched, f) == EOF)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* The [selected] word of the scheduler file @path, malloc'd, or NULL. */
static char *scheduler_of(const char *path)
{
	char *text = tu_read(path, NULL), *open, *sel = NULL;

	if (text && (open = strchr(text, '[')) && strchr(open, ']'))
		sel = strndup(open + 1, (size_t)(strchr(open, ']') - open - 1));
	free(text);
	return sel;
}

static const char *const schedulers[] = { "none", "mq-deadline", "kyber",
					  "bfq" };

/* Whether scheduler file @path offers every one of schedulers[] (the
 * script sets each; kernels differ in what they build, this machine's
 * has no bfq), else says which it lacks. */
static bool offers_all(const char *path)
{
	char *text = tu_read(path, NULL);
	bool all = text != NULL;

	for (int i = 0; all && i < 4; i++) {
		size_t len = strlen(schedulers[i]);
		const char *p = text;

		while ((p = strstr(p, schedulers[i])) &&
		       ((p > text && !strchr(" [", p[-1])) ||
			!strchr(" ]\n", p[len])))
			p += len;
		if (!p) {
			printf("test_scheduler_loop skipped: %s offers no %s\n",
			       path, schedulers[i]);
			all = false;
		}
	}
	free(text);
	return all;
}

/*
 * The loop of the article on a loop-mounted ext4 image: one run per
 * scheduler, a JSON file each, the table with a column each, and the
 * device's scheduler restored.  Everything is looked at first and the
 * image unmounted before any assertion can end the test.
 */
START_TEST(test_scheduler_loop)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "mnt");
	char *out = tu_join(dir, "runs"), *replay = loop_replay(dir, mnt);
	char *qpath = NULL, *before = NULL, *after = NULL, *log = NULL;
	char *after_fail = NULL, *fail_log = NULL;
	const char *args[] = { replay, out, "-D", "-q", NULL };
	const char *bad[] = { replay, out, "-D", "-s", "x", NULL };
	bool json[4] = { false };
	struct stat st;
	int rc = -1, fail_rc = -1, set = -1;

	if (geteuid() != 0) {
		printf("test_scheduler_loop skipped: needs root\n");
		goto out;
	}
	ck_assert_msg(tu_mount_image(mnt, "mkfs.ext4", "-F", 32),
		      "cannot mount an ext4 image");
	if (stat(mnt, &st) == 0 &&
	    asprintf(&qpath, "/sys/dev/block/%u:%u/queue/scheduler",
		     major(st.st_dev), minor(st.st_dev)) > 0) {
		if (!offers_all(qpath)) {
			if (umount2(mnt, 0) < 0)
				umount2(mnt, MNT_DETACH);
			goto out;
		}
		before = scheduler_of(qpath);
		/* Not the default, and not the last one the loop sets. */
		set = set_scheduler(qpath, "mq-deadline");
	}
	/* ioriot fails in the first run: the scheduler is restored too. */
	if (set == 0) {
		fail_rc = run_script(dir, bad, &fail_log);
		after_fail = scheduler_of(qpath);
		rc = run_script(dir, args, &log);
	}
	for (int i = 0; i < 4; i++) {
		char *path;

		ck_assert(asprintf(&path, "%s/%s.json", out, schedulers[i]) > 0);
		json[i] = access(path, R_OK) == 0;
		free(path);
	}
	if (qpath) {
		after = scheduler_of(qpath);
		if (before)
			set_scheduler(qpath, before);
	}
	if (umount2(mnt, 0) < 0)
		umount2(mnt, MNT_DETACH);

	ck_assert_msg(set == 0, "cannot set a scheduler in %s", qpath);
	ck_assert_msg(fail_rc == 2 && strstr(fail_log, "scheduler none on "),
		      "exit %d:\n%s", fail_rc, fail_log);
	ck_assert_msg(after_fail && !strcmp(after_fail, "mq-deadline"),
		      "scheduler %s after a failed run", after_fail);
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, log);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(json[i], "no %s.json:\n%s", schedulers[i], log);
	ck_assert_msg(after && !strcmp(after, "mq-deadline"),
		      "scheduler %s after the loop", after);
	/* The table has a column per scheduler, in the order they ran. */
	char *header = line_of(log, "      "), *word, *save;
	ck_assert_str_eq(strtok_r(header, " ", &save), "better");
	for (int i = 0; i < 4; i++) {
		word = strtok_r(NULL, " ", &save);
		ck_assert_msg(word && !strcmp(word, schedulers[i]),
			      "column %d: %s\n%s", i, word, log);
	}
	ck_assert_ptr_nonnull(strstr(log, "\nTest "));
	ck_assert_ptr_nonnull(strstr(log, "\nfsync p50 "));
	free(header);
out:
	free(after_fail);
	free(fail_log);
	free(after);
	free(before);
	free(qpath);
	free(log);
	free(replay);
	free(out);
	free(mnt);
	free(dir);
}
END_TEST

/* Without arguments: the usage, exit 2.  A sandbox on a tmpfs: no block
 * device, exit 1, nothing run. */
START_TEST(test_scheduler_errors)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "mnt");
	char *out = tu_join(dir, "runs"), *replay = loop_replay(dir, mnt);
	const char *none[] = { NULL };
	const char *args[] = { replay, out, "-D", "-q", NULL };
	char *log;
	int rc;

	rc = run_script(dir, none, &log);
	ck_assert_int_eq(rc, 2);
	ck_assert_msg(strstr(log, "usage: scheduler-loop.sh REPLAY DIR"), "%s",
		      log);
	free(log);
	if (geteuid() != 0) {
		printf("test_scheduler_errors: tmpfs case skipped, needs root\n");
		goto out;
	}
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=1m"), 0);
	rc = run_script(dir, args, &log);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_msg(rc == 1, "exit %d: %s", rc, log);
	ck_assert_msg(strstr(log, "not on a block device"), "%s", log);
	ck_assert_int_ne(access(out, F_OK), 0);
	free(log);
out:
	free(replay);
	free(out);
	free(mnt);
	free(dir);
}
END_TEST

Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("table");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, test_golden, 0,
			    sizeof(golden) / sizeof(golden[0]));
	tcase_add_loop_test(tc, test_verdict, 0,
			    sizeof(verdicts) / sizeof(verdicts[0]));
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_label_controls);
	tcase_add_test(tc, test_json_output);
	tcase_add_test(tc, test_json_mixed_pacing);
	tcase_add_test(tc, test_incomplete);
	tcase_add_test(tc, test_many_runs);
	tcase_add_loop_test(tc, test_refused, 0,
			    sizeof(refused) / sizeof(refused[0]));
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_cli);
	suite_add_tcase(s, tc);

	tc = tcase_create("scheduler");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_scheduler_loop);
	tcase_add_test(tc, test_scheduler_errors);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
