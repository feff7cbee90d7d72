/*
 * svgchart: the report's charts as inline SVG: lines over time, horizontal
 * bars, and latency ranges on a log scale.  Every chart has axes with
 * tick labels and axis titles, scales with its viewBox, and carries
 * data-kind and data-points (the values drawn) so tests can see what it
 * shows.  A chart without a value is a note instead, never an empty frame.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html.h"

#define W 640			/* viewBox width */
#define ROW 24			/* a bar's row */
#define LABEL_CHARS 28		/* characters of a bar's label */

/* The plot area inside the viewBox. */
struct frame {
	double x0, x1, y0, y1;	/* left, right, top, bottom */
};

static void svg_open(FILE *f, const char *kind, int h, size_t points,
		     const char *title)
{
	fprintf(f, "<svg class=\"chart\" data-kind=\"%s\" data-points=\"%zu\" "
		"viewBox=\"0 0 %d %d\" style=\"max-width:%dpx\" role=\"img\" "
		"aria-label=\"", kind, points, W, h, W);
	html_text(f, title);
	fputs("\">\n", f);
}

static int no_data(FILE *f, const char *title)
{
	fputs("<p class=\"empty\">", f);
	html_text(f, title);
	fputs(": no data</p>\n", f);
	return 0;
}

/* Vertical grid lines and labels of the value axis @a along x. */
static void x_ticks(FILE *f, const struct frame *fr, const struct axis *a,
		    fmt_fn fmt)
{
	char buf[32];

	for (size_t i = 0; i < a->nticks; i++) {
		double x = fr->x0 + axis_pos(a, a->tick[i]) * (fr->x1 - fr->x0);

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>", x, fr->y0, x, fr->y1);
		fmt(buf, sizeof(buf), a->tick[i]);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%s</text>\n", x, fr->y1 + 16,
			buf);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", fr->x0, fr->y1, fr->x1, fr->y1);
}

/* Horizontal grid lines and labels of the value axis @a along y. */
static void y_ticks(FILE *f, const struct frame *fr, const struct axis *a,
		    fmt_fn fmt)
{
	char buf[32];

	for (size_t i = 0; i < a->nticks; i++) {
		double y = fr->y1 - axis_pos(a, a->tick[i]) * (fr->y1 - fr->y0);

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>", fr->x0, y, fr->x1, y);
		fmt(buf, sizeof(buf), a->tick[i]);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>\n", fr->x0 - 6, y + 4,
			buf);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		"y2=\"%.1f\"/>\n", fr->x0, fr->y0, fr->x0, fr->y1);
}

static void x_title(FILE *f, const struct frame *fr, const char *t, int h)
{
	if (!t)
		return;
	fprintf(f, "<text class=\"axis-title\" x=\"%.1f\" y=\"%d\" "
		"text-anchor=\"middle\">", (fr->x0 + fr->x1) / 2, h - 6);
	html_text(f, t);
	fputs("</text>\n", f);
}

static void y_title(FILE *f, const struct frame *fr, const char *t)
{
	if (!t)
		return;
	fprintf(f, "<text class=\"axis-title\" transform=\"translate(14 %.1f) "
		"rotate(-90)\" text-anchor=\"middle\">", (fr->y0 + fr->y1) / 2);
	html_text(f, t);
	fputs("</text>\n", f);
}

static int svg_close(FILE *f)
{
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}

/* The points of @s that are drawn: finite, and positive on a log axis. */
static bool drawn(const struct line_series *s, size_t i, bool log)
{
	return isfinite(s->x[i]) && isfinite(s->y[i]) && (!log || s->y[i] > 0);
}

static void series_path(FILE *f, const struct frame *fr,
			const struct axis *xa, const struct axis *ya,
			const struct line_series *s)
{
	bool pen = false, marks = s->n <= 40;

	fprintf(f, "<path class=\"series\" fill=\"none\" stroke=\"%s\" d=\"",
		s->colour);
	for (size_t i = 0; i < s->n; i++) {
		if (!drawn(s, i, ya->log)) {
			pen = false;
			continue;
		}
		fprintf(f, "%c%.1f %.1f ", pen ? 'L' : 'M',
			fr->x0 + axis_pos(xa, s->x[i]) * (fr->x1 - fr->x0),
			fr->y1 - axis_pos(ya, s->y[i]) * (fr->y1 - fr->y0));
		pen = true;
	}
	fputs("\"><title>", f);
	html_text(f, s->name);
	fputs("</title></path>\n", f);
	for (size_t i = 0; marks && i < s->n; i++)
		if (drawn(s, i, ya->log))
			fprintf(f, "<circle class=\"mark\" r=\"2.5\" fill=\"%s\" "
				"cx=\"%.1f\" cy=\"%.1f\"/>", s->colour,
				fr->x0 + axis_pos(xa, s->x[i]) * (fr->x1 - fr->x0),
				fr->y1 - axis_pos(ya, s->y[i]) * (fr->y1 - fr->y0));
	if (marks)
		fputc('\n', f);
}

int svg_lines(FILE *f, const struct chart_opts *o,
	      const struct line_series *s, size_t n)
{
	const int h = 280;
	struct frame fr = { 72, W - 16, 12, h - 44 };
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	struct axis xa, ya;
	size_t points = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			if (!drawn(&s[k], i, o->ylog))
				continue;
			xlo = fmin(xlo, s[k].x[i]);
			xhi = fmax(xhi, s[k].x[i]);
			ylo = fmin(ylo, s[k].y[i]);
			yhi = fmax(yhi, s[k].y[i]);
			points++;
		}
	if (!points)
		return no_data(f, o->title);
	axis_fit(&xa, xlo, xhi, false);
	axis_fit(&ya, ylo, yhi, o->ylog);
	svg_open(f, "lines", h, points, o->title);
	x_ticks(f, &fr, &xa, o->xfmt);
	y_ticks(f, &fr, &ya, o->yfmt);
	x_title(f, &fr, o->xlabel, h);
	y_title(f, &fr, o->ylabel);
	for (size_t k = 0; k < n; k++)
		series_path(f, &fr, &xa, &ya, &s[k]);
	return svg_close(f);
}

