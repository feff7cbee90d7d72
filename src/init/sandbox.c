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
#include <sys/statfs.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/paths.h"
#include "ioriot/sandbox.h"

#define TRASH_DIR ".trash"

/*
 * The mount id of @fd: statx's (Linux 5.8) or /proc/self/fdinfo's.  Two
 * directories on one file system can be different mounts (bind mounts), so
 * st_dev alone does not tell.  Returns 0 or -errno.
 */
static int mount_id(int fd, uint64_t *id)
{
	struct statx stx;
	char path[64], line[128];
	FILE *f;
	int rc = -ENOENT;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "mnt_id: %llu", &v) == 1) {
			*id = v;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* True if @fd is on the same mount as @ref. */
static bool same_mount(int fd, int ref)
{
	uint64_t a, b;

	return mount_id(fd, &a) == 0 && mount_id(ref, &b) == 0 && a == b;
}

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

/* True if @fd is the root directory of a mount. */
static bool is_mount_root(int fd)
{
	struct statx stx;
	uint64_t id, parent_id;
	int parent;
	bool root;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0 &&
	    (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
	/* Before Linux 5.8: the parent is on another mount, or is itself. */
	parent = openat(fd, "..", O_PATH | O_CLOEXEC);
	if (parent < 0)
		return false;
	root = mount_id(fd, &id) == 0 && mount_id(parent, &parent_id) == 0 &&
	       id != parent_id;
	if (!root) {
		struct stat a, b;
		root = fstat(fd, &a) == 0 && fstat(parent, &b) == 0 &&
		       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	}
	close(parent);
	return root;
}

/* Walk absolute @path from "/" one component at a time, never following
 * a symlink: the fallback for kernels without openat2. */
static int open_nofollow_walk(const char *path)
{
	size_t len = strlen(path), pos = 0, start, clen;
	int cur = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next;

	while (cur >= 0 && (clen = path_next_component(path, len, &pos, &start))) {
		char comp[256];

		if (clen >= sizeof(comp)) {
			close(cur);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, path + start, clen);
		comp[clen] = '\0';
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0 && errno == ENOTDIR) {
			struct stat st;
			if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				errno = ELOOP;
		}
		close(cur);
		cur = next;
	}
	return cur;
}

/* The file systems that hold data, by statfs(2) f_type: a sandbox goes
 * on no other (proc, sysfs, cgroup, debugfs, tracefs, configfs, bpf and
 * the like hold kernel objects, and a directory made there can be one). */
static const struct {
	unsigned long magic;
	const char *name;
} data_fs[] = {
	{ 0xEF53, "ext2/3/4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" },
	{ 0xF2F52010, "f2fs" }, { 0x01021994, "tmpfs" }, { 0x858458F6, "ramfs" },
	{ 0x2FC12FC1, "zfs" }, { 0xCA451A4E, "bcachefs" }, { 0x6969, "nfs" },
	{ 0xFF534D42, "cifs" }, { 0xFE534D42, "smb2" }, { 0x65735546, "fuse" },
	{ 0x794C7630, "overlayfs" }, { 0x3153464A, "jfs" },
	{ 0x52654973, "reiserfs" }, { 0x3434, "nilfs2" }, { 0x4D44, "vfat" },
	{ 0x2011BAB0, "exfat" }, { 0x7366746E, "ntfs3" }, { 0x00C36400, "ceph" },
	{ 0x01161970, "gfs2" }, { 0x7461636F, "ocfs2" }, { 0x15013346, "udf" },
	{ 0x47504653, "gpfs" }, { 0x0BD00BD0, "lustre" },
};

/* Whether @fd's file system holds data (data_fs); when not, why in @err. */
static bool holds_data(int fd, const char *mnt, char *err, size_t errlen)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0) {
		snprintf(err, errlen, "%s: %s", mnt, strerror(errno));
		return false;
	}
	for (size_t i = 0; i < sizeof(data_fs) / sizeof(data_fs[0]); i++)
		if ((unsigned long)sfs.f_type == data_fs[i].magic)
			return true;
	snprintf(err, errlen, "%s: a file system that holds no files for a "
		 "test (statfs type 0x%lx: proc, sysfs, cgroup, debugfs and "
		 "the like are refused; docs/guide.md lists the accepted ones)",
		 mnt, (unsigned long)sfs.f_type);
	return false;
}

