/*
 * Tests of the replay engine (replay.h): timelines in parallel ordered by
 * their dependencies, dependencies on operations the file lacks, pacing
 * at a speed factor, stopping, statistics, percentiles, bad files, and
 * blocking file locks that never hang the replay.
 * Replay files are written here into a scratch directory whose
 * "mnt/.ioriot/t" is the sandbox, mnt a tmpfs (tu_mount_tmpfs).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/replay.h"
#include "ioriot/replaylimits.h"
#include "testutil.h"

static char *scratch, *sandbox, *replay_path;
/* A test's replay summary: 4.6 MiB, too large for a stack. */
static struct replay_summary *summary;

static void setup(void)
{
	char *mnt, *dot;

	scratch = tu_scratch();
	mnt = tu_join(scratch, "mnt");
	dot = tu_join(mnt, ".ioriot");
	sandbox = tu_join(dot, "t");
	ck_assert_msg(tu_mount_tmpfs(mnt), "sandboxes must be on a mountpoint");
	ck_assert_int_eq(mkdir(dot, 0755), 0);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);
	replay_path = tu_join(scratch, "t.replay");
	summary = malloc(sizeof(*summary));
	ck_assert_ptr_nonnull(summary);
	free(mnt);
	free(dot);
}

static void teardown(void)
{
	free(summary);
	free(scratch);
	free(sandbox);
	free(replay_path);
}

/* Open the replay file and write its header. */
static FILE *replay_begin(void)
{
	FILE *f = fopen(replay_path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=nobody|\n");
	fprintf(f, "#|sandbox=%s|\n#INIT\n#OPS\n", sandbox);
	return f;
}

static void replay_end(FILE *f, unsigned ops)
{
	fprintf(f, "#END|ops=%u|\n", ops);
	ck_assert_int_eq(fclose(f), 0);
}

static int run_with(double speed, unsigned workers, unsigned threads,
		    struct replay_summary *sum)
{
	struct replay_options opt = {
		.replay_path = replay_path, .speed = speed,
		.workers = workers, .threads = threads,
	};
	char err[512];
	int ret = replay_run(&opt, sum, err, sizeof(err));

	if (ret)
		fprintf(stderr, "replay_run: %s\n", err);
	return ret;
}

static int run(double speed, const volatile sig_atomic_t *stop,
	       struct replay_summary *sum)
{
	struct replay_options opt = {
		.replay_path = replay_path, .speed = speed, .stop = stop,
	};
	char err[512];
	int ret = replay_run(&opt, sum, err, sizeof(err));

	if (ret)
		fprintf(stderr, "replay_run: %s\n", err);
	return ret;
}

/* Whether @name exists in the sandbox (without following a symlink). */
static bool in_sandbox(const char *name)
{
	char *p = tu_join(sandbox, name);
	struct stat st;
	bool found = lstat(p, &st) == 0;

	free(p);
	return found;
}

/* The modification time of @name in the sandbox, ns (a directory's: when
 * the replay made it), 0 if it is not there. */
static uint64_t mtime_in_sandbox(const char *name)
{
	char *p = tu_join(sandbox, name);
	struct stat st;
	uint64_t t = 0;

	if (lstat(p, &st) == 0)
		t = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL +
		    (uint64_t)st.st_mtim.tv_nsec;
	free(p);
	return t;
}

/* The sandbox's @then was made more than @min_ns and less than @max_ns
 * after its @first (their mtimes). */
static void assert_made_apart(const char *first, const char *then,
			      uint64_t min_ns, uint64_t max_ns)
{
	uint64_t a = mtime_in_sandbox(first), b = mtime_in_sandbox(then);

	ck_assert(a && b);
	ck_assert_msg(b > a && b - a > min_ns && b - a < max_ns,
		      "%s made %lld ns after %s", then, (long long)(b - a),
		      first);
}

static uint64_t total_differ(const struct replay_summary *sum)
{
	uint64_t n = 0;

	for (int s = 0; s < SYS_COUNT; s++)
		n += sum->sys[s].differ;
	return n;
}

/*
 * Timeline 1:1 is busy with mkdir/rmdir pairs before it creates and writes
 * a file; timeline 1:2 reads the file, depending on the close.  Without
 * the dependency the reader would run first and fail with ENOENT.
 */
START_TEST(test_dependencies)
{
	struct stat st;
	FILE *f = replay_begin();
	unsigned id = 0;
	char *file = tu_join(sandbox, "f");

	for (int i = 0; i < 300; i++) {
		fprintf(f, "%u 1:1 0 10 - mkdirat 0 path=%s/d%d mode=0755\n",
			++id, sandbox, i);
		fprintf(f, "%u 1:1 0 10 - unlinkat 0 path=%s/d%d flags=0x200\n",
			++id, sandbox, i);
	}
	fprintf(f, "%u 1:1 0 10 - openat 3 vfd=1 path=%s flags=0x41 "
		"mode=0644\n", ++id, file);
	fprintf(f, "%u 1:1 0 10 - write 100 fd=1 count=100\n", ++id);
	fprintf(f, "%u 1:1 0 10 - close 0 fd=1\n", ++id);
	fprintf(f, "%u 1:2 0 10 %u openat 3 vfd=2 path=%s flags=0x0\n",
		id + 1, id, file);
	id++;
	fprintf(f, "%u 1:2 0 10 - read 100 fd=2 count=100\n", ++id);
	fprintf(f, "%u 1:2 0 10 - close 0 fd=2\n", ++id);
	replay_end(f, id);

	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, id);
	ck_assert_uint_eq(summary->timelines, 2);
	ck_assert_uint_eq(summary->processes, 1);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->sys[SYS_WRITE].bytes, 100);
	ck_assert_uint_eq(summary->sys[SYS_READ].bytes, 100);
	ck_assert_uint_eq(summary->sys[SYS_READ].ops, 1);
	ck_assert_uint_eq(summary->sys[SYS_MKDIRAT].ops, 300);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(st.st_size, 100);
	free(file);
}
END_TEST

/* Run the replay on one CPU of this thread's set (the runners then read
 * the file themselves at -s 0), or on all of them. */
static int run_on_cpus(double speed, bool one_cpu, struct replay_options *opt,
		       struct replay_summary *sum, char *err, size_t errlen)
{
	cpu_set_t all, one;
	int ret, cpu = 0;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	if (one_cpu) {
		while (!CPU_ISSET(cpu, &all))
			cpu++;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	}
	opt->replay_path = replay_path;
	opt->speed = speed;
	ret = replay_run(opt, sum, err, errlen);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(all), &all), 0);
	return ret;
}

/*
 * More operations than the engine keeps in memory: four timelines pass a
 * directory around, HOP operations a turn, each mkdir or rmdir depending
 * on the one before, while a fifth timeline runs a long queue of its own
 * and a last operation depends on the first one, long gone from the
 * window.  Any ordering mistake shows up as EEXIST or ENOENT.  Run at
 * -s 0 on one CPU, where the runners read the file themselves, and at
 * -s 1 (all at time 0), where a reader thread does.  (A turn at every
 * operation made the test a measure of the host's wake-up latency: its
 * 40,000 hand-offs between threads took 58 s on a busy host, 0.2 s on a
 * quiet one.)
 */
