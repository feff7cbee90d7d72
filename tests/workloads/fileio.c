/*
 * fileio: a capture workload (tests/test_capture.c) of fd-based I/O.
 *
 * Usage: fileio DIR.  Before the capture it creates DIR/pre (1000 bytes),
 * opens it read-write and seeks to 100; then it waits for one byte on stdin
 * (the probe is attached) and does, in this order:
 *
 *   read pre 50 bytes; open (legacy syscall) DIR/data O_CREAT|O_RDWR|O_TRUNC
 *   0644; write 100; writev 10+20+30; pwrite64 and pread64 4096 bytes at
 *   5 GiB; lseek SEEK_END (5 GiB + 4096) and SEEK_SET 0; readv 50+50; fsync;
 *   fdatasync; ftruncate 6 GiB; fstat (glibc: newfstatat AT_EMPTY_PATH);
 *   fstat (legacy syscall); stat (glibc: newfstatat); statx; fcntl F_GETFL
 *   and F_SETFL O_APPEND; dup; dup2 onto stdout; write 7 bytes to fd 1;
 *   close fd 1 and the dup; close data; creat DIR/made 0600; close it;
 *   lseek SEEK_CUR on pre (150); close pre.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define GIB (1024LL * 1024 * 1024)

static void fail(const char *what, int line)
{
	fprintf(stderr, "fileio:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* Block until the test says the probe is attached. */
static void wait_go(void)
{
	char c;

	CHECK(read(0, &c, 1) == 1);
}

int main(int argc, char **argv)
{
	char buf[4096], pre[4096], data[4096], made[4096];
	struct iovec iov[3];
	struct stat st;
	struct statx stx;
	int pfd, fd, dfd, flags;

	if (argc != 2) {
		fprintf(stderr, "usage: fileio DIR\n");
		return 2;
	}
	umask(022);
	snprintf(pre, sizeof(pre), "%s/pre", argv[1]);
	snprintf(data, sizeof(data), "%s/data", argv[1]);
	snprintf(made, sizeof(made), "%s/made", argv[1]);
	memset(buf, 'x', sizeof(buf));

	/* Before the capture: a file that is open when it starts. */
	CHECK((pfd = open(pre, O_CREAT | O_RDWR | O_TRUNC, 0644)) >= 0);
	CHECK(write(pfd, buf, 1000) == 1000);
	CHECK(lseek(pfd, 100, SEEK_SET) == 100);
	wait_go();

	CHECK(read(pfd, buf, 50) == 50);
	CHECK((fd = (int)syscall(SYS_open, data, O_CREAT | O_RDWR | O_TRUNC,
				 0644)) >= 0);
	CHECK(write(fd, buf, 100) == 100);
	iov[0] = (struct iovec){ buf, 10 };
	iov[1] = (struct iovec){ buf, 20 };
	iov[2] = (struct iovec){ buf, 30 };
	CHECK(writev(fd, iov, 3) == 60);
	CHECK(pwrite(fd, buf, 4096, 5 * GIB) == 4096);
	CHECK(pread(fd, buf, 4096, 5 * GIB) == 4096);
	CHECK(lseek(fd, 0, SEEK_END) == 5 * GIB + 4096);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	iov[0] = (struct iovec){ buf, 50 };
	iov[1] = (struct iovec){ buf + 50, 50 };
	CHECK(readv(fd, iov, 2) == 100);
	CHECK(fsync(fd) == 0);
	CHECK(fdatasync(fd) == 0);
	CHECK(ftruncate(fd, 6 * GIB) == 0);
	CHECK(fstat(fd, &st) == 0 && st.st_size == 6 * GIB);
	CHECK(syscall(SYS_fstat, fd, &st) == 0 && st.st_size == 6 * GIB);
	CHECK(stat(data, &st) == 0 && st.st_size == 6 * GIB);
	CHECK(statx(AT_FDCWD, data, 0, STATX_BASIC_STATS, &stx) == 0 &&
	      stx.stx_size == 6 * GIB);
	CHECK((flags = fcntl(fd, F_GETFL)) >= 0 && (flags & O_ACCMODE) == O_RDWR);
	CHECK(fcntl(fd, F_SETFL, O_APPEND) == 0);
	CHECK((dfd = dup(fd)) > fd);
	CHECK(dup2(fd, 1) == 1);
	CHECK(write(1, "stdout\n", 7) == 7);
	CHECK(close(1) == 0);
	CHECK(close(dfd) == 0);
	CHECK(close(fd) == 0);
	CHECK((fd = (int)syscall(SYS_creat, made, 0600)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(lseek(pfd, 0, SEEK_CUR) == 150);
	CHECK(close(pfd) == 0);
	return 0;
}
