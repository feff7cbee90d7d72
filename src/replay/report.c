/*
 * The text statistics of a replay (report.h): the original's summary
 * lines, then one row per syscall that was replayed with its operations,
 * bytes, results that differed from the capture (replay_result_compare())
 * and the short ones among them, and latency percentiles of the replay
 * beside those of the capture, and the differing results by what the
 * replay got; or all of it as JSON.  The syscalls the capture did not
 * record come from the replay file's header.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "ioriot/json.h"
#include "ioriot/report.h"
#include "ioriot/syscalls.h"
#include "ioriot/textsafe.h"
#include "ioriot/version.h"

static const double percentiles[] = { 50, 95, 99, 99.9 };
#define NPCT (sizeof(percentiles) / sizeof(percentiles[0]))

/* ns as microseconds with one decimal. */
static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* The @i-th percentile of @h, capped at the histogram's maximum. */
static uint64_t bound(const uint64_t *h, uint64_t max, size_t i)
{
	uint64_t b = replay_hist_percentile(h, percentiles[i]);

	return b < max ? b : max;
}

static void latency_cells(FILE *f, const uint64_t *h, uint64_t max)
{
	for (size_t i = 0; i < NPCT; i++)
		fprintf(f, " %9.1f", us(bound(h, max, i)));
	fprintf(f, " %9.1f", us(max));
}

/* The name of result slot @i: "short", "more", "value", "OK", "ELOOP",
 * ..., "other". */
static const char *result_name(int i, char buf[16])
{
	const char *name;

	switch (i) {
	case REPLAY_RESULT_OK: return "OK";
	case REPLAY_RESULT_EOTHER: return "other";
	case REPLAY_RESULT_SHORT: return "short";
	case REPLAY_RESULT_MORE: return "more";
	case REPLAY_RESULT_VALUE: return "value";
	}
	name = strerrorname_np(i);
	if (name)
		return name;
	snprintf(buf, 16, "E%d", i);
	return buf;
}

/* "NAME COUNT" pairs of the differing results of @s, or JSON members:
 * the successes with another value first, then OK and the errnos.  In the
 * text the short ones say how many bytes they lacked. */
static void differ_list(FILE *f, const struct replay_summary *sum, int s,
			bool json)
{
	const char *sep = "";
	char buf[16];

	for (int k = 0; k < REPLAY_RESULT_SLOTS; k++) {
		int i = (k + REPLAY_RESULT_SHORT) % REPLAY_RESULT_SLOTS;
		uint64_t n = sum->differ_by_result[s][i];

		if (!n)
			continue;
		fprintf(f, json ? "%s\"%s\": %" PRIu64 : "%s%s %" PRIu64, sep,
			result_name(i, buf), n);
		if (!json && i == REPLAY_RESULT_SHORT)
			fprintf(f, " (%" PRIu64 " bytes fewer)",
				sum->sys[s].short_bytes);
		sep = ", ";
	}
}

/* The results of @sum that differ from the capture. */
static uint64_t differ_total(const struct replay_summary *sum)
{
	uint64_t n = 0;

	for (int s = 0; s < SYS_COUNT; s++)
		n += sum->sys[s].differ;
	return n;
}

static double ops_per_s(const struct replay_summary *sum)
{
	return sum->duration_ns ? (double)sum->ops * 1e9 /
				  (double)sum->duration_ns : 0.0;
}

/* --copies: a row per copy. */
static void copies_table(FILE *f, const struct report_info *info)
{
	if (!info->ncopies)
		return;
	fprintf(f, "\nCopies (--copies; each in sandboxes %s.K of its own, the "
		"figures above are their sum)\n%-6s %10s %12s %12s %10s %10s "
		"%10s\n", info->name, "copy", "start s", "ioops", "ioops/s",
		"time s", "timelines", "differ");
	for (size_t k = 0; k < info->ncopies; k++) {
		const struct replay_summary *c = &info->copies[k];

		fprintf(f, "%-6zu %10.3f %12" PRIu64 " %12.2f %10.3f %10" PRIu64
			" %10" PRIu64 "\n", k + 1,
			(double)info->copy_offsets_ns[k] / 1e9, c->ops,
			ops_per_s(c), (double)c->duration_ns / 1e9,
			c->timelines, differ_total(c));
	}
}

