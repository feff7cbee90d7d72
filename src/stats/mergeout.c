/*
 * mergeout: merge_write() (merge.h), the merged statistics as one JSON
 * document of the replay statistics' format (docs/stats.md): the sums,
 * the percentiles of the summed histograms, the hosts' rows and their
 * devices; members of the inputs copied as they were read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ioriot/merge.h"
#include "ioriot/report.h"
#include "ioriot/version.h"
#include "mergesum.h"

/* @d in as few digits as read back the same (the writer's "%.2f" stays
 * 0.24, not 0.23999999999999999). */
static void write_double(FILE *f, double d)
{
	char buf[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* A whole number must stay a double: "2" would read as an integer. */
	fprintf(f, "%s%s", buf, strpbrk(buf, ".eEn") ? "" : ".0");
}

/* @v as JSON, as read (a member copied from an input). */
static void write_value(FILE *f, const json_t *v)
{
	int64_t i;
	double d;

	switch (type_of(v)) {
	case JSON_NULL: fputs("null", f); return;
	case JSON_FALSE: fputs("false", f); return;
	case JSON_TRUE: fputs("true", f); return;
	case JSON_INTEGER:
		jv_int(v, &i);
		fprintf(f, "%" PRId64, i);
		return;
	case JSON_REAL:
		jv_number(v, &d);
		write_double(f, d);
		return;
	case JSON_STRING:
		json_write_string(f, json_string_value(v));
		return;
	case JSON_ARRAY:
		fputc('[', f);
		for (size_t k = 0; k < jv_count(v); k++) {
			if (k)
				fputs(", ", f);
			write_value(f, jv_at(v, k));
		}
		fputc(']', f);
		return;
	case JSON_OBJECT:
		fputc('{', f);
		for (size_t k = 0; k < jv_count(v); k++) {
			fputs(k ? ", " : "", f);
			json_write_string(f, jv_key(v, k));
			fputs(": ", f);
			write_value(f, jv_at(v, k));
		}
		fputc('}', f);
		return;
	}
}

/* Member @key of @doc as read, or null when it lacks it. */
static void copy_member(FILE *f, const json_t *doc, const char *key)
{
	const json_t *v = json_object_get(doc, key);

	if (v)
		write_value(f, v);
	else
		fputs("null", f);
}

static void write_namelist(FILE *f, const struct namelist *l)
{
	fputc('{', f);
	for (size_t i = 0; i < l->n; i++) {
		fputs(i ? ", " : "", f);
		json_write_string(f, l->v[i].key);
		fprintf(f, ": %" PRId64, l->v[i].n);
	}
	fputc('}', f);
}

/* Percentile @pct of @h, capped at @max, as the stats writer does. */
static uint64_t pct_of(const uint64_t *h, uint64_t max, double pct)
{
	uint64_t b = replay_hist_percentile(h, pct);

	return b < max ? b : max;
}

static void write_latency(FILE *f, const char *key, const uint64_t *h,
			  uint64_t max)
{
	fprintf(f, "\"%s\": {\"p50\": %" PRIu64 ", \"p95\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"p99.9\": %" PRIu64 ", \"max\": %"
		PRIu64 "}", key, pct_of(h, max, 50), pct_of(h, max, 95),
		pct_of(h, max, 99), pct_of(h, max, 99.9), max);
}

/* The "hosts" rows: one per input, or an input's own rows when it is a
 * merge itself. */
static void write_hosts(FILE *f, const struct merge *m)
{
	static const char *const keys[] = {
		"test", "started_ns", "finished_ns", "total_time_ns",
		"performed_ioops", "average_ioops_per_s", "time_ahead_ns",
		"highest_loadavg", "interrupted", "disk_full", "io_error_ops",
		"start_lateness_ns",
		"start_at", "rate_limit",
	};
	const char *sep = "\n    ";

	fputs("  \"hosts\": [", f);
	for (size_t i = 0; i < m->c->n; i++) {
		const json_t *doc = m->c->runs[i].doc;
		const json_t *rows = json_object_get(doc, "hosts");

		if (type_of(rows) == JSON_ARRAY) {
			for (size_t k = 0; k < jv_count(rows); k++) {
				fputs(sep, f);
				write_value(f, jv_at(rows, k));
				sep = ",\n    ";
			}
			continue;
		}
		fputs(sep, f);
		sep = ",\n    ";
		fputs("{\"host\": ", f);
		copy_member(f, doc, "host");
		fputs(", \"file\": ", f);
		json_write_string(f, m->paths[i]);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			fprintf(f, ", \"%s\": ", keys[k]);
			copy_member(f, doc, keys[k]);
		}
		fputc('}', f);
	}
	fputs("\n  ],\n", f);
}

