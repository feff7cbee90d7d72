/*
 * report: the statistics of a replay as text, for stdout and `-S FILE`.
 * The first lines are those of the original I/O Riot, so that scripts
 * which read them keep working; per-syscall tables follow.  The same
 * figures are available as JSON.
 */
#ifndef IORIOT_REPORT_H
#define IORIOT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ioriot/cgroup.h"
#include "ioriot/diskstats.h"
#include "ioriot/replay.h"
#include "ioriot/uncaptured.h"

struct report_info {
	const char *name;		/* test name from the replay file */
	/* The configuration the run stands for (--label, or the sandboxes'
	 * file systems and schedulers); NULL: none. */
	const char *label;
	bool label_given;		/* --label, not the default */
	double loadavg_max;		/* highest 1-minute load average seen */
	/* The block devices under the sandboxes (diskstats_delta_of()),
	 * each with the indices of the sandboxes it serves in @sandboxes,
	 * the sandboxes of this host. */
	const struct disk_figures *disks;
	size_t ndisks;
	char *const *sandboxes;
	size_t nsandboxes;
	/* --cgroup: the cgroup the replay ran in (NULL: none) and the I/O
	 * limits in force in it at the start (NULL: none read). */
	const char *cgroup;
	const struct cgroup_limits *cgroup_limits;
	int interrupted_by;		/* the signal that stopped it, or 0 */
	/* Wall clock (ns since the epoch) at the replay's start and end, and
	 * the test host's name (NULL: not known); JSON only. */
	uint64_t started_ns, finished_ns;
	const char *host;
	/* --start-at's target (ns since the epoch), 0 if none: then the
	 * summary's start skew and clock state are reported. */
	uint64_t start_at_ns;
	/* The capture's syscalls it did not record (the replay file's
	 * header); NULL or unknown: not printed, JSON null. */
	const struct uncaptured *uncaptured;
	/* The io_uring requests the generator did not write, by opcode
	 * name (the header's uring_skipped line); NULL or unknown: not
	 * printed, JSON null. */
	const struct uncaptured *uring_skipped;
	/* --copies: each copy's own figures (the summary is their sum);
	 * NULL and 0 without copies. */
	const struct replay_summary *copies;
	const uint64_t *copy_offsets_ns;	/* when each started, after
						 * the first */
	size_t ncopies;
};

/* Write the report of @sum to @f.  Returns 0 or -errno (a write error). */
int report_write(FILE *f, const struct report_info *info,
		 const struct replay_summary *sum);

/* The JSON form's format_version: raised when a member changes meaning or
 * goes away (new members do not raise it). */
#define REPORT_JSON_VERSION 1

/* Wall-clock time @ns (since the epoch) as an ISO 8601 UTC string, or
 * null for 0.  Write errors show in @f's error flag. */
void report_json_utc(FILE *f, uint64_t ns);

/* Histogram @h as "@key": [[LE, COUNT], ...], its non-empty buckets
 * only; LE is the largest value bucket b holds (replay_hist_top()).
 * Write errors show in @f's error flag. */
void report_json_histogram(FILE *f, const char *key,
			   const uint64_t h[REPLAY_HIST_BUCKETS]);

/* Write the same figures as one JSON object (members in docs/stats.md,
 * JSON).  Returns 0 or -errno (a write error). */
int report_write_json(FILE *f, const struct report_info *info,
		      const struct replay_summary *sum);

#endif
