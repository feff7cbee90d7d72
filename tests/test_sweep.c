/*
 * Tests of scripts/ioriot-sweep and the ioriot options it stands on, on
 * two loop-mounted images in a temporary directory: --devices lists the
 * loop devices and nothing else, a replay's statistics list only them,
 * the sweep writes one statistics file per value and gives the loop
 * devices their schedulers back, also when SIGINT, SIGTERM or SIGPIPE
 * stops it in the middle, never touches the device of /, and refuses a
 * replay with a sandbox on /; --cgroup puts the replay's I/O into a v1
 * blkio cgroup and records it, --iops-limit makes and removes one.  Root
 * only; nothing here asserts timing.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/diskstats.h"
#include "ioriot/json.h"
#include "testutil.h"

#define NMOUNTS 2
#define WAIT_CHANGE_MS 60000	/* a generous bound, not a timing check */

static char *root;			/* scratch: images, mounts, outputs */
static char *mnt[NMOUNTS];		/* the mounted images, NULL if not */
static char dev[NMOUNTS][32];		/* their devices */

static void mounts_setup(void)
{
	static const char *const mkfs[] = { "mkfs.ext4", "-q", "-F", NULL };

	if (geteuid() != 0)
		return;
	root = tu_mkdtemp();
	for (size_t i = 0; i < NMOUNTS; i++) {
		char name[8], *dir, *real;

		snprintf(name, sizeof(name), "m%zu", i);
		dir = tu_join(root, name);
		if (!tu_mount_loop(dir, 16, 512, mkfs)) {
			free(dir);
			continue;
		}
		real = realpath(dir, NULL);
		free(dir);
		mnt[i] = real;
		if (!real || diskstats_device_of(real, dev[i], sizeof(dev[i])))
			dev[i][0] = '\0';
	}
}

static void mounts_teardown(void)
{
	for (size_t i = 0; i < NMOUNTS; i++) {
		if (mnt[i] && umount2(mnt[i], 0) < 0 &&
		    umount2(mnt[i], MNT_DETACH) < 0)
			printf("sweep: cannot unmount %s: %s\n", mnt[i],
			       strerror(errno));
		free(mnt[i]);
		mnt[i] = NULL;
	}
	if (root)
		tu_rmtree(root);
	free(root);
	root = NULL;
}

/* True, or false after saying why the test is skipped. */
static bool ready(void)
{
	if (geteuid() != 0) {
		printf("sweep: skipped, not root\n");
		return false;
	}
	for (size_t i = 0; i < NMOUNTS; i++)
		if (!mnt[i] || !dev[i][0]) {
			printf("sweep: skipped, no loop mounts\n");
			return false;
		}
	return true;
}

/*
 * A replay file @name in the scratch directory with a sandbox on each
 * mount: a 4 KiB write and an fdatasync in each; with @slow, also ten
 * mkdirs 0.1 s apart, so that `-s 1` makes a run last about a second.
 */
static char *replay_file(const char *name, bool slow)
{
	char *text = NULL, *path;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned id = 0;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=nobody|\n");
	for (size_t i = 0; i < NMOUNTS; i++)
		fprintf(f, "#|sandbox=%s/.ioriot/t|\n", mnt[i]);
	fprintf(f, "#INIT\n#OPS\n");
	for (size_t i = 0; i < NMOUNTS; i++) {
		unsigned tid = (unsigned)i + 1;

		fprintf(f, "%u 1:%u 0 10 - openat 3 vfd=%u path=%s/.ioriot/t/f "
			"flags=0x41 mode=0644\n", ++id, tid, tid, mnt[i]);
		fprintf(f, "%u 1:%u 0 10 - write 4096 fd=%u count=4096\n",
			++id, tid, tid);
		fprintf(f, "%u 1:%u 0 10 - fdatasync 0 fd=%u\n", ++id, tid,
			tid);
		fprintf(f, "%u 1:%u 0 10 - close 0 fd=%u\n", ++id, tid, tid);
	}
	for (unsigned k = 1; slow && k <= 10; k++)
		fprintf(f, "%u 1:9 %u00000000 10 - mkdirat 0 "
			"path=%s/.ioriot/t/d%u mode=0755\n", ++id, k, mnt[0], k);
	fprintf(f, "#END|ops=%u|\n", id);
	ck_assert_int_eq(fclose(f), 0);
	path = tu_write_str(root, name, text);
	free(text);
	return path;
}

