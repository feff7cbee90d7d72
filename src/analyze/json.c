/*
 * json: the analysis as one JSON object, in the format docs/analyze.md
 * specifies (field names fixed: the HTML report reads them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ioriot/json.h"

#define U64 "%" PRIu64

static void str_or_null(FILE *f, const char *s)
{
	if (s)
		json_write_string(f, s);
	else
		fputs("null", f);
}

/* @num / @den as a JSON number, null when @den is 0. */
static void share(FILE *f, uint64_t num, uint64_t den)
{
	if (den)
		fprintf(f, "%.6g", (double)num / (double)den);
	else
		fputs("null", f);
}

/* Non-empty buckets of @h, ascending, as [{"KEY": bound, "count": n}]. */
static void buckets(FILE *f, const struct an_hist *h, const char *key)
{
	const char *sep = "";

	fputc('[', f);
	for (unsigned b = 0; b < AN_BUCKETS; b++) {
		if (!h->h[b])
			continue;
		fprintf(f, "%s{\"%s\": " U64 ", \"count\": " U64 "}", sep, key,
			an_bucket_top(b), h->h[b]);
		sep = ", ";
	}
	fputc(']', f);
}

/* A row; @other: the sum of the rows outside the top list. */
static void row(FILE *f, const struct an_table *t, const struct an_row *r,
		bool files, bool other)
{
	fputs("{\"name\": ", f);
	str_or_null(f, other ? NULL : an_row_name(t, r));
	if (other)
		fputs(", \"other\": true", f);
	fprintf(f, ", \"ops\": " U64 ", \"bytes_read\": " U64
		", \"bytes_written\": " U64 ", \"time_ns\": " U64, r->ops,
		r->bytes_read, r->bytes_written, r->time_ns);
	if (files) {
		fputs(", \"sequential_share\": ", f);
		share(f, r->sequential, r->rw_requests);
		fputs(", \"read_share\": ", f);
		share(f, r->bytes_read, r->bytes_read + r->bytes_written);
		fprintf(f, ", \"working_set_bytes\": " U64 ", \"syncs\": " U64
			", \"bytes_between_syncs_mean\": ", r->ws_bytes,
			r->syncs);
		if (r->syncs)
			fprintf(f, U64, r->synced_bytes / r->syncs);
		else
			fputs("null", f);
	} else {
		fprintf(f, ", \"gaps_ns\": " U64 ", \"on_cpu_ns\": " U64
			", \"waiting_ns\": " U64 ", \"unknown_ns\": " U64,
			r->gap_ns, r->gap_cpu_ns,
			r->gap_known_ns - r->gap_cpu_ns,
			r->gap_ns - r->gap_known_ns);
	}
	fputc('}', f);
}

/* One top list: the first @n rows by @key and a row for the rest. */
static int top_list(FILE *f, const struct an_table *t, enum an_key key,
		    size_t n, bool files)
{
	uint32_t *top = malloc((n ? n : 1) * sizeof(*top));
	struct an_row rest;

	if (!top)
		return -ENOMEM;
	size_t k = an_table_top(t, key, n, top);
	fputc('[', f);
	for (size_t i = 0; i < k; i++) {
		fputs(i ? ",\n        " : "\n        ", f);
		row(f, t, an_row(t, top[i]), files, false);
	}
	if (an_table_rest(t, top, k, &rest)) {
		fputs(k ? ",\n        " : "\n        ", f);
		row(f, t, &rest, files, true);
	}
	fputc(']', f);
	free(top);
	return 0;
}

static int top_table(FILE *f, const char *name, const struct an_table *t,
		     size_t n, bool files, bool last)
{
	static const char *const keys[] = { "by_ops", "by_bytes", "by_time" };
	int rc = 0;

	fprintf(f, "    \"%s\": {", name);
	for (int k = 0; k < 3 && !rc; k++) {
		fprintf(f, "%s\n      \"%s\": ", k ? "," : "", keys[k]);
		rc = top_list(f, t, (enum an_key)k, n, files);
	}
	fprintf(f, "}%s\n", last ? "" : ",");
	return rc;
}

