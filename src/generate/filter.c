/*
 * filter: the generate-time filters (--only-syscalls, --only-comm,
 * --only-path, --from, --to; docs/guide.md, "Filters").  An event they
 * leave out never reaches the namespace model, so INIT is inferred from
 * the operations kept alone: a file a left-out operation made or wrote is
 * listed with what the kept operations need of it.  What the kept
 * operations need of the left-out ones is added: an fd opened by a
 * left-out open is opened when a kept operation may use it (at the
 * window's start, or when its process execs into a selected name), a
 * position moved by left-out reads, writes or seeks is set again with an
 * lseek, and the closes of opens in the file are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps.h"
#include "gen.h"
#include "ioriot/outbuf.h"
#include "ioriot/paths.h"

/* @t as ns from the log's start; @what names the option. */
static int resolve_time(const struct gen_time *t, uint64_t start_epoch_ns,
			const char *capture, const char *what, uint64_t *ns,
			char *err, size_t errlen)
{
	if (t->kind == GT_OFFSET) {
		*ns = t->ns;
		return 0;
	}
	if (!start_epoch_ns) {
		snprintf(err, errlen, "%s: %s gives a wall-clock time, but the "
			 "log records no wall-clock start (start_epoch_ns, "
			 "capture format v4): give seconds from the capture's "
			 "start instead", capture, what);
		return -EINVAL;
	}
	*ns = t->ns > start_epoch_ns ? t->ns - start_epoch_ns : 0;
	return 0;
}

int gen_filter_setup(struct gen *g, const struct caplog_header *ch,
		     char *err, size_t errlen)
{
	const struct gen_filters *f = g->opt->filters;
	struct gfilter *gf = &g->filter;
	int rc;

	gf->to_ns = UINT64_MAX;
	if (!f || (!f->classes && !f->ncomms && !f->npaths &&
		   f->from.kind == GT_NONE && f->to.kind == GT_NONE))
		return 0;
	gf->f = f;
	gf->paths.include = f->paths;
	gf->paths.ninclude = f->npaths;
	if (f->from.kind != GT_NONE &&
	    (rc = resolve_time(&f->from, ch->start_epoch_ns,
			       g->opt->capture_path, "--from", &gf->from_ns,
			       err, errlen)))
		return rc;
	if (f->to.kind != GT_NONE &&
	    (rc = resolve_time(&f->to, ch->start_epoch_ns,
			       g->opt->capture_path, "--to", &gf->to_ns,
			       err, errlen)))
		return rc;
	if (gf->from_ns >= gf->to_ns) {
		snprintf(err, errlen, "--from (%.3fs) is not before --to "
			 "(%.3fs) of the capture", (double)gf->from_ns / 1e9,
			 (double)gf->to_ns / 1e9);
		return -EINVAL;
	}
	gf->cut_reads = f->ncomms ||
			(f->classes && !(f->classes & (1u << CLS_WRITE)));
	g->sum->filtered_run = true;
	g->sum->filter_window_start_ns = gf->from_ns;
	g->sum->filter_window_end_ns = gf->to_ns;
	return 0;
}

/* Whether @p runs a program --only-comm names. */
static bool comm_ok(const struct gfilter *gf, const struct proc *p)
{
	if (!gf->f->ncomms)
		return true;
	for (size_t i = 0; i < gf->f->ncomms; i++)
		if (strncmp(p->comm, gf->f->comms[i], sizeof(p->comm) - 1) == 0)
			return true;
	return false;
}

/* Whether the current event's path @slot (0: p, 1: P), if it names one,
 * is below an --only-path prefix; *@named tells if it names one. */
static bool event_path_ok(struct gen *g, struct proc *p, int slot,
			  bool *named)
{
	const struct cap_event *ev = g->ev;
	bool second = slot == 1, use_e = second && (ev->have & CAP_FD2);
	const char *path = second ? ev->path2 : ev->path;
	size_t len = second ? ev->path2_len : ev->path_len;
	char base[PATHMAP_MAX], norm[PATHMAP_MAX];

	if (!(ev->have & (second ? CAP_PATH2 : CAP_PATH)) || !len ||
	    sys_path_is_content(ev->sys, second))
		return false;
	*named = true;
	long n = path_normalize(path, len,
				gen_base_dir(p, ev->have & (use_e ? CAP_FD2 : CAP_FD),
					     use_e ? ev->fd2 : ev->fd, base),
				norm);
	return n > 0 && path_filter_keeps(&g->filter.paths, norm, (size_t)n);
}

