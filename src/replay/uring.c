/*
 * uring: the replay of io_uring with liburing (uring.h).
 *
 * A virtual ring is a real one set up by io_uring_queue_init_params() with
 * the captured entries, cq_entries and setup flags.  Flags the replay
 * cannot ask for (a CPU, another ring's workers, a disabled start, memory
 * of the captured process, 128-byte entries) are left out, and so, one at
 * a time, are the optional ones this kernel refuses (DEFER_TASKRUN,
 * SINGLE_ISSUER, TASKRUN_FLAG, COOP_TASKRUN, SUBMIT_ALL, CLAMP); each ring
 * set up without some of its flags is counted.
 *
 * uring_file and uring_buf lines queue a fixed file (its real fd) or a
 * buffer size for the timeline; io_uring_register registers what its
 * timeline queued, with the captured opcode and argument shape, in one
 * io_uring_register(2).  Registered buffers are allocated aligned to
 * the replay's direct I/O alignment (exec.c, dioalign.h; at least a
 * page) and filled with the generated data.
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
 * Rings are shared by all timelines: the table and each ring have a lock,
 * and a ring is torn down by its last user.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "uring.h"
#include "ioriot/clock.h"
#include "ioriot/u64map.h"
#include "ioriot/uring.h"

#define IO_ALIGN 4096		/* the least buffer alignment: a page */
#define WAIT_NS (1000ULL * 1000 * 1000)	/* one wait never blocks longer */
#define PROBE_OPS_MAX 256	/* ops a probe buffer has room for */
#define GIVE_UP_MIN_NS (1000ULL * 1000 * 1000)	/* a completion waits */
#define CAPTURED_MAX_NS (3600ULL * 1000 * 1000 * 1000)	/* of hand-edited
							 * times, used */
#define CANCEL_TAG UINT64_MAX	/* user_data of the replay's cancels */

/* Setup flags asked for as captured; the others are left out. */
#define SETUP_REPLAYED ((1u << 0) | (1u << 1) | (1u << 3) | (1u << 4) | \
			(1u << 7) | (1u << 8) | (1u << 9) | (1u << 12) | \
			(1u << 13))
/* Left out one at a time, in this order, while the kernel refuses. */
static const unsigned setup_optional[] = {
	1u << 13 /* DEFER_TASKRUN */, 1u << 12 /* SINGLE_ISSUER */,
	1u << 9 /* TASKRUN_FLAG */, 1u << 8 /* COOP_TASKRUN */,
	1u << 7 /* SUBMIT_ALL */, 1u << 4 /* CLAMP */,
};

/* sqe flags a request is submitted with (IOSQE_FIXED_FILE only with its
 * slot=). */
#define SQE_REPLAYED (URING_SQE_IO_DRAIN | URING_SQE_IO_LINK | \
		      URING_SQE_IO_HARDLINK | URING_SQE_ASYNC | \
		      URING_SQE_CQE_SKIP_SUCCESS)
/* io_uring_enter flags made as captured (a registered ring index and the
 * argument shape are the replay's own). */
#define ENTER_REPLAYED (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | \
			IORING_ENTER_SQ_WAIT)

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

struct pool_buf {
	char *p;
	size_t cap;
};

struct ring {
	struct io_uring ring;
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
	struct pool_buf *pool;	/* free buffers */
	size_t npool, pool_cap;
};

struct uring_table {
	pthread_mutex_t lock;
	struct u64map rings;	/* vctx -> struct ring */
};

static uint64_t timeline_of(const struct rlog_op *op)
{
	return (uint64_t)op->pid << 32 | op->tid;
}

