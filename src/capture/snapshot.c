/*
 * snapshot: what runs when the capture starts.  Files already open then are
 * written as openfd records (path, flags, position, size, type from
 * /proc/PID/fd and fdinfo) and working directories as cwd records (with
 * each process's name), so that applications need not be stopped before a
 * capture.  Also finds the
 * descendants of a process for -x.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"

/* True if @name is all digits: a pid or fd entry. */
static bool numeric(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!isdigit((unsigned char)*name))
			return false;
	return true;
}

/* Read the first line of @path into @buf; false if it cannot. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool comm_matches(const char *proc, uint32_t pid, const char *comm)
{
	char path[64], buf[64];

	if (!comm)
		return true;
	snprintf(path, sizeof(path), "%s/%u/comm", proc, pid);
	return read_line(path, buf, sizeof(buf)) && strcmp(buf, comm) == 0;
}

static bool cgroup_matches(const char *proc, uint32_t pid,
			   const struct cgroup_sel *sel)
{
	char path[64];

	if (!sel)
		return true;
	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	return cgroup_sel_has(sel, path);
}

/* pos and flags of /proc/PID/fdinfo/FD; false if gone. */
static bool fdinfo(const char *proc, uint32_t pid, const char *fd,
		   int64_t *pos, int64_t *flags)
{
	char path[PATHMAP_MAX], line[256];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%u/fdinfo/%s", proc, pid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		long long v;
		unsigned long o;

		if (sscanf(line, "pos: %lld", &v) == 1) {
			*pos = v;
			found |= 1;
		} else if (sscanf(line, "flags: %lo", &o) == 1) {
			*flags = (int64_t)o;
			found |= 2;
		}
	}
	fclose(f);
	return found == 3;
}

