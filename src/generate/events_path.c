/*
 * events_path: what the generator does with operations on paths: lookups
 * (stat, access, ...), and the namespace changes mkdir, unlink, rmdir,
 * rename, link, symlink, and mknod (bind of a Unix socket alike).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/*
 * Whether relative symlink target @t (@len bytes) of link @link resolves,
 * lexically from the link's directory, without climbing above the link's
 * mount root.  Then it stays relative: it resolves alike in the sandbox.
 * One that climbs out of its mount would reach, in the replay's jail, none
 * of what it reached on the captured host.
 */
static bool stays_in_mount(const struct resolved *link, const char *t,
			   size_t len)
{
	size_t mlen = link->mount ? link->mount->dir_len : 0, pos, start, clen;
	long depth = -1;		/* the link's own name is not a level */

	if (!link->mount || link->norm_len < mlen)
		return false;
	pos = mlen;
	while (path_next_component(link->norm, link->norm_len, &pos, &start))
		depth++;
	pos = 0;
	while ((clen = path_next_component(t, len, &pos, &start))) {
		if (clen == 2 && t[start] == '.' && t[start + 1] == '.')
			depth--;
		else if (clen != 1 || t[start] != '.')
			depth++;
		if (depth < 0)
			return false;
	}
	return true;
}

/* Resolve target @t (@len bytes) of link @link, from the link's directory
 * if relative, into g->path[@slot]. */
static enum pathmap_status link_target_resolve(struct gen *g,
					       const struct resolved *link,
					       const char *t, size_t len,
					       int slot)
{
	char dir[PATHMAP_MAX];
	size_t dlen = link->norm_len;

	while (dlen > 1 && link->norm[dlen - 1] != '/')
		dlen--;
	memcpy(dir, link->norm, dlen);
	dir[dlen > 1 ? dlen - 1 : 1] = '\0';
	return gen_resolve(g, dir, t, len, slot);
}

/* readlink of @n read a target (path2, a link's content): INIT can make
 * the link with a relative one that stays in its mount as it is, with any
 * other if it maps into a sandbox. */
static void link_target_seen(struct gen *g, struct node *n)
{
	const struct cap_event *ev = g->ev;
	int rc;

	if (ev->path2[0] != '/' &&
	    stays_in_mount(&g->path[0], ev->path2, ev->path2_len))
		rc = nstree_link_target(n, ev->path2, ev->path2_len);
	else if (link_target_resolve(g, &g->path[0], ev->path2,
				     ev->path2_len, 1) == PATHMAP_OK)
		rc = nstree_link_target(n, g->path[1].sandbox,
					g->path[1].sandbox_len);
	else
		rc = 0;
	if (rc)
		gen_oom(g);
}

/* Operations on one existing path: stat, access, chmod, readlink, ... */
void gen_on_pathop(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!gen_resolve_path(g, p, 0))
		return;
	struct node *n = g->path[0].node;
	if (ev->ret >= 0) {
		enum node_type type = NT_UNKNOWN;
		if (ev->sys == SYS_READLINK || ev->sys == SYS_READLINKAT)
			type = NT_SYMLINK;
		else if (sys_is_stat(ev->sys) && (ev->have & CAP_MODE))
			type = gen_type_of_mode(ev->mode);
		nstree_exists(n, type);
		if (sys_is_stat(ev->sys) && (ev->have & CAP_SIZE) &&
		    (type == NT_FILE || type == NT_UNKNOWN))
			nstree_size_seen(node_data(n), (uint64_t)ev->size);
		if (sys_is_stat(ev->sys) && (ev->have & CAP_SIZE) &&
		    type == NT_SYMLINK && ev->size > 0)
			nstree_link_size_seen(node_data(n), (uint64_t)ev->size);
		if (sys_is_stat(ev->sys) && (ev->have & CAP_MODE))
			nstree_mode_seen(node_data(n), ev->mode);
		if (sys_is_chmod(ev->sys))
			nstree_mode_changed(node_data(n));
		if (type == NT_SYMLINK && ev->ret > 0 &&
		    (ev->have & CAP_PATH2))
			link_target_seen(g, n);
		if (type == NT_SYMLINK && !sys_is_stat(ev->sys) && ev->ret > 0)
			nstree_link_size_seen(node_data(n), (uint64_t)ev->ret);
		if (ev->sys == SYS_TRUNCATE && (ev->have & CAP_COUNT))
			nstree_truncated(node_data(n), (uint64_t)ev->count);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(n);
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_touch(g, &op, &n->res);
	gen_op_emit(g, &op);
}

