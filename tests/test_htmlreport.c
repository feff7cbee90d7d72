/*
 * Tests of htmlreport.h and `ioriot --report`: the page built from the
 * fixtures of tests/data/report (two replay runs of the demo, stats and
 * time series, and analyses written to /work's analysis schema), its
 * structure checked in C; strings from the inputs escaped; inputs
 * recognised and refused; and the page opened in headless Chromium, in a
 * network namespace of its own, which must render every chart, log no
 * console message from the page and make no request for it, and renders
 * it at a phone's width and to a PDF.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/htmlreport.h"
#include "ioriot/json.h"
#include "testutil.h"

#define XSS "<script>alert(1)</script>"
#define XSS_ESCAPED "&lt;script&gt;alert(1)&lt;/script&gt;"

/* "@datadir/report/@name", malloc'd. */
static char *data(const char *name)
{
	char *path;

	ck_assert(asprintf(&path, "%s/report/%s", tu_datadir(), name) > 0);
	return path;
}

/* The page of @r, which is freed. */
static char *written(struct htmlreport *r)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(htmlreport_write(f, r), 0);
	ck_assert_int_eq(fclose(f), 0);
	htmlreport_free(r);
	return text;
}

/* The page of the fixtures @names, built through the library. */
static char *page_of(const char *const *names, size_t n)
{
	struct htmlreport *r = htmlreport_new();
	char err[512];

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < n; i++) {
		char *path = data(names[i]);
		int kind = htmlreport_kind(path, err, sizeof(err));

		ck_assert_msg(kind >= 0, "%s", err);
		ck_assert_msg(htmlreport_add_file(r, path, kind, err,
						  sizeof(err)) == 0, "%s", err);
		free(path);
	}
	return written(r);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const char *const all_inputs[] = {
	"mail.json", "folded.json", "fast.json", "fast.csv", "timed.json",
	"timed.csv",
};

/* Every chart of @html has values: data-points > 0 and marks of its kind
 * before its end.  Returns the number of charts. */
static size_t check_charts(const char *html)
{
	size_t n = 0;

	for (const char *p = html; (p = strstr(p, "<svg class=\"chart"));
	     p++, n++) {
		const char *end = strstr(p, "</svg>");
		const char *pts = strstr(p, "data-points=\"");
		char *body;

		ck_assert_ptr_nonnull(end);
		ck_assert_ptr_nonnull(pts);
		ck_assert_int_gt(atoi(pts + 13), 0);
		body = strndup(p, (size_t)(end - p));
		ck_assert_msg(strstr(body, "<path class=\"series\"") ||
			      strstr(body, "<rect class=\"bar\"") ||
			      strstr(body, "<rect class=\"frame\""),
			      "chart %zu draws nothing", n);
		if (strstr(body, "class=\"series\""))
			ck_assert_ptr_nonnull(strstr(body, " d=\"M"));
		free(body);
	}
	return n;
}

/* Text the page of all fixtures has. */
static const char *const present[] = {
	"<meta name=\"viewport\"", "default-src 'none'", "@media print",
	"@media (max-width:600px)", "</html>\n",
	/* A run at -s 0 and one at -s 1: no verdict, no marks. */
	"No verdict: the runs were paced differently",
	"<td>Total time (s)</td><td>lower</td><td>0.137450</td>"
	"<td>3.019168</td>",
	"<td>Time ahead (s)</td><td>higher</td><td>0.000000</td>"
	"<td>0.000663</td>",
	"<td>Performed ioops</td><td></td><td>8967</td><td>8967</td>",
	/* Captured beside replayed: one captured row per syscall (both runs
	 * replayed one file). */
	">openat captured</text>", ">openat fast</text>", ">openat timed</text>",
	"<g><title>openat fast: p50 4.10 µs, p99 262 µs, p99.9 6.80 ms, max "
	"6.80 ms</title>",
	/* The flame graphs: from folded rows, and from the top files. */
	"<title>4242 deliver — 3.12k", "<title>deliveries.log — 4.20k",
	/* What was not replayed. */
	"ioctl 619, flock 2", "unknown fd 12",
};

