/*
 * logguard: the capture log's bytes counted on their way to the file, and
 * kept within --max-size and above --min-free (logguard.h).
 */
#include <errno.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ioriot/log.h"
#include "ioriot/logguard.h"

void log_guard_init(struct log_guard *g, int fd, uint64_t max_size,
		    unsigned min_free_pct)
{
	*g = (struct log_guard){
		.fd = fd, .max_size = max_size, .min_free_pct = min_free_pct,
		.free_limit = UINT64_MAX, .check_due = min_free_pct > 0,
	};
}

void log_guard_check_soon(struct log_guard *g)
{
	g->check_due = g->min_free_pct > 0;
}

void log_guard_end(struct log_guard *g)
{
	g->ending = true;
}

void log_guard_restart(struct log_guard *g, uint64_t size)
{
	g->written = size;
	if (g->checked_at > size)
		g->checked_at = size;
}

/*
 * Where the file may grow to before its file system has less than
 * min_free_pct free (f_bavail: what is free to others than root, as df
 * shows it).  If the file system cannot tell, there is no such limit
 * (said once).
 */
static void look_at_free_space(struct log_guard *g)
{
	struct statvfs vfs;

	g->check_due = false;
	g->checked_at = g->written;
	if (fstatvfs(g->fd, &vfs) < 0 || vfs.f_blocks == 0) {
		if (g->free_limit == UINT64_MAX && g->min_free_pct)
			log_warn("the capture log's file system does not tell "
				 "its free space: --min-free cannot be kept");
		g->min_free_pct = 0;
		g->free_limit = UINT64_MAX;
		return;
	}
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	uint64_t floor = (uint64_t)vfs.f_blocks * vfs.f_frsize / 100 *
			 g->min_free_pct;
	g->free_limit = g->written + (avail > floor ? avail - floor : 0);
}

/* The size the file may have now, and which limit that is. */
static uint64_t limit(const struct log_guard *g, enum log_stop *which)
{
	uint64_t reserve = g->ending ? 0 : LOG_GUARD_RESERVE;
	uint64_t lim = UINT64_MAX;

	*which = LOG_STOP_NONE;
	if (g->max_size) {
		lim = g->max_size > reserve ? g->max_size - reserve : 0;
		*which = LOG_STOP_MAX_SIZE;
	}
	if (g->free_limit != UINT64_MAX) {
		uint64_t f = g->free_limit > reserve ? g->free_limit - reserve : 0;
		if (f < lim) {
			lim = f;
			*which = LOG_STOP_MIN_FREE;
		}
	}
	return lim;
}

ssize_t log_guard_write(void *ctx, const void *data, size_t len)
{
	struct log_guard *g = ctx;
	enum log_stop which;
	ssize_t n;

	if (g->min_free_pct &&
	    (g->check_due || g->written - g->checked_at >= LOG_GUARD_CHECK_BYTES))
		look_at_free_space(g);
	uint64_t lim = limit(g, &which);
	if (g->written >= lim) {
		if (g->stop == LOG_STOP_NONE)
			g->stop = which;
		return which == LOG_STOP_MAX_SIZE ? -EFBIG : -ENOSPC;
	}
	if (len > lim - g->written)
		len = (size_t)(lim - g->written);
	do
		n = write(g->fd, data, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	g->written += (uint64_t)n;
	return n;
}
