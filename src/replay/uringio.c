/*
 * uringio: the requests of the replay's io_uring rings (uringring.h),
 * from their sqe lines to their completions.
 *
 * An sqe line builds a request and queues it for its timeline;
 * io_uring_enter writes the timeline's queue into the submission ring in
 * tag order (liburing's prep helpers fill each entry; the tail is
 * published here, so that the captured call is one io_uring_enter(2)) and
 * makes one io_uring_enter(2) with the captured min_complete (at most what
 * is in flight) and flags, its wait bounded by WAIT_NS.  On an SQPOLL ring
 * a request is published as its sqe line runs, and io_uring_enter makes
 * the captured call (the kernel thread submits).  Completions are taken
 * from the completion ring after every call and stored with their
 * request; a completion line takes its request's result, waiting (and
 * publishing a request still queued) if need be; a request on a file
 * that may keep it waiting for ever (a FIFO, whose other end the test
 * user can hold open) is cancelled once the wait has lasted twice its
 * captured time plus a second, and its completion is then -ETIMEDOUT.
 * Reads go to buffers of
 * the ring's pool, writes come from the generated data (a pool buffer
 * filled from it when longer), all aligned alike for O_DIRECT; a
 * buffer returns to the pool when its completion is taken.  Vectored
 * requests are replayed with one iovec of the captured total length;
 * requests that selected a provided buffer (IOSQE_BUFFER_SELECT) get a
 * buffer of their own.
 *
 * Every function here runs under the ring's lock (r->lock) or takes it.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uringring.h"
#include "ioriot/clock.h"
#include "ioriot/replaylimits.h"
#include "ioriot/uring.h"

#define WAIT_NS STOP_SLICE_NS	/* one wait never blocks longer */
/* After its wait, a request that still has not completed is given up. */
#define ABANDON_NS (60ULL * 1000 * 1000 * 1000)
#define GIVE_UP_MIN_NS (1000ULL * 1000 * 1000)	/* a completion waits */
#define CAPTURED_MAX_NS (3600ULL * 1000 * 1000 * 1000)	/* of hand-edited
							 * times, used */
#define CANCEL_TAG UINT64_MAX	/* user_data of the replay's cancels */

/* sqe flags a request is submitted with (IOSQE_FIXED_FILE only with its
 * slot=). */
#define SQE_REPLAYED (URING_SQE_IO_DRAIN | URING_SQE_IO_LINK | \
		      URING_SQE_IO_HARDLINK | URING_SQE_ASYNC | \
		      URING_SQE_CQE_SKIP_SUCCESS)

void uring_request_free(struct ring *r, struct request *rq)
{
	bufpool_put(&r->pool, rq->buf, rq->cap);
	rq->buf = NULL;
	free(rq);
	budget_give(&r->budget->requests, 1);
}

/* sqe: a request queued for the timeline's next io_uring_enter; -EAGAIN
 * (counted) beyond the replay's bounds. */
