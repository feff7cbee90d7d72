/*
 * events_uring: what the generator does with io_uring (io_uring_setup,
 * io_uring_register and its uring_file and uring_buf records,
 * io_uring_enter and the sqe records before it, the cqe records).  A ring
 * becomes a virtual one (ctx=), numbered like AIO contexts; each request
 * the replay makes a virtual tag (tag=) that its completion names
 * (docs/replay-format.md §4.3):
 *
 *   io_uring_setup     a ring of the captured entries and flags
 *   uring_file, uring_buf  one fixed file or buffer, queued for the
 *                      timeline's next io_uring_register on the ring
 *   io_uring_register  registers what was queued (or unregisters, probes)
 *   sqe                one request, queued for the timeline's next
 *                      io_uring_enter on the ring (fd= its vfd; slot= a
 *                      fixed file's index; buf= a registered buffer)
 *   io_uring_enter     submits the timeline's queue, waits for min=
 *   uring_read, uring_write, ... the completion of one request: its
 *                      result, on the timeline that submitted it
 *
 * Rings are per process, by the fd io_uring_setup returned.  The sqe
 * records of a timeline are held until its next other event (its
 * io_uring_enter, as a rule), so that the link flags of the requests
 * written can skip the requests not written, and completions of held
 * requests follow them; an SQPOLL ring's are written as they come.  Requests of other kinds than file I/O
 * (networking, timeouts, poll, ...) are counted by opcode name and not
 * written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "ioriot/uring.h"

/* One request written and not yet completed. */
struct gureq {
	uint64_t tag;
	enum sys_id done;	/* the completion's operation */
	uint32_t pid, tid;	/* its timeline */
	uint64_t vfd;		/* 0 for a nop */
	struct ofd *ofd;	/* a reference: the kernel holds the file
				 * until the request completes */
	struct node *node;
	int64_t off;		/* -1: the file position, not known */
	bool at_pos;		/* at the file position: it moves it */
	struct resource res;
};

/* One ring of one process. */
struct guring {
	uint32_t pid;
	int64_t fd;
	uint64_t vctx;
	bool sqpoll;
	uint64_t seen;		/* sqe records since its last enter */
	struct resource res;
	struct u64map reqs;	/* user_data -> struct gureq */
	struct u64map files;	/* slot -> struct ofd (a reference) */
};

/* The sqe records of one timeline not written yet, and completions of
 * them that came before they were. */
struct gbatch {
	struct cap_event *sqe, *cqe;
	size_t nsqe, ncqe, sqe_cap, cqe_cap;
};

/* What a held sqe record becomes when its batch is written. */
struct sqe_plan {
	struct guring *ring;
	struct ofd *ofd;	/* NULL for a nop */
	enum sys_id done;	/* SYS_COUNT: not written */
};

static uint64_t ring_key(uint32_t pid, int64_t fd)
{
	return (uint64_t)pid << 32 | (uint32_t)fd;
}

static void req_free(struct gen *g, struct gureq *rq)
{
	if (!rq)
		return;
	if (rq->ofd)
		ofd_put(&g->procs, rq->ofd);
	free(rq);
}

/* Write io_uring operation @op, unless the replay file's reader would
 * refuse it (rlog_uring_problem()): the last guard, counted as io_uring,
 * so that one odd record cannot make the whole file unreadable.  Whether
 * it was written. */
static bool uring_emit(struct gen *g, struct rlog_op *op)
{
	if (rlog_uring_problem(op)) {
		gen_filtered(g, GF_URING);
		return false;
	}
	gen_op_emit(g, op);
	return true;
}

/* Free @r, dropping its fixed files' references (which may write the
 * close of their vfds, timed by the current event). */
static void ring_free(struct gen *g, struct guring *r)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!r)
		return;
	while (r->reqs.slots && (s = u64map_next(&r->reqs, &pos)))
		req_free(g, s->value);
	pos = 0;
	while (r->files.slots && (s = u64map_next(&r->files, &pos)))
		ofd_put(&g->procs, s->value);
	u64map_destroy(&r->reqs);
	u64map_destroy(&r->files);
	free(r);
}

static struct guring *ring_find(struct gen *g, uint32_t pid, int64_t fd)
{
	return g->uring.slots ? u64map_get(&g->uring, ring_key(pid, fd)) : NULL;
}

