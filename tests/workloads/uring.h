/* uring: what the uring workload does, for it and for its tests. */
#ifndef IORIOT_TESTS_URING_H
#define IORIOT_TESTS_URING_H

#define URING_DEPTH 8		/* io_uring_setup's entries */
#define URING_BUF 4096		/* each registered buffer */
#define URING_NBUFS 2		/* registered buffers */
#define URING_VEC_OFF 4096	/* the WRITEV's and READV's offset */
#define URING_FIXED_OFF 16384	/* the WRITE_FIXED's offset */
#define URING_SQPOLL_OFF 24576	/* the SQPOLL ring's WRITE and READ */

#endif
