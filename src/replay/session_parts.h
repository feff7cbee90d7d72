/*
 * session_parts: what the files of the replay session (session.h) share,
 * private to src/replay: one replay and the statistics' format
 * (session.c), --repeat (session_repeat.c), the copies
 * (session_copies.c), the tests' lock and state (session_lock.c), the
 * default label (session_label.c).
 *
 * `--copies N`: copy k of the workload replays in a process of its own,
 * forked once everything root had to open is open, in sandboxes NAME.k
 * bound where the file's sandboxes are (sandmap.h): its own timelines,
 * descriptors, dependencies and jail; copies share nothing but their
 * start.  Each copy gets ready (jail, threads, first window of operations
 * read), then all start at once, or copy k (k-1) * stagger seconds after
 * the first.  Each copy's summary comes back through a shared mapping.
 */
#ifndef IORIOT_REPLAY_SESSION_PARTS_H
#define IORIOT_REPLAY_SESSION_PARTS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/replay.h"
#include "ioriot/session.h"
#include "ioriot/teststate.h"

/*
 * One replay of @o, without o->init and o->repeat (replay_session_run()
 * for the rest).  The process exit status (session.h).
 */
int session_replay(const struct replay_session_opts *o,
		   const volatile sig_atomic_t *stop,
		   void (*catch_stop)(int sa_flags));

/* Whether -S o->stats is written as JSON: --output-format, else a name
 * ending in .json. */
bool session_stats_json(const struct replay_session_opts *o);

/*
 * o->repeat runs of @o (replay_session_run()), each in a child process,
 * and their summary on stdout and into -S.  The process exit status.
 */
int session_repeat(const struct replay_session_opts *o,
		   const volatile sig_atomic_t *stop,
		   void (*catch_stop)(int sa_flags));

struct copies_options {
	size_t n;
	double stagger_s;
	/* n sets of host roots, one per sandbox of the file, in order. */
	char *const *host_roots;
	size_t nsandboxes;
	const volatile sig_atomic_t *stop;	/* forwarded to the copies */
	/* Called in the calling process when the first copy starts. */
	void (*started)(void *ctx);
	void *started_ctx;
};

/*
 * Replay @ro (its reader is not used: each copy opens ro->replay_path)
 * @co->n times at once.  @per gets each copy's summary (@co->n of them),
 * @sum their sum (replay_summary_add()), its duration the span from the
 * first copy's start to the last one's end; @offsets (@co->n) when each
 * copy started, in ns after the first.  The progress and tick callbacks
 * of @ro are called from the calling process with the copies' summed
 * figures (ticks every ro->tick_ns from the first copy's start; each copy
 * publishes its figures ten times as often).
 * Returns 0, or -errno with the first failing copy's message in @err.
 */
int copies_run(const struct replay_options *ro, const struct copies_options *co,
	       struct replay_summary *sum, struct replay_summary *per,
	       uint64_t *offsets, char *err, size_t errlen);

/*
 * Lock the tests of the @n sandbox roots @roots for this process (each
 * once; released when it ends): another init or replay of one of them
 * makes it fail.  0, or 1 after saying why.
 */
int session_tests_lock(char *const *roots, size_t n);

/* Record state @st of the tests of @roots.  0, or 1 after a warning. */
int session_tests_set(char *const *roots, size_t n, enum test_state st);

/* Whether the tests of @roots may be replayed: each initialised whole
 * and not replayed in since, or any with @reuse (with a warning).  0, or
 * 1 after saying why. */
int session_tests_ready(char *const *roots, size_t n, bool reuse);

/*
 * The configuration of the @n sandbox roots @roots of this host: per
 * mount "FSTYPE:SCHEDULER" (FSTYPE alone without a block device), joined
 * by "+"; "-" when none is known.  malloc'd; NULL when out of memory.
 */
char *session_default_label(char *const *roots, size_t n);

#endif
