/*
 * cgroupsel: a capture of one control group (-c --cgroup PATH): which
 * cgroup a directory is (its inode number, the kernel's cgroup id; its
 * hierarchy: the default v2 one or a v1 controller's), and whether a
 * process is in it or below it, as /proc/PID/cgroup says.
 */
#ifndef IORIOT_CGROUPSEL_H
#define IORIOT_CGROUPSEL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup_sel {
	uint64_t id;		/* the directory's inode number */
	int ssid;		/* v1: the controller's subsystem id, its
				 * line in /proc/cgroups; v2: -1 */
	char controller[32];	/* v1: its name, "" for v2 */
	char rel[PATH_MAX];	/* its path in its hierarchy, as
				 * /proc/PID/cgroup gives it ("/a/b") */
};

/* The kernel's subsystem ids the probe can follow: 0 to this - 1. */
#define CGROUP_SEL_SSID_MAX 14

/*
 * Which cgroup the directory @path is, into @out, with the mount table
 * @mountinfo (/proc/self/mountinfo) and the controller list @cgroups
 * (/proc/cgroups).  Returns 0, or -errno with a message in @err:
 * -ENOTDIR for a directory that is no cgroup, -EINVAL for a v1
 * hierarchy without a controller (name=systemd), else the error of
 * reading the files.
 */
int cgroup_sel_resolve(const char *path, const char *mountinfo,
		       const char *cgroups, struct cgroup_sel *out, char *err,
		       size_t errlen);

/* Whether the process whose /proc/PID/cgroup is @proc_cgroup is in @sel
 * or below it; false if the file cannot be read. */
bool cgroup_sel_has(const struct cgroup_sel *sel, const char *proc_cgroup);

#endif
