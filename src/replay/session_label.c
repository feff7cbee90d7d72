/*
 * session_label: the name of the configuration a replay stands for, when
 * --label does not give one: for each mount its sandboxes are on, the file
 * system type (the mount table) and the active I/O scheduler of the block
 * device under it (sysfs), as "xfs:mq-deadline"; several mounts joined by
 * "+", each once.  Read before the replay enters its jail.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ioriot/mounts.h"
#include "ioriot/paths.h"
#include "ioriot/sandbox.h"
#include "session_parts.h"

#define SYSFS_PATH_MAX 128

/* The active scheduler of block device @dev ("[bfq]" in its queue's
 * scheduler file, or a partition's disk's) into @buf; "" when there is
 * none (tmpfs, a device without a queue). */
static void scheduler_of(dev_t dev, char *buf, size_t len)
{
	static const char *const where[] = { "queue/scheduler",
					     "../queue/scheduler" };
	char path[SYSFS_PATH_MAX], text[256];

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		ssize_t n;
		int fd;
		char *open_br, *close_br;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s",
			 major(dev), minor(dev), where[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (n <= 0)
			continue;
		text[n] = '\0';
		open_br = strchr(text, '[');
		close_br = open_br ? strchr(open_br, ']') : NULL;
		if (open_br && close_br) {
			*close_br = '\0';
			open_br++;
		} else {	/* a single scheduler, or "none" */
			open_br = text;
			open_br[strcspn(open_br, " \n")] = '\0';
		}
		if (strlen(open_br) < len)
			memcpy(buf, open_br, strlen(open_br) + 1);
		return;
	}
}

/* Append "@part" to @buf (@len bytes, @used so far) joined by '+',
 * unless it is there already. */
static void add_part(char *buf, size_t len, size_t *used, const char *part)
{
	size_t plen = strlen(part);

	for (const char *p = buf; (p = strstr(p, part)); p += plen)
		if ((p == buf || p[-1] == '+') &&
		    (p[plen] == '\0' || p[plen] == '+'))
			return;
	if (*used < len)
		*used += (size_t)snprintf(buf + *used, len - *used, "%s%s",
					  *used ? "+" : "", part);
}

char *session_default_label(char *const *roots, size_t n)
{
	struct mounttab *mt = mounttab_new();
	char label[512] = "";
	size_t used = 0;

	if (!mt)
		return NULL;
	/* Without a mount table the parts name the scheduler only. */
	mounttab_load(mt, "/proc/self/mounts");
	for (size_t i = 0; i < n; i++) {
		char mnt[PATHMAP_MAX], sched[64], part[160];
		const struct mount_entry *m;
		const char *name;
		struct stat st;

		if (sandbox_split(roots[i], mnt, &name))
			continue;
		m = mounttab_find(mt, mnt, strlen(mnt));
		sched[0] = '\0';
		if (stat(mnt, &st) == 0)
			scheduler_of(st.st_dev, sched, sizeof(sched));
		snprintf(part, sizeof(part), "%s%s%s",
			 m ? m->fstype : "?", sched[0] ? ":" : "", sched);
		add_part(label, sizeof(label), &used, part);
	}
	mounttab_free(mt);
	return strdup(label[0] ? label : "-");
}
