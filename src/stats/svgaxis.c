/*
 * svgaxis: the value axes of the report's charts: ends and ticks at round
 * values (1, 2 or 5 times a power of ten, or powers of ten on a log
 * scale), and the position of a value along the axis.
 */
#include <math.h>

#include "html.h"

/* The round step of about @raw: 1, 2 or 5 times a power of ten. */
static double nice_step(double raw)
{
	double mag = pow(10, floor(log10(raw)));
	double frac = raw / mag;

	return (frac <= 1 ? 1 : frac <= 2 ? 2 : frac <= 5 ? 5 : 10) * mag;
}

static void fit_linear(struct axis *a, double lo, double hi)
{
	double step;

	if (lo > 0)
		lo = 0;
	if (!(hi > lo))
		hi = lo + 1;
	step = nice_step((hi - lo) / 5);
	a->lo = floor(lo / step) * step;
	a->hi = ceil(hi / step) * step;
	for (double t = a->lo; t <= a->hi + step / 2 &&
	     a->nticks < AXIS_MAX_TICKS; t += step)
		a->tick[a->nticks++] = fabs(t) < step / 2 ? 0 : t;
}

static void fit_log(struct axis *a, double lo, double hi)
{
	double elo, ehi, every;

	if (!(lo > 0))
		lo = hi > 0 ? hi : 1;
	if (!(hi >= lo))
		hi = lo;
	elo = floor(log10(lo));
	ehi = ceil(log10(hi));
	if (ehi <= elo)
		ehi = elo + 1;
	every = ceil((ehi - elo + 1) / AXIS_MAX_TICKS);
	a->lo = pow(10, elo);
	a->hi = pow(10, ehi);
	for (double e = elo; e <= ehi && a->nticks < AXIS_MAX_TICKS; e += every)
		a->tick[a->nticks++] = pow(10, e);
}

void axis_fit(struct axis *a, double lo, double hi, bool log)
{
	a->log = log;
	a->nticks = 0;
	if (log)
		fit_log(a, lo, hi);
	else
		fit_linear(a, lo, hi);
}

double axis_pos(const struct axis *a, double v)
{
	double p;

	if (a->log)
		p = v > 0 ? (log10(v) - log10(a->lo)) /
			    (log10(a->hi) - log10(a->lo)) : 0;
	else
		p = (v - a->lo) / (a->hi - a->lo);
	return p < 0 ? 0 : p > 1 ? 1 : p;
}
