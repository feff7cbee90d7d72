/* linereader: zero-copy line splitting over a large read buffer; a zstd
 * stream is decompressed into that buffer (zstdio.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/linereader.h"
#include "ioriot/zstdio.h"

#define BUF_SIZE (1024 * 1024)

struct linereader {
	int fd;
	struct zstd_in *zin;	/* the byte source of a zstd file, or NULL */
	int eof;
	int cut;		/* 1: the source ended early; 2: reported */
	uint64_t lineno;
	uint64_t consumed;	/* bytes handed out as lines */
	uint64_t size;
	size_t start, end;	/* unconsumed bytes are buf[start, end) */
	char empty[1];		/* the text of a line reported as too long */
	/* Room for the NUL after a full buffer, plus LINE_PADDING bytes that
	 * parsers may read past a line's end (word-at-a-time scans). */
	char buf[BUF_SIZE + 1 + LINE_PADDING];
};

struct linereader *linereader_open(const char *path, bool read_ahead)
{
	/* calloc: the padding is read (never used) and must be defined. */
	struct linereader *lr = calloc(1, sizeof(*lr));
	unsigned char magic[4];
	struct stat st;
	int saved;

	if (!lr)
		return NULL;
	lr->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lr->fd < 0 || fstat(lr->fd, &st) < 0)
		goto err;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto err;
	}
	/* Only a hint: a failure changes nothing. */
	(void)posix_fadvise(lr->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	lr->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	if (S_ISREG(st.st_mode) && pread(lr->fd, magic, sizeof(magic), 0) ==
	    (ssize_t)sizeof(magic) && zstd_is_stream(magic, sizeof(magic)) &&
	    !(lr->zin = zstd_in_new(lr->fd, path, read_ahead)))
		goto err;
	return lr;

err:
	saved = errno;
	if (lr->fd >= 0)
		close(lr->fd);
	free(lr);
	errno = saved;
	return NULL;
}

/* Move unconsumed bytes to the front and read more.  Returns 0 or -errno. */
static int refill(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	while (lr->end < BUF_SIZE) {
		ssize_t n = lr->zin ?
			    zstd_in_read(lr->zin, lr->buf + lr->end, BUF_SIZE - lr->end) :
			    read(lr->fd, lr->buf + lr->end, BUF_SIZE - lr->end);

		if (n < 0 && !lr->zin && errno == EINTR)
			continue;
		if (n < 0)
			return lr->zin ? (int)n : -errno;
		if (n == 0) {
			lr->eof = 1;
			lr->cut = lr->zin && zstd_in_cut(lr->zin);
			break;
		}
		lr->end += (size_t)n;
		break;
	}
	return 0;
}

/* Drop input up to and including the next newline (or to EOF). */
static int skip_line(struct linereader *lr)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);

		if (nl) {
			size_t used = (size_t)(nl - (lr->buf + lr->start)) + 1;
			lr->consumed += used;
			lr->start += used;
			return 0;
		}
		lr->consumed += lr->end - lr->start;
		lr->start = lr->end = 0;
		if (lr->eof)
			return 0;
		int err = refill(lr);
		if (err)
			return err;
	}
}

int linereader_next(struct linereader *lr, struct line *out)
{
	size_t scanned = 0;

	for (;;) {
		char *base = lr->buf + lr->start;
		size_t avail = lr->end - lr->start;
		char *nl = memchr(base + scanned, '\n', avail - scanned);

		if (nl) {
			size_t len = (size_t)(nl - base);
			*nl = '\0';
			out->s = base;
			out->len = len;
			out->flags = 0;
			out->lineno = ++lr->lineno;
			lr->start += len + 1;
			lr->consumed += len + 1;
			if (len > LINE_MAX_LEN) {
				out->len = 0;
				out->s[0] = '\0';
				out->flags = LINE_TOO_LONG;
			}
			return 1;
		}
		scanned = avail;
		if (avail > LINE_MAX_LEN) {
			int err = skip_line(lr);
			if (err)
				return err;
			lr->empty[0] = '\0';
			out->s = lr->empty;
			out->len = 0;
			out->flags = LINE_TOO_LONG;
			out->lineno = ++lr->lineno;
			return 1;
		}
		if (lr->eof) {
			/* A cut-short source ends with an unterminated line,
			 * an empty one if it was cut at a line's end. */
			if (avail == 0 && lr->cut != 1)
				return 0;
			lr->cut = lr->cut ? 2 : 0;
			base[avail] = '\0';
			out->s = base;
			out->len = avail;
			out->flags = LINE_NO_NEWLINE;
			out->lineno = ++lr->lineno;
			lr->consumed += avail;
			lr->start = lr->end;
			return 1;
		}
		int err = refill(lr);
		if (err)
			return err;
	}
}

uint64_t linereader_offset(const struct linereader *lr)
{
	return lr->zin ? zstd_in_offset(lr->zin) : lr->consumed;
}

uint64_t linereader_size(const struct linereader *lr)
{
	return lr->size;
}

void linereader_free(struct linereader *lr)
{
	if (!lr)
		return;
	zstd_in_free(lr->zin);
	close(lr->fd);
	free(lr);
}
