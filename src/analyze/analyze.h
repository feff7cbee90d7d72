/*
 * analyze (private): the model the analysis fills from a stream of
 * operations (model.c), its tables (table.c), working sets (ranges.c),
 * timeline (timeline.c), and its three printers (text.c, json.c,
 * folded.c).  docs/analyze.md describes every figure.
 */
#ifndef IORIOT_ANALYZE_PRIV_H
#define IORIOT_ANALYZE_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ioriot/analyze.h"
#include "ioriot/generate.h"
#include "ioriot/replay.h"
#include "ioriot/rlog.h"
#include "ioriot/u64map.h"
#include "ioriot/uncaptured.h"

/* Buckets of the power-of-two histograms: bucket b counts values v with
 * 2^(b-1) < v <= 2^b (0 and 1 in bucket 0). */
#define AN_BUCKETS 64
/* Rows of the timeline at most: the interval doubles beyond. */
#define AN_TIMELINE_ROWS 3600
#define AN_INTERVAL_NS 1000000000ULL
/* A row index meaning "the other row" (past the cap), or no row. */
#define AN_OTHER UINT32_MAX
#define AN_NONE (UINT32_MAX - 1)

/* ranges.c: the distinct bytes of a file touched, as sorted, disjoint,
 * non-adjacent ranges [start, end). */
struct an_range {
	uint64_t start, end;
};

struct an_ranges {
	struct an_range *v;
	uint32_t n, cap;
};

/* Add [start, end); returns 0 or -ENOMEM. */
int an_ranges_add(struct an_ranges *r, uint64_t start, uint64_t end);
/* The bytes the ranges cover. */
uint64_t an_ranges_bytes(const struct an_ranges *r);
void an_ranges_free(struct an_ranges *r);

/* One row of a table: a file, directory, process or thread. */
struct an_row {
	uint64_t name;			/* offset into the table's names */
	uint32_t parent;		/* files: their directory's row */
	uint64_t ops, bytes_read, bytes_written, time_ns;
	uint64_t rw_requests, sequential;	/* with a known start */
	uint64_t syncs, synced_bytes;	/* bytes written before each sync */
	uint64_t unsynced;		/* written since the last sync */
	int64_t last_end;		/* where the last request ended, -1 */
	uint64_t ws_bytes;		/* directories and the other row */
	struct an_ranges ws;		/* files */
	/* Processes and threads: the gaps between a thread's operations,
	 * the part of them with cpu=, and its on-CPU ns (an_gaps). */
	uint64_t gap_ns, gap_known_ns, gap_cpu_ns;
};

/* The time of threads: in calls (their operations' durations) and in the
 * gaps between them, on a CPU or waiting as cpu= tells, or unknown; of the
 * on-CPU part, the capture probe's own (probe=); of the waiting part, the
 * wait for a CPU (runq=). */
struct an_gaps {
	uint64_t calls_ns, gap_ns, gap_known_ns, gap_cpu_ns, gap_probe_ns;
	uint64_t gap_runq_ns;
};

/* table.c: rows by name (files, directories) or by a 64-bit id
 * (processes, threads), at most @max; the rest go to @other. */
struct an_table {
	struct an_row *rows;
	size_t n, cap, max;
	struct an_row other;
	uint64_t other_ops;		/* ops that went to @other */
	bool other_used;
	char *names;			/* NUL-terminated names, back to back */
	size_t names_len, names_cap;
	uint32_t *slots;		/* by name: row + 1, 0 empty */
	size_t mask;
	struct u64map ids;		/* by id: row + 1 */
};

int an_table_init(struct an_table *t, size_t max);
void an_table_free(struct an_table *t);
/* The row of @name (@len bytes), made if new; AN_OTHER past the cap;
 * AN_NONE and t->... untouched on ENOMEM (*@err set). */
uint32_t an_table_name(struct an_table *t, const char *name, size_t len,
		       int *err);
/* The row of @id, made (named by @fmt's output) if new. */
uint32_t an_table_id(struct an_table *t, uint64_t id, const char *name,
		     int *err);
/* The row of @id, or AN_NONE if it has none (the other row's ids are
 * not kept: their lookups make no row again). */
uint32_t an_table_find_id(const struct an_table *t, uint64_t id);
/* Rename row @i (a process's program after exec).  0 or -ENOMEM. */
int an_table_rename(struct an_table *t, uint32_t i, const char *name);
struct an_row *an_row(const struct an_table *t, uint32_t i);
const char *an_row_name(const struct an_table *t, const struct an_row *r);

/* Add the figures of @r to @sum (not its name; ranges as bytes). */
void an_row_add(struct an_row *sum, const struct an_row *r);
/* The top lists: indexes of the first @n rows of @t by @key, best first
 * (ties by name), in @out (n entries); returns how many. */
enum an_key { AK_OPS, AK_BYTES, AK_TIME };
size_t an_table_top(const struct an_table *t, enum an_key key, size_t n,
		    uint32_t *out);
/* The rows not in @top (@ntop of them) summed into @sum (and the other
 * row); false if there are none. */
bool an_table_rest(const struct an_table *t, const uint32_t *top,
		   size_t ntop, struct an_row *sum);

/* A power-of-two histogram with its count, sum and maximum. */
struct an_hist {
	uint64_t h[AN_BUCKETS];
	uint64_t count, sum, max;
};

void an_hist_add(struct an_hist *h, uint64_t v);
/* The upper bound of bucket @b. */
static inline uint64_t an_bucket_top(unsigned b)
{
	return 1ULL << b;
}
/* The bucket bound below which @pct percent lie (0 when empty). */
uint64_t an_hist_percentile(const struct an_hist *h, double pct);

