/*
 * verdict: which configuration of a comparison is better, and only where
 * the runs show it beyond their noise.  Runs are grouped by configuration
 * (compare.c); per whole-run figure (runfigs.h) each group gets its mean
 * and 95% interval (sample.h), and the group with the best mean wins the
 * figure only when Welch's t-test separates it from every other group:
 * the headline (total time) at 95%, the other figures at 95% together
 * (Bonferroni: each at 1 - 0.05 / their number).
 * No winner at all when a group has a single run (its noise is unknown),
 * when runs were paced differently, or when they performed different
 * numbers of operations (different replay files or filters).  The first
 * figure, total time, is the headline.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "verdict.h"

/* Whether run @r ran to its end and is whole: incomplete runs
 * (incomplete.h, read by compare.c) stay out. */
static bool whole_run(const struct compare_run *r)
{
	return !r->why.n;
}

/* Why no verdict can be given to runs of @c, or NULL. */
static const char *why_none(const struct compare *c, const struct verdict *v)
{
	double ops = NAN;

	if (c->ngroups < 2)
		return "one configuration: nothing to compare";
	for (size_t j = 0; j < c->n; j++) {
		double o;

		if (strcmp(c->runs[j].pacing, c->runs[0].pacing))
			return "the runs were paced differently: their times "
			       "answer different questions";
		if (!whole_run(&c->runs[j]) ||
		    jv_number(json_object_get(c->runs[j].doc,
					      "performed_ioops"), &o))
			continue;
		if (!isnan(ops) && o != ops)
			return "the runs performed different numbers of "
			       "operations (other replay files or filters)";
		ops = o;
	}
	for (size_t g = 0; g < v->ngroups; g++)
		if (!v->runs[g])
			return "a configuration has no complete run";
	for (size_t g = 0; g < v->ngroups; g++)
		if (v->runs[g] < 2)
			return "1 run of a configuration: noise unknown";
	return NULL;
}

/* The winner of row @r, or -1: the group of the best mean, when Welch's
 * test at @level separates it from every other group. */
static ssize_t row_winner(const struct verdict_row *r, size_t ngroups,
			  double level)
{
	ssize_t best = -1;

	for (size_t g = 0; g < ngroups; g++) {
		if (isnan(r->s[g].mean))
			return -1;
		if (best < 0 || (r->fig.lower_better ?
				 r->s[g].mean < r->s[best].mean :
				 r->s[g].mean > r->s[best].mean))
			best = (ssize_t)g;
	}
	for (size_t g = 0; best >= 0 && g < ngroups; g++) {
		struct welch w;

		if ((ssize_t)g == best)
			continue;
		if (welch_test_at(&r->s[g], &r->s[best], level, &w) ||
		    !w.significant)
			return -1;
	}
	return best;
}

/* Row @r's samples, differences and winner (at @level) from the runs of
 * @c. */
static int fill_row(struct verdict_row *r, const struct compare *c,
		    const struct verdict *v, double *vals, double level)
{
	r->s = calloc(v->ngroups, sizeof(*r->s));
	r->w = calloc(v->ngroups, sizeof(*r->w));
	if (!r->s || !r->w)
		return -ENOMEM;
	for (size_t g = 0; g < v->ngroups; g++) {
		size_t n = 0;

		for (size_t j = 0; j < c->n; j++)
			if (c->runs[j].group == g && whole_run(&c->runs[j]))
				vals[n++] = run_figure_value(c->runs[j].doc,
							     &r->fig);
		sample_of(vals, n, &r->s[g]);
	}
	for (size_t g = 1; g < v->ngroups; g++)
		welch_test(&r->s[0], &r->s[g], &r->w[g]);
	r->winner = v->why_none ? -1 : row_winner(r, v->ngroups, level);
	return 0;
}

int verdict_build(struct verdict *v, const struct compare *c)
{
	const json_t **docs = calloc(c->n ? c->n : 1, sizeof(*docs));
	double *vals = calloc(c->n ? c->n : 1, sizeof(*vals));
	struct run_figure figs[RUNFIGS_MAX];
	size_t nwhole = 0;
	int ret = -ENOMEM;

	memset(v, 0, sizeof(*v));
	v->ngroups = c->ngroups;
	v->runs = calloc(c->ngroups ? c->ngroups : 1, sizeof(*v->runs));
	if (!docs || !vals || !v->runs)
		goto out;
	for (size_t j = 0; j < c->n; j++) {
		if (!whole_run(&c->runs[j]))
			continue;
		v->runs[c->runs[j].group]++;
		docs[nwhole++] = c->runs[j].doc;
	}
	v->why_none = why_none(c, v);
	v->nrows = run_figures(docs, nwhole, figs);
	v->rows = calloc(v->nrows ? v->nrows : 1, sizeof(*v->rows));
	if (!v->rows)
		goto out;
	/* The headline at 95%; the other figures Bonferroni-corrected, so
	 * that all of them together name a false winner no more often. */
	for (size_t i = 0; i < v->nrows; i++) {
		double level = i ? 1 - (1 - SAMPLE_LEVEL) / (double)(v->nrows - 1) :
			       SAMPLE_LEVEL;

		v->rows[i].fig = figs[i];
		if (fill_row(&v->rows[i], c, v, vals, level))
			goto out;
	}
	ret = 0;
out:
	free(docs);
	free(vals);
	return ret;
}

