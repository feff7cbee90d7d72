/*
 * aio: a capture and round-trip workload (tests/test_capture.c,
 * tests/test_roundtrip.c) of Linux native AIO through the raw syscalls,
 * with O_DIRECT, as databases and fio's libaio engine do it.
 *
 * Usage: aio DIR.  It first reads a byte from stdin (a test lets it go
 * once the capture runs; EOF goes too).  Then in DIR/aio.dat (created,
 * O_DIRECT):
 *  - io_setup(AIO_DEPTH);
 *  - one io_submit of 4 PWRITEs of 4096 bytes at 0, 4096, 8192, 12288;
 *    io_getevents(min 4, nr 8) reaps them;
 *  - one io_submit of a PREAD of 4096 at 0, a PREAD of 8192 at 4096, a
 *    PWRITEV of two 4096-byte iovecs at 32768, and an FDSYNC;
 *    io_getevents(min 4, nr 8) reaps them;
 *  - io_destroy, close.
 * Every call and every completion's result is checked: on failure it
 * prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "aio.h"

static void fail(const char *what, int line)
{
	fprintf(stderr, "aio:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

static void prep(struct iocb *cb, int fd, unsigned op, void *buf,
		 uint64_t len, int64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = (uint32_t)fd;
	cb->aio_lio_opcode = (uint16_t)op;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = (uint64_t)(uintptr_t)cb;
}

/* Submit @n iocbs in one call, reap them in one io_getevents (min @n),
 * each with its expected result. */
static void batch(aio_context_t ctx, struct iocb *cbs, const int64_t *want,
		  int n)
{
	struct iocb *list[AIO_BATCH_MAX];
	struct io_event ev[2 * AIO_BATCH_MAX];

	for (int i = 0; i < n; i++)
		list[i] = &cbs[i];
	CHECK(syscall(SYS_io_submit, ctx, (long)n, list) == n);
	CHECK(syscall(SYS_io_getevents, ctx, (long)n, (long)(2 * AIO_BATCH_MAX),
		      ev, NULL) == n);
	for (int i = 0; i < n; i++) {
		struct iocb *cb = (struct iocb *)(uintptr_t)ev[i].obj;
		int k = (int)(cb - cbs);

		CHECK(k >= 0 && k < n && ev[i].res == want[k]);
	}
}

int main(int argc, char **argv)
{
	struct iocb cbs[AIO_BATCH_MAX];
	aio_context_t ctx = 0;
	struct iovec iov[2];
	char *buf, go;
	int dirfd, fd;

	CHECK(argc == 2);
	CHECK(read(0, &go, 1) >= 0);
	CHECK((dirfd = open(argv[1], O_PATH | O_DIRECTORY)) >= 0);
	CHECK((fd = openat(dirfd, "aio.dat", O_CREAT | O_RDWR | O_TRUNC |
			   O_DIRECT, 0644)) >= 0);
	CHECK(posix_memalign((void **)&buf, 4096, 8 * 4096) == 0);
	memset(buf, 'a', 8 * 4096);
	CHECK(syscall(SYS_io_setup, AIO_DEPTH, &ctx) == 0);

	static const int64_t want1[] = { 4096, 4096, 4096, 4096 };
	for (int i = 0; i < 4; i++)
		prep(&cbs[i], fd, IOCB_CMD_PWRITE, buf + i * 4096, 4096,
		     i * 4096);
	batch(ctx, cbs, want1, 4);

	static const int64_t want2[] = { 4096, 8192, 8192, 0 };
	prep(&cbs[0], fd, IOCB_CMD_PREAD, buf, 4096, 0);
	prep(&cbs[1], fd, IOCB_CMD_PREAD, buf + 4096, 8192, 4096);
	iov[0].iov_base = buf + 3 * 4096;
	iov[0].iov_len = 4096;
	iov[1].iov_base = buf + 4 * 4096;
	iov[1].iov_len = 4096;
	prep(&cbs[2], fd, IOCB_CMD_PWRITEV, iov, 2, AIO_VEC_OFF);
	prep(&cbs[3], fd, IOCB_CMD_FDSYNC, NULL, 0, 0);
	batch(ctx, cbs, want2, 4);

	CHECK(syscall(SYS_io_destroy, ctx) == 0);
	CHECK(close(fd) == 0);
	CHECK(close(dirfd) == 0);
	free(buf);
	return 0;
}