/* The ring the current event names (@fd, when @have), counted as not
 * replayed if unknown. */
static struct guring *event_ring(struct gen *g, bool have, int64_t fd)
{
	struct guring *r = have ? ring_find(g, g->ev->pid, fd) : NULL;

	if (!r)
		gen_filtered(g, GF_URING);
	return r;
}

static void batch_free(struct gbatch *b)
{
	if (!b)
		return;
	free(b->sqe);
	free(b->cqe);
	free(b);
}

/* Append a copy of @ev (no paths) to @v. */
static int push(struct cap_event **v, size_t *n, size_t *cap,
		const struct cap_event *ev)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct cap_event *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = *ev;
	return 0;
}

/* The batch of timeline @tl, made if @make; NULL if none (or ENOMEM). */
static struct gbatch *batch_of(struct gen *g, uint64_t tl, bool make)
{
	struct gbatch *b = g->uring_held.slots ? u64map_get(&g->uring_held, tl) :
			   NULL;

	if (b || !make)
		return b;
	if ((!g->uring_held.slots && u64map_init(&g->uring_held)) ||
	    !(b = calloc(1, sizeof(*b))) || u64map_put(&g->uring_held, tl, b)) {
		free(b);
		gen_oom(g);
		return NULL;
	}
	return b;
}

/* The file request @ev names: a fixed file of @r, or its fd. */
static struct ofd *request_file(struct gen *g, struct guring *r)
{
	const struct cap_event *ev = g->ev;
	struct proc *p = procs_get(&g->procs, ev->pid);
	struct ofd *o;

	if (!(ev->have & CAP_FD)) {
		gen_filtered(g, GF_INCOMPLETE);
		return NULL;
	}
	if (!(ev->arg & URING_SQE_FIXED_FILE))
		return p ? gen_event_ofd(g, p, ev->fd) : NULL;
	o = ev->fd >= 0 ? u64map_get(&r->files, (uint64_t)ev->fd) : NULL;
	if (!o || !o->vfd) {
		gen_filtered(g, o ? (enum gen_filter)o->skip_reason : GF_URING);
		return NULL;
	}
	return o;
}

