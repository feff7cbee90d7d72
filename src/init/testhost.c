/*
 * testhost: what prepares a test host besides init: trash (-T) and purge
 * (-P) of the sandboxes on every mount, of every test or of one, and
 * dropping the page cache (-d, and before each replay) once the host's
 * writeback has settled.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/diskstats.h"
#include "ioriot/log.h"
#include "ioriot/mounts.h"
#include "ioriot/sandbox.h"
#include "ioriot/teststate.h"

/*
 * -T or -P (@purge) of test @name on @mnt: its sandbox and its copies'
 * (NAME.K) moved to the trash or removed, with @purge also what of them
 * is in the trash; each one's lock held meanwhile and its state reset.
 * *@n counts what was moved or removed.  0 or -errno with a message in
 * @err (-EBUSY: an init or a replay of it runs there).
 */
static int cleanup_test(const char *mnt, const char *name, bool purge,
			size_t *n, char *err, size_t errlen)
{
	char **tests = NULL;
	size_t ntests = 0, locked = 0, count;
	int *locks = NULL, rc;

	*n = 0;
	rc = sandbox_tests(mnt, name, &tests, &ntests, err, errlen);
	if (!rc && ntests && !(locks = calloc(ntests, sizeof(*locks))))
		rc = -ENOMEM;
	while (!rc && locked < ntests) {
		int fd = teststate_lock(mnt, tests[locked], err, errlen);

		if (fd < 0)
			rc = fd;
		else
			locks[locked++] = fd;
	}
	for (size_t i = 0; !rc && i < ntests; i++) {
		count = 0;
		if (purge) {
			rc = sandbox_remove(mnt, tests[i], &count, err, errlen);
		} else {
			rc = sandbox_trash(mnt, tests[i], err, errlen);
			count = 1;
		}
		if (!rc) {
			*n += count;
			rc = teststate_set(mnt, tests[i], TEST_STATE_NONE, err,
					   errlen);
		}
	}
	if (!rc && purge) {
		rc = sandbox_remove_trashed(mnt, name, true, &count, err,
					    errlen);
		*n += count;
	}
	while (locks && locked)
		close(locks[--locked]);
	free(locks);
	sandbox_names_free(tests, ntests);
	return rc;
}

int testhost_cleanup(const char *mounts, bool purge, const char *name,
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
		const char *mnt = mt->v[i].dir;
		size_t n = 0;

		if (mt->v[i].pseudo)
			continue;
		if (name)
			rc = cleanup_test(mnt, name, purge, &n, err,
					  sizeof(err));
		else if (purge)
			rc = sandbox_purge(mnt, &n, err, sizeof(err));
		else
			rc = sandbox_trash_all(mnt, &n, err, sizeof(err));
		if (rc) {
			log_error("%s", err);
			if (!failed)
				failed = rc;
		}
		*total += n;
		if (n && each)
			each(ctx, mnt, n);
	}
	rc = failed;
out:
	mounttab_free(mt);
	return rc;
}

/* At most this many sync(2) calls wait for the host's writeback to
 * settle: a host whose other programs keep writing never does. */
#define SETTLE_SYNCS_MAX 8

/* The sectors written to all block devices so far, by /proc/diskstats;
 * 0 when it cannot be read (then each sync looks like the last). */
static uint64_t sectors_written(void)
{
	struct diskstats ds = { 0 };
	uint64_t sum = 0;
	int fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (!diskstats_read(&ds, fd))
		for (size_t i = 0; i < ds.n; i++)
			sum += ds.dev[i].wr_sectors;
	diskstats_free(&ds);
	close(fd);
	return sum;
}

/*
 * sync(2) until one sync writes nothing more.  One is not always enough:
 * on ext4, the journal commit a sync forces (after many unlinks, say the
 * trashing of the previous run's sandbox) leaves metadata blocks dirty
 * that only the next sync writes.  Left for the replay, its own first
 * fsync or syncfs pays for them: under a 300 IOPS throttle, 0.6 s added
 * to a 0.2 s replay (docs/benchmarks-history.md §11.4).
 */
static void settle_writeback(void)
{
	uint64_t before = sectors_written(), after;

	for (int i = 0; i < SETTLE_SYNCS_MAX; i++) {
		sync();
		after = sectors_written();
		if (after == before)
			break;
		before = after;
	}
}

int testhost_drop_caches(char *err, size_t errlen)
{
	int fd, rc = 0;

	settle_writeback();
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
