/*
 * resolve: completes relative and dirfd-relative paths of captured events
 * from each process's cwd and fd paths (resolve.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resolve.h"

/*
 * What resolve knows of one fd.  Events come in entry-time order, but the
 * calls of two threads can overlap, and a call that ran longer than the
 * reorder window comes late.  So a close by another thread that began
 * before the open that set this fd returned closed an earlier description:
 * @prev, if that open found the number still taken here, else one already
 * gone.  And if this description is closed while the open of @prev had not
 * returned yet, @prev got the number after that close and holds it again.
 */
struct rfd {
	bool cloexec;
	struct rfd *prev;	/* NULL: the number was free */
	uint32_t tid;		/* the opening thread */
	uint64_t end_ns;	/* when the open returned */
	char path[];		/* absolute */
};

struct rproc {
	char *cwd;		/* NULL: not known yet */
	char *root;		/* its root directory as the host sees it, if
				 * not "/" (chroot): absolute paths start
				 * there; NULL: "/" */
	bool root_known;	/* root read (or inherited) */
	const struct mnt_table *ns;	/* its mounts, if it is in a mount
					 * namespace other than ours (then
					 * root is NULL); r->mnt_ns's */
	struct u64map fds;	/* fd -> malloc'd struct rfd */
};

/* The inode of the mount namespace link @link ("mnt:[4026531841]"), 0
 * if it cannot be read. */
static uint64_t ns_inode(const char *link)
{
	char buf[64];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	const char *open;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	open = strchr(buf, '[');
	return open ? strtoull(open + 1, NULL, 10) : 0;
}

int resolver_init(struct resolver *r, const char *proc_root)
{
	char link[PATHMAP_MAX];

	memset(r, 0, sizeof(*r));
	r->proc_root = proc_root;
	snprintf(link, sizeof(link), "%s/self/ns/mnt", proc_root);
	r->own_ns = ns_inode(link);
	if (u64map_init(&r->procs))
		return -ENOMEM;
	if (u64map_init(&r->mnt_ns)) {
		u64map_destroy(&r->procs);
		return -ENOMEM;
	}
	return 0;
}

static void rfd_free(struct rfd *f)
{
	if (!f)
		return;
	free(f->prev);
	free(f);
}

static void rproc_free(struct rproc *p)
{
	size_t pos = 0;
	struct u64map_slot *s;

	if (!p)
		return;
	while (p->fds.slots && (s = u64map_next(&p->fds, &pos)))
		rfd_free(s->value);
	u64map_destroy(&p->fds);
	free(p->cwd);
	free(p->root);
	free(p);
}

