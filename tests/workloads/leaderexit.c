/*
 * leaderexit: a capture workload (tests/test_capture.c) whose main thread
 * ends before the process does: the process lives on in another thread.
 *
 * Usage: leaderexit DIR.  It waits for one byte on stdin (the probe is
 * attached), opens DIR/shared (O_CREAT|O_WRONLY|O_TRUNC, 0644), writes 4
 * bytes, starts a thread and leaves the main thread with pthread_exit().
 * The thread waits until the main thread is a zombie, then writes 6 bytes
 * to the shared fd, creates DIR/after (openat, 0644), writes 5 bytes to it,
 * closes both and ends the process with exit(0).
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

static const char *dir;
static int shared;

static void fail(const char *what, int line)
{
	fprintf(stderr, "leaderexit:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* Block until the test says the probe is attached. */
static void wait_go(void)
{
	char c;

	CHECK(read(0, &c, 1) == 1);
}

/* True once the main thread has exited (its task is a zombie). */
static int leader_gone(void)
{
	char path[64], buf[512], *paren;
	FILE *f;
	int gone;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	CHECK((f = fopen(path, "re")) != NULL);
	CHECK(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	CHECK((paren = strrchr(buf, ')')) != NULL);
	gone = paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
	return gone;
}

static void *survivor(void *arg)
{
	char path[4096];
	int fd;

	(void)arg;
	for (int i = 0; !leader_gone(); i++) {
		CHECK(i < 5000);
		usleep(1000);
	}
	CHECK(write(shared, "thread", 6) == 6);
	snprintf(path, sizeof(path), "%s/after", dir);
	CHECK((fd = openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC,
			   0644)) >= 0);
	CHECK(write(fd, "after", 5) == 5);
	CHECK(close(fd) == 0);
	CHECK(close(shared) == 0);
	exit(0);
}

int main(int argc, char **argv)
{
	char path[4096];
	pthread_t th;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: leaderexit DIR\n");
		return 2;
	}
	dir = argv[1];
	umask(022);
	wait_go();

	snprintf(path, sizeof(path), "%s/shared", dir);
	CHECK((shared = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0);
	CHECK(write(shared, "main", 4) == 4);
	err = pthread_create(&th, NULL, survivor, NULL);
	errno = err;
	CHECK(err == 0);
	pthread_exit(NULL);
}