static int do_sqe(struct ring *r, const struct rlog_op *op, int fd,
		  const char *data, size_t data_len, size_t align,
		  int64_t *result)
{
	int opcode = (int)op->cmd;
	enum sys_id done = uring_completion_of(opcode);
	bool data_op = done != SYS_COUNT && sys_info(done)->kind == SK_URING_DATA;
	bool writing = data_op && !uring_completion_reads(done);
	bool fixed_buf = opcode == URING_OP_READ_FIXED ||
			 opcode == URING_OP_WRITE_FIXED;
	size_t len = op->have & RL_COUNT && op->count > 0 ? (size_t)op->count : 0;
	struct request *rq, *old;
	bool over = false;

	if (done == SYS_COUNT) {
		*result = -EINVAL;
		return 0;
	}
	if (opcode != URING_OP_NOP && !(op->have & RL_SLOT) && fd < 0) {
		*result = -EBADF;
		return 0;
	}
	if (op->tag == CANCEL_TAG) {	/* the replay's own */
		*result = -EINVAL;
		return 0;
	}
	if (!budget_take(&r->budget->requests, 1, REPLAY_ASYNC_REQUESTS_MAX)) {
		budget_refused(r->budget);
		*result = -EAGAIN;
		return 0;
	}
	if (!(rq = calloc(1, sizeof(*rq)))) {
		budget_give(&r->budget->requests, 1);
		return -ENOMEM;
	}
	rq->tag = op->tag;
	rq->file_fd = fd;
	rq->time_ns = op->time_ns;
	rq->tl = timeline_of(op);
	rq->opcode = opcode;
	rq->fd = op->have & RL_SLOT ? (int)op->slot : fd;
	rq->sqflags = (op->have & RL_SQFLAGS ? (unsigned)op->sqflags : 0) &
		      SQE_REPLAYED;
	if (op->have & RL_SLOT)
		rq->sqflags |= URING_SQE_FIXED_FILE;
	rq->cqe = !(rq->sqflags & URING_SQE_CQE_SKIP_SUCCESS);
	rq->off = op->have & RL_OFFSET ? (uint64_t)op->offset : 0;
	rq->len = op->have & RL_COUNT ? (uint64_t)op->count : 0;
	rq->flags = op->have & RL_FLAGS ? op->flags : 0;
	rq->buf_index = op->have & RL_BUF ? (int)op->buf : -1;
	rq->state = RQ_QUEUED;
	pthread_mutex_lock(&r->lock);
	if (data_op && !fixed_buf) {
		if (writing && len <= data_len) {
			rq->iov.iov_base = (char *)data;
		} else {
			rq->iov.iov_base = rq->buf =
				bufpool_get(&r->pool, len, align, &rq->cap,
					    &over);
			for (size_t n = 0; rq->buf && writing && n < len;
			     n += data_len)
				memcpy(rq->buf + n, data, len - n < data_len ?
				       len - n : data_len);
		}
		rq->iov.iov_len = len;
	} else if (fixed_buf && rq->buf_index >= 0 &&
		   (size_t)rq->buf_index < r->nbufs) {
		rq->iov = r->bufs[rq->buf_index];
		if (len < rq->iov.iov_len)
			rq->iov.iov_len = len;
	}
	old = u64map_get(&r->reqs, op->tag);
	if (over || old) {	/* beyond the bound; a tag given twice (an
				 * edited file) */
		uring_request_free(r, rq);
		pthread_mutex_unlock(&r->lock);
		if (over)
			budget_refused(r->budget);
		*result = over ? -EAGAIN : -EEXIST;
		return 0;
	}
	if ((data_op && !fixed_buf && !rq->iov.iov_base) ||
	    u64map_put(&r->reqs, op->tag, rq)) {
		uring_request_free(r, rq);
		pthread_mutex_unlock(&r->lock);
		return -ENOMEM;
	}
	pthread_mutex_unlock(&r->lock);
	*result = 0;
	return 0;
}

