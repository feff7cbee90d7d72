/*
 * gen.h: state shared by the generator's driver (generate.c) and its
 * per-event logic (events.c).  Private to src/generate.
 */
#ifndef IORIOT_GEN_INTERNAL_H
#define IORIOT_GEN_INTERNAL_H

#include "ioriot/caplog.h"
#include "ioriot/generate.h"
#include "nstree.h"
#include "ioriot/outbuf.h"
#include "ioriot/pathmap.h"
#include "ioriot/paths.h"
#include "procs.h"
#include "ioriot/rlog.h"
#include "ioriot/u64map.h"

struct gbatch;

/* A path of the current event, normalised, rewritten and modelled. */
struct resolved {
	char norm[PATHMAP_MAX];
	size_t norm_len;
	char sandbox[PATHMAP_MAX];
	size_t sandbox_len;
	struct node *node;
	const struct mount_entry *mount;
};

/*
 * An absolute path of an event, normalised, rewritten and hashed ahead by
 * the log's reader thread (readahead.c): gen_resolve() takes it instead of
 * doing the same work.  The model's state plays no part in it.
 */
struct prepared {
	const char *src;		/* the event's path it was made from;
					 * NULL: not prepared (relative) */
	enum pathmap_status st;		/* PATHMAP_OK: the fields below */
	const char *norm, *sandbox;	/* NUL-terminated; norm NULL if the
					 * path did not normalise */
	uint32_t norm_len, sandbox_len;
	const struct mount_entry *mount;
	uint64_t hash;			/* nstree_path_hash() of norm */
};

/* Page records being gathered into one mmap_read or mmap_write
 * (events_map.c): pages at one stride, of one timeline and mapping. */
struct page_run {
	struct rlog_op op;		/* op.id 0: none open */
	uint64_t tl;			/* its timeline */
	uint64_t map;			/* the mapping's captured address */
	uint64_t last_addr;		/* the last page */
	uint64_t last_ns;		/* its record's time */
};

/* The generate-time filters' state (filter.c). */
struct gfilter {
	const struct gen_filters *f;	/* NULL: no filters */
	struct path_filter paths;	/* f's prefixes */
	uint64_t from_ns, to_ns;	/* the window, ns from the log's start */
	bool started;			/* the window's start passed */
	/* The current event's: */
	bool latent;			/* an open left out: install its fd
					 * only (gen_filter_latent()) */
	bool plain_open;		/* an open kept for its fd only:
					 * without create and truncate */
	bool after;			/* past the window */
	bool close_extra;		/* its closes: ones the filters
					 * would leave out */
	bool ctx_left_out;		/* its AIO context or ring was set
					 * up by a call left out */
	bool cut_reads;			/* writes of other processes or of
					 * all are left out: short reads ask
					 * for what they read */
	struct u64map aio_ctxs;		/* AIO context ids set up by calls
					 * left out -> their pid + 1 */
	struct u64map rings;		/* pid << 32 | fd of io_uring rings
					 * set up by calls left out */
};

/* The values of gen.timelines: a thread seen. */
struct tline {
	bool ops;		/* it has an operation in the file */
	bool cpu_chain;		/* cpu_ns counts from the end of its last
				 * operation, made from an event with the
				 * probe's on-CPU keys (ops.c, gen_op_cpu()) */
	uint64_t cpu_ns;	/* on-CPU ns of its events not written since */
	uint64_t folded;	/* and how many such events the probe sent */
	uint64_t runq_ns;	/* and their wait for a CPU (R) */
	uint64_t last_op;	/* its last operation written */
	uint64_t last_end_ns;	/* and that operation's end */
	uint64_t sync_id;	/* events_sync.c: its next operation orders
				 * after this one (0: none) */
	uint64_t sync_end_ns;	/* which ended then */
	uint64_t waited_ns;	/* blocked in the waits matched since its
				 * last operation */
	uint64_t sync_runq_ns;	/* its wait for a CPU from its last
				 * operation to the wake that set sync_id,
				 * UINT64_MAX: not known (a futex record) */
};

