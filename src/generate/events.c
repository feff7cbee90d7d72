/*
 * events: the dispatch of each captured event to what the generator does
 * with it (events_fd.c, events_path.c): it updates the fd tables and the
 * namespace model, computes ordering dependencies and writes the replay
 * operation, or counts why it writes none.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Model @ev, the current event (g->ev). */
static void dispatch(struct gen *g, const struct cap_event *ev)
{
	const struct sys_info *si = sys_info(ev->sys);
	struct proc *p;

	if (si->kind != SK_MAPPAGE)
		gen_flush_pages(g);
	/* The sqe records a timeline holds go before its next event; a
	 * completion of one of them waits for them (events_uring.c). */
	if (g->uring_held.count && si->kind != SK_URING_SQE &&
	    si->kind != SK_URING_CQE)
		gen_uring_flush(g, timeline(ev));
	if (si->kind == SK_LOST) {
		g->sum->lost_events += ev->have & CAP_COUNT ? (uint64_t)ev->count : 0;
		return;
	}
	if (si->kind == SK_EXIT || si->kind == SK_EXIT_GROUP) {
		/* No process to create: exit_group and the exit record both
		 * end one. */
		gen_filtered(g, GF_FD_TABLE);
		gen_uring_exit(g, ev->pid);
		procs_exit(&g->procs, ev->pid);
		return;
	}
	/* A syscall's result decides what it did; without it, skip it. */
	if (!(ev->have & CAP_RET) && si->kind < SK_EXIT_GROUP) {
		gen_filtered(g, GF_INCOMPLETE);
		return;
	}
	p = procs_get(&g->procs, ev->pid);
	if (!p) {
		gen_oom(g);
		return;
	}
	proc_expire(&g->procs, p, ev->time_ns);
	if (p->last_tid && p->last_tid != ev->tid)
		p->threaded = true;
	p->last_tid = ev->tid;
	g->tl_key = timeline(ev);
	g->tl_state = u64map_get(&g->timelines, g->tl_key);
	if (!g->tl_state) {
		g->tl_state = calloc(1, sizeof(*g->tl_state));
		if (!g->tl_state ||
		    u64map_put(&g->timelines, g->tl_key, g->tl_state)) {
			free(g->tl_state);
			g->tl_state = NULL;
			g->tl_key = 0;
			gen_oom(g);
			return;
		}
	}
	if (!gen_filter_event(g, p))
		return;
	switch (si->kind) {
	case SK_OPEN: gen_on_open(g, p); break;
	case SK_OPENFD: gen_on_openfd(g, p); break;
	case SK_CLOSE: gen_on_close(g, p); break;
	case SK_CLOSE_RANGE: gen_on_close_range(g, p); break;
	case SK_DUP: gen_on_dup(g, p); break;
	case SK_FCNTL: gen_on_fcntl(g, p); break;
	case SK_READ: gen_on_data(g, p, false); break;
	case SK_WRITE: gen_on_data(g, p, true); break;
	case SK_SEEK: gen_on_seek(g, p); break;
	case SK_READDIR: gen_on_readdir(g, p); break;
	case SK_FDOP: gen_on_fdop(g, p); break;
	case SK_PATHOP: case SK_TRUNCATE: gen_on_pathop(g, p); break;
	case SK_STATAT: gen_on_statat(g, p); break;
	case SK_MKDIR: gen_on_mkdir(g, p); break;
	case SK_RMDIR: case SK_UNLINK: gen_on_remove(g, p); break;
	case SK_RENAME: gen_on_rename(g, p); break;
	case SK_LINK: gen_on_link(g, p); break;
	case SK_SYMLINK: gen_on_symlink(g, p); break;
	case SK_MKNOD: gen_on_mknod(g, p); break;
	case SK_SENDFILE: case SK_COPY_RANGE: gen_on_transfer(g, p); break;
	case SK_SYNC: gen_on_sync(g); break;
	case SK_CHDIR: gen_on_chdir(g, p, false); break;
	case SK_FCHDIR: gen_on_chdir(g, p, true); break;
	case SK_MMAP: gen_on_mmap(g, p); break;
	case SK_MAPPAGE: gen_on_page(g, p); break;
	case SK_ADDR: gen_on_addr(g, p); break;
	case SK_AIO_SETUP: case SK_AIO_DESTROY: case SK_AIO_SUBMIT:
	case SK_AIO_CANCEL: case SK_AIO_GETEVENTS: case SK_IOCB:
	case SK_IO_EVENT:
		gen_on_aio(g, p);
		break;
	case SK_AIO_DATA: case SK_AIO_DONE:
		/* Replay file names, not captured calls. */
		gen_filtered(g, GF_AIO);
		break;
	case SK_URING_SETUP: case SK_URING_ENTER: case SK_URING_REGISTER:
	case SK_URING_SQE: case SK_URING_CQE: case SK_URING_FILE:
	case SK_URING_BUF: case SK_URING_DATA: case SK_URING_DONE:
		gen_on_uring(g, p);
		break;
	case SK_XATTR: gen_on_xattr(g, p); break;
	case SK_FLOCK: gen_on_lock(g, p); break;
	case SK_IOCTL: gen_on_ioctl(g, p); break;
	case SK_DEDUPE: gen_on_dedupe(g, p); break;
	case SK_SPLICE: gen_on_splice(g, p); break;
	case SK_FUTEX: gen_on_futex(g); break;
	case SK_WAKE: gen_on_wake(g); break;
	case SK_DEDUPE_DONE:
		/* A replay file name, not a captured call. */
		gen_filtered(g, GF_INCOMPLETE);
		break;
	case SK_CWD:
		gen_filtered(g, GF_FD_TABLE);
		if (ev->have & CAP_PATH) {
			char buf[PATHMAP_MAX];
			long n = path_normalize(ev->path, ev->path_len, NULL, buf);
			gen_set_cwd(g, p, n > 0 ? buf : NULL);
		}
		/* The name of a process running when the capture began. */
		if ((ev->have & CAP_PATH2) && ev->path2_len && !p->comm[0]) {
			gen_filter_program(g, p, ev->path2, ev->path2_len);
			if (g->opt->on_exec)
				g->opt->on_exec(g->opt->sink_ctx, ev->pid,
						ev->path2, ev->path2_len);
		}
		break;
	case SK_FORK:
		gen_filtered(g, GF_FD_TABLE);
		/* A new process or thread: its timeline's parent. */
		if ((ev->have & CAP_CHILD) &&
		    u64map_put(&g->parents, (uint64_t)ev->child_pid << 32 |
			       ev->child_tid, (void *)(uintptr_t)g->tl_key))
			gen_oom(g);
		if ((ev->have & CAP_CHILD) && ev->child_pid != ev->pid &&
		    procs_fork(&g->procs, p, ev->child_pid))
			gen_oom(g);
		if ((ev->have & CAP_CHILD) && ev->child_pid != ev->pid &&
		    g->opt->on_fork)
			g->opt->on_fork(g->opt->sink_ctx, ev->pid,
					(uint32_t)ev->child_pid);
		break;
	case SK_EXEC:
		gen_filtered(g, GF_FD_TABLE);
		if (ev->ret >= 0 || !(ev->have & CAP_RET))
			gen_uring_exit(g, ev->pid);
		if ((ev->ret >= 0 || !(ev->have & CAP_RET)) &&
		    proc_exec(&g->procs, p))
			gen_oom(g);
		if ((ev->ret >= 0 || !(ev->have & CAP_RET)) &&
		    (ev->have & CAP_PATH)) {
			const char *base = memrchr(ev->path, '/', ev->path_len);

			base = base ? base + 1 : ev->path;
			gen_filter_program(g, p, base, ev->path_len -
					   (size_t)(base - ev->path));
		}
		if ((ev->ret >= 0 || !(ev->have & CAP_RET)) &&
		    (ev->have & CAP_PATH) && g->opt->on_exec)
			g->opt->on_exec(g->opt->sink_ctx, ev->pid, ev->path,
					ev->path_len);
		break;
	case SK_EXIT: case SK_EXIT_GROUP:
		break;		/* handled above */
	case SK_LOST:
		break;		/* counted above */
	}
}

void gen_event(struct gen *g, const struct cap_event *ev)
{
	g->ev = ev;
	g->cpu_taken = false;
	dispatch(g, ev);
	gen_cpu_after(g);
	/* Whatever returned early: the event's memory is the reader's, and
	 * what runs after the last one (gen_uring_flush_all()) must not
	 * take it for the current event. */
	g->ev = NULL;
}
