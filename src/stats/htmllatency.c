/*
 * htmllatency: the replayed latency percentiles per class of operations
 * of every run ("classes"), then per syscall those captured on the
 * original host beside those of every replay run (captured_latency_ns
 * and latency_ns): the sync calls, which storage setups change most,
 * always, then the syscalls with the most operations over all runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "ioriot/syscalls.h"

#define MAX_LATENCY_SYSCALLS 12	/* besides the sync calls */
#define CAPTURED_COLOUR "#8b95a3"

/* A syscall of some run, with the operations of all runs. */
struct sys_total {
	const char *name;
	bool sync;		/* of the sync class: shown whatever its ops */
	double ops;
};

/* Whether replay syscall @name is of the sync class. */
static bool is_sync(const char *name)
{
	int id = sys_lookup(name, strlen(name), true);

	return id >= 0 && sys_class_of((enum sys_id)id) == CLS_SYNC;
}

/* The sync calls first, then by operations. */
static int by_ops(const void *a, const void *b)
{
	const struct sys_total *x = a, *y = b;

	if (x->sync != y->sync)
		return x->sync ? -1 : 1;
	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The syscalls of every run, the sync calls first, then most operations
 * first; their count in *@n. */
static struct sys_total *syscalls_by_ops(const struct compare *c, size_t *n)
{
	size_t max = 0;
	struct sys_total *t;

	*n = 0;
	for (size_t j = 0; j < c->n; j++)
		max += jv_count(json_object_get(c->runs[j].doc, "syscalls"));
	t = calloc(max ? max : 1, sizeof(*t));
	for (size_t j = 0; t && j < c->n; j++) {
		const json_t *sys = json_object_get(c->runs[j].doc, "syscalls");

		for (size_t i = 0; i < jv_count(sys); i++) {
			const char *name = jv_key(sys, i);
			double ops = json_num(jv_at(sys, i), "ops");
			size_t k = 0;

			while (k < *n && strcmp(t[k].name, name))
				k++;
			if (k == *n)
				t[(*n)++] = (struct sys_total){ name,
								is_sync(name),
								0 };
			t[k].ops += isnan(ops) ? 0 : ops;
		}
	}
	if (t)
		qsort(t, *n, sizeof(*t), by_ops);
	return t;
}

/* A range row of @lat (latency_ns or captured_latency_ns), its label
 * "SYSCALL WHO" allocated into @label. */
static struct range range_of(const json_t *lat, char *label,
			     const char *colour)
{
	return (struct range){ label, json_num(lat, "p50"), json_num(lat, "p99"),
			       json_num(lat, "p99.9"), json_num(lat, "max"),
			       colour };
}

/* Whether two latency objects hold the same figures. */
static bool same_latency(const json_t *a, const json_t *b)
{
	static const char *const keys[] = { "p50", "p95", "p99", "p99.9", "max" };

	for (size_t k = 0; k < 5; k++)
		if (json_num(a, keys[k]) != json_num(b, keys[k]))
			return false;
	return true;
}

/* The rows of syscall @name: captured once (again for a run whose capture
 * differs), then every run's replay. */
static size_t latency_rows(const struct htmlreport *r, const char *name,
			   struct range *rows, char (*labels)[COMPARE_LABEL_MAX])
{
	const json_t *cap_shown = NULL;
	size_t n = 0;

	for (size_t j = 0; j < r->cmp->n; j++) {
		const json_t *all = json_object_get(r->cmp->runs[j].doc,
						    "syscalls");
		const json_t *s = json_object_get(all, name);
		const json_t *cap = json_object_get(s, "captured_latency_ns");

		if (!cap || (cap_shown && same_latency(cap, cap_shown)))
			continue;
		snprintf(labels[n], COMPARE_LABEL_MAX, "%s captured%s%s", name,
			 cap_shown ? " for " : "",
			 cap_shown ? r->cmp->runs[j].label : "");
		rows[n] = range_of(cap, labels[n], CAPTURED_COLOUR);
		n++;
		cap_shown = cap;
	}
	for (size_t j = 0; j < r->cmp->n; j++) {
		const json_t *all = json_object_get(r->cmp->runs[j].doc,
						    "syscalls");
		const json_t *s = json_object_get(all, name);

		if (!s)
			continue;
		snprintf(labels[n], COMPARE_LABEL_MAX, "%s %s", name,
			 r->cmp->runs[j].label);
		rows[n] = range_of(json_object_get(s, "latency_ns"), labels[n],
				   html_column_colour(r, j));
		n++;
	}
	return n;
}

/* The replayed latency of each class of operations, a row per run, from
 * the runs' "classes" (none in files of older versions). */
static int class_latencies(FILE *f, const struct htmlreport *r)
{
	struct range *rows = calloc(CLS_COUNT * r->cmp->n + 1, sizeof(*rows));
	char (*labels)[COMPARE_LABEL_MAX] = calloc(CLS_COUNT * r->cmp->n + 1,
						   sizeof(*labels));
	struct chart_opts o = { .title = "Latency per class, replayed",
				.xlabel = "latency (log scale)", .xfmt = fmt_ns };
	size_t n = 0;
	int ret = -ENOMEM;

	if (!rows || !labels)
		goto out;
	for (int c = 0; c < CLS_COUNT; c++) {
		const char *cls = sys_class_name((enum sys_class)c);

		for (size_t j = 0; j < r->cmp->n; j++) {
			const json_t *lat = json_object_get(json_object_get(
				json_object_get(r->cmp->runs[j].doc, "classes"),
				cls), "latency_ns");

			if (!lat)
				continue;
			snprintf(labels[n], COMPARE_LABEL_MAX, "%s %s", cls,
				 r->cmp->runs[j].label);
			rows[n] = range_of(lat, labels[n],
					   html_column_colour(r, j));
			n++;
		}
	}
	ret = 0;
	if (!n)
		goto out;
	fputs("<h3>Latency per class of operations</h3>\n<p class=\"note\">"
	      "Read, write, sync, meta (namespace, stat, attributes), open "
	      "and other, replayed. Bar: p50 to p99; thick tick: p99.9; dot: "
	      "the maximum.</p>\n", f);
	ret = svg_ranges(f, &o, rows, n);
out:
	free(labels);
	free(rows);
	return ret;
}

int html_latencies(FILE *f, const struct htmlreport *r)
{
	size_t nsys, nsync = 0, per = 2 * r->cmp->n, n = 0;
	struct sys_total *sys = syscalls_by_ops(r->cmp, &nsys);
	struct range *rows = NULL;
	char (*labels)[COMPARE_LABEL_MAX] = NULL;
	struct chart_opts o = { .title = "Latency per syscall, captured and "
				"replayed", .xlabel = "latency (log scale)",
				.xfmt = fmt_ns };
	int ret = -ENOMEM;

	while (sys && nsync < nsys && sys[nsync].sync)
		nsync++;
	if (nsys > nsync + MAX_LATENCY_SYSCALLS)
		nsys = nsync + MAX_LATENCY_SYSCALLS;
	if (class_latencies(f, r))
		goto out;
	if (sys && nsys) {
		rows = calloc(nsys * per, sizeof(*rows));
		labels = calloc(nsys * per, sizeof(*labels));
	}
	if (!sys || (nsys && (!rows || !labels)))
		goto out;
	for (size_t i = 0; i < nsys; i++)
		n += latency_rows(r, sys[i].name, rows + n, labels + n);
	fprintf(f, "<h3>Latency per syscall: captured and replayed</h3>\n"
		"<p class=\"note\">The sync calls (%zu), then the %zu syscalls "
		"with the most operations. "
		"Bar: p50 to p99; thick tick: p99.9; dot: the maximum. "
		"Grey: the latency captured on the original host. "
		"Percentiles are within 1.6%% of the exact value (in "
		"statistics of an older ioriot, without fine buckets: the "
		"upper bound of their power of two).</p>\n",
		nsync, nsys - nsync);
	ret = svg_ranges(f, &o, rows, n);
out:
	free(labels);
	free(rows);
	free(sys);
	return ret;
}
