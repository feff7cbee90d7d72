/*
 * The time series of a replay (series.h): syscall classes, samples built
 * from cumulative per-syscall counters, and the writer that turns each
 * sample into a CSV row and Graphite plaintext lines
 * ("PATH VALUE TIMESTAMP\n" over TCP).  Graphite must never hold up the
 * replay: the socket is non-blocking, connect and send share one deadline
 * per interval, and a failure drops the connection until the next interval.
 * Times are ns throughout; seconds, microseconds and milliseconds appear
 * only in what is printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "ioriot/series.h"

#define DEFAULT_TIMEOUT_NS 100000000ULL	/* 100 ms */

static const char *const class_names[SC_COUNT] = {
	[SC_READ] = "read",
	[SC_WRITE] = "write",
	[SC_OPEN] = "open",
	[SC_META] = "meta",
	[SC_NAMESPACE] = "namespace",
	[SC_SYNC] = "sync",
	[SC_OTHER] = "other",
};

/* A growing text buffer: a CSV row or one interval's Graphite lines. */
struct text {
	char *p;
	size_t len, cap;
};

struct series {
	FILE *csv;
	char **devices;			/* CSV device columns */
	size_t ndevices;
	uint64_t run_lat[REPLAY_HIST_BUCKETS];	/* all samples so far */
	struct addrinfo *addrs;		/* NULL: no Graphite */
	char *graphite;			/* "HOST:PORT" for messages */
	char *prefix;
	int fd;				/* connection to Graphite, or -1 */
	uint64_t start_unix_ns, timeout_ns;
	uint64_t failures;
	struct text buf;
};

enum series_class series_class_of(enum sys_id id)
{
	/* The table's class, with the namespace calls apart from the other
	 * meta ones: they change the tree, which costs a journal write. */
	switch (sys_info(id)->cls) {
	case OC_READ:
		return SC_READ;
	case OC_WRITE: case OC_COPY: case OC_ALTER:
		return SC_WRITE;
	case OC_OPEN:
		return SC_OPEN;
	case OC_META:
		return SC_META;
	case OC_NAMESPACE:
		return SC_NAMESPACE;
	case OC_SYNC:
		return SC_SYNC;
	case OC_OTHER: case OC_COUNT:
		break;
	}
	return SC_OTHER;
}

const char *series_class_name(enum series_class c)
{
	return c < SC_COUNT ? class_names[c] : "?";
}

void series_sample_add(struct series_sample *smp,
		       const struct replay_sys_stats *now,
		       const struct replay_sys_stats *prev)
{
	for (int id = 0; id < SYS_COUNT; id++) {
		const struct replay_sys_stats *a = &now[id];
		const struct replay_sys_stats *b = prev ? &prev[id] : NULL;
		struct series_class_stats *c = &smp->cls[series_class_of(id)];
		uint64_t bytes = a->bytes - (b ? b->bytes : 0);
		unsigned dirs = sys_data_dirs(id);

		c->ops += a->ops - (b ? b->ops : 0);
		c->differ += a->differ - (b ? b->differ : 0);
		for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
			c->lat[i] += a->lat[i] - (b ? b->lat[i] : 0);
		/* A copy's bytes were read and written. */
		if (dirs & SYS_DATA_READ)
			smp->rd_bytes += bytes;
		if (dirs & SYS_DATA_WRITE)
			smp->wr_bytes += bytes;
	}
}

/* Append printf output to @t.  Returns 0 or -ENOMEM. */
__attribute__((format(printf, 2, 3)))
static int text_add(struct text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		int n;

		va_start(ap, fmt);
		n = vsnprintf(t->p ? t->p + t->len : NULL,
			      t->p ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -EINVAL;
		if (t->p && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return 0;
		}
		size_t ncap = t->cap ? t->cap : 4096;

		while (ncap - t->len <= (size_t)n)
			ncap *= 2;
		char *p = realloc(t->p, ncap);

		if (!p)
			return -ENOMEM;
		t->p = p;
		t->cap = ncap;
	}
}

