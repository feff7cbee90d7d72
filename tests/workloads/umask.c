/*
 * umask: a capture and round-trip workload (tests/test_capture.c,
 * tests/test_roundtrip.c) that makes files, directories, nodes and a Unix
 * socket under several umasks, so that the capture's umask key can be
 * checked call by call, and the replay's permissions file by file.
 *
 * Usage: umask DIR.  Before the capture it changes into DIR and sets its
 * umask to 077 (a process that was there before the capture).  Then it
 * reads a byte from stdin (a test lets it go once the capture runs; EOF
 * goes too) and does, in this
 * order (through syscall(2), so that the capture sees exactly these):
 *
 *   open "f600" O_CREAT|O_WRONLY 0666; close; mkdir "d700" 0777;
 *   open "f600" O_RDONLY (no umask logged); close;
 *   umask 027;
 *   openat(AT_FDCWD, "f640", O_CREAT|O_RDWR, 0666); close;
 *   mkdirat(AT_FDCWD, "d750", 0777); creat "c640" 0666; close;
 *   openat2(AT_FDCWD, "o600", O_CREAT|O_WRONLY, 0606); close;
 *   openat(AT_FDCWD, ".", O_TMPFILE|O_WRONLY, 0666); close;
 *   mknod "fifo" S_IFIFO|0666; mknodat(AT_FDCWD, "reg", S_IFREG|0666);
 *   a Unix socket bound to "sock" (0777 less the umask: 0750),
 *   chmod "sock" 0770, unlink "sock", close;
 *   a Unix socket bound to an abstract name and an IPv4 socket bound to
 *   127.0.0.1 port 0 (no file: not captured, counted), closed;
 *   a thread (sharing the umask): mkdir "t750" 0777;
 *   a child process: umask 0, mkdir "k777" 0777, exit; waited for;
 *   mkdir "p750" 0777 (the child's umask was its own).
 *
 * It then checks the modes the kernel gave (UMASK_MODES below) and exits 0.
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void fail(const char *what, int line)
{
	fprintf(stderr, "umask:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static void *thread_main(void *arg)
{
	(void)arg;
	CHECK(syscall(SYS_mkdir, "t750", 0777) == 0);
	return NULL;
}

/* A socket of @family bound to @addr (@len bytes), closed. */
static void bind_one(int family, const void *addr, socklen_t len)
{
	int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK(s >= 0);
	CHECK(syscall(SYS_bind, s, addr, len) == 0);
	CHECK(close(s) == 0);
}

static void check_mode(const char *path, mode_t want)
{
	struct stat st;

	CHECK(lstat(path, &st) == 0);
	if ((st.st_mode & 07777) != want) {
		fprintf(stderr, "umask: %s has mode 0%o, want 0%o\n", path,
			st.st_mode & 07777, want);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct open_how how = { .flags = O_CREAT | O_WRONLY, .mode = 0606 };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_in in = { .sin_family = AF_INET };
	pthread_t th;
	pid_t child;
	char c;
	int fd, status;

	if (argc != 2) {
		fprintf(stderr, "usage: umask DIR\n");
		return 2;
	}
	CHECK(chdir(argv[1]) == 0);
	umask(077);
	CHECK(read(0, &c, 1) >= 0);

	CHECK((fd = (int)syscall(SYS_open, "f600", O_CREAT | O_WRONLY,
				 0666)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(syscall(SYS_mkdir, "d700", 0777) == 0);
	CHECK((fd = (int)syscall(SYS_open, "f600", O_RDONLY)) >= 0);
	CHECK(close(fd) == 0);

	umask(027);
	CHECK((fd = (int)syscall(SYS_openat, AT_FDCWD, "f640",
				 O_CREAT | O_RDWR, 0666)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(syscall(SYS_mkdirat, AT_FDCWD, "d750", 0777) == 0);
	CHECK((fd = (int)syscall(SYS_creat, "c640", 0666)) >= 0);
	CHECK(close(fd) == 0);
	CHECK((fd = (int)syscall(SYS_openat2, AT_FDCWD, "o600", &how,
				 sizeof(how))) >= 0);
	CHECK(close(fd) == 0);
	CHECK((fd = (int)syscall(SYS_openat, AT_FDCWD, ".",
				 O_TMPFILE | O_WRONLY, 0666)) >= 0);
	CHECK(close(fd) == 0);
	CHECK(syscall(SYS_mknod, "fifo", S_IFIFO | 0666, 0) == 0);
	CHECK(syscall(SYS_mknodat, AT_FDCWD, "reg", S_IFREG | 0666, 0) == 0);

	strcpy(un.sun_path, "sock");
	bind_one(AF_UNIX, &un, sizeof(un));
	check_mode("sock", 0750);
	CHECK(syscall(SYS_chmod, "sock", 0770) == 0);
	CHECK(syscall(SYS_unlink, "sock") == 0);
	memset(un.sun_path, 0, sizeof(un.sun_path));
	snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1, "ioriot-umask-%d",
		 (int)getpid());
	bind_one(AF_UNIX, &un, (socklen_t)(offsetof(struct sockaddr_un,
						    sun_path) + 1 +
					   strlen(un.sun_path + 1)));
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind_one(AF_INET, &in, sizeof(in));

	CHECK(pthread_create(&th, NULL, thread_main, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		umask(0);
		CHECK(syscall(SYS_mkdir, "k777", 0777) == 0);
		_exit(0);
	}
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(syscall(SYS_mkdir, "p750", 0777) == 0);

	check_mode("f600", 0600);
	check_mode("d700", 0700);
	check_mode("f640", 0640);
	check_mode("d750", 0750);
	check_mode("c640", 0640);
	check_mode("o600", 0600);
	check_mode("fifo", 0640);
	check_mode("reg", 0640);
	check_mode("t750", 0750);
	check_mode("k777", 0777);
	check_mode("p750", 0750);
	return 0;
}
