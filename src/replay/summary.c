/*
 * summary: the arithmetic of replay summaries (replay.h): the lateness
 * percentiles from the histogram, and the sum of several replays run at
 * once (--copies).
 */
#include "ioriot/replay.h"
#include "rate.h"

const char *replay_pacing_name(enum replay_pacing p)
{
	switch (p) {
	case REPLAY_PACE_TIMED:
		return "timed";
	case REPLAY_PACE_THINK:
		return "think";
	default:
		return "fast";
	}
}

bool replay_incomplete(const struct replay_summary *sum)
{
	return sum->disk_full_ops || sum->io_error_ops;
}

void replay_summary_lateness(struct replay_summary *sum)
{
	if (!sum->timed)
		return;
	sum->lateness_p50_ns = replay_hist_percentile(sum->lateness, 50);
	sum->lateness_p99_ns = replay_hist_percentile(sum->lateness, 99);
	if (sum->lateness_p99_ns > sum->lateness_max_ns)
		sum->lateness_p99_ns = sum->lateness_max_ns;
	if (sum->lateness_p50_ns > sum->lateness_max_ns)
		sum->lateness_p50_ns = sum->lateness_max_ns;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void replay_sys_stats_add(struct replay_sys_stats *d,
			  const struct replay_sys_stats *s)
{
	if (!s->ops)		/* nothing counted: all 0 */
		return;
	d->ops += s->ops;
	d->bytes += s->bytes;
	d->differ += s->differ;
	d->short_ops += s->short_ops;
	d->short_bytes += s->short_bytes;
	for (int i = 0; i < REPLAY_HIST_BUCKETS; i++) {
		d->lat[i] += s->lat[i];
		d->cap_lat[i] += s->cap_lat[i];
	}
	d->lat_max = max_u64(d->lat_max, s->lat_max);
	d->cap_lat_max = max_u64(d->cap_lat_max, s->cap_lat_max);
}

void replay_summary_add(struct replay_summary *dst,
			const struct replay_summary *src, bool first)
{
	if (first) {
		*dst = *src;
		return;
	}
	dst->ops += src->ops;
	dst->timelines += src->timelines;
	dst->processes += src->processes;
	dst->threads += src->threads;
	dst->workers += src->workers;
	dst->threads_per_worker = max_u64(dst->threads_per_worker,
					  src->threads_per_worker);
	dst->duration_ns = max_u64(dst->duration_ns, src->duration_ns);
	/* The start skew and clock stay the first copy's: it starts at the
	 * target, the others after it (--stagger). */
	if (src->started_ns < dst->started_ns)
		dst->started_ns = src->started_ns;
	dst->captured_ns = max_u64(dst->captured_ns, src->captured_ns);
	if (src->ahead_ns < dst->ahead_ns)
		dst->ahead_ns = src->ahead_ns;
	dst->lateness_max_ns = max_u64(dst->lateness_max_ns,
				       src->lateness_max_ns);
	for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
		dst->lateness[i] += src->lateness[i];
	dst->setid_stripped += src->setid_stripped;
	dst->cap_call_ns += src->cap_call_ns;
	dst->cap_gap_ns += src->cap_gap_ns;
	dst->cap_gap_cpu_ns += src->cap_gap_cpu_ns;
	dst->think_sleep_ns += src->think_sleep_ns;
	dst->disk_full_ops += src->disk_full_ops;
	dst->io_error_ops += src->io_error_ops;
	dst->think_cpu_ns += src->think_cpu_ns;
	dst->think_probe_ns += src->think_probe_ns;
	dst->think_runq_ns += src->think_runq_ns;
	dst->think_cut_ns += src->think_cut_ns;
	dst->uring_flags_dropped += src->uring_flags_dropped;
	dst->over_limit += src->over_limit;
	for (int s = 0; s < SYS_COUNT; s++) {
		replay_sys_stats_add(&dst->sys[s], &src->sys[s]);
		for (int i = 0; i < REPLAY_RESULT_SLOTS; i++)
			dst->differ_by_result[s][i] +=
				src->differ_by_result[s][i];
	}
	replay_summary_lateness(dst);
	/* Each copy had the caps (they hold per process); their delays add
	 * up. */
	rate_merge(dst->throttle, src->throttle);
	rate_finish(dst->throttle);
}
