/*
 * readahead: the capture log read and parsed by a second thread, while the
 * generator's thread models the events it parsed before (gen.h).  Events
 * travel in batches through a ring of a few of them; each batch holds the
 * events and a copy of their paths, because the line reader reuses its
 * buffer.  The events come out in log order, exactly as caplog_next() gives
 * them, so the output does not depend on the thread.  The thread also
 * prepares the events' absolute paths (normalised, rewritten into their
 * sandbox, hashed), which depends on the mount table alone, to take that
 * work off the model's thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "ioriot/linereader.h"

#define BATCH_EVENTS 1024
#define BATCHES 4
/* A waiting reader is woken when this many batches are free, not at each:
 * a wake-up costs the model's thread a futex call and an interrupt to the
 * other CPU, some microseconds on a VM. */
#define REFILL_AT 2
/* Room for the strings of an event: its paths, at most one line's bytes,
 * and each one's normalised and sandbox form. */
#define EVENT_STRINGS_MAX (LINE_MAX_LEN + 2 + 4 * (PATHMAP_MAX + 1))
#define ARENA_SIZE (8 * LINE_MAX_LEN)

struct batch {
	struct cap_event ev[BATCH_EVENTS];
	struct prepared pre[BATCH_EVENTS][2];	/* p and P */
	size_t n;
	uint64_t offset;		/* log bytes read after its last event */
	char arena[ARENA_SIZE];
};

struct readahead {
	struct caplog_reader *r;
	const struct pathmap *pm;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled;		/* a batch is ready, or the end */
	pthread_cond_t emptied;		/* a batch is free, or stop */
	unsigned head, tail;		/* batches handed over: [head, tail) */
	bool done;			/* the reader returned rc */
	bool stop;			/* the consumer wants no more */
	bool reader_waits;		/* for a free batch */
	int rc;				/* caplog_next()'s last result */
	bool held;			/* the consumer holds batch head */
	size_t pos;			/* ... and is at this event of it */
	struct batch *b[BATCHES];
};

/* Copy @len bytes of @s and a NUL into the arena at *@used. */
static const char *keep(struct batch *b, size_t *used, const char *s,
			uint32_t len)
{
	char *d = b->arena + *used;

	memcpy(d, s, len);
	d[len] = '\0';
	*used += (size_t)len + 1;
	return d;
}

/*
 * Prepare absolute path @path (@len bytes, kept in the arena) into @pp as
 * gen_resolve() would resolve it, its strings in the arena at *@used.  A
 * relative path is left to the model, which knows the directories.
 */
static void prepare(const struct readahead *ra, struct batch *b, size_t *used,
		    struct prepared *pp, const char *path, uint32_t len)
{
	char *norm = b->arena + *used;
	size_t slen;

	pp->src = NULL;
	if (!len || path[0] != '/')
		return;
	long n = path_normalize(path, len, NULL, norm);
	pp->src = path;
	pp->norm = NULL;
	if (n < 0) {
		pp->st = n == -ENAMETOOLONG ? PATHMAP_TOO_LONG :
			 PATHMAP_RELATIVE;
		return;
	}
	if ((size_t)n == len && !memcmp(norm, path, len))
		norm = (char *)path;		/* as written: share it */
	else
		*used += (size_t)n + 1;
	pp->norm = norm;
	pp->norm_len = (uint32_t)n;
	char *sandbox = b->arena + *used;
	pp->st = pathmap_rewrite(ra->pm, norm, (size_t)n, sandbox, &slen,
				 &pp->mount);
	if (pp->st != PATHMAP_OK)
		return;
	*used += slen + 1;
	pp->sandbox = sandbox;
	pp->sandbox_len = (uint32_t)slen;
	pp->hash = nstree_path_hash(norm, (size_t)n);
}

/* Fill @b with the next events; sets *@rc to caplog_next()'s result at
 * the end of the log or on an error. */
static void fill(struct readahead *ra, struct batch *b, int *rc)
{
	size_t used = 0;

	b->n = 0;
	while (b->n < BATCH_EVENTS &&
	       ARENA_SIZE - used >= EVENT_STRINGS_MAX) {
		struct cap_event *ev = &b->ev[b->n];
		struct prepared *pre = b->pre[b->n];

		*rc = caplog_next(ra->r, ev);
		if (*rc <= 0)
			break;
		/* An absent path is a static "", a present one (even empty)
		 * points into the reader's buffer. */
		pre[0].src = pre[1].src = NULL;
		if (ev->have & CAP_PATH) {
			ev->path = keep(b, &used, ev->path, ev->path_len);
			prepare(ra, b, &used, &pre[0], ev->path, ev->path_len);
		}
		if (ev->have & CAP_PATH2) {
			ev->path2 = keep(b, &used, ev->path2, ev->path2_len);
			prepare(ra, b, &used, &pre[1], ev->path2,
				ev->path2_len);
		}
		b->n++;
	}
	b->offset = caplog_offset(ra->r);
}

