/*
 * zstdin: zstd streams read back as text (zstdio.h): a streaming
 * decompressor for readers, which decompresses ahead in a thread of its
 * own when the process has a second CPU, and the frames of a range of a
 * file for the capture cutting its log back.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "ioriot/log.h"
#include "ioriot/zstdio.h"

/* Compressed bytes read from the file at a time. */
#define IN_SIZE (256 * 1024)
/* With a second CPU, a thread decompresses ahead of the reader into this
 * many chunks of this size. */
#define AHEAD_CHUNKS 4
#define CHUNK_SIZE (1024 * 1024)

/* Text decompressed ahead, waiting for the reader. */
struct chunk {
	char *text;
	size_t len;
};

struct zstd_in {
	ZSTD_DCtx *dctx;
	int fd;
	char *path;
	ZSTD_inBuffer in;
	uint64_t consumed;	/* compressed bytes before in.src (atomic) */
	size_t hint;		/* 0: between frames */
	bool eof, cut;
	/* Decompressing ahead (threaded): the decoder's side fills the
	 * chunks from ring[(first + filled) % AHEAD_CHUNKS] on, the reader
	 * takes them from ring[first], at byte pos. */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct chunk ring[AHEAD_CHUNKS];
	unsigned first, filled;
	size_t pos;
	bool done, quit;	/* decoder finished (result in err); reader gone */
	int err;
	char buf[IN_SIZE];
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

/* The stream ends here: cut short or damaged (@why), said once. */
static void cut_short(struct zstd_in *zi, const char *why)
{
	if (!zi->cut)
		log_warn("%s: the zstd stream %s at byte %llu: its text is read "
			 "up to there", zi->path, why,
			 (unsigned long long)(zi->consumed + zi->in.pos));
	zi->cut = true;
}

/* Read more compressed bytes.  0 or -errno. */
static int fill(struct zstd_in *zi)
{
	ssize_t n;

	__atomic_store_n(&zi->consumed, zi->consumed + zi->in.pos,
			 __ATOMIC_RELAXED);
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

/* Decompress up to @len bytes into @buf: zstd_in_read()'s contract. */
static ssize_t decode(struct zstd_in *zi, void *buf, size_t len)
{
	ZSTD_outBuffer out = { .dst = buf, .size = len };
	int rc;

	while (out.pos == 0 && !zi->cut) {
		if (zi->in.pos == zi->in.size) {
			if (!zi->eof && (rc = fill(zi)))
				return rc;
			if (zi->eof) {
				if (zi->hint)
					cut_short(zi, "ends inside a frame");
				break;
			}
		}
		size_t ret = ZSTD_decompressStream(zi->dctx, &out, &zi->in);
		if (ZSTD_isError(ret)) {
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				return -ENOMEM;
			cut_short(zi, ZSTD_getErrorName(ret));
			break;
		}
		zi->hint = ret;
	}
	return (ssize_t)out.pos;
}

/* The decompressing thread: fills free chunks whole, until the stream
 * ends (or fails) or the reader goes. */
static void *ahead(void *arg)
{
	struct zstd_in *zi = arg;
	ssize_t n = 1;

	pthread_mutex_lock(&zi->mu);
	while (!zi->quit && n > 0) {
		if (zi->filled == AHEAD_CHUNKS) {
			pthread_cond_wait(&zi->cv, &zi->mu);
			continue;
		}
		struct chunk *c = &zi->ring[(zi->first + zi->filled) % AHEAD_CHUNKS];
		pthread_mutex_unlock(&zi->mu);
		c->len = 0;
		while (c->len < CHUNK_SIZE &&
		       (n = decode(zi, c->text + c->len, CHUNK_SIZE - c->len)) > 0)
			c->len += (size_t)n;
		pthread_mutex_lock(&zi->mu);
		if (c->len)
			zi->filled++;
		pthread_cond_broadcast(&zi->cv);
	}
	zi->err = n < 0 ? (int)n : 0;
	zi->done = true;
	pthread_cond_broadcast(&zi->cv);
	pthread_mutex_unlock(&zi->mu);
	return NULL;
}

/* True if this process may run on more than one CPU. */
static bool have_second_cpu(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 1;
}

/* Start decompressing ahead in a thread.  False (then the reader
 * decompresses itself) without memory or threads. */
static bool start_ahead(struct zstd_in *zi)
{
	for (int i = 0; i < AHEAD_CHUNKS; i++)
		if (!(zi->ring[i].text = malloc(CHUNK_SIZE)))
			return false;
	if (pthread_mutex_init(&zi->mu, NULL))
		return false;
	if (pthread_cond_init(&zi->cv, NULL)) {
		pthread_mutex_destroy(&zi->mu);
		return false;
	}
	if (pthread_create(&zi->thread, NULL, ahead, zi)) {
		pthread_cond_destroy(&zi->cv);
		pthread_mutex_destroy(&zi->mu);
		return false;
	}
	zi->threaded = true;
	return true;
}

struct zstd_in *zstd_in_new(int fd, const char *path)
{
	struct zstd_in *zi = calloc(1, sizeof(*zi));

	if (!zi || !(zi->path = strdup(path)) ||
	    !(zi->dctx = ZSTD_createDCtx())) {
		zstd_in_free(zi);
		errno = ENOMEM;
		return NULL;
	}
	zi->fd = fd;
	zi->in.src = zi->buf;
	if (have_second_cpu())
		(void)start_ahead(zi);	/* else decompressed in line */
	return zi;
}

ssize_t zstd_in_read(struct zstd_in *zi, void *buf, size_t len)
{
	struct chunk *c;
	size_t n;

	if (!zi->threaded)
		return decode(zi, buf, len);
	pthread_mutex_lock(&zi->mu);
	while (!zi->filled && !zi->done)
		pthread_cond_wait(&zi->cv, &zi->mu);
	if (!zi->filled) {
		pthread_mutex_unlock(&zi->mu);
		return zi->err;
	}
	c = &zi->ring[zi->first];
	pthread_mutex_unlock(&zi->mu);
	/* The chunk is the reader's until it is given back. */
	n = c->len - zi->pos < len ? c->len - zi->pos : len;
	memcpy(buf, c->text + zi->pos, n);
	zi->pos += n;
	if (zi->pos == c->len) {
		pthread_mutex_lock(&zi->mu);
		zi->first = (zi->first + 1) % AHEAD_CHUNKS;
		zi->filled--;
		zi->pos = 0;
		pthread_cond_broadcast(&zi->cv);
		pthread_mutex_unlock(&zi->mu);
	}
	return (ssize_t)n;
}

bool zstd_in_cut(const struct zstd_in *zi)
{
	/* Threaded, read only after zstd_in_read() returned 0: the
	 * decoder is done then. */
	return zi->cut;
}

uint64_t zstd_in_offset(const struct zstd_in *zi)
{
	if (zi->threaded)
		return __atomic_load_n(&zi->consumed, __ATOMIC_RELAXED);
	return zi->consumed + zi->in.pos;
}

void zstd_in_free(struct zstd_in *zi)
{
	if (!zi)
		return;
	if (zi->threaded) {
		pthread_mutex_lock(&zi->mu);
		zi->quit = true;
		pthread_cond_broadcast(&zi->cv);
		pthread_mutex_unlock(&zi->mu);
		pthread_join(zi->thread, NULL);
		pthread_cond_destroy(&zi->cv);
		pthread_mutex_destroy(&zi->mu);
	}
	for (int i = 0; i < AHEAD_CHUNKS; i++)
		free(zi->ring[i].text);
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
