/*
 * fuzz_input: the part all fuzz harnesses share.  The readers take a path,
 * so each input is written to one memfd per process, truncated and
 * rewritten every iteration, and read back through /proc/self/fd/N (each
 * open of it starts at offset 0).  No fd or memory is left over from one
 * iteration to the next.
 */
#ifndef IORIOT_FUZZ_INPUT_H
#define IORIOT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The memfd's path, valid for the life of the process; @data written
 * into it.  Aborts on failure: a broken harness must not look clean. */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0) {
		perror("ftruncate");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
		if (n <= 0) {
			perror("pwrite");
			abort();
		}
		done += (size_t)n;
	}
	return path;
}

#endif
