/*
 * ranges: the working set of one file, the distinct bytes its reads and
 * writes touched, kept exactly as sorted disjoint ranges.  Memory grows
 * with the number of separate ranges (16 bytes each), not with the
 * requests: sequential access stays one range; only scattered small
 * requests that never meet cost a range each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* The first range that ends at or after @start (may touch it). */
static uint32_t first_touching(const struct an_ranges *r, uint64_t start)
{
	uint32_t lo = 0, hi = r->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->v[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int an_ranges_add(struct an_ranges *r, uint64_t start, uint64_t end)
{
	if (start >= end)
		return 0;
	/* Sequential access: the last range grows. */
	if (r->n && r->v[r->n - 1].end == start) {
		r->v[r->n - 1].end = end;
		return 0;
	}
	uint32_t i = first_touching(r, start), j = i;

	while (j < r->n && r->v[j].start <= end)
		j++;
	if (j > i) {			/* merge ranges i..j-1 into one */
		if (r->v[i].start < start)
			start = r->v[i].start;
		if (r->v[j - 1].end > end)
			end = r->v[j - 1].end;
		r->v[i].start = start;
		r->v[i].end = end;
		memmove(&r->v[i + 1], &r->v[j], (r->n - j) * sizeof(*r->v));
		r->n -= j - i - 1;
		return 0;
	}
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 2;
		struct an_range *v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(*r->v));
	r->v[i].start = start;
	r->v[i].end = end;
	r->n++;
	return 0;
}

uint64_t an_ranges_bytes(const struct an_ranges *r)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < r->n; i++)
		sum += r->v[i].end - r->v[i].start;
	return sum;
}

void an_ranges_free(struct an_ranges *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