static void copies_json(FILE *f, const struct report_info *info)
{
	if (!info->ncopies) {
		fprintf(f, "  \"copies\": null,\n");
		return;
	}
	fprintf(f, "  \"copies\": [");
	for (size_t k = 0; k < info->ncopies; k++) {
		const struct replay_summary *c = &info->copies[k];

		fprintf(f, "%s\n    {\"copy\": %zu, \"start_offset_ns\": %"
			PRIu64 ", \"performed_ioops\": %" PRIu64
			", \"average_ioops_per_s\": %.2f, \"total_time_ns\": %"
			PRIu64 ", \"timelines\": %" PRIu64 ", \"differ\": %"
			PRIu64 "}", k ? "," : "", k + 1,
			info->copy_offsets_ns[k], c->ops, ops_per_s(c),
			c->duration_ns, c->timelines, differ_total(c));
	}
	fprintf(f, "\n  ],\n");
}

static const char *const class_names[REPLAY_RATE_CLASSES] = {
	[REPLAY_RATE_READ] = "read", [REPLAY_RATE_WRITE] = "write",
};

/* One kind of cap (@v its per-class values, @shared: one for both, @unit
 * "ops" or "MB") as "1000 ops/s of reads and writes together" or "700
 * ops/s of reads, 300 ops/s of writes", after *@sep; nothing if none. */
static void cap_text(FILE *f, const double *v, bool shared, const char *unit,
		     const char **sep)
{
	if (shared && v[0] > 0) {
		fprintf(f, "%s%.15g %s/s of reads and writes together", *sep,
			v[0], unit);
		*sep = ", ";
		return;
	}
	for (int c = 0; c < REPLAY_RATE_CLASSES && !shared; c++) {
		if (!(v[c] > 0))
			continue;
		fprintf(f, "%s%.15g %s/s of %ss", *sep, v[c], unit,
			class_names[c]);
		*sep = ", ";
	}
}

/* The caps and the delay they added, in the text form. */
static void rate_text(FILE *f, const struct replay_summary *sum)
{
	const char *sep = "";

	fputs("\tRate cap (per process): ", f);
	cap_text(f, sum->rate.iops, sum->rate.iops_shared, "ops", &sep);
	cap_text(f, sum->rate.mbps, sum->rate.mbps_shared, "MB", &sep);
	fputc('\n', f);
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		const struct replay_throttle_stats *t = &sum->throttle[c];

		fprintf(f, "\tThrottled %ss: %" PRIu64 " of %" PRIu64
			", delay total %.3fs, p50/p99/max %.1f/%.1f/%.1f us "
			"(not in their latency)\n", class_names[c], t->throttled,
			t->ops, (double)t->delay_ns / 1e9, us(t->delay_p50_ns),
			us(t->delay_p99_ns), us(t->delay_max_ns));
	}
}

/* One kind of cap as JSON: null, {"total": N}, or {"read": N or null,
 * "write": N or null}. */
static void cap_json(FILE *f, const double *v, bool shared)
{
	if (shared && v[0] > 0) {
		fprintf(f, "{\"total\": %.15g}", v[0]);
		return;
	}
	if (shared || (!(v[0] > 0) && !(v[1] > 0))) {
		fputs("null", f);
		return;
	}
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		fprintf(f, "%s\"%s\": ", c ? ", " : "{", class_names[c]);
		if (v[c] > 0)
			fprintf(f, "%.15g", v[c]);
		else
			fputs("null", f);
	}
	fputc('}', f);
}

/* The "rate_limit" member: null for a replay without caps. */
static void rate_json(FILE *f, const struct replay_summary *sum)
{
	fputs("  \"rate_limit\": ", f);
	if (!replay_rate_capped(&sum->rate)) {
		fputs("null,\n", f);
		return;
	}
	fputs("{\"per\": \"process\", \"iops\": ", f);
	cap_json(f, sum->rate.iops, sum->rate.iops_shared);
	fputs(", \"mbps\": ", f);
	cap_json(f, sum->rate.mbps, sum->rate.mbps_shared);
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		const struct replay_throttle_stats *t = &sum->throttle[c];

		fprintf(f, ",\n    \"%s\": {\"ops\": %" PRIu64
			", \"throttled\": %" PRIu64 ", \"delay_total_ns\": %"
			PRIu64 ", \"delay_ns\": {\"p50\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}}",
			class_names[c], t->ops, t->throttled, t->delay_ns,
			t->delay_p50_ns, t->delay_p99_ns, t->delay_max_ns);
	}
	fputs("},\n", f);
}

