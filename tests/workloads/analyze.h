/*
 * analyze: the figures of the analysis workload (tests/workloads/analyze.c),
 * shared with its test (tests/test_analyze.c).
 */
#ifndef IORIOT_WORKLOAD_ANALYZE_H
#define IORIOT_WORKLOAD_ANALYZE_H

#define ANALYZE_BLOCK 4096
#define ANALYZE_SEQ 100		/* sequential write()s */
#define ANALYZE_RANDOM 50	/* pwrite()s at scattered blocks */
#define ANALYZE_SYNC_EVERY 10	/* an fsync after so many pwrite()s */
#define ANALYZE_READS 20	/* read()s from offset 0 */
/* fsync after the sequential writes, and after every SYNC_EVERY pwrites */
#define ANALYZE_SYNCS (1 + ANALYZE_RANDOM / ANALYZE_SYNC_EVERY)

#endif
