/*
 * capture: records the file I/O syscalls of a running host into a capture
 * log (v4) with the eBPF probe (src/capture/capture.bpf.c), until told to
 * stop or the duration runs out.
 */
#ifndef IORIOT_CAPTURE_H
#define IORIOT_CAPTURE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "ioriot/caplog.h"
#include "ioriot/cgroupsel.h"
#include "ioriot/event.h"
#include "ioriot/logguard.h"
#include "ioriot/paths.h"
#include "ioriot/uncaptured.h"

#define CAPTURE_DEFAULT_DURATION_NS (3600ULL * 1000000000ULL)
#define CAPTURE_DEFAULT_RING_BYTES (64ULL << 20)
/* --min-free's default, in percent of the log's file system. */
#define CAPTURE_DEFAULT_MIN_FREE 5
/* A .zst log's frame is ended at least this often (a crash loses less). */
#define CAPTURE_FRAME_NS (1000ULL * 1000000ULL)
/* capture_options.status is called this often while recording. */
#define CAPTURE_STATUS_EVERY_NS (2ULL * 1000000000ULL)

/* How far a capture has come, for a status line. */
struct capture_status {
	uint64_t elapsed_ns;		/* since recording began */
	uint64_t duration_ns;		/* when it stops by itself */
	uint64_t events;		/* written to the log */
	uint64_t lost;
	uint64_t log_bytes;		/* the log's size in its file */
};

struct capture_options {
	const char *output;		/* capture log to write */
	bool overwrite;			/* --force: a log that exists may be
					 * overwritten */
	uint32_t pid;			/* -x: this process and descendants; 0: all */
	const char *comm;		/* only tasks with this name, or NULL */
	const struct cgroup_sel *cgroup;	/* --cgroup: only processes in
						 * it or below, or NULL */
	uint64_t duration_ns;		/* 0: CAPTURE_DEFAULT_DURATION_NS */
	uint64_t ring_bytes;		/* 0: CAPTURE_DEFAULT_RING_BYTES */
	/* Called every CAPTURE_STATUS_EVERY_NS while recording (NULL:
	 * never); both backends. */
	void (*status)(void *ctx, const struct capture_status *st);
	void *status_ctx;
	uint64_t max_size;		/* --max-size: stop at this log size
					 * (bytes, >= LOG_GUARD_MIN_SIZE); 0:
					 * no limit */
	bool sync;			/* --sync: wake records (which
					 * captured thread woke which) */
	unsigned min_free_pct;		/* --min-free: stop before the log's
					 * file system has less free; 0: no
					 * limit */
	/* fd operations count with the path of their fd. */
	struct path_filter filter;
	const volatile sig_atomic_t *stop;	/* set by a signal handler */
	/* Called once the probe is attached (tests start workloads then). */
	void (*ready)(void *ctx);
	void *ready_ctx;
};

struct capture_summary {
	uint64_t events;		/* records written */
	uint64_t lost;			/* events the ring buffer dropped */
	uint64_t bytes;			/* log size */
	uint64_t text_bytes;		/* its text (a .zst log's, decompressed) */
	uint64_t duration_ns;
	uint64_t snapshot_fds;		/* fds open at start, written as openfd */
	uint64_t excluded;		/* events dropped by path filters */
	uint64_t paths_cut;		/* events whose path could not be read
					 * whole: logged without it */
	int detached;			/* tracepoints missing on this kernel */
	uint64_t maps_unfollowed;	/* file mappings beyond the probe's
					 * table (IORIOT_EV_MAPS per process):
					 * their page faults are not captured */
	uint64_t lost_disk_full;	/* events dropped: the log's disk filled */
	int log_full;			/* -ENOSPC, -EDQUOT or -EFBIG: the log's
					 * disk filled and the capture stopped */
	enum log_stop log_stop;		/* the limit that stopped it, if
					 * --max-size or --min-free did
					 * (log_full is then -EFBIG or
					 * -ENOSPC) */
	/* Syscalls of the captured processes the probe did not record, by
	 * name (SystemTap: of the processes a module's counts cover).  When known, the log
	 * holds them as its uncaptured record, before the end record. */
	struct uncaptured uncaptured;
};