static int finish(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

/* --start-at: the target, the skew and the clock's state. */
static void start_text(FILE *f, const struct report_info *info,
		       const struct replay_summary *sum)
{
	const struct replay_clock *c = &sum->clock;
	time_t secs = (time_t)(info->start_at_ns / 1000000000u);
	struct tm utc;
	char when[32] = "?";

	if (gmtime_r(&secs, &utc))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &utc);
	fprintf(f, "\tStart at: %s.%09lluZ, skew %+.1f us (started - "
		"target)\n", when,
		(unsigned long long)(info->start_at_ns % 1000000000u),
		(double)sum->start_skew_ns / 1e3);
	if (!c->known) {
		fprintf(f, "\tClock: unknown (adjtimex failed)\n");
		return;
	}
	fprintf(f, "\tClock: %s, NTP offset %+.1f us, max error %.1f us, "
		"estimated error %.1f us (adjtimex)\n",
		c->synchronised ? "synchronised" : "not synchronised",
		(double)c->offset_ns / 1e3, (double)c->maxerror_ns / 1e3,
		(double)c->esterror_ns / 1e3);
}

/* Percent @part of @whole (0 when @whole is 0). */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

double replay_gap_share(const struct replay_summary *sum)
{
	uint64_t all = sum->cap_call_ns + sum->cap_gap_ns;

	return all ? (double)sum->cap_gap_ns / (double)all : 0;
}

const char *replay_prediction_note(const struct replay_summary *sum)
{
	if (sum->pacing == REPLAY_PACE_THINK ||
	    replay_gap_share(sum) < REPLAY_GAP_SHARE_NOTE)
		return NULL;
	if (sum->pacing == REPLAY_PACE_FAST)
		return "-s 0 leaves out the captured threads' time between "
		       "calls: its total time is not a prediction of the "
		       "program's (--think keeps that time)";
	return "-s F replays at the captured times, so it cannot run faster "
	       "than the capture and does not stretch with slower calls: its "
	       "total time is not a prediction of the program's (--think "
	       "keeps the time between calls instead)";
}

/* The pacing and the captured threads' time, in words. */
static void pacing_text(FILE *f, const struct replay_summary *sum)
{
	const char *note = replay_prediction_note(sum);

	fprintf(f, "\tPacing: %s", replay_pacing_name(sum->pacing));
	if (sum->pacing == REPLAY_PACE_TIMED)
		fprintf(f, " (-s %g: at the captured times)", sum->speed);
	else if (sum->pacing == REPLAY_PACE_THINK)
		fprintf(f, " (--think: the gaps between calls kept, waits / %g, "
			"CPU / %g)", sum->speed, sum->cpu_scale);
	else
		fputs(" (-s 0: as fast as possible)", f);
	fprintf(f, "\n\tCaptured thread time: %.3fs in calls, %.3fs between "
		"calls (%.1f%%), of which %.3fs known on a CPU\n",
		(double)sum->cap_call_ns / 1e9, (double)sum->cap_gap_ns / 1e9,
		pct(sum->cap_gap_ns, sum->cap_call_ns + sum->cap_gap_ns),
		(double)sum->cap_gap_cpu_ns / 1e9);
	if (sum->pacing == REPLAY_PACE_THINK)
		fprintf(f, "\tThink time replayed: %.3fs slept, %.3fs on a CPU "
			"(left out: %.3fs of the capture probe's own, %.3fs "
			"the capture's waits for a CPU, %.3fs of daemons' "
			"timer sleeps cut to where the work was)\n",
			(double)sum->think_sleep_ns / 1e9,
			(double)sum->think_cpu_ns / 1e9,
			(double)sum->think_probe_ns / 1e9,
			(double)sum->think_runq_ns / 1e9,
			(double)sum->think_cut_ns / 1e9);
	if (note)
		fprintf(f, "\tNote: %.0f%% of the captured threads' time lies "
			"between calls; %s\n", 100 * replay_gap_share(sum), note);
}

/* The replayed operations of @sum by class (sys_class_of()): each
 * class's figures summed into @cls (CLS_COUNT entries, zeroed). */
