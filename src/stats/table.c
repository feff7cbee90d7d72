/*
 * table: the rows of the side-by-side comparison (compare.h), with a raw
 * value per run and the direction in which a value is better.
 * compare_write() prints them as text (tableprint.c), the HTML report as
 * a table; which configuration is better the verdict says (verdict.c).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/syscalls.h"
#include "stats.h"

const char *const table_best_names[] = {
	[BEST_NONE] = "", [BEST_LOW] = "lower", [BEST_HIGH] = "higher",
};

/* 10^prec, for prec from 0 to 6 */
static const double decimals[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };

/* A figure of a run, or of one of its syscalls or block devices. */
struct figure {
	const char *label;	/* after the syscall or device name */
	const char *sub;	/* the member object it is in, or NULL */
	const char *key;
	const char *only_if;	/* NAN unless this member is non-zero */
	double scale;
	enum best best;
	int prec;
};

static const struct figure run_figures[] = {
	{ "Total time (s)", NULL, "total_time_ns", NULL, 1e-9, BEST_LOW, 6 },
	{ "Performed ioops", NULL, "performed_ioops", NULL, 1, BEST_NONE, 0 },
	{ "Average ioops/s", NULL, "average_ioops_per_s", NULL, 1, BEST_HIGH,
	  2 },
	{ "Time ahead (s)", NULL, "time_ahead_ns", NULL, 1e-9, BEST_HIGH, 6 },
	{ "Highest loadavg", NULL, "highest_loadavg", NULL, 1, BEST_NONE, 2 },
};

static const struct figure lateness_figures[] = {
	{ "Start lateness p50 (us)", "start_lateness_ns", "p50", NULL, 1e-3,
	  BEST_LOW, 1 },
	{ "Start lateness p99 (us)", "start_lateness_ns", "p99", NULL, 1e-3,
	  BEST_LOW, 1 },
	{ "Start lateness max (us)", "start_lateness_ns", "max", NULL, 1e-3,
	  BEST_LOW, 1 },
};

static const struct figure latency_figures[] = {
	{ "p50", "latency_ns", "p50", NULL, 1e-3, BEST_LOW, 1 },
	{ "p95", "latency_ns", "p95", NULL, 1e-3, BEST_LOW, 1 },
	{ "p99", "latency_ns", "p99", NULL, 1e-3, BEST_LOW, 1 },
	{ "p99.9", "latency_ns", "p99.9", NULL, 1e-3, BEST_LOW, 1 },
	{ "max", "latency_ns", "max", NULL, 1e-3, BEST_LOW, 1 },
};

/* Files of older versions have no "short" and "short_bytes": "-". */
static const struct figure result_figures[] = {
	{ "differ", NULL, "differ", NULL, 1, BEST_LOW, 0 },
	{ "short", NULL, "short", NULL, 1, BEST_LOW, 0 },
	{ "short bytes", NULL, "short_bytes", NULL, 1, BEST_LOW, 0 },
};

static const struct figure device_figures[] = {
	{ "%util", NULL, "util_pct", NULL, 1, BEST_NONE, 1 },
	{ "r_await (ms)", NULL, "r_await_ms", "r_per_s", 1, BEST_LOW, 3 },
	{ "w_await (ms)", NULL, "w_await_ms", "w_per_s", 1, BEST_LOW, 3 },
	{ "rMB/s", NULL, "r_mb_per_s", NULL, 1, BEST_HIGH, 3 },
	{ "wMB/s", NULL, "w_mb_per_s", NULL, 1, BEST_HIGH, 3 },
};

/* The rate caps (--rate-iops, --rate-mbps) and what they held back: a
 * figure at rate_limit/@sub/@key; runs without caps have none ("-"). */
static const struct figure rate_figures[] = {
	{ "ops/s, reads and writes", "iops", "total", NULL, 1, BEST_NONE, 2 },
	{ "ops/s, reads", "iops", "read", NULL, 1, BEST_NONE, 2 },
	{ "ops/s, writes", "iops", "write", NULL, 1, BEST_NONE, 2 },
	{ "MB/s, reads and writes", "mbps", "total", NULL, 1, BEST_NONE, 2 },
	{ "MB/s, reads", "mbps", "read", NULL, 1, BEST_NONE, 2 },
	{ "MB/s, writes", "mbps", "write", NULL, 1, BEST_NONE, 2 },
	{ "reads throttled", "read", "throttled", NULL, 1, BEST_NONE, 0 },
	{ "writes throttled", "write", "throttled", NULL, 1, BEST_NONE, 0 },
	{ "read delay (s)", "read", "delay_total_ns", NULL, 1e-9, BEST_NONE,
	  6 },
	{ "write delay (s)", "write", "delay_total_ns", NULL, 1e-9, BEST_NONE,
	  6 },
};