/* Whether the file of fd @fd of @p is below an --only-path prefix. */
static bool fd_path_ok(struct gen *g, struct proc *p, int64_t fd,
		       bool *named)
{
	struct ofd *o = proc_fd(p, fd);
	char norm[PATHMAP_MAX];

	if (!o || !o->node)
		return false;
	*named = true;
	long n = nstree_path(o->node, norm, false);
	return n > 0 && path_filter_keeps(&g->filter.paths, norm, (size_t)n);
}

/* Whether the current event works on a path below an --only-path prefix:
 * by its paths if it names any, else by its fds.  Page records, calls by
 * address, AIO and io_uring follow their mapping, context or ring. */
static bool path_ok(struct gen *g, struct proc *p, enum sys_kind kind)
{
	const struct cap_event *ev = g->ev;
	bool named = false;

	if (!g->filter.f->npaths)
		return true;
	switch (kind) {
	case SK_MAPPAGE: case SK_ADDR: case SK_AIO_SETUP: case SK_AIO_DESTROY:
	case SK_AIO_SUBMIT: case SK_AIO_CANCEL: case SK_AIO_GETEVENTS:
	case SK_IOCB: case SK_IO_EVENT: case SK_URING_SETUP:
	case SK_URING_ENTER: case SK_URING_REGISTER: case SK_URING_SQE:
	case SK_URING_CQE: case SK_URING_FILE: case SK_URING_BUF:
	case SK_DEDUPE:
		return true;
	default:
		break;
	}
	if (event_path_ok(g, p, 0, &named) || event_path_ok(g, p, 1, &named))
		return true;
	if (named)
		return false;
	return ((ev->have & CAP_FD) && fd_path_ok(g, p, ev->fd, &named)) ||
	       ((ev->have & CAP_FD2) && fd_path_ok(g, p, ev->fd2, &named));
}

/* Operations kept whole by --only-syscalls: they set up or end what the
 * kept ones use and move no data themselves. */
static bool is_setup(const struct cap_event *ev, enum sys_kind kind)
{
	switch (kind) {
	case SK_MMAP: case SK_AIO_SETUP: case SK_AIO_DESTROY:
	case SK_AIO_SUBMIT: case SK_AIO_CANCEL: case SK_AIO_GETEVENTS:
	case SK_IOCB: case SK_IO_EVENT: case SK_URING_SETUP:
	case SK_URING_ENTER: case SK_URING_REGISTER: case SK_URING_SQE:
	case SK_URING_CQE: case SK_URING_FILE: case SK_URING_BUF:
		return true;
	case SK_ADDR:
		return ev->sys == SYS_MUNMAP;
	default:
		return false;
	}
}

/* Events that only change fd tables or processes: never left out. */
static bool is_table_event(const struct cap_event *ev, enum sys_kind kind)
{
	switch (kind) {
	case SK_FORK: case SK_EXEC: case SK_EXIT: case SK_EXIT_GROUP:
	case SK_CWD: case SK_DUP: case SK_CLOSE_RANGE: case SK_CHDIR:
	case SK_FCHDIR: case SK_LOST: case SK_AIO_DATA: case SK_AIO_DONE:
	case SK_DEDUPE_DONE:
		return true;
	case SK_FCNTL:
		return (ev->have & CAP_CMD) &&
		       (ev->cmd == F_DUPFD || ev->cmd == F_DUPFD_CLOEXEC ||
			ev->cmd == F_SETFD || ev->cmd == F_GETFD);
	default:
		return false;
	}
}

/* An operation of @p's timeline @tid at the current event's time. */
static void start_op(struct gen *g, struct rlog_op *op, enum sys_id sys,
		     const struct proc *p, uint32_t tid)
{
	gen_op_init(g, op, sys);
	op->pid = p->pid;
	op->tid = tid;
	op->dur_ns = 0;
}

/* An lseek setting @o's replay position to its captured one. */
static void write_seek(struct gen *g, const struct proc *p, uint32_t tid,
		       struct ofd *o)
{
	uint64_t tl = (uint64_t)p->pid << 32 | tid;
	struct rlog_op op;

	start_op(g, &op, SYS_LSEEK, p, tid);
	op.ret = (int64_t)o->pos;
	op.offset = (int64_t)o->pos;
	op.whence = SEEK_SET;
	op.have |= RL_OFFSET | RL_WHENCE;
	gen_op_fd(&op, o);
	deps_touch(&op.deps, &o->res, op.id, tl);
	gen_op_emit(g, &op);
	g->sum->filter_seeks++;
}

/* Before a kept event of @kind on fd @fd of @p: set its position again if
 * left-out operations moved it; count it if they made it unknown (an
 * append write), unless the event is an append write too. */
static void reseek(struct gen *g, struct proc *p, int64_t fd,
		   enum sys_kind kind)
{
	struct ofd *o = proc_fd(p, fd);