static void class_stats(const struct replay_summary *sum,
			struct replay_sys_stats *cls)
{
	for (int s = 0; s < SYS_COUNT; s++)
		if (sum->sys[s].ops)
			replay_sys_stats_add(&cls[sys_class_of((enum sys_id)s)],
					     &sum->sys[s]);
}

/* The latency table by class: the figure a comparison of storage setups
 * looks at first (sync above all), whatever the busiest syscalls. */
static void classes_text(FILE *f, const struct replay_summary *sum)
{
	struct replay_sys_stats *cls = calloc(CLS_COUNT, sizeof(*cls));

	if (!cls)
		return;
	class_stats(sum, cls);
	fprintf(f, "\nLatency in us by class (replay)\n%-18s %10s", "class",
		"ops");
	for (size_t p = 0; p < sizeof(percentiles) / sizeof(*percentiles); p++)
		fprintf(f, " %9s", percentiles[p] == 99.9 ? "p99.9" :
			percentiles[p] == 99 ? "p99" :
			percentiles[p] == 95 ? "p95" : "p50");
	fprintf(f, " %9s\n", "max");
	for (int c = 0; c < CLS_COUNT; c++) {
		if (!cls[c].ops)
			continue;
		fprintf(f, "%-18s %10llu", sys_class_name((enum sys_class)c),
			(unsigned long long)cls[c].ops);
		latency_cells(f, cls[c].lat, cls[c].lat_max);
		fputc('\n', f);
	}
	free(cls);
}

/* The sandboxes device @d serves, a comma list (text) or a JSON array. */
static void device_sandboxes(FILE *f, const struct report_info *info,
			     const struct disk_figures *d, bool json)
{
	size_t n = d->dev ? d->dev->nsandboxes : 0;

	fputs(json ? "[" : "", f);
	for (size_t k = 0; k < n; k++) {
		size_t root = d->dev->sandboxes[k];
		const char *path = root < info->nsandboxes ?
				   info->sandboxes[root] : "?";

		fputs(k ? (json ? ", " : ",") : "", f);
		if (json)
			json_write_string(f, path);
		else
			text_write(f, path, false);
	}
	fputs(json ? "]" : "", f);
}

/* The block devices under the sandboxes, as iostat -x, each with the
 * sandboxes it serves ("(slave)": under a dm or md device). */
static void disks_text(FILE *f, const struct report_info *info)
{
	if (info->ndisks)
		fprintf(f, "\nBlock devices under the sandboxes (from "
			"/proc/diskstats, as iostat -x)\n%-16s %10s %10s %9s "
			"%9s %9s %9s %6s  %s\n", "device", "r/s", "w/s",
			"rMB/s", "wMB/s", "r_await", "w_await", "%util",
			"sandboxes");
	for (size_t i = 0; i < info->ndisks; i++) {
		const struct disk_figures *d = &info->disks[i];

		fprintf(f, "%-16s %10.1f %10.1f %9.2f %9.2f %9.2f %9.2f "
			"%6.1f  ", d->name, d->rd_per_s, d->wr_per_s,
			d->rd_mb_per_s, d->wr_mb_per_s, d->rd_await_ms,
			d->wr_await_ms, d->util_pct);
		if (d->dev && d->dev->slave)
			fputs("(slave) ", f);
		device_sandboxes(f, info, d, false);
		fputc('\n', f);
	}
}

/* --cgroup: the cgroup and its I/O limits, a line each. */
static void cgroup_text(FILE *f, const struct report_info *info)
{
	const struct cgroup_limits *l = info->cgroup_limits;

	if (!info->cgroup)
		return;
	fputs("\tCgroup: ", f);
	text_write(f, info->cgroup, false);
	if (!l || !l->n)
		fputs(" (no I/O limits)", f);
	fputc('\n', f);
	for (size_t i = 0; l && i < l->n; i++) {
		fprintf(f, "\tCgroup limit %s: ", l->v[i].file);
		for (const char *p = l->v[i].value; *p; p++)
			fputc(*p == '\n' ? ';' : *p, f);
		fputc('\n', f);
	}
}

