/*
 * events_clone: data moved between files without passing through the
 * process: the clone and dedupe ioctls (FICLONE, FICLONERANGE,
 * FIDEDUPERANGE) and splice (tee, pipe to pipe, is no file I/O).
 *
 * A FIDEDUPERANGE ioctl comes after one dedupe record per destination,
 * with its entry time (docs/capture-format.md).  It is written as one
 * dedupe line per destination (queued by the replay), the ioctl line, and,
 * when the ioctl succeeded, one dedupe_done line per destination with its
 * captured status, which the replay compares with its own.
 */
#include <errno.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The dedupe records of one timeline since its last FIDEDUPERANGE. */
struct dedupe_batch {
	uint64_t time_ns;	/* their entry time: that of their ioctl */
	size_t n;
	struct {
		int64_t fd, offset, bytes, status;
		bool complete;
	} dest[];
};

#define BATCH_CAP 256		/* a dest_count of more is no capture's */

void gen_on_dedupe(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct dedupe_batch *b = u64map_get(&g->dedupe, timeline(ev));

	(void)p;		/* written with its ioctl, or counted there */
	if (b && b->time_ns != ev->time_ns) {
		u64map_del(&g->dedupe, timeline(ev));
		free(b);
		b = NULL;
	}
	if (!b) {
		b = calloc(1, sizeof(*b) + BATCH_CAP * sizeof(b->dest[0]));
		if (!b || u64map_put(&g->dedupe, timeline(ev), b)) {
			free(b);
			gen_oom(g);
			return;
		}
		b->time_ns = ev->time_ns;
	}
	if (b->n == BATCH_CAP)
		return;		/* the ioctl finds fewer than it names */
	b->dest[b->n].fd = ev->fd;
	b->dest[b->n].offset = ev->offset2;
	b->dest[b->n].bytes = ev->count;
	b->dest[b->n].status = ev->ret;
	b->dest[b->n++].complete = (ev->have & (CAP_FD | CAP_OFFSET2 |
						 CAP_COUNT | CAP_RET)) ==
				   (CAP_FD | CAP_OFFSET2 | CAP_COUNT | CAP_RET);
}

void gen_dedupe_free(struct gen *g)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!g->dedupe.slots)
		return;
	while ((s = u64map_next(&g->dedupe, &pos)))
		free(s->value);
	u64map_destroy(&g->dedupe);
}

