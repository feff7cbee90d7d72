/*
 * Tests of the sandbox (src/init/sandbox.c): splitting sandbox roots,
 * creating and opening <mnt>/.ioriot/NAME, the trash, purge, and
 * sandbox_openat() both through openat2 and through its O_NOFOLLOW walk (the
 * walk is forced by a seccomp filter that makes openat2 fail with ENOSYS).
 *
 * Everything but sandbox_split needs root: each test runs in its own mount
 * namespace (so its mounts vanish with it even when it fails) and mounts a
 * tmpfs on a directory of its scratch directory as the "mountpoint".  Next
 * to .ioriot on that tmpfs lies a sentinel directory that no operation may
 * touch.  The teardowns unmount whatever is left below the scratch
 * directories, and the last test checks that no mount was left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/paths.h"
#include "ioriot/sandbox.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Mount points of this suite all have this component prefix, so that the
 * last test can tell its own leftovers from anybody else's mounts. */
#define MOUNT_MARK "sbxm-"
#define NOBODY 65534

/* ---- paths ---- */

/* A formatted path in one of a few rotating static buffers. */
__attribute__((format(printf, 1, 2)))
static const char *at(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX];
	static unsigned next;
	char *buf = bufs[next++ % ARRAY_SIZE(bufs)];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	ck_assert(n > 0 && n < PATH_MAX);
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void xmkdir(const char *path, mode_t mode)
{
	ck_assert_msg(mkdir(path, mode) == 0, "mkdir %s: %s", path,
		      strerror(errno));
}

static void xsymlink(const char *target, const char *path)
{
	ck_assert_msg(symlink(target, path) == 0, "symlink %s: %s", path,
		      strerror(errno));
}

static void xwrite(const char *path, const char *text)
{
	char *dir = strdup(path), *slash = strrchr(dir, '/');

	ck_assert(slash);
	*slash = '\0';
	free(tu_write_str(dir, slash + 1, text));
	free(dir);
}

/* True if @path is a regular file holding exactly @text. */
static bool holds(const char *path, const char *text)
{
	char *got = tu_read(path, NULL);
	bool same = got && strcmp(got, text) == 0;

	free(got);
	return same;
}

/* Number of entries of directory @path (without . and ..), -1 if none. */
static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* The only entry of directory @path, into @name (NAME_MAX + 1 bytes). */
static void only_entry(const char *path, char *name)
{
	DIR *d = opendir(path);
	struct dirent *de;

	ck_assert_msg(d, "%s: %s", path, strerror(errno));
	name[0] = '\0';
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strcpy(name, de->d_name);
	closedir(d);
	ck_assert_int_eq(count_entries(path), 1);
}

/* ---- mounts ---- */

static void mount_tmpfs(const char *dir)
{
	ck_assert_msg(mount("tmpfs", dir, "tmpfs", 0, "size=64m") == 0,
		      "mount tmpfs on %s: %s", dir, strerror(errno));
}

/*
 * The most recent mount point at or below @dir (or, if @dir is NULL, with a
 * component starting with MOUNT_MARK below a tu_mkdtemp directory) into
 * @mp (PATH_MAX bytes); false if there is none.
 */
