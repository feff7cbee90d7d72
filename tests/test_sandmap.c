/*
 * Tests of --map and --copies: the rules and the host sandboxes they give
 * (sandmap.h), the header's test_mount=, the collision check, and the
 * ioriot binary generating, initialising and replaying into mapped
 * mounts and into N copies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/json.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"
#include "testutil.h"


static bool is_file(const char *path, off_t size)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == size;
}

START_TEST(test_rules)
{
	struct sandmap m = { 0 };
	char err[256], mnt[PATHMAP_MAX];
	static const char *const bad[] = {
		"/a", "a=/b", "/a=b", "/a/=/b", "/a=/b/../c", "=/b", "/a=",
		"/a//b=/c",
	};

	ck_assert_int_eq(sandmap_add(&m, "/var/lib/pgsql=/mnt/new", err,
				     sizeof(err)), 0);
	ck_assert_int_eq(sandmap_add(&m, "/=/mnt/root", err, sizeof(err)), 0);
	ck_assert_str_eq(sandmap_lookup(&m, "/var/lib/pgsql"), "/mnt/new");
	ck_assert_str_eq(sandmap_lookup(&m, "/"), "/mnt/root");
	ck_assert_ptr_null(sandmap_lookup(&m, "/var/lib"));
	ck_assert_int_eq(sandmap_add(&m, "/var/lib/pgsql=/mnt/other", err,
				     sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "mapped twice"), "%s", err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(sandmap_add(&m, bad[i], err, sizeof(err)) ==
			      -EINVAL, "%s", bad[i]);
		ck_assert_msg(strstr(err, "not CAPTURED=TEST"), "%s", err);
	}
	ck_assert_uint_eq(m.n, 2);
	sandmap_free(&m);
	ck_assert_uint_eq(m.n, 0);
	sandmap_free(NULL);

	ck_assert_int_eq(sandmap_root_mount("/srv/a/.ioriot/t", "t", mnt), 0);
	ck_assert_str_eq(mnt, "/srv/a");
	ck_assert_int_eq(sandmap_root_mount("/.ioriot/t", "t", mnt), 0);
	ck_assert_str_eq(mnt, "/");
	ck_assert_int_eq(sandmap_root_mount("/srv/a/ioriot/t", "t", mnt),
			 -EINVAL);
	ck_assert_int_eq(sandmap_root_mount("/srv/a/.ioriot/u", "t", mnt),
			 -EINVAL);
}
END_TEST

/* A replay file with sandboxes on /srv/a (test_mount=@test_mount if not
 * NULL), /srv/b and /; @extra header items on the /srv/b line. */
static char *three_sandboxes(const char *dir, const char *test_mount,
			     const char *extra)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=nobody|\n"
		"#|sandbox=/srv/a/.ioriot/t|mount=/srv/a|%s%s%s\n"
		"#|sandbox=/srv/b/.ioriot/t|%s\n"
		"#|sandbox=/.ioriot/t|mount=/|\n"
		"#OPS\n#END|ops=0|\n", test_mount ? "test_mount=" : "",
		test_mount ? test_mount : "", test_mount ? "|" : "",
		extra) > 0);
	path = tu_write_str(dir, "three.replay", text);
	free(text);
	return path;
}