static void source(FILE *f, const struct an *a)
{
	fputs("  \"source\": {\"path\": ", f);
	json_write_string(f, a->src.path);
	fprintf(f, ", \"kind\": \"%s\", \"version\": %d, \"host\": ",
		a->src.replay ? "replay" : "capture", a->src.version);
	str_or_null(f, a->src.host);
	fputs(", \"kernel\": ", f);
	str_or_null(f, a->src.kernel);
	fputs("},\n", f);
}

/* The threads' time in calls and in the gaps between them, in ns and
 * as shares of their sum (docs/analyze.md). */
static void thread_time(FILE *f, const struct an_gaps *g)
{
	uint64_t all = g->calls_ns + g->gap_ns;
	uint64_t wait = g->gap_known_ns - g->gap_cpu_ns;
	uint64_t unknown = g->gap_ns - g->gap_known_ns;

	fprintf(f, "\"thread_time\": {\"calls_ns\": " U64 ", \"gaps_ns\": " U64
		", \"on_cpu_ns\": " U64 ", \"probe_ns\": " U64
		", \"waiting_ns\": " U64 ", \"runq_ns\": " U64
		", \"unknown_ns\": " U64 ", \"calls_share\": ", g->calls_ns,
		g->gap_ns, g->gap_cpu_ns, g->gap_probe_ns, wait,
		g->gap_runq_ns, unknown);
	share(f, g->calls_ns, all);
	fputs(", \"on_cpu_share\": ", f);
	share(f, g->gap_cpu_ns, all);
	fputs(", \"waiting_share\": ", f);
	share(f, wait, all);
	fputs(", \"unknown_share\": ", f);
	share(f, unknown, all);
	fputc('}', f);
}

static void totals(FILE *f, const struct an *a)
{
	uint64_t ws = a->files.other.ws_bytes;

	for (size_t i = 0; i < a->files.n; i++)
		ws += a->files.rows[i].ws_bytes;
	fprintf(f, "  \"totals\": {\"duration_ns\": " U64 ", \"operations\": "
		U64 ", \"failed\": " U64 ", \"bytes_read\": " U64
		", \"bytes_written\": " U64 ", \"processes\": %zu, "
		"\"threads\": %zu, \"files\": %zu, \"directories\": %zu, "
		"\"working_set_bytes\": " U64 ", \"syncs\": " U64
		", \"rows_capped\": %s, ", a->duration_ns, a->ops, a->failed,
		a->bytes_read, a->bytes_written, a->procs.n, a->threads.n,
		a->files.n, a->dirs.n, ws, a->syncs,
		a->files.other_used || a->dirs.other_used ||
		a->procs.other_used || a->threads.other_used ? "true" : "false");
	thread_time(f, &a->gaps);
	fputs("},\n", f);
}

/* qsort of syscall ids by ops, highest first, then by name. */
static const struct an *sort_an;

static int by_ops(const void *x, const void *y)
{
	enum sys_id a = *(const enum sys_id *)x, b = *(const enum sys_id *)y;

	if (sort_an->sys[a].ops != sort_an->sys[b].ops)
		return sort_an->sys[a].ops > sort_an->sys[b].ops ? -1 : 1;
	return strcmp(sys_info(a)->replay_name, sys_info(b)->replay_name);
}

size_t an_syscalls_by_ops(const struct an *a, enum sys_id *out)
{
	size_t n = 0;

	for (int s = 0; s < SYS_COUNT; s++)
		if (a->sys[s].ops)
			out[n++] = (enum sys_id)s;
	sort_an = a;
	qsort(out, n, sizeof(*out), by_ops);
	return n;
}

static void syscalls(FILE *f, const struct an *a)
{
	enum sys_id ids[SYS_COUNT] = { 0 };
	size_t n = an_syscalls_by_ops(a, ids);

	fputs("  \"syscalls\": [", f);
	for (size_t i = 0; i < n; i++) {
		const struct an_sys *s = &a->sys[ids[i]];
		fprintf(f, "%s\n    {\"name\": \"%s\", \"class\": \"%s\", "
			"\"ops\": " U64 ", \"failed\": " U64 ", \"bytes\": " U64
			", \"time_ns\": " U64 "}", i ? "," : "",
			sys_info(ids[i])->replay_name,
			sys_class_name(sys_class_of(ids[i])), s->ops, s->failed,
			s->bytes, s->time_ns);
	}
	fputs("],\n", f);
}

