/*
 * caplog: the capture log, read and written.  docs/capture-format.md is the
 * specification.  The reader accepts versions 2 and 3 (the original I/O
 * Riot's SystemTap logs) and 4 (ioriot's); the writer writes version 4.
 *
 * A log line is a list of fields KEY=VALUE, each ended by ";:,".  The reader
 * normalises every version into one struct cap_event, so nothing after it
 * knows which version a line came from.
 */
#ifndef IORIOT_CAPLOG_H
#define IORIOT_CAPLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/mounts.h"
#include "ioriot/outbuf.h"
#include "ioriot/syscalls.h"
#include "ioriot/uncaptured.h"

#define CAPLOG_VERSION 4

/* Which optional fields of a cap_event are present. */
enum cap_have {
	CAP_RET = 1 << 0,
	CAP_FD = 1 << 1,	/* d */
	CAP_FD2 = 1 << 2,	/* e */
	CAP_PATH = 1 << 3,	/* p */
	CAP_PATH2 = 1 << 4,	/* P */
	CAP_FLAGS = 1 << 5,	/* f */
	CAP_MODE = 1 << 6,	/* m */
	CAP_OFFSET = 1 << 7,	/* O */
	CAP_OFFSET2 = 1 << 8,	/* Q */
	CAP_WHENCE = 1 << 9,	/* W */
	CAP_COUNT = 1 << 10,	/* c */
	CAP_CMD = 1 << 11,	/* F */
	CAP_ARG = 1 << 12,	/* G: fcntl argument or gid */
	CAP_UID = 1 << 13,	/* U */
	CAP_SIZE = 1 << 14,	/* s: st_size (v4 stat family, openfd) */
	CAP_ADDR = 1 << 15,	/* a */
	CAP_ADDR2 = 1 << 16,	/* A */
	CAP_CHILD = 1 << 17,	/* k */
	CAP_DUR = 1 << 18,	/* D */
	CAP_BUF = 1 << 19,	/* B: an io_uring request's buffer index */
	CAP_UMASK = 1 << 20,	/* u: the umask at a call making an inode */
	CAP_CPU = 1 << 21,	/* C: on-CPU ns before the event */
	CAP_CPU_CALL = 1 << 22,	/* X, or D with C: on-CPU ns in the call */
	CAP_RUNQ = 1 << 23,	/* R: ns waited for a CPU before the event */
};

/* One operation, whatever log version it came from. */
struct cap_event {
	uint64_t time_ns;	/* syscall entry, ns since the log's first event */
	uint64_t dur_ns;	/* syscall duration (0 if unknown) */
	uint32_t pid, tid;
	enum sys_id sys;
	unsigned have;		/* enum cap_have */
	int64_t ret;		/* return value, or -errno */
	int64_t fd, fd2;
	int64_t offset, offset2;
	int64_t count;
	int64_t flags, mode, whence, cmd, arg, uid;
	int64_t size;
	int64_t umask;		/* the process's umask (CAP_UMASK) */
	uint64_t cpu_ns;	/* CAP_CPU: the thread's on-CPU ns from the
				 * end of its previous event in the log to
				 * this one's start */
	uint64_t cpu_call_ns;	/* CAP_CPU_CALL: its on-CPU ns within the
				 * call, at most dur_ns */
	uint64_t runq_ns;	/* CAP_RUNQ: of the span of cpu_ns, the ns
				 * the thread waited runnable for a CPU (the
				 * scheduler's run delay), the left-out
				 * calls' gaps included */
	uint64_t folded;	/* K: calls of the thread the probe recorded
				 * since its previous event in the log that
				 * the capture's filters left out (their
				 * on-CPU time is in cpu_ns), 0 if none */
	uint64_t addr, addr2;
	int64_t buf_index;
	uint32_t child_pid, child_tid;
	const char *path, *path2;	/* decoded, NUL-terminated */
	uint32_t path_len, path2_len;
	uint64_t lineno;
};

/* When @ev's syscall returned (its entry if the duration is unknown). */
static inline uint64_t cap_event_end(const struct cap_event *ev)
{
	return ev->time_ns + ev->dur_ns;
}

/* What the log's header says. */
struct caplog_header {
	int version;
	char host[256];
	char kernel[256];
	char backend[32];
	uint64_t start_epoch_ns;	/* wall clock at start, 0 if unknown */
	/* The probe's own cost (capture-format §4.2), 0 if not measured:
	 * its part of each gap between two recorded calls, and all of a
	 * recorded call's. */
	uint64_t probe_gap_ns, probe_call_ns;
	struct mounttab *mounts;	/* v4 mount table, NULL for v2/v3 */
};

