/*
 * incomplete: whether a replay run ended badly, and why, read from its
 * statistics (docs/stats.md: "interrupted", "disk_full", "disk_full_ops",
 * "io_error_ops").  The one test that --repeat's summary, the verdict of
 * --compare and --report, and their marking of runs share: an incomplete
 * run is shown, marked, but left out of every summary and verdict.
 */
#ifndef IORIOT_INCOMPLETE_H
#define IORIOT_INCOMPLETE_H

#include <stddef.h>

#include "ioriot/json.h"

#define RUN_WHY_N 3		/* reasons at most: one of each kind */
#define RUN_WHY_MAX 48		/* one reason's text with its NUL */
#define RUN_WHY_TEXT (RUN_WHY_N * (RUN_WHY_MAX + 2))	/* all, joined */

/* Why a run is incomplete: its reasons, in a fixed order. */
struct run_why {
	size_t n;			/* 0: the run is whole */
	char reason[RUN_WHY_N][RUN_WHY_MAX];
};

/*
 * Why run @doc (its statistics object) is incomplete, into @why:
 * "interrupted" (a signal stopped it), "disk full (N operations)" (it
 * filled its test mount: ENOSPC, EDQUOT) and "I/O errors (N operations)"
 * (EIO), those that apply.  A file without these members (an older
 * version) is whole.  Returns @why->n: 0 for a whole run.
 */
size_t run_incomplete(const json_t *doc, struct run_why *why);

/* @why's reasons joined by ", " into @buf of @len bytes (> 0; cut to fit,
 * RUN_WHY_TEXT is enough); "" for a whole run.  Returns @buf. */
const char *run_why_text(const struct run_why *why, char *buf, size_t len);

#endif
