/*
 * rate: the caps on the rate of data operations (--rate-iops,
 * --rate-mbps), shared by all replay threads of a process.  Each cap is a
 * gate: the time its next operation may start.  An operation claims its
 * turn at every gate of its class, one compare-and-swap each (no lock),
 * which moves the gate on by the operation's cost (one interval of the
 * operations cap, its bytes' time under the bytes cap), then waits until
 * the latest of its turns.  A gate left idle starts again from now: the
 * caps allow no burst to make up for time the replay did not use.
 */
#ifndef IORIOT_REPLAY_RATE_H
#define IORIOT_REPLAY_RATE_H

#include <stdatomic.h>
#include <stdint.h>

#include "ioriot/replay.h"
#include "ioriot/rlog.h"

#define RATE_CACHE_LINE 64

struct rate_gate {
	_Alignas(RATE_CACHE_LINE) atomic_uint_fast64_t next_ns;	/* free from */
	double ns_per_unit;		/* an operation's, or a byte's, time */
};

struct rate_limiter {
	/* [0, 1]: the operations caps of reads and writes, [2, 3]: the
	 * bytes caps; the class pointers say which gate a class uses (the
	 * same one for both with a shared cap), NULL: none. */
	struct rate_gate gate[2 * REPLAY_RATE_CLASSES];
	struct rate_gate *ops[REPLAY_RATE_CLASSES];
	struct rate_gate *bytes[REPLAY_RATE_CLASSES];
};

/* Set @l up for the caps @cap (replay_rate_capped() says whether there is
 * any).  Cannot fail. */
void rate_init(struct rate_limiter *l, const struct replay_rate *cap);

/* What an operation takes: the classes it counts in (bit 1 << enum
 * replay_rate_class; 0: not capped) and the operations it stands for in
 * each (a page each for mmap_read and mmap_write, else 1). */
struct rate_turn {
	unsigned classes;
	uint64_t units;
};

/* The classes (bit 1 << enum replay_rate_class) a line of operation @sys
 * counts in, from its class in the syscall table: a read, a write, both
 * for a copy, 0 for the rest.  The iocb and sqe lines count as their
 * opcode's completion, which this gives; completion lines do not count
 * (rate_claim()). */
unsigned rate_sys_classes(enum sys_id sys);

/*
 * Claim @op's turn at the gates of its classes at time @now (engine's
 * clock, ns).  Returns when it may start (@now or later) and says what
 * it took in *@turn (no classes: an operation the caps do not count,
 * which starts at @now).
 */
uint64_t rate_claim(struct rate_limiter *l, const struct rlog_op *op,
		    uint64_t now, struct rate_turn *turn);

/* Count @turn, which waited @delay ns, in @t (a REPLAY_RATE_CLASSES
 * array): its units as operations, each with that delay. */
void rate_count(struct replay_throttle_stats *t, const struct rate_turn *turn,
		uint64_t delay);

/* Add @from (a REPLAY_RATE_CLASSES array, or NULL) to @to. */
void rate_merge(struct replay_throttle_stats *to,
		const struct replay_throttle_stats *from);

/* Set the percentiles of @t (a REPLAY_RATE_CLASSES array). */
void rate_finish(struct replay_throttle_stats *t);

#endif
