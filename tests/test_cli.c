/*
 * Tests of the command line: the real ioriot binary is run with tu_run()
 * and judged by its exit status (0 success, 1 failure, 2 usage error), its
 * messages and the files it leaves.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/json.h"
#include "ioriot/version.h"
#include "testutil.h"


static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* True if @text mentions option -@flag as a word: " -X," or " -X ". */
static bool mentions_flag(const char *text, char flag)
{
	char pat[4] = { ' ', '-', flag, '\0' };

	for (const char *p = strstr(text, pat); p; p = strstr(p + 1, pat))
		if (p[3] == ',' || p[3] == ' ')
			return true;
	return false;
}

static const char help_flags[] = "crRinuwptsSDdPTxmVh";

START_TEST(test_help)
{
	static const char *const forms[] = { "--help", "-h" };
	const char *args[] = { forms[_i], NULL };
	char *out, *err;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_msg(strstr(out, "Usage: ioriot"), "no usage line:\n%s", out);
	for (const char *f = help_flags; *f; f++)
		ck_assert_msg(mentions_flag(out, *f),
			      "--help does not mention -%c", *f);
	free(out);
	free(err);
}
END_TEST

/* The options (words "-x", "--name") of @line into @set, a word per line
 * after a '\n'; @man: the line is of the man page, its dashes "\-". */
static void collect_options(const char *line, size_t len, bool man,
			    char **set)
{
	const char *dash = man ? "\\-" : "-";
	size_t dlen = strlen(dash);

	for (size_t i = 0; i + dlen < len; i++) {
		char word[64];
		size_t n = 0, j = i;

		if (strncmp(line + i, dash, dlen) || (i && line[i - 1] != ' ' &&
		    line[i - 1] != '"' && line[i - 1] != ','))
			continue;
		word[n++] = '-';
		j += dlen;
		if (!strncmp(line + j, dash, dlen)) {
			word[n++] = '-';
			j += dlen;
		}
		while (j < len && n < sizeof(word) - 2 &&
		       ((line[j] >= 'a' && line[j] <= 'z') ||
			(line[j] >= 'A' && line[j] <= 'Z') ||
			(man && !strncmp(line + j, dash, dlen) && n > 2) ||
			(!man && line[j] == '-' && n > 2))) {
			if (line[j] == '\\')
				j++;
			word[n++] = line[j++];
		}
		word[n] = '\0';
		/* "-c", "--name"; not "-x" inside a word or a bare dash */
		if ((word[1] == '-' && n > 3) || (word[1] != '-' && n == 2)) {
			char *entry;

			ck_assert(asprintf(&entry, "\n%s\n", word) > 0);
			if (!strstr(*set, entry)) {
				size_t have = strlen(*set);

				*set = tu_realloc(*set, have + n + 2);
				memcpy(*set + have, entry + 1, n + 2);
			}
			free(entry);
		}
		i = j - 1;
	}
}

/* Every word of the set @a (as collect_options() makes it) is in set
 * @b; else fails with "@a_says WORD, @b_lacks". */
static void assert_listed(const char *a, const char *a_says, const char *b,
			  const char *b_lacks)
{
	for (const char *w = a + 1, *nl; (nl = strchr(w, '\n')); w = nl + 1) {
		char entry[80];

		snprintf(entry, sizeof(entry), "\n%.*s\n", (int)(nl - w), w);
		ck_assert_msg(strstr(b, entry), "%s %.*s, %s", a_says,
			      (int)(nl - w), w, b_lacks);
	}
}

/*
 * --help (read off the option table) and the man page's MODES and OPTIONS
 * agree: every option --help lists has an entry (.TP) in the man page, and
 * every option an entry there names is one --help lists.
 */
START_TEST(test_help_matches_man)
{
	const char *args[] = { "--help", NULL };
	char *man_path = tu_join(tu_datadir(), "../../docs/ioriot.8");
	char *out, *err, *man = tu_read(man_path, NULL);
	char *help_set = strdup("\n"), *man_set = strdup("\n");
	bool in_section = false;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	/* --help: the left column of the lines that begin with an option */
	for (char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert(nl);
		if (line[0] == ' ' && strspn(line, " ") <= 6 &&
		    line[strspn(line, " ")] == '-')
			collect_options(line, (size_t)(nl - line) < 26 ?
					(size_t)(nl - line) : 26, false,
					&help_set);
	}
	/* the man page: the line after each .TP in MODES and OPTIONS */
	for (char *line = man, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (!strncmp(line, ".SH ", 4))
			in_section = !strncmp(line, ".SH MODES", 9) ||
				     !strncmp(line, ".SH OPTIONS", 11);
		else if (in_section && !strncmp(line, ".TP", 3) && nl) {
			char *next = nl + 1, *end = strchr(next, '\n');

			collect_options(next, end ? (size_t)(end - next) :
					strlen(next), true, &man_set);
		}
	}
	assert_listed(help_set, "--help lists", man_set, "docs/ioriot.8 has "
		      "no entry for it");
	assert_listed(man_set, "docs/ioriot.8 has an entry for", help_set,
		      "--help does not list it");
	ck_assert_msg(strstr(help_set, "\n--think\n") &&
		      strstr(help_set, "\n-c\n"), "%s", help_set);
	free(help_set);
	free(man_set);
	free(man);
	free(man_path);
	free(out);
	free(err);
}
END_TEST

START_TEST(test_version)
{
	static const char *const forms[] = { "-V", "--version" };
	const char *args[] = { forms[_i], NULL };
	char *out, *err;

	char *want, *git = tu_join(tu_datadir(), "../../.git");

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert(asprintf(&want, "ioriot %s\n", ioriot_version()) > 0);
	ck_assert_str_eq(out, want);
	ck_assert_msg(out[7] >= '0' && out[7] <= '9', "version: %s", out);
	/* Built from a git checkout: the commit is part of the version. */
	if (access(git, F_OK) == 0)
		ck_assert_msg(strstr(out, "+g"), "version: %s", out);
	free(git);
	free(want);
	free(out);
	free(err);
}
END_TEST

/* Invocations that must exit 2 with @msg on stderr and nothing on stdout. */
static const struct {
	const char *args[8];
	const char *msg;
} usage_errors[] = {
	{ { NULL }, "no mode" },
	{ { "-Z", NULL }, "-Z" },
	{ { "--bogus", NULL }, "--bogus" },
	{ { "-c", NULL }, "argument" },
	{ { "-r", "x.replay", "-n", NULL }, "argument" },
	{ { "-r", "x.replay", "-p", "0", NULL }, "-p" },
	{ { "-r", "x.replay", "-p", "4097", NULL }, "-p" },
	{ { "-r", "x.replay", "-t", "0", NULL }, "-t" },
	{ { "-r", "x.replay", "-s", "-1", NULL }, "-s" },
	{ { "-r", "x.replay", "-s", "abc", NULL }, "abc" },
	{ { "-r", "x.replay", "-s", "", NULL }, "-s" },
	{ { "-c", "x.capture", "-x", "0", NULL }, "-x" },
	{ { "-c", "a.capture", "-r", "b.replay", NULL }, "-n" },
	{ { "-c", "a.capture", "-r", "b.replay", "-n", "..", NULL }, ".." },
	{ { "-c", "a.capture", "-r", "b.replay", "-n", ".", NULL }, "name" },
	{ { "-c", "a.capture", "-r", "b.replay", "-n", "a/b", NULL }, "a/b" },
	{ { "-c", "a.capture", "-r", "b.replay", "-n", "", NULL }, "name" },
	{ { "-c", "same", "-r", "same", "-n", "t", NULL }, "same" },
	{ { "-i", "x.replay", "-P", NULL }, "-P" },
	{ { "-i", "x.replay", "-c", "y.capture", NULL }, "-i" },
	{ { "-P", "stray", NULL }, "stray" },
	{ { "-i", "x.replay", "--csv", "a.csv", NULL }, "--csv" },
	{ { "-r", "x.replay", "--interval", "2", NULL }, "--interval" },
	{ { "-r", "x.replay", "--graphite-prefix", "lab", NULL },
	  "--graphite-prefix needs --graphite" },
	{ { "-c", "x.capture", "--output-format", "json", NULL },
	  "--output-format goes with -r, -R, --analyze or --compare" },
	{ { "--compare", "a.json", "--output-format", "xml", NULL },
	  "--output-format is text or json" },
	{ { "-r", "x.replay", "--csv", "a", "--interval", "0.01", NULL },
	  "--interval" },
	{ { "--compare", NULL }, "--compare" },
	{ { "-r", "x.replay", "--spin", "0", NULL }, "--spin" },
	{ { "-i", "x.replay", "--spin", "500", NULL }, "--spin" },
	{ { "-r", "x.replay", "--think", "-s", "0", NULL }, "-s above 0" },
	{ { "-i", "x.replay", "--think", NULL }, "--think goes with -r or -R" },
	{ { "-r", "x.replay", "--cpu-scale", "2", NULL },
	  "--cpu-scale needs --think" },
	{ { "-r", "x.replay", "--think", "--cpu-scale", "0", NULL },
	  "--cpu-scale" },
	{ { "-r", "x.replay", "--repeat", "0", NULL }, "--repeat" },
	{ { "-i", "x.replay", "--repeat", "2", NULL }, "--repeat goes with -r or -R" },
	{ { "-r", "x.replay", "--ready-fd", "5", NULL },
	  "--ready-fd goes with -c" },
	{ { "-c", "x.capture", "--ready-fd", "2", NULL }, "--ready-fd" },
	{ { "-r", "x.replay", "--sync", NULL },
	  "--sync goes with -c (capture)" },
	{ { "-c", "x.capture", "--sync", "--no-sync", NULL },
	  "--sync or --no-sync, not both" },
	{ { "-R", "x.replay", "--repeat", "2", "--csv", "a.csv", NULL },
	  "--repeat does not go with --csv" },
};

