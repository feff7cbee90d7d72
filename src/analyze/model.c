/*
 * model: the analysis of a stream of replay operations.  Each operation
 * is counted by syscall and class, and attributed to its process, thread
 * and file: by its path, or through its vfd to the file the vfd was
 * opened on.  A position per vfd (opens start at 0, reads and writes
 * advance it, lseek sets it) gives plain read() and write() the start
 * offset that pread() names, so the sequential share and the working set
 * cover both.  AIO and io_uring requests (iocb, sqe) are remembered by
 * tag until their completion, which is counted as the read or write.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "ioriot/paths.h"

/* Per vfd: its file and position. */
struct an_fd {
	uint32_t file;
	bool pos_known;
	uint64_t pos;
};

/* An AIO or io_uring request between submission and completion. */
struct an_req {
	uint32_t file;
	int64_t off;			/* -1: the file position */
};

int an_init(struct an *a, const struct an_source *src, size_t max_rows,
	    bool folding)
{
	memset(a, 0, sizeof(*a));
	a->src = *src;
	a->folding = folding;
	a->sandbox_part_len = (size_t)snprintf(a->sandbox_part,
					       sizeof(a->sandbox_part),
					       "/.ioriot/%s", src->name);
	an_timeline_init(&a->tl);
	if (an_table_init(&a->files, max_rows) ||
	    an_table_init(&a->dirs, max_rows) ||
	    an_table_init(&a->procs, max_rows) ||
	    an_table_init(&a->threads, max_rows) ||
	    u64map_init(&a->fds) || u64map_init(&a->reqs) ||
	    u64map_init(&a->exec_names) ||
	    u64map_init(&a->stack_ids) || u64map_init(&a->thread_ends))
		return -ENOMEM;
	return 0;
}

static void free_values(struct u64map *m)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while ((s = u64map_next(m, &pos)))
		free(s->value);
	u64map_destroy(m);
}

void an_free(struct an *a)
{
	an_table_free(&a->files);
	an_table_free(&a->dirs);
	an_table_free(&a->procs);
	an_table_free(&a->threads);
	free_values(&a->fds);
	free_values(&a->reqs);
	free_values(&a->exec_names);
	u64map_destroy(&a->stack_ids);
	u64map_destroy(&a->thread_ends);
	free(a->stacks);
	an_timeline_free(&a->tl);
}

void an_oom(struct an *a)
{
	if (!a->err)
		a->err = -ENOMEM;
}

/* The captured path of a sandbox path: without its "/.ioriot/NAME"
 * component.  @out has @len + 2 bytes; returns its length. */
static size_t captured_path(const struct an *a, const char *p, size_t len,
			    char *out)
{
	const char *part = a->sandbox_part;
	size_t plen = a->sandbox_part_len;

	for (const char *m = p; (m = memmem(m, len - (size_t)(m - p), part,
					    plen)); m++) {
		size_t i = (size_t)(m - p);
		if (i + plen < len && p[i + plen] != '/')
			continue;
		memcpy(out, p, i);
		memcpy(out + i, p + i + plen, len - i - plen);
		len -= plen;
		if (!len)
			out[len++] = '/';
		out[len] = '\0';
		return len;
	}
	memcpy(out, p, len);
	out[len] = '\0';
	return len;
}

/* The file row of sandbox path @p, with its directory's row. */
static uint32_t file_of(struct an *a, const char *p, size_t len)
{
	char path[PATHMAP_MAX + 2];
	uint32_t f;

	if (len > PATHMAP_MAX)
		len = PATHMAP_MAX;	/* the reader's limit: never longer */
	len = captured_path(a, p, len, path);
	size_t before = a->files.n;
	f = an_table_name(&a->files, path, len, &a->err);
	if (f < AN_NONE && a->files.n > before) {
		size_t dlen = len;
		while (dlen > 1 && path[dlen - 1] != '/')
			dlen--;
		if (dlen > 1)
			dlen--;		/* "/a/b" -> "/a", "/a" -> "/" */
		a->files.rows[f].parent = an_table_name(&a->dirs, path, dlen,
							&a->err);
	}
	return f;
}

