/*
 * events: what the generator does with each captured event.  It updates the
 * fd tables and the namespace model, computes ordering dependencies, and
 * writes the replay operation, or counts why it writes none.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"


static inline uint64_t timeline(const struct cap_event *ev)
{
	return (uint64_t)ev->pid << 32 | ev->tid;
}

static void filtered(struct gen *g, enum gen_filter why)
{
	g->sum->filtered[why]++;
}

static enum gen_filter filter_of(enum pathmap_status st)
{
	switch (st) {
	case PATHMAP_PSEUDO: return GF_PSEUDO;
	case PATHMAP_OWN: return GF_OWN;
	case PATHMAP_NO_MOUNT: return GF_NO_MOUNT;
	case PATHMAP_TOO_LONG: return GF_TOO_LONG;
	default: return GF_RELATIVE;
	}
}

static void oom(struct gen *g)
{
	if (!g->err)
		g->err = -ENOMEM;
}

/* Start an operation for the current event. */
static void op_init(struct gen *g, struct rlog_op *op, enum sys_id sys)
{
	const struct cap_event *ev = g->ev;

	memset(op, 0, sizeof(*op));
	op->id = ++g->next_id;
	op->pid = ev->pid;
	op->tid = ev->tid;
	op->time_ns = ev->time_ns;
	op->dur_ns = ev->dur_ns;
	op->sys = sys_canonical(sys);
	op->ret = ev->ret;
}

static void op_touch(struct gen *g, struct rlog_op *op, struct resource *res)
{
	deps_touch(&op->deps, res, op->id, timeline(g->ev));
}

static void op_emit(struct gen *g, struct rlog_op *op)
{
	rlog_write_op(g->ops, op);
	g->sum->ops++;
	g->sum->deps_dropped += (uint64_t)op->deps.dropped;
	g->sum->ops_per_sys[op->sys]++;
}

/* Copy the event's plain arguments into @op. */
static void op_args(struct rlog_op *op, const struct cap_event *ev)
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

static void op_fd(struct rlog_op *op, const struct ofd *ofd)
{
	op->fd = ofd->vfd;
	op->have |= RL_FD;
}

/*
 * Name path @r in @op (as path2 if @second).  Resolving it walks through its
 * ancestors: the operation depends on their last rename, mkdir or rmdir.
 */
