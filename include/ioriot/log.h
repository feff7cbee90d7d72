/*
 * log: diagnostics on stderr for every module.  Modules report what they
 * skip or distrust through log_warn(); only the CLI decides verbosity.
 */
#ifndef IORIOT_LOG_H
#define IORIOT_LOG_H

enum log_level { LOG_QUIET, LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Set the most verbose level printed (default LOG_WARN). */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* One line on stderr: errors as "ioriot: MESSAGE" (the prefix usage errors
 * have too), warnings as "ioriot: warning: MESSAGE". */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