int report_write(FILE *f, const struct report_info *info,
		 const struct replay_summary *sum)
{
	double secs = (double)sum->duration_ns / 1e9;

	fprintf(f, "Stats of test '%s':\n", info->name);
	if (info->label) {
		fputs("\tLabel: ", f);
		text_write(f, info->label, false);
		fputc('\n', f);
	}
	if (info->interrupted_by)
		fprintf(f, "\tInterrupted: by SIG%s, before the end of the "
			"replay file\n", sigabbrev_np(info->interrupted_by) ?
			sigabbrev_np(info->interrupted_by) : "?");
	if (replay_incomplete(sum))
		fprintf(f, "\tIncomplete: %llu operations found the test mount "
			"full (ENOSPC, EDQUOT), %llu met I/O errors (EIO)\n",
			(unsigned long long)sum->disk_full_ops,
			(unsigned long long)sum->io_error_ops);
	fprintf(f, "\tNum workers: %llu\n", (unsigned long long)sum->workers);
	fprintf(f, "\tThreads per worker: %llu\n",
		(unsigned long long)sum->threads_per_worker);
	fprintf(f, "\tTotal threads: %llu\n", (unsigned long long)sum->threads);
	fprintf(f, "\tHighest loadavg: %.2f\n", info->loadavg_max);
	fprintf(f, "\tPerformed ioops: %llu\n", (unsigned long long)sum->ops);
	if (secs > 0)
		fprintf(f, "\tAverage ioops/s: %.2f\n", (double)sum->ops / secs);
	fprintf(f, "\tTime ahead: %.3fs\n", (double)sum->ahead_ns / 1e9);
	fprintf(f, "\tTotal time: %.2fs\n", secs);
	fprintf(f, "\tTimelines: %llu\n", (unsigned long long)sum->timelines);
	fprintf(f, "\tProcesses: %llu\n", (unsigned long long)sum->processes);
	fprintf(f, "\tCaptured time: %.3fs (the operations')\n",
		(double)sum->captured_ns / 1e9);
	pacing_text(f, sum);
	if (sum->setid_stripped)
		fprintf(f, "\tSet-user/group-ID bits not replayed: %llu "
			"operations\n", (unsigned long long)sum->setid_stripped);
	if (sum->uring_flags_dropped)
		fprintf(f, "\tio_uring rings without some captured setup flags: "
			"%llu\n", (unsigned long long)sum->uring_flags_dropped);
	if (sum->over_limit)
		fprintf(f, "\tNot replayed (beyond the replay's limits): %llu "
			"operations\n", (unsigned long long)sum->over_limit);
	if (sum->timed)
		fprintf(f, "\tStart lateness p50/p99/max: %.1f/%.1f/%.1f us\n",
			us(sum->lateness_p50_ns), us(sum->lateness_p99_ns),
			us(sum->lateness_max_ns));
	if (replay_rate_capped(&sum->rate))
		rate_text(f, sum);
	cgroup_text(f, info);

	if (info->start_at_ns)
		start_text(f, info, sum);
	if (info->uncaptured && info->uncaptured->known) {
		fprintf(f, "\tNot replayed (not captured): ");
		if (!uncaptured_file_io(info->uncaptured))
			fprintf(f, "none");
		uncaptured_print_file_io(f, info->uncaptured, false);
		fprintf(f, "\n\tOther syscalls not captured: %" PRIu64
			" (not file I/O)\n", uncaptured_other(info->uncaptured));
	}
	if (info->uring_skipped && info->uring_skipped->known) {
		fprintf(f, "\tio_uring requests not replayed: ");
		if (!info->uring_skipped->n)
			fprintf(f, "none");
		uncaptured_print_all(f, info->uring_skipped, false);
		fputc('\n', f);
	}
	copies_table(f, info);

	fprintf(f, "\nLatency in us (replay, then capture; percentiles "
		"within 1.6%%)\n");
	fprintf(f, "%-18s %10s %14s %8s %8s %9s %9s %9s %9s %9s %9s %9s %9s "
		"%9s %9s\n", "syscall", "ops", "bytes", "differ", "short", "p50",
		"p95", "p99", "p99.9", "max", "cap p50", "cap p95", "cap p99",
		"cap p99.9", "cap max");
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct replay_sys_stats *st = &sum->sys[s];

		if (!st->ops)
			continue;
		fprintf(f, "%-18s %10llu %14llu %8llu %8llu",
			sys_info(s)->replay_name, (unsigned long long)st->ops,
			(unsigned long long)st->bytes,
			(unsigned long long)st->differ,
			(unsigned long long)st->short_ops);
		latency_cells(f, st->lat, st->lat_max);
		latency_cells(f, st->cap_lat, st->cap_lat_max);
		fputc('\n', f);
	}
	classes_text(f, sum);
	disks_text(f, info);
	for (int s = 0, first = 1; s < SYS_COUNT; s++) {
		if (!sum->sys[s].differ)
			continue;
		if (first)
			fprintf(f, "\nDiffering results (what the replay got; "
				"short: fewer bytes than captured, more: more, "
				"value: another value, OK: success where the "
				"capture failed)\n");
		first = 0;
		fprintf(f, "%-18s ", sys_info(s)->replay_name);
		differ_list(f, sum, s, false);
		fputc('\n', f);
	}
	return finish(f);
}

