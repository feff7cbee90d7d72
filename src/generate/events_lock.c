/*
 * events_lock: file locks, flock and the fcntl lock commands (F_SETLK,
 * F_SETLKW, F_GETLK and their F_OFD_ forms), and the order the replay
 * gives them.
 *
 * Locks order real workloads, so the replay issues the same lock calls on
 * the same ranges.  Two rules keep it from deadlocking on them:
 *
 *  - A lock operation waits only for lock operations of the same file that
 *    had returned before it began in the capture (its happened-before):
 *    never for one that was still blocked then, which may have waited for
 *    this very operation (an unlock, say).  So the replay takes a
 *    contended lock in the order the capture got it.
 *  - No other operation waits for a lock call that blocked (F_SETLKW,
 *    F_OFD_SETLKW, flock without LOCK_NB): it touches no resource (it only
 *    needs its description's), so no dependency leads through it to an
 *    operation it would wait for in the kernel.
 *
 * The replay side (src/replay/exec.c) bounds every blocking wait: where the
 * capture's order cannot be kept (operations of another timeline that the
 * lock holder waits for), a wait ends and counts as differing instead of
 * hanging the replay.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>

#include "gen.h"

#define LOCK_PENDING_MAX 8

/* The lock operations of one file (struct node's locks). */
struct lock_order {
	struct resource done;	/* the one of those that returned before the
				 * current event began, returned last */
	uint64_t done_end;	/* when it returned */
	int npending;
	struct {
		uint64_t op, tl, end;
	} pending[LOCK_PENDING_MAX];	/* returned after it began */
};

/* Make the pending operations that returned by @now done. */
static void promote(struct lock_order *lo, uint64_t now)
{
	for (int i = 0; i < lo->npending;) {
		if (lo->pending[i].end > now) {
			i++;
			continue;
		}
		if (lo->pending[i].end >= lo->done_end) {
			lo->done.last_op = lo->pending[i].op;
			lo->done.last_tl = lo->pending[i].tl;
			lo->done_end = lo->pending[i].end;
		}
		lo->pending[i] = lo->pending[--lo->npending];
	}
}

/*
 * Order lock operation @op of the current event on file @n (see the top
 * of the file); @blocking: it may wait in the kernel.  Also orders it
 * after its description's last operation (@o).
 */
static void lock_order(struct gen *g, struct rlog_op *op, struct node *n,
		       struct ofd *o, bool blocking)
{
	const struct cap_event *ev = g->ev;
	struct node_extra *x = nstree_extra(n);
	struct lock_order *lo = x ? x->locks : NULL;

	if (blocking)
		deps_need(&op->deps, &o->res, timeline(ev));
	else
		gen_op_touch(g, op, &o->res);
	if (!lo && (!x || !(lo = x->locks = calloc(1, sizeof(*lo))))) {
		gen_oom(g);
		return;
	}
	promote(lo, ev->time_ns);
	deps_need(&op->deps, &lo->done, timeline(ev));
	if (lo->npending == LOCK_PENDING_MAX) {
		/* Too many still in flight: the oldest loses its place in
		 * the order (one dependency fewer, never a deadlock). */
		int oldest = 0;
		for (int i = 1; i < lo->npending; i++)
			if (lo->pending[i].end < lo->pending[oldest].end)
				oldest = i;
		lo->pending[oldest] = lo->pending[--lo->npending];
		g->sum->deps_dropped++;
	}
	lo->pending[lo->npending].op = op->id;
	lo->pending[lo->npending].tl = timeline(ev);
	lo->pending[lo->npending++].end = cap_event_end(ev);
}

bool gen_is_lock_cmd(int64_t cmd)
{
	switch (cmd) {
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		return true;
	default:
		return false;
	}
}

/* Whether the event, a lock call, may have waited in the kernel. */
static bool blocks(const struct cap_event *ev)
{
	if (ev->sys == SYS_FLOCK)
		return (ev->have & CAP_FLAGS) && !(ev->flags & LOCK_NB) &&
		       !(ev->flags & LOCK_UN);
	return (ev->cmd == F_SETLKW || ev->cmd == F_OFD_SETLKW) &&
	       (ev->have & CAP_ARG) && ev->arg != F_UNLCK;
}

void gen_on_lock(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	struct ofd *o = gen_event_ofd(g, p, ev->fd);

	if (!o)
		return;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, o);
	lock_order(g, &op, o->node, o, blocks(ev));
	gen_op_emit(g, &op);
}
