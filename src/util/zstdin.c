/*
 * zstdin: zstd streams read back as text (zstdio.h): a streaming
 * decompressor for readers, in a thread of its own ahead of the reader or
 * in the reader's, and the frames of a range of a file for the capture
 * cutting its log back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "ioriot/log.h"
#include "ioriot/zstdio.h"

/* Compressed bytes read from the file at a time. */
#define IN_SIZE (256 * 1024)
/* Text decompressed ahead of the reader: CHUNKS chunks of CHUNK_TEXT (one
 * chunk, refilled in the reader's thread, without the thread). */
#define CHUNK_TEXT (64 * 1024)
#define CHUNKS 16

/* Text decompressed by the thread, and how the stream goes on after it. */
struct chunk {
	size_t len;		/* bytes of text */
	uint64_t offset;	/* compressed bytes consumed after it */
	bool last;		/* the stream ends after this text ... */
	int rc;			/* ... with this read error (-errno), or 0 */
	const char *why;	/* ... cut short or damaged (why), or NULL */
	char text[CHUNK_TEXT];
};

struct zstd_in {
	/* The decompressing thread's alone. */
	ZSTD_DCtx *dctx;
	int fd;
	ZSTD_inBuffer in;
	uint64_t consumed;	/* compressed bytes before in.src */
	size_t hint;		/* 0: between frames */
	bool eof;
	char buf[IN_SIZE];

	/* The reader's alone. */
	char *path;
	bool ahead;		/* a thread decompresses ahead */
	bool started;		/* the thread runs */
	bool cut;		/* the reader reached a cut (warned) */
	struct chunk *cur;	/* the chunk being read, or NULL */
	size_t pos;		/* ... up to here */
	uint64_t offset;	/* compressed bytes behind the text read */

	/* Shared, under lock: chunks [head, tail) hold text to read. */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	unsigned head, tail;
	bool stop;		/* the reader wants no more */
	struct chunk *chunk[CHUNKS];
};

