/*
 * outbuf: a buffered writer to a file descriptor with fast number and
 * escaped-path formatting.  The capture writer and the replay writer use it
 * so that generating millions of lines costs little more than memcpy.
 *
 * Errors are sticky: after a failed write every call is a no-op and
 * outbuf_flush()/outbuf_error() report the first -errno.
 */
#ifndef IORIOT_OUTBUF_H
#define IORIOT_OUTBUF_H

#include <stddef.h>
#include <stdint.h>

struct outbuf {
	int fd;
	int err;		/* first -errno seen, 0 if none */
	size_t len;
	uint64_t written;	/* bytes handed to write(2) so far */
	char buf[1 << 16];
};

/* Set up @ob to write to @fd.  Never fails. */
void outbuf_init(struct outbuf *ob, int fd);

/* Write out everything buffered.  Returns 0 or the sticky -errno. */
int outbuf_flush(struct outbuf *ob);

/* Append raw bytes. */
void outbuf_put(struct outbuf *ob, const void *data, size_t len);

/* Append a NUL-terminated string. */
void outbuf_puts(struct outbuf *ob, const char *s);

/* Append one character. */
void outbuf_putc(struct outbuf *ob, char c);

/* Append a decimal number. */
void outbuf_u64(struct outbuf *ob, uint64_t v);
void outbuf_i64(struct outbuf *ob, int64_t v);

/* Append a number as 0x-prefixed lower-case hex. */
void outbuf_hex(struct outbuf *ob, uint64_t v);

/* Append a number as 0-prefixed octal (e.g. 0644). */
void outbuf_oct(struct outbuf *ob, uint64_t v);

/* Append @len bytes of @path escaped as docs/capture-format.md defines. */
void outbuf_path(struct outbuf *ob, const char *path, size_t len);

#endif