static void json_latency(FILE *f, const char *key, const uint64_t *h,
			 uint64_t max)
{
	static const char *const names[NPCT] = { "p50", "p95", "p99", "p99.9" };

	fprintf(f, "\"%s\": {", key);
	for (size_t i = 0; i < NPCT; i++)
		fprintf(f, "\"%s\": %" PRIu64 ", ", names[i], bound(h, max, i));
	fprintf(f, "\"max\": %" PRIu64 "}", max);
}

void report_json_histogram(FILE *f, const char *key,
			   const uint64_t h[REPLAY_HIST_BUCKETS])
{
	const char *sep = "";

	fprintf(f, "\"%s\": [", key);
	for (unsigned b = 0; b < REPLAY_HIST_BUCKETS; b++) {
		if (!h[b])
			continue;
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 "]", sep,
			replay_hist_top(b), h[b]);
		sep = ", ";
	}
	fputc(']', f);
}

/* "start_at": the target, the skew, the clock; null without --start-at. */
static void json_start_at(FILE *f, const struct report_info *info,
			  const struct replay_summary *sum)
{
	const struct replay_clock *c = &sum->clock;

	if (!info->start_at_ns) {
		fputs("  \"start_at\": null,\n", f);
		return;
	}
	fprintf(f, "  \"start_at\": {\"target_ns\": %" PRIu64 ", \"skew_ns\": %"
		PRId64 ", \"clock\": ", info->start_at_ns, sum->start_skew_ns);
	if (c->known)
		fprintf(f, "{\"synchronised\": %s, \"state\": %d, "
			"\"status\": %d, \"offset_ns\": %" PRId64
			", \"maxerror_ns\": %" PRId64 ", \"esterror_ns\": %"
			PRId64 "}", c->synchronised ? "true" : "false",
			c->state, c->status, c->offset_ns, c->maxerror_ns,
			c->esterror_ns);
	else
		fputs("null", f);
	fputs("},\n", f);
}

static void json_string_or_null(FILE *f, const char *s)
{
	if (s)
		json_write_string(f, s);
	else
		fputs("null", f);
}

void report_json_utc(FILE *f, uint64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm utc;
	char when[32];

	if (!ns || !gmtime_r(&secs, &utc) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &utc)) {
		fputs("null", f);
		return;
	}
	fprintf(f, "\"%s\"", when);
}

/* "classes": per class of the replayed operations, "ops" and the
 * replayed "latency_ns" percentiles (stats.md). */
static void classes_json(FILE *f, const struct replay_summary *sum)
{
	struct replay_sys_stats *cls = calloc(CLS_COUNT, sizeof(*cls));
	const char *sep = "";

	if (!cls) {
		fputs("  \"classes\": null,\n", f);
		return;
	}
	class_stats(sum, cls);
	fputs("  \"classes\": {", f);
	for (int c = 0; c < CLS_COUNT; c++) {
		if (!cls[c].ops)
			continue;
		fprintf(f, "%s\n    \"%s\": {\"ops\": %" PRIu64 ", ", sep,
			sys_class_name((enum sys_class)c), cls[c].ops);
		json_latency(f, "latency_ns", cls[c].lat, cls[c].lat_max);
		fputc('}', f);
		sep = ",";
	}
	fprintf(f, "%s},\n", *sep ? "\n  " : "");
	free(cls);
}

/* "pacing", "speed", "cpu_scale", "captured_thread_time_ns",
 * "think_replayed_ns" and "prediction_note" (stats.md). */