static struct an_fd *fd_of(struct an *a, const struct rlog_op *op)
{
	return op->have & RL_FD ? u64map_get(&a->fds, op->fd) : NULL;
}

/* Keep @v (malloc'd, or NULL after ENOMEM) under @key in @m, freeing
 * what was there. */
void an_keep(struct an *a, struct u64map *m, uint64_t key, void *v)
{
	free(u64map_get(m, key));
	if (!v || u64map_put(m, key, v)) {
		free(v);
		u64map_del(m, key);
		an_oom(a);
	}
}

/* A vfd an open made. */
static void opened(struct an *a, const struct rlog_op *op, uint32_t file)
{
	struct an_fd *fd = malloc(sizeof(*fd));

	if (fd) {
		fd->file = file;
		fd->pos = 0;
		fd->pos_known = !(op->have & RL_FLAGS) ||
				!(op->flags & O_APPEND);
	}
	an_keep(a, &a->fds, op->vfd, fd);
}

/* An iocb or sqe: its file and offset until its completion. */
static void submitted(struct an *a, const struct rlog_op *op, uint32_t file)
{
	struct an_req *rq = malloc(sizeof(*rq));

	if (rq) {
		rq->file = file;
		rq->off = op->have & RL_OFFSET ? op->offset : -1;
	}
	an_keep(a, &a->reqs, op->tag, rq);
}

/* A read or write of @bytes starting at @start (-1 unknown) on @f. */
static void data(struct an *a, struct an_row *f, bool write, int64_t start,
		 uint64_t bytes)
{
	if (!f)
		return;
	if (write) {
		f->bytes_written += bytes;
		f->unsynced += bytes;
	} else {
		f->bytes_read += bytes;
	}
	if (start < 0)
		return;
	f->rw_requests++;
	if ((uint64_t)start == (uint64_t)f->last_end ||
	    (f->last_end < 0 && start == 0))
		f->sequential++;
	f->last_end = start + (int64_t)bytes;
	if (an_ranges_add(&f->ws, (uint64_t)start, (uint64_t)start + bytes))
		an_oom(a);
}

/* The start of a read or write through @fd, and the position after. */
static int64_t start_of(const struct rlog_op *op, struct an_fd *fd,
			const struct an_req *rq, uint64_t bytes)
{
	int64_t start = -1;

	if (rq)
		return rq->off;
	if ((op->have & RL_OFFSET) && op->offset >= 0)
		return op->offset;
	if (fd && fd->pos_known) {
		start = (int64_t)fd->pos;
		fd->pos += bytes;
	}
	return start;
}

static void sync_file(struct an *a, struct an_row *f)
{
	if (!f)
		return;
	f->syncs++;
	f->synced_bytes += f->unsynced;
	an_hist_add(&a->sync_between, f->unsynced);
	f->unsynced = 0;
}

static void count_row(struct an_table *t, uint32_t i, const struct rlog_op *op,
		      bool write, uint64_t bytes)
{
	if (i == AN_NONE)
		return;
	struct an_row *r = an_row(t, i);
	r->ops++;
	r->time_ns += op->dur_ns;
	if (i == AN_OTHER) {
		t->other_used = true;
		t->other_ops++;
	}
	if (write)
		r->bytes_written += bytes;
	else
		r->bytes_read += bytes;
}

/* Add a gap of @gap ns, @cpu of it on a CPU if @known, to row @i of @t. */
static void gap_row(struct an_table *t, uint32_t i, uint64_t gap, bool known,
		    uint64_t cpu)
{
	if (i == AN_NONE)
		return;
	struct an_row *r = an_row(t, i);
	r->gap_ns += gap;
	if (known) {
		r->gap_known_ns += gap;
		r->gap_cpu_ns += cpu;
	}
}

