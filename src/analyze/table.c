/*
 * table: the analysis' rows of files, directories (by name) and of
 * processes, threads (by id), capped at a number of rows: whatever comes
 * past the cap is summed into one "other" row, counted, never dropped.
 * Also the top lists, sorted out of the rows at the end.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ioriot/hashing.h"

#define FIRST_SLOTS 1024

int an_table_init(struct an_table *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->max = max;
	t->other.last_end = -1;
	t->slots = calloc(FIRST_SLOTS, sizeof(*t->slots));
	if (!t->slots || u64map_init(&t->ids)) {
		free(t->slots);
		t->slots = NULL;
		return -ENOMEM;
	}
	t->mask = FIRST_SLOTS - 1;
	return 0;
}

void an_table_free(struct an_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		an_ranges_free(&t->rows[i].ws);
	an_ranges_free(&t->other.ws);
	free(t->rows);
	free(t->names);
	free(t->slots);
	u64map_destroy(&t->ids);
	memset(t, 0, sizeof(*t));
}

struct an_row *an_row(const struct an_table *t, uint32_t i)
{
	return i == AN_OTHER ? (struct an_row *)&t->other : &t->rows[i];
}

const char *an_row_name(const struct an_table *t, const struct an_row *r)
{
	return r == &t->other ? NULL : t->names + r->name;
}

/* Store @name (@len bytes) and NUL; its offset, or -1 on ENOMEM. */
static int64_t add_name(struct an_table *t, const char *name, size_t len)
{
	if (t->names_len + len + 1 > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap : 4096;
		while (cap < t->names_len + len + 1)
			cap *= 2;
		char *n = realloc(t->names, cap);
		if (!n)
			return -1;
		t->names = n;
		t->names_cap = cap;
	}
	int64_t off = (int64_t)t->names_len;
	memcpy(t->names + off, name, len);
	t->names[off + (int64_t)len] = '\0';
	t->names_len += len + 1;
	return off;
}

/* A new row named @name; AN_OTHER past the cap, AN_NONE on ENOMEM. */
static uint32_t new_row(struct an_table *t, const char *name, size_t len)
{
	if (t->n >= t->max)
		return AN_OTHER;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct an_row *r = realloc(t->rows, cap * sizeof(*r));
		if (!r)
			return AN_NONE;
		t->rows = r;
		t->cap = cap;
	}
	int64_t off = add_name(t, name, len);
	if (off < 0)
		return AN_NONE;
	struct an_row *r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->name = (uint64_t)off;
	r->last_end = -1;
	r->parent = AN_NONE;
	return (uint32_t)t->n++;
}

