/* The Check test runner: every module's suite, one summary line. */
#include <stdlib.h>

#include "testutil.h"
#include "suites.h"	/* generated: one entry per tests/test_*.c */

int main(void)
{
	Suite *(*const suites[])(void) = {
		SUITES
	};
	SRunner *sr = srunner_create(NULL);

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
