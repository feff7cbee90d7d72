/*
 * maps: the file mappings a process has when the capture starts, read
 * from /proc/PID/maps into the probe's table (struct ioriot_maps,
 * event.h), so that its page faults on them are recorded too (generate
 * counts them: it knows no mmap of them).  Pure but for the file read, so
 * it is unit-tested on a fake /proc.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ioriot/capture.h"

/* One line of /proc/PID/maps. */
struct maps_line {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[5];
	const char *path;	/* "" for anonymous memory */
};

/* Parse @line (its newline removed).  False if it is not a maps line. */
static bool parse_line(char *line, struct maps_line *l)
{
	unsigned long long start, end, offset, inode;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end,
		   l->perms, &offset, &l->dev_major, &l->dev_minor, &inode,
		   &n) != 7 || !n || strlen(l->perms) != 4)
		return false;
	l->start = start;
	l->end = end;
	l->offset = offset;
	l->inode = inode;
	l->path = line + n;
	return true;
}

/* Whether file (@major:@minor, @inode) is mapped executable in the
 * lines of @f: then it is a program or a library, not data. */
static bool executable(FILE *f, unsigned major, unsigned minor,
		       uint64_t inode)
{
	char line[PATHMAP_MAX + 128];
	struct maps_line l;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (parse_line(line, &l) && l.perms[2] == 'x' &&
		    l.inode == inode && l.dev_major == major &&
		    l.dev_minor == minor)
			return true;
	}
	return false;
}

int capture_read_maps(const char *proc_root, uint32_t pid,
		      const struct path_filter *filter, struct ioriot_maps *t,
		      uint64_t *full)
{
	char path[64], line[PATHMAP_MAX + 128];
	long pos;
	FILE *f;
	size_t n = 0;

	memset(t, 0, sizeof(*t));
	*full = 0;
	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct maps_line l;

		line[strcspn(line, "\n")] = '\0';
		size_t len;

		if (!parse_line(line, &l) || !l.inode || l.path[0] != '/' ||
		    l.perms[2] == 'x')
			continue;
		len = strlen(l.path);
		/* A deleted file cannot be named. */
		if ((len > 10 && !strcmp(l.path + len - 10, " (deleted)")) ||
		    !path_filter_keeps(filter, l.path, len))
			continue;
		/* executable() reads the file again: come back here. */
		pos = ftell(f);
		bool lib = executable(f, l.dev_major, l.dev_minor, l.inode);
		if (pos < 0 || fseek(f, pos, SEEK_SET) < 0)
			break;
		if (lib)
			continue;
		if (n == IORIOT_EV_MAPS) {
			(*full)++;
			continue;
		}
		t->r[n].start = l.start;
		t->r[n].end = l.end;
		t->r[n].offset = l.offset;
		t->r[n].shared = l.perms[3] == 's';
		n++;
	}
	fclose(f);
	return 0;
}
