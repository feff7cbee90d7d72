/*
 * replay: the replay engine (`ioriot -r`, the second half of `-R`).  One
 * thread per captured thread (timeline), up to a limit beyond which
 * timelines share threads; within a timeline operations run in file order,
 * across timelines an operation waits only for the dependencies the
 * generator recorded; with a speed factor, operations start at their
 * captured time scaled by it, and lateness is carried forward, never
 * accumulated.  The file is read while the replay runs, a bounded window
 * ahead of the oldest unfinished operation, so memory does not grow with
 * the file.  Operations are carried out by exec.h.
 */
#ifndef IORIOT_REPLAY_H
#define IORIOT_REPLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ioriot/syscalls.h"

/*
 * The buckets of every replay histogram (histogram.c): latencies, start
 * lateness, throttle delays.  Values below 64 ns have a bucket each; each
 * power of two above is split into 32 buckets, up to 2^63 - 1 ns (larger
 * values count there too).
 */
#define REPLAY_HIST_BUCKETS 1888

/*
 * How a replayed result compares with the captured one
 * (replay_result_compare()).  Every class but REPLAY_SAME is a differing
 * result.
 */
enum replay_match {
	REPLAY_SAME,		/* as captured */
	REPLAY_SHORT,		/* a count: succeeded with fewer bytes */
	REPLAY_MORE,		/* a count: succeeded with more bytes */
	REPLAY_VALUE,		/* succeeded with another value */
	REPLAY_OK,		/* succeeded where the capture failed */
	REPLAY_ERRNO,		/* failed: the capture did not, or otherwise */
};

/*
 * Differing results by what the replay got (replay_result_slot()): slot 0
 * a success where the capture failed, slot E errno E, then any errno
 * beyond, then a success with fewer bytes, with more bytes, with another
 * value.
 */
enum {
	REPLAY_RESULT_OK = 0,
	REPLAY_RESULT_EOTHER = 135,
	REPLAY_RESULT_SHORT,
	REPLAY_RESULT_MORE,
	REPLAY_RESULT_VALUE,
	REPLAY_RESULT_SLOTS
};
/* Replay threads when neither workers nor threads are given, and with
 * them; beyond, timelines share threads. */
#define REPLAY_DEFAULT_MAX_THREADS 4096
#define REPLAY_MAX_THREADS 65536
#define REPLAY_SPIN_NS (100 * 1000ULL)	/* default of replay_options.spin_ns */

/*
 * How a replay paces its operations (replay_options.pacing):
 *  FAST   as fast as possible (-s 0): dependencies only;
 *  TIMED  each operation at its captured start time divided by the speed
 *         (-s F), counted from the replay's start;
 *  THINK  each operation once its timeline's previous one completed plus
 *         the captured gap between them (the thread's think time): its
 *         on-CPU part (cpu=) burnt as CPU work divided by cpu_scale, the
 *         rest slept, divided by the speed (--think, replay-format §4.7).
 */
enum replay_pacing { REPLAY_PACE_FAST, REPLAY_PACE_TIMED, REPLAY_PACE_THINK };

/* Its name in the statistics: "fast", "timed" or "think". */
const char *replay_pacing_name(enum replay_pacing p);

/* Per syscall: counts, bytes and latency histograms of the run. */
struct replay_sys_stats {
	uint64_t ops, bytes;
	/* Results that differ from the capture (replay_result_compare()),
	 * and of them the short ones with the bytes they lacked. */
	uint64_t differ, short_ops, short_bytes;
	uint64_t lat[REPLAY_HIST_BUCKETS];	/* replayed durations */
	uint64_t cap_lat[REPLAY_HIST_BUCKETS];	/* captured durations */
	uint64_t lat_max, cap_lat_max;
};

/* The classes of data operations the rate caps count (rate.c says which
 * operations are which). */
enum replay_rate_class { REPLAY_RATE_READ, REPLAY_RATE_WRITE, REPLAY_RATE_CLASSES };

