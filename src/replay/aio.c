/*
 * aio: the replay of Linux AIO through the raw syscalls (aio.h).
 *
 * A virtual context is a real one of the captured depth (io_setup's
 * nr_events).  An iocb operation builds a request and queues it on its
 * context for its timeline; io_submit submits the timeline's queue in one
 * call, so the replay submits the batches the capture did.  Reads go to
 * buffers of the context's pool, writes come from the generated data (a
 * pool buffer filled from it when longer), all aligned as the replay's
 * direct I/O needs (exec.c: the largest alignment of its O_DIRECT files,
 * dioalign.h); a buffer returns to the pool when its request's completion
 * is taken.  io_getevents reaps with the captured min_nr (at most what is
 * in flight) and nr, and stores each result with its request.  A
 * completion operation takes its request's result; when the request has
 * not been reaped yet (completions came in another order than captured)
 * it reaps until it is.  Vectored requests are replayed with one iovec of
 * the captured total length; IOCB_FLAG_RESFD is not replayed.
 *
 * Requests and their buffers count against the replay's bounds
 * (ioriot/replaylimits.h): an iocb beyond them is answered -EAGAIN and
 * counted, nothing allocated; a buffer is never longer than a read or
 * write moves (IO_RW_MAX).
 *
 * Contexts are shared by all timelines: the table and each context have
 * a lock, and a context is freed by its last user.
 */
#include <errno.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "aio.h"
#include "bufpool.h"
#include "fileops.h"
#include "ioriot/replaylimits.h"
#include "ioriot/syscalls.h"
#include "ioriot/u64map.h"

#define REAP_MAX 256		/* events reaped per io_getevents */
#define REAP_WAIT_NS STOP_SLICE_NS	/* a reap never blocks longer */

enum rq_state { RQ_QUEUED, RQ_INFLIGHT, RQ_DONE };

struct request {
	struct iocb cb;
	struct iovec iov;	/* vectored requests */
	uint64_t tl;		/* the timeline that queued it */
	char *buf;		/* from the pool, or NULL */
	size_t cap;
	enum rq_state state;
	int64_t res;
};

struct context {
	aio_context_t id;
	struct replay_budget *budget;	/* the table's */
	pthread_mutex_t lock;
	unsigned refs;		/* the table's and each user's; under the
				 * table's lock */
	struct u64map reqs;	/* tag -> struct request */
	uint64_t inflight;	/* submitted, not reaped */
	struct bufpool pool;	/* free buffers */
};

struct aio_table {
	pthread_mutex_t lock;
	struct u64map ctxs;	/* vctx -> struct context */
	struct replay_budget *budget;
};

struct aio_table *aio_table_new(struct replay_budget *budget)
{
	struct aio_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->budget = budget;
	if (u64map_init(&t->ctxs)) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

/* Free request @rq of @c, which is no longer in c->reqs (under c->lock):
 * its buffer back to the pool, its place in the replay's bound. */
static void request_free(struct context *c, struct request *rq)
{
	bufpool_put(&c->pool, rq->buf, rq->cap);
	rq->buf = NULL;
	free(rq);
	budget_give(&c->budget->requests, 1);
}

/* Free @c: its requests, buffers and lock (its real context is gone). */
static void context_free(struct context *c)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (c->reqs.slots) {
		while ((s = u64map_next(&c->reqs, &pos)))
			request_free(c, s->value);
	}
	u64map_destroy(&c->reqs);
	bufpool_free(&c->pool);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Context @vctx with a reference for the caller, or NULL. */
static struct context *context_get(struct aio_table *t, uint64_t vctx)
{
	struct context *c;