static void classes(FILE *f, const struct an *a)
{
	fputs("  \"classes\": [", f);
	for (int c = 0; c < CLS_COUNT; c++) {
		const struct an_class_stats *s = &a->cls[c];
		const struct an_hist *h = &s->lat;
		fprintf(f, "%s\n    {\"class\": \"%s\", \"ops\": " U64
			", \"time_ns\": " U64 ", \"latency\": {\"count\": " U64
			", \"p50_ns\": " U64 ", \"p90_ns\": " U64 ", \"p99_ns\": "
			U64 ", \"p999_ns\": " U64 ", \"max_ns\": " U64
			", \"buckets\": ", c ? "," : "",
			sys_class_name((enum sys_class)c), s->ops, s->time_ns,
			h->count, an_hist_percentile(h, 50),
			an_hist_percentile(h, 90), an_hist_percentile(h, 99),
			an_hist_percentile(h, 99.9), h->max);
		buckets(f, h, "le_ns");
		fputs("}}", f);
	}
	fputs("],\n", f);
}

static void sync_section(FILE *f, const struct an *a)
{
	const struct an_hist *h = &a->sync_between;
	double secs = (double)a->duration_ns / 1e9;

	fprintf(f, "  \"sync\": {\"calls\": " U64 ", \"per_second\": %.6g, "
		"\"bytes_between\": {\"count\": " U64 ", \"mean\": " U64
		", \"p50\": " U64 ", \"p99\": " U64 ", \"max\": " U64 "}},\n",
		a->syncs, secs > 0 ? (double)a->syncs / secs : 0.0, h->count,
		h->count ? h->sum / h->count : 0, an_hist_percentile(h, 50),
		an_hist_percentile(h, 99), h->max);
}

static void timeline(FILE *f, const struct an *a)
{
	const struct an_timeline *tl = &a->tl;

	fprintf(f, "  \"timeline\": {\"interval_ns\": " U64 ", \"rows\": [",
		tl->interval_ns);
	for (size_t i = 0; i < tl->n; i++) {
		const struct an_interval *r = &tl->rows[i];
		fprintf(f, "%s\n    {\"t_ns\": " U64 ", \"ops\": " U64
			", \"read_ops\": " U64 ", \"write_ops\": " U64
			", \"read_bytes\": " U64 ", \"write_bytes\": " U64
			", \"in_flight_mean\": %.6g, \"in_flight_max\": " U64
			"}", i ? "," : "", (uint64_t)i * tl->interval_ns, r->ops,
			r->read_ops, r->write_ops, r->read_bytes, r->write_bytes,
			(double)r->busy_ns / (double)tl->interval_ns,
			r->max_in_flight);
	}
	fputs("]},\n", f);
}

static const struct an *stacks_of;	/* the analysis by_stack_ops sorts */

static int by_stack_ops(const void *x, const void *y)
{
	const struct an_stack *s = stacks_of->stacks;
	uint64_t a = s[*(const size_t *)x].ops, b = s[*(const size_t *)y].ops;

	return a < b ? 1 : a > b ? -1 : 0;
}

/*
 * The heaviest ANALYZE_JSON_STACKS folded stacks by ops, highest first,
 * then one "other" row summing the rest (absent when there is none): the
 * "folded" member, when stacks were collected.  A stack's path is null for
 * an operation without a file (sync), and for the files past the row cap
 * ("other_files": true).  0 or -ENOMEM.
 */