/*
 * Caps on the rate of data operations (--rate-iops R[,W], --rate-mbps
 * R[,W]), in one replay process: operations per second and MB (10^6
 * bytes) per second, per class; 0: no cap of that kind on the class.  With
 * @iops_shared (@mbps_shared) reads and writes share the one cap in
 * [REPLAY_RATE_READ].
 */
struct replay_rate {
	double iops[REPLAY_RATE_CLASSES];
	double mbps[REPLAY_RATE_CLASSES];
	bool iops_shared, mbps_shared;
};

/* Per class: the delay the caps added, the time operations waited for
 * their turn before their call (never part of their latency). */
struct replay_throttle_stats {
	uint64_t ops;			/* operations of the class (pages of the
					 * mmap_read and mmap_write lines) */
	uint64_t throttled;		/* of them, the ones that waited */
	uint64_t delay_ns;		/* their waits, summed */
	uint64_t delay_max_ns;
	/* Of every operation of the class (replay_summary only). */
	uint64_t delay_p50_ns, delay_p99_ns;
	uint64_t delay[REPLAY_HIST_BUCKETS];	/* by wait */
};

/* Whether @rate caps anything. */
bool replay_rate_capped(const struct replay_rate *rate);

struct rlog_reader;

struct replay_options {
	const char *replay_path;
	/* The replay file already opened (its header read), which replay_run()
	 * reads on and closes, whatever it returns; NULL: it opens
	 * replay_path itself. */
	struct rlog_reader *reader;
	/* Per sandbox of the file's header: the sandbox of this host that
	 * stands in for it (sandmap.h: --map, --copies); NULL: the same. */
	char *const *host_roots;
	double speed;			/* 0: as fast as possible; 1: captured */
	/* REPLAY_PACE_THINK (--think): with @speed > 0 dividing the gaps'
	 * waiting parts and @cpu_scale (> 0; 0 means 1) their on-CPU parts.
	 * Otherwise the pacing follows @speed: FAST at 0, else TIMED. */
	enum replay_pacing pacing;
	double cpu_scale;
	/* -p/-t: when either is > 0, captured processes are spread over
	 * @workers groups (1 if 0) of @threads threads each (1 if 0), as
	 * the original I/O Riot did; the timelines of a group share its
	 * threads (at most REPLAY_MAX_THREADS in all).  Both 0: a thread per
	 * timeline, at most REPLAY_DEFAULT_MAX_THREADS.  When a thread cannot
	 * be created (RLIMIT_NPROC), later timelines share the ones there
	 * are. */
	unsigned workers, threads;
	/* At -s F > 0: a thread spins (sched_yield) for the last @spin_ns
	 * before an operation is due instead of sleeping, since a timed
	 * sleep wakes late by the timer's latency (0: REPLAY_SPIN_NS). */
	uint64_t spin_ns;
	const volatile sig_atomic_t *stop;	/* set by a signal handler */
	/* Called about every 2 s from the replay's own thread (confined to
	 * the sandboxes: a callback can use only what it opened before). */
	void (*progress)(void *ctx, uint64_t done, uint64_t total,
			 int64_t ahead_ns);
	void *progress_ctx;
	/* The test user: owns the sandboxes; chown calls give files to it. */
	uid_t uid;
	gid_t gid;
	/* Called from the replay's own thread once it is confined to the
	 * sandboxes (jail.h), before any operation and before any other
	 * replay thread exists: to drop privileges for good.  It must not
	 * need any file it did not open before.  A non-zero return (-errno,
	 * with a message in @err) ends the run. */
	int (*ready)(void *ctx, char *err, size_t errlen);
	void *ready_ctx;
	/* Called from the replay's own thread once all is set (the jail, the
	 * threads, the first window of operations read), just before the
	 * clock of the first operation starts: to start copies together.
	 * A non-zero return (-errno, with a message in @err) ends the run. */
	int (*start)(void *ctx, char *err, size_t errlen);
	void *start_ctx;
	/* When set with @tick_ns: called from the replay's own thread every
	 * @tick_ns and once more after the last operation, with the time
	 * since the start and the figures so far (SYS_COUNT entries, summed
	 * over the threads; only ops, bytes, differ, short_ops, short_bytes
	 * and the histograms). */
	void (*tick)(void *ctx, uint64_t t_ns,
		     const struct replay_sys_stats *cum);
	void *tick_ctx;
	uint64_t tick_ns;
	/* --start-at: the wall-clock instant (CLOCK_REALTIME, ns since the
	 * epoch) at which the operations are released, once the jail, the
	 * threads and the first window of operations are ready: slept for,
	 * the last @spin_ns spun.  Already past then: at once (the summary's
	 * start_skew_ns says how late).  0: at once. */
	uint64_t start_at_ns;
	/* Caps on the rate of data operations (replay_rate_capped() false:
	 * none, and no cost). */
	struct replay_rate rate;
};