/* Fill submission entry @sqe with request @rq. */
static void prep(struct io_uring_sqe *sqe, const struct request *rq)
{
	const struct iovec *iov = &rq->iov;

	switch (rq->opcode) {
	case URING_OP_READV: case URING_OP_WRITEV:
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, iov, 1, rq->off);
		sqe->rw_flags = (__kernel_rwf_t)rq->flags;
		break;
	case URING_OP_READ: case URING_OP_WRITE:
	case URING_OP_READ_FIXED: case URING_OP_WRITE_FIXED:
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, iov->iov_base,
				 (unsigned)iov->iov_len, rq->off);
		sqe->rw_flags = (__kernel_rwf_t)rq->flags;
		if (rq->buf_index >= 0)
			sqe->buf_index = (uint16_t)rq->buf_index;
		break;
	case URING_OP_FSYNC:
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, NULL,
				 (unsigned)rq->len, rq->off);
		sqe->fsync_flags = (uint32_t)rq->flags;
		break;
	case URING_OP_SYNC_FILE_RANGE:
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, NULL,
				 (unsigned)rq->len, rq->off);
		sqe->sync_range_flags = (uint32_t)rq->flags;
		break;
	case URING_OP_FALLOCATE:	/* length in addr, mode in len */
		io_uring_prep_rw(rq->opcode, sqe, rq->fd,
				 (const void *)(uintptr_t)rq->len,
				 (unsigned)rq->flags, rq->off);
		break;
	case URING_OP_FADVISE:	/* a length beyond 32 bits in addr */
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, NULL,
				 rq->len > UINT32_MAX ? 0 : (unsigned)rq->len,
				 rq->off);
		if (rq->len > UINT32_MAX)
			sqe->addr = rq->len;
		sqe->fadvise_advice = (uint32_t)rq->flags;
		break;
	case URING_OP_FTRUNCATE:	/* the length in off */
		io_uring_prep_rw(rq->opcode, sqe, rq->fd, NULL, 0, rq->len);
		break;
	default:
		io_uring_prep_nop(sqe);
		break;
	}
	sqe->flags = (uint8_t)rq->sqflags;
	sqe->user_data = rq->tag;
}

/* Write @rq into the submission ring (under r->lock), not yet published.
 * False if the ring is full. */
static bool put_sqe(struct ring *r, struct request *rq, unsigned *tail)
{
	struct io_uring_sq *sq = &r->ring.sq;
	unsigned head = io_uring_smp_load_acquire(sq->khead);
	struct io_uring_sqe *sqe;

	if (*tail - head >= sq->ring_entries)
		return false;
	sqe = &sq->sqes[*tail & sq->ring_mask];
	prep(sqe, rq);
	sq->array[*tail & sq->ring_mask] = *tail & sq->ring_mask;
	++*tail;
	rq->state = RQ_INFLIGHT;
	if (rq->cqe)
		r->inflight++;
	return true;
}

/* Publish the entries written up to @tail (under r->lock). */
static void publish(struct ring *r, unsigned tail)
{
	io_uring_smp_store_release(r->ring.sq.ktail, tail);
}

/* Store the results of every completion in @r's completion ring (under
 * r->lock). */
static void reap(struct ring *r)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&r->ring, head, cqe) {
		struct request *rq = u64map_get(&r->reqs, cqe->user_data);

		n++;
		if (!rq || rq->state != RQ_INFLIGHT)
			continue;
		rq->state = RQ_DONE;
		rq->res = cqe->res;
		if (rq->cqe)
			r->inflight--;
	}
	io_uring_cq_advance(&r->ring, n);
}

/* One io_uring_enter(2) of @r (under r->lock): submit @to_submit, wait
 * for @min completions (at most what is in flight, at most WAIT_NS) with
 * @flags, then take the completions.  Its result or -errno. */
static int64_t enter(struct ring *r, unsigned to_submit, unsigned min,
		     unsigned flags)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(WAIT_NS / 1000000000ULL),
		.tv_nsec = (long long)(WAIT_NS % 1000000000ULL),
	};
	struct io_uring_getevents_arg arg = {
		.sigmask_sz = _NSIG / 8, .ts = (uint64_t)(uintptr_t)&ts,
	};
	int ret;

	if (min > r->inflight)
		min = (unsigned)r->inflight;
	if (min)
		flags |= IORING_ENTER_GETEVENTS;
	if (flags & IORING_ENTER_GETEVENTS)
		ret = io_uring_enter2((unsigned)r->ring.ring_fd, to_submit, min,
				      flags | IORING_ENTER_EXT_ARG,
				      (sigset_t *)(void *)&arg, sizeof(arg));
	else
		ret = io_uring_enter((unsigned)r->ring.ring_fd, to_submit, 0,
				     flags, NULL);
	reap(r);
	return ret;		/* liburing gives -errno */
}

