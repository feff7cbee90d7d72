/*
 * compare: the statistics of several replay runs side by side.  Each run
 * is a JSON stats file (`ioriot -r FILE -S RUN.json`, schema in README.md)
 * and becomes a column named after the file (its base name without
 * `.json`), with its test and its host above the rows ("N hosts" for a
 * merge, merge.h).  Rows: total time, performed ioops, ioops/s, time ahead,
 * highest loadavg, start lateness (when a run was timed), the replay
 * latency percentiles of every syscall present in any run, per syscall
 * the results that differ from the capture, the short ones and the bytes
 * they lacked (only rows where a run has a value other than 0; "-" for a
 * file without them), and per block device %util, await and MB/s.
 *
 * A file of --repeat's runs (ioriot-stats-runs) gives a column per run.
 * Runs are grouped into configurations: those of one --label, else those
 * of one file.  Above the table, the verdict (src/stats/verdict.c): per
 * whole-run figure each configuration's mean and 95% interval, and a
 * winner only where Welch's t-test separates it from every other
 * configuration; none when a configuration has one run (noise unknown),
 * the runs were paced differently, or performed different numbers of
 * operations.  A row's "better" column says in which direction a value is
 * better; no single run is marked best.
 */
#ifndef IORIOT_COMPARE_H
#define IORIOT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#define COMPARE_MAX_ITEMS 4096	/* syscalls, or block devices, of one run */

struct compare;

/* An empty comparison.  NULL when out of memory. */
struct compare *compare_new(void);

/*
 * Read the stats file @path and add it as the next column.  Returns 0, or
 * -errno with "PATH: what" (for a fault in the text "PATH:LINE:COL: what",
 * for a missing or mistyped member "PATH:LINE: /json/pointer: what") in
 * @err: -EINVAL for malformed JSON or a file that is not replay
 * statistics, -E2BIG for a file over a limit, or why it cannot be read.
 */
int compare_add(struct compare *c, const char *path, char *err, size_t errlen);

/* Write the table of the runs added so far to @f.  Returns 0, or -ENOMEM,
 * or the -errno of a write error. */
int compare_write(FILE *f, const struct compare *c);

/* Write the same table as one JSON object ("format": "ioriot-compare"; the
 * members in docs/guide.md, "Compare runs").  Returns 0, or -ENOMEM, or
 * -EIO for a write error. */
int compare_write_json(FILE *f, const struct compare *c);

/* Free @c and its runs.  Accepts NULL. */
void compare_free(struct compare *c);

#endif