/* The host's clock discipline as adjtimex(2) reports it (read-only). */
struct replay_clock {
	bool known;		/* adjtimex answered */
	bool synchronised;	/* not TIME_ERROR, STA_UNSYNC clear */
	int state;		/* adjtimex's return: TIME_OK, TIME_ERROR... */
	int status;		/* STA_* bits */
	int64_t offset_ns;	/* the kernel PLL's offset from the time
				 * server (0 when the daemon does not use the
				 * kernel's discipline, as chronyd) */
	int64_t maxerror_ns;	/* maximum error the daemon estimates */
	int64_t esterror_ns;	/* estimated error */
};

struct replay_summary {
	uint64_t ops;			/* performed */
	uint64_t timelines;
	uint64_t processes;		/* distinct captured pids */
	uint64_t threads;		/* replay threads that ran */
	/* As the original reported them: -p and -t, or without them the
	 * captured processes and the threads each got on average. */
	uint64_t workers, threads_per_worker;
	uint64_t duration_ns;		/* wall time of the replay */
	/* CLOCK_REALTIME when the operations were released (the replay's
	 * t=0); with opt->start_at_ns, started_ns - start_at_ns (> 0: late)
	 * and the clock's discipline just after the start. */
	uint64_t started_ns;
	int64_t start_skew_ns;
	struct replay_clock clock;
	uint64_t captured_ns;		/* captured duration (last op end) */
	int64_t ahead_ns;		/* speed > 0: the last op's lead (<0: late) */
	bool timed;			/* speed > 0: the next three are set */
	enum replay_pacing pacing;
	double speed, cpu_scale;	/* as run (cpu_scale: --think only) */
	/* The captured threads' time, summed over timelines: in calls
	 * (DUR_NS) and between them (the gaps, §4.7), of which on a CPU as
	 * far as known (cpu=); what --think kept of the gaps (divided by the
	 * speed and the CPU scale): slept and burnt on a CPU, the
	 * capture probe's part of the on-CPU time it left out (probe=), the
	 * captured waits for a CPU it left out (runq=, not divided), and the
	 * sleeps of threads on their own timers that it cut short where the
	 * work ran ahead (docs/replay-format.md §4.7). */
	uint64_t cap_call_ns, cap_gap_ns, cap_gap_cpu_ns;
	uint64_t think_sleep_ns, think_cpu_ns, think_probe_ns, think_runq_ns;
	uint64_t think_cut_ns;
	/* Operations that failed with ENOSPC or EDQUOT, and with EIO, where
	 * the capture did not: a run that filled its test mount or met a
	 * failing device is incomplete (replay_incomplete()). */
	uint64_t disk_full_ops, io_error_ops;
	uint64_t lateness_p50_ns, lateness_p99_ns, lateness_max_ns;
	uint64_t lateness[REPLAY_HIST_BUCKETS];
	uint64_t setid_stripped;	/* ops whose set-ID mode bits went */
	uint64_t uring_flags_dropped;	/* io_uring rings set up without some
					 * captured setup flag */
	uint64_t over_limit;		/* operations answered with an error
					 * instead, beyond the replay's bounds
					 * (ioriot/replaylimits.h) */
	struct replay_rate rate;		/* the caps the run had */
	struct replay_throttle_stats throttle[REPLAY_RATE_CLASSES];
	struct replay_sys_stats sys[SYS_COUNT];
	uint64_t differ_by_result[SYS_COUNT][REPLAY_RESULT_SLOTS];
};

