/*
 * uring: a capture and round-trip workload (tests/test_capture.c,
 * tests/test_roundtrip.c) of io_uring through liburing, as fio's io_uring
 * engine and databases use it: fixed files and buffers, linked requests,
 * one io_uring_enter per batch.
 *
 * Usage: uring DIR.  It first reads a byte from stdin (a test lets it go
 * once the capture runs; EOF goes too).  Then in DIR/uring.dat (created,
 * buffered):
 *  - a ring of URING_DEPTH entries (io_uring_queue_init, no flags);
 *  - io_uring_register of the file as fixed file 0 (REGISTER_FILES), and of
 *    URING_NBUFS buffers of URING_BUF bytes (REGISTER_BUFFERS);
 *  - one io_uring_submit_and_wait of 4 requests: a WRITE of 4096 at 0, a
 *    WRITEV of two 4096-byte iovecs at URING_VEC_OFF linked
 *    (IOSQE_IO_LINK) to an FSYNC (IORING_FSYNC_DATASYNC), and a
 *    WRITE_FIXED of buffer 0 on fixed file 0 at URING_FIXED_OFF;
 *  - one io_uring_submit_and_wait of 5 requests: a READ of 4096 at 0, a
 *    READV of 8192 at URING_VEC_OFF, a READ_FIXED into buffer 1 of fixed
 *    file 0 at URING_FIXED_OFF, a NOP, and a TIMEOUT of 1 ms (not file
 *    I/O: it completes with -ETIME);
 *  - io_uring_queue_exit;
 *  - a second ring with IORING_SETUP_SQPOLL (its kernel thread submits):
 *    a WRITE of 4096 at URING_SQPOLL_OFF, then a READ of it, each
 *    submitted and waited for on its own;
 *  - io_uring_queue_exit, close.
 * Every completion is reaped by user_data (its request's index) and its
 * result checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "uring.h"

static void fail(const char *what, int line, int err)
{
	fprintf(stderr, "uring:%d: %s: %s\n", line, what,
		strerror(err ? err : errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__, 0); } while (0)
#define CHECK_RC(x) do { int rc_ = (x); if (rc_ < 0) fail(#x, __LINE__, -rc_); } while (0)

/* A submission entry, tagged with @tag. */
static struct io_uring_sqe *sqe_of(struct io_uring *ring, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	CHECK(sqe);
	io_uring_sqe_set_data64(sqe, tag);
	return sqe;
}

/* Submit what was prepared in one call, wait for all @n, and check each
 * completion against @want (by tag). */
static void batch(struct io_uring *ring, const int *want, int n)
{
	struct io_uring_cqe *cqe;
	int seen = 0;

	CHECK(io_uring_submit_and_wait(ring, (unsigned)n) == n);
	while (seen < n) {
		CHECK_RC(io_uring_wait_cqe(ring, &cqe));
		uint64_t tag = io_uring_cqe_get_data64(cqe);

		CHECK(tag < (uint64_t)n && cqe->res == want[tag]);
		io_uring_cqe_seen(ring, cqe);
		seen++;
	}
}

/* Submit the one request prepared on SQPOLL ring @ring and check its
 * completion against @want.  The ring's kernel thread may take the entry
 * before liburing reads the ring's head back, and then io_uring_submit
 * counts 0 entries still pending: both 0 and 1 are a submission. */
static void one(struct io_uring *ring, int want)
{
	struct io_uring_cqe *cqe;
	int pending = io_uring_submit(ring);

	CHECK(pending == 0 || pending == 1);
	CHECK_RC(io_uring_wait_cqe(ring, &cqe));
	CHECK(cqe->res == want);
	io_uring_cqe_seen(ring, cqe);
}

int main(int argc, char **argv)
{
	struct __kernel_timespec ts = { .tv_nsec = 1000000 };
	struct iovec bufs[URING_NBUFS], iov[2];
	struct io_uring ring;
	char *buf, go;
	int dirfd, fd;

	CHECK(argc == 2);
	CHECK(read(0, &go, 1) >= 0);
	CHECK((dirfd = open(argv[1], O_PATH | O_DIRECTORY)) >= 0);
	CHECK((fd = openat(dirfd, "uring.dat", O_CREAT | O_RDWR | O_TRUNC,
			   0644)) >= 0);
	CHECK(posix_memalign((void **)&buf, 4096, 8 * 4096) == 0);
	memset(buf, 'u', 8 * 4096);
	CHECK_RC(io_uring_queue_init(URING_DEPTH, &ring, 0));
	CHECK_RC(io_uring_register_files(&ring, &fd, 1));
	for (int i = 0; i < URING_NBUFS; i++) {
		bufs[i].iov_base = buf + (6 + i) * 4096;
		bufs[i].iov_len = URING_BUF;
	}
	CHECK_RC(io_uring_register_buffers(&ring, bufs, URING_NBUFS));

	static const int want1[] = { 4096, 8192, 0, URING_BUF };
	struct io_uring_sqe *sqe = sqe_of(&ring, 0);
	io_uring_prep_write(sqe, fd, buf, 4096, 0);
	iov[0].iov_base = buf + 4096;
	iov[0].iov_len = 4096;
	iov[1].iov_base = buf + 2 * 4096;
	iov[1].iov_len = 4096;
	sqe = sqe_of(&ring, 1);
	io_uring_prep_writev(sqe, fd, iov, 2, URING_VEC_OFF);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = sqe_of(&ring, 2);
	io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
	sqe = sqe_of(&ring, 3);
	io_uring_prep_write_fixed(sqe, 0, bufs[0].iov_base, URING_BUF,
				  URING_FIXED_OFF, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	batch(&ring, want1, 4);

	static const int want2[] = { 4096, 8192, URING_BUF, 0, -ETIME };
	sqe = sqe_of(&ring, 0);
	io_uring_prep_read(sqe, fd, buf, 4096, 0);
	iov[0].iov_base = buf + 3 * 4096;
	iov[1].iov_base = buf + 4 * 4096;
	sqe = sqe_of(&ring, 1);
	io_uring_prep_readv(sqe, fd, iov, 2, URING_VEC_OFF);
	sqe = sqe_of(&ring, 2);
	io_uring_prep_read_fixed(sqe, 0, bufs[1].iov_base, URING_BUF,
				 URING_FIXED_OFF, 1);
	sqe->flags |= IOSQE_FIXED_FILE;
	sqe = sqe_of(&ring, 3);
	io_uring_prep_nop(sqe);
	sqe = sqe_of(&ring, 4);
	io_uring_prep_timeout(sqe, &ts, 0, 0);
	batch(&ring, want2, 5);
	io_uring_queue_exit(&ring);

	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL,
				     .sq_thread_idle = 100 };
	CHECK_RC(io_uring_queue_init_params(URING_DEPTH, &ring, &p));
	io_uring_prep_write(sqe_of(&ring, 0), fd, buf, 4096, URING_SQPOLL_OFF);
	one(&ring, 4096);
	io_uring_prep_read(sqe_of(&ring, 1), fd, buf + 4096, 4096,
			   URING_SQPOLL_OFF);
	one(&ring, 4096);
	io_uring_queue_exit(&ring);
	CHECK(close(fd) == 0);
	CHECK(close(dirfd) == 0);
	free(buf);
	return 0;
}
