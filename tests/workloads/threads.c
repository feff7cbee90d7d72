/*
 * threads: a capture workload (tests/test_capture.c) of threads that each
 * write their own file.
 *
 * Usage: threads DIR.  It waits for one byte on stdin (the probe is
 * attached), then starts NTHREADS threads, in order; thread I opens DIR/tI
 * (O_CREAT|O_WRONLY|O_TRUNC, 0644), writes (I+1)*1000 bytes, fsyncs and
 * closes it.  After joining them all, the main thread stats DIR/t0, DIR/t1,
 * ... (glibc: newfstatat) and checks their sizes.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NTHREADS 3

static const char *dir;

static void fail(const char *what, int line)
{
	fprintf(stderr, "threads:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* Block until the test says the probe is attached. */
static void wait_go(void)
{
	char c;

	CHECK(read(0, &c, 1) == 1);
}

static void *writer(void *arg)
{
	long i = (long)arg;
	size_t len = (size_t)(i + 1) * 1000;
	char path[4096], buf[NTHREADS * 1000];
	int fd;

	memset(buf, 'a' + (int)i, sizeof(buf));
	snprintf(path, sizeof(path), "%s/t%ld", dir, i);
	CHECK((fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	CHECK(fsync(fd) == 0);
	CHECK(close(fd) == 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	char path[4096];
	struct stat st;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: threads DIR\n");
		return 2;
	}
	dir = argv[1];
	umask(022);
	wait_go();

	for (long i = 0; i < NTHREADS; i++) {
		err = pthread_create(&th[i], NULL, writer, (void *)i);
		errno = err;
		CHECK(err == 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		err = pthread_join(th[i], NULL);
		errno = err;
		CHECK(err == 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(path, sizeof(path), "%s/t%d", dir, i);
		CHECK(stat(path, &st) == 0 && st.st_size == (i + 1) * 1000);
	}
	return 0;
}
