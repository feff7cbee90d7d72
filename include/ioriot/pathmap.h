/*
 * pathmap: the rewrite of captured paths into per-mountpoint sandboxes:
 * <mountpoint>/.ioriot/NAME/<path below it>.  Paths are normalised first
 * (paths.h), so no rewritten path can leave its sandbox.  Mountpoints match
 * on whole components (see mounts.h).
 */
#ifndef IORIOT_PATHMAP_H
#define IORIOT_PATHMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/mounts.h"
#include "ioriot/paths.h"

enum pathmap_status {
	PATHMAP_OK,
	PATHMAP_PSEUDO,		/* on proc, sysfs, ...: not replayed */
	PATHMAP_OWN,		/* inside a .ioriot sandbox: ioriot's own I/O */
	PATHMAP_NO_MOUNT,	/* no mount in the table holds it */
	PATHMAP_TOO_LONG,
	PATHMAP_RELATIVE,	/* not absolute and no directory to resolve it */
	PATHMAP_STATUS_COUNT
};

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
