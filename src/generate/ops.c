/*
 * ops: the generator's building blocks for an event: counting filters,
 * starting, ordering and writing an operation, and resolving the event's
 * paths and fds against the process's state.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

void gen_filtered(struct gen *g, enum gen_filter why)
{
	/* An AIO context or ring unknown because its set-up was left out
	 * by the filters: counted as that. */
	if (g->filter.ctx_left_out && (why == GF_AIO || why == GF_URING))
		why = GF_FILTER_CTX;
	g->sum->filtered[why]++;
}

enum gen_filter gen_filter_of(enum pathmap_status st)
{
	switch (st) {
	case PATHMAP_PSEUDO: return GF_PSEUDO;
	case PATHMAP_OWN: return GF_OWN;
	case PATHMAP_NO_MOUNT: return GF_NO_MOUNT;
	case PATHMAP_TOO_LONG: return GF_TOO_LONG;
	default: return GF_RELATIVE;
	}
}

void gen_oom(struct gen *g)
{
	if (!g->err)
		g->err = -ENOMEM;
}

/* Start an operation for the current event. */
void gen_op_init(struct gen *g, struct rlog_op *op, enum sys_id sys)
{
	const struct cap_event *ev = g->ev;

	/* The dependency IDs beyond deps.n are never read: a third of the
	 * operation need not be cleared. */
	memset(op, 0, offsetof(struct rlog_op, deps.id));
	op->deps.n = op->deps.dropped = 0;
	op->id = ++g->next_id;
	op->pid = ev->pid;
	op->tid = ev->tid;
	op->time_ns = ev->time_ns;
	op->dur_ns = ev->dur_ns;
	op->sys = sys_canonical(sys);
	op->ret = ev->ret;
}

void gen_op_touch(struct gen *g, struct rlog_op *op, struct resource *res)
{
	deps_touch(&op->deps, res, op->id, timeline(g->ev));
}

void gen_op_use(struct gen *g, struct rlog_op *op, struct resource *res)
{
	deps_use(&g->res_users, &op->deps, res, op->id, timeline(g->ev));
}

/* Forks followed up from a timeline to its nearest ancestor with an
 * operation: a bound, since a thread id can come again. */
#define PARENT_HOPS_MAX 64

/*
 * parent= of @op, the first operation of timeline @key (docs/replay-format.md
 * §4.7): the thread whose fork record made it, if that timeline has an
 * operation already, else the nearest ancestor that has one; none if the
 * thread was there before the capture or no ancestor has one.
 */
static void op_parent(const struct gen *g, struct rlog_op *op, uint64_t key)
{
	for (int i = 0; i < PARENT_HOPS_MAX; i++) {
		const struct tline *t;

		key = (uintptr_t)u64map_get(&g->parents, key);
		if (!key)
			return;
		t = u64map_get(&g->timelines, key);
		if (t && t->ops) {
			op->parent = key;
			op->have |= RL_PARENT;
			return;
		}
	}
}

/* The state of @op's timeline, made if it has none yet (NULL without
 * memory).  At its first operation the timeline and its process are
 * counted (the replay file's timelines= and processes=) and the operation
 * names its parent.  Most operations are on the current event's timeline,
 * whose state gen_event() looked up already. */
static struct tline *op_timeline(struct gen *g, struct rlog_op *op)
{
	uint64_t key = (uint64_t)op->pid << 32 | op->tid;
	struct tline *t = key == g->tl_key && g->tl_state ? g->tl_state :
			  u64map_get(&g->timelines, key);

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || u64map_put(&g->timelines, key, t)) {
			free(t);
			gen_oom(g);
			return NULL;
		}
	}
	if (t->ops)
		return t;
	t->ops = true;
	op_parent(g, op, key);
	g->sum->op_timelines++;
	if (!u64map_get(&g->op_pids, op->pid)) {
		if (u64map_put(&g->op_pids, op->pid, g))
			gen_oom(g);
		else
			g->sum->op_processes++;
	}
	return t;
}

/* @a + @b, held at UINT64_MAX (a hand-edited R cannot wrap runq=). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * probe= (replay-format §4.7): of @op's cpu=, what the capture's probe
 * added (capture-format §4.2): its part of the gap, and all of the cost
 * of each of the @folded calls it recorded in the gap that the file has
 * no operation for.  None for a log that does not say the probe's cost,
 * never more than cpu=.
 */
static void op_probe(const struct gen *g, struct rlog_op *op, uint64_t folded)
{
	uint64_t ns;

	if (!g->probe_gap_ns || !op->cpu_ns)
		return;
	/* A hand-edited K or header cannot wrap it below cpu=. */
	ns = g->probe_call_ns &&
	     folded > (UINT64_MAX - g->probe_gap_ns) / g->probe_call_ns ?
	     UINT64_MAX : g->probe_gap_ns + folded * g->probe_call_ns;
	op->probe_ns = ns < op->cpu_ns ? ns : op->cpu_ns;
	op->have |= RL_PROBE;
}