/*
 * Replay opt->replay_path (or opt->reader) into its sandboxes (created by
 * init).  Returns 0,
 * or -errno with a message naming the file (and line) in @err.  Results
 * that differ from the capture are counted (sum->sys[].differ), never
 * fatal.
 */
int replay_run(const struct replay_options *opt, struct replay_summary *sum,
	       char *err, size_t errlen);

/* A replay thread's memory, its stack's pages, queue and read buffer:
 * 83 KB measured per timeline at 1,000 timelines (docs/replay-format.md
 * §10), rounded up. */
#define REPLAY_RUNNER_BYTES (96u << 10)

/* The memory one replay process takes for a file of @timelines timelines
 * (the header's timelines=, 0 if unknown), in bytes: the window of
 * operations read ahead, the histograms, its summary, and a thread per
 * timeline up to REPLAY_DEFAULT_MAX_THREADS; what --copies multiplies.
 * A lower bound: the kernel's memory for the files, rings and mappings
 * the operations make comes on top. */
uint64_t replay_memory_bytes(uint64_t timelines);

/* Add the figures of @s to @d: counts and histograms add up, maxima take
 * the larger.  An @s without operations is all 0 and is not read further. */
void replay_sys_stats_add(struct replay_sys_stats *d,
			  const struct replay_sys_stats *s);

/* From this share of the captured threads' time between calls on, a run
 * that is not paced by --think says its time predicts nothing. */
#define REPLAY_GAP_SHARE_NOTE 0.25

/* The share (0 to 1) of the captured threads' time spent between calls
 * in @sum's replay file. */
double replay_gap_share(const struct replay_summary *sum);

/* Why @sum's total time is no prediction of the captured program's (a
 * static text), or NULL: --think pacing, or little time between calls. */
const char *replay_prediction_note(const struct replay_summary *sum);

/* Whether the run of @sum is incomplete: its test mount filled or its
 * device failed (disk_full_ops, io_error_ops). */
bool replay_incomplete(const struct replay_summary *sum);

/* The lateness percentiles of @sum from its histogram (when timed). */
void replay_summary_lateness(struct replay_summary *sum);

/*
 * Add replay @src, run at the same time as the replays in @dst (--copies),
 * to @dst (@first: @dst is empty, it becomes @src): counts, histograms
 * and timelines add up, durations and maxima take the larger, the lead
 * the smaller.
 */
void replay_summary_add(struct replay_summary *dst,
			const struct replay_summary *src, bool first);

/*
 * Compare the result @got of replaying an operation of @sys with the
 * captured result @want (both a value or -errno; for mmap an address or
 * -errno up to -4095).  A byte count (read, write, sendfile,
 * copy_file_range, getdents) must be equal, or is REPLAY_SHORT or
 * REPLAY_MORE; for the results that cannot be equal by nature (the fd of
 * an open, the address of an mmap or mremap, fcntl's flags of a file the
 * replay opens its own way) success is enough; any other value must be
 * equal (REPLAY_VALUE).  A failure must have the captured errno.
 */
enum replay_match replay_result_compare(enum sys_id sys, int64_t want,
					int64_t got);

/* The differ_by_result slot of a result @got that compared as @m
 * (not REPLAY_SAME). */
unsigned replay_result_slot(enum replay_match m, int64_t got);

/* The bucket of a value of @ns (REPLAY_HIST_BUCKETS - 1 above 2^63 - 1). */
unsigned replay_hist_bucket(uint64_t ns);

/* The largest value bucket @b holds, and the value it stands for (its
 * midpoint, within 1/64 of any value it holds). */
uint64_t replay_hist_top(unsigned b);
uint64_t replay_hist_value(unsigned b);

/* The value of the bucket in which @pct percent of histogram @h are
 * reached, 0 for an empty histogram. */
uint64_t replay_hist_percentile(const uint64_t h[REPLAY_HIST_BUCKETS],
				double pct);

#endif
