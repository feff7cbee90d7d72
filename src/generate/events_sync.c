/*
 * events_sync: the records that tell which thread a thread waited for,
 * turned into the order of threads (docs/replay-format.md §4.7, sync=).
 * The waiting thread's next operation depends on the waker's last
 * operation before the wake (sync=ID:NS: NS is how long after that
 * operation's end it began, less the thread's wait for a CPU after the
 * wake where the wake record says it), and its gap names the time the
 * thread was blocked (waited=), which --think replaces by the dependency.
 * Nothing is replayed of the records.
 *
 * Wake records (capture --sync) name the waker and how long the woken
 * thread slept, whatever it waited on: a futex, a pipe, a socket, a
 * signal.  Logs of ioriot before them have futex records instead: a wait
 * that returned 0 was ended by a wake, and the wake that another thread
 * made on the same futex while the wait lasted is taken for it.  A
 * private futex is known by its process and address, a shared one by its
 * address alone: processes that share a mapping from a common parent
 * (PostgreSQL's semaphores) see it at one address.  The log is in the
 * order calls began, but a call longer than the capture's reorder window
 * comes when it returned: a wait may come before or after its wake, so
 * either finds the other.
 */
#include <errno.h>
#include <stdlib.h>

#include "gen.h"

/* futex(2) operations, without FUTEX_PRIVATE_FLAG and
 * FUTEX_CLOCK_REALTIME (linux/futex.h). */
#define FUTEX_OP_MASK 127
#define FUTEX_PRIVATE 128
enum {
	F_WAIT = 0, F_WAKE = 1, F_REQUEUE = 3, F_CMP_REQUEUE = 4,
	F_WAKE_OP = 5, F_LOCK_PI = 6, F_UNLOCK_PI = 7, F_WAIT_BITSET = 9,
	F_WAKE_BITSET = 10, F_WAIT_REQUEUE_PI = 11, F_CMP_REQUEUE_PI = 12,
	F_LOCK_PI2 = 13,
};

/* Waits kept per futex while no wake came for them: a bound, as a
 * futex's waiters are few.  The array is made for the first one only: a
 * program may use many futexes, most never with a wait pending. */
#define PENDING_MAX 32

/* A thread's last operation: what a wake of it orders after. */
struct futex_mark {
	uint64_t tl;			/* the waker's timeline */
	uint64_t op_id;			/* its last operation, 0: none */
	uint64_t op_end_ns;		/* that operation's end, as written */
};

struct futex_wait {
	uint64_t tl;			/* the waiting timeline */
	uint64_t start_ns, end_ns;	/* the call */
};

struct futex_state {
	bool woke;			/* a wake is known */
	uint64_t wake_ns;		/* the last wake's start */
	int64_t wake_left;		/* threads it woke, not matched yet */
	struct futex_mark waker;
	unsigned npending;
	struct futex_wait *pending;	/* PENDING_MAX, or NULL */
};

static bool is_wait(int op)
{
	return op == F_WAIT || op == F_WAIT_BITSET || op == F_LOCK_PI ||
	       op == F_LOCK_PI2 || op == F_WAIT_REQUEUE_PI;
}

static bool is_wake(int op)
{
	return op == F_WAKE || op == F_WAKE_BITSET || op == F_WAKE_OP ||
	       op == F_REQUEUE || op == F_CMP_REQUEUE ||
	       op == F_CMP_REQUEUE_PI || op == F_UNLOCK_PI;
}

/* The key of futex @addr of process @pid: its address if shared (bit 63
 * set: user addresses are below it), else a mix of both. */
static uint64_t futex_key(uint64_t addr, uint32_t pid, bool private)
{
	uint64_t x;

	if (!private)
		return addr | 1ULL << 63;
	x = addr ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 29;
	return (x & ~(1ULL << 63)) | 1;
}

/* Timeline @tl's state, or NULL if no event of it came yet. */
static struct tline *tline_of(struct gen *g, uint64_t tl)
{
	return tl == g->tl_key && g->tl_state ? g->tl_state :
	       u64map_get(&g->timelines, tl);
}