static void op_path(struct gen *g, struct rlog_op *op, const struct resolved *r,
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
static enum node_type type_of_mode(int64_t mode)
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
static const char *base_dir(struct proc *p, bool have_dirfd, int64_t dirfd,
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
static enum pathmap_status resolve(struct gen *g, const char *base,
				   const char *path, size_t len, int slot)
{
	struct resolved *r = &g->path[slot];
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
		oom(g);
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
static bool resolve_path(struct gen *g, struct proc *p, int slot)
{
	const struct cap_event *ev = g->ev;
	bool second = slot == 1, use_e = second && (ev->have & CAP_FD2);
	char buf[PATHMAP_MAX];

	if (!(ev->have & (second ? CAP_PATH2 : CAP_PATH))) {
		filtered(g, GF_INCOMPLETE);
		return false;
	}
	const char *base = base_dir(p, ev->have & (use_e ? CAP_FD2 : CAP_FD),
				    use_e ? ev->fd2 : ev->fd, buf);
	enum pathmap_status st =
		resolve(g, base, second ? ev->path2 : ev->path,
			second ? ev->path2_len : ev->path_len, slot);

	if (st != PATHMAP_OK) {
		filtered(g, filter_of(st));
		return false;
	}
	return true;
}

/* The description behind the event's fd; counts and returns NULL if the
 * operation is filtered. */
static struct ofd *event_ofd(struct gen *g, struct proc *p, int64_t fd)
{
	struct ofd *o = proc_fd(p, fd);

	if (!(g->ev->have & CAP_FD)) {
		filtered(g, GF_INCOMPLETE);
		return NULL;
	}
	if (!o) {
		filtered(g, GF_UNKNOWN_FD);
		return NULL;
	}
	if (!o->vfd) {
		filtered(g, (enum gen_filter)o->skip_reason);
		return NULL;
	}
	return o;
}

void gen_release(void *ctx, struct ofd *ofd)
{
	struct gen *g = ctx;
	struct rlog_op op;

	if (!ofd->vfd || !g->ev)
		return;
	/* Closes implied by exit, exec, dup2 or close_range take their
	 * event's time; an explicit close keeps its own result. */
	op_init(g, &op, SYS_CLOSE);
	if (g->ev->sys != SYS_CLOSE) {
		op.ret = 0;
		op.dur_ns = 0;
	}
	op_fd(&op, ofd);
	op_touch(g, &op, &ofd->res);
	op_emit(g, &op);
}

/* Install a new description for @fd of @p. */
static struct ofd *install_new(struct gen *g, struct proc *p, int64_t fd,
			       bool cloexec)
{
	struct ofd *o = ofd_new();

	if (!o) {
		oom(g);
		return NULL;
	}
	int err = proc_install(&g->procs, p, fd, o, cloexec);
	if (err) {
		free(o);
		if (err == -ENOMEM)
			oom(g);
		return NULL;
	}
	return o;
}

/* An fd to something ioriot does not replay: remember why. */
static void install_skipped(struct gen *g, struct proc *p, int64_t fd,
			    enum gen_filter why)
{
	struct ofd *o = install_new(g, p, fd, false);

	if (o)
		o->skip_reason = (uint8_t)why;
}

static void on_open(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	int64_t flags = ev->have & CAP_FLAGS ? ev->flags : O_RDONLY;
	struct rlog_op op;

	if (ev->sys == SYS_CREAT)
		flags = O_CREAT | O_WRONLY | O_TRUNC;
	if (ev->ret > UINT32_MAX) {		/* not an fd the kernel gives */
		filtered(g, GF_INCOMPLETE);
		return;
	}
	/* A still-open fd the open reuses was closed unseen: close it first,
	 * so its close comes before this open. */
	if (ev->ret >= 0)
		proc_close(&g->procs, p, ev->ret);
	if (!(ev->have & CAP_PATH)) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	char buf[PATHMAP_MAX];
	enum pathmap_status st =
		resolve(g, base_dir(p, ev->have & CAP_FD, ev->fd, buf),
			ev->path, ev->path_len, 0);
	if (st != PATHMAP_OK) {
		filtered(g, filter_of(st));
		if (ev->ret >= 0)
			install_skipped(g, p, ev->ret, filter_of(st));
		return;
	}
	struct node *n = g->path[0].node;

	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, &g->path[0], false);
	op_touch(g, &op, &n->res);
	if (flags & O_CREAT)
		op_touch(g, &op, n->parent ? &n->parent->res : NULL);
	if (ev->ret >= 0) {
		bool trunc = flags & O_TRUNC;
		if ((flags & O_CREAT) && (flags & O_EXCL))
			nstree_created(n, NT_FILE, true);
		else if (flags & O_CREAT)
			nstree_open_creat(n, trunc);
		else {
			nstree_exists(n, flags & O_DIRECTORY ? NT_DIR : NT_UNKNOWN);
			if (trunc)
				nstree_truncated(node_data(n), 0);
		}
		if (n->type == NT_UNKNOWN)
			n->type = NT_FILE;
		/* O_TMPFILE names a directory; the file itself has no name. */
		struct node *file = (flags & O_TMPFILE) == O_TMPFILE ?
				    nstree_anon(g->ns) : node_data(n);
		struct ofd *o = file ? install_new(g, p, ev->ret, flags & O_CLOEXEC)
				     : NULL;
		if (!file)
			oom(g);
		if (o) {
			o->vfd = ++g->next_vfd;
			o->node = file;
			o->append = flags & O_APPEND;
			o->pos_known = true;
			op.vfd = o->vfd;
			op.have |= RL_VFD;
			op_touch(g, &op, &o->res);
		}
	} else if (ev->ret == -ENOENT) {
		if (!(flags & O_CREAT))
			nstree_enoent(n);
		else if (n->parent)
			nstree_enoent(n->parent);
	} else if (ev->ret == -EEXIST) {
		nstree_exists(n, NT_UNKNOWN);	/* O_CREAT | O_EXCL */
		if (n->type == NT_UNKNOWN)
			n->type = NT_FILE;
	}
	op_emit(g, &op);
}

static void on_openfd(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	int64_t flags = (ev->have & CAP_FLAGS ? ev->flags : O_RDONLY) &
			~(O_CREAT | O_EXCL | O_TRUNC);
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || !(ev->have & CAP_PATH)) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	proc_close(&g->procs, p, ev->fd);
	enum pathmap_status st = resolve(g, p->cwd, ev->path, ev->path_len, 0);
	if (st != PATHMAP_OK) {
		filtered(g, filter_of(st));
		install_skipped(g, p, ev->fd, filter_of(st));
		return;
	}
	struct node *n = g->path[0].node;
	enum node_type type = ev->have & CAP_MODE ? type_of_mode(ev->mode)
						  : NT_FILE;
	nstree_exists(n, type);
	if ((ev->have & CAP_SIZE) && type != NT_DIR)
		nstree_size_seen(n, (uint64_t)ev->size);
	struct ofd *o = install_new(g, p, ev->fd, flags & O_CLOEXEC);
	if (!o)
		return;
	o->vfd = ++g->next_vfd;
	o->node = node_data(n);
	o->append = flags & O_APPEND;
	o->pos_known = ev->have & CAP_OFFSET;
	o->pos = ev->have & CAP_OFFSET ? (uint64_t)ev->offset : 0;

	/* Replayed as an open at the start, then a seek to the position. */
	op_init(g, &op, SYS_OPENAT);
	op.ret = ev->fd;
	op.flags = flags;
	op.vfd = o->vfd;
	op.have |= RL_FLAGS | RL_VFD;
	op_path(g, &op, &g->path[0], false);
	op_touch(g, &op, &n->res);
	op_touch(g, &op, &o->res);
	op_emit(g, &op);
	if (o->pos && !o->append) {
		op_init(g, &op, SYS_LSEEK);
		op.ret = (int64_t)o->pos;
		op.offset = (int64_t)o->pos;
		op.whence = SEEK_SET;
		op.have |= RL_OFFSET | RL_WHENCE;
		op_fd(&op, o);
		op_touch(g, &op, &o->res);
		op_emit(g, &op);
	}
}

static void on_close(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct ofd *o = proc_fd(p, ev->fd);

	if (!(ev->have & CAP_FD)) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	if (!o) {
		filtered(g, GF_UNKNOWN_FD);
		return;
	}
	if (!o->vfd)
		filtered(g, (enum gen_filter)o->skip_reason);
	else if (o->refs > 1)
		filtered(g, GF_FD_TABLE);	/* other references remain */
	/* The release callback writes the close of the last reference,
	 * with this event's timing. */
	proc_close(&g->procs, p, ev->fd);
}

static void on_close_range(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	/* The kernel takes unsigned ints: a logged -1 means ~0U. */
	uint64_t first = ev->have & CAP_FD ? (uint32_t)ev->fd : 0;
	uint64_t last = ev->have & CAP_FD2 ? (uint32_t)ev->fd2 : UINT32_MAX;
	bool cloexec = (ev->have & CAP_FLAGS) && (ev->flags & CLOSE_RANGE_CLOEXEC);

	filtered(g, GF_FD_TABLE);
	if (ev->ret == 0 && proc_close_range(&g->procs, p, first, last, cloexec))
		oom(g);
}

/* dup, dup2, dup3 and fcntl(F_DUPFD*): @newfd shares @oldfd's description. */
static void do_dup(struct gen *g, struct proc *p, int64_t oldfd, int64_t newfd,
		   bool cloexec)
{
	struct ofd *o = proc_fd(p, oldfd);

	if (newfd < 0)
		return;
	if (!o) {
		/* Unknown source: the target slot is replaced by something
		 * we cannot follow. */
		proc_close(&g->procs, p, newfd);
		return;
	}
	if (oldfd == newfd)
		return;
	if (proc_install(&g->procs, p, newfd, o, cloexec) == -ENOMEM)
		oom(g);
}

static void on_dup(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;

	filtered(g, GF_FD_TABLE);
	if (ev->ret < 0 || !(ev->have & CAP_FD))
		return;
	bool cloexec = ev->sys == SYS_DUP3 && (ev->have & CAP_FLAGS) &&
		       (ev->flags & O_CLOEXEC);
	do_dup(g, p, ev->fd, ev->ret, cloexec);
}

static void on_fcntl(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (ev->have & CAP_CMD) {
		switch (ev->cmd) {
		case F_DUPFD:
		case F_DUPFD_CLOEXEC:
			filtered(g, GF_FD_TABLE);
			if (ev->ret >= 0)
				do_dup(g, p, ev->fd, ev->ret, ev->cmd == F_DUPFD_CLOEXEC);
			return;
		case F_SETFD:
			filtered(g, GF_FD_TABLE);
			if (ev->ret == 0 && (ev->have & CAP_ARG))
				proc_set_cloexec(p, ev->fd, ev->arg & FD_CLOEXEC);
			return;
		case F_GETFD:
			filtered(g, GF_FD_TABLE);
			return;
		}
	}
	struct ofd *o = event_ofd(g, p, ev->fd);
	if (!o)
		return;
	if (ev->cmd == F_SETFL && ev->ret == 0 && (ev->have & CAP_ARG))
		o->append = ev->arg & O_APPEND;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	op_touch(g, &op, &o->res);
	op_emit(g, &op);
}

/* Offset an fd data operation works at; false if unknown. */
static bool io_offset(const struct cap_event *ev, struct ofd *o,
		      bool *positional, uint64_t *off)
{
	bool pvariant = ev->sys == SYS_PREAD64 || ev->sys == SYS_PREADV ||
			ev->sys == SYS_PREADV2 || ev->sys == SYS_PWRITE64 ||
			ev->sys == SYS_PWRITEV || ev->sys == SYS_PWRITEV2;

	*off = 0;
	/* preadv2/pwritev2 with offset -1 use the file position. */
	*positional = pvariant && (ev->have & CAP_OFFSET) && ev->offset >= 0;
	if (*positional) {
		*off = (uint64_t)ev->offset;
		return true;
	}
	if (pvariant && !(ev->have & CAP_OFFSET))
		return false;
	*off = o->pos;
	return o->pos_known;
}

static void on_data(struct gen *g, struct proc *p, bool write)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	bool positional;
	uint64_t off;

	struct ofd *o = event_ofd(g, p, ev->fd);
	if (!o)
		return;
	bool known = io_offset(ev, o, &positional, &off);
	if (write && o->append && !positional) {
		off = o->node->cur_size;
		known = true;
	}
	if (ev->ret > 0 && known) {
		if (write)
			nstree_write(o->node, off, (uint64_t)ev->ret);
		else
			nstree_read(o->node, off, (uint64_t)ev->ret);
	}
	if (!positional && ev->ret > 0)
		o->pos = off + (uint64_t)ev->ret;
	if (!positional && !known)
		o->pos_known = false;
	else if (!positional)
		o->pos_known = true;

	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	if (!(op.have & RL_COUNT)) {
		op.count = ev->ret > 0 ? ev->ret : 0;
		op.have |= RL_COUNT;
	}
	op_touch(g, &op, &o->res);
	op_touch(g, &op, &o->node->res);
	op_emit(g, &op);
}

