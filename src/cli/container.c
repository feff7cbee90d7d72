/*
 * container: a container's cgroup directory, for -c --container
 * (container.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/mounts.h"
#include "ioriot/paths.h"
#include "container.h"

/* Whether @path may be run by root: owned by root (or by us) and not
 * writable by its group or others. */
static bool owner_only(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (st.st_uid == 0 || st.st_uid == geteuid()) &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * The first @name in PATH, into @out (@size bytes), if it and its
 * directory may be run by root (owner_only()): a runtime another user
 * could replace is never run, as root least of all.  *@refused counts
 * those passed over.  False if there is none.
 */
static bool find_trusted(const char *name, char *out, size_t size,
			 unsigned *refused)
{
	const char *path = getenv("PATH");

	for (const char *dir = path; dir && *dir; ) {
		size_t len = strcspn(dir, ":");
		int n = snprintf(out, size, "%.*s/%s", (int)len, dir, name);

		if (len && dir[0] == '/' && n > 0 && (size_t)n < size &&
		    !access(out, X_OK)) {
			out[len] = '\0';
			bool ok = owner_only(out);
			out[len] = '/';
			if (ok && owner_only(out))
				return true;
			(*refused)++;
		}
		dir += len + (dir[len] == ':');
	}
	return false;
}

/* Run @argv (its program found by find_trusted()) with stdout into a
 * pipe, stderr and stdin to /dev/null; the positive number it printed if
 * it exited 0, else 0. */
static pid_t ask(char *const argv[], unsigned *refused)
{
	char prog[4096];

	if (!find_trusted(argv[0], prog, sizeof(prog), refused))
		return 0;

	char out[64];
	ssize_t n, got = 0;
	int p[2], status;
	pid_t child;

	if (pipe2(p, O_CLOEXEC))
		return 0;
	child = fork();
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return 0;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(126);
		execv(prog, argv);
		_exit(127);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(out) - 1 &&
	       (n = read(p[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	close(p[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	out[got] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 0;
	long v = strtol(out, NULL, 10);
	return v > 0 && v < 1L << 30 ? (pid_t)v : 0;
}

/* @mp + what of @rel lies below @root, into @path; false if @rel is not
 * below @root or it does not fit. */
static bool join(const char *mp, const char *root, const char *rel,
		 char *path, size_t size)
{
	const char *rest;
	int n;

	if (!path_is_below(rel, strlen(rel), root, strlen(root)))
		return false;
	rest = strcmp(root, "/") ? rel + strlen(root) : rel;
	n = snprintf(path, size, "%s%s", mp, strcmp(rest, "/") ? rest : "");
	return n > 0 && (size_t)n < size;
}

int container_cgroup_of(const char *proc_cgroup, const char *mountinfo,
			char *path, size_t size, char *err, size_t errlen)
{
	char line[8192], v2rel[4096] = "", blkrel[4096] = "";
	char mp2[4096] = "", root2[4096] = "", mp1[4096] = "", root1[4096] = "";
	FILE *f = fopen(proc_cgroup, "re");
	int rc;

	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", proc_cgroup, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *rel;

		if (!ctrl || !(rel = strchr(ctrl + 1, ':')))
			continue;
		*rel++ = '\0';
		rel[strcspn(rel, "\n")] = '\0';
		if (!strncmp(line, "0:", 2) && !ctrl[1])
			snprintf(v2rel, sizeof(v2rel), "%s", rel);
		for (char *c = strtok(ctrl + 1, ","); c; c = strtok(NULL, ","))
			if (!strcmp(c, "blkio"))
				snprintf(blkrel, sizeof(blkrel), "%s", rel);
	}
	fclose(f);
	if (!(f = fopen(mountinfo, "re"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", mountinfo, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		char root[4096], mp[4096], type[32], opts[512];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root,
				    mp) != 2 ||
		    sscanf(dash + 3, "%31s %*s %511s", type, opts) != 2)
			continue;
		mount_unescape(root);
		mount_unescape(mp);
		if (!strcmp(type, "cgroup2") && !mp2[0]) {
			strcpy(mp2, mp);
			strcpy(root2, root);
		} else if (!strcmp(type, "cgroup") && !mp1[0]) {
			for (char *c = strtok(opts, ","); c; c = strtok(NULL, ","))
				if (!strcmp(c, "blkio")) {
					strcpy(mp1, mp);
					strcpy(root1, root);
				}
		}
	}
	fclose(f);
	/* v2 where the process is below its root; else v1 blkio's */
	if (v2rel[0] && mp2[0] && strcmp(v2rel, "/") &&
	    join(mp2, root2, v2rel, path, size))
		return 0;
	if (blkrel[0] && mp1[0] && join(mp1, root1, blkrel, path, size))
		return 0;
	if (v2rel[0] && mp2[0] && join(mp2, root2, v2rel, path, size))
		return 0;
	snprintf(err, errlen, "%s: no cgroup mount of this host shows its "
		 "cgroup", proc_cgroup);
	return -ENOTDIR;
}

int container_cgroup(const char *name, char *path, size_t size, char *err,
		     size_t errlen)
{
	static const char *const inspect[] = { "docker", "podman" };
	unsigned refused = 0;
	char proc[64];
	pid_t pid = 0;

	if (!*name || name[0] == '-') {
		snprintf(err, errlen, "--container '%s': not a container name "
			 "or id", name);
		return -EINVAL;
	}
	for (size_t i = 0; !pid && i < 2; i++) {
		char *const argv[] = { (char *)inspect[i], "inspect",
				       "--format", "{{.State.Pid}}",
				       (char *)name, NULL };

		pid = ask(argv, &refused);
	}
	if (!pid) {
		char *const argv[] = { "machinectl", "show",
				       "--property=Leader", "--value",
				       (char *)name, NULL };

		pid = ask(argv, &refused);
	}
	if (!pid) {
		snprintf(err, errlen, "--container %s: no running container of "
			 "that name or id (asked docker, podman and machinectl, "
			 "those in PATH%s)", name, refused ?
			 "; left out: a runtime another user can change" : "");
		return -ENOENT;
	}
	snprintf(proc, sizeof(proc), "/proc/%d/cgroup", (int)pid);
	return container_cgroup_of(proc, "/proc/self/mountinfo", path, size,
				   err, errlen);
}
