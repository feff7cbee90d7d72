/*
 * tableprint: compare_write() (compare.h), the comparison table as text:
 * columns sized to their widest cell, the best value of each row marked
 * with '*'.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* One line: @label, @best, then the cells @cells of the runs, each
 * followed by '*' where @mark says so; no trailing blanks. */
static void print_line(FILE *f, size_t lw, const char *label, const char *best,
		       const size_t *w, const char *const *cells,
		       const bool *mark, size_t n)
{
	fprintf(f, "%-*s  %-6s", (int)lw, label, best);
	for (size_t j = 0; j < n; j++) {
		fprintf(f, "  %*s", (int)w[j], cells[j]);
		if (mark && mark[j])
			fputc('*', f);
		else if (j + 1 < n)
			fputc(' ', f);
	}
	fputc('\n', f);
}

static int print(FILE *f, const struct compare *c, const struct table *t)
{
	size_t lw = strlen("Test"), n = c->n, stride = t->nruns;
	size_t *w = calloc(n ? n : 1, sizeof(*w));
	const char **cells = calloc(n ? n : 1, sizeof(*cells));
	char (*bufs)[48] = calloc(n ? n : 1, sizeof(*bufs));
	bool *mark = calloc(n ? n : 1, sizeof(*mark));
	int ret = -ENOMEM;

	if (!w || !cells || !bufs || !mark)
		goto out;
	for (size_t j = 0; j < n; j++) {
		w[j] = strlen(c->runs[j].label) > strlen(c->runs[j].test) ?
		       strlen(c->runs[j].label) : strlen(c->runs[j].test);
		if (strlen(c->runs[j].host) > w[j])
			w[j] = strlen(c->runs[j].host);
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
	fprintf(f, "Replay runs: %zu (* marks the best value of a row, lower "
		"or higher as its best column says)\n", n);
	if (t->mixed_pacing) {
		char pacings[64];

		fprintf(f, "Warning: the runs were paced differently (%s): "
			"their times answer different questions, so no value "
			"is marked best; compare runs of one pacing\n",
			compare_pacings(c, pacings, sizeof(pacings)));
	}
	fputc('\n', f);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].label;
	print_line(f, lw, "", "best", w, cells, NULL, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].test;
	print_line(f, lw, "Test", "", w, cells, NULL, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].host;
	print_line(f, lw, "Host", "", w, cells, NULL, n);
	for (size_t j = 0; j < n; j++)
		cells[j] = c->runs[j].pacing;
	print_line(f, lw, "Pacing", "", w, cells, NULL, n);
	for (size_t i = 0; i < t->n; i++) {
		const struct row *r = &t->rows[i];

		if (r->prec == HEADING) {
			fprintf(f, "\n%s\n", r->label);
			continue;
		}
		for (size_t j = 0; j < n; j++)
			cells[j] = table_cell(bufs[j], sizeof(bufs[j]),
					t->vals[i * stride + j], r->prec);
		table_mark_best(t, i, mark);
		print_line(f, lw, r->label, table_best_names[r->best], w, cells,
			   mark, n);
	}
	ret = fflush(f) || ferror(f) ? -(errno ? errno : EIO) : 0;
out:
	free(mark);
	free(bufs);
	free(cells);
	free(w);
	return ret;
}

int compare_write(FILE *f, const struct compare *c)
{
	struct table t;
	int ret = table_build(&t, c);

	if (!ret)
		ret = print(f, c, &t);
	table_free(&t);
	return ret;
}
