/*
 * tableprint: compare_write() (compare.h): the verdict between the
 * configurations (verdict.c), then every run side by side, columns sized
 * to their widest cell, an incomplete run's name marked and a footnote
 * below saying why (incomplete.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "verdict.h"

/* One line: @label, @best, then the cells @cells of the runs; no
 * trailing blanks. */
static void print_line(FILE *f, size_t lw, const char *label, const char *best,
		       const size_t *w, const char *const *cells, size_t n)
{
	fprintf(f, "%-*s  %-6s", (int)lw, label, best);
	for (size_t j = 0; j < n; j++)
		fprintf(f, "  %*s", (int)w[j], cells[j]);
	fputc('\n', f);
}

/* The footnotes of the incomplete runs of @c, a line each: why. */
static void footnotes(FILE *f, const struct compare *c)
{
	char why[RUN_WHY_TEXT];
	bool first = true;

	for (size_t j = 0; j < c->n; j++) {
		if (!c->runs[j].why.n)
			continue;
		fprintf(f, "%s%s %s: incomplete: %s\n", first ? "\n" : "",
			INCOMPLETE_MARK, c->runs[j].label,
			run_why_text(&c->runs[j].why, why, sizeof(why)));
		first = false;
	}
}

static int print(FILE *f, const struct compare *c, const struct table *t)
{
	size_t lw = strlen("Configuration"), n = c->n, stride = t->nruns;
	size_t *w = calloc(n ? n : 1, sizeof(*w));
	const char **cells = calloc(n ? n : 1, sizeof(*cells));
	char (*bufs)[48] = calloc(n ? n : 1, sizeof(*bufs));
	char **names = calloc(n ? n : 1, sizeof(*names));
	int ret = -ENOMEM;

	if (!w || !cells || !bufs || !names)
		goto out;
	/* Each run's name, an incomplete one's marked. */
	for (size_t j = 0; j < n; j++)
		if (asprintf(&names[j], "%s%s", c->runs[j].label,
			     c->runs[j].why.n ? INCOMPLETE_MARK : "") < 0) {
			names[j] = NULL;
			goto out;
		}
	for (size_t j = 0; j < n; j++) {
		w[j] = strlen(names[j]) > strlen(c->runs[j].test) ?
		       strlen(names[j]) : strlen(c->runs[j].test);
		if (strlen(c->runs[j].host) > w[j])
			w[j] = strlen(c->runs[j].host);
		if (strlen(c->groups[c->runs[j].group].name) > w[j])
			w[j] = strlen(c->groups[c->runs[j].group].name);
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->rows[i].prec == HEADING)
			continue;
		if (strlen(t->rows[i].label) > lw)
			lw = strlen(t->rows[i].label);
		for (size_t j = 0; j < n; j++) {
			size_t len = strlen(table_cell(bufs[0], sizeof(bufs[0]),
						 t->vals[i * stride + j],
						 t->rows[i].prec));

			if (len > w[j])
				w[j] = len;
		}
	}
	fprintf(f, "\nReplay runs: %zu, each as it ran (better: the direction "
		"in which a value is better)\n\n", n);
	for (size_t j = 0; j < n; j++)
		cells[j] = names[j];
	print_line(f, lw, "", "better", w, cells, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].test;
	print_line(f, lw, "Test", "", w, cells, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].host;
	print_line(f, lw, "Host", "", w, cells, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].pacing;
	print_line(f, lw, "Pacing", "", w, cells, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->groups[c->runs[j].group].name;
	print_line(f, lw, "Configuration", "", w, cells, n);
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		if (r->prec == HEADING) {
			fprintf(f, "\n%s\n", r->label);
			continue;
		}
		for (size_t j = 0; j < n; j++)
			cells[j] = table_cell(bufs[j], sizeof(bufs[j]),
					t->vals[i * stride + j], r->prec);
		print_line(f, lw, r->label, table_best_names[r->best], w, cells,
			   n);
	}
	footnotes(f, c);
	ret = fflush(f) || ferror(f) ? -(errno ? errno : EIO) : 0;
out:
	for (size_t j = 0; names && j < n; j++)
		free(names[j]);
	free(names);
	free(bufs);
	free(cells);
	free(w);
	return ret;
}

int compare_write(FILE *f, const struct compare *c)
{
	struct verdict v;
	struct table t = { 0 };
	int ret = verdict_build(&v, c);

	if (!ret)
		verdict_text(f, c, &v);
	if (!ret)
		ret = table_build(&t, c);
	if (!ret)
		ret = print(f, c, &t);
	table_free(&t);
	verdict_free(&v);
	return ret;
}
