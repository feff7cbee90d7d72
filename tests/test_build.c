/*
 * Tests of the Makefile as distributions drive it: `make -n` (print, run
 * nothing) shows that the caller's CFLAGS and EXTRA_CFLAGS add to the
 * project's flags instead of replacing them, that objects track their
 * headers, where `make install` puts each file, and that the probe needs
 * no BTF of the build host; the Debian package is built and its ioriot run
 * from a scratch root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* CFLAGS=-O1 EXTRA_CFLAGS=... keep -Iinclude, -D_GNU_SOURCE and the
 * warnings; -Werror only with WERROR=1, as the project's own targets pass
 * it, never in a plain build with the caller's flags. */
START_TEST(test_caller_flags_add)
{
	const char *args[] = { "CFLAGS=-O1", "EXTRA_CFLAGS=-DIORIOT_BUILD_TEST",
			       "CPPFLAGS=-DIORIOT_CPP_TEST", "all", NULL };
	const char *strict[] = { "WERROR=1", "CFLAGS=-O1", "all", NULL };
	char *out = make_dry(args);
	char *cc = line_with(out, "src/util/log.c");
	static const char *const want[] = {
		"-Iinclude", "-D_GNU_SOURCE", "-Wall", "-O1",
		"-DIORIOT_BUILD_TEST", "-DIORIOT_CPP_TEST", "-MMD -MP",
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(cc, want[i]), "'%s' lacks %s", cc, want[i]);
	ck_assert_msg(!strstr(cc, "-O2"), "the default CFLAGS stayed: %s", cc);
	ck_assert_msg(!strstr(cc, "-Werror"), "a plain build has -Werror: %s",
		      cc);
	/* The caller's optimisation comes after the project's flags. */
	ck_assert_msg(strstr(cc, "-O1") > strstr(cc, "-Wall"), "%s", cc);
	free(cc);
	free(out);
	out = make_dry(strict);
	cc = line_with(out, "src/util/log.c");
	ck_assert_msg(strstr(cc, "-Werror") && strstr(cc, "-O1") >
		      strstr(cc, "-Werror"), "%s", cc);
	free(cc);
	free(out);
}
END_TEST

/* make install: ioriot and the sweep script to sbindir (section 8), the
 * plot script to bindir, the man pages to mandir/man8, the bash
 * completion to bashcompdir, all under DESTDIR. */
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
	line = line_with(out, "/pkg/usr/sbin/ioriot-sweep");
	ck_assert_msg(strstr(line, "install -m 0755"), "%s", line);
	free(line);
	line = line_with(out, "/pkg/usr/share/man/man8/ioriot.8");
	free(line);
	line = line_with(out, "/pkg/usr/share/man/man8/ioriot-sweep.8");
	free(line);
	line = line_with(out, "/pkg/usr/share/bash-completion/completions/ioriot\n");
	ck_assert_msg(strstr(line, "scripts/completion/ioriot.bash"), "%s", line);
	free(line);
	free(out);
}
END_TEST

/* What bash completes for the words of @line (the last one being
 * completed) with completion script @script, one word a line, into a new
 * string; @cmd replaces the first word (the command). */
