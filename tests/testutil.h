/*
 * testutil: helpers shared by the Check suites: temporary directories,
 * whole-file read/write, running the ioriot binary, and the list of suites
 * Each tests/test_NAME.c defines Suite *NAME_suite(void); the Makefile
 * collects them into the runner (check_main.c).
 */
#ifndef IORIOT_TESTUTIL_H
#define IORIOT_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A fresh directory under $TMPDIR or /tmp; aborts the test on failure.
 * Free with tu_rmtree() then free(). */
char *tu_mkdtemp(void);

/*
 * A per-tcase root directory: add tu_root_setup/tu_root_teardown as an
 * unchecked fixture, so that a failing test (which exits its forked process)
 * still leaves nothing behind; tu_scratch() gives a fresh directory below it
 * (free() it; the teardown removes it).
 */
void tu_root_setup(void);
void tu_root_teardown(void);
char *tu_scratch(void);

/* "@dir/@name", malloc'd. */
char *tu_join(const char *dir, const char *name);

/* Remove @dir and everything below it (never follows symlinks). */
void tu_rmtree(const char *dir);

/* Write @len bytes of @data to @dir/@name; returns the malloc'd path. */
char *tu_write(const char *dir, const char *name, const void *data, size_t len);

/* Same for a NUL-terminated string. */
char *tu_write_str(const char *dir, const char *name, const char *text);

/* The whole file, NUL-terminated, length in *@len if not NULL; NULL if it
 * cannot be read. */
char *tu_read(const char *path, size_t *len);

/* realloc(@p, @size), failing the test when there is no memory (so no
 * caller keeps a pointer it lost). */
void *tu_realloc(void *p, size_t size);

/* The program @name found in $PATH (an empty entry: "."; @name itself if
 * it has a slash), malloc'd, or NULL if it is not there. */
char *tu_which(const char *name);

/* Directory of the test fixtures (tests/data). */
const char *tu_datadir(void);

/* Path of the ioriot binary under test. */
const char *tu_bin(void);

/*
 * Run the ioriot binary with @argv (NULL-terminated, argv[0] ignored),
 * stdout and stderr captured into malloc'd strings if the pointers are not
 * NULL.  Returns the exit status, or -1 if it did not exit normally.
 */
int tu_run(char *const argv[], char **out, char **err);

#define TU_MAX_ARGS 32

/* @argv (TU_MAX_ARGS + 2 entries): "ioriot", then the NULL-terminated
 * @args (at most TU_MAX_ARGS), then NULL. */
void tu_ioriot_argv(const char *const *args, char **argv);

/* tu_run() with the NULL-terminated @args (without argv[0]). */
int tu_run_args(const char *const *args, char **out, char **err);

/* Why the BPF probe cannot capture here (not root, no BTF), or NULL. */
const char *tu_cannot_capture(void);

/* A shell reading two small files in a loop, its output to /dev/null, killed
 * when its parent dies: a steady load for a capture.  Its pid. */
pid_t tu_busy_loop(void);

/* Wait until process @pid blocks in read(0, ...), at most 5 s: true, or
 * false if it did not in time. */
bool tu_wait_reading_stdin(pid_t pid);

/*
 * Run the program @argv (searched in PATH) with stdout, and if @quiet also
 * stderr, sent to /dev/null.  Returns its exit status, or -1.
 */
int tu_exec(const char *const argv[], bool quiet);

/*
 * Make a sparse image "@dir.img" of @mb MB, format it with @mkfs (@force is
 * its overwrite flag: "-F" for ext4, "-f" for xfs) and loop-mount it at the
 * new directory @dir.  Needs root.  Returns false, saying why on stdout,
 * if any step fails.
 */
bool tu_mount_image(const char *dir, const char *mkfs, const char *force,
		    unsigned mb);

/*
 * Make a sparse image "@dir.img" of @mb MB on a free loop device whose
 * logical blocks are @sector_size bytes (as losetup --sector-size), format
 * it with @mkfs (the program and its options, NULL-terminated; the device
 * is appended) and mount it at the new directory @dir.  The loop device
 * goes when the file system is unmounted.  Needs root.  Returns false,
 * saying why on stdout, if any step fails.
 */
bool tu_mount_loop(const char *dir, unsigned mb, unsigned sector_size,
		   const char *const mkfs[]);

/*
 * Mount a fresh tmpfs (mode 0755) at the new directory @dir, in a mount
 * namespace of this test process alone (made by the first call; without
 * root, inside a user namespace), so the mount goes with the process even
 * when a test fails.  Sandboxes must be on mountpoints.  Returns false,
 * saying why on stdout, if it cannot.
 */
bool tu_mount_tmpfs(const char *dir);

/*
 * @n latencies in ns from several distributions, from 100 ns to 10 s
 * (log-uniform over it, normal about 50 us, a narrow peak at 1 ms, a tail
 * from 100 ms), the same on every call (a fixed seed).
 */
void tu_latency_sample(uint64_t *v, size_t n);

/*
 * Timing.  Some tests also assert how fast or how evenly something ran
 * (a rate within 2% every second, a start within 100 ms of its target):
 * a busy host breaks those without a bug.  Their tight bounds live in test
 * cases tagged TU_TIMING_TAG, which make check leaves out
 * (CK_EXCLUDE_TAGS) and make check-timing runs alone, a failing case up to
 * three times (check_main.c).  What a busy host cannot break (counts,
 * "not earlier than due", bounds only a hang exceeds) stays in make check.
 *
 * tu_timing_case() makes a tagged case; name it "SUITE timing" or another
 * name no other case has (a retry runs the case by its name).  A test
 * registered with tu_add_timed_test() runs in the case @check with
 * TU_TIGHT false and in the timing case @timing with TU_TIGHT true, where
 * it also asserts its tight bounds.  tu_timing_cases counts the tagged
 * cases made.
 */
#define TU_TIMING_TAG "timing"
#define TU_TIGHT (_i == 1)
#define tu_add_timed_test(check, timing, tf) do {		\
		tcase_add_loop_test((check), tf, 0, 1);		\
		tcase_add_loop_test((timing), tf, 1, 2);	\
	} while (0)
extern unsigned tu_timing_cases;
TCase *tu_timing_case(const char *name);

#endif