/* The requests timeline @tl queued on @r (under r->lock), in tag order,
 * in @list (malloc'd, *@n of them); -ENOMEM. */
static int queued(struct ring *r, uint64_t tl, struct request ***list, size_t *n)
{
	struct u64map_slot *s;
	size_t pos = 0;

	*n = 0;
	*list = r->reqs.count ? malloc(r->reqs.count * sizeof(**list)) : NULL;
	if (r->reqs.count && !*list)
		return -ENOMEM;
	while ((s = u64map_next(&r->reqs, &pos))) {
		struct request *rq = s->value;
		size_t i = (*n)++;

		if (rq->state != RQ_QUEUED || rq->tl != tl) {
			(*n)--;
			continue;
		}
		/* Insertion in tag order: queues are a few dozen. */
		for (; i > 0 && (*list)[i - 1]->tag > rq->tag; i--)
			(*list)[i] = (*list)[i - 1];
		(*list)[i] = rq;
	}
	return 0;
}

/* Drop request @rq of @r (under r->lock). */
static void drop(struct ring *r, struct request *rq)
{
	u64map_del(&r->reqs, rq->tag);
	uring_request_free(r, rq);
}

/*
 * Submit what timeline @tl queued on @r (under r->lock) with one
 * io_uring_enter, or on an SQPOLL ring only publish it (waking the
 * kernel thread if it sleeps).  A full submission ring is first given
 * to the kernel.  The call's result (for an SQPOLL ring @to_submit as
 * given, as the kernel answers), or -errno; *@rc gets -ENOMEM.
 */