static void on_seek(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	struct ofd *o = event_ofd(g, p, ev->fd);
	if (!o)
		return;
	int64_t whence = ev->have & CAP_WHENCE ? ev->whence : SEEK_SET;
	int64_t offset = ev->have & CAP_OFFSET ? ev->offset : 0;
	if (ev->sys == SYS_LLSEEK) {
		/* v3 llseek logs a status, not the resulting position. */
		o->pos_known = ev->ret == 0 && whence == SEEK_SET;
		o->pos = (uint64_t)offset;
	} else if (ev->ret >= 0) {
		o->pos = (uint64_t)ev->ret;
		o->pos_known = true;
		int64_t size;
		if (whence == SEEK_END &&
		    !__builtin_sub_overflow(ev->ret, offset, &size) && size >= 0)
			nstree_size_seen(o->node, (uint64_t)size);
	}
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	if (ev->sys == SYS_LLSEEK && ev->ret == 0 && whence == SEEK_SET)
		op.ret = offset;
	op_touch(g, &op, &o->res);
	op_emit(g, &op);
}

/* Any other operation on an fd. */
static void on_fdop(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	struct ofd *o = event_ofd(g, p, ev->fd);
	if (!o)
		return;
	struct node *n = o->node;
	if (ev->ret == 0) {
		if (ev->sys == SYS_FTRUNCATE && (ev->have & CAP_COUNT))
			nstree_truncated(n, (uint64_t)ev->count);
		else if (sys_is_stat(ev->sys) && (ev->have & CAP_SIZE) &&
			 (!(ev->have & CAP_MODE) || S_ISREG(ev->mode)))
			nstree_size_seen(n, (uint64_t)ev->size);
		else if (ev->sys == SYS_FALLOCATE && (ev->have & CAP_OFFSET) &&
			 (ev->have & CAP_COUNT) &&
			 !((ev->have & CAP_MODE) && (ev->mode & FALLOC_FL_KEEP_SIZE)))
			nstree_write(n, (uint64_t)ev->offset, (uint64_t)ev->count);
	}
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	op_touch(g, &op, &o->res);
	op_touch(g, &op, &n->res);
	op_emit(g, &op);
}

