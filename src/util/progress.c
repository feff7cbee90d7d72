/*
 * progress: one style for the progress of every long step (progress.h):
 * "ioriot: WHAT [#####     ]  42% FIGURES" redrawn on a terminal, the same
 * without the bar as a line every few seconds otherwise.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/progress.h"

#define BAR_WIDTH 30

void progress_start(struct progress *p, const char *what)
{
	memset(p, 0, sizeof(*p));
	p->what = what;
	p->tty = isatty(2) == 1;
	p->last_line_ns = clock_ns(CLOCK_MONOTONIC);
}

void progress_show(struct progress *p, double share, bool last,
		   const char *fmt, ...)
{
	char figures[256], bar[BAR_WIDTH + 1] = "";
	int pct = -1;
	va_list ap;

	if (!p->tty) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		if (!last && now - p->last_line_ns < PROGRESS_LINE_EVERY_NS)
			return;
		p->last_line_ns = now;
	}
	va_start(ap, fmt);
	vsnprintf(figures, sizeof(figures), fmt, ap);
	va_end(ap);
	if (share >= 0) {
		int full;

		share = share > 1 ? 1 : share;
		pct = (int)(share * 100);
		full = (int)(share * BAR_WIDTH);
		memset(bar, '#', (size_t)full);
		memset(bar + full, ' ', (size_t)(BAR_WIDTH - full));
		bar[BAR_WIDTH] = '\0';
	}
	if (!p->tty) {
		if (pct >= 0)
			fprintf(stderr, "ioriot: %s %3d%% %s\n", p->what, pct,
				figures);
		else
			fprintf(stderr, "ioriot: %s %s\n", p->what, figures);
		return;
	}
	/* \033[K clears what a longer line before left. */
	if (pct >= 0)
		fprintf(stderr, "\rioriot: %s [%s] %3d%% %s\033[K", p->what, bar,
			pct, figures);
	else
		fprintf(stderr, "\rioriot: %s %s\033[K", p->what, figures);
	p->drawn = true;
	if (last)
		progress_end(p);
}

void progress_end(struct progress *p)
{
	if (p->drawn)
		fputc('\n', stderr);
	p->drawn = false;
}
