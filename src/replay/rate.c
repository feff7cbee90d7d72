/*
 * rate: the caps on the rate of data operations (rate.h).
 *
 * What counts: the calls that move a file's data, by their class in the
 * syscall table (syscall_table.h, sys_data_dirs()).  Reads: read,
 * pread64, readv, preadv, preadv2, readahead, sendfile (its in file; its
 * out side is usually a socket), mmap_read and the AIO and io_uring
 * requests to read.  Writes: write, pwrite64, writev, pwritev, pwritev2,
 * mmap_write and the requests to write.  copy_file_range is a read and a
 * write.  An AIO or io_uring request counts as its iocb or sqe line queues
 * it, as the operation it completes as, so that a batch is submitted once
 * each of its requests had its turn; its completion line does not count
 * again.  An mmap_read or mmap_write line counts as one operation per page
 * it touches (each may fault on its own).  A request's bytes are its
 * count= (a page each for the mmap lines), what it asks for.  Everything
 * else (opens, stats, syncs, getdents, truncates and fallocate, which pass
 * no data, splice and tee through pipes, ...) is not capped, but waits in
 * its timeline behind a capped operation as it would behind a slow one.
 */
#include <string.h>

#include "rate.h"
#include "ioriot/syscalls.h"
#include "ioriot/uring.h"

#define COST_MAX 1000000000000000000ULL	/* 31 years: no overflow */
#define READ_BIT (1u << REPLAY_RATE_READ)
#define WRITE_BIT (1u << REPLAY_RATE_WRITE)

bool replay_rate_capped(const struct replay_rate *rate)
{
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++)
		if (rate->iops[c] > 0 || rate->mbps[c] > 0)
			return true;
	return false;
}

void rate_init(struct rate_limiter *l, const struct replay_rate *cap)
{
	memset(l, 0, sizeof(*l));
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		int from = cap->iops_shared ? REPLAY_RATE_READ : c;
		int bfrom = cap->mbps_shared ? REPLAY_RATE_READ : c;

		if (cap->iops[from] > 0) {
			l->ops[c] = &l->gate[from];
			l->ops[c]->ns_per_unit = 1e9 / cap->iops[from];
		}
		if (cap->mbps[bfrom] > 0) {
			l->bytes[c] = &l->gate[REPLAY_RATE_CLASSES + bfrom];
			l->bytes[c]->ns_per_unit = 1e3 / cap->mbps[bfrom];
		}
	}
}

unsigned rate_sys_classes(enum sys_id sys)
{
	unsigned dirs = sys_data_dirs(sys);

	return (dirs & SYS_DATA_READ ? READ_BIT : 0) |
	       (dirs & SYS_DATA_WRITE ? WRITE_BIT : 0);
}

/* The classes @op counts in, the operations it stands for (*@units) and
 * the bytes it asks for (*@bytes). */
static unsigned classes_of(const struct rlog_op *op, uint64_t *units,
			   uint64_t *bytes)
{
	uint64_t count = op->have & RL_COUNT && op->count > 0 ?
			 (uint64_t)op->count : 0;
	int64_t cmd = op->have & RL_CMD ? op->cmd : -1;
	enum sys_id sys = op->sys;

	*units = 1;
	*bytes = count;
	switch (sys_info(sys)->kind) {
	case SK_MAPPAGE:
		*units = count;
		*bytes = count * RLOG_PAGE_SIZE;
		break;
	case SK_IOCB:
		/* A request counts as what it completes as. */
		sys = sys_aio_completion(cmd);
		break;
	case SK_URING_SQE:
		sys = uring_completion_of(cmd);
		break;
	case SK_AIO_DATA: case SK_AIO_DONE: case SK_URING_DATA:
	case SK_URING_DONE:
		return 0;	/* counted at its iocb or sqe line */
	default:
		break;
	}
	return sys < SYS_COUNT ? rate_sys_classes(sys) : 0;
}

/* Claim @cost ns of gate @g at @now: when the turn starts.  The gate moves
 * on from its own next time, or from now if it was idle. */
static uint64_t gate_claim(struct rate_gate *g, uint64_t now, double units)
{
	double c = units * g->ns_per_unit + 0.5;
	uint64_t cost = c < (double)COST_MAX ? (uint64_t)c : COST_MAX;
	uint_fast64_t old = atomic_load_explicit(&g->next_ns,
						 memory_order_relaxed);
	uint64_t start;

	/* A tiny rate's turns saturate at the end of time: no wrap. */
	do {
		start = old > now ? old : now;
	} while (!atomic_compare_exchange_weak_explicit(&g->next_ns, &old,
							start + cost < start ?
							UINT64_MAX :
							start + cost,
							memory_order_relaxed,
							memory_order_relaxed));
	return start;
}

uint64_t rate_claim(struct rate_limiter *l, const struct rlog_op *op,
		    uint64_t now, struct rate_turn *turn)
{
	uint64_t units, bytes, due = now;
	unsigned mask = classes_of(op, &units, &bytes), counted = 0;

	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		uint64_t t;

		if (!(mask & (1u << c)) || (!l->ops[c] && !l->bytes[c]))
			continue;
		counted |= 1u << c;
		if (l->ops[c] && (t = gate_claim(l->ops[c], now,
						 (double)units)) > due)
			due = t;
		if (l->bytes[c] && (t = gate_claim(l->bytes[c], now,
						   (double)bytes)) > due)
			due = t;
	}
	turn->classes = counted;
	turn->units = units;
	return due;
}

void rate_count(struct replay_throttle_stats *t, const struct rate_turn *turn,
		uint64_t delay)
{
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		struct replay_throttle_stats *s = &t[c];

		if (!(turn->classes & (1u << c)))
			continue;
		s->ops += turn->units;
		s->delay[replay_hist_bucket(delay)] += turn->units;
		if (!delay)
			continue;
		s->throttled += turn->units;
		s->delay_ns += delay * turn->units;
		if (delay > s->delay_max_ns)
			s->delay_max_ns = delay;
	}
}

void rate_merge(struct replay_throttle_stats *to,
		const struct replay_throttle_stats *from)
{
	if (!from)
		return;
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		to[c].ops += from[c].ops;
		to[c].throttled += from[c].throttled;
		to[c].delay_ns += from[c].delay_ns;
		if (from[c].delay_max_ns > to[c].delay_max_ns)
			to[c].delay_max_ns = from[c].delay_max_ns;
		for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
			to[c].delay[i] += from[c].delay[i];
	}
}

void rate_finish(struct replay_throttle_stats *t)
{
	for (int c = 0; c < REPLAY_RATE_CLASSES; c++) {
		struct replay_throttle_stats *s = &t[c];
		uint64_t p50 = replay_hist_percentile(s->delay, 50);
		uint64_t p99 = replay_hist_percentile(s->delay, 99);

		s->delay_p50_ns = p50 < s->delay_max_ns ? p50 : s->delay_max_ns;
		s->delay_p99_ns = p99 < s->delay_max_ns ? p99 : s->delay_max_ns;
	}
}