/*
 * What a wake by timeline @tl orders after: its last operation, or, if it
 * was itself woken since then, what that wake ordered it after, when that
 * ended later (a PostgreSQL backend that waited for another's WAL flush,
 * then released a lock: the lock's waiter waits for the flush).  The
 * chain follows itself: each wake's mark was made the same way.  Only a
 * timeline with operations passes a wake on (a client thread serving two
 * connections would tie one to the other); none: op_id 0.
 */
static struct futex_mark waker_mark(struct gen *g, uint64_t tl)
{
	struct futex_mark m = { .tl = tl };
	struct tline *t = tline_of(g, tl);

	if (!t || !t->ops)
		return m;
	m.op_id = t->last_op;
	m.op_end_ns = t->last_end_ns;
	if (t->sync_id && t->sync_end_ns > m.op_end_ns) {
		m.op_id = t->sync_id;
		m.op_end_ns = t->sync_end_ns;
	}
	return m;
}

/* The wait @w ended by a wake after @waker's last operation: the waiting
 * timeline's next operation orders after it.  A later wake replaces an
 * earlier one (it is the one the operation waited for last); the blocked
 * times add up.  @runq_ns: the waiting thread's wait for a CPU from its
 * last operation to the wake, UINT64_MAX if not known. */
static void order_after(struct gen *g, const struct futex_wait *w,
			const struct futex_mark *waker, uint64_t runq_ns)
{
	struct tline *t;

	g->sum->sync_matched++;
	if (!waker->op_id || !(t = tline_of(g, w->tl)))
		return;
	t->sync_id = waker->op_id;
	t->sync_end_ns = waker->op_end_ns;
	t->sync_runq_ns = runq_ns;
	t->waited_ns += w->end_ns - w->start_ns;
}

/* A wake at @now by the current event's thread (@waker) that woke
 * @woken threads: the pending waits it fell into, first ended first. */
static void wake(struct gen *g, struct futex_state *f, uint64_t now,
		 const struct futex_mark *waker, int64_t woken)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < f->npending; i++) {
		struct futex_wait *w = &f->pending[i];

		if (woken > 0 && w->tl != waker->tl && w->start_ns <= now &&
		    now <= w->end_ns) {
			order_after(g, w, waker, UINT64_MAX);
			woken--;
		} else if (w->end_ns >= now) {
			f->pending[kept++] = *w;	/* may still be woken */
		}
	}
	f->npending = kept;
	f->woke = true;
	f->wake_ns = now;
	f->wake_left = woken;
	f->waker = *waker;
}

/* A wait of the current event's thread that returned 0: by the wake
 * already seen, if it fell into the wait, else kept for one to come (the
 * oldest goes when PENDING_MAX are kept). */
static void waited(struct gen *g, struct futex_state *f,
		   const struct futex_wait *w)
{
	g->sum->sync_waits++;
	if (f->woke && f->wake_left > 0 && f->waker.tl != w->tl &&
	    w->start_ns <= f->wake_ns && f->wake_ns <= w->end_ns) {
		f->wake_left--;
		order_after(g, w, &f->waker, UINT64_MAX);
		return;
	}
	if (!f->pending &&
	    !(f->pending = malloc(PENDING_MAX * sizeof(*f->pending)))) {
		gen_oom(g);
		return;
	}
	if (f->npending == PENDING_MAX)
		memmove(f->pending, f->pending + 1,
			(PENDING_MAX - 1) * sizeof(f->pending[0]));
	else
		f->npending++;
	f->pending[f->npending - 1] = *w;
}

