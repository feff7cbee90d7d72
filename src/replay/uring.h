/*
 * uring: the replay of io_uring operations (docs/replay-format.md §4.3),
 * private to src/replay: virtual rings (ctx=) mapped to real ones set up
 * with liburing, fixed files and buffers (uring_file, uring_buf) queued
 * per timeline and registered by io_uring_register, requests (sqe, tag=)
 * queued per timeline and submitted by io_uring_enter, and their
 * completions (uring_read, uring_write, ...) with the result of each.
 */
#ifndef IORIOT_REPLAY_URING_H
#define IORIOT_REPLAY_URING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "ioriot/rlog.h"
#include "stop.h"

struct uring_table;

/* An empty table of rings whose entries, requests and buffers count in
 * @budget (kept by reference), or NULL (out of memory). */
struct uring_table *uring_table_new(struct replay_budget *budget);

/* Tear down every ring still set up (waiting for its requests) and free
 * @t.  Accepts NULL. */
void uring_table_free(struct uring_table *t);

/*
 * Carry out io_uring operation @op (kinds SK_URING_*) on @t.  @fd is the
 * real fd of an sqe's or a uring_file's fd= (-1 if it has none or it is
 * unknown); writes come from @data (@data_len bytes, aligned for
 * O_DIRECT); buffers of its own are aligned to @align (a power of two;
 * a page when less).  A ring set up without some of its captured setup flags
 * (not replayable, or refused by this kernel) adds 1 to *@flags_dropped.
 * Beyond the replay's bounds (ioriot/replaylimits.h) a setup, a queued
 * line or a registration gets -ENOMEM, an sqe -EAGAIN, each counted in
 * the table's budget.
 * *@result gets the call's result or -errno, as exec_op() (exec.h) gives
 * it; a completion of a request never submitted gets -ENOENT, an
 * operation on an unknown ring -EBADF, one of a request on a FIFO that
 * the replay cancelled after its bounded wait, or of a request that never
 * completed within that wait plus URING_ABANDON_NS, -ETIMEDOUT; one still
 * waited for when @stop says the replay stops -EINTR.  Safe from several
 * threads.  Returns 0, or -ENOMEM when the engine cannot go on.
 */
int uring_exec(struct uring_table *t, const struct rlog_op *op, int fd,
	       const char *data, size_t data_len, size_t align,
	       atomic_uint_least64_t *flags_dropped,
	       const struct replay_stop *stop, int64_t *result);

#endif
