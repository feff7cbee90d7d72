/*
 * runqload: a capture workload (tests/test_capture.c) whose threads wait
 * for a CPU between their file syscalls, so that the capture's R (the
 * run delay in a gap) can be checked: two processes held to one CPU,
 * each computing between its writes, each runnable while the other runs.
 *
 * Usage: runqload DIR.  It changes into DIR, reads a byte from stdin (a
 * test lets it go once the capture runs; EOF goes too), keeps itself to
 * the CPU it runs on (sched_setaffinity), forks a child (which inherits
 * that), and each of the two then, through syscall(2):
 *
 *   fd = open "p" (the parent) or "c" (the child), O_CREAT|O_WRONLY, 0644;
 *   ROUNDS times: a busy loop of BUSY_NS of its own CPU time, write 1 byte;
 *   close(fd);
 *
 * The parent waits for the child.  Every call is checked: on failure it
 * prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "busy.h"

#define ROUNDS 4
#define BUSY_NS 20000000ULL	/* 20 ms */

static void fail(const char *what, int line)
{
	fprintf(stderr, "runqload:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static void rounds(const char *name)
{
	long fd;

	CHECK((fd = syscall(SYS_open, name, O_CREAT | O_WRONLY, 0644)) >= 0);
	for (int i = 0; i < ROUNDS; i++) {
		busy_for(BUSY_NS);
		CHECK(syscall(SYS_write, fd, "x", 1) == 1);
	}
	CHECK(syscall(SYS_close, fd) == 0);
}

int main(int argc, char **argv)
{
	cpu_set_t one;
	pid_t child;
	int status, cpu;
	char go;

	if (argc != 2) {
		fprintf(stderr, "usage: runqload DIR\n");
		return 2;
	}
	CHECK(chdir(argv[1]) == 0);
	CHECK(read(0, &go, 1) >= 0);
	CHECK((cpu = sched_getcpu()) >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);

	CHECK((child = fork()) >= 0);
	if (child == 0) {
		rounds("c");
		_exit(0);
	}
	rounds("p");
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}