/* "rate_limit": the runs' caps and their throttling summed; the delays'
 * p50 and p99 are null, since no input has the histogram to merge. */
static void write_rate(FILE *f, const struct merge *m)
{
	fputs("  \"rate_limit\": ", f);
	if (!m->rate) {
		fputs("null,\n", f);
		return;
	}
	fputs("{\"per\": ", f);
	copy_member(f, m->rate, "per");
	fputs(", \"iops\": ", f);
	copy_member(f, m->rate, "iops");
	fputs(", \"mbps\": ", f);
	copy_member(f, m->rate, "mbps");
	for (int c = 0; c < 2; c++)
		fprintf(f, ",\n    \"%s\": {\"ops\": %" PRIu64 ", \"throttled\": %"
			PRIu64 ", \"delay_total_ns\": %" PRIu64 ", \"delay_ns\": "
			"{\"p50\": null, \"p99\": null, \"max\": %" PRIu64 "}}",
			merge_rate_classes[c], m->rate_ops[c], m->throttled[c],
			m->delay_ns[c], m->delay_max[c]);
	fputs("},\n", f);
}

/* The block devices of every input, each named HOST:DEVICE (an input that
 * is a merge has them named so already). */
static void write_devices(FILE *f, const struct merge *m)
{
	const char *sep = "\n    ";
	char name[2 * COMPARE_LABEL_MAX];
	bool any = false;

	fputs("  \"block_devices\": [", f);
	for (size_t i = 0; i < m->c->n; i++) {
		const json_t *doc = m->c->runs[i].doc;
		const json_t *devs = json_object_get(doc, "block_devices");
		const char *host = jv_member_string(doc, "host");
		bool merged = json_object_get(doc, "hosts") != NULL;

		for (size_t k = 0; k < jv_count(devs); k++) {
			const json_t *d = jv_at(devs, k);

			fputs(sep, f);
			sep = ",\n    ";
			any = true;
			fputc('{', f);
			for (size_t j = 0; j < jv_count(d); j++) {
				const char *key = jv_key(d, j);

				fputs(j ? ", " : "", f);
				json_write_string(f, key);
				fputs(": ", f);
				if (strcmp(key, "device") || merged) {
					write_value(f, jv_at(d, j));
					continue;
				}
				snprintf(name, sizeof(name), "%s:%s",
					 host ? host : "?",
					 json_string_value(jv_at(d, j)));
				json_write_string(f, name);
			}
			fputc('}', f);
		}
	}
	fputs(any ? "\n  ]\n" : "]\n", f);
}

