/*
 * cputime: a capture workload (tests/test_capture.c) whose gaps between
 * file syscalls are known: one spent computing, one sleeping, so that the
 * capture's on-CPU keys (C, X) can be checked against them; and a child
 * process that writes, whose first replay operation names its parent.
 *
 * Usage: cputime DIR.  It changes into DIR, reads a byte from stdin (a
 * test lets it go once the capture runs; EOF goes too), then, through
 * syscall(2):
 *
 *   fd = open "f" O_CREAT|O_WRONLY|O_TRUNC 0644;
 *   write(fd, "a", 1);
 *   a busy loop of BUSY_NS of its own CPU time (CLOCK_THREAD_CPUTIME_ID);
 *   write(fd, "b", 1);
 *   nanosleep SLEEP_NS (not captured);
 *   write(fd, "c", 1);
 *   a child process: open "k" O_CREAT|O_WRONLY, write 1 byte, close,
 *   exit; waited for;
 *   close(fd);
 *
 * and last prints "busy_ns=N" to stderr: the CPU time the busy loop took
 * from its first reading of the clock to its last.  Every call is
 * checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "busy.h"

#define BUSY_NS 60000000ULL	/* 60 ms */
#define SLEEP_NS 60000000L

static void fail(const char *what, int line)
{
	fprintf(stderr, "cputime:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

int main(int argc, char **argv)
{
	struct timespec nap = { 0, SLEEP_NS };
	uint64_t busy_ns;
	char go;
	long fd, kfd;
	pid_t child;
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: cputime DIR\n");
		return 2;
	}
	CHECK(chdir(argv[1]) == 0);
	CHECK(read(0, &go, 1) >= 0);

	CHECK((fd = syscall(SYS_open, "f", O_CREAT | O_WRONLY | O_TRUNC,
			    0644)) >= 0);
	CHECK(syscall(SYS_write, fd, "a", 1) == 1);
	busy_ns = busy_for(BUSY_NS);
	CHECK(syscall(SYS_write, fd, "b", 1) == 1);
	CHECK(syscall(SYS_nanosleep, &nap, NULL) == 0);
	CHECK(syscall(SYS_write, fd, "c", 1) == 1);

	CHECK((child = fork()) >= 0);
	if (child == 0) {
		CHECK((kfd = syscall(SYS_open, "k", O_CREAT | O_WRONLY, 0644))
		      >= 0);
		CHECK(syscall(SYS_write, kfd, "k", 1) == 1);
		CHECK(syscall(SYS_close, kfd) == 0);
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(syscall(SYS_close, fd) == 0);
	fprintf(stderr, "busy_ns=%llu\n", (unsigned long long)busy_ns);
	return 0;
}