/* Decide what held sqe record @ev becomes; counts what is not written. */
static void plan_sqe(struct gen *g, const struct cap_event *ev,
		     struct sqe_plan *pl)
{
	g->ev = ev;
	pl->done = SYS_COUNT;
	pl->ofd = NULL;
	pl->ring = event_ring(g, ev->have & CAP_FD2, ev->fd2);
	if (!pl->ring)
		return;
	pl->ring->seen++;
	if (!(ev->have & CAP_CMD) || !(ev->have & CAP_ARG)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (uring_completion_of(ev->cmd) == SYS_COUNT) {
		g->sum->uring_skipped[ev->cmd & 0xff]++;
		gen_filtered(g, GF_URING);
		return;
	}
	if (!(ev->have & CAP_ADDR2)) {	/* no user_data: no completion */
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (ev->cmd != URING_OP_NOP && !(pl->ofd = request_file(g, pl->ring)))
		return;
	pl->done = uring_completion_of(ev->cmd);
}

/* Write the request of held sqe record @ev with link flags @sqflags. */
static void write_sqe(struct gen *g, const struct cap_event *ev,
		      const struct sqe_plan *pl, int64_t sqflags)
{
	struct guring *r = pl->ring;
	struct gureq *rq = calloc(1, sizeof(*rq)), *old;
	struct rlog_op op;

	g->ev = ev;
	if (!rq) {
		gen_oom(g);
		return;
	}
	rq->tag = ++g->next_tag;
	rq->done = pl->done;
	rq->pid = ev->pid;
	rq->tid = ev->tid;
	rq->off = ev->have & CAP_OFFSET ? ev->offset : 0;
	if (pl->ofd) {
		rq->vfd = pl->ofd->vfd;
		rq->node = pl->ofd->node;
		rq->ofd = pl->ofd;
		pl->ofd->refs++;
		rq->at_pos = rq->off == -1;
		if (rq->at_pos)
			rq->off = pl->ofd->pos_known ? (int64_t)pl->ofd->pos : -1;
	}
	/* A user_data still in the table is a request whose completion was
	 * not captured: the new one takes its place. */
	old = u64map_get(&r->reqs, ev->addr2);
	if (u64map_put(&r->reqs, ev->addr2, rq)) {
		req_free(g, rq);
		gen_oom(g);
		return;
	}
	req_free(g, old);
	gen_op_init(g, &op, SYS_SQE);
	op.ret = 0;
	op.ctx = r->vctx;
	op.tag = rq->tag;
	op.cmd = ev->cmd;
	op.have |= RL_CTX | RL_TAG | RL_CMD;
	if (pl->ofd)
		gen_op_fd(&op, pl->ofd);
	if (ev->arg & URING_SQE_FIXED_FILE) {
		op.slot = (uint64_t)ev->fd;
		op.have |= RL_SLOT;
	}
	if (ev->have & CAP_BUF) {
		op.buf = (uint64_t)ev->buf_index;
		op.have |= RL_BUF;
	}
	if (ev->have & CAP_OFFSET) {
		op.offset = ev->offset;
		op.have |= RL_OFFSET;
	}
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	if ((ev->have & CAP_FLAGS) && ev->flags) {
		op.flags = ev->flags;
		op.have |= RL_FLAGS;
	}
	if (sqflags) {
		op.sqflags = sqflags;
		op.have |= RL_SQFLAGS;
	}
	gen_op_touch(g, &op, &r->res);
	if (pl->ofd) {
		gen_op_touch(g, &op, &pl->ofd->res);
		gen_op_touch(g, &op, &pl->ofd->node->res);
	}
	gen_op_touch(g, &op, &rq->res);
	/* Not written: its completion finds no request, and is counted. */
	if (!uring_emit(g, &op))
		req_free(g, u64map_del(&r->reqs, ev->addr2));
}

static void on_cqe(struct gen *g);

/*
 * Write the held sqe records of batch @b (timeline @tl), then the
 * completions held for them; when the current event is the enter that
 * submitted them, those follow it (gen_uring_after()).  A written
 * request keeps IOSQE_IO_LINK or IOSQE_IO_HARDLINK only if its chain
 * reaches the next request written to its ring: through held requests
 * not written that link on too.
 */
static void batch_write(struct gen *g, uint64_t tl, struct gbatch *b)
{
	const struct cap_event *cur = g->ev;
	bool after = cur && sys_info(cur->sys)->kind == SK_URING_ENTER;
	struct sqe_plan *pl = b->nsqe ? calloc(b->nsqe, sizeof(*pl)) : NULL;

	u64map_del(&g->uring_held, tl);
	if (b->nsqe && !pl) {
		gen_oom(g);
		batch_free(b);
		return;
	}
	for (size_t i = 0; i < b->nsqe; i++)
		plan_sqe(g, &b->sqe[i], &pl[i]);
	for (size_t i = 0; i < b->nsqe; i++) {
		int64_t flags = b->sqe[i].arg, links = flags & URING_SQE_LINKS;
		size_t j;

		if (pl[i].done == SYS_COUNT)
			continue;
		for (j = i + 1; links && j < b->nsqe; j++) {
			if (pl[j].ring != pl[i].ring)
				continue;
			if (pl[j].done != SYS_COUNT)
				break;
			if (!(b->sqe[j].arg & URING_SQE_LINKS))
				links = 0;
		}
		/* The chain ends with the batch; an SQPOLL ring's requests
		 * are written one by one, with their flags as captured. */
		if (j >= b->nsqe && !pl[i].ring->sqpoll)
			links = 0;
		write_sqe(g, &b->sqe[i], &pl[i],
			  (flags & ~(int64_t)URING_SQE_LINKS) | links);
	}
	g->ev = cur;
	free(pl);
	for (size_t i = 0; !after && i < b->ncqe; i++) {
		g->ev = &b->cqe[i];
		on_cqe(g);
		g->ev = cur;
	}
	for (size_t i = 0; after && i < b->ncqe; i++) {
		if (!g->uring_late && !(g->uring_late = calloc(1, sizeof(*b)))) {
			gen_oom(g);
			break;
		}
		if (push(&g->uring_late->cqe, &g->uring_late->ncqe,
			 &g->uring_late->cqe_cap, &b->cqe[i])) {
			gen_oom(g);
			break;
		}
	}
	batch_free(b);
}

void gen_uring_after(struct gen *g)
{
	const struct cap_event *cur = g->ev;
	struct gbatch *late = g->uring_late;

	if (!late)
		return;
	g->uring_late = NULL;
	for (size_t i = 0; i < late->ncqe; i++) {
		g->ev = &late->cqe[i];
		on_cqe(g);
	}
	g->ev = cur;
	batch_free(late);
}

void gen_uring_flush(struct gen *g, uint64_t tl)
{
	struct gbatch *b = batch_of(g, tl, false);

	if (b)
		batch_write(g, tl, b);
}

void gen_uring_flush_all(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos;

	/* Writing a batch deletes it from the map: start over each time. */
	while (g->uring_held.slots && g->uring_held.count) {
		pos = 0;
		s = u64map_next(&g->uring_held, &pos);
		batch_write(g, s->key, s->value);
	}
}

/* The timeline whose held sqe record has @user_data on ring @fd of @pid,
 * or 0 if none holds it. */
static uint64_t holder(struct gen *g, uint32_t pid, int64_t fd,
		       uint64_t user_data)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while (g->uring_held.slots && (s = u64map_next(&g->uring_held, &pos))) {
		const struct gbatch *b = s->value;

		for (size_t i = 0; i < b->nsqe; i++)
			if (b->sqe[i].pid == pid && b->sqe[i].fd2 == fd &&
			    b->sqe[i].addr2 == user_data)
				return s->key;
	}
	return 0;
}

/* True if setup event @ev has a completion ring size (IORING_SETUP_CQSIZE)
 * the replay asks for. */
static bool setup_has_cq(const struct cap_event *ev)
{
	return (ev->have & CAP_ARG) && ev->ret >= 0 &&
	       (ev->have & CAP_FLAGS) && (ev->flags & URING_SETUP_CQSIZE);
}

/* Whether the replay can set up the ring of setup event @ev: a result an
 * fd can be, and sizes within the kernel's limits (uring.h). */
static bool setup_replayable(const struct cap_event *ev)
{
	return ev->ret <= INT32_MAX && (ev->have & CAP_COUNT) &&
	       ev->count >= 1 && ev->count <= URING_ENTRIES_MAX &&
	       (!setup_has_cq(ev) ||
		(ev->arg >= 1 && ev->arg <= URING_CQ_MAX));
}

static void on_setup(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool replayed = setup_replayable(ev);
	struct guring *r = NULL;
	struct rlog_op op;

	/* The fd is the ring's now: a description still held there, and a
	 * ring's fixed files, were closed (uncaptured), before the setup:
	 * their closes come before its op. */
	if (ev->ret >= 0 && ev->ret <= INT32_MAX) {
		gen_fd_reused(g, p, ev->ret);
		ring_free(g, g->uring.slots ?
			  u64map_del(&g->uring, ring_key(ev->pid, ev->ret)) : NULL);
	}
	if (!replayed) {
		/* Counted; what uses the ring finds none. */
		gen_filtered(g, GF_URING);
		if (ev->ret >= 0 && ev->ret <= INT32_MAX)
			gen_install_skipped(g, p, ev->ret, GF_URING);
		return;
	}
	gen_op_init(g, &op, ev->sys);
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	if (ev->have & CAP_FLAGS) {
		op.flags = ev->flags;
		op.have |= RL_FLAGS;
	}
	if (setup_has_cq(ev)) {
		op.cq = ev->arg;
		op.have |= RL_CQ;
	}
	if (ev->ret >= 0) {
		r = calloc(1, sizeof(*r));
		if (!r || u64map_init(&r->reqs) || u64map_init(&r->files) ||
		    (!g->uring.slots && u64map_init(&g->uring)) ||
		    u64map_put(&g->uring, ring_key(ev->pid, ev->ret), r)) {
			if (r) {
				u64map_destroy(&r->reqs);
				u64map_destroy(&r->files);
			}
			free(r);
			gen_oom(g);
			return;
		}
		r->pid = ev->pid;
		r->fd = ev->ret;
		r->vctx = ++g->next_ctx;
		r->sqpoll = (ev->have & CAP_FLAGS) &&
			    (ev->flags & URING_SETUP_SQPOLL);
		op.ctx = r->vctx;
		op.have |= RL_CTX;
		gen_op_touch(g, &op, &r->res);
	}
	uring_emit(g, &op);
}

static void on_enter(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct guring *r = event_ring(g, ev->have & CAP_FD, ev->fd);
	struct rlog_op op;

	if (!r)
		return;
	/* Fewer sqe records than it submitted were captured (SQPOLL
	 * rings submit without it). */
	if (!r->sqpoll && ev->ret > 0 && (uint64_t)ev->ret > r->seen)
		g->sum->uring_sqes_missing += (uint64_t)ev->ret - r->seen;
	r->seen = 0;
	gen_op_init(g, &op, ev->sys);
	op.ctx = r->vctx;
	op.have |= RL_CTX;
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	if (ev->have & CAP_ARG) {
		op.min = ev->arg;
		op.have |= RL_MIN;
	}
	if ((ev->have & CAP_FLAGS) && ev->flags) {
		op.flags = ev->flags;
		op.have |= RL_FLAGS;
	}
	gen_op_touch(g, &op, &r->res);
	uring_emit(g, &op);
}

/* Drop every fixed file of @r. */
static void files_clear(struct gen *g, struct guring *r)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while ((s = u64map_next(&r->files, &pos)))
		ofd_put(&g->procs, s->value);
	u64map_destroy(&r->files);
	if (u64map_init(&r->files))
		gen_oom(g);
}