START_TEST(test_host_roots)
{
	char *dir = tu_scratch(), *path, err[512];
	struct sandmap m = { 0 };
	struct rlog_reader *r;
	const struct rlog_header *h;
	char **roots;

	path = three_sandboxes(dir, "/mnt/a", "");
	r = rlog_open(path, err, sizeof(err));
	ck_assert_msg(r, "%s", err);
	h = rlog_header(r);
	ck_assert_str_eq(h->test_mounts[0], "/mnt/a");
	ck_assert_ptr_null(h->test_mounts[1]);
	/* No rule: the header's test_mount=, else the captured mount. */
	roots = sandmap_host_roots(NULL, h, 0, err, sizeof(err));
	ck_assert_msg(roots, "%s", err);
	ck_assert_str_eq(roots[0], "/mnt/a/.ioriot/t");
	ck_assert_str_eq(roots[1], "/srv/b/.ioriot/t");
	ck_assert_str_eq(roots[2], "/.ioriot/t");
	ck_assert(!sandmap_shared(h->sandboxes, roots, 3));
	sandmap_roots_free(roots, 3);
	/* A rule wins over the header; copies get NAME.k. */
	ck_assert_int_eq(sandmap_add(&m, "/srv/a=/mnt/x", err, sizeof(err)), 0);
	ck_assert_int_eq(sandmap_add(&m, "/=/mnt/x", err, sizeof(err)), 0);
	roots = sandmap_host_roots(&m, h, 3, err, sizeof(err));
	ck_assert_msg(roots, "%s", err);
	ck_assert_str_eq(roots[0], "/mnt/x/.ioriot/t.3");
	ck_assert_str_eq(roots[1], "/srv/b/.ioriot/t.3");
	ck_assert_str_eq(roots[2], "/mnt/x/.ioriot/t.3");
	ck_assert(sandmap_shared(h->sandboxes, roots, 3));
	sandmap_roots_free(roots, 3);
	ck_assert_ptr_null(sandmap_host_roots(&m, h, SANDMAP_COPIES_MAX + 1,
					      err, sizeof(err)));
	/* A rule for a mount the file does not have is refused. */
	ck_assert_int_eq(sandmap_add(&m, "/srv=/mnt/y", err, sizeof(err)), 0);
	errno = 0;
	ck_assert_ptr_null(sandmap_host_roots(&m, h, 0, err, sizeof(err)));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "--map /srv=/mnt/y: the replay file has no "
			     "sandbox on /srv"), "%s", err);
	sandmap_free(&m);
	sandmap_roots_free(NULL, 0);
	rlog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* test_mount= must follow a sandbox= on its line, once, absolute. */
START_TEST(test_header_errors)
{
	static const char *const cases[][2] = {
		{ "#|test_mount=/mnt/a|\n", "test_mount= without a sandbox=" },
		{ "#|sandbox=/srv/a/.ioriot/t|test_mount=mnt|\n",
		  "not a normalised absolute path" },
		{ "#|sandbox=/srv/a/.ioriot/t|test_mount=/mnt/../etc|\n",
		  "not a normalised absolute path" },
		{ "#|sandbox=/srv/a/.ioriot/t|test_mount=/a|test_mount=/b|\n",
		  "test_mount= given twice" },
	};
	char *dir = tu_scratch(), err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text, *path;

		ck_assert(asprintf(&text, "#|replay_version=1|name=t|user=nobody|"
				   "\n%s#OPS\n#END|ops=0|\n", cases[i][0]) > 0);
		path = tu_write_str(dir, "bad.replay", text);
		ck_assert_ptr_null(rlog_open(path, err, sizeof(err)));
		ck_assert_msg(strstr(err, "bad.replay:2: ") &&
			      strstr(err, cases[i][1]), "case %zu: %s", i, err);
		free(text);
		free(path);
	}
	free(dir);
}
END_TEST

/* Two sandboxes in one: the same directory listed by both is fine, the
 * same path named otherwise by both collides. */