/*
 * The gap between the end of the previous operation of @op's thread and
 * @op's start (0 where they overlap): on a CPU for its cpu= (at most the
 * gap), waiting for the rest (for a CPU: runq=, at most that rest);
 * unknown without cpu=.  Counted in the
 * totals and in the rows of process @proc and thread @thread.
 */
static void thread_gap(struct an *a, const struct rlog_op *op, uint32_t proc,
		       uint32_t thread)
{
	uint64_t key = (uint64_t)op->pid << 32 | op->tid;
	uint64_t end = op->time_ns + op->dur_ns, gap, cpu;
	uintptr_t prev = (uintptr_t)u64map_get(&a->thread_ends, key);
	bool known = op->have & RL_CPU;

	a->gaps.calls_ns += op->dur_ns;
	if (prev && end < prev - 1)
		end = prev - 1;		/* an operation within the last */
	if (end + 1 != prev &&
	    u64map_put(&a->thread_ends, key, (void *)(uintptr_t)(end + 1)))
		an_oom(a);
	if (!prev)
		return;			/* its first: no gap before it */
	gap = op->time_ns > prev - 1 ? op->time_ns - (prev - 1) : 0;
	cpu = known ? (op->cpu_ns < gap ? op->cpu_ns : gap) : 0;
	a->gaps.gap_ns += gap;
	if (known) {
		a->gaps.gap_known_ns += gap;
		a->gaps.gap_cpu_ns += cpu;
		if (op->have & RL_PROBE)
			a->gaps.gap_probe_ns += op->probe_ns < cpu ?
						op->probe_ns : cpu;
		if (op->have & RL_RUNQ)
			a->gaps.gap_runq_ns += op->runq_ns < gap - cpu ?
					       op->runq_ns : gap - cpu;
	}
	gap_row(&a->procs, proc, gap, known, cpu);
	gap_row(&a->threads, thread, gap, known, cpu);
}

/* The file @op names by path (the link's, for symlink), or AN_NONE. */
static uint32_t path_file(struct an *a, const struct rlog_op *op)
{
	if ((op->have & RL_PATH) && !sys_path_is_content(op->sys, false))
		return file_of(a, op->path, op->path_len);
	if ((op->have & RL_PATH2) && !sys_path_is_content(op->sys, true))
		return file_of(a, op->path2, op->path2_len);
	return AN_NONE;
}

/*
 * Whether an operation of @kind moves data through its one fd, its result
 * the bytes: the plain reads and writes, their AIO and io_uring
 * completions, the page runs.  Other read and write class calls (sendfile
 * and copy_file_range, whose fd is not their only file, readahead, the
 * truncates and fallocate) count as operations of their class but add no
 * bytes, sizes or ranges: their results are no data of their fd.
 */
static bool moves_own_data(enum sys_kind kind)
{
	switch (kind) {
	case SK_READ: case SK_WRITE: case SK_AIO_DATA: case SK_URING_DATA:
	case SK_MAPPAGE:
		return true;
	default:
		return false;
	}
}