/* True once *opt->stop is set (by a signal handler or another thread). */
static inline bool stop_requested(const struct capture_options *opt)
{
	return opt->stop && __atomic_load_n(opt->stop, __ATOMIC_RELAXED);
}

/*
 * Capture into opt->output until *opt->stop or the duration ends, then write
 * out everything and close a valid log, which ends with its end record.
 * Returns 0, or -errno with a message in @err: -EPERM not root / no
 * CAP_BPF, -ENOENT no BTF, -EACCES output not writable, or what loading the
 * probe failed with.  When the log's disk fills (-ENOSPC, -EDQUOT, -EFBIG)
 * the capture stops: the log is cut back to whole lines and ended with its
 * end record (capture_log_end()), @sum is complete with sum->log_full
 * set, and that -errno is returned with "capture log PATH: ...: stopped
 * after N events" in @err.  So it does at opt->max_size (-EFBIG) and
 * opt->min_free_pct (-ENOSPC), with sum->log_stop set.  A log named
 * *.zst is written compressed.
 */
int capture_run(const struct capture_options *opt, struct capture_summary *sum,
		char *err, size_t errlen);

/*
 * Capture like capture_run() (the same return values, the same end of the
 * log on a full disk), but with the SystemTap module @module (built
 * from systemtap/ioriot.stp): runs staprun without a shell; writes the
 * module's header, the mount table and the snapshot of open files, then
 * its events as the BPF capture writes its own (paths made absolute,
 * filtered, in entry-time order), and the uncaptured record from the
 * module's syscall counts.
 * Returns 0, or -errno with a message in @err (-ECHILD: staprun failed).
 */
int capture_stap_run(const struct capture_options *opt, const char *module,
		     struct capture_summary *sum, char *err, size_t errlen);

/*
 * Create or truncate the capture log @path for writing, through
 * outfile_open() (outfile.h): mode 0600 even if it existed (it names every
 * user's files), never through a symlink (-ELOOP), never into a FIFO, a
 * device or a directory (-EINVAL, and without blocking), never a file with
 * other hard links (-EMLINK) or of another user (-EPERM; for root under
 * sudo, the sudo user's files are accepted).  A refused file is left as it
 * was; so is a file that is not empty (-EEXIST) unless @overwrite.
 * SIGXFSZ is ignored from then on, so that a file size limit fails a
 * write with EFBIG, handled like a full disk.  Returns the fd, or -errno
 * with a message in @err.
 */
int capture_open_log(const char *path, bool overwrite, char *err,
		     size_t errlen);

/* True if @err (-errno) means the log's disk is full: -ENOSPC, -EDQUOT
 * (quota) or -EFBIG (file size limit); also --max-size and --min-free
 * (logguard.h). */
bool capture_log_full(int err);

/*
 * The name of syscall number @nr of the architecture ioriot was built for
 * (from its <asm/unistd.h>), or NULL if it has none.
 */
const char *capture_syscall_name(unsigned nr);

/* The number of syscall @name of that architecture, or -1 if it has none. */
int capture_syscall_nr(const char *name);

/* True if systemtap/ioriot.stp probes syscall @name (an x86_64 name):
 * the SystemTap capture counts the others as not captured. */
bool capture_stap_probes(const char *name);

/*
 * The capture log being written, text or (a name ending in .zst) a zstd
 * stream of frames of whole lines (zstdio.h).  The backends write its
 * lines to ob; the bytes reach the file through the guard (logguard.h).
 */
struct zstd_out;

