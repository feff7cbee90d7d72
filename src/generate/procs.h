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

#include "deps.h"
#include "nstree.h"
#include "ioriot/u64map.h"

/* fds below this live in a dense array, higher ones in a sparse map, so a
 * process with one fd at 1000000 costs one entry, also when it forks. */
#define PROCS_DENSE_FDS 1024

struct ofd {
	uint64_t vfd;		/* replay file id; 0 if not replayed */
	uint32_t refs;
	uint8_t skip_reason;	/* why ops on it are filtered (vfd == 0) */
	bool append;
	bool pos_known;
	uint64_t pos;
	/* Generate-time filters (filter.c): opened by an operation they
	 * left out (vfd 0); its open is written later, as a plain open
	 * with @reopen_flags, when an operation kept needs it. */
	bool latent;
	bool reseek;		/* operations left out moved its position:
				 * the replay's differs until an lseek */
	int32_t reopen_flags;
	struct node *node;	/* NULL if not replayed */
	struct resource res;
};

/* A file mapping of a process: an mmap of a replayed file. */
struct pmap {
	struct ofd *ofd;	/* the file; the mapping holds a reference */
	uint64_t len;		/* bytes mapped */
	uint64_t off;		/* the file offset of its start */
	uint64_t seq;		/* order of the mmaps: the newest of two
				 * that overlap (MAP_FIXED) is the one */
	bool latent;		/* made by an mmap the generate-time
				 * filters left out: not in the replay */
};

struct fdslot {
	struct ofd *ofd;	/* NULL: slot free */
	bool cloexec;
	uint32_t tid;		/* the thread of the call that filled it */
	uint64_t since_ns;	/* when that call returned */
};

struct proc {
	uint32_t pid;
	uint32_t nslots;	/* dense slots allocated, <= PROCS_DENSE_FDS */
	struct fdslot *slots;
	struct u64map sparse;	/* fd >= PROCS_DENSE_FDS -> struct fdslot * */
	char *cwd;		/* normalised absolute, or NULL if unknown */
	struct u64map maps;	/* captured mmap address -> struct pmap */
	uint64_t map_hint;	/* address of the mapping found last, or
				 * UINT64_MAX */
	struct u64map shadows;	/* fd -> struct fd_shadow * (proc_shadow) */
	uint32_t last_tid;	/* thread of its latest event */
	char comm[16];		/* the name of its exec'd program (as the
				 * kernel's comm: 15 bytes at most), its
				 * parent's, or "" if no exec was seen */
	bool threaded;		/* events of more than one thread seen */
};

/* A description an open moved aside (proc_shadow()). */
struct fd_shadow {
	struct fdslot old;	/* the slot as it was */
	uint64_t until;		/* when the open that replaced it returned */
	uint32_t tid;		/* the thread of that open */
};

/* Called with each description whose last reference is dropped. */
typedef void (*ofd_release_fn)(void *ctx, struct ofd *ofd);

/* Called with each file mapping at @addr that an exit or exec unmaps
 * (no munmap was captured for it), before its reference to m->ofd goes. */
typedef void (*map_release_fn)(void *ctx, uint64_t addr,
			       const struct pmap *m);

struct procs {
	struct u64map by_pid;
	ofd_release_fn release;
	map_release_fn unmap;
	void *ctx;
	uint64_t created;	/* processes seen */
};

/* Set up an empty table set; @release and @unmap (either may be NULL) are
 * called with @ctx.  Returns 0 or -ENOMEM. */
int procs_init(struct procs *ps, ofd_release_fn release, map_release_fn unmap,
	       void *ctx);

/* The process @pid, created empty if unknown.  NULL on ENOMEM. */
struct proc *procs_get(struct procs *ps, uint32_t pid);

/* The description behind @fd of @p, or NULL. */
struct ofd *proc_fd(const struct proc *p, int64_t fd);

/*
 * The description a call of thread @tid that began at @t found at @fd of
 * @p: NULL if the slot is free, or if another thread's call filled it and
 * had not returned at @t (events come in the order calls began, and late if
 * a call ran longer than the capture's reorder window: the call found an
 * earlier description).
 */
struct ofd *proc_fd_at(const struct proc *p, int64_t fd, uint64_t t,
		       uint32_t tid);

