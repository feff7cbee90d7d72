/*
 * devices: --devices REPLAY, the block devices under the replay file's
 * sandboxes on this host (with --map and --copies as -r would place
 * them), one line per sandbox and device, for scripts such as
 * ioriot-sweep: they change a device's scheduler or limits only where
 * ioriot itself would report the replay's I/O.
 */
#include <stdio.h>
#include <string.h>

#include "ioriot/diskstats.h"
#include "ioriot/log.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"
#include "ioriot/session.h"
#include "commands.h"

/* @s with every byte outside 0x21..0x7e and '%' as %XX ("-" for NULL),
 * then @end. */
static void field(const char *s, char end)
{
	if (!s)
		s = "-";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x21 || *p > 0x7e || *p == '%')
			printf("%%%02X", *p);
		else
			putchar(*p);
	putchar(end);
}

/* The lines of sandbox @i of @roots: one per device of @set serving it,
 * or one without a device. */
static void sandbox_lines(char *const *roots, size_t i,
			  const struct disk_set *set,
			  const struct disk_set *root)
{
	bool any = false;

	for (size_t k = 0; k < set->n; k++) {
		const struct disk_device *d = &set->dev[k];
		char devno[32];
		bool serves = false;

		for (size_t j = 0; j < d->nsandboxes; j++)
			serves = serves || d->sandboxes[j] == i;
		if (!serves)
			continue;
		any = true;
		snprintf(devno, sizeof(devno), "%u:%u", d->major, d->minor);
		field(roots[i], ' ');
		field(set->mounts[i], ' ');
		field(d->name, ' ');
		field(d->sysfs, ' ');
		field(d->queue, ' ');
		field(d->slave ? "slave" : "mount", ' ');
		field(diskstats_set_holds(root, d) ? "root" : NULL, ' ');
		field(devno, ' ');
		field(d->backing, '\n');
	}
	if (any)
		return;
	field(roots[i], ' ');
	field(set->mounts[i], ' ');
	fputs("- - - none - - -\n", stdout);
}

int cli_run_devices(const struct cli_opts *o)
{
	struct disk_set set = { 0 }, root = { 0 };
	char *slash[] = { "/" }, **roots = NULL;
	struct replay_session_opts so;
	struct rlog_reader *rl;
	size_t sets = 0, n = 0;
	int ret = 1;

	cli_session_opts(o, &so);
	if (!(rl = replay_session_open(&so)))
		return 1;
	if (!(roots = replay_session_host_roots(&so, rlog_header(rl), &sets)))
		goto out;
	n = sets * rlog_header(rl)->nsandboxes;
	if (diskstats_devices(&set, roots, n) ||
	    diskstats_devices(&root, slash, 1)) {
		log_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		sandbox_lines(roots, i, &set, &root);
	ret = fflush(stdout) || ferror(stdout) ? 1 : 0;
	if (ret)
		log_error("standard output: write error");
out:
	diskstats_devices_free(&set);
	diskstats_devices_free(&root);
	sandmap_roots_free(roots, n);
	rlog_close(rl);
	return ret;
}
