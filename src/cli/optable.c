/*
 * optable: the rows of the option table (optable.h) and how each value is
 * taken: numbers and sizes in range, paths normal, lists bounded.  Every
 * taker says on stderr what is wrong with a value it refuses.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/cli.h"
#include "ioriot/clock.h"
#include "ioriot/logguard.h"
#include "ioriot/paths.h"
#include "optable.h"
#include "starttime.h"

/* A size in bytes with an optional K, M, G or T (binary) suffix, at
 * least @min.  0 or -EINVAL. */
static int parse_size(const char *opt, const char *arg, uint64_t min,
		      uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *unit;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end != arg && *end && !end[1] && (unit = strchr(units, *end))) {
		unsigned shift = 10 * (unsigned)(unit - units + 1);

		if (v > UINT64_MAX >> shift)
			errno = ERANGE;
		v <<= shift;
		end++;
	}
	if (errno || end == arg || arg[0] == '-' || *end || v < min) {
		fprintf(stderr, "ioriot: %s expects a size of at least %llu bytes "
			"(or with K, M, G or T), not '%s'\n", opt,
			(unsigned long long)min, arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_long(const char *opt, const char *arg, long min, long max,
		      long *out)
{
	char *end;

	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "ioriot: %s expects a number from %ld to %ld, not '%s'\n",
			opt, min, max, arg);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Add an absolute path prefix to @list.  0 or -EINVAL. */
static int add_prefix(const char *opt, const char *arg, const char **list,
		      size_t *n)
{
	size_t len = strlen(arg);

	if (!path_is_normal(arg, len)) {
		fprintf(stderr, "ioriot: %s expects an absolute path without '..', "
			"'.', '//' or a trailing '/', not '%s'\n", opt, arg);
		return -EINVAL;
	}
	if (*n == CLI_MAX_PREFIXES) {
		fprintf(stderr, "ioriot: at most %d %s options\n",
			CLI_MAX_PREFIXES, opt);
		return -EINVAL;
	}
	list[(*n)++] = arg;
	return 0;
}

/* Add rule --map @arg, checked as sandmap_add() checks it.  0 or
 * -EINVAL. */
static int add_map(struct cli_opts *o, const char *arg)
{
	struct sandmap m = { 0 };
	char err[2 * PATHMAP_MAX];
	int rc = 0;

	for (size_t i = 0; !rc && i < o->nmap; i++)
		rc = sandmap_add(&m, o->map[i], err, sizeof(err));
	if (!rc)
		rc = sandmap_add(&m, arg, err, sizeof(err));
	sandmap_free(&m);
	if (rc) {
		fprintf(stderr, "ioriot: %s\n", err);
		return -EINVAL;
	}
	o->map[o->nmap++] = arg;
	return 0;
}

/* Add the names of the comma list @arg (split in place) to --only-comm.
 * 0 or -EINVAL. */
static int add_comms(struct cli_opts *o, char *arg)
{
	for (char *name = arg, *next; name; name = next) {
		next = strchr(name, ',');
		if (next)
			*next++ = '\0';
		if (!*name || strlen(name) > 15) {
			fprintf(stderr, "ioriot: --only-comm expects process "
				"names of 1 to 15 characters\n");
			return -EINVAL;
		}
		if (o->filters.ncomms == CLI_MAX_PREFIXES) {
			fprintf(stderr, "ioriot: at most %d --only-comm names\n",
				CLI_MAX_PREFIXES);
			return -EINVAL;
		}
		o->only_comm[o->filters.ncomms++] = name;
	}
	o->filters.comms = o->only_comm;
	return 0;
}

/* A number from @lo to @hi in @arg into *@out.  0, or -EINVAL. */
static int parse_double(const char *arg, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	return errno || end == arg || *end || !(*out >= lo) || *out > hi ?
	       -EINVAL : 0;
}

/* "ioriot: @what, not '@arg'" on stderr.  Returns -EINVAL. */
static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "ioriot: %s, not '%s'\n", what, arg);
	return -EINVAL;
}

