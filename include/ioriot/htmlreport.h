/*
 * htmlreport: one self-contained HTML page about a capture and its replay
 * runs (`ioriot --report OUT.html FILE...`).  Its inputs are recognised by
 * content: replay statistics (`-S RUN.json`, docs/stats.md), time series
 * (`--csv RUN.csv`, docs/series.md) and analyses (`--analyze FILE
 * --output-format json`).  A stats file and a CSV file with the same base
 * name (without .json, .csv) are one run.  The page has no script, no
 * reference to anything outside itself, and draws its charts as inline
 * SVG; every string read from an input is escaped.  docs/report.md
 * describes the sections.
 */
#ifndef IORIOT_HTMLREPORT_H
#define IORIOT_HTMLREPORT_H

#include <stddef.h>
#include <stdio.h>

/* What a file given to --report holds. */
enum htmlreport_kind {
	HTMLREPORT_STATS,	/* replay statistics, JSON */
	HTMLREPORT_SERIES,	/* a replay's time series, CSV */
	HTMLREPORT_ANALYSIS,	/* --analyze's JSON */
	HTMLREPORT_CAPTURE,	/* a capture log (text or .zst) */
	HTMLREPORT_REPLAY,	/* a replay file */
};

#define HTMLREPORT_MAX_ROWS 100000	/* rows of one time series */

struct htmlreport;

/* An empty report.  NULL when out of memory. */
struct htmlreport *htmlreport_new(void);

/*
 * What the file @path holds, from its first bytes: the kind (>= 0), or
 * -errno with "PATH: why" in @err: -EINVAL for content of none of the
 * kinds, or why it cannot be read.
 */
int htmlreport_kind(const char *path, char *err, size_t errlen);

/*
 * Read @path, a file of kind @kind (HTMLREPORT_STATS, _SERIES or
 * _ANALYSIS), into the report.  Returns 0, or -errno with "PATH: what" (or
 * "PATH:LINE: what") in @err: -EINVAL for a malformed file or another
 * kind, -EEXIST for a second file of the same kind and run, -E2BIG over a
 * limit, or why it cannot be read.
 */
int htmlreport_add_file(struct htmlreport *r, const char *path,
			enum htmlreport_kind kind, char *err, size_t errlen);

/*
 * Add an analysis given as the JSON text @json (@len bytes, the output of
 * `--analyze --output-format json`), labelled @label.  The seam for an
 * analysis made in-process.  Returns 0, or -errno with "LABEL:LINE:COL:
 * what" in @err: -EINVAL for malformed JSON or a document that is not an
 * ioriot analysis of format_version 1, -E2BIG over the JSON reader's
 * limits, -ENOMEM.
 */
int htmlreport_add_analysis(struct htmlreport *r, const char *label,
			    const char *json, size_t len, char *err,
			    size_t errlen);

/* Write the page to @f.  Returns 0, or -ENOMEM, or the -errno of a write
 * error. */
int htmlreport_write(FILE *f, const struct htmlreport *r);

/* Free @r.  Accepts NULL. */
void htmlreport_free(struct htmlreport *r);

#endif