bool zstd_is_stream(const void *head, size_t len)
{
	const unsigned char *b = head;
	uint32_t magic;

	if (len < 4)
		return false;
	magic = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		(uint32_t)b[3] << 24;
	return magic == ZSTD_MAGICNUMBER ||
	       (magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

struct zstd_in *zstd_in_new(int fd, const char *path, bool ahead)
{
	struct zstd_in *zi = calloc(1, sizeof(*zi));

	if (!zi || !(zi->path = strdup(path)) ||
	    !(zi->dctx = ZSTD_createDCtx()))
		goto nomem;
	for (int i = 0; i < (ahead ? CHUNKS : 1); i++)
		if (!(zi->chunk[i] = malloc(sizeof(struct chunk))))
			goto nomem;
	zi->ahead = ahead;
	zi->fd = fd;
	zi->in.src = zi->buf;
	return zi;

nomem:
	zstd_in_free(zi);
	errno = ENOMEM;
	return NULL;
}

/* Read more compressed bytes.  0 or -errno. */
static int fill_input(struct zstd_in *zi)
{
	ssize_t n;

	zi->consumed += zi->in.pos;
	do
		n = read(zi->fd, zi->buf, IN_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	zi->in.size = (size_t)n;
	zi->in.pos = 0;
	zi->eof = n == 0;
	return 0;
}

/* Decompress the stream's next text into @c, as much as fits. */
static void decompress(struct zstd_in *zi, struct chunk *c)
{
	ZSTD_outBuffer out = { .dst = c->text, .size = CHUNK_TEXT };

	c->last = false;
	c->rc = 0;
	c->why = NULL;
	while (out.pos < out.size) {
		if (zi->in.pos == zi->in.size) {
			if (!zi->eof && (c->rc = fill_input(zi))) {
				c->last = true;
				break;
			}
			if (zi->eof) {
				if (zi->hint)
					c->why = "ends inside a frame";
				c->last = true;
				break;
			}
		}
		size_t ret = ZSTD_decompressStream(zi->dctx, &out, &zi->in);
		if (ZSTD_isError(ret)) {
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				c->rc = -ENOMEM;
			else
				c->why = ZSTD_getErrorName(ret);
			c->last = true;
			break;
		}
		zi->hint = ret;
	}
	c->len = out.pos;
	c->offset = zi->consumed + zi->in.pos;
}

/* The decompressing thread: fills free chunks until the stream ends or
 * the reader stops it. */
static void *decompressor(void *arg)
{
	struct zstd_in *zi = arg;
	bool last = false;

	while (!last) {
		pthread_mutex_lock(&zi->lock);
		while (!zi->stop && zi->tail - zi->head == CHUNKS)
			pthread_cond_wait(&zi->emptied, &zi->lock);
		struct chunk *c = zi->stop ? NULL : zi->chunk[zi->tail % CHUNKS];
		pthread_mutex_unlock(&zi->lock);
		if (!c)
			break;
		decompress(zi, c);
		last = c->last;
		pthread_mutex_lock(&zi->lock);
		zi->tail++;
		pthread_cond_signal(&zi->filled);
		pthread_mutex_unlock(&zi->lock);
	}
	return NULL;
}

/* Start the decompressing thread.  0 or -errno. */
static int start(struct zstd_in *zi)
{
	int rc = pthread_mutex_init(&zi->lock, NULL);

	if (rc)
		return -rc;
	if ((rc = pthread_cond_init(&zi->filled, NULL)))
		goto destroy_lock;
	if ((rc = pthread_cond_init(&zi->emptied, NULL)))
		goto destroy_filled;
	if ((rc = pthread_create(&zi->thread, NULL, decompressor, zi)))
		goto destroy_emptied;
	zi->started = true;
	return 0;

destroy_emptied:
	pthread_cond_destroy(&zi->emptied);
destroy_filled:
	pthread_cond_destroy(&zi->filled);
destroy_lock:
	pthread_mutex_destroy(&zi->lock);
	return -rc;
}

/* The chunk to read next: waited for, or without the thread
 * decompressed now. */
static struct chunk *take(struct zstd_in *zi)
{
	if (!zi->ahead) {
		decompress(zi, zi->chunk[0]);
		return zi->chunk[0];
	}
	pthread_mutex_lock(&zi->lock);
	while (zi->head == zi->tail)
		pthread_cond_wait(&zi->filled, &zi->lock);
	struct chunk *c = zi->chunk[zi->head % CHUNKS];
	pthread_mutex_unlock(&zi->lock);
	return c;
}

/* Hand the chunk read back to the thread, if any. */
static void give_back(struct zstd_in *zi)
{
	if (zi->ahead) {
		pthread_mutex_lock(&zi->lock);
		zi->head++;
		pthread_cond_signal(&zi->emptied);
		pthread_mutex_unlock(&zi->lock);
	}
	zi->cur = NULL;
}

ssize_t zstd_in_read(struct zstd_in *zi, void *buf, size_t len)
{
	int rc;

	if (!len)
		return 0;
	if (zi->ahead && !zi->started && (rc = start(zi)))
		return rc;
	for (;;) {
		if (!zi->cur) {
			zi->cur = take(zi);
			zi->pos = 0;
		}
		struct chunk *c = zi->cur;

		if (zi->pos < c->len) {
			size_t n = c->len - zi->pos < len ? c->len - zi->pos : len;

			memcpy(buf, c->text + zi->pos, n);
			zi->pos += n;
			if (zi->pos == c->len)
				zi->offset = c->offset;
			return (ssize_t)n;
		}
		zi->offset = c->offset;
		if (!c->last) {
			give_back(zi);
			continue;
		}
		if (c->why && !zi->cut)
			log_warn("%s: the zstd stream %s at byte %llu: its text "
				 "is read up to there", zi->path, c->why,
				 (unsigned long long)c->offset);
		zi->cut = zi->cut || c->why;
		return c->rc;
	}
}

bool zstd_in_cut(const struct zstd_in *zi)
{
	return zi->cut;
}

uint64_t zstd_in_offset(const struct zstd_in *zi)
{
	return zi->offset;
}

void zstd_in_free(struct zstd_in *zi)
{
	if (!zi)
		return;
	if (zi->started) {
		pthread_mutex_lock(&zi->lock);
		zi->stop = true;
		pthread_cond_signal(&zi->emptied);
		pthread_mutex_unlock(&zi->lock);
		pthread_join(zi->thread, NULL);
		pthread_cond_destroy(&zi->emptied);
		pthread_cond_destroy(&zi->filled);
		pthread_mutex_destroy(&zi->lock);
	}
	for (int i = 0; i < CHUNKS; i++)
		free(zi->chunk[i]);
	ZSTD_freeDCtx(zi->dctx);
	free(zi->path);
	free(zi);
}

int zstd_read_frames(int fd, uint64_t start, uint64_t end, char **text,
		     size_t *len)
{
	size_t size = (size_t)(end - start), at = 0, got = 0, cap = 0;
	char *z = malloc(size ? size : 1), *t = NULL;
	int rc = -ENOMEM;

	*text = NULL;
	*len = 0;
	if (!z)
		goto out;
	while (got < size) {
		ssize_t n = pread(fd, z + got, size - got, (off_t)(start + got));

		if (n < 0 && errno == EINTR)
			continue;
		rc = n < 0 ? -errno : -EBADMSG;	/* the file is shorter */
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	/* Frame by frame, each of the size its header states. */
	while (at < size) {
		size_t fsize = ZSTD_findFrameCompressedSize(z + at, size - at);
		unsigned long long tsize = ZSTD_getFrameContentSize(z + at, size - at);
		char *more;

		rc = -EBADMSG;
		if (ZSTD_isError(fsize) || tsize == ZSTD_CONTENTSIZE_ERROR ||
		    tsize == ZSTD_CONTENTSIZE_UNKNOWN || tsize > SIZE_MAX - cap)
			goto out;
		rc = -ENOMEM;
		if (!(more = realloc(t, cap + (size_t)tsize + 1)))
			goto out;
		t = more;
		size_t n = ZSTD_decompress(t + cap, (size_t)tsize, z + at, fsize);
		rc = -EBADMSG;
		if (ZSTD_isError(n) || n != tsize)
			goto out;
		cap += n;
		at += fsize;
	}
	*text = t;
	*len = cap;
	t = NULL;
	rc = 0;
out:
	free(z);
	free(t);
	return rc;
}
