/*
 * feed: reads the replay file while the replay runs and hands each
 * operation to the runner of its timeline (engine.h explains the window and
 * the queues).  Only the feed writes slots, queues' tails and the maps of
 * timelines; it resolves an operation's dependencies from ids to sequence
 * numbers before the operation is queued, so runners never search.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "ioriot/waitword.h"

/* The queue size for the runners of a file with @timelines (0: unknown),
 * at most e->max_runners of them (engine.h). */
static unsigned queue_size(const struct engine *e, uint64_t timelines)
{
	uint64_t runners = timelines < e->max_runners ? timelines :
			   e->max_runners;
	unsigned n = QUEUE_MAX;

	if (!timelines)
		return QUEUE_MIN;
	while (n > QUEUE_MIN && (uint64_t)n * 2 * runners > WINDOW_SLOTS)
		n /= 2;
	return n;
}

int feed_open(struct engine *e, struct rlog_reader *reader, const char *path)
{
	e->rlog = reader ? reader :
		  rlog_open(path, e->feed_err, sizeof(e->feed_err));
	if (!e->rlog)
		return -errno;
	e->total_hint = rlog_header(e->rlog)->ops_hint;
	e->queue_slots = queue_size(e, rlog_header(e->rlog)->timelines_hint);
	e->slots = calloc(WINDOW_SLOTS, sizeof(*e->slots));
	e->done = calloc(WINDOW_SLOTS, sizeof(*e->done));
	e->runners = calloc(e->max_runners, sizeof(*e->runners));
	if (e->workers)
		e->worker_timelines = calloc(e->workers,
					     sizeof(*e->worker_timelines));
	if (!e->slots || !e->done || !e->runners ||
	    (e->workers && !e->worker_timelines) ||
	    u64map_init(&e->runner_of) || u64map_init(&e->worker_of) ||
	    u64map_init(&e->group_of)) {
		snprintf(e->feed_err, sizeof(e->feed_err), "%s: out of memory",
			 path);
		return -ENOMEM;
	}
	return 0;
}

void feed_close(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners);

	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		for (int s = 0; s < SYS_COUNT; s++)
			free(r->sys[s]);
		pthread_mutex_destroy(&r->stats_lock);
		free(r->late);
		free(r->throttle);
		free(r->queue);
		free(r);
	}
	free(e->runners);
	if (e->slots)
		for (size_t i = 0; i < WINDOW_SLOTS; i++)
			free(e->slots[i].strings);
	free(e->slots);
	free((void *)e->done);
	free(e->worker_timelines);
	u64map_destroy(&e->runner_of);
	u64map_destroy(&e->worker_of);
	u64map_destroy(&e->group_of);
	rlog_close(e->rlog);
}

/* A new runner, started at once when the replay is going.  NULL when out
 * of memory or its thread cannot start (errno set). */
static struct runner *new_runner(struct engine *e)
{
	struct runner *r = aligned_alloc(CACHE_LINE, sizeof(*r));
	size_t n = atomic_load(&e->nrunners);
	int ret;

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->eng = e;
	pthread_mutex_init(&r->stats_lock, NULL);
	r->late = calloc(REPLAY_LATENESS_BUCKETS, sizeof(*r->late));
	r->queue = malloc(e->queue_slots * sizeof(*r->queue));
	if (!r->late || !r->queue) {
		ret = -ENOMEM;
		goto fail;
	}
	if (atomic_load(&e->go) && (ret = engine_start_runner(e, r)))
		goto fail;
	e->runners[n] = r;
	atomic_store(&e->nrunners, n + 1);	/* publishes runners[n] */
	return r;
fail:
	pthread_mutex_destroy(&r->stats_lock);
	free(r->late);
	free(r->queue);
	free(r);
	errno = -ret;
	return NULL;
}

/* A runner for a new timeline: a new one while the limit allows and its
 * thread starts, else an existing one in turn.  Its index, or -1 with
 * e->feed_err set. */
static ssize_t grab_runner(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners);

	if (n < e->max_runners) {
		if (new_runner(e))
			return (ssize_t)n;
		if (errno == ENOMEM || !n) {
			snprintf(e->feed_err, sizeof(e->feed_err),
				 "cannot start a replay thread: %s",
				 strerror(errno));
			return -1;
		}
		e->max_runners = n;	/* e.g. RLIMIT_NPROC: stay within it */
	}
	return (ssize_t)(e->next_shared++ % n);
}

