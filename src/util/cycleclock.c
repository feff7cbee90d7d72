/*
 * cycleclock: calibration of the time-stamp counter against CLOCK_MONOTONIC
 * (cycleclock.h).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/cycleclock.h"

#define PAIR_TRIES 8

#if defined(__x86_64__)
/* True if @source names "tsc" as the kernel's clocksource. */
static bool kernel_uses_tsc(const char *source)
{
	char buf[32];
	ssize_t n = -1;
	int fd = open(source, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, "tsc\n") == 0 || strcmp(buf, "tsc") == 0;
}

/* A counter reading and the CLOCK_MONOTONIC time it was taken at: of a few
 * tries, the one bracketed most tightly by two clock reads. */
static void read_pair(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t before = clock_ns(CLOCK_MONOTONIC);
		uint64_t t = __rdtsc();
		uint64_t after = clock_ns(CLOCK_MONOTONIC);

		if (after - before < best) {
			best = after - before;
			*ticks = t;
			*ns = before + (after - before) / 2;
		}
	}
}
#endif

void cycleclock_init(struct cycleclock *c, const char *source,
		     uint64_t calib_ns)
{
	memset(c, 0, sizeof(*c));
#if defined(__x86_64__)
	uint64_t ticks1 = 0, ns1 = 0;

	if (!kernel_uses_tsc(source))
		return;
	read_pair(&c->ticks0, &c->ns0);
	do
		read_pair(&ticks1, &ns1);
	while (ns1 - c->ns0 < calib_ns);
	if (ticks1 <= c->ticks0)
		return;
	/* ns per tick << 32; counters run at 0.1-10 GHz. */
	c->mult = (uint64_t)(((unsigned __int128)(ns1 - c->ns0) << 32) /
			     (ticks1 - c->ticks0));
	c->counter = c->mult >= (1ULL << 32) / 10 &&
		     c->mult <= (1ULL << 32) * 10;
#else
	(void)source;
	(void)calib_ns;
#endif
}
