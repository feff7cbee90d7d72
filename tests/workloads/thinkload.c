/*
 * thinkload: a capture workload (tests/test_capture.c, test_think_replay)
 * whose two threads spend known think time between their file calls:
 * computing (a busy loop of BUSY_NS of the thread's own CPU time) and
 * sleeping (SLEEP_NS, a nanosleep the capture does not record), with
 * fsyncs between.  Captured, generated and replayed with --think, the
 * replay's accounted think time must be what the capture measured, and
 * that in turn about what this program did.
 *
 * Usage: thinkload DIR.  It changes into DIR, reads a byte from stdin (a
 * test lets it go once the capture runs; EOF goes too), then, through
 * syscall(2):
 *
 *   main thread                      thread "w", started after m's write
 *   fd = openat "m" O_CREAT|O_WRONLY|O_TRUNC 0644
 *   write(fd, "a", 1)
 *                                    fd = openat "w" (the same flags)
 *                                    write(fd, "a", 1)
 *   busy BUSY_NS                     nanosleep SLEEP_NS
 *   write(fd, "b", 1)                write(fd, "b", 1)
 *   fsync(fd)                        fsync(fd)
 *   nanosleep SLEEP_NS               busy BUSY_NS
 *   write(fd, "c", 1)                write(fd, "c", 1)
 *   fsync(fd)                        fsync(fd)
 *   (joins w)                        close(fd)
 *   close(fd)
 *
 * so each thread has one gap mostly on a CPU and one mostly asleep, and
 * the run 4 fsyncs.  Last it prints to stderr, per thread (m, then w):
 *
 *   thread=T busy_ns=B busy_wall_ns=BW sleep_ns=S span_ns=N
 *
 * B the CPU time its busy loop took (CLOCK_THREAD_CPUTIME_ID), BW its wall
 * time, S the wall time of its nanosleep and N of everything from just
 * before its openat to just after its close (CLOCK_MONOTONIC): its gaps
 * as captured lie inside N.  Every call is checked: on failure it prints
 * what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUSY_NS 50000000ULL	/* 50 ms */
#define SLEEP_NS 50000000L

struct thread {
	const char *name;
	uint64_t busy_ns, busy_wall_ns, sleep_ns, span_ns;
};

static void fail(const char *what, int line)
{
	fprintf(stderr, "thinkload:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static uint64_t clock_of(clockid_t id)
{
	struct timespec ts;

	CHECK(clock_gettime(id, &ts) == 0);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin until the thread has used BUSY_NS of CPU: what it used, and the
 * wall time that took, into @t. */
static void busy(struct thread *t)
{
	volatile uint64_t x = 0;
	uint64_t wall = clock_of(CLOCK_MONOTONIC);
	uint64_t start = clock_of(CLOCK_THREAD_CPUTIME_ID), now;

	do {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		now = clock_of(CLOCK_THREAD_CPUTIME_ID);
	} while (now - start < BUSY_NS);
	t->busy_ns = now - start;
	t->busy_wall_ns = clock_of(CLOCK_MONOTONIC) - wall;
}

/* Sleep SLEEP_NS (the raw syscall: never captured); returns how long. */
static uint64_t nap(void)
{
	struct timespec ts = { 0, SLEEP_NS };
	uint64_t start = clock_of(CLOCK_MONOTONIC);

	CHECK(syscall(SYS_nanosleep, &ts, NULL) == 0);
	return clock_of(CLOCK_MONOTONIC) - start;
}

static long open_new(const char *name)
{
	long fd = syscall(SYS_openat, AT_FDCWD, name,
			  O_CREAT | O_WRONLY | O_TRUNC, 0644);

	CHECK(fd >= 0);
	return fd;
}

static void put(long fd, const char *byte)
{
	CHECK(syscall(SYS_write, fd, byte, 1) == 1);
}

/* Thread w: asleep first, then busy. */
static void *worker(void *arg)
{
	struct thread *t = arg;
	uint64_t start = clock_of(CLOCK_MONOTONIC);
	long fd = open_new("w");

	put(fd, "a");
	t->sleep_ns = nap();
	put(fd, "b");
	CHECK(syscall(SYS_fsync, fd) == 0);
	busy(t);
	put(fd, "c");
	CHECK(syscall(SYS_fsync, fd) == 0);
	CHECK(syscall(SYS_close, fd) == 0);
	t->span_ns = clock_of(CLOCK_MONOTONIC) - start;
	return NULL;
}

int main(int argc, char **argv)
{
	struct thread t[2] = { { .name = "m" }, { .name = "w" } };
	uint64_t start;
	pthread_t th;
	long fd;
	char go;

	if (argc != 2) {
		fprintf(stderr, "usage: thinkload DIR\n");
		return 2;
	}
	CHECK(chdir(argv[1]) == 0);
	CHECK(read(0, &go, 1) >= 0);

	start = clock_of(CLOCK_MONOTONIC);
	fd = open_new("m");
	put(fd, "a");
	errno = pthread_create(&th, NULL, worker, &t[1]);
	CHECK(errno == 0);
	busy(&t[0]);
	put(fd, "b");
	CHECK(syscall(SYS_fsync, fd) == 0);
	t[0].sleep_ns = nap();
	put(fd, "c");
	CHECK(syscall(SYS_fsync, fd) == 0);
	errno = pthread_join(th, NULL);
	CHECK(errno == 0);
	CHECK(syscall(SYS_close, fd) == 0);
	t[0].span_ns = clock_of(CLOCK_MONOTONIC) - start;
	for (int i = 0; i < 2; i++)
		fprintf(stderr, "thread=%s busy_ns=%llu busy_wall_ns=%llu "
			"sleep_ns=%llu span_ns=%llu\n", t[i].name,
			(unsigned long long)t[i].busy_ns,
			(unsigned long long)t[i].busy_wall_ns,
			(unsigned long long)t[i].sleep_ns,
			(unsigned long long)t[i].span_ns);
	return 0;
}
