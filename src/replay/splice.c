/*
 * splice: the replay of splice (fileops.h).  A splice has a pipe on at
 * least one side; the capture's pipes are no files and the replay has no
 * copy of them, so each replay thread has a pipe of its own in their
 * place.  Before a splice from that pipe into a file the replay puts in
 * the bytes the capture moved (generated data); after a splice from a
 * file into it, it empties the pipe.  Both with vmsplice, which the
 * capture does not record, so a capture of the replay shows the splices
 * alone.  The pipe side never blocks (SPLICE_F_NONBLOCK): nothing else
 * reads or writes it.  tee, which the generator never writes (it takes
 * two pipes), gives what the kernel answers for a file side: EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fileops.h"

#define PIPE_BYTES (1 << 20)	/* asked for: the default pipe-max-size */
#define DRAIN_BUF 65536

static pthread_key_t pipe_key;
static pthread_once_t pipe_once = PTHREAD_ONCE_INIT;
static int pipe_key_err;
static __thread int pipe_fds[2] = { -1, -1 };
static __thread size_t pipe_cap;

/* The thread's pipe goes with the thread. */
static void pipe_close(void *arg)
{
	int *fds = arg;

	close(fds[0]);
	close(fds[1]);
	fds[0] = fds[1] = -1;
}

static void pipe_key_make(void)
{
	pipe_key_err = pthread_key_create(&pipe_key, pipe_close);
}

/* This thread's pipe, made on first use; false (errno set) if it cannot
 * be. */
static bool own_pipe(void)
{
	int size;

	if (pipe_fds[0] >= 0)
		return true;
	if (pthread_once(&pipe_once, pipe_key_make) || pipe_key_err) {
		errno = ENOMEM;
		return false;
	}
	if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	if (pthread_setspecific(pipe_key, pipe_fds)) {
		pipe_close(pipe_fds);
		errno = ENOMEM;
		return false;
	}
	/* As large as allowed; the default (64 KiB) where it is not. */
	fcntl(pipe_fds[1], F_SETPIPE_SZ, PIPE_BYTES);
	size = fcntl(pipe_fds[1], F_GETPIPE_SZ);
	pipe_cap = size > 0 ? (size_t)size : 65536;
	return true;
}

/* Empty this thread's pipe. */
static void drain(void)
{
	static __thread char buf[DRAIN_BUF];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };

	while (vmsplice(pipe_fds[0], &iov, 1, SPLICE_F_NONBLOCK) > 0)
		;
}

/* Put @len bytes of @data into this thread's (empty) pipe: as many as
 * fit. */
static void fill(const char *data, size_t len)
{
	size_t done = 0;

	if (len > pipe_cap)
		len = pipe_cap;
	while (done < len) {
		struct iovec iov = { .iov_base = (void *)(data + done),
				     .iov_len = len - done };
		ssize_t n = vmsplice(pipe_fds[1], &iov, 1, SPLICE_F_NONBLOCK);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
}

int64_t splice_call(const struct rlog_op *op, int fd, int fd2,
		    const char *data, size_t data_len)
{
	loff_t off = op->offset, off2 = op->offset2;
	size_t count = op->have & RL_COUNT && op->count > 0 ?
		       (size_t)op->count : 0;
	unsigned flags = (unsigned)(op->have & RL_FLAGS ? op->flags : 0);
	bool own_in = fd < 0, own_out = fd2 < 0;
	ssize_t r;

	if (op->sys == SYS_TEE)
		return -EINVAL;
	if (own_in && own_out)
		return -EBADF;
	if ((own_in || own_out) && !own_pipe())
		return -errno;
	if (own_in) {
		/* What the captured pipe held: the bytes it moved. */
		size_t want = op->ret > 0 ? (size_t)op->ret : 0;
		fill(data, want < data_len ? want : data_len);
		fd = pipe_fds[0];
		flags |= SPLICE_F_NONBLOCK;
	}
	if (own_out) {
		fd2 = pipe_fds[1];
		flags |= SPLICE_F_NONBLOCK;
	}
	r = splice(fd, !own_in && (op->have & RL_OFFSET) ? &off : NULL,
		   fd2, !own_out && (op->have & RL_OFFSET2) ? &off2 : NULL,
		   count, flags);
	if (r < 0)
		r = -errno;
	if (own_in || own_out)
		drain();
	return r;
}
