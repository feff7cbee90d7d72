/*
 * generate: the driver of capture log -> replay file.  Reads the log once,
 * hands each event to events.c, writes operations to an unnamed temporary
 * file, then header and INIT section to another, joins the two
 * (outfile_join()) and renames the result into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "ioriot/uring.h"

#define PROGRESS_EVERY (1u << 20)
/* Events ahead whose path cache slot, and node, are loaded early. */
#define PREFETCH_SLOT_AHEAD 8
#define PREFETCH_NODE_AHEAD 4

static const char *const filter_names[GF_COUNT] = {
	[GF_UNKNOWN_FD] = "fd not opened in capture (socket, pipe, ...)",
	[GF_PSEUDO] = "pseudo file system (proc, sysfs, ...)",
	[GF_OWN] = "inside an .ioriot sandbox",
	[GF_NO_MOUNT] = "no mount holds the path",
	[GF_TOO_LONG] = "path too long",
	[GF_RELATIVE] = "relative path, directory unknown",
	[GF_NOT_FILE] = "not file I/O (anonymous mmap, ...)",
	[GF_FD_TABLE] = "fd table or process only (dup, fork, ...)",
	[GF_INCOMPLETE] = "lacks a path, fd or result it needs",
	[GF_AIO] = "AIO poll/noop, unknown AIO context or request",
	[GF_URING] = "io_uring: not replayed kind or ring, unknown ring/request",
	[GF_UNKNOWN_MAP] = "page not in a replayed file mapping",
	[GF_IOCTL] = "ioctl command other than FICLONE*, FIDEDUPERANGE",
	[GF_FILTERED] = "left out by --only-*, --from, --to",
	[GF_FILTER_FD] = "fd opened by an operation left out, not reopened",
	[GF_FILTER_CTX] = "mapping, AIO context, ring set up by one left out",
	[GF_SYNC] = "wake, futex wait or wake: ordering only (sync=)",
};

const char *gen_filter_name(enum gen_filter why)
{
	return filter_names[why];
}

/*
 * The node's original path and sandbox path, if it belongs in INIT at all:
 * on a replayed mount and not the mountpoint itself (its sandbox root).
 */
static bool init_paths(struct gen *g, const struct node *n, char *orig,
		       size_t *olen, char *sandbox, size_t *slen,
		       const struct mount_entry **m)
{
	long len = nstree_path(n, orig, true);

	if (len <= 1 || pathmap_rewrite(&g->pm, orig, (size_t)len, sandbox,
					slen, m) != PATHMAP_OK)
		return false;
	*olen = (size_t)len;
	return *olen != (*m)->dir_len;
}

/*
 * Mark which nodes INIT lists: each node the capture proved existed (or not)
 * before it started, with its ancestors on the same mount.  A directory
 * above a mountpoint is listed only when something on its own mount lies
 * below it: otherwise it exists on the test host for that mount anyway.
 */
static void mark_init(struct gen *g)
{
	char orig[PATHMAP_MAX], sandbox[PATHMAP_MAX];
	const struct mount_entry *m;
	size_t olen, slen;

	for (struct node *n = nstree_first(g->ns); n;
	     n = nstree_next(g->ns, n)) {
		if ((!n->preexisting && !n->init_absent) || n->init_keep ||
		    !init_paths(g, n, orig, &olen, sandbox, &slen, &m) ||
		    mounttab_has_below(g->pm.mounts, orig, olen))
			continue;
		n->init_keep = true;
		for (struct node *a = n->orig_parent; a && !a->init_keep;
		     a = a->orig_parent) {
			while (olen > 0 && orig[--olen] != '/')
				;
			if (olen <= m->dir_len)
				break;
			a->init_keep = true;
		}
	}
}

/*
 * The target INIT gives a link whose target no readlink showed: @len bytes
 * (an lstat's st_size; 1 if unknown) naming nothing, relative, in
 * @buf (PATHMAP_MAX bytes).  The link dangles, as a link to an unknown
 * place may.
 */
static const char *unknown_target(uint64_t len, char *buf)
{
	size_t n = len && len < PATHMAP_MAX ? (size_t)len : 1;

	for (size_t i = 0; i < n; i++)	/* components of at most 200 bytes */
		buf[i] = i % 201 == 200 ? '/' : '_';
	buf[n] = '\0';
	return buf;
}

