/*
 * uncaptured.h: what the uncaptured workload (uncaptured.c) does once the
 * probe is attached, shared with its test (tests/test_capture.c).
 */
#ifndef WORKLOAD_UNCAPTURED_H
#define WORKLOAD_UNCAPTURED_H

#define UNCAP_IOCTLS 5		/* ioctl(FIONREAD): a command the probe
				 * does not capture */
#define UNCAP_VMSPLICES 4	/* vmsplice of fd -1: fails */
#define UNCAP_REMAP 6		/* remap_file_pages of nothing: fails */
#define UNCAP_CACHESTATS 2	/* cachestat without a range: fails */
#define UNCAP_GETPPIDS 7	/* getppid: not file I/O */
#define UNCAP_IA32 3		/* x86_64: getpid by int $0x80 (ia32) */

/* Made in DIR before the capture when int $0x80 works on this kernel. */
#define UNCAP_IA32_MARK "ia32"

#endif
