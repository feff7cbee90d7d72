/*
 * mntns: the paths of a process in a mount namespace of its own (a
 * container's) as the host sees them.  Its mounts (/proc/PID/mountinfo)
 * are mapped onto the host's by device and root: a volume bind-mounted
 * from the host's /srv/ct/data at /data/db is that directory, a container
 * root on an overlay is the host's mount of that overlay.
 */
#ifndef IORIOT_CAPTURE_MNTNS_H
#define IORIOT_CAPTURE_MNTNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mount: where it is, which directory of its file system it shows,
 * and the file system (st_dev's major:minor). */
struct mnt_ent {
	char *mp;		/* mount point, absolute, unescaped */
	char *root;		/* the directory of the file system it shows */
	uint64_t dev;		/* major << 32 | minor */
};

struct mnt_table {
	struct mnt_ent *v;
	size_t n;
};

/* Read the mountinfo file @path into @t (emptied first).  Returns 0,
 * -ENOMEM, or -errno if it cannot be read. */
int mnt_table_load(struct mnt_table *t, const char *path);

/* Free its entries; a zeroed table is fine. */
void mnt_table_free(struct mnt_table *t);

/*
 * Absolute, normalised @path of a process whose mounts are @ns as the host
 * whose mounts are @host sees it, into @out (@size bytes): the mount of
 * @ns holding it, the directory of its file system that is, and the host's
 * mount that shows that directory.  False, @out untouched, if no host
 * mount shows it (or the result would not fit).
 */
bool mnt_translate(const struct mnt_table *ns, const struct mnt_table *host,
		   const char *path, char *out, size_t size);

#endif
