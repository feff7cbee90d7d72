/*
 * uncaptured: a capture workload (tests/test_capture.c) of syscalls the
 * probe does not capture, each made a known number of times by syscall(2),
 * so that the C library adds or changes none.
 *
 * Usage: uncaptured DIR.  Before the capture it opens DIR/file (created
 * empty) and, on x86_64, checks in a child whether this kernel runs ia32
 * syscalls made by int $0x80; if so it creates DIR/ia32.  Then it waits for
 * one byte on stdin (the probe is attached) and makes, in this order
 * (counts in uncaptured.h): ioctl FIONREAD of the file (the probe captures
 * only the clone and dedupe commands, and counts the others); vmsplice of
 * fd -1 and remap_file_pages of no memory (they fail: the calls count);
 * cachestat of the file without a range (it fails, or on kernels before
 * 6.5 is no syscall: it counts either way); getppid; getpid by int $0x80
 * when DIR/ia32 was made.  Nothing else until exit_group.
 *
 * Every call whose result matters is checked: on failure it prints what
 * failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uncaptured.h"

#ifndef SYS_cachestat
#define SYS_cachestat 451	/* Linux 6.5; one number everywhere */
#endif

static void fail(const char *what, int line)
{
	fprintf(stderr, "uncaptured:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* getpid as an ia32 syscall (number 20), from 64-bit code. */
static long ia32_getpid(void)
{
#ifdef __x86_64__
	long ret;

	__asm__ volatile ("int $0x80" : "=a"(ret) : "a"(20L)
			  : "rcx", "r11", "memory");
	return ret;
#else
	return -1;
#endif
}

/* Whether ia32 syscalls work here: tried in a child, which a kernel
 * without them kills. */
static int ia32_works(void)
{
#ifdef __x86_64__
	int status;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(ia32_getpid() == getpid() ? 0 : 1);
	CHECK(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	char path[4096], c;
	int fd, ia32, n;
	pid_t self = getpid();

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/file", argv[1]);
	CHECK((fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0644)) >= 0);
	ia32 = ia32_works();
	if (ia32) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], UNCAP_IA32_MARK);
		int mark = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		CHECK(mark >= 0 && close(mark) == 0);
	}
	CHECK(read(0, &c, 1) == 1);	/* the probe is attached */

	for (int i = 0; i < UNCAP_IOCTLS; i++)
		CHECK(syscall(SYS_ioctl, fd, FIONREAD, &n) == 0 && n == 0);
	for (int i = 0; i < UNCAP_VMSPLICES; i++)
		CHECK(syscall(SYS_vmsplice, -1, NULL, 0, 0) < 0);
	for (int i = 0; i < UNCAP_REMAP; i++)
		CHECK(syscall(SYS_remap_file_pages, 0, 0, 0, 0, 0) < 0);
	for (int i = 0; i < UNCAP_CACHESTATS; i++)
		CHECK(syscall(SYS_cachestat, fd, NULL, NULL, 0) < 0);
	for (int i = 0; i < UNCAP_GETPPIDS; i++)
		CHECK(syscall(SYS_getppid) > 0);
	for (int i = 0; ia32 && i < UNCAP_IA32; i++)
		CHECK(ia32_getpid() == self);
	return 0;
}
