/*
 * sleep-floor: the host's own wake-up lateness, the floor of the replay's
 * start lateness at -s 1.  THREADS threads share OPS deadlines at RATE per
 * second round robin, as mkreplay's timelines share their operations:
 * deadline j (0-based, in all) is at j * 1e9 / RATE ns after the start and
 * belongs to thread j % THREADS.  Each thread sleeps to its deadlines with
 * clock_nanosleep(TIMER_ABSTIME) and, like the replay, wakes SPIN_US early
 * and yields the CPU until the deadline is there (0: no spin).  Nothing else
 * is done: what is late here is the host's wake-up, not an engine's work.
 *
 *   sleep-floor THREADS OPS RATE SPIN_US
 *
 *   sleep-floor -f REPLAY_FILE SPIN_US
 *
 * With -f, the deadlines are the start times (TIME_NS) of the operations
 * of a replay file (docs/replay-format.md), each timeline (PID:TID) a
 * thread of its own, as the replay at -s 1 has them: the floor of that
 * replay, without its dependencies and its work.
 *
 * Prints one line: "p50 P50 p99 P99 max MAX" in microseconds, percentiles
 * of the lateness of every deadline (exact, not bucketed).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "args.h"

#define NS 1000000000ULL
#define START_DELAY_NS (50 * 1000 * 1000ULL)	/* every thread started */

struct floor_run {
	uint64_t threads, ops, rate, spin_ns, start_ns;
	uint64_t *late;			/* ops entries, by deadline number */
};