	if (!o || !o->vfd || !o->reseek)
		return;
	o->reseek = false;
	if (o->pos_known)
		write_seek(g, p, g->ev->tid, o);
	else if (!(o->append && kind == SK_WRITE))
		g->sum->filter_pos_lost++;
}

/* A left-out read, write or seek: follow the position it moved. */
static void track_pos(struct gen *g, struct proc *p, enum sys_kind kind)
{
	const struct cap_event *ev = g->ev;
	struct ofd *o = (ev->have & CAP_FD) ? proc_fd(p, ev->fd) : NULL;
	bool pvariant = ev->sys == SYS_PREAD64 || ev->sys == SYS_PREADV ||
			ev->sys == SYS_PREADV2 || ev->sys == SYS_PWRITE64 ||
			ev->sys == SYS_PWRITEV || ev->sys == SYS_PWRITEV2;

	if (!o || (!o->vfd && !o->latent))
		return;
	if (kind == SK_SEEK) {
		int64_t whence = ev->have & CAP_WHENCE ? ev->whence : SEEK_SET;
		if (ev->sys == SYS_LLSEEK) {
			o->pos_known = ev->ret == 0 && whence == SEEK_SET &&
				       (ev->have & CAP_OFFSET);
			o->pos = (uint64_t)ev->offset;
		} else if (ev->ret >= 0) {
			o->pos = (uint64_t)ev->ret;
			o->pos_known = true;
		}
	} else if (ev->ret > 0 &&
		   !(pvariant && (ev->have & CAP_OFFSET) && ev->offset >= 0)) {
		if (kind == SK_WRITE && o->append)
			o->pos_known = false;
		o->pos += (uint64_t)ev->ret;
	}
	o->reseek = true;
}

/* Write the open of @o, fd @fd of @p, opened by a left-out operation, if
 * the filters select @p and the file: a plain open (no create, truncate)
 * of the file's path now, then an lseek to its position. */
static void reopen(void *ctx, struct proc *p, int64_t fd, struct ofd *o)
{
	struct gen *g = ctx;
	uint32_t tid = g->ev->pid == p->pid ? g->ev->tid :
		       p->last_tid ? p->last_tid : p->pid;
	uint64_t tl = (uint64_t)p->pid << 32 | tid;
	char norm[PATHMAP_MAX], sandbox[PATHMAP_MAX];
	size_t sandbox_len;
	struct rlog_op op;
	const struct mount_entry *m;

	if (o->vfd || !o->latent || !comm_ok(&g->filter, p))
		return;
	long n = nstree_path(o->node, norm, false);
	if (n <= 0 || (g->filter.f->npaths &&
		       !path_filter_keeps(&g->filter.paths, norm, (size_t)n)) ||
	    pathmap_rewrite(&g->pm, norm, (size_t)n, sandbox, &sandbox_len,
			    &m) != PATHMAP_OK)
		return;
	g->mount_used[m - g->pm.mounts->v] = true;
	start_op(g, &op, SYS_OPENAT, p, tid);
	for (const struct node *a = o->node->parent; a; a = a->parent)
		deps_need(&op.deps, &a->ns_res, tl);
	op.path = sandbox;
	op.path_len = (uint32_t)sandbox_len;
	op.ret = fd;
	op.flags = o->reopen_flags;
	op.have |= RL_PATH | RL_FLAGS | RL_VFD;
	nstree_exists(o->node, o->reopen_flags & O_DIRECTORY ? NT_DIR :
						 NT_UNKNOWN);
	if (o->node->type == NT_UNKNOWN)
		o->node->type = NT_FILE;
	o->node->opened = true;
	o->latent = false;
	o->skip_reason = 0;
	o->vfd = op.vfd = ++g->next_vfd;
	deps_touch(&op.deps, &o->node->res, op.id, tl);
	deps_touch(&op.deps, &o->res, op.id, tl);
	gen_op_emit(g, &op);
	g->sum->filter_reopens++;
	o->reseek = false;
	if (o->pos_known && o->pos)
		write_seek(g, p, tid, o);
	else if (!o->pos_known)
		o->reseek = true;	/* counted if a kept call needs it */
}

/* The window starts: open what the processes hold open. */
static void reopen_all(struct gen *g)
{
	size_t pos = 0;
	struct u64map_slot *e;

	while ((e = u64map_next(&g->procs.by_pid, &pos)))
		if (proc_each_fd(e->value, reopen, g))
			gen_oom(g);
}

void gen_filter_program(struct gen *g, struct proc *p, const char *name,
			size_t len)
{
	const struct cap_event *ev = g->ev;

	if (len >= sizeof(p->comm))
		len = sizeof(p->comm) - 1;
	memcpy(p->comm, name, len);
	p->comm[len] = '\0';
	if (g->filter.f && g->filter.started && ev->time_ns < g->filter.to_ns &&
	    comm_ok(&g->filter, p) && proc_each_fd(p, reopen, g))
		gen_oom(g);
}

