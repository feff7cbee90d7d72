/*
 * diskstats: block device counters from /proc/diskstats, read before and
 * after a replay, and the iostat -x style figures of the interval between.
 */
#ifndef IORIOT_DISKSTATS_H
#define IORIOT_DISKSTATS_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

struct disk_counters {
	char name[32];
	uint64_t rd_ios, rd_sectors, rd_ticks_ms;
	uint64_t wr_ios, wr_sectors, wr_ticks_ms;
	uint64_t io_ticks_ms;		/* time the device was busy */
};

struct diskstats {
	struct disk_counters *dev;
	size_t n;
};

/* One device over an interval. */
struct disk_figures {
	const char *name;
	double rd_per_s, wr_per_s;
	double rd_mb_per_s, wr_mb_per_s;	/* 10^6 bytes */
	double util_pct;
	double rd_await_ms, wr_await_ms;	/* average time per request */
};

/*
 * Read the counters of every device in open file @fd (/proc/diskstats
 * format), from its start, into @ds; lines in another format (old partition
 * lines, names longer than 31 bytes) are skipped.  A /proc file opened once
 * can be read again and again, from the replay's confined thread too.
 * Returns 0, or -errno when the file cannot be read.
 */
int diskstats_read(struct diskstats *ds, int fd);

/*
 * The figures of each device that did I/O between @before and @after,
 * @secs apart, in @out (room for after->n entries; names point into
 * @after).  Devices missing from @before or whose counters went backwards
 * are left out.  Returns the number of entries.
 */
size_t diskstats_delta(const struct diskstats *before,
		       const struct diskstats *after, double secs,
		       struct disk_figures *out);

/*
 * The name /proc/diskstats gives the block device that holds @path (a
 * partition's own name, "loop0", ...), from /sys/dev/block/MAJOR:MINOR.
 * Returns 0, -ENODEV for a file system without one (tmpfs, overlay), or
 * -errno of stat(2) or readlink(2).
 */
int diskstats_device_of(const char *path, char *name, size_t len);

/* Free the counters.  Accepts a zeroed @ds. */
void diskstats_free(struct diskstats *ds);

#endif