/* Double the name slots.  0 or -ENOMEM. */
static int grow_slots(struct an_table *t)
{
	size_t n = (t->mask + 1) * 2;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const char *name = t->names + t->rows[i].name;
		size_t j = hash_bytes(strlen(name), name, strlen(name)) & (n - 1);
		while (s[j])
			j = (j + 1) & (n - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->mask = n - 1;
	return 0;
}

uint32_t an_table_name(struct an_table *t, const char *name, size_t len,
		       int *err)
{
	size_t j = hash_bytes(len, name, len) & t->mask;

	for (uint32_t s; (s = t->slots[j]); j = (j + 1) & t->mask) {
		const char *have = t->names + t->rows[s - 1].name;
		if (!strncmp(have, name, len) && have[len] == '\0')
			return s - 1;
	}
	uint32_t i = new_row(t, name, len);
	if (i == AN_NONE)
		*err = -ENOMEM;
	if (i == AN_OTHER || i == AN_NONE)
		return i;
	t->slots[j] = i + 1;
	if (t->n * 2 > t->mask && grow_slots(t)) {
		*err = -ENOMEM;
		return AN_NONE;
	}
	return i;
}

uint32_t an_table_find_id(const struct an_table *t, uint64_t id)
{
	uintptr_t v = (uintptr_t)u64map_get(&t->ids, id);

	return v ? (uint32_t)(v - 1) : AN_NONE;
}

uint32_t an_table_id(struct an_table *t, uint64_t id, const char *name,
		     int *err)
{
	uintptr_t v = (uintptr_t)u64map_get(&t->ids, id);

	if (v)
		return (uint32_t)(v - 1);
	uint32_t i = new_row(t, name, strlen(name));
	if (i == AN_NONE)
		*err = -ENOMEM;
	if (i == AN_OTHER || i == AN_NONE)
		return i;
	if (u64map_put(&t->ids, id, (void *)((uintptr_t)i + 1))) {
		*err = -ENOMEM;
		return AN_NONE;
	}
	return i;
}

int an_table_rename(struct an_table *t, uint32_t i, const char *name)
{
	int64_t off = add_name(t, name, strlen(name));

	if (off < 0)
		return -ENOMEM;
	t->rows[i].name = (uint64_t)off;
	return 0;
}

static uint64_t key_of(const struct an_row *r, enum an_key key)
{
	switch (key) {
	case AK_OPS: return r->ops;
	case AK_BYTES: return r->bytes_read + r->bytes_written;
	default: return r->time_ns;
	}
}

/* qsort has no context argument: the table and key being sorted. */
static __thread const struct an_table *sort_table;
static __thread enum an_key sort_key;

static int by_key(const void *x, const void *y)
{
	const struct an_row *a = &sort_table->rows[*(const uint32_t *)x];
	const struct an_row *b = &sort_table->rows[*(const uint32_t *)y];
	uint64_t ka = key_of(a, sort_key), kb = key_of(b, sort_key);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(sort_table->names + a->name, sort_table->names + b->name);
}

/* Whether row @a ranks before row @b. */
static bool before(uint32_t a, uint32_t b)
{
	return by_key(&a, &b) < 0;
}

/* Restore the heap @h of @n rows (the last-ranked at the root) below @i. */
static void sift_down(uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && before(h[c], h[c + 1]))
			c++;
		if (!before(h[i], h[c]))
			return;
		uint32_t t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/* The first @n rows, selected through a heap of the @n best so far: a
 * pass over the rows, not a sort of them all. */
size_t an_table_top(const struct an_table *t, enum an_key key, size_t n,
		    uint32_t *out)
{
	size_t k = 0;

	sort_table = t;
	sort_key = key;
	if (n > t->n)
		n = t->n;
	for (size_t i = 0; i < t->n && n; i++) {
		uint32_t r = (uint32_t)i;
		if (k < n) {
			out[k++] = r;
			if (k == n)	/* heapify */
				for (size_t j = n / 2; j-- > 0;)
					sift_down(out, n, j);
		} else if (before(r, out[0])) {
			out[0] = r;
			sift_down(out, n, 0);
		}
	}
	qsort(out, k, sizeof(*out), by_key);
	return k;
}

/* Add the figures of @r to @sum, @times times (1, or -1 to take them out
 * again: unsigned arithmetic wraps back). */
static void row_add_times(struct an_row *sum, const struct an_row *r,
			  uint64_t times)
{
	sum->ops += times * r->ops;
	sum->bytes_read += times * r->bytes_read;
	sum->bytes_written += times * r->bytes_written;
	sum->time_ns += times * r->time_ns;
	sum->rw_requests += times * r->rw_requests;
	sum->sequential += times * r->sequential;
	sum->syncs += times * r->syncs;
	sum->synced_bytes += times * r->synced_bytes;
	sum->ws_bytes += times * (r->ws_bytes + an_ranges_bytes(&r->ws));
	sum->gap_ns += times * r->gap_ns;
	sum->gap_known_ns += times * r->gap_known_ns;
	sum->gap_cpu_ns += times * r->gap_cpu_ns;
}

void an_row_add(struct an_row *sum, const struct an_row *r)
{
	row_add_times(sum, r, 1);
}

bool an_table_rest(const struct an_table *t, const uint32_t *top,
		   size_t ntop, struct an_row *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < t->n; i++)
		an_row_add(sum, &t->rows[i]);
	if (t->other_used)
		an_row_add(sum, &t->other);
	for (size_t i = 0; i < ntop; i++)
		row_add_times(sum, &t->rows[top[i]], (uint64_t)-1);
	return t->n > ntop || t->other_used;
}

/* The bucket of @v: 0 for 0 and 1, b for 2^(b-1) < v <= 2^b. */
static unsigned an_bucket(uint64_t v)
{
	return v > 1 ? 64 - (unsigned)__builtin_clzll(v - 1) : 0;
}

void an_hist_add(struct an_hist *h, uint64_t v)
{
	unsigned b = an_bucket(v);

	h->h[b < AN_BUCKETS ? b : AN_BUCKETS - 1]++;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

uint64_t an_hist_percentile(const struct an_hist *h, double pct)
{
	uint64_t want, seen = 0, p;
	unsigned b;

	if (!h->count)
		return 0;
	want = (uint64_t)((double)h->count * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (b = 0; b + 1 < AN_BUCKETS; b++) {
		seen += h->h[b];
		if (seen >= want)
			break;
	}
	/* Bucket 0 holds 0 and 1: its bound is 1, never above the max. */
	p = b ? an_bucket_top(b) : 1;
	return p < h->max ? p : h->max;
}
