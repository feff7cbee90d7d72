/*
 * queue: the engine's producer side, the functions of engine.h the feed
 * calls: timelines assigned to runners (started when needed), the room a
 * next operation needs (its slot of the window, a place in its runner's
 * queue), the operation copied into its slot and published at the tail
 * of the queue, and the end of the file told to every runner.  The one
 * thread that feeds at a time (engine.h) writes the slots, the queues'
 * tails and the maps of timelines; the runners (engine.c) consume.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enginestate.h"
#include "ioriot/replaylimits.h"
#include "ioriot/waitword.h"

/* The queue size for the runners of a file with @timelines (0: unknown),
 * at most e->max_runners of them (enginestate.h). */
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

int engine_queues_init(struct engine *e, uint64_t timelines)
{
	e->queue_slots = queue_size(e, timelines);
	e->slots = calloc(WINDOW_SLOTS, sizeof(*e->slots));
	e->done = calloc(WINDOW_SLOTS, sizeof(*e->done));
	e->ends = calloc(WINDOW_SLOTS, sizeof(*e->ends));
	e->runners = calloc(e->max_runners, sizeof(*e->runners));
	if (e->workers)
		e->worker_timelines = calloc(e->workers,
					     sizeof(*e->worker_timelines));
	if (!e->slots || !e->done || !e->ends || !e->runners ||
	    (e->workers && !e->worker_timelines) ||
	    u64map_init(&e->timeline_of) || u64map_init(&e->worker_of) ||
	    u64map_init(&e->group_of))
		return -ENOMEM;
	return 0;
}

void engine_queues_free(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners), pos = 0;
	struct u64map_slot *tl;

	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		for (int s = 0; s < SYS_COUNT; s++)
			free(r->sys[s]);
		pthread_mutex_destroy(&r->stats_lock);
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
	free((void *)e->ends);
	free(e->worker_timelines);
	while ((tl = u64map_next(&e->timeline_of, &pos)))
		free(tl->value);
	u64map_destroy(&e->timeline_of);
	u64map_destroy(&e->worker_of);
	u64map_destroy(&e->group_of);
}