/* The word in [brackets] of scheduler file @path, malloc'd. */
static char *scheduler_at(const char *path)
{
	char *text = tu_read(path, NULL), *open, *close;

	ck_assert_msg(text, "cannot read %s", path);
	open = strchr(text, '[');
	close = open ? strchr(open, ']') : NULL;
	ck_assert_msg(close, "%s: no [scheduler] in '%s'", path, text);
	*close = '\0';
	memmove(text, open + 1, strlen(open + 1) + 1);
	return text;
}

/* The scheduler file of the queue of the device that holds @path. */
static char *scheduler_file(const char *path)
{
	char *const roots[] = { (char *)path };
	struct disk_set set;
	char *file;

	ck_assert_int_eq(diskstats_devices(&set, roots, 1), 0);
	ck_assert_uint_ge(set.n, 1);
	file = tu_join(set.dev[0].queue, "queue/scheduler");
	diskstats_devices_free(&set);
	return file;
}

/* The schedulers: [0] of /, then those of the loop devices. */
struct scheds {
	char *file[NMOUNTS + 1];
	char *value[NMOUNTS + 1];
};

static void scheds_read(struct scheds *s)
{
	for (size_t i = 0; i <= NMOUNTS; i++) {
		if (!s->file[i])
			s->file[i] = scheduler_file(i ? mnt[i - 1] : "/");
		s->value[i] = scheduler_at(s->file[i]);
	}
}

/* Every scheduler of @now as in @then, which is freed. */
static void scheds_same(struct scheds *then, const char *when)
{
	for (size_t i = 0; i <= NMOUNTS; i++) {
		char *now = scheduler_at(then->file[i]);

		ck_assert_msg(!strcmp(now, then->value[i]), "%s: %s is %s, "
			      "was %s", when, then->file[i], now,
			      then->value[i]);
		free(now);
		free(then->value[i]);
		free(then->file[i]);
		then->value[i] = then->file[i] = NULL;
	}
}

/*
 * Two schedulers other than @old that scheduler file @path offers, "A,B",
 * into @out; or false after saying why the test is skipped.  Kernels
 * differ in what they build: this machine's offers no bfq.
 */
static bool two_others(const char *path, const char *old, char *out,
		       size_t len)
{
	char *text = tu_read(path, NULL), *save = NULL;
	const char *pick[2] = { NULL, NULL };
	int n = 0;

	ck_assert_msg(text, "cannot read %s", path);
	for (char *w = strtok_r(text, " []\n", &save); w && n < 2;
	     w = strtok_r(NULL, " []\n", &save))
		if (strcmp(w, old))
			pick[n++] = w;
	if (n == 2)
		snprintf(out, len, "%s,%s", pick[0], pick[1]);
	else
		printf("sweep: skipped, %s offers no two schedulers but %s\n",
		       path, old);
	free(text);
	return n == 2;
}

/*
 * Start the sweep with @args (NULL-terminated), its stdout into a pipe
 * (*@out, the read end) or /dev/null (@out NULL), its stderr to /dev/null,
 * every signal at its default and unblocked.  Its pid.
 */
static pid_t sweep_start(const char *const *args, int *out)
{
	char *script = tu_join(tu_datadir(), "../../scripts/ioriot-sweep");
	const char *argv[TU_MAX_ARGS + 3] = { "sh", script };
	int p[2] = { -1, -1 };
	size_t n = 2;
	pid_t pid;

	while (*args && n < TU_MAX_ARGS + 2)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (out)
		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		dup2(out ? p[1] : null, 1);	/* without O_CLOEXEC */
		dup2(null, 2);
		setenv("IORIOT_BIN", tu_bin(), 1);
		execvp("sh", (char *const *)argv);
		_exit(127);
	}
	if (out) {
		close(p[1]);
		*out = p[0];
	}
	free(script);
	return pid;
}

