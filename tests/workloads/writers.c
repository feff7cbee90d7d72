/*
 * writers: a round-trip workload (tests/test_roundtrip.c) of several
 * processes writing at the same time.
 *
 * Usage: writers DIR.  The parent forks NPROCS children, which run at once
 * and all:
 *  - try mkdir DIR/shared (one succeeds, the others get EEXIST);
 *  - append NRECS records of 100 bytes to DIR/log (O_APPEND, shared by all),
 *    fdatasync after each;
 *  - write their own file DIR/shared/cI in NRECS writes of (I+1)*512
 *    bytes as DIR/shared/cI.tmp, fsync it, rename it to cI;
 *  - create and remove DIR/shared/scratchI.
 * The parent waits for them all, then stats DIR/log and checks its size.
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

#define NPROCS 4
#define NRECS 8
#define RECLEN 100

static void fail(const char *what, int line)
{
	fprintf(stderr, "writers:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static char buf[NPROCS * 512];

static void child(int dirfd, int i)
{
	char tmp[32], name[32], scratch[32];
	size_t len = (size_t)(i + 1) * 512;
	int log, fd;

	if (mkdirat(dirfd, "shared", 0755) < 0)
		CHECK(errno == EEXIST);
	snprintf(tmp, sizeof(tmp), "shared/c%d.tmp", i);
	snprintf(name, sizeof(name), "shared/c%d", i);
	snprintf(scratch, sizeof(scratch), "shared/scratch%d", i);
	CHECK((log = openat(dirfd, "log", O_WRONLY | O_CREAT | O_APPEND |
			    O_CLOEXEC, 0644)) >= 0);
	CHECK((fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC |
			   O_CLOEXEC, 0644)) >= 0);
	for (int r = 0; r < NRECS; r++) {
		CHECK(write(log, buf, RECLEN) == RECLEN);
		CHECK(fdatasync(log) == 0);
		CHECK(write(fd, buf, len) == (ssize_t)len);
	}
	CHECK(fsync(fd) == 0);
	CHECK(close(fd) == 0);
	CHECK(renameat(dirfd, tmp, dirfd, name) == 0);
	CHECK((fd = openat(dirfd, scratch, O_WRONLY | O_CREAT | O_EXCL |
			   O_CLOEXEC, 0600)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(unlinkat(dirfd, scratch, 0) == 0);
	CHECK(close(log) == 0);
}

int main(int argc, char **argv)
{
	pid_t pids[NPROCS];
	struct stat st;
	int dirfd, status;

	if (argc != 2) {
		fprintf(stderr, "usage: writers DIR\n");
		return 2;
	}
	memset(buf, 'w', sizeof(buf));
	CHECK((dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	for (int i = 0; i < NPROCS; i++) {
		CHECK((pids[i] = fork()) >= 0);
		if (pids[i] == 0) {
			child(dirfd, i);
			_exit(0);
		}
	}
	for (int i = 0; i < NPROCS; i++) {
		CHECK(waitpid(pids[i], &status, 0) == pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(fstatat(dirfd, "log", &st, 0) == 0);
	CHECK(st.st_size == NPROCS * NRECS * RECLEN);
	CHECK(close(dirfd) == 0);
	return 0;
}