/*
 * cpu= (docs/replay-format.md §4.7): the on-CPU ns of a timeline between
 * the end of its previous operation and the start of this one.  The
 * probe's C of an event counts from the end of the thread's previous event
 * in the log; what the events not written in between spent on a CPU (their
 * C, and X within their calls) is added (gen_cpu_after()).  The first
 * operation written for an event with C takes the sum; another of the same
 * event (a close written before an open) has 0.  An operation made from an
 * event outside the probe's count (an AIO or io_uring record, a process
 * record) lies somewhere in such a span: it has no cpu=, and neither has
 * the next one, from which the count starts anew.  So has a timeline's
 * first operation.  runq= is the wait for a CPU over the same span, summed
 * the same way from R (the gaps of the events not written; not their
 * calls'), on the operation that takes cpu=.
 */
void gen_op_cpu(struct gen *g, struct rlog_op *op, struct tline *t)
{
	const struct cap_event *ev = g->ev;

	if (!(ev->have & (CAP_CPU | CAP_CPU_CALL))) {
		t->cpu_chain = false;
		t->cpu_ns = 0;
		t->runq_ns = 0;
		t->folded = 0;
		return;
	}
	if ((ev->have & CAP_CPU) && t->cpu_chain) {
		op->cpu_ns = g->cpu_taken ? 0 : t->cpu_ns + ev->cpu_ns;
		op->have |= RL_CPU;
		op_probe(g, op, t->folded + ev->folded);
		op->runq_ns = add_sat(t->runq_ns,
				      ev->have & CAP_RUNQ ? ev->runq_ns : 0);
		if (op->runq_ns && !g->cpu_taken)
			op->have |= RL_RUNQ;
		else
			op->runq_ns = 0;
	}
	g->cpu_taken = true;
	t->cpu_chain = true;
	t->cpu_ns = 0;
	t->runq_ns = 0;
	t->folded = 0;
}


void gen_cpu_after(struct gen *g)
{
	const struct cap_event *ev = g->ev;
	struct tline *t;

	if (g->cpu_taken || !(ev->have & (CAP_CPU | CAP_CPU_CALL)))
		return;
	t = timeline(ev) == g->tl_key && g->tl_state ? g->tl_state :
	    u64map_get(&g->timelines, timeline(ev));
	if (!t)
		return;		/* a thread's first event: nothing to add to */
	t->cpu_ns += (ev->have & CAP_CPU ? ev->cpu_ns : 0) +
		     (ev->have & CAP_CPU_CALL ? ev->cpu_call_ns : 0);
	if (ev->have & CAP_RUNQ)
		t->runq_ns = add_sat(t->runq_ns, ev->runq_ns);
	t->folded += 1 + ev->folded;
}

void gen_timelines_free(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while (g->timelines.slots && (s = u64map_next(&g->timelines, &pos)))
		free(s->value);
	u64map_destroy(&g->timelines);
	u64map_destroy(&g->parents);
}

void gen_op_emit(struct gen *g, struct rlog_op *op)
{
	/* An open page run has the earlier id: it is written first, and
	 * ends (a close that expired, or held io_uring requests, can be
	 * written while page records come). */
	if (g->run.op.id && op != &g->run.op)
		gen_flush_pages(g);
	/* With --from, times count from the window's start. */
	op->time_ns = op->time_ns > g->filter.from_ns ?
		      op->time_ns - g->filter.from_ns : 0;
	struct tline *t = op_timeline(g, op);
	/* A page run's cpu= was set when it began. */
	if (t && g->ev && op != &g->run.op &&
	    ((uint64_t)op->pid << 32 | op->tid) == timeline(g->ev))
		gen_op_cpu(g, op, t);
	if (t)
		gen_op_sync(g, op, t);
	if (op->time_ns + op->dur_ns > g->sum->ops_end_ns)
		g->sum->ops_end_ns = op->time_ns + op->dur_ns;
	if (g->opt->sink) {
		g->opt->sink(g->opt->sink_ctx, op);
	} else {
		rlog_write_op(opwriter_outbuf(g->ops), op);
		opwriter_line_done(g->ops);
	}
	g->sum->ops++;
	g->sum->deps_dropped += (uint64_t)op->deps.dropped;
	g->sum->ops_per_sys[op->sys]++;
}

