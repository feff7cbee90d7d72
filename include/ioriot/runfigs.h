/*
 * runfigs: the figures of a whole replay run that repeated runs summarise
 * and a verdict compares: total time, ioops/s, start lateness and the
 * latency percentiles of each class of operations, read from a run's
 * statistics (docs/stats.md, JSON).
 */
#ifndef IORIOT_RUNFIGS_H
#define IORIOT_RUNFIGS_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/json.h"

/* The "format" of a statistics file of --repeat's runs: {"runs": [...],
 * "summary": {...}} (docs/stats.md). */
#define STATS_RUNS_FORMAT "ioriot-stats-runs"
#define STATS_RUNS_FORMAT_VERSION 1

#define RUNFIG_KEY_MAX 64
#define RUNFIGS_MAX 64

struct run_figure {
	/* Its place in a run's statistics: members separated by '/',
	 * "classes/sync/latency_ns/p99". */
	char key[RUNFIG_KEY_MAX];
	char label[RUNFIG_KEY_MAX];	/* "sync p99 (us)" */
	double scale;			/* into the label's unit */
	bool lower_better;		/* else higher is better */
};

/*
 * The figures at least one of the @n runs @docs has, in a fixed order
 * (total time first), into @figs (RUNFIGS_MAX entries).  Returns how many.
 */
size_t run_figures(const json_t *const *docs, size_t n,
		   struct run_figure *figs);

/* The value of @fig in run @doc, unscaled; NAN when the run lacks it. */
double run_figure_value(const json_t *doc, const struct run_figure *fig);

#endif
