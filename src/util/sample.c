/*
 * sample: mean, standard deviation, Student's t intervals and Welch's
 * t-test (sample.h).  The t distribution's CDF comes from the regularized
 * incomplete beta function, evaluated by its continued fraction (modified
 * Lentz); its quantile by bisection on the CDF, which is monotonic.
 */
#include <errno.h>
#include <math.h>

#include "ioriot/sample.h"

#define CF_ROUNDS 300		/* continued fraction terms, at most */
#define CF_EPS 1e-14
#define TINY 1e-300
#define BISECT_ROUNDS 200

void sample_of(const double *v, size_t n, struct sample *s)
{
	double sum = 0, sq = 0;
	size_t k = 0;

	s->min = s->max = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (!k || v[i] < s->min)
			s->min = v[i];
		if (!k || v[i] > s->max)
			s->max = v[i];
		sum += v[i];
		k++;
	}
	s->n = k;
	s->mean = k ? sum / (double)k : NAN;
	s->sd = s->ci_lo = s->ci_hi = NAN;
	if (k < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->sd = sqrt(sq / (double)(k - 1));
	double half = student_t_quantile(0.5 + SAMPLE_LEVEL / 2,
					 (double)(k - 1)) * s->sd /
		      sqrt((double)k);

	s->ci_lo = s->mean - half;
	s->ci_hi = s->mean + half;
}

/* The continued fraction of the incomplete beta function I_x(a, b). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < TINY)
		d = TINY;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= CF_ROUNDS; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));

		for (int half = 0; half < 2; half++) {
			d = 1 + num * d;
			c = 1 + num / c;
			if (fabs(d) < TINY)
				d = TINY;
			if (fabs(c) < TINY)
				c = TINY;
			d = 1 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x /
			      ((a + m2) * (a + m2 + 1));
		}
		if (fabs(d * c - 1) < CF_EPS)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	/* The fraction converges fast below the mean of the distribution;
	 * above it, by symmetry. */
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with @df degrees of freedom, from
 * P(|T| <= |t|) = I_{t^2 / (df + t^2)}(1/2, df/2), exact near 0 too. */
static double student_t_cdf(double t, double df)
{
	double half = 0.5 * beta_inc(0.5, df / 2, t * t / (df + t * t));

	return t >= 0 ? 0.5 + half : 0.5 - half;
}

double student_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;

	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	while (student_t_cdf(lo, df) > p && lo > -1e12)
		lo *= 2;
	while (student_t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < BISECT_ROUNDS &&
	     hi - lo > 1e-12 * (fabs(hi) > 1 ? fabs(hi) : 1); i++) {
		double mid = (lo + hi) / 2;

		if (student_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int welch_test(const struct sample *a, const struct sample *b,
	       struct welch *w)
{
	return welch_test_at(a, b, SAMPLE_LEVEL, w);
}

int welch_test_at(const struct sample *a, const struct sample *b,
		  double level, struct welch *w)
{
	double va, vb, se, half;

	w->diff = b->mean - a->mean;
	w->ci_lo = w->ci_hi = w->df = NAN;
	w->significant = false;
	if (a->n < 2 || b->n < 2)
		return -EDOM;
	va = a->sd * a->sd / (double)a->n;
	vb = b->sd * b->sd / (double)b->n;
	se = sqrt(va + vb);
	if (se == 0) {
		w->ci_lo = w->ci_hi = w->diff;
		w->df = (double)(a->n + b->n - 2);
		w->significant = w->diff != 0;
		return 0;
	}
	w->df = (va + vb) * (va + vb) /
		(va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
	half = student_t_quantile(0.5 + level / 2, w->df) * se;
	w->ci_lo = w->diff - half;
	w->ci_hi = w->diff + half;
	w->significant = w->ci_lo > 0 || w->ci_hi < 0;
	return 0;
}