struct uring_table *uring_table_new(void)
{
	struct uring_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (u64map_init(&t->rings)) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

/* A buffer of at least @len bytes aligned to @align (a power of two)
 * from @r's pool (under r->lock), or a new one; NULL when out of
 * memory. */
static char *pool_get(struct ring *r, size_t len, size_t align, size_t *cap)
{
	size_t want = (len + align - 1) / align * align;
	char *p;

	for (size_t i = 0; i < r->npool; i++) {
		if (r->pool[i].cap >= want &&
		    !((uintptr_t)r->pool[i].p & (align - 1))) {
			p = r->pool[i].p;
			*cap = r->pool[i].cap;
			r->pool[i] = r->pool[--r->npool];
			return p;
		}
	}
	*cap = want ? want : align;
	return aligned_alloc(align, *cap);
}

/* Give @rq's buffer back to @r's pool (under r->lock); freed if the pool
 * cannot grow. */
static void pool_put(struct ring *r, struct request *rq)
{
	if (!rq->buf)
		return;
	if (r->npool == r->pool_cap) {
		size_t cap = r->pool_cap ? 2 * r->pool_cap : 16;
		struct pool_buf *p = realloc(r->pool, cap * sizeof(*p));

		if (!p) {
			free(rq->buf);
			rq->buf = NULL;
			return;
		}
		r->pool = p;
		r->pool_cap = cap;
	}
	r->pool[r->npool].p = rq->buf;
	r->pool[r->npool++].cap = rq->cap;
	rq->buf = NULL;
}

static void free_bufs(struct ring *r)
{
	for (size_t i = 0; i < r->nbufs; i++)
		free(r->bufs[i].iov_base);
	free(r->bufs);
	r->bufs = NULL;
	r->nbufs = 0;
}

/* Tear down @r's real ring (which waits for its requests) and free it. */
static void ring_free(struct ring *r)
{
	struct u64map_slot *s;
	size_t pos = 0;

	io_uring_queue_exit(&r->ring);
	while (r->reqs.slots && (s = u64map_next(&r->reqs, &pos))) {
		struct request *rq = s->value;

		free(rq->buf);
		free(rq);
	}
	u64map_destroy(&r->reqs);
	free_bufs(r);
	for (size_t i = 0; i < r->npool; i++)
		free(r->pool[i].p);
	free(r->pool);
	free(r->entries);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Ring @vctx with a reference for the caller, or NULL. */
static struct ring *ring_get(struct uring_table *t, uint64_t vctx)
{
	struct ring *r;

	pthread_mutex_lock(&t->lock);
	r = u64map_get(&t->rings, vctx);
	if (r)
		r->refs++;
	pthread_mutex_unlock(&t->lock);
	return r;
}

/* Drop a reference to @r; the last one frees it. */
static void ring_put(struct uring_table *t, struct ring *r)
{
	bool last;

	pthread_mutex_lock(&t->lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&t->lock);
	if (last)
		ring_free(r);
}

void uring_table_free(struct uring_table *t)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!t)
		return;
	while ((s = u64map_next(&t->rings, &pos)))
		ring_put(t, s->value);
	u64map_destroy(&t->rings);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Set up @ring with @entries, the captured setup @flags and @cq; what
 * was left out of the flags sets *@dropped.  0 or -errno. */
static int setup_ring(struct io_uring *ring, unsigned entries, unsigned flags,
		      unsigned cq, bool *dropped)
{
	struct io_uring_params p;
	unsigned want = flags & SETUP_REPLAYED;
	int rc;

	*dropped = want != flags;
	for (size_t i = 0;; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = want;
		p.cq_entries = cq;
		rc = io_uring_queue_init_params(entries, ring, &p);
		if (rc != -EINVAL)
			return rc;
		while (i < sizeof(setup_optional) / sizeof(setup_optional[0]) &&
		       !(want & setup_optional[i]))
			i++;
		if (i == sizeof(setup_optional) / sizeof(setup_optional[0]))
			return rc;
		want &= ~setup_optional[i];
		*dropped = true;
	}
}

/* io_uring_setup: a real ring for ctx=. */
static int do_setup(struct uring_table *t, const struct rlog_op *op,
		    atomic_uint_least64_t *flags_dropped, int64_t *result)
{
	unsigned flags = op->have & RL_FLAGS ? (unsigned)op->flags : 0;
	unsigned cq = op->have & RL_CQ ? (unsigned)op->cq : 0;
	struct ring *r = calloc(1, sizeof(*r)), *old;
	bool dropped;
	int rc;

	if (!r || u64map_init(&r->reqs)) {
		free(r);
		return -ENOMEM;
	}
	if (!(flags & URING_SETUP_CQSIZE))
		cq = 0;
	rc = setup_ring(&r->ring, (unsigned)op->count, flags, cq, &dropped);
	if (rc < 0) {
		u64map_destroy(&r->reqs);
		free(r);
		*result = rc;
		return 0;
	}
	/* The captured fd: the replay's cannot be the same. */
	*result = op->ret >= 0 ? op->ret : r->ring.ring_fd;
	if (dropped)
		atomic_fetch_add_explicit(flags_dropped, 1, memory_order_relaxed);
	r->refs = 1;
	pthread_mutex_init(&r->lock, NULL);
	if (!(op->have & RL_CTX)) {	/* failed in the capture: no user */
		ring_free(r);
		return 0;
	}
	pthread_mutex_lock(&t->lock);
	old = u64map_get(&t->rings, op->ctx);
	if (u64map_put(&t->rings, op->ctx, r)) {
		pthread_mutex_unlock(&t->lock);
		ring_free(r);
		return -ENOMEM;
	}
	pthread_mutex_unlock(&t->lock);
	if (old)
		ring_put(t, old);
	return 0;
}

/* Queue a uring_file or uring_buf entry for the timeline's next
 * io_uring_register. */
static int do_entry(struct ring *r, const struct rlog_op *op, int fd,
		    int64_t *result)
{
	bool file = sys_info(op->sys)->kind == SK_URING_FILE;
	struct entry *e;

	pthread_mutex_lock(&r->lock);
	if (r->nentries == r->entries_cap) {
		size_t cap = r->entries_cap ? 2 * r->entries_cap : 16;
		struct entry *n = realloc(r->entries, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&r->lock);
			return -ENOMEM;
		}
		r->entries = n;
		r->entries_cap = cap;
	}
	e = &r->entries[r->nentries++];
	e->tl = timeline_of(op);
	e->slot = op->slot;
	e->file = file;
	e->fd = file && (op->have & RL_FD) ? fd : -1;
	e->len = file ? 0 : (uint64_t)op->count;
	pthread_mutex_unlock(&r->lock);
	*result = file && (op->have & RL_FD) && fd < 0 ? -EBADF : 0;
	return 0;
}

