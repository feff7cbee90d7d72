/*
 * procs: fd tables of captured processes, shared descriptions and file
 * mappings (procs.h).
 * Low fds sit in a dense array, high ones in a sparse map, so memory follows
 * the fds in use, not the largest fd number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

int procs_init(struct procs *ps, ofd_release_fn release, map_release_fn unmap,
	       void *ctx)
{
	memset(ps, 0, sizeof(*ps));
	ps->release = release;
	ps->unmap = unmap;
	ps->ctx = ctx;
	return u64map_init(&ps->by_pid);
}

/* proc.map_hint when it names no mapping: not a page's address. */
#define NO_HINT UINT64_MAX

struct proc *procs_get(struct procs *ps, uint32_t pid)
{
	struct proc *p = u64map_get(&ps->by_pid, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->map_hint = NO_HINT;
	if (u64map_put(&ps->by_pid, pid, p)) {
		free(p);
		return NULL;
	}
	ps->created++;
	return p;
}

/* The slot of @fd, or NULL if it was never used. */
static struct fdslot *slot_of(const struct proc *p, int64_t fd)
{
	if (fd < 0)
		return NULL;
	if (fd < p->nslots)
		return &p->slots[fd];
	if (fd < PROCS_DENSE_FDS || !p->sparse.slots)
		return NULL;
	return u64map_get(&p->sparse, (uint64_t)fd);
}

struct ofd *proc_fd(const struct proc *p, int64_t fd)
{
	struct fdslot *s = p ? slot_of(p, fd) : NULL;

	return s ? s->ofd : NULL;
}

struct ofd *proc_fd_at(const struct proc *p, int64_t fd, uint64_t t,
		       uint32_t tid)
{
	struct fdslot *s = p ? slot_of(p, fd) : NULL;

	if (!s || (tid != s->tid && t < s->since_ns))
		return NULL;
	return s->ofd;
}

struct ofd *ofd_new(void)
{
	return calloc(1, sizeof(struct ofd));
}

void ofd_put(struct procs *ps, struct ofd *ofd)
{
	if (!ofd || --ofd->refs)
		return;
	if (ps->release)
		ps->release(ps->ctx, ofd);
	free(ofd);
}

/* The slot of @fd, created free if needed.  NULL on ENOMEM. */
static struct fdslot *slot_make(struct proc *p, int64_t fd)
{
	if (fd < PROCS_DENSE_FDS) {
		if (fd >= p->nslots) {
			uint32_t n = p->nslots ? p->nslots : 16;
			while (n <= fd)
				n *= 2;
			struct fdslot *v = realloc(p->slots, n * sizeof(*v));
			if (!v)
				return NULL;
			memset(v + p->nslots, 0, (n - p->nslots) * sizeof(*v));
			p->slots = v;
			p->nslots = n;
		}
		return &p->slots[fd];
	}
	struct fdslot *s = slot_of(p, fd);
	if (s)
		return s;
	if (!p->sparse.slots && u64map_init(&p->sparse))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s || u64map_put(&p->sparse, (uint64_t)fd, s)) {
		free(s);
		return NULL;
	}
	return s;
}

int proc_install(struct procs *ps, struct proc *p, int64_t fd,
		 const struct fdslot *what)
{
	if (fd < 0 || fd > UINT32_MAX)
		return -EBADF;
	struct fdslot *s = slot_make(p, fd);
	if (!s)
		return -ENOMEM;
	what->ofd->refs++;
	struct ofd *old = s->ofd;
	*s = *what;
	ofd_put(ps, old);
	return 0;
}

/* Empty slot @s, releasing its description. */
static void slot_drop(struct procs *ps, struct fdslot *s)
{
	struct ofd *o = s->ofd;

	s->ofd = NULL;
	ofd_put(ps, o);
}

int proc_close(struct procs *ps, struct proc *p, int64_t fd)
{
	struct fdslot *s = slot_of(p, fd);

	if (!s || !s->ofd)
		return -EBADF;
	slot_drop(ps, s);
	return 0;
}

int proc_shadow(struct procs *ps, struct proc *p, int64_t fd, uint64_t until,
		uint32_t tid)
{
	struct fdslot *s = slot_of(p, fd);
	struct fd_shadow *sh;

	if (!s || !s->ofd)
		return 0;
	if (!p->shadows.slots && u64map_init(&p->shadows))
		return -ENOMEM;
	proc_drop_shadow(ps, p, fd);	/* an older one: its close is lost */
	sh = malloc(sizeof(*sh));
	if (!sh || u64map_put(&p->shadows, (uint64_t)fd, sh)) {
		free(sh);
		return -ENOMEM;
	}
	*sh = (struct fd_shadow){ .old = *s, .until = until, .tid = tid };
	s->ofd = NULL;		/* the reference moves to the shadow */
	return 0;
}

struct ofd *proc_shadowed(const struct proc *p, int64_t fd, uint64_t t,
			  uint32_t tid)
{
	const struct fd_shadow *sh;

	if (!p->shadows.count || fd < 0)
		return NULL;
	sh = u64map_get(&p->shadows, (uint64_t)fd);
	return sh && t < sh->until && tid != sh->tid ? sh->old.ofd : NULL;
}

