/*
 * The replay engine's own state, private to engine.c (the runners, the
 * consumer side) and queue.c (the producer side the feed calls through
 * engine.h): the window of operations read ahead (window.h), the replay
 * threads ("runners") that carry them out, and the completion words
 * both wait on.  The feed never includes this header.
 *
 * Each runner has a queue of the slots it must carry out, in file order;
 * the feed appends (engine_queue_op()), the runner consumes.  Queues
 * share the window: with the header's timelines= (a hint) they hold
 * WINDOW_SLOTS / (2 * timelines) slots each, between QUEUE_MIN and
 * QUEUE_MAX, so that a reader thread woken from sleep has milliseconds
 * before a runner of few timelines runs dry.  A timeline always maps to
 * one runner, so its operations stay in order.  Deadlock cannot happen:
 * the oldest unfinished operation has completed dependencies (they are
 * older) and is at the head of its runner's queue (older ones there
 * completed), so it can always run, whichever bound the feed is waiting
 * on.  No operation waits in the kernel for another one without a bound:
 * a blocking lock call gives up (src/replay/locks.c).
 *
 * The feed is a thread of its own, or, at -s 0 with at least as many
 * runners as CPUs, the runners themselves (self_feed): a runner reads
 * ahead when its queue runs low, when it has nothing to do, and when
 * another runner sleeps for lack of work, until the next operation finds
 * no room.  Nothing stalls that way: whatever keeps the next operation
 * from being queued (a full queue, or a slot whose operation has not
 * completed) belongs to a runner that has work, and a runner that has
 * work reads ahead for the sleeping ones after each operation.
 */
#ifndef IORIOT_REPLAY_ENGINESTATE_H
#define IORIOT_REPLAY_ENGINESTATE_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ioriot/cycleclock.h"
#include "engine.h"
#include "exec.h"
#include "rate.h"
#include "ioriot/replay.h"
#include "ioriot/rlog.h"
#include "ioriot/u64map.h"
#include "window.h"

struct feed;

#define QUEUE_MIN (1u << 10)		/* slots per runner queue */
#define QUEUE_MAX (1u << 13)
#define FEED_BATCH 256u			/* slots freed per wake-up of the feed */
#define CACHE_LINE 64			/* fields of one writer share none */
#define WAIT_SLICE_NS (100 * 1000 * 1000ULL)	/* notice a stop this often */
/* Runners waiting for a due time or for work sleep this long at most: the
 * watcher notices a stop every WAIT_SLICE_NS and wakes them (engine.c).
 * Waking them every slice instead would wake every idle runner of a file
 * with hundreds of timelines ten times a second, all at once, as they
 * started together, and the ones that are due would wait behind them. */
#define WAIT_LONG_NS (10 * 1000000000ULL)

/*
 * A timeline: the runner its operations go to, and its pacing state.
 * The feed writes the first group, its runner the second; a child
 * timeline's runner reads @drift of its parent (--think).
 */
struct timeline {
	struct runner *runner;
	struct timeline *parent;	/* parent=, or NULL */
	uint64_t cap_end;		/* captured end of its last queued op */
	bool queued;			/* it has an operation queued */
	uint64_t end_ns;		/* engine clock: its last op's end */
	bool ran;			/* an operation of it completed */
	/* Its last operation's end on the engine's clock less that end's
	 * captured time divided by the speed (ns since the start): how far
	 * the replay of this timeline runs behind (> 0) the capture. */
	atomic_llong drift;
	/* --think: its operations have followed its captured times only
	 * (its first at its captured time, its parent's too, and none held
	 * back by another timeline since): a thread on a timer, or one that
	 * waits for what the capture does not show. */
	atomic_bool anchored;
};

struct slot {
	/* deps.id[] holds the sequence numbers of the dependencies that had
	 * not completed when the operation was read. */
	struct rlog_op op;
	uint64_t seq;
	struct timeline *tl;
	struct timeline *sync_tl;	/* sync='s operation's timeline */
	uint64_t gap_ns;		/* captured gap before it, 0 if first */
	char *strings;			/* path, path2, target */
	size_t strings_cap;
};
/* No power of two: slots 512 bytes apart fall into the same few cache
 * sets (a --think replay of 30,000 operations ran 15% slower at 512 than
 * at 504 or 520 bytes).  Pad the struct if a change lands on one. */
