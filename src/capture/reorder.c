/*
 * reorder: holds capture events for a window and hands them on in the
 * order their syscalls began, a create that made a name before the
 * failures that found it (reorder.h).  A sorted run of the events that
 * came in order and a min-heap of the others, both on (entry time,
 * arrival) with the keys in their slots; each item owns a copy of its
 * event's paths.  The held creates that succeeded are also listed by the
 * hash of their path, so that a create that failed with EEXIST finds the
 * one it may have to follow without a pass over everything held.  Items
 * are cut from chunks in arrival order and a chunk goes when its last
 * item does: items leave nearly in the order they came, and a malloc and
 * free per event took a sixth of the capture's reader at a million events
 * a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "reorder.h"
#include "ioriot/hashing.h"
#include "ioriot/syscalls.h"

/* How many slots ahead of the one released the run's items are fetched. */
#define PREFETCH_AHEAD 8
/* Chunks of items: aligned to their size, so an item finds its chunk. */
#define CHUNK_SIZE (64 * 1024)
/* Emptied chunks kept for reuse: as many as hold items, at least this
 * many; beyond, they are freed.  The reader releases a tick's events at
 * once: a fixed few spares sent most of them back to malloc, whose heap
 * shrank and was faulted in again on the next tick. */
#define SPARE_CHUNKS 8

struct reorder_chunk {
	struct reorder_chunk *next;	/* spares: a list */
	size_t used;			/* bytes of data handed out */
	size_t live;			/* items not freed */
	bool alone;			/* one item larger than CHUNK_DATA */
	_Alignas(8) char data[];
};

struct reorder_item {
	struct cap_event ev;	/* paths point into @paths */
	uint64_t arrival;
	/* A create that succeeded: its list of r->creates (NULL-ended both
	 * ways); @listed says whether it is in one. */
	struct reorder_item *cprev, *cnext;
	bool listed;
	char paths[];		/* path, NUL, path2, NUL */
};

#define CHUNK_DATA (CHUNK_SIZE - offsetof(struct reorder_chunk, data))

/* @size bytes for an item, or NULL. */
static struct reorder_item *item_alloc(struct reorder *r, size_t size)
{
	struct reorder_chunk *c = r->chunk;

	size = (size + 7) & ~(size_t)7;
	if (size > CHUNK_DATA) {
		/* Paths longer than the probe sends (a SystemTap line can
		 * hold 64 KiB): a chunk of its own. */
		size_t total = offsetof(struct reorder_chunk, data) + size;

		c = aligned_alloc(CHUNK_SIZE, (total + CHUNK_SIZE - 1) &
					      ~(size_t)(CHUNK_SIZE - 1));
		if (!c)
			return NULL;
		*c = (struct reorder_chunk){ .used = size, .live = 1,
					     .alone = true };
		/* Freed through the item: its chunk is at the item's
		 * CHUNK_SIZE-aligned address below (item_free()). */
		/* cppcheck-suppress memleak */
		return (struct reorder_item *)c->data;
	}
	if (!c || CHUNK_DATA - c->used < size) {
		/* A new chunk, unless the full one was emptied meanwhile. */
		if (!c || c->live) {
			if ((c = r->spare)) {
				r->spare = c->next;
				r->nspare--;
			} else if (!(c = aligned_alloc(CHUNK_SIZE, CHUNK_SIZE))) {
				return NULL;
			}
			r->nchunks++;
			r->chunk = c;
		}
		*c = (struct reorder_chunk){ .used = 0 };
	}
	c->live++;
	c->used += size;
	return (struct reorder_item *)(c->data + c->used - size);
}

/* Give @it back; its chunk goes with its last item, unless current. */
static void item_free(struct reorder *r, struct reorder_item *it)
{
	struct reorder_chunk *c = (struct reorder_chunk *)
		((uintptr_t)it & ~(uintptr_t)(CHUNK_SIZE - 1));

	if (--c->live || c == r->chunk)
		return;
	if (!c->alone)
		r->nchunks--;
	if (!c->alone && (r->nspare < SPARE_CHUNKS || r->nspare < r->nchunks)) {
		c->next = r->spare;
		r->spare = c;
		r->nspare++;
	} else {
		free(c);
	}
}

