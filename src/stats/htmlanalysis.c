/*
 * htmlanalysis: the capture sections of the HTML report, drawn from an
 * analysis document (`--analyze FILE --output-format json`): where it
 * comes from, totals, what was not replayed, the syscall mix, request
 * sizes, latency per class and the time series.  Top lists and the flame
 * graph are in htmltop.c.  A member the document lacks shows as "-", or
 * its chart as "no data".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define MAX_MIX 16		/* syscalls in the mix chart */

/* The colour of syscall class @cls, the same in every chart. */
static const char *class_colour(const char *cls)
{
	static const char *const classes[] = {
		"read", "write", "meta", "sync", "open", "other",
	};

	for (size_t i = 0; cls && i < 6; i++)
		if (!strcmp(cls, classes[i]))
			return html_colour(i);
	return html_colour(6);
}

/* A figure of the totals: member @key of @sub (or of the document). */
struct total {
	const char *label;
	const char *sub, *sub2;	/* the object it is in, and below that */
	const char *key;
	fmt_fn fmt;
};

static const struct total total_cards[] = {
	{ "duration", "totals", NULL, "duration_ns", fmt_ns },
	{ "operations", "totals", NULL, "operations", fmt_count },
	{ "failed", "totals", NULL, "failed", fmt_count },
	{ "read", "totals", NULL, "bytes_read", fmt_bytes },
	{ "written", "totals", NULL, "bytes_written", fmt_bytes },
	{ "working set", "totals", NULL, "working_set_bytes", fmt_bytes },
	{ "processes", "totals", NULL, "processes", fmt_count },
	{ "threads", "totals", NULL, "threads", fmt_count },
	{ "files", "totals", NULL, "files", fmt_count },
	{ "directories", "totals", NULL, "directories", fmt_count },
	{ "syncs", "totals", NULL, "syncs", fmt_count },
	{ "syncs per second", "sync", NULL, "per_second", fmt_plain },
	{ "mean bytes between syncs", "sync", "bytes_between", "mean",
	  fmt_bytes },
	{ "p99 bytes between syncs", "sync", "bytes_between", "p99",
	  fmt_bytes },
};

static void source(FILE *f, const struct report_analysis *a)
{
	const json_t *src = json_object_get(a->doc, "source");
	static const char *const keys[] = { "path", "kind", "host", "kernel" };

	fputs("<h2>Capture ", f);
	html_text(f, a->label);
	fputs("</h2>\n<p class=\"note\">", f);
	for (size_t k = 0; k < 4; k++) {
		const char *v = jv_member_string(src, keys[k]);

		fprintf(f, "%s%s: ", k ? " · " : "", keys[k]);
		html_text(f, v ? v : "-");
	}
	fputs("</p>\n", f);
}

static void totals(FILE *f, const json_t *doc)
{
	char buf[48];

	fputs("<h3>Totals</h3>\n<div class=\"cards\">\n", f);
	for (size_t i = 0; i < sizeof(total_cards) / sizeof(*total_cards); i++) {
		const struct total *t = &total_cards[i];
		const json_t *obj = json_object_get(doc, t->sub);

		if (t->sub2)
			obj = json_object_get(obj, t->sub2);
		t->fmt(buf, sizeof(buf), json_num(obj, t->key));
		fprintf(f, "<div class=\"card\"><b>%s</b><span>%s</span></div>\n",
			buf, t->label);
	}
	fputs("</div>\n", f);
}

/* The members of the object @obj as "name count" rows; "none" if empty,
 * "not recorded" for null. */
static void counts(FILE *f, const char *what, const json_t *obj)
{
	char buf[32];

	fputs("<tr><td>", f);
	html_text(f, what);
	fputs("</td><td class=\"name\">", f);
	if (!json_is_object(obj))
		fputs(json_is_null(obj) ? "not recorded" : "-", f);
	else if (!jv_count(obj))
		fputs("none", f);
	for (size_t i = 0; i < jv_count(obj); i++) {
		fmt_plain(buf, sizeof(buf), json_num(obj, jv_key(obj, i)));
		fputs(i ? ", " : "", f);
		html_text(f, jv_key(obj, i));
		fprintf(f, " %s", buf);
	}
	fputs("</td></tr>\n", f);
}

static void not_replayed(FILE *f, const json_t *doc)
{
	const json_t *nr = json_object_get(doc, "not_replayed");
	char buf[32];

	fmt_plain(buf, sizeof(buf), json_num(nr, "lost_events"));
	fprintf(f, "<h3>Not replayed</h3>\n<div class=\"table-wrap\"><table>"
		"<tr><td>events lost by the capture</td><td class=\"name\">%s"
		"</td></tr>\n", buf);
	counts(f, "syscalls not captured", json_object_get(nr, "uncaptured"));
	counts(f, "filtered by generate", json_object_get(nr, "filtered"));
	counts(f, "io_uring requests skipped",
	       json_object_get(nr, "uring_skipped"));
	fputs("</table></div>\n", f);
}

