/* secutil: helpers of the security suites (secutil.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "secutil.h"

char sec_root[PATH_MAX];
char sec_mnt[PATH_MAX + 8];
bool sec_mounted;

void sec_setup(void)
{
	char *dir;

	if (geteuid() != 0) {
		printf("security: skipped, the attacks need root and a user "
		       "nobody\n");
		return;
	}
	dir = tu_mkdtemp();
	ck_assert(realpath(dir, sec_root));
	free(dir);
	snprintf(sec_mnt, sizeof(sec_mnt), "%s/m", sec_root);
	sec_mounted = tu_mount_image(sec_mnt, "mkfs.ext4", "-F", 64);
	if (!sec_mounted)
		printf("security: skipped, no ext4 loop mount\n");
}

void sec_teardown(void)
{
	if (sec_mounted && umount2(sec_mnt, 0) < 0 &&
	    umount2(sec_mnt, MNT_DETACH) < 0)
		printf("security: cannot unmount %s: %s\n", sec_mnt,
		       strerror(errno));
	sec_mounted = false;
	if (*sec_root)
		tu_rmtree(sec_root);
	*sec_root = '\0';
}

char *sec_at(const char *rel)
{
	return tu_join(sec_root, rel);
}

void sec_make_dir(const char *path, uid_t uid, mode_t mode)
{
	ck_assert_msg(mkdir(path, mode) == 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(chown(path, uid, uid), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* Set attribute @name of @dir/@rel (not following a link) to @value. */
static void set_attr(const char *dir, const char *rel, const char *name,
		     const char *value)
{
	char *p = tu_join(dir, rel);

	ck_assert_msg(lsetxattr(p, name, value, strlen(value), 0) == 0,
		      "%s %s: %s", p, name, strerror(errno));
	free(p);
}

char *sec_make_victim(const char *name)
{
	char *v, *p;

	ck_assert(asprintf(&v, "%s/victim-%s", sec_root, name) > 0);
	sec_make_dir(v, 0, 0755);
	p = tu_write_str(v, "secret", "root's secret\n");
	ck_assert_int_eq(chmod(p, 0600), 0);
	free(p);
	p = tu_write_str(v, "suid", "#!/bin/sh\n");
	ck_assert_int_eq(chmod(p, 0755), 0);
	free(p);
	p = tu_join(v, "private");
	sec_make_dir(p, 0, 0700);
	free(p);
	free(tu_write_str(v, "private/data", "more\n"));
	p = tu_join(v, "link");
	ck_assert_int_eq(symlink("secret", p), 0);
	free(p);
	p = tu_write_str(v, "open", "anyone may write this\n");
	ck_assert_int_eq(chmod(p, 0666), 0);
	free(p);
	p = tu_join(v, "drop");
	sec_make_dir(p, 0, 0777);
	free(p);
	set_attr(v, "secret", "user.keep", "mine");
	set_attr(v, "secret", "trusted.keep", "root's");
	set_attr(v, "open", "user.keep", "mine too");
	set_attr(v, "open", "trusted.keep", "root's too");
	set_attr(v, "link", "trusted.keep", "the link's");
	return v;
}

static FILE *snap_out;
static size_t snap_prefix;

static unsigned long checksum(const char *data, size_t len)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = sum * 31 + (unsigned char)data[i];
	return sum;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The attributes of @path, sorted by name: " NAME:SIZE:SUM" each. */
