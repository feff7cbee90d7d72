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
 */
#ifndef IORIOT_GENERATE_DEPS_H
#define IORIOT_GENERATE_DEPS_H

#include <stdint.h>

#include "ioriot/rlog.h"

struct resource {
	uint64_t last_op;	/* id of the last operation, 0 for none */
	uint64_t last_tl;	/* its timeline: pid << 32 | tid */
};

/*
 * An operation of timeline @tl needs @res but only reads it: it waits for
 * the resource's last operation without becoming it (a path walk through a
 * directory does not change the directory).
 */
static inline void deps_need(struct deps *d, const struct resource *res,
			     uint64_t tl)
{
	if (!res->last_op || res->last_tl == tl)
		return;
	for (int i = 0; i < d->n; i++)
		if (d->id[i] == res->last_op)
			return;
	if (d->n == DEPS_MAX)
		d->dropped++;
	else
		d->id[d->n++] = res->last_op;
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
	deps_need(d, res, tl);
	res->last_op = op;
	res->last_tl = tl;
}

#endif
