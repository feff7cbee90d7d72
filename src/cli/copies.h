/*
 * copies: `--copies N` for the replay, private to src/cli.  Copy k of the
 * workload replays in a process of its own, forked once everything root
 * had to open is open, in sandboxes NAME.k bound where the file's
 * sandboxes are (sandmap.h): its own timelines, descriptors, dependencies
 * and jail; copies share nothing but their start.  Each copy gets ready
 * (jail, threads, first window of operations read), then all start at
 * once, or copy k (k-1) * stagger seconds after the first.  Each copy's
 * summary comes back through a shared mapping.
 */
#ifndef IORIOT_CLI_COPIES_H
#define IORIOT_CLI_COPIES_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#include "ioriot/cli.h"
#include "ioriot/replay.h"

struct rlog_header;

/*
 * The host sandboxes of @h's sandboxes under @o's --map and --copies
 * (sandmap.h): *@sets sets (the copies, or 1) of h->nsandboxes roots, in
 * one array for sandmap_roots_free(roots, *@sets * h->nsandboxes).
 * NULL with the message logged.
 */
char **copies_host_roots(const struct cli_opts *o, const struct rlog_header *h,
			 size_t *sets);

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

#endif
