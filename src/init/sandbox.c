/*
 * sandbox: per-mountpoint test directories, their trash, and access below
 * them that cannot escape (sandbox.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/paths.h"
#include "ioriot/sandbox.h"

#define TRASH_DIR ".trash"

int sandbox_split(const char *root, char *mnt, const char **name)
{
	size_t len = strlen(root), dlen = strlen(SANDBOX_DIR);
	const char *slash = strrchr(root, '/');

	if (!path_is_normal(root, len) || !slash || !test_name_valid(slash + 1))
		return -EINVAL;
	size_t mlen = (size_t)(slash - root) - dlen;	/* "<mnt>/" + .ioriot */
	if ((size_t)(slash - root) < dlen + 1 ||
	    memcmp(slash - dlen, SANDBOX_DIR, dlen) != 0 || slash[-dlen - 1] != '/')
		return -EINVAL;
	mlen -= 1;				/* the '/' before .ioriot */
	if (mlen == 0)
		mlen = 1;			/* "/" */
	if (mlen >= PATHMAP_MAX)
		return -EINVAL;
	memcpy(mnt, root, mlen);
	mnt[mlen] = '\0';
	*name = slash + 1;
	return 0;
}

/* openat2 with RESOLVE_BENEATH: -ENOSYS on kernels before 5.6. */
static int openat2_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)flags,
		.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
	};
	long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* The fallback: walk @rel component by component, each with O_NOFOLLOW,
 * refusing "..", and staying on @dirfd's device. */
static int openat_walk(int dirfd, const char *rel, int flags, mode_t mode)
{
	size_t len = strlen(rel), pos = 0, start, clen;
	struct stat root;
	int cur = dirfd, err;

	if (fstat(dirfd, &root) < 0)
		return -errno;
	while ((clen = path_next_component(rel, len, &pos, &start))) {
		char comp[256];
		bool last = pos >= len;
		int next;

		if (clen >= sizeof(comp) || (clen == 2 && rel[start] == '.' &&
					     rel[start + 1] == '.')) {
			err = clen >= sizeof(comp) ? -ENAMETOOLONG : -EXDEV;
			goto fail;
		}
		memcpy(comp, rel + start, clen);
		comp[clen] = '\0';
		next = openat(cur, comp, last ? flags | O_NOFOLLOW :
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			      mode);
		if (next < 0) {
			err = -errno;
			goto fail;
		}
		struct stat st;
		if (fstat(next, &st) < 0 || st.st_dev != root.st_dev) {
			err = errno ? -errno : -EXDEV;
			close(next);
			goto fail;
		}
		if (cur != dirfd)
			close(cur);
		cur = next;
	}
	if (cur == dirfd)
		return -EINVAL;		/* an empty path */
	return cur;
fail:
	if (cur != dirfd)
		close(cur);
	return err;
}

int sandbox_openat(int dirfd, const char *rel, int flags, mode_t mode)
{
	int fd;

	if (!*rel || rel[0] == '/')
		return -EXDEV;
	fd = openat2_beneath(dirfd, rel, flags | O_CLOEXEC, mode);
	if (fd == -ENOSYS)
		fd = openat_walk(dirfd, rel, flags | O_CLOEXEC, mode);
	return fd;
}

/*
 * Open directory @name in @dirfd, creating it (mode 0755, owned by
 * @uid:@gid) if missing, refusing symlinks and other mounts.
 */
static int open_dir(int dirfd, const char *name, uid_t uid, gid_t gid)
{
	struct stat parent, st;
	int fd;

	if (fstat(dirfd, &parent) < 0)
		return -errno;
	if (mkdirat(dirfd, name, 0755) == 0) {
		if (uid != (uid_t)-1 &&
		    fchownat(dirfd, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	} else if (errno != EEXIST) {
		return -errno;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? -ELOOP : -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != parent.st_dev) {
		int err = errno ? -errno : -EXDEV;
		close(fd);
		return err;
	}
	return fd;
}

int sandbox_open(const char *mnt, const char *name, uid_t uid, gid_t gid,
		 char *err, size_t errlen)
{
	int mfd, top = -1, fd = -1;

	mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		fd = -errno;
		snprintf(err, errlen, "%s: %s", mnt, strerror(errno));
		return fd;
	}
	/* .ioriot belongs to root; the test directory to the test user. */
	top = open_dir(mfd, SANDBOX_DIR, (uid_t)-1, (gid_t)-1);
	if (top < 0) {
		fd = top;
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR, strerror(-fd));
		goto out;
	}
	fd = open_dir(top, name, uid, gid);
	if (fd < 0)
		snprintf(err, errlen, "%s/%s/%s: %s", mnt, SANDBOX_DIR, name,
			 strerror(-fd));
out:
	if (top >= 0)
		close(top);
	close(mfd);
	return fd;
}

