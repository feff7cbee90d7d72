/* log: leveled diagnostics on stderr (log.h). */
#include <stdarg.h>
#include <stdio.h>

#include "ioriot/log.h"

static enum log_level current = LOG_WARN;

void log_set_level(enum log_level level)
{
	current = level;
}

enum log_level log_get_level(void)
{
	return current;
}

static void emit(enum log_level level, const char *prefix, const char *fmt,
		 va_list ap)
{
	if (level > current)
		return;
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