/* *at calls that work on an fd when the path is empty (AT_EMPTY_PATH) or,
 * for utimensat, absent. */
void gen_on_statat(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;

	if ((ev->have & CAP_PATH) && ev->path_len > 0)
		gen_on_pathop(g, p);
	else
		gen_on_fdop(g, p);		/* counts a missing fd as incomplete */
}

void gen_on_mkdir(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!gen_resolve_path(g, p, 0))
		return;
	struct node *n = g->path[0].node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_touch(g, &op, &n->res);
	gen_op_touch(g, &op, &n->ns_res);
	gen_op_touch(g, &op, gen_parent_res(n));
	if (ev->ret == 0)
		nstree_created(n, NT_DIR, true);
	else if (ev->ret == -EEXIST)
		nstree_exists(n, n->type == NT_UNKNOWN ? NT_DIR : n->type);
	else if (ev->ret == -ENOENT && n->parent)
		nstree_enoent(n->parent);
	gen_op_emit(g, &op);
}

/* unlink, unlinkat (AT_REMOVEDIR: rmdir) and rmdir. */
void gen_on_remove(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!gen_resolve_path(g, p, 0))
		return;
	bool dir = ev->sys == SYS_RMDIR ||
		   ((ev->have & CAP_FLAGS) && (ev->flags & AT_REMOVEDIR));
	struct node *n = g->path[0].node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_touch(g, &op, &n->res);
	if (dir)
		gen_op_touch(g, &op, &n->ns_res);
	gen_op_touch(g, &op, gen_parent_res(n));
	if (ev->ret == 0) {
		nstree_exists(n, dir ? NT_DIR : (n->type == NT_UNKNOWN ? NT_FILE : n->type));
		if (nstree_removed(g->ns, n))
			gen_oom(g);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(n);
	}
	gen_op_emit(g, &op);
}

void gen_on_rename(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;
	unsigned flags = ev->have & CAP_FLAGS ? (unsigned)ev->flags : 0;

	if (!gen_resolve_path(g, p, 0) ||
	    !gen_resolve_path(g, p, 1))
		return;
	struct node *from = g->path[0].node, *to = g->path[1].node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_path(g, &op, &g->path[1], true);
	gen_op_touch(g, &op, &from->res);
	gen_op_touch(g, &op, &to->res);
	gen_op_touch(g, &op, &from->ns_res);
	gen_op_touch(g, &op, &to->ns_res);
	gen_op_touch(g, &op, gen_parent_res(from));
	gen_op_touch(g, &op, gen_parent_res(to));
	if (ev->ret == 0) {
		if ((flags & RENAME_NOREPLACE) && to->state == NS_UNKNOWN)
			nstree_enoent(to);
		if (nstree_rename(g->ns, from, to, flags & RENAME_EXCHANGE) ==
		    -ENOMEM)
			gen_oom(g);
	} else if (ev->ret == -ENOENT) {
		nstree_enoent(from);
	} else if (ev->ret == -EEXIST && (flags & RENAME_NOREPLACE)) {
		nstree_exists(to, NT_UNKNOWN);
	}
	gen_op_emit(g, &op);
}

