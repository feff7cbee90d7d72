/* outbuf: buffered, error-sticky writer with fast formatting (outbuf.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/escape.h"
#include "ioriot/outbuf.h"

void outbuf_init(struct outbuf *ob, int fd)
{
	ob->fd = fd;
	ob->err = 0;
	ob->len = 0;
	ob->written = 0;
}

int outbuf_flush(struct outbuf *ob)
{
	size_t done = 0;

	while (!ob->err && done < ob->len) {
		ssize_t n = write(ob->fd, ob->buf + done, ob->len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ob->err = -errno;
			break;
		}
		done += (size_t)n;
		ob->written += (uint64_t)n;
	}
	ob->len = 0;
	return ob->err;
}

/* Make room for @need bytes; false if the writer is in error. */
static inline int reserve(struct outbuf *ob, size_t need)
{
	if (ob->len + need > sizeof(ob->buf))
		outbuf_flush(ob);
	return !ob->err;
}

void outbuf_put(struct outbuf *ob, const void *data, size_t len)
{
	if (len > sizeof(ob->buf)) {
		outbuf_flush(ob);
		const char *p = data;
		while (!ob->err && len) {
			size_t chunk = len < sizeof(ob->buf) ? len : sizeof(ob->buf);
			memcpy(ob->buf, p, chunk);
			ob->len = chunk;
			outbuf_flush(ob);
			p += chunk;
			len -= chunk;
		}
		return;
	}
	if (!reserve(ob, len))
		return;
	memcpy(ob->buf + ob->len, data, len);
	ob->len += len;
}

void outbuf_puts(struct outbuf *ob, const char *s)
{
	outbuf_put(ob, s, strlen(s));
}

void outbuf_putc(struct outbuf *ob, char c)
{
	if (!reserve(ob, 1))
		return;
	ob->buf[ob->len++] = c;
}

void outbuf_u64(struct outbuf *ob, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	if (!reserve(ob, sizeof(tmp)))
		return;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		ob->buf[ob->len++] = tmp[--n];
}

void outbuf_i64(struct outbuf *ob, int64_t v)
{
	if (v < 0) {
		outbuf_putc(ob, '-');
		outbuf_u64(ob, (uint64_t)0 - (uint64_t)v);
	} else {
		outbuf_u64(ob, (uint64_t)v);
	}
}

void outbuf_hex(struct outbuf *ob, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	if (!reserve(ob, sizeof(tmp) + 2))
		return;
	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	ob->buf[ob->len++] = '0';
	ob->buf[ob->len++] = 'x';
	while (n)
		ob->buf[ob->len++] = tmp[--n];
}

void outbuf_oct(struct outbuf *ob, uint64_t v)
{
	char tmp[23];
	size_t n = 0;

	if (v == 0) {
		outbuf_putc(ob, '0');
		return;
	}
	if (!reserve(ob, sizeof(tmp) + 1))
		return;
	do {
		tmp[n++] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	ob->buf[ob->len++] = '0';
	while (n)
		ob->buf[ob->len++] = tmp[--n];
}

void outbuf_path(struct outbuf *ob, const char *path, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (!reserve(ob, 3))
			return;
		if (escape_needed(c)) {
			ob->buf[ob->len++] = '%';
			ob->buf[ob->len++] = hex[c >> 4];
			ob->buf[ob->len++] = hex[c & 15];
		} else {
			ob->buf[ob->len++] = (char)c;
		}
	}
}