_Static_assert((sizeof(struct slot) & (sizeof(struct slot) - 1)) != 0,
	       "struct slot's size is no power of two");

/* A runner's own counts of a syscall: its durations go into the engine's
 * histograms (struct engine_hists). */
struct runner_sys {
	uint64_t ops, bytes, differ, short_ops, short_bytes;
	uint64_t lat_max, cap_lat_max;
};

/*
 * The histograms every runner counts into, with relaxed atomic adds: one
 * copy per replay, whatever the number of runners (a runner's own would
 * be 30 KiB per syscall it makes).  Per syscall the replayed and the
 * captured durations; the start lateness of paced operations.
 */
struct engine_hists {
	atomic_uint_fast64_t lat[SYS_COUNT][REPLAY_HIST_BUCKETS];
	atomic_uint_fast64_t cap_lat[SYS_COUNT][REPLAY_HIST_BUCKETS];
	atomic_uint_fast64_t late[REPLAY_HIST_BUCKETS];
};

struct runner {
	/* Written by the feed for every operation it queues. */
	_Alignas(CACHE_LINE) atomic_uint tail;	/* appended */
	atomic_uint bell;		/* rung by the feed to wake the runner */
	unsigned head_seen;		/* the feed's last look at head */
	/* Written by the runner for every operation it completes. */
	_Alignas(CACHE_LINE) atomic_uint head;	/* consumed */
	atomic_uint room;		/* bumped when half the queue is free */
	atomic_uint_fast64_t performed;	/* for progress */
	/* Written rarely, read for every operation by the other side. */
	_Alignas(CACHE_LINE) atomic_uint sleeping;	/* runner sleeps on bell */
	atomic_uint feed_waits;		/* the feed sleeps on room */
	_Alignas(CACHE_LINE) struct engine *eng;
	pthread_t thread;
	bool started;
	uint32_t *queue;		/* e->queue_slots slot numbers */
	/* Written by the runner only; read by others after it ended, or
	 * under stats_lock while it runs when the engine ticks. */
	pthread_mutex_t stats_lock;
	struct runner_sys *sys[SYS_COUNT];	/* on first use */
	uint64_t late_max;
	/* REPLAY_RATE_CLASSES, on first use (capped replays only). */
	struct replay_throttle_stats *throttle;
	int64_t last_ahead;		/* lead of its latest operation */
	uint64_t last_seq;		/* its latest operation + 1, 0: none */
	uint64_t think_sleep_ns, think_cpu_ns;	/* --think: what it kept */
	uint64_t think_probe_ns;	/* and the probe's part it left out */
	uint64_t think_runq_ns;		/* and the capture's waits for a CPU */
	uint64_t think_cut_ns;		/* and a daemon's sleeps cut short
					 * (follow_work()) */
	uint64_t end_ns;		/* when it ended */
	int error;			/* -errno that stopped it */
};

struct engine {
	/* Read by every runner for every operation; written before they
	 * start (or rarely): no line here is shared with a busy writer. */
	_Alignas(CACHE_LINE) const struct replay_options *opt;
	struct slot *slots;		/* WINDOW_SLOTS */
	atomic_uint *done;		/* WINDOW_SLOTS */
	/* WINDOW_SLOTS: each operation's end on the engine's clock, stored
	 * before it is marked done (--think's sync=). */
	atomic_ullong *ends;
	double speed;
	enum replay_pacing pacing;
	double cpu_scale;		/* --think: divides on-CPU gaps */
	uint64_t spin_ns;		/* spun before a due time */
	unsigned queue_slots;		/* per runner, a power of two */
	bool ticks;			/* runners lock their stats */
	bool capped;			/* data operations wait for rate */
	struct cycleclock clock;	/* the engine's only clock */
	uint64_t start_ns;		/* set before go */
	atomic_ullong (*differ_by_result)[REPLAY_RESULT_SLOTS];
	struct engine_hists *hists;
	struct exec_ctx x;
	struct replay_sys_stats *cum;	/* SYS_COUNT: sums for ticks */