static int64_t submit(struct ring *r, uint64_t tl, unsigned to_submit,
		      unsigned min, unsigned flags, bool call, int *rc)
{
	bool sqpoll = r->ring.flags & IORING_SETUP_SQPOLL;
	unsigned tail = *r->ring.sq.ktail, start = tail;
	struct request **list;
	int64_t ret = 0;
	size_t n;

	if (queued(r, tl, &list, &n)) {
		*rc = -ENOMEM;
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (put_sqe(r, list[i], &tail))
			continue;
		publish(r, tail);
		ret = sqpoll ? enter(r, 0, 0, IORING_ENTER_SQ_WAIT) :
		      enter(r, tail - start, 0, 0);
		start = tail = *r->ring.sq.ktail;
		if (ret < 0 || !put_sqe(r, list[i], &tail)) {
			/* Not submitted: fails like the kernel's EBUSY. */
			for (; i < n; i++)
				if (list[i]->state == RQ_QUEUED) {
					list[i]->state = RQ_DONE;
					list[i]->res = -EBUSY;
				}
			break;
		}
	}
	publish(r, tail);
	free(list);
	if (sqpoll) {
		if (IO_URING_READ_ONCE(*r->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
		if (!call && !(flags & IORING_ENTER_SQ_WAKEUP))
			return 0;
		return enter(r, call ? to_submit : 0, min, flags);
	}
	if (!call && tail == start)
		return 0;
	return enter(r, tail - start, min, flags);
}

/* Whether @rq's file may keep it waiting for ever: no regular file nor
 * directory (a FIFO), as far as its fd still tells. */
static bool may_wait_for_ever(const struct request *rq)
{
	struct stat st;

	return rq->file_fd >= 0 && fstat(rq->file_fd, &st) == 0 &&
	       !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Ask the kernel to cancel @rq (under r->lock): an entry of its own in
 * the submission ring, submitted at once.  0 or -errno. */
static int cancel(struct ring *r, const struct request *rq)
{
	struct io_uring_sq *sq = &r->ring.sq;
	unsigned tail = *sq->ktail;
	struct io_uring_sqe *sqe;
	int64_t ret;

	if (tail - io_uring_smp_load_acquire(sq->khead) >= sq->ring_entries)
		return -EBUSY;
	sqe = &sq->sqes[tail & sq->ring_mask];
	io_uring_prep_cancel64(sqe, rq->tag, 0);
	sqe->user_data = CANCEL_TAG;
	sq->array[tail & sq->ring_mask] = tail & sq->ring_mask;
	publish(r, tail + 1);
	if (r->ring.flags & IORING_SETUP_SQPOLL)
		ret = enter(r, 0, 0, IO_URING_READ_ONCE(*sq->kflags) &
			    IORING_SQ_NEED_WAKEUP ? IORING_ENTER_SQ_WAKEUP : 0);
	else
		ret = enter(r, 1, 0, 0);
	return ret < 0 ? (int)ret : 0;
}

/* A completion: the result of request tag=, waited for if need be (see
 * the top of the file). */
int64_t uring_complete(struct ring *r, const struct rlog_op *op,
		       const struct replay_stop *stop, int *rc)
{
	struct request *rq;
	uint64_t captured, deadline;
	bool cancelled = false;
	int64_t res;

	pthread_mutex_lock(&r->lock);
	rq = u64map_get(&r->reqs, op->tag);
	/* Still queued (its enter came later in the capture's log, or is
	 * not there): submitted now. */
	if (rq && rq->state == RQ_QUEUED)
		submit(r, rq->tl, 0, 0, 0, false, rc);
	captured = rq && op->time_ns > rq->time_ns ?
		   op->time_ns - rq->time_ns : 0;
	if (captured > CAPTURED_MAX_NS)
		captured = CAPTURED_MAX_NS;
	deadline = clock_ns(CLOCK_MONOTONIC) + 2 * captured + GIVE_UP_MIN_NS;
	while (rq && rq->state == RQ_INFLIGHT) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		/* Given up: it stays in flight, its buffers too, until it
		 * completes or the ring goes. */
		if (replay_stopping(stop) || now >= deadline + ABANDON_NS) {
			pthread_mutex_unlock(&r->lock);
			return replay_stopping(stop) ? -EINTR : -ETIMEDOUT;
		}
		if (!cancelled && rq->cqe && now >= deadline &&
		    may_wait_for_ever(rq))
			cancelled = cancel(r, rq) == 0;
		/* One that skips its completion on success (CQE_SKIP_SUCCESS)
		 * and has none after the kernel ran its work succeeded. */
		res = enter(r, 0, rq->cqe ? 1 : 0, IORING_ENTER_GETEVENTS);
		if (!rq->cqe && rq->state == RQ_INFLIGHT) {
			rq->state = RQ_DONE;
			rq->res = 0;
		}
		if (res < 0 && res != -ETIME && res != -EINTR) {
			pthread_mutex_unlock(&r->lock);
			return res;
		}
	}
	if (!rq || rq->state != RQ_DONE) {
		pthread_mutex_unlock(&r->lock);
		return -ENOENT;		/* never submitted */
	}
	res = cancelled && (rq->res == -ECANCELED || rq->res == -EINTR) ?
	      -ETIMEDOUT : rq->res;
	drop(r, rq);
	pthread_mutex_unlock(&r->lock);
	return res;
}


int uring_sqe(struct ring *r, const struct rlog_op *op, int fd,
	      const char *data, size_t data_len, size_t align, int64_t *result)
{
	int rc = do_sqe(r, op, fd, data, data_len, align, result);

	/* SQPOLL: the kernel thread takes it from the ring now. */
	if (!rc && *result == 0 && (r->ring.flags & IORING_SETUP_SQPOLL)) {
		pthread_mutex_lock(&r->lock);
		submit(r, timeline_of(op), 0, 0, 0, false, &rc);
		pthread_mutex_unlock(&r->lock);
	}
	return rc;
}

int64_t uring_enter(struct ring *r, uint64_t tl, unsigned to_submit,
		    unsigned min, unsigned flags, int *rc)
{
	int64_t ret;

	pthread_mutex_lock(&r->lock);
	ret = submit(r, tl, to_submit, min, flags, true, rc);
	pthread_mutex_unlock(&r->lock);
	return ret;
}
