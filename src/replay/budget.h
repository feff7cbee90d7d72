/*
 * budget: the replay's counts of bounded resources (ioriot/replaylimits.h),
 * private to src/replay: one per replay, shared by its threads, taken
 * before an allocation or a kernel resource and given back after, and the
 * count of operations answered with an error instead because a bound was
 * reached (the summary's over_limit).
 */
#ifndef IORIOT_REPLAY_BUDGET_H
#define IORIOT_REPLAY_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct replay_budget {
	atomic_uint_least64_t requests;		/* AIO and io_uring requests */
	atomic_uint_least64_t async_bytes;	/* their buffers, registered
						 * io_uring buffers */
	atomic_uint_least64_t ring_entries;	/* of io_uring rings set up */
	atomic_uint_least64_t entries;		/* uring_file, uring_buf lines
						 * queued */
	atomic_uint_least64_t map_private;	/* private writable mappings */
	atomic_uint_least64_t read_bufs;	/* read buffers beyond READ_BUF */
	atomic_uint_least64_t over_limit;	/* operations refused */
};

/* Take @n of the resource counted by @used, at most @max in all: true, or
 * false (nothing taken). */
static inline bool budget_take(atomic_uint_least64_t *used, uint64_t n,
			       uint64_t max)
{
	uint64_t cur = atomic_load_explicit(used, memory_order_relaxed);

	do {
		if (n > max || cur > max - n)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(used, &cur, cur + n,
							memory_order_relaxed,
							memory_order_relaxed));
	return true;
}

/* Give back @n taken from @used. */
static inline void budget_give(atomic_uint_least64_t *used, uint64_t n)
{
	atomic_fetch_sub_explicit(used, n, memory_order_relaxed);
}

/* Count an operation answered with an error because a bound was reached. */
static inline void budget_refused(struct replay_budget *b)
{
	atomic_fetch_add_explicit(&b->over_limit, 1, memory_order_relaxed);
}

#endif
