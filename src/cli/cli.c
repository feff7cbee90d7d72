/*
 * cli: mode dispatch.  Runs the selected mode and maps its result to a
 * message and an exit status: 0 success, 1 failure, 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/capture.h"
#include "ioriot/cli.h"
#include "ioriot/clock.h"
#include "ioriot/compare.h"
#include "ioriot/generate.h"
#include "ioriot/sandbox.h"
#include "ioriot/log.h"
#include "ioriot/merge.h"
#include "ioriot/outfile.h"
#include "ioriot/pathmap.h"
#include "ioriot/progress.h"
#include "ioriot/textsafe.h"
#include "ioriot/version.h"
#include "commands.h"
#include "notify.h"
#include "htmlpage.h"
#include "container.h"
#include "mapcheck.h"

#define EXIT_USAGE 2

/* Generate's progress: the share of the log read. */
static void generate_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;

	if (total)
		progress_show(p, (double)done / (double)total, false,
			      "%.1f of %.1f MB", (double)done / 1e6,
			      (double)total / 1e6);
	else
		progress_show(p, -1, false, "%.1f MB", (double)done / 1e6);
}

/* The user name to store when -u is not given, or NULL when that would
 * be root (or nobody can be named). */
static const char *default_user(void)
{
	const char *sudo = getenv("SUDO_USER");
	struct passwd *pw;

	if (sudo && *sudo && strcmp(sudo, "root"))
		return sudo;
	pw = getpwuid(getuid());
	return pw && pw->pw_uid != 0 ? pw->pw_name : NULL;
}