/* Text it must not have: nothing from elsewhere, no script. */
static const char *const absent[] = {
	"http:", "https:", "url(", "<script", "@import", "captured for",
	/* Both runs are whole. */
	"class=\"left-out\"", "title=\"incomplete",
};

START_TEST(test_structure)
{
	char *html = page_of(all_inputs, 6);

	ck_assert(!strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 31));
	for (size_t i = 0; i < sizeof(present) / sizeof(*present); i++)
		ck_assert_msg(strstr(html, present[i]), "no %s", present[i]);
	for (size_t i = 0; i < sizeof(absent) / sizeof(*absent); i++)
		ck_assert_msg(!strcasestr(html, absent[i]), "%s", absent[i]);
	/* Replay: 3 overlaid series charts and the latency ranges; per
	 * analysis: mix, 2 size histograms, class latency, 2 time series,
	 * the flame graph. */
	ck_assert_uint_eq(check_charts(html), 4 + 2 * 7);
	ck_assert_uint_eq(count(html, "data-kind=\"icicle\""), 2);
	ck_assert_uint_eq(count(html, "data-kind=\"lines\""), 3 + 2 * 2);
	/* Both runs in every overlaid chart: 3 series each. */
	ck_assert_uint_eq(count(html, "<title>fast</title>"), 3);
	ck_assert_uint_eq(count(html, "<title>timed</title>"), 3);
	free(html);
}
END_TEST