/* The exit status of @pid (128+N after signal N). */
static int wait_status(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait until scheduler file @file holds another scheduler than @old (the
 * sweep is in the middle); false if it never did. */
static bool wait_changed(const char *file, const char *old)
{
	for (long ms = 0; ms < WAIT_CHANGE_MS; ms += 10) {
		char *now = scheduler_at(file);
		bool changed = strcmp(now, old) != 0;

		free(now);
		if (changed)
			return true;
		sleep_ms(10);
	}
	return false;
}

/* --devices lists the two loop devices, each for its sandbox, neither
 * the device of /. */
START_TEST(test_devices)
{
	char *replay, *out = NULL;

	if (!ready())
		return;
	replay = replay_file("dev.replay", false);
	{
		const char *args[] = { "--devices", replay, NULL };

		ck_assert_int_eq(tu_run_args(args, &out, NULL), 0);
	}
	for (size_t i = 0; i < NMOUNTS; i++) {
		char line[1024];

		snprintf(line, sizeof(line), "%s/.ioriot/t %s %s ", mnt[i],
			 mnt[i], dev[i]);
		ck_assert_msg(strstr(out, line), "no '%s' in:\n%s", line, out);
	}
	ck_assert_msg(!strstr(out, " root "), "%s", out);
	{
		size_t lines = 0;

		for (const char *p = out; *p; p++)
			lines += *p == '\n';
		ck_assert_msg(lines == NMOUNTS, "%s", out);
	}
	free(out);
	free(replay);
}
END_TEST

/* A replay on the two loop devices lists those two in its statistics,
 * each with its sandbox, and nothing else. */
START_TEST(test_stats_devices)
{
	char *replay, *stats;
	struct jv_error je;
	const json_t *devs;
	json_t *doc;

	if (!ready())
		return;
	replay = replay_file("stats.replay", false);
	stats = tu_join(root, "stats.json");
	{
		const char *args[] = { "-R", replay, "-S", stats, "-q", NULL };

		ck_assert_int_eq(tu_run_args(args, NULL, NULL), 0);
	}
	doc = jv_load(stats, &je);
	ck_assert_msg(doc, "%s: %s", stats, je.msg);
	devs = json_object_get(doc, "block_devices");
	ck_assert_uint_eq(jv_count(devs), NMOUNTS);
	for (size_t i = 0; i < NMOUNTS; i++) {
		const json_t *d = jv_at(devs, i);
		const json_t *sb = json_object_get(d, "sandboxes");
		char sandbox[1024];

		snprintf(sandbox, sizeof(sandbox), "%s/.ioriot/t", mnt[i]);
		ck_assert_str_eq(jv_member_string(d, "device"), dev[i]);
		ck_assert_str_eq(jv_member_string(d, "role"), "mount");
		ck_assert_uint_eq(jv_count(sb), 1);
		ck_assert_str_eq(json_string_value(jv_at(sb, 0)), sandbox);
	}
	json_decref(doc);
	free(stats);
	free(replay);
}
END_TEST

/* Two schedulers, two runs each: a statistics file per value, the
 * comparison and the report; every scheduler as before. */
START_TEST(test_sweep)
{
	char *replay, *outdir, *out = NULL, *report;
	struct scheds s = { 0 };
	char list[64];
	int fd;
	pid_t pid;

	if (!ready())
		return;
	scheds_read(&s);
	if (!two_others(s.file[1], s.value[1], list, sizeof(list)))
		return;
	replay = replay_file("sweep.replay", false);
	outdir = tu_join(root, "sweep");
	{
		const char *args[] = { "--scheduler", list, "--runs", "2",
				       replay, outdir, "--", "-q", NULL };

		pid = sweep_start(args, &fd);
	}
	{
		FILE *f = fdopen(fd, "r");
		size_t cap = 0;

		ck_assert_ptr_nonnull(f);
		ck_assert_int_gt(getdelim(&out, &cap, '\0', f), 0);
		fclose(f);
	}
	ck_assert_int_eq(wait_status(pid), 0);
	scheds_same(&s, "after the sweep");
	for (char *v = strtok(list, ","); v; v = strtok(NULL, ",")) {
		char name[64], alt[64], *path, *path2;

		/* With --repeat one file per value, else one per run. */
		snprintf(name, sizeof(name), "%s.json", v);
		snprintf(alt, sizeof(alt), "%s.2.json", v);
		path = tu_join(outdir, name);
		path2 = tu_join(outdir, alt);
		ck_assert_msg(access(path, F_OK) == 0 ||
			      access(path2, F_OK) == 0, "no %s", path);
		ck_assert_msg(strstr(out, v), "%s not compared:\n%s", v, out);
		free(path);
		free(path2);
	}
	ck_assert_msg(strstr(out, "Replay runs:"), "%s", out);
	report = tu_join(outdir, "report.html");
	ck_assert_int_eq(access(report, F_OK), 0);
	free(report);
	free(out);
	free(outdir);
	free(replay);
}
END_TEST

/*
 * Stopped in the middle by signal @sig (SIGPIPE: also by closing the
 * pipe its output goes to, as `| head -1` does), the sweep gives every
 * scheduler back and fails.
 */
static void stopped_by(int sig, bool close_pipe)
{
	char *replay, *outdir, name[32], list[64];
	struct scheds s = { 0 };
	int fd, status;
	pid_t pid;

	scheds_read(&s);
	if (!two_others(s.file[1], s.value[1], list, sizeof(list)))
		return;
	replay = replay_file("slow.replay", true);
	snprintf(name, sizeof(name), "stop%d%s", sig, close_pipe ? "p" : "");
	outdir = tu_join(root, name);
	{
		const char *args[] = { "--scheduler", list,
				       "--runs", "2", replay, outdir, "--",
				       "-s", "1", NULL };

		pid = sweep_start(args, &fd);
	}
	ck_assert_msg(wait_changed(s.file[1], s.value[1]),
		      "the sweep never set a scheduler");
	if (close_pipe) {
		char c;

		/* Its first line, then no reader: as `| head -1`. */
		while (read(fd, &c, 1) == 1 && c != '\n')
			;
		close(fd);
		fd = -1;
	} else {
		kill(pid, sig);
	}
	status = wait_status(pid);
	if (fd >= 0)
		close(fd);
	if (close_pipe)
		ck_assert_int_ne(status, 0);
	else
		ck_assert_int_eq(status, 128 + sig);
	scheds_same(&s, strsignal(sig));
	free(outdir);
	free(replay);
}

START_TEST(test_sigint)
{
	if (ready())
		stopped_by(SIGINT, false);
}
END_TEST

START_TEST(test_sigterm)
{
	if (ready())
		stopped_by(SIGTERM, false);
}
END_TEST

START_TEST(test_sigpipe)
{
	if (!ready())
		return;
	stopped_by(SIGPIPE, false);
	stopped_by(SIGPIPE, true);
}
END_TEST

/* A sandbox on / (a capture of /): refused before anything changes. */
START_TEST(test_root_refused)
{
	char *replay, *outdir, list[64];
	struct scheds s = { 0 };
	pid_t pid;

	if (!ready())
		return;
	scheds_read(&s);
	/* What the loop devices offer: the refusal comes first. */
	if (!two_others(s.file[1], s.value[0], list, sizeof(list)))
		return;
	replay = tu_write_str(root, "root.replay",
			      "#|replay_version=1|name=t|user=nobody|\n"
			      "#|sandbox=/.ioriot/t|\n#INIT\n#OPS\n"
			      "#END|ops=0|\n");
	outdir = tu_join(root, "rootsweep");
	{
		const char *args[] = { "--scheduler", list,
				       "--runs", "1", replay, outdir, NULL };

		pid = sweep_start(args, NULL);
	}
	ck_assert_int_eq(wait_status(pid), 1);
	ck_assert_int_ne(access(outdir, F_OK), 0);
	scheds_same(&s, "after the refusal");
	free(outdir);
	free(replay);
}
END_TEST

/* The v1 blkio hierarchy's root, or NULL (then the test is skipped). */
static const char *blkio_root(void)
{
	static const char path[] = "/sys/fs/cgroup/blkio";
	char *tasks = tu_join(path, "blkio.throttle.io_serviced");
	bool there = access(tasks, F_OK) == 0;

	free(tasks);
	if (!there)
		printf("sweep: cgroup test skipped, no v1 blkio at %s\n", path);
	return there ? path : NULL;
}

/* The count of line "@devno @what N" of @text, or -1. */
static long long counted(const char *text, const char *devno,
			 const char *what)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "%s %s ", devno, what);
	for (p = text; (p = strstr(p, key)); p++)
		if (p == text || p[-1] == '\n')
			return atoll(p + strlen(key));
	return -1;
}

