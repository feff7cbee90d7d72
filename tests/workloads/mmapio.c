/*
 * mmapio: a capture and round-trip workload (tests/test_capture.c,
 * tests/test_roundtrip.c) of file I/O through memory mappings.
 *
 * Usage: mmapio DIR.  It first writes DIR/pre.dat (MMAPIO_PAGES pages),
 * fsyncs it and drops it from the page cache (POSIX_FADV_DONTNEED: each
 * read fault reads its page alone, so the same pages fault in a replay,
 * which does the same), and maps its page MMAPIO_EARLY_PAGE alone,
 * PROT_READ, MAP_SHARED; then
 * it reads a byte from stdin (a test lets it go once the capture runs;
 * EOF goes too).  Then, with the constants of mmapio.h:
 *  - read one byte of that early mapping, munmap it;
 *  - open pre.dat read-write; mmap all of it PROT_READ|PROT_WRITE,
 *    MAP_SHARED; madvise MADV_RANDOM;
 *  - read one byte of each page of MMAPIO_READS, write one byte of each
 *    page of MMAPIO_WRITES;
 *  - msync MS_SYNC of the whole mapping (the written pages go to the disk
 *    and are write-protected again), then write page MMAPIO_REWRITE again;
 *  - munmap;
 *  - mmap page MMAPIO_PRIV_PAGE alone PROT_READ|PROT_WRITE, MAP_PRIVATE,
 *    write one byte of it (a private copy: the file is only read); munmap;
 *  - close.
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmapio.h"

static void fail(const char *what, int line)
{
	fprintf(stderr, "mmapio:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

int main(int argc, char **argv)
{
	static const int reads[] = MMAPIO_READS, writes[] = MMAPIO_WRITES;
	const size_t len = (size_t)MMAPIO_PAGES * MMAPIO_PAGE;
	volatile char *m, *early;
	char *buf, go;
	int dirfd, fd;
	unsigned sum = 0;

	CHECK(argc == 2);
	CHECK((dirfd = open(argv[1], O_PATH | O_DIRECTORY)) >= 0);
	CHECK((fd = openat(dirfd, "pre.dat", O_CREAT | O_RDWR | O_TRUNC,
			   0644)) >= 0);
	CHECK((buf = malloc(len)) != NULL);
	memset(buf, 'p', len);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	CHECK(fsync(fd) == 0);
	CHECK(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
	early = mmap(NULL, MMAPIO_PAGE, PROT_READ, MAP_SHARED, fd,
		     (off_t)MMAPIO_EARLY_PAGE * MMAPIO_PAGE);
	CHECK(early != MAP_FAILED);
	CHECK(close(fd) == 0);
	CHECK(read(0, &go, 1) >= 0);

	sum += (unsigned char)early[0];
	CHECK(munmap((void *)early, MMAPIO_PAGE) == 0);

	CHECK((fd = openat(dirfd, "pre.dat", O_RDWR)) >= 0);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	CHECK(madvise((void *)m, len, MADV_RANDOM) == 0);
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		sum += (unsigned char)m[(size_t)reads[i] * MMAPIO_PAGE];
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		m[(size_t)writes[i] * MMAPIO_PAGE] = 'w';
	CHECK(msync((void *)m, len, MS_SYNC) == 0);
	m[(size_t)MMAPIO_REWRITE * MMAPIO_PAGE] = 'r';
	CHECK(munmap((void *)m, len) == 0);

	m = mmap(NULL, MMAPIO_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 (off_t)MMAPIO_PRIV_PAGE * MMAPIO_PAGE);
	CHECK(m != MAP_FAILED);
	m[0] = 'c';
	CHECK(munmap((void *)m, MMAPIO_PAGE) == 0);
	CHECK(close(fd) == 0);
	CHECK(close(dirfd) == 0);
	free(buf);
	CHECK(sum == 4 * 'p');
	return 0;
}