void an_op(struct an *a, const struct rlog_op *op)
{
	enum sys_class cls = sys_class_of(op->sys);
	enum sys_kind kind = sys_info(op->sys)->kind;
	bool ok = op->ret >= 0, data_op = moves_own_data(kind);
	struct an_fd *fd = fd_of(a, op);
	struct an_req *rq = NULL;
	uint32_t file = AN_NONE, proc, thread;
	uint64_t bytes = 0;

	if (an_is_completion(op->sys) && (op->have & RL_TAG))
		rq = u64map_del(&a->reqs, op->tag);
	if (rq)
		file = rq->file;
	else if ((file = path_file(a, op)) == AN_NONE && fd)
		file = fd->file;
	if ((op->have & RL_VFD) && ok && file != AN_NONE)
		opened(a, op, file);
	if ((kind == SK_IOCB || kind == SK_URING_SQE) && (op->have & RL_TAG))
		submitted(a, op, file);
	if (kind == SK_SEEK && fd && ok) {
		fd->pos = (uint64_t)op->ret;
		fd->pos_known = true;
	}
	struct an_row *f = file == AN_NONE ? NULL : an_row(&a->files, file);
	if (data_op && ok) {
		bytes = kind == SK_MAPPAGE ? (uint64_t)op->ret * RLOG_PAGE_SIZE :
			(uint64_t)op->ret;
		if (kind != SK_MAPPAGE) {
			an_hist_add(cls == CLS_READ ? &a->read_sizes :
				    &a->write_sizes, op->have & RL_COUNT &&
				    op->count >= 0 && !rq ?
				    (uint64_t)op->count : bytes);
			int64_t start = start_of(op, fd, rq, bytes);
			/* The other row mixes files: no ranges, no order. */
			data(a, f, cls == CLS_WRITE,
			     file == AN_OTHER ? -1 : start, bytes);
		} else if (f) {
			data(a, f, cls == CLS_WRITE, -1, bytes);
		}
		if (cls == CLS_READ)
			a->bytes_read += bytes;
		else
			a->bytes_written += bytes;
	}
	if (cls == CLS_SYNC) {
		a->syncs++;
		if (ok)
			sync_file(a, f);
	}
	free(rq);
	if (kind == SK_CLOSE && (op->have & RL_FD))
		free(u64map_del(&a->fds, op->fd));

	a->ops++;
	a->failed += !ok;
	if (op->time_ns + op->dur_ns > a->duration_ns)
		a->duration_ns = op->time_ns + op->dur_ns;
	struct an_sys *s = &a->sys[op->sys];
	s->ops++;
	s->failed += !ok;
	s->time_ns += op->dur_ns;
	if (ok && (data_op || kind == SK_SENDFILE || kind == SK_COPY_RANGE ||
		   kind == SK_SPLICE))
		s->bytes += data_op ? bytes : (uint64_t)op->ret;
	a->cls[cls].ops++;
	a->cls[cls].time_ns += op->dur_ns;
	if (an_is_timed(op->sys))
		an_hist_add(&a->cls[cls].lat, op->dur_ns);
	if (an_timeline_add(&a->tl, op->time_ns, op->dur_ns, cls, bytes))
		an_oom(a);

	bool write = cls == CLS_WRITE;
	an_who(a, op, &proc, &thread);
	count_row(&a->procs, proc, op, write, bytes);
	count_row(&a->threads, thread, op, write, bytes);
	thread_gap(a, op, proc, thread);
	if (f) {
		f->ops++;
		f->time_ns += op->dur_ns;
		if (file == AN_OTHER) {
			a->files.other_used = true;
			a->files.other_ops++;
		}
	}
	if (a->folding && proc != AN_NONE)
		an_fold(a, proc, op, file, bytes);
}

int an_finish(struct an *a)
{
	struct an_table *d = &a->dirs;

	for (size_t i = 0; i < a->files.n; i++) {
		struct an_row *f = &a->files.rows[i];
		f->ws_bytes = an_ranges_bytes(&f->ws);
		an_ranges_free(&f->ws);
	}
	a->files.other.ws_bytes = an_ranges_bytes(&a->files.other.ws);
	an_ranges_free(&a->files.other.ws);
	for (size_t i = 0; i <= a->files.n; i++) {
		const struct an_row *f = i < a->files.n ? &a->files.rows[i] :
					 &a->files.other;
		uint32_t p = i < a->files.n ? f->parent : AN_OTHER;
		if (i == a->files.n && !a->files.other_used)
			break;
		if (p == AN_NONE)
			continue;
		if (p == AN_OTHER)
			d->other_used = true;
		an_row_add(an_row(d, p), f);
	}
	return a->err;
}