static void on_register(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct guring *r = event_ring(g, ev->have & CAP_FD, ev->fd);
	struct rlog_op op;

	if (!r)
		return;
	if (!(ev->have & CAP_CMD) || !uring_register_replayed(ev->cmd)) {
		gen_filtered(g, GF_URING);
		return;
	}
	if (ev->ret >= 0 && ev->cmd == URING_REG_UNREGISTER_FILES)
		files_clear(g, r);
	gen_op_init(g, &op, ev->sys);
	op.ctx = r->vctx;
	op.cmd = ev->cmd;
	op.have |= RL_CTX | RL_CMD;
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	gen_op_touch(g, &op, &r->res);
	uring_emit(g, &op);
}

/* uring_file, uring_buf: one entry of the register that follows. */
static void on_table_entry(struct gen *g, struct proc *p, bool file)
{
	const struct cap_event *ev = g->ev;
	struct guring *r = event_ring(g, ev->have & CAP_FD2, ev->fd2);
	struct ofd *o = NULL, *old;
	struct rlog_op op;

	if (!r)
		return;
	if (!(ev->have & CAP_OFFSET) || ev->offset < 0 ||
	    (!file && !(ev->have & CAP_COUNT))) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	gen_op_init(g, &op, ev->sys);
	op.ret = 0;
	op.ctx = r->vctx;
	op.slot = (uint64_t)ev->offset;
	op.have |= RL_CTX | RL_SLOT;
	/* A slot whose file is not replayed stays empty: its requests are
	 * not written either. */
	if (file && (ev->have & CAP_FD) && ev->fd >= 0 &&
	    (o = gen_event_ofd(g, p, ev->fd))) {
		gen_op_fd(&op, o);
		gen_op_touch(g, &op, &o->res);
	}
	if (!file) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	gen_op_touch(g, &op, &r->res);
	if (!uring_emit(g, &op) || !file)
		return;
	old = u64map_del(&r->files, (uint64_t)ev->offset);
	if (old)
		ofd_put(&g->procs, old);
	if (o) {
		o->refs++;	/* the kernel holds the file */
		if (u64map_put(&r->files, (uint64_t)ev->offset, o)) {
			ofd_put(&g->procs, o);
			gen_oom(g);
		}
	}
}

