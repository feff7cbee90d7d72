/*
 * Tests of the statistics of repeated runs (sample.h): Student's t
 * quantiles against published table values (df 2.5: by numerical integration), mean, deviation and interval
 * of a known sample, and Welch's test on samples that differ and that do
 * not.
 */
#include <check.h>
#include <errno.h>
#include <math.h>

#include "ioriot/sample.h"

/* Two-sided 95% critical values of Student's t (p = 0.975), from the
 * usual tables, and the normal limit. */
static const struct {
	double df, t;
} t975[] = {
	{ 1, 12.7062 }, { 2, 4.3027 }, { 4, 2.7764 }, { 9, 2.2622 },
	{ 30, 2.0423 }, { 120, 1.9799 }, { 1e7, 1.9600 }, { 2.5, 3.5747 },
};

START_TEST(test_t_quantile)
{
	double t = student_t_quantile(0.975, t975[_i].df);

	ck_assert_msg(fabs(t - t975[_i].t) < 2e-4, "df %g: %.6f, want %.4f",
		      t975[_i].df, t, t975[_i].t);
	/* Symmetric, and the median is 0. */
	ck_assert(fabs(student_t_quantile(0.025, t975[_i].df) + t) < 1e-6);
	ck_assert(fabs(student_t_quantile(0.5, t975[_i].df)) < 1e-9);
}
END_TEST

START_TEST(test_t_domain)
{
	ck_assert(isnan(student_t_quantile(0, 3)));
	ck_assert(isnan(student_t_quantile(1, 3)));
	ck_assert(isnan(student_t_quantile(0.9, 0)));
	/* df = 1 (Cauchy): the quantile is tan(pi (p - 1/2)). */
	ck_assert(fabs(student_t_quantile(0.9, 1) - tan(M_PI * 0.4)) < 1e-6);
}
END_TEST

START_TEST(test_sample_figures)
{
	const double v[] = { 2, 4, NAN, 4, 4, 5, 5, 7, 9 };
	struct sample s;

	sample_of(v, 9, &s);
	ck_assert_uint_eq(s.n, 8);
	ck_assert(fabs(s.mean - 5) < 1e-12);
	ck_assert(fabs(s.sd - sqrt(32.0 / 7)) < 1e-12);
	ck_assert(s.min == 2 && s.max == 9);
	/* mean +- t(0.975, 7) sd / sqrt(8), t = 2.3646 */
	ck_assert(fabs(s.ci_hi - (5 + 2.3646 * sqrt(32.0 / 7) / sqrt(8))) <
		  1e-3);
	ck_assert(fabs((s.ci_lo + s.ci_hi) / 2 - 5) < 1e-12);

	sample_of(v, 1, &s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert(s.mean == 2 && isnan(s.sd) && isnan(s.ci_lo));
	sample_of(v, 0, &s);
	ck_assert(s.n == 0 && isnan(s.mean));
}
END_TEST

START_TEST(test_welch)
{
	/* 20 vs 22.2 with a spread of about 0.7: clearly different. */
	const double a[] = { 20.1, 19.2, 20.8, 20.4, 19.5 };
	const double b[] = { 22.3, 21.4, 22.9, 21.8, 22.6 };
	/* The same population split in two: not different. */
	const double c[] = { 20.3, 19.4, 20.6, 20.0, 19.9 };
	struct sample sa, sb, sc, s1;
	struct welch w;

	sample_of(a, 5, &sa);
	sample_of(b, 5, &sb);
	sample_of(c, 5, &sc);
	ck_assert_int_eq(welch_test(&sa, &sb, &w), 0);
	ck_assert(w.significant);
	ck_assert(fabs(w.diff - 2.2) < 1e-9);
	ck_assert(w.ci_lo > 0 && w.ci_lo < w.diff && w.ci_hi > w.diff);
	ck_assert(w.df > 4 && w.df <= 8);
	ck_assert_int_eq(welch_test(&sa, &sc, &w), 0);
	ck_assert(!w.significant);
	ck_assert(w.ci_lo < 0 && w.ci_hi > 0);

	/* One run: the noise is unknown, nothing is significant. */
	sample_of(b, 1, &s1);
	ck_assert_int_eq(welch_test(&sa, &s1, &w), -EDOM);
	ck_assert(!w.significant);

	/* No spread at all: different means differ. */
	const double d[] = { 3, 3, 3 }, e[] = { 4, 4, 4 };

	sample_of(d, 3, &sa);
	sample_of(e, 3, &sb);
	ck_assert_int_eq(welch_test(&sa, &sb, &w), 0);
	ck_assert(w.significant && w.ci_lo == 1 && w.ci_hi == 1);
	ck_assert_int_eq(welch_test(&sa, &sa, &w), 0);
	ck_assert(!w.significant);
}
END_TEST

Suite *sample_suite(void)
{
	Suite *s = suite_create("sample");
	TCase *tc = tcase_create("stats");

	tcase_add_loop_test(tc, test_t_quantile, 0,
			    (int)(sizeof(t975) / sizeof(t975[0])));
	tcase_add_test(tc, test_t_domain);
	tcase_add_test(tc, test_sample_figures);
	tcase_add_test(tc, test_welch);
	suite_add_tcase(s, tc);
	return s;
}
