/*
 * promfile: the replay's figures as a node_exporter textfile (promfile.h).
 * The counters add up the intervals' samples; the gauges hold the last
 * interval's rates and the latency quantiles of the run so far.  Times are
 * ns and sizes bytes inside; the file has seconds and bytes, the base
 * units Prometheus wants.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/outfile.h"
#include "ioriot/promfile.h"

#define MAX_DISKS 64

/* The run's figures that only its end knows. */
struct prom_summary {
	uint64_t ops, duration_ns, captured_ns, started_ns;
	uint64_t disk_full_ops, io_error_ops;
	uint64_t lateness_ns[3];	/* p50, p99, max */
};

struct prom_disk {
	char name[32];
	double util_pct, rd_per_s, wr_per_s, rd_await_ms, wr_await_ms;
};

struct prom {
	int dirfd;			/* FILE's directory (O_PATH) */
	char *base;			/* FILE's name in it */
	char *test;			/* escaped test name */
	uint64_t t_ns, interval_ns;	/* the last sample */
	uint64_t ops[SC_COUNT], differ[SC_COUNT];	/* the run so far */
	uint64_t lat[SC_COUNT][REPLAY_HIST_BUCKETS];
	uint64_t rd_bytes, wr_bytes;
	uint64_t last_ops[SC_COUNT], last_rd, last_wr;	/* the last sample */
	char (*wanted)[32];		/* the devices that get metrics */
	size_t nwanted;
	struct prom_disk disks[MAX_DISKS];	/* of the last sample */
	size_t ndisks;
	double loadavg1;
	bool finished, have_sum;
	struct prom_summary sum;
};

static const double quantiles[] = { 0.5, 0.99, 1 };

char *prom_escape(const char *s)
{
	size_t n = 1;
	char *out, *o;

	for (const char *c = s; *c; c++)
		n += *c == '\\' || *c == '"' || *c == '\n' ? 2 : 1;
	out = malloc(n);
	if (!out)
		return NULL;
	for (o = out; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n')
			*o++ = '\\';
		*o++ = *s == '\n' ? 'n' : *s;
	}
	*o = '\0';
	return out;
}

/* "# HELP" and "# TYPE" of family @name. */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A sample of @name with the test label and @more ("" or ",k=\"v\""). */
static void value(const struct prom *p, FILE *f, const char *name,
		  const char *more, double v)
{
	fprintf(f, "%s{test=\"%s\"%s} %.9g\n", name, p->test, more, v);
}

/* value() of a Unix time @ns: ms, as %.9g would round to 100 s. */
static void stamp(const struct prom *p, FILE *f, const char *name,
		  uint64_t ns)
{
	fprintf(f, "%s{test=\"%s\"} %.3f\n", name, p->test, (double)ns / 1e9);
}