/* A completion: written on the timeline of its request. */
static void on_cqe(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct guring *r = event_ring(g, ev->have & CAP_FD2, ev->fd2);
	struct cap_event as_req;
	struct gureq *rq;
	struct rlog_op op;
	bool data, reading;

	if (!r)
		return;
	rq = ev->have & CAP_ADDR2 ? u64map_get(&r->reqs, ev->addr2) : NULL;
	if (!rq) {
		gen_filtered(g, GF_URING);
		return;
	}
	as_req = *ev;
	as_req.pid = rq->pid;
	as_req.tid = rq->tid;
	g->ev = &as_req;
	gen_op_init(g, &op, rq->done);
	op.ctx = r->vctx;
	op.tag = rq->tag;
	op.have |= RL_CTX | RL_TAG;
	if (rq->vfd) {
		op.fd = rq->vfd;
		op.have |= RL_FD;
	}
	gen_op_touch(g, &op, &r->res);
	gen_op_touch(g, &op, &rq->res);
	if (rq->ofd) {
		/* A close of its vfd waits for it. */
		gen_op_touch(g, &op, &rq->ofd->res);
		gen_op_touch(g, &op, &rq->node->res);
	}
	uring_emit(g, &op);
	data = sys_info(rq->done)->kind == SK_URING_DATA;
	reading = uring_completion_reads(rq->done);
	/* Like a pread64 or pwrite64 of res bytes: what INIT must hold. */
	if (data && ev->ret > 0 && rq->node && rq->off >= 0) {
		if (reading)
			nstree_read(rq->node, (uint64_t)rq->off, (uint64_t)ev->ret);
		else
			nstree_write(rq->node, (uint64_t)rq->off, (uint64_t)ev->ret);
	}
	if (data && rq->at_pos && rq->ofd->pos_known && ev->ret > 0)
		rq->ofd->pos += (uint64_t)ev->ret;
	/* Its reference goes: a close of its fd meanwhile is written now,
	 * on its timeline. */
	req_free(g, u64map_del(&r->reqs, ev->addr2));
	g->ev = ev;
}

