/*
 * procs: per-process file descriptor tables of the captured processes.
 *
 * An fd slot points to an open file description (struct ofd); dup, fork and
 * inherited fds share one description, as in the kernel, so they share the
 * file position.  A description is one virtual fd (vfd) in the replay file
 * and is closed there when its last slot goes.  Threads share their
 * process's table; fork copies it; exec drops O_CLOEXEC slots.
 */
#ifndef IORIOT_PROCS_H
#define IORIOT_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/deps.h"
#include "ioriot/nstree.h"
#include "ioriot/u64map.h"

#define PROCS_MAX_FD (1 << 20)	/* larger fd numbers are treated as unknown */

struct ofd {
	uint64_t vfd;		/* replay file id; 0 if not replayed */
	uint32_t refs;
	uint8_t skip_reason;	/* why ops on it are filtered (vfd == 0) */
	bool append;
	bool pos_known;
	uint64_t pos;
	struct node *node;	/* NULL if not replayed */
	struct resource res;
};

struct fdslot {
	struct ofd *ofd;	/* NULL: slot free */
	bool cloexec;
};

struct proc {
	uint32_t pid;
	uint32_t nslots;
	struct fdslot *slots;
	char *cwd;		/* normalised absolute, or NULL if unknown */
	struct u64map maps;	/* captured mmap address -> ofd (file maps) */
};

/* Called with each description whose last reference is dropped. */
typedef void (*ofd_release_fn)(void *ctx, struct ofd *ofd);

struct procs {
	struct u64map by_pid;
	ofd_release_fn release;
	void *ctx;
	uint64_t created;	/* processes seen */
};

/* Set up an empty table set.  Returns 0 or -ENOMEM. */
int procs_init(struct procs *ps, ofd_release_fn release, void *ctx);

/* The process @pid, created empty if unknown.  NULL on ENOMEM. */
struct proc *procs_get(struct procs *ps, uint32_t pid);

/* The process @pid or NULL if unknown. */
struct proc *procs_find(struct procs *ps, uint32_t pid);

/* The description behind @fd of @p, or NULL. */
struct ofd *proc_fd(const struct proc *p, int64_t fd);

/* A new description with no reference yet: install it.  NULL on ENOMEM. */
struct ofd *ofd_new(void);

/*
 * Put @ofd into slot @fd of @p (taking a reference), dropping what was there.
 * Returns 0, -EBADF for an fd out of range, or -ENOMEM.
 */
int proc_install(struct procs *ps, struct proc *p, int64_t fd,
		 struct ofd *ofd, bool cloexec);

/* Drop slot @fd.  Returns true if it was in use. */
bool proc_close(struct procs *ps, struct proc *p, int64_t fd);

/* Set or clear close-on-exec of slot @fd; false if the slot is free. */
bool proc_set_cloexec(struct proc *p, int64_t fd, bool cloexec);

/* @parent forked @child_pid: the child gets a copy of the table and cwd.
 * Returns 0 or -ENOMEM. */
int procs_fork(struct procs *ps, struct proc *parent, uint32_t child_pid);

/* exec in @p: drop every close-on-exec slot. */
void proc_exec(struct procs *ps, struct proc *p);

/* @pid exited: drop all its slots and forget it. */
void procs_exit(struct procs *ps, uint32_t pid);

/* Drop a reference taken outside a slot; releases at zero. */
void ofd_put(struct procs *ps, struct ofd *ofd);

/* Free every process and description without calling release. */
void procs_destroy(struct procs *ps);

#endif
