/*
 * fdrace: a capture workload (tests/test_capture.c) of threads that reuse
 * each other's fd numbers as fast as they can, while two more threads keep
 * both CPUs busy, so that opens and closes of different threads overlap and
 * get preempted between their start and the moment they take or free a
 * number.
 *
 * Usage: fdrace DIR.  It waits for one byte on stdin (the probe is
 * attached), then starts FDRACE_THREADS threads; thread I does
 * FDRACE_ITERS times: open DIR/rI (O_CREAT|O_WRONLY|O_TRUNC, 0644), write
 * FDRACE_BYTES bytes, close.  The test expects exactly that many writes in
 * the capture, each of them on a path below DIR.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdrace.h"

#define SPINNERS 2

static const char *dir;
static atomic_bool done;

static void fail(const char *what, int line)
{
	fprintf(stderr, "fdrace:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static void *writer(void *arg)
{
	char path[4096], buf[FDRACE_BYTES];
	int fd;

	memset(buf, 'r', sizeof(buf));
	snprintf(path, sizeof(path), "%s/r%ld", dir, (long)arg);
	for (int i = 0; i < FDRACE_ITERS; i++) {
		CHECK((fd = open(path, O_CREAT | O_WRONLY | O_TRUNC,
				 0644)) >= 0);
		CHECK(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
		CHECK(close(fd) == 0);
	}
	return NULL;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&done, memory_order_relaxed))
		;
	return NULL;
}

static void start(pthread_t *th, void *(*fn)(void *), long arg)
{
	int err = pthread_create(th, NULL, fn, (void *)arg);

	errno = err;
	CHECK(err == 0);
}

static void join(pthread_t th)
{
	int err = pthread_join(th, NULL);

	errno = err;
	CHECK(err == 0);
}

int main(int argc, char **argv)
{
	pthread_t writers[FDRACE_THREADS], spinners[SPINNERS];
	char c;

	if (argc != 2) {
		fprintf(stderr, "usage: fdrace DIR\n");
		return 2;
	}
	dir = argv[1];
	umask(022);
	CHECK(read(0, &c, 1) == 1);

	for (long i = 0; i < SPINNERS; i++)
		start(&spinners[i], spinner, i);
	for (long i = 0; i < FDRACE_THREADS; i++)
		start(&writers[i], writer, i);
	for (int i = 0; i < FDRACE_THREADS; i++)
		join(writers[i]);
	atomic_store(&done, true);
	for (int i = 0; i < SPINNERS; i++)
		join(spinners[i]);
	return 0;
}