/* value() of a count: exact beyond 2^53. */
static void count(const struct prom *p, FILE *f, const char *name,
		  const char *more, uint64_t v)
{
	fprintf(f, "%s{test=\"%s\"%s} %" PRIu64 "\n", name, p->test, more, v);
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* The counters and rates of each class. */
static void render_classes(const struct prom *p, FILE *f)
{
	double sec = secs(p->interval_ns);
	char l[64];

	family(f, "ioriot_operations_total", "counter",
	       "Operations replayed, by class of syscall.");
	for (int c = 0; c < SC_COUNT; c++) {
		snprintf(l, sizeof(l), ",class=\"%s\"", series_class_name(c));
		count(p, f, "ioriot_operations_total", l, p->ops[c]);
	}
	family(f, "ioriot_differing_results_total", "counter",
	       "Operations whose result differed from the capture's.");
	for (int c = 0; c < SC_COUNT; c++) {
		snprintf(l, sizeof(l), ",class=\"%s\"", series_class_name(c));
		count(p, f, "ioriot_differing_results_total", l, p->differ[c]);
	}
	family(f, "ioriot_operations_per_second", "gauge",
	       "Operations per second over the last interval.");
	for (int c = 0; c < SC_COUNT && sec > 0; c++) {
		snprintf(l, sizeof(l), ",class=\"%s\"", series_class_name(c));
		value(p, f, "ioriot_operations_per_second", l,
		      (double)p->last_ops[c] / sec);
	}
	family(f, "ioriot_latency_seconds", "gauge",
	       "Latency quantiles of the run so far (1: the maximum).");
	for (int c = 0; c < SC_COUNT; c++) {
		if (!p->ops[c])
			continue;
		for (size_t q = 0; q < 3; q++) {
			snprintf(l, sizeof(l), ",class=\"%s\",quantile=\"%g\"",
				 series_class_name(c), quantiles[q]);
			value(p, f, "ioriot_latency_seconds", l,
			      secs(replay_hist_percentile(p->lat[c],
							  quantiles[q] * 100)));
		}
	}
}

/* The block devices of the last interval. */
static void render_disks(const struct prom *p, FILE *f)
{
	static const struct { const char *name, *help; size_t off;
			      double scale; } m[] = {
		{ "ioriot_device_utilization_ratio",
		  "Share of the last interval the device was busy.",
		  offsetof(struct prom_disk, util_pct), 0.01 },
		{ "ioriot_device_reads_per_second",
		  "Read requests completed per second.",
		  offsetof(struct prom_disk, rd_per_s), 1 },
		{ "ioriot_device_writes_per_second",
		  "Write requests completed per second.",
		  offsetof(struct prom_disk, wr_per_s), 1 },
		{ "ioriot_device_read_await_seconds",
		  "Average time of a read request.",
		  offsetof(struct prom_disk, rd_await_ms), 0.001 },
		{ "ioriot_device_write_await_seconds",
		  "Average time of a write request.",
		  offsetof(struct prom_disk, wr_await_ms), 0.001 },
	};

	if (!p->ndisks)
		return;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		family(f, m[i].name, "gauge", m[i].help);
		for (size_t d = 0; d < p->ndisks; d++) {
			const struct prom_disk *k = &p->disks[d];
			char *dev = prom_escape(k->name), l[96];
			double v;

			if (!dev)
				continue;
			memcpy(&v, (const char *)k + m[i].off, sizeof(v));
			snprintf(l, sizeof(l), ",device=\"%s\"", dev);
			value(p, f, m[i].name, l, v * m[i].scale);
			free(dev);
		}
	}
}

/* The figures of the whole run. */
static void render_summary(const struct prom *p, FILE *f)
{
	const struct prom_summary *s = &p->sum;
	char l[32];

	family(f, "ioriot_replay_duration_seconds", "gauge",
	       "Wall time of the whole replay.");
	value(p, f, "ioriot_replay_duration_seconds", "",
	      secs(s->duration_ns));
	family(f, "ioriot_replay_captured_seconds", "gauge",
	       "Duration of the capture that was replayed.");
	value(p, f, "ioriot_replay_captured_seconds", "",
	      secs(s->captured_ns));
	family(f, "ioriot_replay_operations", "gauge",
	       "Operations of the whole replay.");
	count(p, f, "ioriot_replay_operations", "", s->ops);
	family(f, "ioriot_replay_operations_per_second", "gauge",
	       "Operations per second over the whole replay (ioops/s).");
	value(p, f, "ioriot_replay_operations_per_second", "",
	      s->duration_ns ? (double)s->ops / secs(s->duration_ns) : 0);
	family(f, "ioriot_replay_start_time_seconds", "gauge",
	       "Unix time the replay's operations were released.");
	stamp(p, f, "ioriot_replay_start_time_seconds", s->started_ns);
	family(f, "ioriot_replay_lateness_seconds", "gauge",
	       "Quantiles of how late operations started (1: the maximum).");
	for (size_t q = 0; q < 3; q++) {
		snprintf(l, sizeof(l), ",quantile=\"%g\"", quantiles[q]);
		value(p, f, "ioriot_replay_lateness_seconds", l,
		      secs(s->lateness_ns[q]));
	}
	family(f, "ioriot_replay_disk_full_operations", "gauge",
	       "Operations that failed with ENOSPC or EDQUOT, unlike the "
	       "capture.");
	count(p, f, "ioriot_replay_disk_full_operations", "",
	      s->disk_full_ops);
	family(f, "ioriot_replay_io_error_operations", "gauge",
	       "Operations that failed with EIO, unlike the capture.");
	count(p, f, "ioriot_replay_io_error_operations", "", s->io_error_ops);
}

