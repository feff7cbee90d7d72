/*
 * uring: the replay of io_uring with liburing (uring.h): the table of
 * rings, their setup and registrations, and uring_exec(), which hands
 * requests and completions to uringio.c.
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
 * sqe lines, io_uring_enter and the completions are uringio.c's.
 *
 * The entries of the rings set up, the uring_file and uring_buf lines
 * queued, the requests and all buffers count against the replay's
 * bounds (ioriot/replaylimits.h, budget.h): beyond them io_uring_setup
 * is answered -ENOMEM, a queued line -ENOMEM, a registration -ENOMEM,
 * an sqe -EAGAIN, each counted, nothing allocated.
 *
 * Rings are shared by all timelines: the table and each ring have a lock,
 * and a ring is torn down by its last user.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "uringring.h"
#include "ioriot/replaylimits.h"
#include "ioriot/uring.h"

#define PROBE_OPS_MAX 256	/* ops a probe buffer has room for */

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

/* io_uring_enter flags made as captured (a registered ring index and the
 * argument shape are the replay's own). */
#define ENTER_REPLAYED (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | \
			IORING_ENTER_SQ_WAIT)

/* uring_file and uring_buf lines queued at once in one replay: a full
 * table of each (the kernel's most fixed files and buffers, uring.h). */
#define QUEUED_ENTRIES_MAX (URING_FILES_MAX + URING_BUFS_MAX)

struct uring_table *uring_table_new(struct replay_budget *budget)
{
	struct uring_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->budget = budget;
	if (u64map_init(&t->rings)) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

/* Free the @n buffers of @iov (not @iov), giving their bytes back to
 * @b. */
static void iov_free(struct replay_budget *b, struct iovec *iov, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(iov[i].iov_base);
		budget_give(&b->async_bytes, iov[i].iov_len);
	}
}