/*
 * The extended attributes @n had before the capture, as INIT entries
 * after its own.  Only user.* ones: init runs as the test user, who may
 * set no other namespace (trusted, security, system: ACLs are values of
 * a format, not data of a size); those are counted.
 */
static void write_init_xattrs(struct gen *g, struct outbuf *ob,
			      const struct node *n, const char *sandbox,
			      size_t len)
{
	static const char user[] = "user.";

	for (const struct xattr_fact *x = node_xattrs(n); x; x = x->next) {
		if (!x->init)
			continue;
		if (x->name_len <= sizeof(user) - 1 ||
		    memcmp(x->name, user, sizeof(user) - 1) ||
		    x->size > RLOG_XATTR_SIZE_MAX) {
			g->sum->init_xattrs_left++;
			continue;
		}
		rlog_write_init_xattr(ob, x->size, sandbox, len, x->name,
				      x->name_len);
		g->sum->init_xattrs++;
	}
}

/* Write the INIT entries under their original paths, and count them. */
static void write_init(struct gen *g, struct outbuf *ob)
{
	char orig[PATHMAP_MAX], sandbox[PATHMAP_MAX];
	struct gen_summary *sum = g->sum;
	const struct mount_entry *m;
	size_t olen, len;

	mark_init(g);
	for (const struct node *n = nstree_first(g->ns); n;
	     n = nstree_next(g->ns, n)) {
		if (!n->init_keep || (!n->preexisting && !n->init_absent) ||
		    !init_paths(g, n, orig, &olen, sandbox, &len, &m))
			continue;
		if (n->preexisting && n->type == NT_DIR) {
			rlog_write_init(ob, RLOG_INIT_DIR, 0, sandbox, len,
					RLOG_NO_MODE);
			sum->init_dirs++;
			write_init_xattrs(g, ob, n, sandbox, len);
		} else if (n->preexisting && n->type == NT_SYMLINK &&
			   !n->opened && !n->has_children) {
			/* A link only lstat'ed or read.  One that was opened
			 * or had paths below it is made the file or directory
			 * it led to: the capture names the link, not where it
			 * led. */
			char unknown[PATHMAP_MAX];
			const char *target = node_init_target(n);
			if (!target)
				target = unknown_target(n->init_size, unknown);
			rlog_write_init_symlink(ob, sandbox, len, target,
						strlen(target));
			sum->init_links++;
		} else if (n->preexisting) {
			rlog_write_init(ob, RLOG_INIT_FILE, n->init_size,
					sandbox, len, n->init_mode_known ?
					n->init_mode : RLOG_NO_MODE);
			sum->init_files++;
			sum->init_bytes += n->init_size;
			write_init_xattrs(g, ob, n, sandbox, len);
		} else {
			rlog_write_init(ob, RLOG_INIT_ABSENT, 0, sandbox, len,
					RLOG_NO_MODE);
			sum->init_absent++;
		}
	}
}

bool generate_uring_skipped(const struct gen_summary *sum,
			    struct uncaptured *u)
{
	char buf[URING_NAME_MAX];

	memset(u, 0, sizeof(*u));
	for (int op = 0; op < 256; op++)
		if (sum->uring_skipped[op])
			uncaptured_add(u, uring_op_name(op, buf),
				       sum->uring_skipped[op]);
	uncaptured_sort(u);
	u->known = true;
	return u->n > 0;
}

