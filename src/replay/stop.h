/*
 * stop: whether the replay is stopping (a signal, or a fatal error), for
 * the waits inside one operation: a blocking file lock, an io_uring or AIO
 * completion.  They look at it at least every STOP_SLICE_NS, so that a
 * stop ends the replay within a second whatever an operation waits for.
 * Private to src/replay.
 */
#ifndef IORIOT_REPLAY_STOP_H
#define IORIOT_REPLAY_STOP_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#define STOP_SLICE_NS (100ULL * 1000 * 1000)

struct replay_stop {
	const volatile sig_atomic_t *signalled;	/* a signal handler's */
	const atomic_int *failed;		/* the engine's */
};

/* Whether @s says stop (NULL or empty: never). */
static inline bool replay_stopping(const struct replay_stop *s)
{
	return s && ((s->signalled &&
		      __atomic_load_n(s->signalled, __ATOMIC_RELAXED)) ||
		     (s->failed && atomic_load(s->failed)));
}

#endif
