/*
 * deps: resource-oriented ordering, as in ROOT (Weiss et al., SOSP 2013).
 *
 * Every shared resource (a path's node, an open file description) remembers
 * the last operation on it and that operation's timeline.  An operation that
 * touches a resource last used by another timeline depends on that earlier
 * operation: the replay engine starts it only after the dependency has
 * completed.  Operations of one timeline are ordered anyway.  The list an
 * operation gets, struct deps, is the replay file's (rlog.h); the model
 * that fills it is the generator's, private to src/generate.
 *
 * An operation that only uses a resource, changing nothing another
 * operation's result could show (a read, a sync, a write inside the file:
 * data is never replayed), waits for the last change but is no change
 * itself: the next change waits for it instead (deps_use()).  So readers
 * of one file, and writers inside it, run side by side as they did in the
 * capture, while every result is as it was.
 */
#ifndef IORIOT_GENERATE_DEPS_H
#define IORIOT_GENERATE_DEPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "ioriot/rlog.h"

#define RES_MORE_USERS 15	/* beyond the first; one more: a change */

/* The users of a resource beyond its first, made when a second timeline
 * uses it, kept for the next ones; all of them are on one list, freed
 * with it (deps_users_free()). */
struct res_users {
	struct res_users *next;		/* the list of all */
	unsigned n;
	uint64_t op[RES_MORE_USERS], tl[RES_MORE_USERS];
};

struct resource {
	uint64_t last_op;	/* id of the last change, 0 for none */
	uint64_t last_tl;	/* its timeline: pid << 32 | tid */
	/* The operations that used it since, the last of each timeline: the
	 * first here (0: none), the others in @more. */
	uint64_t use_op, use_tl;
	struct res_users *more;
};

/* Add @id to @d unless there already (counted as dropped beyond
 * DEPS_MAX). */
static inline void deps_add(struct deps *d, uint64_t id)
{
	for (int i = 0; i < d->n; i++)
		if (d->id[i] == id)
			return;
	if (d->n == DEPS_MAX)
		d->dropped++;
	else
		d->id[d->n++] = id;
}

/*
 * An operation of timeline @tl needs @res but only reads it: it waits for
 * the resource's last operation without becoming it (a path walk through a
 * directory does not change the directory).
 */
static inline void deps_need(struct deps *d, const struct resource *res,
			     uint64_t tl)
{
	if (res->last_op && res->last_tl != tl)
		deps_add(d, res->last_op);
}

/*
 * Operation @op of timeline @tl touches @res: add the dependency this
 * implies to @d (no duplicates) and make @op the resource's last operation.
 * Accepts a NULL @res.
 */
static inline void deps_touch(struct deps *d, struct resource *res,
			      uint64_t op, uint64_t tl)
{
	if (!res)
		return;
	/* A use by the last change's timeline or by @tl's own waited for
	 * that change already. */
	bool after_last = res->use_op && (res->use_tl == res->last_tl ||
					  res->use_tl == tl);

	for (unsigned i = 0; res->more && i < res->more->n; i++)
		after_last |= res->more->tl[i] == res->last_tl ||
			      res->more->tl[i] == tl;
	if (!after_last)
		deps_need(d, res, tl);
	if (res->use_op && res->use_tl != tl)
		deps_add(d, res->use_op);
	res->use_op = 0;
	for (unsigned i = 0; res->more && i < res->more->n; i++)
		if (res->more->tl[i] != tl)
			deps_add(d, res->more->op[i]);
	if (res->more)
		res->more->n = 0;
	res->last_op = op;
	res->last_tl = tl;
}

/*
 * Operation @op of timeline @tl uses @res without changing it: it waits
 * for the last change, and the next change waits for it.  Its timeline's
 * earlier use is replaced (it came first); a second timeline's takes a
 * res_users from @all (put on it).  Without memory, or with
 * RES_MORE_USERS others pending already, it counts as a change (ordered
 * with all of them).  Accepts a NULL @res.
 */
static inline void deps_use(struct res_users **all, struct deps *d,
			    struct resource *res, uint64_t op, uint64_t tl)
{
	struct res_users *u;

	if (!res)
		return;
	/* The timeline's earlier use waited for the last change already. */
	if (res->use_op && res->use_tl == tl) {
		res->use_op = op;
		return;
	}
	if (!res->use_op) {
		deps_need(d, res, tl);
		res->use_op = op;
		res->use_tl = tl;
		return;
	}
	u = res->more;
	for (unsigned i = 0; u && i < u->n; i++) {
		if (u->tl[i] == tl) {
			u->op[i] = op;
			return;
		}
	}
	if (!u && (u = calloc(1, sizeof(*u)))) {
		u->next = *all;
		*all = u;
		res->more = u;
	}
	if (!u || u->n == RES_MORE_USERS) {
		deps_touch(d, res, op, tl);
		return;
	}
	deps_need(d, res, tl);
	u->op[u->n] = op;
	u->tl[u->n++] = tl;
}

/* Free the list @all of deps_use().  Accepts NULL. */
static inline void deps_users_free(struct res_users *all)
{
	while (all) {
		struct res_users *next = all->next;

		free(all);
		all = next;
	}
}

#endif
