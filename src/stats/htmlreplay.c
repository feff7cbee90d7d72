/*
 * htmlreplay: the replay sections of the HTML report: which run has the
 * most best values, and the comparison table of --compare with each row's
 * best value marked (the same rows and rule, table.c); between them the
 * time series of all runs (htmlseries.c) and the captured latencies beside
 * the replayed ones (htmllatency.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "html.h"

const char *html_column_colour(const struct htmlreport *r, size_t j)
{
	size_t i = 0;

	while (i < r->nruns && r->runs[i].stats != j)
		i++;
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
			html_column_colour(r, j));
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

int html_replay_sections(FILE *f, const struct htmlreport *r)
{
	struct marked m = { .marks = NULL };
	int ret = r->cmp->n ? marked_build(&m, r->cmp) : 0;

	fputs("<section id=\"replay\">\n<h2>Replay runs</h2>\n", f);
	if (!ret && r->cmp->n)
		headline(f, r, &m);
	if (!ret)
		ret = html_overlaid(f, r);
	if (!ret && r->cmp->n)
		ret = html_latencies(f, r);
	if (!ret && r->cmp->n)
		full_table(f, r, &m);
	fputs("</section>\n", f);
	free(m.marks);
	if (r->cmp->n)
		table_free(&m.t);
	return ret;
}
