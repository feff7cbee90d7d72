/*
 * session: a replay session (session.h), `-r` and the replay half of
 * `-R`: the replay file and its test user, the files root opens before the
 * jail (-S, /proc/diskstats, the time series), the engine's callbacks
 * (progress, privileges, copies), and the reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/cgroup.h"
#include "ioriot/clock.h"
#include "ioriot/diskstats.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "ioriot/paths.h"
#include "ioriot/progress.h"
#include "ioriot/replay.h"
#include "ioriot/report.h"
#include "ioriot/rlog.h"
#include "ioriot/sandbox.h"
#include "ioriot/sandmap.h"
#include "ioriot/session.h"
#include "ioriot/timeseries.h"
#include "session_parts.h"

#define START_LATE_WARN_NS 1000000LL	/* --start-at missed by 1 ms */

/* State of a session shared with the engine's callbacks. */
struct session {
	const char *user;
	uid_t uid;
	gid_t gid;
	bool verbose;
	uint64_t last_ns, last_done;
	struct progress bar;
	struct report_info info;
	gid_t *groups;			/* the test user's, resolved early */
	int ngroups;
	int diskstats_fd;		/* /proc/diskstats, or -1 */
	struct uncaptured uncaptured;	/* from the replay file's header */
	struct uncaptured uring_skipped;	/* likewise */
	struct diskstats disks_before;	/* when the replay starts */
	struct diskstats disks_after;	/* at its end */
	struct disk_set devices;	/* the devices under the sandboxes:
					 * info.disks' names point into it */
	struct cgroup_limits limits;	/* --cgroup's, at the start */
	uint64_t disks_before_ns;
	const volatile sig_atomic_t *stop;	/* the stop signal, or 0 */
};

struct rlog_reader *replay_session_open(const struct replay_session_opts *o)
{
	char err[PATHMAP_MAX + 256];
	struct rlog_reader *r = rlog_open(o->replay, err, sizeof(err));

	if (!r)
		log_error("%s", err);
	return r;
}

/* uid and gid of @user; false if there is no such user. */
static bool user_ids(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		return false;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return true;
}

int replay_session_test(const struct replay_session_opts *o,
			const struct rlog_header *h, char user[256],
			char name[256], uid_t *uid, gid_t *gid)
{
	snprintf(user, 256, "%s", o->user ? o->user : h->user);
	snprintf(name, 256, "%s", h->name);
	if (!user_ids(user, uid, gid)) {
		log_error("unknown user '%s' (-u USER, or user= in %s)", user,
			  o->replay);
		return 1;
	}
	if (*uid == 0 && !o->allow_root) {
		log_error("%s: the test user %s is root: ioriot does not init or "
			  "replay as root (-u USER for another user, or "
			  "--allow-root)", o->replay, user);
		return 1;
	}
	if (*uid == 0)
		log_warn("running as root (--allow-root): the sandbox checks "
			 "are all that stands between %s and this host's files",
			 o->replay);
	return 0;
}