START_TEST(test_usage_error)
{
	char *out, *err;
	int rc = tu_run_args(usage_errors[_i].args, &out, &err);

	ck_assert_msg(rc == 2, "case %d: exit %d, expected 2; stderr: %s", _i,
		      rc, err);
	ck_assert_msg(strstr(err, usage_errors[_i].msg),
		      "case %d: stderr lacks '%s': %s", _i,
		      usage_errors[_i].msg, err);
	ck_assert_msg(!strncmp(err, "ioriot: ", 8), "case %d: %s", _i, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST


/* Put an executable "staprun" with @script into @dir, first in PATH (the
 * test runs in its own process). */
static void fake_staprun(const char *dir, const char *script)
{
	char *path = tu_join(dir, "staprun"), *search;

	free(tu_write_str(dir, "staprun", script));
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert(asprintf(&search, "%s:%s", dir, getenv("PATH")) > 0);
	setenv("PATH", search, 1);
	free(search);
	free(path);
}

/*
 * -m MODULE runs staprun itself, without a shell, and writes what it prints
 * with the mount table added: a fake staprun first in PATH records its
 * arguments one per line and prints a module's output.
 */
START_TEST(test_stap_module)
{
	char *dir = tu_scratch();
	char *log = tu_join(dir, "io.capture"), *args = tu_join(dir, "args");
	char *script, *text;
	const char *argv[] = { "-q", "-c", log, "-m", "my mod;rm -rf x.ko",
			       "--comm", "java", NULL };
	int rc;

	ck_assert(asprintf(&script,
		"#!/bin/sh\n"
		"printf '%%s\\n' \"$@\" > '%s'\n"
		"echo '#|capture_version=4|'\n"
		"echo '#|host=h|kernel=k|backend=systemtap|start_epoch_ns=1|'\n"
		"echo 't=1700000000000000000;:,D=10;:,i=5:5;:,o=openat;:,d=-100;:,p=/etc/x;:,f=0;:,r=3;:,'\n",
		args) > 0);
	fake_staprun(dir, script);
	rc = tu_run_args(argv, NULL, NULL);
	ck_assert_int_eq(rc, 0);

	text = tu_read(args, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "my mod;rm -rf x.ko\nskip_pid="), "args: %s", text);
	ck_assert_msg(strstr(text, "\ncomm=java\n"), "args: %s", text);
	free(text);
	text = tu_read(log, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strncmp(text, "#|capture_version=4|\n#|host=h|", 30) == 0,
		      "log: %.200s", text);
	char *mount = strstr(text, "\n#|mount=/|fstype=");
	char *event = strstr(text, "\nt=1700000000000000000;");
	ck_assert_msg(mount && event && mount < event, "log: %.400s", text);
	free(text);
	free(script);
	free(args);
	free(log);
	free(dir);
}
END_TEST

/*
 * What the SystemTap transport loses is counted in the log: a line ioriot
 * cannot parse (here one with a NUL byte) and staprun's "transport
 * failures" warning both go into the lost record and the end record;
 * staprun's messages are passed on without control bytes.
 */
START_TEST(test_stap_lost_lines)
{
	char *dir = tu_scratch();
	char *log = tu_join(dir, "io.capture");
	char *text;
	const char *argv[] = { "-q", "-c", log, "-m", "mod.ko", NULL };
	const char *script =
		"#!/bin/sh\n"
		"echo '#|capture_version=4|'\n"
		"echo '#|host=h|kernel=k|backend=systemtap|start_epoch_ns=1|'\n"
		"echo 't=1700000000000000000;:,D=10;:,i=5:5;:,o=openat;:,d=-100;:,p=/etc/x;:,f=0;:,r=3;:,'\n"
		"printf 't=17\\000garbage\\n'\n"
		"echo 'WARNING: There were 2 transport failures. Try stap -s' >&2\n"
		"printf 'ERROR: /data/a\\033[2Jb\\n' >&2\n";
	char *err;
	int rc;

	fake_staprun(dir, script);
	rc = tu_run_args(argv, NULL, &err);
	ck_assert_int_eq(rc, 0);
	/* staprun's messages passed on, a name's ESC not to the terminal */
	ck_assert_msg(strstr(err, "WARNING: There were 2 transport failures") &&
		      strstr(err, "ERROR: /data/a%1B[2Jb\n") &&
		      !strchr(err, '\033'), "stderr: %s", err);
	free(err);

	text = tu_read(log, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "o=lost;:,c=3;:,"), "log: %s", text);
	ck_assert_msg(strstr(text, "#|end|events=1|lost=3|"), "log: %s", text);
	free(text);
	free(log);
	free(dir);
}
END_TEST

/* Capture without root says what it needs; run as nobody when root. */
START_TEST(test_capture_needs_root)
{
	const char *args[] = { "-c", "/tmp/ioriot-never-written.capture", NULL };
	char *out, *err;

	/* This forked test process may drop root for good. */
	if (geteuid() == 0)
		ck_assert(setgid(65534) == 0 && setuid(65534) == 0);
	int rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "capture needs root"), "stderr: %s", err);
	ck_assert_int_ne(access("/tmp/ioriot-never-written.capture", F_OK), 0);
	free(out);
	free(err);
}
END_TEST

/* As root, an unwritable capture log is reported with its path. */
START_TEST(test_capture_output_unwritable)
{
	const char *args[] = { "-c", "/nonexistent-ioriot-dir/x.capture",
			       "--duration", "1", NULL };
	char *out, *err;

	if (geteuid() != 0) {
		printf("test_capture_output_unwritable skipped: needs root\n");
		return;
	}
	int rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "/nonexistent-ioriot-dir/x.capture: No such file"),
		      "stderr: %s", err);
	free(out);
	free(err);
}
END_TEST

/* Make directory @mnt/@rel. */
static void make_dir(const char *mnt, const char *rel)
{
	char *path;

	ck_assert(asprintf(&path, "%s/%s", mnt, rel) > 0);
	ck_assert_msg(mkdir(path, 0755) == 0, "%s: %s", path, strerror(errno));
	free(path);
}

/* Whether @mnt/@rel exists. */
static bool exists_in(const char *mnt, const char *rel)
{
	char *path;
	bool there;

	ck_assert(asprintf(&path, "%s/%s", mnt, rel) > 0);
	there = exists(path);
	free(path);
	return there;
}

