/*
 * commands: what the modes of the command line share, private to src/cli
 * (cli.c runs the modes, replaycli.c the replay).
 */
#ifndef IORIOT_CLI_COMMANDS_H
#define IORIOT_CLI_COMMANDS_H

#include <signal.h>
#include <sys/types.h>

#include "ioriot/cli.h"
#include "ioriot/teststate.h"

struct rlog_header;
struct rlog_reader;

/* The stop signal's number once SIGINT, SIGTERM or SIGHUP came, else 0. */
extern volatile sig_atomic_t cli_stop_signalled;

/* Catch SIGINT, SIGTERM and SIGHUP into cli_stop_signalled, with
 * sigaction flags @flags (SA_RESTART for the replay). */
void cli_catch_stop_signals(int flags);

/* The replay file -i, -r or -R names, its header read; NULL with a
 * message logged. */
struct rlog_reader *cli_open_replay(const struct cli_opts *o);

/*
 * The test of the replay file whose header is @h: its name, its user (-u,
 * else the file's user=) with ids.  Returns 0, or 1 after saying why (an
 * unknown user, root without --allow-root).
 */
int cli_test_of(const struct cli_opts *o, const struct rlog_header *h,
		char user[256], char name[256], uid_t *uid, gid_t *gid);

/* -d, and before a replay without -D: drop the page cache.  0, or 1 with
 * a message logged. */
int cli_drop_caches(const struct cli_opts *o);

/* --devices: the block devices under the replay file's sandboxes, a
 * line each (docs/ioriot.8).  The exit status. */
int cli_run_devices(const struct cli_opts *o);

/* --cgroup PATH, if given, is a cgroup directory: 0, or 1 with a message
 * logged. */
int cli_check_cgroup(const struct cli_opts *o);

/* -r: replay, then the statistics.  The exit status. */
int cli_run_replay(const struct cli_opts *o);

/*
 * Lock the tests of the @n sandbox roots @roots for this process (each
 * once; released when it ends): another init or replay of one of them
 * makes it fail.  0, or 1 after saying why.
 */
int cli_tests_lock(char *const *roots, size_t n);

/* Record state @st of the tests of @roots.  0, or 1 after a warning. */
int cli_tests_set(char *const *roots, size_t n, enum test_state st);

/* Whether the tests of @roots may be replayed: each initialised whole
 * and not replayed in since, or any with @reuse (with a warning).  0, or
 * 1 after saying why. */
int cli_tests_ready(char *const *roots, size_t n, bool reuse);

/* The exit status of a replay that ran to its end but found its test
 * mount full or met I/O errors (replay_incomplete()). */
#define CLI_EXIT_INCOMPLETE 3

/* -i, and the init half of -R (cli.c).  0, or 1 after saying why. */
int cli_run_init(const struct cli_opts *o);

/* -r/-R with --repeat N (repeat.c): N runs of init (-r: from the second
 * on) and replay, each in a child process, and their summary.  0, 1 after
 * saying why, 128+N when signal N stopped a run, or CLI_EXIT_INCOMPLETE
 * when a run filled the test mount. */
int cli_run_repeat(const struct cli_opts *o);

#endif
