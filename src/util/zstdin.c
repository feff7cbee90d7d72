/*
 * zstdin: zstd streams read back as text (zstdio.h): a streaming
 * decompressor for readers, and the frames of a range of a file for the
 * capture cutting its log back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "ioriot/log.h"
#include "ioriot/zstdio.h"

/* Compressed bytes read from the file at a time. */
#define IN_SIZE (256 * 1024)

struct zstd_in {
	ZSTD_DCtx *dctx;
	int fd;
	char *path;
	ZSTD_inBuffer in;
	uint64_t consumed;	/* compressed bytes before in.src */
	size_t hint;		/* 0: between frames */
	bool eof, cut;
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
	return zi;
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

ssize_t zstd_in_read(struct zstd_in *zi, void *buf, size_t len)
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

bool zstd_in_cut(const struct zstd_in *zi)
{
	return zi->cut;
}

uint64_t zstd_in_offset(const struct zstd_in *zi)
{
	return zi->consumed + zi->in.pos;
}

void zstd_in_free(struct zstd_in *zi)
{
	if (!zi)
		return;
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
