/*
 * The replay engine: loads a replay file's operations, splits them into
 * timelines (one per captured thread), runs one thread per timeline and
 * merges the statistics.  Cross-timeline order comes from the dependencies
 * the generator recorded: an operation starts once every operation it
 * depends on has completed.  Dependencies always name earlier ids and a
 * timeline runs in file order, so the earliest unfinished operation can
 * always run: the engine cannot deadlock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <time.h>

#include "ioriot/clock.h"
#include "ioriot/exec.h"
#include "ioriot/replay.h"
#include "ioriot/rlog.h"
#include "ioriot/syscall_table.h"
#include "ioriot/u64map.h"

#define TIMELINE_STACK (256u << 10)
#define SPIN_NS (100 * 1000ULL)


struct timeline {
	uint32_t *ops;			/* indexes into engine.ops, file order */
	size_t n, cap;
	pthread_t thread;
	struct engine *eng;
	struct replay_sys_stats *sys;	/* SYS_COUNT entries */
	uint64_t *late;			/* speed > 0: lateness per op */
	size_t nlate;
	int64_t last_ahead;
	uint64_t end_ns;		/* when its last operation completed */
	atomic_size_t performed;	/* for progress; written by its thread */
	int error;			/* -errno that stopped the timeline */
};

struct engine {
	/* File order, ids increasing.  Their strings point into the arena;
	 * while loading they hold arena offsets + 1 instead. */
	struct rlog_op *ops;
	size_t nops;
	atomic_uchar *done;		/* per op */
	char *arena;
	size_t arena_len;
	struct timeline *tls;
	size_t ntls;
	struct exec_ctx x;
	double speed;
	uint64_t start_ns;
	const volatile sig_atomic_t *stop;
	atomic_int failed;		/* a timeline hit a fatal error */
	atomic_llong ahead;		/* speed > 0: the latest op's lead */
	/* Differing results by replayed result; shared, as they are rare. */
	atomic_ullong (*differ_by_result)[REPLAY_RESULT_SLOTS];
	atomic_int waiters;
	bool go;			/* under lock: start_ns is set */
	size_t running;			/* under lock: timelines not done */
	pthread_mutex_t lock;		/* with cond: waiting for completions */
	pthread_cond_t cond;
};

static bool should_stop(struct engine *e)
{
	return (e->stop && *e->stop) || atomic_load(&e->failed);
}

/* Append @len bytes to the arena; returns the offset or -ENOMEM. */
static int64_t arena_add(struct engine *e, size_t *cap, const char *s,
			 size_t len)
{
	if (e->arena_len + len + 1 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1 << 16;
		char *p;

		while (ncap < e->arena_len + len + 1)
			ncap *= 2;
		p = realloc(e->arena, ncap);
		if (!p)
			return -ENOMEM;
		e->arena = p;
		*cap = ncap;
	}
	memcpy(e->arena + e->arena_len, s, len);
	e->arena[e->arena_len + len] = '\0';
	e->arena_len += len + 1;
	return (int64_t)(e->arena_len - len - 1);
}

/* Store a string of @op in the arena, its offset in place of the pointer. */
static int keep_string(struct engine *e, size_t *cap, const char **s,
		       uint32_t len)
{
	int64_t off;

	if (!*s)
		return 0;
	off = arena_add(e, cap, *s, len);
	if (off < 0)
		return (int)off;
	*s = (const char *)(uintptr_t)(off + 1);	/* 0 stays NULL */
	return 0;
}

static void fix_string(const struct engine *e, const char **s)
{
	if (*s)
		*s = e->arena + ((uintptr_t)*s - 1);
}

static struct timeline *timeline_of(struct engine *e, struct u64map *by_tl,
				    uint64_t key)
{
	struct timeline *tl;
	void *v = u64map_get(by_tl, key);

	if (v)
		return &e->tls[(uintptr_t)v - 1];
	tl = realloc(e->tls, (e->ntls + 1) * sizeof(*tl));
	if (!tl)
		return NULL;
	e->tls = tl;
	tl = &e->tls[e->ntls];
	memset(tl, 0, sizeof(*tl));
	if (u64map_put(by_tl, key, (void *)(uintptr_t)(e->ntls + 1)))
		return NULL;
	e->ntls++;
	return tl;
}