int merge_write(FILE *f, const struct merge *m)
{
	uint64_t span = m->last_end - m->first_start;
	const char *sep = "";

	fprintf(f, "{\n  \"format\": \"ioriot-stats\",\n"
		"  \"format_version\": %d,\n  \"ioriot_version\": ",
		REPORT_JSON_VERSION);
	json_write_string(f, ioriot_version());
	fprintf(f, ",\n  \"host\": null,\n  \"merged_runs\": %zu,\n"
		"  \"started\": ", m->c->n);
	report_json_utc(f, m->first_start);
	fputs(",\n  \"finished\": ", f);
	report_json_utc(f, m->last_finished);
	fprintf(f, ",\n  \"started_ns\": %" PRIu64 ",\n  \"finished_ns\": %"
		PRIu64 ",\n  \"test\": ", m->first_start, m->last_finished);
	json_write_string(f, m->test);
	fprintf(f, ",\n  \"interrupted\": %s,\n  \"disk_full\": %s,\n"
		"  \"disk_full_ops\": %" PRIu64 ",\n  \"io_error_ops\": %" PRIu64
		",\n  \"over_limit\": %" PRIu64,
		m->interrupted ? "true" : "false",
		m->disk_full_ops ? "true" : "false", m->disk_full_ops,
		m->io_error_ops, m->over_limit);
	fprintf(f, ",\n  \"workers\": %" PRIu64
		",\n  \"threads_per_worker\": %" PRIu64 ",\n  \"threads\": %"
		PRIu64 ",\n  \"processes\": %" PRIu64 ",\n  \"timelines\": %"
		PRIu64 ",\n  \"highest_loadavg\": %.2f,\n"
		"  \"performed_ioops\": %" PRIu64 ",\n"
		"  \"average_ioops_per_s\": %.2f,\n  \"time_ahead_ns\": %" PRId64
		",\n  \"total_time_ns\": %" PRIu64 ",\n  \"captured_time_ns\": %"
		PRIu64 ",\n  \"setid_stripped\": %" PRIu64 ",\n"
		"  \"uring_flags_dropped\": %" PRIu64 ",\n",
		m->workers, m->threads_per_worker, m->threads, m->processes,
		m->timelines, m->loadavg, m->ops, span ? (double)m->ops * 1e9 / (double)span :
		0.0, m->ahead, span, m->captured, m->setid, m->uring_dropped);
	if (m->timed) {
		uint64_t p50 = replay_hist_percentile(m->lateness, 50);
		uint64_t p99 = replay_hist_percentile(m->lateness, 99);

		fprintf(f, "  \"start_lateness_ns\": {\"p50\": %" PRIu64
			", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "},\n  ",
			p50 < m->lateness_max ? p50 : m->lateness_max,
			p99 < m->lateness_max ? p99 : m->lateness_max,
			m->lateness_max);
		report_json_histogram(f, "start_lateness_histogram",
				      m->lateness);
		fputs(",\n", f);
	} else {
		fputs("  \"start_lateness_ns\": null,\n"
		      "  \"start_lateness_histogram\": null,\n", f);
	}
	if (m->same_target)
		fprintf(f, "  \"start_at\": {\"target_ns\": %" PRIu64
			", \"skew_ns\": %" PRId64 ", \"spread_ns\": %" PRIu64
			", \"clock\": null},\n", m->target, m->worst_skew,
			m->last_start - m->first_start);
	else
		fputs("  \"start_at\": null,\n", f);
	if (m->have_uncaptured) {
		fputs("  \"uncaptured\": {\"not_replayed\": ", f);
		write_namelist(f, &m->not_replayed);
		fprintf(f, ", \"other\": %" PRId64 "},\n", m->other);
	} else {
		fputs("  \"uncaptured\": null,\n", f);
	}
	fputs("  \"uring_not_replayed\": ", f);
	if (m->have_uring)
		write_namelist(f, &m->uring);
	else
		fputs("null", f);
	fputs(",\n", f);
	write_rate(f, m);
	write_hosts(f, m);
	fputs("  \"syscalls\": {", f);
	for (size_t i = 0; i < m->nsys; i++) {
		const struct msys *s = &m->sys[i];

		fprintf(f, "%s\n    ", sep);
		json_write_string(f, s->name);
		fprintf(f, ": {\"ops\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"differ\": %" PRIu64 ", \"short\": %" PRIu64
			", \"short_bytes\": %" PRIu64 ", ", s->ops, s->bytes,
			s->differ, s->short_ops, s->short_bytes);
		write_latency(f, "latency_ns", s->lat, s->lat_max);
		fputs(", ", f);
		write_latency(f, "captured_latency_ns", s->cap_lat,
			      s->cap_lat_max);
		fputs(", ", f);
		report_json_histogram(f, "latency_histogram", s->lat);
		fputs(", ", f);
		report_json_histogram(f, "captured_latency_histogram",
				      s->cap_lat);
		fputs(", \"differ_by_result\": ", f);
		write_namelist(f, &s->by_result);
		fputc('}', f);
		sep = ",";
	}
	fputs("\n  },\n", f);
	write_devices(f, m);
	fputs("}\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