/* Copy the event's plain arguments into @op. */
void gen_op_args(struct rlog_op *op, const struct cap_event *ev)
{
	unsigned h = ev->have;

#define COPY(cap, field, rl) \
	do { if (h & (cap)) { op->field = ev->field; op->have |= (rl); } } while (0)
	COPY(CAP_FLAGS, flags, RL_FLAGS);
	if (!sys_is_stat(ev->sys))		/* for stat calls m is a result */
		COPY(CAP_MODE, mode, RL_MODE);
	COPY(CAP_OFFSET, offset, RL_OFFSET);
	COPY(CAP_OFFSET2, offset2, RL_OFFSET2);
	COPY(CAP_WHENCE, whence, RL_WHENCE);
	COPY(CAP_COUNT, count, RL_COUNT);
	COPY(CAP_CMD, cmd, RL_CMD);
	COPY(CAP_UID, uid, RL_UID);
	COPY(CAP_ADDR, addr, RL_ADDR);
	COPY(CAP_UMASK, umask, RL_UMASK);
#undef COPY
	if (h & CAP_ARG) {		/* G: a gid for chown calls */
		if (sys_is_chown(ev->sys)) {
			op->gid = ev->arg;
			op->have |= RL_GID;
		} else {
			op->arg = ev->arg;
			op->have |= RL_ARG;
		}
	}
}

void gen_op_fd(struct rlog_op *op, const struct ofd *ofd)
{
	op->fd = ofd->vfd;
	op->have |= RL_FD;
}

/*
 * Name path @r in @op (as path2 if @second).  Resolving it walks through its
 * ancestors: the operation depends on their last rename, mkdir or rmdir.
 */
void gen_op_path(struct gen *g, struct rlog_op *op, const struct resolved *r,
		    bool second)
{
	for (const struct node *a = r->node->parent; a; a = a->parent)
		deps_need(&op->deps, &a->ns_res, timeline(g->ev));
	if (second) {
		op->path2 = r->sandbox;
		op->path2_len = (uint32_t)r->sandbox_len;
		op->have |= RL_PATH2;
	} else {
		op->path = r->sandbox;
		op->path_len = (uint32_t)r->sandbox_len;
		op->have |= RL_PATH;
	}
}

/* Node type from a v4 stat result mode. */
enum node_type gen_type_of_mode(int64_t mode)
{
	if (S_ISDIR(mode))
		return NT_DIR;
	if (S_ISLNK(mode))
		return NT_SYMLINK;
	if (S_ISREG(mode))
		return NT_FILE;
	return NT_UNKNOWN;
}

/*
 * The directory a relative path of the event starts from: @dirfd's, if
 * given and not AT_FDCWD, else the process's working directory.  NULL if
 * unknown.  @buf has PATHMAP_MAX bytes.
 */
const char *gen_base_dir(struct proc *p, bool have_dirfd, int64_t dirfd,
			    char *buf)
{
	if (have_dirfd && dirfd != AT_FDCWD) {
		struct ofd *dir = proc_fd(p, dirfd);
		return dir && dir->node && nstree_path(dir->node, buf, false) > 0 ?
		       buf : NULL;
	}
	return p ? p->cwd : NULL;
}

/*
 * Resolve a path into g->path[@slot]: normalise it (relative paths against
 * @base), rewrite it into its sandbox and look up its node.  Returns the
 * pathmap status.
 */
/* The prepared form of @path, if the reader thread made one: it is the
 * current event's p or P itself. */
static const struct prepared *prepared_of(const struct gen *g,
					  const char *path, size_t len)
{
	const struct prepared *pre = g->pre;

	if (!pre || !len)
		return NULL;
	if (pre[0].src == path && g->ev->path_len == len)
		return &pre[0];
	if (pre[1].src == path && g->ev->path2_len == len)
		return &pre[1];
	return NULL;
}

/* gen_resolve() of a path the reader thread prepared. */
static enum pathmap_status resolve_prepared(struct gen *g,
					    const struct prepared *pp,
					    struct resolved *r)
{
	if (!pp->norm)
		return pp->st;
	memcpy(r->norm, pp->norm, (size_t)pp->norm_len + 1);
	r->norm_len = pp->norm_len;
	if (pp->st != PATHMAP_OK)
		return pp->st;
	memcpy(r->sandbox, pp->sandbox, (size_t)pp->sandbox_len + 1);
	r->sandbox_len = pp->sandbox_len;
	r->mount = pp->mount;
	r->node = nstree_lookup_hashed(g->ns, r->norm, r->norm_len, pp->hash);
	if (!r->node) {
		gen_oom(g);
		return PATHMAP_TOO_LONG;
	}
	g->mount_used[r->mount - g->pm.mounts->v] = true;
	return PATHMAP_OK;
}

