/*
 * reorder: puts capture events back into the order their syscalls began.
 * The probe sends a syscall's event when the call returns, so the ring
 * buffer holds events in the order of their returns, and of two calls that
 * overlap on different CPUs the one that began, and took effect, first may
 * come second: a mkdir that created a directory after another thread's
 * mkdir of it that failed with EEXIST, or an open that got fd N from
 * another thread's close of N.  The capture holds each event back for a
 * window and resolves, filters and writes the events in the order of their
 * entry times; a call that lasts longer than the window may still come
 * after calls that began later.  One exception: a create (mkdir, an open
 * with O_CREAT) that failed with EEXIST goes after an overlapping create of
 * the same path by another thread that succeeded, since it found the name
 * that one made although it began first.
 */
#ifndef IORIOT_REORDER_H
#define IORIOT_REORDER_H

#include <stddef.h>
#include <stdint.h>

#include "ioriot/caplog.h"
#include "ioriot/u64map.h"

struct reorder_item;
struct reorder_chunk;

/* A slot: the item's key beside its pointer, so that placing and releasing
 * compare without loading items (held for the window, long out of the
 * cache). */
struct reorder_slot {
	uint64_t time_ns;
	uint64_t arrival;
	struct reorder_item *item;
};

/*
 * The held events.  They come nearly in order (a call's event waits only
 * for its own return), so most go at the end of @run, sorted on (time,
 * arrival) in run[head, n); one that began before the last of the run goes
 * into @late, a min-heap on (time, arrival).  Released from whichever front
 * is earlier.
 */
struct reorder {
	struct reorder_slot *run;
	size_t head, n, cap;
	struct reorder_slot *late;
	size_t late_n, late_cap;
	struct u64map creates;		/* held creates that succeeded, by
					 * path: lists of items */
	struct reorder_chunk *chunk;	/* items are cut from it */
	struct reorder_chunk *spare;	/* emptied chunks for reuse */
	size_t nspare;
	size_t nchunks;			/* chunks holding items */
	uint64_t arrivals;
	uint64_t newest;		/* latest entry time pushed */
	uint64_t window_ns;
};

/* An empty buffer that holds events for @window_ns. */
void reorder_init(struct reorder *r, uint64_t window_ns);

/* Hold a copy of @ev (its paths too).  Returns 0 or -ENOMEM. */
int reorder_push(struct reorder *r, const struct cap_event *ev);

/*
 * Hand to @emit, in order of entry time (then arrival), every held event
 * that began at least the window before @now (UINT64_MAX: all), and forget
 * it: the event and its paths are valid during the call only.  @now is on
 * the events' clock: the entry time of the newest event, or the clock
 * itself once everything sent before it has been pushed.
 */
void reorder_release(struct reorder *r, uint64_t now,
		     void (*emit)(void *ctx, struct cap_event *ev), void *ctx);

/* Free what is held, without writing it.  Accepts a zeroed buffer. */
void reorder_destroy(struct reorder *r);

#endif
