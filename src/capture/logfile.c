/*
 * logfile: the capture log file, shared by both backends (capture.h):
 * opened so that no other user can redirect or read it, written through
 * its guard (logguard.h) and, for a .zst log, its compressor (zstdio.h),
 * and ended with its end record.  When the log's disk fills (or a limit
 * is met), the capture cuts a text log back to its last complete line,
 * further line by line until the end record fits, and counts the events
 * that were lost that way; logzst.c does the same for a .zst log.
 *
 * Counting rule of the backends: a line whose write set ob->err (it was 0
 * before) did not make it, and they count it as lost themselves; a line
 * whose newline is still in the buffer when the writes failed is counted
 * here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/capture.h"
#include "ioriot/clock.h"
#include "ioriot/outfile.h"
#include "ioriot/zstdio.h"
#include "logfile.h"

/* Read backwards in steps of this size to find the start of a line. */
#define SCAN_STEP 4096

enum line_kind { LK_META, LK_EVENT, LK_LOST, LK_CWD, LK_OPENFD };

bool capture_log_full(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

/* What the line starting with @head (@len bytes of it) is. */
static enum line_kind line_kind(const char *head, size_t len)
{
	static const struct {
		const char *field;
		enum line_kind kind;
	} records[] = {
		{ "o=lost;", LK_LOST },
		{ "o=cwd;", LK_CWD },
		{ "o=openfd;", LK_OPENFD },
	};

	if (len == 0 || head[0] == '#' || head[0] == '\n')
		return LK_META;
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
		const char *f = records[i].field;
		const char *at = memmem(head, len, f, strlen(f));

		/* A field starts the line or follows ";:,". */
		if (at && (at == head || (at - head >= 3 && at[-1] == ',' &&
					  at[-2] == ':' && at[-3] == ';')))
			return records[i].kind;
	}
	return LK_EVENT;
}

/* Take a line of kind @kind out of @sum's counts: it is not in the log. */
static void uncount(struct capture_summary *sum, enum line_kind kind)
{
	if (kind == LK_EVENT && sum->events) {
		sum->events--;
		sum->lost_disk_full++;
	} else if (kind == LK_OPENFD && sum->snapshot_fds) {
		sum->snapshot_fds--;
	}
}

void uncounter_init(struct uncounter *u, struct capture_summary *sum)
{
	u->sum = sum;
	u->have = 0;
	u->meta = false;
}

void uncount_feed(struct uncounter *u, const char *p, size_t len)
{
	const char *end = p + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		size_t more = (size_t)((nl ? nl + 1 : end) - p);

		if (more > HEAD_MAX - u->have)
			more = HEAD_MAX - u->have;
		memcpy(u->head + u->have, p, more);
		u->have += more;
		if (!nl)
			return;
		enum line_kind kind = line_kind(u->head, u->have);
		if (kind == LK_META)
			u->meta = true;
		else
			uncount(u->sum, kind);
		u->have = 0;
		p = nl + 1;
	}
}

bool has_meta_line(const char *p, size_t len)
{
	return (len && p[0] == '#') || memmem(p, len, "\n#", 2);
}

/*
 * The lines whose newline is in the buffer write(2) did not take.  The
 * first of them may have begun in the file (from ob->line_end to
 * ob->written): its head is read back from there.  0 or -errno.
 */
static int uncount_unwritten(const struct outbuf *ob, int rfd,
			     struct capture_summary *sum)
{
	struct uncounter u;
	char head[HEAD_MAX];

	uncounter_init(&u, sum);
	if (ob->written > ob->line_end) {
		size_t want = ob->written - ob->line_end < HEAD_MAX ?
			      (size_t)(ob->written - ob->line_end) : HEAD_MAX;
		ssize_t n = pread(rfd, head, want, (off_t)ob->line_end);

		if (n < 0)
			return -errno;
		uncount_feed(&u, head, (size_t)n);
	}
	uncount_feed(&u, ob->buf, ob->len);
	return 0;
}

/*
 * Where the line that ends at @size (the file's byte @size - 1 is its
 * newline) starts, into *@start.  0 or -errno.
 */
static int line_start(int fd, uint64_t size, uint64_t *start)
{
	char buf[SCAN_STEP];
	uint64_t to = size - 1;		/* search [.., to) */

	while (to > 0) {
		size_t n = to < SCAN_STEP ? (size_t)to : SCAN_STEP;
		ssize_t got = pread(fd, buf, n, (off_t)(to - n));

		if (got < 0)
			return -errno;
		if ((size_t)got != n)
			return -EIO;	/* the file shrank under us */
		const char *nl = memrchr(buf, '\n', n);
		if (nl) {
			*start = to - n + (uint64_t)(nl - buf) + 1;
			return 0;
		}
		to -= n;
	}
	*start = 0;
	return 0;
}

/*
 * Cut the last line off the log of *@size bytes (it ends with a newline;
 * @fd writes it, @rfd reads it), and take it out of @sum's counts.
 * -ENODATA if that line is part of the header (nothing left to cut), else
 * 0 or -errno.
 */
