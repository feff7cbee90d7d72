/*
 * reorder: holds capture events for a window and hands them on in the
 * order their syscalls began (reorder.h).  A binary min-heap on (entry time,
 * arrival); each item owns a copy of its event's paths.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/reorder.h"

struct reorder_item {
	struct cap_event ev;	/* paths point into @paths */
	uint64_t arrival;
	char paths[];		/* path, NUL, path2, NUL */
};

void reorder_init(struct reorder *r, uint64_t window_ns)
{
	memset(r, 0, sizeof(*r));
	r->window_ns = window_ns;
}

static bool before(const struct reorder_item *a, const struct reorder_item *b)
{
	return a->ev.time_ns != b->ev.time_ns ? a->ev.time_ns < b->ev.time_ns :
						 a->arrival < b->arrival;
}

static void swap(struct reorder_item **a, struct reorder_item **b)
{
	struct reorder_item *t = *a;

	*a = *b;
	*b = t;
}

int reorder_push(struct reorder *r, const struct cap_event *ev)
{
	size_t len1 = ev->path ? ev->path_len : 0;
	size_t len2 = ev->path2 ? ev->path2_len : 0;
	struct reorder_item *it, **h = r->heap;
	size_t i;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		if (!(h = realloc(r->heap, cap * sizeof(*h))))
			return -ENOMEM;
		r->heap = h;
		r->cap = cap;
	}
	if (!(it = malloc(sizeof(*it) + len1 + len2 + 2)))
		return -ENOMEM;
	it->ev = *ev;
	it->arrival = r->arrivals++;
	if (len1)
		memcpy(it->paths, ev->path, len1);
	it->paths[len1] = '\0';
	if (len2)
		memcpy(it->paths + len1 + 1, ev->path2, len2);
	it->paths[len1 + 1 + len2] = '\0';
	it->ev.path = ev->path ? it->paths : NULL;
	it->ev.path2 = ev->path2 ? it->paths + len1 + 1 : NULL;
	if (ev->time_ns > r->newest)
		r->newest = ev->time_ns;
	h[r->n] = it;
	for (i = r->n++; i > 0 && before(h[i], h[(i - 1) / 2]); i = (i - 1) / 2)
		swap(&h[i], &h[(i - 1) / 2]);
	return 0;
}

/* Remove and return the first item. */
static struct reorder_item *pop(struct reorder *r)
{
	struct reorder_item **h = r->heap, *first = h[0];
	size_t i = 0;

	h[0] = h[--r->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < r->n && before(h[l], h[m]))
			m = l;
		if (l + 1 < r->n && before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			break;
		swap(&h[i], &h[m]);
		i = m;
	}
	return first;
}

void reorder_release(struct reorder *r, uint64_t now,
		     void (*emit)(void *ctx, struct cap_event *ev), void *ctx)
{
	if (now != UINT64_MAX && now < r->window_ns)
		return;
	while (r->n && (now == UINT64_MAX ||
			r->heap[0]->ev.time_ns <= now - r->window_ns)) {
		struct reorder_item *it = pop(r);
		emit(ctx, &it->ev);
		free(it);
	}
}

void reorder_destroy(struct reorder *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->heap[i]);
	free(r->heap);
	memset(r, 0, sizeof(*r));
}
