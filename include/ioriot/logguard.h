/*
 * logguard: every byte of the capture log goes to its file through the
 * guard, which counts them and keeps the log within --max-size and its
 * file system above --min-free (docs/capture-format.md §1.1).  At a
 * limit it fails the write like a full disk (a partial write up to the
 * limit, then an error), so that the capture ends its log as it does on a
 * full disk; LOG_GUARD_RESERVE bytes below the limit are kept for the
 * log's end.
 */
#ifndef IORIOT_LOGGUARD_H
#define IORIOT_LOGGUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Room kept below a limit for the end of the log (the uncaptured and end
 * records, or the frame holding them). */
#define LOG_GUARD_RESERVE (64 * 1024)
/* The smallest --max-size: the header and the reserve. */
#define LOG_GUARD_MIN_SIZE (2 * LOG_GUARD_RESERVE)
/* Free space is looked at again after this many bytes written (and when
 * log_guard_check_soon() asks). */
#define LOG_GUARD_CHECK_BYTES (1024 * 1024)

/* Why the guard stopped the log. */
enum log_stop {
	LOG_STOP_NONE,
	LOG_STOP_MAX_SIZE,	/* --max-size reached: writes fail with EFBIG */
	LOG_STOP_MIN_FREE,	/* --min-free reached: writes fail with ENOSPC */
};

struct log_guard {
	int fd;
	uint64_t max_size;	/* 0: no limit */
	unsigned min_free_pct;	/* 0: no limit */
	uint64_t written;	/* bytes in the file */
	uint64_t free_limit;	/* size at which the file system has only
				 * min_free_pct left, at the last look */
	uint64_t checked_at;	/* written at the last look */
	bool check_due;
	bool ending;		/* the log's end: the reserve may be used */
	enum log_stop stop;	/* the limit the log met, once it did */
};

/* A guard for the empty file open on @fd.  Never fails. */
void log_guard_init(struct log_guard *g, int fd, uint64_t max_size,
		    unsigned min_free_pct);

/*
 * outbuf_sink_fn: write @len bytes of @data to the file (@g is the
 * struct log_guard).  Returns the bytes written (all, or those up to the
 * limit), or -errno: write(2)'s, -EFBIG at --max-size, -ENOSPC at
 * --min-free (g->stop says which).
 */
ssize_t log_guard_write(void *g, const void *data, size_t len);

/* Look at the free space at the next write. */
void log_guard_check_soon(struct log_guard *g);

/* The log is being ended: from now on the reserve may be written too. */
void log_guard_end(struct log_guard *g);

/* The file was cut back to @size bytes (its offset is there). */
void log_guard_restart(struct log_guard *g, uint64_t size);

#endif
