/*
 * cgroup: --cgroup PATH (cgroup.h).  A cgroup is recognised by its file
 * system's magic number, never by its path, so a mistyped directory is
 * refused instead of having "cgroup.procs" created in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ioriot/cgroup.h"

static const char *const limit_files[] = {
	"io.max",
	"blkio.throttle.read_bps_device",
	"blkio.throttle.write_bps_device",
	"blkio.throttle.read_iops_device",
	"blkio.throttle.write_iops_device",
};

/* Write @text to the file @name of directory @dirfd.  0 or -errno. */
static int write_file(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), ret = 0;
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* @path opened as a directory and checked to be a cgroup's: its fd, or
 * -errno with a message in @err. */
static int open_cgroup(const char *path, char *err, size_t errlen)
{
	int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;
	struct statfs sf;

	if (dirfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--cgroup %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstatfs(dirfd, &sf) || (sf.f_type != CGROUP_SUPER_MAGIC &&
				    sf.f_type != CGROUP2_SUPER_MAGIC)) {
		snprintf(err, errlen, "--cgroup %s: not a cgroup directory "
			 "(a directory of a cgroup or cgroup2 file system, such "
			 "as /sys/fs/cgroup/blkio/NAME)", path);
		close(dirfd);
		return -ENOTDIR;
	}
	return dirfd;
}

int cgroup_check(const char *path, char *err, size_t errlen)
{
	int dirfd = open_cgroup(path, err, errlen);

	if (dirfd < 0)
		return dirfd;
	close(dirfd);
	return 0;
}

int cgroup_join(const char *path, char *err, size_t errlen)
{
	int dirfd = open_cgroup(path, err, errlen), ret;
	const char *file = "cgroup.procs";
	char pid[32];

	if (dirfd < 0)
		return dirfd;
	if (faccessat(dirfd, file, F_OK, 0))
		file = "tasks";
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	ret = write_file(dirfd, file, pid);
	if (ret)
		snprintf(err, errlen, "--cgroup %s: cannot join it (%s): %s",
			 path, file, strerror(-ret));
	close(dirfd);
	return ret;
}

/* The text of @path without its trailing newlines, malloc'd; NULL if it
 * cannot be read or is empty. */
static char *read_text(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n <= 0)
		return NULL;
	return strndup(buf, (size_t)n);
}

int cgroup_limits_read(const char *path, struct cgroup_limits *out)
{
	size_t nfiles = sizeof(limit_files) / sizeof(limit_files[0]);

	memset(out, 0, sizeof(*out));
	if (!(out->v = calloc(nfiles, sizeof(*out->v))))
		return -ENOMEM;
	for (size_t i = 0; i < nfiles; i++) {
		char *file;
		char *text;

		if (asprintf(&file, "%s/%s", path, limit_files[i]) < 0)
			goto nomem;
		text = read_text(file);
		free(file);
		if (!text)
			continue;
		if (!(out->v[out->n].file = strdup(limit_files[i]))) {
			free(text);
			goto nomem;
		}
		out->v[out->n++].value = text;
	}
	return 0;
nomem:
	cgroup_limits_free(out);
	return -ENOMEM;
}

/* The limit in file @name of cgroup directory @dir (below @root) and
 * its ancestors, the least into *@limit, the directory into @where. */
static void least_limit(const char *root, const char *dir, const char *name,
			uint64_t *limit, char *where, size_t wherelen)
{
	char *path = NULL, *text;
	size_t len = strlen(dir);

	for (;;) {
		unsigned long long v;
		char end;

		if (asprintf(&path, "%s%.*s/%s", root, (int)len, dir, name) < 0)
			return;
		text = read_text(path);
		/* "max" (v2) and anything else not a number: no limit. */
		if (text && sscanf(text, "%llu%c", &v, &end) == 1 &&
		    v < *limit) {
			*limit = v;
			snprintf(where, wherelen, "%s%.*s/%s", root, (int)len,
				 dir, name);
		}
		free(text);
		free(path);
		while (len > 0 && dir[len - 1] != '/')
			len--;
		if (!len)
			return;
		len--;		/* the parent, "" for the root */
	}
}

void cgroup_memory_limit(const char *proc_cgroup, const char *root,
			 uint64_t *limit, char *where, size_t wherelen)
{
	FILE *f = fopen(proc_cgroup, "re");
	char line[PATH_MAX + 128];

	*limit = UINT64_MAX;
	if (wherelen)
		where[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *ctl = strchr(line, ':'), *dir, *nl, *base = NULL;

		if (!ctl || !(dir = strchr(ctl + 1, ':')))
			continue;
		*dir++ = '\0';
		ctl++;
		if ((nl = strchr(dir, '\n')))
			*nl = '\0';
		if (dir[0] != '/')
			continue;
		if (!*ctl) {		/* v2: "0::/path" */
			least_limit(root, dir, "memory.max", limit, where,
				    wherelen);
			if (asprintf(&base, "%s/unified", root) >= 0)
				least_limit(base, dir, "memory.max", limit,
					    where, wherelen);
		} else if (!strcmp(ctl, "memory") || strstr(ctl, "memory,") ||
			   strstr(ctl, ",memory")) {
			if (asprintf(&base, "%s/memory", root) >= 0)
				least_limit(base, dir, "memory.limit_in_bytes",
					    limit, where, wherelen);
		}
		free(base);
	}
	if (f)
		fclose(f);
}

void cgroup_limits_free(struct cgroup_limits *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].file);
		free(l->v[i].value);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