START_TEST(test_collisions)
{
	char *dir = tu_scratch(), err[1024], *path;
	char *host[] = { "/mnt/x/.ioriot/t", "/mnt/x/.ioriot/t" };
	char *apart[] = { "/mnt/x/.ioriot/t", "/mnt/y/.ioriot/t" };
	static const char head[] =
		"#|replay_version=1|name=t|user=nobody|\n"
		"#|sandbox=/srv/a/.ioriot/t|\n#|sandbox=/srv/b/.ioriot/t|\n"
		"#INIT\nd /srv/a/.ioriot/t/shared\nf 10 /srv/a/.ioriot/t/shared/x\n"
		"d /srv/b/.ioriot/t/shared\nf 10 /srv/b/.ioriot/t/shared/y\n"
		"#OPS\n"
		"1 1:1 0 0 - stat 0 path=/srv/a/.ioriot/t/shared\n"
		"2 1:1 0 0 - mkdir 0 path=/srv/a/.ioriot/t/new mode=0755\n";
	char *text;

	ck_assert(asprintf(&text, "%s"
			   "3 2:2 0 0 - mkdir 0 path=/srv/b/.ioriot/t/other "
			   "mode=0755\n#END|ops=3|\n", head) > 0);
	path = tu_write_str(dir, "ok.replay", text);
	free(text);
	ck_assert_int_eq(sandmap_check_collisions(path, host, err,
						  sizeof(err)), 0);
	free(path);

	ck_assert(asprintf(&text, "%s"
			   "3 2:2 0 0 - rename 0 path=/srv/b/.ioriot/t/shared/y "
			   "path2=/srv/b/.ioriot/t/new\n#END|ops=3|\n",
			   head) > 0);
	path = tu_write_str(dir, "clash.replay", text);
	free(text);
	ck_assert_int_eq(sandmap_check_collisions(path, host, err,
						  sizeof(err)), -EEXIST);
	ck_assert_msg(strstr(err, "sandboxes /srv/a/.ioriot/t and "
			     "/srv/b/.ioriot/t into one and both name new"),
		      "%s", err);
	/* Not in one host sandbox: nothing to check. */
	ck_assert_int_eq(sandmap_check_collisions(path, apart, err,
						  sizeof(err)), 0);
	free(path);

	/* A file one lists and the other creates collides too. */
	ck_assert(asprintf(&text, "%s"
			   "3 2:2 0 0 - openat 3 path=/srv/b/.ioriot/t/shared/x "
			   "vfd=1 flags=0x41 mode=0644\n#END|ops=3|\n",
			   head) > 0);
	path = tu_write_str(dir, "clash2.replay", text);
	free(text);
	ck_assert_int_eq(sandmap_check_collisions(path, host, err,
						  sizeof(err)), -EEXIST);
	ck_assert_msg(strstr(err, "both name shared/x"), "%s", err);
	free(path);
	free(dir);
}
END_TEST

/* A replay file whose sandbox is on @captured: a file made and written by
 * one thread, read by another after it (a dependency), a directory. */
static char *workload(const char *dir, const char *captured)
{
	char *text, *path;

	ck_assert(asprintf(&text,
		"#|replay_version=1|name=t|user=nobody|\n"
		"#|sandbox=%1$s/.ioriot/t|mount=%1$s|\n#INIT\n"
		"d %1$s/.ioriot/t/d\nf 8192 %1$s/.ioriot/t/d/old\n"
		"x %1$s/.ioriot/t/d/f\n#OPS\n"
		"1 7:7 0 1000 - openat 3 vfd=1 path=%1$s/.ioriot/t/d/f "
		"flags=0x41 mode=0644\n"
		"2 7:7 2000 1000 - write 4096 fd=1 count=4096\n"
		"3 7:7 4000 1000 - close 0 fd=1\n"
		"4 8:8 6000 1000 3 openat 4 vfd=2 path=%1$s/.ioriot/t/d/f "
		"flags=0x0\n"
		"5 8:8 7000 1000 - read 4096 fd=2 count=4096\n"
		"6 8:8 8000 1000 - close 0 fd=2\n"
		"7 9:9 0 1000 - openat 5 vfd=3 path=%1$s/.ioriot/t/d/old "
		"flags=0x0\n"
		"8 9:9 100 1000 - pread64 8192 fd=3 count=8192 off=0\n"
		"9 9:9 200 1000 - close 0 fd=3\n"
		"10 9:9 300 1000 - mkdir 0 path=%1$s/.ioriot/t/e mode=0755\n"
		"#END|ops=10|\n", captured) > 0);
	path = tu_write_str(dir, "w.replay", text);
	free(text);
	return path;
}

/* The JSON stats at @path, parsed. */
static json_t *load_stats(const char *path)
{
	struct jv_error jerr;
	json_t *v = jv_load(path, &jerr);

	ck_assert_msg(v, "%s: line %u: %s", path, jerr.line, jerr.msg);
	return v;
}

static int64_t member_int(const json_t *v, const char *key)
{
	int64_t n = -1;

	ck_assert_msg(jv_int(json_object_get(v, key), &n) == 0, "%s", key);
	return n;
}

/* The sum of the differing results of every syscall. */
static int64_t differ_of(const json_t *stats)
{
	const json_t *sys = json_object_get(stats, "syscalls");
	int64_t total = 0;

	for (size_t i = 0; i < jv_count(sys); i++)
		total += member_int(jv_at(sys, i), "differ");
	return total;
}

/* -R --map: a capture of a mount the test host does not have replays into
 * the test mount, every result as captured. */