/* The whole file into @f.  0 or -EIO. */
static int render(const struct prom *p, FILE *f)
{
	family(f, "ioriot_replay_running", "gauge",
	       "1 while the replay runs, 0 once it ended.");
	count(p, f, "ioriot_replay_running", "", !p->finished);
	family(f, "ioriot_replay_last_update_timestamp_seconds", "gauge",
	       "Unix time this file was written.");
	stamp(p, f, "ioriot_replay_last_update_timestamp_seconds",
	      clock_ns(CLOCK_REALTIME));
	family(f, "ioriot_replay_elapsed_seconds", "gauge",
	       "Time since the replay started, at the last interval's end.");
	value(p, f, "ioriot_replay_elapsed_seconds", "", secs(p->t_ns));
	family(f, "ioriot_interval_seconds", "gauge",
	       "Length of the last interval.");
	value(p, f, "ioriot_interval_seconds", "", secs(p->interval_ns));
	render_classes(p, f);
	family(f, "ioriot_read_bytes_total", "counter",
	       "Bytes read by the replayed operations.");
	count(p, f, "ioriot_read_bytes_total", "", p->rd_bytes);
	family(f, "ioriot_written_bytes_total", "counter",
	       "Bytes written by the replayed operations.");
	count(p, f, "ioriot_written_bytes_total", "", p->wr_bytes);
	if (p->interval_ns) {
		family(f, "ioriot_read_bytes_per_second", "gauge",
		       "Bytes read per second over the last interval.");
		value(p, f, "ioriot_read_bytes_per_second", "",
		      (double)p->last_rd / secs(p->interval_ns));
		family(f, "ioriot_written_bytes_per_second", "gauge",
		       "Bytes written per second over the last interval.");
		value(p, f, "ioriot_written_bytes_per_second", "",
		      (double)p->last_wr / secs(p->interval_ns));
		family(f, "ioriot_load1", "gauge",
		       "Load average over 1 minute at the last interval.");
		value(p, f, "ioriot_load1", "", p->loadavg1);
	}
	render_disks(p, f);
	if (p->have_sum)
		render_summary(p, f);
	return ferror(f) ? -EIO : 0;
}

/* Write the file: a temporary name in its directory, renamed over it.
 * 0 or -errno; no temporary file is left behind. */
static int write_file(struct prom *p)
{
	char tmp[NAME_MAX + 1];
	int fd = outfile_temp(p->dirfd, p->base, tmp, sizeof(tmp)), ret;
	FILE *f;

	if (fd < 0)
		return fd;
	/* The collector runs as another user. */
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		ret = -errno;
		close(fd);
		unlinkat(p->dirfd, tmp, 0);
		return ret;
	}
	ret = render(p, f);
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && renameat(p->dirfd, tmp, p->dirfd, p->base))
		ret = -errno;
	if (ret)
		unlinkat(p->dirfd, tmp, 0);
	return ret;
}