/*
 * A copy of @s usable as one CSV column name part or one Graphite path
 * component: every byte but letters, digits, '_' and '-' becomes '_'
 * ('.' too, when @keep_dots is false).  NULL when out of memory.
 */
static char *sanitize(const char *s, bool keep_dots)
{
	char *out = strdup(s);

	if (!out)
		return NULL;
	for (char *p = out; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      (keep_dots && c == '.')))
			*p = '_';
	}
	return out;
}

/* The metric prefix: @prefix sanitized without leading or trailing dots,
 * or "ioriot.NAME".  NULL when out of memory. */
static char *make_prefix(const char *prefix, const char *test_name)
{
	char *p, *name;
	size_t len;

	if (!prefix) {
		if (!test_name || !*test_name)
			return strdup("ioriot");
		name = sanitize(test_name, false);
		if (!name || asprintf(&p, "ioriot.%s", name) < 0)
			p = NULL;
		free(name);
		return p;
	}
	while (*prefix == '.')
		prefix++;
	p = sanitize(prefix, true);
	if (!p)
		return NULL;
	len = strlen(p);
	while (len && p[len - 1] == '.')
		p[--len] = '\0';
	return p;
}

/* Resolve "HOST:PORT" or "[ADDR]:PORT" into s->addrs.  Returns 0, -EINVAL
 * (malformed) or -EHOSTUNREACH, with a message in @err. */
static int resolve(struct series *s, const char *spec, char *err,
		   size_t errlen)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	const char *colon = strrchr(spec, ':');
	char *host;
	int ret;

	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "graphite address '%s' is not HOST:PORT",
			 spec);
		return -EINVAL;
	}
	if (spec[0] == '[' && colon[-1] == ']')
		host = strndup(spec + 1, (size_t)(colon - spec) - 2);
	else
		host = strndup(spec, (size_t)(colon - spec));
	if (!host) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = getaddrinfo(host, colon + 1, &hints, &s->addrs);
	if (ret) {
		snprintf(err, errlen, "graphite address '%s': %s", spec,
			 gai_strerror(ret));
		s->addrs = NULL;
		ret = ret == EAI_SERVICE ? -EINVAL : -EHOSTUNREACH;
	}
	free(host);
	return ret;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* The CSV header line: see docs/series.md. */
static int csv_header(struct series *s)
{
	struct text *t = &s->buf;
	int ret = text_add(t, "time_s,interval_s,ops_per_s,read_mb_per_s,"
			   "write_mb_per_s,p50_us,p99_us,max_us");

	for (int c = 0; c < SC_COUNT && !ret; c++)
		ret = text_add(t, ",%s_ops_per_s,%s_p50_us,%s_p99_us,%s_max_us",
			       class_names[c], class_names[c], class_names[c],
			       class_names[c]);
	if (!ret)
		ret = text_add(t, ",run_p50_us,run_p95_us,run_p99_us,"
			       "run_max_us");
	for (size_t d = 0; d < s->ndevices && !ret; d++) {
		char *dev = sanitize(s->devices[d], false);

		ret = dev ? text_add(t, ",dev_%s_util_pct,dev_%s_r_await_ms,"
				     "dev_%s_w_await_ms", dev, dev, dev) :
			    -ENOMEM;
		free(dev);
	}
	if (!ret)
		ret = text_add(t, ",loadavg1\n");
	return ret;
}