/* The number of entries of directory @mnt/@rel that begin with @prefix. */
static unsigned entries_of(const char *mnt, const char *rel,
			   const char *prefix)
{
	char *path;
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	ck_assert(asprintf(&path, "%s/%s", mnt, rel) > 0);
	d = opendir(path);
	ck_assert_msg(d, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	free(path);
	return n;
}

/*
 * -T and -P on a tmpfs named by --mounts (never the host's mounts): with
 * -n NAME on test NAME and its copies only, its lock respected; without
 * it, refused off a terminal unless --all.
 */
START_TEST(test_trash_and_purge)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "mnt"), *table, *mounts;
	char *out, *err, *lock;
	int rc, fd;

	if (geteuid() != 0) {
		printf("test_trash_and_purge skipped: needs root to mount a tmpfs\n");
		return;
	}
	/* In this test's own mount namespace: gone with it, also when a
	 * check fails. */
	ck_assert(tu_mount_tmpfs(mnt));
	ck_assert(asprintf(&table, "tmpfs %s tmpfs rw 0 0\n", mnt) > 0);
	mounts = tu_write_str(dir, "mounts", table);
	make_dir(mnt, ".ioriot");
	make_dir(mnt, ".ioriot/t");
	make_dir(mnt, ".ioriot/t/d");
	make_dir(mnt, ".ioriot/t.1");	/* a copy of t (--copies) */
	make_dir(mnt, ".ioriot/other");
	make_dir(mnt, ".ioriot/t2");	/* another test */

	/* Without -n or --all, not on a terminal: refused, nothing done. */
	const char *bare[] = { "-T", "--mounts", mounts, NULL };
	rc = tu_run_args(bare, &out, &err);
	ck_assert_msg(rc == 2 && strstr(err, "give -n NAME for one test, or "
					"--all"), "-T: %d %s", rc, err);
	ck_assert(exists_in(mnt, ".ioriot/t") && !exists_in(mnt, ".ioriot/.trash"));
	free(out);
	free(err);
	const char *both[] = { "-P", "-n", "t", "--all", "--mounts", mounts,
			       NULL };
	rc = tu_run_args(both, &out, &err);
	ck_assert_msg(rc == 2 && strstr(err, "not both"), "%d %s", rc, err);
	free(out);
	free(err);

	/* -T -n t: t and t.1 go to the trash, t2 and other stay. */
	const char *trash_t[] = { "-T", "-n", "t", "--mounts", mounts, NULL };
	rc = tu_run_args(trash_t, &out, &err);
	ck_assert_msg(rc == 0, "-T -n t: %d %s", rc, err);
	ck_assert_msg(strstr(out, "Moved to the trash: 2"), "%s", out);
	free(out);
	free(err);
	ck_assert(!exists_in(mnt, ".ioriot/t") && !exists_in(mnt, ".ioriot/t.1"));
	ck_assert(exists_in(mnt, ".ioriot/t2") && exists_in(mnt, ".ioriot/other"));
	ck_assert_uint_eq(entries_of(mnt, ".ioriot/.trash", "t."), 2);

	/* A running replay of t2 (its lock held): -P -n t2 leaves it.  (-T -n
	 * made .state: it reset the state of t and t.1.) */
	ck_assert(exists_in(mnt, ".ioriot/.state/t.1.state"));
	ck_assert(asprintf(&lock, "%s/.ioriot/.state/t2.lock", mnt) > 0);
	fd = open(lock, O_RDWR | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	const char *purge_t2[] = { "-P", "-n", "t2", "--mounts", mounts, NULL };
	rc = tu_run_args(purge_t2, &out, &err);
	ck_assert_msg(rc == 1 && strstr(err, "running"), "%d %s", rc, err);
	ck_assert(exists_in(mnt, ".ioriot/t2"));
	free(out);
	free(err);
	close(fd);

	/* -P -n t: t's trashed sandboxes removed, nothing else. */
	make_dir(mnt, ".ioriot/t");
	const char *purge_t[] = { "-P", "-n", "t", "--mounts", mounts, NULL };
	rc = tu_run_args(purge_t, &out, &err);
	ck_assert_msg(rc == 0, "-P -n t: %d %s", rc, err);
	free(out);
	free(err);
	ck_assert(!exists_in(mnt, ".ioriot/t"));
	ck_assert_uint_eq(entries_of(mnt, ".ioriot/.trash", "t."), 0);
	ck_assert(exists_in(mnt, ".ioriot/t2") && exists_in(mnt, ".ioriot/other"));

	/* --all: everything. */
	const char *trash_all[] = { "-T", "--all", "--mounts", mounts, NULL };
	rc = tu_run_args(trash_all, &out, &err);
	ck_assert_msg(rc == 0 && strstr(out, "Moved to the trash: 2"),
		      "-T --all: %d %s%s", rc, out, err);
	free(out);
	free(err);
	const char *purge_all[] = { "-P", "--all", "--mounts", mounts, NULL };
	rc = tu_run_args(purge_all, &out, &err);
	ck_assert_msg(rc == 0, "-P --all: %d %s", rc, err);
	ck_assert(!exists_in(mnt, ".ioriot"));
	free(out);
	free(err);
	ck_assert_int_eq(umount(mnt), 0);
	free(lock);
	free(mounts);
	free(table);
	free(mnt);
	free(dir);
}
END_TEST

/* A replay file for test "t" whose sandbox is @mnt/.ioriot/t: a file is
 * created, written and renamed, and a directory made. */
static char *replay_file(const char *dir, const char *mnt)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=root|\n"
		"#|sandbox=%1$s/.ioriot/t|\n#INIT\nd %1$s/.ioriot/t/d\n"
		"x %1$s/.ioriot/t/d/f\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/.ioriot/t/d/f "
		"flags=0x41 mode=0644\n"
		"2 7:7 2000 1000 - write 4096 fd=1 count=4096\n"
		"3 7:7 4000 1000 - close 0 fd=1\n"
		"4 7:8 6000 1000 3 renameat 0 path=%1$s/.ioriot/t/d/f "
		"path2=%1$s/.ioriot/t/d/g\n"
		"5 7:8 8000 1000 - mkdirat 0 path=%1$s/.ioriot/t/e mode=0755\n"
		"#END|ops=5|\n", mnt) > 0);
	path = tu_write_str(dir, "t.replay", text);
	free(text);
	return path;
}

/* -r replays into an existing sandbox, prints the original's summary lines
 * and the per-syscall rows, and writes the same to -S FILE. */
