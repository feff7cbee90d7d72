/*
 * reorder: holds capture events for a window and hands them on in the
 * order their syscalls began, a create that made a name before the
 * failures that found it (reorder.h).  A sorted run of the events that
 * came in order and a min-heap of the others, both on (entry time,
 * arrival) with the keys in their slots; each item owns a copy of its
 * event's paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "reorder.h"
#include "ioriot/syscalls.h"

/* How many slots ahead of the one released the run's items are fetched. */
#define PREFETCH_AHEAD 8

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

static bool before(const struct reorder_slot *a, const struct reorder_slot *b)
{
	return a->time_ns != b->time_ns ? a->time_ns < b->time_ns :
					  a->arrival < b->arrival;
}

static void swap(struct reorder_slot *a, struct reorder_slot *b)
{
	struct reorder_slot t = *a;

	*a = *b;
	*b = t;
}

/* Room for one more slot at the end of the run: the released slots at its
 * front are reused first.  0 or -ENOMEM. */
static int run_room(struct reorder *r)
{
	struct reorder_slot *run;
	size_t cap;

	if (r->n < r->cap)
		return 0;
	if (r->head && r->head >= r->n / 2) {
		memmove(r->run, r->run + r->head, (r->n - r->head) * sizeof(*run));
		r->n -= r->head;
		r->head = 0;
		return 0;
	}
	cap = r->cap ? 2 * r->cap : 1024;
	if (!(run = realloc(r->run, cap * sizeof(*run))))
		return -ENOMEM;
	r->run = run;
	r->cap = cap;
	return 0;
}

/* Add @slot to the late heap.  0 or -ENOMEM. */
static int late_push(struct reorder *r, struct reorder_slot slot)
{
	struct reorder_slot *h = r->late;
	size_t i;

	if (r->late_n == r->late_cap) {
		size_t cap = r->late_cap ? 2 * r->late_cap : 256;
		if (!(h = realloc(r->late, cap * sizeof(*h))))
			return -ENOMEM;
		r->late = h;
		r->late_cap = cap;
	}
	h[r->late_n] = slot;
	for (i = r->late_n++; i > 0 && before(&h[i], &h[(i - 1) / 2]); i = (i - 1) / 2)
		swap(&h[i], &h[(i - 1) / 2]);
	return 0;
}

int reorder_push(struct reorder *r, const struct cap_event *ev)
{
	size_t len1 = ev->path ? ev->path_len : 0;
	size_t len2 = ev->path2 ? ev->path2_len : 0;
	struct reorder_slot slot;
	struct reorder_item *it;
	bool in_order;

	in_order = r->head == r->n || ev->time_ns >= r->run[r->n - 1].time_ns;
	if (in_order && run_room(r))
		return -ENOMEM;
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
	slot = (struct reorder_slot){ .time_ns = ev->time_ns,
				      .arrival = it->arrival, .item = it };
	if (!in_order && late_push(r, slot)) {
		free(it);
		return -ENOMEM;
	}
	if (in_order)
		r->run[r->n++] = slot;
	if (ev->time_ns > r->newest)
		r->newest = ev->time_ns;
	return 0;
}

/* A held slot: in the run (@late false) or the late heap, at @i. */
struct held {
	bool late;
	size_t i;
};

static const struct reorder_slot *held_slot(const struct reorder *r,
					    struct held at)
{
	return at.late ? &r->late[at.i] : &r->run[at.i];
}

/* The earliest held slot; false if nothing is held. */
static bool earliest(const struct reorder *r, struct held *at)
{
	if (r->head == r->n && !r->late_n)
		return false;
	if (r->head == r->n || (r->late_n && before(&r->late[0], &r->run[r->head])))
		*at = (struct held){ .late = true, .i = 0 };
	else
		*at = (struct held){ .late = false, .i = r->head };
	return true;
}

/* Remove and return the item held at @at. */
static struct reorder_item *take(struct reorder *r, struct held at)
{
	struct reorder_slot *h = r->late;
	struct reorder_item *out = held_slot(r, at)->item;
	size_t i = at.i;

	if (!at.late) {
		if (i != r->head)
			memmove(r->run + i, r->run + i + 1,
				(--r->n - i) * sizeof(*r->run));
		else if (++r->head == r->n)
			r->head = r->n = 0;	/* empty: start again at the front */
		return out;
	}
	h[i] = h[--r->late_n];
	if (i == r->late_n)
		return out;
	for (; i > 0 && before(&h[i], &h[(i - 1) / 2]); i = (i - 1) / 2)
		swap(&h[i], &h[(i - 1) / 2]);
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < r->late_n && before(&h[l], &h[m]))
			m = l;
		if (l + 1 < r->late_n && before(&h[l + 1], &h[m]))
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
 * held.  True with it in @found.  Of two such calls the failure began
 * first but found the name the success had made: entry order would show a
 * name that existed before anything created it.
 */
static bool creator_of(const struct reorder *r, const struct cap_event *e,
		       struct held *found)
{
	const struct reorder_slot *best = NULL;

	if (!creates(e) || !(e->have & CAP_RET) || e->ret != -EEXIST)
		return false;
	for (int late = 0; late < 2; late++) {
		size_t from = late ? 0 : r->head, to = late ? r->late_n : r->n;

		for (size_t i = from; i < to; i++) {
			struct held at = { .late = late, .i = i };
			const struct reorder_slot *slot = held_slot(r, at);
			const struct cap_event *f = &slot->item->ev;

			if (f->tid != e->tid && creates(f) && (f->have & CAP_RET) &&
			    f->ret >= 0 && f->time_ns < e->time_ns + e->dur_ns &&
			    same_path(f, e) && (!best || before(slot, best))) {
				best = slot;
				*found = at;
			}
		}
	}
	if (!best)
		return false;
	for (int late = 0; late < 2; late++) {
		size_t from = late ? 0 : r->head, to = late ? r->late_n : r->n;

		for (size_t i = from; i < to; i++) {
			const struct reorder_slot *slot =
				held_slot(r, (struct held){ .late = late, .i = i });

			if (slot->item->ev.tid == best->item->ev.tid &&
			    slot->time_ns < best->time_ns)
				return false;
		}
	}
	return true;
}

void reorder_release(struct reorder *r, uint64_t now,
		     void (*emit)(void *ctx, struct cap_event *ev), void *ctx)
{
	struct held at, first;

	if (now != UINT64_MAX && now < r->window_ns)
		return;
	while (earliest(r, &at) && (now == UINT64_MAX ||
				    held_slot(r, at)->time_ns <= now - r->window_ns)) {
		struct reorder_item *it;

		/* Items were written a window ago and left the cache since:
		 * ask for those of the run a few turns ahead. */
		if (r->head + PREFETCH_AHEAD < r->n)
			__builtin_prefetch(r->run[r->head + PREFETCH_AHEAD].item);
		it = take(r, at);

		if (creator_of(r, &it->ev, &first)) {
			struct reorder_item *creator = take(r, first);

			emit(ctx, &creator->ev);
			free(creator);
		}
		emit(ctx, &it->ev);
		free(it);
	}
}

void reorder_destroy(struct reorder *r)
{
	for (size_t i = r->head; i < r->n; i++)
		free(r->run[i].item);
	for (size_t i = 0; i < r->late_n; i++)
		free(r->late[i].item);
	free(r->run);
	free(r->late);
	memset(r, 0, sizeof(*r));
}
