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

enum an_class an_class_of(enum sys_id sys)
{
	switch (sys) {
	case SYS_OPEN: case SYS_OPENAT: case SYS_OPENAT2: case SYS_CREAT:
	case SYS_CLOSE: case SYS_CLOSE_RANGE:
		return AC_OPEN;
	case SYS_READ: case SYS_PREAD64: case SYS_READV: case SYS_PREADV:
	case SYS_PREADV2: case SYS_AIO_PREAD: case SYS_AIO_PREADV:
	case SYS_URING_READV: case SYS_URING_READ_FIXED: case SYS_URING_READ:
	case SYS_MMAP_READ:
		return AC_READ;
	case SYS_WRITE: case SYS_PWRITE64: case SYS_WRITEV: case SYS_PWRITEV:
	case SYS_PWRITEV2: case SYS_AIO_PWRITE: case SYS_AIO_PWRITEV:
	case SYS_URING_WRITEV: case SYS_URING_WRITE_FIXED:
	case SYS_URING_WRITE: case SYS_MMAP_WRITE:
		return AC_WRITE;
	case SYS_FSYNC: case SYS_FDATASYNC: case SYS_SYNC: case SYS_SYNCFS:
	case SYS_SYNC_FILE_RANGE: case SYS_AIO_FSYNC: case SYS_AIO_FDSYNC:
	case SYS_URING_FSYNC: case SYS_URING_SYNC_FILE_RANGE:
		return AC_SYNC;
	case SYS_FTRUNCATE: case SYS_FALLOCATE: case SYS_FSTAT:
	case SYS_FSTATFS: case SYS_FCHMOD: case SYS_FCHOWN:
		return AC_META;
	default:
		break;
	}
	switch (sys_info(sys)->kind) {
	case SK_PATHOP: case SK_STATAT: case SK_TRUNCATE: case SK_MKDIR:
	case SK_RMDIR: case SK_UNLINK: case SK_RENAME: case SK_LINK:
	case SK_SYMLINK: case SK_MKNOD: case SK_READDIR: case SK_XATTR:
	case SK_CHDIR: case SK_FCHDIR:
		return AC_META;
	default:
		return AC_OTHER;
	}
}

const char *an_class_name(enum an_class c)
{
	static const char *const names[AC_COUNT] = {
		[AC_READ] = "read", [AC_WRITE] = "write", [AC_META] = "meta",
		[AC_SYNC] = "sync", [AC_OPEN] = "open", [AC_OTHER] = "other",
	};
	return names[c];
}

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
	    u64map_init(&a->stack_ids))
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
	free(a->stacks);
	an_timeline_free(&a->tl);
}