void verdict_free(struct verdict *v)
{
	if (!v)
		return;
	for (size_t i = 0; v->rows && i < v->nrows; i++) {
		free(v->rows[i].s);
		free(v->rows[i].w);
	}
	free(v->rows);
	free(v->runs);
	memset(v, 0, sizeof(*v));
}

/* Half the interval of @s in the figure's unit, NAN without one. */
static double half_ci(const struct sample *s)
{
	return (s->ci_hi - s->ci_lo) / 2;
}

/* Row @r's cells, each "MEAN +- HALF" in the figure's unit, then for
 * groups after the first "(+D%)" against the first; the last column the
 * winner or the words for none. */
static void row_text(FILE *f, const struct compare *c, const struct verdict *v,
		     const struct verdict_row *r, int lw, int cw)
{
	char cell[96];

	fprintf(f, "%-*s", lw, r->fig.label);
	for (size_t g = 0; g < v->ngroups; g++) {
		const struct sample *s = &r->s[g];
		double k = r->fig.scale;
		int n = snprintf(cell, sizeof(cell), !s->n ? "-" :
				 isnan(s->sd) ? "%.6g" : "%.6g +- %.3g",
				 s->mean * k, half_ci(s) * k);

		if (g && s->n && r->s[0].n && r->s[0].mean && n > 0 &&
		    (size_t)n < sizeof(cell))
			snprintf(cell + n, sizeof(cell) - (size_t)n, " (%+.1f%%)",
				 100 * r->w[g].diff / fabs(r->s[0].mean));
		fprintf(f, "  %-*s", cw, cell);
	}
	if (r->winner >= 0)
		fprintf(f, "  %s\n", c->groups[r->winner].name);
	else
		fprintf(f, "  %s\n", v->why_none ? "-" :
			"no significant difference");
}

/* The headline in words: the first row's winner and by how much against
 * the runner-up, or why there is none. */
static void headline_text(FILE *f, const struct compare *c,
			  const struct verdict *v)
{
	const struct verdict_row *r = v->nrows ? &v->rows[0] : NULL;
	ssize_t second = -1;
	struct welch w;

	if (v->why_none) {
		fprintf(f, "No verdict: %s.\n", v->why_none);
		return;
	}
	if (!r || r->winner < 0) {
		fprintf(f, "No significant difference in %s at 95%%.\n",
			r ? r->fig.label : "total time");
		return;
	}
	for (size_t g = 0; g < v->ngroups; g++)
		if ((ssize_t)g != r->winner &&
		    (second < 0 || (r->fig.lower_better ?
				    r->s[g].mean < r->s[second].mean :
				    r->s[g].mean > r->s[second].mean)))
			second = (ssize_t)g;
	welch_test(&r->s[second], &r->s[r->winner], &w);
	fprintf(f, "Verdict: %s: %s %+.1f%% against %s (95%% interval %+.1f%% "
		"to %+.1f%%; %zu and %zu runs).\n", c->groups[r->winner].name,
		r->fig.label, 100 * w.diff / fabs(r->s[second].mean),
		c->groups[second].name,
		100 * w.ci_lo / fabs(r->s[second].mean),
		100 * w.ci_hi / fabs(r->s[second].mean),
		v->runs[r->winner], v->runs[second]);
}

/* The incomplete runs of @c, if any, in words: left out of the verdict
 * and marked in the table below it. */
static void left_out_text(FILE *f, const struct compare *c)
{
	size_t n = compare_incomplete(c);

	if (n)
		fprintf(f, "Left out of the verdict: %zu incomplete run%s "
			"(marked %s below).\n", n, n == 1 ? "" : "s",
			INCOMPLETE_MARK);
}

