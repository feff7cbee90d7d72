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
	ob->sink = NULL;
	ob->sink_ctx = NULL;
	ob->len = 0;
	ob->written = 0;
	ob->line_end = 0;
}

void outbuf_set_sink(struct outbuf *ob, outbuf_sink_fn *sink, void *ctx)
{
	ob->sink = sink;
	ob->sink_ctx = ctx;
}

int outbuf_flush(struct outbuf *ob)
{
	size_t done = 0;

	while (!ob->err && done < ob->len) {
		ssize_t n = ob->sink ?
			    ob->sink(ob->sink_ctx, ob->buf + done, ob->len - done) :
			    write(ob->fd, ob->buf + done, ob->len - done);

		if (n < 0 && !ob->sink && errno == EINTR)
			continue;
		if (n < 0) {
			ob->err = ob->sink ? (int)n : -errno;
			break;
		}
		const char *nl = memrchr(ob->buf + done, '\n', (size_t)n);
		if (nl)
			ob->line_end = ob->written +
				       (uint64_t)(nl + 1 - (ob->buf + done));
		done += (size_t)n;
		ob->written += (uint64_t)n;
	}
	/* Keep what was not written (an error) for the owner to inspect. */
	memmove(ob->buf, ob->buf + done, ob->len - done);
	ob->len -= done;
	return ob->err;
}

void outbuf_put_slow(struct outbuf *ob, const void *data, size_t len)
{
	const char *p = data;

	while (!ob->err && len) {
		if (ob->len == sizeof(ob->buf)) {
			outbuf_flush(ob);
			continue;
		}
		size_t room = sizeof(ob->buf) - ob->len;
		size_t chunk = len < room ? len : room;

		memcpy(ob->buf + ob->len, p, chunk);
		ob->len += chunk;
		p += chunk;
		len -= chunk;
	}
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_table[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* Number of decimal digits of @v (1 for 0), from its bit length. */
static inline unsigned decimal_digits(uint64_t v)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	unsigned t = bits * 1233 >> 12;		/* ~ floor(log10(2^bits)) */

	return t + (v >= pow10_table[t]) + (t == 0 && v == 0);
}

/*
 * The eight decimal digits of @v (< 10^8), leading zeros included, as the
 * bytes of a little-endian word: the first digit in the lowest byte.  Each
 * step halves the lanes: 4-digit halves, 2-digit quarters, digits, with
 * multiplications that divide exactly in their range (SWAR).
 */
static inline uint64_t digits8(uint32_t v)
{
	uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t q = (x * 10486 >> 20) & 0x0000007F0000007FULL;	/* / 100 */

	x = q | (x - q * 100) << 16;
	q = (x * 103 >> 10) & 0x000F000F000F000FULL;		/* / 10 */
	x = q | (x - q * 10) << 8;
	return x | 0x3030303030303030ULL;
}

/* Write the last @n (1..8) digits of digits8(@v) at @p; touches 8 bytes. */
static inline char *put_digits(char *p, uint32_t v, unsigned n)
{
	uint64_t x = digits8(v) >> (8 * (8 - n));

	memcpy(p, &x, 8);
	return p + n;
}

char *fmt_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, digit_pairs + 2 * v, 2);
		return p + 2;
	}
	if (v < 100000000)
		return put_digits(p, (uint32_t)v, decimal_digits(v));
	/* Eight digits at a time from the low end; the bytes touched stay
	 * within the 20 a u64 may use. */
	uint32_t lo = (uint32_t)(v % 100000000);
	uint64_t hi = v / 100000000;

	if (hi < 100000000) {
		p = put_digits(p, (uint32_t)hi, decimal_digits(hi));
	} else {
		uint32_t top = (uint32_t)(hi / 100000000);	/* <= 1844 */
		p = put_digits(p, top, decimal_digits(top));
		p = put_digits(p, (uint32_t)(hi % 100000000), 8);
	}
	return put_digits(p, lo, 8);
}

char *fmt_i64(char *p, int64_t v)
{
	if (v >= 0)
		return fmt_u64(p, (uint64_t)v);
	*p++ = '-';
	return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
}

char *fmt_hex(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 60;

	*p++ = '0';
	*p++ = 'x';
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = hex[(v >> shift) & 15];
	return p;
}

char *fmt_oct(char *p, uint64_t v)
{
	int shift = 63;

	*p++ = '0';
	if (v == 0)
		return p;
	while (!(v >> shift))
		shift -= 3;
	for (; shift >= 0; shift -= 3)
		*p++ = (char)('0' + ((v >> shift) & 7));
	return p;
}

char *fmt_path(char *p, const char *path, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (escape_needed(c)) {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	return p;
}

/* The free end of the buffer, with room for @max bytes; NULL on error. */
static char *room(struct outbuf *ob, size_t max)
{
	return outbuf_reserve(ob, max) ? ob->buf + ob->len : NULL;
}

/* Account the bytes written up to @end. */
static void commit(struct outbuf *ob, const char *end)
{
	ob->len = (size_t)(end - ob->buf);
}

void outbuf_u64(struct outbuf *ob, uint64_t v)
{
	char *p = room(ob, 20);

	if (p)
		commit(ob, fmt_u64(p, v));
}

void outbuf_i64(struct outbuf *ob, int64_t v)
{
	char *p = room(ob, 21);

	if (p)
		commit(ob, fmt_i64(p, v));
}

void outbuf_hex(struct outbuf *ob, uint64_t v)
{
	char *p = room(ob, 18);

	if (p)
		commit(ob, fmt_hex(p, v));
}

void outbuf_oct(struct outbuf *ob, uint64_t v)
{
	char *p = room(ob, 23);

	if (p)
		commit(ob, fmt_oct(p, v));
}

void outbuf_path(struct outbuf *ob, const char *path, size_t len)
{
	while (len) {
		/* Up to a buffer's worth at a time, worst case 3 bytes each. */
		size_t chunk = len < sizeof(ob->buf) / 3 ? len : sizeof(ob->buf) / 3;

		if (!outbuf_reserve(ob, chunk * 3))
			return;
		ob->len = (size_t)(fmt_path(ob->buf + ob->len, path, chunk) - ob->buf);
		path += chunk;
		len -= chunk;
	}
}

void outbuf_meta(struct outbuf *ob, const char *key, const char *value)
{
	outbuf_puts(ob, key);
	outbuf_putc(ob, '=');
	outbuf_path(ob, value, strlen(value));
	outbuf_putc(ob, '|');
}

void outbuf_meta_u64(struct outbuf *ob, const char *key, uint64_t value)
{
	outbuf_puts(ob, key);
	outbuf_putc(ob, '=');
	outbuf_u64(ob, value);
	outbuf_putc(ob, '|');
}