#define HOP 64
static void streaming(double speed, bool one_cpu)
{
	struct replay_options opt = { 0 };
	FILE *f = replay_begin();
	unsigned id = 0, chain = 40000, own = 5000, last_chain = 0;
	char err[512] = "";

	for (unsigned k = 0; k < chain; k++) {
		if (k % (chain / own) == 0) {
			fprintf(f, "%u 2:2 0 10 - %s 0 path=%s/y%s\n", ++id,
				k % 2 ? "unlinkat" : "mkdirat", sandbox,
				k % 2 ? " flags=0x200" : " mode=0755");
			fprintf(f, "%u 2:2 0 10 - %s 0 path=%s/y%s\n", ++id,
				k % 2 ? "mkdirat" : "unlinkat", sandbox,
				k % 2 ? " mode=0755" : " flags=0x200");
		}
		id++;
		if (last_chain)
			fprintf(f, "%u 1:%u 0 10 %u ", id, 1 + k / HOP % 4,
				last_chain);
		else
			fprintf(f, "%u 1:%u 0 10 - ", id, 1 + k / HOP % 4);
		fprintf(f, "%s 0 path=%s/x%s\n",
			k % 2 ? "unlinkat" : "mkdirat", sandbox,
			k % 2 ? " flags=0x200" : " mode=0755");
		last_chain = id;
	}
	fprintf(f, "%u 3:3 0 10 1 mkdirat 0 path=%s/z mode=0755\n", ++id,
		sandbox);
	replay_end(f, id);

	ck_assert_msg(run_on_cpus(speed, one_cpu, &opt, summary, err,
				  sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(summary->ops, id);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->timelines, 6);
	ck_assert_uint_eq(summary->threads, 6);
	ck_assert_uint_eq(summary->processes, 3);
	ck_assert(!in_sandbox("x"));
	ck_assert(!in_sandbox("y"));
	ck_assert(in_sandbox("z"));
}

START_TEST(test_streaming_self_fed)
{
	streaming(0, true);
}
END_TEST

START_TEST(test_streaming_reader_thread)
{
	streaming(1, false);
}
END_TEST

/* A malformed line far past the first window stops the replay with the
 * file and line named, whoever reads it, and nothing after it runs. */
static void late_error(double speed, bool one_cpu)
{
	struct replay_options opt = { 0 };
	FILE *f = replay_begin();
	unsigned id = 0, n = 40000;
	char err[512] = "", want[64];

	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%u 1:%u 0 10 - mkdirat 0 path=%s/d%u mode=0755\n",
			++id, 1 + k % 2, sandbox, k);
	fprintf(f, "%u 1:1 0 10 - mkdirat zero path=%s/bad mode=0755\n",
		++id, sandbox);
	fprintf(f, "%u 1:2 0 10 - mkdirat 0 path=%s/after mode=0755\n",
		++id, sandbox);
	replay_end(f, id);

	ck_assert_int_eq(run_on_cpus(speed, one_cpu, &opt, summary, err,
				     sizeof(err)), -EPROTO);
	/* 4 header lines, then the operations: line n + 5. */
	snprintf(want, sizeof(want), ":%u:", n + 5);
	ck_assert_msg(strstr(err, replay_path) && strstr(err, want), "%s",
		      err);
	ck_assert(!in_sandbox("bad"));
	ck_assert(!in_sandbox("after"));
}

START_TEST(test_late_error_self_fed)
{
	late_error(0, true);
}
END_TEST

START_TEST(test_late_error_reader_thread)
{
	late_error(1, false);
}
END_TEST

/*
 * -p/-t: processes go to the workers in turn, a worker's timelines to its
 * threads in turn; ordering still holds when timelines share a thread.
 */
START_TEST(test_workers_threads)
{
	static const struct {
		unsigned workers, threads;
		uint64_t want_threads;
	} cases[] = {
		{ 1, 1, 1 },
		/* pids 1 and 3 go to worker 0 (6 timelines, 2 threads),
		 * pid 2 to worker 1 (3 timelines, 2 threads) */
		{ 2, 2, 4 },
		{ 0, 0, 9 },		/* a thread per timeline */
		{ 8, 8, 9 },
	};
	unsigned id = 0, rmdir_id = 0;
	FILE *f = replay_begin();

	/* 3 processes x 3 threads pass directory s around: each mkdir
	 * depends on the rmdir of the timeline before. */
	for (unsigned p = 1; p <= 3; p++) {
		for (unsigned t = 1; t <= 3; t++) {
			if (rmdir_id)
				fprintf(f, "%u %u:%u 0 10 %u ", ++id, p, t,
					rmdir_id);
			else
				fprintf(f, "%u %u:%u 0 10 - ", ++id, p, t);
			fprintf(f, "mkdirat 0 path=%s/s mode=0755\n", sandbox);
			fprintf(f, "%u %u:%u 0 10 - unlinkat 0 path=%s/s "
				"flags=0x200\n", ++id, p, t, sandbox);
			rmdir_id = id;
		}
	}
	replay_end(f, id);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(run_with(0, cases[i].workers,
					  cases[i].threads, summary), 0);
		ck_assert_uint_eq(summary->ops, id);
		ck_assert_uint_eq(total_differ(summary), 0);
		ck_assert_uint_eq(summary->timelines, 9);
		ck_assert_uint_eq(summary->processes, 3);
		ck_assert_uint_eq(summary->threads, cases[i].want_threads);
		ck_assert_uint_eq(summary->workers, cases[i].workers ?
				  cases[i].workers : 3);
		ck_assert_uint_eq(summary->threads_per_worker, cases[i].threads ?
				  cases[i].threads : 3);
	}
}
END_TEST

/* Hundreds of timelines, a thread each: 500 processes pass directory s
 * around, every mkdir depending on the rmdir of the process before. */
START_TEST(test_many_timelines)
{
	unsigned id = 0, rmdir_id = 0;
	FILE *f = replay_begin();

	for (unsigned p = 1; p <= 500; p++) {
		if (rmdir_id)
			fprintf(f, "%u %u:%u 0 10 %u ", ++id, p, p, rmdir_id);
		else
			fprintf(f, "%u %u:%u 0 10 - ", ++id, p, p);
		fprintf(f, "mkdirat 0 path=%s/s mode=0755\n", sandbox);
		fprintf(f, "%u %u:%u 0 10 - unlinkat 0 path=%s/s flags=0x200\n",
			++id, p, p, sandbox);
		rmdir_id = id;
	}
	replay_end(f, id);
	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, id);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->timelines, 500);
	ck_assert_uint_eq(summary->threads, 500);
	ck_assert_uint_eq(summary->processes, 500);
}
END_TEST

/*
 * File locks: timeline 2:2's flock waits for 1:1's unlock.  With a thread
 * each it takes the lock once 1:1 releases it.  Where 1:1's unlock cannot
 * come first (it depends on 2:2's lock, or both timelines share one
 * thread), the blocking call gives up after its bounded wait and counts
 * as differing (ETIMEDOUT): the replay never hangs on a lock.
 */
