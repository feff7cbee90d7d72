/*
 * series: the time series of a replay.  The engine fills one struct
 * series_sample per interval (operations, bytes, latency histograms per
 * syscall class, block device figures, load average) and hands it to a
 * writer, which appends a row to a CSV file and sends the figures to a
 * Graphite server (plaintext protocol over TCP).  Columns and metric names
 * are documented in docs/series.md.
 */
#ifndef IORIOT_SERIES_H
#define IORIOT_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ioriot/diskstats.h"
#include "ioriot/replay.h"
#include "ioriot/syscalls.h"

/* The classes syscalls are grouped into (series_class_of()): the syscall
 * table's class (syscall_table.h), namespace calls apart from meta. */
enum series_class {
	SC_READ,	/* data read: read, pread64, readahead, sendfile, ... */
	SC_WRITE,	/* write, ..., ftruncate, fallocate, copy_file_range */
	SC_OPEN,	/* open, openat, creat, close, close_range, dup */
	SC_META,	/* stat family, access, readlink, getdents, chmod, chdir */
	SC_NAMESPACE,	/* mkdir, rmdir, unlink, rename, link, symlink */
	SC_SYNC,	/* fsync, fdatasync, sync, syncfs, sync_file_range, msync */
	SC_OTHER,	/* lseek, fcntl, mmap, fadvise64, splice, tee, ... */
	SC_COUNT
};

/* One class over an interval. */
struct series_class_stats {
	uint64_t ops;
	uint64_t differ;	/* results that differed from the capture */
	uint64_t lat[REPLAY_HIST_BUCKETS];	/* ns, replay_hist_bucket() */
};

/*
 * One interval of a replay: (t_ns - interval_ns, t_ns], both counted from
 * the start of the replay.  Operations are counted in the interval they
 * completed in.
 */
struct series_sample {
	uint64_t t_ns;			/* end of the interval */
	uint64_t interval_ns;
	uint64_t rd_bytes, wr_bytes;	/* moved by the class's syscalls */
	struct series_class_stats cls[SC_COUNT];
	const struct disk_figures *disks;	/* diskstats_delta() of the
						 * interval */
	size_t ndisks;
	double loadavg1;		/* getloadavg(), 1 minute */
};

struct series_config {
	const char *csv_path;		/* NULL: no CSV; opened with
					 * outfile_open() (outfile.h) */
	const char *input;		/* the CSV must not be this file */
	const char *graphite;		/* "HOST:PORT" or "[IPV6]:PORT";
					 * NULL: no Graphite */
	const char *prefix;		/* metric prefix; NULL: ioriot.NAME */
	const char *prom_path;		/* --prom FILE (promfile.h), opened by
					 * timeseries_open(); NULL: none */
	uid_t prom_uid;			/* the user who rewrites it */
	const char *test_name;		/* NAME of the default prefix */
	/* The block devices that get CSV columns, in this order (a CSV has
	 * fixed columns; Graphite gets every device of each sample). */
	const char *const *devices;
	size_t ndevices;
	uint64_t start_unix_ns;		/* wall time of t_ns 0; 0: now */
	uint64_t timeout_ns;		/* Graphite connect + send per
					 * interval; 0: 100 ms */
};

struct series;

/* The class of syscall @id: every enum sys_id has one. */
enum series_class series_class_of(enum sys_id id);

/* The name of class @c in CSV columns and metric names ("read", ...). */
const char *series_class_name(enum series_class c);

/*
 * Add to @smp what the operations counted in @now and not yet in @prev did
 * (SYS_COUNT entries each, cumulative over the replay; @prev NULL: none):
 * operations, differing results and latencies to their class, bytes of
 * reads (and copies) to rd_bytes, of writes (and copies) to wr_bytes.
 * @now must not be behind @prev.
 */
void series_sample_add(struct series_sample *smp,
		       const struct replay_sys_stats *now,
		       const struct replay_sys_stats *prev);

/*
 * Open a writer: create or truncate the CSV file and write its header line,
 * resolve the Graphite address (the connection is made by the first
 * series_write()).  Returns NULL with errno set and a message in @err on a
 * bad argument (EINVAL), an address that does not resolve (EHOSTUNREACH)
 * or a CSV file that cannot be written.
 */
struct series *series_open(const struct series_config *cfg, char *err,
			   size_t errlen);

/*
 * Write one interval: a CSV row (flushed), then the Graphite lines, sent
 * within the configured timeout.  Graphite failures are not errors: the
 * interval is counted as not sent, the first failure is logged, and the
 * next call connects anew.  Returns 0, -EINVAL for a sample with devices
 * but no device array, or -errno when the CSV row cannot be written.
 */
int series_write(struct series *s, const struct series_sample *smp);

/* Intervals Graphite did not receive (none configured, or NULL: 0). */
uint64_t series_graphite_failures(const struct series *s);

/* Close the CSV file and the connection, free @s.  Accepts NULL.  Returns
 * 0 or -errno when the CSV file's last data cannot be written. */
int series_close(struct series *s);

#endif