void verdict_text(FILE *f, const struct compare *c, const struct verdict *v)
{
	int lw = (int)strlen("figure"), cw = 28;

	for (size_t i = 0; i < v->nrows; i++)
		if ((int)strlen(v->rows[i].fig.label) > lw)
			lw = (int)strlen(v->rows[i].fig.label);
	for (size_t g = 0; g < v->ngroups; g++)
		if ((int)strlen(c->groups[g].name) + 12 > cw)
			cw = (int)strlen(c->groups[g].name) + 12;
	fprintf(f, "Configurations: %zu (means with their 95%% intervals; a "
		"figure's best only where Welch's t-test tells it from every "
		"other: total time at 95%%, the others at 95%% together)\n",
		v->ngroups);
	fprintf(f, "%-*s", lw, "figure");
	for (size_t g = 0; g < v->ngroups; g++) {
		char head[160];

		snprintf(head, sizeof(head), "%s (%zu run%s)",
			 c->groups[g].name, v->runs[g],
			 v->runs[g] == 1 ? "" : "s");
		fprintf(f, "  %-*s", cw, head);
	}
	fputs("  best\n", f);
	for (size_t i = 0; i < v->nrows; i++)
		row_text(f, c, v, &v->rows[i], lw, cw);
	headline_text(f, c, v);
	left_out_text(f, c);
}

/* A number, or null for NAN. */
static void json_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.9g", v);
}

void verdict_json(FILE *f, const struct compare *c, const struct verdict *v)
{
	const struct verdict_row *r = v->nrows ? &v->rows[0] : NULL;
	ssize_t win = r && !v->why_none ? r->winner : -1;
	size_t a = 0, b = 1;
	struct welch w = { .diff = NAN, .ci_lo = NAN, .ci_hi = NAN };

	/* The difference of the winner against the runner-up, or of the
	 * second configuration against the first. */
	if (win >= 0) {
		b = (size_t)win;
		a = b ? 0 : 1;
		for (size_t g = 0; g < v->ngroups; g++)
			if (g != b && (r->fig.lower_better ?
				       r->s[g].mean < r->s[a].mean :
				       r->s[g].mean > r->s[a].mean))
				a = g;
	}
	if (r && v->ngroups >= 2)
		welch_test(&r->s[a], &r->s[b], &w);
	fputs("{\"winner\": ", f);
	if (win >= 0)
		json_write_string(f, c->groups[win].name);
	else
		fputs("null", f);
	fprintf(f, ", \"figure\": \"%s\", \"level\": 0.95, \"test\": "
		"\"welch\", \"difference\": ", r ? r->fig.key : "total_time_ns");
	json_num(f, r && v->ngroups >= 2 ? w.diff / fabs(r->s[a].mean) : NAN);
	fputs(", \"ci\": [", f);
	json_num(f, r && v->ngroups >= 2 ? w.ci_lo / fabs(r->s[a].mean) : NAN);
	fputs(", ", f);
	json_num(f, r && v->ngroups >= 2 ? w.ci_hi / fabs(r->s[a].mean) : NAN);
	fputs("], \"of\": ", f);
	if (v->ngroups >= 2)
		json_write_string(f, c->groups[b].name);
	else
		fputs("null", f);
	fputs(", \"against\": ", f);
	if (v->ngroups >= 2)
		json_write_string(f, c->groups[a].name);
	else
		fputs("null", f);
	fputs(", \"reason\": ", f);
	if (v->why_none)
		json_write_string(f, v->why_none);
	else if (win < 0)
		json_write_string(f, "no significant difference");
	else
		fputs("null", f);
	fputs(", \"runs\": {", f);
	for (size_t g = 0; g < v->ngroups; g++) {
		fputs(g ? ", " : "", f);
		json_write_string(f, c->groups[g].name);
		fprintf(f, ": %zu", v->runs[g]);
	}
	fputs("}, \"figures\": [", f);
	for (size_t i = 0; i < v->nrows; i++) {
		const struct verdict_row *x = &v->rows[i];

		fprintf(f, "%s\n    {\"figure\": \"%s\", \"winner\": ",
			i ? "," : "", x->fig.key);
		if (x->winner >= 0)
			json_write_string(f, c->groups[x->winner].name);
		else
			fputs("null", f);
		fputs(", \"groups\": [", f);
		for (size_t g = 0; g < v->ngroups; g++) {
			double base = fabs(x->s[0].mean);

			fputs(g ? ", {\"mean\": " : "{\"mean\": ", f);
			json_num(f, x->s[g].mean);
			fputs(", \"ci\": [", f);
			json_num(f, x->s[g].ci_lo);
			fputs(", ", f);
			json_num(f, x->s[g].ci_hi);
			fprintf(f, "], \"n\": %zu", x->s[g].n);
			/* Against the first configuration, relative. */
			if (g) {
				fputs(", \"difference\": ", f);
				json_num(f, base ? x->w[g].diff / base : NAN);
				fputs(", \"difference_ci\": [", f);
				json_num(f, base ? x->w[g].ci_lo / base : NAN);
				fputs(", ", f);
				json_num(f, base ? x->w[g].ci_hi / base : NAN);
				fputc(']', f);
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs(v->nrows ? "\n  ]}" : "]}", f);
}
