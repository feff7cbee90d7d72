/*
 * textsafe: strings from a capture made safe to print on a terminal.
 *
 * File, process and host names come from the traced host or from files
 * users edit by hand.  Printed raw, an ESC byte starts a terminal control
 * sequence, a newline forges a line of output, and a bidirectional
 * override reorders what follows.  Text output therefore shows each byte
 * that is not part of a printable UTF-8 character as %XX, the escape of the
 * capture log and the replay file (include/ioriot/escape.h).
 */
#ifndef IORIOT_TEXTSAFE_H
#define IORIOT_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence at @s (1 to 4 bytes), or 0 if the
 * byte at @s starts none (RFC 3629: no overlong forms, surrogates or code
 * points beyond U+10FFFF).  Reads at most up to the first NUL. */
size_t utf8_seq_len(const unsigned char *s);

/* The bytes of the character at @s, printable or not: its UTF-8 sequence,
 * or the one byte that starts none.  1 or more before the NUL. */
static inline size_t text_char_len(const unsigned char *s)
{
	size_t n = utf8_seq_len(s);

	return n ? n : 1;
}

/* The code point of the valid @n-byte UTF-8 sequence at @s (@n from
 * utf8_seq_len()). */
unsigned utf8_code_point(const unsigned char *s, size_t n);

/* The length of the printable character at @s: 0 for a C0 or C1 control,
 * DEL, a bidirectional formatting character and bytes that are no valid
 * UTF-8; NUL ends @s and is not printable either. */
size_t text_printable_len(const unsigned char *s);

/* Write the NUL-terminated @s to @f, each byte of what is not printable as
 * %XX; with @escape_percent '%' too, so that the name shown is unambiguous.
 * Errors are left in @f's error indicator. */
void text_write(FILE *f, const char *s, bool escape_percent);

#endif
