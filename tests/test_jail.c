/*
 * Tests of the replay's jail (src/replay/jail.c): from a thread confined
 * to two sandboxes, operations through absolute, relative and directory
 * symlinks, "..", sandbox roots and other mounts reach nothing outside
 * (a sentinel and a directory next to the mountpoints stay as they were,
 * checked from the unconfined test thread); relative symlinks work inside;
 * bad roots are refused before anything changes; a user that is not root
 * confines itself in a user namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/replay/jail.h"
#include "../src/replay/exec.h"
#include "testutil.h"

#define NOBODY 65534
#define SENTINEL "keep me"

static char *scratch, *sb[2], *sentinel;

/* <scratch>/m@i/.ioriot/t on a tmpfs of its own, owned by @owner. */
static char *make_sandbox(int i, uid_t owner)
{
	char name[8], *m, *dot, *sandbox;

	snprintf(name, sizeof(name), "m%d", i);
	m = tu_join(scratch, name);
	dot = tu_join(m, ".ioriot");
	sandbox = tu_join(dot, "t");
	ck_assert_msg(tu_mount_tmpfs(m), "sandboxes must be on a mountpoint");
	ck_assert_int_eq(mkdir(dot, 0755), 0);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);
	ck_assert_int_eq(chown(sandbox, owner, owner), 0);
	free(m);
	free(dot);
	return sandbox;
}

static void setup(void)
{
	char *dir = tu_scratch();

	scratch = realpath(dir, NULL);
	free(dir);
	ck_assert_ptr_nonnull(scratch);
	sb[0] = make_sandbox(0, 0);
	sb[1] = make_sandbox(1, 0);
	sentinel = tu_write_str(scratch, "sentinel", SENTINEL);
}

static void teardown(void)
{
	free(scratch);
	free(sb[0]);
	free(sb[1]);
	free(sentinel);
}

/* An operation of a script: paths are "S:rel" for sandbox S's @rel, or
 * taken as they are; results are compared in the test thread. */
struct step {
	enum sys_id sys;
	const char *path, *path2, *target;
	unsigned have;
	int64_t flags, mode, count;
	int64_t want;
};

struct script {
	const struct step *steps;
	size_t n;
	uid_t owner;
	size_t nsb;		/* sandboxes: sb[0] or both */
	int rc;			/* jail_enter()'s */
	char err[512];
	int64_t got[64];
};

static const char *expand(const char *p, char *buf)
{
	if (p[0] >= '0' && p[0] <= '1' && p[1] == ':') {
		snprintf(buf, PATH_MAX, "%s%s%s", sb[p[0] - '0'],
			 p[2] ? "/" : "", p + 2);
		return buf;
	}
	return p;
}

/* The confined thread: enter the jail, run the script. */
static void *confined(void *arg)
{
	struct script *sc = arg;
	char b1[PATH_MAX], b2[PATH_MAX], b3[PATH_MAX], err[256];
	struct exec_ctx x;

	if (exec_init(&x, sc->owner, sc->owner, err, sizeof(err))) {
		sc->rc = -ENOMEM;
		return NULL;
	}
	sc->rc = jail_enter(sb, sb, sc->nsb, sc->owner, sc->err,
			    sizeof(sc->err));
	for (size_t i = 0; !sc->rc && i < sc->n; i++) {
		const struct step *s = &sc->steps[i];
		struct rlog_op op = {
			.id = i + 1, .sys = s->sys, .have = s->have | RL_PATH,
			.flags = s->flags, .mode = s->mode, .count = s->count,
			.path = expand(s->path, b1),
		};
		if (s->path2) {
			op.path2 = expand(s->path2, b2);
			op.have |= RL_PATH2;
		}
		if (s->target) {
			op.target = expand(s->target, b3);
			op.have |= RL_TARGET;
		}
		if (exec_op(&x, &op, &sc->got[i]))
			sc->got[i] = INT64_MIN;
	}
	exec_destroy(&x);
	return NULL;
}

static void run_confined(struct script *sc)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, confined, sc), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_msg(sc->rc == 0, "%s", sc->err);
	for (size_t i = 0; i < sc->n; i++)
		ck_assert_msg(sc->got[i] == sc->steps[i].want,
			      "step %zu (%s %s): got %lld, want %lld", i,
			      sys_info(sc->steps[i].sys)->name,
			      sc->steps[i].path, (long long)sc->got[i],
			      (long long)sc->steps[i].want);
}