static void oom(struct an *a)
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
static void keep(struct an *a, struct u64map *m, uint64_t key, void *v)
{
	free(u64map_get(m, key));
	if (!v || u64map_put(m, key, v)) {
		free(v);
		u64map_del(m, key);
		oom(a);
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
	keep(a, &a->fds, op->vfd, fd);
}

/* An iocb or sqe: its file and offset until its completion. */
static void submitted(struct an *a, const struct rlog_op *op, uint32_t file)
{
	struct an_req *rq = malloc(sizeof(*rq));

	if (rq) {
		rq->file = file;
		rq->off = op->have & RL_OFFSET ? op->offset : -1;
	}
	keep(a, &a->reqs, op->tag, rq);
}

static bool is_completion(enum sys_id sys)
{
	enum sys_kind k = sys_info(sys)->kind;

	return k == SK_AIO_DATA || k == SK_AIO_DONE || k == SK_URING_DATA ||
	       k == SK_URING_DONE;
}

/* Record timing for latency: calls, not records or completions. */
static bool is_timed(enum sys_id sys)
{
	enum sys_kind k = sys_info(sys)->kind;

	return !is_completion(sys) && k != SK_IOCB && k != SK_URING_SQE &&
	       k != SK_URING_FILE && k != SK_URING_BUF && k != SK_MAPPAGE &&
	       k != SK_DEDUPE && k != SK_DEDUPE_DONE;
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
		oom(a);
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

/* The folded stack of @op: process, syscall, file. */
static void fold(struct an *a, uint32_t proc, const struct rlog_op *op,
		 uint32_t file, uint64_t bytes)
{
	uint64_t key = (uint64_t)(proc & AN_STACK_PROC) << 40 |
		       (uint64_t)op->sys << 32 | file;
	uintptr_t i = (uintptr_t)u64map_get(&a->stack_ids, key);

	if (!i && a->nstacks >= a->files.max && file != AN_OTHER) {
		/* past the cap: the process's syscall on "(other)" */
		key = (key & ~(uint64_t)UINT32_MAX) | AN_OTHER;
		i = (uintptr_t)u64map_get(&a->stack_ids, key);
	}
	if (!i) {
		if (a->nstacks == a->stacks_cap) {
			size_t cap = a->stacks_cap ? a->stacks_cap * 2 : 256;
			struct an_stack *s = realloc(a->stacks,
						     cap * sizeof(*s));
			if (!s) {
				oom(a);
				return;
			}
			a->stacks = s;
			a->stacks_cap = cap;
		}
		i = ++a->nstacks;
		memset(&a->stacks[i - 1], 0, sizeof(a->stacks[0]));
		a->stacks[i - 1].key = key;
		if (u64map_put(&a->stack_ids, key, (void *)i)) {
			a->nstacks--;
			oom(a);
			return;
		}
	}
	struct an_stack *s = &a->stacks[i - 1];
	s->ops++;
	s->bytes += bytes;
	s->time_ns += op->dur_ns;
}

/* The row of process @pid (@tid 0), or thread @pid:@tid, made if new. */
static uint32_t row_of_id(struct an *a, struct an_table *t, uint64_t id,
			  uint32_t pid, uint32_t tid)
{
	char name[32];
	uint32_t i = an_table_find_id(t, id);

	if (i != AN_NONE)
		return i;
	char *exec_name = tid ? NULL : u64map_del(&a->exec_names, pid);
	if (exec_name) {	/* a process that exec'd before its first op */
		a->nexec_names--;
		i = an_table_id(t, id, exec_name, &a->err);
		free(exec_name);
		return i;
	}
	if (tid)
		snprintf(name, sizeof(name), "%" PRIu32 ":%" PRIu32, pid, tid);
	else
		snprintf(name, sizeof(name), "%" PRIu32, pid);
	return an_table_id(t, id, name, &a->err);
}

/* The process and thread rows of @op. */
static void who(struct an *a, const struct rlog_op *op, uint32_t *proc,
		uint32_t *thread)
{
	*proc = row_of_id(a, &a->procs, op->pid, op->pid, 0);
	*thread = row_of_id(a, &a->threads, (uint64_t)op->pid << 32 | op->tid,
			    op->pid, op->tid);
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

/* The file @op names by path (the link's, for symlink), or AN_NONE. */
static uint32_t path_file(struct an *a, const struct rlog_op *op)
{
	if ((op->have & RL_PATH) && !sys_path_is_content(op->sys, false))
		return file_of(a, op->path, op->path_len);
	if ((op->have & RL_PATH2) && !sys_path_is_content(op->sys, true))
		return file_of(a, op->path2, op->path2_len);
	return AN_NONE;
}

void an_op(struct an *a, const struct rlog_op *op)
{
	enum an_class cls = an_class_of(op->sys);
	enum sys_kind kind = sys_info(op->sys)->kind;
	bool ok = op->ret >= 0, data_op = cls == AC_READ || cls == AC_WRITE;
	struct an_fd *fd = fd_of(a, op);
	struct an_req *rq = NULL;
	uint32_t file = AN_NONE, proc, thread;
	uint64_t bytes = 0;

	if (is_completion(op->sys) && (op->have & RL_TAG))
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
			an_hist_add(cls == AC_READ ? &a->read_sizes :
				    &a->write_sizes, op->have & RL_COUNT &&
				    op->count >= 0 && !rq ?
				    (uint64_t)op->count : bytes);
			int64_t start = start_of(op, fd, rq, bytes);
			/* The other row mixes files: no ranges, no order. */
			data(a, f, cls == AC_WRITE,
			     file == AN_OTHER ? -1 : start, bytes);
		} else if (f) {
			data(a, f, cls == AC_WRITE, -1, bytes);
		}
		if (cls == AC_READ)
			a->bytes_read += bytes;
		else
			a->bytes_written += bytes;
	}
	if (cls == AC_SYNC) {
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
	if (is_timed(op->sys))
		an_hist_add(&a->cls[cls].lat, op->dur_ns);
	if (an_timeline_add(&a->tl, op->time_ns, op->dur_ns, cls, bytes))
		oom(a);

	bool write = cls == AC_WRITE;
	who(a, op, &proc, &thread);
	count_row(&a->procs, proc, op, write, bytes);
	count_row(&a->threads, thread, op, write, bytes);
	if (f) {
		f->ops++;
		f->time_ns += op->dur_ns;
		if (file == AN_OTHER) {
			a->files.other_used = true;
			a->files.other_ops++;
		}
	}
	if (a->folding && proc != AN_NONE)
		fold(a, proc, op, file, bytes);
}

/* Name process @pid "PID COMM" after its program @comm (@len bytes). */
static void name_process(struct an *a, uint32_t pid, const char *comm,
			 size_t len)
{
	char name[300];
	uint32_t p = an_table_find_id(&a->procs, pid);

	snprintf(name, sizeof(name), "%" PRIu32 " %.*s", pid,
		 (int)(len > 255 ? 255 : len), comm);
	if (p != AN_NONE) {
		if (an_table_rename(&a->procs, p, name))
			oom(a);
		return;
	}
	/* Named when its first op makes its row: a process that does none
	 * is no row.  Bounded: past the cap, later ones keep their pid. */
	char *old = u64map_get(&a->exec_names, pid), *copy;
	if (!old && a->nexec_names >= a->procs.max)
		return;
	if (!(copy = strdup(name))) {
		oom(a);
		return;
	}
	a->nexec_names += !old;
	keep(a, &a->exec_names, pid, copy);
}

void an_exec(struct an *a, uint32_t pid, const char *path, size_t len)
{
	const char *base = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && i + 1 < len)
			base = path + i + 1;
	name_process(a, pid, base, len - (size_t)(base - path));
}

void an_fork(struct an *a, uint32_t parent, uint32_t child)
{
	uint32_t p = an_table_find_id(&a->procs, parent);
	const char *name = p != AN_NONE ?
			   an_row_name(&a->procs, an_row(&a->procs, p)) :
			   u64map_get(&a->exec_names, parent);
	const char *comm = name ? strchr(name, ' ') : NULL;

	if (comm)
		name_process(a, child, comm + 1, strlen(comm + 1));
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
