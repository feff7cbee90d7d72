/*
 * merge: the JSON statistics of a fleet's replays (`-S HOST.json` on each
 * host) summed into one JSON statistics document, which --compare and
 * --report read like any run: counts summed, latency and lateness
 * histograms merged bucket by bucket and their percentiles taken from the
 * merged histograms, the duration the span from the first start to the
 * last end, and a row per host ("hosts").  Members in docs/stats.md.
 */
#ifndef IORIOT_MERGE_H
#define IORIOT_MERGE_H

#include <stddef.h>
#include <stdio.h>

struct merge;

/*
 * Read, check and sum the stats files @paths (@n of them, at least one).
 * Returns the sum, or NULL with "PATH: what" (for a fault in the text
 * "PATH:LINE:COL: what", for a member "PATH:LINE: /json/pointer: what")
 * in @err: malformed JSON, no replay statistics, a format_version other
 * than the first file's or this ioriot's, statistics without histograms
 * (written before they were), rate caps other than the first file's, or
 * out of memory.
 */
struct merge *merge_load(char *const *paths, size_t n, char *err,
			 size_t errlen);

/* Write the merged statistics to @f.  Returns 0 or -EIO (a write
 * error). */
int merge_write(FILE *f, const struct merge *m);

/* Free @m.  Accepts NULL. */
void merge_free(struct merge *m);

#endif