static int timeline_add(struct timeline *tl, uint32_t idx)
{
	if (tl->n == tl->cap) {
		size_t ncap = tl->cap ? tl->cap * 2 : 64;
		uint32_t *p = realloc(tl->ops, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		tl->ops = p;
		tl->cap = ncap;
	}
	tl->ops[tl->n++] = idx;
	return 0;
}

/* Read every operation of @path.  0 or -errno with a message in @err. */
static int load(struct engine *e, const char *path, char *err, size_t errlen)
{
	struct rlog_reader *r = rlog_open(path, err, errlen);
	struct u64map by_tl = { 0 };
	size_t cap = 0, arena_cap = 0;
	struct rlog_entry ent;
	int ret;

	if (!r)
		return -errno;
	ret = u64map_init(&by_tl);
	if (ret)
		goto out;
	while ((ret = rlog_next(r, &ent, err, errlen)) == 1) {
		struct rlog_op *op = &ent.op;
		struct timeline *tl;

		if (ent.type != RLOG_ENTRY_OP)
			continue;
		if (e->nops == UINT32_MAX) {
			snprintf(err, errlen, "%s: too many operations", path);
			ret = -E2BIG;
			goto out;
		}
		if (e->nops == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct rlog_op *p = realloc(e->ops, ncap * sizeof(*p));

			ret = -ENOMEM;
			if (!p)
				goto out;
			e->ops = p;
			cap = ncap;
		}
		ret = keep_string(e, &arena_cap, &op->path, op->path_len);
		if (!ret)
			ret = keep_string(e, &arena_cap, &op->path2,
					  op->path2_len);
		if (!ret)
			ret = keep_string(e, &arena_cap, &op->target,
					  op->target_len);
		if (ret)
			goto out;
		tl = timeline_of(e, &by_tl, (uint64_t)op->pid << 32 | op->tid);
		ret = -ENOMEM;
		if (!tl || timeline_add(tl, (uint32_t)e->nops))
			goto out;
		e->ops[e->nops++] = *op;
	}
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < e->nops; i++) {
		fix_string(e, &e->ops[i].path);
		fix_string(e, &e->ops[i].path2);
		fix_string(e, &e->ops[i].target);
	}
	ret = exec_init(&e->x, rlog_header(r)->sandboxes,
			rlog_header(r)->nsandboxes, err, errlen);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	u64map_destroy(&by_tl);
	rlog_close(r);
	return ret;
}

/* Index of operation @id, or -1 when the file has none (a dependency on an
 * operation the generator dropped counts as satisfied). */
static ssize_t find_op(const struct engine *e, uint64_t id)
{
	size_t lo = 0, hi = e->nops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->ops[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->nops && e->ops[lo].id == id ? (ssize_t)lo : -1;
}

/* Wait until @idx has completed.  false when the replay stops first. */
static bool wait_done(struct engine *e, size_t idx)
{
	for (int spin = 0; spin < 200; spin++) {
		if (atomic_load_explicit(&e->done[idx], memory_order_acquire))
			return true;
		sched_yield();
	}
	pthread_mutex_lock(&e->lock);
	atomic_fetch_add(&e->waiters, 1);
	while (!atomic_load(&e->done[idx]) &&
	       !should_stop(e)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;	/* notice a stop */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->cond, &e->lock, &ts);
	}
	atomic_fetch_sub(&e->waiters, 1);
	pthread_mutex_unlock(&e->lock);
	return atomic_load_explicit(&e->done[idx], memory_order_acquire);
}

