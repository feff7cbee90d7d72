/*
 * histogram: the histograms of the replay statistics (latencies per
 * syscall, start lateness, throttle delays), all of one log-linear scheme
 * as HdrHistogram's: a value below 64 ns has a bucket of its own; above,
 * each power of two [2^e, 2^(e+1)) is split into 32 buckets of 2^(e-5)
 * ns.  A bucket stands for its midpoint, within 1/64 (1.6%) of any value
 * it holds, so a percentile is too.  Pure functions, no errors.
 */
#include "ioriot/replay.h"

#define SUB_BITS 5			/* 32 buckets per power of two */
#define SUB (1u << SUB_BITS)

unsigned replay_hist_bucket(uint64_t ns)
{
	unsigned e;

	if (ns > INT64_MAX)
		ns = INT64_MAX;
	if (ns < 2 * SUB)
		return (unsigned)ns;
	e = 63 - (unsigned)__builtin_clzll(ns);
	return (e - SUB_BITS + 1) * SUB +
	       (unsigned)((ns >> (e - SUB_BITS)) & (SUB - 1));
}

/* The smallest value bucket @b holds, and the log2 of its width. */
static uint64_t bucket_low(unsigned b, unsigned *width_log2)
{
	unsigned shift = b / SUB - 1;

	if (b < 2 * SUB) {
		*width_log2 = 0;
		return b;
	}
	*width_log2 = shift;
	return (uint64_t)(SUB + b % SUB) << shift;
}

uint64_t replay_hist_top(unsigned b)
{
	unsigned w;
	uint64_t low;

	if (b >= REPLAY_HIST_BUCKETS)
		b = REPLAY_HIST_BUCKETS - 1;
	low = bucket_low(b, &w);
	return low + ((1ULL << w) - 1);
}

uint64_t replay_hist_value(unsigned b)
{
	unsigned w;
	uint64_t low;

	if (b >= REPLAY_HIST_BUCKETS)
		b = REPLAY_HIST_BUCKETS - 1;
	low = bucket_low(b, &w);
	return low + ((1ULL << w) >> 1);
}

uint64_t replay_hist_percentile(const uint64_t h[REPLAY_HIST_BUCKETS],
				double pct)
{
	uint64_t total = 0, seen = 0, want;
	unsigned i;

	for (i = 0; i < REPLAY_HIST_BUCKETS; i++)
		total += h[i];
	if (!total)
		return 0;
	want = (uint64_t)((double)total * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (i = 0; i + 1 < REPLAY_HIST_BUCKETS; i++) {
		seen += h[i];
		if (seen >= want)
			break;
	}
	return replay_hist_value(i);
}