static void pacing_json(FILE *f, const struct replay_summary *sum)
{
	const char *note = replay_prediction_note(sum);

	fprintf(f, "  \"pacing\": \"%s\",\n  \"speed\": %g,\n"
		"  \"cpu_scale\": ", replay_pacing_name(sum->pacing),
		sum->speed);
	if (sum->pacing == REPLAY_PACE_THINK)
		fprintf(f, "%g", sum->cpu_scale);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"captured_thread_time_ns\": {\"calls\": %" PRIu64
		", \"gaps\": %" PRIu64 ", \"gaps_on_cpu\": %" PRIu64 "},\n",
		sum->cap_call_ns, sum->cap_gap_ns, sum->cap_gap_cpu_ns);
	if (sum->pacing == REPLAY_PACE_THINK)
		fprintf(f, "  \"think_replayed_ns\": {\"sleep\": %" PRIu64
			", \"cpu\": %" PRIu64 ", \"probe_left_out\": %" PRIu64
			", \"runq_left_out\": %" PRIu64 ", \"cut_to_work\": %"
			PRIu64 "},\n",
			sum->think_sleep_ns, sum->think_cpu_ns,
			sum->think_probe_ns, sum->think_runq_ns,
			sum->think_cut_ns);
	else
		fputs("  \"think_replayed_ns\": null,\n", f);
	fputs("  \"prediction_note\": ", f);
	json_string_or_null(f, note);
	fputs(",\n", f);
}

/* "cgroup" and "cgroup_limits": an object of file: [lines], or null. */
static void cgroup_json(FILE *f, const struct report_info *info)
{
	const struct cgroup_limits *l = info->cgroup_limits;

	fputs("  \"cgroup\": ", f);
	json_string_or_null(f, info->cgroup);
	fputs(",\n  \"cgroup_limits\": ", f);
	if (!info->cgroup || !l) {
		fputs("null,\n", f);
		return;
	}
	fputc('{', f);
	for (size_t i = 0; i < l->n; i++) {
		const char *p = l->v[i].value;

		fputs(i ? ", " : "", f);
		json_write_string(f, l->v[i].file);
		fputs(": [", f);
		for (bool first = true; *p; first = false) {
			size_t len = strcspn(p, "\n");
			char *line = strndup(p, len);

			fputs(first ? "" : ", ", f);
			json_write_string(f, line ? line : "");
			free(line);
			p += len + (p[len] == '\n');
		}
		fputc(']', f);
	}
	fputs("},\n", f);
}