/*
 * The runner of timeline @pid:@tid.  Without -p/-t a timeline gets a
 * runner of its own while there is room.  With them, processes go to the
 * workers in turn and a worker's timelines to its threads in turn, as the
 * original I/O Riot did.  NULL with e->feed_err set on failure.
 */
static struct runner *runner_for(struct engine *e, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid, group = 0;
	void *v = u64map_get(&e->runner_of, key);
	ssize_t idx;

	if (v)
		return e->runners[(uintptr_t)v - 1];
	e->timelines++;
	v = u64map_get(&e->worker_of, pid);
	if (!v) {
		v = (void *)(uintptr_t)(e->workers ?
					e->processes % e->workers + 1 : 1);
		if (u64map_put(&e->worker_of, pid, v))
			goto nomem;
		e->processes++;
	}
	if (e->workers) {
		size_t w = (uintptr_t)v - 1;

		group = w * e->threads_per_worker +
			e->worker_timelines[w]++ % e->threads_per_worker;
		v = u64map_get(&e->group_of, group);
		if (v) {
			idx = (ssize_t)((uintptr_t)v - 1);
			goto found;
		}
	}
	idx = grab_runner(e);
	if (idx < 0)
		return NULL;
	if (e->workers &&
	    u64map_put(&e->group_of, group, (void *)(uintptr_t)(idx + 1)))
		goto nomem;
found:
	if (u64map_put(&e->runner_of, key, (void *)(uintptr_t)(idx + 1)))
		goto nomem;
	return e->runners[idx];
nomem:
	snprintf(e->feed_err, sizeof(e->feed_err), "out of memory");
	return NULL;
}

/* The sequence number of operation @id if it is in the window and has not
 * completed; -1 when it completed, fell out of the window (so completed)
 * or is not in the file (the generator dropped it): nothing to wait for.
 * The slot of the operation being queued, the window's oldest, is left
 * out: it was reused once that operation completed. */
static int64_t pending_dep(struct engine *e, uint64_t id)
{
	uint64_t lo = e->nread >= WINDOW_SLOTS ? e->nread - WINDOW_SLOTS + 1 : 0;
	uint64_t hi = e->nread;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (e->slots[mid % WINDOW_SLOTS].op.id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == e->nread || e->slots[lo % WINDOW_SLOTS].op.id != id ||
	    engine_done(e, lo))
		return -1;
	return (int64_t)lo;
}

/* Copy @src's strings into @s's own buffer.  0 or -ENOMEM. */
static int keep_strings(struct slot *s, const struct rlog_op *src)
{
	size_t need = (src->path ? src->path_len + 1 : 0) +
		      (src->path2 ? src->path2_len + 1 : 0) +
		      (src->target ? src->target_len + 1 : 0);
	const char **field[] = { &s->op.path, &s->op.path2, &s->op.target };
	const uint32_t len[] = { src->path_len, src->path2_len,
				 src->target_len };
	char *p;

	if (need > s->strings_cap) {
		p = realloc(s->strings, need);
		if (!p)
			return -ENOMEM;
		s->strings = p;
		s->strings_cap = need;
	}
	p = s->strings;
	for (int i = 0; i < 3; i++) {
		if (!*field[i])
			continue;
		memcpy(p, *field[i], len[i]);
		p[len[i]] = '\0';
		*field[i] = p;
		p += len[i] + 1;
	}
	return 0;
}

/* Whether runner @r's queue, appended up to @tail, has room now. */
static bool queue_room_now(struct runner *r, unsigned tail)
{
	/* The head is the runner's hot line: look only when needed. */
	if (tail - r->head_seen < r->eng->queue_slots)
		return true;
	r->head_seen = atomic_load(&r->head);
	return tail - r->head_seen < r->eng->queue_slots;
}

/* Wait until runner @r's queue has room.  A full queue is let drain to
 * half before the feed goes on, so feed and runner do not wake each other
 * for every operation.  false when the replay stops. */
static bool wait_queue_room(struct engine *e, struct runner *r)
{
	unsigned tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (queue_room_now(r, tail))
		return true;
	for (;;) {
		unsigned room;

		atomic_store(&r->feed_waits, 1);
		room = atomic_load(&r->room);
		r->head_seen = atomic_load(&r->head);
		if (tail - r->head_seen <= e->queue_slots / 2) {
			atomic_store(&r->feed_waits, 0);
			return true;
		}
		if (engine_should_stop(e)) {
			atomic_store(&r->feed_waits, 0);
			return false;
		}
		waitword_wait(&r->room, room, WAIT_SLICE_NS);
	}
}

