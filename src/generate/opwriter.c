/*
 * opwriter: the operation lines formatted and written to the unnamed
 * temporary file by a thread of their own (gen.h).  The model's thread
 * packs each operation into a large block (its fields present, in a few
 * dozen bytes); full blocks go to the writer thread through a ring of a
 * few, in order, which formats the lines and writes them.  So the number
 * formatting and the kernel's copy run on the other CPU, not the model's.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

#define BLOCK_SIZE (128 * 1024)
#define BLOCKS 4
/* The most bytes one packed operation takes: its fixed part, every
 * dependency, every number, and the strings with their lengths. */
#define PACKED_MAX (64 + 8 * DEPS_MAX + 8 * 32 + 3 * PATHMAP_MAX + \
		    RLOG_XATTR_NAME_MAX + 4 * 4)

struct block {
	size_t len;
	char data[BLOCK_SIZE];
};

struct opwriter {
	struct outbuf ob;		/* the writer thread formats into it */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;		/* a block is ready, or the end */
	pthread_cond_t emptied;		/* a block is written */
	unsigned head, tail;		/* blocks handed over: [head, tail) */
	bool done;			/* no block follows */
	int err;			/* the outbuf's -errno (atomic) */
	struct block *b[BLOCKS];
};

_Static_assert(PACKED_MAX <= BLOCK_SIZE / 4, "blocks hold several operations");

/* The field behind each have bit of struct rlog_op that is a number (all
 * eight bytes); -1 for the strings, which are packed apart. */
#define NUM(f) offsetof(struct rlog_op, f)
static const int num_field[27] = {
	[0] = NUM(fd), [1] = NUM(fd2), [2] = NUM(vfd), [3] = -1, [4] = -1,
	[5] = NUM(flags), [6] = NUM(mode), [7] = NUM(offset),
	[8] = NUM(offset2), [9] = NUM(whence), [10] = NUM(count),
	[11] = NUM(cmd), [12] = NUM(arg), [13] = NUM(uid), [14] = NUM(gid),
	[15] = NUM(addr), [16] = -1, [17] = NUM(ctx), [18] = NUM(tag),
	[19] = NUM(min), [20] = NUM(cq), [21] = NUM(slot), [22] = NUM(buf),
	[23] = NUM(sqflags), [24] = NUM(umask), [25] = NUM(stride),
	[26] = -1,
};
#undef NUM
#define STRING_BITS (RL_PATH | RL_PATH2 | RL_TARGET | RL_NAME)
#define KNOWN_BITS ((1u << 27) - 1)

/* The fixed part of a packed operation. */
struct packed {
	uint64_t id, time_ns, dur_ns;
	int64_t ret;
	uint32_t pid, tid, sys, have, ndeps;
};

static char *put(char *p, const void *v, size_t len)
{
	memcpy(p, v, len);
	return p + len;
}

static char *put_string(char *p, const char *s, uint32_t len)
{
	return put(put(p, &len, sizeof(len)), s, len);
}

/* Pack @op at @p; returns the end. */
static char *pack(char *p, const struct rlog_op *op)
{
	struct packed k = {
		.id = op->id, .time_ns = op->time_ns, .dur_ns = op->dur_ns,
		.ret = op->ret, .pid = op->pid, .tid = op->tid,
		.sys = (uint32_t)op->sys, .have = op->have & KNOWN_BITS,
		.ndeps = (uint32_t)op->deps.n,
	};

	p = put(p, &k, sizeof(k));
	p = put(p, op->deps.id, (size_t)op->deps.n * sizeof(op->deps.id[0]));
	for (unsigned h = k.have & ~STRING_BITS; h; h &= h - 1)
		p = put(p, (const char *)op + num_field[__builtin_ctz(h)], 8);
	if (k.have & RL_PATH)
		p = put_string(p, op->path, op->path_len);
	if (k.have & RL_PATH2)
		p = put_string(p, op->path2, op->path2_len);
	if (k.have & RL_TARGET)
		p = put_string(p, op->target, op->target_len);
	if (k.have & RL_NAME)
		p = put_string(p, op->name, op->name_len);
	return p;
}

/* A string packed at *@pp: its bytes stay in the block. */
static const char *take_string(const char **pp, uint32_t *len)
{
	const char *s;

	memcpy(len, *pp, sizeof(*len));
	s = *pp + sizeof(*len);
	*pp = s + *len;
	return s;
}