static void write_header(struct gen *g, struct outbuf *ob,
			 const struct gen_options *opt,
			 const struct caplog_header *ch)
{
	struct uncaptured skipped;
	const struct mounttab *mt = g->pm.mounts;
	struct gen_summary *sum = g->sum;
	char sandbox[PATHMAP_MAX];
	const char *test;
	size_t len;

	outbuf_puts(ob, "#|replay_version=1|");
	outbuf_meta(ob, "name", opt->name);
	outbuf_meta(ob, "user", opt->user);
	outbuf_puts(ob, "\n#|");
	outbuf_meta(ob, "source", opt->capture_path);
	outbuf_meta_u64(ob, "capture_version", (uint64_t)ch->version);
	if (ch->host[0])
		outbuf_meta(ob, "host", ch->host);
	if (ch->kernel[0])
		outbuf_meta(ob, "kernel", ch->kernel);
	outbuf_puts(ob, "\n#|");
	outbuf_meta_u64(ob, "ops", sum->ops);
	outbuf_meta_u64(ob, "timelines", sum->op_timelines);
	outbuf_meta_u64(ob, "processes", sum->op_processes);
	outbuf_meta_u64(ob, "duration_ns", sum->duration_ns);
	outbuf_putc(ob, '\n');
	if (sum->uncaptured.known)
		uncaptured_write(ob, &sum->uncaptured);
	if (generate_uring_skipped(sum, &skipped))
		uncaptured_write_as(ob, URING_SKIPPED_PREFIX, &skipped);
	gen_filter_header(g, ob);
	for (size_t i = 0; i < mt->n; i++) {
		if (!g->mount_used[i])
			continue;
		if (pathmap_rewrite(&g->pm, mt->v[i].dir, mt->v[i].dir_len,
				    sandbox, &len, NULL) != PATHMAP_OK)
			continue;
		outbuf_puts(ob, "#|sandbox=");
		outbuf_path(ob, sandbox, len);
		outbuf_puts(ob, "|mount=");
		outbuf_path(ob, mt->v[i].dir, mt->v[i].dir_len);
		outbuf_puts(ob, "|");
		outbuf_meta(ob, "fstype", mt->v[i].fstype);
		if ((test = sandmap_lookup(opt->map, mt->v[i].dir)))
			outbuf_meta(ob, "test_mount", test);
		outbuf_putc(ob, '\n');
	}
}

/* Write the final file: header, INIT, the operations from @ops_fd (an
 * unnamed file in @dfd), #END; under a temporary name, renamed into place.
 * Returns 0 or -errno with @err filled in. */
static int write_output(struct gen *g, const struct gen_options *opt,
			const struct caplog_header *ch, int dfd, int ops_fd,
			char *err, size_t errlen)
{
	const char *base = outfile_base(opt->replay_path);
	char tmp[NAME_MAX + 32];
	struct outbuf *ob = malloc(sizeof(*ob));
	int head_fd = -1, fd = -1, rc;

	if (!ob) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	head_fd = rc = outfile_unnamed(dfd, base);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot create a file beside it: %s",
			 opt->replay_path, strerror(-rc));
		goto out;
	}
	outbuf_init(ob, head_fd);
	write_header(g, ob, opt, ch);
	outbuf_puts(ob, "#INIT\n");
	write_init(g, ob);
	outbuf_puts(ob, "#OPS\n");
	rc = outbuf_flush(ob);
	if (!rc)
		fd = rc = outfile_join(dfd, base, head_fd, ops_fd, tmp,
					 sizeof(tmp));
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", opt->replay_path, strerror(-rc));
		goto out;
	}
	outbuf_init(ob, fd);
	outbuf_puts(ob, "#END|");
	outbuf_meta_u64(ob, "ops", g->sum->ops);
	outbuf_putc(ob, '\n');
	rc = outbuf_flush(ob);
	/* No fsync: a file cut short by a crash lacks #END and is rejected
	 * by the reader, so the rename alone keeps partial files out. */
	mode_t mask = umask(0);		/* single-threaded: read and restore */
	umask(mask);
	if (!rc && fchmod(fd, 0666 & ~mask) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dfd, tmp, dfd, base) < 0)
		rc = -errno;
	if (rc) {
		snprintf(err, errlen, "%s: %s", opt->replay_path, strerror(-rc));
		unlinkat(dfd, tmp, 0);
	}
out:
	if (head_fd >= 0)
		close(head_fd);
	free(ob);
	return rc;
}

/*
 * The path cache is bound by memory latency: load the slot of an event's
 * first path some events ahead, and the node a slot holds a few events
 * later, while the events between are handled.  @pre: the current
 * event's prepared paths and those of the @ahead events after it.
 */
static void prefetch_paths(const struct gen *g,
			   const struct prepared (*pre)[2], size_t ahead)
{
	const struct prepared *p;

	if (ahead >= PREFETCH_SLOT_AHEAD) {
		p = &pre[PREFETCH_SLOT_AHEAD][0];
		if (p->src && p->st == PATHMAP_OK)
			nstree_prefetch_slot(g->ns, p->hash);
	}
	if (ahead >= PREFETCH_NODE_AHEAD) {
		p = &pre[PREFETCH_NODE_AHEAD][0];
		if (p->src && p->st == PATHMAP_OK)
			nstree_prefetch_node(g->ns, p->hash);
	}
}

/* The mount table paths are rewritten with: the log's own (v4) or, for
 * older logs, the local one. */
