/*
 * session_copies: `--copies N`, N replays of one file at once, a process
 * each (session_parts.h); and where the sandboxes of --map and --copies
 * are on this host (session.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/log.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"
#include "ioriot/session.h"
#include "session_parts.h"

#define NS 1000000000ULL
#define POLL_MS 100
#define PROGRESS_NS (2 * NS)
#define TICK_MIN_NS (10 * 1000000ULL)	/* a copy publishes its figures */

char **replay_session_host_roots(const struct replay_session_opts *o,
				 const struct rlog_header *h, size_t *sets)
{
	char err[2 * PATHMAP_MAX], **all = NULL;
	size_t ns = h->nsandboxes, n = o->copies ? (size_t)o->copies : 1;
	struct sandmap m = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < o->nmap; i++)
		rc = sandmap_add(&m, o->map[i], err, sizeof(err));
	if (!rc && !(all = calloc(n * ns + 1, sizeof(*all)))) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -ENOMEM;
	}
	for (size_t c = 0; !rc && c < n; c++) {
		char **one = sandmap_host_roots(&m, h, o->copies ? (unsigned)c + 1 : 0,
						err, sizeof(err));

		if (!one) {
			rc = -errno;
			break;
		}
		memcpy(all + c * ns, one, ns * sizeof(*one));
		free(one);
	}
	sandmap_free(&m);
	if (rc) {
		log_error("%s: %s", o->replay, err);
		sandmap_roots_free(all, n * ns);
		return NULL;
	}
	*sets = n;
	return all;
}

/* What a copy hands back, in memory shared with the calling process. */
struct slot {
	struct replay_summary sum;
	_Atomic uint64_t done, total;
	_Atomic int64_t ahead_ns;
	uint64_t started_ns;		/* CLOCK_MONOTONIC at its go */
	_Atomic uint32_t tick_seq;	/* odd while its figures change */
	int rc;				/* replay_run()'s */
	bool finished;			/* replay_run() returned */
	char err[1024];
};

/* A copy's end of the start: it says it is ready, then waits for go; and
 * where it publishes its time series figures (NULL: none). */
struct gate {
	int ready_fd, go_fd;
	uint64_t *started_ns;
	struct slot *slot;
	struct replay_sys_stats *cum;	/* SYS_COUNT, shared */
};

/* A syscall's figures of the time series, as 64-bit words.  They are
 * cumulative: a syscall without operations has all of them 0. */
#define SYS_WORDS (sizeof(struct replay_sys_stats) / 8)
_Static_assert(sizeof(struct replay_sys_stats) % 8 == 0,
	       "replay_sys_stats is made of 64-bit counters");
_Static_assert(offsetof(struct replay_sys_stats, ops) == 0,
	       "a syscall's figures start with its operations");

/* A copy's tick: its figures so far into the shared page, under the
 * slot's sequence count; only the syscalls with operations (30 KiB each
 * with their histograms), the others stay 0 there. */
static void copy_tick(void *ctx, uint64_t t_ns,
		      const struct replay_sys_stats *cum)
{
	struct gate *g = ctx;

	(void)t_ns;
	/* Release stores keep each word after the odd count, the even
	 * count after every word (no fence: ThreadSanitizer has none). */
	atomic_fetch_add_explicit(&g->slot->tick_seq, 1, memory_order_relaxed);
	for (int k = 0; k < SYS_COUNT; k++) {
		const uint64_t *from = (const uint64_t *)&cum[k];
		uint64_t *to = (uint64_t *)&g->cum[k];

		if (!cum[k].ops)
			continue;
		for (size_t i = 0; i < SYS_WORDS; i++)
			__atomic_store_n(&to[i], from[i], __ATOMIC_RELEASE);
	}
	atomic_fetch_add_explicit(&g->slot->tick_seq, 1, memory_order_release);
}

/* Add the figures copy @s last published in @cum to @sum (SYS_COUNT
 * each), read consistently into @scratch. */
static void add_published(struct slot *s, const struct replay_sys_stats *cum,
			  struct replay_sys_stats *scratch,
			  struct replay_sys_stats *sum)
{
	uint32_t seq;