START_TEST(test_lock_waits)
{
	static const struct {
		const char *unlock_deps;
		unsigned workers, threads;
		uint64_t differ;
	} cases[] = {
		{ "-", 0, 0, 0 },	/* waits, then takes it */
		{ "4", 0, 0, 1 },	/* the unlock waits for the lock */
		{ "-", 1, 1, 1 },	/* one thread for both */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = replay_begin();

		fprintf(f, "1 1:1 0 10 - openat 3 vfd=1 path=%s/lk flags=0x42 "
			"mode=0644\n", sandbox);
		fprintf(f, "2 1:1 0 10 - flock 0 fd=1 flags=0x2\n");
		fprintf(f, "3 2:2 0 10 1 openat 3 vfd=2 path=%s/lk flags=0x2\n",
			sandbox);
		fprintf(f, "4 2:2 0 10 2 flock 0 fd=2 flags=0x2\n");
		fprintf(f, "5 1:1 0 10 %s flock 0 fd=1 flags=0x8\n",
			cases[i].unlock_deps);
		fprintf(f, "6 2:2 0 10 - flock 0 fd=2 flags=0x8\n");
		fprintf(f, "7 1:1 0 10 - close 0 fd=1\n");
		fprintf(f, "8 2:2 0 10 - close 0 fd=2\n");
		replay_end(f, 8);
		ck_assert_int_eq(run_with(0, cases[i].workers, cases[i].threads,
					  summary), 0);
		ck_assert_uint_eq(summary->ops, 8);
		ck_assert_msg(summary->sys[SYS_FLOCK].differ == cases[i].differ,
			      "case %zu: %llu flocks differ", i,
			      (unsigned long long)summary->sys[SYS_FLOCK].differ);
		ck_assert_uint_eq(summary->differ_by_result[SYS_FLOCK][ETIMEDOUT],
				  cases[i].differ);
		ck_assert_uint_eq(total_differ(summary), cases[i].differ);
	}
}
END_TEST

/* Sets the stop flag @arg after 300 ms, as a signal handler would. */
static void *stop_soon(void *arg)
{
	struct timespec ts = { .tv_nsec = 300 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	/* Atomically, as the engine reads it (a handler's store is too). */
	__atomic_store_n((volatile sig_atomic_t *)arg, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Elapsed ns of a replay of the replay file stopped 300 ms in; asserts
 * it ran without error. */
static uint64_t stopped_replay(struct replay_summary *sum)
{
	static volatile sig_atomic_t stop;
	struct timespec t0, t1;
	pthread_t th;

	stop = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(pthread_create(&th, NULL, stop_soon, (void *)&stop),
			 0);
	ck_assert_int_eq(run(0, &stop, sum), 0);
	pthread_join(th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ULL +
	       (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
}

/*
 * A stop ends waits inside an operation: a blocking flock on a lock held
 * for good, captured as waiting 2 h (it would wait 4 h and a second), and
 * an io_uring read of a FIFO without a writer's data, whose completion
 * came 2 h after it (the same).  The replay returns, the waiting
 * operation uncounted.  The bound asserted is loose (the replay stops
 * within 0.1 s of the flag); the old waits took hours.
 */
START_TEST(test_stop_ends_waits)
{
	struct replay_summary *sum = malloc(sizeof(*sum));
	uint64_t ns;
	FILE *f = replay_begin();

	ck_assert_ptr_nonnull(sum);
	fprintf(f, "1 1:1 0 10 - openat 3 vfd=1 path=%s/lk flags=0x42 "
		"mode=0644\n", sandbox);
	fprintf(f, "2 1:1 0 10 - flock 0 fd=1 flags=0x2\n");
	fprintf(f, "3 2:2 0 10 2 openat 3 vfd=2 path=%s/lk flags=0x2\n",
		sandbox);
	fprintf(f, "4 2:2 0 7200000000000 - flock 0 fd=2 flags=0x2\n");
	replay_end(f, 4);
	ns = stopped_replay(sum);
	ck_assert_msg(ns < 30000000000ULL, "the lock wait took %llu ns",
		      (unsigned long long)ns);
	ck_assert_uint_eq(sum->ops, 3);
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	f = replay_begin();
	fprintf(f, "1 1:1 0 10 - mknodat 0 path=%s/p mode=010644\n", sandbox);
	fprintf(f, "2 1:1 0 10 - openat 3 vfd=1 path=%s/p flags=0x2\n",
		sandbox);
	fprintf(f, "3 1:1 0 10 - io_uring_setup 4 count=4 ctx=1\n");
	fprintf(f, "4 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=22 fd=1 off=-1 "
		"count=16\n");
	fprintf(f, "5 1:1 0 10 - io_uring_enter 1 ctx=1 count=1\n");
	fprintf(f, "6 1:1 7200000000000 0 - uring_read 16 ctx=1 tag=1 fd=1\n");
	replay_end(f, 6);
	ns = stopped_replay(sum);
	ck_assert_msg(ns < 30000000000ULL, "the completion wait took %llu ns",
		      (unsigned long long)ns);
	ck_assert_uint_eq(sum->ops, 5);
	free(sum);
}
END_TEST

/* A result that differs from the capture is counted, not fatal; a
 * dependency on an id the file does not have is satisfied. */
START_TEST(test_differ_and_missing_dep)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 10 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	fprintf(f, "5 2:2 0 10 3 mkdirat 0 path=%s/a mode=0755\n", sandbox);
	fprintf(f, "9 2:2 0 10 1,7 unlinkat -2 path=%s/nothing flags=0x0\n",
		sandbox);
	replay_end(f, 3);

	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, 3);
	ck_assert_uint_eq(summary->processes, 2);
	/* Whichever mkdirat runs second gets EEXIST; the unlink's ENOENT is
	 * what was captured. */
	ck_assert_uint_eq(summary->sys[SYS_MKDIRAT].differ, 1);
	ck_assert_uint_eq(summary->differ_by_result[SYS_MKDIRAT][EEXIST], 1);
	ck_assert_uint_eq(summary->sys[SYS_UNLINKAT].differ, 0);
}
END_TEST

/*
 * Reads of a 100-byte file where the capture read 4096 bytes twice: both
 * are short (100 and 0 bytes), by 8092 bytes in all; a read as captured
 * is not; an lseek to another end is another value; the failures are
 * counted by errno.
 */
START_TEST(test_differ_values)
{
	char data[100];
	char *small;
	FILE *f = replay_begin();

	memset(data, 'x', sizeof(data));
	small = tu_write(sandbox, "small", data, sizeof(data));
	fprintf(f, "1 1:1 0 10 - openat 3 vfd=1 path=%s flags=0x0\n", small);
	fprintf(f, "2 1:1 0 10 - read 4096 fd=1 count=4096\n");
	fprintf(f, "3 1:1 0 10 - read 4096 fd=1 count=4096\n");
	fprintf(f, "4 1:1 0 10 - pread64 50 fd=1 off=0 count=50\n");
	fprintf(f, "5 1:1 0 10 - lseek 5000 fd=1 off=0 whence=2\n");
	fprintf(f, "6 1:1 0 10 - lseek 10 fd=1 off=10 whence=0\n");
	fprintf(f, "7 1:1 0 10 - close 0 fd=1\n");
	fprintf(f, "8 1:1 0 10 - openat 4 vfd=2 path=%s/missing flags=0x0\n",
		sandbox);
	fprintf(f, "9 1:1 0 10 - read 10 fd=2 count=10\n");
	replay_end(f, 9);

	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, 9);
	ck_assert_uint_eq(summary->sys[SYS_READ].ops, 3);
	ck_assert_uint_eq(summary->sys[SYS_READ].bytes, 100);
	ck_assert_uint_eq(summary->sys[SYS_READ].differ, 3);
	ck_assert_uint_eq(summary->sys[SYS_READ].short_ops, 2);
	ck_assert_uint_eq(summary->sys[SYS_READ].short_bytes, 4096 - 100 + 4096);
	ck_assert_uint_eq(summary->differ_by_result[SYS_READ][REPLAY_RESULT_SHORT],
			  2);
	ck_assert_uint_eq(summary->differ_by_result[SYS_READ][EBADF], 1);
	ck_assert_uint_eq(summary->sys[SYS_PREAD64].differ, 0);
	ck_assert_uint_eq(summary->sys[SYS_LSEEK].differ, 1);
	ck_assert_uint_eq(summary->sys[SYS_LSEEK].short_ops, 0);
	ck_assert_uint_eq(summary->differ_by_result[SYS_LSEEK][REPLAY_RESULT_VALUE],
			  1);
	ck_assert_uint_eq(summary->sys[SYS_OPENAT].differ, 1);
	ck_assert_uint_eq(summary->differ_by_result[SYS_OPENAT][ENOENT], 1);
	ck_assert_uint_eq(summary->sys[SYS_CLOSE].differ, 0);
	ck_assert_uint_eq(total_differ(summary), 5);
	free(small);
}
END_TEST

/* At speed 1 the last operation starts no earlier than its captured time;
 * at speed 2 no earlier than half of it; at 0 the times are ignored (a
 * replay that waited the 20 s would take twice the bound).  Tight: within
 * 20 ms of it, which a busy host can take from a thread waking up. */
START_TEST(test_speed)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 10 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	fprintf(f, "2 1:1 80000000 10 - unlinkat 0 path=%s/a flags=0x200\n",
		sandbox);
	fprintf(f, "3 1:2 20000000000 10 - mkdirat 0 path=%s/b mode=0755\n",
		sandbox);
	replay_end(f, 3);

	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, 3);
	ck_assert_uint_lt(summary->duration_ns, 10000000000ULL);
	ck_assert_uint_eq(summary->captured_ns, 20000000010ULL);

	f = replay_begin();
	fprintf(f, "1 1:1 0 10 - mkdirat 0 path=%s/c mode=0755\n", sandbox);
	fprintf(f, "2 1:1 80000000 10 - unlinkat 0 path=%s/c flags=0x200\n",
		sandbox);
	replay_end(f, 2);
	ck_assert_int_eq(run(1, NULL, summary), 0);
	ck_assert_uint_ge(summary->duration_ns, 80000000ULL);
	ck_assert(!TU_TIGHT ||
		  summary->duration_ns < 80000000ULL + 20000000ULL);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_ge(summary->lateness_p99_ns, summary->lateness_p50_ns);
	ck_assert_int_eq(run(2, NULL, summary), 0);
	ck_assert_uint_ge(summary->duration_ns, 40000000ULL);
	ck_assert(!TU_TIGHT ||
		  summary->duration_ns < 40000000ULL + 20000000ULL);
}
END_TEST

