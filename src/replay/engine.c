/*
 * The replay engine's consumer side: starts the feed (feed.h) and the
 * runners, one thread per timeline up to a limit (queue.c creates them as
 * the feed meets timelines); a runner carries out its queue in file order,
 * each operation once its recorded dependencies have completed and, with
 * a speed factor, at its scaled captured time, or with --think once its
 * timeline's previous operation completed plus the captured gap between
 * them (CPU work burnt, the rest slept).  It asks the feed for more
 * only through feed_run(): in the reader thread, or at -s 0 with as many
 * runners as CPUs in the runners themselves (feed_self()).  At the end the
 * runners' statistics are merged.  engine.h states the contract between
 * feed and engine, enginestate.h why this cannot deadlock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "enginestate.h"
#include "feed.h"
#include "jail.h"
#include "startat.h"
#include "ioriot/clock.h"
#include "ioriot/syscall_table.h"
#include "ioriot/waitword.h"

#define RUNNER_STACK (256u << 10)
#define SPIN_ROUNDS 200
#define PROGRESS_NS (2 * 1000000000ULL)
#define CLOCK_CALIBRATION_NS (2 * 1000000ULL)
#define SELF_FEED_LOW(e) ((e)->queue_slots / 4)	/* queued operations left */
#define BURN_ROUND 8		/* multiplications between looks at the clock */
#define BURN_CHECKED_NS 50000ULL	/* burns this long check the CPU time */
#define BURN_SLACK_NS 1000ULL	/* what a checked burn may fall short */
#define PLACED_STEP_NS 50000ULL	/* wait_placed()'s shortest sleep */

/* engine_wait_done() until @deadline on the engine's clock (UINT64_MAX:
 * none): 1 once the operation completed, 0 at the deadline, -1 when the
 * replay stops first. */
static int wait_done_until(struct engine *e, uint64_t seq, bool spin_first,
			   uint64_t deadline)
{
	atomic_uint *w = &e->done[seq % WINDOW_SLOTS];
	unsigned round = (unsigned)(seq / WINDOW_SLOTS);
	uint64_t left = WAIT_LONG_NS, now;

	for (int spin = 0; spin_first && spin < SPIN_ROUNDS; spin++) {
		if (engine_done(e, seq))
			return 1;
		sched_yield();
	}
	for (;;) {
		unsigned v = atomic_load(w);

		if ((v & ~DONE_WAITERS) > round)
			return 1;
		if (engine_should_stop(e))
			return -1;
		if (deadline != UINT64_MAX) {
			if ((now = engine_now(e)) >= deadline)
				return 0;
			if (deadline - now < left)
				left = deadline - now;
		}
		if (!(v & DONE_WAITERS) &&
		    !atomic_compare_exchange_weak(w, &v, v | DONE_WAITERS))
			continue;
		waitword_wait(w, v | DONE_WAITERS, left);
	}
}

bool engine_wait_done(struct engine *e, uint64_t seq, bool spin_first)
{
	return wait_done_until(e, seq, spin_first, UINT64_MAX) > 0;
}

static void mark_done(struct engine *e, uint64_t seq)
{
	atomic_uint *w = &e->done[seq % WINDOW_SLOTS];
	unsigned old = atomic_exchange(w, (unsigned)(seq / WINDOW_SLOTS) + 1);

	if (old & DONE_WAITERS)
		waitword_wake_all(w);
}

/* The bytes a result of @sys stands for: 0 for a call that moves none;
 * mmap_read and mmap_write count pages. */
static uint64_t bytes_per_unit(enum sys_id sys)
{
	switch (sys_info(sys)->kind) {
	case SK_READ: case SK_WRITE: case SK_SENDFILE: case SK_COPY_RANGE:
	case SK_AIO_DATA: case SK_URING_DATA: case SK_SPLICE:
		return 1;
	case SK_MAPPAGE:
		return RLOG_PAGE_SIZE;
	default:
		return 0;
	}
}

/* Count @op, replayed in @dur ns with @result.  0 or -ENOMEM. */
static int account(struct runner *r, const struct rlog_op *op,
		   int64_t result, uint64_t dur)
{
	struct runner_sys *s = r->sys[op->sys];
	struct engine_hists *h = r->eng->hists;
	enum replay_match m = replay_result_compare(op->sys, op->ret, result);

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		if (r->eng->ticks)
			pthread_mutex_lock(&r->stats_lock);
		r->sys[op->sys] = s;
	} else if (r->eng->ticks) {
		pthread_mutex_lock(&r->stats_lock);
	}
	s->ops++;
	if (result > 0)
		s->bytes += (uint64_t)result * bytes_per_unit(op->sys);
	if (m != REPLAY_SAME) {
		s->differ++;
		if (m == REPLAY_SHORT) {
			s->short_ops++;
			s->short_bytes += (uint64_t)(op->ret - result) *
					  (bytes_per_unit(op->sys) ?
					   bytes_per_unit(op->sys) : 1);
		}
		atomic_fetch_add_explicit(
			&r->eng->differ_by_result[op->sys]
				[replay_result_slot(m, result)], 1,
			memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&h->lat[op->sys][replay_hist_bucket(dur)],
				  1, memory_order_relaxed);
	atomic_fetch_add_explicit(
		&h->cap_lat[op->sys][replay_hist_bucket(op->dur_ns)], 1,
		memory_order_relaxed);
	if (dur > s->lat_max)
		s->lat_max = dur;
	if (op->dur_ns > s->cap_lat_max)
		s->cap_lat_max = op->dur_ns;
	if (r->eng->ticks)
		pthread_mutex_unlock(&r->stats_lock);
	return 0;
}

