/*
 * options: the option table (original I/O Riot short flags plus long
 * options), its validation and the --help text.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/cli.h"
#include "ioriot/clock.h"
#include "ioriot/logguard.h"
#include "ioriot/paths.h"
#include "starttime.h"

/* Long options without a short form, numbered beyond the bytes. */
enum { OPT_GRAPHITE_PREFIX = 1000, OPT_REPORT, OPT_START_AT, OPT_MERGE,
       OPT_MAP, OPT_COPIES, OPT_STAGGER, OPT_ONLY_SYSCALLS, OPT_ONLY_COMM,
       OPT_ONLY_PATH, OPT_FROM, OPT_TO, OPT_THINK, OPT_CPU_SCALE, OPT_REPEAT, OPT_LABEL,
       OPT_READY_FD, OPT_REUSE, OPT_SYNC, OPT_NO_SYNC, OPT_PROM };
/* The replay's rate caps. */
enum { OPT_RATE_IOPS = 1100, OPT_RATE_MBPS };
/* The devices under the sandboxes; the replay's cgroup. */
enum { OPT_DEVICES = 1200, OPT_CGROUP };

static const struct option long_options[] = {
	{ "capture", required_argument, NULL, 'c' },
	{ "replay", required_argument, NULL, 'r' },
	{ "init-replay", required_argument, NULL, 'R' },
	{ "init", required_argument, NULL, 'i' },
	{ "name", required_argument, NULL, 'n' },
	{ "user", required_argument, NULL, 'u' },
	{ "wd", required_argument, NULL, 'w' },
	{ "workers", required_argument, NULL, 'p' },
	{ "threads", required_argument, NULL, 't' },
	{ "speed", required_argument, NULL, 's' },
	{ "stats", required_argument, NULL, 'S' },
	{ "no-drop-caches", no_argument, NULL, 'D' },
	{ "drop-caches", no_argument, NULL, 'd' },
	{ "purge", no_argument, NULL, 'P' },
	{ "trash", no_argument, NULL, 'T' },
	{ "pid", required_argument, NULL, 'x' },
	{ "module", required_argument, NULL, 'm' },
	{ "mounts", required_argument, NULL, 'M' },
	{ "duration", required_argument, NULL, 'L' },
	{ "comm", required_argument, NULL, 'C' },
	{ "ring-mb", required_argument, NULL, 'B' },
	{ "max-size", required_argument, NULL, 'Z' },
	{ "min-free", required_argument, NULL, 'F' },
	{ "include", required_argument, NULL, 'I' },
	{ "exclude", required_argument, NULL, 'E' },
	{ "compare", no_argument, NULL, 'K' },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "analyze", required_argument, NULL, 'J' },
	{ "top", required_argument, NULL, 'O' },
	{ "output-format", required_argument, NULL, 'X' },
	{ "folded", required_argument, NULL, 'U' },
	{ "folded-weight", required_argument, NULL, 'H' },
	{ "csv", required_argument, NULL, 'Y' },
	{ "graphite", required_argument, NULL, 'G' },
	{ "graphite-prefix", required_argument, NULL, OPT_GRAPHITE_PREFIX },
	{ "prom", required_argument, NULL, OPT_PROM },
	{ "interval", required_argument, NULL, 'N' },
	{ "spin", required_argument, NULL, 'W' },
	{ "think", no_argument, NULL, OPT_THINK },
	{ "ready-fd", required_argument, NULL, OPT_READY_FD },
	{ "sync", no_argument, NULL, OPT_SYNC },
	{ "no-sync", no_argument, NULL, OPT_NO_SYNC },
	{ "reuse", no_argument, NULL, OPT_REUSE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "cpu-scale", required_argument, NULL, OPT_CPU_SCALE },
	{ "rate-iops", required_argument, NULL, OPT_RATE_IOPS },
	{ "rate-mbps", required_argument, NULL, OPT_RATE_MBPS },
	{ "allow-root", no_argument, NULL, 'A' },
	{ "map", required_argument, NULL, OPT_MAP },
	{ "copies", required_argument, NULL, OPT_COPIES },
	{ "stagger", required_argument, NULL, OPT_STAGGER },
	{ "only-syscalls", required_argument, NULL, OPT_ONLY_SYSCALLS },
	{ "only-comm", required_argument, NULL, OPT_ONLY_COMM },
	{ "only-path", required_argument, NULL, OPT_ONLY_PATH },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ "start-at", required_argument, NULL, OPT_START_AT },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "output", required_argument, NULL, 'o' },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ NULL, 0, NULL, 0 },
};

