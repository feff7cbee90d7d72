/*
 * testhost: what prepares a test host besides init: trash (-T) and purge
 * (-P) of the sandboxes on every mount, and dropping the page cache (-d,
 * and before each replay).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/log.h"
#include "ioriot/mounts.h"
#include "ioriot/sandbox.h"

int testhost_cleanup(const char *mounts, bool purge,
		     void (*each)(void *ctx, const char *mnt, size_t n),
		     void *ctx, size_t *total)
{
	struct mounttab *mt = mounttab_new();
	char err[PATH_MAX + 256];
	int rc, failed = 0;

	*total = 0;
	if (!mt)
		return -ENOMEM;
	rc = mounttab_load(mt, mounts);
	if (rc) {
		log_error("%s: cannot read the mount table: %s", mounts,
			  strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < mt->n; i++) {
		size_t n = 0;

		if (mt->v[i].pseudo)
			continue;
		rc = purge ? sandbox_purge(mt->v[i].dir, &n, err, sizeof(err)) :
			     sandbox_trash_all(mt->v[i].dir, &n, err, sizeof(err));
		if (rc) {
			log_error("%s", err);
			if (!failed)
				failed = rc;
		}
		*total += n;
		if (n && each)
			each(ctx, mt->v[i].dir, n);
	}
	rc = failed;
out:
	mounttab_free(mt);
	return rc;
}

int testhost_drop_caches(char *err, size_t errlen)
{
	int fd, rc = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		rc = -errno;
		snprintf(err, errlen, "/proc/sys/vm/drop_caches: %s%s",
			 strerror(errno), errno == EACCES || errno == EPERM ?
			 " (needs root)" : "");
	}
	if (fd >= 0)
		close(fd);
	return rc;
}
