/*
 * The text statistics of a replay (report.h): the original's summary
 * lines, then one row per syscall that was replayed with its operations,
 * bytes, results that differed from the capture, and latency percentiles
 * of the replay beside those of the capture.
 */
#include <errno.h>

#include "ioriot/report.h"
#include "ioriot/syscalls.h"

static const double percentiles[] = { 50, 95, 99, 99.9 };
#define NPCT (sizeof(percentiles) / sizeof(percentiles[0]))

/* ns as microseconds with one decimal. */
static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

static void latency_cells(FILE *f, const uint64_t *h, uint64_t max)
{
	for (size_t i = 0; i < NPCT; i++) {
		uint64_t bound = replay_percentile(h, percentiles[i]);

		fprintf(f, " %9.1f", us(bound < max ? bound : max));
	}
	fprintf(f, " %9.1f", us(max));
}

int report_write(FILE *f, const struct report_info *info,
		 const struct replay_summary *sum)
{
	double secs = (double)sum->duration_ns / 1e9;
	uint64_t per_process = sum->processes ?
		(sum->timelines + sum->processes - 1) / sum->processes : 0;

	fprintf(f, "Stats of test '%s':\n", info->name);
	fprintf(f, "\tNum workers: %llu\n", (unsigned long long)sum->processes);
	fprintf(f, "\tThreads per worker: %llu\n",
		(unsigned long long)per_process);
	fprintf(f, "\tThreads total: %llu\n", (unsigned long long)sum->timelines);
	fprintf(f, "\tHighest loadavg: %.2f\n", info->loadavg_max);
	fprintf(f, "\tPerformed ioops: %llu\n", (unsigned long long)sum->ops);
	if (secs > 0)
		fprintf(f, "\tAverage ioops/s: %.2f\n", (double)sum->ops / secs);
	fprintf(f, "\tTime ahead: %.3fs\n", (double)sum->ahead_ns / 1e9);
	fprintf(f, "\tTotal time: %.2fs\n", secs);
	fprintf(f, "\tCaptured time: %.2fs\n", (double)sum->captured_ns / 1e9);
	if (sum->timed)
		fprintf(f, "\tStart lateness p50/p99/max: %.1f/%.1f/%.1f us\n",
			us(sum->lateness_p50_ns), us(sum->lateness_p99_ns),
			us(sum->lateness_max_ns));

	fprintf(f, "\nLatency in us (replay, then capture; percentiles are "
		"upper bounds of power-of-two buckets)\n");
	fprintf(f, "%-18s %10s %14s %8s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n",
		"syscall", "ops", "bytes", "differ", "p50", "p95", "p99",
		"p99.9", "max", "cap p50", "cap p95", "cap p99", "cap p99.9",
		"cap max");
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct replay_sys_stats *st = &sum->sys[s];

		if (!st->ops)
			continue;
		fprintf(f, "%-18s %10llu %14llu %8llu", sys_info(s)->replay_name,
			(unsigned long long)st->ops,
			(unsigned long long)st->bytes,
			(unsigned long long)st->differ);
		latency_cells(f, st->lat, st->lat_max);
		latency_cells(f, st->cap_lat, st->cap_lat_max);
		fputc('\n', f);
	}
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