static bool last_mount(const char *dir, char *mp)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[2 * PATH_MAX], cur[PATH_MAX];
	size_t dlen = dir ? strlen(dir) : 0;
	bool found = false;

	ck_assert(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %4095s", cur) != 1)
			continue;
		if (dir ? strncmp(cur, dir, dlen) == 0 &&
			  (cur[dlen] == '/' || cur[dlen] == '\0') :
			  strstr(cur, "/ioriot-test-") &&
			  strstr(cur, "/" MOUNT_MARK)) {
			strcpy(mp, cur);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* Unmount everything at or below @dir, most recent first. */
static void umount_below(const char *dir)
{
	char mp[PATH_MAX];

	for (int i = 0; i < 64 && last_mount(dir, mp); i++)
		if (umount2(mp, MNT_DETACH) < 0)
			break;
}

/* ---- fixtures ---- */

static char tc_root[PATH_MAX];	/* the tcase's tu_root directory */

/* Unchecked: the tcase root, and whatever a failed test left mounted below
 * it (only if it ran without its own mount namespace, CK_FORK=no). */
static void root_setup(void)
{
	char *s;

	tu_root_setup();
	s = tu_scratch();
	snprintf(tc_root, sizeof(tc_root), "%s", s);
	*strrchr(tc_root, '/') = '\0';
	rmdir(s);
	free(s);
}

static void root_teardown(void)
{
	umount_below(tc_root);
	tu_root_teardown();
}

static char scratch[PATH_MAX];	/* this test's directory */
static char mnt[PATH_MAX];	/* scratch/sbxm-mnt, a tmpfs */
static char sentinel[PATH_MAX];	/* mnt/sentinel: outside .ioriot */
static struct stat sentinel_st, keep_st;
static int cwd_fd = -1;		/* the cwd before the test */

/* Checked: a private mount namespace, the tmpfs and the sentinel. */
static void env_setup(void)
{
	char *s;

	umask(022);
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert(cwd_fd >= 0);
	ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare: %s",
		      strerror(errno));
	ck_assert_msg(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
		      "make / private: %s", strerror(errno));
	s = tu_scratch();
	snprintf(scratch, sizeof(scratch), "%s", s);
	free(s);
	snprintf(mnt, sizeof(mnt), "%s", at("%s/" MOUNT_MARK "mnt", scratch));
	xmkdir(mnt, 0755);
	mount_tmpfs(mnt);
	snprintf(sentinel, sizeof(sentinel), "%s", at("%s/sentinel", mnt));
	xmkdir(sentinel, 0700);
	xwrite(at("%s/keep", sentinel), "sentinel");
	ck_assert(lstat(sentinel, &sentinel_st) == 0);
	ck_assert(lstat(at("%s/keep", sentinel), &keep_st) == 0);
}

static void env_teardown(void)
{
	ck_assert(fchdir(cwd_fd) == 0);
	close(cwd_fd);
	umount_below(scratch);
}

static bool same_meta(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_mode == b->st_mode &&
	       a->st_uid == b->st_uid && a->st_gid == b->st_gid &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The sentinel directory and its file are exactly as env_setup left them
 * (the directory's mtime also catches an entry created and removed). */
static void sentinel_intact(void)
{
	struct stat st;

	ck_assert_msg(lstat(sentinel, &st) == 0 && same_meta(&st, &sentinel_st),
		      "sentinel directory %s was changed", sentinel);
	ck_assert_msg(lstat(at("%s/keep", sentinel), &st) == 0 &&
		      same_meta(&st, &keep_st), "sentinel file was changed");
	ck_assert_msg(holds(at("%s/keep", sentinel), "sentinel"),
		      "sentinel file content was changed");
	ck_assert_int_eq(count_entries(sentinel), 1);
}

/* <mnt>/.ioriot/@rel */
static const char *top(const char *rel)
{
	return at("%s/" SANDBOX_DIR "%s%s", mnt, *rel ? "/" : "", rel);
}

static int sb_open(const char *name, uid_t uid)
{
	char err[512] = "";
	int fd = sandbox_open(mnt, name, uid, uid, err, sizeof(err));

	ck_assert_msg(fd >= 0, "sandbox_open %s: %d %s", name, fd, err);
	return fd;
}

/* ---- sandbox_split ---- */

static const struct {
	const char *root, *mnt, *name;
} split_ok[] = {
	{ "/mnt/x/.ioriot/t", "/mnt/x", "t" },
	{ "/.ioriot/t", "/", "t" },
	{ "/m/.ioriot/my-test.1", "/m", "my-test.1" },
	{ "/a/b c/.ioriot/t", "/a/b c", "t" },
};

START_TEST(split_valid)
{
	char out[PATHMAP_MAX];
	const char *name = NULL;

	memset(out, 'Z', sizeof(out));
	ck_assert_int_eq(sandbox_split(split_ok[_i].root, out, &name), 0);
	ck_assert_str_eq(out, split_ok[_i].mnt);
	ck_assert_ptr_nonnull(name);
	ck_assert_str_eq(name, split_ok[_i].name);
	/* a pointer into the root, as documented */
	ck_assert_ptr_eq(name, split_ok[_i].root + strlen(split_ok[_i].root) -
			 strlen(split_ok[_i].name));
}
END_TEST

static const char *const split_bad[] = {
	"/mnt/x/t", "/mnt/.ioriot/..", "/mnt/.ioriot/a/b", "relative/.ioriot/t",
	"/mnt//.ioriot/t", "/mnt/.ioriotX/t", "/mnt/X.ioriot/t", "/mnt/.ioriot",
	"/.ioriot", "/mnt/.ioriot/", "/mnt/.ioriot/t/", "/mnt/.ioriot/.",
	"/mnt/./.ioriot/t", "/mnt/x/../.ioriot/t", ".ioriot/t", "", "/",
	"/mnt/.ioriot/a b", "/mnt/.ioriot/tab\t", "/mnt/.ioriot/del\x7f",
};

START_TEST(split_invalid)
{
	char out[PATHMAP_MAX];
	const char *name = NULL;

	ck_assert_msg(sandbox_split(split_bad[_i], out, &name) == -EINVAL,
		      "\"%s\" accepted", split_bad[_i]);
}
END_TEST

/* A 256-byte name, and a root longer than PATHMAP_MAX. */
START_TEST(split_too_long)
{
	char root[PATHMAP_MAX + 64], out[PATHMAP_MAX];
	const char *name;

	snprintf(root, sizeof(root), "/m/.ioriot/%0256d", 0);
	ck_assert_int_eq(sandbox_split(root, out, &name), -EINVAL);
	snprintf(root, sizeof(root), "/m/.ioriot/%0255d", 0);
	ck_assert_int_eq(sandbox_split(root, out, &name), 0);
	memset(root, 'a', sizeof(root));
	root[0] = '/';
	memcpy(root + sizeof(root) - 12, "/.ioriot/t", 11);
	ck_assert_int_eq(sandbox_split(root, out, &name), -EINVAL);
}
END_TEST

/* ---- sandbox_open ---- */

START_TEST(open_creates)
{
	struct stat st, fst;
	int fd = sb_open("t", NOBODY), fd2;

	ck_assert(lstat(top(""), &st) == 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_uint_eq(st.st_gid, 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert(lstat(top("t"), &st) == 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, NOBODY);
	ck_assert_uint_eq(st.st_gid, NOBODY);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
	ck_assert(fstat(fd, &fst) == 0);
	ck_assert_uint_eq(fst.st_ino, st.st_ino);
	ck_assert_uint_eq(fst.st_dev, st.st_dev);
	/* a real directory fd, usable for *at calls */
	ck_assert(mkdirat(fd, "sub", 0700) == 0);
	ck_assert(exists(top("t/sub")));

	/* reopening gives the same directory, ownership unchanged */
	fd2 = sb_open("t", NOBODY);
	ck_assert(fstat(fd2, &fst) == 0);
	ck_assert_uint_eq(fst.st_ino, st.st_ino);
	ck_assert_uint_eq(fst.st_uid, NOBODY);
	close(fd2);

	/* a second test directory; (uid_t)-1 keeps the creator (root) */
	fd2 = sb_open("u", (uid_t)-1);
	ck_assert(lstat(top("u"), &st) == 0);
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_uint_eq(st.st_gid, 0);
	ck_assert_int_eq(count_entries(top("")), 2);
	ck_assert(exists(top("t/sub")));
	close(fd2);
	close(fd);
	sentinel_intact();
}
END_TEST

/* .ioriot or NAME as a symlink to (or into) the sentinel directory. */
static const struct {
	bool top;		/* the symlink is .ioriot, else .ioriot/t */
	const char *target;	/* "@x": <sentinel>/x; else literal */
} open_links[] = {
	{ true, "@" },
	{ true, "sentinel" },
	{ true, "@new" },
	{ false, "@" },
	{ false, "../sentinel" },
	{ false, "@new" },
	{ false, "@keep" },
};

static const char *link_target(const char *t)
{
	return t[0] == '@' ? at("%s%s%s", sentinel, t[1] ? "/" : "", t + 1) : t;
}

START_TEST(open_refuses_symlink)
{
	char err[512] = "";
	const char *target = link_target(open_links[_i].target);
	int fd;

	if (open_links[_i].top) {
		xsymlink(target, top(""));
	} else {
		xmkdir(top(""), 0755);
		xsymlink(target, top("t"));
	}
	fd = sandbox_open(mnt, "t", NOBODY, NOBODY, err, sizeof(err));
	ck_assert_msg(fd == -ELOOP, "got %d (%s)", fd, err);
	ck_assert(err[0] != '\0');
	sentinel_intact();
	ck_assert(!exists(at("%s/new", sentinel)));
}
END_TEST

/* .ioriot or NAME is the mount point of another tmpfs: -EXDEV, and the
 * other file system is not touched. */
START_TEST(open_refuses_other_mount)
{
	const char *where = _i == 0 ? top("") : top("t");
	char err[512] = "";
	struct stat st;
	int fd;

	xmkdir(top(""), 0755);
	if (_i == 1)
		xmkdir(top("t"), 0755);
	mount_tmpfs(where);
	xwrite(at("%s/inner", where), "inner");
	fd = sandbox_open(mnt, "t", NOBODY, NOBODY, err, sizeof(err));
	ck_assert_msg(fd == -EXDEV, "got %d (%s)", fd, err);
	ck_assert(err[0] != '\0');
	ck_assert(holds(at("%s/inner", where), "inner"));
	ck_assert_int_eq(count_entries(where), 1);
	ck_assert(lstat(where, &st) == 0);
	ck_assert_uint_eq(st.st_uid, 0);
	sentinel_intact();
}
END_TEST

/* Names that are no test names: nothing may be created or opened outside
 * <mnt>/.ioriot ("@x" is <sentinel>/x, an absolute path). */
static const char *const open_bad_names[] = {
	"..", ".", "../escape", "a/b", "", "@abs",
};

/* Pseudo file systems hold no test: a cgroup v1 hierarchy (root would make
 * a cgroup there and give it to the test user), sysfs, proc. */
START_TEST(open_refuses_pseudo_fs)
{
	static const char *const pseudo[] = { "/sys", "/proc" };
	char err[512];

	for (size_t i = 0; i < sizeof(pseudo) / sizeof(*pseudo); i++) {
		struct stat st;
		int fd;

		if (stat(pseudo[i], &st) < 0)
			continue;
		err[0] = '\0';
		fd = sandbox_open_mount(pseudo[i], err, sizeof(err));
		ck_assert_msg(fd == -EINVAL, "%s: %d %s", pseudo[i], fd, err);
		ck_assert_msg(strstr(err, "holds no files") ||
			      strstr(err, "not a mountpoint"), "%s", err);
	}
	/* A blkio hierarchy of cgroup v1, where there is one. */
	if (access("/sys/fs/cgroup/blkio", F_OK) == 0) {
		ck_assert_int_eq(sandbox_open_mount("/sys/fs/cgroup/blkio", err,
						    sizeof(err)), -EINVAL);
		ck_assert_msg(strstr(err, "holds no files"), "%s", err);
	}
}
END_TEST

START_TEST(open_refuses_bad_name)
{
	const char *name = link_target(open_bad_names[_i]);
	char err[512] = "";
	int fd;

	xmkdir(top(""), 0755);
	fd = sandbox_open(mnt, name, NOBODY, NOBODY, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	ck_assert_msg(fd < 0, "sandbox_open(\"%s\") gave a directory", name);
	ck_assert(!exists(at("%s/escape", mnt)));
	ck_assert_int_eq(count_entries(mnt), 2);	/* sentinel, .ioriot */
	ck_assert_int_eq(count_entries(top("")), 0);
	sentinel_intact();
}
END_TEST

/* ---- sandbox_openat ---- */

/* Seccomp filter: openat2 fails with ENOSYS, as on kernels before 5.6. */
#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#endif

static bool deny_openat2(void)
{
#ifdef ARCH_NATIVE
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return false;
	return syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how)) < 0 &&
	       errno == ENOSYS;
#else
	return false;
#endif
}

#define NO_FILTER INT_MIN	/* the child could not install the filter */

/* Send @r, and the fd @r if it is one, over @sock. */
static void send_result(int sock, int r)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(cbuf, 0, sizeof(cbuf));
	if (r >= 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &r, sizeof(int));
	}
	if (sendmsg(sock, &msg, 0) < 0)
		_exit(1);
}

static int recv_result(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int r;
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	ck_assert(recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) == sizeof(r));
	/* cppcheck-suppress uninitvar ; recvmsg() filled it (iov) */
	if (r < 0)
		return r;
	c = CMSG_FIRSTHDR(&msg);
	ck_assert(c && c->cmsg_type == SCM_RIGHTS);
	memcpy(&r, CMSG_DATA(c), sizeof(int));
	return r;
}

/*
 * sandbox_openat(), through openat2 if !@walk, else in a child process in
 * which openat2 fails with ENOSYS (the fd comes back over a socket).
 */
static int sb_openat(bool walk, int dirfd, const char *rel, int flags,
		     mode_t mode)
{
	int sv[2], r, status;
	pid_t pid;

	if (!walk)
		return sandbox_openat(dirfd, rel, flags, mode);
	ck_assert(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		r = deny_openat2() ? sandbox_openat(dirfd, rel, flags, mode) :
				     NO_FILTER;
		send_result(sv[1], r);
		_exit(0);
	}
	close(sv[1]);
	r = recv_result(sv[0]);
	close(sv[0]);
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(r != NO_FILTER, "cannot make openat2 fail (seccomp)");
	return r;
}

enum rel_kind {
	REL,		/* rel as it is */
	IN_SENTINEL,	/* <sentinel>/rel, absolute */
	PROC_FD,	/* rel + the number of an fd of <sentinel>/keep */
};

#define ANY_ERROR 1

static const struct openat_case {
	const char *rel;
	enum rel_kind kind;
	int flags;
	mode_t mode;
	int expect;		/* 0: an fd; ANY_ERROR; or -errno */
	const char *gone;	/* below <mnt>: must not exist afterwards */
	mode_t perm;		/* the permissions of a result */
} openat_cases[] = {
	/* normal use */
	{ "new", REL, O_WRONLY | O_CREAT | O_EXCL, 0640, 0, NULL, 0640 },
	{ "d/new", REL, O_RDWR | O_CREAT, 0600, 0, NULL, 0600 },
	{ "d/f", REL, O_RDONLY, 0, 0, NULL, 0644 },
	{ "d/f", REL, O_RDONLY, 0644, 0, NULL, 0644 },
	{ "d", REL, O_RDONLY | O_DIRECTORY, 0, 0, NULL, 0755 },
	/* a mode without O_CREAT is ignored, as by openat() */
	{ "d", REL, O_RDONLY | O_DIRECTORY, 0755, 0, NULL, 0755 },
	{ "x/y", REL, O_WRONLY | O_CREAT, 0644, -ENOENT, "x", 0 },
	{ "", REL, O_RDONLY, 0, ANY_ERROR, NULL, 0 },
	/* "..", absolute paths */
	{ "../escape", REL, O_WRONLY | O_CREAT, 0644, -EXDEV,
	  ".ioriot/escape", 0 },
	{ "../../sentinel/keep", REL, O_WRONLY | O_TRUNC, 0, -EXDEV, NULL, 0 },
	{ "d/../../escape", REL, O_WRONLY | O_CREAT, 0644, -EXDEV,
	  ".ioriot/escape", 0 },
	{ "keep", IN_SENTINEL, O_WRONLY | O_TRUNC, 0, -EXDEV, NULL, 0 },
	{ "made", IN_SENTINEL, O_WRONLY | O_CREAT, 0644, -EXDEV, NULL, 0 },
	/* symlinks */
	{ "out/keep", REL, O_WRONLY | O_TRUNC, 0, -ELOOP, NULL, 0 },
	{ "out/made", REL, O_WRONLY | O_CREAT, 0644, -ELOOP, NULL, 0 },
	{ "rel/keep", REL, O_WRONLY | O_TRUNC, 0, -ELOOP, NULL, 0 },
	{ "d/last", REL, O_WRONLY | O_CREAT | O_TRUNC, 0644, -ELOOP, NULL, 0 },
	{ "dangling", REL, O_WRONLY | O_CREAT, 0644, -ELOOP, NULL, 0 },
	{ "in/f", REL, O_RDONLY, 0, -ELOOP, NULL, 0 },
	/* other mounts: a tmpfs, proc's magic links, a bind-mounted file */
	{ "m/inner", REL, O_RDONLY, 0, -EXDEV, NULL, 0 },
	{ "m", REL, O_RDONLY | O_DIRECTORY, 0, -EXDEV, NULL, 0 },
	{ "m/made", REL, O_WRONLY | O_CREAT, 0644, -EXDEV,
	  ".ioriot/t/m/made", 0 },
	{ "p/self/cwd/made", REL, O_WRONLY | O_CREAT, 0644, -EXDEV, NULL, 0 },
	{ "p/self/fd/", PROC_FD, O_WRONLY | O_TRUNC, 0, -EXDEV, NULL, 0 },
	{ "/proc/self/fd/", PROC_FD, O_WRONLY | O_TRUNC, 0, -EXDEV, NULL, 0 },
	{ "bound", REL, O_WRONLY | O_TRUNC, 0, -EXDEV, NULL, 0 },
};

#define NOPENAT ARRAY_SIZE(openat_cases)

/*
 * Sandbox t: d/f ("data"), symlinks out -> <sentinel>, rel ->
 * ../../sentinel, d/last -> <sentinel>/keep, dangling -> <sentinel>/made,
 * in -> d; m: a tmpfs with "inner"; p: proc; bound: <sentinel>/keep bind
 * mounted.  The cwd is the sentinel (for p/self/cwd).
 */
static int openat_world(int *keepfd)
{
	int fd = sb_open("t", NOBODY);

	xmkdir(top("t/d"), 0755);
	xwrite(top("t/d/f"), "data");
	xsymlink(sentinel, top("t/out"));
	xsymlink("../../sentinel", top("t/rel"));
	xsymlink(at("%s/keep", sentinel), top("t/d/last"));
	xsymlink(at("%s/made", sentinel), top("t/dangling"));
	xsymlink("d", top("t/in"));
	xmkdir(top("t/m"), 0755);
	mount_tmpfs(top("t/m"));
	xwrite(top("t/m/inner"), "inner");
	xmkdir(top("t/p"), 0555);
	ck_assert_msg(mount("proc", top("t/p"), "proc",
			    MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0,
		      "mount proc: %s", strerror(errno));
	xwrite(top("t/bound"), "");
	ck_assert_msg(mount(at("%s/keep", sentinel), top("t/bound"), NULL,
			    MS_BIND, NULL) == 0, "bind: %s", strerror(errno));
	*keepfd = open(at("%s/keep", sentinel), O_RDONLY | O_CLOEXEC);
	ck_assert(*keepfd >= 0);
	ck_assert(chdir(sentinel) == 0);
	/* the world as built: the sentinel is still as it was */
	ck_assert(lstat(sentinel, &sentinel_st) == 0);
	return fd;
}

static void openat_case(bool walk, const struct openat_case *c)
{
	char rel[PATH_MAX];
	int keepfd, sb = openat_world(&keepfd), fd;

	if (c->kind == IN_SENTINEL)
		snprintf(rel, sizeof(rel), "%s", at("%s/%s", sentinel, c->rel));
	else if (c->kind == PROC_FD)
		snprintf(rel, sizeof(rel), "%s%d", c->rel, keepfd);
	else
		snprintf(rel, sizeof(rel), "%s", c->rel);
	fd = sb_openat(walk, sb, rel, c->flags, c->mode);
	if (c->expect != 0 && fd >= 0)
		close(fd);
	/* nothing outside the sandbox changed, whatever the result */
	sentinel_intact();
	if (c->gone)
		ck_assert(!exists(at("%s/%s", mnt, c->gone)));
	ck_assert(holds(top("t/m/inner"), "inner"));
	ck_assert_int_eq(count_entries(top("t/m")), 1);
	if (c->expect == 0) {
		struct stat st, in;

		ck_assert_msg(fd >= 0, "\"%s\": %s", rel, strerror(-fd));
		ck_assert(fstat(fd, &st) == 0);
		ck_assert(fstatat(sb, rel, &in, AT_SYMLINK_NOFOLLOW) == 0);
		ck_assert_uint_eq(st.st_ino, in.st_ino);
		ck_assert_uint_eq(st.st_dev, in.st_dev);
		ck_assert_uint_eq(st.st_mode & 07777, c->perm);
		ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		if (!strcmp(c->rel, "d/f")) {
			char buf[8] = "";

			ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
			ck_assert_str_eq(buf, "data");
		}
		close(fd);
	} else {
		ck_assert_msg(fd < 0, "\"%s\" opened", rel);
		if (c->expect != ANY_ERROR)
			ck_assert_msg(fd == c->expect, "\"%s\": %s, not %s",
				      rel, strerror(-fd), strerror(-c->expect));
	}
	close(keepfd);
	close(sb);
}

START_TEST(openat_openat2)
{
	openat_case(false, &openat_cases[_i]);
}
END_TEST

START_TEST(openat_walk)
{
	openat_case(true, &openat_cases[_i]);
}
END_TEST

/* ---- trash ---- */

START_TEST(trash_moves)
{
	char name[NAME_MAX + 1], err[512] = "";
	struct stat st;
	int fd = sb_open("t", NOBODY);

	xwrite(top("t/f"), "data");
	close(fd);
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	ck_assert(!exists(top("t")));
	only_entry(top(".trash"), name);
	ck_assert(lstat(top(at(".trash/%s", name)), &st) == 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, NOBODY);
	ck_assert(holds(top(at(".trash/%s/f", name)), "data"));
	ck_assert_int_eq(count_entries(top("")), 1);
	sentinel_intact();
}
END_TEST

/* The same test trashed twice in a row (well within one second). */
START_TEST(trash_twice)
{
	char err[512] = "";
	DIR *d;
	struct dirent *de;
	int one = 0, two = 0;

	close(sb_open("t", NOBODY));
	xwrite(top("t/one"), "1");
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	close(sb_open("t", NOBODY));
	xwrite(top("t/two"), "2");
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	ck_assert(!exists(top("t")));
	ck_assert_int_eq(count_entries(top(".trash")), 2);
	d = opendir(top(".trash"));
	ck_assert(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		one += holds(top(at(".trash/%s/one", de->d_name)), "1");
		two += holds(top(at(".trash/%s/two", de->d_name)), "2");
		ck_assert_int_eq(count_entries(top(at(".trash/%s",
						      de->d_name))), 1);
	}
	closedir(d);
	ck_assert_int_eq(one, 1);
	ck_assert_int_eq(two, 1);
}
END_TEST

START_TEST(trash_nothing)
{
	char err[512] = "";

	/* no .ioriot at all: nothing is created */
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	ck_assert(!exists(top("")));
	/* .ioriot without the test */
	close(sb_open("u", NOBODY));
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	ck_assert(exists(top("u")));
	ck_assert(count_entries(top(".trash")) <= 0);
	sentinel_intact();
}
END_TEST

START_TEST(trash_all)
{
	char err[512] = "";
	size_t moved = 99;

	ck_assert_int_eq(sandbox_trash_all(mnt, &moved, err, sizeof(err)), 0);
	ck_assert_uint_eq(moved, 0);
	ck_assert(!exists(top("")));

	close(sb_open("t0", NOBODY));
	ck_assert_int_eq(sandbox_trash(mnt, "t0", err, sizeof(err)), 0);
	close(sb_open("t1", NOBODY));
	close(sb_open("t2", NOBODY));
	close(sb_open("t3", (uid_t)-1));
	xwrite(top("t2/f"), "2");
	moved = 99;
	ck_assert_int_eq(sandbox_trash_all(mnt, &moved, err, sizeof(err)), 0);
	ck_assert_uint_eq(moved, 3);
	ck_assert_int_eq(count_entries(top("")), 1);
	ck_assert(exists(top(".trash")));
	ck_assert_int_eq(count_entries(top(".trash")), 4);

	moved = 99;
	ck_assert_int_eq(sandbox_trash_all(mnt, &moved, err, sizeof(err)), 0);
	ck_assert_uint_eq(moved, 0);
	ck_assert_int_eq(count_entries(top(".trash")), 4);
	sentinel_intact();
}
END_TEST

/* .ioriot is a symlink to the sentinel directory (which holds "keep"). */
START_TEST(trash_top_symlink)
{
	char err[512] = "";
	size_t moved = 99;

	xsymlink(sentinel, top(""));
	ck_assert_int_eq(sandbox_trash(mnt, "keep", err, sizeof(err)), -ELOOP);
	ck_assert(err[0] != '\0');
	ck_assert_int_eq(sandbox_trash_all(mnt, &moved, err, sizeof(err)),
			 -ELOOP);
	ck_assert_uint_eq(moved, 0);
	sentinel_intact();
}
END_TEST

/* Names that are no test names must not move anything from outside. */
static const char *const trash_bad_names[] = { "../victim", "..", "." };

START_TEST(trash_refuses_bad_name)
{
	char err[512] = "";

	xmkdir(at("%s/victim", mnt), 0755);
	close(sb_open("t", NOBODY));
	sandbox_trash(mnt, trash_bad_names[_i], err, sizeof(err));
	ck_assert_msg(exists(at("%s/victim", mnt)),
		      "sandbox_trash(\"%s\") moved <mnt>/victim",
		      trash_bad_names[_i]);
	ck_assert(exists(top("t")));
	ck_assert(count_entries(top(".trash")) <= 0);
	sentinel_intact();
}
END_TEST

/* ---- purge ---- */

START_TEST(purge_all)
{
	char err[512] = "";
	size_t removed = 99;

	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)), 0);
	ck_assert_uint_eq(removed, 0);

	close(sb_open("t", NOBODY));
	xwrite(top("t/a"), "a");
	xmkdir(top("t/d"), 0700);
	xwrite(top("t/d/b"), "b");
	xmkdir(top("t/e"), 0);
	close(sb_open("u", NOBODY));
	xmkdir(top(".trash"), 0755);
	xmkdir(top(".trash/old"), 0755);
	xwrite(top(".trash/old/c"), "c");
	/* t a d b e u .trash old c, and .ioriot itself */
	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)), 0);
	ck_assert_uint_eq(removed, 10);
	ck_assert(!exists(top("")));
	ck_assert_int_eq(count_entries(mnt), 1);
	sentinel_intact();
}
END_TEST

