/*
 * escape: the byte escaping shared by capture log v4 and the replay file.
 *
 * A path may hold any byte but NUL.  In a log every byte outside the printable
 * ASCII range 0x21..0x7e, and each of the field characters  % ; : , = |  and
 * space, is written as %XX (two upper-case hex digits).  Everything else is
 * written as is, so ordinary paths stay readable and awk/sed friendly.
 */
#ifndef IORIOT_ESCAPE_H
#define IORIOT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* escape_table[c] is 1 for each byte that must be written as %XX. */
extern const unsigned char escape_table[256];

/* True if byte @c must be written as %XX. */
static inline bool escape_needed(unsigned char c)
{
	return escape_table[c];
}

/*
 * Decode %XX sequences of @s (@len bytes) in place.  Returns the decoded
 * length, or -EINVAL for a malformed or truncated escape or an escaped NUL.
 * The result is NUL-terminated (it never grows, so there is room).
 */
long escape_decode(char *s, size_t len);

#endif