static int load_mounts(const struct gen_options *opt,
		       const struct caplog_header *ch, struct mounttab **out,
		       char *err, size_t errlen)
{
	const char *path = opt->local_mounts ? opt->local_mounts : "/proc/mounts";
	struct mounttab *mt = mounttab_new();
	int rc;

	if (!mt) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (ch->mounts && ch->mounts->n) {
		for (size_t i = 0; i < ch->mounts->n; i++) {
			const struct mount_entry *e = &ch->mounts->v[i];
			rc = mounttab_add(mt, e->dir, e->dir_len, e->fstype);
			if (rc == -ENOMEM) {
				snprintf(err, errlen, "out of memory");
				goto err;
			}
		}
	} else {
		rc = mounttab_load(mt, path);
		if (rc) {
			snprintf(err, errlen, "%s: cannot read mount table: %s",
				 path, strerror(-rc));
			goto err;
		}
		log_info("%s has no mount table (version %d): using %s",
			 opt->capture_path, ch->version, path);
	}
	*out = mt;
	return 0;
err:
	mounttab_free(mt);
	return rc;
}

/* The syscalls the capture did not record, if it counted them: a warning
 * when file I/O is among them. */
static void note_uncaptured(const struct gen_options *opt,
			    const struct caplog_reader *r,
			    struct gen_summary *sum)
{
	const struct uncaptured *u = caplog_uncaptured(r);
	uint64_t file_io;

	if (!u)
		return;
	sum->uncaptured = *u;
	file_io = uncaptured_file_io(u);
	if (file_io)
		log_warn("%s: %" PRIu64 " calls of the file I/O API were not "
			 "captured, so they are not replayed (summary: Not "
			 "captured)", opt->capture_path, file_io);
}

/* What the end record's error=@error says stopped the capture early: a
 * limit it was given (--max-size, --min-free), or NULL for a full disk. */
static const char *limit_met(const char *error)
{
	if (strcmp(error, "MAX_SIZE") == 0)
		return "its log reached --max-size";
	if (strcmp(error, "MIN_FREE") == 0)
		return "its log's file system reached --min-free";
	return NULL;
}

/* Whether the log ended with its end record (v4), and what it says. */
static void note_end(const struct gen_options *opt,
		     const struct caplog_reader *r, struct gen_summary *sum)
{
	const struct caplog_end *end = caplog_end_record(r);

	if (end) {
		sum->have_end = true;
		sum->end = *end;
		if (limit_met(end->error))
			log_warn("%s: the capture stopped early, %s (%s): %"
				 PRIu64 " events were lost at the stop",
				 opt->capture_path, limit_met(end->error),
				 end->error, end->lost_disk_full);
		else if (end->error[0])
			log_warn("%s: the capture stopped early, its log's disk "
				 "was full (%s): %" PRIu64 " events were lost "
				 "to it", opt->capture_path, end->error,
				 end->lost_disk_full);
	} else if (sum->capture_version >= 4) {
		sum->end_missing = true;
		log_warn("%s ends without its end record: the capture was cut "
			 "short (killed, or its disk filled); %" PRIu64
			 " events read", opt->capture_path, sum->events);
	}
}

/* The directory of the replay file, opened once (*@dfd), the unnamed file
 * there the operation lines go to (*@ops_fd), and the thread writing them.
 * Returns 0 or -errno with @err filled in. */
static int start_ops(struct gen *g, const struct gen_options *opt, int *dfd,
		     int *ops_fd, char *err, size_t errlen)
{
	*dfd = outfile_dir(opt->replay_path, err, errlen);
	if (*dfd < 0)
		return *dfd;
	*ops_fd = outfile_unnamed(*dfd, outfile_base(opt->replay_path));
	if (*ops_fd < 0) {
		snprintf(err, errlen, "%s: cannot create a file beside it: %s",
			 opt->replay_path, strerror(-*ops_fd));
		return *ops_fd;
	}
	g->ops = opwriter_start(*ops_fd);
	if (!g->ops) {
		snprintf(err, errlen, "cannot start the operations' writer: %s",
			 strerror(errno));
		return -errno;
	}
	return 0;
}

