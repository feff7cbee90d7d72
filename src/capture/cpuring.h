/*
 * cpuring: the reader's side of the per-CPU rings the probe's records
 * travel in (include/ioriot/event.h, architecture.md §4.2).  The rings'
 * memory is the caller's: the loader's mappings of the probe's maps, or a
 * test's buffers.
 */
#ifndef IORIOT_CPURING_H
#define IORIOT_CPURING_H

#include <stddef.h>
#include <stdint.h>

#include "ioriot/event.h"

/* Where the reader is in one ring. */
struct cpuring_cursor {
	uint64_t time;			/* the entry time of its next record */
	uint64_t tail, head;
	const struct ioriot_ring_rec *rec;	/* its next record */
	unsigned int ring;
};

struct cpuring {
	struct ioriot_ring_pos *pos;	/* two per CPU */
	const uint8_t *data;		/* the elements of all rings */
	unsigned int nrings;
	size_t nelems;			/* elements in @data */
	struct cpuring_cursor *cur;	/* one per ring, a heap */
};

/* @cr reading @nrings rings at @pos whose @nelems elements are at @data
 * (cpuring_layout()).  Returns 0 or -ENOMEM. */
int cpuring_init(struct cpuring *cr, struct ioriot_ring_pos *pos,
		 const void *data, unsigned int nrings, size_t nelems);

/* Free what cpuring_init() allocated (not the rings).  Accepts NULL and a
 * zeroed @cr. */
void cpuring_fini(struct cpuring *cr);

/* Elements of each of a CPU's two rings for @ring_bytes in all over @ncpu
 * CPUs: the first ring's, a power of 2; the second has one. */
unsigned int cpuring_elems(uint64_t ring_bytes, unsigned int ncpu);

/* Lay out the rings of @ncpu CPUs, @elems elements for each first ring, in
 * the zeroed @pos (2 * @ncpu entries).  The data then needs
 * @ncpu * (@elems + 1) elements. */
void cpuring_layout(struct ioriot_ring_pos *pos, unsigned int ncpu,
		    unsigned int elems);

/*
 * Hand each record written so far to @fn (@size bytes at @rec: the
 * record, without its header), the earliest entry time of all rings
 * first, and give their room back.
 * Returns the number of records, the first negative return of @fn (its
 * record is consumed; the rest wait for the next call), or -EPROTO if a
 * ring holds something that is not a record (a bug: it stays there).
 */
long cpuring_consume(struct cpuring *cr,
		     int (*fn)(void *ctx, const void *rec, size_t size),
		     void *ctx);

#endif
