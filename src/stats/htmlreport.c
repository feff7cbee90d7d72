/*
 * htmlreport: the report's inputs and its page (htmlreport.h).  Inputs
 * are recognised by their first bytes (and JSON by its members), joined
 * into runs by label, and written as one HTML page: head with the style
 * sheet and a policy that forbids loading anything, the sections of
 * htmlreplay.c and htmlanalysis.c, and a list of the inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html.h"

static const char style[] =
":root{--fg:#1d2430;--muted:#5b6573;--line:#dde3ea;--card:#f4f6f9;"
"--win:#e3f4ea;--wintext:#0a5c36}\n"
"*{box-sizing:border-box}\n"
"body{margin:0;color:var(--fg);background:#fff;font:15px/1.5 system-ui,"
"-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"DejaVu Sans\","
"sans-serif}\n"
"main{max-width:1120px;margin:0 auto;padding:18px}\n"
"h1{font-size:1.7rem;margin:.2em 0 .1em}\n"
"h2{font-size:1.3rem;margin:2em 0 .6em;padding-bottom:4px;"
"border-bottom:2px solid var(--line)}\n"
"h3{font-size:1.02rem;margin:1.5em 0 .4em}\n"
"p{margin:.4em 0}\n"
".note,.empty,footer{color:var(--muted);font-size:.88rem}\n"
"nav a{margin-right:14px;color:#0062a0}\n"
".cards{display:grid;grid-template-columns:repeat(auto-fill,"
"minmax(150px,1fr));gap:8px}\n"
".card{background:var(--card);border-radius:8px;padding:8px 12px}\n"
".card b{display:block;font-size:1.2rem;font-variant-numeric:"
"tabular-nums}\n"
".card span{color:var(--muted);font-size:.85rem}\n"
".grid2{display:grid;grid-template-columns:repeat(auto-fit,"
"minmax(min(100%,460px),1fr));gap:10px 24px}\n"
"figure{margin:0 0 12px}\n"
"figcaption{font-weight:600;margin:.8em 0 .2em}\n"
"svg.chart{display:block;width:100%;height:auto}\n"
"svg text{font-size:13px;fill:#2b3340}\n"
"svg .tick{font-size:12px;fill:#5b6573}\n"
"svg .value{font-size:12px;fill:#3d4654}\n"
"svg .grid{stroke:#e8ecf1}\n"
"svg .axis{stroke:#8b95a3}\n"
"svg .series{stroke-width:2;stroke-linejoin:round}\n"
"svg .whisker{stroke-width:1.5}\n"
"svg .tick999{stroke-width:2.5}\n"
"svg .frame{stroke:#fff;stroke-width:.6}\n"
"svg .frame-label{font-size:12px;fill:#1d1d1d}\n"
".legend span{margin-right:16px;white-space:nowrap}\n"
".legend i{display:inline-block;width:12px;height:12px;border-radius:2px;"
"margin-right:6px;vertical-align:-1px}\n"
".table-wrap{overflow-x:auto;margin:.4em 0 1em}\n"
"table{border-collapse:collapse;font-size:.88rem;"
"font-variant-numeric:tabular-nums}\n"
"th,td{padding:4px 9px;border-bottom:1px solid var(--line);"
"text-align:right;white-space:nowrap}\n"
"th{font-weight:600}\n"
"th:first-child,td:first-child{text-align:left}\n"
"td.name{text-align:left;white-space:normal;overflow-wrap:anywhere;"
"min-width:12em;max-width:34em}\n"
"tr.heading th{background:var(--card);text-align:left;padding-top:8px}\n"
"td.best{background:var(--win);color:var(--wintext);font-weight:600}\n"
".verdict{border-left:4px solid #009e73;background:var(--win);"
"padding:8px 14px;border-radius:4px}\n"
".left-out{border-left:4px solid #b42318;background:#fdecea;"
"padding:4px 14px;border-radius:4px;margin:.6em 0}\n"
".left-out ul{margin:.2em 0;padding-left:1.2em}\n"
".incomplete{display:inline-block;padding:0 6px;border-radius:4px;"
"background:#b42318;color:#fff;font-size:.78rem;font-weight:600}\n"
"details summary{cursor:pointer;font-weight:600;margin:.6em 0}\n"
"@media (max-width:600px){body{font-size:14px}main{padding:10px}"
"th,td{padding:3px 5px}svg text{font-size:17px}"
"svg .tick,svg .value{font-size:16px}svg .frame-label{font-size:12px}}\n"
"@media print{body{font-size:10.5px}main{max-width:none;padding:0}"
"nav{display:none}h2{break-after:avoid}figure,.card,tr{break-inside:avoid}"
".table-wrap{overflow:visible}}\n";

struct htmlreport *htmlreport_new(void)
{
	struct htmlreport *r = calloc(1, sizeof(*r));

	if (r)
		r->cmp = compare_new();
	if (r && !r->cmp) {
		free(r);
		return NULL;
	}
	return r;
}

/* The kind of a JSON document: an analysis by its "format". */
static int json_kind(const char *path, char *err, size_t errlen)
{
	struct jv_error je;
	json_t *doc = jv_load(path, &je);
	const char *fmt;
	int kind;

	if (!doc) {
		return json_failed_msg(&je, path, err, errlen);
	}
	fmt = jv_member_string(doc, "format");
	kind = fmt && !strcmp(fmt, "ioriot-analysis") ? HTMLREPORT_ANALYSIS :
	       HTMLREPORT_STATS;
	json_decref(doc);
	return kind;
}