struct series *series_open(const struct series_config *cfg, char *err,
			   size_t errlen)
{
	struct series *s = calloc(1, sizeof(*s));
	int ret = -ENOMEM;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->fd = -1;
	s->start_unix_ns = cfg->start_unix_ns ? cfg->start_unix_ns :
			   clock_ns(CLOCK_REALTIME);
	s->timeout_ns = cfg->timeout_ns ? cfg->timeout_ns : DEFAULT_TIMEOUT_NS;
	snprintf(err, errlen, "out of memory");
	if (cfg->ndevices && !cfg->devices) {
		snprintf(err, errlen, "%zu devices but no names",
			 cfg->ndevices);
		ret = -EINVAL;
		goto fail;
	}
	s->devices = calloc(cfg->ndevices ? cfg->ndevices : 1,
			    sizeof(*s->devices));
	if (!s->devices)
		goto fail;
	for (; s->ndevices < cfg->ndevices; s->ndevices++) {
		s->devices[s->ndevices] = strdup(cfg->devices[s->ndevices]);
		if (!s->devices[s->ndevices])
			goto fail;
	}
	s->prefix = make_prefix(cfg->prefix, cfg->test_name);
	if (!s->prefix)
		goto fail;
	if (cfg->graphite) {
		s->graphite = strdup(cfg->graphite);
		if (!s->graphite)
			goto fail;
		ret = resolve(s, cfg->graphite, err, errlen);
		if (ret)
			goto fail;
	}
	if (cfg->csv_path) {
		ret = -ENOMEM;
		if (csv_header(s))
			goto fail;
		int fd = outfile_open(cfg->csv_path, 0644, OUTFILE_TRUNCATE,
				      cfg->input, NULL, err, errlen);
		if (fd < 0) {
			ret = fd;
			goto fail;
		}
		errno = 0;
		s->csv = fdopen(fd, "w");
		if (!s->csv)
			close(fd);
		if (!s->csv || fwrite(s->buf.p, 1, s->buf.len, s->csv) !=
		    s->buf.len || fflush(s->csv)) {
			ret = -(errno ? errno : EIO);
			snprintf(err, errlen, "cannot write %s: %s",
				 cfg->csv_path, strerror(-ret));
			goto fail;
		}
	}
	return s;
fail:
	series_close(s);
	errno = -ret;
	return NULL;
}

/* Percentile @pct of @h (replay_hist_percentile()) as "%.3f" us, or
 * nothing when @h is empty (CSV). */
static int csv_pct(struct text *t, const uint64_t *h, uint64_t n, double pct)
{
	if (!n)
		return text_add(t, ",");
	return text_add(t, ",%.3f", us(replay_hist_percentile(h, pct)));
}

/* @smp's row in s->buf. */
static int csv_row(struct series *s, const struct series_sample *smp,
		   const uint64_t *all, uint64_t ops)
{
	struct text *t = &s->buf;
	double sec = secs(smp->interval_ns);
	uint64_t run_ops = 0;
	int ret;

	for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
		run_ops += s->run_lat[i];
	ret = text_add(t, "%.3f,%.3f,%.3f,%.3f,%.3f", secs(smp->t_ns), sec,
		       (double)ops / sec, (double)smp->rd_bytes / 1e6 / sec,
		       (double)smp->wr_bytes / 1e6 / sec);
	if (!ret)
		ret = csv_pct(t, all, ops, 50);
	if (!ret)
		ret = csv_pct(t, all, ops, 99);
	if (!ret)
		ret = csv_pct(t, all, ops, 100);
	for (int c = 0; c < SC_COUNT && !ret; c++) {
		const struct series_class_stats *cs = &smp->cls[c];

		ret = text_add(t, ",%.3f", (double)cs->ops / sec);
		if (!ret)
			ret = csv_pct(t, cs->lat, cs->ops, 50);
		if (!ret)
			ret = csv_pct(t, cs->lat, cs->ops, 99);
		if (!ret)
			ret = csv_pct(t, cs->lat, cs->ops, 100);
	}
	if (!ret)
		ret = csv_pct(t, s->run_lat, run_ops, 50);
	if (!ret)
		ret = csv_pct(t, s->run_lat, run_ops, 95);
	if (!ret)
		ret = csv_pct(t, s->run_lat, run_ops, 99);
	if (!ret)
		ret = csv_pct(t, s->run_lat, run_ops, 100);
	for (size_t d = 0; d < s->ndevices && !ret; d++) {
		const struct disk_figures *f = NULL;

		for (size_t i = 0; i < smp->ndisks && !f; i++)
			if (!strcmp(smp->disks[i].name, s->devices[d]))
				f = &smp->disks[i];
		/* A device missing from the sample did no I/O. */
		ret = text_add(t, ",%.3f,%.3f,%.3f", f ? f->util_pct : 0,
			       f ? f->rd_await_ms : 0, f ? f->wr_await_ms : 0);
	}
	if (!ret)
		ret = text_add(t, ",%.2f\n", smp->loadavg1);
	return ret;
}

