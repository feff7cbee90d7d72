/*
 * stats.h: the runs a comparison holds and the rows of its table, shared
 * by the reader (compare.c), the table (table.c), its text (tableprint.c)
 * and the HTML report (html*.c).  Private to src/stats.
 */
#ifndef IORIOT_STATS_INTERNAL_H
#define IORIOT_STATS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/compare.h"
#include "ioriot/incomplete.h"
#include "ioriot/json.h"

#define COMPARE_LABEL_MAX 160	/* a row label, a JSON pointer in a message */

/* One stats file, checked: every member the table reads is there. */
struct compare_run {
	char *label;		/* column name: base name without .json */
	char *test;		/* the test name in the file */
	char *host;		/* its host, "N hosts" for a merge, or "-" */
	const char *pacing;	/* "fast", "timed", "think" (static) */
	size_t group;		/* its configuration in compare.groups */
	struct run_why why;	/* why it is incomplete; .n 0: whole */
	json_t *doc;
};

/* The runs of one configuration: those of one --label, else of one file
 * (a file of --repeat's runs, or a single run). */
struct compare_group {
	char *name;		/* the label, or the file's base name */
	size_t n;		/* its runs */
};

struct compare {
	struct compare_run *runs;
	size_t n, cap;
	struct compare_group *groups;	/* in the order first seen */
	size_t ngroups;
};


/* After the name of an incomplete run in --compare's text; its footnote
 * under the table starts with it, and the verdict's note names it. */
#define INCOMPLETE_MARK "*"

/* Which value of a row is best. */
enum best { BEST_NONE, BEST_LOW, BEST_HIGH };

/* "", "lower", "higher" */
extern const char *const table_best_names[];

/* The format_version of --compare's JSON: 2 has the configurations and
 * the verdict, and no best runs per row. */
#define COMPARE_JSON_VERSION 2

#define HEADING (-1)		/* a row's prec: a section heading */

struct row {
	char label[COMPARE_LABEL_MAX];
	enum best best;
	int prec;		/* decimals printed, or HEADING */
};

/* The rows of a comparison, a value per run each. */
struct table {
	struct row *rows;
	double *vals;		/* nruns per row, as read; NAN: none */
	size_t n, cap, nruns;
};

/* Build the rows of the runs of @c into @t (which need not be
 * initialised).  0 or -ENOMEM; free @t with table_free() either way. */
int table_build(struct table *t, const struct compare *c);

/* Free the rows of @t. */
void table_free(struct table *t);

/* The cell of @v with @prec decimals in @buf (@len bytes): "-" for none
 * (NAN).  Returns the text. */
const char *table_cell(char *buf, size_t len, double v, int prec);

/* How many runs of @c are incomplete (compare_run.why). */
size_t compare_incomplete(const struct compare *c);

/* The name of a run stored in @path: its base name without @ext (".json",
 * ".csv"), control bytes replaced.  malloc'd; NULL when out of memory. */
char *compare_label(const char *path, const char *ext);

/* "WHERE:LINE:COL: what" (or "WHERE: what") of the parse error @je in
 * @err; returns its code. */
int json_failed_msg(const struct jv_error *je, const char *where,
		    char *err, size_t errlen);

/* Replace each byte of a control character in @s (C0, DEL, C1 in UTF-8 or
 * as a lone byte, bidirectional formatting: textsafe.h) by '?', so that
 * names cannot break a line or drive the terminal.  Other bytes that are
 * no UTF-8 stay: JSON output shows them as %XX. */
void compare_printable(char *s);

/* The JSON pointer (RFC 6901) @parent/@key into @buf of @len bytes (> 0):
 * '~' and '/' of @key escaped, control bytes replaced (compare_printable),
 * cut to fit.  For naming a value of a file in a message. */
void compare_pointer(char *buf, size_t len, const char *parent,
		     const char *key);

#endif
