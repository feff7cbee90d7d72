/*
 * calib: the probe's own cost (calib.h).  ioriot makes CALIB_CALLS lseek
 * calls on /dev/null back to back before the probe is attached, and a
 * thread of its own again with the probe tracing it (calib_id),
 * CALIB_ROUNDS times each.  The C of its
 * records (the on-CPU time from one call's recorded end to the next
 * call's recorded start, a loop of a few instructions) is what the probe's
 * work around the clock reads and the kernel's way out of one call and
 * into the next add to every gap: their median is the gap's part.  The
 * traced loop's time per call less the loop's without the probe (the
 * fastest round of each) is all a recorded call costs, in the call and in
 * the gap.  (With the probe attached, an untraced call costs more too:
 * the probe looks at every call.)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "ioriot/clock.h"
#include "ioriot/syscall_table.h"

#define CALIB_CALLS 1000	/* calls per round */
#define CALIB_ROUNDS 4
#define CALIB_MIN_GAPS (CALIB_CALLS / 2)	/* fewer: no measure */

struct calib_run {
	volatile __u64 *calib_id;
	struct cpuring *rings;
	int (*other)(void *ctx, const void *rec, size_t size);
	void *ctx;
	uint32_t pid, tid;
	uint64_t gaps[CALIB_ROUNDS * CALIB_CALLS];
	size_t ngaps;
	uint64_t traced_ns;		/* fastest round, ns per call */
	int err;
};

/* A record: the calibrating thread's lseek gives its gap, any other goes
 * on to the reader's handler.  Returns 0. */
static int take_record(void *arg, const void *rec, size_t size)
{
	struct calib_run *run = arg;
	const struct ioriot_event *e = rec;

	if (size < sizeof(*e) || e->pid != run->pid || e->tid != run->tid) {
		run->other(run->ctx, rec, size);
		return 0;
	}
	if (e->sys == SYS_LSEEK && (e->flags & IORIOT_EV_CPU_GAP) &&
	    run->ngaps < sizeof(run->gaps) / sizeof(run->gaps[0]))
		run->gaps[run->ngaps++] = e->cpu_gap;
	return 0;
}

/* ns per call of CALIB_CALLS lseeks on @fd. */
static uint64_t loop_ns(int fd)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALIB_CALLS; i++)
		(void)lseek(fd, 0, SEEK_CUR);
	return (clock_ns(CLOCK_MONOTONIC) - t0) / CALIB_CALLS;
}

uint64_t calib_bare_ns(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	uint64_t best = UINT64_MAX;

	if (fd < 0)
		return 0;
	for (int round = 0; round < CALIB_ROUNDS; round++) {
		uint64_t ns = loop_ns(fd);

		if (ns < best)
			best = ns;
	}
	close(fd);
	return best;
}

static void *calib_thread(void *arg)
{
	struct calib_run *run = arg;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	uint64_t id;

	if (fd < 0) {
		run->err = -errno;
		return NULL;
	}
	run->pid = (uint32_t)getpid();
	run->tid = (uint32_t)gettid();
	id = (uint64_t)run->pid << 32 | run->tid;
	run->traced_ns = UINT64_MAX;
	for (int round = 0; round < CALIB_ROUNDS; round++) {
		uint64_t ns;

		__atomic_store_n(run->calib_id, id, __ATOMIC_SEQ_CST);
		ns = loop_ns(fd);
		__atomic_store_n(run->calib_id, 0, __ATOMIC_SEQ_CST);
		if (ns < run->traced_ns)
			run->traced_ns = ns;
		/* Read between rounds: a small ring holds one round. */
		if (cpuring_consume(run->rings, take_record, run) < 0) {
			run->err = -EPROTO;
			break;
		}
	}
	close(fd);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int calib_measure(volatile __u64 *calib_id, struct cpuring *rings,
		  int (*other)(void *ctx, const void *rec, size_t size),
		  void *ctx, uint64_t bare_ns, struct probe_cost *out)
{
	struct calib_run *run = calloc(1, sizeof(*run));
	pthread_t t;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!run)
		return -ENOMEM;
	run->calib_id = calib_id;
	run->rings = rings;
	run->other = other;
	run->ctx = ctx;
	/* A thread of its own: the probe's state for it goes with it. */
	rc = -pthread_create(&t, NULL, calib_thread, run);
	if (rc)
		goto out;
	pthread_join(t, NULL);
	rc = run->err;
	if (!rc && run->ngaps < CALIB_MIN_GAPS)
		rc = -ENODATA;
	if (rc)
		goto out;
	qsort(run->gaps, run->ngaps, sizeof(run->gaps[0]), cmp_u64);
	out->gap_ns = run->gaps[run->ngaps / 2];
	out->call_ns = bare_ns && run->traced_ns > bare_ns ?
		       run->traced_ns - bare_ns : 0;
out:
	free(run);
	return rc;
}