struct gen {
	struct gen_summary *sum;
	struct pathmap pm;
	struct nstree *ns;
	struct procs procs;
	struct u64map timelines;	/* pid << 32 | tid -> struct tline */
	struct u64map futexes;		/* futex key -> struct futex_state
					 * (events_sync.c) */
	struct u64map parents;		/* pid << 32 | tid -> that of the
					 * thread whose fork record made it */
	struct u64map op_pids;		/* pids with an operation */
	struct res_users *res_users;	/* every resource's users beyond
					 * the first (deps_use()) */
	uint64_t tl_key;		/* the current event's timeline */
	struct tline *tl_state;		/* and its value in timelines */
	uint64_t probe_gap_ns;		/* the log's probe cost (capture-format
					 * §4.2), 0 if unknown */
	uint64_t probe_call_ns;
	bool cpu_taken;			/* an operation took the current
					 * event's on-CPU time */
	bool *mount_used;		/* per pm.mounts entry */
	struct opwriter *ops;		/* operation lines (temporary file) */
	const struct gen_options *opt;	/* its sink, if any, takes them */
	uint64_t next_id;
	uint64_t next_vfd;
	uint64_t next_ctx, next_tag;	/* virtual AIO contexts, requests */
	struct u64map aio;		/* captured ctx id -> contexts of
					 * that id (events_aio.c) */
	struct u64map aio_batch;	/* timeline -> iocb records since its
					 * last io_submit, + 1 */
	struct u64map uring;		/* pid << 32 | ring fd -> ring
					 * (events_uring.c) */
	struct u64map uring_held;	/* timeline -> sqe records not
					 * written yet */
	struct gbatch *uring_late;	/* completions to write after the
					 * current event */
	struct page_run run;		/* page records not written yet */
	struct u64map dedupe;		/* timeline -> dedupe records before
					 * its FIDEDUPERANGE (events_clone.c) */
	struct gfilter filter;
	int err;			/* first -errno (ENOMEM) seen */
	const struct cap_event *ev;	/* the event being handled */
	const struct prepared *pre;	/* its paths p and P, prepared, or
					 * NULL */
	struct resolved path[2];
};

static inline uint64_t timeline(const struct cap_event *ev)
{
	return (uint64_t)ev->pid << 32 | ev->tid;
}

/* ops.c: counting, building and writing operations; paths and fds of the
 * current event (g->ev). */
void gen_filtered(struct gen *g, enum gen_filter why);
enum gen_filter gen_filter_of(enum pathmap_status st);
void gen_oom(struct gen *g);
void gen_op_init(struct gen *g, struct rlog_op *op, enum sys_id sys);
void gen_op_touch(struct gen *g, struct rlog_op *op, struct resource *res);
void gen_op_use(struct gen *g, struct rlog_op *op, struct resource *res);
void gen_op_emit(struct gen *g, struct rlog_op *op);
/* cpu= of @op, an operation of the current event's timeline @t made from
 * the current event (gen_op_emit() calls it; a page run when it begins). */
void gen_op_cpu(struct gen *g, struct rlog_op *op, struct tline *t);
/* After the current event was handled: its on-CPU time, if no operation
 * took it, goes to the next operation of its timeline. */
void gen_cpu_after(struct gen *g);
/* Free the timelines' state.  Accepts a zeroed g. */
void gen_timelines_free(struct gen *g);
/* events_sync.c: a futex record (the current event) matched to the wait
 * or wake it pairs with; a wake record ordering the woken timeline after
 * the waker's; @op, an operation of timeline @t being written, takes its
 * timeline's pending sync= and waited=, and becomes the timeline's last;
 * free the futexes' state (accepts a zeroed g).  Memory runs out: g->err
 * (gen_oom()). */
void gen_on_futex(struct gen *g);
void gen_on_wake(struct gen *g);
void gen_op_sync(struct gen *g, struct rlog_op *op, struct tline *t);
void gen_futexes_free(struct gen *g);
void gen_op_args(struct rlog_op *op, const struct cap_event *ev);
void gen_op_fd(struct rlog_op *op, const struct ofd *ofd);
void gen_op_path(struct gen *g, struct rlog_op *op, const struct resolved *r,
		    bool second);
enum node_type gen_type_of_mode(int64_t mode);
const char *gen_base_dir(struct proc *p, bool have_dirfd, int64_t dirfd,
			    char *buf);
enum pathmap_status gen_resolve(struct gen *g, const char *base,
				   const char *path, size_t len, int slot);
bool gen_resolve_path(struct gen *g, struct proc *p, int slot);
struct ofd *gen_event_ofd(struct gen *g, struct proc *p, int64_t fd);
struct ofd *gen_install_new(struct gen *g, struct proc *p, int64_t fd,
			       bool cloexec);
