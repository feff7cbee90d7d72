/*
 * cli: the command line.  Parses the original I/O Riot flags and their long
 * forms, picks the mode, runs it, and turns results into messages and exit
 * codes.  The only layer that prints usage or decides the exit status, but
 * for -i, -r and -R: the replay session (session.h) it fills the options of
 * returns their exit status.
 */
#ifndef IORIOT_CLI_H
#define IORIOT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/analyze.h"
#include "ioriot/generate.h"
#include "ioriot/sandmap.h"
#include "ioriot/replay.h"

#define CLI_MAX_PREFIXES 32

enum cli_mode {
	MODE_NONE,
	MODE_HELP,
	MODE_VERSION,
	MODE_CAPTURE,		/* -c FILE */
	MODE_GENERATE,		/* -c FILE -r FILE */
	MODE_INIT,		/* -i FILE */
	MODE_REPLAY,		/* -r FILE */
	MODE_INIT_REPLAY,	/* -R FILE */
	MODE_DROP_CACHES,	/* -d */
	MODE_PURGE,		/* -P */
	MODE_TRASH,		/* -T */
	MODE_COMPARE,		/* --compare FILE... */
	MODE_REPORT,		/* --report OUT FILE... */
	MODE_ANALYZE,		/* --analyze FILE */
	MODE_MERGE,		/* --merge FILE... */
	MODE_DEVICES,		/* --devices FILE */
};

struct cli_opts {
	enum cli_mode mode;
	const char *capture;	/* -c */
	const char *replay;	/* -r / -R / -i */
	const char *name;	/* -n */
	const char *user;	/* -u */
	const char *wd;		/* -w, or NULL */
	const char *stats;	/* -S */
	const char *module;	/* -m */
	const char *mounts;	/* --mounts */
	long workers;		/* -p */
	long threads;		/* -t */
	double speed;		/* -s */
	bool speed_given;
	bool think;		/* --think */
	double cpu_scale;	/* --cpu-scale, 0: not given */
	long pid;		/* -x */
	double duration;	/* --duration seconds, 0: default */
	const char *comm;	/* --comm */
	long ring_mb;		/* --ring-mb */
	uint64_t max_size;	/* --max-size bytes, 0: none */
	long min_free;		/* --min-free percent, -1: the default */
	const char *include[CLI_MAX_PREFIXES];	/* --include */
	size_t ninclude;
	const char *exclude[CLI_MAX_PREFIXES];	/* --exclude */
	size_t nexclude;
	const char *csv;	/* --csv: time series file */
	const char *graphite;	/* --graphite HOST:PORT */
	const char *graphite_prefix;	/* --graphite-prefix, or NULL */
	const char *prom;	/* --prom: Prometheus textfile, or NULL */
	double interval;	/* --interval seconds, 0: default 1 */
	long spin_us;		/* --spin microseconds, 0: default */
	const char *report;	/* --report: the page written */
	char **files;		/* --compare, --report: the arguments left */
	size_t nfiles;
	const char *analyze;	/* --analyze */
	long top;		/* --top, 0: default */
	bool output_json;	/* --output-format json: --analyze, --compare,
				 * the replay's statistics */
	bool output_format_set;	/* --output-format given */
	const char *folded;	/* --folded */
	enum analyze_weight folded_weight;	/* --folded-weight */
	/* Where the sandboxes go on the test host (sandmap.h). */
	const char *map[SANDMAP_RULES_MAX];	/* --map CAPTURED=TEST */
	size_t nmap;
	long copies;		/* --copies N, 0: one replay as the file is */
	long repeat;		/* --repeat N, 0: once */
	long ready_fd;		/* --ready-fd N, 0: none */
	bool reuse;		/* --reuse */
	const char *label;	/* --label NAME, or NULL */
	double stagger;		/* --stagger seconds between copies' starts */
	bool no_drop_caches;	/* -D */
	bool sync, no_sync;	/* --sync, --no-sync: futex records or
				 * not (default: with -x or --comm) */
	bool allow_root;	/* --allow-root */
	bool all;		/* --all: -P, -T of every test */
	bool force;		/* --force: -c overwrites a log */
	bool replay_given;	/* -r: with -c generate, else replay */
	int verbosity;		/* -q / -v */
	/* A fleet's replays: started together, merged into one. */
	uint64_t start_at_ns;	/* --start-at, ns since the epoch; 0: none */
	const char *output;	/* -o: --merge's output file; NULL: stdout */
	/* Generate-time filters: --only-syscalls, --only-comm, --only-path,
	 * --from, --to (filters' lists point into the arrays below). */
	struct gen_filters filters;
	bool filters_given;
	const char *only_comm[CLI_MAX_PREFIXES];
	const char *only_path[CLI_MAX_PREFIXES];
	/* --rate-iops R[,W], --rate-mbps R[,W]: -r/-R caps */
	struct replay_rate rate;
	const char *cgroup;	/* --cgroup PATH: -r/-R run in it, -c
				 * captures it */
	const char *container;	/* --container NAME: -c captures its cgroup */
};

/*
 * Parse @argv into @o.  Returns 0, or -EINVAL after printing what is wrong
 * (and a hint to --help) to stderr.
 */
int cli_parse(int argc, char **argv, struct cli_opts *o);

/* Print the usage text to stdout. */
void cli_usage(void);

/* Parse and run; returns the process exit status. */
int cli_main(int argc, char **argv);

#endif