/* Wait until the slot of operation @seq is free: operation seq -
 * WINDOW_SLOTS completed.  The feed looks at a batch of completion words
 * at once and remembers how far all are done: each look pulls a cache line
 * that runners write again when they complete the slots' next operations,
 * so one look per batch, not per operation.  false when the replay stops. */
static bool wait_slot(struct engine *e, uint64_t seq)
{
	uint64_t old = seq - WINDOW_SLOTS;

	while (old >= e->free_below) {
		uint64_t s = e->free_below, end = old + FEED_BATCH;

		while (s < end && engine_done(e, s))
			s++;
		if (s > old) {
			e->free_below = s;
			break;
		}
		/* Mostly, once the batch's last one is done, all are. */
		if (!engine_wait_done(e, end - 1, true) ||
		    !engine_wait_done(e, old, true))
			return false;
	}
	return true;
}

/* Whether the slot of operation @seq is free now (before the replay
 * starts, no slot of the first window's operations is). */
static bool slot_free_now(struct engine *e, uint64_t seq)
{
	uint64_t old = seq - WINDOW_SLOTS;

	while (e->free_below <= old && engine_done(e, e->free_below))
		e->free_below++;
	return e->free_below > old;
}

/*
 * Queue e->pending.  Returns 0, 1 when there is no room and @wait is
 * false, -ECANCELED when the replay stops while waiting, or -errno with
 * e->feed_err set.
 */
static int queue_pending(struct engine *e, bool wait)
{
	const struct rlog_op *op = &e->pending.op;
	uint64_t seq = e->nread;
	struct slot *s = &e->slots[seq % WINDOW_SLOTS];
	struct runner *r;
	unsigned tail;
	int ndeps = 0;

	r = runner_for(e, op->pid, op->tid);
	if (!r)
		return -ENOMEM;
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (!wait && (!queue_room_now(r, tail) ||
		      (seq >= WINDOW_SLOTS && !slot_free_now(e, seq))))
		return 1;
	if (seq >= WINDOW_SLOTS && !wait_slot(e, seq))
		return -ECANCELED;
	if (!wait_queue_room(e, r))
		return -ECANCELED;
	s->op = *op;
	s->seq = seq;
	for (int d = 0; d < op->deps.n; d++) {
		int64_t dep = pending_dep(e, op->deps.id[d]);

		if (dep >= 0)
			s->op.deps.id[ndeps++] = (uint64_t)dep;
	}
	s->op.deps.n = ndeps;
	if (keep_strings(s, op)) {
		snprintf(e->feed_err, sizeof(e->feed_err),
			 "%s: out of memory", e->opt->replay_path);
		return -ENOMEM;
	}
	if (op->time_ns + op->dur_ns > e->captured_ns)
		e->captured_ns = op->time_ns + op->dur_ns;
	r->queue[tail & (e->queue_slots - 1)] = seq % WINDOW_SLOTS;
	/* Sequentially consistent, like the runner's store of sleeping
	 * before it looks at tail: one of the two sees the other. */
	atomic_store(&r->tail, tail + 1);
	if (atomic_load(&r->sleeping)) {
		atomic_fetch_add(&r->bell, 1);
		waitword_wake_all(&r->bell);
	}
	e->nread++;
	e->have_pending = false;
	return 0;
}

/* Tell every runner the file has ended. */
static void ring_eof(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners);

	atomic_store(&e->eof, 1);
	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		if (atomic_load(&r->sleeping)) {
			atomic_fetch_add(&r->bell, 1);
			waitword_wake_all(&r->bell);
		}
	}
}

int feed_run(struct engine *e, bool wait)
{
	int ret;

	for (;;) {
		if (!e->have_pending) {
			ret = rlog_next(e->rlog, &e->pending, e->feed_err,
					sizeof(e->feed_err));
			if (ret == 0) {
				ring_eof(e);
				return 0;
			}
			if (ret < 0)
				return ret;
			if (e->pending.type != RLOG_ENTRY_OP)
				continue;
			e->have_pending = true;
		}
		ret = queue_pending(e, wait);
		if (ret)
			return ret;
	}
}
