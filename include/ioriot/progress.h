/*
 * progress: the one progress style of capture, generate, init and replay.
 * On a terminal a live line, redrawn in place, with a bar when the share
 * done is known; otherwise a plain line every PROGRESS_LINE_EVERY_NS and
 * one at the end.  Used by the CLI and the replay session.
 */
#ifndef IORIOT_PROGRESS_H
#define IORIOT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRESS_LINE_EVERY_NS (5ULL * 1000000000ULL)

struct progress {
	const char *what;		/* "capture", "generate", ... */
	bool tty;			/* stderr is a terminal */
	bool drawn;			/* a live line is on the screen */
	uint64_t last_line_ns;		/* the last plain line */
};

/* Start the progress of @what (a string that outlives @p). */
void progress_start(struct progress *p, const char *what);

/*
 * Show @share done (0 to 1; negative: not known) and the figures @fmt
 * formats.  @last: the work is done (a plain line is always written).
 */
void progress_show(struct progress *p, double share, bool last,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* End the live line, if one is drawn, so that other output follows. */
void progress_end(struct progress *p);

#endif