void gen_on_futex(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	int op = (int)(ev->cmd & FUTEX_OP_MASK);
	uint64_t key;
	struct futex_state *f;

	gen_filtered(g, GF_SYNC);
	if (!(ev->have & CAP_ADDR) || !(ev->have & CAP_CMD) ||
	    !(ev->have & CAP_RET) || !(is_wait(op) || is_wake(op)))
		return;
	/* A wait that did not sleep (EAGAIN), timed out or was interrupted
	 * was woken by nobody; a wake that woke nobody orders nothing
	 * (FUTEX_UNLOCK_PI returns 0 either way). */
	if (is_wait(op) ? ev->ret != 0 : ev->ret < 0 ||
	    (ev->ret == 0 && op != F_UNLOCK_PI))
		return;
	key = futex_key(ev->addr, ev->pid, ev->cmd & FUTEX_PRIVATE);
	f = u64map_get(&g->futexes, key);
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f || u64map_put(&g->futexes, key, f)) {
			free(f);
			gen_oom(g);
			return;
		}
	}
	if (is_wait(op)) {
		struct futex_wait w = { g->tl_key, ev->time_ns,
					ev->time_ns + ev->dur_ns };

		waited(g, f, &w);
	} else {
		struct futex_mark m = waker_mark(g, g->tl_key);

		wake(g, f, ev->time_ns, &m, op == F_UNLOCK_PI ? 1 :
		     op == F_WAKE || op == F_WAKE_BITSET ? ev->ret : INT64_MAX);
	}
}

void gen_on_wake(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct tline *woken;
	uint64_t slept;

	gen_filtered(g, GF_SYNC);
	if (!(ev->have & CAP_ADDR) || !(ev->have & CAP_COUNT) ||
	    ev->count < 0 || !(woken = tline_of(g, g->tl_key)))
		return;
	/* Woken before its last operation ended: it slept in that call,
	 * which the replay makes itself. */
	if (woken->ops && ev->time_ns <= woken->last_end_ns)
		return;
	g->sum->sync_waits++;
	slept = (uint64_t)ev->count;
	if (slept > ev->time_ns)
		slept = ev->time_ns;
	if (woken->ops && slept > ev->time_ns - woken->last_end_ns)
		slept = ev->time_ns - woken->last_end_ns;
	struct futex_wait w = { g->tl_key, ev->time_ns - slept, ev->time_ns };
	struct futex_mark m = waker_mark(g, ev->addr);

	if (!m.op_id)
		return;		/* the waker did nothing to wait for */
	/* Its wait for a CPU so far: the events not written since its last
	 * operation, and its gap up to the wake (R), if the log says it. */
	order_after(g, &w, &m, ev->have & CAP_RUNQ ?
		    (woken->runq_ns < UINT64_MAX - ev->runq_ns ?
		     woken->runq_ns + ev->runq_ns : UINT64_MAX - 1) :
		    UINT64_MAX);
}

void gen_op_sync(struct gen *g, struct rlog_op *op, struct tline *t)
{
	(void)g;
	t->last_op = op->id;
	t->last_end_ns = op->time_ns + op->dur_ns;
	if (!t->sync_id)
		return;
	if (t->sync_id < op->id) {
		op->sync_id = t->sync_id;
		op->sync_gap_ns = op->time_ns > t->sync_end_ns ?
				  op->time_ns - t->sync_end_ns : 0;
		op->have |= RL_SYNC;
		/* The thread's wait for a CPU after the wake is no part of
		 * NS: a replay thread waits for its own CPU there. */
		if ((op->have & RL_RUNQ) && t->sync_runq_ns != UINT64_MAX &&
		    op->runq_ns > t->sync_runq_ns) {
			uint64_t after = op->runq_ns - t->sync_runq_ns;

			op->sync_gap_ns -= after < op->sync_gap_ns ?
					   after : op->sync_gap_ns;
		}
		if (t->waited_ns) {
			op->waited_ns = t->waited_ns;
			op->have |= RL_WAITED;
		}
	}
	t->sync_id = 0;
	t->waited_ns = 0;
}

void gen_futexes_free(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while (g->futexes.slots && (s = u64map_next(&g->futexes, &pos))) {
		struct futex_state *f = s->value;

		free(f->pending);
		free(f);
	}
	u64map_destroy(&g->futexes);
}