START_TEST(test_replay)
{
	char *dir = tu_scratch();
	char *mnt = tu_join(dir, "mnt");
	char *sb, *replay, *stats, *g, *out, *err, *text;
	int rc;

	ck_assert(asprintf(&sb, "%s/.ioriot/t/d", mnt) > 0);
	ck_assert(asprintf(&g, "%s/g", sb) > 0);
	ck_assert_msg(tu_mount_tmpfs(mnt), "sandboxes must be on a mountpoint");
	*strrchr(sb, '/') = '\0';
	*strrchr(sb, '/') = '\0';
	ck_assert_int_eq(mkdir(sb, 0755), 0);	/* .ioriot */
	strcat(sb, "/t");
	ck_assert_int_eq(mkdir(sb, 0755), 0);
	strcat(sb, "/d");
	ck_assert_int_eq(mkdir(sb, 0755), 0);
	replay = replay_file(dir, mnt);
	stats = tu_join(dir, "stats.txt");
	const char *args[] = { "-r", replay, "--reuse", "-D", "-u", "root",
			       "--allow-root", "-S", stats, "-v", NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	/* -v explains the steps. */
	ck_assert_msg(strstr(err, ", test t, as user root (uid 0, gid 0), as "
			     "fast as possible") &&
		      strstr(err, "ioriot: replay: confined to the sandboxes"),
		      "stderr: %s", err);
	ck_assert_msg(strstr(out, "\tPerformed ioops: 5\n") &&
		      strstr(out, "\tTotal threads: 2\n") &&
		      strstr(out, "\tNum workers: 1\n") &&
		      strstr(out, "\tTotal time: ") && strstr(out, "renameat"),
		      "stdout: %s", out);
	text = tu_read(stats, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "Stats of test 't':\n") &&
		      strstr(text, "\tPerformed ioops: 5\n"), "%s", text);
	ck_assert(exists(g));
	free(text);
	free(out);
	free(err);

	/* -S FILE.json: the same figures as JSON (the second run finds the
	 * sandbox changed, which only changes the differ counts). */
	char *json = tu_join(dir, "stats.json");
	const char *again[] = { "-r", replay, "--reuse", "-D", "-q", "--allow-root", "-S",
				json, NULL };
	rc = tu_run_args(again, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_str_eq(out, "");
	text = tu_read(json, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(text[0] == '{' && strstr(text, "\"test\": \"t\",") &&
		      strstr(text, "\"performed_ioops\": 5,") &&
		      strstr(text, "\"timelines\": 2,") &&
		      strstr(text, "\"workers\": 1,") &&
		      strstr(text, "\"threads_per_worker\": 2,") &&
		      strstr(text, "\"threads\": 2,") &&
		      strstr(text, "\"start_lateness_ns\": null,") &&
		      strstr(text, "\"renameat\": {\"ops\": 1, \"bytes\": 0, ") &&
		      strstr(text, "\"write\": {\"ops\": 1, \"bytes\": 4096, ") &&
		      strstr(text, "\"block_devices\": [") &&
		      strstr(text, "\n}\n"), "%s", text);
	free(text);
	free(out);
	free(err);

	/* --output-format says what -S FILE gets, whatever its name, and
	 * what stdout gets. */
	const char *as_text[] = { "-r", replay, "--reuse", "-D", "-q", "--allow-root", "-S",
				  json, "--output-format", "text", NULL };
	rc = tu_run_args(as_text, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	text = tu_read(json, NULL);
	ck_assert_msg(text && !strncmp(text, "Stats of test 't':", 18), "%s",
		      text);
	free(text);
	free(out);
	free(err);
	const char *as_json[] = { "-r", replay, "--reuse", "-D", "--allow-root",
				  "--output-format", "json", NULL };
	rc = tu_run_args(as_json, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(!strncmp(out, "{\n  \"format\": \"ioriot-stats\"", 28),
		      "%s", out);
	free(json);
	free(out);
	free(err);

	/* A replay that fails (the file ends without #END) leaves an older
	 * -S file as it was and creates no new one. */
	char *cut = tu_write_str(dir, "cut.replay", "");
	char *old = tu_write_str(dir, "old.txt", "old stats\n");
	char *fresh = tu_join(dir, "fresh.json");
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	*strstr(text, "#END") = '\0';
	free(tu_write_str(dir, "cut.replay", text));
	free(text);
	const char *failing[] = { "-r", cut, "--reuse", "-D", "--allow-root", "-S", old,
				  NULL };
	rc = tu_run_args(failing, &out, &err);
	ck_assert_msg(rc == 1, "exit %d: %s", rc, err);
	free(out);
	free(err);
	text = tu_read(old, NULL);
	ck_assert_str_eq(text, "old stats\n");
	free(text);
	const char *failing2[] = { "-r", cut, "--reuse", "-D", "--allow-root", "-S",
				   fresh, NULL };
	rc = tu_run_args(failing2, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert(!exists(fresh));
	free(out);
	free(err);
	free(cut);
	free(old);
	free(fresh);

	/* A file that does not exist: exit 1, naming it. */
	char *none = tu_join(dir, "none.replay");
	const char *missing[] = { "-r", none, "-D", NULL };
	rc = tu_run_args(missing, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "none.replay"), "stderr: %s", err);
	free(out);
	free(err);
	free(none);
	free(g);
	free(sb);
	free(replay);
	free(stats);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * A user whose RLIMIT_NPROC allows only a few threads: the replay starts
 * what it can and the timelines that find no thread share one.  Runs as
 * daemon, so other tests replaying as nobody do not count against it.
 */
START_TEST(test_replay_thread_limit)
{
	char *dir = tu_scratch();
	char *sb, *replay, *out, *err;
	struct rlimit old, low;
	struct passwd *pw = getpwnam("daemon");
	unsigned id = 0;
	FILE *f;
	int rc;

	if (geteuid() != 0 || !pw) {
		fprintf(stderr, "test_replay_thread_limit: skipped, needs root "
			"and a user daemon\n");
		free(dir);
		return;
	}
	ck_assert(asprintf(&sb, "%s/mnt/.ioriot/t", dir) > 0);
	for (char *slash = strchr(sb + strlen(dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (strchr(slash + 1, '/'))	/* mnt */
			ck_assert(tu_mount_tmpfs(sb));
		else				/* .ioriot */
			ck_assert_int_eq(mkdir(sb, 0755), 0);
		*slash = '/';
	}
	ck_assert_int_eq(mkdir(sb, 0755), 0);
	ck_assert_int_eq(chown(sb, pw->pw_uid, pw->pw_gid), 0);
	replay = tu_join(dir, "t.replay");
	f = fopen(replay, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=daemon|\n"
		"#|sandbox=%s|\n#INIT\n#OPS\n", sb);
	/* One timeline fills its queue before the clock starts; the 20
	 * after it get their threads from the reader, as daemon. */
	for (int i = 0; i < 1000; i++) {
		fprintf(f, "%u 1:1 0 10 - mkdirat 0 path=%s/a mode=0755\n",
			++id, sb);
		fprintf(f, "%u 1:1 0 10 - unlinkat 0 path=%s/a flags=0x200\n",
			++id, sb);
	}
	for (int t = 2; t <= 21; t++)
		fprintf(f, "%u 1:%d 0 10 - mkdirat 0 path=%s/d%d mode=0755\n",
			++id, t, sb, t);
	fprintf(f, "#END|ops=%u|\n", id);
	ck_assert_int_eq(fclose(f), 0);

	ck_assert_int_eq(getrlimit(RLIMIT_NPROC, &old), 0);
	low = (struct rlimit){ .rlim_cur = 6, .rlim_max = old.rlim_max };
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &low), 0);
	const char *args[] = { "-r", replay, "--reuse", "-D", "-u", "daemon", NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(setrlimit(RLIMIT_NPROC, &old), 0);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	const char *threads = strstr(out, "\tTotal threads: ");
	ck_assert_ptr_nonnull(threads);
	unsigned n = (unsigned)atoi(threads + 16);
	ck_assert_msg(n >= 1 && n <= 4, "%u threads: %s", n, out);
	ck_assert_msg(strstr(out, "\tPerformed ioops: 2020\n") &&
		      strstr(out, "\tTimelines: 21\n\tProcesses: 1\n") &&
		      !strstr(out, "Differing results"), "stdout: %s", out);
	free(out);
	free(err);
	free(replay);
	free(sb);
	free(dir);
}
END_TEST

/* -R (as root, on a tmpfs mounted for the test): init creates the
 * sandbox and the INIT tree, then the replay runs as nobody, dropping
 * caches first; the -S file in the root-only scratch directory is opened
 * before the privileges are dropped. */
START_TEST(test_init_and_replay)
{
	char *dir = tu_scratch();
	char *mnt = tu_join(dir, "mnt");
	char *replay, *g, *out, *err;
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_init_and_replay: skipped, needs root to "
			"mount a tmpfs\n");
		free(mnt);
		free(dir);
		return;
	}
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=8m"), 0);
	replay = replay_file(dir, mnt);
	ck_assert(asprintf(&g, "%s/.ioriot/t/d/g", mnt) > 0);
	char *stats = tu_join(dir, "stats.txt");
	const char *args[] = { "-R", replay, "-u", "nobody", "-S", stats, NULL };
	struct stat st;
	rc = tu_run_args(args, &out, &err);
	/* Look, then unmount before any assertion can end the test. */
	int g_found = stat(g, &st);
	uid_t g_uid = st.st_uid;
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_msg(g_found == 0, "no %s", g);
	ck_assert_msg(g_uid != 0, "%s created by root", g);
	ck_assert_msg(exists(stats), "no %s", stats);
	free(stats);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "Caches dropped") &&
		      strstr(out, "\tPerformed ioops: 5\n"), "stdout: %s", out);
	free(out);
	free(err);
	free(g);
	free(replay);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * -R --repeat 3 --label A (as root, on a tmpfs): three runs, each
 * initialised anew; the summary on stdout, and -S FILE.json holds the
 * runs, each labelled, and per figure n, mean and an interval around it.
 */
START_TEST(test_repeat)
{
	char *dir = tu_scratch();
	char *mnt = tu_join(dir, "mnt");
	char *replay, *out, *err, *stats = tu_join(dir, "runs.json");
	const char *args[] = { "-R", replay = NULL, "-u", "nobody", "--repeat",
			       "3", "--label", "A", "-S", stats, NULL };
	struct jv_error je;
	json_t *doc, *runs, *total;
	double mean, lo, hi;
	int rc;

	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=8m"), 0);
	replay = replay_file(dir, mnt);
	args[1] = replay;
	rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "Repeated runs of test 't', label 'A', "
			     "pacing fast: 3 runs\n"), "stdout: %s", out);
	ck_assert_msg(strstr(err, "run 3 of 3"), "stderr: %s", err);
	doc = jv_load(stats, &je);
	ck_assert_msg(doc, "%s: %s", stats, je.msg);
	ck_assert_str_eq(jv_member_string(doc, "format"), "ioriot-stats-runs");
	runs = json_object_get(doc, "runs");
	ck_assert_uint_eq(jv_count(runs), 3);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_str_eq(jv_member_string(jv_at(runs, i), "label"), "A");
		ck_assert_str_eq(jv_member_string(jv_at(runs, i), "pacing"),
				 "fast");
	}
	total = json_object_get(json_object_get(json_object_get(doc, "summary"),
						"figures"), "total_time_ns");
	ck_assert_int_eq(jv_number(json_object_get(total, "mean"), &mean), 0);
	ck_assert_int_eq(jv_number(jv_at(json_object_get(total, "ci"), 0), &lo), 0);
	ck_assert_int_eq(jv_number(jv_at(json_object_get(total, "ci"), 1), &hi), 0);
	ck_assert_msg(lo <= mean && mean <= hi, "%g %g %g", lo, mean, hi);
	json_decref(doc);
	free(out);
	free(err);
	free(stats);
	free(replay);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * A replay that fills its test mount (a tmpfs of 64 KiB; the capture
 * wrote 1 MiB twice: the first write is short, the second fails) is
 * incomplete: a line in the stats, "disk_full" in the
 * JSON, a warning, and exit status 3.
 */
START_TEST(test_disk_full)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "mnt");
	char *stats = tu_join(dir, "s.json"), *text, *path, *out, *err;
	const char *args[] = { "-R", NULL, "-u", "nobody", "-S", stats, NULL };
	struct jv_error je;
	json_t *doc;
	int rc;

	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=64k"), 0);
	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=nobody|\n"
		"#|sandbox=%1$s/.ioriot/t|\n#INIT\nx %1$s/.ioriot/t/f\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/.ioriot/t/f "
		"flags=0x41 mode=0644\n"
		"2 7:7 2000 1000 - write 1048576 fd=1 count=1048576\n"
		"3 7:7 3000 1000 - write 1048576 fd=1 count=1048576\n"
		"4 7:7 4000 1000 - close 0 fd=1\n"
		"#END|ops=4|\n", mnt) > 0);
	path = tu_write_str(dir, "t.replay", text);
	args[1] = path;
	rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	ck_assert_msg(rc == 3, "exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "\tIncomplete: 1 operations found the test "
			     "mount full"), "%s", out);
	ck_assert_msg(strstr(err, "the run is incomplete"), "%s", err);
	doc = jv_load(stats, &je);
	ck_assert_msg(doc, "%s", je.msg);
	ck_assert(json_is_true(json_object_get(doc, "disk_full")));
	json_decref(doc);
	free(out);
	free(err);
	free(text);
	free(path);
	free(stats);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * --ready-fd and NOTIFY_SOCKET: once the probe records, the capture
 * writes READY to the fd (then closes it) and sends READY=1 to systemd's
 * socket; a script that starts its workload then loses nothing.
 */