int sandbox_open_mount(const char *mnt, char *err, size_t errlen)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;
	int rc;

	if (mnt[0] != '/' || !path_is_normal(mnt, strlen(mnt))) {
		snprintf(err, errlen, "%s: not an absolute, normalised path", mnt);
		return -EINVAL;
	}
	fd = syscall(SYS_openat2, AT_FDCWD, mnt, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = open_nofollow_walk(mnt);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s%s", mnt, strerror(errno),
			 errno == ELOOP ? " (a symlink on the way: sandboxes "
			 "are reached without following any)" :
			 errno == EACCES ? " (the test user must be able to "
			 "reach it: search permission on every directory on "
			 "the way)" : "");
		return rc;
	}
	if (!is_mount_root((int)fd)) {
		close((int)fd);
		snprintf(err, errlen, "%s: not a mountpoint (sandboxes are "
			 "<mountpoint>/%s/NAME)", mnt, SANDBOX_DIR);
		return -EINVAL;
	}
	if (!holds_data((int)fd, mnt, err, errlen)) {
		close((int)fd);
		return -EINVAL;
	}
	return (int)fd;
}

/*
 * Check directory @fd, <mnt>/.ioriot: on @mnt_fd's mount, owned by root
 * (or by the caller, who then trusts only itself), writable by its owner
 * only.  Returns 0 or -errno with a message.
 */