int htmlreport_kind(const char *path, char *err, size_t errlen)
{
	static const unsigned char zstd_magic[] = { 0x28, 0xb5, 0x2f, 0xfd };
	char head[32] = { 0 };
	size_t skip = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || (n = read(fd, head, sizeof(head) - 1)) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	close(fd);
	if (n >= 4 && !memcmp(head, zstd_magic, 4))
		return HTMLREPORT_CAPTURE;
	if (!strncmp(head, "#|capture_version=", 18))
		return HTMLREPORT_CAPTURE;
	if (!strncmp(head, "#|replay_version=", 17))
		return HTMLREPORT_REPLAY;
	if (!strncmp(head, "time_s,", 7))
		return HTMLREPORT_SERIES;
	while (skip < (size_t)n && strchr(" \t\r\n", head[skip]))
		skip++;
	if (skip < (size_t)n && head[skip] == '{')
		return json_kind(path, err, errlen);
	snprintf(err, errlen, "%s: neither replay statistics (JSON), a time "
		 "series (CSV), an analysis (JSON), a capture log nor a "
		 "replay file", path);
	return -EINVAL;
}

/* The run labelled @label, added if missing (taking @label); NULL when out
 * of memory (@label freed). */
static struct report_run *run_of(struct htmlreport *r, char *label)
{
	struct report_run *n;

	for (size_t i = 0; i < r->nruns; i++)
		if (!strcmp(r->runs[i].label, label)) {
			free(label);
			return &r->runs[i];
		}
	if (r->nruns == r->runcap) {
		size_t cap = r->runcap ? r->runcap * 2 : 4;

		n = realloc(r->runs, cap * sizeof(*n));
		if (!n) {
			free(label);
			return NULL;
		}
		r->runs = n;
		r->runcap = cap;
	}
	n = &r->runs[r->nruns++];
	*n = (struct report_run){ .label = label, .stats = NO_STATS };
	return n;
}

/* Drop the run that a failed add made, if it made one (@before: the
 * number of runs before), so that it does not appear empty. */
static void drop_new_run(struct htmlreport *r, size_t before)
{
	if (r->nruns > before)
		free(r->runs[--r->nruns].label);
}

/* The run of @path (its base name without .json for @stats, else .csv)
 * for a new statistics file or time series; NULL with the message in @err
 * and -ENOMEM, or -EEXIST when the run has one already, in *@ret. */
static struct report_run *new_file_run(struct htmlreport *r, const char *path,
				       bool stats, int *ret, char *err,
				       size_t errlen)
{
	char *label = compare_label(path, stats ? ".json" : ".csv");
	struct report_run *run = label ? run_of(r, label) : NULL;

	if (!run) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		*ret = -ENOMEM;
		return NULL;
	}
	if (stats ? run->stats != NO_STATS : run->csv != NULL) {
		snprintf(err, errlen, "%s: a second %s of run %s", path,
			 stats ? "statistics file" : "time series", run->label);
		*ret = -EEXIST;
		return NULL;
	}
	return run;
}

/* Read the statistics file (@stats) or time series @path into its run. */
static int add_run_file(struct htmlreport *r, const char *path, bool stats,
			char *err, size_t errlen)
{
	size_t before = r->nruns;
	int ret = 0;
	struct report_run *run = new_file_run(r, path, stats, &ret, err,
					      errlen);

	if (!run)
		return ret;
	if (stats) {
		ret = compare_add(r->cmp, path, err, errlen);
		if (!ret)
			run->stats = r->cmp->n - 1;
	} else {
		run->csv = csv_series_load(path, err, errlen);
		ret = run->csv ? 0 : -errno;
	}
	if (ret)
		drop_new_run(r, before);
	return ret;
}

/* Take @doc (an analysis document read from @where) as the analysis
 * labelled @label; both are freed on failure. */
