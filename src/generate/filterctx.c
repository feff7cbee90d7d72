/*
 * filterctx: file mappings, AIO contexts and io_uring rings set up by a
 * call the generate-time filters left out (filter.c).  The replay has no
 * such mapping, context or ring, so the page records and calls on them are
 * not written; they are remembered here so those are counted as what they
 * are, "mapping, AIO context, ring set up by one left out".
 */
#include <stdint.h>

#include "gen.h"

/*
 * The AIO context (*@aio true) or io_uring ring the current event names,
 * in *@key: an AIO context by its id, a ring by pid << 32 | fd (its set-up
 * call: the fd it returned).  False if it names none.
 */
static bool ctx_key(const struct cap_event *ev, enum sys_kind kind,
		    bool *aio, uint64_t *key)
{
	uint64_t pid = (uint64_t)ev->pid << 32;

	*aio = false;
	switch (kind) {
	case SK_AIO_SETUP:
		if (ev->ret != 0)
			return false;
		/* fall through */
	case SK_AIO_DESTROY: case SK_AIO_SUBMIT: case SK_AIO_CANCEL:
	case SK_AIO_GETEVENTS: case SK_IOCB: case SK_IO_EVENT:
		*aio = true;
		*key = ev->addr;
		return ev->have & CAP_ADDR;
	case SK_URING_SETUP:
		*key = pid | (uint32_t)ev->ret;
		return ev->ret >= 0;
	case SK_URING_ENTER: case SK_URING_REGISTER:
		*key = pid | (uint32_t)ev->fd;
		return ev->have & CAP_FD;
	case SK_URING_SQE: case SK_URING_CQE: case SK_URING_FILE:
	case SK_URING_BUF:
		*key = pid | (uint32_t)ev->fd2;
		return ev->have & CAP_FD2;
	default:
		return false;
	}
}

/* The map of left-out AIO contexts or rings, made when first needed;
 * NULL on ENOMEM. */
static struct u64map *ctx_map(struct gen *g, bool aio)
{
	struct u64map *m = aio ? &g->filter.aio_ctxs : &g->filter.rings;

	if (!m->slots && u64map_init(m)) {
		gen_oom(g);
		return NULL;
	}
	return m;
}

void gen_filter_left_out_setup(struct gen *g, struct proc *p,
			       enum sys_kind kind)
{
	const struct cap_event *ev = g->ev;
	struct u64map *m;
	uint64_t key;
	bool aio;

	if (kind == SK_MMAP) {
		struct ofd *o = ev->have & CAP_FD ? proc_fd(p, ev->fd) : NULL;
		struct pmap pm = {
			.ofd = o, .latent = true,
			.len = ev->have & CAP_COUNT ? (uint64_t)ev->count : 0,
			.off = ev->have & CAP_OFFSET ? (uint64_t)ev->offset : 0,
			.seq = g->next_id,
		};
		if (o && (o->vfd || o->latent) && !(ev->ret < 0 && ev->ret > -4096) &&
		    proc_map_add(&g->procs, p, (uint64_t)ev->ret, &pm))
			gen_oom(g);
		return;
	}
	if (kind == SK_ADDR && ev->sys == SYS_MUNMAP && (ev->have & CAP_ADDR)) {
		uint64_t start;
		struct pmap *pm = proc_map_at(p, ev->addr, &start);
		if (pm && pm->latent && start == ev->addr)
			proc_map_del(&g->procs, p, start);
		return;
	}
	if ((kind == SK_AIO_SETUP || kind == SK_URING_SETUP) &&
	    ctx_key(ev, kind, &aio, &key) && (m = ctx_map(g, aio)) &&
	    u64map_put(m, key, (void *)(uintptr_t)(ev->pid + 1ULL)))
		gen_oom(g);
}

bool gen_filter_ctx_left_out(struct gen *g, enum sys_kind kind)
{
	const struct cap_event *ev = g->ev;
	struct u64map *m;
	uint64_t key;
	bool aio;

	if (!ctx_key(ev, kind, &aio, &key))
		return false;
	m = aio ? &g->filter.aio_ctxs : &g->filter.rings;
	if (!m->slots)
		return false;
	if (kind == SK_AIO_SETUP || kind == SK_URING_SETUP) {
		if (u64map_get(m, key) == (void *)(uintptr_t)(ev->pid + 1ULL))
			u64map_del(m, key);
		return false;
	}
	return u64map_get(m, key) == (void *)(uintptr_t)(ev->pid + 1ULL);
}

void gen_filter_free(struct gen *g)
{
	u64map_destroy(&g->filter.aio_ctxs);
	u64map_destroy(&g->filter.rings);
}
