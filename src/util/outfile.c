/*
 * outfile: output files that cannot be redirected by a planted link or
 * FIFO (outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/outfile.h"

bool outfile_owner_ok(uid_t uid)
{
	const char *sudo = getenv("SUDO_UID");
	char *end;
	unsigned long v;

	if (uid == geteuid())
		return true;
	if (geteuid() != 0 || !sudo || !*sudo)
		return false;
	errno = 0;
	v = strtoul(sudo, &end, 10);
	return !errno && !*end && v == (unsigned long)uid;
}

/* True if @st is the file @input (when @input names one). */
static bool is_input(const struct stat *st, const char *input)
{
	struct stat in;

	return input && stat(input, &in) == 0 && in.st_dev == st->st_dev &&
	       in.st_ino == st->st_ino;
}

/* Why @st may not be written over: NULL if it may.  *@rc gets the
 * -errno that goes with the reason. */
static const char *refusal(const struct stat *st, const char *input, int *rc)
{
	if (S_ISLNK(st->st_mode)) {
		*rc = -ELOOP;
		return "is a symlink; ioriot does not write through one";
	}
	if (!S_ISREG(st->st_mode)) {
		*rc = -EINVAL;
		return "is not a regular file";
	}
	if (is_input(st, input)) {
		*rc = -EEXIST;
		return "is the input file; choose another output";
	}
	if (!outfile_owner_ok(st->st_uid)) {
		*rc = -EPERM;
		return "belongs to another user; remove it or choose another name";
	}
	if (st->st_nlink != 1) {
		*rc = -EMLINK;
		return "has other hard links";
	}
	return NULL;
}

const char *outfile_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int outfile_dir(const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == path ? strdup("/") :
		    slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	int fd, rc;

	if (!dir) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? -errno : fd;
	if (fd < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	free(dir);
	return rc;
}

int outfile_open(const char *path, mode_t mode, unsigned flags,
		 const char *input, int *dirfd, char *err, size_t errlen)
{
	const char *why, *base = outfile_base(path);
	struct stat st;
	bool created = false;
	int dfd, fd, rc;

	if (!*base) {
		snprintf(err, errlen, "%s: names a directory", path);
		return -EISDIR;
	}
	dfd = outfile_dir(path, err, errlen);
	if (dfd < 0)
		return dfd;
	/* O_NONBLOCK: opening a FIFO without a reader must not hang. */
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC | O_NONBLOCK, mode);
	if (fd >= 0)
		created = true;
	else if (errno == EEXIST)
		fd = openat(dfd, base, O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
			    O_NONBLOCK);
	if (fd < 0 && errno == ENXIO) {	/* a FIFO without a reader */
		snprintf(err, errlen, "%s: is not a regular file", path);
		rc = -EINVAL;
		goto fail_dir;
	}
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
			 errno == ELOOP ? " (a symlink; ioriot does not write "
			 "through one)" : "");
		goto fail_dir;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		why = strerror(errno);
		goto fail;
	}
	if ((why = refusal(&st, input, &rc)))
		goto fail;
	if ((flags & OUTFILE_KEEP) && st.st_size > 0) {
		rc = -EEXIST;
		why = "exists and is not empty: not overwritten";
		goto fail;
	}
	if (fcntl(fd, F_SETFL, 0) < 0 ||
	    ((flags & OUTFILE_PRIVATE) && fchmod(fd, 0600) < 0) ||
	    ((flags & OUTFILE_TRUNCATE) && ftruncate(fd, 0) < 0)) {
		rc = -errno;
		why = strerror(errno);
		goto fail;
	}
	if (dirfd)
		*dirfd = dfd;
	else
		close(dfd);
	return fd;
fail:
	snprintf(err, errlen, "%s: %s", path, why);
	/* In the directory it was made in, whatever its path leads to now. */
	if (created)
		unlinkat(dfd, base, 0);
	close(fd);
fail_dir:
	close(dfd);
	return rc;
}

/* The first N of this process's temporary names: random, so that another
 * user cannot make the names ioriot will try exist beforehand (and its
 * outputs fail); read once, at the first name. */
static unsigned long first_number(void)
{
	static unsigned long first;	/* 0 until drawn */
	unsigned long n = __atomic_load_n(&first, __ATOMIC_RELAXED), zero = 0;
	uint32_t r;

	if (n)
		return n;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL);
	n = (unsigned long)r + 1;
	__atomic_compare_exchange_n(&first, &zero, n, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return __atomic_load_n(&first, __ATOMIC_RELAXED);
}

/* A new temporary name ".BASE.PID.N" in @name for @make(@dirfd, @name,
 * @fd), tried again while it exists, N counting up from first_number().
 * make's fd or 0, or -errno. */
static int with_temp_name(int dirfd, const char *base, char *name, size_t len,
			  int (*make)(int dirfd, const char *name, int fd),
			  int fd)
{
	static unsigned long counter;	/* updated atomically */
	unsigned long first = first_number();

	for (int tries = 0; tries < 100; tries++) {
		unsigned long n = first - 1 +
			__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		int rc;

		if ((size_t)snprintf(name, len, ".%s.%d.%lu", base, (int)getpid(),
				     n) >= len)
			return -ENAMETOOLONG;
		rc = make(dirfd, name, fd);
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

static int create_new(int dirfd, const char *name, int unused)
{
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0600);

	(void)unused;
	return fd >= 0 ? fd : -errno;
}

/* Link the unnamed file @fd as @name: by the fd itself (allowed to root,
 * and since Linux 6.10 to the file's opener), else through /proc. */
static int link_new(int dirfd, const char *name, int fd)
{
	char proc[32];

	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

int outfile_temp(int dirfd, const char *base, char *name, size_t len)
{
	return with_temp_name(dirfd, base, name, len, create_new, -1);
}

int outfile_unnamed(int dirfd, const char *base)
{
	char name[NAME_MAX + 1];
	int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd >= 0 ? fd : -errno;
	/* File systems without O_TMPFILE: create, then unlink at once. */
	fd = outfile_temp(dirfd, base, name, sizeof(name));
	if (fd >= 0 && unlinkat(dirfd, name, 0) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int outfile_link_temp(int dirfd, int fd, const char *base, char *name,
		      size_t len)
{
	return with_temp_name(dirfd, base, name, len, link_new, fd);
}

int outfile_check_target(const char *path, const char *input, char *err,
			 size_t errlen)
{
	const char *why;
	struct stat st;
	int rc;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (!(why = refusal(&st, input, &rc)))
		return 0;
	snprintf(err, errlen, "%s: %s", path, why);
	return rc;
}