	pthread_mutex_lock(&t->lock);
	c = u64map_get(&t->ctxs, vctx);
	if (c)
		c->refs++;
	pthread_mutex_unlock(&t->lock);
	return c;
}

/* Drop a reference to @c; the last one destroys the real context (which
 * waits for its requests) and frees it. */
static void context_put(struct aio_table *t, struct context *c)
{
	bool last;

	pthread_mutex_lock(&t->lock);
	last = --c->refs == 0;
	pthread_mutex_unlock(&t->lock);
	if (!last)
		return;
	syscall(SYS_io_destroy, c->id);
	context_free(c);
}

void aio_table_free(struct aio_table *t)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!t)
		return;
	while ((s = u64map_next(&t->ctxs, &pos)))
		context_put(t, s->value);
	u64map_destroy(&t->ctxs);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* io_setup: a real context of the captured depth for ctx= (a depth beyond
 * nr_events' unsigned int as UINT_MAX: the kernel refuses it, as it did
 * in the capture, and bounds the others by aio-max-nr). */
static int do_setup(struct aio_table *t, const struct rlog_op *op,
		    int64_t *result)
{
	unsigned nr = !(op->have & RL_COUNT) || op->count <= 0 ? 1 :
		      op->count > UINT_MAX ? UINT_MAX : (unsigned)op->count;
	aio_context_t id = 0;
	struct context *c, *old;

	*result = neg_errno(syscall(SYS_io_setup, nr, &id));
	if (*result < 0)
		return 0;
	if (!(op->have & RL_CTX)) {	/* failed in the capture: no user */
		syscall(SYS_io_destroy, id);
		return 0;
	}
	if (!(c = calloc(1, sizeof(*c))) || u64map_init(&c->reqs)) {
		free(c);
		syscall(SYS_io_destroy, id);
		return -ENOMEM;
	}
	c->id = id;
	c->budget = t->budget;
	bufpool_init(&c->pool, t->budget);
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_lock(&t->lock);
	old = u64map_get(&t->ctxs, op->ctx);
	if (u64map_put(&t->ctxs, op->ctx, c)) {
		pthread_mutex_unlock(&t->lock);
		context_put(t, c);
		return -ENOMEM;
	}
	pthread_mutex_unlock(&t->lock);
	if (old)
		context_put(t, old);
	return 0;
}

/* io_destroy: the real context goes once nobody uses it any more. */
static int64_t do_destroy(struct aio_table *t, const struct rlog_op *op)
{
	struct context *c;

	pthread_mutex_lock(&t->lock);
	c = u64map_del(&t->ctxs, op->ctx);
	pthread_mutex_unlock(&t->lock);
	if (!c)
		return -EINVAL;
	context_put(t, c);
	return 0;
}

/* iocb: a request queued for the timeline's next io_submit; -EAGAIN
 * (counted) beyond the replay's bounds. */