START_TEST(test_capture_ready)
{
	const char *why = tu_cannot_capture();
	char *dir = tu_scratch(), *log = tu_join(dir, "c.capture");
	char *sock = tu_join(dir, "notify"), buf[32];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd;
	int p[2], s, status;
	ssize_t n;
	pid_t pid;

	if (why) {
		fprintf(stderr, "test_capture_ready: skipped, %s\n", why);
		free(sock);
		free(log);
		free(dir);
		return;
	}
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (dup2(p[1], 5) < 0 || setenv("NOTIFY_SOCKET", sock, 1))
			_exit(127);
		execl(tu_bin(), "ioriot", "-q", "-c", log, "--duration", "60",
		      "--ready-fd", "5", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 50000), 1);
	n = read(p[0], buf, sizeof(buf));
	ck_assert_int_eq(n, 6);
	ck_assert(!memcmp(buf, "READY\n", 6));
	/* The fd is closed after it: end of file. */
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 0);
	pfd = (struct pollfd){ .fd = s, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
	n = recv(s, buf, sizeof(buf), 0);
	ck_assert_int_eq(n, 7);
	ck_assert(!memcmp(buf, "READY=1", 7));
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d",
		      status);
	close(p[0]);
	close(s);
	free(sock);
	free(log);
	free(dir);
}
END_TEST

/*
 * A capture log that exists and is not empty is refused, left as it was;
 * --force overwrites it; a name with strftime conversions is a new name of
 * the start time.
 */
START_TEST(test_capture_keeps_log)
{
	char *dir = tu_scratch(), *log = tu_write_str(dir, "io.capture",
						      "old log\n");
	char *pattern = tu_join(dir, "io-%Y.capture"), *named, *text, *out;
	char *err, year[8];
	const char *keep[] = { "-q", "-c", log, "--duration", "0.1", NULL };
	const char *force[] = { "-q", "-c", log, "--duration", "0.1", "--force",
				NULL };
	const char *timed[] = { "-c", pattern, "--duration", "0.1", NULL };
	const char *why = tu_cannot_capture();
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	rc = tu_run_args(keep, &out, &err);
	ck_assert_msg(rc == 1 && strstr(err, "not overwritten") &&
		      strstr(err, "--force"), "%d %s", rc, err);
	free(out);
	free(err);
	text = tu_read(log, NULL);
	ck_assert_str_eq(text, "old log\n");
	free(text);
	if (why) {
		printf("test_capture_keeps_log: --force skipped: %s\n", why);
		goto out;
	}
	rc = tu_run_args(force, &out, &err);
	ck_assert_msg(rc == 0, "--force: %d %s", rc, err);
	free(out);
	free(err);
	text = tu_read(log, NULL);
	ck_assert_msg(!strncmp(text, "#|capture_version=", 18), "%.40s", text);
	free(text);

	ck_assert(localtime_r(&now, &tm));
	strftime(year, sizeof(year), "%Y", &tm);
	ck_assert(asprintf(&named, "%s/io-%s.capture", dir, year) > 0);
	rc = tu_run_args(timed, &out, &err);
	ck_assert_msg(rc == 0 && strstr(out, named), "%d %s %s", rc, out, err);
	ck_assert_msg(exists(named), "%s", named);
	free(out);
	free(err);
	free(named);
out:
	free(pattern);
	free(log);
	free(dir);
}
END_TEST

/*
 * --container NAME: the cgroup of the container's main process, which a
 * runtime in PATH names (here a fake docker that prints the pid of a
 * process this test put into a child of a private cgroup2 mount), is
 * captured; a name no runtime knows is an error.
 */
