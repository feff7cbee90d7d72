/*
 * linereader: reads a text log line by line through a large buffer, without
 * copying lines.  Over-long lines and a last line without a newline are
 * reported, not fatal, so a parser can name the file and line and go on.
 */
#ifndef IORIOT_LINEREADER_H
#define IORIOT_LINEREADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINE_MAX_LEN (64 * 1024)	/* longer lines are reported as too long */
#define LINE_PADDING 16			/* readable bytes after a line's NUL */

enum line_flags {
	LINE_TOO_LONG = 1 << 0,		/* content dropped, len is 0 */
	LINE_NO_NEWLINE = 1 << 1,	/* last line of the file, unterminated;
					 * or of a zstd stream cut short (a
					 * warning said so), perhaps empty */
};

struct line {
	char *s;		/* writable, NUL-terminated, valid until next call */
	size_t len;		/* without the newline */
	uint64_t lineno;	/* 1-based */
	unsigned flags;		/* enum line_flags */
};

struct linereader;

/* Open @path for reading; a zstd stream (told by its magic number) is read
 * decompressed, with @read_ahead by a thread of its own (zstdio.h).
 * Returns NULL with errno set on failure. */
struct linereader *linereader_open(const char *path, bool read_ahead);

/*
 * Read the next line into @out.  Returns 1 for a line, 0 at end of file, or
 * -errno on a read error.
 */
int linereader_next(struct linereader *lr, struct line *out);

/* Bytes of the file consumed so far (for progress reporting; of a zstd
 * file, compressed bytes). */
uint64_t linereader_offset(const struct linereader *lr);

/* Size of the file at open time, 0 if unknown. */
uint64_t linereader_size(const struct linereader *lr);

/* Close and free.  Accepts NULL. */
void linereader_free(struct linereader *lr);

#endif
