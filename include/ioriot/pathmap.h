/*
 * pathmap: lexical path normalisation and the rewrite of captured paths into
 * per-mountpoint sandboxes: <mountpoint>/.ioriot/NAME/<path below it>.
 *
 * Normalisation removes empty and "." components and resolves ".." against
 * the path itself, never above "/", so no rewritten path can leave its
 * sandbox.  Mountpoints match on whole components (see mounts.h).
 */
#ifndef IORIOT_PATHMAP_H
#define IORIOT_PATHMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/mounts.h"

#define PATHMAP_MAX 4096	/* PATH_MAX: longer paths are rejected */
#define SANDBOX_DIR ".ioriot"	/* <mountpoint>/.ioriot/NAME */

enum pathmap_status {
	PATHMAP_OK,
	PATHMAP_PSEUDO,		/* on proc, sysfs, ...: not replayed */
	PATHMAP_OWN,		/* inside a .ioriot sandbox: ioriot's own I/O */
	PATHMAP_NO_MOUNT,	/* no mount in the table holds it */
	PATHMAP_TOO_LONG,
	PATHMAP_RELATIVE,	/* not absolute and no directory to resolve it */
	PATHMAP_STATUS_COUNT
};

/*
 * Normalise @path (@len bytes) into @out (PATHMAP_MAX bytes).  A relative
 * path is resolved against @cwd (absolute, normalised) if @cwd is not NULL.
 * Returns the length of the result, or -ENAMETOOLONG, or -EINVAL for a
 * relative path without @cwd.
 */
long path_normalize(const char *path, size_t len, const char *cwd,
		    char *out);

/*
 * True if @name is a valid test name: non-empty, at most 255 bytes, no '/',
 * not "." or "..", no byte below 0x21.
 */
bool test_name_valid(const char *name);

struct pathmap {
	const struct mounttab *mounts;
	const char *name;	/* the test name */
	size_t name_len;
};

/*
 * Classify normalised @path and, if replayable, write its sandbox path to
 * @out (PATHMAP_MAX bytes) and its length to @out_len.  @mnt, if not NULL,
 * receives the mount.  Returns a pathmap_status.
 */
enum pathmap_status pathmap_rewrite(const struct pathmap *pm, const char *path,
				    size_t len, char *out, size_t *out_len,
				    const struct mount_entry **mnt);

/* Short name of a status for summaries ("pseudo file system", ...). */
const char *pathmap_status_name(enum pathmap_status st);

#endif