enum pathmap_status gen_resolve(struct gen *g, const char *base,
				   const char *path, size_t len, int slot)
{
	struct resolved *r = &g->path[slot];
	const struct prepared *pp = prepared_of(g, path, len);

	if (pp)
		return resolve_prepared(g, pp, r);
	long n = path_normalize(path, len, base, r->norm);

	if (n == -ENAMETOOLONG)
		return PATHMAP_TOO_LONG;
	if (n < 0)
		return PATHMAP_RELATIVE;
	r->norm_len = (size_t)n;
	enum pathmap_status st = pathmap_rewrite(&g->pm, r->norm, r->norm_len,
						 r->sandbox, &r->sandbox_len,
						 &r->mount);
	if (st != PATHMAP_OK)
		return st;
	r->node = nstree_lookup(g->ns, r->norm, r->norm_len);
	if (!r->node) {
		gen_oom(g);
		return PATHMAP_TOO_LONG;
	}
	g->mount_used[r->mount - g->pm.mounts->v] = true;
	return PATHMAP_OK;
}

/*
 * Resolve path @slot of the event: 0 is p, relative to dirfd d; 1 is P,
 * relative to dirfd e, or to d when the event has no e (symlinkat has one
 * dirfd, for P).  Counts and returns false if the operation is filtered.
 */
bool gen_resolve_path(struct gen *g, struct proc *p, int slot)
{
	const struct cap_event *ev = g->ev;
	bool second = slot == 1, use_e = second && (ev->have & CAP_FD2);
	char buf[PATHMAP_MAX];

	if (!(ev->have & (second ? CAP_PATH2 : CAP_PATH))) {
		gen_filtered(g, GF_INCOMPLETE);
		return false;
	}
	const char *base = gen_base_dir(p, ev->have & (use_e ? CAP_FD2 : CAP_FD),
				    use_e ? ev->fd2 : ev->fd, buf);
	enum pathmap_status st =
		gen_resolve(g, base, second ? ev->path2 : ev->path,
			second ? ev->path2_len : ev->path_len, slot);

	if (st != PATHMAP_OK) {
		gen_filtered(g, gen_filter_of(st));
		return false;
	}
	return true;
}

/* The description behind the event's fd; counts and returns NULL if the
 * operation is filtered. */
struct ofd *gen_event_ofd(struct gen *g, struct proc *p, int64_t fd)
{
	struct ofd *o = proc_fd(p, fd);

	if (!(g->ev->have & CAP_FD)) {
		gen_filtered(g, GF_INCOMPLETE);
		return NULL;
	}
	if (!o) {
		gen_filtered(g, GF_UNKNOWN_FD);
		return NULL;
	}
	if (!o->vfd) {
		gen_filtered(g, (enum gen_filter)o->skip_reason);
		return NULL;
	}
	return o;
}

void gen_release(void *ctx, struct ofd *ofd)
{
	struct gen *g = ctx;
	struct rlog_op op;

	if (!ofd->vfd || !g->ev || gen_filter_drop_close(g))
		return;
	/* Closes implied by exit, exec, dup2 or close_range take their
	 * event's time; an explicit close keeps its own result. */
	gen_op_init(g, &op, SYS_CLOSE);
	if (g->ev->sys != SYS_CLOSE) {
		op.ret = 0;
		op.dur_ns = 0;
	}
	gen_op_fd(&op, ofd);
	gen_op_touch(g, &op, &ofd->res);
	gen_op_emit(g, &op);
}

/* Install a new description for @fd of @p. */
struct ofd *gen_install_new(struct gen *g, struct proc *p, int64_t fd,
			       bool cloexec)
{
	struct ofd *o = ofd_new();

	if (!o) {
		gen_oom(g);
		return NULL;
	}
	struct fdslot what = { .ofd = o, .cloexec = cloexec, .tid = g->ev->tid,
			       .since_ns = cap_event_end(g->ev) };
	int err = proc_install(&g->procs, p, fd, &what);
	if (err) {
		free(o);
		if (err == -ENOMEM)
			gen_oom(g);
		return NULL;
	}
	return o;
}

void gen_fd_reused(struct gen *g, struct proc *p, int64_t fd)
{
	if (!p->threaded)
		proc_close(&g->procs, p, fd);
	else if (proc_shadow(&g->procs, p, fd, cap_event_end(g->ev),
			     g->ev->tid))
		gen_oom(g);
}

/* An fd to something ioriot does not replay: remember why. */
void gen_install_skipped(struct gen *g, struct proc *p, int64_t fd,
			    enum gen_filter why)
{
	struct ofd *o = gen_install_new(g, p, fd, false);

	if (o)
		o->skip_reason = (uint8_t)why;
}

struct resource *gen_parent_res(struct node *n)
{
	return n->parent ? &n->parent->res : NULL;
}

/* Make @cwd (normalised, or NULL for unknown) the working directory of @p. */
void gen_set_cwd(struct gen *g, struct proc *p, const char *cwd)
{
	free(p->cwd);
	p->cwd = NULL;
	if (cwd && !(p->cwd = strdup(cwd)))
		gen_oom(g);
}
