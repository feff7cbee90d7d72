/*
 * startat: the wait for --start-at and the clock discipline's figures
 * (startat.h).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "startat.h"
#include "ioriot/clock.h"

#define SLEEP_SLICE_NS (100 * 1000 * 1000ULL)

static bool stopped(const volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

uint64_t startat_wait(uint64_t at_ns, uint64_t spin_ns,
		      const volatile sig_atomic_t *stop)
{
	uint64_t wake = at_ns > spin_ns ? at_ns - spin_ns : 0;
	uint64_t now = clock_ns(CLOCK_REALTIME);

	while (now < wake && !stopped(stop)) {
		uint64_t until = wake - now > SLEEP_SLICE_NS ?
				 now + SLEEP_SLICE_NS : wake;
		struct timespec ts = {
			.tv_sec = (time_t)(until / 1000000000ULL),
			.tv_nsec = (long)(until % 1000000000ULL),
		};

		/* EINTR: a signal; the loop looks at the stop again. */
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
		now = clock_ns(CLOCK_REALTIME);
	}
	while (now < at_ns && !stopped(stop)) {
		sched_yield();
		now = clock_ns(CLOCK_REALTIME);
	}
	return now;
}

void startat_clock(struct replay_clock *c)
{
	struct timex tx;
	int state;

	memset(c, 0, sizeof(*c));
	memset(&tx, 0, sizeof(tx));	/* modes 0: read only */
	state = adjtimex(&tx);
	if (state < 0)
		return;
	c->known = true;
	c->state = state;
	c->status = tx.status;
	c->synchronised = state != TIME_ERROR && !(tx.status & STA_UNSYNC);
	/* offset is in us, or in ns with STA_NANO; the errors in us. */
	c->offset_ns = (int64_t)tx.offset *
		       (tx.status & STA_NANO ? 1 : 1000);
	c->maxerror_ns = (int64_t)tx.maxerror * 1000;
	c->esterror_ns = (int64_t)tx.esterror * 1000;
}
