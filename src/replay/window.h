/*
 * window: the operations of a replay in memory, private to src/replay.
 * Operation number N of the file (its sequence number, from 0) lives in
 * slot N % WINDOW_SLOTS.  A slot is reused only once its operation has
 * completed, so at most WINDOW_SLOTS operations are in memory, and any
 * operation older than the window has completed.  The completion word of
 * a slot counts the operations completed in it (N / WINDOW_SLOTS + 1 once
 * N is), with DONE_WAITERS set while a thread sleeps on it: the engine
 * (engine.c) writes the words, the feed (feed.c) only reads them.
 */
#ifndef IORIOT_REPLAY_WINDOW_H
#define IORIOT_REPLAY_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define WINDOW_SLOTS (1u << 15)		/* operations in memory, at most */
#define DONE_WAITERS 0x80000000u

/* Whether operation @seq has completed, by the completion words @done
 * (WINDOW_SLOTS of them).  Acquire: what the operation did is seen. */
static inline bool window_done(const atomic_uint *done, uint64_t seq)
{
	unsigned v = atomic_load_explicit(&done[seq % WINDOW_SLOTS],
					  memory_order_acquire);

	return (v & ~DONE_WAITERS) > seq / WINDOW_SLOTS;
}

#endif
