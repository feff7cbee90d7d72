/*
 * cgroup: the replay in a control group of the administrator's choice
 * (--cgroup PATH), so that a blkio (v1) or io (v2) limit of that group
 * throttles it, and the limits in force for the statistics.
 */
#ifndef IORIOT_CGROUP_H
#define IORIOT_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* One limit file of a cgroup and its lines ("7:3 100\n..."). */
struct cgroup_limit {
	char *file;			/* io.max, blkio.throttle.read_iops_device ... */
	char *value;			/* its text, without the last newline */
};

struct cgroup_limits {
	struct cgroup_limit *v;
	size_t n;
};

/*
 * Whether @path is a cgroup directory (statfs: a cgroup or cgroup2 file
 * system).  Returns 0, or -errno with a message in @err: -ENOTDIR for
 * another directory, else open(2)'s error.
 */
int cgroup_check(const char *path, char *err, size_t errlen);

/*
 * Move the calling process, all its threads, into the cgroup directory
 * @path: its pid into cgroup.procs (v2, and v1 where present), else into
 * tasks (v1).  Children and threads made afterwards stay in it.
 * Returns 0, or -errno with a message in @err: cgroup_check()'s, else
 * the write's error.
 */
int cgroup_join(const char *path, char *err, size_t errlen);

/*
 * The I/O limits in force in cgroup @path into @out (zeroed first): the
 * non-empty ones of io.max (v2), blkio.throttle.read_bps_device,
 * write_bps_device, read_iops_device and write_iops_device (v1); files
 * that cannot be read are left out.  Returns 0 or -ENOMEM.
 */
int cgroup_limits_read(const char *path, struct cgroup_limits *out);

/* Free the limits.  Accepts NULL and a zeroed @l. */
void cgroup_limits_free(struct cgroup_limits *l);

/*
 * The memory limit of the cgroups that @proc_cgroup (a /proc/PID/cgroup
 * file) names, mounted under @root (/sys/fs/cgroup): the least
 * memory.max (v2, at @root or @root/unified) or memory.limit_in_bytes
 * (v1, at @root/memory) of the process's cgroup and its ancestors, in
 * bytes, into *@limit; UINT64_MAX when none limits it or none can be
 * read.  The path of the cgroup that sets it (or "") into @where
 * (@wherelen bytes).  Never fails: a limit unknown is no limit.
 */
void cgroup_memory_limit(const char *proc_cgroup, const char *root,
			 uint64_t *limit, char *where, size_t wherelen);

#endif
