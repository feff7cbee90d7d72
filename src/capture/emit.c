/*
 * emit: the events of both capture backends in entry-time order, their
 * paths completed and filtered, written to the log (emit.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "ioriot/syscalls.h"

struct emitter *emitter_new(const struct path_filter *filter,
			    struct capture_summary *sum, struct outbuf *ob)
{
	struct emitter *em = calloc(1, sizeof(*em));

	if (!em)
		return NULL;
	if (resolver_init(&em->res, "/proc")) {
		free(em);
		return NULL;
	}
	if (u64map_init(&em->cpu_left) || u64map_init(&em->runq_left) ||
	    async_filter_init(&em->async)) {
		u64map_destroy(&em->cpu_left);
		u64map_destroy(&em->runq_left);
		resolver_destroy(&em->res);
		free(em);
		return NULL;
	}
	reorder_init(&em->order, EMIT_WINDOW_NS);
	em->filter = filter;
	em->sum = sum;
	em->ob = ob;
	return em;
}

/*
 * The path filters: the event's paths, or for an fd operation the paths of
 * its fds (before the event changes them; both of sendfile and
 * copy_file_range).  An event is kept if the filter selects one of them.
 * A link's content and an attribute's name are no paths: fgetxattr is an
 * fd operation.
 * An event with none (sockets, pipes, ...) is kept unless the filter has
 * includes.  The AIO and io_uring calls and records go by the files of
 * their requests (asyncfilter.h).  Process records, by-address operations
 * and page records are always kept (a page of a mapping of a filtered file
 * counts as a page of no replayed mapping in generate).
 */
/* Whether @ce names a path it touches (not only a link's content or an
 * attribute's name). */
static bool has_path(const struct cap_event *ce)
{
	return ((ce->have & CAP_PATH) && !sys_path_is_content(ce->sys, false)) ||
	       ((ce->have & CAP_PATH2) && !sys_path_is_content(ce->sys, true));
}

/* The filter's verdict on the file of the request record @ce: 1 kept, 0
 * left out, -1 none or not known. */
static int request_file(const struct emitter *em, const struct cap_event *ce)
{
	const char *p;

	if (!(ce->have & CAP_FD) || ce->fd < 0 ||
	    !(p = resolver_fd_path(&em->res, ce->pid, ce->fd)))
		return -1;
	return path_filter_keeps(em->filter, p, strlen(p));
}

static bool filtered_out(struct emitter *em, const struct cap_event *ce)
{
	const struct path_filter *f = em->filter;
	enum sys_kind kind = sys_info(ce->sys)->kind;
	const char *paths[2];
	size_t lens[2];
	int n = 0, err = 0;

	if (!f->ninclude && !f->nexclude)
		return false;
	if (async_filter_judges(kind)) {
		bool drop = async_filter_drop(&em->async, ce,
					      request_file(em, ce),
					      f->ninclude > 0, &err);
		if (err && !em->err)
			em->err = err;
		return drop;
	}
	if (kind >= SK_EXIT_GROUP || kind == SK_ADDR)
		return false;
	/* A link's content (symlink's p, readlink's P) is no path it
	 * touched. */
	if ((ce->have & CAP_PATH) && !sys_path_is_content(ce->sys, false)) {
		paths[n] = ce->path;
		lens[n++] = ce->path_len;
	}
	if ((ce->have & CAP_PATH2) && !sys_path_is_content(ce->sys, true)) {
		paths[n] = ce->path2;
		lens[n++] = ce->path2_len;
	}
	for (int i = 0; !has_path(ce) && i < 2; i++) {
		const char *p = NULL;
		if (ce->have & (i ? CAP_FD2 : CAP_FD))
			p = resolver_fd_path(&em->res, ce->pid, i ? ce->fd2 : ce->fd);
		if (p) {
			paths[n] = p;
			lens[n++] = strlen(p);
		}
	}
	if (n == 0)
		return f->ninclude > 0;
	for (int i = 0; i < n; i++)
		if (path_filter_keeps(f, paths[i], lens[i]))
			return false;
	return true;
}

/*
 * Write @ce and count it.  Once a write failed nothing more is written; on
 * a full disk the events from then on are lost to it (capture.h).
 */
static void write_event(struct emitter *em, const struct cap_event *ce)
{
	bool failed = em->ob->err != 0;

	if (!failed) {
		caplog_write_event(em->ob, ce);
		failed = em->ob->err != 0;
	}
	if (!failed)
		em->sum->events++;
	else if (capture_log_full(em->ob->err))
		em->sum->lost_disk_full++;
}

/*
 * C of an event counts from the end of its thread's previous event in the
 * log: the on-CPU time of the events between that the filters left out
 * (their C and X) goes into the next C written, and their number into its
 * K.  An event in the probe's chain without C (a thread's first) starts
 * the count anew; records outside it (no C, no X) leave it.  The map keeps
 * both in one word: the number in the top CARRY_COUNT_BITS, the ns plus 1
 * (0: no entry) below, each held at its largest (a thread filtered out for
 * hours between two kept events).  Returns 0 or -ENOMEM.
 */
