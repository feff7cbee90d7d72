/*
 * text: the analysis as readable tables on a terminal, in the manner of
 * the replay statistics (docs/analyze.md shows an example).  Names from
 * the input are printed through text_write().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ioriot/textsafe.h"

#define U64 "%" PRIu64
/* Timelines longer than this print only their busiest intervals. */
#define TIMELINE_ALL 30
#define TIMELINE_BUSIEST 10

/* @v bytes with a binary unit, in @buf. */
static const char *human(uint64_t v, char buf[32])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	double d = (double)v;
	int u = 0;

	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	snprintf(buf, 32, u ? "%.1f %s" : "%.0f %s", d, units[u]);
	return buf;
}

/* @num / @den as a percentage, "-" when @den is 0. */
static const char *pct(uint64_t num, uint64_t den, char buf[16])
{
	if (den)
		snprintf(buf, 16, "%.0f%%", 100.0 * (double)num / (double)den);
	else
		snprintf(buf, 16, "-");
	return buf;
}

/* The threads' time: in calls, and between them on a CPU (the capture
 * probe's part of it too), waiting (for a CPU too) or unknown
 * (docs/analyze.md). */
static void thread_time(FILE *f, const struct an_gaps *g)
{
	uint64_t all = g->calls_ns + g->gap_ns;
	char p1[16], p2[16], p3[16];

	if (!all)
		return;
	fprintf(f, "  %-22s %s in calls, %s on a CPU between them",
		"Thread time", pct(g->calls_ns, all, p1),
		pct(g->gap_cpu_ns, all, p2));
	/* probe=: the capture's own, which --think does not burn. */
	if (g->gap_probe_ns)
		fprintf(f, " (%s the capture probe's)",
			pct(g->gap_probe_ns, all, p1));
	fprintf(f, ", %s waiting", pct(g->gap_known_ns - g->gap_cpu_ns, all, p3));
	/* runq=: the capture host's CPUs, which --think does not sleep. */
	if (g->gap_runq_ns)
		fprintf(f, " (%s for a CPU)", pct(g->gap_runq_ns, all, p1));
	if (g->gap_ns > g->gap_known_ns)
		fprintf(f, ", %s not known (no cpu=)",
			pct(g->gap_ns - g->gap_known_ns, all, p1));
	fputc('\n', f);
}

static void totals(FILE *f, const struct an *a)
{
	char b[32];
	uint64_t ws = a->files.other.ws_bytes;

	for (size_t i = 0; i < a->files.n; i++)
		ws += a->files.rows[i].ws_bytes;
	fprintf(f, "Analysis of %s (%s, version %d", a->src.path,
		a->src.replay ? "replay file" : "capture log", a->src.version);
	if (a->src.host) {
		fputs(", host ", f);
		text_write(f, a->src.host, true);
	}
	if (a->src.kernel) {
		fputs(", kernel ", f);
		text_write(f, a->src.kernel, true);
	}
	fprintf(f, ")\n");
	fprintf(f, "  %-22s %.3f s\n", "Duration", (double)a->duration_ns / 1e9);
	fprintf(f, "  %-22s " U64 " (" U64 " failed)\n", "Operations", a->ops,
		a->failed);
	fprintf(f, "  %-22s " U64 " (%s)\n", "Bytes read", a->bytes_read,
		human(a->bytes_read, b));
	fprintf(f, "  %-22s " U64 " (%s)\n", "Bytes written", a->bytes_written,
		human(a->bytes_written, b));
	fprintf(f, "  %-22s " U64 " (%s)\n", "Working set", ws, human(ws, b));
	fprintf(f, "  %-22s %zu, threads %zu\n", "Processes",
		a->procs.n, a->threads.n);
	fprintf(f, "  %-22s %zu, directories %zu\n", "Files",
		a->files.n, a->dirs.n);
	thread_time(f, &a->gaps);
	if (a->files.other_used || a->procs.other_used ||
	    a->threads.other_used || a->dirs.other_used)
		fprintf(f, "  (tables capped at %zu rows: the rest is summed "
			"in \"(other)\" rows)\n", a->files.max);
}

