/*
 * snapshot: the state of running processes when a capture starts (open
 * files, working directories) written as capture log records, and the
 * descendants of a process for -x.
 */
#ifndef IORIOT_SNAPSHOT_H
#define IORIOT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "ioriot/cgroupsel.h"
#include "ioriot/outbuf.h"
#include "resolve.h"

struct snapshot_options {
	const char *proc_root;		/* "/proc" */
	uint32_t own_pid;		/* never included */
	const uint32_t *pids;		/* only these, if not NULL */
	size_t npids;
	const char *comm;		/* only processes with this name */
	const struct cgroup_sel *cgroup;	/* only processes in it */
	const struct path_filter *filter;	/* open files it selects */
	uint64_t time_ns;		/* timestamp of the records */
	/* Called with each process selected, after its records (if set). */
	void (*each)(void *ctx, uint32_t pid);
	void *each_ctx;
};

/*
 * Write cwd and openfd records for every process @o selects to @ob and
 * teach @r their paths; *@nfds counts the openfd records.  Processes that
 * vanish meanwhile are skipped.  Returns 0, -ENOMEM, or -errno if
 * o->proc_root cannot be read.
 */
int snapshot_write(const struct snapshot_options *o, struct outbuf *ob,
		   struct resolver *r, uint64_t *nfds);

/*
 * @root and all its descendants now running, into a malloc'd array
 * (*@out, *@count entries, root first).  Returns 0, -ENOMEM, or -errno if
 * @proc_root cannot be read.
 */
int snapshot_descendants(const char *proc_root, uint32_t root, uint32_t **out,
			 size_t *count);

#endif