/*
 * --cgroup with a v1 blkio cgroup: the replay's I/O is counted in it (its
 * synced writes on the loop device), the statistics record the cgroup
 * and its limit; a directory that is not a cgroup is refused before init.
 */
START_TEST(test_cgroup)
{
	const char *base;
	char *replay, *stats, *cg, *file, *text, *out = NULL, *err = NULL;
	char devno[32], limit[64], sandbox[1024];
	const json_t *limits;
	struct jv_error je;
	struct stat st;
	json_t *doc;

	if (!ready() || !(base = blkio_root()))
		return;
	replay = replay_file("cg.replay", false);
	stats = tu_join(root, "cg.json");
	snprintf(limit, sizeof(limit), "ioriot-test.%d", (int)getpid());
	cg = tu_join(base, limit);
	ck_assert_int_eq(stat(mnt[0], &st), 0);
	snprintf(devno, sizeof(devno), "%u:%u", major(st.st_dev),
		 minor(st.st_dev));
	ck_assert_int_eq(mkdir(cg, 0755), 0);
	/* A limit far above what the replay does: it only makes the
	 * throttle count the device. */
	snprintf(limit, sizeof(limit), "%s 1000000\n", devno);
	free(tu_write_str(cg, "blkio.throttle.write_iops_device", limit));
	{
		const char *args[] = { "-R", replay, "-S", stats, "-q",
				       "--cgroup", cg, NULL };

		ck_assert_int_eq(tu_run_args(args, NULL, NULL), 0);
	}
	file = tu_join(cg, "blkio.throttle.io_serviced");
	text = tu_read(file, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(counted(text, devno, "Write") > 0, "%s", text);
	doc = jv_load(stats, &je);
	ck_assert_msg(doc, "%s: %s", stats, je.msg);
	ck_assert_str_eq(jv_member_string(doc, "cgroup"), cg);
	limits = json_object_get(json_object_get(doc, "cgroup_limits"),
				 "blkio.throttle.write_iops_device");
	snprintf(limit, sizeof(limit), "%s 1000000", devno);
	ck_assert_uint_eq(jv_count(limits), 1);
	ck_assert_str_eq(json_string_value(jv_at(limits, 0)), limit);
	json_decref(doc);
	ck_assert_int_eq(rmdir(cg), 0);	/* empty: the replay has ended */

	/* Not a cgroup: refused, before init made the sandboxes. */
	snprintf(sandbox, sizeof(sandbox), "%s/.ioriot", mnt[0]);
	tu_rmtree(sandbox);
	{
		const char *args[] = { "-R", replay, "-q", "--cgroup", root,
				       NULL };

		ck_assert_int_eq(tu_run_args(args, &out, &err), 1);
	}
	ck_assert_msg(strstr(err, "not a cgroup directory"), "%s", err);
	ck_assert_int_ne(access(sandbox, F_OK), 0);
	free(out);
	free(err);
	free(text);
	free(file);
	free(cg);
	free(stats);
	free(replay);
}
END_TEST

/* The statistics of one run in @doc: itself, or with --repeat its first
 * run. */
static const json_t *first_run(const json_t *doc)
{
	const json_t *runs = json_object_get(doc, "runs");

	return runs ? jv_at(runs, 0) : doc;
}

/* --iops-limit: a cgroup per sweep with the limits, removed at the end;
 * the statistics of each value record it. */
START_TEST(test_iops_limit)
{
	char *replay, *outdir, *path;
	const json_t *run, *limits;
	struct scheds s = { 0 };
	struct jv_error je;
	const char *cg;
	json_t *doc;
	pid_t pid;

	if (!ready() || !blkio_root())
		return;
	replay = replay_file("iops.replay", false);
	outdir = tu_join(root, "iops");
	scheds_read(&s);
	{
		const char *args[] = { "--iops-limit", "0,0 500,400", "--runs",
				       "2", replay, outdir, "--", "-q", NULL };

		pid = sweep_start(args, NULL);
	}
	ck_assert_int_eq(wait_status(pid), 0);
	scheds_same(&s, "after --iops-limit");
	path = tu_join(outdir, "500,400.json");
	if (access(path, F_OK)) {
		free(path);
		path = tu_join(outdir, "500,400.1.json");
	}
	doc = jv_load(path, &je);
	ck_assert_msg(doc, "%s: %s", path, je.msg);
	run = first_run(doc);
	cg = jv_member_string(run, "cgroup");
	ck_assert_ptr_nonnull(cg);
	ck_assert_msg(!strncmp(cg, "/sys/fs/cgroup/blkio/ioriot-sweep.", 34),
		      "cgroup %s", cg);
	ck_assert_msg(access(cg, F_OK) != 0, "%s still there", cg);
	limits = json_object_get(json_object_get(run, "cgroup_limits"),
				 "blkio.throttle.write_iops_device");
	ck_assert_uint_eq(jv_count(limits), NMOUNTS);
	for (size_t i = 0; i < NMOUNTS; i++) {
		const char *l = json_string_value(jv_at(limits, i));

		ck_assert_msg(l && strlen(l) > 4 &&
			      !strcmp(l + strlen(l) - 4, " 400"), "limit %s", l);
	}
	json_decref(doc);
	free(path);
	free(outdir);
	free(replay);
}
END_TEST

Suite *sweep_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("sweep");

	tcase_add_unchecked_fixture(tc, mounts_setup, mounts_teardown);
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_devices);
	tcase_add_test(tc, test_stats_devices);
	tcase_add_test(tc, test_sweep);
	tcase_add_test(tc, test_sigint);
	tcase_add_test(tc, test_sigterm);
	tcase_add_test(tc, test_sigpipe);
	tcase_add_test(tc, test_root_refused);
	tcase_add_test(tc, test_cgroup);
	tcase_add_test(tc, test_iops_limit);
	suite_add_tcase(s, tc);
	return s;
}