/* One rate of a cap, a number > 0 and at most @max, into *@out.  0 or
 * -EINVAL. */
static int parse_rate_value(const char *s, size_t len, double max,
			    double *out)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return errno || end == buf || *end || !(*out > 0) || *out > max ?
	       -EINVAL : 0;
}

/* --rate-iops or --rate-mbps (@opt) "R", "R,W", "R," or ",W" into @v
 * and *@shared: R alone caps reads and writes together.  0, or -EINVAL
 * after saying why. */
static int parse_rate(const char *opt, const char *arg, double max,
		      double v[REPLAY_RATE_CLASSES], bool *shared)
{
	const char *comma = strchr(arg, ',');
	size_t rlen = comma ? (size_t)(comma - arg) : strlen(arg);
	int err = 0;

	v[REPLAY_RATE_READ] = v[REPLAY_RATE_WRITE] = 0;
	*shared = !comma;
	if (rlen || !comma)
		err = parse_rate_value(arg, rlen, max, &v[REPLAY_RATE_READ]);
	if (!err && comma && (comma[1] || !rlen))
		err = parse_rate_value(comma + 1, strlen(comma + 1), max,
				       &v[REPLAY_RATE_WRITE]);
	if (err)
		fprintf(stderr, "ioriot: %s expects R (reads and writes "
			"together), R,W, R, (reads only) or ,W (writes only): "
			"numbers above 0, at most %.0f; not '%s'\n", opt, max,
			arg);
	return err;
}

/* The takers of the rows that need more than a type (optable.h): each
 * returns 0, or -EINVAL after saying why on stderr. */

static int take_replay(struct cli_opts *o, char *arg)
{
	o->replay = arg;
	o->replay_given = true;
	return 0;
}

static int take_comm(struct cli_opts *o, char *arg)
{
	o->comm = arg;
	if (*arg && strlen(arg) <= 15)
		return 0;
	fprintf(stderr, "ioriot: --comm expects a process name of 1 to 15 "
		"characters\n");
	return -EINVAL;
}

static int take_max_size(struct cli_opts *o, char *arg)
{
	return parse_size("--max-size", arg, LOG_GUARD_MIN_SIZE, &o->max_size);
}

static int take_include(struct cli_opts *o, char *arg)
{
	return add_prefix("--include", arg, o->include, &o->ninclude);
}

static int take_exclude(struct cli_opts *o, char *arg)
{
	return add_prefix("--exclude", arg, o->exclude, &o->nexclude);
}

static int take_map(struct cli_opts *o, char *arg)
{
	return add_map(o, arg);
}

static int take_output_format(struct cli_opts *o, char *arg)
{
	if (strcmp(arg, "json") && strcmp(arg, "text"))
		return usage_error("--output-format is text or json", arg);
	o->output_json = !strcmp(arg, "json");
	return 0;
}

static int take_folded_weight(struct cli_opts *o, char *arg)
{
	if (analyze_weight_parse(arg, &o->folded_weight))
		return usage_error("--folded-weight is ops, bytes or time",
				   arg);
	return 0;
}

static int take_start_at(struct cli_opts *o, char *arg)
{
	char msg[256];
	int err = start_time_parse(arg, clock_ns(CLOCK_REALTIME),
				   &o->start_at_ns, msg, sizeof(msg));

	if (err)
		fprintf(stderr, "ioriot: %s\n", msg);
	return err;
}

static int take_only_syscalls(struct cli_opts *o, char *arg)
{
	char err[256];

	o->filters_given = true;
	if (!gen_parse_classes(arg, &o->filters.classes, err, sizeof(err)))
		return 0;
	fprintf(stderr, "ioriot: %s\n", err);
	return -EINVAL;
}

static int take_only_comm(struct cli_opts *o, char *arg)
{
	o->filters_given = true;
	return add_comms(o, arg);
}

static int take_only_path(struct cli_opts *o, char *arg)
{
	o->filters_given = true;
	o->filters.paths = o->only_path;
	return add_prefix("--only-path", arg, o->only_path, &o->filters.npaths);
}

