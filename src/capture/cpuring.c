/*
 * cpuring: reads the per-CPU rings the probe writes (cpuring.h).  The
 * probe publishes a record by storing its ring's head after the record;
 * the reader loads the head with acquire order, reads up to it, and stores
 * the tail with release order, which gives the room back.
 */
#include <errno.h>

#include "cpuring.h"

#define ELEM_MASK ((uint64_t)IORIOT_RING_ELEM - 1)
#define RINGS_MIN_ELEMS 4	/* 4 MiB: a reader stalled for tens of ms */

unsigned int cpuring_elems(uint64_t ring_bytes, unsigned int ncpu)
{
	uint64_t per_cpu = ring_bytes / (ncpu ? ncpu : 1);
	unsigned int elems = RINGS_MIN_ELEMS;

	while ((uint64_t)elems * 2 * IORIOT_RING_ELEM <= per_cpu &&
	       elems < (1u << 16))
		elems *= 2;
	return elems;
}

void cpuring_layout(struct ioriot_ring_pos *pos, unsigned int ncpu,
		    unsigned int elems)
{
	for (unsigned int c = 0; c < ncpu; c++) {
		struct ioriot_ring_pos *first = &pos[2 * c], *second = first + 1;

		first->base = c * (elems + 1);
		first->elems = elems;
		first->size = (uint64_t)elems * IORIOT_RING_ELEM;
		second->base = first->base + elems;
		second->elems = 1;
		second->size = IORIOT_RING_ELEM;
	}
}

/* Where position @p of ring @pos is, or NULL if outside @cr's data. */
static const uint8_t *at(const struct cpuring *cr,
			 const struct ioriot_ring_pos *pos, uint64_t p)
{
	uint64_t elem = pos->base + ((p / IORIOT_RING_ELEM) & (pos->elems - 1));

	if (!pos->elems || (pos->elems & (pos->elems - 1)) ||
	    elem >= cr->nelems)
		return NULL;
	return cr->data + elem * IORIOT_RING_ELEM + (p & ELEM_MASK);
}

/* The records of one ring: as cpuring_consume(), adding to *@n. */
static int consume_ring(struct cpuring *cr, struct ioriot_ring_pos *pos,
			int (*fn)(void *ctx, const void *rec, size_t size),
			void *ctx, long *n)
{
	uint64_t head = __atomic_load_n(&pos->head, __ATOMIC_ACQUIRE);
	uint64_t tail = pos->tail;
	int rc = 0;

	while (tail < head) {
		const struct ioriot_ring_rec *hdr;

		if ((tail & ELEM_MASK) > IORIOT_RING_REC_LAST) {
			tail += IORIOT_RING_ELEM - (tail & ELEM_MASK);
			continue;
		}
		hdr = (const struct ioriot_ring_rec *)at(cr, pos, tail);
		if (!hdr || hdr->len < sizeof(*hdr) + sizeof(struct ioriot_event) ||
		    hdr->len > IORIOT_RING_REC_MAX || (hdr->len & 7) ||
		    hdr->len > head - tail) {
			rc = -EPROTO;
			break;
		}
		tail += hdr->len;
		++*n;
		rc = fn(ctx, hdr + 1, hdr->len - sizeof(*hdr));
		if (rc < 0)
			break;
		rc = 0;
	}
	__atomic_store_n(&pos->tail, tail, __ATOMIC_RELEASE);
	return rc;
}

long cpuring_consume(struct cpuring *cr,
		     int (*fn)(void *ctx, const void *rec, size_t size),
		     void *ctx)
{
	long n = 0;
	int rc;

	for (unsigned int r = 0; r < cr->nrings; r++)
		if ((rc = consume_ring(cr, &cr->pos[r], fn, ctx, &n)) < 0)
			return rc;
	return n;
}
