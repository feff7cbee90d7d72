/*
 * bufpool: the free data buffers of an AIO context or an io_uring ring,
 * reused by its requests, every byte counted in the replay's budget of
 * asynchronous buffers (REPLAY_ASYNC_BUF_MAX).  Private to src/replay; not
 * thread-safe: the lock of the context or ring that holds it covers it.
 */
#ifndef IORIOT_REPLAY_BUFPOOL_H
#define IORIOT_REPLAY_BUFPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "budget.h"

struct bufpool {
	atomic_uint_least64_t *bytes;	/* the budget's async_bytes */
	struct bufpool_buf {
		char *p;
		size_t cap;
	} *free;			/* the free buffers */
	size_t nfree, capfree;
};

/* An empty pool counting into @budget. */
static inline void bufpool_init(struct bufpool *bp,
				struct replay_budget *budget)
{
	*bp = (struct bufpool){ .bytes = &budget->async_bytes };
}

/*
 * A buffer of at least @len bytes aligned to @align (a power of two): a
 * free one of the pool, or a new one within the replay's bound (the free
 * ones are given back first when it would not fit); its size in *@cap.
 * NULL when out of memory, or beyond the bound: then *@over is true.
 */
char *bufpool_get(struct bufpool *bp, size_t len, size_t align, size_t *cap,
		  bool *over);

/* Give buffer @p of @cap bytes (from bufpool_get(); NULL: nothing) back to
 * the pool; freed if the pool cannot grow. */
void bufpool_put(struct bufpool *bp, char *p, size_t cap);

/* Free the pool's free buffers, and give their bytes back. */
void bufpool_drain(struct bufpool *bp);

/* Drain the pool and free its array.  Accepts an empty pool. */
void bufpool_free(struct bufpool *bp);

#endif