static void syscall_table(FILE *f, const json_t *sys)
{
	char ops[32], failed[32], bytes[32], time[32];

	fprintf(f, "<details><summary>All %zu syscalls</summary>"
		"<div class=\"table-wrap\"><table><thead><tr><th>syscall</th>"
		"<th>class</th><th>ops</th><th>failed</th><th>bytes</th>"
		"<th>time</th></tr></thead><tbody>\n", jv_count(sys));
	for (size_t i = 0; i < jv_count(sys); i++) {
		const json_t *s = jv_at(sys, i);

		fmt_plain(ops, sizeof(ops), json_num(s, "ops"));
		fmt_plain(failed, sizeof(failed), json_num(s, "failed"));
		fmt_bytes(bytes, sizeof(bytes), json_num(s, "bytes"));
		fmt_ns(time, sizeof(time), json_num(s, "time_ns"));
		fputs("<tr><td>", f);
		html_text(f, jv_member_string(s, "name"));
		fputs("</td><td>", f);
		html_text(f, jv_member_string(s, "class"));
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
			"</tr>\n", ops, failed, bytes, time);
	}
	fputs("</tbody></table></div></details>\n", f);
}

static int syscall_mix(FILE *f, const json_t *doc)
{
	const json_t *sys = json_object_get(doc, "syscalls");
	size_t n = jv_count(sys) < MAX_MIX ? jv_count(sys) : MAX_MIX;
	struct bar *b = calloc(n ? n : 1, sizeof(*b));
	struct chart_opts o = { .title = "Syscall mix", .xlabel = "operations",
				.xfmt = fmt_count };
	const char *names[6] = { "read", "write", "meta", "sync", "open",
				 "other" }, *colours[6];
	int ret;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *s = jv_at(sys, i);
		const char *name = jv_member_string(s, "name");
		const char *cls = jv_member_string(s, "class");

		b[i] = (struct bar){ name ? name : "-", json_num(s, "ops"),
				     class_colour(cls) };
	}
	for (size_t i = 0; i < 6; i++)
		colours[i] = class_colour(names[i]);
	fprintf(f, "<h3>Syscall mix</h3>\n<p class=\"note\">The %zu syscalls "
		"with the most operations, coloured by class.</p>\n", n);
	html_legend(f, names, colours, 6);
	ret = svg_bars(f, &o, b, n);
	if (!ret)
		syscall_table(f, sys);
	free(b);
	return ret;
}

/* The bars of a histogram of request sizes, "≤ SIZE" each. */
static int size_histogram(FILE *f, const json_t *buckets,
			  const char *title, const char *colour)
{
	size_t n = jv_count(buckets);
	struct bar *b = calloc(n ? n : 1, sizeof(*b));
	char (*labels)[40] = calloc(n ? n : 1, sizeof(*labels));
	struct chart_opts o = { .title = title, .xlabel = "requests",
				.xfmt = fmt_count };
	int ret = -ENOMEM;

	if (!b || !labels)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const json_t *k = jv_at(buckets, i);
		char size[32];

		fmt_bytes(size, sizeof(size), json_num(k, "le_bytes"));
		snprintf(labels[i], sizeof(labels[i]), "≤ %s", size);
		b[i] = (struct bar){ labels[i], json_num(k, "count"), colour };
	}
	fprintf(f, "<figure><figcaption>%s</figcaption>\n", title);
	ret = svg_bars(f, &o, b, n);
	fputs("</figure>\n", f);
out:
	free(labels);
	free(b);
	return ret;
}

static int request_sizes(FILE *f, const json_t *doc)
{
	const json_t *rs = json_object_get(doc, "request_sizes");
	int ret;

	fputs("<h3>Request sizes</h3>\n<div class=\"grid2\">\n", f);
	ret = size_histogram(f, json_object_get(rs, "read"), "Read requests",
			     class_colour("read"));
	if (!ret)
		ret = size_histogram(f, json_object_get(rs, "write"),
				     "Write requests", class_colour("write"));
	fputs("</div>\n", f);
	return ret;
}