#define NFIGS(a) (sizeof(a) / sizeof(a[0]))

/* A syscall or device of one run, for grouping by name across runs. */
struct item {
	const char *name;
	int rank;		/* syscalls: table order; unknown ones last */
	size_t run;
	const json_t *v;
};

/* A new row labelled "@name @label" (or @label); returns its values, all
 * NAN, or NULL when out of memory. */
static double *add_row(struct table *t, const char *name, const char *label,
		       enum best best, int prec)
{
	struct row *r;
	double *v;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		t->rows = nr;
		v = realloc(t->vals, cap * t->nruns * sizeof(*v));
		if (!v)
			return NULL;
		t->vals = v;
		t->cap = cap;
	}
	r = &t->rows[t->n];
	snprintf(r->label, sizeof(r->label), "%s%s%s", name ? name : "",
		 name ? " " : "", label);
	compare_printable(r->label);
	r->best = best;
	r->prec = prec;
	v = &t->vals[t->n++ * t->nruns];
	for (size_t j = 0; j < t->nruns; j++)
		v[j] = NAN;
	return v;
}

/* Figure @fig of the object @obj, scaled; NAN if it is not there. */
static double figure_value(const json_t *obj,
			   const struct figure *fig)
{
	double d, cond;

	if (fig->sub)
		obj = json_object_get(obj, fig->sub);
	if (jv_number(json_object_get(obj, fig->key), &d))
		return NAN;
	if (fig->only_if &&
	    (jv_number(json_object_get(obj, fig->only_if), &cond) || cond == 0))
		return NAN;
	return d * fig->scale;
}

/* A row per figure of @figs, from the top-level object of each run. */
static int add_run_rows(struct table *t, const struct compare *c,
			const struct figure *figs, size_t nfigs)
{
	for (size_t f = 0; f < nfigs; f++) {
		double *v = add_row(t, NULL, figs[f].label, figs[f].best,
				    figs[f].prec);

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < c->n; j++)
			v[j] = figure_value(c->runs[j].doc, &figs[f]);
	}
	return 0;
}

/* Whether none of the @n values @v is there. */
static bool all_nan(const double *v, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (!isnan(v[j]))
			return false;
	return true;
}

/*
 * When a run was replayed under rate caps, a heading and a row per cap
 * and per throttling figure that some run has: a run held back by its
 * caps is never compared with one that was not without it showing.
 * 0 or -ENOMEM.
 */
static int add_rate_rows(struct table *t, const struct compare *c)
{
	bool any = false;
	size_t heading_row = t->n;

	for (size_t j = 0; j < c->n; j++)
		any |= json_is_object(json_object_get(c->runs[j].doc,
						      "rate_limit"));
	if (!any)
		return 0;
	if (!add_row(t, NULL, "Rate caps per process (--rate-iops, "
		     "--rate-mbps; throttled: operations that waited, delay: "
		     "their wait summed)", BEST_NONE, HEADING))
		return -ENOMEM;
	for (size_t f = 0; f < NFIGS(rate_figures); f++) {
		double *v = add_row(t, NULL, rate_figures[f].label,
				    rate_figures[f].best, rate_figures[f].prec);

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < c->n; j++)
			v[j] = figure_value(json_object_get(c->runs[j].doc,
							    "rate_limit"),
					    &rate_figures[f]);
		if (all_nan(v, t->nruns))
			t->n--;
	}
	if (t->n == heading_row + 1)	/* caps of no known form */
		t->n = heading_row;
	return 0;
}

static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->run > y->run) - (x->run < y->run);
}

/* Whether the @n values @v are all 0 or none. */
static bool all_zero(const double *v, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (!isnan(v[j]) && v[j] != 0)
			return false;
	return true;
}

/* For each name in @items, a row per figure of @figs; with @nonzero only
 * the rows where a run has a value but 0. */
static int add_item_rows(struct table *t, struct item *items, size_t n,
			 const struct figure *figs, size_t nfigs, bool nonzero)
{
	qsort(items, n, sizeof(*items), cmp_items);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && items[end].rank == items[i].rank &&
		     !strcmp(items[end].name, items[i].name); end++)
			;
		for (size_t f = 0; f < nfigs; f++) {
			double *v = add_row(t, items[i].name, figs[f].label,
					    figs[f].best, figs[f].prec);

			if (!v)
				return -ENOMEM;
			/* A name twice in one run: its first entry counts. */
			for (size_t k = end; k-- > i;)
				v[items[k].run] = figure_value(items[k].v,
							       &figs[f]);
			if (nonzero && all_zero(v, t->nruns))
				t->n--;
		}
	}
	return 0;
}