/* A --think replay of the replay file at @speed and @cpu_scale. */
static int run_think(double speed, double cpu_scale,
		     struct replay_summary *sum)
{
	struct replay_options opt = {
		.replay_path = replay_path, .speed = speed,
		.pacing = REPLAY_PACE_THINK, .cpu_scale = cpu_scale,
	};
	char err[512];
	int ret = replay_run(&opt, sum, err, sizeof(err));

	if (ret)
		fprintf(stderr, "replay_run: %s\n", err);
	return ret;
}

/*
 * --think keeps each timeline's gaps, not its captured clock: the first
 * call of 1:1 took 5 s in the capture, the replay's takes microseconds, and
 * the next call follows 50 ms later, not at 5.05 s.  The gap of 20 ms
 * before op 3 is 10 ms on a CPU (cpu=), burnt, and 10 ms slept.  Timeline
 * 1:3, forked by 1:1 (parent=), starts 5 ms after its parent's slow call
 * ended as captured, shifted by how far its parent runs ahead; without
 * parent= it would wait for 5.055 s.  What was kept is accounted exactly;
 * the run's time only has a lower bound and a loose upper one.
 */
START_TEST(test_think)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 5000000000 - mkdirat 0 path=%s/a mode=0755\n",
		sandbox);
	fprintf(f, "2 1:1 5050000000 1000000 - unlinkat 0 path=%s/a "
		"flags=0x200\n", sandbox);
	fprintf(f, "3 1:3 5055000000 0 - mkdirat 0 path=%s/c mode=0755 "
		"parent=1:1\n", sandbox);
	fprintf(f, "4 1:1 5071000000 0 - mkdirat 0 path=%s/b mode=0755 "
		"cpu=10000000\n", sandbox);
	replay_end(f, 4);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_int_eq(summary->pacing, REPLAY_PACE_THINK);
	ck_assert(summary->timed);
	ck_assert(summary->speed == 1 && summary->cpu_scale == 1);
	ck_assert_uint_eq(summary->cap_call_ns, 5001000000ULL);
	ck_assert_uint_eq(summary->cap_gap_ns, 70000000ULL);
	ck_assert_uint_eq(summary->cap_gap_cpu_ns, 10000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 60000000ULL);
	ck_assert_uint_eq(summary->think_cpu_ns, 10000000ULL);
	ck_assert_uint_ge(summary->duration_ns, 70000000ULL);
	ck_assert_msg(summary->duration_ns < 4000000000ULL, "took %llu ns",
		      (unsigned long long)summary->duration_ns);
	ck_assert_ptr_null(replay_prediction_note(summary));
	ck_assert(in_sandbox("b") && in_sandbox("c") && !in_sandbox("a"));
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	/* -s 2 halves the waits, --cpu-scale 4 quarters the CPU work. */
	ck_assert_int_eq(run_think(2, 4, summary), 0);
	ck_assert_uint_eq(summary->think_sleep_ns, 30000000ULL);
	ck_assert_uint_eq(summary->think_cpu_ns, 2500000ULL);
	ck_assert(summary->speed == 2 && summary->cpu_scale == 4);
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	/* -s 0 says its time predicts nothing: 70 ms of 5.071 s are gaps,
	 * too little; a file of mostly gaps gets the note. */
	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_int_eq(summary->pacing, REPLAY_PACE_FAST);
	ck_assert_ptr_null(replay_prediction_note(summary));
	summary->cap_gap_ns = summary->cap_call_ns;
	ck_assert_ptr_nonnull(replay_prediction_note(summary));
}
END_TEST

/*
 * --think leaves the capture probe's part of a gap's on-CPU time out
 * (probe=): op 2's gap of 30 ms has 20 ms on a CPU of which 5 ms were the
 * probe's: 15 ms burnt, 10 ms slept; op 3's probe= is more than its cpu=:
 * all of its 1 ms is left out, its 9 ms slept.  At --cpu-scale 2 the
 * burnt part is halved, the probe's part is the capture's.
 */
START_TEST(test_think_probe)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 0 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	fprintf(f, "2 1:1 30000000 0 - mkdirat 0 path=%s/b mode=0755 "
		"cpu=20000000 probe=5000000\n", sandbox);
	fprintf(f, "3 1:1 40000000 0 - mkdirat 0 path=%s/c mode=0755 "
		"cpu=1000000 probe=3000000\n", sandbox);
	replay_end(f, 3);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 3);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->cap_gap_ns, 40000000ULL);
	ck_assert_uint_eq(summary->cap_gap_cpu_ns, 21000000ULL);
	ck_assert_uint_eq(summary->think_cpu_ns, 15000000ULL);
	ck_assert_uint_eq(summary->think_probe_ns, 6000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 19000000ULL);
	ck_assert_uint_ge(summary->duration_ns, 34000000ULL);
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	ck_assert_int_eq(run_think(1, 2, summary), 0);
	ck_assert_uint_eq(summary->think_cpu_ns, 7500000ULL);
	ck_assert_uint_eq(summary->think_probe_ns, 6000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 19000000ULL);
}
END_TEST

