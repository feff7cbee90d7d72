/*
 * Fuzzing regressions: every input in tests/data/fuzz/{caplog,generate,rlog}/
 * (inputs that once crashed or hung a fuzz/ harness, or made it report a
 * bug) goes through the same entry points as its harness, in the normal
 * build: the capture-log reader, the generator (its output read back by
 * the replay-file reader, no temporary file left behind) and the
 * replay-file reader.  Each must end in success or a clean error with a
 * message, and every replay-file entry accepted must be confined to the
 * sandboxes (fuzz/rlog_confined.h).  The seed fixtures of tests/data go through them too, so the
 * suite never tests nothing.  Some fixed bugs also get a test of what the
 * fix gives.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/caplog.h"
#include "ioriot/generate.h"
#include "ioriot/log.h"
#include "ioriot/rlog.h"
#include "testutil.h"
#include "../fuzz/rlog_confined.h"

#define ERRLEN 4096

/* The v2/v3 mount table of fuzz/fuzz_generate.c. */
static const char mounts_text[] =
	"/dev/sda1 / ext4 rw,relatime 0 0\n"
	"proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
	"sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
	"/dev/sdb1 /data xfs rw,relatime 0 0\n";

/* Inputs of each harness: its regression directory, then the seed
 * fixtures scripts/fuzz.sh starts its corpus with. */
static const char *const caplog_inputs[] = {
	"fuzz/caplog/*", "caplog/*", "generate/*.capture", "stap/*.capture",
	NULL
};
static const char *const generate_inputs[] = {
	"fuzz/generate/*", "caplog/*", "generate/*.capture", NULL
};
static const char *const rlog_inputs[] = {
	"fuzz/rlog/*", "generate/*.replay", NULL
};

static void quiet(void)
{
	log_set_level(LOG_QUIET);
}

/* The files matching @patterns below tests/data, READMEs included. */
static void list_inputs(const char *const *patterns, glob_t *g)
{
	int flags = 0;

	memset(g, 0, sizeof(*g));
	for (; *patterns; patterns++) {
		char *pat = tu_join(tu_datadir(), *patterns);
		int rc = glob(pat, flags, NULL, g);

		ck_assert_msg(rc == 0 || rc == GLOB_NOMATCH, "glob %s: %d", pat,
			      rc);
		flags = GLOB_APPEND;
		free(pat);
	}
}

/* Whether @path is a README, not an input. */
static bool is_readme(const char *path)
{
	const char *slash = strrchr(path, '/');

	return fnmatch("README*", slash ? slash + 1 : path, 0) == 0;
}

/* Run @fn over the inputs @patterns name; there must be some. */
static void each_input(const char *const *patterns,
		       void (*fn)(const char *path, void *ctx), void *ctx)
{
	size_t n = 0;
	glob_t g;

	list_inputs(patterns, &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (is_readme(g.gl_pathv[i]))
			continue;
		fn(g.gl_pathv[i], ctx);
		n++;
	}
	globfree(&g);
	ck_assert_msg(n > 0, "no input files found below %s", tu_datadir());
}

/* What fuzz_caplog does, checking the results. */
static void read_caplog(const char *path)
{
	char err[ERRLEN] = "";
	struct cap_event ev;
	struct caplog_reader *r;
	int rc;

	errno = 0;
	r = caplog_open(path, err, sizeof(err));
	if (!r) {
		ck_assert_msg(errno > 0 && err[0], "%s: error without errno %d "
			      "or message", path, errno);
		return;
	}
	while ((rc = caplog_next(r, &ev)) > 0)
		ck_assert_msg(strlen(ev.path) == ev.path_len &&
			      strlen(ev.path2) == ev.path2_len,
			      "%s:%llu: path lengths", path,
			      (unsigned long long)ev.lineno);
	ck_assert_msg(rc == 0, "%s: read error %d", path, rc);
	caplog_close(r);
}

/* Read the replay file @path to its end; its result (1 if all of it was
 * read, else 0), with the error message in @err. */