START_TEST(test_map_replay)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "new");
	char *json = tu_join(dir, "s.json"), *replay, *out, *err, *rule, *f;
	json_t *stats;
	int rc;

	ck_assert_msg(tu_mount_tmpfs(mnt), "no tmpfs");
	replay = workload(dir, "/var/lib/pgsql");
	ck_assert(asprintf(&rule, "/var/lib/pgsql=%s", mnt) > 0);
	const char *args[] = { "-R", replay, "-D", "-q", "-u", "nobody",
			       "--map", rule, "-S", json, NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	f = tu_join(mnt, ".ioriot/t/d/f");
	ck_assert(is_file(f, 4096));
	free(f);
	f = tu_join(mnt, ".ioriot/t/e");
	ck_assert_int_eq(access(f, F_OK), 0);
	free(f);
	stats = load_stats(json);
	ck_assert_int_eq(member_int(stats, "performed_ioops"), 10);
	ck_assert_int_eq(differ_of(stats), 0);
	ck_assert(json_is_null(json_object_get(stats, "copies")));
	json_decref(stats);
	free(out);
	free(err);

	/* A TEST that is no mountpoint: a clear error, nothing made. */
	free(rule);
	ck_assert(asprintf(&rule, "/var/lib/pgsql=%s", dir) > 0);
	const char *notmnt[] = { "-i", replay, "-q", "-u", "nobody", "--map",
				 rule, NULL };
	rc = tu_run_args(notmnt, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "not a mountpoint"), "%s", err);
	f = tu_join(dir, ".ioriot");
	ck_assert_int_ne(access(f, F_OK), 0);
	free(f);
	free(out);
	free(err);
	free(rule);
	free(replay);
	free(json);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * A TEST reached through a symlink, by --map or by a hand-edited
 * test_mount=, and a .ioriot planted as a symlink on the test mount (as a
 * user who could write there would): init as root refuses each and makes
 * nothing, neither on the mount nor where the links lead.
 */
START_TEST(test_map_links_refused)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "real");
	char *other = tu_join(dir, "other"), *link = tu_join(dir, "link");
	char *elsewhere = tu_join(dir, "elsewhere"), *dot, *replay, *rule;
	char *text, *edited, *out, *err, *f;
	int rc;

	ck_assert_msg(tu_mount_tmpfs(mnt), "no tmpfs");
	ck_assert_int_eq(symlink(mnt, link), 0);
	replay = workload(dir, "/var/x");
	ck_assert(asprintf(&rule, "/var/x=%s", link) > 0);
	const char *by_rule[] = { "-i", replay, "-q", "-u", "nobody",
				  "--map", rule, NULL };
	rc = tu_run_args(by_rule, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "symlink") || strstr(err, "Too many levels"),
		      "%s", err);
	free(out);
	free(err);

	/* The same through the file's header. */
	text = tu_read(replay, NULL);
	ck_assert(asprintf(&edited, "%.*stest_mount=%s|%s",
			   (int)(strstr(text, "mount=/var/x|") - text +
				 strlen("mount=/var/x|")), text, link,
			   strstr(text, "mount=/var/x|") +
			   strlen("mount=/var/x|")) > 0);
	free(replay);
	replay = tu_write_str(dir, "edited.replay", edited);
	const char *by_header[] = { "-i", replay, "-q", "-u", "nobody", NULL };
	rc = tu_run_args(by_header, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "symlink") || strstr(err, "Too many levels"),
		      "%s", err);
	f = tu_join(mnt, ".ioriot");
	ck_assert_int_ne(access(f, F_OK), 0);
	free(f);
	free(out);
	free(err);

	/* .ioriot on the test mount a link to a directory elsewhere. */
	ck_assert_msg(tu_mount_tmpfs(other), "no tmpfs");
	ck_assert_int_eq(mkdir(elsewhere, 0777), 0);
	dot = tu_join(other, ".ioriot");
	ck_assert_int_eq(symlink(elsewhere, dot), 0);
	free(rule);
	ck_assert(asprintf(&rule, "/var/x=%s", other) > 0);
	const char *planted[] = { "-i", replay, "-q", "-u", "nobody",
				  "--map", rule, NULL };
	rc = tu_run_args(planted, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, ".ioriot: Too many levels of symbolic links"),
		      "%s", err);
	f = tu_join(elsewhere, "t");
	ck_assert_msg(access(f, F_OK) != 0, "init followed .ioriot: %s", err);
	free(f);
	free(out);
	free(err);
	free(dot);
	free(rule);
	free(text);
	free(edited);
	free(replay);
	free(elsewhere);
	free(link);
	free(other);
	free(mnt);
	free(dir);
}
END_TEST