static void snap_xattrs(const char *path)
{
	char names[4096], value[65536], *list[64];
	ssize_t len = llistxattr(path, names, sizeof(names));
	size_t n = 0;

	ck_assert_msg(len >= 0, "%s: %s", path, strerror(errno));
	for (ssize_t off = 0; off < len && n < 64;
	     off += (ssize_t)strlen(names + off) + 1)
		list[n++] = names + off;
	/* cppcheck-suppress uninitvar ; the loop above set list[0..n) */
	qsort(list, n, sizeof(list[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		ssize_t vlen = lgetxattr(path, list[i], value, sizeof(value));

		fprintf(snap_out, " %s:%zd:%lx", list[i], vlen,
			vlen > 0 ? checksum(value, (size_t)vlen) : 0);
	}
}

static int snap_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	unsigned long sum = 0;
	char target[256] = "";

	(void)flag;
	(void)ftw;
	if (S_ISREG(st->st_mode)) {
		size_t len;
		char *text = tu_read(path, &len);

		if (text)
			sum = checksum(text, len);
		free(text);
	} else if (S_ISLNK(st->st_mode)) {
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
	}
	fprintf(snap_out, "%s %o %u:%u %lld %lx %s", path + snap_prefix,
		(unsigned)st->st_mode, (unsigned)st->st_uid,
		(unsigned)st->st_gid, (long long)st->st_size, sum, target);
	snap_xattrs(path);
	fputc('\n', snap_out);
	return 0;
}

char *sec_snapshot(const char *dir)
{
	char *text = NULL;
	size_t len = 0;

	snap_out = open_memstream(&text, &len);
	snap_prefix = strlen(dir);
	ck_assert_int_eq(nftw(dir, snap_one, 16, FTW_PHYS), 0);
	fclose(snap_out);
	return text;
}

/* In a child: become nobody, run @fn, exit with its status. */
static void nobody_child(int (*fn)(void *), void *arg)
{
	if (setgroups(0, NULL) || setgid(SEC_NOBODY) || setuid(SEC_NOBODY))
		_exit(126);
	_exit(fn(arg));
}

int sec_as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		nobody_child(fn, arg);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

pid_t sec_spawn_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		nobody_child(fn, arg);
	return pid;
}

void sec_stop(pid_t pid)
{
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

void sec_write_replay(const char *path, const char *name, const char *user,
		      const char *sandbox, const char *init, const char *ops,
		      unsigned nops)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=%s|user=%s|\n#|sandbox=%s|\n#INIT\n",
		name, user, sandbox);
	for (const char *c = init; *c; c++)
		*c == '@' ? fputs(sandbox, f) : fputc(*c, f);
	fputs("#OPS\n", f);
	for (const char *c = ops; *c; c++)
		*c == '@' ? fputs(sandbox, f) : fputc(*c, f);
	fprintf(f, "#END|ops=%u|\n", nops);
	ck_assert_int_eq(fclose(f), 0);
}

/* The whole of file @fd, NUL-terminated, malloc'd. */
static char *slurp_fd(int fd)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char buf[4096];
	ssize_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, f);
	fclose(f);
	return text;
}

int sec_ioriot_within(const char *const *argv, unsigned secs, char **err)
{
	const char *full[32] = { "ioriot" };
	char tmpl[] = "/tmp/ioriot-err-XXXXXX";
	int efd = mkstemp(tmpl), null = open("/dev/null", O_WRONLY), status;
	struct timespec tick = { .tv_sec = 0, .tv_nsec = 10000000 };
	unsigned waited = 0;
	size_t n = 1;
	pid_t pid;

	ck_assert(efd >= 0 && null >= 0);
	unlink(tmpl);
	for (; *argv && n < 31; argv++)
		full[n++] = *argv;
	full[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(null, 1);
		dup2(efd, 2);
		execv(tu_bin(), (char *const *)full);
		_exit(127);
	}
	close(null);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (secs && waited++ >= secs * 100) {
			kill(pid, SIGKILL);
			ck_assert_int_eq(waitpid(pid, &status, 0), pid);
			*err = slurp_fd(efd);
			close(efd);
			return -2;
		}
		nanosleep(&tick, NULL);
	}
	*err = slurp_fd(efd);
	close(efd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int sec_ioriot(const char *const *argv, char **err)
{
	return sec_ioriot_within(argv, 0, err);
}

long sec_stat(const char *json, const char *sys, const char *key)
{
	char head[64], item[64];
	const char *line, *end, *at;

	snprintf(head, sizeof(head), "\n    \"%s\": {", sys);
	snprintf(item, sizeof(item), "\"%s\": ", key);
	line = strstr(json, head);
	if (!line)
		return -1;
	line += strlen(head);
	end = strchr(line, '\n');
	at = strstr(line, item);
	if (!at || (end && at > end))
		return 0;
	return strtol(at + strlen(item), NULL, 10);
}

void sec_sysctl_set(const char *path, const char *value, char *old)
{
	if (old) {
		char *t = tu_read(path, NULL);
		ck_assert_ptr_nonnull(t);
		snprintf(old, 64, "%s", t);
		free(t);
	}
	int fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(write(fd, value, strlen(value)), 0);
	close(fd);
}