/* The entries of kind @file that timeline @tl queued on @r (under
 * r->lock), taken off the queue: slots from *@base (0 for a whole table,
 * @update false), *@n of them, a fd (-1: empty) or a buffer size each,
 * in @fds or @lens (malloc'd).  0 or -ENOMEM. */
static int take_entries(struct ring *r, uint64_t tl, bool file, bool update,
			uint64_t *base, size_t *n, int **fds, uint64_t **lens)
{
	uint64_t lo = update ? UINT64_MAX : 0, hi = 0;
	bool any = false;
	size_t kept = 0;

	*n = 0;
	*fds = NULL;
	*lens = NULL;
	for (size_t i = 0; i < r->nentries; i++) {
		const struct entry *e = &r->entries[i];

		if (e->tl != tl || e->file != file)
			continue;
		lo = e->slot < lo ? e->slot : lo;
		hi = e->slot > hi ? e->slot : hi;
		any = true;
	}
	*base = any ? lo : 0;
	if (any) {
		*n = (size_t)(hi - lo + 1);
		if (file)
			*fds = malloc(*n * sizeof(**fds));
		else
			*lens = calloc(*n, sizeof(**lens));
		if (file ? !*fds : !*lens)
			return -ENOMEM;
		for (size_t i = 0; file && i < *n; i++)
			(*fds)[i] = -1;
	}
	for (size_t i = 0; i < r->nentries; i++) {
		const struct entry *e = &r->entries[i];

		if (e->tl != tl || e->file != file) {
			r->entries[kept++] = *e;
			continue;
		}
		if (file)
			(*fds)[e->slot - lo] = e->fd;
		else
			(*lens)[e->slot - lo] = e->len;
	}
	r->nentries = kept;
	return 0;
}

/* Registered buffers of @lens (@n, from slot @base) for @r: aligned to
 * @align, filled with @data.  The iovecs, or NULL (out of memory). */
