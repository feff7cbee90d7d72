/*
 * vfds: the replay's table of vfds (the replay file's virtual fds) to the
 * real fds it opened, split into EXEC_VFD_SHARDS shards by vfd number, each
 * under a spin lock held for one hash table operation, so that timelines
 * working on different files never wait for each other.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dioalign.h"
#include "exec.h"
#include "vfds.h"

#define SHARD_SPINS 64		/* looks at a busy vfd shard per yield */

/*
 * A vfd's entry in its shard's map: its real fd + 1, and VFD_NONBLOCK if
 * the replay added O_NONBLOCK to the open (see the top of the file) and
 * has not yet checked what the fd is.
 */
#define VFD_NONBLOCK (1ULL << 32)

static void *vfd_entry(int fd, bool nonblock_added)
{
	return (void *)(((uintptr_t)fd + 1) | (nonblock_added ? VFD_NONBLOCK : 0));
}

/* The real fd of map entry @v (non-NULL). */
int vfd_entry_fd(const void *v)
{
	return (int)(((uintptr_t)v & 0xffffffffu) - 1);
}

/* Close every real fd of vfd table @t and free it.  Accepts NULL. */
void vfd_table_free(struct exec_vfd_shard *t)
{
	struct u64map_slot *s;

	if (!t)
		return;
	for (int i = 0; i < EXEC_VFD_SHARDS; i++) {
		size_t pos = 0;

		if (t[i].map.slots)
			while ((s = u64map_next(&t[i].map, &pos)))
				close(vfd_entry_fd(s->value));
		u64map_destroy(&t[i].map);
	}
	free(t);
}

/* An empty vfd table of EXEC_VFD_SHARDS shards, or NULL. */
struct exec_vfd_shard *vfd_table_new(void)
{
	size_t size = EXEC_VFD_SHARDS * sizeof(struct exec_vfd_shard);
	struct exec_vfd_shard *t = aligned_alloc(_Alignof(struct exec_vfd_shard),
						 size);

	if (!t)
		return NULL;
	memset(t, 0, size);
	for (int i = 0; i < EXEC_VFD_SHARDS; i++) {
		if (u64map_init(&t[i].map)) {
			vfd_table_free(t);
			return NULL;
		}
	}
	return t;
}

static struct exec_vfd_shard *shard_of(struct exec_ctx *x, uint64_t vfd)
{
	return &x->vfds[vfd % EXEC_VFD_SHARDS];
}

/* Take shard @sh.  It is held for one hash table operation, much shorter
 * than a mutex's own two atomic operations and calls, so a waiter spins;
 * it yields now and then in case the holder was preempted. */
static void shard_lock(struct exec_vfd_shard *sh)
{
	unsigned spins = 0;

	while (atomic_exchange_explicit(&sh->busy, 1, memory_order_acquire))
		while (atomic_load_explicit(&sh->busy, memory_order_relaxed))
			if (++spins % SHARD_SPINS == 0)
				sched_yield();
}

static void shard_unlock(struct exec_vfd_shard *sh)
{
	atomic_store_explicit(&sh->busy, 0, memory_order_release);
}

/* The real fd of vfd @vfd, or -1. */
int vfd_get(struct exec_ctx *x, uint64_t vfd)
{
	struct exec_vfd_shard *sh = shard_of(x, vfd);
	void *v;

	shard_lock(sh);
	v = u64map_get(&sh->map, vfd);
	shard_unlock(sh);
	return v ? vfd_entry_fd(v) : -1;
}

/*
 * Whether @fd is a regular file or a directory, asked with the replay's
 * own statx flags (dioalign.h), which a capture of the replay tells apart
 * from the replayed calls.
 */
bool fd_is_file_or_dir(int fd)
{
	struct statx stx;

	return statx(fd, "", DIOALIGN_STATX_FLAGS, STATX_TYPE, &stx) == 0 &&
	       (S_ISREG(stx.stx_mode) || S_ISDIR(stx.stx_mode));
}

/*
 * The real fd of vfd @vfd, or -1, for io_uring: a regular file or a
 * directory to which the replay added O_NONBLOCK loses it here, once.  On
 * a file with O_NONBLOCK the kernel completes an io_uring read or write
 * that would wait (for the disk, for blocks) with EAGAIN instead of
 * waiting, which the captured program's, opened without it, never got.
 */
int vfd_get_blocking(struct exec_ctx *x, uint64_t vfd)
{
	struct exec_vfd_shard *sh = shard_of(x, vfd);
	bool check;
	void *v;
	int fd, off = 0;

	shard_lock(sh);
	v = u64map_get(&sh->map, vfd);
	check = v && ((uintptr_t)v & VFD_NONBLOCK);
	/* Without memory to grow the map the mark stays: checked again. */
	if (check)
		(void)u64map_put(&sh->map, vfd, vfd_entry(vfd_entry_fd(v), false));
	shard_unlock(sh);
	if (!v)
		return -1;
	fd = vfd_entry_fd(v);
	if (check && fd_is_file_or_dir(fd))
		ioctl(fd, FIONBIO, &off);
	return fd;
}

/* Forget @vfd; its map entry, or NULL if it had none. */
void *vfd_del(struct exec_ctx *x, uint64_t vfd)
{
	struct exec_vfd_shard *sh = shard_of(x, vfd);
	void *v;

	shard_lock(sh);
	v = u64map_del(&sh->map, vfd);
	shard_unlock(sh);
	return v;
}

/* Map @vfd to @fd (opened with O_NONBLOCK the replay added, if
 * @nonblock_added), closing a real fd it had.  Returns 0 or -ENOMEM. */
int vfd_put(struct exec_ctx *x, uint64_t vfd, int fd, bool nonblock_added)
{
	struct exec_vfd_shard *sh = shard_of(x, vfd);
	void *old;
	int rc;

	shard_lock(sh);
	old = u64map_get(&sh->map, vfd);
	rc = u64map_put(&sh->map, vfd, vfd_entry(fd, nonblock_added));
	shard_unlock(sh);
	if (rc) {
		close(fd);
		return rc;
	}
	if (old)
		close(vfd_entry_fd(old));
	return 0;
}
