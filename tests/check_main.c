/*
 * The Check test runner: every module's suite, one summary line.
 *
 * Check selects the cases by the environment: CK_RUN_SUITE, CK_RUN_CASE,
 * and by tag CK_INCLUDE_TAGS and CK_EXCLUDE_TAGS.  make check excludes
 * the timing cases (testutil.h), make check-timing includes only them and
 * sets IORIOT_CHECK_ATTEMPTS=3: a case that fails is run again by its
 * name, alone, until it passes or has had that many attempts, each
 * printed.  A timing bound a busy host missed once is no bug; one missed
 * three times in a row is worth a look.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "suites.h"	/* generated: one entry per tests/test_*.c */

static SRunner *runner(void)
{
	Suite *(*const suites[])(void) = {
		SUITES
	};
	SRunner *sr = srunner_create(NULL);

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		/* cppcheck-suppress uninitvar ; SUITES (suites.h) fills it */
		srunner_add_suite(sr, suites[i]());
	return sr;
}

/* Whether tag list @tags (separated by spaces, as Check's) has @tag. */
static bool has_tag(const char *tags, const char *tag)
{
	size_t len = strlen(tag);

	for (const char *p = tags; p && *p; p += strcspn(p, " ")) {
		p += strspn(p, " ");
		if (!strncmp(p, tag, len) && (p[len] == ' ' || !p[len]))
			return true;
	}
	return false;
}

/*
 * Run the case @tc again, up to @attempts in all: whether it passed at
 * last.  The other selections (suite, tags) stay the environment's.
 */
static bool retry(const char *tc, int attempts)
{
	for (int a = 2; a <= attempts; a++) {
		SRunner *sr = runner();
		int failed;

		printf("check: case '%s' failed, attempt %d of %d\n", tc, a,
		       attempts);
		fflush(stdout);
		srunner_run_tagged(sr, NULL, tc, NULL, NULL, CK_NORMAL);
		failed = srunner_ntests_failed(sr);
		srunner_free(sr);
		if (!failed) {
			printf("check: case '%s' passed at attempt %d of %d\n",
			       tc, a, attempts);
			return true;
		}
	}
	printf("check: case '%s' failed all %d attempts\n", tc, attempts);
	return false;
}

int main(void)
{
	const char *env = getenv("IORIOT_CHECK_ATTEMPTS");
	int attempts = env ? atoi(env) : 1;
	SRunner *sr = runner();
	unsigned timing = tu_timing_cases;
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	if (failed && attempts > 1) {
		TestResult **res = srunner_failures(sr);
		const char **cases = calloc((size_t)failed, sizeof(*cases));
		int n = 0, still = 0;

		if (!res || !cases) {
			fprintf(stderr, "check: out of memory\n");
			return EXIT_FAILURE;
		}
		/* Each failing case once, in the order they failed. */
		for (int i = 0; i < failed; i++) {
			const char *tc = tr_tcname(res[i]);
			int j = 0;

			while (j < n && strcmp(cases[j], tc))
				j++;
			if (j == n)
				cases[n++] = tc;
		}
		for (int i = 0; i < n; i++)
			still += !retry(cases[i], attempts);
		printf("check: %d of %d failing case%s still failing after %d "
		       "attempts\n", still, n, n == 1 ? "" : "s", attempts);
		failed = still;
		free(cases);
		free(res);
	}
	srunner_free(sr);
	/* Left out is not passed: say so after Check's summary. */
	if (has_tag(getenv("CK_EXCLUDE_TAGS"), TU_TIMING_TAG))
		printf("check: %u timing case%s (tag %s) not run here: make "
		       "check-timing runs them\n", timing,
		       timing == 1 ? "" : "s", TU_TIMING_TAG);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