	do {
		while ((seq = atomic_load_explicit(&s->tick_seq,
						   memory_order_acquire)) & 1)
			sched_yield();
		/* Acquire loads keep the count's second read after them; a
		 * syscall without operations is read no further. */
		for (int k = 0; k < SYS_COUNT; k++) {
			const uint64_t *from = (const uint64_t *)&cum[k];
			uint64_t *to = (uint64_t *)&scratch[k];

			to[0] = __atomic_load_n(&from[0], __ATOMIC_ACQUIRE);
			for (size_t i = 1; to[0] && i < SYS_WORDS; i++)
				to[i] = __atomic_load_n(&from[i],
							__ATOMIC_ACQUIRE);
		}
	} while (atomic_load_explicit(&s->tick_seq, memory_order_relaxed) != seq);
	for (int k = 0; k < SYS_COUNT; k++)
		replay_sys_stats_add(&sum[k], &scratch[k]);
}

/* The engine's start callback in a copy: ready, then wait for go. */
static int copy_start(void *ctx, char *err, size_t errlen)
{
	struct gate *g = ctx;
	char b = 'r';

	if (write(g->ready_fd, &b, 1) != 1 || read(g->go_fd, &b, 1) != 1) {
		snprintf(err, errlen, "the copies were not started (another "
			 "copy failed, or the replay was stopped)");
		return -ECANCELED;
	}
	*g->started_ns = clock_ns(CLOCK_MONOTONIC);
	return 0;
}

static void copy_progress(void *ctx, uint64_t done, uint64_t total,
			  int64_t ahead_ns)
{
	struct slot *s = ctx;

	atomic_store(&s->done, done);
	atomic_store(&s->total, total);
	atomic_store(&s->ahead_ns, ahead_ns);
}

/* The process of copy @k: replay, hand back, exit. */
static _Noreturn void copy_main(const struct replay_options *ro,
				const struct copies_options *co, size_t k,
				struct slot *s, struct gate *g)
{
	struct replay_options cro = *ro;

	cro.reader = NULL;
	cro.host_roots = co->host_roots + k * co->nsandboxes;
	/* With --start-at each copy waits for its own instant itself. */
	if (cro.start_at_ns)
		cro.start_at_ns += (uint64_t)((double)k * co->stagger_s * 1e9);
	cro.start = copy_start;
	cro.start_ctx = g;
	cro.progress = copy_progress;
	cro.progress_ctx = s;
	if (g->cum) {		/* the caller's time series: published often */
		cro.tick = copy_tick;
		cro.tick_ctx = g;
		cro.tick_ns = ro->tick_ns / 10 > TICK_MIN_NS ? ro->tick_ns / 10 :
			      TICK_MIN_NS;
	}
	s->rc = replay_run(&cro, &s->sum, s->err, sizeof(s->err));
	s->finished = true;
	_exit(s->rc ? 1 : 0);
}

/* The processes of the copies and their pipes. */
struct fleet {
	size_t n;
	struct slot *slot;		/* n, shared */
	pid_t *pid;			/* 0: ended (or never started) */
	int *go;			/* write ends, -1: closed */
	int ready;			/* read end */
	int status_err;			/* first copy that ended badly, or -1 */
	int forwarded;			/* the stop signal passed on, or 0 */
	/* With a time series: each copy's figures (n * SYS_COUNT, shared),
	 * their sum and a copy's read (SYS_COUNT each). */
	struct replay_sys_stats *cum, *sum, *scratch;
	uint64_t t0;			/* CLOCK_MONOTONIC of the first go */
};

/* Reap the copies that ended; note the first that failed.  Returns the
 * number still running. */
static size_t reap(struct fleet *f, bool block)
{
	size_t running = 0;

	for (size_t k = 0; k < f->n; k++) {
		int st;
		pid_t p;

		if (!f->pid[k])
			continue;
		p = waitpid(f->pid[k], &st, block ? 0 : WNOHANG);
		if (p == 0 || (p < 0 && errno == EINTR)) {
			running++;
			continue;
		}
		f->pid[k] = 0;
		if (f->status_err < 0 && (p < 0 || !WIFEXITED(st) ||
					  WEXITSTATUS(st) != 0)) {
			f->status_err = (int)k;
			if (p > 0 && WIFSIGNALED(st) && !f->slot[k].finished)
				snprintf(f->slot[k].err, sizeof(f->slot[k].err),
					 "copy %zu ended by SIG%s", k + 1,
					 sigabbrev_np(WTERMSIG(st)));
		}
	}
	return running;
}

