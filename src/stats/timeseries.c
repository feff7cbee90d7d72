/*
 * timeseries: feeds the engine's ticks to the series writer.  Each tick
 * becomes a sample of the interval since the previous one: per class the
 * operations and latencies that completed in it, the block devices'
 * figures over it and the load average.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/log.h"
#include "ioriot/timeseries.h"

/* The distinct block devices of the @n sandboxes @roots into @cs.
 * 0 or -errno with a message logged. */
static int find_devices(struct timeseries *cs, char *const *roots, size_t n)
{
	cs->devices = calloc(n ? n : 1, sizeof(*cs->devices));
	cs->device_names = calloc(n ? n : 1, sizeof(*cs->device_names));
	if (!cs->devices || !cs->device_names) {
		log_error("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char *name = cs->devices[cs->ndevices];
		bool seen = false;

		/* A sandbox without a device (tmpfs) has no columns. */
		if (diskstats_device_of(roots[i], name, 32))
			continue;
		for (size_t j = 0; j < cs->ndevices; j++)
			seen = seen || !strcmp(cs->devices[j], name);
		if (!seen) {
			cs->device_names[cs->ndevices] = name;
			cs->ndevices++;
		}
	}
	return 0;
}

int timeseries_open(struct timeseries *cs, const struct series_config *base,
		    char *const *roots, size_t nroots, int diskstats_fd)
{
	struct series_config cfg = *base;
	char err[512];
	int ret;

	memset(cs, 0, sizeof(*cs));
	ret = find_devices(cs, roots, nroots);
	if (ret)
		return ret;
	cs->prev = calloc(SYS_COUNT, sizeof(*cs->prev));
	if (!cs->prev) {
		log_error("out of memory");
		return -ENOMEM;
	}
	cfg.devices = cs->device_names;
	cfg.ndevices = cs->ndevices;
	cs->writer = series_open(&cfg, err, sizeof(err));
	if (cfg.prom_path && cs->writer) {
		struct prom_config pc = {
			.path = cfg.prom_path, .input = cfg.input,
			.test_name = cfg.test_name, .writer_uid = cfg.prom_uid,
			.devices = cs->device_names, .ndevices = cs->ndevices,
		};

		cs->prom = prom_open(&pc, err, sizeof(err));
	}
	if (!cs->writer || (cfg.prom_path && !cs->prom)) {
		ret = -errno;
		log_error("%s", err);
		return ret;
	}
	/* Without /proc/diskstats the samples just lack the devices. */
	cs->diskstats_fd = diskstats_fd;
	if (diskstats_fd >= 0)
		diskstats_read(&cs->disks, diskstats_fd);
	return 0;
}

void timeseries_tick(void *ctx, uint64_t t_ns,
		     const struct replay_sys_stats *cum)
{
	struct timeseries *cs = ctx;
	struct series_sample smp = {
		.t_ns = t_ns,
		.interval_ns = t_ns > cs->prev_ns ? t_ns - cs->prev_ns : 0,
	};
	struct diskstats now = { 0 };
	int ret, pret;

	if (!smp.interval_ns)
		return;		/* nothing new since the last tick */
	series_sample_add(&smp, cum, cs->prev);
	if (cs->disks.n && diskstats_read(&now, cs->diskstats_fd) == 0) {
		struct disk_figures *f = realloc(cs->figures, (now.n ? now.n : 1) *
						 sizeof(*f));

		if (f) {
			cs->figures = f;
			smp.ndisks = diskstats_delta(&cs->disks, &now,
						     (double)smp.interval_ns / 1e9,
						     f);
			smp.disks = f;
		}
	}
	if (getloadavg(&smp.loadavg1, 1) != 1)
		smp.loadavg1 = 0;
	ret = series_write(cs->writer, &smp);
	if (cs->prom && (pret = prom_sample(cs->prom, &smp)) && !ret)
		ret = pret;
	if (ret && !cs->write_failed) {
		log_error("time series: %s", strerror(-ret));
		cs->write_failed = true;
	}
	memcpy(cs->prev, cum, SYS_COUNT * sizeof(*cs->prev));
	cs->prev_ns = t_ns;
	if (now.n) {
		diskstats_free(&cs->disks);
		cs->disks = now;
	}
}

int timeseries_finish(struct timeseries *cs, const struct replay_summary *sum)
{
	int ret = cs->prom ? prom_finish(cs->prom, sum) : 0;

	if (ret && !cs->write_failed) {
		log_error("--prom: %s", strerror(-ret));
		cs->write_failed = true;
	}
	return ret != 0;
}

int timeseries_close(struct timeseries *cs)
{
	uint64_t missed = series_graphite_failures(cs->writer);
	int ret = series_close(cs->writer);

	if (missed)
		log_warn("Graphite did not receive %llu intervals",
			 (unsigned long long)missed);
	if (ret && !cs->write_failed)
		log_error("time series: %s", strerror(-ret));
	prom_close(cs->prom);
	diskstats_free(&cs->disks);
	free(cs->figures);
	free(cs->prev);
	free(cs->devices);
	free(cs->device_names);
	return ret || cs->write_failed;
}
