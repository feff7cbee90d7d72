/*
 * events_fd: what the generator does with operations on fds and with fd
 * tables: opens (and fds open at capture start), closes, dups, data
 * transfers with their offsets, seeks, other fd calls, chdir.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

void gen_on_open(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	int64_t flags = ev->have & CAP_FLAGS ? ev->flags : O_RDONLY;
	struct rlog_op op;

	if (ev->sys == SYS_CREAT)
		flags = O_CREAT | O_WRONLY | O_TRUNC;
	if (ev->ret > UINT32_MAX) {		/* not an fd the kernel gives */
		if (!g->filter.latent)
			gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	/* A still-open fd the open reuses was closed unseen, or, with
	 * several threads, maybe by another thread while the open ran (its
	 * close comes later: events are in the order they began): set it
	 * aside until the open's end then.  Else close it first, so its
	 * close comes before this open. */
	if (ev->ret >= 0)
		gen_fd_reused(g, p, ev->ret);
	if (!(ev->have & CAP_PATH)) {
		if (!g->filter.latent)
			gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	/* Kept by the filters only for its fd: no create, no truncate. */
	if (g->filter.plain_open &&
	    (ev->ret < 0 || (flags & O_TMPFILE) == O_TMPFILE)) {
		g->filter.plain_open = false;
		g->filter.latent = true;
		gen_filtered(g, GF_FILTERED);
	}
	char buf[PATHMAP_MAX];
	enum pathmap_status st =
		gen_resolve(g, gen_base_dir(p, ev->have & CAP_FD, ev->fd, buf),
			ev->path, ev->path_len, 0);
	if (st != PATHMAP_OK) {
		if (!g->filter.latent)
			gen_filtered(g, gen_filter_of(st));
		if (ev->ret >= 0)
			gen_install_skipped(g, p, ev->ret, gen_filter_of(st));
		return;
	}
	struct node *n = g->path[0].node;

	/* An open that found the file (the probe's size at its exit)
	 * tells INIT the file's size, also when the filters leave it out. */
	bool found = ev->ret >= 0 && (ev->have & CAP_SIZE) &&
		     !(flags & (O_CREAT | O_TRUNC | O_DIRECTORY));
	if (g->filter.latent) {		/* left out: its fd only */
		if (found) {
			nstree_exists(n, NT_FILE);
			nstree_size_seen(node_data(n), (uint64_t)ev->size);
		}
		if (ev->ret >= 0)
			gen_filter_latent(g, p, ev->ret, n, flags, 0, true);
		return;
	}
	/* The file is in INIT instead, unless a kept operation removed it:
	 * then the open makes it as captured. */
	bool plain = g->filter.plain_open && n->state != NS_ABSENT &&
		     (flags & (O_CREAT | O_EXCL | O_TRUNC));
	if (plain)
		flags &= ~(O_CREAT | O_EXCL | O_TRUNC);
	gen_op_init(g, &op, ev->sys == SYS_CREAT && plain ? SYS_OPEN : ev->sys);
	gen_op_args(&op, ev);
	if (plain) {
		op.flags = flags;
		op.have |= RL_FLAGS;
		g->sum->filter_plain_opens++;
	}
	gen_op_path(g, &op, &g->path[0], false);
	/* A FIFO made in the capture: an open in the replay must not wait
	 * for its other end, which may wait for this timeline. */
	if (n->fifo && n->state == NS_EXISTS) {
		op.flags = flags | O_NONBLOCK;
		op.have |= RL_FLAGS;
	}
	/* An open that makes or truncates nothing changes nothing another
	 * operation could see: it only uses the path. */
	if (flags & (O_CREAT | O_TRUNC))
		gen_op_touch(g, &op, &n->res);
	else
		gen_op_use(g, &op, &n->res);
	if (flags & O_CREAT)
		gen_op_touch(g, &op, n->parent ? &n->parent->res : NULL);
	if (ev->ret >= 0) {
		bool trunc = flags & O_TRUNC;
		n->opened = true;
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
		if (found && n->type == NT_FILE)
			nstree_size_seen(node_data(n), (uint64_t)ev->size);
		/* O_TMPFILE names a directory; the file itself has no name. */
		struct node *file = (flags & O_TMPFILE) == O_TMPFILE ?
				    nstree_anon(g->ns) : node_data(n);
		struct ofd *o = file ? gen_install_new(g, p, ev->ret, flags & O_CLOEXEC)
				     : NULL;
		if (!file)
			gen_oom(g);
		if (o) {
			o->vfd = ++g->next_vfd;
			o->node = file;
			o->append = flags & O_APPEND;
			o->pos_known = true;
			op.vfd = o->vfd;
			op.have |= RL_VFD;
			gen_op_touch(g, &op, &o->res);
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
	gen_op_emit(g, &op);
}

void gen_on_openfd(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	int64_t flags = (ev->have & CAP_FLAGS ? ev->flags : O_RDONLY) &
			~(O_CREAT | O_EXCL | O_TRUNC);
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || !(ev->have & CAP_PATH)) {
		if (!g->filter.latent)
			gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	proc_close(&g->procs, p, ev->fd);
	enum pathmap_status st = gen_resolve(g, p->cwd, ev->path, ev->path_len, 0);
	if (st != PATHMAP_OK) {
		if (!g->filter.latent)
			gen_filtered(g, gen_filter_of(st));
		gen_install_skipped(g, p, ev->fd, gen_filter_of(st));
		return;
	}
	struct node *n = g->path[0].node;
	/* What the file was at the start holds for INIT even when the
	 * filters leave the fd's open out (--from: a preallocated log
	 * overwritten in place is not an empty file written to). */
	enum node_type type = ev->have & CAP_MODE ? gen_type_of_mode(ev->mode)
						  : NT_FILE;
	nstree_exists(n, type);
	if ((ev->have & CAP_SIZE) && type != NT_DIR)
		nstree_size_seen(n, (uint64_t)ev->size);
	if (ev->have & CAP_MODE)
		nstree_mode_seen(node_data(n), ev->mode);
	if (g->filter.latent) {		/* left out: its fd only */
		gen_filter_latent(g, p, ev->fd, n, flags,
				  ev->have & CAP_OFFSET ? (uint64_t)ev->offset : 0,
				  ev->have & CAP_OFFSET);
		return;
	}
	struct ofd *o = gen_install_new(g, p, ev->fd, flags & O_CLOEXEC);
	if (!o)
		return;
	o->vfd = ++g->next_vfd;
	o->node = node_data(n);
	o->append = flags & O_APPEND;
	o->pos_known = ev->have & CAP_OFFSET;
	o->pos = ev->have & CAP_OFFSET ? (uint64_t)ev->offset : 0;

	/* Replayed as an open at the start, then a seek to the position. */
	gen_op_init(g, &op, SYS_OPENAT);
	op.ret = ev->fd;
	op.flags = flags;
	op.vfd = o->vfd;
	op.have |= RL_FLAGS | RL_VFD;
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_touch(g, &op, &n->res);
	gen_op_touch(g, &op, &o->res);
	gen_op_emit(g, &op);
	if (o->pos && !o->append) {
		gen_op_init(g, &op, SYS_LSEEK);
		op.ret = (int64_t)o->pos;
		op.offset = (int64_t)o->pos;
		op.whence = SEEK_SET;
		op.have |= RL_OFFSET | RL_WHENCE;
		gen_op_fd(&op, o);
		gen_op_touch(g, &op, &o->res);
		gen_op_emit(g, &op);
	}
}

void gen_on_close(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	/* The description an overlapping open set aside, if this closed
	 * it, else the one in the table, unless the close began before
	 * another thread's call that put it there returned: then it closed
	 * one already gone (proc_fd_at()). */
	struct ofd *shadow = proc_shadowed(p, ev->fd, ev->time_ns, ev->tid);
	struct ofd *o = shadow ? shadow :
			proc_fd_at(p, ev->fd, ev->time_ns, ev->tid);

	if (!(ev->have & CAP_FD)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (!o) {
		/* A ring's fd: its ring is not used any more (the replay's
		 * lives until the end). */
		gen_filtered(g, ev->ret == 0 && gen_uring_closed(g, ev->pid, ev->fd) ?
			     GF_URING : GF_UNKNOWN_FD);
		return;
	}
	if (!o->vfd)		/* the close of a left-out open: left out */
		gen_filtered(g, o->latent ? GF_FILTERED :
			     (enum gen_filter)o->skip_reason);
	else if (o->refs > 1)
		gen_filtered(g, GF_FD_TABLE);	/* other references remain */
	/* The release callback writes the close of the last reference,
	 * with this event's timing. */
	if (shadow) {
		proc_drop_shadow(&g->procs, p, ev->fd);
	} else {
		proc_close(&g->procs, p, ev->fd);
		proc_unshadow(p, ev->fd, ev->time_ns);
	}
}

void gen_on_close_range(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	/* The kernel takes unsigned ints: a logged -1 means ~0U. */
	uint64_t first = ev->have & CAP_FD ? (uint32_t)ev->fd : 0;
	uint64_t last = ev->have & CAP_FD2 ? (uint32_t)ev->fd2 : UINT32_MAX;
	bool cloexec = (ev->have & CAP_FLAGS) && (ev->flags & CLOSE_RANGE_CLOEXEC);

	gen_filtered(g, GF_FD_TABLE);
	if (ev->ret == 0 && proc_close_range(&g->procs, p, first, last, cloexec))
		gen_oom(g);
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
	struct fdslot what = { .ofd = o, .cloexec = cloexec, .tid = g->ev->tid,
			       .since_ns = cap_event_end(g->ev) };

	if (proc_install(&g->procs, p, newfd, &what) == -ENOMEM)
		gen_oom(g);
}

void gen_on_dup(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;

	gen_filtered(g, GF_FD_TABLE);
	if (ev->ret < 0 || !(ev->have & CAP_FD))
		return;
	bool cloexec = ev->sys == SYS_DUP3 && (ev->have & CAP_FLAGS) &&
		       (ev->flags & O_CLOEXEC);
	do_dup(g, p, ev->fd, ev->ret, cloexec);
}

void gen_on_fcntl(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (ev->have & CAP_CMD) {
		switch (ev->cmd) {
		case F_DUPFD:
		case F_DUPFD_CLOEXEC:
			gen_filtered(g, GF_FD_TABLE);
			if (ev->ret >= 0)
				do_dup(g, p, ev->fd, ev->ret, ev->cmd == F_DUPFD_CLOEXEC);
			return;
		case F_SETFD:
			gen_filtered(g, GF_FD_TABLE);
			if (ev->ret == 0 && (ev->have & CAP_ARG))
				proc_set_cloexec(p, ev->fd, ev->arg & FD_CLOEXEC);
			return;
		case F_GETFD:
			gen_filtered(g, GF_FD_TABLE);
			return;
		}
		/* A lock command with its struct flock (not in logs of
		 * older captures: those run as a probe, exec.c). */
		if (gen_is_lock_cmd(ev->cmd) && (ev->have & CAP_WHENCE)) {
			gen_on_lock(g, p);
			return;
		}
	}
	struct ofd *o = gen_event_ofd(g, p, ev->fd);
	if (!o)
		return;
	if (ev->cmd == F_SETFL && ev->ret == 0 && (ev->have & CAP_ARG))
		o->append = ev->arg & O_APPEND;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	if ((ev->have & CAP_CMD) && gen_is_lock_cmd(ev->cmd))
		op.have &= ~(uint64_t)RL_ARG;	/* the address of a struct flock */
	gen_op_fd(&op, o);
	gen_op_touch(g, &op, &o->res);
	gen_op_emit(g, &op);
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

void gen_on_data(struct gen *g, struct proc *p, bool write)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	bool positional;
	uint64_t off;

	struct ofd *o = gen_event_ofd(g, p, ev->fd);
	if (!o)
		return;
	bool known = io_offset(ev, o, &positional, &off);
	if (write && o->append && !positional) {
		off = o->node->cur_size;
		known = true;
	}
	/* A read, or a write inside the file, changes nothing another
	 * operation's result shows (the replay writes no captured data);
	 * a write that may grow the file does. */
	bool changes = write && (!known || ev->ret < 0 ||
				 off + (uint64_t)ev->ret > o->node->cur_size);
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

	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, o);
	if (!(op.have & RL_COUNT)) {
		op.count = ev->ret > 0 ? ev->ret : 0;
		op.have |= RL_COUNT;
	}
	/* Writes left out by the filters may have grown the file after
	 * INIT: a read that met its end asks for what it read. */
	if (!write && g->filter.cut_reads && ev->ret >= 0 &&
	    op.count > ev->ret) {
		op.count = ev->ret;
		g->sum->filter_reads_cut++;
	}
	if (positional)
		gen_op_use(g, &op, &o->res);
	else
		gen_op_touch(g, &op, &o->res);	/* moves the position */
	if (changes)
		gen_op_touch(g, &op, &o->node->res);
	else
		gen_op_use(g, &op, &o->node->res);
	gen_op_emit(g, &op);
}

void gen_on_seek(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	struct ofd *o = gen_event_ofd(g, p, ev->fd);
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
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, o);
	if (ev->sys == SYS_LLSEEK && ev->ret == 0 && whence == SEEK_SET)
		op.ret = offset;
	gen_op_touch(g, &op, &o->res);
	gen_op_emit(g, &op);
}

/* Any other operation on an fd. */
void gen_on_fdop(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	struct ofd *o = gen_event_ofd(g, p, ev->fd);
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
		if (sys_is_stat(ev->sys) && (ev->have & CAP_MODE))
			nstree_mode_seen(n, ev->mode);
		if (sys_is_chmod(ev->sys))
			nstree_mode_changed(n);
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, o);
	/* Syncs, advice, readahead and fstat change nothing another
	 * operation's result shows. */
	enum sys_op_class cls = sys_info(ev->sys)->cls;
	if (cls == OC_SYNC || cls == OC_READ || ev->sys == SYS_FADVISE64 ||
	    sys_is_stat(ev->sys) || ev->sys == SYS_FSTATFS ||
	    ev->sys == SYS_FSTATFS64) {
		gen_op_use(g, &op, &o->res);
		gen_op_use(g, &op, &n->res);
	} else {
		gen_op_touch(g, &op, &o->res);
		gen_op_touch(g, &op, &n->res);
	}
	gen_op_emit(g, &op);
}