/* Pass a stop signal on to the copies, once. */
static void forward_stop(struct fleet *f, const volatile sig_atomic_t *stop)
{
	int sig = stop ? *stop : 0;

	if (!sig || f->forwarded)
		return;
	f->forwarded = sig;
	for (size_t k = 0; k < f->n; k++)
		if (f->pid[k])
			kill(f->pid[k], sig);
}

/* Wait until every copy said it is ready.  0, or -ECANCELED when one
 * ended first or the replay was stopped. */
static int wait_ready(struct fleet *f, const struct copies_options *co)
{
	size_t ready = 0;

	while (ready < f->n) {
		struct pollfd p = { .fd = f->ready, .events = POLLIN };
		char buf[64];
		ssize_t got;

		if (poll(&p, 1, POLL_MS) > 0) {
			got = read(f->ready, buf, sizeof(buf));
			if (got > 0)
				ready += (size_t)got;
		}
		reap(f, false);
		if (f->status_err >= 0 || (co->stop && *co->stop))
			return -ECANCELED;
	}
	return 0;
}

/* Start copy k at (k * stagger) after the first (with --start-at, each
 * copy waits for its instant itself). */
static void release(struct fleet *f, const struct replay_options *ro,
		    const struct copies_options *co)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	char b = 'g';

	f->t0 = t0;
	for (size_t k = 0; k < f->n; k++) {
		uint64_t at = t0 + (uint64_t)((double)k * co->stagger_s * 1e9);
		struct timespec ts = { .tv_sec = (time_t)(at / NS),
				       .tv_nsec = (long)(at % NS) };

		while (co->stagger_s > 0 && !ro->start_at_ns &&
		       !(co->stop && *co->stop) &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		if (co->stop && *co->stop)
			break;
		/* A copy that ended meanwhile has no reader: no SIGPIPE
		 * (ignored in the fleet), just an error left alone. */
		if (write(f->go[k], &b, 1) != 1)
			continue;
		if (k == 0 && co->started)
			co->started(co->started_ctx);
	}
}

/* The copies' summed progress, to @ro's callback. */
static void report_progress(const struct fleet *f,
			    const struct replay_options *ro)
{
	uint64_t done = 0, total = 0;
	int64_t ahead = INT64_MAX;

	for (size_t k = 0; k < f->n; k++) {
		int64_t a = atomic_load(&f->slot[k].ahead_ns);

		done += atomic_load(&f->slot[k].done);
		total += atomic_load(&f->slot[k].total);
		if (a < ahead)
			ahead = a;
	}
	if (ro->progress)
		ro->progress(ro->progress_ctx, done, total,
			     ahead == INT64_MAX ? 0 : ahead);
}

/* From the first copy's start to the last one's end. */
static uint64_t span(const struct fleet *f)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t k = 0; k < f->n; k++) {
		const struct slot *s = &f->slot[k];

		if (s->started_ns < first)
			first = s->started_ns;
		if (s->started_ns + s->sum.duration_ns > last)
			last = s->started_ns + s->sum.duration_ns;
	}
	return last > first ? last - first : 0;
}

/* The time series' sample of the copies' summed figures at @now. */
static void report_tick(struct fleet *f, const struct replay_options *ro,
			uint64_t now)
{
	memset(f->sum, 0, SYS_COUNT * sizeof(*f->sum));
	for (size_t k = 0; k < f->n; k++)
		add_published(&f->slot[k], f->cum + k * SYS_COUNT, f->scratch,
			      f->sum);
	ro->tick(ro->tick_ctx, now > f->t0 ? now - f->t0 : 0, f->sum);
}

/* Fork the copies.  0 or -errno with a message. */
static int spawn(struct fleet *f, const struct replay_options *ro,
		 const struct copies_options *co, char *err, size_t errlen)
{
	int ready[2], e = 0;

	if (pipe2(ready, O_CLOEXEC) < 0) {
		e = errno;
		ready[1] = -1;
		goto out;
	}
	f->ready = ready[0];
	for (size_t k = 0; k < f->n; k++) {
		int go[2];
		struct gate g;

		if (pipe2(go, O_CLOEXEC) < 0) {
			e = errno;
			goto out;
		}
		fflush(NULL);
		f->pid[k] = fork();
		if (f->pid[k] < 0) {
			e = errno;
			f->pid[k] = 0;
			close(go[0]);
			close(go[1]);
			goto out;
		}
		if (f->pid[k] == 0) {
			close(ready[0]);
			close(go[1]);
			for (size_t j = 0; j < k; j++)
				close(f->go[j]);
			g = (struct gate){ .ready_fd = ready[1],
					   .go_fd = go[0],
					   .started_ns = &f->slot[k].started_ns,
					   .slot = &f->slot[k],
					   .cum = f->cum ? f->cum + k * SYS_COUNT :
					   NULL };
			copy_main(ro, co, k, &f->slot[k], &g);
		}
		close(go[0]);
		f->go[k] = go[1];
	}
out:
	if (ready[1] >= 0)
		close(ready[1]);
	if (e)
		snprintf(err, errlen, "cannot start the copies: %s",
			 strerror(e));
	return -e;
}

