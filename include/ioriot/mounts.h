/*
 * mounts: a mount table (mountpoint, file system type) and the look-up of
 * the mountpoint a path lives on.  Mountpoints match on whole path
 * components only: /mnt/1 never matches /mnt/10/x.
 */
#ifndef IORIOT_MOUNTS_H
#define IORIOT_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

struct mount_entry {
	char *dir;		/* normalised absolute path, no trailing '/' except "/" */
	size_t dir_len;
	char *fstype;
	bool pseudo;		/* proc, sysfs, devtmpfs, ... : never replayed */
};

struct mounttab {
	struct mount_entry *v;
	size_t n, cap;
};

/* An empty table.  Returns NULL on allocation failure. */
struct mounttab *mounttab_new(void);

/*
 * Add a mount; @dir is normalised.  A later entry for the same directory
 * replaces the earlier one (as an over-mount hides what is below).  Mounts
 * with a .ioriot component are left out (sandboxes never nest).  Returns 0,
 * -ENOMEM, or -EINVAL (directory not absolute or too long).
 */
int mounttab_add(struct mounttab *mt, const char *dir, size_t dir_len,
		 const char *fstype);

/*
 * Read a table in /proc/mounts format from @path.  Returns 0 or -errno.
 * Octal escapes (\040) in mountpoints are decoded.
 */
int mounttab_load(struct mounttab *mt, const char *path);

/*
 * The mount that holds normalised absolute @path (@len bytes): the longest
 * mountpoint that is @path or a whole-component prefix of it.  NULL if the
 * table has no entry for "/" and nothing matches.
 */
const struct mount_entry *mounttab_find(const struct mounttab *mt,
					const char *path, size_t len);

/*
 * True if some mountpoint lies strictly below normalised absolute @path:
 * the directory must exist for that mount, so it is never test data.
 */
bool mounttab_has_below(const struct mounttab *mt, const char *path,
			size_t len);

/* Decode in place the \ooo escapes that /proc/mounts and mountinfo use
 * for space, tab, newline and '\' in @s; returns its new length. */
size_t mount_unescape(char *s);

/* True for file system types that are not storage (proc, sysfs, ...). */
bool fstype_is_pseudo(const char *fstype);

/* Free the table.  Accepts NULL. */
void mounttab_free(struct mounttab *mt);

#endif
