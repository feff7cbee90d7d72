/*
 * startat: a replay's start at a wall-clock instant (--start-at), so that
 * the replays of a fleet begin together, and the state of the host's
 * clock discipline that says how far their clocks can be trusted.
 * Private to src/replay.
 */
#ifndef IORIOT_REPLAY_STARTAT_H
#define IORIOT_REPLAY_STARTAT_H

#include <signal.h>
#include <stdint.h>

#include "ioriot/replay.h"

/*
 * Wait until CLOCK_REALTIME reaches @at_ns (ns since the epoch): sleep with
 * absolute deadlines (a clock step is followed), at most 100 ms at a time
 * so that a stop (*@stop set) is noticed, then spin the last @spin_ns.
 * Returns CLOCK_REALTIME when it returned (at once if @at_ns is past).
 */
uint64_t startat_wait(uint64_t at_ns, uint64_t spin_ns,
		      const volatile sig_atomic_t *stop);

/* The clock discipline of the host (adjtimex(2) without changing
 * anything) into @c; c->known false when adjtimex fails. */
void startat_clock(struct replay_clock *c);

#endif