/* generate --map writes test_mount=; -i and -r then need no --map. */
START_TEST(test_map_generate)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "new");
	char *capture = tu_join(tu_datadir(), "generate/mntonly.capture");
	char *replay = tu_join(dir, "m.replay"), *json = tu_join(dir, "s.json");
	char *out, *err, *rule, *text, *want, *f;
	json_t *stats;
	int rc;

	ck_assert_msg(tu_mount_tmpfs(mnt), "no tmpfs");
	ck_assert(asprintf(&rule, "/mnt/1=%s", mnt) > 0);
	const char *gen[] = { "-c", capture, "-r", replay, "-n", "t", "-u",
			      "nobody", "-q", "--map", rule, NULL };
	rc = tu_run_args(gen, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	text = tu_read(replay, NULL);
	ck_assert(asprintf(&want, "#|sandbox=/mnt/1/.ioriot/t|mount=/mnt/1|"
			   "fstype=xfs|test_mount=%s|\n", mnt) > 0);
	ck_assert_msg(strstr(text, want), "%s", text);
	free(want);
	free(text);
	free(out);
	free(err);
	const char *rep[] = { "-R", replay, "-D", "-q", "-S", json, NULL };
	rc = tu_run_args(rep, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	f = tu_join(mnt, ".ioriot/t/sub/x");
	ck_assert_int_eq(access(f, F_OK), 0);
	free(f);
	stats = load_stats(json);
	ck_assert_int_eq(differ_of(stats), 0);
	json_decref(stats);
	free(out);
	free(err);

	/* TEST must be a mount of this host; CAPTURED one of the log. */
	free(rule);
	ck_assert(asprintf(&rule, "/mnt/1=%s", dir) > 0);
	const char *notmnt[] = { "-c", capture, "-r", replay, "-n", "t", "-u",
				 "nobody", "-q", "--map", rule, NULL };
	rc = tu_run_args(notmnt, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "is no mountpoint of this host"), "%s", err);
	free(out);
	free(err);
	free(rule);
	ck_assert(asprintf(&rule, "/mnt/2=%s", mnt) > 0);
	const char *other[] = { "-c", capture, "-r", replay, "-n", "t", "-u",
				"nobody", "-q", "--map", rule, NULL };
	rc = tu_run_args(other, &out, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "has no sandbox on /mnt/2"), "%s", err);
	free(out);
	free(err);
	free(rule);
	free(capture);
	free(replay);
	free(json);
	free(mnt);
	free(dir);
}
END_TEST

/* --copies 4: four trees, four processes, each copy's dependencies its
 * own; the stats show the sum and each copy; --stagger spaces the starts. */
START_TEST(test_copies)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "m");
	char *json = tu_join(dir, "s.json"), *replay, *out, *err;
	const json_t *copies;
	json_t *stats;
	int rc;

	ck_assert_msg(tu_mount_tmpfs(mnt), "no tmpfs");
	replay = workload(dir, mnt);
	const char *args[] = { "-R", replay, "-D", "-u", "nobody",
			       "--copies", "4", "--stagger", "0.1", "-S", json,
			       NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "Sandboxes: 4\n") &&
		      strstr(out, "Files: 4\n") &&
		      strstr(out, "Bytes written: 32768\n") &&
		      strstr(out, "\tPerformed ioops: 40\n") &&
		      strstr(out, "\tTimelines: 12\n") &&
		      strstr(out, "Copies (--copies; each in sandboxes t.K"),
		      "%s", out);
	/* What the copies take is said before they start. */
	ck_assert_msg(strstr(err, "ioriot: --copies 4: about ") &&
		      strstr(err, " MiB of memory (4 replay processes"), "%s",
		      err);
	for (int k = 1; k <= 4; k++) {
		char *f;

		ck_assert(asprintf(&f, "%s/.ioriot/t.%d/d/f", mnt, k) > 0);
		ck_assert_msg(is_file(f, 4096), "%s", f);
		free(f);
	}
	stats = load_stats(json);
	ck_assert_int_eq(member_int(stats, "performed_ioops"), 40);
	ck_assert_int_eq(differ_of(stats), 0);
	copies = json_object_get(stats, "copies");
	ck_assert_uint_eq(jv_count(copies), 4);
	for (size_t k = 0; k < 4; k++) {
		const json_t *c = jv_at(copies, k);
		int64_t off = member_int(c, "start_offset_ns");

		ck_assert_int_eq(member_int(c, "copy"), (int64_t)k + 1);
		ck_assert_int_eq(member_int(c, "performed_ioops"), 10);
		ck_assert_int_eq(member_int(c, "timelines"), 3);
		ck_assert_int_eq(member_int(c, "differ"), 0);
		/* Copy k+1 starts k * 100 ms after the first (each copy
		 * notes its start once it woke: the first may wake late). */
		ck_assert_msg(off > (int64_t)k * 100000000 - 10000000 &&
			      off < (int64_t)k * 100000000 + 50000000,
			      "copy %zu at %lld ns", k + 1, (long long)off);
	}
	/* The span from the first copy's start, which may wake late by as
	 * much as the offsets above allow. */
	ck_assert_int_ge(member_int(stats, "total_time_ns"), 290000000);
	json_decref(stats);
	free(out);
	free(err);
	free(replay);
	free(json);
	free(mnt);
	free(dir);
}
END_TEST

