/*
 * sandbox: the per-mountpoint test directories <mountpoint>/.ioriot/NAME,
 * their trash <mountpoint>/.ioriot/.trash, and safe walking below them.
 *
 * A sandbox root is reached from "/" without following any symlink, must
 * be on the root directory of a mount, and .ioriot must be root's.
 * Everything else works from directory fds: each path below a sandbox is
 * opened relative to the sandbox's fd with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS) (or, on kernels without
 * openat2, component by component with O_NOFOLLOW), removal never follows a
 * symlink and never crosses into another mount.  No path given to these
 * functions can make them touch anything outside <mountpoint>/.ioriot.
 */
#ifndef IORIOT_SANDBOX_H
#define IORIOT_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Split sandbox root @root ("<mountpoint>/.ioriot/NAME", as a replay file
 * header declares it) into its mountpoint (into @mnt, PATHMAP_MAX bytes) and
 * NAME (pointer into @root).  Returns 0 or -EINVAL if @root is not of that
 * form (normalised, valid test name).
 */
int sandbox_split(const char *root, char *mnt, const char **name);

/*
 * Open mountpoint @mnt (absolute, normalised) from "/" without following a
 * symlink anywhere on the way (RESOLVE_NO_SYMLINKS, or an O_NOFOLLOW walk),
 * and check that the directory reached is the root of a mount of a file
 * system that holds data (ext4, xfs, btrfs, tmpfs, nfs, fuse, ...: not
 * proc, sysfs, cgroup and other pseudo file systems).  Returns a
 * directory fd, or -errno with a message in @err: -ELOOP for a symlink on
 * the way, -EINVAL for a directory that is not a mount root or is on a
 * pseudo file system.
 */
int sandbox_open_mount(const char *mnt, char *err, size_t errlen);

/*
 * Open <@mnt>/.ioriot (created mode 0755 if @create) with the checks of
 * sandbox_open(): on that mount, a directory owned by root or the caller,
 * writable by its owner only.  Returns the fd, -ENOENT when there is none
 * and not @create, or -errno with a message in @err.
 */
int sandbox_top(const char *mnt, bool create, char *err, size_t errlen);

/*
 * For init, as root: open (creating as needed) <@mnt>/.ioriot/@name.  @mnt
 * is opened with sandbox_open_mount(); .ioriot is created mode 0755 and
 * must be a directory on that mount owned by root (or by the caller) and
 * writable by its owner only; NAME is created mode 0755 and given to
 * @uid:@gid by its fd unless @uid is (uid_t)-1.  Refuses (-ELOOP) a
 * symlink, (-EXDEV) another mount, (-EPERM) a .ioriot of another user.
 * Returns the fd or -errno with a message in @err.
 */
int sandbox_open(const char *mnt, const char *name, uid_t uid, gid_t gid,
		 char *err, size_t errlen);

/*
 * For the user who works in the sandbox (the replay after its privileges
 * are dropped, init's workers): open the existing <@mnt>/.ioriot/@name
 * with the same checks as sandbox_open(), and require NAME to be owned by
 * @owner.  Everything is opened with the caller's own rights, so a
 * sandbox the test user could not reach is refused (-EACCES).  Returns
 * the fd or -errno with a message in @err.
 */
int sandbox_enter(const char *mnt, const char *name, uid_t owner, char *err,
		  size_t errlen);

/*
 * Move <@mnt>/.ioriot/@name, if it exists, to a new unique directory in
 * <@mnt>/.ioriot/.trash (never collides, even twice in a second).  Returns 0
 * (also when there was nothing to move) or -errno with a message.
 */
int sandbox_trash(const char *mnt, const char *name, char *err, size_t errlen);

/*
 * -T: move every test directory of <@mnt>/.ioriot (all but .trash) to the
 * trash.  *@moved counts them.  Returns 0 or -errno with a message.
 */
int sandbox_trash_all(const char *mnt, size_t *moved, char *err,
		      size_t errlen);

/*
 * Remove the sandboxes of test @name that sandbox_trash() moved to
 * <@mnt>/.ioriot/.trash, with @copies also those of its copies (NAME.K,
 * --copies), and nothing else there (--repeat: each run's init would
 * otherwise keep a copy of the data; -P -n).  *@removed counts the entries
 * removed.  Returns 0 (also without a trash) or -errno with a message.
 */
int sandbox_remove_trashed(const char *mnt, const char *name, bool copies,
			   size_t *removed, char *err, size_t errlen);

/*
 * The sandboxes on @mnt of test @name and its copies (NAME.K): their
 * names in <@mnt>/.ioriot, a malloc'd array *@names of *@n malloc'd
 * strings (sandbox_names_free).  Returns 0 (none without a .ioriot) or
 * -errno with a message.
 */
int sandbox_tests(const char *mnt, const char *name, char ***names,
		  size_t *n, char *err, size_t errlen);

/* Free what sandbox_tests() returned; NULL is fine. */
void sandbox_names_free(char **names, size_t n);

/*
 * -P -n: remove <@mnt>/.ioriot/@name and everything below it, as
 * sandbox_purge() does.  *@removed counts removed entries.  Returns 0
 * (also when there is none) or -errno with a message.
 */
int sandbox_remove(const char *mnt, const char *name, size_t *removed,
		   char *err, size_t errlen);

/*
 * -P: remove <@mnt>/.ioriot and everything below it: tests and trash.
 * Symlinks are removed, never followed; a directory on another mount is
 * left alone (and reported in @err, with -EXDEV, after removing the rest).
 * *@removed counts removed entries.  Returns 0 or -errno with a message.
 */
int sandbox_purge(const char *mnt, size_t *removed, char *err, size_t errlen);

/*
 * -T (@purge false) or -P (@purge true) on every mount of the mount table
 * @mounts (a /proc/mounts file) but pseudo file systems: of every test,
 * or with @name of test @name and its copies only (NAME.K; with -P also
 * what of them is in the trash; refused on a mount where an init or a
 * replay of one runs; their state is reset).  @each, if not NULL, is
 * called for each mount where something was moved or removed, with their
 * number; *@total sums them.  A mount that fails is reported (log_error)
 * and the others are still done.  Returns 0, or the -errno of the first
 * failure (-ENOMEM, an unreadable table, a mount that failed, -EBUSY).
 */
int testhost_cleanup(const char *mounts, bool purge, const char *name,
		     void (*each)(void *ctx, const char *mnt, size_t n),
		     void *ctx, size_t *total);

/*
 * Write dirty data out (sync, again until a sync writes nothing more, at
 * most 8 times), then drop the page cache, dentries and inodes.  Returns 0 or -errno with a message in @err (-EACCES without
 * root).
 */
int testhost_drop_caches(char *err, size_t errlen);

/*
 * Open @rel (relative, normalised, below the sandbox whose fd is @dirfd)
 * with @flags and @mode, never leaving @dirfd's tree and never following a
 * symlink.  Returns the fd or -errno (-EXDEV / -ELOOP for escape attempts).
 */
int sandbox_openat(int dirfd, const char *rel, int flags, mode_t mode);

#endif
