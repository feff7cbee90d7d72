/*
 * generate: turns a capture log into a replay file in one streaming pass
 * (docs/architecture.md).  Memory is bounded by live state (processes, open
 * files, known paths), not by the log's length; the same input always gives
 * the same output, byte for byte.
 */
#ifndef IORIOT_GENERATE_H
#define IORIOT_GENERATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ioriot/caplog.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"
#include "ioriot/syscalls.h"

/* Why an event was not written as an operation. */
enum gen_filter {
	GF_UNKNOWN_FD,		/* fd not opened in the capture (socket, pipe, ...) */
	GF_PSEUDO,		/* pseudo file system (proc, sysfs, ...) */
	GF_OWN,			/* inside a .ioriot sandbox */
	GF_NO_MOUNT,		/* no mount holds the path */
	GF_TOO_LONG,		/* path too long after rewrite */
	GF_RELATIVE,		/* relative path, directory unknown */
	GF_NOT_FILE,		/* anonymous mmap, mremap, by-address op not on a file map */
	GF_FD_TABLE,		/* only changes fd tables or processes (dup, fork, ...) */
	GF_INCOMPLETE,		/* lacks a path, fd or result the operation needs */
	GF_AIO,			/* AIO: poll or noop request, unknown context or
				 * request */
	GF_URING,		/* io_uring: a request kind or register opcode
				 * not replayed, a ring beyond the kernel's
				 * sizes, unknown ring or request */
	GF_UNKNOWN_MAP,		/* page record of a mapping not replayed */
	GF_IOCTL,		/* an ioctl command other than the clone and
				 * dedupe ones */
	GF_FILTERED,		/* left out by the generate-time filters */
	GF_FILTER_FD,		/* its fd was opened by an operation the
				 * filters left out, and is not reopened */
	GF_FILTER_CTX,		/* its mapping, AIO context or io_uring ring
				 * was set up by a call the filters left
				 * out */
	GF_SYNC,		/* a futex wait or wake: only the order of
				 * threads it gives (sync=) */
	GF_COUNT
};

/* A --from or --to time (filter.c). */
enum gen_time_kind {
	GT_NONE,
	GT_OFFSET,		/* ns from the log's first record */
	GT_EPOCH,		/* ns since the epoch: needs the log's
				 * start_epoch_ns */
};

struct gen_time {
	enum gen_time_kind kind;
	uint64_t ns;
};

/* The generate-time filters (docs/guide.md, "Filters"); all of them
 * must select an operation for it to be written. */
struct gen_filters {
	unsigned classes;		/* 1 << enum sys_class; 0: every one */
	const char *const *comms;	/* process names (comm), or none */
	size_t ncomms;
	const char *const *paths;	/* normalised absolute prefixes */
	size_t npaths;
	struct gen_time from, to;	/* the window [from, to) */
};

/* Parse a comma list of class names (sys_class_name()) into @mask (1 <<
 * class).  Returns 0, or -EINVAL with a message in @err. */
int gen_parse_classes(const char *list, unsigned *mask, char *err,
		      size_t errlen);

/* Parse a --from or --to time: seconds from the capture's start
 * ("12.5"), epoch seconds after '@' ("@1764064800.25"), or ISO 8601
 * ("2026-11-25T10:00:00", fractions, and "Z" or "+HH:MM" allowed; no zone
 * is UTC).  Returns 0, or -EINVAL with a message in @err. */
int gen_parse_time(const char *s, struct gen_time *t, char *err,
		   size_t errlen);

struct gen_options {
	const char *capture_path;
	const char *replay_path;
	const char *name;		/* test name, validated by the caller */
	const char *user;		/* replay user, stored in the header */
	const char *local_mounts;	/* mount table for v2/v3 logs (/proc/mounts) */
	/* --map: the test mount each captured mount's sandbox goes to,
	 * written as its sandbox line's test_mount= (NULL: none). */
	const struct sandmap *map;
	/* Called every 2^20 lines with bytes done and total (may be 0). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Optional op sink: when set, each operation goes to it instead of a
	 * replay file.  No file is written (replay_path is not used, no
	 * temporary file, no INIT), but @sum is filled in as for a file.
	 * The op and its strings are valid during the call only. */
	void (*sink)(void *ctx, const struct rlog_op *op);
	/* Optional, with a sink: each successful exec of a process, with the
	 * program path it was given, and each process the capture's /proc
	 * snapshot names, with its name (@len bytes, not NUL-terminated). */
	void (*on_exec)(void *ctx, uint32_t pid, const char *path, size_t len);
	/* Optional, with a sink: each new process @child of @parent (v4 fork
	 * records), not new threads. */
	void (*on_fork)(void *ctx, uint32_t parent, uint32_t child);
	void *sink_ctx;
	/* Optional generate-time filters; NULL or all empty: none. */
	const struct gen_filters *filters;
};

