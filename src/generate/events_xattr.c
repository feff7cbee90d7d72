/*
 * events_xattr: what the generator does with the extended attribute calls
 * (set, get, list and remove; by path, by link, by fd, and the *at forms):
 * one operation each, on the sandbox path or the vfd, with the name and
 * the sizes captured (values are data: never captured), and the facts
 * about the attributes a file had before the capture, for INIT.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/xattr.h>
#include <string.h>

#include "gen.h"

#define ACL_ACCESS "system.posix_acl_access"

/* What the call's result shows of the attribute it names. */
static bool seen_of(const struct cap_event *ev, enum xattr_op op,
		    enum xattr_seen *what)
{
	int64_t flags = ev->have & CAP_ARG ? ev->arg : 0;

	switch (op) {
	case XATTR_OP_GET:
		if (ev->ret >= 0)
			*what = XS_READ;
		else if (ev->ret == -ENODATA)
			*what = XS_NO_DATA;
		else if (ev->ret == -ERANGE)	/* larger than the buffer */
			*what = XS_EXISTED;
		else
			return false;
		return true;
	case XATTR_OP_SET:
		if (ev->ret == 0)
			*what = flags & XATTR_REPLACE ? XS_REPLACED :
				flags & XATTR_CREATE ? XS_CREATED : XS_SET;
		else if (ev->ret == -EEXIST)
			*what = XS_EXISTED;
		else if (ev->ret == -ENODATA)
			*what = XS_NO_DATA;
		else
			return false;
		return true;
	case XATTR_OP_REMOVE:
		if (ev->ret == 0)
			*what = XS_REMOVED;
		else if (ev->ret == -ENODATA)
			*what = XS_NO_DATA;
		else
			return false;
		return true;
	case XATTR_OP_LIST:
		break;
	}
	return false;
}

/* The model's part: the file exists (or not), and what the attribute
 * was before the capture. */
static void model(struct gen *g, struct node *n, bool by_path,
		  enum xattr_op op)
{
	const struct cap_event *ev = g->ev;
	enum xattr_seen what;

	if (by_path && ev->ret == -ENOENT) {
		nstree_enoent(n);
		return;
	}
	if (by_path && (ev->ret >= 0 || ev->ret == -ENODATA ||
			ev->ret == -EEXIST || ev->ret == -ERANGE))
		nstree_exists(n, NT_UNKNOWN);
	n = node_data(n);
	if ((ev->have & CAP_PATH2) && seen_of(ev, op, &what) &&
	    nstree_xattr_seen(n, ev->path2, ev->path2_len, what,
			      what == XS_READ ? (uint64_t)ev->ret :
			      ev->have & CAP_COUNT && ev->count > 0 ?
			      (uint64_t)ev->count : 0))
		gen_oom(g);
	/* An ACL sets the mode's permission bits. */
	if (op == XATTR_OP_SET && ev->ret == 0 && (ev->have & CAP_PATH2) &&
	    ev->path2_len == sizeof(ACL_ACCESS) - 1 &&
	    memcmp(ev->path2, ACL_ACCESS, ev->path2_len) == 0)
		nstree_mode_changed(n);
}

void gen_on_xattr(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	enum xattr_op op;
	enum xattr_by by;
	struct ofd *o = NULL;
	struct node *n;
	struct rlog_op rop;

	sys_xattr(ev->sys, &op, &by);
	/* Every call but a list names its attribute. */
	if (op != XATTR_OP_LIST && (!(ev->have & CAP_PATH2) ||
				    !ev->path2_len ||
				    ev->path2_len > RLOG_XATTR_NAME_MAX)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	/* By fd: the f* calls, and an *at call with an empty path and
	 * AT_EMPTY_PATH (its d the fd). */
	bool by_fd = by == XATTR_BY_FD ||
		     (by == XATTR_BY_AT && !ev->path_len &&
		      (ev->have & CAP_FLAGS) && (ev->flags & AT_EMPTY_PATH));
	if (by_fd) {
		if (!(o = gen_event_ofd(g, p, ev->fd)))
			return;
		n = o->node;
	} else {
		if (!gen_resolve_path(g, p, 0))
			return;
		n = g->path[0].node;
	}
	gen_op_init(g, &rop, ev->sys);
	gen_op_args(&rop, ev);
	if (o)
		gen_op_fd(&rop, o);
	else
		gen_op_path(g, &rop, &g->path[0], false);
	if (ev->have & CAP_PATH2) {
		rop.name = ev->path2;
		rop.name_len = ev->path2_len;
		rop.have |= RL_NAME;
	}
	if (o)
		gen_op_touch(g, &rop, &o->res);
	gen_op_touch(g, &rop, &n->res);
	model(g, n, !o, op);
	gen_op_emit(g, &rop);
}
