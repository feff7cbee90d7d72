/*
 * calib: what the probe itself adds to a captured thread's time, measured
 * once before recording (docs/capture-format.md §4.2): the part of each
 * gap between two calls that is the probe's and the kernel's way in and
 * out of a call, and the whole cost of a call it records.
 */
#ifndef IORIOT_CALIB_H
#define IORIOT_CALIB_H

#include <stdint.h>

#include "cpuring.h"

struct probe_cost {
	uint64_t gap_ns;	/* a gap's part: median C of back-to-back calls */
	uint64_t call_ns;	/* a recorded call's: traced less untraced */
};

/* ns per lseek call on /dev/null, the fastest of a few rounds of them:
 * to be called before the probe is attached.  0 if it cannot be measured. */
uint64_t calib_bare_ns(void);

/*
 * Measure @out with the probe attached: a thread of ioriot's own makes
 * lseek calls on /dev/null in rounds with the probe tracing it
 * (*@calib_id, the probe's, set to its id meanwhile), and the rings are
 * read between the rounds: its records give the gaps, every other record
 * goes to @other with @ctx, as the rings' reader would have handed it (its
 * return is ignored).  @bare_ns is calib_bare_ns()'s (0: the call's cost
 * is not measured).  Returns 0, or -errno (no thread, no /dev/null, too
 * few of its records: a busy ring) with @out zeroed.
 */
int calib_measure(volatile __u64 *calib_id, struct cpuring *rings,
		  int (*other)(void *ctx, const void *rec, size_t size),
		  void *ctx, uint64_t bare_ns, struct probe_cost *out);

#endif