static int check_top(int fd, int mnt_fd, const char *mnt, char *err,
		     size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int rc = -errno;
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR, strerror(errno));
		return rc;
	}
	if (!same_mount(fd, mnt_fd)) {
		snprintf(err, errlen, "%s/%s: on another mount", mnt, SANDBOX_DIR);
		return -EXDEV;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(err, errlen, "%s/%s: owned by uid %u with mode %04o; it "
			 "must be root's and writable by root only (remove it "
			 "if another user made it)", mnt, SANDBOX_DIR,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* openat2 with RESOLVE_BENEATH: -ENOSYS on kernels before 5.6. */
static int openat2_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	/* openat2 refuses a mode when not creating (O_TMPFILE includes
	 * O_DIRECTORY, so test it whole) and mode bits beyond 07777. */
	bool creating = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
	struct open_how how = {
		.flags = (uint64_t)flags,
		.mode = creating ? (mode & 07777) : 0,
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
	int cur = dirfd, err;

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
		/* Look before touching: an existing last component is checked
		 * for its mount before it is opened with O_TRUNC and such. */
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next >= 0) {
			bool ok = same_mount(next, dirfd);
			close(next);
			if (!ok) {
				err = -EXDEV;
				goto fail;
			}
		} else if (!last || errno != ENOENT) {
			err = -errno;
			goto fail;
		}
		next = openat(cur, comp, last ? flags | O_NOFOLLOW :
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			      mode);
		if (next < 0) {
			struct stat st;
			err = -errno;
			/* A symlink on the way reads as ENOTDIR: say ELOOP. */
			if (err == -ENOTDIR && !last &&
			    fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				err = -ELOOP;
			goto fail;
		}
		if (!same_mount(next, dirfd)) {
			err = -EXDEV;
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
	/* Kernels before 5.6, and container filters that answer EPERM. */
	if (fd == -ENOSYS || fd == -EPERM)
		fd = openat_walk(dirfd, rel, flags | O_CLOEXEC, mode);
	return fd;
}

/*
 * Open directory @name in @dirfd, creating it (mode 0755) if missing,
 * refusing symlinks and other mounts.  *@made says whether it was made.
 */
static int open_dir(int dirfd, const char *name, bool *made)
{
	int fd;

	*made = mkdirat(dirfd, name, 0755) == 0;
	if (!*made && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? -ELOOP : -errno;
	if (!same_mount(fd, dirfd)) {
		close(fd);
		return -EXDEV;
	}
	/* The umask must not take search rights from the test user. */
	if (*made && fchmod(fd, 0755) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * <@mnt>/.ioriot of mount fd @mfd, created if @create, checked with
 * check_top().  Returns the fd, -ENOENT if there is none and !@create, or
 * -errno with a message.
 */
static int top_of(int mfd, const char *mnt, bool create, char *err,
		  size_t errlen)
{
	bool made;
	int fd, rc;

	if (create) {
		fd = open_dir(mfd, SANDBOX_DIR, &made);
	} else {
		fd = openat(mfd, SANDBOX_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0)
			fd = errno == ENOTDIR ? -ELOOP : -errno;
	}
	if (fd < 0) {
		if (fd != -ENOENT || create)
			snprintf(err, errlen, "%s/%s: %s%s", mnt, SANDBOX_DIR,
				 strerror(-fd), fd == -ELOOP ? " (a symlink)" : "");
		return fd;
	}
	rc = check_top(fd, mfd, mnt, err, errlen);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int sandbox_top(const char *mnt, bool create, char *err, size_t errlen)
{
	int mfd = sandbox_open_mount(mnt, err, errlen), top;

	if (mfd < 0)
		return mfd;
	top = top_of(mfd, mnt, create, err, errlen);
	close(mfd);
	return top;
}

/*
 * What sandbox_open() and sandbox_enter() start with: check @name, open
 * mountpoint @mnt into *@mfd and its .ioriot (made if @create).  Returns
 * the .ioriot fd, or -errno with a message (then *@mfd is -1).
 */
static int open_test_top(const char *mnt, const char *name, bool create,
			 int *mfd, char *err, size_t errlen)
{
	int top;

	*mfd = -1;
	if (!test_name_valid(name)) {
		snprintf(err, errlen, "invalid test name '%s'", name);
		return -EINVAL;
	}
	top = sandbox_open_mount(mnt, err, errlen);
	if (top < 0)
		return top;
	*mfd = top;
	top = top_of(*mfd, mnt, create, err, errlen);
	if (top < 0) {
		close(*mfd);
		*mfd = -1;
	}
	return top;
}

int sandbox_open(const char *mnt, const char *name, uid_t uid, gid_t gid,
		 char *err, size_t errlen)
{
	int mfd, top = open_test_top(mnt, name, true, &mfd, err, errlen), fd;
	bool made;

	if (top < 0)
		return top;
	/* Only root (or the owner) can change .ioriot: NAME is safe to
	 * hand to the test user by its fd. */
	fd = open_dir(top, name, &made);
	if (fd >= 0 && uid != (uid_t)-1 && fchown(fd, uid, gid) < 0) {
		int rc = -errno;
		close(fd);
		fd = rc;
	}
	if (fd < 0)
		snprintf(err, errlen, "%s/%s/%s: %s", mnt, SANDBOX_DIR, name,
			 strerror(-fd));
	close(top);
	close(mfd);
	return fd;
}

int sandbox_enter(const char *mnt, const char *name, uid_t owner, char *err,
		  size_t errlen)
{
	int mfd, top = open_test_top(mnt, name, false, &mfd, err, errlen), fd;
	struct stat st;

	if (top == -ENOENT)
		snprintf(err, errlen, "%s/%s: %s (run init first)", mnt,
			 SANDBOX_DIR, strerror(ENOENT));
	if (top < 0)
		return top;
	fd = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fd = errno == ENOTDIR ? -ELOOP : -errno;
		snprintf(err, errlen, "%s/%s/%s: %s%s", mnt, SANDBOX_DIR, name,
			 strerror(-fd), fd == -ENOENT ? " (run init first)" : "");
	} else if (!same_mount(fd, mfd) || fstat(fd, &st) < 0 ||
		   st.st_uid != owner) {
		snprintf(err, errlen, "%s/%s/%s: not a directory of uid %u on "
			 "this mount (run init for this test user)", mnt,
			 SANDBOX_DIR, name, (unsigned)owner);
		close(fd);
		fd = -EPERM;
	}
	close(top);
	close(mfd);
	return fd;
}

/*
 * Open <mnt>/.ioriot (not creating it); -ENOENT if there is none, or if
 * @mnt is no longer a mount root (hidden by a later mount).
 */
static int open_top(const char *mnt, char *err, size_t errlen)
{
	int mfd = sandbox_open_mount(mnt, err, errlen), fd;

	if (mfd == -ENOENT || mfd == -EINVAL || mfd == -EACCES)
		return -ENOENT;
	if (mfd < 0)
		return mfd;
	fd = top_of(mfd, mnt, false, err, errlen);
	close(mfd);
	return fd;
}

/* Move @name of @top into the trash under a name no other move uses. */
static int trash_one(int top, const char *mnt, const char *name, char *err,
		     size_t errlen)
{
	static unsigned long counter;	/* shared: updated atomically */
	char unique[512];
	struct stat st;
	int trash, rc = 0;

	if (fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;	/* nothing to move */
	bool made;

	trash = open_dir(top, TRASH_DIR, &made);
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
			 (int)getpid(), __atomic_add_fetch(&counter, 1,
							   __ATOMIC_RELAXED));
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

/* open_top() for test @name, which must be a valid name (-EINVAL with a
 * message). */
static int open_top_of_test(const char *mnt, const char *name, char *err,
			    size_t errlen)
{
	if (!test_name_valid(name)) {
		snprintf(err, errlen, "invalid test name '%s'", name);
		return -EINVAL;
	}
	return open_top(mnt, err, errlen);
}

int sandbox_trash(const char *mnt, const char *name, char *err, size_t errlen)
{
	int top = open_top_of_test(mnt, name, err, errlen), rc;

	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	rc = trash_one(top, mnt, name, err, errlen);
	close(top);
	return rc;
}

/*
 * The names in directory @fd, except "." and ".." (and with @tests_only
 * every name starting with '.', which no test has: .trash, .state), as a
 * malloc'd array of malloc'd strings.  Reading all names first keeps one
 * fd per level of a walk and is safe while entries move.  Returns 0 or
 * -errno.
 */
static int dir_names(int fd, bool tests_only, char ***out, size_t *count)
{
	int dfd = dup(fd), rc = 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (dfd < 0)
		return -errno;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (tests_only && de->d_name[0] == '.'))
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
	if (rc) {
		while (n)
			free(names[--n]);
		free(names);
		return rc;
	}
	*out = names;
	*count = n;
	return 0;
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

int sandbox_trash_all(const char *mnt, size_t *moved, char *err,
		      size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;
	char **names;
	size_t n;

	*moved = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	rc = dir_names(top, true, &names, &n);
	if (rc) {
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR, strerror(-rc));
		close(top);
		return rc;
	}
	for (size_t i = 0; i < n && !rc; i++)
		if (!(rc = trash_one(top, mnt, names[i], err, errlen)))
			(*moved)++;
	free_names(names, n);
	close(top);
	return rc;
}

/*
 * Remove everything in directory @rel (@len bytes, "" for @top itself)
 * below @top and count it.  Never follows symlinks (they are unlinked),
 * never enters another mount.  Directories are reopened from @top by their
 * relative path (sandbox_openat), so only two fds are open at any depth.
 * @rel is a PATHMAP_MAX buffer the walk extends.  Returns 0, or the first
 * -errno (-EXDEV for a mount below, left alone).
 */
static int remove_below(int top, char *rel, size_t len, size_t *removed)
{
	char **names;
	size_t n;
	int fd = len ? sandbox_openat(top, rel, O_RDONLY | O_DIRECTORY, 0)
		     : dup(top);
	int rc;

	if (fd < 0)
		return len ? fd : -errno;
	rc = dir_names(fd, false, &names, &n);
	if (rc) {
		close(fd);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		size_t nlen = strlen(name);
		struct stat st;
		int r = 0;

		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno;
		} else if (S_ISDIR(st.st_mode)) {
			if (len + 1 + nlen >= PATHMAP_MAX) {
				r = -ENAMETOOLONG;
			} else {
				/* Descend by path with this level's fd closed. */
				size_t sub = len ? len + 1 + nlen : nlen;
				if (len)
					rel[len] = '/';
				memcpy(rel + (len ? len + 1 : 0), name, nlen);
				rel[sub] = '\0';
				close(fd);
				r = remove_below(top, rel, sub, removed);
				rel[len] = '\0';
				fd = len ? sandbox_openat(top, rel, O_RDONLY |
							  O_DIRECTORY, 0) : dup(top);
				if (fd < 0) {	/* the directory went away */
					rc = len ? fd : -errno;
					break;
				}
				if (!r && unlinkat(fd, name, AT_REMOVEDIR) < 0)
					r = -errno;
				if (!r)
					(*removed)++;
			}
		} else if (unlinkat(fd, name, 0) < 0) {
			r = -errno;
		} else {
			(*removed)++;
		}
		if (r && !rc)
			rc = r;		/* the first error; the rest goes on */
	}
	if (fd >= 0)
		close(fd);
	free_names(names, n);
	return rc;
}

/* The number of ".DIGITS" groups that make up all of @p, or -1 if it is
 * something else. */
static int digit_groups(const char *p)
{
	int groups = 0;

	for (; *p; groups++) {
		if (*p++ != '.' || !(*p >= '0' && *p <= '9'))
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return groups;
}

/* The groups of @entry after test name @name ("NAME.1.2" has 2), or -1
 * if @entry does not begin with @name. */
static int groups_after(const char *entry, const char *name)
{
	size_t len = strlen(name);

	return strncmp(entry, name, len) ? -1 : digit_groups(entry + len);
}

/* Whether trash entry @entry is a sandbox of test @name that trash_one()
 * moved there, "NAME.TIME.PID.COUNTER" (all three numbers), or with
 * @copies one of its copies', "NAME.K.TIME.PID.COUNTER". */
static bool trashed_of(const char *entry, const char *name, bool copies)
{
	int groups = groups_after(entry, name);

	return groups == 3 || (copies && groups == 4);
}

/* Remove the trash entries of test @name (and with @copies its copies')
 * of the .ioriot directory @top.  *@removed counts the entries removed.
 * 0 (also without a trash) or -errno. */
static int remove_trashed_at(int top, const char *name, bool copies,
			     size_t *removed)
{
	char **names = NULL, rel[PATHMAP_MAX];
	int trash, rc;
	size_t n = 0;

	trash = openat(top, TRASH_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		       O_CLOEXEC);
	if (trash < 0)
		return errno == ENOENT ? 0 : -errno;
	rc = dir_names(trash, false, &names, &n);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!trashed_of(names[i], name, copies))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", TRASH_DIR, names[i]);
		rc = remove_below(top, rel, strlen(rel), removed);
		if (!rc && unlinkat(trash, names[i], AT_REMOVEDIR) < 0)
			rc = -errno;
		if (!rc)
			(*removed)++;
	}
	free_names(names, n);
	close(trash);
	return rc;
}

int sandbox_remove_trashed(const char *mnt, const char *name, bool copies,
			   size_t *removed, char *err, size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;

	*removed = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	rc = remove_trashed_at(top, name, copies, removed);
	close(top);
	if (rc)
		snprintf(err, errlen, "%s/%s/%s: %s", mnt, SANDBOX_DIR, TRASH_DIR,
			 strerror(-rc));
	return rc;
}

int sandbox_tests(const char *mnt, const char *name, char ***names,
		  size_t *n, char *err, size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;
	size_t kept = 0;

	*names = NULL;
	*n = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	rc = dir_names(top, true, names, n);
	close(top);
	if (rc) {
		snprintf(err, errlen, "%s/%s: %s", mnt, SANDBOX_DIR,
			 strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < *n; i++) {
		int groups = groups_after((*names)[i], name);

		if (groups == 0 || groups == 1)
			(*names)[kept++] = (*names)[i];
		else
			free((*names)[i]);
	}
	*n = kept;
	return 0;
}

void sandbox_names_free(char **names, size_t n)
{
	free_names(names, n);
}

int sandbox_remove(const char *mnt, const char *name, size_t *removed,
		   char *err, size_t errlen)
{
	int top = open_top_of_test(mnt, name, err, errlen), rc = 0;
	char rel[PATHMAP_MAX];
	struct stat st;

	*removed = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	if (fstatat(top, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? 0 : -errno;
	} else if (!S_ISDIR(st.st_mode)) {
		rc = unlinkat(top, name, 0) < 0 ? -errno : 0;
		*removed += !rc;
	} else {
		snprintf(rel, sizeof(rel), "%s", name);
		rc = remove_below(top, rel, strlen(rel), removed);
		if (!rc && unlinkat(top, name, AT_REMOVEDIR) < 0)
			rc = -errno;
		*removed += !rc;
	}
	close(top);
	if (rc)
		snprintf(err, errlen, "%s/%s/%s: %s%s", mnt, SANDBOX_DIR, name,
			 strerror(-rc), rc == -EXDEV ?
			 " (a mount below it was left alone)" : "");
	return rc;
}

int sandbox_purge(const char *mnt, size_t *removed, char *err, size_t errlen)
{
	int top = open_top(mnt, err, errlen), rc;

	*removed = 0;
	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	char rel[PATHMAP_MAX] = "";
	rc = remove_below(top, rel, 0, removed);
	close(top);
	if (!rc) {
		int mfd = sandbox_open_mount(mnt, err, errlen);
		if (mfd < 0)
			rc = mfd;
		else if (unlinkat(mfd, SANDBOX_DIR, AT_REMOVEDIR) < 0)
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