/* The description of file fd @fd, or NULL (counted) if it is none. */
static struct ofd *file_of(struct gen *g, struct proc *p, int64_t fd)
{
	struct ofd *o = proc_fd(p, fd);

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

/* The length a clone of @len bytes at @off of a @size-byte source
 * covers: 0 means to the source's end. */
static uint64_t clone_len(int64_t off, int64_t len, bool have_size,
			  uint64_t size)
{
	if (len > 0)
		return (uint64_t)len;
	if (!have_size || off < 0 || (uint64_t)off >= size)
		return 0;
	return size - (uint64_t)off;
}

/* FICLONE (dest d, source e, the source's size s) and FICLONERANGE. */
static void clone_range(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	bool whole = ev->cmd == (int64_t)FICLONE;
	struct ofd *dst, *src;
	struct rlog_op op;

	const unsigned range = CAP_OFFSET | CAP_COUNT | CAP_OFFSET2;

	if (!(ev->have & CAP_FD) || !(ev->have & CAP_FD2) ||
	    (!whole && (ev->have & range) != range)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	if (!(dst = file_of(g, p, ev->fd)) || !(src = file_of(g, p, ev->fd2)))
		return;
	bool have_size = ev->have & CAP_SIZE && ev->size >= 0;
	uint64_t size = have_size ? (uint64_t)ev->size : 0;
	if (have_size)		/* the clone reads the source to its end */
		nstree_size_seen(src->node, size);
	if (ev->ret == 0 && whole) {
		nstree_read(src->node, 0, size);
		nstree_truncated(dst->node, 0);
		nstree_write(dst->node, 0, size);
	} else if (ev->ret == 0) {
		uint64_t len = clone_len(ev->offset, ev->count, have_size, size);
		nstree_read(src->node, (uint64_t)ev->offset, len);
		nstree_write(dst->node, (uint64_t)ev->offset2, len);
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, dst);
	op.fd2 = src->vfd;
	op.have |= RL_FD2;
	gen_op_touch(g, &op, &dst->res);
	gen_op_touch(g, &op, &dst->node->res);
	gen_op_touch(g, &op, &src->res);
	gen_op_touch(g, &op, &src->node->res);
	gen_op_emit(g, &op);
}

/* One line per destination of batch @b: queued (dedupe) or its result
 * (dedupe_done). */
static void dedupe_lines(struct gen *g, const struct dedupe_batch *b,
			 struct ofd *const *dst, bool done)
{
	for (size_t i = 0; i < b->n; i++) {
		struct rlog_op op;

		gen_op_init(g, &op, done ? SYS_DEDUPE_DONE : SYS_DEDUPE);
		op.dur_ns = 0;
		op.ret = done ? b->dest[i].status : 0;
		gen_op_fd(&op, dst[i]);
		if (done) {
			op.count = b->dest[i].bytes;
			op.have |= RL_COUNT;
		} else {
			op.offset2 = b->dest[i].offset;
			op.have |= RL_OFFSET2;
		}
		gen_op_touch(g, &op, &dst[i]->res);
		gen_op_touch(g, &op, &dst[i]->node->res);
		gen_op_emit(g, &op);
	}
}

/* FIDEDUPERANGE (source d, its range O c, G destinations) with the dedupe
 * records of its timeline before it. */
static void dedupe(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct dedupe_batch *b = u64map_del(&g->dedupe, timeline(ev));
	const unsigned range = CAP_OFFSET | CAP_COUNT | CAP_ARG;
	struct ofd *src, *dst[BATCH_CAP];
	struct rlog_op op;

	if (b && b->time_ns != ev->time_ns) {
		free(b);		/* records of a call not captured */
		b = NULL;
	}
	/* Every destination with its record, or the call cannot be made
	 * as captured. */
	if ((ev->have & range) != range || !b ||
	    (int64_t)b->n != ev->arg) {
		gen_filtered(g, GF_INCOMPLETE);
		goto out;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (!b->dest[i].complete) {
			gen_filtered(g, GF_INCOMPLETE);
			goto out;
		}
		if (!(dst[i] = file_of(g, p, b->dest[i].fd)))
			goto out;
	}
	if (!(src = gen_event_ofd(g, p, ev->fd)))
		goto out;
	/* The compared ranges must hold data before the capture's writes. */
	nstree_read(src->node, (uint64_t)ev->offset, (uint64_t)ev->count);
	for (size_t i = 0; i < b->n; i++)
		nstree_read(dst[i]->node, (uint64_t)b->dest[i].offset,
			    (uint64_t)ev->count);
	dedupe_lines(g, b, dst, false);
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	gen_op_fd(&op, src);
	gen_op_touch(g, &op, &src->res);
	gen_op_touch(g, &op, &src->node->res);
	gen_op_emit(g, &op);
	if (ev->ret == 0)
		dedupe_lines(g, b, dst, true);
out:
	free(b);
}

void gen_on_ioctl(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;

	if (!(ev->have & CAP_CMD)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	switch ((uint32_t)ev->cmd) {
	case FICLONE: case FICLONERANGE:
		clone_range(g, p);
		break;
	case FIDEDUPERANGE:
		dedupe(g, p);
		break;
	default:
		gen_filtered(g, GF_IOCTL);
		break;
	}
}

/*
 * splice (in d at O, out e at Q): one side is a pipe, which the replay
 * has of its own; the file side is replayed.  tee moves data between two
 * pipes: no file I/O.
 */
void gen_on_splice(struct gen *g, struct proc *p)
{
	const struct cap_event *ev = g->ev;
	struct ofd *in, *out;
	struct rlog_op op;

	if (ev->sys == SYS_TEE) {
		gen_filtered(g, GF_NOT_FILE);
		return;
	}
	if (!(ev->have & CAP_FD) || !(ev->have & CAP_FD2)) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	in = proc_fd(p, ev->fd);
	out = proc_fd(p, ev->fd2);
	if (in && !in->vfd)
		in = NULL;
	if (out && !out->vfd)
		out = NULL;
	if (!in && !out) {
		gen_filtered(g, GF_UNKNOWN_FD);
		return;
	}
	if (ev->ret > 0 && in) {
		bool at = ev->have & CAP_OFFSET;
		uint64_t off = at ? (uint64_t)ev->offset : in->pos;
		if (at || in->pos_known)
			nstree_read(in->node, off, (uint64_t)ev->ret);
		if (!at)
			in->pos = off + (uint64_t)ev->ret;
	}
	if (ev->ret > 0 && out) {
		bool at = ev->have & CAP_OFFSET2;
		uint64_t off = at ? (uint64_t)ev->offset2 :
			       out->append ? out->node->cur_size : out->pos;
		nstree_write(out->node, off, (uint64_t)ev->ret);
		if (!at)
			out->pos = off + (uint64_t)ev->ret;
	}
	gen_op_init(g, &op, ev->sys);
	gen_op_args(&op, ev);
	if (in) {
		gen_op_fd(&op, in);
		gen_op_touch(g, &op, &in->res);
		gen_op_touch(g, &op, &in->node->res);
	}
	if (out) {
		op.fd2 = out->vfd;
		op.have |= RL_FD2;
		gen_op_touch(g, &op, &out->res);
		gen_op_touch(g, &op, &out->node->res);
	}
	gen_op_emit(g, &op);
}
