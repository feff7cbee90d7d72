/*
 * tablejson: compare_write_json() (compare.h), the comparison as one JSON
 * object for scripts: the runs, then every row with its values as read
 * (null where a run has none) and the runs holding its best value, by the
 * same rule as the text table.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ioriot/version.h"
#include "stats.h"

static void row_json(FILE *f, const struct table *t, size_t i, bool *mark)
{
	const struct row *r = &t->rows[i];
	const char *sep = "";

	if (r->prec == HEADING) {
		fputs("{\"section\": ", f);
		json_write_string(f, r->label);
		fputc('}', f);
		return;
	}
	fputs("{\"figure\": ", f);
	json_write_string(f, r->label);
	fprintf(f, ", \"best\": \"%s\", \"decimals\": %d, \"values\": [",
		table_best_names[r->best], r->prec);
	for (size_t j = 0; j < t->nruns; j++) {
		double v = t->vals[i * t->nruns + j];

		if (isnan(v))
			fprintf(f, "%snull", j ? ", " : "");
		else
			fprintf(f, "%s%.*f", j ? ", " : "", r->prec, v);
	}
	fputs("], \"best_runs\": [", f);
	table_mark_best(t, i, mark);
	for (size_t j = 0; j < t->nruns; j++) {
		if (!mark[j])
			continue;
		fprintf(f, "%s%zu", sep, j);
		sep = ", ";
	}
	fputs("]}", f);
}

int compare_write_json(FILE *f, const struct compare *c)
{
	struct table t;
	bool *mark = calloc(c->n ? c->n : 1, sizeof(*mark));
	int ret = mark ? table_build(&t, c) : -ENOMEM;

	if (!mark)
		return ret;
	if (ret)
		goto out;
	fputs("{\n  \"format\": \"ioriot-compare\",\n  \"format_version\": 1,"
	      "\n  \"ioriot_version\": ", f);
	json_write_string(f, ioriot_version());
	fputs(",\n  \"runs\": [", f);
	for (size_t j = 0; j < c->n; j++) {
		fputs(j ? ", {\"label\": " : "{\"label\": ", f);
		json_write_string(f, c->runs[j].label);
		fputs(", \"test\": ", f);
		json_write_string(f, c->runs[j].test);
		fputs(", \"host\": ", f);
		json_write_string(f, c->runs[j].host);
		fprintf(f, ", \"pacing\": \"%s\"}", c->runs[j].pacing);
	}
	fprintf(f, "],\n  \"mixed_pacing\": %s", t.mixed_pacing ? "true" :
							       "false");
	fputs(",\n  \"rows\": [", f);
	for (size_t i = 0; i < t.n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		for (size_t j = 0; j < c->n; j++)
			mark[j] = false;
		row_json(f, &t, i, mark);
	}
	fputs("\n  ]\n}\n", f);
	ret = fflush(f) || ferror(f) ? -EIO : 0;
out:
	table_free(&t);
	free(mark);
	return ret;
}
