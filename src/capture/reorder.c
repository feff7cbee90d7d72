/*
 * reorder: holds capture events for a window and hands them on in the
 * order their syscalls began, a create that made a name before the
 * failures that found it (reorder.h).  A binary min-heap on (entry time,
 * arrival); each item owns a copy of its event's paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ioriot/reorder.h"
#include "ioriot/syscalls.h"

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

/* Remove and return item @i, restoring the heap. */
static struct reorder_item *take(struct reorder *r, size_t i)
{
	struct reorder_item **h = r->heap, *out = h[i];

	h[i] = h[--r->n];
	if (i == r->n)
		return out;
	for (; i > 0 && before(h[i], h[(i - 1) / 2]); i = (i - 1) / 2)
		swap(&h[i], &h[(i - 1) / 2]);
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
	return out;
}

/* Whether @ev makes a new name at its path: mkdir, mknod, or an open
 * with O_CREAT. */
static bool creates(const struct cap_event *ev)
{
	enum sys_kind k = sys_info(ev->sys)->kind;

	return ev->path && (k == SK_MKDIR || k == SK_MKNOD ||
			    (k == SK_OPEN && (ev->have & CAP_FLAGS) &&
			     (ev->flags & O_CREAT)));
}

/* Whether @a and @b name their path alike: the same string, absolute, or
 * from the same dirfd (the cwd: of the same process). */
static bool same_path(const struct cap_event *a, const struct cap_event *b)
{
	int64_t da = a->have & CAP_FD ? a->fd : AT_FDCWD;
	int64_t db = b->have & CAP_FD ? b->fd : AT_FDCWD;

	if (a->path_len != b->path_len || memcmp(a->path, b->path, a->path_len))
		return false;
	return a->path[0] == '/' ||
	       (da == db && (da != AT_FDCWD || a->pid == b->pid));
}

/*
 * For @e, a create that failed with EEXIST: the held create of the same
 * path by another thread that succeeded and began before @e returned, the
 * earliest if several, unless an earlier event of that thread is still
 * held.  Its index, or -1.  Of two such calls the failure began first but
 * found the name the success had made: entry order would show a name that
 * existed before anything created it.
 */
static ssize_t creator_of(const struct reorder *r, const struct cap_event *e)
{
	ssize_t found = -1;

	if (!creates(e) || !(e->have & CAP_RET) || e->ret != -EEXIST)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		const struct cap_event *f = &r->heap[i]->ev;

		if (f->tid != e->tid && creates(f) && (f->have & CAP_RET) &&
		    f->ret >= 0 && f->time_ns < e->time_ns + e->dur_ns &&
		    same_path(f, e) &&
		    (found < 0 || f->time_ns < r->heap[found]->ev.time_ns))
			found = (ssize_t)i;
	}
	for (size_t i = 0; found >= 0 && i < r->n; i++) {
		const struct cap_event *g = &r->heap[i]->ev;

		if (g->tid == r->heap[found]->ev.tid &&
		    g->time_ns < r->heap[found]->ev.time_ns)
			return -1;
	}
	return found;
}

void reorder_release(struct reorder *r, uint64_t now,
		     void (*emit)(void *ctx, struct cap_event *ev), void *ctx)
{
	if (now != UINT64_MAX && now < r->window_ns)
		return;
	while (r->n && (now == UINT64_MAX ||
			r->heap[0]->ev.time_ns <= now - r->window_ns)) {
		struct reorder_item *it = take(r, 0);
		ssize_t c = creator_of(r, &it->ev);

		if (c >= 0) {
			struct reorder_item *first = take(r, (size_t)c);

			emit(ctx, &first->ev);
			free(first);
		}
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