void cli_usage(void)
{
	fputs(
"Usage: ioriot MODE [OPTIONS]\n"
"Capture the file I/O of a Linux host and replay it elsewhere.\n"
"\n"
"Modes:\n"
"  -c, --capture FILE       capture file I/O into FILE (needs root)\n"
"  -c FILE -r FILE          generate a replay file from a capture log\n"
"  -i, --init FILE          create the files the replay file needs (root)\n"
"  -r, --replay FILE        replay a replay file (after -i)\n"
"  -R, --init-replay FILE   init, then replay\n"
"  -d, --drop-caches        drop the page cache and exit\n"
"  -P, --purge              delete all test data and trash (<mnt>/.ioriot on\n"
"                           every mount; never follows symlinks or crosses mounts)\n"
"  -T, --trash              move all test data to <mnt>/.ioriot/.trash\n"
"      --compare FILE...    compare replay runs (-S FILE.json, also of\n"
"                           --repeat): per configuration (a --label, else a\n"
"                           file) the means with 95% intervals and a winner\n"
"                           only where Welch's t-test finds the difference\n"
"                           significant; then every run side by side\n"
"      --report OUT.html FILE...\n"
"                           write one self-contained HTML page about replay\n"
"                           runs (-S RUN.json, --csv RUN.csv; a JSON and a CSV\n"
"                           of the same base name are one run) and captures\n"
"                           (a capture log, replay file or --analyze's JSON):\n"
"                           the verdict, time series, latencies, top lists,\n"
"                           a flame graph\n"
"      --analyze FILE       print what a capture log or replay file holds:\n"
"                           totals, syscall mix, latency and request sizes,\n"
"                           top files, directories, processes and threads,\n"
"                           syncs, a timeline, what is not replayed\n"
"                           (docs/analyze.md)\n"
"      --merge FILE... [-o OUT.json]\n"
"                           sum the JSON statistics of a fleet's replays into\n"
"                           one (totals summed, latency histograms merged,\n"
"                           the span from the first start to the last end, a\n"
"                           row per host); --compare and --report read it\n"
"      --devices FILE       print the block devices under the replay file's\n"
"                           sandboxes (with --map, --copies), a line each:\n"
"                           sandbox mount device sysfs queue role root\n"
"                           MAJ:MIN backing (docs/ioriot.8; ioriot-sweep)\n"
"  -V, --version            print the version\n"
"  -h, --help               print this help\n"
"\n"
"Options:\n"
"  -n, --name NAME          test name: sandboxes are <mountpoint>/.ioriot/NAME\n"
"                           (generate: required)\n"
"  -u, --user USER          user the replay runs as; generate stores it\n"
"                           (default: $SUDO_USER, else you; never root\n"
"                           unless named), init makes the sandboxes its own\n"
"                           (default: the file's user=)\n"
"      --map CAPTURED=TEST  generate, -i, -r, -R: the sandbox of captured\n"
"                           mount CAPTURED goes to mount TEST of the test\n"
"                           host, TEST/.ioriot/NAME (repeatable)\n"
"      --copies N           -i, -r, -R: N copies of the workload at once, each\n"
"                           in sandboxes NAME.1 ... NAME.N (give -i and -r\n"
"                           the same N); the stats show the total and each\n"
"      --stagger SECONDS    start copy k (k-1) * SECONDS after the first\n"
"      --allow-root         init and replay as root when the user is root;\n"
"                           refused otherwise: a replay as root can change\n"
"                           any file the replay file's paths lead to\n"
"  -w, --wd DIR             working directory: relative file names are taken\n"
"                           from DIR, which is created if missing (default: .);\n"
"                           never a symlink or a directory of another user\n"
"                           than root\n"
"  -p, --workers N          replay with N workers of -t threads each: captured\n"
"  -t, --threads N          processes go to the workers in turn, a worker's\n"
"                           captured threads to its threads in turn (default:\n"
"                           a thread per captured thread, at most 4096)\n"
"  -s, --speed FACTOR       0 = as fast as possible (default), 1 = captured\n"
"                           speed, 2 = twice as fast, 0.5 = half as fast;\n"
"                           with --think: divides the gaps' waits (default 1)\n"
"      --think              -r/-R: pace each captured thread by its think\n"
"                           time: an operation starts once the thread's\n"
"                           previous one completed here plus the captured\n"
"                           gap between them (CPU work where the capture\n"
"                           measured it, the rest slept): the run's time\n"
"                           predicts the program's on this host\n"
"      --cpu-scale X        --think: the test host's CPU is X times as fast\n"
"                           as the captured host's (default 1)\n"
"      --repeat N           -r/-R: N runs, each with caches dropped and the\n"
"                           sandboxes initialised anew (-r: from the second\n"
"                           on); prints per figure the mean, deviation,\n"
"                           extremes and 95% confidence interval; -S FILE.json\n"
"                           holds every run and the summary\n"
"      --reuse              -r: replay sandboxes that a replay already used,\n"
"                           or whose init did not complete (refused without)\n"
"      --label NAME         -r/-R: the configuration the run stands for, in\n"
"                           the statistics and --compare (default: the\n"
"                           sandboxes' file systems and I/O schedulers)\n"
"      --spin US            at -s FACTOR > 0, spin the last US microseconds\n"
"                           before each operation is due instead of sleeping\n"
"                           (default 100); more keeps the CPUs of a busy\n"
"                           virtual machine from halting, at a CPU's cost\n"
"      --start-at TIME      -r/-R: release the first operation at TIME, once\n"
"                           everything else is ready: epoch seconds\n"
"                           (1795600800.5, @1795600800) or ISO 8601 with a\n"
"                           zone (2026-11-25T10:00:00Z, ...+01:00); at most\n"
"                           1 s past, 24 hours ahead; the stats record the\n"
"                           start skew and the clock's NTP state\n"
"  -o, --output FILE        --merge: write to FILE (default: stdout)\n"
"      --rate-iops R[,W]    replay at most R reads and W writes per second\n"
"                           (data calls, AIO and io_uring requests, mapped\n"
"                           pages); R alone: R reads and writes together;\n"
"                           R, or ,W: one class only.  Per process; the wait\n"
"                           is reported apart, never in the latency\n"
"      --rate-mbps R[,W]    the same in MB (10^6 bytes) per second\n"
"      --cgroup PATH        -r, -R: replay in cgroup directory PATH (v1 or\n"
"                           v2), whose blkio/io limits then apply; the\n"
"                           stats record it and its limits\n"
"  -S, --stats FILE         write replay statistics to FILE too (JSON if it\n"
"                           ends in .json)\n"
"  -D, --no-drop-caches     do not drop caches before replay\n"
"      --csv FILE           replay: write a time series to FILE, a row per\n"
"                           interval (docs/series.md; plot: ioriot-plot)\n"
"      --graphite HOST:PORT replay: send the time series to Graphite\n"
"      --graphite-prefix P  the metrics' prefix (default ioriot.NAME)\n"
"      --prom FILE          replay: keep FILE a Prometheus textfile of the\n"
"                           time series and, at the end, the summary,\n"
"                           replaced each interval (node_exporter textfile\n"
"                           collector; docs/series.md)\n"
"      --interval SECONDS   time series interval (default 1, at least 0.1)\n"
"  -x, --pid PID            capture only PID, its threads and descendants\n"
"      --comm NAME          capture only processes named NAME (e.g. java)\n"
"      --duration SECONDS   stop capturing after SECONDS (default 3600)\n"
"      --ready-fd N         -c: write READY and a newline to fd N, then close\n"
"                           it, once the probe records (so does \"capturing\n"
"                           to\" on stderr, and READY=1 to NOTIFY_SOCKET)\n"
"      --sync, --no-sync    record which captured thread woke which, or not:\n"
"                           the order of threads for --think (docs/guide.md);\n"
"                           default: with -x or --comm only (it runs a probe\n"
"                           at every context switch of the host)\n"
"      --ring-mb MB         the probe's rings in all, a power of 2, shared out\n"
"                           to the CPUs, at least 4 MiB each (default 64)\n"
"      --max-size SIZE      stop capturing when the log reaches SIZE bytes\n"
"                           (suffixes K, M, G, T: KiB, MiB, ...; at least\n"
"                           128K); the log is ended cleanly within SIZE, exit\n"
"                           status 0\n"
"      --min-free PCT       stop capturing before the log's file system has\n"
"                           less than PCT% free (default 5, 0: never); the log\n"
"                           is ended cleanly, exit status 1\n"
"      --include DIR        capture only I/O below DIR (repeatable)\n"
"      --exclude DIR        do not capture I/O below DIR (repeatable)\n"
"      --only-syscalls LIST generate: only operations of these classes, a\n"
"                           comma list of read, write, meta, sync, open, other\n"
"                           (opens stay for their fds, without create or\n"
"                           truncate; mmap, munmap, AIO and io_uring stay)\n"
"      --only-comm NAME     generate: only operations of processes running\n"
"                           the program NAME (repeatable, or a comma list)\n"
"      --only-path DIR      generate: only operations on paths below DIR, as\n"
"                           captured (repeatable; --include filters capture)\n"
"      --from T, --to T     generate: only operations that began in [T, T2):\n"
"                           seconds from the capture's start (12.5), epoch\n"
"                           seconds (@1764064800) or ISO 8601\n"
"                           (2026-11-25T10:00:00, UTC unless a zone is given)\n"
"                           for a log with its wall-clock start; what\n"
"                           happened before becomes INIT state\n"
"  -m, --module MODULE      capture with a SystemTap module instead of eBPF\n"
"      --mounts FILE        mount table (/proc/mounts format) for logs without\n"
"                           one (v2/v3, v4 without mount lines), and the mounts\n"
"                           -P and -T act on (default: this host's)\n"
"      --top N              --analyze: rows per top list (default 20)\n"
"      --output-format F    text or json: --analyze's and --compare's\n"
"                           output, a replay's statistics on stdout and in\n"
"                           -S FILE (default: text, -S FILE.json as JSON)\n"
"      --folded FILE        --analyze: also write folded stacks\n"
"                           process;syscall;dir;...;file WEIGHT to FILE, for\n"
"                           flamegraph.pl, inferno or speedscope\n"
"      --folded-weight W    ops (default), bytes or time\n"
"  -q, --quiet              print errors only\n"
"  -v, --verbose            explain each step (the probe, the snapshot,\n"
"                           the test user, the jail, dropped caches)\n"
"\n"
"Examples:\n"
"  sudo ioriot -c io.capture                           # capture\n"
"  sudo ioriot -c io.capture.zst                       # capture, compressed\n"
"  zstdcat io.capture.zst | less                       # read it as text\n"
"  ioriot -c io.capture -r io.replay -n test -u paul   # generate\n"
"  sudo ioriot -R io.replay -S stats.txt               # init + replay\n"
"  ioriot --compare none.json bfq.json                 # compare two runs\n"
"  sudo ioriot -R io.replay -S h1.json --start-at 2026-11-25T10:00:00Z\n"
"  ioriot --merge h1.json h2.json -o fleet.json        # a fleet as one run\n"
"  ioriot --report runs.html none.json none.csv bfq.json bfq.csv\n"
"  ioriot --analyze io.capture --top 10                # what was captured\n"
"\n"
"The reference for every option: man ioriot (in the source tree:\n"
"man ./docs/ioriot.8); the user guide: docs/guide.md.\n", stdout);
}

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