/* Sleep until @t (engine_now()) unless the replay stops; the last
 * e->spin_ns are spun, as a wake-up can come late.  The sleep is one wait
 * on e->stopping, which the watcher changes and wakes on a stop. */
static void sleep_until(struct engine *e, uint64_t t)
{
	while (!engine_should_stop(e)) {
		uint64_t now = engine_now(e);
		uint64_t left;

		if (now >= t)
			return;
		left = t - now;
		if (left <= e->spin_ns) {
			sched_yield();
			continue;
		}
		left -= e->spin_ns;
		if (left > WAIT_LONG_NS)
			left = WAIT_LONG_NS;
		waitword_wait(&e->stopping, 0, left);
	}
}

/* @ns divided by @factor (> 0), at most 10^18 ns (31 years): no
 * overflow. */
static uint64_t scaled(uint64_t ns, double factor)
{
	double v = (double)ns / factor;

	return v < 1e18 ? (uint64_t)v : 1000000000000000000ULL;
}

/* When @op is due on the engine's clock at its captured time (a speed is
 * set). */
static uint64_t due_ns(const struct engine *e, const struct rlog_op *op)
{
	return e->start_ns + scaled(op->time_ns, e->speed);
}

/* This thread's CPU time in ns (0 if it cannot be read). */
static uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Compute until @end on the engine's clock, or until the replay stops. */
static void burn_until(struct engine *e, uint64_t end)
{
	uint64_t x = end;
	volatile uint64_t sink;

	while (engine_now(e) < end && !engine_should_stop(e)) {
		for (int i = 0; i < BURN_ROUND; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sink = x;
	}
	(void)sink;
}

/*
 * Keep this thread on a CPU for @ns of its own CPU time, or until the
 * replay stops: the computing a captured thread did between two calls.
 * It spins on the engine's clock (a read costs ~20 ns); a burn of
 * BURN_CHECKED_NS or more then reads the thread's CPU time (a system
 * call, ~250 ns here) and burns what a preemption took from it, so that
 * on a busy CPU it lasts longer, as the program's work would have.  A
 * shorter burn is not checked: two such reads would cost more than most
 * of the gaps between a program's calls (tar: 200-800 ns).
 */
static void burn_cpu(struct engine *e, uint64_t ns)
{
	uint64_t start = engine_now(e), cpu0, burnt;

	if (ns < BURN_CHECKED_NS) {
		burn_until(e, start + ns);
		return;
	}
	cpu0 = thread_cpu_ns();
	burn_until(e, start + ns);
	while (!engine_should_stop(e) &&
	       (burnt = thread_cpu_ns() - cpu0) + BURN_SLACK_NS < ns)
		burn_until(e, engine_now(e) + (ns - burnt));
}

/* --think: the timeline whose drift places @tl's first operation: its
 * parent, or where the replay as a whole is for a thread that was there
 * before the capture. */
static struct timeline *placer(struct engine *e, struct timeline *tl)
{
	return tl->parent ? tl->parent : &e->lead;
}

/* --think: where @s's operation is on the engine's clock by timeline
 * @p's drift: its captured time divided by the speed, shifted by that
 * drift, never before the start. */
static uint64_t placed_by(struct engine *e, const struct timeline *p,
			  const struct slot *s)
{
	uint64_t at = scaled(s->op.time_ns, e->speed);
	int64_t drift = atomic_load_explicit(&p->drift, memory_order_relaxed);

	if (drift < 0 && (uint64_t)-drift > at)
		return e->start_ns;
	return e->start_ns + at + (uint64_t)drift;
}

/*
 * --think: whether @s's timeline is a thread that was there before the
 * capture and has followed its own captured times only (a daemon on a
 * timer, PostgreSQL's WAL writer).  Its sleeps were its own timer's,
 * which a faster test host does not shorten: where the work (a timeline
 * held back by another) runs ahead, what the daemon did at a point of the
 * work comes at that point (wait_placed()).
 */
static bool daemon_timeline(const struct slot *s)
{
	return s->tl->ran && !s->tl->parent &&
	       atomic_load_explicit(&s->tl->anchored, memory_order_relaxed);
}

/* --think: the timeline whose drift places @s's operation now: for a
 * first operation its placer(); for a daemon's (daemon_timeline()) the
 * replay as a whole once a timeline has been held back (the work); NULL
 * before that. */
static const struct timeline *placing(struct engine *e, const struct slot *s)
{
	if (!s->tl->ran)
		return placer(e, s->tl);
	return atomic_load_explicit(&e->lead_held, memory_order_relaxed) ?
	       &e->lead : NULL;
}

/*
 * --think: wait until @s's operation is due, up to the spin before it,
 * and return when that is: by the drift of the timeline that places it
 * (placing(), placed_by()), never before @floor nor after @cap (@cap
 * alone while nothing places it).  That drift changes with every
 * operation of the placing timeline, which wakes nobody for it (a wake-up
 * per operation would cost its runner a system call and often its CPU):
 * the wait sleeps half the time left at a time, looking again after
 * each, so a placing timeline that runs ahead is followed within the last
 * of them (PLACED_STEP_NS to twice that), at a few wake-ups per wait.
 * The sleeps end early on a stop.
 */
static uint64_t wait_placed(struct engine *e, const struct slot *s,
			    uint64_t floor, uint64_t cap)
{
	for (;;) {
		const struct timeline *p = placing(e, s);
		uint64_t due = p ? placed_by(e, p, s) : cap;
		uint64_t now = engine_now(e), left;

		if (due < floor)
			due = floor;
		if (due > cap)
			due = cap;
		if (due <= now + e->spin_ns || engine_should_stop(e))
			return due;
		left = due - now - e->spin_ns;
		if (left > 2 * PLACED_STEP_NS)
			left /= 2;
		waitword_wait(&e->stopping, 0,
			      left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS);
	}
}

/*
 * --think: wait until a daemon's operation in @s (daemon_timeline()) is
 * due, and return when that is: at @own, its own time, or where the
 * replay as a whole is once the work runs (its captured time shifted by
 * the lead's drift), whichever comes first, never before @burnt (the end
 * of its burn).  The time cut from its sleep is counted.
 */
static uint64_t follow_work(struct runner *r, const struct slot *s,
			    uint64_t own, uint64_t burnt)
{
	uint64_t due = wait_placed(r->eng, s, burnt, own);

	r->think_sleep_ns -= own - due;
	r->think_cut_ns += own - due;
	return due;
}

/*
 * --think: wait until @s's operation is due, or say when it is: its
 * timeline's previous
 * operation's end plus the on-CPU part of the captured gap (cpu=, divided
 * by the CPU scale) plus the rest of the gap (divided by the speed).  The
 * on-CPU part is burnt as CPU work, less what the engine itself spent
 * since that end (it stands in for the program's own work), so that the
 * replay's bookkeeping is not added to the program's; a burn that takes
 * longer (a busy CPU) makes the operation late, as the program would have
 * been.  A timeline's first operation is due at its captured time divided
 * by the speed, shifted by its parent's drift (the parent's replay running
 * behind or ahead of the capture), or, for a thread that was there before
 * the capture, by the drift of the replay as a whole (the last timeline
 * that other timelines held back: a WAL writer on a timer flushes where
 * the work it flushes is), never before the start.  The part of
 * the gap the thread was blocked in waits another timeline ended (waited=)
 * is no wait here: sync_due() orders the operation after that timeline's.
 * A daemon's sleep follows the work where it runs ahead (follow_work()).
 * Nor is the part it waited runnable for a CPU (runq=): the runner's own
 * waits for its CPU take that place.
 */
static uint64_t think_due(struct runner *r, const struct slot *s,
			  uint64_t *blocked)
{
	struct engine *e = r->eng;
	struct timeline *tl = s->tl;
	uint64_t cpu = 0, rest, wait, spent, w, probe;

	*blocked = 0;
	if (!tl->ran) {
		atomic_store_explicit(&tl->anchored, !tl->parent ||
				      atomic_load_explicit(&tl->parent->anchored,
							   memory_order_relaxed),
				      memory_order_relaxed);
		return wait_placed(e, s, 0, UINT64_MAX);
	}
	if (s->op.have & RL_CPU)
		cpu = s->op.cpu_ns < s->gap_ns ? s->op.cpu_ns : s->gap_ns;
	rest = s->gap_ns - cpu;
	/* The probe's own part of the on-CPU time is no one's here. */
	if (s->op.have & RL_PROBE) {
		probe = s->op.probe_ns < cpu ? s->op.probe_ns : cpu;
		cpu -= probe;
		r->think_probe_ns += probe;
	}
	if (s->op.have & RL_WAITED) {
		w = s->op.waited_ns < rest ? s->op.waited_ns : rest;
		rest -= w;
		*blocked = scaled(w, e->speed);
	}
	/* The capture's waits for a CPU are no one's either: this runner
	 * waits for its own (a late start), where its host makes it. */
	if (s->op.have & RL_RUNQ) {
		w = s->op.runq_ns < rest ? s->op.runq_ns : rest;
		rest -= w;
		r->think_runq_ns += w;
	}
	wait = scaled(rest, e->speed);
	if (cpu) {
		cpu = scaled(cpu, e->cpu_scale);
		spent = engine_now(e) - tl->end_ns;
		if (cpu > spent)
			burn_cpu(e, cpu - spent);
		r->think_cpu_ns += cpu;
	}
	r->think_sleep_ns += wait;
	if (daemon_timeline(s))
		return follow_work(r, s, tl->end_ns + cpu + wait,
				   tl->end_ns + cpu);
	return tl->end_ns + cpu + wait;
}

/*
 * Wait for the operation @op's sync= names (another timeline's, whose end
 * a wake followed in the capture).  With --think, @op is due no earlier
 * than that operation's end plus the capture's gap after it (sync=ID:NS's
 * NS) divided by the speed: the end as its runner took it, so that this
 * thread's own wake-up is not added to the one the gap holds.  A waker
 * whose timeline is anchored (a timer's thread) is waited for only as long
 * as @op was blocked in the capture (@blocked after @due): that it was
 * still at work when this timeline got there is the capture's timing,
 * which a faster or slower replay does not repeat.  *@held is set when
 * the wait made @op later than @due.  False when the replay stops first.
 */
static bool sync_due(struct runner *r, const struct slot *s, bool spin,
		     uint64_t *due, uint64_t blocked, bool *held)
{
	struct engine *e = r->eng;
	const struct rlog_op *op = &s->op;
	bool pending = !engine_done(e, op->sync_id);
	bool soft = pending && e->pacing == REPLAY_PACE_THINK && s->sync_tl &&
		    atomic_load_explicit(&s->sync_tl->anchored,
					 memory_order_relaxed);
	uint64_t t, bound = soft ? *due + blocked : UINT64_MAX;
	int done = wait_done_until(e, op->sync_id, spin, bound);

	if (done < 0)
		return false;
	if (e->pacing != REPLAY_PACE_THINK)
		return true;
	t = done ? atomic_load_explicit(&e->ends[op->sync_id % WINDOW_SLOTS],
					memory_order_relaxed) +
		   scaled(op->sync_gap_ns, e->speed) : bound;
	if (t > bound)
		t = bound;
	if (t > *due) {
		*due = t;
		*held |= pending && !soft;
	}
	return true;
}

/* --think: @tl's drift is @drift now (wait_placed() looks). */
static void moved(struct timeline *tl, long long drift)
{
	atomic_store_explicit(&tl->drift, drift, memory_order_relaxed);
}

/* --think: operation @op of timeline @tl ended at @t1.  The replay as a
 * whole (e->lead) is where its last operation is until a timeline has
 * been held back by another; from then on, where such timelines are: a
 * thread on a timer does not pull it back to the capture's times, while
 * a program of anchored threads only (tar, then sync) still moves it. */
static void think_done(struct engine *e, struct timeline *tl,
		       const struct rlog_op *op, uint64_t t1)
{
	uint64_t cap_end = op->time_ns + op->dur_ns >= op->time_ns ?
			   op->time_ns + op->dur_ns : UINT64_MAX;

	long long drift = (long long)(t1 - e->start_ns) -
			  (long long)scaled(cap_end, e->speed);

	bool held = !atomic_load_explicit(&tl->anchored, memory_order_relaxed);
	bool lead_held = atomic_load_explicit(&e->lead_held,
					      memory_order_relaxed);

	tl->end_ns = t1;
	tl->ran = true;
	moved(tl, drift);
	if (held && !lead_held)
		atomic_store_explicit(&e->lead_held, true,
				      memory_order_relaxed);
	if (held || !lead_held)
		moved(&e->lead, drift);
}

/* Wait until @due; returns when the operation started (now). */
static uint64_t pace(struct runner *r, uint64_t due)
{
	struct engine *e = r->eng;
	uint64_t now = engine_now(e), late;

	/* The lead before waiting; the lateness when it starts. */
	r->last_ahead = (int64_t)(due - now);
	if (now < due) {
		sleep_until(e, due);
		now = engine_now(e);
	}
	late = now > due ? now - due : 0;
	atomic_fetch_add_explicit(&e->hists->late[replay_hist_bucket(late)], 1,
				  memory_order_relaxed);
	if (late > r->late_max)
		r->late_max = late;
	atomic_store_explicit(&e->ahead, r->last_ahead, memory_order_relaxed);
	return now;
}

/* Wait for @op's turn under the rate caps (rate.h), from @now; *@t0 is
 * when it may start.  The wait is counted in the runner's throttle
 * figures, never in the operation's latency.  0, 1 when the replay stops
 * first (the operation is not counted), or -ENOMEM. */
static int throttle(struct runner *r, const struct rlog_op *op, uint64_t now,
		    uint64_t *t0)
{
	struct engine *e = r->eng;
	struct rate_turn turn;
	uint64_t due = rate_claim(&e->rate, op, now, &turn);

	*t0 = now;
	if (!turn.classes)
		return 0;
	if (due > now) {
		sleep_until(e, due);
		if (engine_should_stop(e))
			return 1;
		*t0 = engine_now(e);
	}
	if (!r->throttle) {
		r->throttle = calloc(REPLAY_RATE_CLASSES, sizeof(*r->throttle));
		if (!r->throttle)
			return -ENOMEM;
	}
	rate_count(r->throttle, &turn, *t0 - now);
	return 0;
}

/* Carry out the operation in @s.  0, 1 when the replay stops, or -errno
 * when the engine cannot go on. */
static int run_op(struct runner *r, const struct slot *s)
{
	struct engine *e = r->eng;
	const struct rlog_op *op = &s->op;
	uint64_t t0, t1, due = 0, think = 0, blocked = 0;
	int64_t result;
	int ret;
	bool spin = true, dep_pending = false, held = false;

	/* At a speed, an operation due later than the spin before its time
	 * cannot start before then, however soon its dependencies complete:
	 * it waits for them asleep.  Hundreds of timelines whose first
	 * operations wait for other processes' would otherwise spin at once. */
	if (e->pacing != REPLAY_PACE_FAST) {
		due = e->pacing == REPLAY_PACE_THINK ?
		      think_due(r, s, &blocked) : due_ns(e, op);
		spin = due <= engine_now(e) + e->spin_ns;
		think = due;
	}
	for (int d = 0; d < op->deps.n; d++) {
		dep_pending |= !engine_done(e, op->deps.id[d]);
		if (!engine_wait_done(e, op->deps.id[d], spin))
			return 1;
	}
	held = e->pacing == REPLAY_PACE_THINK && dep_pending &&
	       engine_now(e) > think;
	if ((op->have & RL_SYNC) &&
	    !sync_due(r, s, spin, &due, blocked, &held))
		return 1;
	/* Held back by another timeline: it follows the replay now. */
	if (e->pacing == REPLAY_PACE_THINK && held)
		atomic_store_explicit(&s->tl->anchored, false,
				      memory_order_relaxed);
	if (e->pacing != REPLAY_PACE_FAST) {
		t0 = pace(r, due);
		if (engine_should_stop(e))
			return 1;
	} else {
		t0 = engine_now(e);
	}
	/* Uncapped: this one branch is all the caps cost. */
	if (e->capped && (ret = throttle(r, op, t0, &t0)))
		return ret;
	ret = exec_op(&e->x, op, &result);
	t1 = engine_now(e);
	/* A wait inside it gave up for the stop: not counted as done. */
	if (!ret && result == -EINTR && engine_should_stop(e))
		return 1;
	if (!ret)
		ret = account(r, op, result, t1 - t0);
	if (ret)
		return ret;
	if (e->pacing == REPLAY_PACE_THINK)
		think_done(e, s->tl, op, t1);
	r->end_ns = t1;
	r->last_seq = s->seq + 1;
	atomic_store_explicit(&e->ends[s->seq % WINDOW_SLOTS], t1,
			      memory_order_relaxed);
	mark_done(e, s->seq);		/* the slot may be reused from here */
	return 0;
}

/* self_feed: read ahead unless another runner does.  A failure stops the
 * replay (e->feed_error, e->failed). */
static void feed_self(struct engine *e)
{
	int ret;

	if (pthread_mutex_trylock(&e->feed_lock))
		return;
	if (!atomic_load(&e->eof) && !e->feed_error) {
		ret = feed_run(e->feed, false, e->feed_err,
			       sizeof(e->feed_err));
		if (ret < 0) {
			e->feed_error = ret;
			atomic_store(&e->failed, 1);
		}
	}
	pthread_mutex_unlock(&e->feed_lock);
}

/* Nothing queued at @head: wait for the feed, spinning a little first as
 * it is usually busy reading the next one (self_feed: reading it).  false
 * when the runner is done (end of file or a stop). */
static bool wait_for_work(struct runner *r, unsigned head)
{
	struct engine *e = r->eng;
	unsigned bell;

	for (int spin = 0; spin < SPIN_ROUNDS; spin++) {
		if (atomic_load(&r->tail) != head)
			return true;
		if (atomic_load(&e->eof))
			break;
		if (e->self_feed) {
			feed_self(e);
			if (atomic_load(&r->tail) != head)
				return true;
		}
		sched_yield();
	}
	if (e->self_feed)
		atomic_fetch_add(&e->hungry, 1);
	atomic_store(&r->sleeping, 1);
	bell = atomic_load(&r->bell);
	if (atomic_load(&r->tail) == head) {
		if (atomic_load(&e->eof) && atomic_load(&r->tail) == head)
			goto out;
		waitword_wait(&r->bell, bell, WAIT_LONG_NS);
	}
out:
	atomic_store(&r->sleeping, 0);
	if (e->self_feed)
		atomic_fetch_sub(&e->hungry, 1);
	return atomic_load(&r->tail) != head ||
	       (!atomic_load(&e->eof) && !engine_should_stop(e));
}

static void prefetch_slot(const struct slot *s)
{
	for (size_t off = 0; off < sizeof(*s); off += CACHE_LINE)
		__builtin_prefetch((const char *)s + off);
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;
	struct engine *e = r->eng;
	const unsigned queue_mask = e->queue_slots - 1;
	unsigned head = 0, tail_seen = 0;

	pthread_setname_np(pthread_self(), "ioriot-replay");	/* top -H */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);	/* wake on time */
	while (!atomic_load(&e->go))
		waitword_wait(&e->go, 0, WAIT_SLICE_NS);
	while (!engine_should_stop(e)) {
		int ret;

		/* The tail is the feed's hot line: look only when the
		 * operations seen last time are done. */
		if (tail_seen == head) {
			tail_seen = atomic_load_explicit(&r->tail,
							 memory_order_acquire);
			if (tail_seen == head) {
				if (!wait_for_work(r, head))
					break;
				continue;
			}
		}
		/* The feed wrote the next slot on another CPU: fetch it into
		 * this one's cache while this operation's syscall runs. */
		if (tail_seen - head > 1)
			prefetch_slot(&e->slots[r->queue[(head + 1) &
							 queue_mask]]);
		ret = run_op(r, &e->slots[r->queue[head & queue_mask]]);
		if (ret) {
			if (ret < 0) {
				r->error = ret;
				atomic_store(&e->failed, 1);
			}
			break;
		}
		atomic_store(&r->head, ++head);
		if (atomic_load(&r->feed_waits) &&
		    atomic_load(&r->tail) - head <= e->queue_slots / 2 &&
		    atomic_exchange(&r->feed_waits, 0)) {
			atomic_fetch_add(&r->room, 1);
			waitword_wake_all(&r->room);
		}
		/* self_feed: read ahead before the queue runs dry, and for
		 * runners that have nothing to do. */
		if (e->self_feed &&
		    (tail_seen - head < SELF_FEED_LOW(e) ||
		     atomic_load_explicit(&e->hungry, memory_order_relaxed))) {
			tail_seen = atomic_load_explicit(&r->tail,
							 memory_order_acquire);
			if (tail_seen - head < SELF_FEED_LOW(e) ||
			    atomic_load(&e->hungry))
				feed_self(e);
		}
		/* Only this thread writes it: no read-modify-write. */
		atomic_store_explicit(&r->performed,
				      atomic_load_explicit(&r->performed,
							   memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
	pthread_mutex_lock(&e->lock);
	e->running--;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

int engine_start_runner(struct engine *e, struct runner *r)
{
	pthread_attr_t attr;
	int ret;

	/* Small stacks: there may be thousands of runners, and none keeps
	 * more than a few KiB on its stack. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RUNNER_STACK);
	pthread_mutex_lock(&e->lock);
	ret = -pthread_create(&r->thread, &attr, runner_main, r);
	if (!ret) {
		r->started = true;
		e->running++;
	}
	pthread_mutex_unlock(&e->lock);
	pthread_attr_destroy(&attr);
	return ret;
}

static void *feed_main(void *arg)
{
	struct engine *e = arg;
	int ret = feed_run(e->feed, true, e->feed_err, sizeof(e->feed_err));

	if (ret < 0 && ret != -ECANCELED) {
		e->feed_error = ret;
		atomic_store(&e->failed, 1);
	}
	pthread_mutex_lock(&e->lock);
	e->running--;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Operations performed so far, over all runners (for progress). */
static uint64_t performed(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += atomic_load_explicit(&e->runners[i]->performed,
					    memory_order_relaxed);
	return sum;
}

/* Add runner @r's per-syscall counts to @to (SYS_COUNT entries). */
static void add_sys_stats(struct replay_sys_stats *to, const struct runner *r)
{
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct runner_sys *a = r->sys[s];
		struct replay_sys_stats *b = &to[s];

		if (!a)
			continue;
		b->ops += a->ops;
		b->bytes += a->bytes;
		b->differ += a->differ;
		b->short_ops += a->short_ops;
		b->short_bytes += a->short_bytes;
		if (a->lat_max > b->lat_max)
			b->lat_max = a->lat_max;
		if (a->cap_lat_max > b->cap_lat_max)
			b->cap_lat_max = a->cap_lat_max;
	}
}

/* Copy the engine's latency histograms into @to (SYS_COUNT entries), for
 * the syscalls with operations there. */
static void copy_hists(struct replay_sys_stats *to, struct engine_hists *h)
{
	for (int s = 0; s < SYS_COUNT; s++) {
		if (!to[s].ops)
			continue;
		for (int i = 0; i < REPLAY_HIST_BUCKETS; i++) {
			to[s].lat[i] = atomic_load_explicit(
				&h->lat[s][i], memory_order_relaxed);
			to[s].cap_lat[i] = atomic_load_explicit(
				&h->cap_lat[s][i], memory_order_relaxed);
		}
	}
}

/* Call the tick callback with the figures of every runner so far. */
static void tick(struct engine *e, uint64_t now)
{
	size_t n = atomic_load(&e->nrunners);

	memset(e->cum, 0, SYS_COUNT * sizeof(*e->cum));
	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		pthread_mutex_lock(&r->stats_lock);
		add_sys_stats(e->cum, r);
		pthread_mutex_unlock(&r->stats_lock);
	}
	copy_hists(e->cum, e->hists);
	e->opt->tick(e->opt->tick_ctx, now - e->start_ns, e->cum);
}

/* Wake every thread that sleeps for a due time, for work or for an
 * operation to complete: the replay stops. */
static void wake_for_stop(struct engine *e)
{
	size_t n = atomic_load(&e->nrunners);

	atomic_store(&e->stopping, 1);
	waitword_wake_all(&e->stopping);
	for (size_t i = 0; i < WINDOW_SLOTS; i++)
		if (atomic_load(&e->done[i]) & DONE_WAITERS)
			waitword_wake_all(&e->done[i]);
	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		atomic_fetch_add(&r->bell, 1);
		waitword_wake_all(&r->bell);
	}
}

/* Under e->lock: until every thread ended, report progress every 2 s,
 * tick every opt->tick_ns (due times are absolute: no drift), and look
 * for a stop every WAIT_SLICE_NS. */
static void watch(struct engine *e)
{
	const struct replay_options *opt = e->opt;
	uint64_t next_progress = e->start_ns + PROGRESS_NS;
	uint64_t next_tick = e->ticks ? e->start_ns + opt->tick_ns : UINT64_MAX;

	while (e->running) {
		uint64_t due = next_progress < next_tick ? next_progress :
							  next_tick;
		uint64_t now = engine_now(e);

		if (due > now + WAIT_SLICE_NS)
			due = now + WAIT_SLICE_NS;
		/* The condition variable waits on CLOCK_MONOTONIC, which the
		 * engine's clock may drift from: wait the time left. */
		uint64_t until = clock_ns(CLOCK_MONOTONIC) +
				 (due > now ? due - now : 0);
		struct timespec deadline = {
			.tv_sec = (time_t)(until / 1000000000ULL),
			.tv_nsec = (long)(until % 1000000000ULL),
		};

		while (e->running &&
		       pthread_cond_timedwait(&e->cond, &e->lock, &deadline) !=
		       ETIMEDOUT)
			;
		if (!e->running)
			break;
		pthread_mutex_unlock(&e->lock);
		/* Again every time: a thread that looked at the flag just
		 * before it changed may have gone to sleep since. */
		if (engine_should_stop(e))
			wake_for_stop(e);
		now = engine_now(e);
		if (now >= next_tick) {
			tick(e, now);
			while (next_tick <= now)
				next_tick += opt->tick_ns;
		}
		if (now >= next_progress) {
			if (opt->progress)
				opt->progress(opt->progress_ctx, performed(e),
					      e->total_hint,
					      atomic_load(&e->ahead));
			next_progress = now + PROGRESS_NS;
		}
		pthread_mutex_lock(&e->lock);
	}
}

/* The CPUs this process may run on. */
static size_t usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return (size_t)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/*
 * Start the runners queued so far (at opt->start_at_ns, if set) and the
 * feed for the rest of the file, report progress until every thread
 * ended, join them.  When the runners were released goes to
 * sum->started_ns (and with start_at_ns the skew and the clock's state).
 * 0 or -errno with a message in @err.
 */
static int run_threads(struct engine *e, bool feed_done,
		       struct replay_summary *sum, char *err, size_t errlen)
{
	size_t n = atomic_load(&e->nrunners);
	pthread_t feed;
	bool feed_started = false;
	int ret = 0;

	/* Parsing beside the runners would make one thread more than there
	 * are CPUs; at a speed it would delay the runners' operations. */
	e->self_feed = !feed_done && e->pacing == REPLAY_PACE_FAST &&
		       n >= usable_cpus();
	for (size_t i = 0; i < n && !ret; i++) {
		ret = engine_start_runner(e, e->runners[i]);
		if (ret)
			snprintf(err, errlen,
				 "cannot start replay thread %zu of %zu: %s%s",
				 i + 1, n, strerror(-ret), ret == -EAGAIN ?
				 " (fewer threads with -p/-t?)" : "");
	}
	if (!ret && e->opt->start)
		ret = e->opt->start(e->opt->start_ctx, err, errlen);
	if (ret)
		atomic_store(&e->failed, 1);
	if (!ret && e->opt->start_at_ns) {
		sum->started_ns = startat_wait(e->opt->start_at_ns, e->spin_ns,
					       e->opt->stop);
		sum->start_skew_ns = (int64_t)(sum->started_ns -
					       e->opt->start_at_ns);
	} else {
		sum->started_ns = clock_ns(CLOCK_REALTIME);
	}
	pthread_mutex_lock(&e->lock);
	e->start_ns = engine_now(e);
	atomic_store(&e->go, 1);
	waitword_wake_all(&e->go);
	if (!feed_done && !ret && !e->self_feed) {
		int fret = -pthread_create(&feed, NULL, feed_main, e);

		if (fret) {
			ret = fret;
			snprintf(err, errlen, "cannot start the reader thread: %s",
				 strerror(-ret));
			atomic_store(&e->failed, 1);
		} else {
			feed_started = true;
			e->running++;
		}
	}
	if (e->opt->start_at_ns)	/* once the operations run */
		startat_clock(&sum->clock);
	watch(e);
	pthread_mutex_unlock(&e->lock);
	if (feed_started)
		pthread_join(feed, NULL);
	n = atomic_load(&e->nrunners);
	for (size_t i = 0; i < n; i++) {
		struct runner *r = e->runners[i];

		if (r->started)
			pthread_join(r->thread, NULL);
		if (!ret && r->error) {
			ret = r->error;
			snprintf(err, errlen, "replay stopped: %s",
				 strerror(-ret));
		}
	}
	if (!ret && e->feed_error) {
		ret = e->feed_error;
		snprintf(err, errlen, "%s", e->feed_err);
	}
	return ret;
}

static void merge(struct replay_summary *sum, const struct runner *r)
{
	add_sys_stats(sum->sys, r);
	rate_merge(sum->throttle, r->throttle);
	if (r->late_max > sum->lateness_max_ns)
		sum->lateness_max_ns = r->late_max;
	sum->think_sleep_ns += r->think_sleep_ns;
	sum->think_cpu_ns += r->think_cpu_ns;
	sum->think_probe_ns += r->think_probe_ns;
	sum->think_runq_ns += r->think_runq_ns;
	sum->think_cut_ns += r->think_cut_ns;
}

/* Fill @sum from the runners and the feed once every thread ended. */
static void summarize(struct engine *e, struct replay_summary *sum)
{
	size_t n = atomic_load(&e->nrunners);
	uint64_t last_seq = 0;

	for (size_t i = 0; i < n; i++) {
		const struct runner *r = e->runners[i];

		merge(sum, r);
		if (r->last_seq && r->end_ns - e->start_ns > sum->duration_ns)
			sum->duration_ns = r->end_ns - e->start_ns;
		if (r->last_seq > last_seq) {
			last_seq = r->last_seq;
			sum->ahead_ns = r->last_ahead;
		}
	}
	for (int s = 0; s < SYS_COUNT; s++) {
		for (int i = 0; i < REPLAY_RESULT_SLOTS; i++)
			sum->differ_by_result[s][i] =
				atomic_load(&e->differ_by_result[s][i]);
		sum->disk_full_ops += sum->differ_by_result[s][ENOSPC] +
				      sum->differ_by_result[s][EDQUOT];
		sum->io_error_ops += sum->differ_by_result[s][EIO];
	}
	copy_hists(sum->sys, e->hists);
	for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
		sum->lateness[i] = atomic_load(&e->hists->late[i]);
	for (int s = 0; s < SYS_COUNT; s++)
		sum->ops += sum->sys[s].ops;
	sum->timelines = e->timelines;
	sum->processes = e->processes;
	sum->threads = n;
	sum->workers = e->workers ? e->workers : e->processes;
	sum->threads_per_worker = e->workers ? e->threads_per_worker :
		e->processes ? (n + e->processes - 1) / e->processes : 0;
	sum->captured_ns = e->captured_ns;
	sum->rate = e->opt->rate;
	if (e->capped)
		rate_finish(sum->throttle);
	sum->timed = e->pacing != REPLAY_PACE_FAST;
	sum->pacing = e->pacing;
	sum->speed = e->speed;
	sum->cpu_scale = e->pacing == REPLAY_PACE_THINK ? e->cpu_scale : 0;
	sum->cap_call_ns = e->cap_call_ns;
	sum->cap_gap_ns = e->cap_gap_ns;
	sum->cap_gap_cpu_ns = e->cap_gap_cpu_ns;
	replay_summary_lateness(sum);
}

/* What the replay's own thread (replay_thread()) works on. */
struct replay_job {
	struct engine *e;
	struct replay_summary *sum;
	char *err;
	size_t errlen;
	int ret;
};

/*
 * The replay proper, in a thread of its own so that only it and the
 * threads it starts are confined to the sandboxes (jail.h): set up the
 * executor, enter the jail, let the caller drop privileges, run.
 */
static void *replay_thread(void *arg)
{
	struct replay_job *job = arg;
	struct engine *e = job->e;
	const struct replay_options *opt = e->opt;
	const struct rlog_header *hdr = rlog_header(e->rlog);
	char *const *host = opt->host_roots ? opt->host_roots : hdr->sandboxes;
	char *err = job->err;
	size_t errlen = job->errlen;
	int ret;

	ret = exec_init(&e->x, opt->uid, opt->gid, err, errlen);
	e->x.stop = (struct replay_stop){ opt->stop, &e->failed };
	if (!ret && exec_learn_sandboxes(&e->x, hdr->sandboxes, host,
					 hdr->nsandboxes)) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
	}
	if (!ret)
		ret = jail_enter(hdr->sandboxes, host, hdr->nsandboxes,
				 opt->uid, err, errlen);
	/* Privileges go once the jail stands, before any operation. */
	if (!ret && opt->ready)
		ret = opt->ready(opt->ready_ctx, err, errlen);
	if (!ret && (ret = exec_open_roots(&e->x, hdr->sandboxes,
					   hdr->nsandboxes)))
		snprintf(err, errlen, "cannot open the sandboxes in the "
			 "replay's jail: %s", strerror(-ret));
	if (ret)
		goto out;
	e->differ_by_result = calloc(SYS_COUNT, sizeof(*e->differ_by_result));
	e->hists = calloc(1, sizeof(*e->hists));
	if (e->ticks)
		e->cum = calloc(SYS_COUNT, sizeof(*e->cum));
	if (!e->differ_by_result || !e->hists || (e->ticks && !e->cum)) {
		ret = -ENOMEM;
		goto out;
	}
	/* The first window is read before the clock starts. */
	ret = feed_run(e->feed, false, e->feed_err, sizeof(e->feed_err));
	if (ret < 0) {
		snprintf(err, errlen, "%s", e->feed_err);
		goto out;
	}
	ret = run_threads(e, atomic_load(&e->eof), job->sum, err, errlen);
	summarize(e, job->sum);
	job->sum->setid_stripped = atomic_load(&e->x.setid_stripped);
	job->sum->uring_flags_dropped = atomic_load(&e->x.uring_flags_dropped);
	job->sum->over_limit = atomic_load(&e->x.budget.over_limit);
	if (e->ticks)		/* the rest of the last interval */
		opt->tick(opt->tick_ctx, engine_now(e) - e->start_ns,
			  job->sum->sys);
out:
	job->ret = ret;
	return NULL;
}

uint64_t replay_memory_bytes(uint64_t timelines)
{
	uint64_t runners = timelines < REPLAY_DEFAULT_MAX_THREADS ?
			   (timelines ? timelines : 1) :
			   REPLAY_DEFAULT_MAX_THREADS;

	return (uint64_t)WINDOW_SLOTS * (sizeof(struct slot) +
					 sizeof(atomic_uint)) +
	       sizeof(struct engine_hists) + sizeof(struct replay_summary) +
	       runners * REPLAY_RUNNER_BYTES;
}

int replay_run(const struct replay_options *opt, struct replay_summary *sum,
	       char *err, size_t errlen)
{
	struct engine e = { .opt = opt, .speed = opt->speed };
	struct replay_job job = { .e = &e, .sum = sum, .err = err,
				  .errlen = errlen };
	pthread_condattr_t ca;
	pthread_t thread;
	int ret;

	memset(sum, 0, sizeof(*sum));
	if (errlen)
		err[0] = '\0';
	if (opt->workers || opt->threads) {
		e.workers = opt->workers ? opt->workers : 1;
		e.threads_per_worker = opt->threads ? opt->threads : 1;
		e.max_runners = e.workers * e.threads_per_worker;
		if (e.max_runners > REPLAY_MAX_THREADS)
			e.max_runners = REPLAY_MAX_THREADS;
	} else {
		e.max_runners = REPLAY_DEFAULT_MAX_THREADS;
	}
	if (opt->pacing == REPLAY_PACE_THINK) {
		e.pacing = REPLAY_PACE_THINK;
		if (e.speed <= 0)
			e.speed = 1;
		e.cpu_scale = opt->cpu_scale > 0 ? opt->cpu_scale : 1;
	} else {
		e.pacing = e.speed > 0 ? REPLAY_PACE_TIMED : REPLAY_PACE_FAST;
	}
	e.ticks = opt->tick && opt->tick_ns;
	e.spin_ns = opt->spin_ns ? opt->spin_ns : REPLAY_SPIN_NS;
	e.capped = replay_rate_capped(&opt->rate);
	rate_init(&e.rate, &opt->rate);
	cycleclock_init(&e.clock, CYCLECLOCK_SOURCE, CLOCK_CALIBRATION_NS);
	pthread_mutex_init(&e.lock, NULL);
	pthread_mutex_init(&e.feed_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* no clock steps */
	pthread_cond_init(&e.cond, &ca);
	pthread_condattr_destroy(&ca);
	e.rlog = opt->reader ? opt->reader :
		 rlog_open(opt->replay_path, err, errlen);
	if (!e.rlog) {
		ret = -errno;
		goto out;
	}
	e.total_hint = rlog_header(e.rlog)->ops_hint;
	ret = engine_queues_init(&e, rlog_header(e.rlog)->timelines_hint);
	if (!ret && !(e.feed = feed_open(&e, e.rlog, opt->replay_path)))
		ret = -ENOMEM;
	if (ret)
		goto out;
	/* While this is the only thread: a non-root user may mount in a
	 * user namespace of its own. */
	ret = jail_prepare(err, errlen);
	if (ret)
		goto out;
	ret = -pthread_create(&thread, NULL, replay_thread, &job);
	if (ret) {
		snprintf(err, errlen, "cannot start the replay: %s",
			 strerror(-ret));
		goto out;
	}
	pthread_join(thread, NULL);
	ret = job.ret;
out:
	if (ret == -ENOMEM && errlen && !err[0])
		snprintf(err, errlen, "%s: out of memory", opt->replay_path);
	feed_close(e.feed);
	engine_queues_free(&e);
	rlog_close(e.rlog);
	free(e.differ_by_result);
	free(e.hists);
	free(e.cum);
	exec_destroy(&e.x);
	pthread_mutex_destroy(&e.lock);
	pthread_mutex_destroy(&e.feed_lock);
	pthread_cond_destroy(&e.cond);
	return ret;
}
