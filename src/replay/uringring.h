/*
 * uringring: the state of the replay's io_uring rings, private to uring.c
 * (the table of rings, setup and registration) and uringio.c (requests,
 * submission and completion).  A ring's lock guards all of it but refs,
 * which the table's lock guards.
 */
#ifndef IORIOT_REPLAY_URINGRING_H
#define IORIOT_REPLAY_URINGRING_H

#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "bufpool.h"
#include "uring.h"
#include "ioriot/u64map.h"

#define IO_ALIGN 4096		/* the least buffer alignment: a page */

enum rq_state { RQ_QUEUED, RQ_INFLIGHT, RQ_DONE };

struct request {
	uint64_t tag;
	uint64_t tl;		/* the timeline that queued it */
	enum rq_state state;
	bool cqe;		/* a completion will come (not skipped) */
	int opcode, fd;
	int file_fd;		/* the real fd of its file, or -1 */
	uint64_t time_ns;	/* captured: when it was queued */
	unsigned sqflags;
	uint64_t off, len;
	int64_t flags;
	int buf_index;		/* registered buffer, or -1 */
	char *buf;		/* from the pool, or NULL */
	size_t cap;
	struct iovec iov;	/* vectored requests */
	int64_t res;
};

/* An entry queued for the timeline's next io_uring_register. */
struct entry {
	uint64_t tl;
	uint64_t slot;
	int fd;			/* uring_file: -1 for an empty slot */
	uint64_t len;		/* uring_buf */
	bool file;
};

struct ring {
	struct io_uring ring;
	struct replay_budget *budget;	/* the table's */
	uint64_t ring_entries;	/* taken from it by the setup */
	pthread_mutex_t lock;
	unsigned refs;		/* the table's and each user's; under the
				 * table's lock */
	struct u64map reqs;	/* tag -> struct request */
	uint64_t inflight;	/* submitted, completion not taken from the
				 * completion ring */
	struct entry *entries;	/* queued for io_uring_register */
	size_t nentries, entries_cap;
	struct iovec *bufs;	/* registered buffers */
	size_t nbufs;
	struct bufpool pool;	/* free buffers */
};

struct uring_table {
	pthread_mutex_t lock;
	struct u64map rings;	/* vctx -> struct ring */
	struct replay_budget *budget;
};

/* The timeline of @op: its requests and registrations are its own. */
static inline uint64_t timeline_of(const struct rlog_op *op)
{
	return (uint64_t)op->pid << 32 | op->tid;
}

/* Free request @rq of @r, no longer in r->reqs (under r->lock, or @r
 * unused): its buffer back to the pool, its place in the replay's bound
 * (uringio.c). */
void uring_request_free(struct ring *r, struct request *rq);

/*
 * sqe: a request queued for the timeline's next io_uring_enter, on an
 * SQPOLL ring published at once (uringio.c).  @fd, @data, @data_len and
 * @align as uring_exec() takes them (@align at least IO_ALIGN).
 * *@result: 0, -EBADF for a request without its file, -EEXIST for a
 * tag already queued, -EINVAL for a line the replay cannot make, -EAGAIN
 * (counted) beyond the replay's bounds (ioriot/replaylimits.h).  Returns
 * 0 or -ENOMEM.
 */
int uring_sqe(struct ring *r, const struct rlog_op *op, int fd,
	      const char *data, size_t data_len, size_t align,
	      int64_t *result);

/*
 * io_uring_enter: what timeline @tl queued on @r, with the captured
 * @to_submit, @min and @flags (uringio.c).  The call's result or -errno;
 * *@rc gets -ENOMEM.
 */
int64_t uring_enter(struct ring *r, uint64_t tl, unsigned to_submit,
		    unsigned min, unsigned flags, int *rc);

/*
 * A completion line: the result of request tag=, waited for if need be,
 * -ENOENT for one never submitted, -ETIMEDOUT for one the replay
 * cancelled after its bounded wait (uringio.c).  *@rc gets -ENOMEM.
 */
int64_t uring_complete(struct ring *r, const struct rlog_op *op,
		       const struct replay_stop *stop, int *rc);

#endif