static void on_readdir(struct gen *g, struct proc *p)
{
	struct ofd *o = proc_fd(p, g->ev->fd);

	if (o && o->node && g->ev->ret >= 0)
		nstree_exists(o->node, NT_DIR);
	on_fdop(g, p);
}

/* Operations on one existing path: stat, access, chmod, readlink, ... */
static void on_pathop(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!resolve_path(g, p, 0))
		return;
	struct node *n = g->path[0].node;
	if (ev->ret >= 0) {
		enum node_type type = NT_UNKNOWN;
		if (ev->sys == SYS_READLINK || ev->sys == SYS_READLINKAT)
			type = NT_SYMLINK;
		else if (sys_is_stat(ev->sys) && (ev->have & CAP_MODE))
			type = type_of_mode(ev->mode);
		nstree_exists(n, type);
		if (sys_is_stat(ev->sys) && (ev->have & CAP_SIZE) &&
		    (type == NT_FILE || type == NT_UNKNOWN))
			nstree_size_seen(node_data(n), (uint64_t)ev->size);
		if (ev->sys == SYS_TRUNCATE && (ev->have & CAP_COUNT))
			nstree_truncated(node_data(n), (uint64_t)ev->count);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(n);
	}
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, &g->path[0], false);
	op_touch(g, &op, &n->res);
	op_emit(g, &op);
}