/* The label of row @i of a bar chart, its full text as a tooltip. */
static void row_label(FILE *f, const struct frame *fr, size_t i,
		      const char *label)
{
	fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\"><title>", fr->x0 - 8,
		fr->y0 + (double)i * ROW + ROW / 2.0 + 4);
	html_text(f, label);
	fputs("</title>", f);
	html_text_cut(f, label, LABEL_CHARS);
	fputs("</text>\n", f);
}

int svg_bars(FILE *f, const struct chart_opts *o, const struct bar *b,
	     size_t n)
{
	const int h = (int)n * ROW + 60;
	struct frame fr = { 200, W - 72, 8, h - 44 };
	double hi = 0;
	struct axis a;
	char buf[32];

	for (size_t i = 0; i < n; i++)
		if (isfinite(b[i].v))
			hi = fmax(hi, b[i].v);
	if (!n || !(hi > 0))
		return no_data(f, o->title);
	axis_fit(&a, 0, hi, false);
	svg_open(f, "bars", h, n, o->title);
	x_ticks(f, &fr, &a, o->xfmt);
	x_title(f, &fr, o->xlabel, h);
	for (size_t i = 0; i < n; i++) {
		double y = fr.y0 + (double)i * ROW + 4;
		double w = axis_pos(&a, isfinite(b[i].v) ? b[i].v : 0) *
			   (fr.x1 - fr.x0);

		row_label(f, &fr, i, b[i].label);
		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", fr.x0, y,
			w, ROW - 8, b[i].colour);
		o->xfmt(buf, sizeof(buf), b[i].v);
		fprintf(f, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\">%s"
			"</text>\n", fr.x0 + w + 4, y + ROW - 12, buf);
	}
	return svg_close(f);
}

/* The lowest and highest values of @r on a log axis (> 0). */
static void range_span(const struct range *r, size_t n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const double v[] = { r[i].p50, r[i].p99, r[i].p999, r[i].max };

		for (size_t k = 0; k < 4; k++)
			if (isfinite(v[k]) && v[k] > 0) {
				*lo = fmin(*lo, v[k]);
				*hi = fmax(*hi, v[k]);
			}
	}
}

/* The group of a range row, with its figures as a tooltip. */
static void range_title(FILE *f, const struct range *r, fmt_fn fmt)
{
	const double v[] = { r->p50, r->p99, r->p999, r->max };
	static const char *const names[] = { "p50", "p99", "p99.9", "max" };
	char buf[32];

	fputs("<g><title>", f);
	html_text(f, r->label);
	for (size_t k = 0; k < 4; k++) {
		fmt(buf, sizeof(buf), v[k]);
		fprintf(f, "%s %s %s", k ? "," : ":", names[k], buf);
	}
	fputs("</title>", f);
}

int svg_ranges(FILE *f, const struct chart_opts *o, const struct range *r,
	       size_t n)
{
	const int h = (int)n * ROW + 60;
	struct frame fr = { 200, W - 32, 8, h - 44 };
	struct axis a;
	double lo, hi;

	range_span(r, n, &lo, &hi);
	if (!n || !isfinite(lo))
		return no_data(f, o->title);
	axis_fit(&a, lo, hi, true);
	svg_open(f, "ranges", h, n, o->title);
	x_ticks(f, &fr, &a, o->xfmt);
	x_title(f, &fr, o->xlabel, h);
	for (size_t i = 0; i < n; i++) {
		double y = fr.y0 + (double)i * ROW + ROW / 2.0;
		double x50 = fr.x0 + axis_pos(&a, r[i].p50) * (fr.x1 - fr.x0);
		double x99 = fr.x0 + axis_pos(&a, r[i].p99) * (fr.x1 - fr.x0);
		double xmax = fr.x0 + axis_pos(&a, r[i].max) * (fr.x1 - fr.x0);

		row_label(f, &fr, i, r[i].label);
		range_title(f, &r[i], o->xfmt);
		fprintf(f, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x50, y, xmax,
			y, r[i].colour);
		fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"12\" fill=\"%s\"/>", x50, y - 6,
			fmax(x99 - x50, 2), r[i].colour);
		if (isfinite(r[i].p999))
			fprintf(f, "<line class=\"tick999\" x1=\"%.1f\" "
				"y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"%s\"/>",
				fr.x0 + axis_pos(&a, r[i].p999) *
				(fr.x1 - fr.x0), y - 8, fr.x0 +
				axis_pos(&a, r[i].p999) * (fr.x1 - fr.x0),
				y + 8, r[i].colour);
		fprintf(f, "<circle class=\"max\" r=\"3\" cx=\"%.1f\" "
			"cy=\"%.1f\" fill=\"%s\"/></g>\n", xmax, y, r[i].colour);
	}
	return svg_close(f);
}

void html_legend(FILE *f, const char *const *names, const char *const *colours,
		 size_t n)
{
	fputs("<p class=\"legend\">", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>", colours[i]);
		html_text(f, names[i]);
		fputs("</span> ", f);
	}
	fputs("</p>\n", f);
}