static void free_bufs(struct ring *r)
{
	iov_free(r->budget, r->bufs, r->nbufs);
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
	budget_give(&r->budget->ring_entries, r->ring_entries);
	while (r->reqs.slots && (s = u64map_next(&r->reqs, &pos)))
		uring_request_free(r, s->value);
	u64map_destroy(&r->reqs);
	free_bufs(r);
	bufpool_free(&r->pool);
	budget_give(&r->budget->entries, r->nentries);
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

/* io_uring_setup: a real ring for ctx=; -ENOMEM (counted) beyond
 * URING_RING_ENTRIES_MAX, its entries and the completion entries the
 * kernel gives it (cq=, else twice the entries). */
static int do_setup(struct uring_table *t, const struct rlog_op *op,
		    atomic_uint_least64_t *flags_dropped, int64_t *result)
{
	unsigned flags = op->have & RL_FLAGS ? (unsigned)op->flags : 0;
	unsigned cq = op->have & RL_CQ ? (unsigned)op->cq : 0;
	struct ring *r = calloc(1, sizeof(*r)), *old;
	uint64_t entries;
	bool dropped;
	int rc;

	if (!r || u64map_init(&r->reqs)) {
		free(r);
		return -ENOMEM;
	}
	if (!(flags & URING_SETUP_CQSIZE))
		cq = 0;
	entries = (uint64_t)op->count + (cq ? cq : 2 * (uint64_t)op->count);
	if (!budget_take(&t->budget->ring_entries, entries,
			 URING_RING_ENTRIES_MAX)) {
		u64map_destroy(&r->reqs);
		free(r);
		budget_refused(t->budget);
		*result = -ENOMEM;
		return 0;
	}
	rc = setup_ring(&r->ring, (unsigned)op->count, flags, cq, &dropped);
	if (rc < 0) {
		budget_give(&t->budget->ring_entries, entries);
		u64map_destroy(&r->reqs);
		free(r);
		*result = rc;
		return 0;
	}
	r->budget = t->budget;
	bufpool_init(&r->pool, t->budget);
	r->ring_entries = entries;
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
 * io_uring_register; -ENOMEM (counted) beyond QUEUED_ENTRIES_MAX. */
static int do_entry(struct ring *r, const struct rlog_op *op, int fd,
		    int64_t *result)
{
	bool file = sys_info(op->sys)->kind == SK_URING_FILE;
	struct entry *e;

	if (!budget_take(&r->budget->entries, 1, QUEUED_ENTRIES_MAX)) {
		budget_refused(r->budget);
		*result = -ENOMEM;
		return 0;
	}
	pthread_mutex_lock(&r->lock);
	if (r->nentries == r->entries_cap) {
		size_t cap = r->entries_cap ? 2 * r->entries_cap : 16;
		struct entry *n = realloc(r->entries, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&r->lock);
			budget_give(&r->budget->entries, 1);
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
	budget_give(&r->budget->entries, r->nentries - kept);
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

/* The bytes @r's registered buffers would hold (under r->lock) with @n
 * more of @lens from slot @base: replacing those slots for an update, all
 * of them otherwise.  Buffers of no length take a page, as make_bufs()
 * gives them. */
static uint64_t bufs_bytes(const struct ring *r, const uint64_t *lens,
			   size_t n, uint64_t base, bool update)
{
	uint64_t sum = 0;

	for (size_t i = 0; update && i < r->nbufs; i++)
		if (i < base || i >= base + n)
			sum += r->bufs[i].iov_len;
	for (size_t i = 0; i < n; i++)
		sum += lens[i] ? lens[i] : 4096;
	return sum;
}

/* The bytes of the @n buffers of @lens make_bufs() makes (a buffer of no
 * length takes @align), as their iov_len say. */
static uint64_t new_bytes(const uint64_t *lens, size_t n, size_t align)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += lens[i] ? lens[i] : align;
	return sum;
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
			iov_free(r->budget, iov, n);
			free(iov);
			return;
		}
		memset(more + r->nbufs, 0, (base + n - r->nbufs) * sizeof(*more));
		r->bufs = more;
		r->nbufs = base + n;
	}
	for (size_t i = 0; i < n; i++) {
		iov_free(r->budget, &r->bufs[base + i], 1);
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
	/* The replay's own limits: uring.h's per ring, the replay's
	 * (ioriot/replaylimits.h) for all its buffers. */
	if (table && !files && (bufs_bytes(r, lens, n, base, update) >
				URING_BUF_TOTAL_MAX ||
				!budget_take(&r->budget->async_bytes,
					     new_bytes(lens, n, align),
					     REPLAY_ASYNC_BUF_MAX))) {
		budget_refused(r->budget);
		ret = -ENOMEM;
		goto out;
	}
	if (table && !files && !(iov = make_bufs(lens, n, data, data_len,
						  align))) {
		budget_give(&r->budget->async_bytes,
			    new_bytes(lens, n, align));
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
		iov_free(r->budget, iov, n);
		free(iov);
	}
	free(fds);
	free(lens);
	return ret;
}

int uring_exec(struct uring_table *t, const struct rlog_op *op, int fd,
	       const char *data, size_t data_len, size_t align,
	       atomic_uint_least64_t *flags_dropped,
	       const struct replay_stop *stop, int64_t *result)
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
		rc = uring_sqe(r, op, fd, data, data_len, align, result);
		break;
	case SK_URING_ENTER:
		*result = uring_enter(r, timeline_of(op),
				      op->have & RL_COUNT ? (unsigned)op->count : 0,
				      op->have & RL_MIN ? (unsigned)op->min : 0,
				      (op->have & RL_FLAGS ? (unsigned)op->flags : 0) &
				      ENTER_REPLAYED, &rc);
		break;
	default:	/* SK_URING_DATA, SK_URING_DONE */
		*result = op->have & RL_TAG ? uring_complete(r, op, stop, &rc) :
			  -EINVAL;
		break;
	}
	ring_put(t, r);
	return rc;
}
