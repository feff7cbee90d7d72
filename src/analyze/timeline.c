/*
 * timeline: operations, bytes and concurrency per interval of the
 * capture.  Intervals start at 1 s; when the capture outgrows
 * AN_TIMELINE_ROWS of them, neighbours merge and the interval doubles.
 *
 * Concurrency: the time each timed operation is in flight ([start,
 * start + duration)) is summed per interval (the mean is that sum over the
 * interval), and the ops in flight are counted when each starts, from a
 * min-heap of the ends of those still running, and at each interval's
 * start.  The maximum is exact when operations come in start order, as
 * capture logs are sorted but for calls longer than their 20 ms window.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

void an_timeline_init(struct an_timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
	tl->interval_ns = AN_INTERVAL_NS;
}

void an_timeline_free(struct an_timeline *tl)
{
	free(tl->ends);
	tl->ends = NULL;
}

/* Merge neighbouring rows: twice the interval, half the rows. */
static void coarsen(struct an_timeline *tl)
{
	for (size_t i = 0; i < tl->n; i += 2) {
		struct an_interval *to = &tl->rows[i / 2];
		struct an_interval a = tl->rows[i], b = { 0 };
		if (i + 1 < tl->n)
			b = tl->rows[i + 1];
		to->ops = a.ops + b.ops;
		to->read_ops = a.read_ops + b.read_ops;
		to->write_ops = a.write_ops + b.write_ops;
		to->read_bytes = a.read_bytes + b.read_bytes;
		to->write_bytes = a.write_bytes + b.write_bytes;
		to->busy_ns = a.busy_ns + b.busy_ns;
		to->carried = a.carried;
		to->max_in_flight = a.max_in_flight > b.max_in_flight ?
				    a.max_in_flight : b.max_in_flight;
	}
	size_t n = (tl->n + 1) / 2;
	memset(&tl->rows[n], 0, (AN_TIMELINE_ROWS - n) * sizeof(tl->rows[0]));
	tl->n = n;
	tl->interval_ns *= 2;
}

static void heap_pop(struct an_timeline *tl)
{
	uint64_t *h = tl->ends, last = h[--tl->nends];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= tl->nends)
			break;
		if (c + 1 < tl->nends && h[c + 1] < h[c])
			c++;
		if (h[c] >= last)
			break;
		h[i] = h[c];
		i = c;
	}
	if (tl->nends)
		h[i] = last;
}

static int heap_push(struct an_timeline *tl, uint64_t end)
{
	if (tl->nends == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 64;
		uint64_t *h = realloc(tl->ends, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		tl->ends = h;
		tl->cap = cap;
	}
	size_t i = tl->nends++;
	while (i && tl->ends[(i - 1) / 2] > end) {
		tl->ends[i] = tl->ends[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	tl->ends[i] = end;
	return 0;
}

static void raise_max(struct an_interval *r, uint64_t n)
{
	if (n > r->max_in_flight)
		r->max_in_flight = n;
}

int an_timeline_add(struct an_timeline *tl, uint64_t t, uint64_t dur,
		    enum sys_class cls, uint64_t bytes)
{
	uint64_t end = t + dur, last = dur ? end - 1 : t;

	while (last / tl->interval_ns >= AN_TIMELINE_ROWS)
		coarsen(tl);
	size_t first = (size_t)(t / tl->interval_ns);
	size_t stop = (size_t)(last / tl->interval_ns);
	struct an_interval *r = &tl->rows[first];

	if (stop + 1 > tl->n)
		tl->n = stop + 1;
	r->ops++;
	if (cls == CLS_READ) {
		r->read_ops++;
		r->read_bytes += bytes;
	} else if (cls == CLS_WRITE) {
		r->write_ops++;
		r->write_bytes += bytes;
	}
	if (!dur)
		return 0;
	while (tl->nends && tl->ends[0] <= t)
		heap_pop(tl);
	if (heap_push(tl, end))
		return -ENOMEM;
	raise_max(r, tl->nends);
	for (size_t k = first; k <= stop; k++) {
		uint64_t from = k == first ? t : k * tl->interval_ns;
		uint64_t to = (k + 1) * tl->interval_ns;
		tl->rows[k].busy_ns += (end < to ? end : to) - from;
		if (k > first)	/* in flight at the interval's start */
			raise_max(&tl->rows[k], ++tl->rows[k].carried);
	}
	return 0;
}