static int read_rlog(const char *path, char *err)
{
	struct rlog_entry e;
	struct rlog_reader *r;
	int rc;

	err[0] = '\0';
	errno = 0;
	r = rlog_open(path, err, ERRLEN);
	if (!r) {
		ck_assert_msg(errno > 0 && err[0], "%s: error without errno %d "
			      "or message", path, errno);
		return 0;
	}
	while ((rc = rlog_next(r, &e, err, ERRLEN)) > 0)
		ck_assert_msg(rlog_entry_confined(rlog_header(r), &e),
			      "%s:%llu: an entry outside the sandboxes "
			      "accepted", path, (unsigned long long)e.lineno);
	ck_assert_msg(rc == 0 || err[0], "%s: error %d without a message",
		      path, rc);
	rlog_close(r);
	return rc == 0;
}

/* Names in @dir other than "mounts", or "" (@out holds @len bytes). */
static void leftovers(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	ck_assert_msg(d, "%s: %s", dir, strerror(errno));
	out[0] = '\0';
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "mounts"))
			snprintf(out + strlen(out), len - strlen(out), " %s",
				 de->d_name);
	closedir(d);
}

/* What fuzz_generate does: generate @capture into @dir/out.replay, read it
 * back.  Returns the replay path (malloc'd) if one was written, else NULL. */
static char *generate(const char *capture, const char *dir)
{
	char *mounts = tu_join(dir, "mounts");
	char *replay = tu_join(dir, "out.replay");
	char err[ERRLEN] = "", left[1024];
	struct gen_summary sum;
	struct gen_options opt = {
		.capture_path = capture,
		.replay_path = replay,
		.name = "fuzz",
		.user = "nobody",
		.local_mounts = mounts,
	};

	if (access(mounts, F_OK) != 0)
		free(tu_write_str(dir, "mounts", mounts_text));
	int rc = generate_run(&opt, &sum, err, sizeof(err));
	if (rc == 0) {
		char rerr[ERRLEN];
		ck_assert_msg(read_rlog(replay, rerr),
			      "%s: generated replay file rejected: %s", capture,
			      rerr);
	} else {
		ck_assert_msg(rc < 0 && err[0], "%s: generate returned %d "
			      "without a message", capture, rc);
		leftovers(dir, left, sizeof(left));
		ck_assert_msg(!left[0], "%s: failed generate left%s", capture,
			      left);
		free(replay);
		replay = NULL;
	}
	free(mounts);
	return replay;
}

static void caplog_one(const char *path, void *ctx)
{
	(void)ctx;
	read_caplog(path);
}

static void generate_one(const char *path, void *dir)
{
	char *replay = generate(path, dir);

	if (replay) {
		ck_assert_int_eq(unlink(replay), 0);
		free(replay);
	}
}

static void rlog_one(const char *path, void *ctx)
{
	char err[ERRLEN];

	(void)ctx;
	read_rlog(path, err);
}

START_TEST(test_caplog_inputs)
{
	each_input(caplog_inputs, caplog_one, NULL);
}
END_TEST

START_TEST(test_generate_inputs)
{
	char *dir = tu_scratch();

	each_input(generate_inputs, generate_one, dir);
	free(dir);
}
END_TEST

START_TEST(test_rlog_inputs)
{
	each_input(rlog_inputs, rlog_one, NULL);
}
END_TEST

/*
 * A stat result of mode 0101140 (a regular file with the sticky bit) made
 * the generator write "mode=01140" into INIT, which the reader rejects
 * (permission bits only): INIT takes the permission bits, 0140.
 */
START_TEST(test_setid_init_mode)
{
	char *dir = tu_scratch();
	char *capture = tu_join(tu_datadir(), "fuzz/generate/setid-init-mode.capture");
	char *replay = generate(capture, dir);
	char *text;

	ck_assert_msg(replay, "%s: no replay file", capture);
	text = tu_read(replay, NULL);
	ck_assert(text);
	ck_assert_msg(strstr(text, "\nf 0 /.ioriot/fuzz/x mode=0140\n"),
		      "INIT entry with mode=0140 missing:\n%s", text);
	free(text);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

Suite *fuzz_regress_suite(void)
{
	Suite *s = suite_create("fuzz_regress");
	TCase *tc = tcase_create("inputs");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, test_caplog_inputs);
	tcase_add_test(tc, test_generate_inputs);
	tcase_add_test(tc, test_rlog_inputs);
	tcase_add_test(tc, test_setid_init_mode);
	suite_add_tcase(s, tc);
	return s;
}