int generate_run(const struct gen_options *opt, struct gen_summary *sum,
		 char *err, size_t errlen)
{
	struct caplog_reader *r = NULL;
	struct mounttab *mounts = NULL;
	struct gen g = { 0 };
	struct readahead *ra = NULL;
	int dfd = -1, ops_fd = -1, rc;

	memset(sum, 0, sizeof(*sum));
	g.sum = sum;
	g.opt = opt;
	if (!test_name_valid(opt->name)) {
		snprintf(err, errlen, "invalid test name '%s'", opt->name);
		return -EINVAL;
	}
	r = caplog_open(opt->capture_path, err, errlen);
	if (!r)
		return -errno;
	const struct caplog_header *ch = caplog_header(r);
	sum->capture_version = ch->version;
	snprintf(sum->host, sizeof(sum->host), "%s", ch->host);
	snprintf(sum->kernel, sizeof(sum->kernel), "%s", ch->kernel);
	rc = load_mounts(opt, ch, &mounts, err, errlen);
	if (rc)
		goto out;
	g.pm.mounts = mounts;
	g.pm.name = opt->name;
	g.pm.name_len = strlen(opt->name);
	g.mount_used = calloc(mounts->n + 1, sizeof(bool));
	g.ns = nstree_new();
	rc = -ENOMEM;
	if (!g.mount_used || !g.ns || u64map_init(&g.timelines) ||
	    u64map_init(&g.parents) || u64map_init(&g.op_pids) ||
	    u64map_init(&g.futexes) ||
	    u64map_init(&g.aio_batch) || u64map_init(&g.dedupe) ||
	    procs_init(&g.procs, gen_release, gen_unmap, &g)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	g.probe_gap_ns = ch->probe_gap_ns;
	g.probe_call_ns = ch->probe_call_ns;
	rc = gen_filter_setup(&g, ch, err, errlen);
	if (rc)
		goto out;
	rc = opt->sink ? 0 : start_ops(&g, opt, &dfd, &ops_fd, err, errlen);
	if (rc)
		goto out;

	const struct prepared (*pre)[2];
	uint64_t last_time = 0, offset;
	size_t ahead;
	const struct cap_event *ev;
	bool stopped = false;
	ra = readahead_start(r, &g.pm);
	if (!ra) {
		rc = -errno;
		snprintf(err, errlen, "cannot start the log's reader: %s",
			 strerror(errno));
		goto out;
	}
	while ((ev = readahead_next(ra, &pre, &ahead, &offset))) {
		if (++sum->events % PROGRESS_EVERY == 0 && opt->progress)
			opt->progress(opt->progress_ctx, offset, caplog_size(r));
		prefetch_paths(&g, pre, ahead);
		g.pre = pre[0];
		gen_event(&g, ev);
		g.pre = NULL;
		if (ev->time_ns + ev->dur_ns > last_time)
			last_time = ev->time_ns + ev->dur_ns;
		if (g.err || (g.ops && opwriter_err(g.ops))) {
			stopped = true;
			break;
		}
	}
	rc = readahead_finish(ra);
	ra = NULL;
	if (stopped && rc == 0)
		rc = 1;		/* not at the end: nothing more to flush */
	gen_flush_pages(&g);
	if (rc == 0)
		gen_uring_flush_all(&g);
	if (rc < 0) {
		snprintf(err, errlen, "%s: read error: %s", opt->capture_path,
			 strerror(-rc));
		goto out;
	}
	int werr = opwriter_finish(g.ops);
	g.ops = NULL;
	rc = g.err ? g.err : werr;
	if (rc) {
		snprintf(err, errlen, "%s: %s", g.err ? "generate" : "temporary file",
			 strerror(-rc));
		goto out;
	}
	note_end(opt, r, sum);
	note_uncaptured(opt, r, sum);
	sum->lines = caplog_lines(r);
	for (int i = 0; i < CAPLOG_BAD_COUNT; i++)
		sum->bad[i] = caplog_bad(r, (enum caplog_bad)i);
	sum->timelines = g.timelines.count;
	sum->processes = g.procs.created;
	sum->paths = nstree_count(g.ns);
	sum->duration_ns = last_time;
	if (g.filter.f)			/* the window's part of it */
		sum->duration_ns = (last_time < g.filter.to_ns ? last_time :
				    g.filter.to_ns) -
				   (last_time > g.filter.from_ns ?
				    g.filter.from_ns : last_time);
	if (opt->sink)
		goto out;
	if (sum->ops == 0) {
		snprintf(err, errlen, "%s: no operation left to replay from %"
			 PRIu64 " lines (%" PRIu64 " valid events): no replay "
			 "file written", opt->capture_path, sum->lines,
			 sum->events);
		rc = -ENODATA;
		goto out;
	}
	rc = write_output(&g, opt, ch, dfd, ops_fd, err, errlen);
out:
	readahead_finish(ra);
	opwriter_finish(g.ops);
	gen_uring_free(&g);
	procs_destroy(&g.procs);
	gen_aio_free(&g);
	gen_dedupe_free(&g);
	gen_filter_free(&g);
	gen_timelines_free(&g);
	gen_futexes_free(&g);
	deps_users_free(g.res_users);
	u64map_destroy(&g.op_pids);
	nstree_free(g.ns);
	free(g.mount_used);
	if (ops_fd >= 0)
		close(ops_fd);
	if (dfd >= 0)
		close(dfd);
	mounttab_free(mounts);
	caplog_close(r);
	return rc;
}

/* The end record's counters, or that a v4 log lacks it. */
static void print_end(FILE *out, const struct gen_summary *s)
{
	const struct caplog_end *e = &s->end;

	if (s->end_missing)
		fprintf(out, "Capture end record: missing: the capture was cut "
			"short\n");
	if (!s->have_end)
		return;
	if (e->error[0])
		fprintf(out, "Capture end record: the capture stopped early, "
			"%s: %s\n", limit_met(e->error) ? limit_met(e->error) :
			"disk full", e->error);
	else
		fprintf(out, "Capture end record: complete\n");
	fprintf(out, "  %-45s %" PRIu64 "\n", "Events in the capture", e->events);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Events lost in the capture", e->lost);
	if (e->lost_disk_full || e->error[0])
		fprintf(out, "  %-45s %" PRIu64 "\n",
			limit_met(e->error) ? "Events lost at the stop" :
			"Events lost to the full disk",
			e->lost_disk_full);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Events filtered out by path",
		e->filtered);
	if (e->paths_cut)
		fprintf(out, "  %-45s %" PRIu64 "\n", "Events logged without a path",
			e->paths_cut);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Files open at start", e->snapshot_fds);
	if (e->missing_tracepoints)
		fprintf(out, "  %-45s %" PRIu64 "\n", "Tracepoints missing",
			e->missing_tracepoints);
	if (e->maps_unfollowed)
		fprintf(out, "  %-45s %" PRIu64 "\n",
			"File mappings not followed (page faults lost)",
			e->maps_unfollowed);
	if (e->duration_ns)
		fprintf(out, "  %-45s %.3fs\n", "Capture duration",
			(double)e->duration_ns / 1e9);
}

