/*
 * session: one replay of a replay file on this host, from the file's
 * header to the statistics.  The test user, the sandboxes of this host
 * (--map, --copies) and their lock, the files root opens before the jail
 * (-S, /proc/diskstats, the time series), the cgroup, the memory checks,
 * the engine (replay.h) in this process or in a process per copy, then the
 * reports and the time series' end.  Takes a plain options struct; the
 * command line (cli.h) fills it.
 */
#ifndef IORIOT_SESSION_H
#define IORIOT_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ioriot/replay.h"

struct rlog_header;
struct rlog_reader;

/* The exit status of a replay that ran to its end but found its test
 * mount full or met I/O errors (replay_incomplete()). */
#define REPLAY_SESSION_INCOMPLETE 3

/* What a replay session needs; the names of the options in docs/ioriot.8
 * that set each are beside it. */
struct replay_session_opts {
	const char *replay;		/* the replay file */
	bool init;			/* -R: init before the replay */
	long repeat;			/* --repeat N runs, 0: once */
	/* Set by --repeat for its runs (the CLI leaves it false): init
	 * removes the sandboxes it moved to the trash (a copy of the data
	 * per run would fill the mount). */
	bool remove_trashed;
	const char *user;		/* -u, or NULL: the file's user= */
	bool allow_root;		/* --allow-root */
	/* Where the sandboxes go on this host (sandmap.h). */
	const char *const *map;		/* --map CAPTURED=TEST rules */
	size_t nmap;
	long copies;			/* --copies, 0: one replay */
	double stagger;			/* --stagger seconds between copies */
	bool reuse;			/* --reuse: a test not "ready" too */
	const char *label;		/* --label, or NULL: the default */
	/* The engine's (replay.h). */
	double speed;			/* -s */
	bool think;			/* --think */
	double cpu_scale;		/* --cpu-scale, 0: not given */
	long workers;			/* -p, 0: default */
	long threads;			/* -t, 0: default */
	long spin_us;			/* --spin, 0: default */
	uint64_t start_at_ns;		/* --start-at, 0: none */
	struct replay_rate rate;	/* --rate-iops, --rate-mbps */
	bool no_drop_caches;		/* -D */
	/* The statistics: stdout (but with @quiet), -S FILE. */
	const char *stats;		/* -S, or NULL */
	bool output_json;		/* --output-format json */
	bool output_format_set;		/* --output-format given: else -S
					 * FILE.json is JSON, others text */
	const char *cgroup;		/* --cgroup, or NULL */
	/* The time series, each NULL when not asked for. */
	const char *csv;		/* --csv */
	const char *graphite;		/* --graphite HOST:PORT */
	const char *graphite_prefix;	/* --graphite-prefix */
	const char *prom;		/* --prom */
	double interval;		/* --interval seconds, 0: 1 */
	bool quiet;			/* -q: no report, progress or notes */
};

/* @o->replay, its header read; NULL with a message logged. */
struct rlog_reader *replay_session_open(const struct replay_session_opts *o);

/*
 * The test of the replay file whose header is @h: its name, its user
 * (o->user, else the file's user=) with ids.  Returns 0, or 1 after saying
 * why (an unknown user, root without o->allow_root).
 */
int replay_session_test(const struct replay_session_opts *o,
			const struct rlog_header *h, char user[256],
			char name[256], uid_t *uid, gid_t *gid);

/*
 * The host sandboxes of @h's sandboxes under @o's map and copies
 * (sandmap.h): *@sets sets (the copies, or 1) of h->nsandboxes roots, in
 * one array for sandmap_roots_free(roots, *@sets * h->nsandboxes).
 * NULL with the message logged.
 */
char **replay_session_host_roots(const struct replay_session_opts *o,
				 const struct rlog_header *h, size_t *sets);

/* Write dirty data out, then drop the page cache, dentries and inodes
 * ("Caches dropped" on stdout unless @quiet).  0, or 1 with a message
 * logged. */
int replay_session_drop_caches(bool quiet);

/*
 * -i, and the init half of -R: build the sandboxes of @o's replay file
 * on this host as its test user, then init's summary on stdout (unless
 * o->quiet).  0, or 1 after saying why.
 */
int replay_session_init(const struct replay_session_opts *o);

/*
 * Replay @o: o->cgroup checked, init first with o->init; then the test,
 * its sandboxes locked and checked, the caches dropped (unless
 * o->no_drop_caches), the replay, then the statistics on stdout, into
 * o->stats and the time series.  With o->repeat that many runs of init
 * (without o->init: from the second on) and replay, each in a child
 * process, and their summary (docs/stats.md, Repeated runs).
 * @stop holds the number of the signal that asked to stop, else 0 (never
 * NULL); @catch_stop(flags), if not NULL, is called with the sigaction
 * flags the replay needs once everything is open, just before the replay
 * (before the first run with o->repeat): from then on a stop signal is to
 * set *@stop.  Returns the process exit status: 0; 1 after saying why;
 * 128+N when signal N stopped the replay (a run); REPLAY_SESSION_INCOMPLETE
 * when it (a run) filled its test mount or met I/O errors.
 */
int replay_session_run(const struct replay_session_opts *o,
		       const volatile sig_atomic_t *stop,
		       void (*catch_stop)(int sa_flags));

#endif
