/*
 * clock: the one way ioriot reads a clock, in nanoseconds.
 */
#ifndef IORIOT_CLOCK_H
#define IORIOT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now on @clk (CLOCK_MONOTONIC, CLOCK_REALTIME), in ns. */
static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
