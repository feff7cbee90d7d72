/*
 * paths: a capture workload (tests/test_capture.c) of path operations, with
 * paths relative to a real dirfd and to a changed working directory.
 *
 * Usage: paths DIR.  Before the capture it changes into DIR and opens "."
 * as a directory fd (pfd).  Then it waits for one byte on stdin (the probe
 * is attached) and does, in this order (legacy calls through syscall(2), so
 * that the capture sees exactly these syscalls):
 *
 *   mkdir "d0" 0755; openat(pfd, "d0/pre", O_CREAT|O_WRONLY, 0644); close;
 *   unlinkat(pfd, "d0/pre", 0); rmdir "d0";
 *   dfd = open DIR O_DIRECTORY; mkdirat(dfd, "sub", 0755);
 *   openat(dfd, "sub/f1", O_CREAT|O_EXCL|O_WRONLY, 0600); write 5; close;
 *   fstatat(dfd, "sub/f1"); statx(dfd, "sub/f1", AT_SYMLINK_NOFOLLOW);
 *   renameat2(dfd, "sub/f1", dfd, "sub/f2", RENAME_NOREPLACE);
 *   symlinkat("f2", dfd, "sub/sl"); readlinkat(dfd, "sub/sl") (2);
 *   linkat(dfd, "sub/f2", dfd, "sub/l2", 0); fchmodat(dfd, "sub/l2", 0600);
 *   unlinkat(dfd, "sub/sl", 0); unlinkat(dfd, "sub/l2", 0);
 *   chdir DIR; mkdir "d2" 0700; chdir "d2"; open "f3" O_CREAT|O_RDWR 0644;
 *   close; creat "f4" 0640; close; rename "f4" "f5"; link "../sub/f2"
 *   "hard"; symlink "../sub/f2" "sym"; readlink "sym" (9); lstat "sym";
 *   stat "sym"; chmod "f3" 0600; access "f3" R_OK; access "nope" F_OK
 *   (ENOENT); opendir "." and readdir to the end (getdents64); closedir;
 *   sfd = openat(dfd, "sub", O_DIRECTORY); fchdir sfd; stat "f2"; close sfd;
 *   chdir ".."; unlinkat(dfd, "d2/hard", 0); unlink "d2/sym";
 *   unlinkat(dfd, "sub", AT_REMOVEDIR) (ENOTEMPTY); unlink "sub/f2";
 *   unlinkat(dfd, "sub", AT_REMOVEDIR); rmdir "d2" (ENOTEMPTY); unlink
 *   "d2/f3" and "d2/f5"; rmdir "d2"; close dfd and pfd.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void fail(const char *what, int line)
{
	fprintf(stderr, "paths:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

/* Block until the test says the probe is attached. */
static void wait_go(void)
{
	char c;

	CHECK(read(0, &c, 1) == 1);
}

/* The names in the current directory, to the end of it. */
static int count_entries(void)
{
	DIR *d;
	int n = 0;

	CHECK((d = opendir(".")) != NULL);
	errno = 0;
	while (readdir(d))
		n++;
	CHECK(errno == 0);
	CHECK(closedir(d) == 0);
	return n;
}

int main(int argc, char **argv)
{
	const char *dir;
	char link[64];
	struct stat st;
	struct statx stx;
	int pfd, dfd, sfd, fd;

	if (argc != 2) {
		fprintf(stderr, "usage: paths DIR\n");
		return 2;
	}
	dir = argv[1];
	umask(022);
	/* Before the capture: the working directory and a dirfd. */
	CHECK(chdir(dir) == 0);
	CHECK((pfd = open(".", O_RDONLY | O_DIRECTORY)) >= 0);
	wait_go();

	CHECK(syscall(SYS_mkdir, "d0", 0755) == 0);
	CHECK((fd = openat(pfd, "d0/pre", O_CREAT | O_WRONLY, 0644)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(unlinkat(pfd, "d0/pre", 0) == 0);
	CHECK(syscall(SYS_rmdir, "d0") == 0);

	CHECK((dfd = open(dir, O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(mkdirat(dfd, "sub", 0755) == 0);
	CHECK((fd = openat(dfd, "sub/f1", O_CREAT | O_EXCL | O_WRONLY,
			   0600)) >= 0);
	CHECK(write(fd, "hello", 5) == 5);
	CHECK(close(fd) == 0);
	CHECK(fstatat(dfd, "sub/f1", &st, 0) == 0 && st.st_size == 5);
	CHECK(statx(dfd, "sub/f1", AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS,
		    &stx) == 0 && stx.stx_size == 5);
	CHECK(renameat2(dfd, "sub/f1", dfd, "sub/f2", RENAME_NOREPLACE) == 0);
	CHECK(symlinkat("f2", dfd, "sub/sl") == 0);
	CHECK(readlinkat(dfd, "sub/sl", link, sizeof(link)) == 2);
	CHECK(linkat(dfd, "sub/f2", dfd, "sub/l2", 0) == 0);
	CHECK(fchmodat(dfd, "sub/l2", 0600, 0) == 0);
	CHECK(unlinkat(dfd, "sub/sl", 0) == 0);
	CHECK(unlinkat(dfd, "sub/l2", 0) == 0);

	CHECK(chdir(dir) == 0);
	CHECK(syscall(SYS_mkdir, "d2", 0700) == 0);
	CHECK(chdir("d2") == 0);
	CHECK((fd = (int)syscall(SYS_open, "f3", O_CREAT | O_RDWR, 0644)) >= 0);
	CHECK(close(fd) == 0);
	CHECK((fd = (int)syscall(SYS_creat, "f4", 0640)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(syscall(SYS_rename, "f4", "f5") == 0);
	CHECK(syscall(SYS_link, "../sub/f2", "hard") == 0);
	CHECK(syscall(SYS_symlink, "../sub/f2", "sym") == 0);
	CHECK(syscall(SYS_readlink, "sym", link, sizeof(link)) == 9);
	CHECK(syscall(SYS_lstat, "sym", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(syscall(SYS_stat, "sym", &st) == 0 && st.st_size == 5);
	CHECK(syscall(SYS_chmod, "f3", 0600) == 0);
	CHECK(syscall(SYS_access, "f3", R_OK) == 0);
	CHECK(syscall(SYS_access, "nope", F_OK) == -1 && errno == ENOENT);
	/* ., .., f3, f5, hard, sym */
	CHECK(count_entries() == 6);
	CHECK((sfd = openat(dfd, "sub", O_RDONLY | O_DIRECTORY)) >= 0);
	CHECK(fchdir(sfd) == 0);
	CHECK(syscall(SYS_stat, "f2", &st) == 0 && st.st_size == 5);
	CHECK(close(sfd) == 0);
	CHECK(chdir("..") == 0);

	CHECK(unlinkat(dfd, "d2/hard", 0) == 0);
	CHECK(syscall(SYS_unlink, "d2/sym") == 0);
	CHECK(unlinkat(dfd, "sub", AT_REMOVEDIR) == -1 && errno == ENOTEMPTY);
	CHECK(syscall(SYS_unlink, "sub/f2") == 0);
	CHECK(unlinkat(dfd, "sub", AT_REMOVEDIR) == 0);
	CHECK(syscall(SYS_rmdir, "d2") == -1 && errno == ENOTEMPTY);
	CHECK(syscall(SYS_unlink, "d2/f3") == 0);
	CHECK(syscall(SYS_unlink, "d2/f5") == 0);
	CHECK(syscall(SYS_rmdir, "d2") == 0);
	CHECK(close(dfd) == 0);
	CHECK(close(pfd) == 0);
	return 0;
}
