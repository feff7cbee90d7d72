/*
 * feed: the producer of the replay engine, private to src/replay: reads
 * the replay file and queues each operation on the runner of its timeline
 * through the engine's functions (engine.h, which states the contract:
 * who calls what, from which thread, under which lock).  The engine
 * calls it only through these three functions.
 */
#ifndef IORIOT_REPLAY_FEED_H
#define IORIOT_REPLAY_FEED_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/rlog.h"

struct engine;
struct feed;

/* A feed of @e reading @reader (borrowed: the caller closes it after
 * feed_close()), for messages named @path.  NULL when out of memory. */
struct feed *feed_open(struct engine *e, struct rlog_reader *reader,
		       const char *path);

/*
 * Read and queue operations.  With @wait false (before the replay
 * starts, and by runners that feed themselves) it stops at the first
 * operation that has no room yet and returns 1; with @wait true it waits
 * for room.  Returns 0 once the file's end was reached
 * (engine_feed_done() called), 1 as said, -ECANCELED when the replay
 * stopped while it waited, or -errno with a message in @err.  One thread
 * at a time (engine.h).
 */
int feed_run(struct feed *f, bool wait, char *err, size_t errlen);

/* Free @f.  Accepts NULL. */
void feed_close(struct feed *f);

#endif