struct capture_log {
	struct outbuf ob;		/* the log's text goes here */
	const char *path;
	struct log_guard guard;		/* counts the file's bytes, keeps the
					 * limits */
	struct zstd_out *zst;		/* a .zst log's compressor, or NULL */
	uint64_t frame_ns;		/* CLOCK_MONOTONIC of the last tick that
					 * ended a frame */
};

/* True if a log named @path is written compressed (it ends in .zst). */
bool capture_log_compressed(const char *path);

/*
 * Open opt->output with capture_open_log() for a log within opt->max_size
 * and opt->min_free_pct.  Returns NULL with a message in @err and errno
 * set (capture_open_log()'s, or ENOMEM).
 */
struct capture_log *capture_log_open(const struct capture_options *opt,
				     char *err, size_t errlen);

/*
 * Once per pass of a backend's loop, @now on CLOCK_MONOTONIC: a .zst
 * log's frame is ended when the last is CAPTURE_FRAME_NS old, and the
 * guard looks at the free space again at the next write.  A failed write
 * sets lg->ob.err (the capture then stops).
 */
void capture_log_tick(struct capture_log *lg, uint64_t now);

/* Put everything written so far into the file (a frame of a .zst log),
 * after the header and snapshot.  Errors are sticky in lg->ob. */
void capture_log_sync(struct capture_log *lg);

/* Bytes in the log's file so far. */
uint64_t capture_log_bytes(const struct capture_log *lg);

/*
 * Call @opt->status, if set, when CAPTURE_STATUS_EVERY_NS have passed
 * since *@last (CLOCK_MONOTONIC ns; *@last is then @now): how long the
 * capture that began at @start and stops after @duration ns has run, and
 * @sum's events and losses with @lg's size.
 */
void capture_log_status(const struct capture_log *lg,
			const struct capture_options *opt,
			const struct capture_summary *sum, uint64_t start,
			uint64_t duration, uint64_t now, uint64_t *last);

/*
 * End the log: flush it, write sum->uncaptured as the uncaptured record if
 * it is known, and the end record with @sum's counters as its last line.
 * When the disk is full or a limit was met (now, or earlier: lg->ob.err),
 * the file is cut back to its last complete line (a .zst log: its last
 * complete frame), and further line by line (frame by frame) until both
 * records fit; @sum is corrected for the lines that are not in the log
 * (events becomes what the log holds, lost_disk_full counts the rest) and
 * sum->log_full (and sum->log_stop) are set.  The backends count a line
 * whose own write set ob.err as lost to the full disk themselves.
 * sum->bytes becomes the log's size, sum->text_bytes its text's.
 * Returns 0; the full-disk -errno when the log was ended that way
 * ("capture log PATH: ...: stopped after N events" in @err); or another
 * -errno with @err (the log may then lack its end record).
 */
int capture_log_end(struct capture_log *lg, struct capture_summary *sum,
		    char *err, size_t errlen);

/* Close the log's file and free @lg (NULL is accepted).  0, or close(2)'s
 * -errno. */
int capture_log_close(struct capture_log *lg);

/*
 * The file mappings process @pid has (@proc_root/PID/maps) into the
 * probe's table @t: mappings of files that @filter keeps, not executable,
 * of files the process does not map executable (programs and libraries).
 * Those beyond IORIOT_EV_MAPS are counted in *@full.  Returns 0, or -errno
 * if the file cannot be read (@t is then empty).
 */
int capture_read_maps(const char *proc_root, uint32_t pid,
		      const struct path_filter *filter, struct ioriot_maps *t,
		      uint64_t *full);

/*
 * Turn probe record @e (with its paths @p1, @p2 of e->path_len bytes) into
 * @ce as the log writes it: arguments put under their keys for e->sys.
 * Paths are not resolved here.  Returns 0, or -EINVAL for an unknown sys.
 */
int capture_event_fields(const struct ioriot_event *e, const char *p1,
			 const char *p2, struct cap_event *ce);

#endif