/* An item for element @i of member @v of run @run: a syscall named by its
 * key, ranked in table order (unknown ones last), or a device named by its
 * "device" member. */
typedef struct item (*item_of_fn)(const json_t *v, size_t i,
				  size_t run);

static struct item syscall_item(const json_t *v, size_t i,
				size_t run)
{
	const char *name = jv_key(v, i);
	int id = sys_lookup(name, strlen(name), true);

	return (struct item){ name, id < 0 ? INT_MAX : id, run, jv_at(v, i) };
}

static struct item device_item(const json_t *v, size_t i,
			       size_t run)
{
	const json_t *d = jv_at(v, i);

	return (struct item){ jv_member_string(d, "device"), 0, run, d };
}

/*
 * The rows of member @member (an object or array per run) under the
 * heading @heading: one item per element of every run, then a row per
 * name and figure (with @nonzero, only those where a run has a value but
 * 0); no heading when no row is left.  0 or -ENOMEM.
 */
static int add_member_rows(struct table *t, const struct compare *c,
			   const char *member, item_of_fn item_of,
			   const char *heading, const struct figure *figs,
			   size_t nfigs, bool nonzero)
{
	struct item *items;
	size_t n = 0, max = 0, heading_row;
	int ret;

	for (size_t j = 0; j < c->n; j++)
		max += jv_count(json_object_get(c->runs[j].doc, member));
	if (!max)
		return 0;
	items = malloc(max * sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (size_t j = 0; j < c->n; j++) {
		const json_t *v = json_object_get(c->runs[j].doc, member);

		for (size_t i = 0; i < jv_count(v); i++)
			items[n++] = item_of(v, i, j);
	}
	heading_row = t->n;
	ret = add_row(t, NULL, heading, BEST_NONE, HEADING) ? 0 : -ENOMEM;
	if (!ret)
		ret = add_item_rows(t, items, n, figs, nfigs, nonzero);
	if (!ret && t->n == heading_row + 1)
		t->n = heading_row;
	free(items);
	return ret;
}

int table_build(struct table *t, const struct compare *c)
{
	bool timed = false;
	int ret;

	memset(t, 0, sizeof(*t));
	t->nruns = c->n ? c->n : 1;

	for (size_t j = 0; j < c->n; j++)
		if (json_is_object(json_object_get(c->runs[j].doc,
						   "start_lateness_ns")))
			timed = true;
	ret = add_run_rows(t, c, run_figures, NFIGS(run_figures));
	if (!ret && timed)
		ret = add_run_rows(t, c, lateness_figures,
				   NFIGS(lateness_figures));
	if (!ret)
		ret = add_rate_rows(t, c);
	if (!ret)
		ret = add_member_rows(t, c, "syscalls", syscall_item,
				      "Latency in us (replay)", latency_figures,
				      NFIGS(latency_figures), false);
	if (!ret)
		ret = add_member_rows(t, c, "syscalls", syscall_item,
				      "Results that differ from the capture "
				      "(operations; short: with fewer bytes)",
				      result_figures, NFIGS(result_figures),
				      true);
	if (!ret)
		ret = add_member_rows(t, c, "block_devices", device_item,
				      "Block devices (from /proc/diskstats, as "
				      "iostat -x)", device_figures,
				      NFIGS(device_figures), false);
	return ret;
}

/* @v in units of the last printed decimal, rounded half away from zero;
 * 0 is never negative.  Beyond 2^53 every double is whole already. */
static double rounded(double v, int prec)
{
	double x = v * decimals[prec];

	if (isnan(x) || fabs(x) >= 0x1p53)
		return x;
	x = (double)(long long)(x + (x < 0 ? -0.5 : 0.5));
	return x == 0 ? 0 : x;
}

const char *table_cell(char *buf, size_t len, double v, int prec)
{
	double r;

	if (isnan(v))
		return "-";
	r = rounded(v, prec) / decimals[prec];
	snprintf(buf, len, fabs(r) < 1e15 ? "%.*f" : "%.*e", prec, r);
	return buf;
}

void table_free(struct table *t)
{
	free(t->rows);
	free(t->vals);
	t->rows = NULL;
	t->vals = NULL;
	t->n = t->cap = 0;
}