static void check_outside(void)
{
	char *text = tu_read(sentinel, NULL), *x = tu_join(scratch, "x");
	struct stat st;

	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, SENTINEL);
	ck_assert_int_eq(stat(sentinel, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_int_lt(lstat(x, &st), 0);
	free(text);
	free(x);
}

#define F RL_FLAGS
#define M RL_MODE
#define C RL_COUNT
#define TRUNC (O_WRONLY | O_CREAT | O_TRUNC)

START_TEST(test_escapes)
{
	char *abs_link = tu_join(sb[0], "abs"), *dir_link = tu_join(sb[0], "dir");
	char *up_link = tu_join(sb[0], "up"), *dotdot;

	ck_assert_int_eq(symlink(sentinel, abs_link), 0);
	ck_assert_int_eq(symlink(scratch, dir_link), 0);
	ck_assert_int_eq(symlink("../../../sentinel", up_link), 0);
	ck_assert(asprintf(&dotdot, "%s/../../../sentinel", sb[0]) > 0);
	const struct step steps[] = {
		/* Outside paths name nothing in the jail: <scratch> there
		 * is a directory of its read-only skeleton. */
		{ SYS_OPENAT, sentinel, .have = F, .flags = TRUNC,
		  .want = -EROFS },
		{ SYS_TRUNCATE, sentinel, .have = C, .want = -ENOENT },
		{ SYS_OPENAT, dotdot, .have = F, .flags = TRUNC,
		  .want = -EROFS },
		/* Links are followed, to where the outside is not. */
		{ SYS_OPENAT, "0:abs", .have = F, .flags = TRUNC,
		  .want = -EROFS },
		{ SYS_OPENAT, "0:up", .have = F, .flags = O_RDONLY,
		  .want = -ENOENT },
		{ SYS_CHMOD, "0:up", .have = M, .mode = 0777, .want = -ENOENT },
		{ SYS_UNLINK, "0:dir/sentinel", .want = -EROFS },
		{ SYS_RENAME, "0:dir/sentinel", "0:z", .want = -EXDEV },
		{ SYS_MKDIR, "0:dir/x", .have = M, .mode = 0755,
		  .want = -EROFS },
		{ SYS_RENAME, "0:abs", "0:dir/x", .want = -EXDEV },
		/* Sandbox roots are mountpoints; mounts do not mix. */
		{ SYS_RMDIR, "0:", .want = -EROFS },
		{ SYS_RENAME, "0:", "0:y", .want = -EXDEV },
		{ SYS_OPENAT, "0:", .have = F, .flags = TRUNC, .want = -EISDIR },
		{ SYS_LINK, "0:abs", "1:abs", .want = -EXDEV },
		{ SYS_RENAME, "0:abs", "1:abs", .want = -EXDEV },
		{ SYS_MKDIR, "0:", .have = M, .mode = 0755, .want = -EEXIST },
	};
	struct script sc = { .steps = steps, .n = sizeof(steps) /
			      sizeof(steps[0]), .nsb = 2 };

	run_confined(&sc);
	check_outside();
	free(abs_link);
	free(dir_link);
	free(up_link);
	free(dotdot);
}
END_TEST

/* Inside, links work as they did on the captured host. */
START_TEST(test_links_inside)
{
	const struct step steps[] = {
		{ SYS_MKDIR, "0:d", .have = M, .mode = 0755, .want = 0 },
		{ SYS_OPENAT, "0:d/f", .have = F, .flags = TRUNC, .want = 0 },
		{ SYS_SYMLINK, "0:rel", .target = "d/f", .want = 0 },
		{ SYS_SYMLINK, "0:abs", .target = "0:d", .want = 0 },
		{ SYS_SYMLINK, "0:d/up", .target = "../d/f", .want = 0 },
		{ SYS_TRUNCATE, "0:rel", .have = C, .count = 100, .want = 0 },
		{ SYS_STAT, "0:abs/f", .want = 0 },
		{ SYS_STAT, "0:d/up", .want = 0 },
		{ SYS_READLINK, "0:rel", .have = C, .count = 64, .want = 3 },
		{ SYS_READLINK, "0:", .have = C, .count = 64, .want = -EINVAL },
		{ SYS_LSTAT, "0:d/up", .want = 0 },
	};
	struct script sc = { .steps = steps, .n = sizeof(steps) /
			      sizeof(steps[0]), .nsb = 2 };
	char *f = tu_join(sb[0], "d/f"), *rel = tu_join(sb[0], "rel");
	char target[64];
	struct stat st;
	ssize_t n;

	run_confined(&sc);
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_size, 100);
	n = readlink(rel, target, sizeof(target));
	ck_assert_int_eq(n, 3);
	ck_assert(!memcmp(target, "d/f", 3));
	check_outside();
	free(f);
	free(rel);
}
END_TEST

/* The replay's chown gives files to the test user; set-ID bits go. */
START_TEST(test_owner_and_modes)
{
	const struct step steps[] = {
		{ SYS_OPENAT, "0:f", .have = F | M, .flags = TRUNC,
		  .mode = 04755, .want = 0 },
		{ SYS_CHOWN, "0:f", .have = RL_UID | RL_GID, .want = 0 },
		{ SYS_CHMOD, "0:f", .have = M, .mode = 06711, .want = 0 },
		{ SYS_MKDIR, "0:d", .have = M, .mode = 02775, .want = 0 },
	};
	struct script sc = { .steps = steps, .n = sizeof(steps) /
			      sizeof(steps[0]), .nsb = 2 };
	char *f = tu_join(sb[0], "f"), *d = tu_join(sb[0], "d");
	struct stat st;

	run_confined(&sc);
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0711);
	ck_assert_int_eq(st.st_uid, 0);
	ck_assert_int_eq(stat(d, &st), 0);
	ck_assert_int_eq(st.st_mode & 07000, 0);
	free(f);
	free(d);
}
END_TEST