void gen_install_skipped(struct gen *g, struct proc *p, int64_t fd,
			    enum gen_filter why);
/* The current event returned @fd, which @p still held open: close it
 * (its close op comes before the event's, which needs a later id), or in
 * a threaded process set it aside until the event's end. */
void gen_fd_reused(struct gen *g, struct proc *p, int64_t fd);
struct resource *gen_parent_res(struct node *n);
void gen_set_cwd(struct gen *g, struct proc *p, const char *cwd);

/* events_fd.c, events_path.c, events_map.c: one handler per kind of
 * event. */
void gen_on_open(struct gen *g, struct proc *p);
void gen_on_openfd(struct gen *g, struct proc *p);
void gen_on_close(struct gen *g, struct proc *p);
void gen_on_close_range(struct gen *g, struct proc *p);
void gen_on_dup(struct gen *g, struct proc *p);
void gen_on_fcntl(struct gen *g, struct proc *p);
void gen_on_data(struct gen *g, struct proc *p, bool write);
void gen_on_seek(struct gen *g, struct proc *p);
void gen_on_fdop(struct gen *g, struct proc *p);
void gen_on_readdir(struct gen *g, struct proc *p);
void gen_on_transfer(struct gen *g, struct proc *p);
void gen_on_sync(struct gen *g);
void gen_on_chdir(struct gen *g, struct proc *p, bool by_fd);
void gen_on_mmap(struct gen *g, struct proc *p);
void gen_on_addr(struct gen *g, struct proc *p);
void gen_on_page(struct gen *g, struct proc *p);
void gen_on_pathop(struct gen *g, struct proc *p);
void gen_on_statat(struct gen *g, struct proc *p);
void gen_on_mkdir(struct gen *g, struct proc *p);
void gen_on_remove(struct gen *g, struct proc *p);
void gen_on_rename(struct gen *g, struct proc *p);
void gen_on_link(struct gen *g, struct proc *p);
void gen_on_symlink(struct gen *g, struct proc *p);
void gen_on_mknod(struct gen *g, struct proc *p);
void gen_on_aio(struct gen *g, struct proc *p);
void gen_on_xattr(struct gen *g, struct proc *p);
void gen_on_lock(struct gen *g, struct proc *p);
void gen_on_ioctl(struct gen *g, struct proc *p);
void gen_on_dedupe(struct gen *g, struct proc *p);
void gen_on_splice(struct gen *g, struct proc *p);

/* filter.c: the generate-time filters. */

/* Resolve the filters of g->opt against the log's header @ch.  Returns 0,
 * or -EINVAL with a message in @err (a wall-clock time for a log without
 * one, an empty window). */
int gen_filter_setup(struct gen *g, const struct caplog_header *ch,
		     char *err, size_t errlen);

/* Before the current event of @p is handled: false if the filters leave
 * it out (counted; positions it moved followed).  True to handle it,
 * with g->filter's flags for the current event set; an event of the
 * window's start first writes the opens of the fds left-out opens hold. */
bool gen_filter_event(struct gen *g, struct proc *p);

/* @p runs the program @name (@len bytes: the last component of the path a
 * successful exec was given, or the name the /proc snapshot found): its
 * comm; opens left out that it holds are written if it is now selected. */
void gen_filter_program(struct gen *g, struct proc *p, const char *name,
			size_t len);

/* Install @fd of @p opened by a left-out open of node @n with @flags, at
 * @pos: no vfd until an operation kept needs it. */
void gen_filter_latent(struct gen *g, struct proc *p, int64_t fd,
		       struct node *n, int64_t flags, uint64_t pos,
		       bool pos_known);

/* For the close of a vfd in the file: true if it is not written (past
 * the window, counted).  Counts closes the filters would leave out. */
bool gen_filter_drop_close(struct gen *g);

/* filterctx.c: a left-out mmap, munmap, io_setup or io_uring_setup of @p
 * (of @kind): remember its mapping, context or ring as left out (a latent
 * mapping in @p's table; the context's or ring's key). */
void gen_filter_left_out_setup(struct gen *g, struct proc *p,
			       enum sys_kind kind);

/* filterctx.c: before a kept AIO or io_uring event of @kind: whether its
 * context or ring was set up by a left-out call (a kept set-up makes its
 * key its own again). */