static void class_table(FILE *f, const json_t *cls)
{
	static const char *const keys[] = {
		"p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns",
	};
	char buf[32];

	fputs("<div class=\"table-wrap\"><table><thead><tr><th>class</th>"
	      "<th>ops</th><th>time</th><th>p50</th><th>p90</th><th>p99</th>"
	      "<th>p99.9</th><th>max</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < jv_count(cls); i++) {
		const json_t *c = jv_at(cls, i);
		const json_t *lat = json_object_get(c, "latency");

		fputs("<tr><td>", f);
		html_text(f, jv_member_string(c, "class"));
		fmt_plain(buf, sizeof(buf), json_num(c, "ops"));
		fprintf(f, "</td><td>%s</td>", buf);
		fmt_ns(buf, sizeof(buf), json_num(c, "time_ns"));
		fprintf(f, "<td>%s</td>", buf);
		for (size_t k = 0; k < 5; k++) {
			fmt_ns(buf, sizeof(buf), json_num(lat, keys[k]));
			fprintf(f, "<td>%s</td>", buf);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static int class_latency(FILE *f, const json_t *doc)
{
	const json_t *cls = json_object_get(doc, "classes");
	size_t n = jv_count(cls);
	struct range *r = calloc(n ? n : 1, sizeof(*r));
	struct chart_opts o = { .title = "Latency per class",
				.xlabel = "latency (log scale)",
				.xfmt = fmt_ns };
	int ret;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *c = jv_at(cls, i);
		const json_t *lat = json_object_get(c, "latency");
		const char *name = jv_member_string(c, "class");

		r[i] = (struct range){ name ? name : "-",
				       json_num(lat, "p50_ns"),
				       json_num(lat, "p99_ns"),
				       json_num(lat, "p999_ns"),
				       json_num(lat, "max_ns"),
				       class_colour(name) };
	}
	fputs("<h3>Latency per class</h3>\n<p class=\"note\">Bar: p50 to p99; "
	      "thick tick: p99.9; dot: the maximum.</p>\n", f);
	ret = svg_ranges(f, &o, r, n);
	if (!ret)
		class_table(f, cls);
	free(r);
	return ret;
}

/* Column @key of the timeline rows @rows per second of @interval (or as
 * it is, @per_s false) into @out, scaled by @scale. */
static void timeline_col(const json_t *rows, const char *key,
			 double interval_s, double scale, double *out)
{
	for (size_t i = 0; i < jv_count(rows); i++)
		out[i] = json_num(jv_at(rows, i), key) * scale / interval_s;
}

static int timeline(FILE *f, const json_t *doc)
{
	const json_t *tl = json_object_get(doc, "timeline");
	const json_t *rows = json_object_get(tl, "rows");
	size_t n = jv_count(rows);
	double interval_s = json_num(tl, "interval_ns") / 1e9;
	double *v = calloc(6 * (n ? n : 1), sizeof(*v));
	struct chart_opts o = { .xlabel = "time since the start (s)",
				.xfmt = fmt_plain, .yfmt = fmt_count };
	struct line_series ops[3], mb[2];
	int ret;

	if (!v)
		return -ENOMEM;
	if (!(interval_s > 0))
		interval_s = NAN;
	timeline_col(rows, "t_ns", 1, 1e-9, v);
	timeline_col(rows, "ops", interval_s, 1, v + n);
	timeline_col(rows, "read_ops", interval_s, 1, v + 2 * n);
	timeline_col(rows, "write_ops", interval_s, 1, v + 3 * n);
	timeline_col(rows, "read_bytes", interval_s, 1e-6, v + 4 * n);
	timeline_col(rows, "write_bytes", interval_s, 1e-6, v + 5 * n);
	ops[0] = (struct line_series){ "all", v, v + n, n, html_colour(7) };
	ops[1] = (struct line_series){ "read", v, v + 2 * n, n,
				       class_colour("read") };
	ops[2] = (struct line_series){ "write", v, v + 3 * n, n,
				       class_colour("write") };
	mb[0] = (struct line_series){ "read", v, v + 4 * n, n,
				      class_colour("read") };
	mb[1] = (struct line_series){ "write", v, v + 5 * n, n,
				      class_colour("write") };
	fputs("<h3>Over time</h3>\n", f);
	html_legend(f, (const char *[]){ "all", "read", "write" },
		    (const char *[]){ ops[0].colour, ops[1].colour,
				      ops[2].colour }, 3);
	fputs("<div class=\"grid2\">\n<figure><figcaption>Operations per "
	      "second</figcaption>\n", f);
	o.title = "Operations per second";
	o.ylabel = "ops/s";
	ret = svg_lines(f, &o, ops, 3);
	fputs("</figure>\n<figure><figcaption>MB/s (10^6 B)</figcaption>\n", f);
	o.title = "MB/s";
	o.ylabel = "MB/s";
	if (!ret)
		ret = svg_lines(f, &o, mb, 2);
	fputs("</figure>\n</div>\n", f);
	free(v);
	return ret;
}

int html_analysis_sections(FILE *f, const struct report_analysis *a)
{
	int ret;

	source(f, a);
	totals(f, a->doc);
	not_replayed(f, a->doc);
	ret = syscall_mix(f, a->doc);
	if (!ret)
		ret = request_sizes(f, a->doc);
	if (!ret)
		ret = class_latency(f, a->doc);
	if (!ret)
		ret = timeline(f, a->doc);
	if (!ret)
		ret = html_top_sections(f, a->doc);
	if (!ret)
		ret = html_flame_section(f, a->doc);
	return ret;
}