void reorder_init(struct reorder *r, uint64_t window_ns)
{
	memset(r, 0, sizeof(*r));
	r->window_ns = window_ns;
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

/* The key of r->creates for @ev's path (the string only: same_path()
 * tells the rest). */
static uint64_t create_key(const struct cap_event *ev)
{
	return hash_bytes(ev->path_len, ev->path, ev->path_len);
}

/* List @it, a create that succeeded, under its path.  0 or -ENOMEM. */
static int list_create(struct reorder *r, struct reorder_item *it)
{
	uint64_t key = create_key(&it->ev);
	struct reorder_item *head;
	int err;

	if (!r->creates.slots && (err = u64map_init(&r->creates)))
		return err;
	head = u64map_get(&r->creates, key);
	if ((err = u64map_put(&r->creates, key, it)))
		return err;
	it->cprev = NULL;
	it->cnext = head;
	if (head)
		head->cprev = it;
	it->listed = true;
	return 0;
}

/* Take @it out of its list of r->creates, if it is in one. */
static void unlist_create(struct reorder *r, struct reorder_item *it)
{
	if (!it->listed)
		return;
	if (it->cnext)
		it->cnext->cprev = it->cprev;
	if (it->cprev)
		it->cprev->cnext = it->cnext;
	else if (it->cnext)
		u64map_replace(&r->creates, create_key(&it->ev), it->cnext);
	else
		u64map_del(&r->creates, create_key(&it->ev));
	it->listed = false;
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
	if (!(it = item_alloc(r, sizeof(*it) + len1 + len2 + 2)))
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
	it->listed = false;
	if (creates(ev) && (ev->have & CAP_RET) && ev->ret >= 0 &&
	    list_create(r, it)) {
		item_free(r, it);
		return -ENOMEM;
	}
	slot = (struct reorder_slot){ .time_ns = ev->time_ns,
				      .arrival = it->arrival, .item = it };
	if (!in_order && late_push(r, slot)) {
		unlist_create(r, it);
		item_free(r, it);
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
	const struct reorder_item *best = NULL;
	bool best_held = false;

	if (!creates(e) || !(e->have & CAP_RET) || e->ret != -EEXIST ||
	    !r->creates.slots)
		return false;
	for (const struct reorder_item *f = u64map_get(&r->creates,
						       create_key(e));
	     f; f = f->cnext)
		if (f->ev.tid != e->tid &&
		    f->ev.time_ns < e->time_ns + e->dur_ns &&
		    same_path(&f->ev, e) &&
		    (!best || f->ev.time_ns < best->ev.time_ns ||
		     (f->ev.time_ns == best->ev.time_ns &&
		      f->arrival < best->arrival)))
			best = f;
	if (!best)
		return false;
	/* Found: where it is held, and whether an earlier event of its
	 * thread still is (rare enough for a pass over all). */
	for (int late = 0; late < 2; late++) {
		size_t from = late ? 0 : r->head, to = late ? r->late_n : r->n;

		for (size_t i = from; i < to; i++) {
			struct held at = { .late = late, .i = i };
			const struct reorder_slot *slot = held_slot(r, at);

			if (slot->item == best) {
				*found = at;
				best_held = true;
			} else if (slot->item->ev.tid == best->ev.tid &&
				 slot->time_ns < best->ev.time_ns)
				return false;
		}
	}
	return best_held;	/* listed items are held: always true */
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

			unlist_create(r, creator);
			emit(ctx, &creator->ev);
			item_free(r, creator);
		}
		unlist_create(r, it);
		emit(ctx, &it->ev);
		item_free(r, it);
	}
}

void reorder_destroy(struct reorder *r)
{
	for (size_t i = r->head; i < r->n; i++)
		item_free(r, r->run[i].item);
	for (size_t i = 0; i < r->late_n; i++)
		item_free(r, r->late[i].item);
	free(r->chunk);
	while (r->spare) {
		struct reorder_chunk *c = r->spare;

		r->spare = c->next;
		free(c);
	}
	free(r->run);
	free(r->late);
	u64map_destroy(&r->creates);
	memset(r, 0, sizeof(*r));
}