/* *at calls that work on an fd when the path is empty (AT_EMPTY_PATH) or,
 * for utimensat, absent. */
static void on_statat(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;

	if ((ev->have & CAP_PATH) && ev->path_len > 0)
		on_pathop(g, p);
	else
		on_fdop(g, p);		/* counts a missing fd as incomplete */
}

static struct resource *parent_res(struct node *n)
{
	return n->parent ? &n->parent->res : NULL;
}

static void on_mkdir(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!resolve_path(g, p, 0))
		return;
	struct node *n = g->path[0].node;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, &g->path[0], false);
	op_touch(g, &op, &n->res);
	op_touch(g, &op, &n->ns_res);
	op_touch(g, &op, parent_res(n));
	if (ev->ret == 0)
		nstree_created(n, NT_DIR, true);
	else if (ev->ret == -EEXIST)
		nstree_exists(n, n->type == NT_UNKNOWN ? NT_DIR : n->type);
	else if (ev->ret == -ENOENT && n->parent)
		nstree_enoent(n->parent);
	op_emit(g, &op);
}

/* unlink, unlinkat (AT_REMOVEDIR: rmdir) and rmdir. */
static void on_remove(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!resolve_path(g, p, 0))
		return;
	bool dir = ev->sys == SYS_RMDIR ||
		   ((ev->have & CAP_FLAGS) && (ev->flags & AT_REMOVEDIR));
	struct node *n = g->path[0].node;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, &g->path[0], false);
	op_touch(g, &op, &n->res);
	if (dir)
		op_touch(g, &op, &n->ns_res);
	op_touch(g, &op, parent_res(n));
	if (ev->ret == 0) {
		nstree_exists(n, dir ? NT_DIR : (n->type == NT_UNKNOWN ? NT_FILE : n->type));
		if (nstree_removed(g->ns, n))
			oom(g);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(n);
	}
	op_emit(g, &op);
}

