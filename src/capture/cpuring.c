/*
 * cpuring: reads the per-CPU rings the probe writes (cpuring.h).  The
 * probe publishes a record by storing its ring's head after the record;
 * the reader loads the heads with acquire order, reads up to them, the
 * earliest record of all rings first, and stores each tail with release
 * order, which gives the room back.
 */
#include <errno.h>
#include <stdlib.h>

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

/* Move @c to its ring's next record: 1 if there is one (its time in
 * @c->time), 0 if none, -EPROTO if what is there is not a record. */
static int next_record(const struct cpuring *cr, struct cpuring_cursor *c)
{
	const struct ioriot_ring_pos *pos = &cr->pos[c->ring];
	const struct ioriot_ring_rec *hdr;

	if (c->tail < c->head && (c->tail & ELEM_MASK) > IORIOT_RING_REC_LAST)
		c->tail += IORIOT_RING_ELEM - (c->tail & ELEM_MASK);
	if (c->tail >= c->head)
		return 0;
	hdr = (const struct ioriot_ring_rec *)at(cr, pos, c->tail);
	if (!hdr || hdr->len < sizeof(*hdr) + sizeof(struct ioriot_event) ||
	    hdr->len > IORIOT_RING_REC_MAX || (hdr->len & 7) ||
	    hdr->len > c->head - c->tail)
		return -EPROTO;
	c->rec = hdr;
	c->time = ((const struct ioriot_event *)(hdr + 1))->time_ns;
	return 1;
}

/* Restore the min-heap on time of @h[0..n) below @i. */
static void sift_down(struct cpuring_cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cpuring_cursor t;

		if (l < n && h[l].time < h[m].time)
			m = l;
		if (l + 1 < n && h[l + 1].time < h[m].time)
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

int cpuring_init(struct cpuring *cr, struct ioriot_ring_pos *pos,
		 const void *data, unsigned int nrings, size_t nelems)
{
	*cr = (struct cpuring){ .pos = pos, .data = data, .nrings = nrings,
				.nelems = nelems };
	cr->cur = calloc(nrings ? nrings : 1, sizeof(*cr->cur));
	return cr->cur ? 0 : -ENOMEM;
}

void cpuring_fini(struct cpuring *cr)
{
	if (cr) {
		free(cr->cur);
		cr->cur = NULL;
	}
}

long cpuring_consume(struct cpuring *cr,
		     int (*fn)(void *ctx, const void *rec, size_t size),
		     void *ctx)
{
	struct cpuring_cursor *h = cr->cur;
	size_t n = 0;
	long count = 0;
	int rc = 0;

	for (unsigned int r = 0; r < cr->nrings && !rc; r++) {
		struct cpuring_cursor *c = &h[n];

		c->ring = r;
		c->head = __atomic_load_n(&cr->pos[r].head, __ATOMIC_ACQUIRE);
		c->tail = cr->pos[r].tail;
		rc = next_record(cr, c);
		if (rc == 1) {
			rc = 0;
			n++;
		}
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
	/* The earliest record of all rings first: each ring is nearly in
	 * order, so the events come nearly in order (reorder.h). */
	while (n && !rc) {
		struct cpuring_cursor *c = &h[0];
		const struct ioriot_ring_rec *hdr = c->rec;

		c->tail += hdr->len;
		count++;
		rc = fn(ctx, hdr + 1, hdr->len - sizeof(*hdr));
		if (rc >= 0)
			rc = next_record(cr, c);
		if (rc == 1) {
			rc = 0;
			sift_down(h, n, 0);
			continue;
		}
		__atomic_store_n(&cr->pos[c->ring].tail, c->tail,
				 __ATOMIC_RELEASE);
		h[0] = h[--n];
		sift_down(h, n, 0);
	}
	while (n--)
		__atomic_store_n(&cr->pos[h[n].ring].tail, h[n].tail,
				 __ATOMIC_RELEASE);
	return rc < 0 ? rc : count;
}