/* Unpack the operation at @p into @op; returns the end. */
static const char *unpack(const char *p, struct rlog_op *op)
{
	struct packed k;

	memcpy(&k, p, sizeof(k));
	p += sizeof(k);
	op->id = k.id;
	op->time_ns = k.time_ns;
	op->dur_ns = k.dur_ns;
	op->ret = k.ret;
	op->pid = k.pid;
	op->tid = k.tid;
	op->sys = (enum sys_id)k.sys;
	op->have = k.have;
	op->deps.n = (int)k.ndeps;
	memcpy(op->deps.id, p, (size_t)k.ndeps * sizeof(op->deps.id[0]));
	p += (size_t)k.ndeps * sizeof(op->deps.id[0]);
	for (unsigned h = k.have & ~STRING_BITS; h; h &= h - 1) {
		memcpy((char *)op + num_field[__builtin_ctz(h)], p, 8);
		p += 8;
	}
	if (k.have & RL_PATH)
		op->path = take_string(&p, &op->path_len);
	if (k.have & RL_PATH2)
		op->path2 = take_string(&p, &op->path2_len);
	if (k.have & RL_TARGET)
		op->target = take_string(&p, &op->target_len);
	if (k.have & RL_NAME)
		op->name = take_string(&p, &op->name_len);
	return p;
}

static void *writer_main(void *arg)
{
	struct opwriter *w = arg;
	struct rlog_op op;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (w->head == w->tail && !w->done)
			pthread_cond_wait(&w->filled, &w->lock);
		if (w->head == w->tail) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		struct block *b = w->b[w->head % BLOCKS];
		pthread_mutex_unlock(&w->lock);

		/* After an error the blocks are taken, not written, so the
		 * model never waits for one. */
		for (const char *p = b->data; p < b->data + b->len && !w->ob.err;) {
			p = unpack(p, &op);
			rlog_write_op(&w->ob, &op);
		}
		if (w->ob.err)
			__atomic_store_n(&w->err, w->ob.err, __ATOMIC_RELAXED);
		pthread_mutex_lock(&w->lock);
		w->head++;
		pthread_cond_signal(&w->emptied);
		pthread_mutex_unlock(&w->lock);
	}
	outbuf_flush(&w->ob);
	__atomic_store_n(&w->err, w->ob.err, __ATOMIC_RELAXED);
	return NULL;
}

struct opwriter *opwriter_start(int fd)
{
	struct opwriter *w = calloc(1, sizeof(*w));
	int i;

	if (!w)
		return NULL;
	outbuf_init(&w->ob, fd);
	for (i = 0; i < BLOCKS; i++)
		if (!(w->b[i] = malloc(sizeof(*w->b[i]))))
			goto err;
	w->b[0]->len = 0;
	if (pthread_mutex_init(&w->lock, NULL))
		goto err;
	if (pthread_cond_init(&w->filled, NULL))
		goto err_lock;
	if (pthread_cond_init(&w->emptied, NULL))
		goto err_filled;
	if (pthread_create(&w->thread, NULL, writer_main, w))
		goto err_emptied;
	return w;

err_emptied:
	pthread_cond_destroy(&w->emptied);
err_filled:
	pthread_cond_destroy(&w->filled);
err_lock:
	pthread_mutex_destroy(&w->lock);
err:
	for (i = 0; i < BLOCKS; i++)
		free(w->b[i]);
	free(w);
	return NULL;
}

/* Hand the block being filled to the writer and wait for a free one. */
static void hand_over(struct opwriter *w)
{
	pthread_mutex_lock(&w->lock);
	w->tail++;
	pthread_cond_signal(&w->filled);
	while (w->tail - w->head == BLOCKS)
		pthread_cond_wait(&w->emptied, &w->lock);
	pthread_mutex_unlock(&w->lock);
	w->b[w->tail % BLOCKS]->len = 0;
}

void opwriter_put(struct opwriter *w, const struct rlog_op *op)
{
	struct block *b = w->b[w->tail % BLOCKS];

	if (BLOCK_SIZE - b->len < PACKED_MAX) {
		hand_over(w);
		b = w->b[w->tail % BLOCKS];
	}
	b->len = (size_t)(pack(b->data + b->len, op) - b->data);
}

int opwriter_err(const struct opwriter *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_RELAXED);
}

int opwriter_finish(struct opwriter *w)
{
	int err;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	if (w->b[w->tail % BLOCKS]->len)
		w->tail++;
	w->done = true;
	pthread_cond_signal(&w->filled);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	err = w->err;
	pthread_cond_destroy(&w->emptied);
	pthread_cond_destroy(&w->filled);
	pthread_mutex_destroy(&w->lock);
	for (int i = 0; i < BLOCKS; i++)
		free(w->b[i]);
	free(w);
	return err;
}
