/* log: leveled diagnostics on stderr (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ioriot/log.h"
#include "ioriot/textsafe.h"

static enum log_level current = LOG_WARN;

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

/* Messages quote paths and names from captures and replay files: the
 * whole line is printed through text_write(), so that none of their bytes
 * reaches the terminal as a control character. */
static void emit(enum log_level level, const char *prefix, const char *fmt,
		 va_list ap) __attribute__((format(printf, 3, 0)));

static void emit(enum log_level level, const char *prefix, const char *fmt,
		 va_list ap)
{
	char small[1024], *big = NULL;
	const char *msg = small;
	va_list again;
	int n;

	if (level > current)
		return;
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		msg = "(a message that could not be formatted)";
	} else if ((size_t)n >= sizeof(small) &&
		   (big = malloc((size_t)n + 1))) {	/* else printed cut */
		vsnprintf(big, (size_t)n + 1, fmt, again);
		msg = big;
	}
	va_end(again);
	flockfile(stderr);		/* one line, whole, among threads */
	fputs(prefix, stderr);
	text_write(stderr, msg, false);
	fputc('\n', stderr);
	funlockfile(stderr);
	free(big);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(LOG_ERROR, "ioriot: ", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(LOG_WARN, "ioriot: warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(LOG_INFO, "ioriot: ", fmt, ap);
	va_end(ap);
}