static struct iovec *make_bufs(const uint64_t *lens, size_t n,
			       const char *data, size_t data_len, size_t align)
{
	struct iovec *iov = calloc(n ? n : 1, sizeof(*iov));

	for (size_t i = 0; iov && i < n; i++) {
		size_t len = (size_t)(lens[i] ? lens[i] : align);
		size_t cap = (len + align - 1) / align * align;

		iov[i].iov_base = aligned_alloc(align, cap);
		iov[i].iov_len = len;
		if (!iov[i].iov_base) {
			for (size_t j = 0; j < i; j++)
				free(iov[j].iov_base);
			free(iov);
			return NULL;
		}
		for (size_t done = 0; done < len; done += data_len)
			memcpy((char *)iov[i].iov_base + done, data,
			       len - done < data_len ? len - done : data_len);
	}
	return iov;
}

/* Keep @iov (@n buffers from slot @base) as @r's registered buffers. */
static void keep_bufs(struct ring *r, struct iovec *iov, size_t n,
		      uint64_t base)
{
	if (base == 0 && !r->nbufs) {
		r->bufs = iov;
		r->nbufs = n;
		return;
	}
	/* An update: replace the slots it names. */
	if (base + n > r->nbufs) {
		struct iovec *more = realloc(r->bufs, (base + n) * sizeof(*more));

		if (!more) {
			for (size_t i = 0; i < n; i++)
				free(iov[i].iov_base);
			free(iov);
			return;
		}
		memset(more + r->nbufs, 0, (base + n - r->nbufs) * sizeof(*more));
		r->bufs = more;
		r->nbufs = base + n;
	}
	for (size_t i = 0; i < n; i++) {
		free(r->bufs[base + i].iov_base);
		r->bufs[base + i] = iov[i];
	}
	free(iov);
}

/* io_uring_register with the captured opcode: what the timeline queued.
 * Returns the call's result or -errno; *@rc gets -ENOMEM when the engine
 * cannot go on. */
