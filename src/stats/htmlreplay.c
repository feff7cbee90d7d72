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

/* Best values per run (@n runs) of rows [@from, @to) of @marks into
 * @wins; the number of those rows where runs differ. */
static size_t count_wins(const bool *marks, size_t n, size_t from, size_t to,
			 size_t *wins)
{
	size_t rows = 0;

	for (size_t j = 0; j < n; j++)
		wins[j] = 0;
	for (size_t i = from; i < to; i++) {
		bool any = false;

		for (size_t j = 0; j < n; j++) {
			wins[j] += marks[i * n + j];
			any |= marks[i * n + j];
		}
		rows += any;
	}
	return rows;
}

/*
 * The runs with the most best values among the rows of the whole runs
 * (@t's first @whole rows: total time, ioops/s, time ahead, lateness),
 * which say how each run went as a whole; all rows break a tie.  Then,
 * for each run, its best values over every row.
 */
static void verdict(FILE *f, const struct htmlreport *r, const struct table *t,
		    const bool *marks, size_t whole)
{
	const struct compare *c = r->cmp;
	size_t *wins = calloc(c->n, sizeof(*wins));
	size_t *all = calloc(c->n, sizeof(*all));
	size_t rows, top = 0, top_all = 0, rows_all;

	if (!wins || !all)
		goto out;
	rows = count_wins(marks, c->n, 0, whole, wins);
	rows_all = count_wins(marks, c->n, 0, t->n, all);
	for (size_t j = 0; j < c->n; j++)
		if (wins[j] > top)
			top = wins[j];
	for (size_t j = 0; j < c->n; j++)
		if (wins[j] == top && all[j] > top_all)
			top_all = all[j];
	fputs("<div class=\"verdict\"><p>", f);
	if (t->mixed_pacing) {
		char pacings[64];

		fprintf(f, "No winner: the runs were paced differently (%s), "
			"and their times answer different questions (-s 0: the "
			"storage's time for the I/O alone; -s F: the captured "
			"clock; --think: the program's time). Compare runs of "
			"one pacing.</p></div>\n", compare_pacings(c, pacings,
							     sizeof(pacings)));
		goto out;
	}
	if (!rows_all) {
		fputs("No row has a best value: with one run, or equal values, "
		      "there is nothing to choose.", f);
	} else {
		for (size_t j = 0, k = 0; j < c->n; j++) {
			if (wins[j] != top || all[j] != top_all)
				continue;
			fputs(k++ ? " and <b>" : "<b>", f);
			html_text(f, c->runs[j].label);
			fputs("</b>", f);
		}
		fprintf(f, " won: the best value in %zu of the %zu rows of the "
			"whole runs where they differ (below)%s.", top, rows,
			rows ? "" : "; the rows of every syscall decide");
	}
	fputs("</p><p class=\"note\">", f);
	for (size_t j = 0; j < c->n; j++) {
		fputs(j ? "; " : "Best values per run in all the rows: ", f);
		html_text(f, c->runs[j].label);
		fprintf(f, " %zu", all[j]);
	}
	fprintf(f, " (of %zu rows where runs differ). Lower is best for "
		"times, latencies, lateness, differing results and await; "
		"higher for ioops/s, time ahead and MB/s.</p></div>\n",
		rows_all);
out:
	free(wins);
	free(all);
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
	verdict(f, r, &m->t, m->marks, end);
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