void proc_drop_shadow(struct procs *ps, struct proc *p, int64_t fd)
{
	struct fd_shadow *sh;

	if (!p->shadows.count || fd < 0)
		return;
	sh = u64map_del(&p->shadows, (uint64_t)fd);
	if (sh)
		ofd_put(ps, sh->old.ofd);
	free(sh);
}

void proc_unshadow(struct proc *p, int64_t fd, uint64_t t)
{
	struct fd_shadow *sh;
	struct fdslot *s;

	if (!p->shadows.count || fd < 0)
		return;
	sh = u64map_get(&p->shadows, (uint64_t)fd);
	s = slot_of(p, fd);
	if (!sh || sh->old.since_ns <= t || !s || s->ofd)
		return;
	*s = sh->old;		/* with the shadow's reference */
	free(u64map_del(&p->shadows, (uint64_t)fd));
}

void proc_expire(struct procs *ps, struct proc *p, uint64_t now)
{
	struct u64map_slot *e;
	size_t pos = 0;

	if (!p->shadows.count)
		return;
	while ((e = u64map_next(&p->shadows, &pos))) {
		struct fd_shadow *sh = e->value;

		if (sh->until > now || sh->old.since_ns > now)
			continue;
		/* Deleting shifts later entries back: look here again. */
		proc_drop_shadow(ps, p, (int64_t)e->key);
		pos = 0;
	}
}