static int run_generate(const struct cli_opts *o)
{
	struct gen_summary sum;
	struct progress bar;
	struct gen_options go = {
		.capture_path = o->capture,
		.replay_path = o->replay,
		.name = o->name,
		.user = o->user ? o->user : default_user(),
		.local_mounts = o->mounts,
		.progress = o->verbosity >= 0 ? generate_progress : NULL,
		.progress_ctx = &bar,
		.filters = o->filters_given ? &o->filters : NULL,
	};
	char err[PATHMAP_MAX + 256];

	if (!o->name) {
		fprintf(stderr, "ioriot: generate needs a test name: -n NAME\n");
		return EXIT_USAGE;
	}
	if (!test_name_valid(o->name)) {
		log_error("invalid test name '%s': use 1-255 bytes of printable "
			  "characters without '/' and space, not starting with "
			  "'.'", o->name);
		return EXIT_USAGE;
	}
	struct stat cs, rs;
	if (strcmp(o->capture, o->replay) == 0 ||
	    (stat(o->capture, &cs) == 0 && stat(o->replay, &rs) == 0 &&
	     cs.st_dev == rs.st_dev && cs.st_ino == rs.st_ino)) {
		fprintf(stderr, "ioriot: capture and replay file are the same: %s\n",
			o->capture);
		return EXIT_USAGE;
	}
	if (!go.user) {
		fprintf(stderr, "ioriot: generate needs the user the replay will run "
			"as: -u USER (you are root, and ioriot never replays as "
			"root unless asked to)\n");
		return EXIT_USAGE;
	}
	/* The replay file is written to a new name and renamed over this
	 * one: never over a file that is not the caller's to replace. */
	if (outfile_check_target(o->replay, o->capture, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	if (!strcmp(go.user, "root") && o->verbosity >= 0)
		log_warn("the replay file names user root: init and replay will "
			 "need --allow-root");
	struct sandmap map = { 0 };
	if (mapcheck_rules(o, &map)) {
		sandmap_free(&map);
		return 1;
	}
	go.map = &map;
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	progress_start(&bar, "generate");
	int rc = generate_run(&go, &sum, err, sizeof(err));
	progress_end(&bar);
	if (!rc && map.n && mapcheck_output(o, &map)) {
		sandmap_free(&map);
		return 1;
	}
	sandmap_free(&map);
	double secs = (double)(clock_ns(CLOCK_MONOTONIC) - start) / 1e9;
	if (rc == -ENODATA && sum.lines && o->verbosity >= 0)
		generate_print_summary(stdout, &sum);
	if (rc) {
		log_error("%s", err);
		return 1;
	}
	if (o->verbosity >= 0) {
		generate_print_summary(stdout, &sum);
		printf("Generate time: %.3fs (%.0f lines/s)\n", secs,
		       secs > 0 ? (double)sum.lines / secs : 0.0);
		printf("Replay file: %s\n", o->replay);
	}
	return 0;
}

/* -T and -P: a line per mount that had something, then the total. */
static void cleanup_mount(void *ctx, const char *mnt, size_t n)
{
	const bool *purge = ctx;

	text_write(stdout, mnt, false);
	printf(": %zu %s\n", n,
	       *purge ? "entries removed" : "tests moved to the trash");
}

/*
 * Whether -P or -T (@purge) may act on every test of every mount: asked on
 * a terminal; refused elsewhere (a script names its test with -n, or says
 * --all).  Returns 0 to go on, else the exit status.
 */
static int confirm_all(bool purge)
{
	const char *flag = purge ? "-P" : "-T";
	char answer[16];

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		fprintf(stderr, "ioriot: %s without -n NAME acts on every test "
			"of every mount: give -n NAME for one test, or --all\n",
			flag);
		return EXIT_USAGE;
	}
	fprintf(stderr, "ioriot: %s every test of every mount%s? [y/N] ",
		purge ? "remove" : "move to the trash",
		purge ? ", and the trash" : "");
	if (fgets(answer, sizeof(answer), stdin) &&
	    (!strcmp(answer, "y\n") || !strcmp(answer, "yes\n")))
		return 0;
	fprintf(stderr, "ioriot: nothing done\n");
	return 1;
}

static int run_cleanup(const struct cli_opts *o, bool purge)
{
	size_t total;
	int rc;

	if (o->name && !test_name_valid(o->name)) {
		log_error("invalid test name '%s'", o->name);
		return EXIT_USAGE;
	}
	if (!o->name && !o->all && (rc = confirm_all(purge)))
		return rc;
	rc = testhost_cleanup(o->mounts ? o->mounts : "/proc/self/mounts",
			      purge, o->name, o->verbosity >= 0 ?
			      cleanup_mount : NULL, &purge, &total);
	if (o->verbosity >= 0)
		printf("%s: %zu\n", purge ? "Removed" : "Moved to the trash",
		       total);
	return rc ? 1 : 0;
}

volatile sig_atomic_t cli_stop_signalled;

/* The signal number that asked to stop, 0 if none. */
static void on_stop_signal(int sig)
{
	__atomic_store_n(&cli_stop_signalled, sig, __ATOMIC_RELAXED);
}

/* SIGINT, SIGTERM and SIGHUP (a closed terminal) set cli_stop_signalled: the
 * capture or replay stops and still ends its log or reports; @flags are
 * the handler's (SA_RESTART: the replay's syscalls in flight restart). */
void cli_catch_stop_signals(int flags)
{
	struct sigaction sa = { .sa_handler = on_stop_signal,
				.sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}


/* The capture's status line, and what the last one said (for the rate);
 * what capture_ready() says and to whom. */
struct capture_cli {
	struct progress bar;
	uint64_t last_events, last_elapsed_ns;
	bool verbose;
	const char *output;
	int ready_fd;			/* --ready-fd, or -1 */
};

static void capture_status(void *ctx, const struct capture_status *st)
{
	struct capture_cli *cc = ctx;
	uint64_t interval = st->elapsed_ns - cc->last_elapsed_ns;

	progress_show(&cc->bar, st->duration_ns ? (double)st->elapsed_ns /
		      (double)st->duration_ns : -1, false,
		      "%.0fs, %llu events (%.0f/s), %.1f MB, %llu lost",
		      (double)st->elapsed_ns / 1e9,
		      (unsigned long long)st->events,
		      interval ? (double)(st->events - cc->last_events) * 1e9 /
				 (double)interval : 0.0,
		      (double)st->log_bytes / 1e6, (unsigned long long)st->lost);
	cc->last_events = st->events;
	cc->last_elapsed_ns = st->elapsed_ns;
}

/* The probe is attached and the /proc snapshot written: only now does
 * the capture record, so only now is that said, and told to --ready-fd
 * and systemd. */
static void capture_ready(void *ctx)
{
	struct capture_cli *cc = ctx;
	int rc;

	if (cc->verbose)
		fprintf(stderr, "ioriot: capturing to %s (Ctrl-C stops)\n",
			cc->output);
	rc = notify_ready(cc->ready_fd);
	if (rc)
		log_warn("cannot tell that the capture is ready (--ready-fd, "
			 "NOTIFY_SOCKET): %s", strerror(-rc));
}

/*
 * The log's name: @pattern with its strftime(3) conversions (%Y, %m, %d,
 * %H, %M, %S, ...) in local time at the start, into @out of @size bytes
 * (a name without '%' stays as it is).  0, or 1 after saying why.
 */
static int log_name(const char *pattern, char *out, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!strchr(pattern, '%')) {
		snprintf(out, size, "%s", pattern);
		return strlen(pattern) < size ? 0 : 1;
	}
	if (!localtime_r(&now, &tm)) {
		log_error("-c %s: cannot read the local time", pattern);
		return 1;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	size_t len = strftime(out, size, pattern, &tm);
#pragma GCC diagnostic pop
	if (!len) {
		log_error("-c %s: the name it makes is empty or too long",
			  pattern);
		return 1;
	}
	return 0;
}

static int run_capture(const struct cli_opts *o)
{
	char path[PATH_MAX], err[PATHMAP_MAX + 256], ct_cgroup[PATH_MAX];
	const char *cg = o->cgroup;
	struct cgroup_sel cgroup;

	if (log_name(o->capture, path, sizeof(path)))
		return 1;
	if ((o->cgroup || o->container) && o->module) {
		fprintf(stderr, "ioriot: --cgroup, --container: the SystemTap "
			"backend (-m) cannot select a cgroup\n");
		return EXIT_USAGE;
	}
	if (o->container) {
		if (container_cgroup(o->container, ct_cgroup, sizeof(ct_cgroup),
				     err, sizeof(err))) {
			log_error("%s", err);
			return 1;
		}
		cg = ct_cgroup;
		if (o->verbosity >= 0)
			fprintf(stderr, "ioriot: container %s: cgroup %s\n",
				o->container, cg);
	}
	if (cg && cgroup_sel_resolve(cg, "/proc/self/mountinfo",
				     "/proc/cgroups", &cgroup, err,
				     sizeof(err))) {
		log_error("%s", err);
		return EXIT_USAGE;
	}

	struct capture_summary sum;
	struct capture_cli cc = { .verbose = o->verbosity >= 0,
				  .output = path,
				  .ready_fd = o->ready_fd > 0 ?
					      (int)o->ready_fd : -1 };
	struct capture_options co = {
		.output = path,
		.overwrite = o->force,
		.pid = o->pid > 0 ? (uint32_t)o->pid : 0,
		.comm = o->comm,
		.cgroup = cg ? &cgroup : NULL,
		.duration_ns = (uint64_t)(o->duration * 1e9),
		.ring_bytes = (uint64_t)o->ring_mb << 20,
		.max_size = o->max_size,
		.sync = o->sync || (!o->no_sync && (o->pid > 0 || o->comm ||
						     cg)),
		.min_free_pct = o->min_free >= 0 ? (unsigned)o->min_free :
				CAPTURE_DEFAULT_MIN_FREE,
		.status = o->verbosity >= 0 ? capture_status : NULL,
		.status_ctx = &cc,
		.stop = &cli_stop_signalled,
		.ready = capture_ready, .ready_ctx = &cc,
		.filter = { .include = o->include, .ninclude = o->ninclude,
			    .exclude = o->exclude, .nexclude = o->nexclude },
	};

	if (o->ring_mb && (o->ring_mb & (o->ring_mb - 1))) {
		fprintf(stderr, "ioriot: --ring-mb must be a power of 2\n");
		return EXIT_USAGE;
	}
	char proc[32];
	snprintf(proc, sizeof(proc), "/proc/%ld", o->pid);
	if (o->pid > 0 && access(proc, F_OK) < 0) {
		fprintf(stderr, "ioriot: -x %ld: no such process\n", o->pid);
		return 1;
	}
	if (o->module && (o->module[0] == '-' ||
			  (o->comm && strpbrk(o->comm, " \t=")))) {
		fprintf(stderr, "ioriot: -m: the module name must not start with '-', "
			"and --comm must not hold blanks or '=' for SystemTap\n");
		return EXIT_USAGE;
	}
	if (cc.ready_fd >= 0 && fcntl(cc.ready_fd, F_GETFD) < 0) {
		fprintf(stderr, "ioriot: --ready-fd %d: not an open file "
			"descriptor\n", cc.ready_fd);
		return EXIT_USAGE;
	}
	cli_catch_stop_signals(0);	/* the probe's poll returns, sees the stop */
	if (o->verbosity >= 0)
		fprintf(stderr, "ioriot: loading the probe for %s\n", path);
	progress_start(&cc.bar, "capture");
	int rc = o->module ? capture_stap_run(&co, o->module, &sum, err, sizeof(err))
			   : capture_run(&co, &sum, err, sizeof(err));
	progress_end(&cc.bar);
	/* A full disk stopped the capture: the log is whole and ends with
	 * its end record, so the summary comes first, then the error. */
	if (rc && !sum.log_full) {
		log_error("%s%s", err, rc == -EEXIST ? " (--force overwrites it; "
			  "-c NAME-%Y%m%d-%H%M%S.capture makes a new name each "
			  "time)" : "");
		return 1;
	}
	if (o->verbosity >= 0) {
		printf("Events: %llu\n", (unsigned long long)sum.events);
		if (o->ninclude || o->nexclude)
			printf("Events filtered out by path: %llu\n",
			       (unsigned long long)sum.excluded);
		if (sum.paths_cut)
			printf("Events logged without a path (unreadable or "
			       "longer than PATH_MAX): %llu\n",
			       (unsigned long long)sum.paths_cut);
		printf("Events lost: %llu%s\n", (unsigned long long)sum.lost,
		       sum.lost ? " (raise --ring-mb)" : "");
		if (sum.log_stop)
			printf("Events lost at the stop (%s): %llu\n",
			       sum.log_stop == LOG_STOP_MAX_SIZE ? "--max-size" :
			       "--min-free",
			       (unsigned long long)sum.lost_disk_full);
		else if (sum.log_full || sum.lost_disk_full)
			printf("Events lost to the full disk: %llu\n",
			       (unsigned long long)sum.lost_disk_full);
		printf("Files open at start: %llu\n",
		       (unsigned long long)sum.snapshot_fds);
		printf("Tracepoints missing on this kernel: %d\n", sum.detached);
		if (sum.maps_unfollowed)
			printf("File mappings not followed (more than %d in a "
			       "process; their page faults are not captured): "
			       "%llu\n", IORIOT_EV_MAPS,
			       (unsigned long long)sum.maps_unfollowed);
		if (sum.uncaptured.known) {
			printf("Not captured (not replayed): ");
			if (!uncaptured_file_io(&sum.uncaptured))
				printf("none");
			uncaptured_print_file_io(stdout, &sum.uncaptured, false);
			printf("\nOther syscalls not captured: %llu (not file "
			       "I/O)\n", (unsigned long long)
			       uncaptured_other(&sum.uncaptured));
			printf("Not captured, counted for: %s\n", o->pid > 0 ||
			       o->comm || cg ? "the processes -x, --comm "
			       "and --cgroup select" : "every process (--include "
			       "and --exclude select paths, not calls)");
		}
		printf("Log size: %.1f MB", (double)sum.bytes / 1e6);
		if (sum.text_bytes != sum.bytes)
			printf(" (%.1f MB of text, %.1f bytes per event)",
			       (double)sum.text_bytes / 1e6, sum.events ?
			       (double)sum.bytes / (double)sum.events : 0.0);
		printf("\n");
		printf("Duration: %.1fs\n", (double)sum.duration_ns / 1e9);
		printf("Capture log: %s\n", path);
	}
	/* --max-size is an end the user asked for, like --duration. */
	if (rc && sum.log_stop == LOG_STOP_MAX_SIZE) {
		fflush(stdout);
		if (o->verbosity >= 0)
			fprintf(stderr, "ioriot: %s\n", err);
		return 0;
	}
	if (rc) {
		fflush(stdout);
		log_error("%s", err);
		return 1;
	}
	return 0;
}

/* -w DIR: work in DIR, made if missing.  A DIR that is a symlink, or
 * another user's but root's (made in /tmp before ioriot ran as root), is
 * refused: the outputs named relative to it would be in that user's
 * hands.  Trailing "/" and "/." are dropped first, since the kernel
 * follows a symlink before them even with O_NOFOLLOW.  0 or 1 with a
 * message. */
static int enter_wd(const char *wd)
{
	const char *why = NULL;
	char dir[PATH_MAX];
	size_t len = strlen(wd);
	struct stat st;
	int fd = -1;

	for (;;) {
		while (len > 1 && wd[len - 1] == '/')
			len--;
		if (len > 2 && wd[len - 1] == '.' && wd[len - 2] == '/')
			len -= 2;
		else
			break;
	}
	if (len >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		goto fail;
	}
	memcpy(dir, wd, len);
	dir[len] = '\0';
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (st.st_uid != 0 && !outfile_owner_ok(st.st_uid)) {
		why = "a directory of another user";
		goto fail;
	}
	if (fchdir(fd))
		goto fail;
	close(fd);
	return 0;

fail:
	log_error("-w %s: %s", wd, why ? why :
		  errno == ELOOP || errno == ENOTDIR ?
		  "not a directory, or a symlink (not followed)" :
		  strerror(errno));
	if (fd >= 0)
		close(fd);
	return 1;
}

/* --compare: every file is read and checked before the table is printed;
 * each bad one is reported. */
static int run_compare(const struct cli_opts *o)
{
	struct compare *c = compare_new();
	char err[PATHMAP_MAX + 256];
	int failed = 0, rc;

	if (!c) {
		log_error("%s", strerror(ENOMEM));
		return 1;
	}
	for (size_t i = 0; i < o->nfiles; i++) {
		if (compare_add(c, o->files[i], err, sizeof(err))) {
			log_error("%s", err);
			failed = 1;
		}
	}
	if (!failed && (rc = (o->output_json ? compare_write_json :
				      compare_write)(stdout, c))) {
		log_error("standard output: %s", strerror(-rc));
		failed = 1;
	}
	compare_free(c);
	return failed;
}

/* --merge FILE... [-o OUT]: every input is read and checked before the
 * output is opened; -o never names an input. */
static int run_merge(const struct cli_opts *o)
{
	char err[PATHMAP_MAX + 256];
	struct merge *m = merge_load(o->files, o->nfiles, err, sizeof(err));
	FILE *f = stdout;
	int fd, ret = 1;

	if (!m) {
		log_error("%s", err);
		return 1;
	}
	for (size_t i = 0; o->output && i < o->nfiles; i++) {
		if (outfile_check_target(o->output, o->files[i], err,
					 sizeof(err))) {
			log_error("%s", err);
			goto out;
		}
	}
	if (o->output) {
		fd = outfile_open(o->output, 0644, OUTFILE_TRUNCATE, NULL, NULL,
				  err, sizeof(err));
		if (fd < 0) {
			log_error("%s", err);
			goto out;
		}
		if (!(f = fdopen(fd, "w"))) {
			log_error("%s: %s", o->output, strerror(errno));
			close(fd);
			goto out;
		}
	}
	ret = merge_write(f, m) ? 1 : 0;
	if (f != stdout && fclose(f))
		ret = 1;
	if (ret)
		log_error("%s: write error", o->output ? o->output :
			  "standard output");
	else if (o->output && o->verbosity >= 0)
		printf("Merged %zu runs into %s\n", o->nfiles, o->output);
out:
	merge_free(m);
	return ret;
}

/* --analyze FILE: the analysis on standard output. */
static int run_analyze(const struct cli_opts *o)
{
	struct analyze_options ao = {
		.path = o->analyze,
		.top = (unsigned)o->top,
		.format = o->output_json ? ANALYZE_JSON : ANALYZE_TEXT,
		.folded_path = o->folded,
		.folded_weight = o->folded_weight,
		.local_mounts = o->mounts,
		.tool_version = ioriot_version(),
	};
	char err[PATHMAP_MAX + 256];

	if (analyze_run(&ao, stdout, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	return 0;
}

int cli_main(int argc, char **argv)
{
	struct cli_opts o;

	if (cli_parse(argc, argv, &o))
		return EXIT_USAGE;
	log_set_level(o.verbosity < 0 ? LOG_ERROR :
		      o.verbosity > 0 ? LOG_INFO : LOG_WARN);
	if (o.wd && o.mode != MODE_HELP && o.mode != MODE_VERSION &&
	    enter_wd(o.wd))
		return 1;
	switch (o.mode) {
	case MODE_HELP:
		cli_usage();
		return 0;
	case MODE_VERSION:
		printf("ioriot %s\n", ioriot_version());
		return 0;
	case MODE_GENERATE:
		return run_generate(&o);
	case MODE_CAPTURE:
		return run_capture(&o);
	case MODE_INIT:
		return cli_run_init(&o);
	case MODE_REPLAY:
	case MODE_INIT_REPLAY:
		return cli_run_replay(&o);
	case MODE_DROP_CACHES:
		return replay_session_drop_caches(o.verbosity < 0);
	case MODE_PURGE:
		return run_cleanup(&o, true);
	case MODE_TRASH:
		return run_cleanup(&o, false);
	case MODE_COMPARE:
		return run_compare(&o);
	case MODE_REPORT:
		return cli_report(&o);
	case MODE_ANALYZE:
		return run_analyze(&o);
	case MODE_MERGE:
		return run_merge(&o);
	case MODE_DEVICES:
		return cli_run_devices(&o);
	case MODE_NONE:
		break;
	}
	return EXIT_USAGE;
}
