/*
 * emit: the last steps of every captured event, whichever backend caught
 * it (the BPF probe or the SystemTap module): held back to be written in
 * the order the syscalls began (reorder.h), its paths completed (resolve.h),
 * the path filters applied, then written to the log and counted in the
 * capture summary (capture.h).
 */
#ifndef IORIOT_EMIT_H
#define IORIOT_EMIT_H

#include "ioriot/capture.h"
#include "ioriot/outbuf.h"
#include "ioriot/u64map.h"
#include "reorder.h"
#include "asyncfilter.h"
#include "resolve.h"

/* Events are held this long to be written in entry-time order. */
#define EMIT_WINDOW_NS (20ULL * 1000000ULL)

struct emitter {
	const struct path_filter *filter;
	struct capture_summary *sum;
	struct outbuf *ob;
	struct resolver res;		/* also fed by the snapshot */
	struct reorder order;		/* events not yet resolved and written */
	struct u64map cpu_left;		/* pid << 32 | tid -> 1 + on-CPU ns of
					 * its events the filters left out,
					 * for its next C (cpu_carry()) */
	struct u64map runq_left;	/* pid << 32 | tid -> 1 + their wait
					 * for a CPU, for its next R */
	struct async_filter async;	/* the filters of AIO and io_uring */
	int err;			/* first -errno while emitting */
	char abs1[PATHMAP_MAX], abs2[PATHMAP_MAX];
};

/* An emitter writing to @ob, counting in @sum, filtering with @filter.
 * Returns NULL without memory. */
struct emitter *emitter_new(const struct path_filter *filter,
			    struct capture_summary *sum, struct outbuf *ob);

/* Hold a copy of @ce until its turn.  Returns 0 or -ENOMEM (also kept in
 * em->err). */
int emitter_push(struct emitter *em, struct cap_event *ce);

/* Resolve, filter and write every held event that began at least the
 * window before @now (on the events' clock; UINT64_MAX: all of them). */
void emitter_release(struct emitter *em, uint64_t now);

/* Free the emitter and what it still holds.  Accepts NULL. */
void emitter_free(struct emitter *em);

#endif