	/* Runners: the array never moves; nrunners grows (queue.c, as
	 * the feed meets timelines). */
	struct runner **runners;
	size_t max_runners;
	size_t workers, threads_per_worker;	/* 0: a runner per timeline */
	/* No reader thread: the runners read ahead themselves, one at a
	 * time under feed_lock (-s 0 with as many runners as CPUs). */
	bool self_feed;

	/* Written rarely, read often. */
	_Alignas(CACHE_LINE) atomic_size_t nrunners;
	atomic_uint go;			/* runners may start */
	atomic_uint eof;		/* the feed queued everything */
	atomic_int failed;		/* something fatal: everyone stops */
	atomic_uint hungry;		/* self_feed: runners asleep for work */
	atomic_uint stopping;		/* the watcher saw a stop: 1, woken */

	/* Written by every runner for every paced operation. */
	_Alignas(CACHE_LINE) atomic_llong ahead;	/* the latest op's lead */

	/* --think: where the replay as a whole is, the parent of the
	 * threads that were there before the capture: its drift is that of
	 * the last operation of a timeline no longer anchored (one that
	 * follows the others), or of any timeline until one is held
	 * (@lead_held). */
	_Alignas(CACHE_LINE) struct timeline lead;
	atomic_bool lead_held;

	/* Claimed by every runner for every capped operation (its gates
	 * have cache lines of their own). */
	struct rate_limiter rate;

	/* The producer's state (queue.c), written by the one thread that
	 * feeds (engine.h) for every operation. */
	_Alignas(CACHE_LINE) struct rlog_reader *rlog;	/* the file's */
	struct feed *feed;
	uint64_t free_below;		/* all operations before completed */
	struct u64map timeline_of;	/* pid << 32 | tid -> timeline */
	struct u64map worker_of;	/* pid -> worker + 1 (1 without -p/-t) */
	struct u64map group_of;		/* worker thread -> runner + 1 (-p/-t) */
	uint64_t *worker_timelines;	/* per worker: timelines so far */
	size_t next_shared;		/* round robin once threads run out */
	uint64_t timelines, processes;
	uint64_t captured_ns;		/* latest end of a captured op */
	uint64_t cap_call_ns, cap_gap_ns, cap_gap_cpu_ns;	/* summary */
	uint64_t total_hint;		/* the header's ops=, for progress */
	char feed_err[512];		/* why the feed stopped */
	int feed_error;			/* -errno */

	pthread_mutex_t feed_lock;	/* self_feed: who reads ahead */

	/* The calling thread waits here for the threads to end. */
	_Alignas(CACHE_LINE) pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t running;			/* under lock: feed + runners */
};

/* True once the replay must stop: a signal or a fatal error. */
static inline bool engine_should_stop(struct engine *e)
{
	/* The flag is a signal handler's: read atomically, as runners read
	 * it while the handler may run on another thread. */
	return (e->opt->stop && __atomic_load_n(e->opt->stop, __ATOMIC_RELAXED)) ||
	       atomic_load(&e->failed);
}

/* Whether operation @seq has completed. */
static inline bool engine_done(struct engine *e, uint64_t seq)
{
	return window_done(e->done, seq);
}

/* Now, on the engine's clock (ns; cycleclock.h): every time the engine
 * compares comes from it. */
static inline uint64_t engine_now(const struct engine *e)
{
	return cycleclock_ns(&e->clock);
}

/* Wait until operation @seq has completed, yielding the CPU a few times
 * before sleeping if @spin_first: true, or false when the replay stops
 * first (engine.c). */
bool engine_wait_done(struct engine *e, uint64_t seq, bool spin_first);

/*
 * Start the thread of runner @r (when the replay is already going).
 * Returns 0 or -errno (pthread_create's, e.g. -EAGAIN at RLIMIT_NPROC).
 */
int engine_start_runner(struct engine *e, struct runner *r);

/*
 * Allocate the window, the runners' array and the maps of timelines for a
 * file of @timelines (its header's hint, 0: unknown).  0 or -ENOMEM
 * (queue.c); engine_queues_free() frees them either way.
 */
int engine_queues_init(struct engine *e, uint64_t timelines);

/* Free the runners, the window and the maps.  Accepts a zeroed @e. */
void engine_queues_free(struct engine *e);

#endif