/* The syscalls the capture did not record, file I/O by name. */
static void print_uncaptured(FILE *out, const struct uncaptured *u)
{
	if (!u->known) {
		fprintf(out, "Not captured: not counted by this capture "
			"(SystemTap, or an older ioriot)\n");
		return;
	}
	fprintf(out, "Not captured (not replayed): ");
	if (!uncaptured_file_io(u))
		fprintf(out, "none");
	uncaptured_print_file_io(out, u, false);
	fprintf(out, "\nOther syscalls not captured: %" PRIu64 " (not file "
		"I/O)\n", uncaptured_other(u));
}

/* What the generate-time filters left out, kept and added. */
static void print_filters(FILE *out, const struct gen_summary *s)
{
	if (!s->filtered_run)
		return;
	fprintf(out, "Filters: %" PRIu64 " events left out, %" PRIu64
		" operations left out because their fd was opened by one, %"
		PRIu64 " because their mapping, AIO context or ring was set "
		"up by one\n", s->filtered[GF_FILTERED],
		s->filtered[GF_FILTER_FD], s->filtered[GF_FILTER_CTX]);
	if (s->filter_window_end_ns != UINT64_MAX)
		fprintf(out, "  %-45s %.3fs to %.3fs\n", "Time window",
			(double)s->filter_window_start_ns / 1e9,
			(double)s->filter_window_end_ns / 1e9);
	else if (s->filter_window_start_ns)
		fprintf(out, "  %-45s %.3fs to the end\n", "Time window",
			(double)s->filter_window_start_ns / 1e9);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Opens kept without create, truncate",
		s->filter_plain_opens);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Opens added for fds opened before",
		s->filter_reopens);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Lseeks added for positions moved",
		s->filter_seeks);
	if (s->filter_reads_cut)
		fprintf(out, "  %-45s %" PRIu64 "\n",
			"Short reads asking for what they read",
			s->filter_reads_cut);
	if (s->filter_pos_lost)
		fprintf(out, "  %-45s %" PRIu64 "\n",
			"fds whose position is unknown (not set)",
			s->filter_pos_lost);
	fprintf(out, "  %-45s %" PRIu64 "\n", "Closes kept for opens in the file",
		s->filter_closes);
	fprintf(out, "  %-45s %" PRIu64 "\n", "mmap, munmap, AIO, io_uring kept whole",
		s->filter_setups);
}

