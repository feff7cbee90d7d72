/*
 * html.h: what the parts of the HTML report share: the report's runs and
 * analyses, escaping and number formats (htmlout.c), SVG charts
 * (svgchart.c, svgaxis.c), the icicle (icicle.c), the time series reader
 * (csvseries.c) and the sections (htmlreplay.c, htmlseries.c,
 * htmllatency.c, htmlanalysis.c, htmltop.c).  Private to src/stats.
 */
#ifndef IORIOT_HTML_INTERNAL_H
#define IORIOT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ioriot/htmlreport.h"
#include "stats.h"

/* One time series CSV: the columns the report draws, a value per row
 * (NAN for an empty cell). */
enum series_col {
	COL_TIME, COL_OPS, COL_READ_MB, COL_WRITE_MB, COL_P99, COL_COUNT
};

struct csv_series {
	double *col[COL_COUNT];
	size_t n;
};

/* A replay run: its stats (an index into the comparison's runs, or
 * NO_STATS) and its time series (or NULL), joined by label. */
#define NO_STATS ((size_t)-1)

struct report_run {
	char *label;
	size_t stats;
	struct csv_series *csv;
};

struct report_analysis {
	char *label;
	json_t *doc;
};

struct htmlreport {
	struct compare *cmp;
	struct report_run *runs;
	size_t nruns, runcap;
	struct report_analysis *an;
	size_t nan, ancap;
};

/* csvseries.c: read @path.  NULL with "PATH[:LINE]: what" in @err and
 * errno set (EINVAL malformed, E2BIG too many rows, or why it cannot be
 * read). */
struct csv_series *csv_series_load(const char *path, char *err, size_t errlen);
void csv_series_free(struct csv_series *s);

/* htmlout.c: @s as HTML text (also fit for attribute values). */
void html_text(FILE *f, const char *s);
/* @s escaped, at most @max (> 0) characters: a longer one is its end after
 * an ellipsis. */
void html_text_cut(FILE *f, const char *s, size_t max);
/* Formats of figures for people, into @buf. */
typedef void (*fmt_fn)(char *buf, size_t len, double v);
void fmt_ns(char *buf, size_t len, double ns);
void fmt_bytes(char *buf, size_t len, double bytes);
void fmt_count(char *buf, size_t len, double n);
void fmt_plain(char *buf, size_t len, double v);
/* The colour of run or series @i, "#rrggbb". */
const char *html_colour(size_t i);
/* A figure of a JSON object as a double; NAN if missing or no number. */
double json_num(const json_t *obj, const char *key);

/* svgaxis.c: a value axis, its ticks chosen to cover [lo, hi]. */
#define AXIS_MAX_TICKS 12
struct axis {
	double lo, hi;		/* after axis_fit(): the ends drawn */
	bool log;		/* log10 scale; lo > 0 */
	double tick[AXIS_MAX_TICKS];
	size_t nticks;
};
/* Fit @a to the data range [lo, hi] (NANs ignored by the caller). */
void axis_fit(struct axis *a, double lo, double hi, bool log);
/* Position of @v between 0 (lo) and 1 (hi), clamped. */
double axis_pos(const struct axis *a, double v);

/* svgchart.c: the charts.  Each is an <svg class="chart"> scaled by its
 * viewBox, with data-kind and data-points (the number of values drawn)
 * for tests, axes with tick labels, and the @title as aria-label. */
struct chart_opts {
	const char *title;
	const char *xlabel, *ylabel;
	fmt_fn xfmt, yfmt;
	bool ylog;
};

struct line_series {
	const char *name;
	const double *x, *y;	/* y NAN: a gap */
	size_t n;
	const char *colour;
};

struct bar {
	const char *label;
	double v;
	const char *colour;
};

/* Latency percentiles of one row: p50 to p99 a bar, to max a line, p99.9
 * a tick (NAN: none). */
struct range {
	const char *label;
	double p50, p99, p999, max;
	const char *colour;
};

int svg_lines(FILE *f, const struct chart_opts *o,
	      const struct line_series *s, size_t n);
int svg_bars(FILE *f, const struct chart_opts *o, const struct bar *b,
	     size_t n);
int svg_ranges(FILE *f, const struct chart_opts *o, const struct range *r,
	       size_t n);
/* A legend of @n names and colours, as HTML. */
void html_legend(FILE *f, const char *const *names, const char *const *colours,
		 size_t n);

/* icicle.c: a flame graph drawn top down.  Frames are added as stacks
 * with a weight; equal prefixes merge. */
struct icicle;
struct icicle *icicle_new(void);
/* Add @w to the stack @frames[0..@n).  0 or -ENOMEM. */
int icicle_add(struct icicle *ic, const char *const *frames, size_t n,
	       double w);
/* Draw @ic (its children sorted on the way), @fmt for the weights.  0,
 * -ENOMEM or -EIO. */
int icicle_write(FILE *f, struct icicle *ic, const char *title, fmt_fn fmt);
void icicle_free(struct icicle *ic);

/* The sections of the page. */
int html_replay_sections(FILE *f, const struct htmlreport *r);
int html_overlaid(FILE *f, const struct htmlreport *r);
int html_latencies(FILE *f, const struct htmlreport *r);
/* The colour of comparison column @j: its run's. */
const char *html_column_colour(const struct htmlreport *r, size_t j);
int html_analysis_sections(FILE *f, const struct report_analysis *a);
int html_top_sections(FILE *f, const json_t *doc);
int html_flame_section(FILE *f, const json_t *doc);

#endif