/*
 * link, linkat: the new name shows the old file's content.  linkat(fd, "",
 * ..., AT_EMPTY_PATH) links the file open on fd (O_TMPFILE files get their
 * name this way).
 */
void gen_on_link(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool by_fd = !ev->path_len && (ev->have & CAP_FLAGS) &&
		     (ev->flags & AT_EMPTY_PATH);
	struct ofd *o = NULL;
	struct node *old;
	struct rlog_op op;

	if (by_fd) {
		if (!(o = gen_event_ofd(g, p, ev->fd)))
			return;
		old = o->node;
	} else {
		if (!gen_resolve_path(g, p, 0))
			return;
		old = g->path[0].node;
	}
	if (!gen_resolve_path(g, p, 1))
		return;
	struct node *new = g->path[1].node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	if (o)
		gen_op_fd(&op, o);
	else
		gen_op_path(g, &op, &g->path[0], false);
	gen_op_path(g, &op, &g->path[1], true);
	gen_op_touch(g, &op, &old->res);
	gen_op_touch(g, &op, &new->res);
	gen_op_touch(g, &op, gen_parent_res(new));
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
	gen_op_emit(g, &op);
}

/*
 * symlink(target p, linkpath P).  A relative target that stays in the
 * link's mount stays as it is (the replay resolves it from the link, in
 * its jail); any other is made absolute from the link's directory and
 * rewritten into the sandbox, and one outside every captured mount is
 * filtered.
 */
void gen_on_symlink(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct rlog_op op;

	if (!(ev->have & CAP_PATH)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (!gen_resolve_path(g, p, 1))
		return;
	const struct resolved *link = &g->path[1];
	bool relative = ev->path_len > 0 && ev->path[0] != '/' &&
			ev->path_len < PATHMAP_MAX &&
			!memchr(ev->path, '\0', ev->path_len) &&
			stays_in_mount(link, ev->path, ev->path_len);
	if (!relative) {
		enum pathmap_status st = link_target_resolve(g, link, ev->path,
							     ev->path_len, 0);
		if (st != PATHMAP_OK) {
			gen_filtered(g, gen_filter_of(st));
			return;
		}
	}
	struct node *n = link->node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, link, false);
	op.target = relative ? ev->path : g->path[0].sandbox;
	op.target_len = (uint32_t)(relative ? ev->path_len :
				   g->path[0].sandbox_len);
	op.have |= RL_TARGET;
	gen_op_touch(g, &op, &n->res);
	gen_op_touch(g, &op, gen_parent_res(n));
	if (ev->ret == 0)
		nstree_created(n, NT_SYMLINK, true);
	else if (ev->ret == -EEXIST)
		nstree_exists(n, NT_UNKNOWN);
	gen_op_emit(g, &op);
}

/*
 * mknod, mknodat, and bind of a Unix socket to a path: a new inode that is
 * no directory (a socket, a FIFO, a regular file, a device) at p.  bind
 * fails with EADDRINUSE where mknod fails with EEXIST.  Opens of a FIFO
 * made here are replayed with O_NONBLOCK (events_fd.c).
 */
void gen_on_mknod(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	mode_t type = ev->have & CAP_MODE ? (mode_t)ev->mode & S_IFMT : 0;
	struct rlog_op op;

	if (!gen_resolve_path(g, p, 0))
		return;
	struct node *n = g->path[0].node;
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_path(g, &op, &g->path[0], false);
	gen_op_touch(g, &op, &n->res);
	gen_op_touch(g, &op, gen_parent_res(n));
	if (ev->ret == 0) {
		nstree_created(n, NT_FILE, true);
		n->fifo = type == S_IFIFO;
	} else if (ev->ret == -EEXIST || ev->ret == -EADDRINUSE) {
		nstree_exists(n, NT_UNKNOWN);
	} else if (ev->ret == -ENOENT && n->parent) {
		nstree_enoent(n->parent);
	}
	gen_op_emit(g, &op);
}
