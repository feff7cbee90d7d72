/*
 * bufpool: the free data buffers an AIO context or an io_uring ring reuses
 * for its requests, within the replay's bound (bufpool.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "bufpool.h"
#include "ioriot/replaylimits.h"

char *bufpool_get(struct bufpool *bp, size_t len, size_t align, size_t *cap,
		  bool *over)
{
	size_t want = (len + align - 1) / align * align;
	char *p;

	for (size_t i = 0; i < bp->nfree; i++) {
		if (bp->free[i].cap >= want &&
		    !((uintptr_t)bp->free[i].p & (align - 1))) {
			p = bp->free[i].p;
			*cap = bp->free[i].cap;
			bp->free[i] = bp->free[--bp->nfree];
			return p;
		}
	}
	*cap = want ? want : align;
	if (!budget_take(bp->bytes, *cap, REPLAY_ASYNC_BUF_MAX)) {
		bufpool_drain(bp);
		if (!budget_take(bp->bytes, *cap, REPLAY_ASYNC_BUF_MAX)) {
			*over = true;
			return NULL;
		}
	}
	p = aligned_alloc(align, *cap);
	if (!p)
		budget_give(bp->bytes, *cap);
	return p;
}

void bufpool_put(struct bufpool *bp, char *p, size_t cap)
{
	if (!p)
		return;
	if (bp->nfree == bp->capfree) {
		size_t n = bp->capfree ? 2 * bp->capfree : 16;
		struct bufpool_buf *v = realloc(bp->free, n * sizeof(*v));

		if (!v) {
			free(p);
			budget_give(bp->bytes, cap);
			return;
		}
		bp->free = v;
		bp->capfree = n;
	}
	bp->free[bp->nfree].p = p;
	bp->free[bp->nfree++].cap = cap;
}

void bufpool_drain(struct bufpool *bp)
{
	for (size_t i = 0; i < bp->nfree; i++) {
		free(bp->free[i].p);
		budget_give(bp->bytes, bp->free[i].cap);
	}
	bp->nfree = 0;
}

void bufpool_free(struct bufpool *bp)
{
	bufpool_drain(bp);
	free(bp->free);
	bp->free = NULL;
	bp->capfree = 0;
}
