/*
 * syscall-loop: the capture overhead microbenchmark.  Issues syscalls in a
 * tight loop for a while and prints the average cost per syscall, so the
 * same loop can be timed bare, under ioriot capture and under strace.
 *
 *   syscall-loop io FILE SECONDS [RATE]   openat + pread64 + close of FILE
 *   syscall-loop untraced SECONDS         getppid (not traced by ioriot)
 *   syscall-loop exists DIR SECONDS       mkdir of DIR, which exists: each
 *                                         call fails with EEXIST
 *   syscall-loop threads SECONDS FILE...  the io loop in a thread per FILE
 *                                         of one process, flat out
 *
 * With RATE, iterations are paced to RATE syscalls per second (throughput
 * runs); without, it runs flat out.  Output: "syscalls N ns_per_syscall X
 * rate R cpu_ns_per_syscall C" (threads: N and R summed over the threads,
 * X per thread; C only for one loop).  C is the thread's CPU time per
 * syscall: unlike the wall time X, it leaves out the time other tasks held
 * the CPU, which on a shared machine is most of the noise.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

static int usage(void)
{
	fprintf(stderr, "usage: syscall-loop io FILE SECONDS [RATE] | untraced SECONDS |\n"
		"       exists DIR SECONDS | threads SECONDS FILE...\n");
	return 2;
}

struct loop {
	const char *file;	/* NULL: getppid */
	bool exists;		/* mkdir of @file, failing with EEXIST */
	double seconds, rate;	/* rate 0: flat out */
	uint64_t n, ns;		/* syscalls issued, time taken */
	uint64_t cpu_ns;	/* the thread's CPU time taken */
	int err;		/* errno of a failed call */
};

/* Run loop @l; 0, or -1 with l->err set. */
static int run_loop(struct loop *l)
{
	char buf[512];
	uint64_t per_iter = l->file && !l->exists ? 3 : 1;
	uint64_t start = now_ns(), end = start + (uint64_t)(l->seconds * 1e9), t;
	uint64_t cpu_start = clock_of(CLOCK_THREAD_CPUTIME_ID);

	do {
		/* A batch between clock reads keeps timing out of the cost. */
		for (int i = 0; i < 64; i++) {
			if (l->exists) {
				if (mkdir(l->file, 0755) == 0 || errno != EEXIST) {
					l->err = errno ? errno : EEXIST;
					return -1;
				}
			} else if (l->file) {
				int fd = openat(AT_FDCWD, l->file, O_RDONLY);
				if (fd < 0 || pread(fd, buf, sizeof(buf), 0) < 0 ||
				    close(fd) < 0) {
					l->err = errno;
					return -1;
				}
			} else {
				getppid();
			}
		}
		l->n += 64 * per_iter;
		t = now_ns();
		if (l->rate > 0) {
			/* Sleep until the schedule catches up with us. */
			uint64_t due = start + (uint64_t)((double)l->n / l->rate * 1e9);
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
	l->ns = t - start;
	l->cpu_ns = clock_of(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
	return 0;
}

static void *loop_thread(void *arg)
{
	run_loop(arg);
	return NULL;
}

/* The io loop in a thread per file of @files (@n of them). */
static int run_threads(double seconds, char **files, int n)
{
	struct loop *loops = calloc((size_t)n, sizeof(*loops));
	pthread_t *threads = calloc((size_t)n, sizeof(*threads));
	uint64_t total = 0, ns = 0;
	double rate = 0;
	int started = 0, ret = 0;

	if (!loops || !threads) {
		fprintf(stderr, "syscall-loop: out of memory\n");
		ret = 1;
		goto out;
	}
	for (; started < n; started++) {
		loops[started] = (struct loop){ .file = files[started],
						 .seconds = seconds };
		if (pthread_create(&threads[started], NULL, loop_thread,
				   &loops[started])) {
			fprintf(stderr, "syscall-loop: cannot start a thread\n");
			ret = 1;
			break;
		}
	}
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		if (loops[i].err) {
			fprintf(stderr, "syscall-loop: %s: %s\n", loops[i].file,
				strerror(loops[i].err));
			ret = 1;
		}
		total += loops[i].n;
		ns += loops[i].ns;
		if (loops[i].ns)
			rate += (double)loops[i].n * 1e9 / (double)loops[i].ns;
	}
	if (!ret)
		printf("syscalls %llu ns_per_syscall %.1f rate %.0f\n",
		       (unsigned long long)total, (double)ns / (double)total,
		       rate);
out:
	free(loops);
	free(threads);
	return ret;
}

int main(int argc, char **argv)
{
	struct loop l = { 0 };

	if (argc < 3)
		return usage();
	if (strcmp(argv[1], "threads") == 0) {
		double seconds = atof(argv[2]);

		if (argc < 4 || !(seconds > 0))
			return usage();
		return run_threads(seconds, argv + 3, argc - 3);
	}
	if (strcmp(argv[1], "io") == 0) {
		if (argc < 4)
			return usage();
		l.file = argv[2];
		l.seconds = atof(argv[3]);
		if (argc > 4)
			l.rate = atof(argv[4]);
	} else if (strcmp(argv[1], "untraced") == 0) {
		l.seconds = atof(argv[2]);
	} else if (strcmp(argv[1], "exists") == 0) {
		if (argc < 4)
			return usage();
		l.file = argv[2];
		l.exists = true;
		l.seconds = atof(argv[3]);
	} else {
		return usage();
	}
	if (!(l.seconds > 0))
		return usage();
	if (run_loop(&l)) {
		fprintf(stderr, "syscall-loop: %s: %s\n", l.file, strerror(l.err));
		return 1;
	}
	printf("syscalls %llu ns_per_syscall %.1f rate %.0f cpu_ns_per_syscall %.1f\n",
	       (unsigned long long)l.n, (double)l.ns / (double)l.n,
	       (double)l.n * 1e9 / (double)l.ns, (double)l.cpu_ns / (double)l.n);
	return 0;
}
