/*
 * forkexec: a capture workload (tests/test_capture.c) of fd inheritance
 * through fork and exec.
 *
 * Usage: forkexec DIR.  Before the capture it finds its own binary; then it
 * waits for one byte on stdin (the probe is attached) and does, in order:
 *
 *   open DIR/forked O_CREAT|O_WRONLY|O_TRUNC 0644; write 5; fork: the child
 *   writes 10 bytes to the inherited fd and exits 0; the parent waits for it,
 *   writes 20 and closes.  Then open DIR/cloexec with O_CLOEXEC and
 *   DIR/inherited without; write 3 to the first; exec itself as
 *   "forkexec stage2 DIR NFD CFD".
 *
 * Stage 2 checks that fd CFD was closed by the exec (fcntl F_GETFD fails
 * with EBADF), writes 6 bytes to the inherited fd NFD and closes it.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(const char *what, int line)
{
	fprintf(stderr, "forkexec:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* Block until the test says the probe is attached. */
static void wait_go(void)
{
	char c;

	CHECK(read(0, &c, 1) == 1);
}

/* After the exec: NFD is still open, CFD is not. */
static int stage2(int nfd, int cfd)
{
	CHECK(fcntl(cfd, F_GETFD) == -1 && errno == EBADF);
	CHECK(write(nfd, "stage2", 6) == 6);
	CHECK(close(nfd) == 0);
	return 0;
}

int main(int argc, char **argv)
{
	char self[4096], path[4096], nfds[16], cfds[16];
	ssize_t n;
	pid_t child;
	int fd, cfd, nfd, status;

	if (argc == 5 && strcmp(argv[1], "stage2") == 0)
		return stage2(atoi(argv[3]), atoi(argv[4]));
	if (argc != 2) {
		fprintf(stderr, "usage: forkexec DIR\n");
		return 2;
	}
	umask(022);
	CHECK((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0);
	self[n] = '\0';
	wait_go();

	snprintf(path, sizeof(path), "%s/forked", argv[1]);
	CHECK((fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0);
	CHECK(write(fd, "first", 5) == 5);
	CHECK((child = fork()) >= 0);
	if (child == 0) {
		CHECK(write(fd, "from child", 10) == 10);
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(write(fd, "parent after waiting", 20) == 20);
	CHECK(close(fd) == 0);

	snprintf(path, sizeof(path), "%s/cloexec", argv[1]);
	CHECK((cfd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC,
			  0644)) >= 0);
	snprintf(path, sizeof(path), "%s/inherited", argv[1]);
	CHECK((nfd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644)) >= 0);
	CHECK(write(cfd, "cfd", 3) == 3);
	snprintf(nfds, sizeof(nfds), "%d", nfd);
	snprintf(cfds, sizeof(cfds), "%d", cfd);
	execl(self, self, "stage2", argv[1], nfds, cfds, (char *)NULL);
	fail("execl", __LINE__);
	return 1;
}
