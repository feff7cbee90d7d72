/*
 * wakeorder: a capture workload (tests/test_capture.c) whose threads and
 * processes hand over through a futex and a pipe, for the order generate
 * draws from wake records (sync= and waited= in the replay file).
 *
 * Usage: wakeorder DIR.  It changes into DIR, reads a byte from stdin (a
 * test lets it go once the capture runs; EOF goes too), opens "f", starts
 * a thread, and then ROUNDS times:
 *
 *   the thread: sleeps NAP_NS, pwrite64(fd, 1 byte, offset i), fdatasync,
 *               sets the futex word to i + 1, FUTEX_WAKE_PRIVATE of 1;
 *   main:       FUTEX_WAIT_PRIVATE while the word is i (the thread's nap
 *               makes it sleep there), then pwrite64(fd, 1 byte, offset
 *               100 + i).
 *
 * It joins the thread, makes a pipe and a child process, and ROUNDS times:
 *
 *   the child:  sleeps NAP_NS, pwrite64(fd, 1 byte, offset 200 + i),
 *               fdatasync, writes a byte to the pipe;
 *   main:       reads a byte from the pipe (asleep there), then
 *               pwrite64(fd, 1 byte, offset 300 + i).
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5
#define NAP_NS 20000000L	/* 20 ms: main is asleep in its wait by then */

static atomic_int word;
static long fd;

static void fail(const char *what, int line)
{
	fprintf(stderr, "wakeorder:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static void *waker(void *arg)
{
	struct timespec nap = { 0, NAP_NS };

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		CHECK(nanosleep(&nap, NULL) == 0);
		CHECK(syscall(SYS_pwrite64, fd, "x", 1, (long)i) == 1);
		CHECK(syscall(SYS_fdatasync, fd) == 0);
		atomic_store(&word, i + 1);
		CHECK(syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL,
			      NULL, 0) >= 0);
	}
	return NULL;
}

/* The child of the pipe rounds: it writes the byte main waits for. */
static void pipe_writer(int wfd)
{
	struct timespec nap = { 0, NAP_NS };

	for (int i = 0; i < ROUNDS; i++) {
		CHECK(nanosleep(&nap, NULL) == 0);
		CHECK(syscall(SYS_pwrite64, fd, "p", 1, 200L + i) == 1);
		CHECK(syscall(SYS_fdatasync, fd) == 0);
		CHECK(write(wfd, "w", 1) == 1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	pthread_t t;
	char go;

	if (argc != 2) {
		fprintf(stderr, "usage: wakeorder DIR\n");
		return 2;
	}
	CHECK(chdir(argv[1]) == 0);
	CHECK(read(0, &go, 1) >= 0);
	CHECK((fd = syscall(SYS_openat, AT_FDCWD, "f",
			    O_CREAT | O_RDWR | O_TRUNC, 0644)) >= 0);
	CHECK(pthread_create(&t, NULL, waker, NULL) == 0);
	for (int i = 0; i < ROUNDS; i++) {
		while (atomic_load(&word) == i)
			CHECK(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, i,
				      NULL, NULL, 0) == 0 || errno == EAGAIN ||
			      errno == EINTR);
		CHECK(syscall(SYS_pwrite64, fd, "y", 1, 100L + i) == 1);
	}
	CHECK(pthread_join(t, NULL) == 0);

	int pfd[2], status;
	pid_t child;
	char b;

	CHECK(pipe(pfd) == 0);
	CHECK((child = fork()) >= 0);
	if (child == 0) {
		CHECK(close(pfd[0]) == 0);
		pipe_writer(pfd[1]);
	}
	CHECK(close(pfd[1]) == 0);
	for (int i = 0; i < ROUNDS; i++) {
		CHECK(read(pfd[0], &b, 1) == 1);
		CHECK(syscall(SYS_pwrite64, fd, "q", 1, 300L + i) == 1);
	}
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(close(pfd[0]) == 0);
	CHECK(close((int)fd) == 0);
	return 0;
}
