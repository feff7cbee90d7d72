/*
 * waitword: futex(2) wait and wake on a 32-bit atomic word.  The word must
 * be process-private; FUTEX_PRIVATE_FLAG skips the shared-mapping look-up.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/waitword.h"

void waitword_wait(atomic_uint *w, unsigned val, uint64_t timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ULL),
		.tv_nsec = (long)(timeout_ns % 1000000000ULL),
	};

	/* EAGAIN (the word changed), EINTR and ETIMEDOUT all mean: look
	 * again; the caller's loop does. */
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

void waitword_wake_all(atomic_uint *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