static void on_rename(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	unsigned flags = ev->have & CAP_FLAGS ? (unsigned)ev->flags : 0;

	if (!resolve_path(g, p, 0) ||
	    !resolve_path(g, p, 1))
		return;
	struct node *from = g->path[0].node, *to = g->path[1].node;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, &g->path[0], false);
	op_path(g, &op, &g->path[1], true);
	op_touch(g, &op, &from->res);
	op_touch(g, &op, &to->res);
	op_touch(g, &op, &from->ns_res);
	op_touch(g, &op, &to->ns_res);
	op_touch(g, &op, parent_res(from));
	op_touch(g, &op, parent_res(to));
	if (ev->ret == 0) {
		if ((flags & RENAME_NOREPLACE) && to->state == NS_UNKNOWN)
			nstree_enoent(to);
		if (nstree_rename(g->ns, from, to, flags & RENAME_EXCHANGE) ==
		    -ENOMEM)
			oom(g);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(from);
	} else if (ev->ret == -EEXIST && (flags & RENAME_NOREPLACE)) {
		nstree_exists(to, NT_UNKNOWN);
	}
	op_emit(g, &op);
}

/*
 * link, linkat: the new name shows the old file's content.  linkat(fd, "",
 * ..., AT_EMPTY_PATH) links the file open on fd (O_TMPFILE files get their
 * name this way).
 */
static void on_link(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool by_fd = !ev->path_len && (ev->have & CAP_FLAGS) &&
		     (ev->flags & AT_EMPTY_PATH);
	struct ofd *o = NULL;
	struct node *old;
	struct rlog_op op;

	if (by_fd) {
		if (!(o = event_ofd(g, p, ev->fd)))
			return;
		old = o->node;
	} else {
		if (!resolve_path(g, p, 0))
			return;
		old = g->path[0].node;
	}
	if (!resolve_path(g, p, 1))
		return;
	struct node *new = g->path[1].node;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	if (o)
		op_fd(&op, o);
	else
		op_path(g, &op, &g->path[0], false);
	op_path(g, &op, &g->path[1], true);
	op_touch(g, &op, &old->res);
	op_touch(g, &op, &new->res);
	op_touch(g, &op, parent_res(new));
	if (ev->ret == 0) {
		if (!o)
			nstree_exists(old, NT_FILE);
		nstree_created(new, NT_FILE, true);
		new->data = node_data(old);
	} else if (ev->ret == -ENOENT && !o) {
		nstree_enoent(old);
	} else if (ev->ret == -EEXIST) {
		nstree_exists(new, NT_UNKNOWN);
	}
	op_emit(g, &op);
}

/*
 * symlink(target p, linkpath P).  The target is where the link pointed on
 * the capture host: made absolute from the link's directory and rewritten
 * into the sandbox, so that no replayed link can point out of it.
 */
static void on_symlink(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	char dir[PATHMAP_MAX];

	if (!(ev->have & CAP_PATH)) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	if (!resolve_path(g, p, 1))
		return;
	const struct resolved *link = &g->path[1];
	size_t dlen = link->norm_len;
	while (dlen > 1 && link->norm[dlen - 1] != '/')
		dlen--;
	memcpy(dir, link->norm, dlen);
	dir[dlen > 1 ? dlen - 1 : 1] = '\0';
	enum pathmap_status st = resolve(g, dir, ev->path, ev->path_len, 0);
	if (st != PATHMAP_OK) {
		filtered(g, filter_of(st));
		return;
	}
	struct node *n = link->node;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_path(g, &op, link, false);
	op.target = g->path[0].sandbox;
	op.target_len = (uint32_t)g->path[0].sandbox_len;
	op.have |= RL_TARGET;
	op_touch(g, &op, &n->res);
	op_touch(g, &op, parent_res(n));
	if (ev->ret == 0)
		nstree_created(n, NT_SYMLINK, true);
	else if (ev->ret == -EEXIST)
		nstree_exists(n, NT_UNKNOWN);
	op_emit(g, &op);
}

