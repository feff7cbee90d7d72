/* procs: fd tables of captured processes, shared descriptions (procs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/procs.h"

int procs_init(struct procs *ps, ofd_release_fn release, void *ctx)
{
	memset(ps, 0, sizeof(*ps));
	ps->release = release;
	ps->ctx = ctx;
	return u64map_init(&ps->by_pid);
}

struct proc *procs_find(struct procs *ps, uint32_t pid)
{
	return u64map_get(&ps->by_pid, pid);
}

struct proc *procs_get(struct procs *ps, uint32_t pid)
{
	struct proc *p = u64map_get(&ps->by_pid, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (u64map_put(&ps->by_pid, pid, p)) {
		free(p);
		return NULL;
	}
	ps->created++;
	return p;
}

struct ofd *proc_fd(const struct proc *p, int64_t fd)
{
	if (!p || fd < 0 || fd >= p->nslots)
		return NULL;
	return p->slots[fd].ofd;
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

static int grow_slots(struct proc *p, int64_t fd)
{
	uint32_t n = p->nslots ? p->nslots : 16;

	while (n <= fd)
		n *= 2;
	struct fdslot *s = realloc(p->slots, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + p->nslots, 0, (n - p->nslots) * sizeof(*s));
	p->slots = s;
	p->nslots = n;
	return 0;
}

int proc_install(struct procs *ps, struct proc *p, int64_t fd,
		 struct ofd *ofd, bool cloexec)
{
	if (fd < 0 || fd >= PROCS_MAX_FD)
		return -EBADF;
	if (fd >= p->nslots) {
		int err = grow_slots(p, fd);
		if (err)
			return err;
	}
	ofd->refs++;
	struct ofd *old = p->slots[fd].ofd;
	p->slots[fd].ofd = ofd;
	p->slots[fd].cloexec = cloexec;
	ofd_put(ps, old);
	return 0;
}

bool proc_close(struct procs *ps, struct proc *p, int64_t fd)
{
	struct ofd *o = proc_fd(p, fd);

	if (!o)
		return false;
	p->slots[fd].ofd = NULL;
	ofd_put(ps, o);
	return true;
}

bool proc_set_cloexec(struct proc *p, int64_t fd, bool cloexec)
{
	if (!proc_fd(p, fd))
		return false;
	p->slots[fd].cloexec = cloexec;
	return true;
}

int procs_fork(struct procs *ps, struct proc *parent, uint32_t child_pid)
{
	procs_exit(ps, child_pid);	/* a reused pid starts afresh */
	struct proc *c = procs_get(ps, child_pid);

	if (!c)
		return -ENOMEM;
	if (parent->cwd && !(c->cwd = strdup(parent->cwd)))
		return -ENOMEM;
	if (parent->nslots) {
		c->slots = calloc(parent->nslots, sizeof(*c->slots));
		if (!c->slots)
			return -ENOMEM;
		c->nslots = parent->nslots;
		for (uint32_t i = 0; i < parent->nslots; i++) {
			c->slots[i] = parent->slots[i];
			if (c->slots[i].ofd)
				c->slots[i].ofd->refs++;
		}
	}
	return 0;
}

void proc_exec(struct procs *ps, struct proc *p)
{
	for (uint32_t i = 0; i < p->nslots; i++)
		if (p->slots[i].ofd && p->slots[i].cloexec)
			proc_close(ps, p, i);
	size_t pos = 0;
	struct u64map_slot *s;
	while (p->maps.slots && (s = u64map_next(&p->maps, &pos)))
		ofd_put(ps, s->value);
	u64map_destroy(&p->maps);
}

/* Drop all slots and mappings of @p and free it (not from the map). */
static void proc_free(struct procs *ps, struct proc *p, bool release)
{
	ofd_release_fn saved = ps->release;

	if (!release)
		ps->release = NULL;
	for (uint32_t i = 0; i < p->nslots; i++)
		if (p->slots[i].ofd)
			proc_close(ps, p, i);
	size_t pos = 0;
	struct u64map_slot *s;
	while (p->maps.slots && (s = u64map_next(&p->maps, &pos)))
		ofd_put(ps, s->value);
	u64map_destroy(&p->maps);
	ps->release = saved;
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
	struct u64map_slot *s;

	while (ps->by_pid.slots && (s = u64map_next(&ps->by_pid, &pos)))
		proc_free(ps, s->value, false);
	u64map_destroy(&ps->by_pid);
}