/* A generate-time filter option @c with @arg into @o.  0 or -EINVAL. */
static int take_filter(struct cli_opts *o, int c, char *arg)
{
	char err[256];
	int rc = 0;

	o->filters_given = true;
	switch (c) {
	case OPT_ONLY_SYSCALLS:
		rc = gen_parse_classes(arg, &o->filters.classes, err,
				       sizeof(err));
		break;
	case OPT_ONLY_COMM:
		return add_comms(o, arg);
	case OPT_ONLY_PATH:
		o->filters.paths = o->only_path;
		return add_prefix("--only-path", arg, o->only_path,
				  &o->filters.npaths);
	case OPT_FROM: case OPT_TO:
		rc = gen_parse_time(arg, c == OPT_FROM ? &o->filters.from :
				    &o->filters.to, err, sizeof(err));
		if (rc)
			fprintf(stderr, "ioriot: %s: ", c == OPT_FROM ?
				"--from" : "--to");
		break;
	}
	if (rc)
		fprintf(stderr, "%s%s\n", c == OPT_FROM || c == OPT_TO ? "" :
			"ioriot: ", err);
	return rc;
}

static int set_mode(struct cli_opts *o, enum cli_mode mode, const char *flag)
{
	if (o->mode != MODE_NONE && o->mode != mode) {
		fprintf(stderr, "ioriot: %s cannot be combined with the mode already given\n",
			flag);
		return -EINVAL;
	}
	o->mode = mode;
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

/* Take option @c of getopt_long() with its argument optarg into @o (@arg
 * names the option for messages).  0, or -EINVAL after saying why. */
static int take_option(struct cli_opts *o, int c, const char *arg)
{
	int err = 0;

	switch (c) {
	case 'c': o->capture = optarg; break;
	case 'r': o->replay = optarg; o->replay_given = true; break;
	case 'R': err = set_mode(o, MODE_INIT_REPLAY, "-R"); o->replay = optarg; break;
	case 'i': err = set_mode(o, MODE_INIT, "-i"); o->replay = optarg; break;
	case 'n': o->name = optarg; break;
	case 'u': o->user = optarg; break;
	case 'w': o->wd = optarg; break;
	case 'p': err = parse_long("-p", optarg, 1, 4096, &o->workers); break;
	case 't': err = parse_long("-t", optarg, 1, 65536, &o->threads); break;
	case 's':
		if (parse_double(optarg, 0, 1e9, &o->speed))
			return usage_error("-s expects a factor >= 0", optarg);
		o->speed_given = true;
		break;
	case 'S': o->stats = optarg; break;
	case 'D': o->no_drop_caches = true; break;
	case 'd': err = set_mode(o, MODE_DROP_CACHES, "-d"); break;
	case 'P': err = set_mode(o, MODE_PURGE, "-P"); break;
	case 'T': err = set_mode(o, MODE_TRASH, "-T"); break;
	case 'x': err = parse_long("-x", optarg, 1, INT_MAX, &o->pid); break;
	case 'm': o->module = optarg; break;
	case 'M': o->mounts = optarg; break;
	case 'L':
		if (parse_double(optarg, 1e-9, 365 * 86400.0, &o->duration))
			return usage_error("--duration expects seconds > 0",
					   optarg);
		break;
	case 'C':
		o->comm = optarg;
		if (!*optarg || strlen(optarg) > 15) {
			fprintf(stderr, "ioriot: --comm expects a process name of 1 to 15 characters\n");
			err = -EINVAL;
		}
		break;
	case 'B': err = parse_long("--ring-mb", optarg, 1, 2048, &o->ring_mb); break;
	case 'Z':
		err = parse_size("--max-size", optarg, LOG_GUARD_MIN_SIZE,
				 &o->max_size);
		break;
	case 'F': err = parse_long("--min-free", optarg, 0, 90, &o->min_free); break;
	case 'W': err = parse_long("--spin", optarg, 1, 1000000, &o->spin_us); break;
	case 'A': o->allow_root = true; break;
	case 'I':
		err = add_prefix("--include", optarg, o->include, &o->ninclude);
		break;
	case 'E':
		err = add_prefix("--exclude", optarg, o->exclude, &o->nexclude);
		break;
	case OPT_MAP: err = add_map(o, optarg); break;
	case OPT_COPIES:
		err = parse_long("--copies", optarg, 1, SANDMAP_COPIES_MAX,
				 &o->copies);
		break;
	case OPT_STAGGER:
		if (parse_double(optarg, 0, 86400, &o->stagger))
			err = usage_error("--stagger expects seconds from 0 "
					  "to 86400", optarg);
		break;
	case 'K': err = set_mode(o, MODE_COMPARE, "--compare"); break;
	case OPT_REPORT:
		err = set_mode(o, MODE_REPORT, "--report");
		o->report = optarg;
		break;
	case 'J':
		err = set_mode(o, MODE_ANALYZE, "--analyze");
		o->analyze = optarg;
		break;
	case 'O': err = parse_long("--top", optarg, 1, 100000, &o->top); break;
	case 'X':
		if (!strcmp(optarg, "json") || !strcmp(optarg, "text")) {
			o->output_json = !strcmp(optarg, "json");
			o->output_format_set = true;
			break;
		}
		fprintf(stderr, "ioriot: --output-format is text or json, "
			"not '%s'\n", optarg);
		err = -EINVAL;
		break;
	case 'U': o->folded = optarg; break;
	case 'H':
		o->folded_weight_given = true;
		if (!analyze_weight_parse(optarg, &o->folded_weight))
			break;
		fprintf(stderr, "ioriot: --folded-weight is ops, bytes or "
			"time, not '%s'\n", optarg);
		err = -EINVAL;
		break;
	case 'Y': o->csv = optarg; break;
	case 'G': o->graphite = optarg; break;
	case OPT_GRAPHITE_PREFIX: o->graphite_prefix = optarg; break;
	case OPT_PROM: o->prom = optarg; break;
	case 'N':
		if (parse_double(optarg, 0.1, 3600, &o->interval))
			return usage_error("--interval expects seconds from "
					   "0.1 to 3600", optarg);
		break;
	case OPT_START_AT: {
		char msg[256];

		err = start_time_parse(optarg, clock_ns(CLOCK_REALTIME),
				       &o->start_at_ns, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "ioriot: %s\n", msg);
		break;
	}
	case OPT_MERGE: err = set_mode(o, MODE_MERGE, "--merge"); break;
	case OPT_THINK: o->think = true; break;
	case OPT_REPEAT: err = parse_long("--repeat", optarg, 1, 1000, &o->repeat); break;
	case OPT_LABEL: o->label = optarg; break;
	case OPT_REUSE: o->reuse = true; break;
	case OPT_SYNC: o->sync = true; break;
	case OPT_NO_SYNC: o->no_sync = true; break;
	case OPT_READY_FD:
		err = parse_long("--ready-fd", optarg, 3, 1 << 20, &o->ready_fd);
		break;
	case OPT_CPU_SCALE:
		if (parse_double(optarg, 0.001, 1000, &o->cpu_scale))
			return usage_error("--cpu-scale expects a factor from "
					   "0.001 to 1000", optarg);
		break;
	case 'o': o->output = optarg; break;
	case OPT_ONLY_SYSCALLS: case OPT_ONLY_COMM: case OPT_ONLY_PATH:
	case OPT_FROM: case OPT_TO:
		err = take_filter(o, c, optarg);
		break;
	case OPT_RATE_IOPS:
		err = parse_rate("--rate-iops", optarg, 1e9, o->rate.iops,
				 &o->rate.iops_shared);
		break;
	case OPT_RATE_MBPS:
		err = parse_rate("--rate-mbps", optarg, 1e6, o->rate.mbps,
				 &o->rate.mbps_shared);
		break;
	case OPT_DEVICES:
		err = set_mode(o, MODE_DEVICES, "--devices");
		o->replay = optarg;
		break;
	case OPT_CGROUP: o->cgroup = optarg; break;
	case 'q': o->verbosity--; break;
	case 'v': o->verbosity++; break;
	case 'V': err = set_mode(o, MODE_VERSION, "-V"); break;
	case 'h': err = set_mode(o, MODE_HELP, "-h"); break;
	case ':':
		fprintf(stderr, "ioriot: option %s needs an argument\n", arg);
		err = -EINVAL;
		break;
	default:
		fprintf(stderr, "ioriot: unknown option %s\n", arg);
		err = -EINVAL;
		break;
	}
	return err;
}

/* The operands (the files of --compare and --report, none otherwise), and
 * the mode -c and -r give.  0, or -EINVAL after saying why. */
static int take_operands(struct cli_opts *o, int argc, char **argv)
{
	int err = 0;

	if (o->mode == MODE_COMPARE || o->mode == MODE_REPORT ||
	    o->mode == MODE_MERGE) {
		o->files = argv + optind;
		o->nfiles = (size_t)(argc - optind);
		if (!o->nfiles && o->mode == MODE_MERGE) {
			fprintf(stderr, "ioriot: --merge needs stats files "
				"(written by -S FILE.json)\n");
			err = -EINVAL;
		} else if (!o->nfiles && o->mode == MODE_COMPARE) {
			fprintf(stderr, "ioriot: --compare needs stats files "
				"(written by -S FILE.json)\n");
			err = -EINVAL;
		} else if (!o->nfiles) {
			fprintf(stderr, "ioriot: --report needs files: stats "
				"(-S FILE.json), time series (--csv) or "
				"analyses (--analyze)\n");
			err = -EINVAL;
		}
	} else if (optind < argc) {
		fprintf(stderr, "ioriot: unexpected argument '%s'\n", argv[optind]);
		err = -EINVAL;
	}
	if (!err && (o->capture || o->replay_given)) {
		if (o->mode == MODE_INIT || o->mode == MODE_INIT_REPLAY) {
			fprintf(stderr, "ioriot: -i and -R take the replay file themselves; "
				"generate first with -c FILE -r FILE\n");
			err = -EINVAL;
		} else {
			err = set_mode(o, !o->capture ? MODE_REPLAY :
				       o->replay_given ? MODE_GENERATE :
				       MODE_CAPTURE, o->capture ? "-c" : "-r");
		}
	}
	if (!err && o->mode == MODE_NONE) {
		fprintf(stderr, "ioriot: no mode given\n");
		err = -EINVAL;
	}
	return err;
}

/* Options that go only with some modes, or with each other.  0, or
 * -EINVAL after saying why. */
static int check_combinations(const struct cli_opts *o)
{
	int err = 0;

	if (!err && (o->csv || o->graphite || o->prom || o->interval) &&
	    o->mode != MODE_REPLAY && o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --csv, --graphite, --prom and "
			"--interval go with -r or -R\n");
		err = -EINVAL;
	}
	if (!err && (o->think || o->cpu_scale > 0) &&
	    o->mode != MODE_REPLAY && o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --think and --cpu-scale go with -r or "
			"-R\n");
		err = -EINVAL;
	}
	if (!err && o->ready_fd && o->mode != MODE_CAPTURE) {
		fprintf(stderr, "ioriot: --ready-fd goes with -c (capture)\n");
		err = -EINVAL;
	}
	if (!err && (o->sync || o->no_sync) && o->mode != MODE_CAPTURE) {
		fprintf(stderr, "ioriot: --sync and --no-sync go with -c "
			"(capture)\n");
		err = -EINVAL;
	}
	if (!err && o->sync && o->no_sync) {
		fprintf(stderr, "ioriot: --sync or --no-sync, not both\n");
		err = -EINVAL;
	}
	if (!err && o->reuse && o->mode != MODE_REPLAY) {
		fprintf(stderr, "ioriot: --reuse goes with -r\n");
		err = -EINVAL;
	}
	if (!err && (o->repeat || o->label) && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --repeat and --label go with -r or -R\n");
		err = -EINVAL;
	}
	if (!err && o->repeat && (o->csv || o->graphite || o->prom ||
				  o->start_at_ns)) {
		fprintf(stderr, "ioriot: --repeat does not go with --csv, "
			"--graphite, --prom or --start-at (one run each)\n");
		err = -EINVAL;
	}
	if (!err && o->cpu_scale > 0 && !o->think) {
		fprintf(stderr, "ioriot: --cpu-scale needs --think\n");
		err = -EINVAL;
	}
	if (!err && o->think && o->speed_given && o->speed == 0) {
		fprintf(stderr, "ioriot: --think needs -s above 0: it divides "
			"the captured gaps (-s 0 leaves them out)\n");
		err = -EINVAL;
	}
	if (!err && o->spin_us && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --spin goes with -r or -R\n");
		err = -EINVAL;
	}
	if (!err && replay_rate_capped(&o->rate) && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --rate-iops and --rate-mbps go with -r "
			"or -R\n");
		err = -EINVAL;
	}
	if (!err && (o->max_size || o->min_free >= 0) &&
	    o->mode != MODE_CAPTURE) {
		fprintf(stderr, "ioriot: --max-size and --min-free go with -c "
			"(capture)\n");
		err = -EINVAL;
	}
	if (!err && o->filters_given && o->mode != MODE_GENERATE) {
		fprintf(stderr, "ioriot: --only-syscalls, --only-comm, "
			"--only-path, --from and --to go with -c FILE -r FILE "
			"(generate)\n");
		err = -EINVAL;
	}
	if (!err && o->graphite_prefix && !o->graphite) {
		fprintf(stderr, "ioriot: --graphite-prefix needs --graphite\n");
		err = -EINVAL;
	}
	if (!err && (o->top || o->folded || o->folded_weight_given) &&
	    o->mode != MODE_ANALYZE) {
		fprintf(stderr, "ioriot: --top, --folded and --folded-weight go "
			"with --analyze\n");
		err = -EINVAL;
	}
	if (!err && o->output_format_set && o->mode != MODE_ANALYZE &&
	    o->mode != MODE_COMPARE && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --output-format goes with --analyze, "
			"--compare, -r or -R\n");
		err = -EINVAL;
	}
	if (!err && o->start_at_ns && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --start-at goes with -r or -R\n");
		err = -EINVAL;
	}
	if (!err && o->output && o->mode != MODE_MERGE) {
		fprintf(stderr, "ioriot: -o goes with --merge\n");
		err = -EINVAL;
	}
	if (!err && o->folded_weight_given && !o->folded) {
		fprintf(stderr, "ioriot: --folded-weight needs --folded\n");
		err = -EINVAL;
	}
	if (!err && o->nmap && o->mode != MODE_GENERATE && o->mode != MODE_INIT &&
	    o->mode != MODE_REPLAY && o->mode != MODE_INIT_REPLAY &&
	    o->mode != MODE_DEVICES) {
		fprintf(stderr, "ioriot: --map goes with -c FILE -r FILE "
			"(generate), -i, -r, -R or --devices\n");
		err = -EINVAL;
	}
	if (!err && o->copies && o->mode != MODE_INIT &&
	    o->mode != MODE_REPLAY && o->mode != MODE_INIT_REPLAY &&
	    o->mode != MODE_DEVICES) {
		fprintf(stderr, "ioriot: --copies goes with -i, -r, -R or "
			"--devices\n");
		err = -EINVAL;
	}
	if (!err && o->stagger && !o->copies) {
		fprintf(stderr, "ioriot: --stagger needs --copies\n");
		err = -EINVAL;
	}
	if (!err && o->cgroup && o->mode != MODE_REPLAY &&
	    o->mode != MODE_INIT_REPLAY) {
		fprintf(stderr, "ioriot: --cgroup goes with -r or -R\n");
		err = -EINVAL;
	}
	if (!err && o->interval && !o->csv && !o->graphite && !o->prom) {
		fprintf(stderr, "ioriot: --interval needs --csv, --graphite or "
			"--prom\n");
		err = -EINVAL;
	}
	return err;
}

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
	int c, err = 0;

	memset(o, 0, sizeof(*o));
	o->workers = -1;
	o->threads = -1;
	o->pid = -1;
	o->min_free = -1;
	optind = 1;
	opterr = 0;
	while (!err && (c = getopt_long(argc, argv,
				       ":c:r:R:i:n:u:w:p:t:s:S:DdPTx:m:o:qvVh",
				       long_options, NULL)) != -1)
		err = take_option(o, c, argv[optind - 1]);
	if (!err)
		err = take_operands(o, argc, argv);
	if (!err)
		err = check_combinations(o);
	if (err)
		fprintf(stderr, "Try 'ioriot --help' for more information.\n");
	return err;
}
