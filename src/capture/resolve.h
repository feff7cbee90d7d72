/*
 * resolve: makes the paths of captured events absolute, as the capture log
 * requires.  It follows each process's working directory and the paths of
 * its open fds (from the capture itself and from /proc), so that relative
 * and dirfd-relative paths can be completed.
 */
#ifndef IORIOT_RESOLVE_H
#define IORIOT_RESOLVE_H

#include "ioriot/caplog.h"
#include "ioriot/paths.h"
#include "ioriot/u64map.h"
#include "mntns.h"

struct resolver {
	struct u64map procs;	/* tgid -> struct rproc */
	const char *proc_root;	/* "/proc", for live look-ups */
	uint64_t own_ns;	/* the inode of our mount namespace, 0 if
				 * unknown (then no process is taken to
				 * have another) */
	struct mnt_table host;	/* our mounts, read at the first need */
	bool host_read;
	struct u64map mnt_ns;	/* namespace inode -> struct mnt_table * of
				 * the first process seen in it */
};

/* Set up an empty resolver.  Returns 0 or -ENOMEM. */
int resolver_init(struct resolver *r, const char *proc_root);

/* Record that @pid has @path (absolute) open as @fd, or its cwd if @fd < 0.
 * Returns 0 or -ENOMEM. */
int resolver_note(struct resolver *r, uint32_t pid, int64_t fd,
		  const char *path);

/*
 * Make @ce's paths absolute (normalised into @buf1 / @buf2, PATHMAP_MAX
 * bytes each), a path through /proc/self/fd/N (thread-self, or the
 * process's own pid) the path of fd N where that is known, then update the
 * state the event changes (opens, closes, dups, chdir, fork, exit).  A path
 * that cannot be completed is left as it is.  Returns 0 or -ENOMEM.
 */
int resolver_apply(struct resolver *r, struct cap_event *ce, char *buf1,
		   char *buf2);

/*
 * @path, absolute, as /proc shows it for process @pid (its cwd or an fd's
 * link, which are in its own view when it is in a mount namespace of its
 * own), as the host sees it: in @buf (PATHMAP_MAX bytes), or @path itself.
 * NULL without memory.
 */
const char *resolver_proc_path(struct resolver *r, uint32_t pid,
			       const char *path, char *buf);

/* The absolute path @pid has open as @fd, or NULL if not known. */
const char *resolver_fd_path(const struct resolver *r, uint32_t pid,
			     int64_t fd);

/* Free everything.  Accepts a zeroed resolver. */
void resolver_destroy(struct resolver *r);

#endif