/*
 * The end record: the last line of every v4 log a capture wrote to its end
 * ("#|end|events=N|...|", docs/capture-format.md §1), with the capture's
 * counters.  A v4 log without it was cut short.
 */
struct caplog_end {
	uint64_t events;		/* event lines and process records */
	uint64_t lost;			/* events the probe lost */
	uint64_t lost_disk_full;	/* events dropped: the log's disk filled */
	uint64_t filtered;		/* events left out by path filters */
	uint64_t paths_cut;		/* events logged without a path */
	uint64_t snapshot_fds;		/* openfd records */
	uint64_t missing_tracepoints;	/* not on the captured kernel */
	uint64_t maps_unfollowed;	/* file mappings beyond the probe's
					 * table: their page faults are not
					 * in the log */
	uint64_t duration_ns;
	char error[16];			/* "ENOSPC", "EDQUOT", "EFBIG": why
					 * it stopped early; "" if it did not */
};

/* Why a line was rejected; counted by the reader. */
enum caplog_bad {
	CAPLOG_BAD_SYNTAX,	/* malformed field, bad number, bad escape */
	CAPLOG_BAD_MISSING,	/* lacks t, i or o */
	CAPLOG_BAD_UNKNOWN_OP,
	CAPLOG_BAD_TOO_LONG,
	CAPLOG_BAD_TRUNCATED,	/* last line without newline */
	CAPLOG_BAD_NUL,		/* NUL byte inside the line */
	CAPLOG_BAD_COUNT
};

struct caplog_reader;

/*
 * Open @path and read its header.  Returns NULL and sets errno: ENOENT,
 * EACCES, ... from open(2); ENODATA for an empty file; EPROTO for a missing
 * or malformed header; EPROTONOSUPPORT for an unknown version.  In every case
 * @err (room for @errlen bytes) gets a message naming file and line.
 */
struct caplog_reader *caplog_open(const char *path, char *err, size_t errlen);

/* The header read by caplog_open(). */
const struct caplog_header *caplog_header(const struct caplog_reader *r);

/*
 * Read the next event into @ev (its strings stay valid until the next call).
 * Bad lines are skipped and counted; the first few are described through
 * log_warn().  Returns 1 for an event, 0 at end of log, -errno on I/O error.
 */
int caplog_next(struct caplog_reader *r, struct cap_event *ev);

/*
 * Parse one v4 event line @s (@len bytes without its newline, then a NUL
 * and 8 more readable bytes; modified in place) into @ev, whose strings
 * point into @s.  Times stay as written.  Returns NULL, or what is wrong
 * with the line.
 */
const char *caplog_parse_event(char *s, size_t len, struct cap_event *ev);

/*
 * The end record, if the lines read so far end with one (v4 only: later
 * lines undo it); NULL if not.  After caplog_next() returned 0, NULL means
 * the log was cut short.
 */
const struct caplog_end *caplog_end_record(const struct caplog_reader *r);

/*
 * The syscalls the capture did not record, from the log's uncaptured
 * record ("#|uncaptured|NAME=N|...|", v4 only, docs/capture-format.md
 * §1.2), sorted by count; NULL if no well-formed one was read (yet): logs
 * of SystemTap, of older captures, v2/v3.  A malformed record, or a second
 * one, is a bad line (CAPLOG_BAD_SYNTAX, with a warning naming file and
 * line).
 */
const struct uncaptured *caplog_uncaptured(const struct caplog_reader *r);

/* Lines read so far, and bad lines per reason. */
uint64_t caplog_lines(const struct caplog_reader *r);
uint64_t caplog_bad(const struct caplog_reader *r, enum caplog_bad why);
const char *caplog_bad_name(enum caplog_bad why);

/* Bytes of the log consumed and the log's size, for progress. */
uint64_t caplog_offset(const struct caplog_reader *r);
uint64_t caplog_size(const struct caplog_reader *r);

/* Close and free.  Accepts NULL. */
void caplog_close(struct caplog_reader *r);

/*
 * Write a v4 header (version line, host line, one line per mount) to @ob.
 * Errors are sticky in @ob.
 */
void caplog_write_header(struct outbuf *ob, const struct caplog_header *hdr);

/* Write the mount table as v4 header lines.  Errors are sticky in @ob. */
void caplog_write_mounts(struct outbuf *ob, const struct mounttab *mt);

/* Write the end record @end as one line.  Errors are sticky in @ob. */
void caplog_write_end(struct outbuf *ob, const struct caplog_end *end);

/*
 * Write @ev as one v4 line.  time_ns is written as is (the reader makes
 * times relative to the first event).  Errors are sticky in @ob.
 */
void caplog_write_event(struct outbuf *ob, const struct cap_event *ev);

#endif