static char *complete_words(const char *script, const char *cmd,
			    const char *line)
{
	char *scratch = tu_scratch(), *out = tu_join(scratch, "complete.out");
	char *text;
	const char *argv[] = {
		"bash", "-c",
		"load() { . \"$1\"; }; load \"$1\"; "
		"read -r -a COMP_WORDS <<< \"$3\"; COMP_WORDS[0]=$2; "
		"case $3 in *' ') COMP_WORDS+=(''); esac; "
		"COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ioriot; "
		"printf '%s\\n' \"${COMPREPLY[@]}\" > \"$4\"",
		"bash", script, cmd, line, out, NULL,
	};

	ck_assert_int_eq(tu_exec(argv, false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	free(out);
	free(scratch);
	return text;
}

/* @text (lines) has the line @word. */
static bool has_line(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, word, n) && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

/* scripts/completion/ioriot.bash completes ioriot's options from its
 * --help: a mode and other options, both of a line with two
 * (--from T, --to T), short ones, no word of a description; option values
 * for --output-format; ioriot-sweep's own options. */
START_TEST(test_bash_completion)
{
	char *src = source_dir();
	char *script = tu_join(src, "scripts/completion/ioriot.bash");
	char *sweep = tu_join(src, "scripts/ioriot-sweep");
	char *text = complete_words(script, tu_bin(), "ioriot -");
	static const char *const want[] = {
		"--capture", "--replay", "--output-format", "--from", "--to",
		"--sync", "--no-sync", "--help", "-c", "-R", "-S",
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(has_line(text, want[i]), "no %s in:\n%s",
			      want[i], text);
	/* In descriptions only: "(<mnt>/.ioriot on", "-S FILE.json". */
	ck_assert_msg(!strstr(text, "FILE") && !strstr(text, "mnt"), "%s", text);
	free(text);
	text = complete_words(script, tu_bin(), "ioriot --cap");
	ck_assert_str_eq(text, "--capture\n");
	free(text);
	text = complete_words(script, tu_bin(), "ioriot --analyze x --output-format ");
	ck_assert_str_eq(text, "text\njson\n");
	free(text);
	text = complete_words(script, sweep, "ioriot-sweep --sch");
	ck_assert_str_eq(text, "--scheduler\n");
	free(text);
	free(sweep);
	free(script);
	free(src);
}
END_TEST

/* ioriot-plot and ioriot-sweep: -h and --help print the usage on standard
 * output and exit 0 (getopts alone took --help for an unknown option). */
/*
 * bench/predict-table.awk on a TSV of bench/predict.sh: the per-cell error
 * of the medians, and the captured run's line, which says how far off the
 * capture is when the program's own runs there never took as long (a: 1.30
 * times its median) and nothing when they did (b).
 */
START_TEST(test_predict_table)
{
	static const char tsv[] =
		"program\tconfig\twhat\trun\tseconds\tops\tdiffer\n"
		"a\tC1\tcaptured\t0\t1.3\t-\t-\n"
		"a\tC1\tprogram\t1\t0.9\t-\t-\n"
		"a\tC1\tprogram\t2\t1.0\t-\t-\n"
		"a\tC1\tprogram\t3\t1.1\t-\t-\n"
		"a\tC1\tthink\t1\t1.2\t10\t0\n"
		"b\tC1\tcaptured\t0\t1.0\t-\t-\n"
		"b\tC1\tprogram\t1\t0.9\t-\t-\n"
		"b\tC1\tprogram\t2\t1.1\t-\t-\n"
		"b\tC1\tthink\t1\t1.0\t10\t0\n";
	char *src = source_dir(), *scratch = tu_scratch();
	char *awk = tu_join(src, "bench/predict-table.awk");
	char *in = tu_write_str(scratch, "predict.tsv", tsv);
	char *out = tu_join(scratch, "table.txt"), *text;

	ck_assert_int_eq(tu_exec((const char *[]){ "sh", "-c",
			"awk -F'\t' -f \"$0\" \"$1\" > \"$2\"", awk, in, out,
			NULL }, false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "a        C1     think      1.000   20.0%"
			     "     1.200    0.0%    20.0%"), "%s", text);
	ck_assert_msg(strstr(text, "a        C1                1.300  (the "
			     "captured run, under the probe; 1.30 times the "
			     "program's median there, beyond its runs: -s 1 "
			     "and --think repeat it)\n"), "%s", text);
	ck_assert_msg(strstr(text, "b        C1                1.000  (the "
			     "captured run, under the probe)\n"), "%s", text);
	free(text);
	free(out);
	free(in);
	free(awk);
	free(scratch);
	free(src);
}
END_TEST

START_TEST(test_scripts_help)
{
	char *src = source_dir(), *scratch = tu_scratch();
	char *out = tu_join(scratch, "help.out");
	static const char *const scripts[] = {
		"scripts/ioriot-plot", "scripts/ioriot-sweep",
	};
	static const char *const flags[] = { "-h", "--help" };

	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		char *script = tu_join(src, scripts[i]);

		for (size_t j = 0; j < sizeof(flags) / sizeof(flags[0]); j++) {
			char *text;

			ck_assert_msg(tu_exec((const char *[]){ "sh", "-c",
					"\"$0\" \"$1\" > \"$2\"", script,
					flags[j], out, NULL }, false) == 0,
				      "%s %s failed", scripts[i], flags[j]);
			text = tu_read(out, NULL);
			ck_assert_ptr_nonnull(text);
			ck_assert_msg(!strncmp(text, "usage: ", 7) &&
				      strstr(text, "--help"),
				      "%s %s printed:\n%s", scripts[i],
				      flags[j], text);
			free(text);
		}
		free(script);
	}
	free(out);
	free(scratch);
	free(src);
}
END_TEST

/* The probe builds from the vendored vmlinux.h by default: nothing reads
 * the build host's BTF; VMLINUX_BTF=FILE builds from a dump of FILE. */
START_TEST(test_vmlinux_vendored)
{
	const char *plain[] = { "all", NULL };
	const char *btf[] = { "VMLINUX_BTF=/nonexistent/vmlinux", "all", NULL };
	char *out = make_dry(plain);
	char *line = line_with(out, "src/capture/capture.bpf.c");

	ck_assert_msg(!strstr(out, "btf dump"), "the default build dumps BTF:\n"
		      "%.2000s", out);
	ck_assert_msg(!strstr(out, "/sys/kernel/btf"), "%.2000s", out);
	ck_assert_msg(strstr(line, "-Isrc/capture/vmlinux/ "), "%s", line);
	free(line);
	free(out);
	out = make_dry(btf);
	line = line_with(out, "btf dump file /nonexistent/vmlinux format c");
	free(line);
	line = line_with(out, "src/capture/capture.bpf.c");
	ck_assert_msg(!strstr(line, "-Isrc/capture/vmlinux/"), "%s", line);
	free(line);
	free(out);
}
END_TEST

/*
 * The Debian package builds (scripts/build-deb.sh, as `make deb`), lintian
 * finds no error in it, and the ioriot it installs runs: unpacked into a
 * scratch root with dpkg -x, it prints the tree's version, and it is
 * linked with Debian's shared libbpf, liburing, libzstd and libjansson
 * (LINK=shared), which the package depends on, while the tree's own
 * ioriot (LINK=static, the default) needs none of them; the package has
 * the scripts, man pages, unit, docs, examples and bash completion, and
 * the packaged completion completes the packaged ioriot's options.
 */
START_TEST(test_deb_installs)
{
	char *src = source_dir(), *scratch = tu_scratch();
	char *script = tu_join(src, "scripts/build-deb.sh");
	char *version_file = tu_join(src, "VERSION");
	char *lintian = tu_join(scratch, "lintian.txt");
	char *version = tu_read(version_file, NULL), *deb, *root;
	char *bin, *out, *text;
	const char *build[] = { script, scratch, NULL };

	if (tu_exec((const char *[]){ "dpkg-buildpackage", "--version", NULL },
		    true) != 0) {
		printf("test_deb_installs skipped: dpkg-buildpackage missing "
		       "(make deps installs it)\n");
		goto out;
	}
	ck_assert_ptr_nonnull(version);
	version[strcspn(version, "\n")] = '\0';
	ck_assert_int_eq(tu_exec(build, true), 0);
	ck_assert(asprintf(&deb, "%s/ioriot_%s_amd64.deb", scratch, version) > 0);
	root = tu_join(scratch, "root");
	ck_assert_int_eq(tu_exec((const char *[]){ "dpkg", "-x", deb, root,
						   NULL }, true), 0);
	bin = tu_join(root, "usr/sbin/ioriot");
	out = tu_join(scratch, "version.out");
	ck_assert_int_eq(tu_exec((const char *[]){ "sh", "-c", "\"$0\" --version "
						   "> \"$1\"", bin, out, NULL },
				 false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(!strncmp(text, "ioriot ", 7) &&
		      !strncmp(text + 7, version, strlen(version)),
		      "'%s' is not version %s", text, version);
	free(text);
	static const char *const libs[] = {
		"libbpf.so", "liburing.so", "libzstd.so", "libjansson.so",
	};
	static const char *const lib_packages[] = {
		"libbpf1 ", "liburing2 ", "libzstd1 ", "libjansson4 ",
	};
	ck_assert_int_eq(tu_exec((const char *[]){ "sh", "-c", "readelf -d "
						   "\"$0\" > \"$1\"", bin, out,
						   NULL }, false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		ck_assert_msg(strstr(text, libs[i]), "no %s:\n%s", libs[i],
			      text);
	ck_assert_ptr_nonnull(strstr(text, "libc.so"));
	free(text);
	ck_assert_int_eq(tu_exec((const char *[]){ "sh", "-c", "dpkg-deb -f "
						   "\"$0\" Depends > \"$1\"",
						   deb, out, NULL }, false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < sizeof(lib_packages) / sizeof(lib_packages[0]);
	     i++)
		ck_assert_msg(strstr(text, lib_packages[i]),
			      "Depends has no %s: %s", lib_packages[i], text);
	free(text);
	ck_assert_int_eq(tu_exec((const char *[]){ "sh", "-c", "readelf -d "
						   "\"$0\" > \"$1\"",
						   tu_bin(), out, NULL },
				 false), 0);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		ck_assert_msg(!strstr(text, libs[i]), "%s needs %s:\n%s",
			      tu_bin(), libs[i], text);
	free(text);
	static const char *const files[] = {
		"usr/bin/ioriot-plot", "usr/share/man/man8/ioriot.8.gz",
		"usr/sbin/ioriot-sweep", "usr/share/man/man8/ioriot-sweep.8.gz",
		"usr/share/man/man1/ioriot-plot.1.gz",
		"usr/lib/systemd/system/ioriot-capture@.service",
		"usr/share/doc/ioriot/copyright",
		"usr/share/doc/ioriot/examples/scheduler-loop.sh",
		"usr/share/doc/ioriot/examples/ansible/fleet.yml",
		"usr/share/doc/ioriot/README.md.gz",
		"usr/share/doc/ioriot/README.Debian",
		"usr/share/doc/ioriot/guide.md.gz",
		"usr/share/doc/ioriot/report.md.gz",
		"usr/share/doc/ioriot/report.png",
		"usr/share/bash-completion/completions/ioriot",
		"usr/share/bash-completion/completions/ioriot-sweep",
		"usr/share/bash-completion/completions/ioriot-plot",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = tu_join(root, files[i]);

		ck_assert_msg(access(path, F_OK) == 0, "%s missing", files[i]);
		free(path);
	}
	/* The packaged completion, with the packaged ioriot. */
	{
		char *comp = tu_join(root,
				     "usr/share/bash-completion/completions/ioriot");

		text = complete_words(comp, bin, "ioriot --init-r");
		ck_assert_str_eq(text, "--init-replay\n");
		free(text);
		free(comp);
	}
	text = tu_read(lintian, NULL);
	ck_assert_ptr_nonnull(text);
	printf("test_deb_installs: lintian: %s\n", *text ? text : "no findings");
	free(text);
	free(out);
	free(bin);
	free(root);
	free(deb);
out:
	free(version);
	free(version_file);
	free(lintian);
	free(script);
	free(scratch);
	free(src);
}
END_TEST

Suite *build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("makefile");

	tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_caller_flags_add);
	tcase_add_test(tc, test_install_dirs);
	tcase_add_test(tc, test_vmlinux_vendored);
	tcase_add_test(tc, test_scripts_help);
	tcase_add_test(tc, test_predict_table);
	tcase_add_test(tc, test_bash_completion);
	suite_add_tcase(s, tc);
	tc = tcase_create("deb");
	tcase_add_checked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_deb_installs);
	suite_add_tcase(s, tc);
	return s;
}