void generate_print_summary(FILE *out, const struct gen_summary *s)
{
	struct uncaptured skipped;
	uint64_t bad = 0, filtered = 0;

	for (int i = 0; i < CAPLOG_BAD_COUNT; i++)
		bad += s->bad[i];
	for (int i = 0; i < GF_COUNT; i++)
		filtered += s->filtered[i];
	fprintf(out, "Capture version: %d\n", s->capture_version);
	fprintf(out, "Lines read: %" PRIu64 "\n", s->lines);
	fprintf(out, "Events: %" PRIu64 "\n", s->events);
	fprintf(out, "Bad lines: %" PRIu64 "\n", bad);
	for (int i = 0; i < CAPLOG_BAD_COUNT; i++)
		if (s->bad[i])
			fprintf(out, "  %-45s %" PRIu64 "\n",
				caplog_bad_name((enum caplog_bad)i), s->bad[i]);
	fprintf(out, "Operations written: %" PRIu64 "\n", s->ops);
	for (int i = 0; i < SYS_COUNT; i++)
		if (s->ops_per_sys[i])
			fprintf(out, "  %-45s %" PRIu64 "\n",
				sys_info((enum sys_id)i)->replay_name,
				s->ops_per_sys[i]);
	fprintf(out, "Events not replayed: %" PRIu64 "\n", filtered);
	for (int i = 0; i < GF_COUNT; i++)
		if (s->filtered[i])
			fprintf(out, "  %-45s %" PRIu64 "\n", filter_names[i],
				s->filtered[i]);
	fprintf(out, "Events lost by the probe: %" PRIu64 "\n", s->lost_events);
	if (s->aio_iocbs_missing)
		fprintf(out, "AIO requests submitted without an iocb record: %"
			PRIu64 "\n", s->aio_iocbs_missing);
	if (s->uring_sqes_missing)
		fprintf(out, "io_uring requests submitted without an sqe record: %"
			PRIu64 "\n", s->uring_sqes_missing);
	if (generate_uring_skipped(s, &skipped)) {
		fprintf(out, "io_uring requests not replayed: ");
		uncaptured_print_all(out, &skipped, false);
		fputc('\n', out);
	}
	print_filters(out, s);
	print_uncaptured(out, &s->uncaptured);
	print_end(out, s);
	if (s->sync_waits)
		fprintf(out, "Waits another captured thread ended: %" PRIu64
			", %" PRIu64 " ordered after its operation (sync=), %"
			PRIu64 " not (it had none yet)\n", s->sync_waits, s->sync_matched,
			s->sync_waits - s->sync_matched);
	if (s->deps_dropped)
		fprintf(out, "Dependencies dropped (over %d per operation): %"
			PRIu64 "\n", DEPS_MAX, s->deps_dropped);
	fprintf(out, "Timelines: %" PRIu64 " (captured threads with operations; "
		"%" PRIu64 " threads captured)\n", s->op_timelines, s->timelines);
	fprintf(out, "Processes: %" PRIu64 " (with operations; %" PRIu64
		" captured)\n", s->op_processes, s->processes);
	fprintf(out, "Paths: %" PRIu64 "\n", s->paths);
	fprintf(out, "INIT directories: %" PRIu64 "\n", s->init_dirs);
	fprintf(out, "INIT files: %" PRIu64 "\n", s->init_files);
	fprintf(out, "INIT symlinks: %" PRIu64 "\n", s->init_links);
	fprintf(out, "INIT bytes: %" PRIu64 "\n", s->init_bytes);
	fprintf(out, "INIT absent paths: %" PRIu64 "\n", s->init_absent);
	fprintf(out, "INIT xattrs: %" PRIu64 "\n", s->init_xattrs);
	if (s->init_xattrs_left)
		fprintf(out, "INIT xattrs left out (not user.*): %" PRIu64 "\n",
			s->init_xattrs_left);
	fprintf(out, "Captured time: %.3fs (the operations': %.3fs)\n",
		(double)s->duration_ns / 1e9, (double)s->ops_end_ns / 1e9);
}