static int do_iocb(struct context *c, const struct rlog_op *op, int fd,
		   const char *data, size_t data_len, size_t align,
		   int64_t *result)
{
	size_t len = !(op->have & RL_COUNT) || op->count <= 0 ? 0 :
		     (uint64_t)op->count > IO_RW_MAX ? IO_RW_MAX :
		     (size_t)op->count;
	int opcode = op->have & RL_CMD ? (int)op->cmd : -1;
	bool vectored = opcode == IOCB_CMD_PREADV || opcode == IOCB_CMD_PWRITEV;
	bool writing = opcode == IOCB_CMD_PWRITE || opcode == IOCB_CMD_PWRITEV;
	struct request *rq, *old;
	char *buf = NULL;
	bool over = false;

	if (fd < 0) {
		*result = -EBADF;
		return 0;
	}
	if (opcode != IOCB_CMD_PREAD && opcode != IOCB_CMD_PWRITE &&
	    opcode != IOCB_CMD_PREADV && opcode != IOCB_CMD_PWRITEV &&
	    opcode != IOCB_CMD_FSYNC && opcode != IOCB_CMD_FDSYNC) {
		*result = -EINVAL;
		return 0;
	}
	if (!budget_take(&c->budget->requests, 1, REPLAY_ASYNC_REQUESTS_MAX)) {
		budget_refused(c->budget);
		*result = -EAGAIN;
		return 0;
	}
	if (!(rq = calloc(1, sizeof(*rq)))) {
		budget_give(&c->budget->requests, 1);
		return -ENOMEM;
	}
	pthread_mutex_lock(&c->lock);
	if (writing && len <= data_len) {
		buf = (char *)data;
	} else if (opcode != IOCB_CMD_FSYNC && opcode != IOCB_CMD_FDSYNC) {
		buf = rq->buf = bufpool_get(&c->pool, len, align, &rq->cap,
					    &over);
		for (size_t done = 0; buf && writing && done < len;
		     done += data_len)
			memcpy(buf + done, data, len - done < data_len ?
			       len - done : data_len);
	}
	old = u64map_get(&c->reqs, op->tag);
	if (over || old) {	/* beyond the bound; a tag given twice (an
				 * edited file) */
		request_free(c, rq);
		pthread_mutex_unlock(&c->lock);
		if (over)
			budget_refused(c->budget);
		*result = over ? -EAGAIN : -EEXIST;
		return 0;
	}
	if ((!buf && opcode != IOCB_CMD_FSYNC && opcode != IOCB_CMD_FDSYNC) ||
	    u64map_put(&c->reqs, op->tag, rq)) {
		request_free(c, rq);
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	rq->tl = (uint64_t)op->pid << 32 | op->tid;
	rq->cb.aio_data = op->tag;
	rq->cb.aio_lio_opcode = (uint16_t)opcode;
	rq->cb.aio_fildes = (uint32_t)fd;
	rq->cb.aio_offset = op->have & RL_OFFSET ? op->offset : 0;
	rq->cb.aio_rw_flags = op->have & RL_FLAGS ? (int)op->flags : 0;
	if (vectored) {
		rq->iov.iov_base = buf;
		rq->iov.iov_len = len;
		rq->cb.aio_buf = (uint64_t)(uintptr_t)&rq->iov;
		rq->cb.aio_nbytes = 1;
	} else {
		rq->cb.aio_buf = (uint64_t)(uintptr_t)buf;
		rq->cb.aio_nbytes = len;
	}
	rq->state = RQ_QUEUED;
	pthread_mutex_unlock(&c->lock);
	*result = 0;
	return 0;
}

/* io_submit: the requests the timeline queued, in tag order, in one
 * call.  Those it did not take are dropped. */
static int do_submit(struct context *c, const struct rlog_op *op,
		     int64_t *result)
{
	uint64_t tl = (uint64_t)op->pid << 32 | op->tid;
	struct iocb **list = NULL;
	struct u64map_slot *s;
	size_t n = 0, pos = 0;
	long r;

	pthread_mutex_lock(&c->lock);
	if (c->reqs.count && !(list = malloc(c->reqs.count * sizeof(*list)))) {
		pthread_mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	while ((s = u64map_next(&c->reqs, &pos))) {
		struct request *rq = s->value;
		size_t i = n++;

		if (rq->state != RQ_QUEUED || rq->tl != tl) {
			n--;
			continue;
		}
		/* Insertion in tag order: batches are a few dozen. */
		for (; i > 0 && list[i - 1]->aio_data > rq->cb.aio_data; i--)
			list[i] = list[i - 1];
		list[i] = &rq->cb;
	}
	r = syscall(SYS_io_submit, c->id, (long)n, list);
	*result = neg_errno(r);
	for (size_t i = 0; i < n; i++) {
		struct request *rq = (struct request *)list[i];

		if (r > 0 && i < (size_t)r) {
			rq->state = RQ_INFLIGHT;
			c->inflight++;
			continue;
		}
		u64map_del(&c->reqs, rq->cb.aio_data);
		request_free(c, rq);
	}
	pthread_mutex_unlock(&c->lock);
	free(list);
	return 0;
}

/* Store the results of @n reaped events (under c->lock). */
static void store(struct context *c, const struct io_event *ev, long n)
{
	for (long i = 0; i < n; i++) {
		struct request *rq = u64map_get(&c->reqs, ev[i].data);

		if (!rq || rq->state != RQ_INFLIGHT)
			continue;
		rq->state = RQ_DONE;
		rq->res = ev[i].res;
		c->inflight--;
	}
}

/* One io_getevents of at least @min (at most what is in flight) and at
 * most @nr events, its results stored.  Returns its result or -errno. */
static int64_t reap(struct context *c, long min, long nr)
{
	struct io_event ev[REAP_MAX];
	struct timespec ts = { .tv_sec = (time_t)(REAP_WAIT_NS / 1000000000ULL),
			       .tv_nsec = (long)(REAP_WAIT_NS % 1000000000ULL) };
	long r;

	pthread_mutex_lock(&c->lock);
	if (min > (long)c->inflight)
		min = (long)c->inflight;
	pthread_mutex_unlock(&c->lock);
	if (nr > REAP_MAX)
		nr = REAP_MAX;
	if (min > nr)
		min = nr;
	if (min < 0)
		min = 0;
	r = syscall(SYS_io_getevents, c->id, min, nr, ev, &ts);
	if (r < 0)
		return -errno;
	pthread_mutex_lock(&c->lock);
	store(c, ev, r);
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* A completion: the result of request tag=, reaped first if need be. */
static int64_t do_complete(struct context *c, const struct rlog_op *op,
			   const struct replay_stop *stop)
{
	struct request *rq;
	int64_t res;

	pthread_mutex_lock(&c->lock);
	rq = u64map_get(&c->reqs, op->tag);
	while (rq && rq->state == RQ_INFLIGHT) {
		if (replay_stopping(stop)) {
			pthread_mutex_unlock(&c->lock);
			return -EINTR;	/* it stays in flight, its buffer too */
		}
		pthread_mutex_unlock(&c->lock);
		res = reap(c, 1, REAP_MAX);
		pthread_mutex_lock(&c->lock);
		if (res < 0) {
			pthread_mutex_unlock(&c->lock);
			return res;
		}
		rq = u64map_get(&c->reqs, op->tag);
	}
	if (!rq || rq->state != RQ_DONE) {
		pthread_mutex_unlock(&c->lock);
		return -ENOENT;		/* never submitted */
	}
	res = rq->res;
	u64map_del(&c->reqs, op->tag);
	request_free(c, rq);
	pthread_mutex_unlock(&c->lock);
	return res;
}

/* io_cancel of request tag=. */
static int64_t do_cancel(struct context *c, const struct rlog_op *op)
{
	struct io_event ev;
	struct request *rq;
	int64_t r;

	pthread_mutex_lock(&c->lock);
	rq = u64map_get(&c->reqs, op->tag);
	if (!rq || rq->state != RQ_INFLIGHT) {
		pthread_mutex_unlock(&c->lock);
		return -EINVAL;
	}
	r = neg_errno(syscall(SYS_io_cancel, c->id, &rq->cb, &ev));
	if (r == 0)
		store(c, &ev, 1);
	pthread_mutex_unlock(&c->lock);
	return r;
}

int aio_exec(struct aio_table *t, const struct rlog_op *op, int fd,
	     const char *data, size_t data_len, size_t align,
	     const struct replay_stop *stop, int64_t *result)
{
	enum sys_kind kind = sys_info(op->sys)->kind;
	struct context *c;
	int rc = 0;

	if (kind == SK_AIO_SETUP)
		return do_setup(t, op, result);
	if (!(op->have & RL_CTX) || !(c = context_get(t, op->ctx))) {
		*result = -EINVAL;	/* as the kernel says of a bad ctx */
		return 0;
	}
	if (kind != SK_AIO_DESTROY && kind != SK_AIO_GETEVENTS &&
	    kind != SK_AIO_SUBMIT && !(op->have & RL_TAG)) {
		*result = -EINVAL;
	} else {
		switch (kind) {
		case SK_AIO_DESTROY:
			*result = do_destroy(t, op);
			break;
		case SK_IOCB:
			rc = do_iocb(c, op, fd, data, data_len, align, result);
			break;
		case SK_AIO_SUBMIT:
			rc = do_submit(c, op, result);
			break;
		case SK_AIO_GETEVENTS:
			*result = reap(c, op->have & RL_MIN ? (long)op->min : 1,
				       op->have & RL_COUNT ? (long)op->count :
				       REAP_MAX);
			break;
		case SK_AIO_CANCEL:
			*result = do_cancel(c, op);
			break;
		default:	/* SK_AIO_DATA, SK_AIO_DONE */
			*result = do_complete(c, op, stop);
			break;
		}
	}
	context_put(t, c);
	return rc;
}
