/*
 * logzst: the end of a .zst capture log (capture.h, zstdio.h).  Its file
 * is a sequence of complete frames of whole lines but for the frame being
 * written; on a full disk (or a limit met) it is cut back to its last
 * complete frame, and further frame by frame until the frame of the
 * uncaptured and end records fits, each line cut off taken out of the
 * counts as the text log does it line by line (logfile.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/zstdio.h"
#include "logfile.h"

/*
 * Cut the file back to @size, the end of a complete frame, and write the
 * records there as a frame of their own; cut off again if they do not fit
 * whole.  0 or -errno.
 */
static int put_end_at(struct capture_log *lg, const struct capture_summary *sum,
		      uint64_t size)
{
	struct outbuf *ob = &lg->ob;
	int rc;

	if ((rc = cut_to(lg, size)))
		return rc;
	zstd_out_restart(lg->zst, size);
	write_trailer(ob, sum);
	rc = outbuf_flush(ob);
	if (!rc)
		rc = zstd_out_end_frame(lg->zst);
	if (rc && ftruncate(ob->fd, (off_t)size) < 0)
		return -errno;
	if (rc)
		log_guard_restart(&lg->guard, size);
	return rc;
}

/*
 * Cut the last complete frame off the log of *@size bytes (read through
 * @rfd), and take its lines out of @sum's counts.  -ENODATA if it holds
 * header lines or is not known (nothing left to cut), else 0 or -errno.
 */
static int cut_last_frame(struct capture_log *lg, int rfd, uint64_t *size,
			  struct capture_summary *sum)
{
	struct uncounter u;
	uint64_t start;
	char *text;
	size_t len;
	int rc;

	if (zstd_out_pop_frame(lg->zst, &start))
		return -ENODATA;
	if ((rc = zstd_read_frames(rfd, start, *size, &text, &len)))
		return rc;
	if (has_meta_line(text, len)) {
		free(text);
		return -ENODATA;
	}
	if (ftruncate(lg->ob.fd, (off_t)start) < 0) {
		rc = -errno;
		free(text);
		return rc;
	}
	uncounter_init(&u, sum);
	uncount_feed(&u, text, len);
	free(text);
	*size = start;
	return 0;
}

/* The disk filled (or a limit was met, @full): end the log cleanly in
 * the room there is.  Returns as stopped(). */
static int finish_full(struct capture_log *lg, struct capture_summary *sum,
		       int full, char *err, size_t errlen)
{
	uint64_t size = zstd_out_committed(lg->zst);
	int rfd = open_for_reading(lg->ob.fd), rc = rfd < 0 ? rfd : 0;
	struct uncounter u;
	const char *text;
	size_t len;

	sum->log_full = full;
	/* The text in no complete frame: taken, and what the outbuf holds. */
	text = zstd_out_pending(lg->zst, &len);
	uncounter_init(&u, sum);
	uncount_feed(&u, text, len);
	uncount_feed(&u, lg->ob.buf, lg->ob.len);
	while (!rc) {
		/* Not even the header's frame is in the file: no log. */
		if (size == 0) {
			rc = ftruncate(lg->ob.fd, 0) < 0 ? -errno : -ENODATA;
			log_guard_restart(&lg->guard, 0);
			break;
		}
		rc = put_end_at(lg, sum, size);
		if (!capture_log_full(rc))
			break;
		rc = cut_last_frame(lg, rfd, &size, sum);
	}
	if (rfd >= 0)
		close(rfd);
	return stopped(lg, sum, full, rc, err, errlen);
}

int capture_log_end_zst(struct capture_log *lg, struct capture_summary *sum,
			char *err, size_t errlen)
{
	struct outbuf *ob = &lg->ob;
	int rc = outbuf_flush(ob);

	if (!rc) {
		write_trailer(ob, sum);
		rc = outbuf_flush(ob);
	}
	if (!rc)
		rc = zstd_out_end_frame(lg->zst);
	if (capture_log_full(rc))
		return finish_full(lg, sum, rc, err, errlen);
	if (rc)
		snprintf(err, errlen, "capture log %s: %s", lg->path, strerror(-rc));
	return rc;
}