/* sendfile(out d, in e) and copy_file_range(in d, out e). */
static void on_transfer(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool sendfile = ev->sys == SYS_SENDFILE;
	struct ofd *in = proc_fd(p, sendfile ? ev->fd2 : ev->fd);
	struct ofd *out = proc_fd(p, sendfile ? ev->fd : ev->fd2);
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || !(ev->have & CAP_FD2)) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	if (in && !in->vfd)
		in = NULL;
	if (out && !out->vfd)
		out = NULL;
	/* sendfile to a socket is a file read: keep it with the in side. */
	if (!in || (!out && !sendfile)) {
		filtered(g, GF_UNKNOWN_FD);
		return;
	}
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	if (ev->ret > 0) {
		uint64_t n = (uint64_t)ev->ret;
		bool in_at = ev->have & CAP_OFFSET;
		uint64_t in_off = in_at ? (uint64_t)ev->offset : in->pos;
		if (in_at || in->pos_known)
			nstree_read(in->node, in_off, n);
		if (!in_at)
			in->pos += n;
		if (out) {
			bool out_at = !sendfile && (ev->have & CAP_OFFSET2);
			uint64_t out_off = out_at ? (uint64_t)ev->offset2 :
					   out->append ? out->node->cur_size : out->pos;
			nstree_write(out->node, out_off, n);
			if (!out_at)
				out->pos = out_off + n;
		}
	}
	/* fd is the read side, fd2 the write side (absent: not a file). */
	op.fd = in->vfd;
	op.have |= RL_FD;
	op_touch(g, &op, &in->res);
	op_touch(g, &op, &in->node->res);
	if (out) {
		op.fd2 = out->vfd;
		op.have |= RL_FD2;
		op_touch(g, &op, &out->res);
		op_touch(g, &op, &out->node->res);
	}
	op_emit(g, &op);
}

static void on_sync(struct gen *g)
{
	struct rlog_op op;

	op_init(g, &op, g->ev->sys);
	op_emit(g, &op);
}

/* Make @cwd (normalised, or NULL for unknown) the working directory of @p. */
static void set_cwd(struct gen *g, struct proc *p, const char *cwd)
{
	free(p->cwd);
	p->cwd = NULL;
	if (cwd && !(p->cwd = strdup(cwd)))
		oom(g);
}

static void on_chdir(struct gen *g, struct proc *p, bool by_fd)
{
	const struct cap_event *ev = g->ev;
	char buf[PATHMAP_MAX];
	long n;

	filtered(g, GF_FD_TABLE);
	if (ev->ret != 0)
		return;
	if (by_fd) {
		struct ofd *o = proc_fd(p, ev->fd);
		n = o && o->node ? nstree_path(o->node, buf, false) : -1;
	} else {
		n = path_normalize(ev->path, ev->path_len, p->cwd, buf);
	}
	set_cwd(g, p, n > 0 ? buf : NULL);
}

static void on_mmap(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || ev->fd < 0) {
		filtered(g, GF_NOT_FILE);	/* anonymous memory */
		return;
	}
	struct ofd *o = event_ofd(g, p, ev->fd);
	if (!o)
		return;
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	op_touch(g, &op, &o->res);
	op_touch(g, &op, &o->node->res);
	op_emit(g, &op);
	uint64_t addr = (uint64_t)ev->ret;
	if (ev->ret < 0 && ev->ret > -4096)
		return;
	if (!p->maps.slots && u64map_init(&p->maps)) {
		oom(g);
		return;
	}
	struct ofd *old = u64map_get(&p->maps, addr);
	if (u64map_put(&p->maps, addr, o)) {
		oom(g);
		return;
	}
	o->refs++;		/* a mapping keeps the file open */
	ofd_put(&g->procs, old);
}