void gen_on_uring(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct guring *r;
	struct gbatch *b;
	uint64_t tl;

	switch (sys_info(ev->sys)->kind) {
	case SK_URING_SQE:
		/* Held until the timeline's next other event; an SQPOLL
		 * ring's (its kernel thread submits, no enter follows)
		 * written at once. */
		tl = timeline(ev);
		if ((b = batch_of(g, tl, true)) &&
		    push(&b->sqe, &b->nsqe, &b->sqe_cap, ev))
			gen_oom(g);
		r = ev->have & CAP_FD2 ? ring_find(g, ev->pid, ev->fd2) : NULL;
		if (b && r && r->sqpoll)
			batch_write(g, tl, b);
		break;
	case SK_URING_CQE:
		/* Of a held request: written after it. */
		tl = ev->have & CAP_FD2 && ev->have & CAP_ADDR2 ?
		     holder(g, ev->pid, ev->fd2, ev->addr2) : 0;
		if (tl && (b = batch_of(g, tl, false))) {
			if (push(&b->cqe, &b->ncqe, &b->cqe_cap, ev))
				gen_oom(g);
			break;
		}
		on_cqe(g);
		break;
	case SK_URING_SETUP: on_setup(g, p); break;
	case SK_URING_ENTER:
		on_enter(g);
		gen_uring_after(g);
		break;
	case SK_URING_REGISTER: on_register(g); break;
	case SK_URING_FILE: on_table_entry(g, p, true); break;
	case SK_URING_BUF: on_table_entry(g, p, false); break;
	default:	/* completions: replay file names */
		gen_filtered(g, GF_URING);
		break;
	}
}

bool gen_uring_is_ring(struct gen *g, uint32_t pid, int64_t fd)
{
	return ring_find(g, pid, fd) != NULL;
}

bool gen_uring_closed(struct gen *g, uint32_t pid, int64_t fd)
{
	struct guring *r = g->uring.slots ?
			   u64map_del(&g->uring, ring_key(pid, fd)) : NULL;

	ring_free(g, r);
	return r != NULL;
}

void gen_uring_exit(struct gen *g, uint32_t pid)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while (g->uring.slots && (s = u64map_next(&g->uring, &pos))) {
		struct guring *r = s->value;

		if (r->pid != pid)
			continue;
		u64map_del(&g->uring, s->key);
		ring_free(g, r);
		pos = 0;	/* deleting moves entries back */
	}
}

void gen_uring_free(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos = 0;

	/* Without an event, dropping references writes no close. */
	g->ev = NULL;
	while (g->uring_held.slots && (s = u64map_next(&g->uring_held, &pos)))
		batch_free(s->value);
	u64map_destroy(&g->uring_held);
	batch_free(g->uring_late);
	g->uring_late = NULL;
	pos = 0;
	while (g->uring.slots && (s = u64map_next(&g->uring, &pos)))
		ring_free(g, s->value);
	u64map_destroy(&g->uring);
}
