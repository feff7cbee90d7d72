/* busy: a busy loop of a thread's own CPU time, for the capture workloads
 * whose gaps between calls are computing (cputime, runqload).  Header only:
 * each workload is a program of its own. */
#ifndef IORIOT_TESTS_BUSY_H
#define IORIOT_TESTS_BUSY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID); exits 1 with
 * a message if the clock cannot be read. */
static inline uint64_t busy_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
		exit(1);
	}
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin until the thread has used @ns of CPU; returns what it used. */
static inline uint64_t busy_for(uint64_t ns)
{
	volatile uint64_t x = 0;
	uint64_t start = busy_thread_cpu_ns(), now;

	do {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		now = busy_thread_cpu_ns();
	} while (now - start < ns);
	return now - start;
}

#endif
