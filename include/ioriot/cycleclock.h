/*
 * cycleclock: CLOCK_MONOTONIC nanoseconds at the cost of one instruction,
 * for the replay engine, which reads the clock twice per operation.  Where
 * the kernel itself keeps time with the CPU's time-stamp counter (x86-64,
 * clocksource "tsc": constant rate, synchronised across CPUs), the counter
 * is read directly and scaled by a rate calibrated against CLOCK_MONOTONIC;
 * clock_gettime() adds ordering and consistency checks to the same read,
 * which cost as much again.  Elsewhere it is clock_gettime(CLOCK_MONOTONIC).
 *
 * The calibrated rate is off by a few parts per million at most, so over a
 * run of hours the clock drifts from CLOCK_MONOTONIC by milliseconds: use
 * one clock for times that are compared, this one or CLOCK_MONOTONIC.
 */
#ifndef IORIOT_CYCLECLOCK_H
#define IORIOT_CYCLECLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define CYCLECLOCK_SOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

struct cycleclock {
	bool counter;		/* read the time-stamp counter */
	uint64_t ticks0, ns0;	/* a reading of both at calibration */
	uint64_t mult;		/* ns per tick, times 2^32 */
};

/*
 * Set up @c: with the counter if the kernel's clocksource, read from
 * @source (normally CYCLECLOCK_SOURCE), is "tsc" on x86-64, calibrating it
 * for at least @calib_ns (busy: about 2 ms is plenty); else, or if the
 * calibration makes no sense, with CLOCK_MONOTONIC.  Cannot fail.
 */
void cycleclock_init(struct cycleclock *c, const char *source,
		     uint64_t calib_ns);

/* Now, in CLOCK_MONOTONIC nanoseconds (see above for the drift). */
static inline uint64_t cycleclock_ns(const struct cycleclock *c)
{
#if defined(__x86_64__)
	if (c->counter) {
		int64_t ticks = (int64_t)(__rdtsc() - c->ticks0);

		return c->ns0 + (uint64_t)(((unsigned __int128)
			(ticks > 0 ? (uint64_t)ticks : 0) * c->mult) >> 32);
	}
#endif
	return clock_ns(CLOCK_MONOTONIC);
}

#endif