bool gen_filter_ctx_left_out(struct gen *g, enum sys_kind kind);

/* Free the filters' state.  Accepts a zeroed g. */
void gen_filter_free(struct gen *g);

/* The header line recording the filters, if any. */
void gen_filter_header(const struct gen *g, struct outbuf *ob);

/* Whether fcntl command @cmd is a lock command (events_lock.c). */
bool gen_is_lock_cmd(int64_t cmd);

/* Free the dedupe records not yet taken (events_clone.c).  Accepts a
 * zeroed g. */
void gen_dedupe_free(struct gen *g);

/* procs unmap callback (events_map.c): an exit or exec unmapped the file
 * mapping @m at @addr; writes its munmap. */
void gen_unmap(void *ctx, uint64_t addr, const struct pmap *m);

/* Write the page run still open, if any (events_map.c): before every
 * event that is not a page record, and at the end of the log. */
void gen_flush_pages(struct gen *g);

/* Free the AIO state of @g (events_aio.c).  Accepts a zeroed g. */
void gen_aio_free(struct gen *g);

/* events_uring.c: io_uring calls and records. */
void gen_on_uring(struct gen *g, struct proc *p);

/* Write the sqe records timeline @tl holds (before its next event). */
void gen_uring_flush(struct gen *g, uint64_t tl);

/* Write the completions of the sqe records just written (after the
 * event that wrote them). */
void gen_uring_after(struct gen *g);

/* Write the sqe records every timeline holds (at the end of the log). */
void gen_uring_flush_all(struct gen *g);

/* True if @fd of @pid is a ring's. */
bool gen_uring_is_ring(struct gen *g, uint32_t pid, int64_t fd);

/* Close of @fd of @pid: true if it was a ring, now forgotten. */
bool gen_uring_closed(struct gen *g, uint32_t pid, int64_t fd);

/* Forget the rings of @pid (exit, exec: ring fds are close-on-exec). */
void gen_uring_exit(struct gen *g, uint32_t pid);

/* Free the io_uring state of @g; before procs_destroy(), whose
 * descriptions its fixed files hold.  Accepts a zeroed g. */
void gen_uring_free(struct gen *g);

/* readahead.c: the log read and parsed ahead by a second thread. */
struct readahead;

/* Start reading @r (opened, header read) in a thread of its own, which
 * also prepares the events' absolute paths with @pm (not changed while the
 * thread runs).  Returns NULL (errno set) if the thread or its buffers
 * cannot be had. */
struct readahead *readahead_start(struct caplog_reader *r,
				  const struct pathmap *pm);

/*
 * The next event of the log, as caplog_next() gives it, valid until the
 * next call; *@pre gets its paths p and P prepared (two entries), followed
 * by those of the *@ahead events after it in its batch (for prefetching),
 * and *@offset the log bytes read so far (for progress).  NULL at the end
 * of the log, or on a read error (readahead_finish() says which).
 */
const struct cap_event *readahead_next(struct readahead *ra,
				       const struct prepared (**pre)[2],
				       size_t *ahead, uint64_t *offset);

/* Stop the thread (at once, if the log is not read to its end), free
 * @ra, and return 0 or caplog_next()'s -errno.  Accepts NULL. */
int readahead_finish(struct readahead *ra);

/* opwriter.c: the operation lines written by a thread of their own. */
struct opwriter;

/* Start a thread writing the operation lines to @fd.  Returns NULL (errno
 * set) if the thread or its buffers cannot be had. */
struct opwriter *opwriter_start(int fd);

/* The buffer to format one operation line into; opwriter_line_done()
 * after each line. */
struct outbuf *opwriter_outbuf(struct opwriter *w);
void opwriter_line_done(struct opwriter *w);

/* 0, or the -errno of a failed write (seen a little late: the lines handed
 * over after it are not written). */
int opwriter_err(const struct opwriter *w);

/* Write every line given, stop the thread and free @w.  Returns 0 or the
 * first write's -errno.  Accepts NULL. */
int opwriter_finish(struct opwriter *w);

/* Handle one event: update the model and write its operations. */
void gen_event(struct gen *g, const struct cap_event *ev);

/* procs release callback: the last reference to @ofd is gone. */
void gen_release(void *ctx, struct ofd *ofd);

#endif
