/*
 * histogram: the two histograms of the replay statistics.  Latencies per
 * syscall use log2 buckets (replay.h); start lateness, which is judged
 * against a 100 us target, uses buckets of 1/16 of a power of two, so its
 * percentiles are within 6.25% of the true value.
 */
#include "ioriot/replay.h"

/* The bucket in which @pct percent of the @n buckets of @h are reached, or
 * @n for an empty histogram. */
static unsigned percentile_bucket(const uint64_t *h, unsigned n, double pct)
{
	uint64_t total = 0, seen = 0, want;
	unsigned i;

	for (i = 0; i < n; i++)
		total += h[i];
	if (!total)
		return n;
	want = (uint64_t)((double)total * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (i = 0; i + 1 < n; i++) {
		seen += h[i];
		if (seen >= want)
			break;
	}
	return i;
}

uint64_t replay_percentile(const uint64_t h[REPLAY_LATENCY_BUCKETS],
			   double pct)
{
	unsigned b = percentile_bucket(h, REPLAY_LATENCY_BUCKETS, pct);

	return b == REPLAY_LATENCY_BUCKETS || b == 0 ? 0 : 1ULL << b;
}

unsigned replay_latency_bucket(uint64_t ns)
{
	unsigned b = ns ? 64 - (unsigned)__builtin_clzll(ns) : 0;

	return b < REPLAY_LATENCY_BUCKETS ? b : REPLAY_LATENCY_BUCKETS - 1;
}

/* Values below 16 have a bucket each; above, a power of two 2^e is split
 * into 16 buckets of 2^(e-4) ns. */
unsigned replay_lateness_bucket(uint64_t ns)
{
	unsigned e;

	if (ns < 16)
		return (unsigned)ns;
	e = 63 - (unsigned)__builtin_clzll(ns);
	return (e - 3) * 16 + (unsigned)((ns >> (e - 4)) & 15);
}

uint64_t replay_lateness_bucket_top(unsigned b)
{
	unsigned e = b / 16 + 3, sub = b % 16;

	if (b < 16)
		return b;
	if (e == 63 && sub == 15)
		return UINT64_MAX;
	return ((16ULL + sub) << (e - 4)) + (1ULL << (e - 4)) - 1;
}

uint64_t replay_lateness_percentile(const uint64_t h[REPLAY_LATENESS_BUCKETS],
				    double pct)
{
	unsigned b = percentile_bucket(h, REPLAY_LATENESS_BUCKETS, pct);

	return b == REPLAY_LATENESS_BUCKETS ? 0 : replay_lateness_bucket_top(b);
}
