/*
 * container: --container NAME|ID of a capture, a convenience for
 * --cgroup: the container's main process as its runtime names it (docker,
 * podman, systemd-nspawn's machinectl), and the cgroup directory that
 * holds it.
 */
#ifndef IORIOT_CLI_CONTAINER_H
#define IORIOT_CLI_CONTAINER_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The cgroup directory of container @name into @path (@size bytes): the
 * first of docker, podman and machinectl found in PATH that knows it
 * gives its main process (only a program that root or we own, in a
 * directory likewise, writable by its owner only, is run); /proc/PID/cgroup and /proc/self/mountinfo give
 * the directory (cgroup v2 where the process is below its root, else the
 * v1 blkio hierarchy's).  Returns 0, or -errno with a message in @err:
 * -ENOENT if no runtime knows it, -ENOTDIR if no cgroup mount shows it.
 */
int container_cgroup(const char *name, char *path, size_t size, char *err,
		     size_t errlen);

/*
 * The cgroup directory of process @pid as the mount table @mountinfo
 * shows it, from @proc_cgroup (its /proc/PID/cgroup), by the same rule.
 * 0 or -ENOTDIR / -errno with a message in @err.
 */
int container_cgroup_of(const char *proc_cgroup, const char *mountinfo,
			char *path, size_t size, char *err, size_t errlen);

#endif
