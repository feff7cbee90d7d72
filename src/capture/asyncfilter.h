/*
 * asyncfilter: the capture's path filters (--include, --exclude) for Linux
 * AIO and io_uring, whose calls and completions name no path.  A request
 * record (iocb, sqe) is judged by its file; an AIO context or a ring on
 * which a request of a kept file was submitted is "in use", and then its
 * submits, enters, waits and completions are kept; the records before a
 * submit or enter decide it.  Setting up and registering are always kept
 * (whether a ring will be in use is not known yet).
 */
#ifndef IORIOT_CAPTURE_ASYNCFILTER_H
#define IORIOT_CAPTURE_ASYNCFILTER_H

#include <stdbool.h>

#include "ioriot/caplog.h"
#include "ioriot/u64map.h"

struct async_filter {
	struct u64map rings;	/* pid << 32 | ring fd -> (void *)1: in use */
	struct u64map contexts;	/* hash of pid and context id -> in use */
	struct u64map batch;	/* pid << 32 | tid -> 1 + (kept << 32 | seen):
				 * the request records before its next call */
};

/* Set up an empty filter.  0 or -ENOMEM. */
int async_filter_init(struct async_filter *af);

/* Free it; a zeroed one is fine. */
void async_filter_destroy(struct async_filter *af);

/* Whether @kind is an AIO or io_uring call or record, which
 * async_filter_drop() judges. */
bool async_filter_judges(enum sys_kind kind);

/*
 * Whether to leave out @ce (async_filter_judges() of its kind), in the
 * log's order.  @file is the path filter's verdict on the file of a
 * request record or a fixed file's record (1 kept, 0 left out, -1 no file
 * or not known); @includes: the filter has --include, so that what is not
 * known to be kept is left out.  Sets *@err to -ENOMEM (and keeps the
 * event) when the state cannot grow.
 */
bool async_filter_drop(struct async_filter *af, const struct cap_event *ce,
		       int file, bool includes, int *err);

#endif
