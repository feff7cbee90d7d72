/*
 * htmlreplay: the replay sections of the HTML report: which run has the
 * most best values, the comparison table of --compare with each row's
 * best value marked (the same rows and rule, table.c), the time series of
 * all runs overlaid, and per syscall the captured latencies beside those
 * of every replay.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define MAX_LATENCY_SYSCALLS 12	/* the syscalls with the most operations */
#define CAPTURED_COLOUR "#8b95a3"

/* The run of comparison column @j. */
static const struct report_run *run_of_column(const struct htmlreport *r,
					      size_t j, size_t *index)
{
	for (size_t i = 0; i < r->nruns; i++)
		if (r->runs[i].stats == j) {
			*index = i;
			return &r->runs[i];
		}
	*index = 0;
	return NULL;
}

static const char *column_colour(const struct htmlreport *r, size_t j)
{
	size_t i;

	run_of_column(r, j, &i);
	return html_colour(i);
}

/* The runs with the most best values of @t, and why. */
static void verdict(FILE *f, const struct htmlreport *r, const struct table *t,
		    const bool *marks)
{
	const struct compare *c = r->cmp;
	size_t *wins = calloc(c->n, sizeof(*wins)), rows = 0, top = 0;

	if (!wins)
		return;
	for (size_t i = 0; i < t->n; i++) {
		bool any = false;

		for (size_t j = 0; j < c->n; j++) {
			wins[j] += marks[i * c->n + j];
			any |= marks[i * c->n + j];
		}
		rows += any;
	}
	for (size_t j = 0; j < c->n; j++)
		if (wins[j] > top)
			top = wins[j];
	fputs("<div class=\"verdict\"><p>", f);
	if (!top) {
		fputs("No row has a best value: with one run, or equal values, "
		      "there is nothing to choose.", f);
	} else {
		for (size_t j = 0, k = 0; j < c->n; j++) {
			if (wins[j] != top)
				continue;
			fputs(k++ ? " and <b>" : "<b>", f);
			html_text(f, c->runs[j].label);
			fputs("</b>", f);
		}
		fprintf(f, " won: the best value in %zu of the %zu rows where "
			"runs differ.", top, rows);
	}
	fputs("</p><p class=\"note\">", f);
	for (size_t j = 0; j < c->n; j++) {
		fputs(j ? "; " : "Best values per run: ", f);
		html_text(f, c->runs[j].label);
		fprintf(f, " %zu", wins[j]);
	}
	fputs(". Lower is best for times, latencies, lateness, differing "
	      "results and await; higher for ioops/s, time ahead and MB/s."
	      "</p></div>\n", f);
	free(wins);
}