void gen_on_readdir(struct gen *g, struct proc *p)
{
	struct ofd *o = proc_fd(p, g->ev->fd);

	if (o && o->node && g->ev->ret >= 0)
		nstree_exists(o->node, NT_DIR);
	gen_on_fdop(g, p);
}

/* sendfile(out d, in e) and copy_file_range(in d, out e). */
void gen_on_transfer(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool sendfile = ev->sys == SYS_SENDFILE;
	struct ofd *in = proc_fd(p, sendfile ? ev->fd2 : ev->fd);
	struct ofd *out = proc_fd(p, sendfile ? ev->fd : ev->fd2);
	struct rlog_op op;

	if (!(ev->have & CAP_FD) || !(ev->have & CAP_FD2)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (in && !in->vfd)
		in = NULL;
	if (out && !out->vfd)
		out = NULL;
	/* sendfile to a socket is a file read: keep it with the in side. */
	if (!in || (!out && !sendfile)) {
		gen_filtered(g, GF_UNKNOWN_FD);
		return;
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
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
	gen_op_touch(g, &op, &in->res);
	gen_op_touch(g, &op, &in->node->res);
	if (out) {
		op.fd2 = out->vfd;
		op.have |= RL_FD2;
		gen_op_touch(g, &op, &out->res);
		gen_op_touch(g, &op, &out->node->res);
	}
	gen_op_emit(g, &op);
}

void gen_on_sync(struct gen *g)
{
	struct rlog_op op;

	gen_op_init(g, &op, g->ev->sys);
	gen_op_emit(g, &op);
}

void gen_on_chdir(struct gen *g, struct proc *p, bool by_fd)
{
	const struct cap_event *ev = g->ev;
	char buf[PATHMAP_MAX];
	long n;

	gen_filtered(g, GF_FD_TABLE);
	if (ev->ret != 0)
		return;
	if (by_fd) {
		struct ofd *o = proc_fd(p, ev->fd);
		n = o && o->node ? nstree_path(o->node, buf, false) : -1;
	} else {
		n = path_normalize(ev->path, ev->path_len, p->cwd, buf);
	}
	gen_set_cwd(g, p, n > 0 ? buf : NULL);
}
