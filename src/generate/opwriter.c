/*
 * opwriter: the operation lines written to the unnamed temporary file by a
 * thread of their own (gen.h).  The model's thread formats each line into
 * an outbuf, whose bytes are moved into large blocks; full blocks go to the
 * writer thread through a ring of a few, in order.  So the kernel's copy of
 * the lines into the file runs on the other CPU, not on the model's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

#define BLOCK_SIZE (128 * 1024)
#define BLOCKS 4
/* A waiting writer is woken when this many blocks are ready, not at each:
 * a wake-up costs the model's thread a futex call and an interrupt to the
 * other CPU, some microseconds on a VM. */
#define WAKE_AT 2
/* The outbuf's bytes move into the block at this fill: below it, the
 * longest line (four paths of PATHMAP_MAX bytes, escaped, and the fixed
 * fields) still fits into the outbuf without a flush. */
#define MOVE_AT (sizeof(((struct outbuf *)0)->buf) - 40 * 1024)

struct block {
	size_t len;
	char data[BLOCK_SIZE];
};

struct opwriter {
	struct outbuf ob;		/* the model formats into it */
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;		/* a block is ready, or the end */
	pthread_cond_t emptied;		/* a block is written */
	unsigned head, tail;		/* blocks handed over: [head, tail) */
	bool done;			/* no block follows */
	bool writer_waits;		/* for a block */
	int err;			/* the first write's -errno (atomic) */
	struct block *b[BLOCKS];
};

_Static_assert(40 * 1024 >= 32 * (7 + DEPS_MAX + 24) +
	       3 * (3 * PATHMAP_MAX + RLOG_XATTR_NAME_MAX),
	       "an operation line fits above MOVE_AT");

/* Write all of @b to @fd.  0 or -errno. */
static int write_block(int fd, const struct block *b)
{
	for (size_t done = 0; done < b->len;) {
		ssize_t n = write(fd, b->data + done, b->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct opwriter *w = arg;
	int err = 0;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (w->head == w->tail && !w->done) {
			w->writer_waits = true;
			pthread_cond_wait(&w->filled, &w->lock);
		}
		w->writer_waits = false;
		if (w->head == w->tail) {
			pthread_mutex_unlock(&w->lock);
			break;
		}
		struct block *b = w->b[w->head % BLOCKS];
		pthread_mutex_unlock(&w->lock);

		/* After an error the blocks are taken, not written, so the
		 * model never waits for one. */
		if (!err && (err = write_block(w->fd, b)))
			__atomic_store_n(&w->err, err, __ATOMIC_RELAXED);
		pthread_mutex_lock(&w->lock);
		w->head++;
		pthread_cond_signal(&w->emptied);
		pthread_mutex_unlock(&w->lock);
	}
	return NULL;
}

struct opwriter *opwriter_start(int fd)
{
	struct opwriter *w = calloc(1, sizeof(*w));
	int i;

	if (!w)
		return NULL;
	/* The outbuf never writes: its bytes are moved before it is full.
	 * Were it to flush, it would fail (EBADF), not reorder lines. */
	outbuf_init(&w->ob, -1);
	w->fd = fd;
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

struct outbuf *opwriter_outbuf(struct opwriter *w)
{
	return &w->ob;
}

/* Hand the block being filled to the writer and wait for a free one. */
static void hand_over(struct opwriter *w)
{
	pthread_mutex_lock(&w->lock);
	w->tail++;
	if (w->writer_waits && w->tail - w->head >= WAKE_AT)
		pthread_cond_signal(&w->filled);
	while (w->tail - w->head == BLOCKS)
		pthread_cond_wait(&w->emptied, &w->lock);
	pthread_mutex_unlock(&w->lock);
	w->b[w->tail % BLOCKS]->len = 0;
}

/* Move the outbuf's bytes into the block being filled. */
static void move_bytes(struct opwriter *w)
{
	struct block *b = w->b[w->tail % BLOCKS];

	if (BLOCK_SIZE - b->len < w->ob.len) {
		hand_over(w);
		b = w->b[w->tail % BLOCKS];
	}
	memcpy(b->data + b->len, w->ob.buf, w->ob.len);
	b->len += w->ob.len;
	w->ob.len = 0;
}

void opwriter_line_done(struct opwriter *w)
{
	if (w->ob.len >= MOVE_AT)
		move_bytes(w);
}

int opwriter_err(const struct opwriter *w)
{
	return w->ob.err ? w->ob.err : __atomic_load_n(&w->err, __ATOMIC_RELAXED);
}

int opwriter_finish(struct opwriter *w)
{
	int err;

	if (!w)
		return 0;
	move_bytes(w);
	pthread_mutex_lock(&w->lock);
	if (w->b[w->tail % BLOCKS]->len)
		w->tail++;
	w->done = true;
	pthread_cond_signal(&w->filled);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	err = w->ob.err ? w->ob.err : w->err;
	pthread_cond_destroy(&w->emptied);
	pthread_cond_destroy(&w->filled);
	pthread_mutex_destroy(&w->lock);
	for (int i = 0; i < BLOCKS; i++)
		free(w->b[i]);
	free(w);
	return err;
}