struct prom *prom_open(const struct prom_config *cfg, char *err,
		       size_t errlen)
{
	struct prom *p = calloc(1, sizeof(*p));
	struct stat st;
	int ret = -ENOMEM;

	snprintf(err, errlen, "out of memory");
	if (!p)
		goto fail;
	p->dirfd = -1;
	p->base = strdup(outfile_base(cfg->path));
	p->test = prom_escape(cfg->test_name ? cfg->test_name : "");
	if (!p->base || !p->test)
		goto fail;
	if (cfg->ndevices && !cfg->devices) {
		snprintf(err, errlen, "%zu devices but no names",
			 cfg->ndevices);
		ret = -EINVAL;
		goto fail;
	}
	p->wanted = calloc(cfg->ndevices ? cfg->ndevices : 1,
			   sizeof(*p->wanted));
	if (!p->wanted)
		goto fail;
	for (; p->nwanted < cfg->ndevices; p->nwanted++)
		snprintf(p->wanted[p->nwanted], sizeof(*p->wanted), "%s",
			 cfg->devices[p->nwanted]);
	if (!*p->base) {
		snprintf(err, errlen, "%s: names a directory", cfg->path);
		ret = -EISDIR;
		goto fail;
	}
	ret = outfile_check_target(cfg->path, cfg->input, err, errlen);
	if (ret == -EPERM && !lstat(cfg->path, &st) &&
	    st.st_uid == cfg->writer_uid)
		ret = 0;	/* the test user's, written last time */
	if (ret)
		goto fail;
	p->dirfd = outfile_dir(cfg->path, err, errlen);
	if (p->dirfd < 0) {
		ret = p->dirfd;
		goto fail;
	}
	ret = write_file(p);
	if (ret) {
		snprintf(err, errlen, "cannot write %s: %s", cfg->path,
			 strerror(-ret));
		goto fail;
	}
	return p;
fail:
	prom_close(p);
	errno = -ret;
	return NULL;
}

int prom_sample(struct prom *p, const struct series_sample *smp)
{
	if ((smp->ndisks && !smp->disks) || !smp->interval_ns)
		return -EINVAL;
	p->t_ns = smp->t_ns;
	p->interval_ns = smp->interval_ns;
	for (int c = 0; c < SC_COUNT; c++) {
		const struct series_class_stats *cs = &smp->cls[c];

		p->ops[c] += cs->ops;
		p->differ[c] += cs->differ;
		p->last_ops[c] = cs->ops;
		for (int i = 0; i < REPLAY_HIST_BUCKETS; i++)
			p->lat[c][i] += cs->lat[i];
	}
	p->rd_bytes += smp->rd_bytes;
	p->wr_bytes += smp->wr_bytes;
	p->last_rd = smp->rd_bytes;
	p->last_wr = smp->wr_bytes;
	p->loadavg1 = smp->loadavg1;
	p->ndisks = 0;
	for (size_t d = 0; d < smp->ndisks && p->ndisks < MAX_DISKS; d++) {
		const struct disk_figures *in = &smp->disks[d];
		struct prom_disk *k = &p->disks[p->ndisks];
		bool wanted = false;

		for (size_t w = 0; w < p->nwanted && !wanted; w++)
			wanted = !strcmp(p->wanted[w], in->name);
		if (!wanted)
			continue;
		p->ndisks++;

		snprintf(k->name, sizeof(k->name), "%s", in->name);
		k->util_pct = in->util_pct;
		k->rd_per_s = in->rd_per_s;
		k->wr_per_s = in->wr_per_s;
		k->rd_await_ms = in->rd_await_ms;
		k->wr_await_ms = in->wr_await_ms;
	}
	return write_file(p);
}

int prom_finish(struct prom *p, const struct replay_summary *sum)
{
	p->finished = true;
	if (sum) {
		struct prom_summary *s = &p->sum;

		p->have_sum = true;
		s->ops = sum->ops;
		s->duration_ns = sum->duration_ns;
		s->captured_ns = sum->captured_ns;
		s->started_ns = sum->started_ns;
		s->disk_full_ops = sum->disk_full_ops;
		s->io_error_ops = sum->io_error_ops;
		s->lateness_ns[0] = sum->lateness_p50_ns;
		s->lateness_ns[1] = sum->lateness_p99_ns;
		s->lateness_ns[2] = sum->lateness_max_ns;
	}
	return write_file(p);
}

void prom_close(struct prom *p)
{
	if (!p)
		return;
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p->base);
	free(p->test);
	free(p->wanted);
	free(p);
}