/* --from or --to (@opt) @arg into *@t. */
static int take_time(const char *opt, const char *arg, struct gen_time *t)
{
	char err[256];

	if (!gen_parse_time(arg, t, err, sizeof(err)))
		return 0;
	fprintf(stderr, "ioriot: %s: %s\n", opt, err);
	return -EINVAL;
}

static int take_from(struct cli_opts *o, char *arg)
{
	o->filters_given = true;
	return take_time("--from", arg, &o->filters.from);
}

static int take_to(struct cli_opts *o, char *arg)
{
	o->filters_given = true;
	return take_time("--to", arg, &o->filters.to);
}

static int take_rate_iops(struct cli_opts *o, char *arg)
{
	return parse_rate("--rate-iops", arg, 1e9, o->rate.iops,
			  &o->rate.iops_shared);
}

static int take_rate_mbps(struct cli_opts *o, char *arg)
{
	return parse_rate("--rate-mbps", arg, 1e6, o->rate.mbps,
			  &o->rate.mbps_shared);
}

static int take_quiet(struct cli_opts *o, char *arg)
{
	(void)arg;
	o->verbosity--;
	return 0;
}

static int take_verbose(struct cli_opts *o, char *arg)
{
	(void)arg;
	o->verbosity++;
	return 0;
}

/* The modes that take the options of a replay. */
#define RUN (CLI_IN(MODE_REPLAY) | CLI_IN(MODE_INIT_REPLAY))
/* -P and -T. */
#define CLEANUP (CLI_IN(MODE_PURGE) | CLI_IN(MODE_TRASH))
#define F(member) offsetof(struct cli_opts, member)
#define MODE_ROW .section = CLI_SEC_MODES, .type = CLI_MODE