int replay_session_drop_caches(bool quiet)
{
	char err[256];

	log_info("dropping the page cache (sync, then 3 to "
		 "/proc/sys/vm/drop_caches)");
	if (testhost_drop_caches(err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	if (!quiet)
		printf("Caches dropped\n");
	return 0;
}

/* Replay progress on stderr; tracks the highest load average. */
static void replay_progress(void *ctx, uint64_t done, uint64_t total,
			    int64_t ahead_ns)
{
	struct session *ss = ctx;
	double load = 0;

	if (getloadavg(&load, 1) == 1 && load > ss->info.loadavg_max)
		ss->info.loadavg_max = load;
	if (!ss->verbose)
		return;
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	double rate = now > ss->last_ns ? (double)(done - ss->last_done) * 1e9 /
					  (double)(now - ss->last_ns) : 0;
	progress_show(&ss->bar, total ? (double)done / (double)total : 1, false,
		      "%llu of %llu ops, %.0f ops/s, %s %.3fs, loadavg %.2f",
		      (unsigned long long)done, (unsigned long long)total, rate,
		      ahead_ns >= 0 ? "ahead" : "behind",
		      (double)(ahead_ns >= 0 ? ahead_ns : -ahead_ns) / 1e9,
		      load);
	ss->last_ns = now;
	ss->last_done = done;
}

/*
 * Once the replay is confined to its sandboxes, before its first
 * operation: become the test user when run as root, for good, and
 * non-dumpable, so that the test user can neither trace the replay nor use
 * the files root opened for it (-S, --csv, the replay file, --prom's
 * directory).  Everything it needs was opened or resolved before (the
 * jail has no /proc, no /etc).
 */
static int replay_ready(void *ctx, char *err, size_t errlen)
{
	struct session *ss = ctx;

	/* Without /proc/diskstats the stats just lack the devices. */
	if (ss->diskstats_fd >= 0 &&
	    diskstats_read(&ss->disks_before, ss->diskstats_fd) == 0)
		ss->disks_before_ns = clock_ns(CLOCK_MONOTONIC);
	log_info("replay: confined to the sandboxes (a mount namespace of "
		 "its own)");
	if (geteuid() != 0 || ss->uid == 0)
		return 0;
	if (setgroups((size_t)ss->ngroups, ss->groups) || setgid(ss->gid) ||
	    setuid(ss->uid) || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		int e = errno;
		snprintf(err, errlen, "cannot become user %s: %s", ss->user,
			 strerror(e));
		return -e;
	}
	log_info("replay: now user %s for good; the first operation starts",
		 ss->user);
	return 0;
}

/* The groups of @user (primary group @gid) in a malloc'd array of
 * *@n, or NULL with a message logged. */
static gid_t *user_groups(const char *user, gid_t gid, int *n)
{
	gid_t *groups = NULL, *grown;
	int want = 32;

	for (;;) {
		if (!(grown = realloc(groups, (size_t)want * sizeof(*groups)))) {
			log_error("out of memory");
			free(groups);
			return NULL;
		}
		groups = grown;
		*n = want;
		if (getgrouplist(user, gid, groups, n) >= 0)
			return groups;
		if (*n <= want)
			want *= 2;
		else
			want = *n;
	}
}

/* Open as many files as the hard limit allows. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			log_warn("cannot raise the open file limit: %s",
				 strerror(errno));
	}
}

/*
 * Open -S FILE before the replay drops privileges (outfile_open(): never
 * through a symlink, never another user's file or the replay file), without
 * emptying it: a replay that fails leaves an older file as it was.
 * *@new_in gets the fd of its directory if the file is new (then a failed
 * replay removes it from there), else -1.  NULL with a message logged.
 */
static FILE *open_stats(const char *path, const char *replay, int *new_in)
{
	char err[PATHMAP_MAX + 256];
	struct stat st;
	bool created = lstat(path, &st) < 0 && errno == ENOENT;
	FILE *f;
	int fd, dirfd;

	*new_in = -1;
	fd = outfile_open(path, 0644, 0, replay, &dirfd, err, sizeof(err));
	if (fd < 0) {
		log_error("%s", err);
		return NULL;
	}
	if (!(f = fdopen(fd, "w"))) {
		log_error("%s: %s", path, strerror(errno));
		close(fd);
		if (created)
			unlinkat(dirfd, outfile_base(path), 0);
		close(dirfd);
		return NULL;
	}
	if (created)
		*new_in = dirfd;
	else
		close(dirfd);
	return f;
}

bool session_stats_json(const struct replay_session_opts *o)
{
	size_t len = strlen(o->stats);

	return o->output_format_set ? o->output_json :
	       len >= 5 && !strcmp(o->stats + len - 5, ".json");
}

/* Write the report to stdout and to @stats (-S FILE, opened by
 * open_stats()), which it empties first and closes. */
static int write_reports(const struct replay_session_opts *o,
			 const struct session *ss,
			 const struct replay_summary *sum, FILE *stats)
{
	int ret;

	if (!o->quiet)
		(o->output_json ? report_write_json : report_write)(stdout,
								    &ss->info,
								    sum);
	if (!stats)
		return 0;
	ret = ftruncate(fileno(stats), 0) ? -errno : 0;
	if (!ret)
		ret = session_stats_json(o) ?
		      report_write_json(stats, &ss->info, sum) :
		      report_write(stats, &ss->info, sum);
	if (fclose(stats) && !ret)
		ret = -errno;
	if (ret) {
		log_error("%s: %s", o->stats, strerror(-ret));
		return 1;
	}
	if (!o->quiet)
		printf("Stats written to %s\n", o->stats);
	return 0;
}

/* The figures of the replay's end into ss->info: those of the block
 * devices under the sandboxes since the start (their array, malloc'd, or
 * NULL; their names are those of ss->devices, freed with it), the load
 * average, the stop signal and the time. */
static struct disk_figures *note_end(struct session *ss)
{
	struct diskstats *after = &ss->disks_after;
	struct disk_figures *disks = NULL;
	double load;

	if (ss->disks_before_ns &&
	    diskstats_read(after, ss->diskstats_fd) == 0) {
		double secs = (double)(clock_ns(CLOCK_MONOTONIC) -
				       ss->disks_before_ns) / 1e9;
		disks = calloc(ss->devices.n ? ss->devices.n : 1,
			       sizeof(*disks));
		if (disks) {
			ss->info.ndisks = diskstats_delta_of(&ss->disks_before,
							     after, secs,
							     &ss->devices,
							     disks);
			ss->info.disks = disks;
		}
	}
	if (getloadavg(&load, 1) == 1 && load > ss->info.loadavg_max)
		ss->info.loadavg_max = load;
	ss->info.interrupted_by = *ss->stop;
	ss->info.finished_ns = clock_ns(CLOCK_REALTIME);
	return disks;
}

/* When the first copy starts (--copies): the devices' figures start. */
static void copies_started(void *ctx)
{
	struct session *ss = ctx;

	if (ss->diskstats_fd >= 0 &&
	    diskstats_read(&ss->disks_before, ss->diskstats_fd) == 0)
		ss->disks_before_ns = clock_ns(CLOCK_MONOTONIC);
}

/* The memory this host has available (MemAvailable), in bytes; 0 when
 * unknown. */
static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kb * 1024;
}

/*
 * The memory of @n replays of a file of @timelines timelines (@n copies,
 * or one replay without --copies; replay_memory_bytes()) against the
 * memory limit of the cgroup this
 * process is in (--cgroup's, if given, and its ancestors': memory.max,
 * memory.limit_in_bytes): refused before the replay starts when it cannot
 * fit, rather than OOM-killed by the kernel in the middle.  0, or -ENOMEM
 * with why in @err.
 */
static int cgroup_memory_fits(size_t n, uint64_t timelines, char *err,
			      size_t errlen)
{
	uint64_t need = n * replay_memory_bytes(timelines), limit;
	char where[PATHMAP_MAX];

	cgroup_memory_limit("/proc/self/cgroup", "/sys/fs/cgroup", &limit,
			    where, sizeof(where));
	if (need <= limit)
		return 0;
	snprintf(err, errlen, "the replay needs at least %.1f MiB of memory "
		 "(%zu replay process%s: the window of operations read ahead, "
		 "the statistics, a thread per timeline), more than the %.1f MiB its cgroup allows "
		 "(%s): a higher limit%s", (double)need / 1048576.0, n,
		 n == 1 ? "" : "es", (double)limit / 1048576.0, where,
		 n > 1 ? ", or fewer --copies" : "");
	return -ENOMEM;
}

/* --copies: say how much memory the @n copies of a file of @timelines
 * timelines will take before they start, and refuse when it is more than
 * this host has available.  0, or -ENOMEM with why in @err. */
static int copies_memory(const struct replay_session_opts *o, size_t n,
			 uint64_t timelines, char *err, size_t errlen)
{
	/* Each copy's process, and its summary twice in the parent (each
	 * copy's, in shared memory and in the table). */
	uint64_t need = n * (replay_memory_bytes(timelines) +
			     2 * sizeof(struct replay_summary));
	uint64_t avail = mem_available();

	if (avail && need > avail) {
		snprintf(err, errlen, "--copies %zu would take about %.1f GiB "
			 "of memory, more than the %.1f GiB available: fewer "
			 "copies, or several hosts (--start-at)", n,
			 (double)need / 1073741824.0,
			 (double)avail / 1073741824.0);
		return -ENOMEM;
	}
	if (!o->quiet)
		fprintf(stderr, "ioriot: --copies %zu: about %.0f MiB of memory "
			"(%zu replay processes and their statistics; %.0f MiB "
			"available)\n", n, (double)need / 1048576.0, n,
			(double)avail / 1048576.0);
	return 0;
}

/* --copies: replay @ro in o->copies processes at once (session_parts.h),
 * in the sandboxes @host; closes @rl (each copy reads the file itself). */
static int replay_copies(const struct replay_session_opts *o,
			 const struct replay_options *ro, struct session *ss,
			 char *const *host, struct rlog_reader *rl,
			 struct replay_summary *sum, struct replay_summary *per,
			 uint64_t *offsets, char *err, size_t errlen)
{
	struct copies_options co = {
		.n = (size_t)o->copies, .stagger_s = o->stagger,
		.host_roots = host,
		.nsandboxes = rlog_header(rl)->nsandboxes,
		.stop = ss->stop,
		.started = copies_started, .started_ctx = ss,
	};

	uint64_t timelines = rlog_header(rl)->timelines_hint;

	rlog_close(rl);
	if (copies_memory(o, co.n, timelines, err, errlen))
		return -ENOMEM;
	log_info("replay: %zu copies, each a process of its own%s", co.n,
		 o->stagger ? ", started one after the other (--stagger)" :
		 ", started together");
	return copies_run(ro, &co, sum, per, offsets, err, errlen);
}

/*
 * The sandboxes of this host for the replay file's header @h (--map,
 * --copies): *@sets sets, *@n roots in all, each logged with -v; two
 * sandboxes put into one are checked for colliding paths.  NULL with the
 * message logged.
 */
static char **host_sandboxes(const struct replay_session_opts *o,
			     const struct rlog_header *h, size_t *sets,
			     size_t *n)
{
	char err[PATHMAP_MAX + 256];
	char **roots = replay_session_host_roots(o, h, sets);

	if (!roots)
		return NULL;
	*n = *sets * h->nsandboxes;
	for (size_t i = 0; i < *n; i++)
		log_info("replay: sandbox %s", roots[i]);
	if (sandmap_shared(h->sandboxes, roots, h->nsandboxes) &&
	    sandmap_check_collisions(o->replay, roots, err, sizeof(err))) {
		log_error("%s: %s", o->replay, err);
		sandmap_roots_free(roots, *n);
		return NULL;
	}
	return roots;
}

/*
 * --cgroup @path: this process, so the replay's threads and its copies,
 * into the cgroup, as root before the privileges drop; its I/O limits
 * into ss->info.  0, or 1 with a message logged.
 */
static int join_cgroup(const char *path, struct session *ss)
{
	char err[PATHMAP_MAX + 256];

	if (cgroup_join(path, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	if (cgroup_limits_read(path, &ss->limits)) {
		log_error("out of memory");
		return 1;
	}
	ss->info.cgroup = path;
	ss->info.cgroup_limits = &ss->limits;
	log_info("replay: in cgroup %s (%zu I/O limit files set)", path,
		 ss->limits.n);
	return 0;
}

/* The figures of the replay's start into ss->info: the load average, the
 * host's name (into @host, @len bytes), --start-at's target. */
static void note_start(const struct replay_session_opts *o, struct session *ss,
		       char *host, size_t len)
{
	ss->last_ns = clock_ns(CLOCK_MONOTONIC);
	getloadavg(&ss->info.loadavg_max, 1);
	if (gethostname(host, len) == 0) {
		host[len - 1] = '\0';
		ss->info.host = host;
	}
	ss->info.start_at_ns = o->start_at_ns;
	if (o->start_at_ns)
		log_info("replay: the first operation waits for --start-at "
			 "(%.3f s from now)", ((double)o->start_at_ns -
			 (double)clock_ns(CLOCK_REALTIME)) / 1e9);
}

/* Warn of a start after --start-at, and of a stop by signal @stopped. */
static void warn_start_and_stop(const struct replay_session_opts *o,
				int stopped, const struct replay_summary *sum)
{
	if (o->start_at_ns && sum->start_skew_ns > START_LATE_WARN_NS)
		log_warn("replay started %.3f s after --start-at (init or the "
			 "setup took longer)", (double)sum->start_skew_ns / 1e9);
	if (stopped)
		log_warn("replay stopped early by SIG%s: the statistics cover "
			 "only part of the replay file", sigabbrev_np(stopped));
	if (replay_incomplete(sum))
		log_warn("the run is incomplete: %llu operations found the test "
			 "mount full (ENOSPC, EDQUOT), %llu met I/O errors (EIO); "
			 "--compare leaves it out",
			 (unsigned long long)sum->disk_full_ops,
			 (unsigned long long)sum->io_error_ops);
	if (replay_prediction_note(sum))
		log_warn("%.0f%% of the captured threads' time lies between "
			 "calls; %s", 100 * replay_gap_share(sum),
			 replay_prediction_note(sum));
}

/*
 * --prom FILE is replaced by rename during the replay, after root became
 * the test user: its directory must let that user create files in it
 * and, if sticky, be the user's.  Checked by the mode bits (an ACL may
 * allow more).  0, or -EACCES with a message logged.
 */
static int check_prom_dir(const char *path, const struct session *ss)
{
	char err[PATHMAP_MAX + 256];
	struct stat st;
	bool in_group = false, ok;
	int dirfd;

	if (geteuid() != 0 || ss->uid == 0)
		return 0;
	dirfd = outfile_dir(path, err, sizeof(err));
	if (dirfd < 0 || fstat(dirfd, &st)) {
		if (dirfd >= 0)
			close(dirfd);
		return 0;	/* prom_open() says why */
	}
	close(dirfd);
	for (int i = 0; i < ss->ngroups; i++)
		in_group = in_group || ss->groups[i] == st.st_gid;
	in_group = in_group || ss->gid == st.st_gid;
	ok = st.st_uid == ss->uid ? (st.st_mode & S_IWUSR) :
	     in_group ? (st.st_mode & S_IWGRP) : (st.st_mode & S_IWOTH);
	if (ok && !((st.st_mode & S_ISVTX) && st.st_uid != ss->uid))
		return 0;
	log_error("--prom %s: the replay replaces it as user %s, who may "
		  "not %s; use a directory of %s's", path, ss->user,
		  ok ? "replace root's files in its sticky directory" :
		  "create files in its directory", ss->user);
	return -EACCES;
}

int session_replay(const struct replay_session_opts *o,
		   const volatile sig_atomic_t *stop,
		   void (*catch_stop)(int sa_flags))
{
	char user[256], name[256], host[256];
	struct session ss = { .verbose = !o->quiet, .stop = stop };
	struct replay_options ro = {
		.replay_path = o->replay, .speed = o->speed,
		.pacing = o->think ? REPLAY_PACE_THINK : REPLAY_PACE_FAST,
		.cpu_scale = o->cpu_scale,
		.workers = o->workers > 0 ? (unsigned)o->workers : 0,
		.threads = o->threads > 0 ? (unsigned)o->threads : 0,
		.spin_ns = (uint64_t)o->spin_us * 1000,
		.stop = stop, .progress = replay_progress,
		.progress_ctx = &ss, .ready = replay_ready, .ready_ctx = &ss,
		.start_at_ns = o->start_at_ns,
		.rate = o->rate,
	};
	struct replay_summary *sum = NULL;
	struct timeseries series = { 0 };
	bool have_series = o->csv || o->graphite || o->prom;
	FILE *stats = NULL;
	int stats_new_in = -1;		/* a new -S file's directory */
	struct disk_figures *disks = NULL;
	struct replay_summary *per = NULL;	/* --copies: each copy's */
	uint64_t *offsets = NULL;		/* and when it started */
	struct rlog_reader *rl;
	char err[PATHMAP_MAX + 256], **roots = NULL, *label = NULL;
	size_t sets = 1, nhost = 0;
	int ret = 1;

	ss.diskstats_fd = -1;
	/* Its header is read once: the test, the devices of the time
	 * series, and the replay, which reads on. */
	if (!(rl = replay_session_open(o)))
		return 1;
	if (replay_session_test(o, rlog_header(rl), user, name, &ss.uid,
				&ss.gid))
		goto out;
	ss.uncaptured = rlog_header(rl)->uncaptured;
	ss.uring_skipped = rlog_header(rl)->uring_skipped;
	ss.user = user;
	ss.info.name = name;
	ss.info.uncaptured = &ss.uncaptured;
	ss.info.uring_skipped = &ss.uring_skipped;
	if (!(roots = host_sandboxes(o, rlog_header(rl), &sets, &nhost)))
		goto out;
	ro.host_roots = roots;
	if (session_tests_lock(roots, nhost) ||
	    session_tests_ready(roots, nhost, o->reuse))
		goto out;
	if (!o->label && !(label = session_default_label(roots, nhost))) {
		log_error("out of memory");
		goto out;
	}
	ss.info.label = o->label ? o->label : label;
	ss.info.label_given = o->label != NULL;
	ro.uid = ss.uid;
	ro.gid = ss.gid;
	log_info("replay: %s, test %s, as user %s (uid %u, gid %u), %s",
		 o->replay, name, user, (unsigned)ss.uid, (unsigned)ss.gid,
		 o->think ? "paced by the captured think time (--think)" :
		 o->speed > 0 ? "at the captured pace (scaled by -s)" :
		 "as fast as possible (-s 0)");
	if (!o->no_drop_caches && replay_session_drop_caches(o->quiet)) {
		log_error("replay needs root to drop caches first, or -D");
		goto out;
	}
	if (o->stats && !(stats = open_stats(o->stats, o->replay,
					     &stats_new_in)))
		goto out;
	/* The jail has neither /etc nor /proc: what the replay needs of
	 * them is resolved and opened now. */
	if (!(ss.groups = user_groups(user, ss.gid, &ss.ngroups)))
		goto out;
	ss.diskstats_fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
	if (diskstats_devices(&ss.devices, roots, nhost)) {
		log_error("out of memory");
		goto out;
	}
	ss.info.sandboxes = roots;
	ss.info.nsandboxes = nhost;
	if (o->cgroup && join_cgroup(o->cgroup, &ss))
		goto out;
	if (cgroup_memory_fits(o->copies ? (size_t)o->copies : 1,
			       rlog_header(rl)->timelines_hint, err,
			       sizeof(err))) {
		log_error("%s", err);
		goto out;
	}
	if (o->prom && check_prom_dir(o->prom, &ss))
		goto out;
	/* Opened as root, like -S, before the privileges drop. */
	if (have_series) {
		struct series_config sc = {
			.csv_path = o->csv, .graphite = o->graphite,
			.prefix = o->graphite_prefix, .test_name = name,
			.prom_path = o->prom, .input = o->replay,
			.prom_uid = geteuid() == 0 ? ss.uid : geteuid(),
		};

		if (timeseries_open(&series, &sc, roots, nhost,
				    ss.diskstats_fd))
			goto out;
		ro.tick = timeseries_tick;
		ro.tick_ctx = &series;
		ro.tick_ns = (uint64_t)((o->interval ? o->interval : 1.0) * 1e9);
	}
	raise_nofile();
	if (catch_stop)
		catch_stop(SA_RESTART);
	sum = malloc(sizeof(*sum));
	per = o->copies ? calloc(sets, sizeof(*per)) : NULL;
	offsets = o->copies ? calloc(sets, sizeof(*offsets)) : NULL;
	if (!sum || (o->copies && (!per || !offsets))) {
		log_error("out of memory");
		goto out;
	}
	/* From here the sandboxes change: a second replay needs --reuse.
	 * A replay without root may not record it (a warning says so). */
	session_tests_set(roots, nhost, TEST_STATE_USED);
	note_start(o, &ss, host, sizeof(host));
	progress_start(&ss.bar, "replay");
	ret = o->copies ? replay_copies(o, &ro, &ss, roots, rl, sum, per,
					offsets, err, sizeof(err)) :
	      (ro.reader = rl, replay_run(&ro, sum, err, sizeof(err)));
	rl = NULL;		/* the replay closed it */
	progress_end(&ss.bar);
	ss.info.copies = per;
	ss.info.copy_offsets_ns = offsets;
	ss.info.ncopies = o->copies ? sets : 0;
	if (ret) {
		ret = 1;
		log_error("%s", err);
		timeseries_finish(&series, NULL);
		goto out;
	}
	disks = note_end(&ss);
	ss.info.started_ns = sum->started_ns;
	warn_start_and_stop(o, *stop, sum);
	ret = write_reports(o, &ss, sum, stats);
	stats = NULL;
	if (have_series && timeseries_finish(&series, sum))
		ret = 1;
	/* An interrupted run fails as the shell reports a signal: 128+N;
	 * a run that filled its test mount or met I/O errors with 3. */
	if (!ret && *stop)
		ret = 128 + *stop;
	else if (!ret && replay_incomplete(sum))
		ret = REPLAY_SESSION_INCOMPLETE;
out:
	if (have_series && timeseries_close(&series))
		ret = 1;
	if (stats) {		/* the replay failed: no report */
		fclose(stats);
		/* From the directory it was made in; as the test user now:
		 * where it may not, an empty file stays behind. */
		if (stats_new_in >= 0 &&
		    unlinkat(stats_new_in, outfile_base(o->stats), 0))
			log_warn("%s: %s", o->stats, strerror(errno));
	}
	if (stats_new_in >= 0)
		close(stats_new_in);
	diskstats_free(&ss.disks_before);
	diskstats_free(&ss.disks_after);
	diskstats_devices_free(&ss.devices);
	cgroup_limits_free(&ss.limits);
	if (ss.diskstats_fd >= 0)
		close(ss.diskstats_fd);
	free(ss.groups);
	free(disks);
	free(per);
	free(offsets);
	sandmap_roots_free(roots, nhost);
	free(label);
	free(sum);
	rlog_close(rl);
	return ret;
}

int replay_session_run(const struct replay_session_opts *o,
		       const volatile sig_atomic_t *stop,
		       void (*catch_stop)(int sa_flags))
{
	char err[PATHMAP_MAX + 256];

	/* A wrong --cgroup fails before init, not after it. */
	if (o->cgroup && cgroup_check(o->cgroup, err, sizeof(err))) {
		log_error("%s", err);
		return 1;
	}
	if (o->repeat)
		return session_repeat(o, stop, catch_stop);
	if (o->init && replay_session_init(o))
		return 1;
	return session_replay(o, stop, catch_stop);
}
