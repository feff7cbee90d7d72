/*
 * mergesum: the sum of a fleet's replay statistics as merge.c builds it
 * from the inputs and mergeout.c writes it (ioriot/merge.h).
 */
#ifndef IORIOT_STATS_MERGESUM_H
#define IORIOT_STATS_MERGESUM_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/replay.h"
#include "stats.h"

#define TEST_NAMES_MAX 1024	/* bytes of the test names joined */

/* A "name": count list (differ_by_result, uncaptured, uring_not_replayed). */
struct named {
	char *key;
	int64_t n;
};

struct namelist {
	struct named *v;
	size_t n, cap;
};

/* One syscall summed over the runs. */
struct msys {
	char *name;
	uint64_t ops, bytes, differ, short_ops, short_bytes;
	uint64_t lat[REPLAY_HIST_BUCKETS], cap_lat[REPLAY_HIST_BUCKETS];
	uint64_t lat_max, cap_lat_max;
	struct namelist by_result;
};

struct merge {
	struct compare *c;		/* the inputs, checked */
	char *const *paths;
	struct msys *sys;
	size_t nsys, capsys;
	bool timed;
	uint64_t lateness[REPLAY_HIST_BUCKETS], lateness_max;
	uint64_t first_start, last_end, last_finished;
	int64_t ahead;
	uint64_t ops, workers, threads_per_worker, threads, processes;
	uint64_t timelines, captured, setid, uring_dropped;
	double loadavg;
	bool interrupted;
	uint64_t disk_full_ops, io_error_ops, over_limit;	/* summed */
	bool have_uncaptured, have_uring;
	struct namelist not_replayed, uring;
	int64_t other;
	/* --start-at: every run had it, with the same target. */
	bool same_target;
	uint64_t target;
	int64_t worst_skew;
	uint64_t last_start;		/* of any run */
	/* --rate-iops, --rate-mbps: the caps every run had (the first run's
	 * "rate_limit", NULL for none), their throttling per class summed. */
	const json_t *rate;
	uint64_t rate_ops[2], throttled[2], delay_ns[2], delay_max[2];
	char test[TEST_NAMES_MAX];
};

/* The classes of "rate_limit", in the order of the merge's arrays. */
static const char *const merge_rate_classes[2] = { "read", "write" };

/* The type of @v, JSON_NULL for a missing member. */
static inline json_type type_of(const json_t *v)
{
	return v ? json_typeof(v) : JSON_NULL;
}

#endif