static int add_analysis_doc(struct htmlreport *r, char *label,
			    json_t *doc, const char *where,
			    char *err, size_t errlen)
{
	const char *fmt = jv_member_string(doc, "format");
	int64_t version = 0;
	int ret = -EINVAL;

	if (!fmt || strcmp(fmt, "ioriot-analysis")) {
		snprintf(err, errlen, "%s: not an ioriot analysis (\"format\" "
			 "is not \"ioriot-analysis\")", where);
		goto err;
	}
	if (jv_int(json_object_get(doc, "format_version"), &version) ||
	    version != 1) {
		snprintf(err, errlen, "%s: analysis format_version %lld; this "
			 "ioriot reads 1", where, (long long)version);
		goto err;
	}
	ret = -ENOMEM;
	if (!label || r->nan == r->ancap) {
		size_t cap = r->ancap ? r->ancap * 2 : 2;
		struct report_analysis *n = label ?
			realloc(r->an, cap * sizeof(*n)) : NULL;

		if (!n) {
			snprintf(err, errlen, "%s: %s", where, strerror(ENOMEM));
			goto err;
		}
		r->an = n;
		r->ancap = cap;
	}
	compare_printable(label);
	r->an[r->nan++] = (struct report_analysis){ label, doc };
	return 0;
err:
	free(label);
	json_decref(doc);
	return ret;
}

int htmlreport_add_analysis(struct htmlreport *r, const char *label,
			    const char *json, size_t len, char *err,
			    size_t errlen)
{
	struct jv_error je;
	json_t *doc = jv_parse(json, len, &je);

	if (!doc) {
		return json_failed_msg(&je, label, err, errlen);
	}
	return add_analysis_doc(r, strdup(label), doc, label, err, errlen);
}

int htmlreport_add_file(struct htmlreport *r, const char *path,
			enum htmlreport_kind kind, char *err, size_t errlen)
{
	json_t *doc;
	struct jv_error je;

	switch (kind) {
	case HTMLREPORT_STATS:
	case HTMLREPORT_SERIES:
		return add_run_file(r, path, kind == HTMLREPORT_STATS, err,
				    errlen);
	case HTMLREPORT_ANALYSIS:
		doc = jv_load(path, &je);
		if (!doc) {
			return json_failed_msg(&je, path, err, errlen);
		}
		return add_analysis_doc(r, compare_label(path, ".json"), doc,
					path, err, errlen);
	default:
		break;
	}
	snprintf(err, errlen, "%s: the report reads statistics, time series "
		 "and analyses", path);
	return -EINVAL;
}

static void inputs(FILE *f, const struct htmlreport *r)
{
	fputs("<footer><h2>Inputs</h2><ul>\n", f);
	for (size_t i = 0; i < r->nan; i++) {
		fputs("<li>analysis <b>", f);
		html_text(f, r->an[i].label);
		fputs("</b></li>\n", f);
	}
	for (size_t i = 0; i < r->nruns; i++) {
		const struct report_run *run = &r->runs[i];

		fputs("<li>replay run <b>", f);
		html_text(f, run->label);
		fprintf(f, "</b>: %s%s%s</li>\n",
			run->stats != NO_STATS ? "statistics" : "",
			run->stats != NO_STATS && run->csv ? " and " : "",
			run->csv ? "time series" : "");
	}
	fputs("</ul><p>Written by ioriot --report. The page loads nothing: "
	      "no script, style sheet, font or image from elsewhere.</p>"
	      "</footer>\n", f);
}

int htmlreport_write(FILE *f, const struct htmlreport *r)
{
	int ret = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>ioriot report</title>\n<style>\n", f);
	fputs(style, f);
	fputs("</style>\n</head>\n<body>\n<main>\n<h1>ioriot report</h1>\n"
	      "<nav>", f);
	if (r->nruns)
		fputs("<a href=\"#replay\">Replay runs</a>", f);
	for (size_t i = 0; i < r->nan; i++) {
		fprintf(f, "<a href=\"#capture-%zu\">Capture ", i + 1);
		html_text(f, r->an[i].label);
		fputs("</a>", f);
	}
	fputs("</nav>\n", f);
	if (r->nruns)
		ret = html_replay_sections(f, r);
	for (size_t i = 0; !ret && i < r->nan; i++) {
		fprintf(f, "<section id=\"capture-%zu\">\n", i + 1);
		ret = html_analysis_sections(f, &r->an[i]);
		fputs("</section>\n", f);
	}
	if (!ret) {
		inputs(f, r);
		fputs("</main>\n</body>\n</html>\n", f);
	}
	if (!ret && (fflush(f) || ferror(f)))
		ret = -(errno ? errno : EIO);
	return ret;
}

void htmlreport_free(struct htmlreport *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nruns; i++) {
		free(r->runs[i].label);
		csv_series_free(r->runs[i].csv);
	}
	for (size_t i = 0; i < r->nan; i++) {
		free(r->an[i].label);
		json_decref(r->an[i].doc);
	}
	free(r->runs);
	free(r->an);
	compare_free(r->cmp);
	free(r);
}