struct floor_thread {
	struct floor_run *run;
	uint64_t index;
	pthread_t tid;
	/* -f: the timeline's deadlines (ns from the start) and where its
	 * lateness goes in run->late. */
	uint64_t key;			/* pid << 32 | tid */
	uint64_t *due, first, n, cap;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* Sleep until @t (CLOCK_MONOTONIC ns), the last @spin_ns yielding. */
static void sleep_until(uint64_t t, uint64_t spin_ns)
{
	if (t > spin_ns) {
		uint64_t wake = t - spin_ns;
		struct timespec ts = {
			.tv_sec = (time_t)(wake / NS),
			.tv_nsec = (long)(wake % NS),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	while (now_ns() < t)
		sched_yield();
}

static void *thread_main(void *arg)
{
	struct floor_thread *t = arg;
	struct floor_run *run = t->run;

	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);	/* as the replay */
	for (uint64_t j = t->index; j < run->ops; j += run->threads) {
		uint64_t due = run->start_ns + j * NS / run->rate, now;

		if (now_ns() < due)
			sleep_until(due, run->spin_ns);
		now = now_ns();
		run->late[j] = now > due ? now - due : 0;
	}
	return NULL;
}

/* -f: the deadlines of one timeline, in file order. */
static void *timeline_main(void *arg)
{
	struct floor_thread *t = arg;
	struct floor_run *run = t->run;

	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	for (uint64_t i = 0; i < t->n; i++) {
		uint64_t due = run->start_ns + t->due[i], now;

		if (now_ns() < due)
			sleep_until(due, run->spin_ns);
		now = now_ns();
		run->late[t->first + i] = now > due ? now - due : 0;
	}
	return NULL;
}

/* -f: read the timelines of replay file @path into *@th (*@n of them) and
 * size @run.  Returns 0, or -1 with a message printed. */
static int read_timelines(const char *path, struct floor_run *run,
			  struct floor_thread **th, uint64_t *n)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	uint64_t cap = 0, first = 0;
	struct floor_thread *v = NULL;

	if (!f) {
		fprintf(stderr, "sleep-floor: %s: %s\n", path, strerror(errno));
		return -1;
	}
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long id, time_ns;
		unsigned pid, tid;
		uint64_t key, i;
		struct floor_thread *t;

		if (line[0] == '#' ||
		    sscanf(line, "%llu %u:%u %llu", &id, &pid, &tid,
			   &time_ns) != 4)
			continue;
		key = (uint64_t)pid << 32 | tid;
		/* Timelines are few against operations: look from the end,
		 * where the latest ones are. */
		for (i = *n; i > 0 && v[i - 1].key != key; i--)
			;
		if (i == 0) {
			if (*n == cap) {
				struct floor_thread *nv;

				cap = cap ? cap * 2 : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto nomem;
				v = nv;
			}
			memset(&v[*n], 0, sizeof(v[*n]));
			v[*n].key = key;
			i = ++*n;
		}
		t = &v[i - 1];
		if (t->n == t->cap) {
			uint64_t *nd;

			t->cap = t->cap ? t->cap * 2 : 16;
			nd = realloc(t->due, t->cap * sizeof(*t->due));
			if (!nd)
				goto nomem;
			t->due = nd;
		}
		t->due[t->n++] = time_ns;
		run->ops++;
	}
	fclose(f);
	for (uint64_t i = 0; i < *n; i++) {
		v[i].first = first;
		first += v[i].n;
	}
	run->threads = *n;
	*th = v;
	return run->ops ? 0 : (fprintf(stderr, "sleep-floor: %s: no operations\n",
				       path), -1);
nomem:
	fclose(f);
	for (uint64_t i = 0; i < *n; i++)
		free(v[i].due);
	free(v);
	fprintf(stderr, "sleep-floor: out of memory\n");
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @pct percentile of sorted @v (@n > 0), nearest rank. */
static double pct_us(const uint64_t *v, uint64_t n, double pct)
{
	uint64_t rank = (uint64_t)((double)n * pct / 100.0 + 0.5);

	if (rank < 1)
		rank = 1;
	return (double)v[rank - 1] / 1000.0;
}

int main(int argc, char **argv)
{
	struct floor_run run = { 0 };
	struct floor_thread *th = NULL;
	uint64_t spin_us, started = 0;
	int rc = 1;

	bool from_file = argc == 4 && !strcmp(argv[1], "-f");

	if (from_file ? !parse_u64(argv[3], 0, 1000000, &spin_us) :
	    argc != 5 || !parse_u64(argv[1], 1, 4096, &run.threads) ||
	    !parse_u64(argv[2], 1, 100000000, &run.ops) ||
	    !parse_u64(argv[3], 1, 100000000, &run.rate) ||
	    !parse_u64(argv[4], 0, 1000000, &spin_us)) {
		fprintf(stderr, "usage: sleep-floor THREADS OPS RATE SPIN_US\n"
			"       sleep-floor -f REPLAY_FILE SPIN_US\n");
		return 2;
	}
	run.spin_ns = spin_us * 1000;
	if (from_file) {
		uint64_t n;

		if (read_timelines(argv[2], &run, &th, &n))
			goto out;
	} else {
		th = calloc(run.threads, sizeof(*th));
	}
	run.late = calloc(run.ops, sizeof(*run.late));
	if (!run.late || !th) {
		fprintf(stderr, "sleep-floor: out of memory\n");
		goto out;
	}
	run.start_ns = now_ns() + START_DELAY_NS;
	for (; started < run.threads; started++) {
		int err;

		th[started].run = &run;
		th[started].index = started;
		err = pthread_create(&th[started].tid, NULL, from_file ?
				     timeline_main : thread_main, &th[started]);
		if (err) {
			fprintf(stderr, "sleep-floor: pthread_create: %s\n",
				strerror(err));
			break;
		}
	}
	for (uint64_t i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	if (started < run.threads)
		goto out;
	qsort(run.late, run.ops, sizeof(*run.late), cmp_u64);
	printf("p50 %.1f p99 %.1f max %.1f\n", pct_us(run.late, run.ops, 50),
	       pct_us(run.late, run.ops, 99),
	       (double)run.late[run.ops - 1] / 1000.0);
	rc = 0;
out:
	free(run.late);
	if (from_file && th)
		for (uint64_t i = 0; i < run.threads; i++)
			free(th[i].due);
	free(th);
	return rc;
}
