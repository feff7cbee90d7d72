/*
 * sandcheck: when --map puts two sandboxes of a replay file into one host
 * sandbox, their paths must not meet there (sandmap_check_collisions() in
 * sandmap.h): one table of every relative path named below a shared host
 * sandbox, with the sandboxes that name it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/hashing.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"

#define MAX_SHARING 64		/* sandboxes a bitmask can tell apart */

struct named {
	char *rel;			/* below the host sandbox; NULL: free */
	size_t group;			/* the host sandbox: its first index */
	uint64_t hash;
	uint64_t by;			/* bit i: sandbox i names it */
	uint64_t dirs;			/* bit i: sandbox i lists it as INIT d */
};

struct table {
	struct named *slot;
	size_t cap, used;
};

/* The slot of (@group, @rel) in @t: its entry, or the free slot for it. */
static struct named *find(struct table *t, size_t group, const char *rel,
			  size_t len, uint64_t hash)
{
	for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct named *s = &t->slot[i];

		if (!s->rel || (s->hash == hash && s->group == group &&
				!strncmp(s->rel, rel, len) && !s->rel[len]))
			return s;
	}
}

/* Double @t.  0 or -ENOMEM. */
static int grow(struct table *t)
{
	struct table big = { .cap = t->cap ? 2 * t->cap : 1024 };

	big.slot = calloc(big.cap, sizeof(*big.slot));
	if (!big.slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct named *s = &t->slot[i];

		if (s->rel)
			*find(&big, s->group, s->rel, strlen(s->rel),
			      s->hash) = *s;
	}
	big.used = t->used;
	free(t->slot);
	*t = big;
	return 0;
}

/* Note that sandbox @i (host sandbox @group) names @rel, as an INIT
 * directory if @dir.  0 or -ENOMEM. */
static int note(struct table *t, size_t group, size_t i, const char *rel,
		size_t len, bool dir)
{
	uint64_t hash = hash_bytes(group, rel, len);
	struct named *s;

	if (2 * (t->used + 1) > t->cap && grow(t))
		return -ENOMEM;
	s = find(t, group, rel, len, hash);
	if (!s->rel) {
		s->rel = strndup(rel, len);
		if (!s->rel)
			return -ENOMEM;
		s->group = group;
		s->hash = hash;
		t->used++;
	}
	s->by |= 1ULL << i;
	if (dir)
		s->dirs |= 1ULL << i;
	return 0;
}

struct scan {
	char *const *roots;		/* the header's sandboxes */
	size_t n;
	size_t *group;			/* per sandbox: its host sandbox's first
					 * index, or SIZE_MAX when not shared */
	struct table t;
};

/* Note path @p (@len bytes) if it lies below a shared sandbox.  0 or
 * -ENOMEM. */
static int note_path(struct scan *sc, const char *p, size_t len, bool dir)
{
	size_t best = SIZE_MAX, best_len = 0;

	for (size_t i = 0; i < sc->n; i++) {
		size_t rlen = strlen(sc->roots[i]);

		if (rlen > best_len && path_is_below(p, len, sc->roots[i], rlen)) {
			best = i;
			best_len = rlen;
		}
	}
	if (best == SIZE_MAX || sc->group[best] == SIZE_MAX || len == best_len)
		return 0;
	return note(&sc->t, sc->group[best], best, p + best_len + 1,
		    len - best_len - 1, dir);
}

/* Which sandboxes share a host sandbox: sc->group.  0, -E2BIG or -ENOMEM. */
static int find_groups(struct scan *sc, char *const *host)
{
	sc->group = malloc((sc->n ? sc->n : 1) * sizeof(*sc->group));
	if (!sc->group)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n; i++) {
		size_t first = i;
		bool shared = false;

		for (size_t k = 0; k < sc->n; k++) {
			if (strcmp(host[i], host[k]))
				continue;
			if (k < first)
				first = k;
			if (strcmp(sc->roots[i], sc->roots[k]))
				shared = true;
		}
		sc->group[i] = shared ? first : SIZE_MAX;
		if (shared && i >= MAX_SHARING)
			return -E2BIG;
	}
	return 0;
}

/* Note the paths entry @e names.  0 or -ENOMEM. */
static int note_entry(struct scan *sc, const struct rlog_entry *e)
{
	int rc = 0;

	if (e->type == RLOG_ENTRY_INIT)
		return note_path(sc, e->init_path, e->init_path_len,
				 e->init_kind == RLOG_INIT_DIR);
	if (e->op.have & RL_PATH)
		rc = note_path(sc, e->op.path, e->op.path_len, false);
	if (!rc && (e->op.have & RL_PATH2))
		rc = note_path(sc, e->op.path2, e->op.path2_len, false);
	return rc;
}

/* The first path two sandboxes name where not both list it as INIT d:
 * -EEXIST with a message, else 0. */
static int first_collision(const struct scan *sc, char *err, size_t errlen)
{
	char a[PATHMAP_MAX], b[PATHMAP_MAX];

	for (size_t i = 0; i < sc->t.cap; i++) {
		const struct named *s = &sc->t.slot[i];
		uint64_t only = s->by & ~s->dirs;
		int x, y;

		if (!s->rel || !(s->by & (s->by - 1)) || !only)
			continue;
		x = __builtin_ctzll(only);
		y = __builtin_ctzll(s->by & ~(1ULL << x));
		snprintf(a, sizeof(a), "%s", sc->roots[x]);
		snprintf(b, sizeof(b), "%s", sc->roots[y]);
		snprintf(err, errlen, "--map puts sandboxes %s and %s into one "
			 "and both name %s in it: map them to different "
			 "mounts", a, b, s->rel);
		return -EEXIST;
	}
	return 0;
}

int sandmap_check_collisions(const char *path, char *const *host,
			     char *err, size_t errlen)
{
	struct rlog_reader *r = rlog_open(path, err, errlen);
	const struct rlog_header *h;
	struct scan sc = { 0 };
	struct rlog_entry e;
	int rc;

	if (!r)
		return -errno;
	h = rlog_header(r);
	sc.roots = h->sandboxes;
	sc.n = h->nsandboxes;
	rc = find_groups(&sc, host);
	if (rc == -E2BIG)
		snprintf(err, errlen, "--map puts more than %d sandboxes into "
			 "one", MAX_SHARING);
	while (!rc && (rc = rlog_next(r, &e, err, errlen)) == 1) {
		rc = note_entry(&sc, &e);
		if (rc)
			snprintf(err, errlen, "%s: out of memory", path);
	}
	if (!rc)
		rc = first_collision(&sc, err, errlen);
	for (size_t i = 0; i < sc.t.cap; i++)
		free(sc.t.slot[i].rel);
	free(sc.t.slot);
	free(sc.group);
	rlog_close(r);
	return rc;
}