const atomic_uint *engine_done_words(const struct engine *e)
{
	return e->done;
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
	r->queue = malloc(e->queue_slots * sizeof(*r->queue));
	if (!r->queue) {
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
	free(r->queue);
	free(r);
	errno = -ret;
	return NULL;
}

/* A runner for a new timeline: a new one while the limit allows and its
 * thread starts, else an existing one in turn.  Its index, or -1 with a
 * message in @err. */
static ssize_t grab_runner(struct engine *e, char *err, size_t errlen)
{
	size_t n = atomic_load(&e->nrunners);

	if (n < e->max_runners) {
		if (new_runner(e))
			return (ssize_t)n;
		if (errno == ENOMEM || !n) {
			snprintf(err, errlen, "cannot start a replay thread: %s",
				 strerror(errno));
			return -1;
		}
		e->max_runners = n;	/* e.g. RLIMIT_NPROC: stay within it */
	}
	return (ssize_t)(e->next_shared++ % n);
}

/* The timeline of @key (pid << 32 | tid), made without a runner on first
 * sight.  NULL when out of memory. */
static struct timeline *timeline_get(struct engine *e, uint64_t key)
{
	struct timeline *tl = u64map_get(&e->timeline_of, key);

	if (tl)
		return tl;
	tl = calloc(1, sizeof(*tl));
	if (!tl || u64map_put(&e->timeline_of, key, tl)) {
		free(tl);
		return NULL;
	}
	return tl;
}

struct timeline *engine_timeline_for(struct engine *e, uint32_t pid,
				     uint32_t tid, char *err, size_t errlen)
{
	uint64_t group = 0;
	struct timeline *tl = timeline_get(e, (uint64_t)pid << 32 | tid);
	void *v;
	ssize_t idx;

	if (!tl)
		goto nomem;
	if (tl->runner)
		return tl;
	if (e->timelines == REPLAY_TIMELINES_MAX) {
		snprintf(err, errlen, "more than %u timelines (PID:TID), the "
			 "replay's limit", REPLAY_TIMELINES_MAX);
		errno = E2BIG;
		return NULL;
	}
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
		/* Processes go to the workers in turn and a worker's
		 * timelines to its threads in turn, as the original I/O
		 * Riot did. */
		size_t w = (uintptr_t)v - 1;

		group = w * e->threads_per_worker +
			e->worker_timelines[w]++ % e->threads_per_worker;
		v = u64map_get(&e->group_of, group);
		if (v) {
			idx = (ssize_t)((uintptr_t)v - 1);
			goto found;
		}
	}
	idx = grab_runner(e, err, errlen);
	if (idx < 0)
		return NULL;
	if (e->workers &&
	    u64map_put(&e->group_of, group, (void *)(uintptr_t)(idx + 1)))
		goto nomem;
found:
	tl->runner = e->runners[idx];
	return tl;
nomem:
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return NULL;
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

int engine_room(struct engine *e, struct timeline *tl, uint64_t seq,
		bool wait)
{
	struct runner *r = tl->runner;
	unsigned tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (!wait && (!queue_room_now(r, tail) ||
		      (seq >= WINDOW_SLOTS && !slot_free_now(e, seq))))
		return 1;
	if (seq >= WINDOW_SLOTS && !wait_slot(e, seq))
		return -ECANCELED;
	if (!wait_queue_room(e, r))
		return -ECANCELED;
	return 0;
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

/* @a + @b, at most UINT64_MAX: hand-edited times may be anything. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Note @op's place in timeline @tl: the captured gap since the timeline's
 * previous operation goes to @s, the parent (parent=) and whether it is
 * anchored to @tl on its first operation, the time in calls and between
 * them to the engine's sums.
 * 0 or -ENOMEM. */
static int note_gap(struct engine *e, struct timeline *tl, struct slot *s,
		    const struct rlog_op *op)
{
	uint64_t end = add_sat(op->time_ns, op->dur_ns);

	s->tl = tl;
	s->gap_ns = 0;
	if (tl->queued) {
		if (op->time_ns > tl->cap_end)
			s->gap_ns = op->time_ns - tl->cap_end;
		e->cap_gap_ns = add_sat(e->cap_gap_ns, s->gap_ns);
		if (op->have & RL_CPU)
			e->cap_gap_cpu_ns = add_sat(e->cap_gap_cpu_ns,
				op->cpu_ns < s->gap_ns ? op->cpu_ns : s->gap_ns);
	} else {
		if ((op->have & RL_PARENT) &&
		    op->parent != ((uint64_t)op->pid << 32 | op->tid)) {
			tl->parent = timeline_get(e, op->parent);
			if (!tl->parent)
				return -ENOMEM;
		}
		/* --think: anchored from its first operation on, as its
		 * runner will find it there (engine.c); set here so that a
		 * sync= on it reads it before that runner got to it. */
		atomic_store_explicit(&tl->anchored, !tl->parent ||
				      atomic_load_explicit(&tl->parent->anchored,
							   memory_order_relaxed),
				      memory_order_relaxed);
	}
	tl->queued = true;
	tl->cap_end = end;
	e->cap_call_ns = add_sat(e->cap_call_ns, op->dur_ns);
	if (end > e->captured_ns)
		e->captured_ns = end;
	return 0;
}

int engine_queue_op(struct engine *e, struct timeline *tl, uint64_t seq,
		    const struct rlog_op *op, const struct deps *deps)
{
	struct slot *s = &e->slots[seq % WINDOW_SLOTS];
	struct runner *r = tl->runner;
	unsigned tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	s->op = *op;
	s->op.deps = *deps;
	s->seq = seq;
	/* The feed alone writes slots, and not that one before its
	 * operation is done and the window has moved past it. */
	s->sync_tl = op->have & RL_SYNC ?
		     e->slots[op->sync_id % WINDOW_SLOTS].tl : NULL;
	if (keep_strings(s, op) || note_gap(e, tl, s, op))
		return -ENOMEM;
	r->queue[tail & (e->queue_slots - 1)] = seq % WINDOW_SLOTS;
	/* Sequentially consistent, like the runner's store of sleeping
	 * before it looks at tail: one of the two sees the other. */
	atomic_store(&r->tail, tail + 1);
	if (atomic_load(&r->sleeping)) {
		atomic_fetch_add(&r->bell, 1);
		waitword_wake_all(&r->bell);
	}
	return 0;
}

void engine_feed_done(struct engine *e)
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
