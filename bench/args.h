/*
 * args.h: the benchmark programs' number arguments.
 */
#ifndef IORIOT_BENCH_ARGS_H
#define IORIOT_BENCH_ARGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* @s as a decimal number in [@min, @max] into *@v; false if it is not one. */
static inline bool parse_u64(const char *s, uint64_t min, uint64_t max,
			     uint64_t *v)
{
	char *end;
	unsigned long long n;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return false;
	*v = n;
	return true;
}

#endif