int copies_run(const struct replay_options *ro, const struct copies_options *co,
	       struct replay_summary *sum, struct replay_summary *per,
	       uint64_t *offsets, char *err, size_t errlen)
{
	struct fleet f = { .n = co->n, .ready = -1, .status_err = -1 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	size_t bytes = co->n * sizeof(*f.slot), cum_bytes = 0;
	uint64_t next, next_tick = UINT64_MAX;
	int rc;

	f.slot = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	f.pid = calloc(co->n, sizeof(*f.pid));
	f.go = malloc(co->n * sizeof(*f.go));
	if (f.slot == MAP_FAILED || !f.pid || !f.go) {
		if (f.slot == MAP_FAILED)
			f.slot = NULL;
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < co->n; k++)
		f.go[k] = -1;
	if (ro->tick && ro->tick_ns) {
		cum_bytes = co->n * SYS_COUNT * sizeof(*f.cum);
		f.cum = mmap(NULL, cum_bytes, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		f.sum = calloc(SYS_COUNT, sizeof(*f.sum));
		f.scratch = calloc(SYS_COUNT, sizeof(*f.scratch));
		if (f.cum == MAP_FAILED || !f.sum || !f.scratch) {
			if (f.cum == MAP_FAILED)
				f.cum = NULL;
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = spawn(&f, ro, co, err, errlen);
	/* Only here: the copies keep the caller's SIGPIPE. */
	sigaction(SIGPIPE, &ign, &old_pipe);
	if (!rc)
		rc = wait_ready(&f, co);
	if (!rc)
		release(&f, ro, co);
	/* A copy still waiting for go reads the end of its pipe: cancelled. */
	for (size_t k = 0; k < co->n; k++) {
		if (f.go[k] >= 0)
			close(f.go[k]);
		f.go[k] = -1;
	}
	next = clock_ns(CLOCK_MONOTONIC) + PROGRESS_NS;
	if (!rc && f.cum)
		next_tick = f.t0 + ro->tick_ns;
	while (reap(&f, false)) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		forward_stop(&f, co->stop);
		if (now >= next) {
			report_progress(&f, ro);
			next += PROGRESS_NS;
		}
		if (now >= next_tick) {
			report_tick(&f, ro, now);
			while (next_tick <= now)
				next_tick += ro->tick_ns;
		}
		poll(NULL, 0, POLL_MS / 10);
	}
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (f.status_err >= 0) {
		snprintf(err, errlen, "copy %d: %s", f.status_err + 1,
			 f.slot[f.status_err].err[0] ?
			 f.slot[f.status_err].err : "failed");
		rc = f.slot[f.status_err].rc ? f.slot[f.status_err].rc : -EIO;
	} else if (rc == -ECANCELED) {
		snprintf(err, errlen, "the copies were stopped before they "
			 "started");
	}
	if (!rc) {
		report_progress(&f, ro);
		if (f.cum)	/* the rest of the last interval */
			report_tick(&f, ro, clock_ns(CLOCK_MONOTONIC));
		for (size_t k = 0; k < co->n; k++) {
			per[k] = f.slot[k].sum;
			replay_summary_add(sum, &per[k], k == 0);
		}
		sum->duration_ns = span(&f);
		for (size_t k = 0; k < co->n; k++)
			offsets[k] = f.slot[k].started_ns - f.slot[0].started_ns;
	}
out:
	if (f.ready >= 0)
		close(f.ready);
	if (f.slot)
		munmap(f.slot, bytes);
	if (f.cum)
		munmap(f.cum, cum_bytes);
	free(f.sum);
	free(f.scratch);
	free(f.pid);
	free(f.go);
	return rc;
}