int proc_set_cloexec(struct proc *p, int64_t fd, bool cloexec)
{
	struct fdslot *s = slot_of(p, fd);

	if (!s || !s->ofd)
		return -EBADF;
	s->cloexec = cloexec;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Apply @fn to every used slot of @p with fd in [@first, @last], dense
 * ones in fd order, then sparse ones in fd order (so closes come out
 * deterministic).  @fn may drop the slot it is given.  Returns 0 or
 * -ENOMEM.
 */
static int walk_slots(struct proc *p, uint64_t first, uint64_t last,
		      void (*fn)(void *ctx, struct proc *p, uint64_t fd,
				 struct fdslot *s), void *ctx)
{
	for (uint64_t fd = first; fd < p->nslots && fd <= last; fd++)
		if (p->slots[fd].ofd)
			fn(ctx, p, fd, &p->slots[fd]);
	if (!p->sparse.slots || !p->sparse.count)
		return 0;
	uint64_t *fds = malloc(p->sparse.count * sizeof(*fds));
	size_t n = 0, pos = 0;
	struct u64map_slot *e;

	if (!fds)
		return -ENOMEM;
	while ((e = u64map_next(&p->sparse, &pos)))
		if (e->key >= first && e->key <= last)
			fds[n++] = e->key;
	qsort(fds, n, sizeof(*fds), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		struct fdslot *s = u64map_get(&p->sparse, fds[i]);
		if (s->ofd)
			fn(ctx, p, fds[i], s);
	}
	free(fds);
	return 0;
}

/* each_slot()'s call of a slot function. */
struct slot_call {
	struct procs *ps;
	void (*fn)(struct procs *, struct fdslot *);
};

static void call_slot(void *ctx, struct proc *p, uint64_t fd,
		      struct fdslot *s)
{
	struct slot_call *c = ctx;

	(void)p;
	(void)fd;
	c->fn(c->ps, s);
}

/* walk_slots() with @fn of the procs.  0 or -ENOMEM. */
static int each_slot(struct procs *ps, struct proc *p, uint64_t first,
		     uint64_t last, void (*fn)(struct procs *, struct fdslot *))
{
	struct slot_call c = { .ps = ps, .fn = fn };

	return walk_slots(p, first, last, call_slot, &c);
}

/* proc_each_fd()'s call of the caller's function. */
struct fd_call {
	void (*fn)(void *ctx, struct proc *p, int64_t fd, struct ofd *o);
	void *ctx;
};

static void call_fd(void *ctx, struct proc *p, uint64_t fd, struct fdslot *s)
{
	struct fd_call *c = ctx;

	c->fn(c->ctx, p, (int64_t)fd, s->ofd);
}

int proc_each_fd(struct proc *p,
		 void (*fn)(void *ctx, struct proc *p, int64_t fd,
			    struct ofd *o), void *ctx)
{
	struct fd_call c = { .fn = fn, .ctx = ctx };

	return walk_slots(p, 0, UINT64_MAX, call_fd, &c);
}

static void set_cloexec(struct procs *ps, struct fdslot *s)
{
	(void)ps;
	s->cloexec = true;
}

static void drop_cloexec(struct procs *ps, struct fdslot *s)
{
	if (s->cloexec)
		slot_drop(ps, s);
}

int proc_close_range(struct procs *ps, struct proc *p, uint64_t first,
		     uint64_t last, bool cloexec)
{
	return each_slot(ps, p, first, last, cloexec ? set_cloexec : slot_drop);
}

int procs_fork(struct procs *ps, struct proc *parent, uint32_t child_pid)
{
	procs_exit(ps, child_pid);	/* a reused pid starts afresh */
	struct proc *c = procs_get(ps, child_pid);
	size_t pos = 0;
	struct u64map_slot *e;

	if (!c)
		return -ENOMEM;
	if (parent->cwd && !(c->cwd = strdup(parent->cwd)))
		return -ENOMEM;
	memcpy(c->comm, parent->comm, sizeof(c->comm));
	for (uint32_t fd = 0; fd < parent->nslots; fd++)
		if (parent->slots[fd].ofd &&
		    proc_install(ps, c, fd, &parent->slots[fd]))
			return -ENOMEM;
	while (parent->sparse.slots && (e = u64map_next(&parent->sparse, &pos))) {
		struct fdslot *s = e->value;
		if (s->ofd && proc_install(ps, c, (int64_t)e->key, s))
			return -ENOMEM;
	}
	return 0;
}

/* Drop every file mapping of @p, each through the unmap callback. */
static void drop_maps(struct procs *ps, struct proc *p)
{
	size_t pos = 0;
	struct u64map_slot *e;

	while (p->maps.slots && (e = u64map_next(&p->maps, &pos))) {
		struct pmap *m = e->value;

		if (ps->unmap)
			ps->unmap(ps->ctx, e->key, m);
		ofd_put(ps, m->ofd);
		free(m);
	}
	u64map_destroy(&p->maps);
	p->map_hint = NO_HINT;
}

int proc_map_add(struct procs *ps, struct proc *p, uint64_t addr,
		 const struct pmap *m)
{
	struct pmap *copy = malloc(sizeof(*copy));

	if (!copy || (!p->maps.slots && u64map_init(&p->maps)))
		goto fail;
	*copy = *m;
	proc_map_del(ps, p, addr);
	if (u64map_put(&p->maps, addr, copy))
		goto fail;
	copy->ofd->refs++;
	p->map_hint = NO_HINT;		/* it may cover the last one found */
	return 0;
fail:
	free(copy);
	return -ENOMEM;
}

void proc_map_del(struct procs *ps, struct proc *p, uint64_t addr)
{
	struct pmap *m = p->maps.slots ? u64map_del(&p->maps, addr) : NULL;

	if (!m)
		return;
	ofd_put(ps, m->ofd);
	free(m);
	p->map_hint = NO_HINT;
}

/* Whether mapping @m at @start holds @addr. */
static bool map_holds(const struct pmap *m, uint64_t start, uint64_t addr)
{
	return addr >= start && addr - start < m->len;
}

struct pmap *proc_map_at(struct proc *p, uint64_t addr, uint64_t *start)
{
	struct pmap *best = p->maps.slots ? u64map_get(&p->maps, p->map_hint) :
			    NULL;
	struct u64map_slot *e;
	size_t pos = 0;

	/* Page records come in runs through one mapping. */
	if (best && map_holds(best, p->map_hint, addr)) {
		*start = p->map_hint;
		return best;
	}
	best = NULL;
	while (p->maps.slots && (e = u64map_next(&p->maps, &pos))) {
		struct pmap *m = e->value;

		if (map_holds(m, e->key, addr) && (!best || m->seq > best->seq)) {
			best = m;
			*start = e->key;
		}
	}
	if (best)
		p->map_hint = *start;
	return best;
}

int proc_exec(struct procs *ps, struct proc *p)
{
	drop_maps(ps, p);
	return each_slot(ps, p, 0, UINT64_MAX, drop_cloexec);
}

/* Drop all slots and mappings of @p and free it (not from the map).
 * Without @release, descriptions and mappings are freed without their
 * callbacks. */
static void proc_free(struct procs *ps, struct proc *p, bool release)
{
	ofd_release_fn saved = ps->release;
	map_release_fn saved_unmap = ps->unmap;
	size_t pos = 0;
	struct u64map_slot *e;

	if (!release) {
		ps->release = NULL;
		ps->unmap = NULL;
	}
	/* Freeing: no memory for sorting, so take the sparse fds as they
	 * come when each_slot() cannot allocate. */
	if (each_slot(ps, p, 0, UINT64_MAX, slot_drop))
		while (p->sparse.slots && (e = u64map_next(&p->sparse, &pos)))
			slot_drop(ps, e->value);
	drop_maps(ps, p);
	if (p->shadows.slots) {
		proc_expire(ps, p, UINT64_MAX);
		u64map_destroy(&p->shadows);
	}
	ps->release = saved;
	ps->unmap = saved_unmap;
	pos = 0;
	while (p->sparse.slots && (e = u64map_next(&p->sparse, &pos)))
		free(e->value);
	u64map_destroy(&p->sparse);
	free(p->slots);
	free(p->cwd);
	free(p);
}

void procs_exit(struct procs *ps, uint32_t pid)
{
	struct proc *p = u64map_del(&ps->by_pid, pid);

	if (p)
		proc_free(ps, p, true);
}

void procs_destroy(struct procs *ps)
{
	size_t pos = 0;
	struct u64map_slot *e;

	while (ps->by_pid.slots && (e = u64map_next(&ps->by_pid, &pos)))
		proc_free(ps, e->value, false);
	u64map_destroy(&ps->by_pid);
}