START_TEST(purge_symlinks)
{
	char err[512] = "";
	size_t removed = 0;

	close(sb_open("t", NOBODY));
	xsymlink(sentinel, top("t/abs"));
	xsymlink("../../sentinel", top("t/rel"));
	xmkdir(top("t/d"), 0755);
	xsymlink(at("%s/keep", sentinel), top("t/d/file"));
	xsymlink(at("%s/made", sentinel), top("t/dangling"));
	xsymlink(sentinel, top("topl"));
	/* t abs rel d file dangling topl, and .ioriot */
	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)), 0);
	ck_assert_uint_eq(removed, 8);
	ck_assert(!exists(top("")));
	sentinel_intact();
}
END_TEST

/* A tmpfs mounted below a test: left alone, -EXDEV, the rest removed. */
START_TEST(purge_mount_below)
{
	char err[512] = "";
	size_t removed = 0;

	close(sb_open("t", NOBODY));
	xwrite(top("t/a"), "a");
	xmkdir(top("t/m"), 0755);
	mount_tmpfs(top("t/m"));
	xwrite(top("t/m/inner"), "inner");
	xmkdir(top("t/m/sub"), 0755);
	close(sb_open("u", NOBODY));
	xwrite(top("u/f"), "f");
	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)),
			 -EXDEV);
	ck_assert_msg(strstr(err, mnt), "message \"%s\"", err);
	ck_assert(holds(top("t/m/inner"), "inner"));
	ck_assert(exists(top("t/m/sub")));
	ck_assert(!exists(top("t/a")));
	ck_assert(!exists(top("u")));
	ck_assert_int_eq(count_entries(top("t")), 1);
	ck_assert_int_eq(count_entries(top("")), 1);
	ck_assert_uint_eq(removed, 3);	/* a u f */

	ck_assert(umount2(top("t/m"), 0) == 0);
	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)), 0);
	ck_assert_uint_eq(removed, 3);	/* m t .ioriot */
	ck_assert(!exists(top("")));
	sentinel_intact();
}
END_TEST

