/*
 * clone: the replay of the clone and dedupe ioctls (fileops.h).  FICLONE
 * and FICLONERANGE are one call each.  A FIDEDUPERANGE call's destinations
 * come as dedupe lines before it, which queue them for their timeline;
 * the ioctl dedupes them in one call, as captured, and keeps each
 * destination's status for the dedupe_done lines after it, which compare
 * it with the captured one.  Where the file system cannot share extents
 * (ext4: EOPNOTSUPP; across mounts: EXDEV) the results differ, and count
 * so.
 */
#include <errno.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fileops.h"
#include "ioriot/u64map.h"

#define DEDUPE_MAX 256		/* destinations per call: as generate */

/* One timeline's destinations: queued, then their results. */
struct dedupe_state {
	size_t nqueued, ndone, next;
	int64_t err;		/* the call failed: every result is this */
	struct {
		int fd;
		uint64_t offset;
		int64_t status;
	} dest[DEDUPE_MAX];
};

struct dedupe_table {
	pthread_mutex_t lock;	/* guards states: timelines add at once */
	struct u64map states;	/* timeline -> struct dedupe_state */
};

struct dedupe_table *dedupe_table_new(void)
{
	struct dedupe_table *t = calloc(1, sizeof(*t));

	if (!t || u64map_init(&t->states)) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void dedupe_table_free(struct dedupe_table *t)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (!t)
		return;
	while ((s = u64map_next(&t->states, &pos)))
		free(s->value);
	u64map_destroy(&t->states);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* The state of @op's timeline, made if missing; NULL on ENOMEM.  Only its
 * own timeline's thread uses it afterwards. */
static struct dedupe_state *state_of(struct dedupe_table *t,
				     const struct rlog_op *op)
{
	uint64_t tl = (uint64_t)op->pid << 32 | op->tid;
	struct dedupe_state *st;

	pthread_mutex_lock(&t->lock);
	st = u64map_get(&t->states, tl);
	if (!st && (st = calloc(1, sizeof(*st))) &&
	    u64map_put(&t->states, tl, st)) {
		free(st);
		st = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	return st;
}

/* FIDEDUPERANGE of @op's range of source @fd onto the queued
 * destinations; -ENOMEM in *@rc when it cannot be tried. */
static int64_t dedupe(struct dedupe_state *st, const struct rlog_op *op,
		      int fd, int *rc)
{
	size_t n = st->nqueued;
	struct file_dedupe_range *r = calloc(1, sizeof(*r) +
					     n * sizeof(r->info[0]));
	int64_t ret;

	st->nqueued = 0;
	st->ndone = n;
	st->next = 0;
	if (!r) {
		*rc = -ENOMEM;
		return st->err = -ENOMEM;
	}
	r->src_offset = (uint64_t)op->offset;
	r->src_length = (uint64_t)op->count;
	r->dest_count = (uint16_t)n;
	for (size_t i = 0; i < n; i++) {
		r->info[i].dest_fd = st->dest[i].fd;
		r->info[i].dest_offset = st->dest[i].offset;
	}
	ret = ioctl(fd, FIDEDUPERANGE, r) < 0 ? -errno : 0;
	st->err = ret;
	for (size_t i = 0; i < n; i++)
		st->dest[i].status = r->info[i].status;
	free(r);
	return ret;
}

int64_t clone_call(struct dedupe_table *t, const struct rlog_op *op, int fd,
		   int fd2, int *rc)
{
	struct dedupe_state *st = NULL;

	*rc = 0;
	if (op->sys == SYS_DEDUPE || op->sys == SYS_DEDUPE_DONE ||
	    (uint32_t)op->cmd == FIDEDUPERANGE) {
		if (!(st = state_of(t, op))) {
			*rc = -ENOMEM;
			return -ENOMEM;
		}
	}
	if (op->sys == SYS_DEDUPE) {
		if (fd < 0)
			return -EBADF;
		if (st->nqueued == DEDUPE_MAX)
			return -E2BIG;
		st->dest[st->nqueued].fd = fd;
		st->dest[st->nqueued++].offset = (uint64_t)op->offset2;
		return 0;
	}
	if (op->sys == SYS_DEDUPE_DONE) {
		if (st->next >= st->ndone)
			return -EINVAL;		/* no call left a result */
		st->next++;
		return st->err ? st->err : st->dest[st->next - 1].status;
	}
	if (fd < 0)
		return -EBADF;
	switch ((uint32_t)op->cmd) {
	case FICLONE:
		if (fd2 < 0)
			return -EBADF;
		return ioctl(fd, FICLONE, fd2) < 0 ? -errno : 0;
	case FICLONERANGE: {
		struct file_clone_range r = {
			.src_fd = fd2, .src_offset = (uint64_t)op->offset,
			.src_length = (uint64_t)op->count,
			.dest_offset = (uint64_t)op->offset2,
		};
		if (fd2 < 0)
			return -EBADF;
		return ioctl(fd, FICLONERANGE, &r) < 0 ? -errno : 0;
	}
	case FIDEDUPERANGE:
		return dedupe(st, op, fd, rc);
	default:
		return -EINVAL;
	}
}