static void syscalls(FILE *f, const struct an *a)
{
	enum sys_id ids[SYS_COUNT];
	size_t n = an_syscalls_by_ops(a, ids);

	fprintf(f, "\nSyscalls\n  %-22s %-6s %12s %10s %14s %14s\n", "name",
		"class", "ops", "failed", "bytes", "time ns");
	for (size_t i = 0; i < n; i++) {
		const struct an_sys *s = &a->sys[ids[i]];
		fprintf(f, "  %-22s %-6s %12" PRIu64 " %10" PRIu64 " %14" PRIu64
			" %14" PRIu64 "\n", sys_info(ids[i])->replay_name,
			sys_class_name(sys_class_of(ids[i])), s->ops, s->failed,
			s->bytes, s->time_ns);
	}
}

static void latency(FILE *f, const struct an *a)
{
	fprintf(f, "\nCaptured latency in ns (calls; percentiles are upper "
		"bounds of power-of-two buckets)\n  %-6s %12s %10s %10s %10s "
		"%10s %12s\n", "class", "calls", "p50", "p90", "p99", "p99.9",
		"max");
	for (int c = 0; c < CLS_COUNT; c++) {
		const struct an_hist *h = &a->cls[c].lat;
		if (!h->count)
			continue;
		fprintf(f, "  %-6s %12" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %10" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n",
			sys_class_name((enum sys_class)c), h->count,
			an_hist_percentile(h, 50), an_hist_percentile(h, 90),
			an_hist_percentile(h, 99), an_hist_percentile(h, 99.9),
			h->max);
	}
}

static void sizes(FILE *f, const struct an *a)
{
	const struct an_hist *r = &a->read_sizes, *w = &a->write_sizes;

	fprintf(f, "\nRequest sizes (bytes, up to)\n  %12s %12s %12s\n",
		"size <=", "reads", "writes");
	for (unsigned b = 0; b < AN_BUCKETS; b++)
		if (r->h[b] || w->h[b])
			fprintf(f, "  %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
				an_bucket_top(b), r->h[b], w->h[b]);
}

static void sync_lines(FILE *f, const struct an *a)
{
	const struct an_hist *h = &a->sync_between;
	double secs = (double)a->duration_ns / 1e9;
	char b[32];

	fprintf(f, "\nSyncs: " U64 " (%.2f/s)", a->syncs,
		secs > 0 ? (double)a->syncs / secs : 0.0);
	if (h->count)
		fprintf(f, "; bytes written to a file before its sync: mean %s, "
			"p50 <= " U64 ", p99 <= " U64 ", max " U64,
			human(h->sum / h->count, b), an_hist_percentile(h, 50),
			an_hist_percentile(h, 99), h->max);
	fputc('\n', f);
}

static void row(FILE *f, const struct an_table *t, const struct an_row *r,
		bool files, const char *name)
{
	char b1[32], b2[32], p1[16], p2[16], p3[16], p4[16];
	uint64_t all = r->time_ns + r->gap_ns;

	fprintf(f, "  %10" PRIu64 " %10s %10s %12.3f", r->ops,
		human(r->bytes_read, b1), human(r->bytes_written, b2),
		(double)r->time_ns / 1e6);
	if (files)
		fprintf(f, " %5s %5s %10s %6" PRIu64, pct(r->sequential,
			r->rw_requests, p1), pct(r->bytes_read, r->bytes_read +
			r->bytes_written, p2), human(r->ws_bytes, b1), r->syncs);
	else
		fprintf(f, " %5s %5s %5s %5s", pct(r->time_ns, all, p1),
			pct(r->gap_cpu_ns, all, p2),
			pct(r->gap_known_ns - r->gap_cpu_ns, all, p3),
			pct(r->gap_ns - r->gap_known_ns, all, p4));
	fputs("  ", f);
	if (name)
		fputs(name, f);
	else
		text_write(f, an_row_name(t, r), true);
	fputc('\n', f);
}

static int top_list(FILE *f, const char *what, const struct an_table *t,
		    enum an_key key, size_t n, bool files)
{
	static const char *const by[] = { "ops", "bytes", "time" };
	uint32_t *top = malloc((n ? n : 1) * sizeof(*top));
	struct an_row rest;

	if (!top)
		return -ENOMEM;
	size_t k = an_table_top(t, key, n, top);
	fprintf(f, "\nTop %zu %s by %s\n  %10s %10s %10s %12s", k, what,
		by[key], "ops", "read", "written", "time ms");
	if (files)
		fprintf(f, " %5s %5s %10s %6s", "seq", "read", "working", "syncs");
	else
		fprintf(f, " %5s %5s %5s %5s", "calls", "cpu", "wait", "unkn");
	fprintf(f, "  name\n");
	for (size_t i = 0; i < k; i++)
		row(f, t, an_row(t, top[i]), files, NULL);
	if (an_table_rest(t, top, k, &rest))
		row(f, t, &rest, files, "(other)");
	free(top);
	return 0;
}

