/*
 * events_aio: what the generator does with Linux AIO (io_setup, io_submit
 * and its iocb records, io_getevents and its io_event records, io_cancel,
 * io_destroy).  A captured context id becomes a virtual one (ctx=), like
 * fds become vfds; each submitted request a virtual tag (tag=) that its
 * completion names.  The model is a submission queue and a completion
 * queue (docs/replay-format.md §4.2):
 *
 *   iocb        one request, queued on the timeline's submission queue
 *   io_submit   submits what the timeline queued since its last submit
 *   io_getevents reaps completions
 *   aio_pread, aio_pwrite, ... the completion of one request (tag=): its
 *               result and bytes, named by the request's opcode
 *
 * Contexts are per process (an io_setup's ring belongs to its mm).
 */
#include <errno.h>
#include <linux/aio_abi.h>
#include <stdlib.h>

#include "gen.h"

/* One request submitted and not yet completed. */
struct gaio_req {
	uint64_t tag;
	enum sys_id done;	/* the completion's operation */
	uint64_t vfd;
	struct node *node;
	int64_t off;
	struct resource res;
};

/* One context of one process. */
struct gaio_ctx {
	uint32_t pid;
	uint64_t vctx;
	struct resource res;
	struct u64map reqs;	/* iocb address -> struct gaio_req */
	struct gaio_ctx *next;	/* same id in another process */
};

static void ctx_free(struct gaio_ctx *c)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!c)
		return;
	if (c->reqs.slots)
		while ((s = u64map_next(&c->reqs, &pos)))
			free(s->value);
	u64map_destroy(&c->reqs);
	free(c);
}

/* The context @addr of process @pid, or NULL; *@prev gets the context
 * before it in the list of that id (NULL: it is the head). */
static struct gaio_ctx *ctx_find(struct gen *g, uint32_t pid, uint64_t addr,
				 struct gaio_ctx **prev)
{
	struct gaio_ctx *c = g->aio.slots ? u64map_get(&g->aio, addr) : NULL;

	*prev = NULL;
	for (; c && c->pid != pid; c = c->next)
		*prev = c;
	return c;
}

/* The event's context (a=), counted as filtered if unknown. */
static struct gaio_ctx *event_ctx(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct gaio_ctx *prev, *c = ev->have & CAP_ADDR ?
			ctx_find(g, ev->pid, ev->addr, &prev) : NULL;

	if (!c)
		gen_filtered(g, GF_AIO);
	return c;
}

/* Forget context @addr of @pid (destroyed, or its id reused). */
static void ctx_drop(struct gen *g, uint32_t pid, uint64_t addr)
{
	struct gaio_ctx *prev, *c = ctx_find(g, pid, addr, &prev);

	if (!c)
		return;
	if (prev)
		prev->next = c->next;
	else if (c->next)
		u64map_put(&g->aio, addr, c->next);	/* the key exists */
	else
		u64map_del(&g->aio, addr);
	ctx_free(c);
}

static void on_setup(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct gaio_ctx *c = NULL;
	struct rlog_op op;

	gen_op_init(g, &op, ev->sys);
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	if (ev->ret == 0 && (ev->have & CAP_ADDR)) {
		ctx_drop(g, ev->pid, ev->addr);
		c = calloc(1, sizeof(*c));
		if (!c || u64map_init(&c->reqs) || (!g->aio.slots &&
						     u64map_init(&g->aio))) {
			ctx_free(c);
			gen_oom(g);
			return;
		}
		c->pid = ev->pid;
		c->vctx = ++g->next_ctx;
		c->next = u64map_get(&g->aio, ev->addr);
		if (u64map_put(&g->aio, ev->addr, c)) {
			ctx_free(c);
			gen_oom(g);
			return;
		}
		op.ctx = c->vctx;
		op.have |= RL_CTX;
		gen_op_touch(g, &op, &c->res);
	}
	gen_op_emit(g, &op);
}

/* io_destroy, io_submit, io_getevents: a call on a context. */
static void on_ctx_call(struct gen *g, enum sys_kind kind)
{
	const struct cap_event *ev = g->ev;
	struct gaio_ctx *c = event_ctx(g);
	struct rlog_op op;

	if (kind == SK_AIO_SUBMIT) {
		/* The iocb records before it: fewer than it submitted were
		 * captured (lost or filtered) */
		uintptr_t seen = (uintptr_t)u64map_del(&g->aio_batch, timeline(ev));
		uint64_t n = seen ? seen - 1 : 0;

		if (ev->ret > 0 && (uint64_t)ev->ret > n)
			g->sum->aio_iocbs_missing += (uint64_t)ev->ret - n;
	}
	if (!c)
		return;
	gen_op_init(g, &op, ev->sys);
	op.ctx = c->vctx;
	op.have |= RL_CTX;
	if (ev->have & CAP_COUNT) {
		op.count = ev->count;
		op.have |= RL_COUNT;
	}
	if (kind == SK_AIO_GETEVENTS && (ev->have & CAP_ARG)) {
		op.min = ev->arg;
		op.have |= RL_MIN;
	}
	gen_op_touch(g, &op, &c->res);
	gen_op_emit(g, &op);
	if (kind == SK_AIO_DESTROY && ev->ret == 0)
		ctx_drop(g, ev->pid, ev->addr);
}