static void mark_done(struct engine *e, size_t idx)
{
	/* Sequentially consistent, paired with the waiter's increment of
	 * waiters before it checks done: one of the two sees the other. */
	atomic_store(&e->done[idx], 1);
	if (atomic_load(&e->waiters)) {
		pthread_mutex_lock(&e->lock);
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
}

static unsigned bucket(uint64_t ns)
{
	unsigned b = ns ? 64 - (unsigned)__builtin_clzll(ns) : 0;

	return b < REPLAY_LATENCY_BUCKETS ? b : REPLAY_LATENCY_BUCKETS - 1;
}

/* Whether the replayed result @got tells another story than @want: one
 * failed and the other did not, or both failed with different errors. */
static bool result_differs(int64_t want, int64_t got)
{
	if ((want < 0) != (got < 0))
		return true;
	return want < 0 && want != got;
}

static bool moves_bytes(enum sys_id sys)
{
	switch (sys_info(sys)->kind) {
	case SK_READ: case SK_WRITE: case SK_SENDFILE: case SK_COPY_RANGE:
		return true;
	default:
		return false;
	}
}

static void account(struct timeline *tl, const struct rlog_op *op,
		    int64_t result, uint64_t dur)
{
	struct replay_sys_stats *s = &tl->sys[op->sys];

	s->ops++;
	if (result > 0 && moves_bytes(op->sys))
		s->bytes += (uint64_t)result;
	if (result_differs(op->ret, result)) {
		int64_t slot = result >= 0 ? 0 : -result;

		if (slot >= REPLAY_RESULT_SLOTS)
			slot = REPLAY_RESULT_SLOTS - 1;
		s->differ++;
		atomic_fetch_add_explicit(
			&tl->eng->differ_by_result[op->sys][slot], 1,
			memory_order_relaxed);
	}
	s->lat[bucket(dur)]++;
	s->cap_lat[bucket(op->dur_ns)]++;
	if (dur > s->lat_max)
		s->lat_max = dur;
	if (op->dur_ns > s->cap_lat_max)
		s->cap_lat_max = op->dur_ns;
}

/* Sleep until @t (CLOCK_MONOTONIC ns) unless the replay stops; the last
 * SPIN_NS are spun, as a wake-up can come late. */
static void sleep_until(struct engine *e, uint64_t t)
{
	while (!should_stop(e)) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		uint64_t left;
		struct timespec ts;

		if (now >= t)
			return;
		left = t - now;
		if (left <= SPIN_NS) {
			sched_yield();
			continue;
		}
		left -= SPIN_NS;
		if (left > 100 * 1000 * 1000ULL)
			left = 100 * 1000 * 1000ULL;
		ts.tv_sec = (time_t)(left / 1000000000ULL);
		ts.tv_nsec = (long)(left % 1000000000ULL);
		nanosleep(&ts, NULL);
	}
}

static void *timeline_main(void *arg)
{
	struct timeline *tl = arg;
	struct engine *e = tl->eng;

	pthread_setname_np(pthread_self(), "ioriot-replay");	/* top -H */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);	/* wake on time */
	pthread_mutex_lock(&e->lock);
	while (!e->go)
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	for (size_t i = 0; i < tl->n && !should_stop(e); i++) {
		size_t idx = tl->ops[i];
		const struct rlog_op *op = &e->ops[idx];
		uint64_t t0, t1, late;
		int64_t result;
		bool ready = true;

		for (int d = 0; d < op->deps.n && ready; d++) {
			ssize_t dep = find_op(e, op->deps.id[d]);

			if (dep >= 0)
				ready = wait_done(e, (size_t)dep);
		}
		if (!ready)
			break;
		if (e->speed > 0) {
			/* At most 10^18 ns (31 years) ahead: no overflow. */
			double at = (double)op->time_ns / e->speed;
			uint64_t due = e->start_ns + (at < 1e18 ? (uint64_t)at :
						      1000000000000000000ULL);
			uint64_t now = clock_ns(CLOCK_MONOTONIC);

			/* The lead before waiting; the lateness when it starts. */
			tl->last_ahead = (int64_t)(due - now);
			if (now < due)
				sleep_until(e, due);
			if (should_stop(e))
				break;
			t0 = clock_ns(CLOCK_MONOTONIC);
			late = t0 > due ? t0 - due : 0;
			tl->late[tl->nlate++] = late;
			atomic_store_explicit(&e->ahead, tl->last_ahead,
					      memory_order_relaxed);
		} else {
			t0 = clock_ns(CLOCK_MONOTONIC);
		}
		tl->error = exec_op(&e->x, op, &result);
		t1 = clock_ns(CLOCK_MONOTONIC);
		if (tl->error) {
			atomic_store(&e->failed, 1);
			break;
		}
		account(tl, op, result, t1 - t0);
		mark_done(e, idx);
		atomic_store_explicit(&tl->performed, i + 1,
				      memory_order_relaxed);
	}
	tl->end_ns = clock_ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&e->lock);
	e->running--;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Lateness percentiles over every timeline (speed > 0). */