bool gen_filter_event(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct gfilter *gf = &g->filter;
	enum sys_kind kind = sys_info(ev->sys)->kind;

	if (!gf->f)
		return true;
	gf->latent = gf->plain_open = gf->ctx_left_out = false;
	gf->after = ev->time_ns >= gf->to_ns;
	if (!gf->started && ev->time_ns >= gf->from_ns && !gf->after) {
		gf->started = true;
		reopen_all(g);
	}
	unsigned cls = 1u << (kind == SK_OPENFD ? CLS_OPEN : sys_class_of(ev->sys));
	bool class_ok = !gf->f->classes || (gf->f->classes & cls);

	/* Closes (explicit or implied) of opens in the file are written
	 * within the window; counted when the filters would leave them
	 * out. */
	gf->close_extra = !comm_ok(gf, p) ||
			  (gf->f->classes && !(gf->f->classes & (1u << CLS_OPEN)));
	if (kind == SK_CLOSE || is_table_event(ev, kind))
		return true;
	bool keep = gf->started && !gf->after && comm_ok(gf, p) &&
		    path_ok(g, p, kind);
	if (keep && !class_ok) {
		if (kind == SK_OPEN || kind == SK_OPENFD)
			gf->plain_open = true;
		else if (is_setup(ev, kind))
			g->sum->filter_setups++;
		else
			keep = false;
	}
	if (keep) {
		gf->ctx_left_out = gen_filter_ctx_left_out(g, kind);
		switch (kind) {
		case SK_READ: case SK_WRITE: case SK_SEEK: case SK_FDOP:
		case SK_SENDFILE: case SK_COPY_RANGE: case SK_SPLICE:
		case SK_READDIR:
			if (ev->have & CAP_FD)
				reseek(g, p, ev->fd, kind);
			if (ev->have & CAP_FD2)
				reseek(g, p, ev->fd2, kind);
			break;
		default:
			break;
		}
		return true;
	}
	gen_filtered(g, GF_FILTERED);
	if (kind == SK_OPEN || kind == SK_OPENFD) {
		gf->latent = true;	/* its fd: installed, not written */
		return true;
	}
	if (kind == SK_READ || kind == SK_WRITE || kind == SK_SEEK)
		track_pos(g, p, kind);
	else
		gen_filter_left_out_setup(g, p, kind);
	return false;
}

void gen_filter_latent(struct gen *g, struct proc *p, int64_t fd,
		       struct node *n, int64_t flags, uint64_t pos,
		       bool pos_known)
{
	struct ofd *o;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		gen_install_skipped(g, p, fd, GF_FILTER_FD);
		return;
	}
	o = gen_install_new(g, p, fd, flags & O_CLOEXEC);
	if (!o)
		return;
	o->skip_reason = GF_FILTER_FD;
	o->latent = true;
	o->node = node_data(n);
	o->reopen_flags = (int32_t)(flags & ~(O_CREAT | O_EXCL | O_TRUNC));
	o->append = flags & O_APPEND;
	o->pos = pos;
	o->pos_known = pos_known;
}

bool gen_filter_drop_close(struct gen *g)
{
	if (!g->filter.f)
		return false;
	if (g->filter.after) {
		gen_filtered(g, GF_FILTERED);
		return true;
	}
	if (g->filter.close_extra)
		g->sum->filter_closes++;
	return false;
}

void gen_filter_header(const struct gen *g, struct outbuf *ob)
{
	const struct gen_filters *f = g->filter.f;
	char classes[64] = "";

	if (!f)
		return;
	outbuf_puts(ob, "#|");
	if (f->classes) {
		for (int c = 0; c < CLS_COUNT; c++) {
			if (!(f->classes & (1u << c)))
				continue;
			if (classes[0])
				strcat(classes, "+");
			strcat(classes, sys_class_name((enum sys_class)c));
		}
		outbuf_meta(ob, "only_syscalls", classes);
	}
	for (size_t i = 0; i < f->ncomms; i++)
		outbuf_meta(ob, "only_comm", f->comms[i]);
	for (size_t i = 0; i < f->npaths; i++)
		outbuf_meta(ob, "only_path", f->paths[i]);
	if (f->from.kind != GT_NONE)
		outbuf_meta_u64(ob, "from_ns", g->filter.from_ns);
	if (f->to.kind != GT_NONE)
		outbuf_meta_u64(ob, "to_ns", g->filter.to_ns);
	outbuf_putc(ob, '\n');
}