static void *reader_main(void *arg)
{
	struct readahead *ra = arg;
	int rc = 1;

	while (rc > 0) {
		pthread_mutex_lock(&ra->lock);
		while (ra->tail - ra->head == BATCHES && !ra->stop) {
			ra->reader_waits = true;
			pthread_cond_wait(&ra->emptied, &ra->lock);
		}
		ra->reader_waits = false;
		bool stop = ra->stop;
		struct batch *b = ra->b[ra->tail % BATCHES];
		pthread_mutex_unlock(&ra->lock);
		if (stop)
			break;
		fill(ra, b, &rc);
		pthread_mutex_lock(&ra->lock);
		ra->tail++;
		pthread_cond_signal(&ra->filled);
		pthread_mutex_unlock(&ra->lock);
	}
	pthread_mutex_lock(&ra->lock);
	ra->rc = rc > 0 ? 0 : rc;
	ra->done = true;
	pthread_cond_signal(&ra->filled);
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

struct readahead *readahead_start(struct caplog_reader *r,
				  const struct pathmap *pm)
{
	struct readahead *ra = calloc(1, sizeof(*ra));
	int i;

	if (!ra)
		return NULL;
	ra->r = r;
	ra->pm = pm;
	for (i = 0; i < BATCHES; i++)
		if (!(ra->b[i] = malloc(sizeof(*ra->b[i]))))
			goto err;
	if (pthread_mutex_init(&ra->lock, NULL))
		goto err;
	if (pthread_cond_init(&ra->filled, NULL))
		goto err_lock;
	if (pthread_cond_init(&ra->emptied, NULL))
		goto err_filled;
	if (pthread_create(&ra->thread, NULL, reader_main, ra))
		goto err_emptied;
	return ra;

err_emptied:
	pthread_cond_destroy(&ra->emptied);
err_filled:
	pthread_cond_destroy(&ra->filled);
err_lock:
	pthread_mutex_destroy(&ra->lock);
err:
	for (i = 0; i < BATCHES; i++)
		free(ra->b[i]);
	free(ra);
	return NULL;
}

const struct cap_event *readahead_next(struct readahead *ra,
				       const struct prepared (**pre)[2],
				       size_t *ahead, uint64_t *offset)
{
	struct batch *b = ra->b[ra->head % BATCHES];

	if (ra->held && ra->pos < b->n) {
		*offset = b->offset;
		*pre = &b->pre[ra->pos];
		*ahead = b->n - ra->pos - 1;
		return &b->ev[ra->pos++];
	}
	pthread_mutex_lock(&ra->lock);
	if (ra->held) {
		/* Done with it: the reader may refill it. */
		ra->head++;
		ra->held = false;
		ra->pos = 0;
		if (ra->reader_waits &&
		    BATCHES - (ra->tail - ra->head) >= REFILL_AT)
			pthread_cond_signal(&ra->emptied);
	}
	for (;;) {
		while (ra->head == ra->tail && !ra->done)
			pthread_cond_wait(&ra->filled, &ra->lock);
		if (ra->head == ra->tail) {
			pthread_mutex_unlock(&ra->lock);
			return NULL;
		}
		b = ra->b[ra->head % BATCHES];
		if (b->n)
			break;
		ra->head++;		/* the empty last batch */
		pthread_cond_signal(&ra->emptied);
	}
	ra->held = true;
	pthread_mutex_unlock(&ra->lock);
	*offset = b->offset;
	*pre = &b->pre[ra->pos];
	*ahead = b->n - ra->pos - 1;
	return &b->ev[ra->pos++];
}

int readahead_finish(struct readahead *ra)
{
	int rc;

	if (!ra)
		return 0;
	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_signal(&ra->emptied);
	pthread_mutex_unlock(&ra->lock);
	pthread_join(ra->thread, NULL);
	rc = ra->rc;
	pthread_cond_destroy(&ra->emptied);
	pthread_cond_destroy(&ra->filled);
	pthread_mutex_destroy(&ra->lock);
	for (int i = 0; i < BATCHES; i++)
		free(ra->b[i]);
	free(ra);
	return rc;
}
