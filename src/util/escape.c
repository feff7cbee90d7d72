/* escape: %XX decoding and encoding of log fields (see escape.h). */
#include <errno.h>
#include <string.h>

#include "ioriot/escape.h"

/* Bytes outside 0x21..0x7e, and % ; : , = | */
const unsigned char escape_table[256] = {
	[0 ... 0x20] = 1,
	['%'] = 1, [';'] = 1, [':'] = 1, [','] = 1, ['='] = 1, ['|'] = 1,
	[0x7f ... 0xff] = 1,
};

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long escape_decode(char *s, size_t len)
{
	const char *pct = memchr(s, '%', len);
	size_t in, out;

	/* Most strings have nothing to decode. */
	in = out = pct ? (size_t)(pct - s) : len;
	while (in < len) {
		if (s[in] != '%') {
			s[out++] = s[in++];
			continue;
		}
		if (len - in < 3)
			return -EINVAL;
		int hi = hexval((unsigned char)s[in + 1]);
		int lo = hexval((unsigned char)s[in + 2]);
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		s[out++] = (char)(hi << 4 | lo);
		in += 3;
	}
	s[out] = '\0';
	return (long)out;
}
