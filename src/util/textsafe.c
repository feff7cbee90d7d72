/* textsafe: printing captured strings on a terminal (textsafe.h). */
#include "ioriot/textsafe.h"

size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return n;
}

unsigned utf8_code_point(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & lead_mask[n];

	for (size_t k = 1; k < n; k++)
		cp = cp << 6 | (s[k] & 0x3f);
	return cp;
}

/* Formatting characters that reorder or hide the text around them. */
static bool is_bidi_control(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

size_t text_printable_len(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	size_t n = utf8_seq_len(s);
	if (n < 2)
		return n;
	unsigned cp = utf8_code_point(s, n);
	if ((cp >= 0x80 && cp <= 0x9f) || is_bidi_control(cp))
		return 0;
	return n;
}

void text_write(FILE *f, const char *s, bool escape_percent)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = text_printable_len(p);

		if (n && !(escape_percent && *p == '%')) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		/* Every byte of a control character, or the one byte that
		 * starts no character. */
		for (n = text_char_len(p); n; n--)
			fprintf(f, "%%%02X", *p++);
	}
}