/* Write the records of one process.  Returns 0 or -ENOMEM. */
static int snapshot_process(const struct snapshot_options *o, uint32_t pid,
			    struct outbuf *ob, struct resolver *r,
			    uint64_t *nfds)
{
	char path[PATHMAP_MAX], target[PATHMAP_MAX], host[PATHMAP_MAX];
	const char *seen;
	struct cap_event ev;
	ssize_t n;
	DIR *d;
	struct dirent *de;
	int err = 0;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = pid;
	ev.time_ns = o->time_ns;
	snprintf(path, sizeof(path), "%s/%u/cwd", o->proc_root, pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0 && target[0] == '/') {
		char comm[64];

		target[n] = '\0';
		/* As the host sees it: /proc shows a container's in its own
		 * view. */
		if (!(seen = resolver_proc_path(r, pid, target, host)))
			return -ENOMEM;
		ev.sys = SYS_CWD;
		ev.path = seen;
		ev.path_len = (uint32_t)strlen(seen);
		ev.have = CAP_PATH;
		/* Its name, for a process that does not exec while captured
		 * (a daemon): --only-comm and --analyze know it so. */
		snprintf(path, sizeof(path), "%s/%u/comm", o->proc_root, pid);
		if (read_line(path, comm, sizeof(comm)) && *comm) {
			ev.path2 = comm;
			ev.path2_len = (uint32_t)strlen(comm);
			ev.have |= CAP_PATH2;
		}
		caplog_write_event(ob, &ev);
		ev.path2 = NULL;
		ev.path2_len = 0;
		if ((err = resolver_note(r, pid, -1, seen)))
			return err;
	}
	snprintf(path, sizeof(path), "%s/%u/fd", o->proc_root, pid);
	d = opendir(path);
	if (!d)
		return 0;		/* gone, or not ours to read */
	while (!err && (de = readdir(d))) {
		struct stat st;
		int64_t pos, flags;

		if (!numeric(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%u/fd/%s", o->proc_root, pid,
			 de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		/* Sockets, pipes, anon inodes: not files.  A deleted file
		 * cannot be recreated under its name. */
		if (n <= 0 || target[0] != '/')
			continue;
		target[n] = '\0';
		if (n > 10 && strcmp(target + n - 10, " (deleted)") == 0)
			continue;
		if (stat(path, &st) < 0 ||
		    !fdinfo(o->proc_root, pid, de->d_name, &pos, &flags))
			continue;
		if (!(seen = resolver_proc_path(r, pid, target, host))) {
			err = -ENOMEM;
			break;
		}
		ev.sys = SYS_OPENFD;
		ev.fd = strtol(de->d_name, NULL, 10);
		ev.path = seen;
		ev.path_len = (uint32_t)strlen(seen);
		ev.flags = flags;
		ev.offset = pos;
		ev.size = st.st_size;
		ev.mode = st.st_mode;
		ev.have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_OFFSET |
			  CAP_SIZE | CAP_MODE;
		/* Filtered fds are still noted: their operations are matched
		 * against the filter by their path. */
		err = resolver_note(r, pid, ev.fd, seen);
		if (!path_filter_keeps(o->filter, seen, ev.path_len))
			continue;
		caplog_write_event(ob, &ev);
		if (!ob->err)		/* else it is not in the log */
			(*nfds)++;
	}
	closedir(d);
	return err;
}

/* True if @pid is in the sorted list @pids. */
static bool listed(const uint32_t *pids, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int snapshot_write(const struct snapshot_options *o, struct outbuf *ob,
		   struct resolver *r, uint64_t *nfds)
{
	DIR *d = opendir(o->proc_root);
	struct dirent *de;
	int err = 0;

	*nfds = 0;
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (!numeric(de->d_name))
			continue;
		uint32_t pid = (uint32_t)strtoul(de->d_name, NULL, 10);
		if (pid == o->own_pid ||
		    (o->pids && !listed(o->pids, o->npids, pid)) ||
		    !comm_matches(o->proc_root, pid, o->comm) ||
		    !cgroup_matches(o->proc_root, pid, o->cgroup))
			continue;
		err = snapshot_process(o, pid, ob, r, nfds);
		if (!err && o->each)
			o->each(o->each_ctx, pid);
	}
	closedir(d);
	return err;
}

/* The parent of @pid from /proc/PID/stat, 0 if unknown. */
static uint32_t parent_of(const char *proc, uint32_t pid)
{
	char path[64], buf[512];
	unsigned ppid;
	char *paren;

	snprintf(path, sizeof(path), "%s/%u/stat", proc, pid);
	if (!read_line(path, buf, sizeof(buf)) || !(paren = strrchr(buf, ')')))
		return 0;
	/* After "(comm)": state, then ppid. */
	return sscanf(paren + 1, " %*c %u", &ppid) == 1 ? ppid : 0;
}

int snapshot_descendants(const char *proc_root, uint32_t root, uint32_t **out,
			 size_t *count)
{
	uint32_t *pids = NULL, *parents = NULL, *result = NULL;
	size_t n = 0, cap = 0, nres = 0;
	DIR *d = opendir(proc_root);
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!numeric(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			uint32_t *a = realloc(pids, cap * sizeof(*a));
			uint32_t *b = a ? realloc(parents, cap * sizeof(*b)) : NULL;
			if (a)
				pids = a;
			if (!a || !b) {
				err = -ENOMEM;
				goto out;
			}
			parents = b;
		}
		pids[n] = (uint32_t)strtoul(de->d_name, NULL, 10);
		parents[n] = parent_of(proc_root, pids[n]);
		n++;
	}
	result = malloc((n + 1) * sizeof(*result));
	if (!result) {
		err = -ENOMEM;
		goto out;
	}
	result[nres++] = root;
	/* Breadth first: children of every process found so far. */
	for (size_t i = 0; i < nres; i++)
		for (size_t j = 0; j < n; j++)
			if (parents[j] == result[i] && !listed(result, nres, pids[j]))
				result[nres++] = pids[j];
	*out = result;
	*count = nres;
	result = NULL;
out:
	closedir(d);
	free(pids);
	free(parents);
	free(result);
	return err;
}
