/* mmapio: what the mmapio workload does, for it and for its tests. */
#ifndef IORIOT_TESTS_MMAPIO_H
#define IORIOT_TESTS_MMAPIO_H

#define MMAPIO_PAGE 4096
#define MMAPIO_PAGES 64		/* pre.dat's size and the shared mapping's */
#define MMAPIO_PRIV_PAGE 8	/* the page the private mapping maps */
#define MMAPIO_EARLY_PAGE 60	/* mapped before the go byte, read after */

/* Pages read through the shared mapping: each the first of a 64 KiB
 * window, so that each faults whatever fault-around mapped before. */
#define MMAPIO_READS { 0, 16, 32 }
/* Pages written before the msync, and the one written again after it. */
#define MMAPIO_WRITES { 1, 2, 3, 40 }
#define MMAPIO_REWRITE 1

#endif