/* The sentinel directory (same file system) bind mounted below a test:
 * another mount too, so left alone. */
START_TEST(purge_bind_below)
{
	char err[512] = "";
	size_t removed = 0;
	int rc;

	close(sb_open("t", NOBODY));
	xmkdir(top("t/b"), 0755);
	ck_assert(mount(sentinel, top("t/b"), NULL, MS_BIND, NULL) == 0);
	rc = sandbox_purge(mnt, &removed, err, sizeof(err));
	sentinel_intact();
	ck_assert(holds(top("t/b/keep"), "sentinel"));
	ck_assert_msg(rc == -EXDEV, "got %d (%s)", rc, err);
}
END_TEST

/* .ioriot as a symlink (absolute, relative) to the sentinel directory. */
START_TEST(purge_top_symlink)
{
	char err[512] = "";
	size_t removed = 99;

	xsymlink(_i == 0 ? sentinel : "sentinel", top(""));
	ck_assert_int_eq(sandbox_purge(mnt, &removed, err, sizeof(err)),
			 -ELOOP);
	ck_assert(err[0] != '\0');
	ck_assert_uint_eq(removed, 0);
	ck_assert(exists(top("")));
	sentinel_intact();
}
END_TEST

/* A tree deeper than half the fd limit. */
START_TEST(purge_deep)
{
	enum { DEPTH = 100 };
	struct rlimit old, low;
	char err[512] = "";
	size_t removed = 0;
	int fd = sb_open("t", NOBODY);

	for (int i = 0; i < DEPTH; i++) {
		int sub;

		ck_assert(mkdirat(fd, "d", 0755) == 0);
		sub = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert(sub >= 0);
		close(fd);
		fd = sub;
	}
	close(fd);
	ck_assert(getrlimit(RLIMIT_NOFILE, &old) == 0);
	low = old;
	low.rlim_cur = 64;
	ck_assert(setrlimit(RLIMIT_NOFILE, &low) == 0);
	fd = sandbox_purge(mnt, &removed, err, sizeof(err));
	ck_assert(setrlimit(RLIMIT_NOFILE, &old) == 0);
	ck_assert_msg(fd == 0, "purge: %s", err);
	ck_assert_uint_eq(removed, DEPTH + 2);
	ck_assert(!exists(top("")));
}
END_TEST

