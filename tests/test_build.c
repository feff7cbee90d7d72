/*
 * Tests of the Makefile as distributions drive it: `make -n` (print, run
 * nothing) shows that the caller's CFLAGS and EXTRA_CFLAGS add to the
 * project's flags instead of replacing them, that objects track their
 * headers, and where `make install` puts each file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The source tree: tests/data is two levels below it. */
static char *source_dir(void)
{
	return tu_join(tu_datadir(), "../..");
}

/* What `make -n -B -C SOURCE OUTPUT=scratch ARGS...` prints, outside any
 * make that runs the tests (its MAKEFLAGS); asserts that make succeeded. */
static char *make_dry(const char *args[])
{
	char *src = source_dir(), *scratch = tu_scratch(), *output, *text;
	char *file = tu_join(scratch, "make.out");
	const char *argv[20] = {
		"sh", "-c", "unset MAKEFLAGS MFLAGS MAKELEVEL; out=$1; shift; "
			    "exec \"$@\" > \"$out\"",
		"sh", file, "make", "-n", "-B", "-C", src,
	};
	size_t n = 10;

	ck_assert(asprintf(&output, "OUTPUT=%s/o", scratch) > 0);
	argv[n++] = output;
	for (size_t i = 0; args[i] && n < 19; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	ck_assert_int_eq(tu_exec(argv, false), 0);
	text = tu_read(file, NULL);
	ck_assert_ptr_nonnull(text);
	free(output);
	free(file);
	free(scratch);
	free(src);
	return text;
}

/* The line of @text that contains @needle, as a new string. */
static char *line_with(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *start, *end;

	ck_assert_msg(at, "no line with '%s' in:\n%.2000s", needle, text);
	start = at;
	while (start > text && start[-1] != '\n')
		start--;
	end = strchr(at, '\n');
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* CFLAGS=-O1 EXTRA_CFLAGS=... keep -Iinclude, -D_GNU_SOURCE and -Werror. */
START_TEST(test_caller_flags_add)
{
	const char *args[] = { "CFLAGS=-O1", "EXTRA_CFLAGS=-DIORIOT_BUILD_TEST",
			       "CPPFLAGS=-DIORIOT_CPP_TEST", "all", NULL };
	char *out = make_dry(args);
	char *cc = line_with(out, "src/util/log.c");
	static const char *const want[] = {
		"-Iinclude", "-D_GNU_SOURCE", "-Werror", "-O1",
		"-DIORIOT_BUILD_TEST", "-DIORIOT_CPP_TEST", "-MMD -MP",
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(cc, want[i]), "'%s' lacks %s", cc, want[i]);
	ck_assert_msg(!strstr(cc, "-O2"), "the default CFLAGS stayed: %s", cc);
	/* The caller's optimisation comes after the project's flags. */
	ck_assert_msg(strstr(cc, "-O1") > strstr(cc, "-Werror"), "%s", cc);
	free(cc);
	free(out);
}
END_TEST

/* make install: ioriot to sbindir (section 8), the plot script to bindir,
 * the man page to mandir/man8, all under DESTDIR. */
START_TEST(test_install_dirs)
{
	const char *args[] = { "install", "prefix=/usr", "DESTDIR=/pkg",
			       "mandir=/usr/share/man", NULL };
	char *out = make_dry(args);
	char *line;

	line = line_with(out, "/pkg/usr/sbin/ioriot");
	ck_assert_msg(strstr(line, "install -m 0755"), "%s", line);
	free(line);
	line = line_with(out, "/pkg/usr/bin/ioriot-plot");
	free(line);
	line = line_with(out, "/pkg/usr/share/man/man8/ioriot.8");
	free(line);
	free(out);
}
END_TEST

Suite *build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("makefile");

	tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_caller_flags_add);
	tcase_add_test(tc, test_install_dirs);
	suite_add_tcase(s, tc);
	return s;
}