/* A new description with no reference yet: install it.  NULL on ENOMEM. */
struct ofd *ofd_new(void);

/*
 * Fill slot @fd of @p as @what says (taking a reference to what->ofd),
 * dropping what was there.  Returns 0, -EBADF for a negative or above-2^32
 * fd, or -ENOMEM.
 */
int proc_install(struct procs *ps, struct proc *p, int64_t fd,
		 const struct fdslot *what);

/* Drop slot @fd.  Returns 0, or -EBADF if it was free. */
int proc_close(struct procs *ps, struct proc *p, int64_t fd);

/*
 * Thread @tid opened @fd, returning at @until, while the table still held
 * a description there.  Events come in the order their syscalls began, and
 * two threads' calls can overlap: another thread's close that freed the fd
 * during the open may come after it (proc_shadowed()); or the call that
 * installed the old description began first but got the number only after
 * this open and its close (proc_unshadow()).  So the old description moves
 * aside instead of closing, until one of those or until events pass both
 * @until and its own call's return (proc_expire()).  Slot @fd is left free
 * for the new description.  Returns 0 (also when the slot was free) or
 * -ENOMEM.
 */
int proc_shadow(struct procs *ps, struct proc *p, int64_t fd, uint64_t until,
		uint32_t tid);

/* The description moved aside at @fd that a close of thread @tid beginning
 * at @t closes (another thread, before the open returned), or NULL. */
struct ofd *proc_shadowed(const struct proc *p, int64_t fd, uint64_t t,
			  uint32_t tid);

/* Drop the description moved aside at @fd. */
void proc_drop_shadow(struct procs *ps, struct proc *p, int64_t fd);

/*
 * Slot @fd was just closed by a close beginning at @t.  If the call that
 * installed the description moved aside there returned after @t, it got
 * the number after that close: it gets the slot back.
 */
void proc_unshadow(struct proc *p, int64_t fd, uint64_t t);

/* Drop the descriptions moved aside that events passing @now can no longer
 * claim (proc_shadow()): their close was not seen.  Cheap when there are
 * none. */
void proc_expire(struct procs *ps, struct proc *p, uint64_t now);

/* close_range(@first, @last): drop those slots, or with @cloexec only mark
 * them close-on-exec.  Returns 0 or -ENOMEM. */
int proc_close_range(struct procs *ps, struct proc *p, uint64_t first,
		     uint64_t last, bool cloexec);

/* Set or clear close-on-exec of slot @fd.  Returns 0, or -EBADF if free. */
int proc_set_cloexec(struct proc *p, int64_t fd, bool cloexec);

/* Call @fn with each used slot of @p, in fd order.  Returns 0 or
 * -ENOMEM. */
int proc_each_fd(struct proc *p,
		 void (*fn)(void *ctx, struct proc *p, int64_t fd,
			    struct ofd *o), void *ctx);

/* @parent forked @child_pid: the child gets a copy of the table, cwd and
 * comm.
 * Returns 0 or -ENOMEM. */
int procs_fork(struct procs *ps, struct proc *parent, uint32_t child_pid);

/*
 * Add the file mapping @m (copied) of @p at @addr, taking a reference to
 * m->ofd; one there before is dropped.  Returns 0 or -ENOMEM.
 */
int proc_map_add(struct procs *ps, struct proc *p, uint64_t addr,
		 const struct pmap *m);

/* Drop the file mapping of @p at @addr, if there is one. */
void proc_map_del(struct procs *ps, struct proc *p, uint64_t addr);

/* The file mapping of @p that holds address @addr (the newest, if two
 * do), its address in *@start; NULL if none. */
struct pmap *proc_map_at(struct proc *p, uint64_t addr, uint64_t *start);

/* exec in @p: drop every close-on-exec slot and every mapping (each
 * through the unmap callback).  Returns 0 or -ENOMEM. */
int proc_exec(struct procs *ps, struct proc *p);

/* @pid exited: drop all its slots and mappings (each through the unmap
 * callback) and forget it. */
void procs_exit(struct procs *ps, uint32_t pid);

/* Drop a reference taken outside a slot; releases at zero. */
void ofd_put(struct procs *ps, struct ofd *ofd);

/* Free every process, mapping and description without calling release or
 * unmap. */
void procs_destroy(struct procs *ps);

#endif
