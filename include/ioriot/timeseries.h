/*
 * timeseries: the replay's --csv, --graphite and --prom options, between
 * the engine's ticks (replay.h) and the writers (series.h, promfile.h):
 * each tick a sample with the block devices' figures and the load average.
 */
#ifndef IORIOT_TIMESERIES_H
#define IORIOT_TIMESERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/diskstats.h"
#include "ioriot/promfile.h"
#include "ioriot/replay.h"
#include "ioriot/series.h"

struct timeseries {
	struct series *writer;
	struct prom *prom;		/* --prom, or NULL */
	struct replay_sys_stats *prev;	/* SYS_COUNT: at the last tick */
	uint64_t prev_ns;
	int diskstats_fd;		/* /proc/diskstats, or -1 */
	struct diskstats disks;		/* at the last tick */
	struct disk_figures *figures;
	char (*devices)[32];		/* the sandboxes' block devices */
	const char **device_names;
	size_t ndevices;
	bool write_failed;
};

/*
 * Open the CSV file, the Graphite connection and/or the Prometheus textfile
 * @base names (its csv_path, graphite, prefix, prom_path, test_name; input
 * is the replay file) for the replay: the CSV and the textfile get the
 * block devices holding the sandboxes @roots (@base's devices are
 * ignored), read from @diskstats_fd (/proc/diskstats, opened by the
 * caller; -1: none) at each tick.  Returns 0, or -errno with a message
 * logged.
 */
int timeseries_open(struct timeseries *cs, const struct series_config *base,
		    char *const *roots, size_t nroots, int diskstats_fd);

/* The engine's tick callback (@ctx is the struct timeseries). */
void timeseries_tick(void *ctx, uint64_t t_ns,
		     const struct replay_sys_stats *cum);

/*
 * The replay ended: the Prometheus textfile (if any) gets its last
 * version, with the figures of @sum (NULL: the replay failed).  Returns 0,
 * or 1 with a message logged when it cannot be written.
 */
int timeseries_finish(struct timeseries *cs, const struct replay_summary *sum);

/* Close the writer, say how many intervals Graphite missed, free @cs.
 * Returns 0, or 1 when the CSV file or the Prometheus textfile could not
 * be written completely. */
int timeseries_close(struct timeseries *cs);

#endif
