/* aio: what the aio workload does, for it and for its tests. */
#ifndef IORIOT_TESTS_AIO_H
#define IORIOT_TESTS_AIO_H

#define AIO_DEPTH 32		/* io_setup's nr_events */
#define AIO_BATCH_MAX 4		/* iocbs per io_submit */
#define AIO_VEC_OFF 32768	/* the PWRITEV's offset */

#endif
