/*
 * htmlseries: the time series of all replay runs overlaid in the HTML
 * report, from their CSV files: operations per second, MB/s (read and
 * write together) and the p99 latency of each interval, a line per run in
 * the run's colour.
 */
#include <errno.h>
#include <stdlib.h>

#include "html.h"

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

int html_overlaid(FILE *f, const struct htmlreport *r)
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
