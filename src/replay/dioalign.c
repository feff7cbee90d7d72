/* dioalign: buffer alignment for the replay's direct I/O (dioalign.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dioalign.h"

#define DIOALIGN_UNKNOWN 4096u	/* no statx, no block device: a page */

/* A device of a sandbox root. */
struct dio_dev {
	dev_t dev;
	unsigned lbs;		/* logical block size; 0: no block device */
	atomic_uint align;	/* 0 until statx was asked */
};

struct dioalign {
	pthread_mutex_t lock;	/* one statx per device at a time */
	char **roots;
	size_t *root_dev;	/* roots[i] is on devs[root_dev[i]] */
	size_t nroots;
	struct dio_dev *devs;
	size_t ndevs;
	atomic_size_t probes;
};

/* @v rounded up to a power of two, clamped to [DIOALIGN_MIN,
 * DIOALIGN_MAX]. */
static size_t clamp_align(size_t v)
{
	size_t a = DIOALIGN_MIN;

	while (a < v && a < DIOALIGN_MAX)
		a <<= 1;
	return a;
}

/* The number in sysfs file @path, or 0. */
static unsigned read_sysfs_uint(const char *path)
{
	char buf[32];
	unsigned v = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%u", &v) != 1)
		return 0;
	return v;
}

/* The logical block size of block device @dev (a partition's is its
 * disk's), or 0 if it is none. */
static unsigned logical_block_size(dev_t dev)
{
	char path[96];
	unsigned v;

	if (major(dev) == 0)
		return 0;	/* anonymous: tmpfs, overlay, NFS, ... */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/"
		 "logical_block_size", major(dev), minor(dev));
	v = read_sysfs_uint(path);
	if (v)
		return v;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/"
		 "logical_block_size", major(dev), minor(dev));
	return read_sysfs_uint(path);
}

struct dioalign *dioalign_new(char *const *roots, char *const *host, size_t n)
{
	struct dioalign *d = calloc(1, sizeof(*d));
	struct stat st;

	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	if (n && (!(d->roots = calloc(n, sizeof(*d->roots))) ||
		  !(d->root_dev = calloc(n, sizeof(*d->root_dev))) ||
		  !(d->devs = calloc(n, sizeof(*d->devs)))))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (stat(host[i], &st) < 0)
			continue;
		for (j = 0; j < d->ndevs && d->devs[j].dev != st.st_dev; j++)
			;
		if (j == d->ndevs) {
			d->devs[j].dev = st.st_dev;
			d->devs[j].lbs = logical_block_size(st.st_dev);
			d->ndevs++;
		}
		if (!(d->roots[d->nroots] = strdup(roots[i])))
			goto fail;
		d->root_dev[d->nroots++] = j;
	}
	return d;
fail:
	dioalign_free(d);
	return NULL;
}

/* The device of the sandbox @path is in, or NULL. */
static struct dio_dev *dev_of(struct dioalign *d, const char *path)
{
	for (size_t i = 0; path && i < d->nroots; i++) {
		size_t len = strlen(d->roots[i]);

		if (!strncmp(path, d->roots[i], len) &&
		    (path[len] == '/' || !path[len]))
			return &d->devs[d->root_dev[i]];
	}
	return NULL;
}

/*
 * Ask statx for @fd's alignment: the larger of stx_dio_mem_align and
 * stx_dio_offset_align in *@align, @fallback when the kernel or the file
 * system does not say; its device in *@dev (0 if statx failed).  Returns
 * true when the answer holds for every file of the device, false for one
 * without direct I/O (both alignments 0: this file only).
 */
static bool probe(struct dioalign *d, int fd, unsigned fallback,
		  size_t *align, dev_t *dev)
{
	struct statx stx;

	if (d)
		atomic_fetch_add_explicit(&d->probes, 1, memory_order_relaxed);
	*dev = 0;
	*align = fallback;
	if (statx(fd, "", DIOALIGN_STATX_FLAGS, STATX_DIOALIGN, &stx) < 0)
		return true;	/* ENOSYS before Linux 4.11 */
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (!(stx.stx_mask & STATX_DIOALIGN))
		return true;	/* before Linux 6.1, or not this fs */
	if (!stx.stx_dio_mem_align && !stx.stx_dio_offset_align)
		return false;
	*align = stx.stx_dio_mem_align > stx.stx_dio_offset_align ?
		 stx.stx_dio_mem_align : stx.stx_dio_offset_align;
	return true;
}

size_t dioalign_of(struct dioalign *d, int fd, const char *path)
{
	struct dio_dev *dd = d ? dev_of(d, path) : NULL;
	unsigned fallback = dd && dd->lbs ? dd->lbs : DIOALIGN_UNKNOWN;
	unsigned known;
	size_t align;
	dev_t dev;
	bool whole;

	if (!dd) {
		probe(d, fd, fallback, &align, &dev);
		return clamp_align(align);
	}
	known = atomic_load_explicit(&dd->align, memory_order_acquire);
	if (known)
		return known;
	pthread_mutex_lock(&d->lock);
	known = atomic_load_explicit(&dd->align, memory_order_relaxed);
	if (!known) {
		whole = probe(d, fd, fallback, &align, &dev);
		align = clamp_align(align);
		/* A mount below the sandbox: its answer is not the root's. */
		if (whole && (!dev || dev == dd->dev))
			atomic_store_explicit(&dd->align, (unsigned)align,
					      memory_order_release);
		known = (unsigned)align;
	}
	pthread_mutex_unlock(&d->lock);
	return known;
}

size_t dioalign_probes(const struct dioalign *d)
{
	return d ? atomic_load(&d->probes) : 0;
}

void dioalign_free(struct dioalign *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nroots; i++)
		free(d->roots[i]);
	free(d->roots);
	free(d->root_dev);
	free(d->devs);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