struct gen_summary {
	int capture_version;
	char host[256], kernel[256];	/* the log's, or "" */
	uint64_t lines;
	uint64_t events;
	uint64_t bad[CAPLOG_BAD_COUNT];
	uint64_t ops;
	uint64_t ops_per_sys[SYS_COUNT];	/* by replay name's entry */
	uint64_t filtered[GF_COUNT];
	uint64_t timelines;		/* threads (PID:TID) in the log */
	uint64_t processes;		/* processes in the log, forks too */
	/* Of them, those with an operation written: the replay file's
	 * timelines and processes. */
	uint64_t op_timelines, op_processes;
	uint64_t ops_end_ns;		/* the latest end of an operation */
	uint64_t paths;
	uint64_t init_dirs, init_files, init_links, init_bytes, init_absent;
	uint64_t init_xattrs;		/* a entries */
	uint64_t init_xattrs_left;	/* existed, but not user.*: not made */
	uint64_t lost_events;
	uint64_t aio_iocbs_missing;	/* submitted, without an iocb record */
	uint64_t uring_sqes_missing;	/* submitted, without an sqe record */
	/* io_uring requests not written, by opcode (uring_op_name()); in
	 * the replay file's header as its uring_skipped line. */
	uint64_t uring_skipped[256];
	bool end_missing;		/* a v4 log without its end record */
	bool have_end;			/* end holds the log's end record */
	struct caplog_end end;
	/* The log's uncaptured record (caplog_uncaptured()): unknown if it
	 * had none.  Carried into the replay file's header. */
	struct uncaptured uncaptured;
	uint64_t sync_waits;		/* waits another thread's wake
					 * ended */
	uint64_t sync_matched;		/* of them, ordered after an
					 * operation of the waker's */
	uint64_t deps_dropped;		/* beyond DEPS_MAX per operation */
	/* Generate-time filters (filter.c): what they kept or added so
	 * the operations they kept still find their files. */
	bool filtered_run;		/* filters were given */
	uint64_t filter_window_start_ns, filter_window_end_ns;
	uint64_t filter_plain_opens;	/* opens kept without create or
					 * truncate (--only-syscalls) */
	uint64_t filter_reopens;	/* opens written for fds opened by an
					 * operation left out */
	uint64_t filter_seeks;		/* lseeks written for positions moved
					 * by operations left out */
	uint64_t filter_reads_cut;	/* short reads written asking for
					 * what they read */
	uint64_t filter_pos_lost;	/* fds whose position operations left
					 * out made unknown (an append write):
					 * no lseek could be written */
	uint64_t filter_closes;		/* closes written for such opens */
	uint64_t filter_setups;		/* mmap, munmap, AIO and io_uring
					 * calls kept whole (--only-syscalls) */
	uint64_t duration_ns;		/* the latest end of any event */
};

/*
 * Generate opt->replay_path from opt->capture_path.  The output is written
 * to a temporary file and renamed at the end: an interrupted or failed run
 * leaves no file that looks complete.  Returns 0, or -errno with a message
 * naming the file (and line, for input errors) in @err.  -ENODATA: the log
 * was read but no operation is left to replay; @sum is complete then and
 * tells why, and no file is written.  A v4 log without its end record (a
 * capture cut short) is read all the same, with a warning (log_warn) and
 * sum->end_missing set.  With opt->sink set, operations go to the sink
 * and no file is written; -ENODATA is not returned then.
 */
int generate_run(const struct gen_options *opt, struct gen_summary *sum,
		 char *err, size_t errlen);

/* Print the human-readable summary of a run. */
void generate_print_summary(FILE *out, const struct gen_summary *sum);

/* The io_uring requests not written (sum->uring_skipped), by opcode
 * name, sorted, in @u; false if there are none. */
bool generate_uring_skipped(const struct gen_summary *sum,
			    struct uncaptured *u);

/* Short description of a filter reason. */
const char *gen_filter_name(enum gen_filter why);

#endif
