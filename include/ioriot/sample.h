/*
 * sample: the statistics of repeated runs of one configuration: mean,
 * standard deviation, extremes and a confidence interval of the mean
 * (Student's t), and Welch's t-test of the difference between two
 * configurations.  Used by --repeat's summary and --compare's verdict.
 */
#ifndef IORIOT_SAMPLE_H
#define IORIOT_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>

/* The confidence level of every interval and test (two-sided). */
#define SAMPLE_LEVEL 0.95

/* The figures of n values.  With n < 2 the standard deviation and the
 * interval are NAN (the noise is unknown); with n = 0 everything is. */
struct sample {
	size_t n;
	double mean, sd, min, max;
	double ci_lo, ci_hi;	/* SAMPLE_LEVEL interval of the mean */
};

/* The figures of the @n values @v (NAN values are skipped). */
void sample_of(const double *v, size_t n, struct sample *s);

/* The @p quantile (0 < p < 1) of Student's t distribution with @df > 0
 * degrees of freedom (not necessarily whole); NAN outside that domain. */
double student_t_quantile(double p, double df);

/* Welch's t-test of @b against @a (unequal variances). */
struct welch {
	double diff;		/* b.mean - a.mean */
	double ci_lo, ci_hi;	/* SAMPLE_LEVEL interval of diff */
	double df;		/* Welch-Satterthwaite degrees of freedom */
	bool significant;	/* the interval excludes 0 */
};

/*
 * Compare @b with @a at SAMPLE_LEVEL.  0, or -EDOM when either has fewer
 * than two values (the noise is unknown: nothing is significant).  Two
 * samples without spread differ significantly exactly when their means
 * differ.
 */
int welch_test(const struct sample *a, const struct sample *b,
	       struct welch *w);

/* The same at confidence @level (0 < level < 1): the interval of the
 * difference is that level's, and significant means it excludes 0. */
int welch_test_at(const struct sample *a, const struct sample *b,
		  double level, struct welch *w);

#endif