static int cut_last_line(int fd, int rfd, uint64_t *size,
			 struct capture_summary *sum)
{
	char head[HEAD_MAX];
	uint64_t start;
	ssize_t n;
	int rc;

	if (*size == 0)
		return -ENODATA;
	if ((rc = line_start(rfd, *size, &start)))
		return rc;
	n = pread(rfd, head, *size - start < HEAD_MAX ?
		  (size_t)(*size - start) : HEAD_MAX, (off_t)start);
	if (n < 0)
		return -errno;
	enum line_kind kind = line_kind(head, (size_t)n);
	if (kind == LK_META)
		return -ENODATA;
	if (ftruncate(fd, (off_t)start) < 0)
		return -errno;
	uncount(sum, kind);
	*size = start;
	return 0;
}

/* The end record with @sum's counters. */
static void end_of(const struct capture_summary *sum, struct caplog_end *end)
{
	static const char *const stops[] = {
		[LOG_STOP_MAX_SIZE] = "MAX_SIZE", [LOG_STOP_MIN_FREE] = "MIN_FREE",
	};

	memset(end, 0, sizeof(*end));
	end->events = sum->events;
	end->lost = sum->lost;
	end->lost_disk_full = sum->lost_disk_full;
	end->filtered = sum->excluded;
	end->paths_cut = sum->paths_cut;
	end->snapshot_fds = sum->snapshot_fds;
	end->missing_tracepoints = (uint64_t)(sum->detached > 0 ? sum->detached : 0);
	end->duration_ns = sum->duration_ns;
	end->maps_unfollowed = sum->maps_unfollowed;
	if (sum->log_stop)
		snprintf(end->error, sizeof(end->error), "%s", stops[sum->log_stop]);
	else if (sum->log_full)
		snprintf(end->error, sizeof(end->error), "%s",
			 sum->log_full == -EDQUOT ? "EDQUOT" :
			 sum->log_full == -EFBIG ? "EFBIG" : "ENOSPC");
}

void write_trailer(struct outbuf *ob, const struct capture_summary *sum)
{
	struct caplog_end end;

	if (sum->uncaptured.known)
		uncaptured_write(ob, &sum->uncaptured);
	end_of(sum, &end);
	caplog_write_end(ob, &end);
}

/*
 * Write the uncaptured and end records at @size, the end of the log's last
 * complete line, after cutting off what follows.  Records that do not fit
 * whole are cut off again.  0 or -errno.
 */
static int put_end_at(struct capture_log *lg, const struct capture_summary *sum,
		      uint64_t size)
{
	struct outbuf *ob = &lg->ob;
	int rc;

	if ((rc = cut_to(lg, size)))
		return rc;
	ob->written = ob->line_end = size;
	write_trailer(ob, sum);
	rc = outbuf_flush(ob);
	if (rc && ftruncate(ob->fd, (off_t)size) < 0)
		return -errno;
	if (rc) {
		ob->written = size;
		log_guard_restart(&lg->guard, size);
	}
	return rc;
}

int cut_to(struct capture_log *lg, uint64_t size)
{
	struct outbuf *ob = &lg->ob;

	if (ftruncate(ob->fd, (off_t)size) < 0 ||
	    lseek(ob->fd, (off_t)size, SEEK_SET) < 0)
		return -errno;
	log_guard_restart(&lg->guard, size);
	ob->err = 0;
	ob->len = 0;
	return 0;
}

int open_for_reading(int fd)
{
	char proc[64];
	int rfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_CLOEXEC);
	return rfd < 0 ? -errno : rfd;
}

int stopped(const struct capture_log *lg, const struct capture_summary *sum,
	    int full, int rc, char *err, size_t errlen)
{
	unsigned long long events = (unsigned long long)sum->events;
	char why[128];

	if (sum->log_stop == LOG_STOP_MAX_SIZE)
		snprintf(why, sizeof(why), "reached --max-size (%llu bytes)",
			 (unsigned long long)lg->guard.max_size);
	else if (sum->log_stop == LOG_STOP_MIN_FREE)
		snprintf(why, sizeof(why), "its file system would have less "
			 "than %u%% free (--min-free)", lg->guard.min_free_pct);
	else
		snprintf(why, sizeof(why), "%s", strerror(-full));
	if (rc == -ENODATA) {
		snprintf(err, errlen, "capture log %s: %s: stopped after %llu "
			 "events; not even the end record fits", lg->path, why,
			 events);
		return full;
	}
	if (rc) {
		snprintf(err, errlen, "capture log %s: %s (ending the log "
			 "after: %s)", lg->path, strerror(-rc), why);
		return rc;
	}
	snprintf(err, errlen, "capture log %s: %s: stopped after %llu events",
		 lg->path, why, events);
	return full;
}

/* The disk filled (or a limit was met, @full): end the text log cleanly
 * in the room there is.  Returns as stopped(). */
