/*
 * Block device counters from /proc/diskstats (diskstats.h).  The fields
 * used are the first eleven of each line: major, minor, name, reads
 * completed, reads merged, sectors read, ms reading, writes completed,
 * writes merged, sectors written, ms writing, then I/Os in progress and
 * ms doing I/O.  Sectors are 512 bytes whatever the device's block size.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ioriot/diskstats.h"

/* Parse /proc/diskstats text from @f into @ds.  Returns 0 or -errno. */
static int parse(struct diskstats *ds, FILE *f)
{
	char line[512];
	size_t cap = 0;
	int ret = 0;

	while (fgets(line, sizeof(line), f)) {
		struct disk_counters c = { 0 };
		uint64_t rd_merges, wr_merges, in_flight;
		unsigned major, minor;

		if (sscanf(line, "%u %u %31s %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %"
			   SCNu64 " %" SCNu64 " %" SCNu64, &major, &minor,
			   c.name, &c.rd_ios, &rd_merges, &c.rd_sectors,
			   &c.rd_ticks_ms, &c.wr_ios, &wr_merges, &c.wr_sectors,
			   &c.wr_ticks_ms, &in_flight, &c.io_ticks_ms) != 13)
			continue;	/* another format: not a device we report */
		if (ds->n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct disk_counters *p = realloc(ds->dev,
							  ncap * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			ds->dev = p;
			cap = ncap;
		}
		ds->dev[ds->n++] = c;
	}
	if (ferror(f))
		ret = -EIO;
out:
	if (ret)
		diskstats_free(ds);
	return ret;
}

int diskstats_read(struct diskstats *ds, int fd)
{
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap), *grown;
	ssize_t n;
	FILE *f;
	int ret;

	memset(ds, 0, sizeof(*ds));
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (!(grown = realloc(buf, cap * 2))) {
				ret = -ENOMEM;
				goto out;
			}
			buf = grown;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	f = len ? fmemopen(buf, len, "r") : NULL;
	if (!f) {
		ret = len ? -errno : 0;
		goto out;
	}
	ret = parse(ds, f);
	fclose(f);
out:
	free(buf);
	return ret;
}

static const struct disk_counters *find(const struct diskstats *ds,
					const char *name)
{
	for (size_t i = 0; i < ds->n; i++)
		if (!strcmp(ds->dev[i].name, name))
			return &ds->dev[i];
	return NULL;
}

/* The figures of @a over @b, @secs apart, into @d: false, @d untouched,
 * if a counter went backwards (a device reset or replaced). */
static bool figures(const struct disk_counters *b,
		    const struct disk_counters *a, double secs,
		    struct disk_figures *d)
{
	uint64_t rd, wr;
	double util;

	if (a->rd_ios < b->rd_ios || a->wr_ios < b->wr_ios ||
	    a->rd_sectors < b->rd_sectors || a->wr_sectors < b->wr_sectors ||
	    a->rd_ticks_ms < b->rd_ticks_ms ||
	    a->wr_ticks_ms < b->wr_ticks_ms ||
	    a->io_ticks_ms < b->io_ticks_ms)
		return false;
	rd = a->rd_ios - b->rd_ios;
	wr = a->wr_ios - b->wr_ios;
	memset(d, 0, sizeof(*d));
	d->name = a->name;
	d->rd_per_s = secs > 0 ? (double)rd / secs : 0;
	d->wr_per_s = secs > 0 ? (double)wr / secs : 0;
	d->rd_mb_per_s = secs > 0 ? (double)(a->rd_sectors - b->rd_sectors) *
			 512 / 1e6 / secs : 0;
	d->wr_mb_per_s = secs > 0 ? (double)(a->wr_sectors - b->wr_sectors) *
			 512 / 1e6 / secs : 0;
	util = secs > 0 ? (double)(a->io_ticks_ms - b->io_ticks_ms) /
			  (secs * 10) : 0;
	d->util_pct = util > 100 ? 100 : util;
	d->rd_await_ms = rd ? (double)(a->rd_ticks_ms - b->rd_ticks_ms) /
			 (double)rd : 0;
	d->wr_await_ms = wr ? (double)(a->wr_ticks_ms - b->wr_ticks_ms) /
			 (double)wr : 0;
	return true;
}

size_t diskstats_delta(const struct diskstats *before,
		       const struct diskstats *after, double secs,
		       struct disk_figures *out)
{
	size_t n = 0;

	for (size_t i = 0; i < after->n; i++) {
		const struct disk_counters *a = &after->dev[i];
		const struct disk_counters *b = find(before, a->name);

		if (b && (a->rd_ios != b->rd_ios || a->wr_ios != b->wr_ios) &&
		    figures(b, a, secs, &out[n]))
			n++;
	}
	return n;
}

size_t diskstats_delta_of(const struct diskstats *before,
			  const struct diskstats *after, double secs,
			  const struct disk_set *set, struct disk_figures *out)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++) {
		const struct disk_counters *a = find(after, set->dev[i].name);
		const struct disk_counters *b = find(before, set->dev[i].name);

		if (a && b && figures(b, a, secs, &out[n])) {
			out[n].name = set->dev[i].name;
			out[n].dev = &set->dev[i];
			n++;
		}
	}
	return n;
}

void diskstats_free(struct diskstats *ds)
{
	if (!ds)
		return;
	free(ds->dev);
	ds->dev = NULL;
	ds->n = 0;
}

int diskstats_device_of(const char *path, char *name, size_t len)
{
	char link[64], target[256];
	const char *base;
	struct stat st;
	ssize_t n;

	if (stat(path, &st))
		return -errno;
	if (major(st.st_dev) == 0)
		return -ENODEV;		/* anonymous: no block device */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_dev), minor(st.st_dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	strcpy(name, base);
	return 0;
}