static int folded(FILE *f, const struct an *a)
{
	size_t *order, n = a->nstacks;
	uint64_t ops = 0, bytes = 0, time_ns = 0;

	if (!a->folding)
		return 0;
	if (!(order = malloc((n ? n : 1) * sizeof(*order))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	stacks_of = a;
	qsort(order, n, sizeof(*order), by_stack_ops);
	fputs("  \"folded\": [", f);
	for (size_t k = 0; k < n; k++) {
		const struct an_stack *s = &a->stacks[order[k]];
		uint32_t proc = (uint32_t)(s->key >> 40), file = (uint32_t)s->key;
		enum sys_id sys = (enum sys_id)((s->key >> 32) & 0xff);

		if (k >= ANALYZE_JSON_STACKS) {
			ops += s->ops;
			bytes += s->bytes;
			time_ns += s->time_ns;
			continue;
		}
		fprintf(f, "%s\n    {\"process\": ", k ? "," : "");
		str_or_null(f, proc == AN_STACK_PROC ? NULL :
			    an_row_name(&a->procs, an_row(&a->procs, proc)));
		fputs(", \"syscall\": ", f);
		json_write_string(f, sys_info(sys)->replay_name);
		fputs(", \"path\": ", f);
		str_or_null(f, file == AN_OTHER || file == AN_NONE ? NULL :
			    an_row_name(&a->files, an_row(&a->files, file)));
		if (file == AN_OTHER)
			fputs(", \"other_files\": true", f);
		fprintf(f, ", \"ops\": " U64 ", \"bytes\": " U64
			", \"time_ns\": " U64 "}", s->ops, s->bytes, s->time_ns);
	}
	if (n > ANALYZE_JSON_STACKS)
		fprintf(f, ",\n    {\"process\": null, \"syscall\": null, "
			"\"path\": null, \"ops\": " U64 ", \"bytes\": " U64
			", \"time_ns\": " U64 ", \"other\": true}", ops, bytes,
			time_ns);
	fputs("],\n", f);
	free(order);
	return 0;
}

/* @u as an object of counts, or null if unknown. */
static void counts(FILE *f, const struct uncaptured *u)
{
	if (!u || !u->known) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	uncaptured_print_all(f, u, true);
	fputc('}', f);
}

static int not_replayed(FILE *f, const struct an *a)
{
	struct uncaptured *skipped = malloc(sizeof(*skipped));
	const struct gen_summary *g = a->gen;
	const char *sep = "";

	if (!skipped)
		return -ENOMEM;
	fputs("  \"not_replayed\": {\"lost_events\": ", f);
	if (g)
		fprintf(f, U64, g->lost_events);
	else
		fputs("null", f);
	fputs(", \"uncaptured\": ", f);
	counts(f, g ? &g->uncaptured : &a->rhead->uncaptured);
	fputs(", \"filtered\": ", f);
	if (g) {
		fputc('{', f);
		for (int i = 0; i < GF_COUNT; i++) {
			if (!g->filtered[i])
				continue;
			fputs(sep, f);
			json_write_string(f, gen_filter_name((enum gen_filter)i));
			fprintf(f, ": " U64, g->filtered[i]);
			sep = ", ";
		}
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(", \"uring_skipped\": ", f);
	if (g)
		counts(f, generate_uring_skipped(g, skipped) ? skipped : NULL);
	else
		counts(f, &a->rhead->uring_skipped);
	if (g)
		fprintf(f, ", \"aio_iocbs_missing\": " U64
			", \"uring_sqes_missing\": " U64, g->aio_iocbs_missing,
			g->uring_sqes_missing);
	fputs("}\n", f);
	free(skipped);
	return 0;
}

int an_print_json(const struct an *a, FILE *out, unsigned top,
		  const char *version)
{
	int rc;

	fputs("{\n  \"format\": \"ioriot-analysis\", \"format_version\": 1,"
	      "\n  \"tool_version\": ", out);
	json_write_string(out, version);
	fputs(",\n", out);
	source(out, a);
	totals(out, a);
	syscalls(out, a);
	classes(out, a);
	fputs("  \"request_sizes\": {\"read\": ", out);
	buckets(out, &a->read_sizes, "le_bytes");
	fputs(", \"write\": ", out);
	buckets(out, &a->write_sizes, "le_bytes");
	fprintf(out, "},\n  \"top\": {\n    \"n\": %u,\n", top);
	rc = top_table(out, "files", &a->files, top, true, false);
	if (!rc)
		rc = top_table(out, "directories", &a->dirs, top, true, false);
	if (!rc)
		rc = top_table(out, "processes", &a->procs, top, false, false);
	if (!rc)
		rc = top_table(out, "threads", &a->threads, top, false, true);
	if (rc)
		return rc;
	fputs("  },\n", out);
	sync_section(out, a);
	timeline(out, a);
	rc = folded(out, a);
	if (!rc)
		rc = not_replayed(out, a);
	fputs("}\n", out);
	return rc;
}