/* ---- ext4 ---- */

/* Run @argv (output discarded); true if it exited with 0. */
static bool run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	ck_assert(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool have_mkfs_ext4(void)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (access(at("%s/mkfs.ext4", dirs[i]), X_OK) == 0)
			return true;
	return false;
}

/* The same operations on a loop-mounted ext4 (lost+found next to .ioriot). */
START_TEST(ext4_loop)
{
	char err[512] = "";
	const char *img = at("%s/ext4.img", scratch);
	char dir[PATH_MAX];
	size_t n = 0;
	struct stat st;
	int fd, sb, imgfd;

	if (!have_mkfs_ext4() || access("/dev/loop-control", F_OK) < 0) {
		fprintf(stderr, "test_sandbox: ext4_loop skipped: %s\n",
			have_mkfs_ext4() ? "no /dev/loop-control" :
					   "no mkfs.ext4");
		return;
	}
	snprintf(dir, sizeof(dir), "%s", at("%s/" MOUNT_MARK "ext4", scratch));
	xmkdir(dir, 0755);
	imgfd = open(img, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert(imgfd >= 0 && ftruncate(imgfd, 64 << 20) == 0);
	close(imgfd);
	ck_assert(run((char *const[]){ "mkfs.ext4", "-q", "-F", (char *)img,
				       NULL }));
	if (!run((char *const[]){ "mount", "-o", "loop", (char *)img, dir,
				  NULL })) {
		fprintf(stderr, "test_sandbox: ext4_loop skipped: "
			"mount -o loop failed\n");
		return;
	}
	snprintf(mnt, sizeof(mnt), "%s", dir);
	snprintf(sentinel, sizeof(sentinel), "%s", at("%s/sentinel", mnt));
	xmkdir(sentinel, 0700);
	xwrite(at("%s/keep", sentinel), "sentinel");
	ck_assert(lstat(sentinel, &sentinel_st) == 0);
	ck_assert(lstat(at("%s/keep", sentinel), &keep_st) == 0);

	sb = sb_open("t", NOBODY);
	ck_assert(lstat(top("t"), &st) == 0);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	ck_assert(mkdirat(sb, "d", 0755) == 0);
	fd = sandbox_openat(sb, "d/f", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_msg(fd >= 0, "%s", strerror(-fd));
	ck_assert(write(fd, "x", 1) == 1);
	close(fd);
	ck_assert(holds(top("t/d/f"), "x"));
	xsymlink(at("%s/keep", sentinel), top("t/d/l"));
	ck_assert_int_eq(sandbox_openat(sb, "d/l", O_WRONLY | O_TRUNC, 0),
			 -ELOOP);
	ck_assert_int_eq(sandbox_openat(sb, "../../sentinel/keep",
					O_WRONLY | O_TRUNC, 0), -EXDEV);
	close(sb);

	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	close(sb_open("t", NOBODY));
	ck_assert_int_eq(sandbox_trash(mnt, "t", err, sizeof(err)), 0);
	ck_assert_int_eq(count_entries(top(".trash")), 2);

	close(sb_open("t", NOBODY));
	xmkdir(top("t/m"), 0755);
	mount_tmpfs(top("t/m"));
	xwrite(top("t/m/inner"), "inner");
	ck_assert_int_eq(sandbox_purge(mnt, &n, err, sizeof(err)), -EXDEV);
	ck_assert(holds(top("t/m/inner"), "inner"));
	ck_assert(umount2(top("t/m"), 0) == 0);
	ck_assert_int_eq(sandbox_purge(mnt, &n, err, sizeof(err)), 0);
	ck_assert(!exists(top("")));
	ck_assert(exists(at("%s/lost+found", mnt)));
	sentinel_intact();
	ck_assert(umount2(dir, 0) == 0);
}
END_TEST

/* ---- the end ---- */

START_TEST(no_mounts_left)
{
	char mp[PATH_MAX];

	ck_assert_msg(!last_mount(NULL, mp), "still mounted: %s", mp);
}
END_TEST

static TCase *mount_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
	tcase_add_checked_fixture(tc, env_setup, env_teardown);
	return tc;
}

Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("split");

	tcase_add_loop_test(tc, split_valid, 0, ARRAY_SIZE(split_ok));
	tcase_add_loop_test(tc, split_invalid, 0, ARRAY_SIZE(split_bad));
	tcase_add_test(tc, split_too_long);
	suite_add_tcase(s, tc);
	if (geteuid() != 0) {
		fprintf(stderr, "test_sandbox: only sandbox_split tested: "
			"the rest needs root (mounts, chown)\n");
		return s;
	}

	tc = mount_tcase("open");
	tcase_add_test(tc, open_creates);
	tcase_add_loop_test(tc, open_refuses_symlink, 0,
			    ARRAY_SIZE(open_links));
	tcase_add_test(tc, open_refuses_pseudo_fs);
	tcase_add_loop_test(tc, open_refuses_other_mount, 0, 2);
	tcase_add_loop_test(tc, open_refuses_bad_name, 0,
			    ARRAY_SIZE(open_bad_names));
	suite_add_tcase(s, tc);

	tc = mount_tcase("openat");
	tcase_add_loop_test(tc, openat_openat2, 0, NOPENAT);
	tcase_add_loop_test(tc, openat_walk, 0, NOPENAT);
	suite_add_tcase(s, tc);

	tc = mount_tcase("trash");
	tcase_add_test(tc, trash_moves);
	tcase_add_test(tc, trash_twice);
	tcase_add_test(tc, trash_nothing);
	tcase_add_test(tc, trash_all);
	tcase_add_test(tc, trash_top_symlink);
	tcase_add_loop_test(tc, trash_refuses_bad_name, 0,
			    ARRAY_SIZE(trash_bad_names));
	suite_add_tcase(s, tc);

	tc = mount_tcase("purge");
	tcase_add_test(tc, purge_all);
	tcase_add_test(tc, purge_symlinks);
	tcase_add_test(tc, purge_mount_below);
	tcase_add_test(tc, purge_bind_below);
	tcase_add_loop_test(tc, purge_top_symlink, 0, 2);
	tcase_add_test(tc, purge_deep);
	suite_add_tcase(s, tc);

	tc = mount_tcase("ext4");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, ext4_loop);
	suite_add_tcase(s, tc);

	tc = tcase_create("cleanup");
	tcase_add_test(tc, no_mounts_left);
	suite_add_tcase(s, tc);
	return s;
}