START_TEST(test_bad_roots)
{
	char err[512] = "";
	char *plain = tu_join(scratch, "plain"), *dot, *notmnt, *missing;
	char *bad[] = { "relative/.ioriot/t" }, *nested[2];

	ck_assert_int_eq(jail_enter(bad, bad, 1, 0, err, sizeof(err)), -EINVAL);
	/* A directory that is not a mountpoint holds no sandbox. */
	ck_assert_int_eq(mkdir(plain, 0755), 0);
	dot = tu_join(plain, ".ioriot");
	ck_assert_int_eq(mkdir(dot, 0755), 0);
	notmnt = tu_join(dot, "t");
	ck_assert_int_eq(mkdir(notmnt, 0755), 0);
	missing = tu_join(dot, "missing");
	nested[0] = sb[0];
	ck_assert(asprintf(&nested[1], "%s/m/.ioriot/t", sb[0]) > 0);
	/* Each in a thread of its own: a failed jail_enter() may leave its
	 * thread half confined. */
	struct { char **roots; size_t n; int want; const char *msg; } cases[] = {
		{ &notmnt, 1, -EINVAL, "not a mountpoint" },
		{ &missing, 1, -EINVAL, "not a mountpoint" },
		{ nested, 2, -EINVAL, "lies in sandbox" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid_t pid = fork();
		int status;

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int rc = jail_enter(cases[i].roots, cases[i].roots,
					    cases[i].n, 0, err,
					    sizeof(err));
			if (rc != cases[i].want || !strstr(err, cases[i].msg)) {
				fprintf(stderr, "case %zu: %d %s\n", i, rc, err);
				_exit(1);
			}
			_exit(0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
			      "case %zu", i);
	}
	check_outside();
	free(plain);
	free(dot);
	free(notmnt);
	free(missing);
	free(nested[1]);
}
END_TEST

#define SKIP_STATUS 77

/* The threads of this process, from /proc/self/status. */
static int threads(void)
{
	char line[128];
	int n = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* A user that is not root confines itself in a user namespace of its
 * own, and keeps no capability there. */
START_TEST(test_unprivileged)
{
	const struct step steps[] = {
		{ SYS_OPENAT, "0:f", .have = F, .flags = TRUNC, .want = 0 },
		{ SYS_OPENAT, sentinel, .have = F, .flags = TRUNC,
		  .want = -EROFS },
		{ SYS_CHOWN, "0:f", .have = RL_UID | RL_GID, .want = 0 },
		{ SYS_OPENAT, "0:up", .have = F, .flags = TRUNC,
		  .want = -EROFS },
	};
	char *f = tu_join(sb[0], "f"), *up = tu_join(sb[0], "up");
	struct stat st;
	pid_t pid;
	int status;

	ck_assert_int_eq(chown(sb[0], NOBODY, NOBODY), 0);
	ck_assert_int_eq(symlink("../../../sentinel", up), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct script sc = { .steps = steps, .n = sizeof(steps) /
				     sizeof(steps[0]), .owner = NOBODY,
				     .nsb = 1 };
		char err[512];

		/* As a user's own process: dumpable, its /proc files its
		 * own (a setuid from root made it neither). */
		if (setgid(NOBODY) || setuid(NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(2);
		int rc = jail_prepare(err, sizeof(err));

		/* A user namespace needs a process of one thread: not so
		 * under ThreadSanitizer, whose runtime has a thread. */
		if (rc == -EINVAL && threads() > 1)
			_exit(SKIP_STATUS);
		if (rc) {
			fprintf(stderr, "jail_prepare: %s\n", err);
			_exit(3);
		}
		run_confined(&sc);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_STATUS) {
		printf("jail: test_unprivileged skipped: a user namespace "
		       "needs a process of one thread (ThreadSanitizer)\n");
		goto out;
	}
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "status %d", status);
	ck_assert_int_eq(stat(f, &st), 0);
	ck_assert_int_eq(st.st_uid, NOBODY);
	check_outside();
out:
	free(f);
	free(up);
}
END_TEST

Suite *jail_suite(void)
{
	Suite *s = suite_create("jail");
	TCase *tc = tcase_create("confined");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_escapes);
	tcase_add_test(tc, test_links_inside);
	tcase_add_test(tc, test_owner_and_modes);
	tcase_add_test(tc, test_bad_roots);
	tcase_add_test(tc, test_unprivileged);
	suite_add_tcase(s, tc);
	return s;
}
