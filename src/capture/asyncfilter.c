/*
 * asyncfilter: the path filters for Linux AIO and io_uring (asyncfilter.h).
 */
#include <errno.h>
#include <stdint.h>

#include "asyncfilter.h"
#include "ioriot/syscalls.h"
#include "ioriot/uring.h"

#define IN_USE ((void *)1)

int async_filter_init(struct async_filter *af)
{
	if (u64map_init(&af->rings) || u64map_init(&af->contexts) ||
	    u64map_init(&af->batch)) {
		async_filter_destroy(af);
		return -ENOMEM;
	}
	return 0;
}

void async_filter_destroy(struct async_filter *af)
{
	u64map_destroy(&af->rings);
	u64map_destroy(&af->contexts);
	u64map_destroy(&af->batch);
}

bool async_filter_judges(enum sys_kind kind)
{
	switch (kind) {
	case SK_AIO_SETUP: case SK_AIO_DESTROY: case SK_AIO_SUBMIT:
	case SK_AIO_CANCEL: case SK_AIO_GETEVENTS: case SK_URING_SETUP:
	case SK_URING_ENTER: case SK_URING_REGISTER: case SK_IOCB:
	case SK_IO_EVENT: case SK_URING_SQE: case SK_URING_CQE:
	case SK_URING_FILE: case SK_URING_BUF:
		return true;
	default:
		return false;
	}
}

/* The key of AIO context @ctx of process @pid: context ids are addresses,
 * so both are mixed (splitmix64's finaliser); a collision would only keep
 * a context's calls that could have been left out. */
static uint64_t context_key(uint32_t pid, uint64_t ctx)
{
	uint64_t x = ctx ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The map and key of @ce's context or ring (its @ring_fd, or its context
 * id); false if it names none. */
static bool queue_of(struct async_filter *af, const struct cap_event *ce,
		     bool aio, bool ring_in_fd2, struct u64map **map,
		     uint64_t *key)
{
	if (aio) {
		if (!(ce->have & CAP_ADDR))
			return false;
		*map = &af->contexts;
		*key = context_key(ce->pid, ce->addr);
		return true;
	}
	if (!(ce->have & (ring_in_fd2 ? CAP_FD2 : CAP_FD)))
		return false;
	*map = &af->rings;
	*key = (uint64_t)ce->pid << 32 |
	       (uint32_t)(ring_in_fd2 ? ce->fd2 : ce->fd);
	return true;
}

/* Note a request record of @ce's thread, kept or not. */
static int batch_note(struct async_filter *af, const struct cap_event *ce,
		      bool kept)
{
	uint64_t key = (uint64_t)ce->pid << 32 | ce->tid;
	uint64_t v = (uint64_t)(uintptr_t)u64map_get(&af->batch, key);
	uint64_t counts = v ? v - 1 : 0;

	if ((uint32_t)counts < UINT32_MAX)
		counts++;
	if (kept && (counts >> 32) < UINT32_MAX)
		counts += 1ULL << 32;
	return u64map_put(&af->batch, key, (void *)(uintptr_t)(counts + 1));
}

/* Take the counts of the request records before @ce, the call. */
static void batch_take(struct async_filter *af, const struct cap_event *ce,
		       uint32_t *kept, uint32_t *seen)
{
	uint64_t v = (uint64_t)(uintptr_t)u64map_del(&af->batch,
		(uint64_t)ce->pid << 32 | ce->tid);
	uint64_t counts = v ? v - 1 : 0;

	*kept = (uint32_t)(counts >> 32);
	*seen = (uint32_t)counts;
}

bool async_filter_drop(struct async_filter *af, const struct cap_event *ce,
		       int file, bool includes, int *err)
{
	enum sys_kind kind = sys_info(ce->sys)->kind;
	bool aio = (kind >= SK_AIO_SETUP && kind <= SK_AIO_GETEVENTS) ||
		   kind == SK_IOCB || kind == SK_IO_EVENT;
	bool ring_in_fd2 = kind == SK_URING_SQE || kind == SK_URING_CQE ||
			   kind == SK_URING_FILE;
	struct u64map *map = NULL;
	uint64_t key = 0;
	bool known = queue_of(af, ce, aio, ring_in_fd2, &map, &key);
	bool in_use = known && u64map_get(map, key);
	uint32_t kept, seen;
	bool keep;
	int rc = 0;

	switch (kind) {
	case SK_IOCB:
	case SK_URING_SQE:
		/* A fixed file's request: its ring's files decide. */
		if (kind == SK_URING_SQE && (ce->have & CAP_ARG) &&
		    (ce->arg & URING_SQE_FIXED_FILE))
			file = -1;
		keep = file == 1 || (file == -1 && (in_use || !includes));
		if (file == 1 && known && !in_use)
			rc = u64map_put(map, key, IN_USE);
		if (!rc)
			rc = batch_note(af, ce, keep);
		break;
	case SK_URING_FILE:
		if (file == 1 && known && !in_use)
			rc = u64map_put(map, key, IN_USE);
		keep = true;
		break;
	case SK_AIO_SUBMIT:
	case SK_URING_ENTER:
		batch_take(af, ce, &kept, &seen);
		keep = kept > 0 || (kind == SK_URING_ENTER && in_use) ||
		       (!seen && (in_use || (!known && !includes)));
		break;
	case SK_AIO_GETEVENTS: case SK_AIO_CANCEL: case SK_IO_EVENT:
	case SK_URING_CQE:
		keep = in_use || (!known && !includes);
		break;
	case SK_AIO_DESTROY:
		keep = in_use || (!known && !includes);
		if (in_use)
			u64map_del(map, key);
		break;
	default:	/* setting up and registering */
		keep = true;
		break;
	}
	if (rc) {
		*err = rc;
		return false;
	}
	return !keep;
}
