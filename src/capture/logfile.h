/*
 * logfile.h: what the two ways of ending the capture log share, the text
 * log's (logfile.c) and the .zst log's (logzst.c): telling its lines
 * apart, taking lost lines out of the counts, its last records.  Private
 * to src/capture.
 */
#ifndef IORIOT_CAPTURE_LOGFILE_H
#define IORIOT_CAPTURE_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "ioriot/capture.h"

/* Enough of a line to see its operation: t, D and i come before o. */
#define HEAD_MAX 256

/*
 * Takes lines out of a summary's counts: events become lost to the full
 * disk, openfd records leave the snapshot's count.  Fed the text of the
 * lines in pieces; a line counts at its newline.
 */
struct uncounter {
	struct capture_summary *sum;
	size_t have;		/* bytes of head[] of the line so far */
	bool meta;		/* a header or trailer line was fed */
	char head[HEAD_MAX];
};

/* Start taking lines out of @sum's counts. */
void uncounter_init(struct uncounter *u, struct capture_summary *sum);

/* Take the lines that end in @len bytes of text @p out of the counts;
 * header and trailer lines only set u->meta. */
void uncount_feed(struct uncounter *u, const char *p, size_t len);

/* True if some line of the @len bytes of text @p is a header or trailer
 * line ('#'). */
bool has_meta_line(const char *p, size_t len);

/* Write the uncaptured record, when the capture counted, and the end
 * record with @sum's counters. */
void write_trailer(struct outbuf *ob, const struct capture_summary *sum);

/* Cut the log's file at @size and write on from there, its buffer empty
 * and its guard counting from @size.  0 or -errno. */
int cut_to(struct capture_log *lg, uint64_t size);

/* The log's fd opened again for reading: the same file, whatever its name
 * is now.  The fd, or -errno. */
int open_for_reading(int fd);

/*
 * Why the log stopped (@full, its -errno), and the message for a log
 * ended that way (@rc: 0, -ENODATA if not even the end record fit, or
 * the -errno that kept it from being ended), into @err.  Returns the
 * capture's result: @full, or @rc if it is another error.
 */
int stopped(const struct capture_log *lg, const struct capture_summary *sum,
	    int full, int rc, char *err, size_t errlen);

/* End a .zst log (capture_log_end()). */
int capture_log_end_zst(struct capture_log *lg, struct capture_summary *sum,
			char *err, size_t errlen);

#endif
