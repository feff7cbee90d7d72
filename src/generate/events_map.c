/*
 * events_map: what the generator does with file mappings: mmap, the calls
 * by address (munmap, msync, madvise, mremap), and the page records of
 * I/O through a mapping, gathered into runs (docs/replay-format.md §4.5).
 */
#include "gen.h"

/* Page records further apart than this start a new operation: a run is
 * replayed at its first page's time. */
#define RUN_GAP_NS 1000000ULL

void gen_on_mmap(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || ev->fd < 0) {
		gen_filtered(g, GF_NOT_FILE);	/* anonymous memory */
		return;
	}
	/* A ring's memory: the replay's ring has its own. */
	if (!proc_fd(p, ev->fd) && gen_uring_is_ring(g, ev->pid, ev->fd)) {
		gen_filtered(g, GF_URING);
		return;
	}
	struct ofd *o = gen_event_ofd(g, p, ev->fd);
	if (!o)
		return;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, o);
	gen_op_touch(g, &op, &o->res);
	gen_op_touch(g, &op, &o->node->res);
	gen_op_emit(g, &op);
	if (ev->ret < 0 && ev->ret > -4096)
		return;
	struct pmap m = {
		.ofd = o,
		.len = ev->have & CAP_COUNT ? (uint64_t)ev->count : 0,
		.off = ev->have & CAP_OFFSET ? (uint64_t)ev->offset : 0,
		.seq = g->next_id,
	};
	if (proc_map_add(&g->procs, p, (uint64_t)ev->ret, &m))
		gen_oom(g);
}

/*
 * munmap, msync, madvise: replayed only on a mapping of a file.  munmap
 * names the mapping by its address (the replay unmaps all of it), msync
 * and madvise any address in it.  mremap is not followed.  They touch the
 * file as fsync and fadvise64 do: msync writes its pages back, and what
 * the page cache keeps of it depends on all three.
 */
void gen_on_addr(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	struct pmap *m = NULL;
	uint64_t start = 0;

	if ((ev->have & CAP_ADDR) && ev->sys != SYS_MREMAP)
		m = proc_map_at(p, ev->addr, &start);
	if (m && ev->sys == SYS_MUNMAP && start != ev->addr)
		m = NULL;
	if (m && m->latent) {		/* its mmap was left out */
		if (ev->sys == SYS_MUNMAP)
			proc_map_del(&g->procs, p, start);
		gen_filtered(g, GF_FILTER_CTX);
		return;
	}
	if (!m) {
		gen_filtered(g, GF_NOT_FILE);
		return;
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, m->ofd);
	gen_op_touch(g, &op, &m->ofd->res);
	gen_op_touch(g, &op, &m->ofd->node->res);
	gen_op_emit(g, &op);
	if (ev->sys == SYS_MUNMAP && ev->ret == 0)
		proc_map_del(&g->procs, p, start);
}

/*
 * An exit or exec unmapped the file mapping at @addr without a munmap:
 * written as the munmap the kernel made, at the event's time, before the
 * close the mapping's reference may hold back.  The replay's mapping
 * goes then, as the program's did; while it stays, its pages stay in the
 * page cache (POSIX_FADV_DONTNEED and reclaim skip mapped pages).  Like
 * the calls by address it touches the file: whatever another process
 * does to the file afterwards waits for it.
 */
void gen_unmap(void *ctx, uint64_t addr, const struct pmap *m)
{
	struct gen *g = ctx;
	struct rlog_op op;

	if (m->latent)			/* not in the replay */
		return;
	gen_op_init(g, &op, SYS_MUNMAP);
	op.ret = 0;
	op.dur_ns = 0;
	op.addr = addr;
	op.count = (int64_t)m->len;
	op.have |= RL_ADDR | RL_COUNT;
	gen_op_fd(&op, m->ofd);
	gen_op_touch(g, &op, &m->ofd->res);
	gen_op_touch(g, &op, &m->ofd->node->res);
	gen_op_emit(g, &op);
}

void gen_flush_pages(struct gen *g)
{
	struct rlog_op *op = &g->run.op;

	if (!op->id)
		return;
	op->ret = op->count;
	gen_op_emit(g, op);
	op->id = 0;
}

/* Whether the page at @addr of mapping @map continues the open run. */
static bool continues(const struct gen *g, uint64_t map, uint64_t addr)
{
	const struct page_run *run = &g->run;
	const struct cap_event *ev = g->ev;
	uint64_t step;

	if (!run->op.id || run->tl != timeline(ev) || run->map != map ||
	    run->op.sys != sys_canonical(ev->sys) || addr <= run->last_addr ||
	    ev->time_ns < run->last_ns || ev->time_ns - run->last_ns > RUN_GAP_NS)
		return false;
	step = (addr - run->last_addr) / RLOG_PAGE_SIZE;
	return run->op.count == 1 || step == run->op.stride;
}

/*
 * A page record: the page of a file mapping the process made, at the
 * offset the mapping gives (the record's own offset must agree, or the
 * capture saw another mapping there).  It joins the open run when it is
 * the next page of it at the run's stride, else starts one.
 */
void gen_on_page(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct page_run *run = &g->run;
	struct rlog_op *op = &run->op;
	uint64_t addr, start = 0, off;
	struct pmap *m;

	if (!(ev->have & CAP_ADDR)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	addr = ev->addr & ~(uint64_t)(RLOG_PAGE_SIZE - 1);
	m = proc_map_at(p, addr, &start);
	if (m && m->latent) {		/* its mmap was left out */
		gen_filtered(g, GF_FILTER_CTX);
		return;
	}
	off = m ? m->off + (addr - start) : 0;
	if (!m || ((ev->have & CAP_OFFSET) && (uint64_t)ev->offset != off)) {
		gen_filtered(g, GF_UNKNOWN_MAP);
		return;
	}
	/* The page must be in the file: at least one byte of it. */
	nstree_read(m->ofd->node, off, 1);
	if (continues(g, start, addr)) {
		if (op->count == 1)
			op->stride = (addr - run->last_addr) / RLOG_PAGE_SIZE;
		if (op->stride > 1)
			op->have |= RL_STRIDE;
		op->count++;
		run->last_addr = addr;
		run->last_ns = ev->time_ns;
		return;
	}
	gen_flush_pages(g);
	gen_op_init(g, op, ev->sys);
	op->addr = addr;
	op->offset = (int64_t)off;
	op->count = 1;
	op->stride = 1;
	op->have |= RL_ADDR | RL_OFFSET | RL_COUNT;
	gen_op_fd(op, m->ofd);
	gen_op_touch(g, op, &m->ofd->res);
	gen_op_touch(g, op, &m->ofd->node->res);
	if (g->tl_state)	/* the gap before the run's first page */
		gen_op_cpu(g, op, g->tl_state);
	run->tl = timeline(ev);
	run->map = start;
	run->last_addr = addr;
	run->last_ns = ev->time_ns;
}