/*
 * --think does not sleep the capture's waits for a CPU (runq=): op 2's
 * gap of 30 ms has 5 ms on a CPU, 20 ms waited for one: 5 ms burnt, 5 ms
 * slept.  Op 3's runq= is more than the 9 ms of its gap off a CPU: none
 * of it is slept.  With waited= the runq= comes out of what is left: op
 * 4's 20 ms gap, 2 ms on a CPU, 10 ms waited for another timeline (no
 * sync= here), 5 ms for a CPU: 3 ms slept.  At -s 2 the sleeps are
 * halved, what was left out is the capture's.
 */
START_TEST(test_think_runq)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 0 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	fprintf(f, "2 1:1 30000000 0 - mkdirat 0 path=%s/b mode=0755 "
		"cpu=5000000 runq=20000000\n", sandbox);
	fprintf(f, "3 1:1 40000000 0 - mkdirat 0 path=%s/c mode=0755 "
		"cpu=1000000 runq=30000000\n", sandbox);
	fprintf(f, "4 1:1 60000000 0 - mkdirat 0 path=%s/d mode=0755 "
		"cpu=2000000 waited=10000000 runq=5000000\n", sandbox);
	replay_end(f, 4);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->cap_gap_ns, 60000000ULL);
	ck_assert_uint_eq(summary->think_cpu_ns, 8000000ULL);
	ck_assert_uint_eq(summary->think_runq_ns, 34000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 8000000ULL);
	ck_assert_uint_ge(summary->duration_ns, 16000000ULL);
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	ck_assert_int_eq(run_think(2, 1, summary), 0);
	ck_assert_uint_eq(summary->think_runq_ns, 34000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 4000000ULL);
}
END_TEST

/*
 * --think with sync=: in the capture, timeline 1:2 was blocked 9.99 s of
 * the 10 s before op 4 in a futex wait that 1:1 ended 5 ms before op 4,
 * after its op 3 (sync=3:5000000 waited=9990000000).  The replay keeps
 * 1:2's 10 ms that were no wait, and starts op 4 5 ms after op 3 ended:
 * about 0.3 s in all, not 10 s.  The sleep is accounted exactly; the time
 * has a lower bound and a loose upper one.  -s 0 keeps the order only.
 */
START_TEST(test_think_sync)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 0 - mkdirat 0 path=%s/x mode=0755\n", sandbox);
	fprintf(f, "2 1:2 0 0 - mkdirat 0 path=%s/y mode=0755\n", sandbox);
	fprintf(f, "3 1:1 300000000 0 - mkdirat 0 path=%s/a mode=0755\n",
		sandbox);
	fprintf(f, "4 1:2 10000000000 0 - mkdirat 0 path=%s/b mode=0755 "
		"sync=3:5000000 waited=9990000000\n", sandbox);
	replay_end(f, 4);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->cap_gap_ns, 10300000000ULL);
	ck_assert_uint_eq(summary->think_sleep_ns, 310000000ULL);
	ck_assert_uint_ge(summary->duration_ns, 305000000ULL);
	ck_assert_msg(summary->duration_ns < 8000000000ULL, "took %llu ns",
		      (unsigned long long)summary->duration_ns);
	ck_assert(in_sandbox("a") && in_sandbox("b"));
	tu_rmtree(sandbox);
	ck_assert_int_eq(mkdir(sandbox, 0755), 0);

	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 0);
}
END_TEST

/*
 * --think and timelines anchored in captured time (threads that were
 * there before the capture and that nothing held back: a timer's).
 *
 * A sync= on an anchored waker waits as long as the capture's blocked
 * time at most: 1:2's op 2 took 2.9 s in the capture (microseconds
 * here), then 1:2 waited 100 ms (waited=) for 1:1's op 3, which 1:1
 * makes at 3 s; the replay does not hold op 4 back for 3 s but for
 * 100 ms, so op 4 now comes before op 3.  sync= is timing, not order
 * (generate orders calls on one path by the dependency column, left out
 * here on purpose): both make c, and each gets the other's result, 2
 * differ.  Nothing is held back in this file, so 1:1 keeps its timer
 * (test_think_daemon_follows_work has the other case).
 *
 * A thread that was there before the capture starts where the replay as
 * a whole is (the second file): 1:3's op 1 took 2.95 s in the capture;
 * its op 3 waits for 1:4's op 2 at 60 ms (a dependency), which holds it
 * back, and ends 2.94 s ahead of its captured time; 1:5's first
 * operation, captured at 4 s, follows at about 1.06 s, not 4 s.
 */
START_TEST(test_think_anchored)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 0 - mkdirat 0 path=%s/x mode=0755\n", sandbox);
	fprintf(f, "2 1:2 0 2900000000 - mkdirat 0 path=%s/y mode=0755\n",
		sandbox);
	fprintf(f, "3 1:1 3000000000 0 - mkdirat 0 path=%s/c mode=0755\n",
		sandbox);
	fprintf(f, "4 1:2 3010000000 0 - mkdirat -17 path=%s/c mode=0755 "
		"sync=3:10000000 waited=100000000\n", sandbox);
	replay_end(f, 4);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 2);

	f = replay_begin();
	fprintf(f, "1 1:3 0 2950000000 - mkdirat 0 path=%s/z mode=0755\n",
		sandbox);
	fprintf(f, "2 1:4 60000000 0 - mkdirat 0 path=%s/w mode=0755\n",
		sandbox);
	fprintf(f, "3 1:3 3000000000 0 2 mkdirat 0 path=%s/v mode=0755\n",
		sandbox);
	fprintf(f, "4 1:5 4000000000 0 - mkdirat 0 path=%s/u mode=0755\n",
		sandbox);
	replay_end(f, 4);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 4);
	ck_assert_uint_eq(total_differ(summary), 0);
	/* u was made about 1.06 s after z (4 s without the placement); the
	 * file system's clock ticks coarsely, and a busy host is late: the
	 * bound leaves it 2.4 s. */
	assert_made_apart("z", "u", 900000000ULL, 3500000000ULL);
}
END_TEST

/*
 * --think with anchored threads only (tar, then a sync that the shell
 * started once tar ended; neither has a captured parent): the replay as a
 * whole is where its last operation is.  1:1's op 1 took 3 s in the
 * capture (microseconds here), so 1:2's op 3, captured 100 ms after 1:1's
 * op 2, comes about 100 ms after it, not 3.1 s after the start.  Nothing
 * orders the two here but that placement.
 */
START_TEST(test_think_lead)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 3000000000 - mkdirat 0 path=%s/x mode=0755\n",
		sandbox);
	fprintf(f, "2 1:1 3000000000 0 - mkdirat 0 path=%s/a mode=0755\n",
		sandbox);
	fprintf(f, "3 1:2 3100000000 0 - mkdirat 0 path=%s/b mode=0755\n",
		sandbox);
	replay_end(f, 3);

	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 3);
	ck_assert_uint_eq(total_differ(summary), 0);
	/* The file system's clock ticks coarsely, and a busy host is late:
	 * the bound leaves it 2.4 s. */
	assert_made_apart("a", "b", 0, 2500000000ULL);
	ck_assert_uint_lt(summary->duration_ns, 2600000000ULL);
}
END_TEST

/* The file of test_think_daemon_follows_work: names end in @sfx; op 4
 * waits for op 3 (held back by it) if @held; op 6 was woken by op 5 if
 * @woken, else by its own timer. */
