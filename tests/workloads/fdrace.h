/* fdrace: what the fdrace workload does, for it and for its test. */
#ifndef IORIOT_TESTS_FDRACE_H
#define IORIOT_TESTS_FDRACE_H

#define FDRACE_THREADS 12
#define FDRACE_ITERS 4000
#define FDRACE_BYTES 15

#endif
