/*
 * pingpong: a benchmark load of context switches and wake-ups, what a
 * capture with wake records (--sync) hooks.  Two processes hand one byte
 * back and forth through two pipes for SECONDS; each round trip is two
 * sleeps and two wake-ups.  Prints one line:
 *
 *   pingpong: ROUNDS round trips in S s: NS ns wall, CPU ns CPU per round trip
 *
 * (CPU: both processes' user and system time).  Usage: pingpong [SECONDS]
 * (default 1).  Exits 1 with a message if a call fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void fail(const char *what)
{
	fprintf(stderr, "pingpong: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		fail("clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		fail("getrusage");
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0, t1, cpu;
	int to_child[2], to_parent[2], status;
	unsigned long rounds = 0;
	pid_t child;
	char b = 0;

	if (secs <= 0 || pipe(to_child) || pipe(to_parent))
		fail(secs <= 0 ? "SECONDS must be above 0" : "pipe");
	child = fork();
	if (child < 0)
		fail("fork");
	if (child == 0) {
		/* Echo every byte back until the parent closes its end. */
		ssize_t n;

		if (close(to_child[1]) || close(to_parent[0]))
			fail("close");
		while ((n = read(to_child[0], &b, 1)) == 1)
			if (write(to_parent[1], &b, 1) != 1)
				fail("write");
		if (n < 0)
			fail("read");
		_exit(0);
	}
	if (close(to_child[0]) || close(to_parent[1]))
		fail("close");
	t0 = now_s();
	do {
		for (int i = 0; i < 1000; i++) {
			if (write(to_child[1], &b, 1) != 1)
				fail("write");
			if (read(to_parent[0], &b, 1) != 1)
				fail("read");
		}
		rounds += 1000;
	} while ((t1 = now_s()) - t0 < secs);
	if (close(to_child[1]) || waitpid(child, &status, 0) != child)
		fail("ending the child");
	cpu = cpu_s(RUSAGE_SELF) + cpu_s(RUSAGE_CHILDREN);
	printf("pingpong: %lu round trips in %.2f s: %.0f ns wall, %.0f ns CPU "
	       "per round trip\n", rounds, t1 - t0, (t1 - t0) * 1e9 / rounds,
	       cpu * 1e9 / rounds);
	return 0;
}