/* Open <mnt>/.ioriot (not creating it); -ENOENT if there is none. */
static int open_top(const char *mnt, char *err, size_t errlen)
{
	int mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	struct stat pst, st;

	if (mfd < 0) {
		fd = -errno;
		snprintf(err, errlen, "%s: %s", mnt, strerror(errno));
		return fd;
	}
	fd = openat(mfd, SANDBOX_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0) {
		fd = errno == ENOTDIR ? -ELOOP : -errno;
		if (fd != -ENOENT)
			snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR,
				 strerror(-fd));
	} else if (fstat(mfd, &pst) < 0 || fstat(fd, &st) < 0 ||
		   st.st_dev != pst.st_dev) {
		close(fd);
		fd = -EXDEV;
		snprintf(err, errlen, "%s/%s: on another mount", mnt, SANDBOX_DIR);
	}
	close(mfd);
	return fd;
}

/* Move @name of @top into the trash under a name no other move uses. */
static int trash_one(int top, const char *mnt, const char *name, char *err,
		     size_t errlen)
{
	static unsigned long counter;
	char unique[512];
	int trash = open_dir(top, TRASH_DIR, (uid_t)-1, (gid_t)-1), rc = 0;

	if (trash < 0) {
		snprintf(err, errlen, "%s/%s/%s: %s", mnt, SANDBOX_DIR, TRASH_DIR,
			 strerror(-trash));
		return trash;
	}
	/* Time, pid and a counter: unique even twice in one second, and
	 * RENAME_NOREPLACE would catch a collision anyway. */
	for (int tries = 0; tries < 100; tries++) {
		snprintf(unique, sizeof(unique), "%s.%llu.%d.%lu", name,
			 (unsigned long long)clock_ns(CLOCK_REALTIME),
			 (int)getpid(), ++counter);
		if (renameat2(top, name, trash, unique, RENAME_NOREPLACE) == 0)
			goto out;
		if (errno != EEXIST)
			break;
	}
	rc = errno == ENOENT ? 0 : -errno;
	if (rc)
		snprintf(err, errlen, "%s/%s/%s: cannot move to the trash: %s", mnt,
			 SANDBOX_DIR, name, strerror(errno));
out:
	close(trash);
	return rc;
}

int sandbox_trash(const char *mnt, const char *name, char *err, size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;

	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	rc = trash_one(top, mnt, name, err, errlen);
	close(top);
	return rc;
}

int sandbox_trash_all(const char *mnt, size_t *moved, char *err,
		      size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc = 0, dfd;
	DIR *d;
	struct dirent *de;

	*moved = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	if ((dfd = dup(top)) < 0 || !(d = fdopendir(dfd))) {
		rc = -errno;
		if (dfd >= 0)
			close(dfd);
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR, strerror(-rc));
		close(top);
		return rc;
	}
	/* Names first: renaming while reading the directory may skip some. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, TRASH_DIR))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **v = realloc(names, cap * sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			names = v;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		if (!rc && !(rc = trash_one(top, mnt, names[i], err, errlen)))
			(*moved)++;
		free(names[i]);
	}
	free(names);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	close(top);
	return rc;
}

/*
 * Remove everything in directory @fd (on device @dev) and count it.  Never
 * follows symlinks (they are unlinked), never enters another mount.
 * Returns 0, or the first -errno (-EXDEV for a mount below).
 */
static int remove_below(int fd, dev_t dev, size_t *removed)
{
	int dfd = dup(fd), rc = 0;
	DIR *d;
	struct dirent *de;

	if (dfd < 0)
		return -errno;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (!rc && errno != ENOENT)
				rc = -errno;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != dev) {
				if (!rc)
					rc = -EXDEV;	/* a mount: left alone */
				continue;
			}
			int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
					 O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				if (!rc)
					rc = -errno;
				continue;
			}
			int r = remove_below(sub, dev, removed);
			close(sub);
			if (r && !rc)
				rc = r;
			if (r)
				continue;
			if (unlinkat(fd, de->d_name, AT_REMOVEDIR) < 0) {
				if (!rc)
					rc = -errno;
				continue;
			}
		} else if (unlinkat(fd, de->d_name, 0) < 0) {
			if (!rc)
				rc = -errno;
			continue;
		}
		(*removed)++;
	}
	closedir(d);
	return rc;
}

int sandbox_purge(const char *mnt, size_t *removed, char *err, size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;
	struct stat st;

	*removed = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	if (fstat(top, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR, strerror(errno));
		close(top);
		return rc;
	}
	rc = remove_below(top, st.st_dev, removed);
	close(top);
	if (!rc) {
		int mfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (mfd < 0 || unlinkat(mfd, SANDBOX_DIR, AT_REMOVEDIR) < 0)
			rc = -errno;
		else
			(*removed)++;
		if (mfd >= 0)
			close(mfd);
	}
	if (rc)
		snprintf(err, errlen, "%s/%s: %s%s", mnt, SANDBOX_DIR, strerror(-rc),
			 rc == -EXDEV ? " (a mount below it was left alone)" : "");
	return rc;
}