START_TEST(test_capture_container)
{
	char *dir = tu_scratch(), *bin = tu_join(dir, "bin"), *mnt, *cg, *pidf;
	char *log = tu_join(dir, "ct.capture"), *out, *err, *script, pidtext[32];
	char *named, *evil, *evil_script, *evil_docker, *mark, *search;
	struct stat got, want;
	const char *args[] = { "-c", log, "--container", "web1", "--duration",
			       "0.2", NULL };
	const char *why = tu_cannot_capture();
	pid_t sleeper;
	int rc, status;

	if (why) {
		printf("test_capture_container skipped: %s\n", why);
		free(log);
		free(bin);
		free(dir);
		return;
	}
	/* The cgroup2 mount in this test's own mount namespace: gone with
	 * it, also when a check fails (ioriot inherits it). */
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	mnt = tu_join(dir, "cgroup2");
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_msg(mount("none", mnt, "cgroup2", 0, NULL) == 0,
		      "mount cgroup2: %s", strerror(errno));
	ck_assert(asprintf(&cg, "%s/ioriot-ct.%d", mnt, (int)getpid()) > 0);
	ck_assert_int_eq(mkdir(cg, 0755), 0);
	sleeper = fork();
	ck_assert_int_ge(sleeper, 0);
	if (sleeper == 0) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	snprintf(pidtext, sizeof(pidtext), "%d\n", (int)sleeper);
	free(tu_write_str(cg, "cgroup.procs", pidtext));
	/* A docker that knows container web1 only. */
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	ck_assert(asprintf(&script, "#!/bin/sh\n[ \"$*\" = "
			   "'inspect --format {{.State.Pid}} web1' ] || exit 1\n"
			   "echo %d\n", (int)sleeper) > 0);
	pidf = tu_write_str(bin, "docker", script);
	ck_assert_int_eq(chmod(pidf, 0755), 0);
	/* Another user's docker, first in PATH: never run, as root least
	 * of all; it would leave a mark. */
	ck_assert(asprintf(&evil, "%s/evil", dir) > 0);
	ck_assert_int_eq(mkdir(evil, 0755), 0);
	ck_assert(asprintf(&mark, "%s/ran", dir) > 0);
	ck_assert(asprintf(&evil_script, "#!/bin/sh\ntouch %s\necho 1\n",
			   mark) > 0);
	evil_docker = tu_write_str(evil, "docker", evil_script);
	ck_assert_int_eq(chmod(evil_docker, 0755), 0);
	ck_assert_int_eq(chown(evil_docker, 65534, 65534), 0);
	ck_assert(asprintf(&search, "%s:%s", evil, bin) > 0);
	setenv("PATH", search, 1);

	rc = tu_run_args(args, &out, &err);
	named = strstr(err, "container web1: cgroup ");
	ck_assert_msg(rc == 0 && named, "exit %d: %s", rc, err);
	/* the cgroup, through whichever mount of cgroup2 it found first */
	named += strlen("container web1: cgroup ");
	named[strcspn(named, "\n")] = '\0';
	ck_assert_int_eq(stat(named, &got), 0);
	ck_assert_int_eq(stat(cg, &want), 0);
	ck_assert_msg(got.st_ino == want.st_ino && got.st_dev == want.st_dev,
		      "%s is not %s", named, cg);
	free(out);
	free(err);
	args[3] = "db2";
	unlink(log);
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 1 && strstr(err, "--container db2: no running "
					"container"), "exit %d: %s", rc, err);
	free(out);
	free(err);
	/* Only the other user's in PATH: refused, and said so. */
	setenv("PATH", evil, 1);
	args[3] = "web1";
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 1 && strstr(err, "left out: a runtime another user "
					"can change"), "exit %d: %s", rc, err);
	ck_assert_msg(access(mark, F_OK) != 0, "another user's docker ran");
	free(out);
	free(err);
	free(search);
	free(evil_docker);
	free(evil_script);
	free(mark);
	free(evil);

	kill(sleeper, SIGKILL);
	ck_assert_int_eq(waitpid(sleeper, &status, 0), sleeper);
	ck_assert_msg(rmdir(cg) == 0, "%s: %s", cg, strerror(errno));
	ck_assert_int_eq(umount(mnt), 0);
	free(script);
	free(pidf);
	free(cg);
	free(mnt);
	free(log);
	free(bin);
	free(dir);
}
END_TEST

/* Exit status of ioriot with @args; its stderr in *@err (malloc'd). */
static int run_err(const char *const *args, char **err)
{
	char *out;
	int rc = tu_run_args(args, &out, err);

	free(out);
	return rc;
}

/*
 * A test's state: -i makes it ready, a replay uses it up, a second replay
 * needs --reuse; a half-built sandbox (its init killed) is refused; an
 * init or replay of a test another one holds fails at once; a state
 * directory another user owns or may write is refused.
 */
START_TEST(test_test_state)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "mnt"), *err, *state;
	char *lockp;
	const char *init[] = { "-i", NULL, "-u", "nobody", NULL };
	const char *rep[] = { "-r", NULL, "-D", "-q", "-u", "nobody", NULL };
	const char *reuse[] = { "-r", NULL, "-D", "-u", "nobody", "--reuse",
				NULL };
	char *replay;
	int lock;

	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	ck_assert_int_eq(mount("tmpfs", mnt, "tmpfs", 0, "size=8m"), 0);
	replay = replay_file(dir, mnt);
	init[1] = rep[1] = reuse[1] = replay;
	ck_assert(asprintf(&state, "%s/.ioriot/.state/t.state", mnt) > 0);
	ck_assert(asprintf(&lockp, "%s/.ioriot/.state/t.lock", mnt) > 0);

	ck_assert_int_eq(run_err(init, &err), 0);
	free(err);
	ck_assert_int_eq(run_err(rep, &err), 0);
	free(err);
	ck_assert_int_eq(run_err(rep, &err), 1);
	ck_assert_msg(strstr(err, "a replay already ran in it") &&
		      strstr(err, "--reuse"), "%s", err);
	free(err);
	ck_assert_int_eq(run_err(reuse, &err), 0);
	ck_assert_msg(strstr(err, "replayed as it is (--reuse)"), "%s", err);
	free(err);

	/* An init that never completed. */
	ck_assert_int_eq(run_err(init, &err), 0);
	free(err);
	FILE *sf = fopen(state, "w");

	ck_assert(sf);
	ck_assert(fputs("init\n", sf) >= 0);
	ck_assert_int_eq(fclose(sf), 0);
	ck_assert_int_eq(run_err(rep, &err), 1);
	ck_assert_msg(strstr(err, "its init did not complete"), "%s", err);
	free(err);

	/* Another process holds the test. */
	lock = open(lockp, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(lock, 0);
	ck_assert_int_eq(flock(lock, LOCK_EX), 0);
	ck_assert_int_eq(run_err(init, &err), 1);
	ck_assert_msg(strstr(err, "another init or replay of it is running"),
		      "%s", err);
	free(err);
	ck_assert_int_eq(run_err(reuse, &err), 1);
	ck_assert_msg(strstr(err, "another init or replay of it is running"),
		      "%s", err);
	free(err);
	close(lock);

	/* A state directory another user could write to (planted, or
	 * chmod'ed): root neither reads nor writes through it. */
	char *sdir;

	ck_assert(asprintf(&sdir, "%s/.ioriot/.state", mnt) > 0);
	ck_assert_int_eq(chown(sdir, 65534, 65534), 0);
	ck_assert_int_eq(run_err(reuse, &err), 1);
	ck_assert_msg(strstr(err, "writable by its owner only"), "%s", err);
	free(err);
	ck_assert_int_eq(chown(sdir, 0, 0), 0);
	ck_assert_int_eq(chmod(sdir, 0777), 0);
	ck_assert_int_eq(run_err(init, &err), 1);
	ck_assert_msg(strstr(err, "writable by its owner only"), "%s", err);
	free(err);
	free(sdir);
	ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	free(lockp);
	free(state);
	free(replay);
	free(mnt);
	free(dir);
}
END_TEST

/* The line of @text that starts with @prefix, malloc'd; NULL if none. */
static char *line_starting(const char *text, const char *prefix)
{
	for (const char *p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, prefix, strlen(prefix)))
			return strndup(p, strcspn(p, "\n"));
	}
	return NULL;
}

/*
 * -R of a file whose INIT makes a 100-byte file that the capture read 4096
 * bytes of, twice: the text stats count both reads as short, by 8092 bytes,
 * the read of a closed fd by its errno, and the lseek to the end as
 * another value; the JSON stats have the same figures, and --compare shows
 * them.
 */
