/*
 * zstdout: a text stream written as independent zstd frames of whole
 * lines (zstdio.h).  The text is gathered until a frame's worth, then
 * compressed in one call, so a frame is either all in the file or known
 * not to be.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "ioriot/zstdio.h"

struct zstd_out {
	ZSTD_CCtx *cctx;
	outbuf_sink_fn *write;		/* where the frames go */
	void *write_ctx;
	char *text;			/* taken, not yet in a written frame */
	size_t len, cap;
	char *frame;			/* the compressed frame being written */
	size_t frame_cap;
	uint64_t committed;		/* file bytes in complete frames */
	uint64_t text_done;		/* text bytes in complete frames */
	struct {
		uint64_t at, text;	/* the frame's start, and of its text */
	} starts[ZSTD_OUT_RING];	/* of the last frames, a ring */
	unsigned nstarts, next;
};

struct zstd_out *zstd_out_new(outbuf_sink_fn *write, void *ctx)
{
	struct zstd_out *zo = calloc(1, sizeof(*zo));

	if (!zo)
		return NULL;
	zo->write = write;
	zo->write_ctx = ctx;
	zo->cap = 2 * ZSTD_OUT_FRAME_TEXT;
	zo->frame_cap = ZSTD_compressBound(zo->cap);
	zo->text = malloc(zo->cap);
	zo->frame = malloc(zo->frame_cap);
	zo->cctx = ZSTD_createCCtx();
	/* A checksum per frame: a damaged log is told from a valid one. */
	if (!zo->text || !zo->frame || !zo->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(zo->cctx, ZSTD_c_compressionLevel,
						 ZSTD_OUT_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(zo->cctx, ZSTD_c_checksumFlag, 1))) {
		zstd_out_free(zo);
		return NULL;
	}
	return zo;
}

/* Make room for @more bytes of text.  0 or -ENOMEM. */
static int grow(struct zstd_out *zo, size_t more)
{
	size_t cap = zo->cap;
	char *text, *frame;

	if (zo->len + more <= cap)
		return 0;
	while (cap < zo->len + more)
		cap *= 2;
	text = realloc(zo->text, cap);
	if (!text)
		return -ENOMEM;
	zo->text = text;
	frame = realloc(zo->frame, ZSTD_compressBound(cap));
	if (!frame)
		return -ENOMEM;
	zo->frame = frame;
	zo->cap = cap;
	zo->frame_cap = ZSTD_compressBound(cap);
	return 0;
}

/* Write all @len bytes at @p through the write function.  0 or -errno. */
static int write_all(struct zstd_out *zo, const char *p, size_t len)
{
	while (len) {
		ssize_t n = zo->write(zo->write_ctx, p, len);

		if (n < 0)
			return (int)n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int zstd_out_end_frame(struct zstd_out *zo)
{
	const char *nl = zo->len ? memrchr(zo->text, '\n', zo->len) : NULL;
	size_t cut, size;
	int rc;

	if (!nl)
		return 0;
	cut = (size_t)(nl + 1 - zo->text);
	size = ZSTD_compress2(zo->cctx, zo->frame, zo->frame_cap, zo->text, cut);
	if (ZSTD_isError(size))
		return ZSTD_getErrorCode(size) == ZSTD_error_memory_allocation ?
		       -ENOMEM : -EIO;
	if ((rc = write_all(zo, zo->frame, size)))
		return rc;
	zo->starts[zo->next].at = zo->committed;
	zo->starts[zo->next].text = zo->text_done;
	zo->next = (zo->next + 1) % ZSTD_OUT_RING;
	if (zo->nstarts < ZSTD_OUT_RING)
		zo->nstarts++;
	zo->committed += size;
	zo->text_done += cut;
	memmove(zo->text, zo->text + cut, zo->len - cut);
	zo->len -= cut;
	return 0;
}

ssize_t zstd_out_write(void *ctx, const void *data, size_t len)
{
	struct zstd_out *zo = ctx;
	int rc;

	if (zo->len + len > ZSTD_OUT_FRAME_TEXT && (rc = zstd_out_end_frame(zo)))
		return rc;
	if ((rc = grow(zo, len)))
		return rc;
	memcpy(zo->text + zo->len, data, len);
	zo->len += len;
	return (ssize_t)len;
}

uint64_t zstd_out_committed(const struct zstd_out *zo)
{
	return zo->committed;
}

uint64_t zstd_out_text_bytes(const struct zstd_out *zo)
{
	return zo->text_done;
}

const char *zstd_out_pending(const struct zstd_out *zo, size_t *len)
{
	*len = zo->len;
	return zo->text;
}

/* Forget the last frame known. */
static void forget_last(struct zstd_out *zo)
{
	zo->next = (zo->next + ZSTD_OUT_RING - 1) % ZSTD_OUT_RING;
	zo->nstarts--;
	zo->text_done = zo->starts[zo->next].text;
}

int zstd_out_pop_frame(struct zstd_out *zo, uint64_t *start)
{
	if (!zo->nstarts)
		return -ENOENT;
	forget_last(zo);
	*start = zo->starts[zo->next].at;
	return 0;
}

void zstd_out_restart(struct zstd_out *zo, uint64_t at)
{
	/* Frames that began at or after @at are gone. */
	while (zo->nstarts &&
	       zo->starts[(zo->next + ZSTD_OUT_RING - 1) % ZSTD_OUT_RING].at >= at)
		forget_last(zo);
	zo->committed = at;
	zo->len = 0;
}

void zstd_out_free(struct zstd_out *zo)
{
	if (!zo)
		return;
	ZSTD_freeCCtx(zo->cctx);
	free(zo->text);
	free(zo->frame);
	free(zo);
}
