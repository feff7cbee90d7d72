/*
 * logfile: the capture log file, shared by both backends (capture.h):
 * opened so that no other user can redirect or read it, and ended with its
 * end record.  When the log's disk fills, the capture
 * cuts the file back to its last complete line, further line by line until
 * the end record fits, and counts the events that were lost that way.
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
#include "ioriot/outfile.h"

/* Enough of a line to see its operation: t, D and i come before o. */
#define HEAD_MAX 256
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

/*
 * The lines whose newline is in the buffer write(2) did not take.  The
 * first of them may have begun in the file (from ob->line_end to
 * ob->written): its head is read back from there.  0 or -errno.
 */
static int uncount_unwritten(const struct outbuf *ob, int rfd,
			     struct capture_summary *sum)
{
	const char *p = ob->buf, *end = ob->buf + ob->len, *nl;
	char head[HEAD_MAX];
	size_t have = 0;

	if (ob->written > ob->line_end) {
		size_t want = ob->written - ob->line_end < HEAD_MAX ?
			      (size_t)(ob->written - ob->line_end) : HEAD_MAX;
		ssize_t n = pread(rfd, head, want, (off_t)ob->line_end);

		if (n < 0)
			return -errno;
		have = (size_t)n;
	}
	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		size_t more = (size_t)(nl + 1 - p);

		if (more > HEAD_MAX - have)
			more = HEAD_MAX - have;
		memcpy(head + have, p, more);
		uncount(sum, line_kind(head, have + more));
		have = 0;
		p = nl + 1;
	}
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
	if (sum->log_full)
		snprintf(end->error, sizeof(end->error), "%s",
			 sum->log_full == -EDQUOT ? "EDQUOT" :
			 sum->log_full == -EFBIG ? "EFBIG" : "ENOSPC");
}

/* The uncaptured record, when the capture counted, and the end record. */
static void write_trailer(struct outbuf *ob, const struct capture_summary *sum)
{
	struct caplog_end end;

	if (sum->uncaptured.known)
		uncaptured_write(ob, &sum->uncaptured);
	end_of(sum, &end);
	caplog_write_end(ob, &end);
}

/*
 * Write the uncaptured and end records at @size, the end of the log's last
 * complete line, after cutting off what follows.  Records that do not fit whole are
 * cut off again.  0 or -errno.
 */
static int put_end_at(struct outbuf *ob, const struct capture_summary *sum,
		      uint64_t size)
{
	int rc;

	if (ftruncate(ob->fd, (off_t)size) < 0 ||
	    lseek(ob->fd, (off_t)size, SEEK_SET) < 0)
		return -errno;
	outbuf_init(ob, ob->fd);
	ob->written = ob->line_end = size;
	write_trailer(ob, sum);
	rc = outbuf_flush(ob);
	if (rc && ftruncate(ob->fd, (off_t)size) < 0)
		return -errno;
	if (rc)
		ob->written = size;
	return rc;
}

/* The log open on @fd (write only), opened again for reading: the same
 * file, whatever its name is now.  The fd, or -errno. */
static int open_for_reading(int fd)
{
	char proc[64];
	int rfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_CLOEXEC);
	return rfd < 0 ? -errno : rfd;
}

/* The disk filled: end the log cleanly in the room there is.  Returns the
 * full-disk -errno, or another -errno if the log could not be ended. */
static int finish_full(struct outbuf *ob, struct capture_summary *sum,
		       const char *path, char *err, size_t errlen)
{
	uint64_t size = ob->line_end;
	int full = ob->err, rfd = open_for_reading(ob->fd), rc = rfd;

	sum->log_full = full;
	if (rfd >= 0)
		rc = uncount_unwritten(ob, rfd, sum);
	while (!rc) {
		rc = put_end_at(ob, sum, size);
		if (!capture_log_full(rc))
			break;
		rc = cut_last_line(ob->fd, rfd, &size, sum);
	}
	if (rfd >= 0)
		close(rfd);
	if (rc == -ENODATA) {
		snprintf(err, errlen, "capture log %s: %s: stopped after %llu "
			 "events; not even the end record fits", path,
			 strerror(-full), (unsigned long long)sum->events);
		return full;
	}
	if (rc) {
		snprintf(err, errlen, "capture log %s: %s (ending the log "
			 "after: %s)", path, strerror(-rc), strerror(-full));
		return rc;
	}
	snprintf(err, errlen, "capture log %s: %s: stopped after %llu events",
		 path, strerror(-full), (unsigned long long)sum->events);
	return full;
}

int capture_log_finish(struct outbuf *ob, struct capture_summary *sum,
		       const char *path, char *err, size_t errlen)
{
	int rc = outbuf_flush(ob);

	if (!rc) {
		write_trailer(ob, sum);
		rc = outbuf_flush(ob);
	}
	if (capture_log_full(rc))
		rc = finish_full(ob, sum, path, err, errlen);
	else if (rc)
		snprintf(err, errlen, "capture log %s: %s", path, strerror(-rc));
	sum->bytes = ob->written;
	return rc;
}

int capture_open_log(const char *path, char *err, size_t errlen)
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
	return outfile_open(path, 0600, OUTFILE_TRUNCATE | OUTFILE_PRIVATE,
			    NULL, NULL, err, errlen);
}