static void daemon_work_file(const char *sfx, bool held, bool woken)
{
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 100000 - mkdirat 0 path=%s/a%s mode=0755\n",
		sandbox, sfx);
	fprintf(f, "2 1:2 0 100000 - mkdirat 0 path=%s/c%s mode=0755\n",
		sandbox, sfx);
	fprintf(f, "3 1:2 300000000 0 - mkdirat 0 path=%s/d%s mode=0755\n",
		sandbox, sfx);
	fprintf(f, "4 1:3 100000000 1500000000 %s mkdirat 0 path=%s/b%s "
		"mode=0755\n", held ? "3" : "-", sandbox, sfx);
	fprintf(f, "5 1:3 1600100000 0 - mkdirat 0 path=%s/e%s mode=0755\n",
		sandbox, sfx);
	fprintf(f, "6 1:1 2000000000 0 - mkdirat 0 path=%s/w%s mode=0755%s\n",
		sandbox, sfx, woken ? " sync=5:399900000 waited=1000" : "");
	replay_end(f, 6);
}

/* test_think_daemon_follows_work with the hold: the daemon's op 6 (woken
 * by op 5 if @woken) comes within 1.2 s of op 5, its sleep cut. */
static void assert_daemon_cut(const char *sfx, bool woken)
{
	char e[8], w[8];

	snprintf(e, sizeof(e), "e%s", sfx);
	snprintf(w, sizeof(w), "w%s", sfx);
	daemon_work_file(sfx, true, woken);
	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(summary->ops, 6);
	ck_assert_uint_eq(total_differ(summary), 0);
	/* A busy host is late: the bound leaves it 0.8 s. */
	assert_made_apart(e, w, 0, 1200000000ULL);
	ck_assert_uint_lt(summary->duration_ns, 1600000000ULL);
	ck_assert_uint_gt(summary->think_cut_ns, 900000000ULL);
}

/*
 * --think: a thread that was there before the capture and followed its
 * own times only (1:1, a daemon that slept 2 s on its timer), beside a
 * thread that follows the replay (1:3, held back by 1:2's op 3, then
 * ahead of the capture by about 1.3 s: its op 4 took 1.5 s in the
 * capture): the daemon's sleep is cut where the replay is, so its op 6
 * comes at about 0.7 s, not at 2 s, whether op 5 woke it (about 0.4 s
 * after op 5, its sync=) or its timer did (its captured time shifted by
 * the replay's drift).  Without the hold nothing follows the replay, and
 * op 6 keeps its sleep.
 */
START_TEST(test_think_daemon_follows_work)
{
	assert_daemon_cut("1", true);
	assert_daemon_cut("2", false);

	daemon_work_file("3", false, false);
	ck_assert_int_eq(run_think(0, 0, summary), 0);
	ck_assert_uint_eq(total_differ(summary), 0);
	ck_assert_uint_eq(summary->think_cut_ns, 0);
	ck_assert_uint_ge(summary->duration_ns, 1990000000ULL);
}
END_TEST

/*
 * Registered buffers beyond the replay's limit of 1 GiB per ring
 * (URING_BUF_TOTAL_MAX): two of 1 GiB are answered with ENOMEM, and
 * nothing is allocated for them (a hand-edited file once made the replay
 * allocate and fill 4 GiB before the kernel refused).  A small one
 * registers.
 */
START_TEST(test_uring_bufs_bounded)
{
	struct replay_summary *sum = malloc(sizeof(*sum));
	FILE *f = replay_begin();
	int enomem = replay_result_slot(REPLAY_ERRNO, -ENOMEM);

	ck_assert_ptr_nonnull(sum);
	fprintf(f, "1 1:1 0 0 - io_uring_setup 3 count=4 ctx=1\n"
		"2 1:1 0 0 - uring_buf 0 ctx=1 slot=0 count=1073741824\n"
		"3 1:1 0 0 - uring_buf 0 ctx=1 slot=1 count=1073741824\n"
		"4 1:1 0 0 - io_uring_register 0 ctx=1 cmd=0 count=2\n"
		"5 1:1 0 0 - uring_buf 0 ctx=1 slot=0 count=65536\n"
		"6 1:1 0 0 - io_uring_register 0 ctx=1 cmd=0 count=1\n");
	replay_end(f, 6);
	ck_assert_int_eq(run(0, NULL, sum), 0);
	ck_assert_uint_eq(sum->ops, 6);
	ck_assert_uint_eq(sum->sys[SYS_IO_URING_REGISTER].ops, 2);
	ck_assert_uint_eq(sum->sys[SYS_IO_URING_REGISTER].differ, 1);
	ck_assert_uint_eq(sum->differ_by_result[SYS_IO_URING_REGISTER][enomem],
			  1);
	free(sum);
}
END_TEST

/*
 * AIO requests and their buffers are bounded for the whole replay
 * (ioriot/replaylimits.h): a second read of 1 GiB and a small one after
 * it find the buffers' 1 GiB taken, the 65537th request alive finds the
 * requests' bound; each is answered EAGAIN and counted as over the
 * limits, nothing allocated.  Before, every iocb allocated its captured
 * count, queued without bound.
 */
START_TEST(test_aio_bounded)
{
	struct replay_summary *sum = malloc(sizeof(*sum));
	FILE *f = replay_begin();
	int eagain = replay_result_slot(REPLAY_ERRNO, -EAGAIN);
	unsigned id = 1, tag = 1;

	ck_assert_ptr_nonnull(sum);
	fprintf(f, "%u 1:1 0 0 - openat 3 vfd=1 path=%s/f flags=0x42 "
		"mode=0644\n", id++, sandbox);
	fprintf(f, "%u 1:1 0 0 - io_setup 0 count=4 ctx=1\n", id++);
	fprintf(f, "%u 1:1 0 0 - iocb 0 fd=1 off=0 count=1073741824 cmd=0 "
		"ctx=1 tag=%u\n", id++, tag++);
	fprintf(f, "%u 1:1 0 0 - iocb 0 fd=1 off=0 count=1073741824 cmd=0 "
		"ctx=1 tag=%u\n", id++, tag++);
	fprintf(f, "%u 1:1 0 0 - iocb 0 fd=1 off=0 count=4096 cmd=0 "
		"ctx=1 tag=%u\n", id++, tag++);
	/* 65535 more fsyncs: 65536 alive with the first read; one more. */
	for (unsigned i = 0; i < 65536; i++)
		fprintf(f, "%u 1:1 0 0 - iocb 0 fd=1 cmd=2 ctx=1 tag=%u\n",
			id++, tag++);
	replay_end(f, id - 1);
	ck_assert_int_eq(run_with(0, 1, 1, sum), 0);
	ck_assert_uint_eq(sum->ops, id - 1);
	ck_assert_uint_eq(sum->over_limit, 3);
	ck_assert_uint_eq(sum->differ_by_result[SYS_IOCB][eagain], 3);
	ck_assert_uint_eq(sum->sys[SYS_IOCB].differ, 3);
	free(sum);
}
END_TEST

/*
 * io_uring rings are bounded by their entries in all
 * (URING_RING_ENTRIES_MAX): ten rings of 32768 entries and 65536
 * completion entries fit, the eleventh is answered ENOMEM; requests
 * queued without io_uring_enter stop at the bound of requests alive
 * (EAGAIN).  Both counted as over the limits.
 */
