/*
 * diskstats: block device counters from /proc/diskstats, read before and
 * after a replay, and the iostat -x style figures of the interval between;
 * the block devices under a replay's sandboxes (diskdevs.c), so that the
 * figures are those of the devices the replay uses, each with the
 * sandboxes it serves.
 */
#ifndef IORIOT_DISKSTATS_H
#define IORIOT_DISKSTATS_H

#include <stdbool.h>
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

/*
 * A block device under a replay's sandboxes: the device a sandbox's mount
 * is on ("mount": a partition itself, not its disk; a loop device, not the
 * device of its backing file), or a device under one of those ("slave":
 * the members of a device-mapper or md device, from /sys/block/X/slaves,
 * recursively).
 */
struct disk_device {
	char name[32];			/* as in /proc/diskstats */
	unsigned major, minor;
	char *sysfs;			/* its directory under /sys/devices */
	char *queue;			/* the directory holding its queue/
					 * (scheduler, read_ahead_kb): a
					 * partition's disk, else sysfs */
	char *mount;			/* the mountpoint it was found under
					 * first; NULL for a slave */
	char *backing;			/* a loop device's backing file, or
					 * NULL (never listed itself: its
					 * device's counters hold the host's
					 * other I/O too) */
	bool slave;
	size_t *sandboxes;		/* indices of the sandboxes it serves */
	size_t nsandboxes;
};

struct disk_set {
	struct disk_device *dev;
	size_t n;
	/* Per sandbox: the mount it lives on (NULL where none was found). */
	char **mounts;
	size_t nroots;
};

/* One device over an interval. */
struct disk_figures {
	const char *name;
	const struct disk_device *dev;	/* diskstats_delta_of(): the device
					 * of the set; else NULL */
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

/*
 * The block devices under the @n sandboxes @roots into @set (zeroed
 * first): for each sandbox (or, before init, its nearest existing parent)
 * the device of its mount, from /proc/self/mountinfo and
 * /sys/dev/block/MAJOR:MINOR, then that device's slaves.  A sandbox on a
 * file system without a block device (tmpfs, overlay, NFS) adds none.
 * Returns 0, or -ENOMEM (nothing else fails: what cannot be read is left
 * out).
 */
int diskstats_devices(struct disk_set *set, char *const *roots, size_t n);

/* True if @d is a device of @set or shares its queue with one: changing
 * its scheduler or read-ahead changes one of @set's. */
bool diskstats_set_holds(const struct disk_set *set,
			 const struct disk_device *d);

/*
 * The figures of each device of @set found in @before and @after, @secs
 * apart, idle ones too, in @out (room for set->n entries; names point
 * into @set), in @set's order.  Returns the number of entries.
 */
size_t diskstats_delta_of(const struct diskstats *before,
			  const struct diskstats *after, double secs,
			  const struct disk_set *set, struct disk_figures *out);

/* Free the devices.  Accepts NULL and a zeroed @set. */
void diskstats_devices_free(struct disk_set *set);

/* Free the counters.  Accepts a zeroed @ds. */
void diskstats_free(struct diskstats *ds);

#endif
