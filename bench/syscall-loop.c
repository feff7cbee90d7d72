/*
 * syscall-loop: the capture overhead microbenchmark.  Issues syscalls in a
 * tight loop for a while and prints the average cost per syscall, so the
 * same loop can be timed bare, under ioriot capture and under strace.
 *
 *   syscall-loop io FILE SECONDS [RATE]   openat + pread64 + close of FILE
 *   syscall-loop untraced SECONDS         getppid (not traced by ioriot)
 *
 * With RATE, iterations are paced to RATE syscalls per second (throughput
 * runs); without, it runs flat out.  Output: "syscalls N ns_per_syscall X".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr, "usage: syscall-loop io FILE SECONDS [RATE] | untraced SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	bool io;
	const char *file = NULL;
	double seconds, rate = 0;
	char buf[512];
	uint64_t n = 0;

	if (argc < 3)
		return usage();
	io = strcmp(argv[1], "io") == 0;
	if (io) {
		if (argc < 4)
			return usage();
		file = argv[2];
		seconds = atof(argv[3]);
		if (argc > 4)
			rate = atof(argv[4]);
	} else if (strcmp(argv[1], "untraced") == 0) {
		seconds = atof(argv[2]);
	} else {
		return usage();
	}
	if (!(seconds > 0))
		return usage();

	uint64_t per_iter = io ? 3 : 1;
	uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), t;
	do {
		/* A batch between clock reads keeps timing out of the cost. */
		for (int i = 0; i < 64; i++) {
			if (io) {
				int fd = openat(AT_FDCWD, file, O_RDONLY);
				if (fd < 0 || pread(fd, buf, sizeof(buf), 0) < 0 ||
				    close(fd) < 0) {
					fprintf(stderr, "syscall-loop: %s: %s\n", file,
						strerror(errno));
					return 1;
				}
			} else {
				getppid();
			}
		}
		n += 64 * per_iter;
		t = now_ns();
		if (rate > 0) {
			/* Sleep until the schedule catches up with us. */
			uint64_t due = start + (uint64_t)((double)n / rate * 1e9);
			if (due > t) {
				struct timespec ts = {
					.tv_sec = (time_t)((due - t) / 1000000000ULL),
					.tv_nsec = (long)((due - t) % 1000000000ULL),
				};
				nanosleep(&ts, NULL);
				t = now_ns();
			}
		}
	} while (t < end);
	printf("syscalls %llu ns_per_syscall %.1f rate %.0f\n",
	       (unsigned long long)n, (double)(t - start) / (double)n,
	       (double)n * 1e9 / (double)(t - start));
	return 0;
}