static int lateness(struct engine *e, struct replay_summary *sum)
{
	uint64_t *all = malloc((e->nops ? e->nops : 1) * sizeof(*all));
	size_t n = 0;

	if (!all)
		return -ENOMEM;
	for (size_t t = 0; t < e->ntls; t++) {
		memcpy(all + n, e->tls[t].late, e->tls[t].nlate * sizeof(*all));
		n += e->tls[t].nlate;
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	if (n) {
		sum->lateness_p50_ns = all[(n - 1) / 2];
		sum->lateness_p99_ns = all[(size_t)((double)(n - 1) * 0.99)];
		sum->lateness_max_ns = all[n - 1];
	}
	free(all);
	return 0;
}

static void merge(struct replay_summary *sum, const struct timeline *tl)
{
	for (int s = 0; s < SYS_COUNT; s++) {
		const struct replay_sys_stats *a = &tl->sys[s];
		struct replay_sys_stats *b = &sum->sys[s];

		sum->ops += a->ops;
		b->ops += a->ops;
		b->bytes += a->bytes;
		b->differ += a->differ;
		for (int i = 0; i < REPLAY_LATENCY_BUCKETS; i++) {
			b->lat[i] += a->lat[i];
			b->cap_lat[i] += a->cap_lat[i];
		}
		if (a->lat_max > b->lat_max)
			b->lat_max = a->lat_max;
		if (a->cap_lat_max > b->cap_lat_max)
			b->cap_lat_max = a->cap_lat_max;
	}
}

/* Start the timelines, report progress until they end, join them. */
/* Operations performed so far, over all timelines (for progress). */
static uint64_t performed(struct engine *e)
{
	uint64_t n = 0;

	for (size_t t = 0; t < e->ntls; t++)
		n += atomic_load_explicit(&e->tls[t].performed,
					  memory_order_relaxed);
	return n;
}

static int run_timelines(struct engine *e, const struct replay_options *opt,
			 char *err, size_t errlen)
{
	size_t started = 0;
	pthread_attr_t attr;
	int ret = 0;

	/* Small stacks: there may be thousands of timelines, and no
	 * timeline keeps more than a few KiB on its stack. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, TIMELINE_STACK);
	e->running = e->ntls;
	for (; started < e->ntls; started++) {
		struct timeline *tl = &e->tls[started];

		tl->eng = e;
		ret = -pthread_create(&tl->thread, &attr, timeline_main, tl);
		if (ret) {
			snprintf(err, errlen, "cannot start timeline thread %zu: %s",
				 started + 1, strerror(-ret));
			atomic_store(&e->failed, 1);
			break;
		}
	}
	pthread_attr_destroy(&attr);
	/* The clock starts once every timeline exists. */
	pthread_mutex_lock(&e->lock);
	e->running -= e->ntls - started;
	e->start_ns = clock_ns(CLOCK_MONOTONIC);
	e->go = true;
	pthread_cond_broadcast(&e->cond);
	while (e->running) {
		struct timespec deadline;

		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += 2;
		while (e->running &&
		       pthread_cond_timedwait(&e->cond, &e->lock, &deadline) !=
		       ETIMEDOUT)
			;
		if (e->running && opt->progress) {
			pthread_mutex_unlock(&e->lock);
			opt->progress(opt->progress_ctx,
				      performed(e), e->nops,
				      atomic_load(&e->ahead));
			pthread_mutex_lock(&e->lock);
		}
	}
	pthread_mutex_unlock(&e->lock);
	for (size_t t = 0; t < started; t++) {
		pthread_join(e->tls[t].thread, NULL);
		if (!ret && e->tls[t].error) {
			ret = e->tls[t].error;
			snprintf(err, errlen, "replay stopped: %s",
				 strerror(-ret));
		}
	}
	return ret;
}

/* Distinct pids among the timelines; 0 when out of memory. */
static uint64_t count_processes(const struct engine *e)
{
	struct u64map pids;
	uint64_t n = 0;

	if (u64map_init(&pids))
		return 0;
	for (size_t t = 0; t < e->ntls; t++) {
		uint64_t pid = e->ops[e->tls[t].ops[0]].pid;

		if (!u64map_get(&pids, pid) &&
		    u64map_put(&pids, pid, (void *)1) == 0)
			n++;
	}
	u64map_destroy(&pids);
	return n;
}

static void engine_free(struct engine *e)
{
	for (size_t t = 0; t < e->ntls; t++) {
		free(e->tls[t].ops);
		free(e->tls[t].sys);
		free(e->tls[t].late);
	}
	free(e->tls);
	free(e->ops);
	free(e->arena);
	free(e->done);
	free(e->differ_by_result);
	exec_destroy(&e->x);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
}

int replay_run(const struct replay_options *opt, struct replay_summary *sum,
	       char *err, size_t errlen)
{
	struct engine e = { .speed = opt->speed, .stop = opt->stop };
	int ret;

	memset(sum, 0, sizeof(*sum));
	if (errlen)
		err[0] = '\0';
	pthread_mutex_init(&e.lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* no clock steps */
	pthread_cond_init(&e.cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = load(&e, opt->replay_path, err, errlen);
	if (ret)
		goto out;
	ret = -ENOMEM;
	e.done = calloc(e.nops ? e.nops : 1, sizeof(*e.done));
	e.differ_by_result = calloc(SYS_COUNT, sizeof(*e.differ_by_result));
	if (!e.done || !e.differ_by_result)
		goto out;
	for (size_t t = 0; t < e.ntls; t++) {
		struct timeline *tl = &e.tls[t];

		tl->sys = calloc(SYS_COUNT, sizeof(*tl->sys));
		if (e.speed > 0)
			tl->late = calloc(tl->n, sizeof(*tl->late));
		if (!tl->sys || (e.speed > 0 && !tl->late))
			goto out;
	}
	if (opt->ready && (ret = opt->ready(opt->ready_ctx, err, errlen)))
		goto out;
	ret = run_timelines(&e, opt, err, errlen);
	for (size_t t = 0; t < e.ntls; t++)
		if (e.tls[t].end_ns > e.start_ns + sum->duration_ns)
			sum->duration_ns = e.tls[t].end_ns - e.start_ns;
	sum->timelines = e.ntls;
	sum->processes = count_processes(&e);
	if (e.nops)
		sum->captured_ns = e.ops[e.nops - 1].time_ns +
				   e.ops[e.nops - 1].dur_ns;
	for (size_t t = 0; t < e.ntls; t++) {
		merge(sum, &e.tls[t]);
		if (e.tls[t].n && e.tls[t].ops[e.tls[t].n - 1] == e.nops - 1)
			sum->ahead_ns = e.tls[t].last_ahead;
	}
	for (int s = 0; s < SYS_COUNT && e.differ_by_result; s++)
		for (int i = 0; i < REPLAY_RESULT_SLOTS; i++)
			sum->differ_by_result[s][i] =
				atomic_load(&e.differ_by_result[s][i]);
	sum->timed = e.speed > 0;
	if (!ret && sum->timed)
		ret = lateness(&e, sum);
out:
	if (ret == -ENOMEM && errlen && !err[0])
		snprintf(err, errlen, "%s: out of memory", opt->replay_path);
	engine_free(&e);
	return ret;
}

uint64_t replay_percentile(const uint64_t h[REPLAY_LATENCY_BUCKETS],
			   double pct)
{
	uint64_t total = 0, seen = 0, want;

	for (int i = 0; i < REPLAY_LATENCY_BUCKETS; i++)
		total += h[i];
	if (!total)
		return 0;
	want = (uint64_t)((double)total * pct / 100.0 + 0.5);
	if (want < 1)
		want = 1;
	for (int i = 0; i < REPLAY_LATENCY_BUCKETS; i++) {
		seen += h[i];
		if (seen >= want)
			return i ? 1ULL << i : 0;
	}
	return 1ULL << (REPLAY_LATENCY_BUCKETS - 1);
}
