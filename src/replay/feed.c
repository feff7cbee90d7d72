/*
 * feed: the replay engine's producer.  It reads the replay file while the
 * replay runs, numbers its operations (sequence numbers, from 0), turns
 * each operation's dependencies from ids into the sequence numbers of
 * those that have not completed, and queues it on the runner of its
 * timeline through engine.h, which states the contract; runners never
 * search.  It keeps the ids of the window's operations itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"
#include "feed.h"
#include "ioriot/replaylimits.h"

struct feed {
	struct engine *e;
	struct rlog_reader *rlog;
	const char *path;		/* for messages */
	const atomic_uint *done;	/* the window's completion words */
	uint64_t *ids;			/* WINDOW_SLOTS: id of seq in seq % */
	struct rlog_entry pending;	/* read, not yet queued */
	bool have_pending;
	uint64_t nread;			/* operations queued = next seq */
};

struct feed *feed_open(struct engine *e, struct rlog_reader *reader,
		       const char *path)
{
	struct feed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->ids = calloc(WINDOW_SLOTS, sizeof(*f->ids));
	if (!f->ids) {
		free(f);
		return NULL;
	}
	f->e = e;
	f->rlog = reader;
	f->path = path;
	f->done = engine_done_words(e);
	return f;
}

void feed_close(struct feed *f)
{
	if (!f)
		return;
	free(f->ids);
	free(f);
}

/* The sequence number of operation @id if it is in the window and has not
 * completed; -1 when it completed, fell out of the window (so completed)
 * or is not in the file (the generator dropped it): nothing to wait for.
 * The slot of the operation being queued, the window's oldest, is left
 * out: it was reused once that operation completed.  Ids increase in file
 * order: a binary search. */
static int64_t pending_dep(const struct feed *f, uint64_t id)
{
	uint64_t lo = f->nread >= WINDOW_SLOTS ? f->nread - WINDOW_SLOTS + 1 : 0;
	uint64_t hi = f->nread;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (f->ids[mid % WINDOW_SLOTS] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->nread || f->ids[lo % WINDOW_SLOTS] != id ||
	    window_done(f->done, lo))
		return -1;
	return (int64_t)lo;
}

/*
 * Queue f->pending.  Returns 0, 1 when there is no room and @wait is
 * false, -ECANCELED when the replay stops while waiting, or -errno with a
 * message in @err.
 */
static int queue_pending(struct feed *f, bool wait, char *err, size_t errlen)
{
	const struct rlog_op *op = &f->pending.op;
	struct deps deps = { .dropped = op->deps.dropped };
	struct timeline *tl;
	int ret;

	tl = engine_timeline_for(f->e, op->pid, op->tid, err, errlen);
	if (!tl && errno == E2BIG) {
		/* The file asks for more than the replay's limit: refused at
		 * its line, as the reader refuses what it cannot take. */
		snprintf(err, errlen, "%s:%llu: more than %u timelines "
			 "(PID:TID), the replay's limit", f->path,
			 (unsigned long long)f->pending.lineno,
			 REPLAY_TIMELINES_MAX);
		return -E2BIG;
	}
	if (!tl)
		return -ENOMEM;
	ret = engine_room(f->e, tl, f->nread, wait);
	if (ret)
		return ret;
	for (int d = 0; d < op->deps.n; d++) {
		int64_t dep = pending_dep(f, op->deps.id[d]);

		if (dep >= 0)
			deps.id[deps.n++] = (uint64_t)dep;
	}
	/* sync= too becomes a sequence number; one done already orders
	 * nothing more. */
	if (op->have & RL_SYNC) {
		int64_t dep = pending_dep(f, op->sync_id);

		if (dep >= 0)
			f->pending.op.sync_id = (uint64_t)dep;
		else
			f->pending.op.have &= ~(uint64_t)RL_SYNC;
	}
	if (engine_queue_op(f->e, tl, f->nread, op, &deps)) {
		snprintf(err, errlen, "%s: out of memory", f->path);
		return -ENOMEM;
	}
	f->ids[f->nread % WINDOW_SLOTS] = op->id;
	f->nread++;
	f->have_pending = false;
	return 0;
}

int feed_run(struct feed *f, bool wait, char *err, size_t errlen)
{
	int ret;

	for (;;) {
		if (!f->have_pending) {
			ret = rlog_next(f->rlog, &f->pending, err, errlen);
			if (ret == 0) {
				engine_feed_done(f->e);
				return 0;
			}
			if (ret < 0)
				return ret;
			if (f->pending.type != RLOG_ENTRY_OP)
				continue;
			f->have_pending = true;
		}
		ret = queue_pending(f, wait, err, errlen);
		if (ret)
			return ret;
	}
}
