/*
 * analyze: a capture workload for the analysis (tests/test_analyze.c), with
 * figures the test knows exactly.
 *
 * Usage: analyze DIR.  Waits for one byte on stdin (the probe is
 * attached), then on DIR/data (created, truncated): ANALYZE_SEQ write()s of
 * ANALYZE_BLOCK bytes, one after the other, and an fsync; ANALYZE_RANDOM
 * pwrite()s of ANALYZE_BLOCK bytes at block (i * 37 + 11) % ANALYZE_SEQ,
 * never where the one before ended, with an fsync after every
 * ANALYZE_SYNC_EVERY of them; an lseek to 0 and ANALYZE_READS read()s of
 * ANALYZE_BLOCK bytes; close.
 *
 * Every call is checked: on failure it prints what failed and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

static void fail(const char *what, int line)
{
	fprintf(stderr, "analyze:%d: %s: %s\n", line, what, strerror(errno));
	exit(1);
}

#define CHECK(x) do { if (!(x)) fail(#x, __LINE__); } while (0)

int main(int argc, char **argv)
{
	static char buf[ANALYZE_BLOCK];
	char path[4096], c;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: analyze DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/data", argv[1]);
	memset(buf, 'a', sizeof(buf));
	CHECK(read(0, &c, 1) == 1);
	CHECK((fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644)) >= 0);
	for (int i = 0; i < ANALYZE_SEQ; i++)
		CHECK(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	CHECK(fsync(fd) == 0);
	for (int i = 0; i < ANALYZE_RANDOM; i++) {
		off_t off = (off_t)((i * 37 + 11) % ANALYZE_SEQ) * ANALYZE_BLOCK;
		CHECK(pwrite(fd, buf, sizeof(buf), off) == (ssize_t)sizeof(buf));
		if ((i + 1) % ANALYZE_SYNC_EVERY == 0)
			CHECK(fsync(fd) == 0);
	}
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	for (int i = 0; i < ANALYZE_READS; i++)
		CHECK(read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
	CHECK(close(fd) == 0);
	return 0;
}