/* --copies with --csv: the time series is the copies' sum. */
START_TEST(test_copies_series)
{
	char *dir = tu_scratch(), *mnt = tu_join(dir, "m");
	char *csv = tu_join(dir, "s.csv"), *replay, *out, *err, *text, *line;
	double ops = 0;
	int rc, rows = 0;

	ck_assert_msg(tu_mount_tmpfs(mnt), "no tmpfs");
	replay = workload(dir, mnt);
	const char *args[] = { "-R", replay, "-D", "-q", "-u", "nobody",
			       "--copies", "3", "--csv", csv, "--interval",
			       "0.1", "-s", "0.00002", NULL };	/* 0.4 s */
	rc = tu_run_args(args, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	text = tu_read(csv, NULL);
	ck_assert_ptr_nonnull(text);
	/* time_s,interval_s,ops_per_s,read_mb_per_s,write_mb_per_s,p50_us:
	 * ops are rate times interval; a row with operations has their
	 * latency, from the copies' histograms. */
	for (line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		double t, interval, rate, rd, wr, p50 = 0;

		ck_assert_int_ge(sscanf(line + 1, "%lf,%lf,%lf,%lf,%lf,%lf", &t,
					&interval, &rate, &rd, &wr, &p50), 3);
		ck_assert_msg(rate == 0 || p50 > 0, "no latency: %s", line + 1);
		ops += rate * interval;
		rows++;
	}
	ck_assert_int_ge(rows, 3);
	ck_assert_msg(ops > 29.5 && ops < 30.5, "%d rows, %.3f ops: %s", rows,
		      ops, text);
	free(text);
	free(out);
	free(err);
	free(replay);
	free(csv);
	free(mnt);
	free(dir);
}
END_TEST

/* Options that do not go together, and values out of range. */
START_TEST(test_usage)
{
	static const char *const cases[][8] = {
		{ "-R", "x", "--copies", "0", NULL },
		{ "-R", "x", "--copies", "1025", NULL },
		{ "-R", "x", "--stagger", "1", NULL },
		{ "-R", "x", "--copies", "2", "--stagger", "-1", NULL },
		{ "-c", "x", "--map", "/a=/b", NULL },
		{ "-c", "x", "-r", "y", "--copies", "2", NULL },
		{ "-R", "x", "--map", "/a", NULL },
		{ "-R", "x", "--map", "/a=/b", "--map", "/a=/c", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = tu_run_args(cases[i], &out, &err);

		ck_assert_msg(rc == 2 && strstr(err, "ioriot: "),
			      "case %zu: exit %d: %s", i, rc, err);
		free(out);
		free(err);
	}
}
END_TEST

Suite *sandmap_suite(void)
{
	Suite *s = suite_create("sandmap");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_host_roots);
	tcase_add_test(tc, test_header_errors);
	tcase_add_test(tc, test_collisions);
	tcase_add_test(tc, test_map_replay);
	tcase_add_test(tc, test_map_generate);
	tcase_add_test(tc, test_map_links_refused);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_copies_series);
	tcase_add_test(tc, test_usage);
	suite_add_tcase(s, tc);
	return s;
}
