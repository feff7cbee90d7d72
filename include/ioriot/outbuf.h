/*
 * outbuf: a buffered writer to a file descriptor with fast number and
 * escaped-path formatting.  The capture writer and the replay writer use it
 * so that generating millions of lines costs little more than memcpy.
 *
 * Errors are sticky: after a failed write every call is a no-op and
 * outbuf_flush() reports the first -errno.  What write(2) did not take
 * stays in buf[0..len) then, so that a writer can tell which of its lines
 * were lost (the capture does on a full disk).  A put never flushes after
 * its last byte: if the error is set during a put, none of that put's bytes
 * after the failed flush are in the buffer.
 */
#ifndef IORIOT_OUTBUF_H
#define IORIOT_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* Where the bytes go instead of write(2) on the fd (outbuf_set_sink()):
 * write(2)'s contract, bytes taken (> 0) or -errno. */
typedef ssize_t outbuf_sink_fn(void *ctx, const void *data, size_t len);

struct outbuf {
	int fd;
	int err;		/* first -errno seen, 0 if none */
	outbuf_sink_fn *sink;	/* NULL: write(2) to fd */
	void *sink_ctx;
	size_t len;
	uint64_t written;	/* bytes handed to write(2) so far */
	uint64_t line_end;	/* of them, those up to the last '\n' */
	char buf[1 << 16];
};

/* Set up @ob to write to @fd.  Never fails. */
void outbuf_init(struct outbuf *ob, int fd);

/* Send what @ob writes to @sink(@ctx, ...) instead of write(2) on its fd
 * (a compressor, a size guard); written and line_end count the bytes the
 * sink took. */
void outbuf_set_sink(struct outbuf *ob, outbuf_sink_fn *sink, void *ctx);

/* Write out everything buffered.  Returns 0 or the sticky -errno; on an
 * error the bytes not written stay in the buffer. */
int outbuf_flush(struct outbuf *ob);

/* Make room for @need (<= sizeof buf) bytes; false if the writer failed. */
static inline bool outbuf_reserve(struct outbuf *ob, size_t need)
{
	if (ob->len + need > sizeof(ob->buf))
		outbuf_flush(ob);
	return !ob->err;
}

/* Append raw bytes. */
void outbuf_put_slow(struct outbuf *ob, const void *data, size_t len);

static inline void outbuf_put(struct outbuf *ob, const void *data, size_t len)
{
	if (len <= 64 && outbuf_reserve(ob, len)) {
		memcpy(ob->buf + ob->len, data, len);
		ob->len += len;
	} else if (len > 64) {
		outbuf_put_slow(ob, data, len);
	}
}

/* Append a NUL-terminated string. */
static inline void outbuf_puts(struct outbuf *ob, const char *s)
{
	outbuf_put(ob, s, strlen(s));
}

/* Append one character. */
static inline void outbuf_putc(struct outbuf *ob, char c)
{
	if (outbuf_reserve(ob, 1))
		ob->buf[ob->len++] = c;
}

/*
 * Raw formatters: write at @p, which must have room (20 bytes for a u64, 21
 * for an i64, 18 for hex, 23 for octal, 3 * @len for a path), and return the
 * end of what they wrote.  For writers that reserve a whole line at once.
 */
char *fmt_u64(char *p, uint64_t v);
char *fmt_i64(char *p, int64_t v);
char *fmt_hex(char *p, uint64_t v);
char *fmt_oct(char *p, uint64_t v);
char *fmt_path(char *p, const char *path, size_t len);

/* Append a decimal number. */
void outbuf_u64(struct outbuf *ob, uint64_t v);
void outbuf_i64(struct outbuf *ob, int64_t v);

/* Append a number as 0x-prefixed lower-case hex. */
void outbuf_hex(struct outbuf *ob, uint64_t v);

/* Append a number as 0-prefixed octal (e.g. 0644); 0 is written as "0". */
void outbuf_oct(struct outbuf *ob, uint64_t v);

/* Append @len bytes of @path escaped as include/ioriot/escape.h defines. */
void outbuf_path(struct outbuf *ob, const char *path, size_t len);

/*
 * Append a header item "KEY=VALUE|" as both log formats write them after
 * "#|"; the string value is escaped.
 */
void outbuf_meta(struct outbuf *ob, const char *key, const char *value);
void outbuf_meta_u64(struct outbuf *ob, const char *key, uint64_t value);

#endif