#define CARRY_COUNT_BITS 20
#define CARRY_NS_MAX ((1ULL << (64 - CARRY_COUNT_BITS)) - 1)
#define CARRY_COUNT_MAX ((1ULL << CARRY_COUNT_BITS) - 1)
_Static_assert(sizeof(void *) == sizeof(uint64_t),
	       "cpu_carry() keeps 64 bits in a map value");

static int cpu_carry(struct emitter *em, struct cap_event *ce, bool dropped)
{
	uint64_t key = (uint64_t)ce->pid << 32 | ce->tid;
	uint64_t left, ns, count;

	if (!(ce->have & (CAP_CPU | CAP_CPU_CALL)))
		return 0;
	left = (uint64_t)(uintptr_t)(dropped || (ce->have & CAP_CPU) ?
				     u64map_get(&em->cpu_left, key) : NULL);
	ns = left ? (left & CARRY_NS_MAX) - 1 : 0;
	count = left >> (64 - CARRY_COUNT_BITS);
	if (dropped) {
		ns += ce->cpu_ns + ce->cpu_call_ns;
		if (ns >= CARRY_NS_MAX)
			ns = CARRY_NS_MAX - 1;
		if (count < CARRY_COUNT_MAX)
			count++;
		left = count << (64 - CARRY_COUNT_BITS) | (ns + 1);
		return u64map_put(&em->cpu_left, key, (void *)(uintptr_t)left);
	}
	if (left) {
		ce->cpu_ns += ns;
		ce->folded = count;
	}
	if (em->cpu_left.count)
		u64map_del(&em->cpu_left, key);
	return 0;
}

/*
 * R counts the same span as C: the wait for a CPU in the gaps of the
 * events the filters left out goes into the next R written (runq_left:
 * 1 + ns, held at its largest), and into the R of a wake record of the
 * thread in between.  Their calls' own waits are not counted: R is never
 * more than the gap's, only less.  Returns 0 or -ENOMEM.
 */
static int runq_carry(struct emitter *em, struct cap_event *ce, bool dropped)
{
	uint64_t key = (uint64_t)ce->pid << 32 | ce->tid;
	uint64_t left = 0, ns;

	if (!(ce->have & (CAP_CPU | CAP_CPU_CALL))) {
		/* A wake record's R counts from the woken thread's last event
		 * sent: the waits of those left out since are added to it,
		 * and stay for the thread's next event. */
		if (!dropped && (ce->have & CAP_RUNQ) && em->runq_left.count &&
		    (left = (uint64_t)(uintptr_t)u64map_get(&em->runq_left,
							    key)))
			ce->runq_ns = ce->runq_ns < UINT64_MAX - (left - 1) ?
				      ce->runq_ns + left - 1 : UINT64_MAX;
		return 0;
	}
	if (dropped || (ce->have & CAP_CPU))
		left = (uint64_t)(uintptr_t)u64map_get(&em->runq_left, key);
	ns = left ? left - 1 : 0;
	if (dropped) {
		if (!(ce->have & CAP_RUNQ))
			return 0;
		ns = ce->runq_ns < UINT64_MAX - 1 - ns ? ns + ce->runq_ns
						       : UINT64_MAX - 1;
		return u64map_put(&em->runq_left, key,
				  (void *)(uintptr_t)(ns + 1));
	}
	if (left) {
		ce->runq_ns = ce->runq_ns < UINT64_MAX - ns ? ce->runq_ns + ns
							    : UINT64_MAX;
		ce->have |= CAP_RUNQ;
	}
	if (em->runq_left.count)
		u64map_del(&em->runq_left, key);
	return 0;
}

/*
 * One event, in entry-time order: completed by the resolver, filtered,
 * written.  fd operations are filtered before the resolver forgets a
 * closed fd's path, path operations after it made their paths absolute.
 */
static void emit_event(void *ctx, struct cap_event *ce)
{
	struct emitter *em = ctx;
	bool by_path = has_path(ce);
	bool drop = !by_path && filtered_out(em, ce);
	int err = resolver_apply(&em->res, ce, em->abs1, em->abs2);

	if (err && !em->err)
		em->err = err;
	if (by_path)
		drop = filtered_out(em, ce);
	err = cpu_carry(em, ce, drop);
	if (!err)
		err = runq_carry(em, ce, drop);
	if (err && !em->err)
		em->err = err;
	if (drop) {
		em->sum->excluded++;
		return;
	}
	write_event(em, ce);
}

int emitter_push(struct emitter *em, struct cap_event *ce)
{
	int err = reorder_push(&em->order, ce);

	if (err && !em->err)
		em->err = err;
	return err;
}

void emitter_release(struct emitter *em, uint64_t now)
{
	reorder_release(&em->order, now, emit_event, em);
}

void emitter_free(struct emitter *em)
{
	if (!em)
		return;
	resolver_destroy(&em->res);
	reorder_destroy(&em->order);
	u64map_destroy(&em->cpu_left);
	u64map_destroy(&em->runq_left);
	async_filter_destroy(&em->async);
	free(em);
}