int report_write_json(FILE *f, const struct report_info *info,
		      const struct replay_summary *sum)
{
	double secs = (double)sum->duration_ns / 1e9;
	const char *sep = "";

	fprintf(f, "{\n  \"format\": \"ioriot-stats\",\n"
		"  \"format_version\": %d,\n  \"ioriot_version\": ",
		REPORT_JSON_VERSION);
	json_write_string(f, ioriot_version());
	fprintf(f, ",\n  \"host\": ");
	json_string_or_null(f, info->host);
	fprintf(f, ",\n  \"started\": ");
	report_json_utc(f, info->started_ns);
	fprintf(f, ",\n  \"finished\": ");
	report_json_utc(f, info->finished_ns);
	fprintf(f, ",\n  \"started_ns\": %" PRIu64 ",\n  \"finished_ns\": %"
		PRIu64, info->started_ns, info->finished_ns);
	fprintf(f, ",\n  \"test\": ");
	json_write_string(f, info->name);
	fprintf(f, ",\n  \"label\": ");
	json_string_or_null(f, info->label);
	fprintf(f, ",\n  \"label_given\": %s", info->label_given ? "true" :
							      "false");
	fprintf(f, ",\n  \"interrupted\": %s",
		info->interrupted_by ? "true" : "false");
	fprintf(f, ",\n  \"disk_full\": %s,\n  \"disk_full_ops\": %" PRIu64
		",\n  \"io_error_ops\": %" PRIu64, sum->disk_full_ops ? "true" :
		"false", sum->disk_full_ops, sum->io_error_ops);
	fprintf(f, ",\n  \"workers\": %" PRIu64 ",\n  \"threads_per_worker\": %"
		PRIu64 ",\n  \"threads\": %" PRIu64, sum->workers,
		sum->threads_per_worker, sum->threads);
	fprintf(f, ",\n  \"processes\": %" PRIu64 ",\n  \"timelines\": %" PRIu64
		",\n  \"highest_loadavg\": %.2f,\n  \"performed_ioops\": %" PRIu64
		",\n  \"average_ioops_per_s\": %.2f,\n  \"time_ahead_ns\": %" PRId64
		",\n  \"total_time_ns\": %" PRIu64 ",\n  \"captured_time_ns\": %" PRIu64
		",\n  \"setid_stripped\": %" PRIu64 ",\n"
		"  \"uring_flags_dropped\": %" PRIu64 ",\n"
		"  \"over_limit\": %" PRIu64 ",\n", sum->processes,
		sum->timelines, info->loadavg_max, sum->ops,
		secs > 0 ? (double)sum->ops / secs : 0.0, sum->ahead_ns,
		sum->duration_ns, sum->captured_ns, sum->setid_stripped,
		sum->uring_flags_dropped, sum->over_limit);
	pacing_json(f, sum);
	if (sum->timed)
		fprintf(f, "  \"start_lateness_ns\": {\"p50\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "},\n",
			sum->lateness_p50_ns, sum->lateness_p99_ns,
			sum->lateness_max_ns);
	else
		fprintf(f, "  \"start_lateness_ns\": null,\n");
	if (sum->timed) {
		fputs("  ", f);
		report_json_histogram(f, "start_lateness_histogram",
				      sum->lateness);
		fputs(",\n", f);
	} else {
		fputs("  \"start_lateness_histogram\": null,\n", f);
	}
	json_start_at(f, info, sum);
	rate_json(f, sum);
	if (info->uncaptured && info->uncaptured->known) {
		fprintf(f, "  \"uncaptured\": {\"not_replayed\": {");
		uncaptured_print_file_io(f, info->uncaptured, true);
		fprintf(f, "}, \"other\": %" PRIu64 "},\n",
			uncaptured_other(info->uncaptured));
	} else {
		fprintf(f, "  \"uncaptured\": null,\n");
	}
	if (info->uring_skipped && info->uring_skipped->known) {
		fprintf(f, "  \"uring_not_replayed\": {");
		uncaptured_print_all(f, info->uring_skipped, true);
		fprintf(f, "},\n");
	} else {
		fprintf(f, "  \"uring_not_replayed\": null,\n");
	}
	copies_json(f, info);
	cgroup_json(f, info);
	fprintf(f, "  \"syscalls\": {");
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct replay_sys_stats *st = &sum->sys[s];

		if (!st->ops)
			continue;
		fprintf(f, "%s\n    \"%s\": {\"ops\": %" PRIu64 ", \"bytes\": %"
			PRIu64 ", \"differ\": %" PRIu64 ", \"short\": %" PRIu64
			", \"short_bytes\": %" PRIu64 ", ", sep,
			sys_info(s)->replay_name, st->ops, st->bytes, st->differ,
			st->short_ops, st->short_bytes);
		json_latency(f, "latency_ns", st->lat, st->lat_max);
		fprintf(f, ", ");
		json_latency(f, "captured_latency_ns", st->cap_lat,
			     st->cap_lat_max);
		fprintf(f, ", ");
		report_json_histogram(f, "latency_histogram", st->lat);
		fprintf(f, ", ");
		report_json_histogram(f, "captured_latency_histogram",
				      st->cap_lat);
		fprintf(f, ", \"differ_by_result\": {");
		differ_list(f, sum, s, true);
		fprintf(f, "}}");
		sep = ",";
	}
	fprintf(f, "\n  },\n");
	classes_json(f, sum);
	fprintf(f, "  \"block_devices\": [");
	for (size_t i = 0; i < info->ndisks; i++) {
		const struct disk_figures *d = &info->disks[i];

		fprintf(f, "%s\n    {\"device\": ", i ? "," : "");
		json_write_string(f, d->name);
		fprintf(f, ", \"r_per_s\": %.1f, \"w_per_s\": %.1f, "
			"\"r_mb_per_s\": %.3f, \"w_mb_per_s\": %.3f, "
			"\"r_await_ms\": %.3f, \"w_await_ms\": %.3f, "
			"\"util_pct\": %.1f, \"role\": \"%s\", \"sandboxes\": ",
			d->rd_per_s, d->wr_per_s, d->rd_mb_per_s,
			d->wr_mb_per_s, d->rd_await_ms, d->wr_await_ms,
			d->util_pct, d->dev && d->dev->slave ? "slave" :
			"mount");
		device_sandboxes(f, info, d, true);
		fputc('}', f);
	}
	fprintf(f, "%s]\n}\n", info->ndisks ? "\n  " : "");
	return finish(f);
}
