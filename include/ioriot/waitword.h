/*
 * waitword: sleeping on a 32-bit atomic word until another thread changes
 * it (a thin wrapper around futex(2)), so waiters cost nothing while the
 * word's owner works and the owner pays a syscall only when someone sleeps.
 */
#ifndef IORIOT_WAITWORD_H
#define IORIOT_WAITWORD_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Sleep while *@w holds @val, at most @timeout_ns (so a caller can notice
 * a stop request).  Returns at once when *@w differs; may return early
 * (signals, spurious wake-ups): callers re-check their condition.
 */
void waitword_wait(atomic_uint *w, unsigned val, uint64_t timeout_ns);

/* Wake every thread sleeping on @w. */
void waitword_wake_all(atomic_uint *w);

#endif