/* One Graphite line "PREFIX.MIDLEAF VALUE TS\n"; @mid is "" or a group
 * ending in a dot ("class.read.", "disk.sda."). */
static int metric(struct series *s, uint64_t ts, const char *mid,
		  const char *leaf, double value)
{
	return text_add(&s->buf, "%s.%s%s %.3f %" PRIu64 "\n", s->prefix, mid,
			leaf, value, ts);
}

/* The latency metrics of histogram @h under @mid. */
static int metric_lat(struct series *s, uint64_t ts, const char *mid,
		      const uint64_t *h)
{
	static const struct { const char *leaf; double pct; } p[] = {
		{ "p50_us", 50 }, { "p99_us", 99 }, { "max_us", 100 },
	};
	int ret = 0;

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]) && !ret; i++)
		ret = metric(s, ts, mid, p[i].leaf,
			     us(replay_hist_percentile(h, p[i].pct)));
	return ret;
}

/* The metrics of device @f under "disk.NAME.". */
static int metric_disk(struct series *s, uint64_t ts,
		       const struct disk_figures *f)
{
	const struct { const char *leaf; double v; } m[] = {
		{ "util_pct", f->util_pct },
		{ "r_per_s", f->rd_per_s }, { "w_per_s", f->wr_per_s },
		{ "read_mb_per_s", f->rd_mb_per_s },
		{ "write_mb_per_s", f->wr_mb_per_s },
		{ "r_await_ms", f->rd_await_ms },
		{ "w_await_ms", f->wr_await_ms },
	};
	char *dev = sanitize(f->name, false), *mid;
	int ret = 0;

	if (!dev || asprintf(&mid, "disk.%s.", dev) < 0) {
		free(dev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]) && !ret; i++)
		ret = metric(s, ts, mid, m[i].leaf, m[i].v);
	free(mid);
	free(dev);
	return ret;
}

/* @smp's Graphite lines in s->buf. */
static int graphite_lines(struct series *s, const struct series_sample *smp,
			  const uint64_t *all, uint64_t ops)
{
	uint64_t ts = (s->start_unix_ns + smp->t_ns) / 1000000000ULL;
	double sec = secs(smp->interval_ns);
	int ret;

	ret = metric(s, ts, "", "ops_per_s", (double)ops / sec);
	if (!ret)
		ret = metric(s, ts, "", "read_mb_per_s",
			     (double)smp->rd_bytes / 1e6 / sec);
	if (!ret)
		ret = metric(s, ts, "", "write_mb_per_s",
			     (double)smp->wr_bytes / 1e6 / sec);
	if (!ret && ops)
		ret = metric_lat(s, ts, "", all);
	for (int c = 0; c < SC_COUNT && !ret; c++) {
		const struct series_class_stats *cs = &smp->cls[c];
		char mid[32];

		snprintf(mid, sizeof(mid), "class.%s.", class_names[c]);
		ret = metric(s, ts, mid, "ops_per_s", (double)cs->ops / sec);
		if (!ret && cs->ops)
			ret = metric_lat(s, ts, mid, cs->lat);
	}
	for (size_t d = 0; d < smp->ndisks && !ret; d++)
		ret = metric_disk(s, ts, &smp->disks[d]);
	if (!ret)
		ret = metric(s, ts, "", "loadavg1", smp->loadavg1);
	return ret;
}

/* Wait until @fd is ready for @events or @deadline (CLOCK_MONOTONIC ns)
 * passes.  Returns 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		struct pollfd p = { .fd = fd, .events = events };
		int n;

		if (now >= deadline)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* Connect to the first address of s->addrs that answers before
 * @deadline.  Returns 0 (s->fd set) or -errno of the last attempt. */