/* munmap, msync, mremap: replayed only for a mapping of a file. */
static void on_addr(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	struct ofd *o = NULL;

	if ((ev->have & CAP_ADDR) && p->maps.slots && ev->sys != SYS_MREMAP)
		o = u64map_get(&p->maps, ev->addr);
	if (!o) {
		filtered(g, GF_NOT_FILE);
		return;
	}
	op_init(g, &op, ev->sys);
	op_args(&op, ev);
	op_fd(&op, o);
	op_touch(g, &op, &o->res);
	op_emit(g, &op);
	if (ev->sys == SYS_MUNMAP && ev->ret == 0) {
		u64map_del(&p->maps, ev->addr);
		ofd_put(&g->procs, o);
	}
}

void gen_event(struct gen *g, const struct cap_event *ev)
{
	const struct sys_info *si = sys_info(ev->sys);
	struct proc *p;

	g->ev = ev;
	if (si->kind == SK_LOST) {
		g->sum->lost_events += ev->have & CAP_COUNT ? (uint64_t)ev->count : 0;
		return;
	}
	if (si->kind == SK_EXIT || si->kind == SK_EXIT_GROUP) {
		/* No process to create: exit_group and the exit record both
		 * end one. */
		filtered(g, GF_FD_TABLE);
		procs_exit(&g->procs, ev->pid);
		g->ev = NULL;
		return;
	}
	/* A syscall's result decides what it did; without it, skip it. */
	if (!(ev->have & CAP_RET) && si->kind < SK_EXIT_GROUP) {
		filtered(g, GF_INCOMPLETE);
		return;
	}
	p = procs_get(&g->procs, ev->pid);
	if (!p) {
		oom(g);
		return;
	}
	if (!u64map_get(&g->timelines, timeline(ev))) {
		if (u64map_put(&g->timelines, timeline(ev), g))
			oom(g);
	}
	switch (si->kind) {
	case SK_OPEN: on_open(g, p); break;
	case SK_OPENFD: on_openfd(g, p); break;
	case SK_CLOSE: on_close(g, p); break;
	case SK_CLOSE_RANGE: on_close_range(g, p); break;
	case SK_DUP: on_dup(g, p); break;
	case SK_FCNTL: on_fcntl(g, p); break;
	case SK_READ: on_data(g, p, false); break;
	case SK_WRITE: on_data(g, p, true); break;
	case SK_SEEK: on_seek(g, p); break;
	case SK_READDIR: on_readdir(g, p); break;
	case SK_FDOP: on_fdop(g, p); break;
	case SK_PATHOP: case SK_TRUNCATE: on_pathop(g, p); break;
	case SK_STATAT: on_statat(g, p); break;
	case SK_MKDIR: on_mkdir(g, p); break;
	case SK_RMDIR: case SK_UNLINK: on_remove(g, p); break;
	case SK_RENAME: on_rename(g, p); break;
	case SK_LINK: on_link(g, p); break;
	case SK_SYMLINK: on_symlink(g, p); break;
	case SK_SENDFILE: case SK_COPY_RANGE: on_transfer(g, p); break;
	case SK_SYNC: on_sync(g); break;
	case SK_CHDIR: on_chdir(g, p, false); break;
	case SK_FCHDIR: on_chdir(g, p, true); break;
	case SK_MMAP: on_mmap(g, p); break;
	case SK_ADDR: on_addr(g, p); break;
	case SK_CWD:
		filtered(g, GF_FD_TABLE);
		if (ev->have & CAP_PATH) {
			char buf[PATHMAP_MAX];
			long n = path_normalize(ev->path, ev->path_len, NULL, buf);
			set_cwd(g, p, n > 0 ? buf : NULL);
		}
		break;
	case SK_FORK:
		filtered(g, GF_FD_TABLE);
		if ((ev->have & CAP_CHILD) && ev->child_pid != ev->pid &&
		    procs_fork(&g->procs, p, ev->child_pid))
			oom(g);
		break;
	case SK_EXEC:
		filtered(g, GF_FD_TABLE);
		if ((ev->ret >= 0 || !(ev->have & CAP_RET)) &&
		    proc_exec(&g->procs, p))
			oom(g);
		break;
	case SK_EXIT: case SK_EXIT_GROUP:
		break;		/* handled above */
	case SK_LOST:
		break;		/* counted above */
	}
	g->ev = NULL;
}