static int finish_full(struct capture_log *lg, struct capture_summary *sum,
		       int full, char *err, size_t errlen)
{
	struct outbuf *ob = &lg->ob;
	uint64_t size = ob->line_end;
	int rfd = open_for_reading(ob->fd), rc = rfd;

	sum->log_full = full;
	if (rfd >= 0)
		rc = uncount_unwritten(ob, rfd, sum);
	while (!rc) {
		rc = put_end_at(lg, sum, size);
		if (!capture_log_full(rc))
			break;
		rc = cut_last_line(ob->fd, rfd, &size, sum);
	}
	if (rfd >= 0)
		close(rfd);
	return stopped(lg, sum, full, rc, err, errlen);
}

/* End a text log (capture_log_end()). */
static int end_text(struct capture_log *lg, struct capture_summary *sum,
		    char *err, size_t errlen)
{
	struct outbuf *ob = &lg->ob;
	int rc = outbuf_flush(ob);

	if (!rc) {
		write_trailer(ob, sum);
		rc = outbuf_flush(ob);
	}
	if (capture_log_full(rc))
		return finish_full(lg, sum, rc, err, errlen);
	if (rc)
		snprintf(err, errlen, "capture log %s: %s", lg->path, strerror(-rc));
	return rc;
}

int capture_log_end(struct capture_log *lg, struct capture_summary *sum,
		    char *err, size_t errlen)
{
	int rc;

	/* A limit met from now on is the end's own: the disk's. */
	sum->log_stop = lg->guard.stop;
	log_guard_end(&lg->guard);
	rc = lg->zst ? capture_log_end_zst(lg, sum, err, errlen) :
		       end_text(lg, sum, err, errlen);
	sum->bytes = lg->guard.written;
	sum->text_bytes = lg->zst ? zstd_out_text_bytes(lg->zst) : lg->ob.written;
	return rc;
}

int capture_open_log(const char *path, bool overwrite, char *err,
		     size_t errlen)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	/* A file size limit then fails the write with EFBIG, which ends the
	 * log like a full disk, instead of killing the process. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGXFSZ, &sa, NULL) < 0) {
		int rc = -errno;
		snprintf(err, errlen, "SIGXFSZ: %s", strerror(errno));
		return rc;
	}
	return outfile_open(path, 0600, OUTFILE_TRUNCATE | OUTFILE_PRIVATE |
			    (overwrite ? 0 : OUTFILE_KEEP), NULL, NULL, err,
			    errlen);
}

bool capture_log_compressed(const char *path)
{
	size_t len = strlen(path);

	return len >= 4 && strcmp(path + len - 4, ".zst") == 0;
}

struct capture_log *capture_log_open(const struct capture_options *opt,
				     char *err, size_t errlen)
{
	struct capture_log *lg = calloc(1, sizeof(*lg));
	int fd;

	if (!lg) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	fd = capture_open_log(opt->output, opt->overwrite, err, errlen);
	if (fd < 0) {
		free(lg);
		errno = -fd;
		return NULL;
	}
	outbuf_init(&lg->ob, fd);
	lg->path = opt->output;
	log_guard_init(&lg->guard, fd, opt->max_size, opt->min_free_pct);
	lg->frame_ns = clock_ns(CLOCK_MONOTONIC);
	if (!capture_log_compressed(opt->output)) {
		outbuf_set_sink(&lg->ob, log_guard_write, &lg->guard);
		return lg;
	}
	lg->zst = zstd_out_new(log_guard_write, &lg->guard);
	if (!lg->zst) {
		snprintf(err, errlen, "out of memory");
		capture_log_close(lg);
		errno = ENOMEM;
		return NULL;
	}
	outbuf_set_sink(&lg->ob, zstd_out_write, lg->zst);
	return lg;
}

void capture_log_sync(struct capture_log *lg)
{
	int rc = outbuf_flush(&lg->ob);

	if (!rc && lg->zst && (rc = zstd_out_end_frame(lg->zst)))
		lg->ob.err = rc;
}

void capture_log_tick(struct capture_log *lg, uint64_t now)
{
	if (now - lg->frame_ns < CAPTURE_FRAME_NS)
		return;
	lg->frame_ns = now;
	log_guard_check_soon(&lg->guard);
	if (lg->zst)
		capture_log_sync(lg);
}

uint64_t capture_log_bytes(const struct capture_log *lg)
{
	return lg->guard.written;
}

void capture_log_status(const struct capture_log *lg,
			const struct capture_options *opt,
			const struct capture_summary *sum, uint64_t start,
			uint64_t duration, uint64_t now, uint64_t *last)
{
	struct capture_status st = {
		.elapsed_ns = now - start, .duration_ns = duration,
		.events = sum->events, .lost = sum->lost,
		.log_bytes = capture_log_bytes(lg),
	};

	if (!opt->status || now - *last < CAPTURE_STATUS_EVERY_NS)
		return;
	*last = now;
	opt->status(opt->status_ctx, &st);
}

int capture_log_close(struct capture_log *lg)
{
	int rc = 0;

	if (!lg)
		return 0;
	if (close(lg->ob.fd) < 0)
		rc = -errno;
	zstd_out_free(lg->zst);
	free(lg);
	return rc;
}