static struct rproc *rproc_get(struct resolver *r, uint32_t pid)
{
	struct rproc *p = u64map_get(&r->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (u64map_init(&p->fds) || u64map_put(&r->procs, pid, p)) {
		rproc_free(p);
		return NULL;
	}
	return p;
}

/* The path of fd @fd of @p, or NULL. */
static const char *fd_path(const struct rproc *p, int64_t fd)
{
	const struct rfd *f = fd >= 0 ? u64map_get(&p->fds, (uint64_t)fd) : NULL;

	return f ? f->path : NULL;
}

/*
 * Set fd @fd of @p to @path (NULL: forget it).  With @open, the open event
 * that returned @fd: a binding the number still has becomes the new one's
 * prev (struct rfd).  0 or -ENOMEM.
 */
static int set_fd(struct rproc *p, int64_t fd, const char *path, bool cloexec,
		  const struct cap_event *open)
{
	struct rfd *f = NULL, *old;

	if (fd < 0)
		return 0;
	if (path) {
		size_t len = strlen(path);
		if (!(f = malloc(sizeof(*f) + len + 1)))
			return -ENOMEM;
		f->cloexec = cloexec;
		f->prev = NULL;
		f->tid = open ? open->tid : 0;
		f->end_ns = open ? cap_event_end(open) : 0;
		memcpy(f->path, path, len + 1);
	}
	old = u64map_del(&p->fds, (uint64_t)fd);
	if (f && open && old) {
		rfd_free(old->prev);
		old->prev = NULL;
		f->prev = old;
	} else {
		rfd_free(old);
	}
	if (f && u64map_put(&p->fds, (uint64_t)fd, f)) {
		rfd_free(f);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Close fd @fd of @p for close event @ce, by the rules at struct rfd.
 * 0 or -ENOMEM.
 */
static int close_fd(struct rproc *p, int64_t fd, const struct cap_event *ce)
{
	struct rfd *f = fd >= 0 ? u64map_get(&p->fds, (uint64_t)fd) : NULL;
	struct rfd *prev = f ? f->prev : NULL;

	if (f && ce->tid != f->tid && ce->time_ns < f->end_ns) {
		f->prev = NULL;		/* it closed an earlier one */
		rfd_free(prev);
		return 0;
	}
	if (!prev)
		return set_fd(p, fd, NULL, false, NULL);
	f->prev = NULL;
	if (prev->end_ns <= ce->time_ns) {
		rfd_free(prev);		/* its open returned before */
		return set_fd(p, fd, NULL, false, NULL);
	}
	if (u64map_put(&p->fds, (uint64_t)fd, prev)) {
		rfd_free(prev);
		return -ENOMEM;
	}
	rfd_free(f);
	return 0;
}

/* True if close_range event @ce only marks fds close-on-exec. */
static bool cloexec_range(const struct cap_event *ce)
{
	return (ce->have & CAP_FLAGS) && (ce->flags & CLOSE_RANGE_CLOEXEC);
}

/*
 * Drop fds in [@first, @last] (with @only_cloexec, the close-on-exec ones
 * among them), or with @mark only mark them close-on-exec.  Keys are
 * collected first: deleting while iterating would shift entries.  Returns 0
 * or -ENOMEM.
 */
static int drop_fds(struct rproc *p, uint64_t first, uint64_t last,
		    bool only_cloexec, bool mark)
{
	uint64_t *doomed = malloc((p->fds.count + 1) * sizeof(*doomed));
	size_t pos = 0, n = 0;
	struct u64map_slot *s;

	if (!doomed)
		return -ENOMEM;
	while ((s = u64map_next(&p->fds, &pos))) {
		struct rfd *f = s->value;
		if (s->key < first || s->key > last)
			continue;
		if (mark)
			f->cloexec = true;
		else if (!only_cloexec || f->cloexec)
			doomed[n++] = s->key;
	}
	for (size_t i = 0; i < n; i++)
		rfd_free(u64map_del(&p->fds, doomed[i]));
	free(doomed);
	return 0;
}

static int set_cwd(struct rproc *p, const char *cwd)
{
	char *copy = cwd ? strdup(cwd) : NULL;

	if (cwd && !copy)
		return -ENOMEM;
	free(p->cwd);
	p->cwd = copy;
	return 0;
}

/* The live value of /proc/PID/@what (a link), into @buf; NULL if gone. */
static const char *live_link(const struct resolver *r, uint32_t pid,
			     const char *what, char *buf)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "%s/%u/%s", r->proc_root, pid, what);
	n = readlink(link, buf, PATHMAP_MAX - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return buf;
}

/* Set @p's root to @root ("/" or NULL: the host's).  0 or -ENOMEM. */
static int set_root(struct rproc *p, const char *root)
{
	char *copy = root && strcmp(root, "/") ? strdup(root) : NULL;

	if (root && strcmp(root, "/") && !copy)
		return -ENOMEM;
	free(p->root);
	p->root = copy;
	p->root_known = true;
	return 0;
}

/* An absolute path @path (@len bytes) of a process whose root is @root
 * (chroot), into @buf as the host sees it: @root, then the path.  Left as
 * it is if that would not fit. */
static void rooted(const char *root, const char **path, uint32_t *len,
		   char *buf)
{
	size_t rlen = strlen(root), plen = *len;

	if (rlen + plen >= PATHMAP_MAX)
		return;
	memmove(buf + rlen, *path, plen + 1);
	memcpy(buf, root, rlen);
	if (plen == 1)		/* "/": the root itself */
		buf[rlen] = '\0';
	*path = buf;
	*len = (uint32_t)strlen(buf);
}

/*
 * The mounts of @pid's namespace @ns, read from its mountinfo by the first
 * process of it looked up (kept for the others; a namespace that changes
 * its mounts later is not followed).  NULL if they cannot be read or
 * without memory.
 */
static const struct mnt_table *ns_mounts(struct resolver *r, uint64_t ns,
					 uint32_t pid)
{
	struct mnt_table *t = u64map_get(&r->mnt_ns, ns);
	char path[PATHMAP_MAX];

	if (t)
		return t;
	if (!r->host_read) {
		snprintf(path, sizeof(path), "%s/self/mountinfo", r->proc_root);
		r->host_read = true;
		if (mnt_table_load(&r->host, path))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%u/mountinfo", r->proc_root, pid);
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	if (mnt_table_load(t, path) || u64map_put(&r->mnt_ns, ns, t)) {
		mnt_table_free(t);
		free(t);
		return NULL;
	}
	return t;
}

/* Read @pid's mount namespace and root from /proc now (a container's, a
 * chroot), keeping what @p had if the process is gone (then they are
 * taken as known all the same: a process looked up late is not read again
 * at each path).  0 or -ENOMEM. */
static int learn_root(struct resolver *r, struct rproc *p, uint32_t pid)
{
	char buf[PATHMAP_MAX];
	uint64_t ns;

	p->root_known = true;
	snprintf(buf, sizeof(buf), "%s/%u/ns/mnt", r->proc_root, pid);
	ns = r->own_ns ? ns_inode(buf) : 0;
	if (ns && ns != r->own_ns) {
		p->ns = ns_mounts(r, ns, pid);
		return set_root(p, NULL);
	}
	if (ns)
		p->ns = NULL;
	if (!live_link(r, pid, "root", buf))
		return 0;
	return set_root(p, buf);
}

/* @path (absolute) of @p, in its own view, as the host sees it: in @buf
 * (PATHMAP_MAX bytes) when it changes. */
static void host_view(const struct resolver *r, const struct rproc *p,
		      const char **path, uint32_t *len, char *buf)
{
	char tmp[PATHMAP_MAX];

	if (p->ns) {
		if (!mnt_translate(p->ns, &r->host, *path, tmp, sizeof(tmp)))
			return;
		*len = (uint32_t)strlen(tmp);
		memcpy(buf, tmp, *len + 1);
		*path = buf;
	} else if (p->root) {
		rooted(p->root, path, len, buf);
	}
}

const char *resolver_proc_path(struct resolver *r, uint32_t pid,
			       const char *path, char *buf)
{
	struct rproc *p = rproc_get(r, pid);
	uint32_t len = (uint32_t)strlen(path);

	if (!p || (!p->root_known && learn_root(r, p, pid)))
		return NULL;
	if (p->ns && path[0] == '/')
		host_view(r, p, &path, &len, buf);
	return path;
}

int resolver_note(struct resolver *r, uint32_t pid, int64_t fd,
		  const char *path)
{
	struct rproc *p = rproc_get(r, pid);

	if (!p)
		return -ENOMEM;
	if (fd < 0) {
		int err = set_cwd(p, path);

		return err ? err : learn_root(r, p, pid);
	}
	return set_fd(p, fd, path, false, NULL);
}

/* /proc/PID/@what of @p's process, as the host sees it, into @buf; NULL
 * if gone. */
static const char *live_path(struct resolver *r, struct rproc *p, uint32_t pid,
			     const char *what, char *buf)
{
	const char *path = live_link(r, pid, what, buf);
	uint32_t len;

	if (!path || (!p->root_known && learn_root(r, p, pid)) || !p->ns)
		return path;
	len = (uint32_t)strlen(path);
	host_view(r, p, &path, &len, buf);
	return path;
}

/* The directory relative paths of @ce start from (dirfd or cwd). */
static const char *base_of(struct resolver *r, struct rproc *p,
			   const struct cap_event *ce, bool use_e, char *buf)
{
	bool have = ce->have & (use_e ? CAP_FD2 : CAP_FD);
	int64_t dirfd = use_e ? ce->fd2 : ce->fd;

	if (have && dirfd != AT_FDCWD) {
		const char *path = fd_path(p, dirfd);
		char what[32];

		if (path)
			return path;
		snprintf(what, sizeof(what), "fd/%lld", (long long)dirfd);
		return live_path(r, p, ce->pid, what, buf);
	}
	if (!p->cwd && live_path(r, p, ce->pid, "cwd", buf) && set_cwd(p, buf))
		return NULL;
	return p->cwd;
}

/* True if d (and e) of @ce are dirfds for its paths. */
static bool uses_dirfd(enum sys_id sys)
{
	switch (sys) {
	case SYS_OPENAT: case SYS_OPENAT2: case SYS_NEWFSTATAT: case SYS_STATX:
	case SYS_FACCESSAT: case SYS_FACCESSAT2: case SYS_MKDIRAT:
	case SYS_MKNODAT: case SYS_UNLINKAT: case SYS_RENAMEAT:
	case SYS_RENAMEAT2: case SYS_LINKAT: case SYS_SYMLINKAT: case SYS_READLINKAT:
	case SYS_FCHMODAT: case SYS_FCHMODAT2: case SYS_FCHOWNAT:
	case SYS_UTIMENSAT: case SYS_SETXATTRAT:
	case SYS_GETXATTRAT: case SYS_LISTXATTRAT: case SYS_REMOVEXATTRAT:
		return true;
	default:
		return false;
	}
}

/* Normalise one path into @out, relative ones against @base (NULL: leave
 * a relative path as it is). */
static void complete(const char **path, uint32_t *len, const char *base,
		     char *out)
{
	long n;

	if (!base)
		return;
	n = path_normalize(*path, *len, base, out);
	if (n > 0) {
		*path = out;
		*len = (uint32_t)n;
	}
}

/*
 * If @path (absolute, normalised) goes through /proc/self/fd/N (or
 * thread-self, or @pid itself) and @p's fd N has a known path, write the
 * path it names into @out and return it; else NULL.  glibc before 2.39
 * reaches a file that way, e.g. chmod without following a symlink: an
 * O_PATH open, then fchmodat of /proc/self/fd/N.
 */
static const char *through_fd(const struct rproc *p, uint32_t pid,
			      const char *path, char *out)
{
	static const char *const selves[] = { "self/", "thread-self/" };
	const char *s = path + 6, *fdp, *rest;
	char *end;
	size_t len;
	unsigned long long fd;

	if (strncmp(path, "/proc/", 6))
		return NULL;
	for (size_t i = 0; i < 2 && s == path + 6; i++)
		if (!strncmp(s, selves[i], strlen(selves[i])))
			s += strlen(selves[i]);
	if (s == path + 6) {
		unsigned long long n = strtoull(s, &end, 10);
		if (end == s || *end != '/' || n != pid)
			return NULL;
		s = end + 1;
	}
	if (strncmp(s, "fd/", 3) || s[3] < '0' || s[3] > '9')
		return NULL;
	fd = strtoull(s + 3, &end, 10);
	if ((*end && *end != '/') || fd > INT32_MAX ||
	    !(fdp = fd_path(p, (int64_t)fd)))
		return NULL;
	rest = end;
	len = strlen(fdp);
	if (len + strlen(rest) >= PATHMAP_MAX)
		return NULL;
	memcpy(out, fdp, len);
	strcpy(out + (strcmp(fdp, "/") || !*rest ? len : 0), rest);
	return out;
}

/* Update the fd and cwd state for what @ce did.  0 or -ENOMEM. */
static int follow(struct resolver *r, struct rproc *p, const struct cap_event *ce)
{
	const struct sys_info *si = sys_info(ce->sys);
	bool cloexec = (ce->have & CAP_FLAGS) && (ce->flags & O_CLOEXEC);

	if ((ce->have & CAP_RET) && ce->ret < 0)
		return 0;
	switch (si->kind) {
	case SK_OPEN:
		return set_fd(p, ce->ret, (ce->have & CAP_PATH) &&
			      ce->path[0] == '/' ? ce->path : NULL, cloexec, ce);
	case SK_CLOSE:
		/* Events come in entry-time order, but calls of two threads
		 * can overlap (struct rfd). */
		return close_fd(p, ce->fd, ce);
	case SK_CLOSE_RANGE: {
		/* Unsigned ints in the kernel: a logged -1 is ~0U. */
		uint64_t first = (uint32_t)ce->fd;
		uint64_t last = ce->have & CAP_FD2 ? (uint32_t)ce->fd2 : UINT32_MAX;
		return drop_fds(p, first, last, false, cloexec_range(ce));
	}
	case SK_DUP:
		return set_fd(p, ce->ret, fd_path(p, ce->fd),
			      ce->sys == SYS_DUP3 && cloexec, NULL);
	case SK_FCNTL:
		if (ce->cmd == F_SETFD && (ce->have & CAP_ARG)) {
			struct rfd *f = u64map_get(&p->fds, (uint64_t)ce->fd);
			if (f)
				f->cloexec = ce->arg & FD_CLOEXEC;
			return 0;
		}
		if (ce->cmd != F_DUPFD && ce->cmd != F_DUPFD_CLOEXEC)
			return 0;
		return set_fd(p, ce->ret, fd_path(p, ce->fd),
			      ce->cmd == F_DUPFD_CLOEXEC, NULL);
	case SK_CHDIR:
		return set_cwd(p, ce->path[0] == '/' ? ce->path : NULL);
	case SK_FCHDIR:
		return set_cwd(p, fd_path(p, ce->fd));
	case SK_EXEC: {
		/* A chroot(2) before the exec (not captured) shows now. */
		int err = learn_root(r, p, ce->pid);

		return err ? err : drop_fds(p, 0, UINT64_MAX, true, false);
	}
	case SK_FORK: {
		if (!(ce->have & CAP_CHILD) || ce->child_pid == ce->pid)
			return 0;
		rproc_free(u64map_del(&r->procs, ce->child_pid));
		struct rproc *c = rproc_get(r, ce->child_pid);
		size_t pos = 0;
		struct u64map_slot *s;
		if (!c || set_cwd(c, p->cwd) ||
		    (p->root_known && set_root(c, p->root)))
			return -ENOMEM;
		c->ns = p->ns;
		while ((s = u64map_next(&p->fds, &pos))) {
			const struct rfd *f = s->value;
			if (set_fd(c, (int64_t)s->key, f->path, f->cloexec,
				   NULL))
				return -ENOMEM;
		}
		return 0;
	}
	case SK_EXIT: case SK_EXIT_GROUP:
		rproc_free(u64map_del(&r->procs, ce->pid));
		return 0;
	default:
		return 0;
	}
}

/* A path through /proc/self/fd/N becomes the path of the fd (through_fd),
 * in @buf (PATHMAP_MAX bytes).  True if it did. */
static bool redirect(const struct rproc *p, uint32_t pid, const char **path,
		     uint32_t *len, char *buf)
{
	char tmp[PATHMAP_MAX];

	if ((*path)[0] != '/' || !through_fd(p, pid, *path, tmp))
		return false;
	*len = (uint32_t)strlen(tmp);
	memcpy(buf, tmp, *len + 1);
	*path = buf;
	return true;
}

/*
 * One path of @ce, in @buf: relative ones completed from @base, absolute
 * ones normalised and, for a process with another root, put below it; a
 * path through /proc/self/fd/N is the fd's.  @use_e: relative to e.
 */
static void resolve_one(struct resolver *r, struct rproc *p,
			struct cap_event *ce, const char **path,
			uint32_t *len, bool use_e, char *buf)
{
	char base[PATHMAP_MAX];
	bool absolute = (*path)[0] == '/';
	const char *b = absolute ? "/" : base_of(r, p, ce, use_e, base);

	complete(path, len, b, buf);
	if (redirect(p, ce->pid, path, len, buf) || !absolute ||
	    (*path)[0] != '/')
		return;
	if (!p->root_known && learn_root(r, p, ce->pid))
		return;
	host_view(r, p, path, len, buf);
}

int resolver_apply(struct resolver *r, struct cap_event *ce, char *buf1,
		   char *buf2)
{
	struct rproc *p = rproc_get(r, ce->pid);
	bool at = uses_dirfd(ce->sys);

	if (!p)
		return -ENOMEM;
	/* symlink's first path is the link's content, not a path to look up;
	 * its link path P is relative to d.  P of renameat and linkat is
	 * relative to e.  Paths of calls without dirfd start from the cwd. */
	if ((ce->have & CAP_PATH) && !sys_path_is_content(ce->sys, false))
		resolve_one(r, p, ce, &ce->path, &ce->path_len, false, buf1);
	/* readlink's P is the link's content, not a path either. */
	if ((ce->have & CAP_PATH2) && !sys_path_is_content(ce->sys, true))
		resolve_one(r, p, ce, &ce->path2, &ce->path2_len,
			    ce->sys != SYS_SYMLINKAT && at, buf2);
	return follow(r, p, ce);
}

const char *resolver_fd_path(const struct resolver *r, uint32_t pid,
			     int64_t fd)
{
	struct rproc *p = u64map_get(&r->procs, pid);

	return p ? fd_path(p, fd) : NULL;
}

void resolver_destroy(struct resolver *r)
{
	size_t pos = 0;
	struct u64map_slot *s;

	while (r->procs.slots && (s = u64map_next(&r->procs, &pos)))
		rproc_free(s->value);
	u64map_destroy(&r->procs);
	pos = 0;
	while (r->mnt_ns.slots && (s = u64map_next(&r->mnt_ns, &pos))) {
		mnt_table_free(s->value);
		free(s->value);
	}
	u64map_destroy(&r->mnt_ns);
	mnt_table_free(&r->host);
}
