/*
 * maps: the file mappings a process has when the capture starts, read
 * from /proc/PID/maps into the probe's table (struct ioriot_maps,
 * event.h), so that its page faults on them are recorded too (generate
 * counts them: it knows no mmap of them).  Pure but for the file read, so
 * it is unit-tested on a fake /proc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The whole of @path, NUL-terminated, malloc'd; NULL with errno set. */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 16384;
	char *buf = NULL, *grown;
	int err = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (!(grown = realloc(buf, cap + 1))) {
			err = ENOMEM;
			break;
		}
		buf = grown;
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		cap *= 2;
	}
	if (!err && ferror(f))
		err = EIO;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* The next line of @text from *@pos (its newline made a NUL), or NULL. */
static char *next_line(char *text, size_t *pos)
{
	char *line = text + *pos, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*pos = (size_t)(nl + 1 - text);
	} else {
		*pos += strlen(line);
	}
	return line;
}

/* Whether file (@major:@minor, @inode) is mapped executable in the
 * @n parsed lines @lines: then it is a program or a library, not data. */
static bool executable(const struct maps_line *lines, size_t n,
		       const struct maps_line *file)
{
	for (size_t i = 0; i < n; i++)
		if (lines[i].perms[2] == 'x' && lines[i].inode == file->inode &&
		    lines[i].dev_major == file->dev_major &&
		    lines[i].dev_minor == file->dev_minor)
			return true;
	return false;
}

int capture_read_maps(const char *proc_root, uint32_t pid,
		      const struct path_filter *filter, struct ioriot_maps *t,
		      uint64_t *full)
{
	struct maps_line *lines = NULL, *grown;
	size_t nlines = 0, cap = 0, pos = 0, n = 0;
	char path[64], *text, *line;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	*full = 0;
	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, pid);
	if (!(text = read_all(path)))
		return -errno;
	while ((line = next_line(text, &pos))) {
		if (nlines == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(lines, cap * sizeof(*lines)))) {
				rc = -ENOMEM;
				goto out;
			}
			lines = grown;
		}
		if (parse_line(line, &lines[nlines]))
			nlines++;
	}
	for (size_t i = 0; i < nlines; i++) {
		const struct maps_line *l = &lines[i];
		size_t len = strlen(l->path);

		if (!l->inode || l->path[0] != '/' || l->perms[2] == 'x' ||
		    /* A deleted file cannot be named. */
		    (len > 10 && !strcmp(l->path + len - 10, " (deleted)")) ||
		    !path_filter_keeps(filter, l->path, len) ||
		    executable(lines, nlines, l))
			continue;
		if (n == IORIOT_EV_MAPS) {
			(*full)++;
			continue;
		}
		t->r[n].start = l->start;
		t->r[n].end = l->end;
		t->r[n].offset = l->offset;
		t->r[n].shared = l->perms[3] == 's';
		n++;
	}
out:
	free(lines);
	free(text);
	return rc;
}
