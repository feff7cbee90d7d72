/*
 * aio: the replay of Linux AIO operations (docs/replay-format.md §4.2),
 * private to src/replay: virtual contexts (ctx=) mapped to real ones made
 * by io_setup(2), requests (tag=) queued by iocb operations per timeline,
 * submitted by io_submit, reaped by io_getevents, and their completions
 * (aio_pread, aio_pwrite, ...) with the result of each request.
 */
#ifndef IORIOT_REPLAY_AIO_H
#define IORIOT_REPLAY_AIO_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"
#include "ioriot/rlog.h"
#include "stop.h"

struct aio_table;

/* An empty table of contexts whose requests and buffers count in
 * @budget (kept by reference), or NULL (out of memory). */
struct aio_table *aio_table_new(struct replay_budget *budget);

/* Destroy every context still set up (waiting for its requests) and free
 * @t.  Accepts NULL. */
void aio_table_free(struct aio_table *t);

/*
 * Carry out AIO operation @op (kinds SK_AIO_*, SK_IOCB) on @t.  @fd is the
 * real fd of an iocb's fd= (-1 if unknown); writes come from @data
 * (@data_len bytes, aligned for O_DIRECT); other buffers are aligned to
 * @align (a power of two: what O_DIRECT needs).  *@result gets the syscall's
 * result or -errno, as exec_run() (exec.h) gives it; requests not known
 * get -ENOENT, an iocb on an unknown fd -EBADF, one beyond the replay's
 * bounds (ioriot/replaylimits.h) -EAGAIN, counted, a completion still
 * waited for when @stop says the replay stops -EINTR.  Safe from several
 * threads.  Returns 0, or -ENOMEM when the engine cannot go on.
 */
int aio_exec(struct aio_table *t, const struct rlog_op *op, int fd,
	     const char *data, size_t data_len, size_t align,
	     const struct replay_stop *stop, int64_t *result);

#endif
