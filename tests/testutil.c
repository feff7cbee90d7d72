/* testutil: helpers for the Check suites (testutil.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

char *tu_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	ck_assert(asprintf(&path, "%s/ioriot-test-XXXXXX", base) > 0);
	ck_assert_msg(mkdtemp(path), "mkdtemp: %s", strerror(errno));
	/* The test user (nobody) must be able to reach sandboxes below. */
	ck_assert_int_eq(chmod(path, 0755), 0);
	return path;
}

static char *root;

void tu_root_setup(void)
{
	root = tu_mkdtemp();
}

void tu_root_teardown(void)
{
	tu_rmtree(root);
	free(root);
	root = NULL;
}

char *tu_scratch(void)
{
	char *dir;

	ck_assert(asprintf(&dir, "%s/t-XXXXXX", root) > 0);
	ck_assert_msg(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	return dir;
}

char *tu_join(const char *dir, const char *name)
{
	char *path;

	ck_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	return path;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

void tu_rmtree(const char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

char *tu_write(const char *dir, const char *name, const void *data, size_t len)
{
	char *path = tu_join(dir, name);
	FILE *f;

	f = fopen(path, "we");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

char *tu_write_str(const char *dir, const char *name, const char *text)
{
	return tu_write(dir, name, text, strlen(text));
}

void *tu_realloc(void *p, size_t size)
{
	void *grown = realloc(p, size);

	ck_assert_msg(grown, "out of memory for %zu bytes", size);
	return grown;
}

char *tu_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = tu_realloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *tu_datadir(void)
{
	const char *d = getenv("IORIOT_TESTDATA");

	return d && *d ? d : "tests/data";
}

const char *tu_bin(void)
{
	const char *b = getenv("IORIOT_BIN");

	return b && *b ? b : "./ioriot";
}

/* Read all of @fd into a malloc'd string. */
static char *slurp(int fd)
{
	char *buf = NULL;
	size_t cap = 0, n = 0;

	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = tu_realloc(buf, cap);
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	return buf;
}

int tu_run(char *const argv[], char **out, char **err)
{
	char out_tmpl[] = "/tmp/ioriot-out-XXXXXX";
	char err_tmpl[] = "/tmp/ioriot-err-XXXXXX";
	int ofd = mkstemp(out_tmpl), efd = mkstemp(err_tmpl), status;

	ck_assert(ofd >= 0 && efd >= 0);
	unlink(out_tmpl);
	unlink(err_tmpl);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(ofd, 1);
		dup2(efd, 2);
		execv(tu_bin(), argv);
		_exit(127);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	if (out)
		*out = slurp(ofd);
	if (err)
		*err = slurp(efd);
	close(ofd);
	close(efd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void tu_ioriot_argv(const char *const *args, char **argv)
{
	int n = 0;

	argv[0] = "ioriot";
	while (args[n]) {
		ck_assert_int_lt(n, TU_MAX_ARGS);
		argv[n + 1] = (char *)args[n];
		n++;
	}
	argv[n + 1] = NULL;
}

int tu_run_args(const char *const *args, char **out, char **err)
{
	char *argv[TU_MAX_ARGS + 2];

	tu_ioriot_argv(args, argv);
	return tu_run(argv, out, err);
}

char *tu_which(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (!path)
		return NULL;
	copy = strdup(path);
	ck_assert(copy);
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = tu_join(*dir ? dir : ".", name);

		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

int tu_exec(const char *const argv[], bool quiet)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			if (quiet)
				dup2(null, 2);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

bool tu_mount_image(const char *dir, const char *mkfs, const char *force,
		    unsigned mb)
{
	char *img;
	int fd;

	ck_assert(asprintf(&img, "%s.img", dir) > 0);
	fd = open(img, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)mb << 20) < 0) {
		printf("cannot make the image %s: %s\n", img, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(img);
		return false;
	}
	close(fd);
	const char *mk[] = { mkfs, "-q", force, img, NULL };
	const char *mnt[] = { "mount", "-o", "loop", img, dir, NULL };
	bool ok = mkdir(dir, 0755) == 0 && tu_exec(mk, false) == 0 &&
		  tu_exec(mnt, false) == 0;
	if (!ok)
		printf("cannot format and mount %s with %s\n", img, mkfs);
	free(img);
	return ok;
}

/* A free loop device attached to @img_fd with @sector_size-byte logical
 * blocks, detached by the kernel on its last close: its open fd, its name
 * in @name.  Returns -1, saying why on stdout, if it cannot. */
static int loop_attach(int img_fd, unsigned sector_size, char *name,
		       size_t len)
{
	struct loop_config cfg = {
		.fd = (unsigned)img_fd,
		.block_size = sector_size,
		.info = { .lo_flags = LO_FLAGS_AUTOCLEAR },
	};
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), n, fd = -1;

	if (ctl < 0) {
		printf("/dev/loop-control: %s\n", strerror(errno));
		return -1;
	}
	/* Another process may take the free device first: try again. */
	for (int tries = 0; fd < 0 && tries < 20; tries++) {
		if ((n = ioctl(ctl, LOOP_CTL_GET_FREE)) < 0)
			break;
		snprintf(name, len, "/dev/loop%d", n);
		if ((fd = open(name, O_RDWR | O_CLOEXEC)) < 0)
			continue;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) < 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0)
		printf("cannot set up a loop device: %s\n", strerror(errno));
	close(ctl);
	return fd;
}

bool tu_mount_loop(const char *dir, unsigned mb, unsigned sector_size,
		   const char *const mkfs[])
{
	const char *argv[16];
	char *img, dev[32] = "";
	const char *mnt[] = { "mount", dev, dir, NULL };
	size_t n = 0;
	int fd, loop = -1;
	bool ok = false;

	ck_assert(asprintf(&img, "%s.img", dir) > 0);
	fd = open(img, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)mb << 20) < 0) {
		printf("cannot make the image %s: %s\n", img, strerror(errno));
		goto out;
	}
	if ((loop = loop_attach(fd, sector_size, dev, sizeof(dev))) < 0)
		goto out;
	while (n < sizeof(argv) / sizeof(argv[0]) - 2 && mkfs[n]) {
		argv[n] = mkfs[n];
		n++;
	}
	argv[n++] = dev;
	argv[n] = NULL;
	ok = mkdir(dir, 0755) == 0 && tu_exec(argv, false) == 0 &&
	     tu_exec(mnt, false) == 0;
	if (!ok)
		printf("cannot format and mount %s with %s\n", dev, mkfs[0]);
out:
	/* Mounted, the file system holds the device; else it goes now. */
	if (loop >= 0)
		close(loop);
	if (fd >= 0)
		close(fd);
	free(img);
	return ok;
}

/* Write @text to /proc/self/@file; false if it cannot. */
static bool write_proc(const char *file, const char *text)
{
	char path[64];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* Without root: become root of a new user namespace (uid and gid mapped
 * to ours), where a tmpfs may be mounted. */
static bool enter_user_namespace(void)
{
	char map[64];
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();

	if (unshare(CLONE_NEWUSER) < 0)
		return false;
	snprintf(map, sizeof(map), "0 %u 1\n", uid);
	if (!write_proc("uid_map", map) || !write_proc("setgroups", "deny"))
		return false;
	snprintf(map, sizeof(map), "0 %u 1\n", gid);
	return write_proc("gid_map", map);
}

bool tu_mount_tmpfs(const char *dir)
{
	static bool private_ns;

	if (!private_ns) {
		if (geteuid() != 0 && !enter_user_namespace()) {
			printf("no tmpfs for %s: not root, and no user "
			       "namespace: %s\n", dir, strerror(errno));
			return false;
		}
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			printf("no mount namespace for %s: %s\n", dir,
			       strerror(errno));
			return false;
		}
		private_ns = true;
	}
	if (mkdir(dir, 0755) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "size=512m,mode=0755") < 0) {
		printf("cannot mount a tmpfs at %s: %s\n", dir, strerror(errno));
		return false;
	}
	return true;
}

const char *tu_cannot_capture(void)
{
	if (geteuid() != 0)
		return "not root";
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
		return "no /sys/kernel/btf/vmlinux (kernel without BTF)";
	return NULL;
}

pid_t tu_busy_loop(void)
{
	pid_t loop = fork();

	ck_assert_int_ge(loop, 0);
	if (loop == 0) {
		int null = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (null < 0 || dup2(null, 1) < 0)
			_exit(126);
		execl("/bin/sh", "sh", "-c",
		      "while :; do cat /etc/hostname /etc/passwd; done",
		      (char *)NULL);
		_exit(127);
	}
	return loop;
}

bool tu_wait_reading_stdin(pid_t pid)
{
	char path[64], want[32], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof(want), "%d 0x0 ", SYS_read);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "re");
		bool blocked = f && fgets(buf, sizeof(buf), f) &&
			       !strncmp(buf, want, strlen(want));

		if (f)
			fclose(f);
		if (blocked)
			return true;
		usleep(1000);
	}
	return false;
}

/* splitmix64: a uniform double in (0, 1) from *@state. */
static double uniform(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* A normal deviate (Box-Muller). */
static double normal(uint64_t *state)
{
	double u = uniform(state), w = uniform(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * w);
}

void tu_latency_sample(uint64_t *v, size_t n)
{
	uint64_t state = 42;

	for (size_t i = 0; i < n; i++) {
		double x;

		switch (i % 10) {
		case 0: case 1: case 2: case 3:		/* 100 ns .. 10 s */
			x = 100 * pow(1e8, uniform(&state));
			break;
		case 4: case 5: case 6:			/* 50 us +- 5 us */
			x = 50e3 + 5e3 * normal(&state);
			break;
		case 7: case 8:				/* 1 ms +- 0.5% */
			x = 1e6 + 5e3 * normal(&state);
			break;
		default:				/* 100 ms .. 10 s */
			x = 1e8 + 1e8 * -log(uniform(&state));
			break;
		}
		x = x < 100 ? 100 : x > 1e10 ? 1e10 : x;
		v[i] = (uint64_t)x;
	}
}

unsigned tu_timing_cases;

TCase *tu_timing_case(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_tags(tc, TU_TIMING_TAG);
	tu_timing_cases++;
	return tc;
}