/* Count one iocb record for the io_submit that follows it. */
static void note_batch(struct gen *g)
{
	uint64_t tl = timeline(g->ev);
	uintptr_t seen = (uintptr_t)u64map_get(&g->aio_batch, tl);

	if (u64map_put(&g->aio_batch, tl, (void *)(seen ? seen + 1 : 2)))
		gen_oom(g);
}

static void on_iocb(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	enum sys_id done = ev->have & CAP_CMD ? sys_aio_completion(ev->cmd) :
						 SYS_COUNT;
	struct gaio_ctx *c;
	struct gaio_req *rq, *old;
	struct rlog_op op;

	note_batch(g);
	if (!(c = event_ctx(g)))
		return;
	if (done == SYS_COUNT || !(ev->have & CAP_ADDR2)) {
		gen_filtered(g, GF_AIO);
		return;
	}
	struct ofd *o = gen_event_ofd(g, p, ev->fd);
	if (!o)
		return;
	if (!(rq = calloc(1, sizeof(*rq)))) {
		gen_oom(g);
		return;
	}
	rq->tag = ++g->next_tag;
	rq->done = done;
	rq->vfd = o->vfd;
	rq->node = o->node;
	rq->off = ev->have & CAP_OFFSET ? ev->offset : 0;
	/* An iocb address still in the table is a request whose completion
	 * was not captured: the new one takes its place. */
	old = u64map_get(&c->reqs, ev->addr2);
	if (u64map_put(&c->reqs, ev->addr2, rq)) {
		free(rq);
		gen_oom(g);
		return;
	}
	free(old);
	gen_op_init(g, &op, SYS_IOCB);
	op.ret = 0;
	gen_op_fd(&op, o);
	op.ctx = c->vctx;
	op.tag = rq->tag;
	op.cmd = ev->cmd;
	op.have |= RL_CTX | RL_TAG | RL_CMD;
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
	gen_op_touch(g, &op, &c->res);
	gen_op_touch(g, &op, &o->res);
	gen_op_touch(g, &op, &o->node->res);
	gen_op_touch(g, &op, &rq->res);
	gen_op_emit(g, &op);
}

/* io_event (a completion) and io_cancel: on one request. */
static void on_request(struct gen *g, bool cancel)
{
	const struct cap_event *ev = g->ev;
	struct gaio_ctx *c = event_ctx(g);
	struct gaio_req *rq;
	struct rlog_op op;

	if (!c)
		return;
	rq = ev->have & CAP_ADDR2 ? u64map_get(&c->reqs, ev->addr2) : NULL;
	if (!rq) {
		gen_filtered(g, GF_AIO);
		return;
	}
	gen_op_init(g, &op, cancel ? SYS_IO_CANCEL : rq->done);
	op.ctx = c->vctx;
	op.tag = rq->tag;
	op.have |= RL_CTX | RL_TAG;
	if (!cancel) {
		op.fd = rq->vfd;
		op.have |= RL_FD;
	}
	gen_op_touch(g, &op, &c->res);
	gen_op_touch(g, &op, &rq->res);
	gen_op_touch(g, &op, &rq->node->res);
	gen_op_emit(g, &op);
	if (cancel)
		return;
	if (ev->ret > 0 && (rq->done == SYS_AIO_PREAD || rq->done == SYS_AIO_PREADV))
		nstree_read(rq->node, (uint64_t)rq->off, (uint64_t)ev->ret);
	else if (ev->ret > 0 && (rq->done == SYS_AIO_PWRITE ||
				 rq->done == SYS_AIO_PWRITEV))
		nstree_write(rq->node, (uint64_t)rq->off, (uint64_t)ev->ret);
	free(u64map_del(&c->reqs, ev->addr2));
}

void gen_on_aio(struct gen *g, struct proc *p)
{
	enum sys_kind kind = sys_info(g->ev->sys)->kind;

	switch (kind) {
	case SK_AIO_SETUP: on_setup(g); break;
	case SK_IOCB: on_iocb(g, p); break;
	case SK_IO_EVENT: on_request(g, false); break;
	case SK_AIO_CANCEL: on_request(g, true); break;
	default: on_ctx_call(g, kind); break;
	}
}

void gen_aio_free(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (g->aio.slots) {
		while ((s = u64map_next(&g->aio, &pos))) {
			struct gaio_ctx *c = s->value, *next;

			for (; c; c = next) {
				next = c->next;
				ctx_free(c);
			}
		}
	}
	u64map_destroy(&g->aio);
	u64map_destroy(&g->aio_batch);
}
