/*
 * tablejson: compare_write_json() (compare.h), the comparison as one JSON
 * object for scripts: the configurations and the verdict between them
 * (verdict.c), the runs (an incomplete one with its reasons), then every
 * row with its values as read (null where a run has none).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ioriot/version.h"
#include "stats.h"
#include "verdict.h"

static void row_json(FILE *f, const struct table *t, size_t i)
{
	const struct row *r = &t->rows[i];

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
	fputs("]}", f);
}

/* Why a run is incomplete: null for a whole run, else an array of its
 * reasons (incomplete.h). */
static void incomplete_json(FILE *f, const struct run_why *why)
{
	if (!why->n) {
		fputs("null", f);
		return;
	}
	for (size_t i = 0; i < why->n; i++) {
		fputs(i ? ", " : "[", f);
		json_write_string(f, why->reason[i]);
	}
	fputc(']', f);
}

int compare_write_json(FILE *f, const struct compare *c)
{
	struct verdict v;
	struct table t = { 0 };
	int ret = verdict_build(&v, c);

	if (!ret)
		ret = table_build(&t, c);
	if (ret)
		goto out;
	fprintf(f, "{\n  \"format\": \"ioriot-compare\",\n  \"format_version\": "
		"%d,\n  \"ioriot_version\": ", COMPARE_JSON_VERSION);
	json_write_string(f, ioriot_version());
	fputs(",\n  \"configurations\": [", f);
	for (size_t g = 0; g < c->ngroups; g++) {
		fputs(g ? ", " : "", f);
		json_write_string(f, c->groups[g].name);
	}
	fputs("],\n  \"verdict\": ", f);
	verdict_json(f, c, &v);
	fputs(",\n  \"runs\": [", f);
	for (size_t j = 0; j < c->n; j++) {
		fputs(j ? ", {\"label\": " : "{\"label\": ", f);
		json_write_string(f, c->runs[j].label);
		fputs(", \"test\": ", f);
		json_write_string(f, c->runs[j].test);
		fputs(", \"host\": ", f);
		json_write_string(f, c->runs[j].host);
		fprintf(f, ", \"pacing\": \"%s\", \"configuration\": ",
			c->runs[j].pacing);
		json_write_string(f, c->groups[c->runs[j].group].name);
		fputs(", \"incomplete\": ", f);
		incomplete_json(f, &c->runs[j].why);
		fputc('}', f);
	}
	fputs("],\n  \"rows\": [", f);
	for (size_t i = 0; i < t.n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		row_json(f, &t, i);
	}
	fputs("\n  ]\n}\n", f);
	ret = fflush(f) || ferror(f) ? -EIO : 0;
out:
	table_free(&t);
	verdict_free(&v);
	return ret;
}
