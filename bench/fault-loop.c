/*
 * fault-loop: the page fault microbenchmark of the capture of I/O through
 * mappings (docs/benchmarks-history.md §7.2).  Maps FILE shared, touches one byte
 * of every page, unmaps, and again, for a while; prints the average cost
 * per page, so that the loop can be timed bare and under ioriot capture.
 *
 *   fault-loop write FILE SECONDS   a store per page: every page faults
 *   fault-loop read FILE SECONDS    a load per page: with the file in the
 *                                   page cache, one fault per fault-around
 *                                   window (16 pages)
 *
 * Output: "pages N ns_per_page X".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	bool write;
	double seconds;
	struct stat st;
	uint64_t pages = 0, start, end, t;
	int fd;

	if (argc != 4 || (strcmp(argv[1], "write") && strcmp(argv[1], "read")) ||
	    !((seconds = atof(argv[3])) > 0)) {
		fprintf(stderr, "usage: fault-loop write|read FILE SECONDS\n");
		return 2;
	}
	write = !strcmp(argv[1], "write");
	fd = open(argv[2], O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < PAGE) {
		fprintf(stderr, "fault-loop: %s: %s\n", argv[2],
			fd < 0 ? strerror(errno) : "needs a page or more");
		return 1;
	}
	size_t len = (size_t)st.st_size / PAGE * PAGE;
	start = now_ns();
	end = start + (uint64_t)(seconds * 1e9);
	do {
		volatile char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_SHARED, fd, 0);

		if (m == MAP_FAILED) {
			fprintf(stderr, "fault-loop: mmap: %s\n", strerror(errno));
			return 1;
		}
		for (size_t off = 0; off < len; off += PAGE) {
			if (write)
				m[off] = 1;
			else
				(void)m[off];
		}
		munmap((void *)m, len);
		pages += len / PAGE;
		t = now_ns();
	} while (t < end);
	printf("pages %llu ns_per_page %.1f\n", (unsigned long long)pages,
	       (double)(t - start) / (double)pages);
	close(fd);
	return 0;
}