START_TEST(test_uring_rings_bounded)
{
	struct replay_summary *sum = malloc(sizeof(*sum));
	FILE *f = replay_begin();
	int enomem = replay_result_slot(REPLAY_ERRNO, -ENOMEM);
	int eagain = replay_result_slot(REPLAY_ERRNO, -EAGAIN);
	unsigned id = 1;

	ck_assert_ptr_nonnull(sum);
	for (unsigned ctx = 1; ctx <= 11; ctx++)
		fprintf(f, "%u 1:1 0 0 - io_uring_setup 3 count=32768 "
			"cq=65536 flags=0x8 ctx=%u\n", id++, ctx);
	for (unsigned tag = 1; tag <= 65537; tag++)
		fprintf(f, "%u 1:1 0 0 - sqe 0 ctx=1 tag=%u cmd=0\n", id++,
			tag);
	replay_end(f, id - 1);
	ck_assert_int_eq(run_with(0, 1, 1, sum), 0);
	ck_assert_uint_eq(sum->ops, id - 1);
	ck_assert_uint_eq(sum->differ_by_result[SYS_IO_URING_SETUP][enomem], 1);
	ck_assert_uint_eq(sum->differ_by_result[SYS_SQE][eagain], 1);
	ck_assert_uint_eq(sum->over_limit, 2);
	free(sum);
}
END_TEST

/*
 * Private writable mappings, whose written pages become the replay's own
 * memory, are bounded in all (REPLAY_MAP_PRIVATE_MAX, 1 GiB): a second
 * one of 1 GiB is answered ENOMEM and counted; a shared one of 2 GiB is
 * the page cache's and maps; once the first is unmapped, a third fits.
 */
START_TEST(test_map_private_bounded)
{
	struct replay_summary *sum = malloc(sizeof(*sum));
	FILE *f = replay_begin();
	int enomem = replay_result_slot(REPLAY_ERRNO, -ENOMEM);

	ck_assert_ptr_nonnull(sum);
	fprintf(f, "1 1:1 0 0 - openat 3 vfd=1 path=%s/f flags=0x42 "
		"mode=0644\n", sandbox);
	fprintf(f, "2 1:1 0 0 - mmap 139637976727552 fd=1 flags=0x2 mode=03 "
		"off=0 count=1073741824\n"
		"3 1:1 0 0 - mmap 139639050469376 fd=1 flags=0x2 mode=03 "
		"off=0 count=1073741824\n"
		"4 1:1 0 0 - mmap 139640124211200 fd=1 flags=0x1 mode=03 "
		"off=0 count=2147483648\n"
		"5 1:1 0 0 - munmap 0 fd=1 count=1073741824 "
		"addr=0x7f0000000000\n"
		"6 1:1 0 0 - mmap 139637976727552 fd=1 flags=0x2 mode=03 "
		"off=0 count=1073741824\n");
	replay_end(f, 6);
	ck_assert_int_eq(run(0, NULL, sum), 0);
	ck_assert_uint_eq(sum->ops, 6);
	ck_assert_uint_eq(sum->sys[SYS_MMAP].ops, 4);
	ck_assert_uint_eq(sum->sys[SYS_MMAP].differ, 1);
	ck_assert_uint_eq(sum->differ_by_result[SYS_MMAP][enomem], 1);
	ck_assert_uint_eq(sum->sys[SYS_MUNMAP].differ, 0);
	ck_assert_uint_eq(sum->over_limit, 1);
	free(sum);
}
END_TEST

/*
 * A file of more timelines than the replay's limit (REPLAY_TIMELINES_MAX)
 * is refused at the line of the first one beyond, naming file and line:
 * each timeline costs memory for the whole replay.
 */
START_TEST(test_timelines_bounded)
{
	struct replay_options opt = {
		.replay_path = replay_path, .workers = 1, .threads = 1,
	};
	unsigned n = REPLAY_TIMELINES_MAX + 1;
	char err[512] = "", want[PATH_MAX + 64];
	FILE *f = replay_begin();

	for (unsigned i = 1; i <= n; i++)
		fprintf(f, "%u 1:%u 0 0 - close 0 fd=1\n", i, i);
	replay_end(f, n);
	ck_assert_int_eq(replay_run(&opt, summary, err, sizeof(err)), -E2BIG);
	/* Four lines of header and markers, then the operations. */
	snprintf(want, sizeof(want), "%s:%u: more than %u timelines",
		 replay_path, n + 4, REPLAY_TIMELINES_MAX);
	ck_assert_msg(strstr(err, want), "%s", err);
}
END_TEST

/* CPU time of this process so far, in ns. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * spin_ns: a thread spins (on CPU) instead of sleeping for the last spin_ns
 * before an operation is due.  A wait of 200 ms, all of it within a spin of
 * 1 s, costs CPU time; with the default 100 us it is slept.  How much CPU
 * the spin gets is the host's to give: more than the sleep's (the replay
 * that sleeps runs second, its start-up warm), tight 50 ms more.
 */
START_TEST(test_spin)
{
	struct replay_options opt = { .speed = 1 };
	char err[512], *dir;
	uint64_t slept, spun, t0;
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 200000000 10 - mkdirat 0 path=%s/s mode=0755\n",
		sandbox);
	replay_end(f, 1);
	opt.replay_path = replay_path;
	opt.spin_ns = 1000000000ULL;
	t0 = cpu_ns();
	ck_assert_msg(replay_run(&opt, summary, err, sizeof(err)) == 0, "%s", err);
	spun = cpu_ns() - t0;
	ck_assert_uint_eq(summary->ops, 1);
	ck_assert_uint_ge(summary->duration_ns, 200000000ULL);
	dir = tu_join(sandbox, "s");
	ck_assert_int_eq(rmdir(dir), 0);
	free(dir);

	opt.spin_ns = 0;
	t0 = cpu_ns();
	ck_assert_msg(replay_run(&opt, summary, err, sizeof(err)) == 0, "%s", err);
	slept = cpu_ns() - t0;
	ck_assert_uint_eq(summary->ops, 1);
	ck_assert_uint_ge(summary->duration_ns, 200000000ULL);
	ck_assert_msg(spun > slept + (TU_TIGHT ? 50000000ULL : 0),
		      "spinning 200 ms took %llu ns of CPU, sleeping %llu",
		      (unsigned long long)spun, (unsigned long long)slept);
}
END_TEST

