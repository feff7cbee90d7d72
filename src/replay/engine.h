/*
 * engine: what the feed (feed.c) may call, private to src/replay.  The
 * feed is the producer: it reads operations from the replay file and
 * pushes each into the queue of the replay thread ("runner") of its
 * timeline; the engine (engine.c, queue.c) owns the window (window.h),
 * the runners and their queues, and consumes them.
 *
 * The contract:
 *  - The feed calls only the functions below, in this order per
 *    operation: engine_timeline_for(), engine_room(), then, with its
 *    dependencies resolved to the sequence numbers of those that have not
 *    completed (window_done() on engine_done_words()), engine_queue_op();
 *    at the end of the file engine_feed_done().  It numbers the
 *    operations itself, from 0, one after the other.
 *  - The engine calls the feed only through feed_run() (feed.h), and
 *    feed_open() and feed_close() around the replay.
 *  - One thread feeds at a time: the engine's reader thread, or before the
 *    clock starts the replay's own thread, or at -s 0 with as many runners
 *    as CPUs the runners themselves, one at a time under the engine's
 *    feed_lock (pthread_mutex_trylock).  So the feed's state and the
 *    engine's producer state (timeline maps, tails, free_below) have one
 *    writer at a time: the lock orders one runner's feeding before the
 *    next one's, and pthread_create() orders the replay thread's first
 *    window before the reader thread and the runners.
 *  - A queued operation is published by a sequentially consistent store
 *    of its queue's tail, after the slot was written; the runner reads the
 *    tail with acquire.  A runner going to sleep stores its sleeping flag
 *    (sequentially consistent) before it looks at the tail once more, and
 *    engine_queue_op() looks at the flag after its store of the tail: one
 *    of the two sees the other, so no wake-up is lost.
 *  - A completion is the runner's atomic exchange of the slot's completion
 *    word (sequentially consistent, so a release; engine.c), read by
 *    window_done() with acquire: a slot is rewritten only after its
 *    operation's runner is done with it.
 */
#ifndef IORIOT_REPLAY_ENGINE_H
#define IORIOT_REPLAY_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/rlog.h"
#include "window.h"

struct engine;
struct timeline;

/*
 * Timeline @pid:@tid, to which the engine assigns a runner on first
 * sight: without -p/-t a runner of its own while the thread limit allows,
 * with them by worker and thread in turn; a new runner is started at once
 * once the replay is going.  NULL with a message in @err and errno set:
 * ENOMEM, E2BIG for a timeline beyond REPLAY_TIMELINES_MAX
 * (ioriot/replaylimits.h), or the error of a replay thread that cannot
 * start at all.
 */
struct timeline *engine_timeline_for(struct engine *e, uint32_t pid,
				     uint32_t tid, char *err, size_t errlen);

/*
 * Whether operation @seq (the next one) has room: its slot is free (the
 * operation WINDOW_SLOTS before it completed) and the queue of timeline
 * @tl's runner is not full.  With @wait false returns 1 at once when it has none; with
 * @wait true it waits, for a batch of slots or half a queue at a time.
 * Returns 0 when there is room, 1 as said, -ECANCELED when the replay
 * stops while waiting.
 */
int engine_room(struct engine *e, struct timeline *tl, uint64_t seq,
		bool wait);

/*
 * Queue operation @seq, @op (its strings copied into the slot), of
 * timeline @tl, which engine_room() said has room; it waits for @deps
 * (sequence numbers, not ids) before it runs.  Wakes the timeline's
 * runner if it sleeps.  0 or -ENOMEM (with parent=, the parent's
 * timeline could not be made).
 */
int engine_queue_op(struct engine *e, struct timeline *tl, uint64_t seq,
		    const struct rlog_op *op, const struct deps *deps);

/* Every operation is queued: runners end once their queues are empty. */
void engine_feed_done(struct engine *e);

/* The window's completion words (window.h), for window_done(). */
const atomic_uint *engine_done_words(const struct engine *e);

#endif