START_TEST(test_replay_short)
{
	char *dir = tu_scratch();
	char *mnt = tu_join(dir, "mnt");
	char *sb, *text, *replay, *stats, *out, *err, *row, *line;
	const char *section;
	unsigned long long ops, bytes, differ, nshort;
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "test_replay_short: skipped, needs root\n");
		free(mnt);
		free(dir);
		return;
	}
	ck_assert_msg(tu_mount_tmpfs(mnt), "sandboxes must be on a mountpoint");
	ck_assert(asprintf(&sb, "%s/.ioriot/t", mnt) > 0);
	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=root|\n"
		"#|sandbox=%1$s|\n#INIT\nf 100 %1$s/small\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/small flags=0x0\n"
		"2 7:7 1000 1000 - read 4096 fd=1 count=4096\n"
		"3 7:7 2000 1000 - read 4096 fd=1 count=4096\n"
		"4 7:7 3000 1000 - pread64 100 fd=1 off=0 count=100\n"
		"5 7:7 4000 1000 - lseek 8192 fd=1 off=0 whence=2\n"
		"6 7:7 5000 1000 - close 0 fd=1\n"
		"7 7:7 6000 1000 - read 4096 fd=1 count=4096\n"
		"#END|ops=7|\n", sb) > 0);
	replay = tu_write_str(dir, "t.replay", text);
	free(text);
	stats = tu_join(dir, "short.json");
	const char *args[] = { "-R", replay, "-D", "-u", "root",
			       "--allow-root", "-S", stats, NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);

	/* The table row: syscall, ops, bytes, differ, short. */
	row = line_starting(out, "read ");
	ck_assert_msg(row, "no read row: %s", out);
	ck_assert_int_eq(sscanf(row, "read %llu %llu %llu %llu", &ops, &bytes,
				&differ, &nshort), 4);
	ck_assert_uint_eq(ops, 3);
	ck_assert_uint_eq(bytes, 100);
	ck_assert_uint_eq(differ, 3);
	ck_assert_uint_eq(nshort, 2);
	free(row);
	row = line_starting(out, "pread64 ");
	ck_assert_ptr_nonnull(row);
	ck_assert_int_eq(sscanf(row, "pread64 %llu %llu %llu %llu", &ops,
				&bytes, &differ, &nshort), 4);
	ck_assert_uint_eq(differ, 0);
	ck_assert_uint_eq(nshort, 0);
	free(row);
	/* The differing results: pread64 read what the capture did. */
	section = strstr(out, "\nDiffering results (");
	ck_assert_msg(section &&
		      strstr(section, "\nread               short 2 (8092 "
			     "bytes fewer), EBADF 1\n") &&
		      strstr(section, "\nlseek              value 1\n") &&
		      !strstr(section, "\npread64 "), "stdout: %s", out);
	free(out);
	free(err);

	text = tu_read(stats, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "\"read\": {\"ops\": 3, \"bytes\": 100, "
			     "\"differ\": 3, \"short\": 2, \"short_bytes\": "
			     "8092, ") &&
		      strstr(text, "\"differ_by_result\": {\"short\": 2, "
			     "\"EBADF\": 1}}") &&
		      strstr(text, "\"pread64\": {\"ops\": 1, \"bytes\": 100, "
			     "\"differ\": 0, \"short\": 0, \"short_bytes\": 0, ") &&
		      strstr(text, "\"differ_by_result\": {\"value\": 1}}"),
		      "%s", text);
	free(text);

	const char *cmp[] = { "--compare", stats, NULL };
	rc = tu_run_args(cmp, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	line = line_starting(out, "read short bytes ");
	ck_assert_msg(line && strstr(line, " 8092"), "%s", out);
	free(line);
	line = line_starting(out, "lseek differ ");
	ck_assert_msg(line && strstr(line, " 1"), "%s", out);
	free(line);
	ck_assert_msg(!line_starting(out, "pread64 differ"), "%s", out);
	free(out);
	free(err);
	free(stats);
	free(replay);
	free(sb);
	free(mnt);
	free(dir);
}
END_TEST

START_TEST(test_missing_capture)
{
	char *dir = tu_scratch();
	char *capture = tu_join(dir, "missing.capture");
	char *replay = tu_join(dir, "out.replay");
	const char *args[] = { "-c", capture, "-r", replay, "-n", "test",
			       "-u", "nobody", NULL };
	char *out, *err;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 1);
	ck_assert_msg(strstr(err, capture), "stderr lacks the file: %s", err);
	ck_assert(!exists(replay));
	free(out);
	free(err);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

#define HEADER "#|capture_version=4|\n#|mount=/|fstype=ext4|\n"
#define EVENT "t=0;:,D=5;:,i=7:7;:,o=stat;:,p=/data/a;:,r=0;:,\n"

START_TEST(test_generate_ok)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "in.capture", HEADER EVENT
		"t=10;:,D=5;:,i=7:7;:,o=openat;:,d=-100;:,p=/data/a;:,f=0;:,r=3;:,\n"
		"t=20;:,D=5;:,i=7:7;:,o=read;:,d=3;:,c=100;:,r=100;:,\n"
		"t=30;:,D=5;:,i=7:7;:,o=close;:,d=3;:,r=0;:,\n"
		"#|end|events=4|lost=0|\n");
	char *replay = tu_join(dir, "out.replay");
	const char *args[] = { "-c", capture, "-r", replay, "-n", "test",
			       "-u", "tester", NULL };
	char *out, *err, *text;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "Operations written: 4\n"), "stdout: %s",
		      out);
	ck_assert_msg(strstr(out, "Events: 4\n"), "stdout: %s", out);
	ck_assert_msg(strstr(out, "Bad lines: 0\n"), "stdout: %s", out);
	ck_assert_msg(strstr(out, "INIT files: 1\n"), "stdout: %s", out);
	ck_assert_msg(strstr(out, "Replay file: "), "stdout: %s", out);
	ck_assert_str_eq(err, "");
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(!strncmp(text, "#|replay_version=1|name=test|user=tester|\n",
			       41), "replay file starts: %.60s", text);
	ck_assert_ptr_nonnull(strstr(text, "\nf 100 /.ioriot/test/data/a\n"));
	ck_assert_ptr_nonnull(strstr(text, "\n#END|ops=4|\n"));
	free(text);
	free(out);
	free(err);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

/* -w DIR: relative file names are taken from DIR, made if missing; never
 * a symlink or another user's directory. */
START_TEST(test_working_directory)
{
	char *dir = tu_scratch();
	char *wd = tu_join(dir, "wd");
	char *capture, *replay, *out, *err;
	const char *args[] = { "-w", wd, "-c", "in.capture", "-r", "out.replay",
			       "-n", "test", "-u", "tester", NULL };

	ck_assert_int_eq(mkdir(wd, 0755), 0);
	capture = tu_write_str(wd, "in.capture", HEADER EVENT
		"t=10;:,D=5;:,i=7:7;:,o=mkdir;:,p=/data/a;:,m=493;:,r=0;:,\n");
	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	replay = tu_join(wd, "out.replay");
	ck_assert_msg(exists(replay), "no %s: %s", replay, err);
	free(out);
	free(err);
	free(replay);
	free(capture);

	/* A missing DIR is created (its parent must exist). */
	char *fresh = tu_join(dir, "fresh");
	const char *again[] = { "-w", fresh, "-c", "/nonexistent.capture",
				"-r", "x.replay", "-n", "test", "-u", "nobody",
				NULL };
	ck_assert_int_eq(tu_run_args(again, &out, &err), 1);
	ck_assert(exists(fresh));
	free(out);
	free(err);

	/* A symlink, or another user's directory (one made in /tmp before
	 * ioriot ran as root), is refused: nothing is written there. */
	char *link = tu_join(dir, "link"), *other = tu_join(dir, "other");
	const char *bad[] = { "-w", link, "-c", NULL, "-r", "x.replay",
			      "-n", "test", "-u", "nobody", NULL };

	capture = tu_join(wd, "in.capture");
	bad[3] = capture;
	ck_assert_int_eq(symlink(fresh, link), 0);
	ck_assert_int_eq(tu_run_args(bad, &out, &err), 1);
	ck_assert_msg(strstr(err, "link: not a directory, or a symlink"), "%s",
		      err);
	free(out);
	free(err);
	/* ... also named "link/" or "link/./", which the kernel would
	 * follow despite O_NOFOLLOW */
	char *slash;
	ck_assert(asprintf(&slash, "%s/", link) > 0);
	bad[1] = slash;
	ck_assert_int_eq(tu_run_args(bad, &out, &err), 1);
	ck_assert_msg(strstr(err, "link/: not a directory, or a symlink"), "%s",
		      err);
	free(out);
	free(err);
	free(slash);
	ck_assert(asprintf(&slash, "%s/./", link) > 0);
	bad[1] = slash;
	ck_assert_int_eq(tu_run_args(bad, &out, &err), 1);
	free(out);
	free(err);
	free(slash);
	if (geteuid() == 0) {
		ck_assert_int_eq(mkdir(other, 0777), 0);
		ck_assert_int_eq(chown(other, 65534, 65534), 0);
		bad[1] = other;
		ck_assert_int_eq(tu_run_args(bad, &out, &err), 1);
		ck_assert_msg(strstr(err, "other: a directory of another user"),
			      "%s", err);
		free(out);
		free(err);
		replay = tu_join(other, "x.replay");
		ck_assert(!exists(replay));
		free(replay);
	}
	replay = tu_join(fresh, "x.replay");
	ck_assert(!exists(replay));
	free(replay);
	free(capture);
	free(link);
	free(other);
	free(fresh);
	free(wd);
	free(dir);
}
END_TEST

