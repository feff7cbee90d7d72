/*
 * htmlreplay: the replay sections of the HTML report: the verdict between
 * the configurations (verdict.c: means with their intervals, a winner only
 * beyond the noise; incomplete runs left out, listed with why), and the
 * comparison table of --compare (table.c), incomplete runs marked;
 * between them the time series of all runs (htmlseries.c) and the
 * captured latencies beside the replayed ones (htmllatency.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "html.h"
#include "verdict.h"

const char *html_column_colour(const struct htmlreport *r, size_t j)
{
	size_t i = 0;

	while (i < r->nruns && r->runs[i].stats != j)
		i++;
	return html_colour(i);
}

/* The verdict's headline in words: the winner of total time and by how
 * much, or why there is none. */
static void verdict_words(FILE *f, const struct compare *c,
			  const struct verdict *v)
{
	const struct verdict_row *r = v->nrows ? &v->rows[0] : NULL;

	if (v->why_none) {
		fputs("No verdict: ", f);
		html_text(f, v->why_none);
		fputs(".", f);
		return;
	}
	if (!r || r->winner < 0) {
		fputs("No significant difference in total time at 95%: the "
		      "configurations differ less than their runs do.", f);
		return;
	}
	fputs("<b>", f);
	html_text(f, c->groups[r->winner].name);
	fputs("</b> is faster: its total time is the lowest, and Welch's "
	      "t-test tells it from every other configuration at 95%.", f);
}

/* The incomplete runs of @c, if any: left out of the verdict, each with
 * why (incomplete.h). */
static void left_out(FILE *f, const struct compare *c)
{
	size_t n = compare_incomplete(c);
	char why[RUN_WHY_TEXT];

	if (!n)
		return;
	fprintf(f, "<div class=\"left-out\"><p>Left out of the verdict: %zu "
		"incomplete run%s, marked <span class=\"incomplete\">"
		"incomplete</span> in the table below.</p><ul>\n", n,
		n == 1 ? "" : "s");
	for (size_t j = 0; j < c->n; j++) {
		if (!c->runs[j].why.n)
			continue;
		fputs("<li><b>", f);
		html_text(f, c->runs[j].label);
		fputs("</b>: incomplete: ", f);
		html_text(f, run_why_text(&c->runs[j].why, why, sizeof(why)));
		fputs("</li>\n", f);
	}
	fputs("</ul></div>\n", f);
}

/* The verdict: the headline, then per figure each configuration's mean
 * with its 95% interval and the figure's winner, if any; then the runs
 * left out. */
static void verdict_section(FILE *f, const struct htmlreport *r,
			    const struct verdict *v)
{
	const struct compare *c = r->cmp;
	char cell[96];

	fputs("<div class=\"verdict\"><p>", f);
	verdict_words(f, c, v);
	fputs("</p></div>\n<div class=\"table-wrap\"><table class=\"compare\">"
	      "\n<thead><tr><th>figure</th>", f);
	for (size_t g = 0; g < v->ngroups; g++) {
		fputs("<th>", f);
		html_text(f, c->groups[g].name);
		fprintf(f, " (%zu run%s)</th>", v->runs[g],
			v->runs[g] == 1 ? "" : "s");
	}
	fputs("<th>best (95%)</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct verdict_row *row = &v->rows[i];

		fputs("<tr><td>", f);
		html_text(f, row->fig.label);
		fputs("</td>", f);
		for (size_t g = 0; g < v->ngroups; g++) {
			const struct sample *s = &row->s[g];
			double k = row->fig.scale;

			snprintf(cell, sizeof(cell), !s->n ? "-" :
				 isnan(s->sd) ? "%.6g" : "%.6g ± %.3g",
				 s->mean * k, (s->ci_hi - s->ci_lo) / 2 * k);
			fprintf(f, "<td%s>", (ssize_t)g == row->winner ?
				" class=\"best\"" : "");
			html_text(f, cell);
			fputs("</td>", f);
		}
		fputs("<td>", f);
		if (row->winner >= 0)
			html_text(f, c->groups[row->winner].name);
		else
			fputs(v->why_none ? "-" : "no significant difference",
			      f);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
	left_out(f, c);
}

static void table_head(FILE *f, const struct htmlreport *r)
{
	const struct compare *c = r->cmp;
	char why[RUN_WHY_TEXT];

	fputs("<div class=\"table-wrap\"><table class=\"compare\">\n<thead>"
	      "<tr><th>figure</th><th>better</th>", f);
	for (size_t j = 0; j < c->n; j++) {
		fprintf(f, "<th><i style=\"color:%s\">■</i> ",
			html_column_colour(r, j));
		html_text(f, c->runs[j].label);
		if (c->runs[j].why.n) {
			fputs(" <span class=\"incomplete\" title=\"incomplete: ",
			      f);
			html_text(f, run_why_text(&c->runs[j].why, why,
						  sizeof(why)));
			fputs("\">incomplete</span>", f);
		}
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

/* Rows @from to @to (exclusive) of @t. */
static void table_rows(FILE *f, const struct compare *c, const struct table *t,
		       size_t from, size_t to)
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
		for (size_t j = 0; j < c->n; j++)
			fprintf(f, "<td>%s</td>", table_cell(buf, sizeof(buf),
				t->vals[i * t->nruns + j], row->prec));
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

static void full_table(FILE *f, const struct htmlreport *r,
		       const struct table *t)
{
	fputs("<h3>Side by side: every row of ioriot --compare, each run as "
	      "it ran</h3>\n", f);
	table_head(f, r);
	table_rows(f, r->cmp, t, 0, t->n);
}

int html_replay_sections(FILE *f, const struct htmlreport *r)
{
	struct verdict v = { 0 };
	struct table t = { 0 };
	int ret = 0;

	if (r->cmp->n) {
		ret = verdict_build(&v, r->cmp);
		if (!ret)
			ret = table_build(&t, r->cmp);
	}
	fputs("<section id=\"replay\">\n<h2>Replay runs</h2>\n", f);
	if (!ret && r->cmp->n)
		verdict_section(f, r, &v);
	if (!ret)
		ret = html_overlaid(f, r);
	if (!ret && r->cmp->n)
		ret = html_latencies(f, r);
	if (!ret && r->cmp->n)
		full_table(f, r, &t);
	fputs("</section>\n", f);
	table_free(&t);
	verdict_free(&v);
	return ret;
}
