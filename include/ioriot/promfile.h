/*
 * promfile: the replay's --prom FILE, its time series and summary in the
 * Prometheus text exposition format for node_exporter's textfile
 * collector.  Every interval the whole file is written anew under a
 * temporary name in FILE's directory and renamed over FILE, so that a
 * scrape never sees half a file.  Metric names are documented in
 * docs/series.md.
 */
#ifndef IORIOT_PROMFILE_H
#define IORIOT_PROMFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "ioriot/replay.h"
#include "ioriot/series.h"

struct prom_config {
	const char *path;		/* FILE, written by rename */
	const char *input;		/* FILE must not be this file */
	const char *test_name;		/* the test="NAME" label */
	uid_t writer_uid;		/* who rewrites FILE during the replay
					 * (the test user): FILE may be its */
	/* The block devices that get metrics (the sandboxes'); samples'
	 * other devices are left out. */
	const char *const *devices;
	size_t ndevices;
};

struct prom;

/*
 * @s as a label value of the exposition format: backslash, double quote
 * and newline become \\, \" and \n.  A malloc'd string, or NULL with errno
 * ENOMEM.
 */
char *prom_escape(const char *s);

/*
 * Check that FILE may be replaced (outfile_check_target(); a file of
 * @cfg's writer_uid, left by an earlier replay, may be too), open its
 * directory, and write the file a first time: the replay running, nothing
 * done yet.  The directory stays open, so that the file can be written
 * later from a confined thread.  Returns NULL with errno set and a message
 * in @err: EINVAL (devices but no names), ENOMEM, or why FILE or its
 * directory cannot be written.
 */
struct prom *prom_open(const struct prom_config *cfg, char *err,
		       size_t errlen);

/*
 * Add interval @smp to the figures and write the file.  Returns 0, -EINVAL
 * for a sample with devices but no device array or no length, or -errno
 * when the file cannot be written (the figures are kept: the next call
 * writes them).
 */
int prom_sample(struct prom *p, const struct series_sample *smp);

/*
 * The replay ended: write the file a last time with
 * ioriot_replay_running 0 and, if @sum is not NULL (the replay succeeded),
 * the figures of the whole run.  Returns 0 or -errno when the file cannot
 * be written.
 */
int prom_finish(struct prom *p, const struct replay_summary *sum);

/* Close the directory and free @p.  Accepts NULL. */
void prom_close(struct prom *p);

#endif