START_TEST(test_generate_quiet)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "in.capture", HEADER EVENT);
	char *replay = tu_join(dir, "out.replay");
	const char *args[] = { "-q", "-c", capture, "-r", replay, "-n", "test",
			       "-u", "nobody", NULL };
	char *out, *err;

	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	ck_assert(exists(replay));
	free(out);
	free(err);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

/* A v3 log takes its mount table from --mounts. */
START_TEST(test_generate_v3_mounts)
{
	char *dir = tu_scratch();
	char *capture, *mounts, *text;
	char *replay = tu_join(dir, "out.replay");
	char *out, *err;

	ck_assert(asprintf(&capture, "%s/generate/v3basic.capture",
			   tu_datadir()) > 0);
	ck_assert(asprintf(&mounts, "%s/generate/v3basic.mounts",
			   tu_datadir()) > 0);
	const char *args[] = { "-c", capture, "-r", replay, "-n", "test",
			       "-u", "nobody", "--mounts", mounts, NULL };
	ck_assert_int_eq(tu_run_args(args, &out, &err), 0);
	ck_assert_msg(strstr(out, "Capture version: 3\n"), "stdout: %s", out);
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text,
		"\n#|sandbox=/data2/.ioriot/test|mount=/data2|fstype=xfs|\n"));
	free(text);
	free(out);
	free(err);
	free(mounts);
	free(capture);
	free(replay);
	free(dir);
}
END_TEST

/*
 * Damaged inputs.  @where (with the file's path in front, e.g. "x:4:") and
 * @what must appear on stderr; exit 1 means no output file, exit 0 a file
 * from the valid events and one bad line counted.
 */
enum content { C_TEXT, C_GARBAGE, C_LONG };

static const struct {
	const char *file;
	enum content kind;
	const char *text;
	size_t len;		/* of text; 0: strlen */
	int rc;
	const char *where;
	const char *what;
	const char *ops;	/* rc 0: "Operations written: N" line */
} bad_inputs[] = {
	{ "empty.capture", C_TEXT, "", 0, 1, ":", "empty", NULL },
	{ "nohdr.capture", C_TEXT, EVENT, 0, 1, ":1:", "header", NULL },
	{ "v9.capture", C_TEXT, "#|capture_version=9|\n" EVENT, 0, 1, ":1:",
	  "version 9", NULL },
	{ "garbage.capture", C_GARBAGE, NULL, 0, 1, ":1:", "header", NULL },
	{ "bad.capture", C_TEXT, HEADER "garbage\nt=1;:,o=close;:,\n", 0, 1,
	  ":", "4 lines", NULL },
	{ "nul.capture", C_TEXT,
	  HEADER EVENT "t=1;:,i=7:7;:,o=st\0at;:,p=/b;:,r=0;:,\n" EVENT,
	  sizeof(HEADER EVENT "t=1;:,i=7:7;:,o=st\0at;:,p=/b;:,r=0;:,\n" EVENT) - 1,
	  0, ":4:", "NUL", "Operations written: 2\n" },
	{ "trunc.capture", C_TEXT, HEADER EVENT "t=1;:,i=7:7;:,o=stat;:,p=/b",
	  0, 0, ":4:", "truncated", "Operations written: 1\n" },
	{ "long.capture", C_LONG, NULL, 0, 0, ":4:", "too long",
	  "Operations written: 2\n" },
};

/* Write bad_inputs[@i] into @dir; returns its path. */
static char *write_bad_input(const char *dir, int i)
{
	size_t len = 1 << 20;
	char *buf, *path;

	switch (bad_inputs[i].kind) {
	case C_TEXT:
		len = bad_inputs[i].len ? bad_inputs[i].len :
		      strlen(bad_inputs[i].text);
		return tu_write(dir, bad_inputs[i].file, bad_inputs[i].text,
				len);
	case C_GARBAGE:
		buf = malloc(4096);
		ck_assert_ptr_nonnull(buf);
		for (size_t j = 0; j < 4096; j++)
			buf[j] = (char)(j * 37 + 11);
		path = tu_write(dir, bad_inputs[i].file, buf, 4096);
		free(buf);
		return path;
	case C_LONG:
		/* a valid event, a 1 MB line, a valid event */
		buf = malloc(len + 512);
		ck_assert_ptr_nonnull(buf);
		size_t n = (size_t)sprintf(buf, "%s%s%s", HEADER, EVENT,
					   "t=1;:,i=7:7;:,o=stat;:,p=/");
		memset(buf + n, 'a', len);
		n += len;
		n += (size_t)sprintf(buf + n, ";:,r=0;:,\n%s", EVENT);
		path = tu_write(dir, bad_inputs[i].file, buf, n);
		free(buf);
		return path;
	}
	return NULL;
}

/* Whether @err has an error line: "ioriot: " and not a warning. */
static bool has_error_line(const char *err)
{
	for (const char *l = err; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, "ioriot: ", 8) && strncmp(l + 8, "warning: ", 9))
			return true;
	return false;
}

START_TEST(test_bad_input)
{
	char *dir = tu_scratch();
	char *capture = write_bad_input(dir, _i);
	char *replay = tu_join(dir, "out.replay");
	const char *args[] = { "-c", capture, "-r", replay, "-n", "test",
			       "-u", "nobody", NULL };
	char *out, *err, *where;
	int rc = tu_run_args(args, &out, &err);

	ck_assert(asprintf(&where, "%s%s", capture, bad_inputs[_i].where) > 0);
	ck_assert_msg(rc == bad_inputs[_i].rc, "%s: exit %d, expected %d: %s",
		      bad_inputs[_i].file, rc, bad_inputs[_i].rc, err);
	ck_assert_msg(strstr(err, where), "%s: stderr lacks '%s': %s",
		      bad_inputs[_i].file, where, err);
	ck_assert_msg(strstr(err, bad_inputs[_i].what), "%s: stderr lacks '%s': %s",
		      bad_inputs[_i].file, bad_inputs[_i].what, err);
	if (rc == 0) {
		ck_assert_msg(strstr(err, "warning"), "%s: %s",
			      bad_inputs[_i].file, err);
		ck_assert_msg(strstr(out, "Bad lines: 1\n"), "%s: %s",
			      bad_inputs[_i].file, out);
		ck_assert_msg(strstr(out, bad_inputs[_i].ops), "%s: %s",
			      bad_inputs[_i].file, out);
		ck_assert(exists(replay));
	} else {
		ck_assert_msg(has_error_line(err), "%s: %s",
			      bad_inputs[_i].file, err);
		ck_assert_msg(!exists(replay), "%s: output written",
			      bad_inputs[_i].file);
	}
	free(where);
	free(out);
	free(err);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("options");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, test_help, 0, 2);
	tcase_add_test(tc, test_help_matches_man);
	tcase_add_loop_test(tc, test_version, 0, 2);
	tcase_add_loop_test(tc, test_usage_error, 0,
			    sizeof(usage_errors) / sizeof(usage_errors[0]));
	tcase_add_test(tc, test_stap_module);
	tcase_add_test(tc, test_stap_lost_lines);
	tcase_add_test(tc, test_capture_needs_root);
	tcase_add_test(tc, test_capture_output_unwritable);
	tcase_add_test(tc, test_capture_keeps_log);
	tcase_add_test(tc, test_capture_container);
	tcase_add_test(tc, test_trash_and_purge);
	tcase_add_test(tc, test_replay);
	tcase_add_test(tc, test_init_and_replay);
	tcase_add_test(tc, test_repeat);
	tcase_add_test(tc, test_disk_full);
	tcase_add_test(tc, test_capture_ready);
	tcase_add_test(tc, test_test_state);
	tcase_add_test(tc, test_replay_thread_limit);
	tcase_add_test(tc, test_replay_short);
	suite_add_tcase(s, tc);

	tc = tcase_create("generate");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_missing_capture);
	tcase_add_test(tc, test_generate_ok);
	tcase_add_test(tc, test_generate_quiet);
	tcase_add_test(tc, test_working_directory);
	tcase_add_test(tc, test_generate_v3_mounts);
	tcase_add_loop_test(tc, test_bad_input, 0,
			    sizeof(bad_inputs) / sizeof(bad_inputs[0]));
	suite_add_tcase(s, tc);
	return s;
}