static void table_head(FILE *f, const struct htmlreport *r)
{
	const struct compare *c = r->cmp;

	fputs("<div class=\"table-wrap\"><table class=\"compare\">\n<thead>"
	      "<tr><th>figure</th><th>best</th>", f);
	for (size_t j = 0; j < c->n; j++) {
		fprintf(f, "<th><i style=\"color:%s\">■</i> ",
			column_colour(r, j));
		html_text(f, c->runs[j].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr><th>test</th><th></th>", f);
	for (size_t j = 0; j < c->n; j++) {
		fputs("<th>", f);
		html_text(f, c->runs[j].test);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

/* Rows @from to @to (exclusive) of @t, their best values marked. */
static void table_rows(FILE *f, const struct compare *c, const struct table *t,
		       const bool *marks, size_t from, size_t to)
{
	char buf[48];

	for (size_t i = from; i < to; i++) {
		const struct row *row = &t->rows[i];

		if (row->prec == HEADING) {
			fprintf(f, "<tr class=\"heading\"><th colspan=\"%zu\">",
				c->n + 2);
			html_text(f, row->label);
			fputs("</th></tr>\n", f);
			continue;
		}
		fputs("<tr><td>", f);
		html_text(f, row->label);
		fprintf(f, "</td><td>%s</td>", table_best_names[row->best]);
		for (size_t j = 0; j < c->n; j++) {
			bool best = marks[i * c->n + j];

			fprintf(f, "<td%s>%s%s</td>", best ? " class=\"best\"" : "",
				table_cell(buf, sizeof(buf),
					   t->vals[i * t->nruns + j], row->prec),
				best ? " ★" : "");
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* The comparison's rows and their marks, built once for the page. */
struct marked {
	struct table t;
	bool *marks;		/* t.n rows of a flag per run */
};

static int marked_build(struct marked *m, const struct compare *c)
{
	int ret = table_build(&m->t, c);

	m->marks = NULL;
	if (!ret && m->t.n) {
		m->marks = calloc(m->t.n * c->n, sizeof(*m->marks));
		if (!m->marks)
			ret = -ENOMEM;
	}
	for (size_t i = 0; !ret && i < m->t.n; i++)
		if (m->t.rows[i].prec != HEADING)
			table_mark_best(&m->t, i, &m->marks[i * c->n]);
	return ret;
}

/* The verdict and the rows of the whole runs (those before the first
 * heading): why the winner won. */
static void headline(FILE *f, const struct htmlreport *r,
		     const struct marked *m)
{
	size_t end = 0;

	while (end < m->t.n && m->t.rows[end].prec != HEADING)
		end++;
	verdict(f, r, &m->t, m->marks);
	table_head(f, r);
	table_rows(f, r->cmp, &m->t, m->marks, 0, end);
}

static void full_table(FILE *f, const struct htmlreport *r,
		       const struct marked *m)
{
	fputs("<h3>Side by side: every row of ioriot --compare (★ marks the "
	      "best value of a row)</h3>\n", f);
	table_head(f, r);
	table_rows(f, r->cmp, &m->t, m->marks, 0, m->t.n);
}

/* MB/s of both directions, per row of @s, into @out. */
static void mb_total(const struct csv_series *s, double *out)
{
	for (size_t i = 0; i < s->n; i++)
		out[i] = s->col[COL_READ_MB][i] + s->col[COL_WRITE_MB][i];
}

static void fmt_us(char *buf, size_t len, double us)
{
	fmt_ns(buf, len, us * 1000);
}

static int overlaid(FILE *f, const struct htmlreport *r)
{
	struct line_series *s = calloc(r->nruns, sizeof(*s));
	double **mb = calloc(r->nruns, sizeof(*mb));
	const char **names = calloc(r->nruns, sizeof(*names));
	const char **colours = calloc(r->nruns, sizeof(*colours));
	struct chart_opts o = { .xlabel = "time since the start (s)",
				.xfmt = fmt_plain };
	size_t n = 0;
	int ret = -ENOMEM;

	if (!s || !mb || !names || !colours)
		goto out;
	for (size_t i = 0; i < r->nruns; i++) {
		const struct csv_series *csv = r->runs[i].csv;

		if (!csv)
			continue;
		mb[n] = malloc((csv->n ? csv->n : 1) * sizeof(double));
		if (!mb[n])
			goto out;
		mb_total(csv, mb[n]);
		names[n] = r->runs[i].label;
		colours[n] = html_colour(i);
		s[n++] = (struct line_series){ r->runs[i].label,
					       csv->col[COL_TIME], NULL, csv->n,
					       html_colour(i) };
	}
	ret = 0;
	if (!n)
		goto out;
	fputs("<h3>Time series of the runs</h3>\n", f);
	html_legend(f, names, colours, n);
	fputs("<div class=\"grid2\">\n", f);
	for (int chart = 0; !ret && chart < 3; chart++) {
		static const char *const titles[] = {
			"Operations per second", "MB/s (read + write, 10^6 B)",
			"Latency p99 per interval (log scale)",
		};
		static const char *const ylabels[] = { "ops/s", "MB/s", "p99" };

		for (size_t k = 0, i = 0; k < n; i++) {
			const struct csv_series *csv = r->runs[i].csv;

			if (!csv)
				continue;
			s[k].y = chart == 0 ? csv->col[COL_OPS] :
				 chart == 1 ? mb[k] : csv->col[COL_P99];
			k++;
		}
		o.title = titles[chart];
		o.ylabel = ylabels[chart];
		o.yfmt = chart == 2 ? fmt_us : fmt_count;
		o.ylog = chart == 2;
		fprintf(f, "<figure><figcaption>%s</figcaption>\n", titles[chart]);
		ret = svg_lines(f, &o, s, n);
		fputs("</figure>\n", f);
	}
	fputs("</div>\n", f);
out:
	for (size_t i = 0; mb && i < r->nruns; i++)
		free(mb[i]);
	free(mb);
	free(s);
	free(names);
	free(colours);
	return ret;
}

/* A syscall of some run, with the operations of all runs. */
struct sys_total {
	const char *name;
	double ops;
};

static int by_ops(const void *a, const void *b)
{
	const struct sys_total *x = a, *y = b;

	if (x->ops != y->ops)
		return x->ops < y->ops ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The syscalls of every run, most operations first; their count in *@n. */
static struct sys_total *syscalls_by_ops(const struct compare *c, size_t *n)
{
	size_t max = 0;
	struct sys_total *t;

	*n = 0;
	for (size_t j = 0; j < c->n; j++)
		max += json_count(json_get(c->runs[j].doc, "syscalls"));
	t = calloc(max ? max : 1, sizeof(*t));
	for (size_t j = 0; t && j < c->n; j++) {
		const struct json_value *sys = json_get(c->runs[j].doc, "syscalls");

		for (size_t i = 0; i < json_count(sys); i++) {
			const char *name = json_key(sys, i);
			double ops = json_num(json_at(sys, i), "ops");
			size_t k = 0;

			while (k < *n && strcmp(t[k].name, name))
				k++;
			if (k == *n)
				t[(*n)++] = (struct sys_total){ name, 0 };
			t[k].ops += isnan(ops) ? 0 : ops;
		}
	}
	if (t)
		qsort(t, *n, sizeof(*t), by_ops);
	return t;
}

/* A range row of @lat (latency_ns or captured_latency_ns), its label
 * "SYSCALL WHO" allocated into @label. */
static struct range range_of(const struct json_value *lat, char *label,
			     const char *colour)
{
	return (struct range){ label, json_num(lat, "p50"), json_num(lat, "p99"),
			       json_num(lat, "p99.9"), json_num(lat, "max"),
			       colour };
}

/* Whether two latency objects hold the same figures. */
static bool same_latency(const struct json_value *a, const struct json_value *b)
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
	const struct json_value *cap_shown = NULL;
	size_t n = 0;

	for (size_t j = 0; j < r->cmp->n; j++) {
		const struct json_value *s =
			json_get(json_get(r->cmp->runs[j].doc, "syscalls"), name);
		const struct json_value *cap = json_get(s, "captured_latency_ns");

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
		const struct json_value *s =
			json_get(json_get(r->cmp->runs[j].doc, "syscalls"), name);

		if (!s)
			continue;
		snprintf(labels[n], COMPARE_LABEL_MAX, "%s %s", name,
			 r->cmp->runs[j].label);
		rows[n] = range_of(json_get(s, "latency_ns"), labels[n],
				   column_colour(r, j));
		n++;
	}
	return n;
}

static int latencies(FILE *f, const struct htmlreport *r)
{
	size_t nsys, per = 2 * r->cmp->n, n = 0;
	struct sys_total *sys = syscalls_by_ops(r->cmp, &nsys);
	struct range *rows = NULL;
	char (*labels)[COMPARE_LABEL_MAX] = NULL;
	struct chart_opts o = { .title = "Latency per syscall, captured and "
				"replayed", .xlabel = "latency (log scale)",
				.xfmt = fmt_ns };
	int ret = -ENOMEM;

	if (nsys > MAX_LATENCY_SYSCALLS)
		nsys = MAX_LATENCY_SYSCALLS;
	if (sys && nsys) {
		rows = calloc(nsys * per, sizeof(*rows));
		labels = calloc(nsys * per, sizeof(*labels));
	}
	if (!sys || (nsys && (!rows || !labels)))
		goto out;
	for (size_t i = 0; i < nsys; i++)
		n += latency_rows(r, sys[i].name, rows + n, labels + n);
	fprintf(f, "<h3>Latency per syscall: captured and replayed</h3>\n"
		"<p class=\"note\">The %zu syscalls with the most operations. "
		"Bar: p50 to p99; thick tick: p99.9; dot: the maximum. "
		"Grey: the latency captured on the original host. "
		"Percentiles are upper bounds of power-of-two buckets.</p>\n",
		nsys);
	ret = svg_ranges(f, &o, rows, n);
out:
	free(labels);
	free(rows);
	free(sys);
	return ret;
}

int html_replay_sections(FILE *f, const struct htmlreport *r)
{
	struct marked m = { .marks = NULL };
	int ret = r->cmp->n ? marked_build(&m, r->cmp) : 0;

	fputs("<section id=\"replay\">\n<h2>Replay runs</h2>\n", f);
	if (!ret && r->cmp->n)
		headline(f, r, &m);
	if (!ret)
		ret = overlaid(f, r);
	if (!ret && r->cmp->n)
		ret = latencies(f, r);
	if (!ret && r->cmp->n)
		full_table(f, r, &m);
	fputs("</section>\n", f);
	free(m.marks);
	if (r->cmp->n)
		table_free(&m.t);
	return ret;
}