/* --help lists the rows in this order. */
const struct cli_option cli_options[] = {
	{ .name = "capture", .letter = 'c', .arg = "FILE",
	  .section = CLI_SEC_MODES, .type = CLI_STRING, .field = F(capture),
	  .help = "capture file I/O into FILE (needs root), a new file or an "
		  "empty one; strftime conversions make a name of the start "
		  "time (io-%Y%m%d-%H%M%S.capture)" },
	{ .usage = "-c FILE -r FILE", .section = CLI_SEC_MODES,
	  .help = "generate a replay file from a capture log" },
	{ .name = "init", .letter = 'i', .arg = "FILE", MODE_ROW,
	  .mode = MODE_INIT, .field = F(replay),
	  .help = "create the files the replay file needs (root)" },
	{ .name = "replay", .letter = 'r', .arg = "FILE",
	  .section = CLI_SEC_MODES, .type = CLI_CUSTOM, .take = take_replay,
	  .help = "replay a replay file (after -i)" },
	{ .name = "init-replay", .letter = 'R', .arg = "FILE", MODE_ROW,
	  .mode = MODE_INIT_REPLAY, .field = F(replay),
	  .help = "init, then replay" },
	{ .name = "drop-caches", .letter = 'd', MODE_ROW,
	  .mode = MODE_DROP_CACHES,
	  .help = "drop the page cache and exit" },
	{ .name = "purge", .letter = 'P', MODE_ROW, .mode = MODE_PURGE,
	  .help = "with -n NAME: delete test NAME's sandboxes on every mount, "
		  "its copies' and what of them is in the trash; with --all: "
		  "all test data and trash (<mnt>/.ioriot on every mount); "
		  "never follows symlinks or crosses mounts" },
	{ .name = "trash", .letter = 'T', MODE_ROW, .mode = MODE_TRASH,
	  .help = "with -n NAME: move test NAME's sandboxes (and its "
		  "copies') on every mount to <mnt>/.ioriot/.trash; with "
		  "--all: every test's" },
	{ .name = "compare", .usage = "--compare FILE...", MODE_ROW,
	  .mode = MODE_COMPARE,
	  .help = "compare replay runs (-S FILE.json, also of --repeat): per "
		  "configuration (a --label, else a file) the means with 95% "
		  "intervals and a winner only where Welch's t-test finds the "
		  "difference significant; then every run side by side" },
	{ .name = "report", .arg = "OUT.html",
	  .usage = "--report OUT.html FILE...", MODE_ROW,
	  .mode = MODE_REPORT, .field = F(report),
	  .help = "write one self-contained HTML page about replay runs "
		  "(-S RUN.json, --csv RUN.csv; a JSON and a CSV of the same "
		  "base name are one run) and captures (a capture log, replay "
		  "file or --analyze's JSON): the verdict, time series, "
		  "latencies, top lists, a flame graph" },
	{ .name = "analyze", .arg = "FILE", MODE_ROW, .mode = MODE_ANALYZE,
	  .field = F(analyze),
	  .help = "print what a capture log or replay file holds: totals, "
		  "syscall mix, latency and request sizes, top files, "
		  "directories, processes and threads, syncs, a timeline, what "
		  "is not replayed (docs/analyze.md)" },
	{ .name = "merge", .usage = "--merge FILE... [-o OUT.json]", MODE_ROW,
	  .mode = MODE_MERGE,
	  .help = "sum the JSON statistics of a fleet's replays into one "
		  "(totals summed, latency histograms merged, the span from "
		  "the first start to the last end, a row per host); --compare "
		  "and --report read it" },
	{ .name = "devices", .arg = "FILE", MODE_ROW, .mode = MODE_DEVICES,
	  .field = F(replay),
	  .help = "print the block devices under the replay file's sandboxes "
		  "(with --map, --copies), a line each: sandbox mount device "
		  "sysfs queue role root MAJ:MIN backing (docs/ioriot.8; "
		  "ioriot-sweep)" },
	{ .name = "version", .letter = 'V', MODE_ROW, .mode = MODE_VERSION,
	  .help = "print the version" },
	{ .name = "help", .letter = 'h', MODE_ROW, .mode = MODE_HELP,
	  .help = "print this help" },

	{ .name = "name", .letter = 'n', .arg = "NAME", .type = CLI_STRING,
	  .field = F(name), .modes = CLI_IN(MODE_GENERATE) | CLEANUP,
	  .help = "test name: sandboxes are <mountpoint>/.ioriot/NAME "
		  "(generate: required; -P, -T: the test they act on)" },
	{ .name = "all", .type = CLI_FLAG, .field = F(all), .modes = CLEANUP,
	  .help = "act on every test of every mount (without it, and without "
		  "-n, they ask on a terminal and refuse elsewhere)" },
	{ .name = "user", .letter = 'u', .arg = "USER", .type = CLI_STRING,
	  .field = F(user),
	  .modes = CLI_IN(MODE_GENERATE) | CLI_IN(MODE_INIT) | RUN,
	  .help = "user the replay runs as; generate stores it (default: "
		  "$SUDO_USER, else you; never root unless named), init makes "
		  "the sandboxes its own (default: the file's user=)" },
	{ .name = "map", .arg = "CAPTURED=TEST", .type = CLI_CUSTOM,
	  .take = take_map,
	  .modes = CLI_IN(MODE_GENERATE) | CLI_IN(MODE_INIT) | RUN |
		   CLI_IN(MODE_DEVICES),
	  .help = "the sandbox of captured mount CAPTURED goes to mount TEST "
		  "of the test host, TEST/.ioriot/NAME (repeatable)" },
	{ .name = "copies", .arg = "N", .type = CLI_LONG, .field = F(copies),
	  .min = 1, .max = SANDMAP_COPIES_MAX,
	  .modes = CLI_IN(MODE_INIT) | RUN | CLI_IN(MODE_DEVICES),
	  .help = "N copies of the workload at once, each in sandboxes "
		  "NAME.1 ... NAME.N (give -i and -r the same N); the stats "
		  "show the total and each" },
	{ .name = "stagger", .arg = "SECONDS", .type = CLI_REAL,
	  .field = F(stagger), .min = 0, .max = 86400,
	  .expects = "seconds from 0 to 86400", .modes = RUN,
	  .help = "start copy k (k-1) * SECONDS after the first" },
	{ .name = "allow-root", .type = CLI_FLAG, .field = F(allow_root),
	  .modes = CLI_IN(MODE_INIT) | RUN,
	  .help = "init and replay as root when the user is root; refused "
		  "otherwise: a replay as root can change any file the replay "
		  "file's paths lead to" },
	{ .name = "wd", .letter = 'w', .arg = "DIR", .type = CLI_STRING,
	  .field = F(wd),
	  .help = "working directory: relative file names are taken from "
		  "DIR, which is created if missing (default: .); never a "
		  "symlink or a directory of another user than root" },
	{ .name = "workers", .letter = 'p', .arg = "N", .type = CLI_LONG,
	  .field = F(workers), .min = 1, .max = 4096, .modes = RUN,
	  .help = "replay with N workers (processes) of -t threads each: "
		  "captured processes go to the workers in turn (default: a "
		  "thread per captured thread, at most 4096)" },
	{ .name = "threads", .letter = 't', .arg = "N", .type = CLI_LONG,
	  .field = F(threads), .min = 1, .max = 65536, .modes = RUN,
	  .help = "with -p: threads per worker; a worker's captured threads "
		  "go to its threads in turn" },
	{ .name = "speed", .letter = 's', .arg = "FACTOR", .type = CLI_REAL,
	  .field = F(speed), .min = 0, .max = 1e9, .expects = "a factor >= 0",
	  .modes = RUN,
	  .help = "0 = as fast as possible (default), 1 = captured speed, "
		  "2 = twice as fast, 0.5 = half as fast; with --think: "
		  "divides the gaps' waits (default 1)" },
	{ .name = "think", .type = CLI_FLAG, .field = F(think), .modes = RUN,
	  .help = "pace each captured thread by its think time: an operation "
		  "starts once the thread's previous one completed here plus "
		  "the captured gap between them (CPU work where the capture "
		  "measured it, the rest slept): the run's time predicts the "
		  "program's on this host" },
	{ .name = "cpu-scale", .arg = "X", .type = CLI_REAL,
	  .field = F(cpu_scale), .min = 0.001, .max = 1000,
	  .expects = "a factor from 0.001 to 1000", .modes = RUN,
	  .help = "with --think: the test host's CPU is X times as fast as "
		  "the captured host's (default 1)" },
	{ .name = "repeat", .arg = "N", .type = CLI_LONG, .field = F(repeat),
	  .min = 1, .max = 1000, .modes = RUN,
	  .help = "N runs, each with caches dropped and the sandboxes "
		  "initialised anew (-r: from the second on); prints per "
		  "figure the mean, deviation, extremes and 95% confidence "
		  "interval; -S FILE.json holds every run and the summary" },
	{ .name = "reuse", .type = CLI_FLAG, .field = F(reuse),
	  .modes = CLI_IN(MODE_REPLAY),
	  .help = "replay sandboxes that a replay already used, or whose "
		  "init did not complete (refused without)" },
	{ .name = "label", .arg = "NAME", .type = CLI_STRING,
	  .field = F(label), .modes = RUN,
	  .help = "the configuration the run stands for, in the statistics "
		  "and --compare (default: the sandboxes' file systems and I/O "
		  "schedulers)" },
	{ .name = "spin", .arg = "US", .type = CLI_LONG, .field = F(spin_us),
	  .min = 1, .max = 1000000, .modes = RUN,
	  .help = "at -s FACTOR > 0, spin the last US microseconds before "
		  "each operation is due instead of sleeping (default 100); "
		  "more keeps the CPUs of a busy virtual machine from halting, "
		  "at a CPU's cost" },
	{ .name = "start-at", .arg = "TIME", .type = CLI_CUSTOM,
	  .take = take_start_at, .modes = RUN,
	  .help = "release the first operation at TIME, once everything else "
		  "is ready: epoch seconds (1795600800.5, @1795600800) or ISO "
		  "8601 with a zone (2026-11-25T10:00:00Z, ...+01:00); at most "
		  "1 s past, 24 hours ahead; the stats record the start skew "
		  "and the clock's NTP state" },
	{ .name = "output", .letter = 'o', .arg = "FILE", .type = CLI_STRING,
	  .field = F(output), .modes = CLI_IN(MODE_MERGE),
	  .help = "write to FILE (default: stdout)" },
	{ .name = "rate-iops", .arg = "R[,W]", .type = CLI_CUSTOM,
	  .take = take_rate_iops, .modes = RUN,
	  .help = "replay at most R reads and W writes per second (data "
		  "calls, AIO and io_uring requests, mapped pages); R alone: R "
		  "reads and writes together; R, or ,W: one class only.  Per "
		  "process; the wait is reported apart, never in the latency" },
	{ .name = "rate-mbps", .arg = "R[,W]", .type = CLI_CUSTOM,
	  .take = take_rate_mbps, .modes = RUN,
	  .help = "the same in MB (10^6 bytes) per second" },
	{ .name = "cgroup", .arg = "PATH", .type = CLI_STRING,
	  .field = F(cgroup), .modes = RUN | CLI_IN(MODE_CAPTURE),
	  .help_names_modes = true,
	  .help = "-r, -R: replay in cgroup directory PATH (v1 or v2), whose "
		  "blkio/io limits then apply; the stats record it and its "
		  "limits.  -c: capture only the processes in cgroup PATH or "
		  "below it (a container's, a systemd unit's; v2, or a v1 "
		  "controller's directory)" },
	{ .name = "stats", .letter = 'S', .arg = "FILE", .type = CLI_STRING,
	  .field = F(stats), .modes = RUN,
	  .help = "write replay statistics to FILE too (JSON if it ends in "
		  ".json)" },
	{ .name = "no-drop-caches", .letter = 'D', .type = CLI_FLAG,
	  .field = F(no_drop_caches), .modes = RUN,
	  .help = "do not drop caches before replay" },
	{ .name = "csv", .arg = "FILE", .type = CLI_STRING, .field = F(csv),
	  .modes = RUN,
	  .help = "write a time series to FILE, a row per interval "
		  "(docs/series.md; plot: ioriot-plot)" },
	{ .name = "graphite", .arg = "HOST:PORT", .type = CLI_STRING,
	  .field = F(graphite), .modes = RUN,
	  .help = "send the time series to Graphite" },
	{ .name = "graphite-prefix", .arg = "P", .type = CLI_STRING,
	  .field = F(graphite_prefix), .modes = RUN,
	  .help = "the metrics' prefix (default ioriot.NAME)" },
	{ .name = "prom", .arg = "FILE", .type = CLI_STRING, .field = F(prom),
	  .modes = RUN,
	  .help = "keep FILE a Prometheus textfile of the time series and, at "
		  "the end, the summary, replaced each interval (node_exporter "
		  "textfile collector; docs/series.md)" },
	{ .name = "interval", .arg = "SECONDS", .type = CLI_REAL,
	  .field = F(interval), .min = 0.1, .max = 3600,
	  .expects = "seconds from 0.1 to 3600", .modes = RUN,
	  .help = "time series interval (default 1, at least 0.1)" },
	{ .name = "pid", .letter = 'x', .arg = "PID", .type = CLI_LONG,
	  .field = F(pid), .min = 1, .max = INT_MAX,
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "capture only PID, its threads and descendants" },
	{ .name = "comm", .arg = "NAME", .type = CLI_CUSTOM, .take = take_comm,
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "capture only processes named NAME (e.g. java)" },
	{ .name = "duration", .arg = "SECONDS", .type = CLI_REAL,
	  .field = F(duration), .min = 1e-9, .max = 365 * 86400.0,
	  .expects = "seconds > 0", .modes = CLI_IN(MODE_CAPTURE),
	  .help = "stop capturing after SECONDS (default 3600)" },
	{ .name = "container", .arg = "NAME", .type = CLI_STRING,
	  .field = F(container), .modes = CLI_IN(MODE_CAPTURE),
	  .help = "as --cgroup, the cgroup of container NAME (or id), asked "
		  "of docker, podman or machinectl (systemd-nspawn), the "
		  "first in PATH that knows it" },
	{ .name = "force", .type = CLI_FLAG, .field = F(force),
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "overwrite the log if it exists (refused without)" },
	{ .name = "ready-fd", .arg = "N", .type = CLI_LONG,
	  .field = F(ready_fd), .min = 3, .max = 1 << 20,
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "write READY and a newline to fd N, then close it, once the "
		  "probe records (so does \"capturing to\" on stderr, and "
		  "READY=1 to NOTIFY_SOCKET)" },
	{ .name = "sync", .type = CLI_FLAG, .field = F(sync),
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "record which captured thread woke which: the order of "
		  "threads for --think (docs/guide.md); the default with -x, "
		  "--comm or --cgroup only (it runs a probe at every context "
		  "switch of the host)" },
	{ .name = "no-sync", .type = CLI_FLAG, .field = F(no_sync),
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "do not, also with -x, --comm or --cgroup" },
	{ .name = "ring-mb", .arg = "MB", .type = CLI_LONG,
	  .field = F(ring_mb), .min = 1, .max = 2048,
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "the probe's rings in all, a power of 2, shared out to the "
		  "CPUs, at least 4 MiB each (default 64)" },
	{ .name = "max-size", .arg = "SIZE", .type = CLI_CUSTOM,
	  .take = take_max_size, .modes = CLI_IN(MODE_CAPTURE),
	  .help = "stop capturing when the log reaches SIZE bytes (suffixes "
		  "K, M, G, T: KiB, MiB, ...; at least 128K); the log is ended "
		  "cleanly within SIZE, exit status 0" },
	{ .name = "min-free", .arg = "PCT", .type = CLI_LONG,
	  .field = F(min_free), .min = 0, .max = 90,
	  .modes = CLI_IN(MODE_CAPTURE),
	  .help = "stop capturing before the log's file system has less than "
		  "PCT% free (default 5, 0: never); the log is ended cleanly, "
		  "exit status 1" },
	{ .name = "include", .arg = "DIR", .type = CLI_CUSTOM,
	  .take = take_include, .modes = CLI_IN(MODE_CAPTURE),
	  .help = "capture only I/O below DIR (repeatable)" },
	{ .name = "exclude", .arg = "DIR", .type = CLI_CUSTOM,
	  .take = take_exclude, .modes = CLI_IN(MODE_CAPTURE),
	  .help = "do not capture I/O below DIR (repeatable)" },
	{ .name = "only-syscalls", .arg = "LIST", .type = CLI_CUSTOM,
	  .take = take_only_syscalls, .modes = CLI_IN(MODE_GENERATE),
	  .help = "only operations of these classes, a comma list of read, "
		  "write, meta, sync, open, other (opens stay for their fds, "
		  "without create or truncate; mmap, munmap, AIO and io_uring "
		  "stay)" },
	{ .name = "only-comm", .arg = "NAME", .type = CLI_CUSTOM,
	  .take = take_only_comm, .modes = CLI_IN(MODE_GENERATE),
	  .help = "only operations of processes running the program NAME: "
		  "the one they exec'd, or for those running when the capture "
		  "began their name then (repeatable, or a comma list)" },
	{ .name = "only-path", .arg = "DIR", .type = CLI_CUSTOM,
	  .take = take_only_path, .modes = CLI_IN(MODE_GENERATE),
	  .help = "only operations on paths below DIR, as captured "
		  "(repeatable; --include filters capture)" },
	{ .name = "from", .arg = "T", .type = CLI_CUSTOM, .take = take_from,
	  .modes = CLI_IN(MODE_GENERATE),
	  .help = "only operations that began at T or later: seconds from the "
		  "capture's start (12.5), epoch seconds (@1764064800) or ISO "
		  "8601 (2026-11-25T10:00:00, UTC unless a zone is given) for a "
		  "log with its wall-clock start; what happened before becomes "
		  "INIT state" },
	{ .name = "to", .arg = "T", .type = CLI_CUSTOM, .take = take_to,
	  .modes = CLI_IN(MODE_GENERATE),
	  .help = "only operations that began before T (as --from)" },
	{ .name = "module", .letter = 'm', .arg = "MODULE", .type = CLI_STRING,
	  .field = F(module), .modes = CLI_IN(MODE_CAPTURE),
	  .help = "capture with a SystemTap module instead of eBPF" },
	{ .name = "mounts", .arg = "FILE", .type = CLI_STRING,
	  .field = F(mounts),
	  .help = "mount table (/proc/mounts format) for logs without one "
		  "(v2/v3, v4 without mount lines), and the mounts -P and -T "
		  "act on (default: this host's)" },
	{ .name = "top", .arg = "N", .type = CLI_LONG, .field = F(top),
	  .min = 1, .max = 100000, .modes = CLI_IN(MODE_ANALYZE),
	  .help = "rows per top list (default 20)" },
	{ .name = "output-format", .arg = "F", .type = CLI_CUSTOM,
	  .take = take_output_format,
	  .modes = RUN | CLI_IN(MODE_ANALYZE) | CLI_IN(MODE_COMPARE),
	  .help = "text or json: --analyze's and --compare's output, a "
		  "replay's statistics on stdout and in -S FILE (default: text, "
		  "-S FILE.json as JSON)" },
	{ .name = "folded", .arg = "FILE", .type = CLI_STRING,
	  .field = F(folded), .modes = CLI_IN(MODE_ANALYZE),
	  .help = "also write folded stacks process;syscall;dir;...;file "
		  "WEIGHT to FILE, for flamegraph.pl, inferno or speedscope" },
	{ .name = "folded-weight", .arg = "W", .type = CLI_CUSTOM,
	  .take = take_folded_weight, .modes = CLI_IN(MODE_ANALYZE),
	  .help = "ops (default), bytes or time" },
	{ .name = "quiet", .letter = 'q', .type = CLI_CUSTOM,
	  .take = take_quiet, .help = "print errors only" },
	{ .name = "verbose", .letter = 'v', .type = CLI_CUSTOM,
	  .take = take_verbose,
	  .help = "explain each step (the probe, the snapshot, the test user, "
		  "the jail, dropped caches)" },
};