/* A stop request ends the replay early without an error. */
START_TEST(test_stop)
{
	static volatile sig_atomic_t stop = 1;
	struct stat st;
	FILE *f = replay_begin();

	fprintf(f, "1 1:1 0 10 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	replay_end(f, 1);
	ck_assert_int_eq(run(0, &stop, summary), 0);
	ck_assert_uint_eq(summary->ops, 0);
	ck_assert_int_eq(stat(sandbox, &st), 0);
	ck_assert(!in_sandbox("a"));
}
END_TEST

/*
 * Symlinks planted in the sandbox after init, pointing out of it: a file
 * link, a directory link and a relative link climbing out.  Opening,
 * truncating, writing, creating below, renaming over and unlinking through
 * them leave the outside untouched.
 */
START_TEST(test_hostile_symlinks)
{
	char *outside = tu_join(scratch, "outside");
	char *sentinel, *flink, *dlink, *rlink, *text;
	FILE *f;

	ck_assert_int_eq(mkdir(outside, 0755), 0);
	sentinel = tu_write_str(outside, "sentinel", "keep me");
	flink = tu_join(sandbox, "flink");
	dlink = tu_join(sandbox, "dlink");
	rlink = tu_join(sandbox, "rlink");
	ck_assert_int_eq(symlink(sentinel, flink), 0);
	ck_assert_int_eq(symlink(outside, dlink), 0);
	/* From <scratch>/m/.ioriot/t: up to <scratch>, then outside. */
	ck_assert_int_eq(symlink("../../../outside/sentinel", rlink), 0);

	f = replay_begin();
	fprintf(f, "1 1:1 0 10 - openat 3 vfd=1 path=%s flags=0x241 mode=0644\n",
		flink);
	fprintf(f, "2 1:1 0 10 - write 7 fd=1 count=7\n");
	fprintf(f, "3 1:1 0 10 - truncate 0 path=%s off=0\n", flink);
	fprintf(f, "4 1:1 0 10 - openat 3 vfd=2 path=%s/new flags=0x41 "
		"mode=0644\n", dlink);
	fprintf(f, "5 1:1 0 10 - mkdirat 0 path=%s/dir mode=0755\n", dlink);
	fprintf(f, "6 1:1 0 10 - unlinkat 0 path=%s/sentinel flags=0x0\n",
		dlink);
	fprintf(f, "7 1:2 0 10 - renameat 0 path=%s/sentinel path2=%s/x\n",
		dlink, sandbox);
	fprintf(f, "8 1:2 0 10 - chmod 0 path=%s mode=0777\n", flink);
	fprintf(f, "9 1:2 0 10 - truncate 0 path=%s off=0\n", rlink);
	replay_end(f, 9);
	ck_assert_int_eq(run(0, NULL, summary), 0);
	ck_assert_uint_eq(summary->ops, 9);
	ck_assert_uint_eq(total_differ(summary), 9);
	/* The links are followed, in the jail, where the outside is not:
	 * whichever component they are; the write then has no fd. */
	ck_assert_uint_eq(summary->differ_by_result[SYS_OPENAT][ENOENT], 2);
	ck_assert_uint_eq(summary->differ_by_result[SYS_TRUNCATE][ENOENT], 2);
	ck_assert_uint_eq(summary->differ_by_result[SYS_WRITE][EBADF], 1);

	text = tu_read(sentinel, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "keep me");
	struct stat st;
	ck_assert_int_eq(stat(sentinel, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	char *entry = tu_join(outside, "new");
	ck_assert_int_lt(lstat(entry, &st), 0);
	free(entry);
	entry = tu_join(outside, "dir");
	ck_assert_int_lt(lstat(entry, &st), 0);
	free(entry);
	free(text);
	free(flink);
	free(dlink);
	free(rlink);
	free(sentinel);
	free(outside);
}
END_TEST

/* A missing file and a truncated file are errors naming the file. */
START_TEST(test_bad_files)
{
	struct replay_options opt = { .replay_path = replay_path };
	char err[512] = "";
	FILE *f;

	ck_assert_int_eq(replay_run(&opt, summary, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, replay_path));

	f = replay_begin();
	fprintf(f, "1 1:1 0 10 - mkdirat 0 path=%s/a mode=0755\n", sandbox);
	ck_assert_int_eq(fclose(f), 0);
	err[0] = '\0';
	ck_assert_int_eq(replay_run(&opt, summary, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(err, replay_path));
	ck_assert(!in_sandbox("a"));
}
END_TEST

/* The bucket scheme: contiguous, each bucket narrow enough. */
START_TEST(test_hist_buckets)
{
	for (unsigned b = 0; b < REPLAY_HIST_BUCKETS; b++) {
		uint64_t top = replay_hist_top(b), v = replay_hist_value(b);
		uint64_t low = b ? replay_hist_top(b - 1) + 1 : 0;

		ck_assert_uint_eq(replay_hist_bucket(low), b);
		ck_assert_uint_eq(replay_hist_bucket(top), b);
		ck_assert_uint_eq(replay_hist_bucket(v), b);
		/* Its value within 1/64 of anything it holds. */
		ck_assert_uint_le((v - low) * 64, low);
		ck_assert_uint_le((top - v) * 64, low);
	}
	ck_assert_uint_eq(replay_hist_bucket(63), 63);
	ck_assert_uint_eq(replay_hist_top(REPLAY_HIST_BUCKETS - 1), INT64_MAX);
	ck_assert_uint_eq(replay_hist_bucket(UINT64_MAX),
			  REPLAY_HIST_BUCKETS - 1);
	/* An older ioriot's log2 bucket ends at 2^b - 1: a bucket's top. */
	for (unsigned b = 1; b < 64; b++)
		ck_assert_uint_eq(replay_hist_top(replay_hist_bucket(
			(1ULL << b) - 1)), (1ULL << b) - 1);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles of 100,000 latencies from 100 ns to 10 s within 1/64 of
 * the exact ones (docs/stats.md states 1.6%). */
START_TEST(test_percentile)
{
	static const double pct[] = { 50, 90, 95, 99, 99.9, 100 };
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	uint64_t *h = calloc(REPLAY_HIST_BUCKETS, sizeof(*h));
	double worst = 0;

	ck_assert(v && h);
	ck_assert_uint_eq(replay_hist_percentile(h, 50), 0);
	tu_latency_sample(v, N);
	for (size_t i = 0; i < N; i++)
		h[replay_hist_bucket(v[i])]++;
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		size_t rank = (size_t)(N * pct[i] / 100 + 0.5);
		uint64_t exact = v[rank - 1];
		uint64_t got = replay_hist_percentile(h, pct[i]);
		double err = fabs((double)got - (double)exact) / (double)exact;

		ck_assert_msg(err <= 1.0 / 64, "p%g: %llu, exactly %llu",
			      pct[i], (unsigned long long)got,
			      (unsigned long long)exact);
		if (err > worst)
			worst = err;
	}
	ck_assert_msg(worst > 0, "no percentile fell inside a bucket");
	free(v);
	free(h);
}
END_TEST

Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("engine");
	TCase *tt = tu_timing_case("replay timing");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tt, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tt, setup, teardown);
	tcase_set_timeout(tt, 60);
	tcase_add_test(tc, test_dependencies);
	tcase_add_test(tc, test_streaming_self_fed);
	tcase_add_test(tc, test_streaming_reader_thread);
	tcase_add_test(tc, test_late_error_self_fed);
	tcase_add_test(tc, test_late_error_reader_thread);
	tcase_add_test(tc, test_workers_threads);
	tcase_add_test(tc, test_many_timelines);
	tcase_add_test(tc, test_differ_and_missing_dep);
	tcase_add_test(tc, test_lock_waits);
	tcase_add_test(tc, test_stop_ends_waits);
	tcase_add_test(tc, test_differ_values);
	tu_add_timed_test(tc, tt, test_speed);
	tu_add_timed_test(tc, tt, test_spin);
	tcase_add_test(tc, test_think);
	tcase_add_test(tc, test_think_probe);
	tcase_add_test(tc, test_think_runq);
	tcase_add_test(tc, test_think_sync);
	tcase_add_test(tc, test_think_anchored);
	tcase_add_test(tc, test_think_lead);
	tcase_add_test(tc, test_think_daemon_follows_work);
	tcase_add_test(tc, test_uring_bufs_bounded);
	tcase_add_test(tc, test_aio_bounded);
	tcase_add_test(tc, test_uring_rings_bounded);
	tcase_add_test(tc, test_map_private_bounded);
	tcase_add_test(tc, test_timelines_bounded);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_hostile_symlinks);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_hist_buckets);
	tcase_add_test(tc, test_percentile);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);
	return s;
}