static void timeline(FILE *f, const struct an *a)
{
	const struct an_timeline *tl = &a->tl;
	double secs = (double)tl->interval_ns / 1e9;
	bool all = tl->n <= TIMELINE_ALL;
	uint64_t floor_ops = 0;

	if (!all) {	/* the ops of the TIMELINE_BUSIEST-th busiest interval */
		uint64_t best[TIMELINE_BUSIEST] = { 0 };
		for (size_t i = 0; i < tl->n; i++) {
			uint64_t v = tl->rows[i].ops;
			for (int j = 0; j < TIMELINE_BUSIEST; j++)
				if (v > best[j]) {
					uint64_t t = best[j];
					best[j] = v;
					v = t;
				}
		}
		floor_ops = best[TIMELINE_BUSIEST - 1];
	}
	fprintf(f, "\nTimeline, %.0f s intervals%s\n  %10s %10s %10s %10s "
		"%12s %12s %9s %6s\n", secs, all ? "" : " (the busiest)",
		"t s", "ops", "IOPS", "reads", "read MB/s", "write MB/s",
		"inflight", "max");
	for (size_t i = 0, shown = 0; i < tl->n; i++) {
		const struct an_interval *r = &tl->rows[i];
		if (!all && (r->ops < floor_ops || !r->ops ||
			     shown == TIMELINE_BUSIEST))
			continue;
		shown++;
		fprintf(f, "  %10.0f %10" PRIu64 " %10.1f %10" PRIu64
			" %12.3f %12.3f %9.2f %6" PRIu64 "\n", (double)i * secs,
			r->ops, (double)r->ops / secs, r->read_ops,
			(double)r->read_bytes / 1e6 / secs,
			(double)r->write_bytes / 1e6 / secs,
			(double)r->busy_ns / (double)tl->interval_ns,
			r->max_in_flight);
	}
}

static void not_replayed(FILE *f, const struct an *a)
{
	const struct gen_summary *g = a->gen;
	const struct uncaptured *u = g ? &g->uncaptured : &a->rhead->uncaptured;

	fprintf(f, "\nNot replayed\n");
	if (g) {
		fprintf(f, "  %-50s " U64 "\n", "events lost by the probe",
			g->lost_events);
		for (int i = 0; i < GF_COUNT; i++)
			if (g->filtered[i])
				fprintf(f, "  %-50s " U64 "\n",
					gen_filter_name((enum gen_filter)i),
					g->filtered[i]);
		for (int i = 0; i < 256; i++)
			if (g->uring_skipped[i]) {
				fprintf(f, "  io_uring requests not replayed: ");
				struct uncaptured *s = malloc(sizeof(*s));
				if (s && generate_uring_skipped(g, s))
					uncaptured_print_all(f, s, false);
				free(s);
				fputc('\n', f);
				break;
			}
	} else {
		fprintf(f, "  (a replay file: what the generator left out is "
			"not in it)\n");
		if (a->rhead->uring_skipped.known) {
			fprintf(f, "  io_uring requests not replayed: ");
			uncaptured_print_all(f, &a->rhead->uring_skipped, false);
			fputc('\n', f);
		}
	}
	if (u->known) {
		fprintf(f, "  syscalls not captured: ");
		if (!u->n)
			fprintf(f, "none");
		uncaptured_print_all(f, u, false);
		fputc('\n', f);
	} else {
		fprintf(f, "  syscalls not captured: not counted\n");
	}
}

int an_print_text(const struct an *a, FILE *out, unsigned top)
{
	static const struct {
		const char *what;
		size_t off;
		bool files;
	} tables[] = {
		{ "files", offsetof(struct an, files), true },
		{ "directories", offsetof(struct an, dirs), true },
		{ "processes", offsetof(struct an, procs), false },
		{ "threads", offsetof(struct an, threads), false },
	};
	int rc = 0;

	totals(out, a);
	syscalls(out, a);
	latency(out, a);
	sizes(out, a);
	sync_lines(out, a);
	for (size_t i = 0; i < 4 && !rc; i++) {
		const struct an_table *t = (const void *)((const char *)a +
							  tables[i].off);
		for (int k = 0; k < 3 && !rc; k++)
			rc = top_list(out, tables[i].what, t, (enum an_key)k,
				      top, tables[i].files);
	}
	timeline(out, a);
	not_replayed(out, a);
	return rc;
}
