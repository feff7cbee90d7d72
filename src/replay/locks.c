/*
 * locks: the replay of file locks (fileops.h): the captured fcntl lock
 * command or flock on the same range, with the captured type.
 *
 * The replay is one process, so POSIX record locks (F_SETLK, F_SETLKW,
 * F_GETLK) of different captured processes never conflict in it; OFD
 * locks (F_OFD_*) and flock locks belong to open file descriptions, the
 * vfds, and conflict as they did.  A blocking call never blocks in the
 * kernel here: the generator orders lock calls as the capture took them
 * (src/generate/events_lock.c), but where another timeline cannot release
 * the lock in time (it waits for an operation behind this one, or shares
 * this thread), a wait in the kernel would stop the replay for good.  So
 * it is tried without blocking, again and again with a growing pause,
 * for at most twice its captured duration plus a second, or until the
 * replay stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

#include "fileops.h"
#include "ioriot/clock.h"

#define WAIT_MIN_NS (1000ULL * 1000 * 1000)	/* a blocking call waits */
#define PAUSE_FIRST_NS 20000ULL			/* between tries */
#define PAUSE_MAX_NS (10ULL * 1000 * 1000)
#define CAPTURED_MAX_NS (3600ULL * 1000 * 1000 * 1000)	/* of a hand-edited
							 * duration, used */

/* One try of @op without blocking: 0, or -errno. */
static int try_lock(const struct rlog_op *op, int fd, int cmd,
		    struct flock *fl)
{
	int r;

	if (op->sys == SYS_FLOCK)
		r = flock(fd, (int)op->flags | LOCK_NB);
	else
		r = fcntl(fd, cmd, fl);
	return r < 0 ? -errno : r;
}

/* Try @cmd until it takes the lock, fails for another reason than a
 * conflict, the wait for @op is over (-ETIMEDOUT), or the replay stops
 * (-EINTR). */
static int64_t wait_lock(const struct rlog_op *op, int fd, int cmd,
			 struct flock *fl, const struct replay_stop *stop)
{
	uint64_t dur = op->dur_ns < CAPTURED_MAX_NS ? op->dur_ns :
		       CAPTURED_MAX_NS;
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + 2 * dur + WAIT_MIN_NS;
	uint64_t pause = PAUSE_FIRST_NS;

	for (;;) {
		int r = try_lock(op, fd, cmd, fl);

		if (r != -EAGAIN && r != -EACCES && r != -EINTR)
			return r;
		if (clock_ns(CLOCK_MONOTONIC) >= deadline)
			return -ETIMEDOUT;
		if (replay_stopping(stop))
			return -EINTR;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)pause };
		nanosleep(&ts, NULL);
		if (pause < PAUSE_MAX_NS)
			pause *= 2;
	}
}

int64_t lock_call(const struct rlog_op *op, int fd,
		  const struct replay_stop *stop)
{
	struct flock fl = {
		.l_type = (short)op->arg,
		.l_whence = (short)op->whence,
		.l_start = op->offset,
		.l_len = op->count,
	};
	int cmd = (int)op->cmd;

	if (op->sys == SYS_FLOCK) {
		if (!(op->have & RL_FLAGS))
			return -EINVAL;
		if (op->flags & (LOCK_NB | LOCK_UN))
			return flock(fd, (int)op->flags) < 0 ? -errno : 0;
		return wait_lock(op, fd, 0, NULL, stop);
	}
	if ((op->have & (RL_ARG | RL_WHENCE | RL_OFFSET | RL_COUNT)) !=
	    (RL_ARG | RL_WHENCE | RL_OFFSET | RL_COUNT))
		return -EINVAL;
	/* An unlock never waits: the captured command itself. */
	switch (cmd) {
	case F_SETLKW:
		return fl.l_type == F_UNLCK ? try_lock(op, fd, cmd, &fl) :
		       wait_lock(op, fd, F_SETLK, &fl, stop);
	case F_OFD_SETLKW:
		return fl.l_type == F_UNLCK ? try_lock(op, fd, cmd, &fl) :
		       wait_lock(op, fd, F_OFD_SETLK, &fl, stop);
	case F_GETLK: case F_SETLK: case F_OFD_GETLK: case F_OFD_SETLK:
		return try_lock(op, fd, cmd, &fl);
	default:
		return -EINVAL;
	}
}
