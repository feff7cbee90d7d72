/*
 * outjoin: an output file made from two unnamed parts (outfile.h), for
 * files whose head is known only once their body is written: a replay
 * file's header and INIT section follow from the whole capture log, its
 * operation lines are written while the log is read.  The body moves up
 * in its own file to make room in front, the head is put there, and that
 * file is linked into the directory: the body, by far the larger part, is
 * never copied to another file (for 70 MB of operations a copy cost as
 * much as generating a tenth of them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/outfile.h"

#define MOVE_CHUNK (256 * 1024)

/* Read @len bytes at @off; a file shorter than that is -EIO. */
static int pread_all(int fd, char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Copy @len bytes of @src at 0 to @dst at @to.  0 or -errno. */
static int copy_part(int dst, off_t to, int src, off_t len, char *buf)
{
	for (off_t done = 0; done < len;) {
		size_t n = len - done < MOVE_CHUNK ? (size_t)(len - done) :
			   MOVE_CHUNK;
		int rc = pread_all(src, buf, n, done);

		if (!rc)
			rc = pwrite_all(dst, buf, n, to + done);
		if (rc)
			return rc;
		done += (off_t)n;
	}
	return 0;
}

/* Move the first @len bytes of @fd up by @by, the last chunk first, so
 * that no byte is overwritten before it moved.  0 or -errno. */
static int move_up(int fd, off_t len, off_t by, char *buf)
{
	for (off_t end = len; end > 0;) {
		size_t n = end < MOVE_CHUNK ? (size_t)end : MOVE_CHUNK;
		int rc = pread_all(fd, buf, n, end - (off_t)n);

		if (!rc)
			rc = pwrite_all(fd, buf, n, end - (off_t)n + by);
		if (rc)
			return rc;
		end -= (off_t)n;
	}
	return 0;
}

static off_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? -errno : st.st_size;
}

int outfile_join(int dirfd, const char *base, int head_fd, int body_fd,
		 char *tmp, size_t tmplen)
{
	off_t head = file_size(head_fd), body = file_size(body_fd);
	char *buf = malloc(MOVE_CHUNK);
	bool named = false;
	int fd = -1, rc;

	rc = head < 0 ? (int)head : body < 0 ? (int)body : buf ? 0 : -ENOMEM;
	if (rc)
		goto out;
	rc = outfile_link_temp(dirfd, body_fd, base, tmp, tmplen);
	if (rc == 0) {
		named = true;
		fd = fcntl(body_fd, F_DUPFD_CLOEXEC, 0);
		rc = fd < 0 ? -errno : move_up(fd, body, head, buf);
	} else {
		/* Not linkable (no O_TMPFILE, no hard links, ...): both
		 * parts copied into a new file, which fails if making any
		 * file there does. */
		fd = rc = outfile_temp(dirfd, base, tmp, tmplen);
		named = fd >= 0;
		if (fd >= 0)
			rc = copy_part(fd, head, body_fd, body, buf);
	}
	if (rc >= 0)
		rc = copy_part(fd, 0, head_fd, head, buf);
	if (rc >= 0 && lseek(fd, head + body, SEEK_SET) < 0)
		rc = -errno;
out:
	free(buf);
	if (rc >= 0)
		return fd;
	if (fd >= 0)
		close(fd);
	if (named)
		unlinkat(dirfd, tmp, 0);
	return rc;
}
