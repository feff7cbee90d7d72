/*
 * verdict: the comparison of configurations beyond their noise
 * (verdict.c), private to src/stats: built once from a comparison,
 * printed as text (--compare), JSON ("verdict") and in the HTML report.
 */
#ifndef IORIOT_STATS_VERDICT_H
#define IORIOT_STATS_VERDICT_H

#include <stdio.h>
#include <sys/types.h>

#include "ioriot/runfigs.h"
#include "ioriot/sample.h"

struct compare;

/* One whole-run figure: each configuration's runs, and who wins it. */
struct verdict_row {
	struct run_figure fig;
	struct sample *s;	/* per configuration (group) */
	struct welch *w;	/* per configuration after the first: its
				 * difference to the first */
	ssize_t winner;		/* a configuration, or -1 */
};

struct verdict {
	struct verdict_row *rows;	/* total time first */
	size_t nrows, ngroups;
	size_t *runs;		/* per configuration: runs that ran to the end */
	/* Why no configuration can win (a static text), or NULL. */
	const char *why_none;
};

/* Build the verdict of the runs of @c into @v.  0 or -ENOMEM; free @v
 * with verdict_free() either way. */
int verdict_build(struct verdict *v, const struct compare *c);

/* Free @v's rows.  Accepts a zeroed or freed verdict. */
void verdict_free(struct verdict *v);

/* The verdict as text: a row per figure, then the headline in words.
 * Write errors show in @f's error flag. */
void verdict_text(FILE *f, const struct compare *c, const struct verdict *v);

/* The verdict as a JSON object (docs/stats.md, --compare's JSON). */
void verdict_json(FILE *f, const struct compare *c, const struct verdict *v);

#endif