const size_t cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);
_Static_assert(sizeof(cli_options) / sizeof(cli_options[0]) <=
	       CLI_OPTIONS_MAX, "CLI_OPTIONS_MAX is too small");

const char *cli_option_flag(const struct cli_option *row, char *buf,
			    size_t size)
{
	if (row->letter)
		snprintf(buf, size, "-%c", row->letter);
	else
		snprintf(buf, size, "--%s", row->name);
	return buf;
}

int cli_set_mode(struct cli_opts *o, enum cli_mode mode, const char *flag)
{
	if (o->mode != MODE_NONE && o->mode != mode) {
		fprintf(stderr, "ioriot: %s cannot be combined with the mode "
			"already given\n", flag);
		return -EINVAL;
	}
	o->mode = mode;
	return 0;
}

int cli_option_take(const struct cli_option *row, struct cli_opts *o,
		    char *arg)
{
	/* The row's member of @o (offsetof), for the types that store. */
	void *field = (char *)o + row->field;
	char opt[40];

	cli_option_flag(row, opt, sizeof(opt));
	switch (row->type) {
	case CLI_HELP_ONLY:
		break;
	case CLI_STRING:
		*(const char **)field = arg;
		break;
	case CLI_FLAG:
		*(bool *)field = true;
		break;
	case CLI_LONG:
		return parse_long(opt, arg, (long)row->min, (long)row->max,
				  (long *)field);
	case CLI_REAL: {
		char what[96];

		if (!parse_double(arg, row->min, row->max,
				  (double *)field))
			break;
		snprintf(what, sizeof(what), "%s expects %s", opt,
			 row->expects);
		return usage_error(what, arg);
	}
	case CLI_MODE:
		if (row->arg)
			*(const char **)field = arg;
		return cli_set_mode(o, row->mode, opt);
	case CLI_CUSTOM:
		return row->take(o, arg);
	}
	return 0;
}