START_TEST(test_escape)
{
	char *dir = tu_mkdtemp(), *stats, *text, *out, *html;
	char *argv[] = { "ioriot", "-q", "--report", NULL, NULL, NULL, NULL };
	char *src = data("fast.json");

	/* A stats file named and filled with markup. */
	text = tu_read(src, NULL);
	ck_assert_ptr_nonnull(text);
	{
		char *t = strstr(text, "\"demo\"");
		char *s = strstr(text, "\"openat\"");
		char *mod;

		ck_assert_ptr_nonnull(t);
		ck_assert_ptr_nonnull(s);
		ck_assert(asprintf(&mod, "%.*s\"%s\"%.*s\"<img src=x onerror="
				   "alert(2)>\"%s", (int)(t - text), text, XSS,
				   (int)(s - t - 6), t + 6, s + 8) > 0);
		stats = tu_write_str(dir, "a<b>&\"'\xe2\x80\xae\xc2\x9b.json",
				     mod);
		free(mod);
	}
	out = tu_join(dir, "page.html");
	argv[3] = out;
	argv[4] = stats;
	argv[5] = data("mail.json");
	ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	html = tu_read(out, NULL);
	ck_assert_ptr_nonnull(html);
	ck_assert_ptr_null(strcasestr(html, "<script"));
	ck_assert_ptr_null(strcasestr(html, "<img"));
	ck_assert_ptr_null(strstr(html, "<b>&"));
	/* The test name, the syscall, the label and the capture's paths. */
	ck_assert_ptr_nonnull(strstr(html, "<th>" XSS_ESCAPED "</th>"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;img src=x onerror=alert(2)&gt;"));
	/* ... a right-to-left override and a C1 CSI in it as '?' */
	ck_assert_ptr_nonnull(strstr(html, "a&lt;b&gt;&amp;&quot;&#39;?????" "<"));
	ck_assert_ptr_nonnull(strstr(html, "/srv/mail/" XSS_ESCAPED));
	ck_assert_ptr_nonnull(strstr(html, "/home/u/" XSS_ESCAPED ".capture"));
	free(html);
	free(argv[5]);
	free(out);
	free(stats);
	free(text);
	free(src);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Runs that ended badly (tests/data/compare: a full test mount, a signal)
 * are marked next to their names with why, and listed as left out of the
 * verdict; a name of markup is escaped there too.
 */
START_TEST(test_incomplete)
{
	char *dir = tu_mkdtemp(), *paths[3], *text, *html;
	struct htmlreport *r = htmlreport_new();
	char err[512];

	ck_assert_ptr_nonnull(r);
	ck_assert(asprintf(&paths[0], "%s/compare/none.json",
			   tu_datadir()) > 0);
	ck_assert(asprintf(&paths[1], "%s/compare/disk-full.json",
			   tu_datadir()) > 0);
	text = tu_read(paths[1], NULL);
	ck_assert_ptr_nonnull(text);
	free(paths[1]);
	paths[1] = tu_write_str(dir, "<i>full.json", text);
	free(text);
	ck_assert(asprintf(&paths[2], "%s/compare/interrupted.json",
			   tu_datadir()) > 0);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(htmlreport_add_file(r, paths[i], HTMLREPORT_STATS,
						  err, sizeof(err)) == 0,
			      "%s", err);
	html = written(r);
	ck_assert_ptr_nonnull(strstr(html, "&lt;i&gt;full <span class=\""
				     "incomplete\" title=\"incomplete: disk "
				     "full (12 operations)\">incomplete</span>"
				     "</th>"));
	ck_assert_ptr_nonnull(strstr(html, "interrupted <span class=\""
				     "incomplete\" title=\"incomplete: "
				     "interrupted\">incomplete</span></th>"));
	ck_assert_ptr_nonnull(strstr(html, "<div class=\"left-out\"><p>Left "
				     "out of the verdict: 2 incomplete runs"));
	ck_assert_ptr_nonnull(strstr(html, "<li><b>&lt;i&gt;full</b>: "
				     "incomplete: disk full (12 operations)"
				     "</li>\n<li><b>interrupted</b>: "
				     "incomplete: interrupted</li>\n"));
	ck_assert_ptr_null(strstr(html, "<i>full"));
	ck_assert_ptr_null(strstr(html, "none <span"));
	free(html);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * The latency chart shows the sync calls whatever their share of the
 * operations (fsync, 1 op, after 14 busier syscalls), and a chart per
 * class of operations from "classes".
 */
START_TEST(test_sync_latency_shown)
{
	static const char *const busy[] = {
		"write", "read", "openat", "close", "newfstatat", "statx",
		"getdents64", "mkdir", "unlinkat", "renameat2", "fadvise64",
		"lseek", "pread64", "pwrite64",
	};
	char *dir = tu_mkdtemp(), *stats, *out, *html, *text = NULL;
	char *argv[] = { "ioriot", "-q", "--report", NULL, NULL, NULL };
	size_t len;
	FILE *f = open_memstream(&text, &len);
	const char *lat = "\"latency_ns\": {\"p50\": 1000, \"p95\": 2000, "
			  "\"p99\": 3000, \"p99.9\": 4000, \"max\": 5000}";

	ck_assert_ptr_nonnull(f);
	fprintf(f, "{\"test\": \"t\", \"highest_loadavg\": 0.5, "
		"\"performed_ioops\": 1500, \"average_ioops_per_s\": 100.0, "
		"\"time_ahead_ns\": 0, \"total_time_ns\": 15000000000, "
		"\"start_lateness_ns\": null, \"block_devices\": [], "
		"\"classes\": {\"sync\": {\"ops\": 1, %s}}, \"syscalls\": {"
		"\"fsync\": {\"ops\": 1, %s}", lat, lat);
	for (size_t i = 0; i < sizeof(busy) / sizeof(*busy); i++)
		fprintf(f, ", \"%s\": {\"ops\": %zu, %s}", busy[i], 100 + i,
			lat);
	fprintf(f, "}}\n");
	ck_assert_int_eq(fclose(f), 0);
	stats = tu_write_str(dir, "r.json", text);
	out = tu_join(dir, "page.html");
	argv[3] = out;
	argv[4] = stats;
	ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	html = tu_read(out, NULL);
	ck_assert_ptr_nonnull(html);
	ck_assert_msg(strstr(html, ">fsync r</text>"), "no fsync row");
	ck_assert_ptr_nonnull(strstr(html, "The sync calls (1), then the 12 "
				     "syscalls with the most operations"));
	ck_assert_ptr_nonnull(strstr(html, ">sync r</text>"));
	/* The 13th busiest is not shown. */
	ck_assert_ptr_null(strstr(html, ">write r</text>"));
	free(html);
	free(out);
	free(stats);
	free(text);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_kinds)
{
	static const struct {
		const char *path;	/* below tests/data */
		int kind;
	} cases[] = {
		{ "report/fast.json", HTMLREPORT_STATS },
		{ "report/fast.csv", HTMLREPORT_SERIES },
		{ "report/mail.json", HTMLREPORT_ANALYSIS },
		{ "generate/dirfds.replay", HTMLREPORT_REPLAY },
		{ "generate/dirfds.capture", HTMLREPORT_CAPTURE },
		{ "compare/four.txt", -EINVAL },
		{ "report/missing.json", -ENOENT },
	};
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path;

		ck_assert(asprintf(&path, "%s/%s", tu_datadir(),
				   cases[i].path) > 0);
		ck_assert_msg(htmlreport_kind(path, err, sizeof(err)) ==
			      cases[i].kind, "%s", path);
		if (cases[i].kind < 0)
			ck_assert_ptr_nonnull(strstr(err, path));
		free(path);
	}
}
END_TEST

/* The seam for an analysis made in-process: its JSON text, and texts
 * that are refused with their label. */
START_TEST(test_analysis_text)
{
	static const struct {
		const char *label, *json, *msg;
	} refused[] = {
		{ "bad", "{\"format\": 1}", "bad: not an ioriot analysis "
		  "(\"format\" is not \"ioriot-analysis\")" },
		{ "v2", "{\"format\": \"ioriot-analysis\", \"format_version\": 2}",
		  "v2: analysis format_version 2; this ioriot reads 1" },
		{ "cut", "{\"format\": \"ioriot-analysis\", ",
		  "cut:1:30: string or '}' expected near end of file" },
	};
	struct htmlreport *r = htmlreport_new();
	char *path = data("mail.json"), *text = tu_read(path, NULL), err[512];
	char *html;

	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(htmlreport_add_analysis(r, "io", text, strlen(text),
						 err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ck_assert_int_eq(htmlreport_add_analysis(r, refused[i].label,
			refused[i].json, strlen(refused[i].json), err,
			sizeof(err)), -EINVAL);
		ck_assert_msg(!strncmp(err, refused[i].msg,
				       strlen(refused[i].msg)), "%s", err);
	}
	html = written(r);
	ck_assert_ptr_nonnull(strstr(html, "<h2>Capture io</h2>"));
	ck_assert_uint_eq(check_charts(html), 7);
	ck_assert_ptr_null(strstr(html, "id=\"replay\""));
	free(html);
	free(text);
	free(path);
}
END_TEST

/* Names from a capture with control characters (tests/data/analyze/
 * controls.capture): an ESC, a C1 CSI and a right-to-left override, which
 * would reorder the name around it, are shown as '?', byte by byte. */
START_TEST(test_control_names)
{
	char *dir = tu_mkdtemp(), *page = tu_join(dir, "r.html"), *cap, *html;
	char *argv[] = { "ioriot", "-q", "--report", page, NULL, NULL };

	ck_assert(asprintf(&cap, "%s/analyze/controls.capture",
			   tu_datadir()) > 0);
	argv[4] = cap;
	ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	html = tu_read(page, NULL);
	ck_assert_ptr_nonnull(html);
	ck_assert_ptr_nonnull(strstr(html, "/data/rlo???txt.exe"));
	ck_assert_ptr_nonnull(strstr(html, "/data/csi??2J"));
	ck_assert_ptr_nonnull(strstr(html, "/data/a?[2Jb"));
	ck_assert_ptr_nonnull(strstr(html, "/data/caf\xc3\xa9"));
	ck_assert_ptr_null(strstr(html, "\xe2\x80\xae"));
	ck_assert_ptr_null(strstr(html, "\xc2\x9b"));
	ck_assert_ptr_null(strchr(html, '\x1b'));
	free(html);
	free(cap);
	free(page);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A file that fails leaves no empty run behind. */
START_TEST(test_failed_input)
{
	struct htmlreport *r = htmlreport_new();
	char *dir = tu_mkdtemp(), *fast = data("fast.json"), err[512];
	char *bad = tu_write_str(dir, "bad.csv", "time_s,ops_per_s\n1,2\n");
	char *html;

	ck_assert_int_eq(htmlreport_add_file(r, bad, HTMLREPORT_SERIES, err,
					     sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "bad.csv:1: not an ioriot time "
				     "series"));
	ck_assert_int_eq(htmlreport_add_file(r, fast, HTMLREPORT_STATS, err,
					     sizeof(err)), 0);
	html = written(r);
	ck_assert_ptr_null(strstr(html, "<b>bad</b>"));
	ck_assert_ptr_nonnull(strstr(html, "<li>replay run <b>fast</b>: "
				     "statistics</li>"));
	free(html);
	free(bad);
	free(fast);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A minimal analysis: every section says "no data" rather than draw an
 * empty chart. */
START_TEST(test_analysis_empty)
{
	static const char doc[] = "{\"format\": \"ioriot-analysis\", "
				  "\"format_version\": 1}";
	struct htmlreport *r = htmlreport_new();
	char err[256], *html;

	ck_assert_int_eq(htmlreport_add_analysis(r, "none", doc, strlen(doc),
						 err, sizeof(err)), 0);
	html = written(r);
	ck_assert_uint_eq(check_charts(html), 0);
	ck_assert_uint_eq(count(html, ": no data</p>"), 7);
	free(html);
}
END_TEST

/* A capture path that is not UTF-8 goes through --analyze's JSON (as
 * %XX) into the page, from the JSON file and analysed in process. */
START_TEST(test_analysis_not_utf8)
{
	char *dir = tu_mkdtemp(), *capture, *text, *at, *cap, *json, *html;
	char *page = tu_join(dir, "r.html"), *out = NULL, *err = NULL;
	char *analyze[] = { "ioriot", "-q", "--analyze", NULL,
			    "--output-format", "json", NULL };
	char *report[] = { "ioriot", "-q", "--report", page, NULL, NULL };
	struct jv_error je;
	json_t *v;

	ck_assert(asprintf(&capture, "%s/analyze/hand.capture",
			   tu_datadir()) > 0);
	text = tu_read(capture, NULL);
	ck_assert_ptr_nonnull(text);
	at = strstr(text, "p=/data/a;");
	ck_assert_ptr_nonnull(at);
	ck_assert(asprintf(&cap, "%.*sp=/data/a%%FF%%C3;%s", (int)(at - text),
			   text, at + strlen("p=/data/a;")) > 0);
	free(text);
	text = cap;
	cap = tu_write_str(dir, "odd.capture", text);

	analyze[3] = cap;
	ck_assert_int_eq(tu_run(analyze, &out, &err), 0);
	v = jv_parse(out, strlen(out), &je);
	ck_assert_msg(v, "%u:%u: %s", je.line, je.col, je.msg);
	json_decref(v);
	ck_assert_msg(strstr(out, "\"/data/a%FF%C3\""), "%s", out);
	json = tu_write_str(dir, "odd.json", out);

	report[4] = json;
	ck_assert_int_eq(tu_run(report, NULL, NULL), 0);
	html = tu_read(page, NULL);
	ck_assert_msg(html && strstr(html, "/data/a%FF%C3"), "no path");
	free(html);
	report[4] = cap;
	ck_assert_int_eq(tu_run(report, NULL, NULL), 0);
	html = tu_read(page, NULL);
	ck_assert_msg(html && strstr(html, "/data/a%FF%C3"), "no path");
	free(html);
	free(json);
	free(err);
	free(out);
	free(text);
	free(cap);
	free(capture);
	free(page);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_cli_refuses)
{
	char *dir = tu_mkdtemp(), *out = tu_join(dir, "r.html"), *err = NULL;
	char *fast = data("fast.json"), *csv = data("fast.csv");
	char *capture, *bad, *dup;
	char *argv[] = { "ioriot", "--report", out, NULL, NULL, NULL };
	size_t len;

	ck_assert(asprintf(&capture, "%s/analyze/hand.capture",
			   tu_datadir()) > 0);
	/* A capture log is analysed in process: its section is on the page,
	 * labelled by its base name. */
	argv[3] = capture;
	ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	{
		char *html = tu_read(out, NULL);

		ck_assert_ptr_nonnull(html);
		ck_assert_msg(strstr(html, "<h2>Capture hand</h2>"), "%.2000s",
			      html);
		free(html);
		ck_assert_int_eq(unlink(out), 0);
	}
	/* A malformed replay file: its line, and no page. */
	bad = tu_write_str(dir, "bad.replay", "#|replay_version=1|name=t|"
			   "user=root|\n#|sandbox=/x/.ioriot/t|\n#OPS\n"
			   "garbage\n#END|ops=0|\n");
	argv[3] = bad;
	ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
	ck_assert_msg(strstr(err, "bad.replay:4: "), "%s", err);
	ck_assert_int_eq(access(out, F_OK), -1);
	free(err);
	free(bad);
	/* A CSV with a bad cell: file and line. */
	bad = tu_write_str(dir, "bad.csv", "time_s,interval_s,ops_per_s,"
			   "read_mb_per_s,write_mb_per_s,p50_us,p99_us\n"
			   "0.1,0.1,5,1,1,2,x\n");
	argv[3] = bad;
	ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "bad.csv:2: a cell is no number"));
	free(err);
	/* Two stats files of one run. */
	dup = tu_join(dir, "fast.json");
	ck_assert_int_eq(symlink(fast, dup), 0);
	argv[3] = fast;
	argv[4] = dup;
	ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
	ck_assert_ptr_nonnull(strstr(err, "a second statistics file of run "
				     "fast"));
	free(err);
	/* The page may not overwrite an input (a copy here). */
	{
		char *text = tu_read(csv, &len);
		char *copy = tu_write(dir, "in.csv", text, len);

		argv[2] = copy;
		argv[3] = copy;
		argv[4] = NULL;
		ck_assert_int_eq(tu_run(argv, NULL, &err), 1);
		ck_assert_ptr_nonnull(strstr(err, "in.csv"));
		free(err);
		free(copy);
		free(text);
	}
	/* And with good inputs it is written, its path printed. */
	argv[2] = out;
	argv[3] = fast;
	argv[4] = csv;
	{
		char *so = NULL;

		ck_assert_int_eq(tu_run(argv, &so, NULL), 0);
		ck_assert_ptr_nonnull(strstr(so, out));
		free(so);
	}
	ck_assert_int_eq(access(out, R_OK), 0);
	free(dup);
	free(bad);
	free(capture);
	free(csv);
	free(fast);
	free(out);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Open file://@html in headless Chromium, with no network (unshare -n),
 * @extra as the last options; its stdout into @out, stderr into @err.
 * Returns its exit status; kills it after 30 s.
 */
static int chromium(const char *bin, const char *dir, const char *html,
		    const char *extra1, const char *extra2, const char *out,
		    const char *err)
{
	char *profile = tu_join(dir, "profile"), *url, *udd;
	int status;
	pid_t pid;

	ck_assert(asprintf(&url, "file://%s", html) > 0);
	ck_assert(asprintf(&udd, "--user-data-dir=%s", profile) > 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *argv[] = {
			"unshare", "-n", bin, "--headless", "--no-sandbox",
			"--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking",
			"--disable-component-update", "--disable-sync", udd,
			"--enable-logging=stderr", "--v=0", extra1, extra2,
			url, NULL,
		};
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		alarm(30);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	free(udd);
	free(url);
	free(profile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Lines of Chromium's log that carry a console message of the page. */
static size_t console_lines(const char *log)
{
	return count(log, ":CONSOLE");
}

/* Requests the page made: network log entries keyed by a file:// page. */
static size_t page_requests(const char *netlog)
{
	return count(netlog, "\"network_isolation_key\":\"file://");
}

START_TEST(test_browser)
{
	char *bin = tu_which("chromium"), *dir, *html, *page, *dom, *log, *net;
	char *out, *err, *netlog, *png, *netopt, *shot, *neg, *pdf, *pdfopt;
	char *argv[] = { "ioriot", "-q", "--report", NULL, NULL, NULL, NULL,
			 NULL, NULL, NULL, NULL };
	size_t len;

	if (!bin) {
		printf("test_browser: skipped, no chromium in PATH "
		       "(scripts/install-deps.sh installs it)\n");
		return;
	}
	dir = tu_mkdtemp();
	html = tu_join(dir, "report.html");
	out = tu_join(dir, "dom.html");
	err = tu_join(dir, "chromium.log");
	netlog = tu_join(dir, "net.json");
	png = tu_join(dir, "phone.png");
	pdf = tu_join(dir, "report.pdf");
	argv[3] = html;
	for (size_t i = 0; i < 6; i++)
		argv[4 + i] = data(all_inputs[i]);
	ck_assert_int_eq(tu_run(argv, NULL, NULL), 0);
	page = tu_read(html, NULL);
	ck_assert(asprintf(&netopt, "--log-net-log=%s", netlog) > 0);

	/* The checks can fail: a page with a console message and a
	 * request is caught by both. */
	neg = tu_write_str(dir, "neg.html", "<!DOCTYPE html><p>x</p><script>"
			   "console.error('from the page')</script><img src="
			   "\"http://192.0.2.1/x.png\">");
	ck_assert_int_eq(chromium(bin, dir, neg, "--dump-dom", netopt, out,
				  err), 0);
	log = tu_read(err, NULL);
	net = tu_read(netlog, NULL);
	ck_assert_ptr_nonnull(net);
	ck_assert_uint_ge(console_lines(log), 1);
	ck_assert_uint_ge(page_requests(net), 1);
	free(log);
	free(net);

	/* The report: every chart in the DOM with its marks, nothing logged
	 * by the page, no request. */
	ck_assert_int_eq(chromium(bin, dir, html, "--dump-dom", netopt, out,
				  err), 0);
	dom = tu_read(out, &len);
	log = tu_read(err, NULL);
	net = tu_read(netlog, NULL);
	ck_assert_ptr_nonnull(dom);
	ck_assert_ptr_nonnull(net);
	ck_assert_ptr_nonnull(strstr(dom, "<h1>ioriot report</h1>"));
	ck_assert_uint_eq(check_charts(dom), check_charts(page));
	ck_assert_uint_eq(check_charts(dom), 18);
	ck_assert_uint_eq(count(dom, "<rect class=\"frame\""),
			  count(page, "<rect class=\"frame\""));
	ck_assert_ptr_null(strcasestr(dom, "<script"));
	ck_assert_msg(console_lines(log) == 0, "console: %s", log);
	ck_assert_uint_eq(page_requests(net), 0);
	ck_assert_ptr_null(strstr(net, "192.0.2.1"));

	/* On a phone's width it renders to a PNG of that width. */
	ck_assert(asprintf(&shot, "--screenshot=%s", png) > 0);
	ck_assert_int_eq(chromium(bin, dir, html, shot, "--window-size=390,2400",
				  out, err), 0);
	{
		unsigned char *p = (unsigned char *)tu_read(png, &len);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_gt(len, 24);
		ck_assert(!memcmp(p, "\x89PNG\r\n\x1a\n", 8));
		ck_assert_uint_eq((unsigned)p[16] << 24 | p[17] << 16 |
				  p[18] << 8 | p[19], 390);
		free(p);
	}
	/* And it prints, with its print styles, to a PDF. */
	ck_assert(asprintf(&pdfopt, "--print-to-pdf=%s", pdf) > 0);
	ck_assert_int_eq(chromium(bin, dir, html, pdfopt,
				  "--no-pdf-header-footer", out, err), 0);
	{
		char *p = tu_read(pdf, &len);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_gt(len, 10000);
		ck_assert(!memcmp(p, "%PDF-", 5));
		free(p);
	}
	for (size_t i = 0; i < 6; i++)
		free(argv[4 + i]);
	free(pdfopt);
	free(pdf);
	free(shot);
	free(neg);
	free(dom);
	free(log);
	free(net);
	free(netopt);
	free(page);
	free(png);
	free(netlog);
	free(err);
	free(out);
	free(html);
	free(bin);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

Suite *htmlreport_suite(void)
{
	Suite *s = suite_create("htmlreport");
	TCase *tc = tcase_create("page");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_structure);
	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_incomplete);
	tcase_add_test(tc, test_sync_latency_shown);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_analysis_text);
	tcase_add_test(tc, test_control_names);
	tcase_add_test(tc, test_analysis_empty);
	tcase_add_test(tc, test_failed_input);
	tcase_add_test(tc, test_analysis_not_utf8);
	tcase_add_test(tc, test_cli_refuses);
	tcase_add_test(tc, test_browser);
	suite_add_tcase(s, tc);
	return s;
}