static int64_t do_register(struct ring *r, const struct rlog_op *op,
			   const char *data, size_t data_len, size_t align,
			   int *rc)
{
	unsigned opcode = (unsigned)op->cmd;
	uint64_t base = 0, *lens = NULL;
	struct iovec *iov = NULL;
	int *fds = NULL;
	size_t n = 0;
	bool files = false, table = uring_register_table(opcode, &files);
	bool update = opcode == URING_REG_FILES_UPDATE ||
		      opcode == URING_REG_FILES_UPDATE2 ||
		      opcode == URING_REG_BUFFERS_UPDATE;
	int64_t ret;

	pthread_mutex_lock(&r->lock);
	if (table && take_entries(r, timeline_of(op), files, update, &base, &n,
				  &fds, &lens)) {
		*rc = -ENOMEM;
		ret = -ENOMEM;
		goto out;
	}
	if (table && !files && !(iov = make_bufs(lens, n, data, data_len,
						  align))) {
		*rc = -ENOMEM;
		ret = -ENOMEM;
		goto out;
	}
	void *arg = files ? (void *)fds : (void *)iov;
	switch (opcode) {
	case URING_REG_FILES: case URING_REG_BUFFERS:
		ret = io_uring_register(r->ring.ring_fd, opcode, arg, (unsigned)n);
		break;
	case URING_REG_FILES_UPDATE: {
		struct io_uring_files_update up = {
			.offset = (uint32_t)base,
			.fds = (uint64_t)(uintptr_t)fds,
		};

		ret = io_uring_register(r->ring.ring_fd, opcode, &up, (unsigned)n);
		break;
	}
	case URING_REG_FILES2: case URING_REG_BUFFERS2: {
		struct io_uring_rsrc_register rr = {
			.nr = (uint32_t)n, .data = (uint64_t)(uintptr_t)arg,
		};

		ret = io_uring_register(r->ring.ring_fd, opcode, &rr, sizeof(rr));
		break;
	}
	case URING_REG_FILES_UPDATE2: case URING_REG_BUFFERS_UPDATE: {
		struct io_uring_rsrc_update2 up = {
			.offset = (uint32_t)base, .nr = (uint32_t)n,
			.data = (uint64_t)(uintptr_t)arg,
		};

		ret = io_uring_register(r->ring.ring_fd, opcode, &up, sizeof(up));
		break;
	}
	case URING_REG_PROBE: {
		unsigned nr = op->have & RL_COUNT && op->count > 0 &&
			      op->count <= PROBE_OPS_MAX ? (unsigned)op->count :
			      PROBE_OPS_MAX;
		struct io_uring_probe *probe = calloc(1, sizeof(*probe) +
					PROBE_OPS_MAX * sizeof(probe->ops[0]));

		if (!probe) {
			*rc = -ENOMEM;
			ret = -ENOMEM;
			goto out;
		}
		ret = io_uring_register(r->ring.ring_fd, opcode, probe, nr);
		free(probe);
		break;
	}
	case URING_REG_UNREGISTER_FILES: case URING_REG_UNREGISTER_BUFFERS:
		ret = io_uring_register(r->ring.ring_fd, opcode, NULL, 0);
		if (ret == 0 && opcode == URING_REG_UNREGISTER_BUFFERS)
			free_bufs(r);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	/* liburing's io_uring_register() returns -errno itself. */
	if (ret >= 0 && table && !files) {
		keep_bufs(r, iov, n, base);
		iov = NULL;
	}
out:
	pthread_mutex_unlock(&r->lock);
	if (iov) {
		for (size_t i = 0; i < n; i++)
			free(iov[i].iov_base);
		free(iov);
	}
	free(fds);
	free(lens);
	return ret;
}

/* sqe: a request queued for the timeline's next io_uring_enter. */
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
	if (!(rq = calloc(1, sizeof(*rq))))
		return -ENOMEM;
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
			rq->iov.iov_base = rq->buf = pool_get(r, len, align,
								&rq->cap);
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
	if ((data_op && !fixed_buf && !rq->iov.iov_base) ||
	    (!old && u64map_put(&r->reqs, op->tag, rq))) {
		pthread_mutex_unlock(&r->lock);
		free(rq->buf);
		free(rq);
		return -ENOMEM;
	}
	if (old) {		/* a tag given twice (an edited file) */
		pool_put(r, rq);
		pthread_mutex_unlock(&r->lock);
		free(rq);
		*result = -EEXIST;
		return 0;
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
	pool_put(r, rq);
	free(rq);
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
static int64_t do_complete(struct ring *r, const struct rlog_op *op, int *rc)
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
		if (!cancelled && rq->cqe &&
		    clock_ns(CLOCK_MONOTONIC) >= deadline &&
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

int uring_exec(struct uring_table *t, const struct rlog_op *op, int fd,
	       const char *data, size_t data_len, size_t align,
	       atomic_uint_least64_t *flags_dropped, int64_t *result)
{
	enum sys_kind kind = sys_info(op->sys)->kind;
	struct ring *r;
	int rc = 0;

	if (align < IO_ALIGN)
		align = IO_ALIGN;
	if (kind == SK_URING_SETUP)
		return do_setup(t, op, flags_dropped, result);
	if (!(op->have & RL_CTX) || !(r = ring_get(t, op->ctx))) {
		*result = -EBADF;	/* as the kernel says of a bad ring fd */
		return 0;
	}
	switch (kind) {
	case SK_URING_FILE: case SK_URING_BUF:
		rc = do_entry(r, op, fd, result);
		break;
	case SK_URING_REGISTER:
		*result = do_register(r, op, data, data_len, align, &rc);
		break;
	case SK_URING_SQE:
		rc = do_sqe(r, op, fd, data, data_len, align, result);
		/* SQPOLL: the kernel thread takes it from the ring now. */
		if (!rc && *result == 0 && (r->ring.flags & IORING_SETUP_SQPOLL)) {
			pthread_mutex_lock(&r->lock);
			submit(r, timeline_of(op), 0, 0, 0, false, &rc);
			pthread_mutex_unlock(&r->lock);
		}
		break;
	case SK_URING_ENTER:
		pthread_mutex_lock(&r->lock);
		*result = submit(r, timeline_of(op),
				 op->have & RL_COUNT ? (unsigned)op->count : 0,
				 op->have & RL_MIN ? (unsigned)op->min : 0,
				 (op->have & RL_FLAGS ? (unsigned)op->flags : 0) &
				 ENTER_REPLAYED, true, &rc);
		pthread_mutex_unlock(&r->lock);
		break;
	default:	/* SK_URING_DATA, SK_URING_DONE */
		*result = op->have & RL_TAG ? do_complete(r, op, &rc) : -EINVAL;
		break;
	}
	ring_put(t, r);
	return rc;
}