/* timeline.c: ops per interval and ops in flight. */
struct an_interval {
	uint64_t ops, read_ops, write_ops, read_bytes, write_bytes;
	uint64_t busy_ns;		/* summed time ops were in flight */
	uint64_t max_in_flight;
	uint64_t carried;		/* in flight at its start */
};

struct an_timeline {
	struct an_interval rows[AN_TIMELINE_ROWS];
	size_t n;			/* rows used */
	uint64_t interval_ns;
	uint64_t *ends;			/* min-heap of the ends in flight */
	size_t nends, cap;
};

void an_timeline_init(struct an_timeline *tl);
void an_timeline_free(struct an_timeline *tl);
/* An operation of @dur ns at @t; @cls its class, @bytes its data.
 * 0 or -ENOMEM. */
int an_timeline_add(struct an_timeline *tl, uint64_t t, uint64_t dur,
		    enum sys_class cls, uint64_t bytes);

struct an_sys {
	uint64_t ops, failed, bytes, time_ns;
};

struct an_class_stats {
	uint64_t ops, time_ns;
	struct an_hist lat;		/* timed calls only */
};

struct an_source {
	const char *path;
	bool replay;
	int version;
	const char *host, *kernel;	/* NULL if unknown */
	const char *name;		/* the sandbox name in its paths */
};

/* A folded stack's key: process row (24 bits, all ones: the other
 * row), syscall (8), file row (32). */
#define AN_STACK_PROC 0xffffffu
_Static_assert(SYS_COUNT <= 256, "a syscall fits a stack key's 8 bits");
_Static_assert(ANALYZE_MAX_ROWS < AN_STACK_PROC, "rows fit 24 bits");

/* model.c */
struct an {
	int err;			/* first -errno (ENOMEM) */
	struct an_source src;
	size_t name_len;
	char sandbox_part[300];		/* "/.ioriot/NAME" */
	size_t sandbox_part_len;
	uint64_t ops, failed, bytes_read, bytes_written, duration_ns;
	uint64_t syncs;
	struct an_sys sys[SYS_COUNT];
	struct an_class_stats cls[CLS_COUNT];
	struct an_hist read_sizes, write_sizes;
	struct an_hist sync_between;	/* bytes written to a file between
					 * its syncs */
	struct an_table files, dirs, procs, threads;
	struct an_gaps gaps;		/* of all threads */
	struct u64map thread_ends;	/* pid << 32 | tid -> 1 + the end of
					 * its last operation */
	struct u64map fds;		/* vfd -> struct an_fd */
	struct u64map reqs;		/* AIO/io_uring tag -> struct an_req */
	struct u64map exec_names;	/* pid -> name, for a process that
					 * exec'd before its first op */
	size_t nexec_names;
	struct an_timeline tl;
	/* folded stacks: key -> index + 1 into @stacks */
	bool folding;
	struct u64map stack_ids;
	struct an_stack {
		uint64_t key, ops, bytes, time_ns;
	} *stacks;
	size_t nstacks, stacks_cap;
	/* capture logs: what the generator did not write */
	const struct gen_summary *gen;
	const struct rlog_header *rhead;
};

/* Note ENOMEM in a->err (the first error stays). */
void an_oom(struct an *a);
/* Keep @v (malloc'd, or NULL after ENOMEM) under @key in @m, freeing
 * what was there; ENOMEM goes to a->err. */
void an_keep(struct an *a, struct u64map *m, uint64_t key, void *v);

/* Set up @a for the source @src; 0 or -ENOMEM. */
int an_init(struct an *a, const struct an_source *src, size_t max_rows,
	    bool folding);
void an_free(struct an *a);
/* Take one operation (errors go to a->err). */
void an_op(struct an *a, const struct rlog_op *op);
/* Name process @pid after its program @path (@len bytes). */
void an_exec(struct an *a, uint32_t pid, const char *path, size_t len);
/* Name process @child after its @parent's program, if known. */
void an_fork(struct an *a, uint32_t parent, uint32_t child);
/* Work out the directories' rows and the working sets (after the last
 * op).  0 or -ENOMEM. */
int an_finish(struct an *a);

/* classes.c (the class of an operation is sys_class_of()): whether @sys
 * is an AIO or
 * io_uring completion; whether it is a call timed by the capture (not a
 * record, request or completion). */
bool an_is_completion(enum sys_id sys);
bool an_is_timed(enum sys_id sys);

/* procs.c: the process and thread rows of @op (AN_NONE on ENOMEM). */
void an_who(struct an *a, const struct rlog_op *op, uint32_t *proc,
	    uint32_t *thread);

/* folded.c: count @op of process row @proc on file row @file (AN_NONE:
 * none) with @bytes in its stack. */
void an_fold(struct an *a, uint32_t proc, const struct rlog_op *op,
	     uint32_t file, uint64_t bytes);

/* text.c, json.c, folded.c: 0 or -errno of writing. */
int an_print_text(const struct an *a, FILE *out, unsigned top);
int an_print_json(const struct an *a, FILE *out, unsigned top,
		  const char *version);
/* The syscalls with ops, by ops (highest first), in @out (SYS_COUNT). */
size_t an_syscalls_by_ops(const struct an *a, enum sys_id *out);
/* Write the folded stacks to @path, opened as outfile_open() opens an
 * output (never through a symlink, never the input @input): 0, or -errno
 * with "PATH: why" in @err and the file (made or emptied) removed. */
int an_write_folded(const struct an *a, const char *path, const char *input,
		    enum analyze_weight w, char *err, size_t errlen);

#endif