static int graphite_connect(struct series *s, uint64_t deadline)
{
	int ret = -EHOSTUNREACH;

	for (struct addrinfo *a = s->addrs; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK |
				SOCK_CLOEXEC, a->ai_protocol);
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		if (fd < 0) {
			ret = -errno;
			continue;
		}
		if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
			s->fd = fd;
			return 0;
		}
		ret = -errno;
		if (ret == -EINPROGRESS) {
			ret = wait_fd(fd, POLLOUT, deadline);
			if (!ret && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr,
					       &len))
				ret = -errno;
			else if (!ret)
				ret = -soerr;
		}
		if (!ret) {
			s->fd = fd;
			return 0;
		}
		close(fd);
		if (ret == -ETIMEDOUT)
			break;
	}
	return ret;
}

/* Whether the server closed its side: it never sends, so anything
 * readable is an end of file or an error. */
static bool peer_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) != 0;
}

/* Send s->buf to Graphite before @deadline, connecting first if needed.
 * Returns 0 or -errno; on failure the connection is closed. */
static int graphite_send(struct series *s, uint64_t deadline)
{
	size_t off = 0;
	int ret = 0;

	if (s->fd >= 0 && peer_gone(s->fd)) {
		close(s->fd);
		s->fd = -1;
	}
	if (s->fd < 0)
		ret = graphite_connect(s, deadline);
	while (!ret && off < s->buf.len) {
		ssize_t n = send(s->fd, s->buf.p + off, s->buf.len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n >= 0)
			off += (size_t)n;
		else if (errno == EAGAIN || errno == EWOULDBLOCK)
			ret = wait_fd(s->fd, POLLOUT, deadline);
		else if (errno != EINTR)
			ret = -errno;
	}
	/* A cut-off last line is dropped by the server with the
	 * connection. */
	if (ret && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	return ret;
}

int series_write(struct series *s, const struct series_sample *smp)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + s->timeout_ns;
	uint64_t all[REPLAY_HIST_BUCKETS] = { 0 }, ops = 0;
	int ret = 0;

	if ((smp->ndisks && !smp->disks) || !smp->interval_ns)
		return -EINVAL;
	for (int c = 0; c < SC_COUNT; c++) {
		ops += smp->cls[c].ops;
		for (int i = 0; i < REPLAY_HIST_BUCKETS; i++) {
			all[i] += smp->cls[c].lat[i];
			s->run_lat[i] += smp->cls[c].lat[i];
		}
	}
	if (s->csv) {
		s->buf.len = 0;
		ret = csv_row(s, smp, all, ops);
		if (!ret && (fwrite(s->buf.p, 1, s->buf.len, s->csv) !=
			     s->buf.len || fflush(s->csv)))
			ret = -(errno ? errno : EIO);
		if (ret)
			return ret;
	}
	if (!s->addrs)
		return 0;
	s->buf.len = 0;
	ret = graphite_lines(s, smp, all, ops);
	if (!ret)
		ret = graphite_send(s, deadline);
	if (ret) {
		if (!s->failures)
			log_warn("graphite %s: %s; later failures are only "
				 "counted", s->graphite, strerror(-ret));
		s->failures++;
	}
	return 0;
}

uint64_t series_graphite_failures(const struct series *s)
{
	return s ? s->failures : 0;
}

int series_close(struct series *s)
{
	int ret = 0;

	if (!s)
		return 0;
	if (s->csv && fclose(s->csv))
		ret = -errno;
	if (s->fd >= 0)
		close(s->fd);
	if (s->addrs)
		freeaddrinfo(s->addrs);
	for (size_t d = 0; d < s->ndevices; d++)
		free(s->devices[d]);
	free(s->devices);
	free(s->graphite);
	free(s->prefix);
	free(s->buf.p);
	free(s);
	return ret;
}
