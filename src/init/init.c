/*
 * init: builds the INIT section of a replay file in fresh sandboxes
 * (init.h).  The calling thread reads the replay file, moves old sandboxes
 * to the trash, opens new ones, then starts one worker thread per sandbox
 * and reports progress while they run.  When init runs as root for another
 * test user, each worker first becomes that user (creds_drop_thread()), so
 * everything it creates is the test user's from the start: no chown by
 * name, and nothing a root-owned path could be swapped for.  Workers enter
 * their sandbox with the test user's own rights (sandbox_enter()) and touch
 * the file system only through directory fds and sandbox_openat(), one
 * component at a time, so a symlink or mount planted below a sandbox
 * cannot lead them out of it.
 *
 * opt->progress is always called from the calling thread: once at the
 * start, about every 100 ms while the workers run, and once at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/creds.h"
#include "ioriot/init.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandbox.h"
#include "ioriot/teststate.h"
#include "ioriot/sandmap.h"

#define CHUNK (1u << 20)		/* bytes per write */
#define BLOCK 4096			/* each gets a unique stamp */
#define NS 1000000000ULL
#define TICK_NS (NS / 10)		/* progress interval */
#define ERRMAX 1024

/* One INIT entry, its path relative to the sandbox root ("" for the root). */
struct item {
	char kind;			/* enum rlog_init_kind */
	int mode;			/* files: or RLOG_NO_MODE */
	uint64_t size;
	size_t rel;			/* offset into the sandbox's names */
	uint64_t lineno;
};

/* State every worker shares with the calling thread. */
struct shared {
	const char *replay;
	uid_t uid;
	gid_t gid;
	bool drop;			/* workers become uid:gid */
	_Atomic uint64_t done;		/* bytes written so far */
	atomic_bool failed;		/* stop early: someone failed */
	pthread_mutex_t lock;		/* guards the rest */
	pthread_cond_t cond;
	size_t running;			/* workers not yet finished */
	int rc;				/* first error wins */
	char err[ERRMAX];
};

/* One sandbox of this host and its worker. */
struct job {
	const char *root;		/* the host sandbox (init_options) */
	char mnt[PATHMAP_MAX];		/* its mountpoint */
	const char *name;		/* the test name, in root */
	int index;
	int fd;				/* the sandbox directory */
	struct item *items;
	size_t n, cap;
	char *names;			/* NUL-terminated relative paths */
	size_t names_len, names_cap;
	bool borrowed;			/* items and names are another copy's */
	uint64_t bytes;			/* what its files need */
	uint64_t xattr_bytes;		/* what its attributes' values need */
	uint64_t dirs, files, links, absent, xattrs;	/* entries done */
	/* Cache of the last parent directory opened. */
	char *parent;
	size_t parent_cap;
	int parent_fd;
	unsigned char *buf;		/* CHUNK bytes of data */
	uint64_t stamp;			/* counts blocks written */
	struct shared *sh;
	pthread_t thread;
	bool started;
};

/* A sandbox of the replay file, and the job of its first copy. */
struct froot {
	const char *root;		/* from the replay header */
	size_t len;
	struct job *job;
};

/* Record the first error; later ones are dropped. */
static void fail(struct shared *sh, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct shared *sh, int rc, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&sh->lock);
	if (!sh->rc) {
		sh->rc = rc;
		va_start(ap, fmt);
		vsnprintf(sh->err, sizeof(sh->err), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&sh->lock);
	atomic_store(&sh->failed, true);
}

/* Report @rc for @it of @j: "FILE:LINE: ROOT/REL: what: strerror". */
static int item_fail(struct job *j, const struct item *it, const char *what,
		     int rc)
{
	const char *rel = j->names + it->rel;

	fail(j->sh, rc, "%s:%llu: %s%s%s: %s: %s", j->sh->replay,
	     (unsigned long long)it->lineno, j->root, *rel ? "/" : "", rel,
	     what, strerror(-rc));
	return rc;
}

/* Queue INIT entry @e, @rel (@len bytes) below the root of @j.  0 or
 * -ENOMEM. */
static int job_add(struct job *j, const struct rlog_entry *e, const char *rel,
		   size_t len)
{
	size_t tlen = e->init_target ? e->init_target_len : 0;
	size_t need = len + 1 + (e->init_target ? tlen + 1 : 0);

	if (j->n == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 64;
		struct item *v = realloc(j->items, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		j->items = v;
		j->cap = cap;
	}
	if (j->names_len + need > j->names_cap) {
		size_t cap = j->names_cap ? 2 * j->names_cap : 4096;
		char *v;

		while (cap < j->names_len + need)
			cap *= 2;
		v = realloc(j->names, cap);
		if (!v)
			return -ENOMEM;
		j->names = v;
		j->names_cap = cap;
	}
	memcpy(j->names + j->names_len, rel, len);
	j->names[j->names_len + len] = '\0';
	if (e->init_target) {
		memcpy(j->names + j->names_len + len + 1, e->init_target, tlen);
		j->names[j->names_len + len + 1 + tlen] = '\0';
	}
	j->items[j->n++] = (struct item){ .kind = (char)e->init_kind,
					  .mode = e->init_mode,
					  .size = e->init_size,
					  .rel = j->names_len,
					  .lineno = e->lineno };
	j->names_len += need;
	return 0;
}

/*
 * Open (or create) directory @name in @dirfd.  Returns the fd or -errno.
 */
static int open_subdir(int dirfd, const char *name)
{
	int fd = sandbox_openat(dirfd, name, O_RDONLY | O_DIRECTORY, 0);

	if (fd == -ENOENT) {
		if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
			return -errno;
		fd = sandbox_openat(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
	}
	return fd;
}

/*
 * Open the directory made of the first @len bytes of @rel below the
 * sandbox, creating what is missing.  Returns an fd the caller must not
 * close (the sandbox fd or the cached parent), or -errno.
 */
static int open_dirs(struct job *j, const char *rel, size_t len)
{
	size_t pos = 0, start, clen;
	int cur = j->fd;

	if (len == 0)
		return j->fd;
	if (j->parent_fd >= 0 && strlen(j->parent) == len &&
	    memcmp(j->parent, rel, len) == 0)
		return j->parent_fd;
	while ((clen = path_next_component(rel, len, &pos, &start))) {
		char comp[256];
		int next;

		if (clen >= sizeof(comp)) {
			next = -ENAMETOOLONG;
		} else {
			memcpy(comp, rel + start, clen);
			comp[clen] = '\0';
			next = open_subdir(cur, comp);
		}
		if (cur != j->fd)
			close(cur);
		if (next < 0)
			return next;
		cur = next;
	}
	if (j->parent_fd >= 0)
		close(j->parent_fd);
	if (len + 1 > j->parent_cap) {
		char *p = realloc(j->parent, len + 1);

		if (!p) {
			close(cur);
			j->parent_fd = -1;
			return -ENOMEM;
		}
		j->parent = p;
		j->parent_cap = len + 1;
	}
	memcpy(j->parent, rel, len);
	j->parent[len] = '\0';
	j->parent_fd = cur;
	return cur;
}

static void forget_parent(struct job *j)
{
	if (j->parent_fd >= 0)
		close(j->parent_fd);
	j->parent_fd = -1;
}

/* Split @rel into the length of its parent and its last component. */
static size_t parent_len(const char *rel, const char **last)
{
	const char *slash = strrchr(rel, '/');

	*last = slash ? slash + 1 : rel;
	return slash ? (size_t)(slash - rel) : 0;
}

/* splitmix64: a stamp that differs in every block and looks random. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Fill the first @len bytes of the buffer with fresh stamps per block, so
 * that no two blocks of a run are equal (no dedup shortcut). */
static void restamp(struct job *j, size_t len)
{
	for (size_t off = 0; off < len; off += BLOCK) {
		uint64_t s = mix(((uint64_t)j->index << 48) ^ j->stamp++);
		size_t n = len - off < sizeof(s) ? len - off : sizeof(s);

		memcpy(j->buf + off, &s, n);
	}
}

static int write_data(struct job *j, int fd, uint64_t size)
{
	while (size) {
		size_t len = size < CHUNK ? (size_t)size : CHUNK, off = 0;

		if (atomic_load_explicit(&j->sh->failed, memory_order_relaxed))
			return -ECANCELED;
		restamp(j, len);
		while (off < len) {
			ssize_t n = write(fd, j->buf + off, len - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				return -EIO;
			off += (size_t)n;
			atomic_fetch_add_explicit(&j->sh->done, (uint64_t)n,
						  memory_order_relaxed);
		}
		size -= len;
	}
	return 0;
}

static int do_dir(struct job *j, const struct item *it)
{
	const char *rel = j->names + it->rel;
	int fd = open_dirs(j, rel, strlen(rel));

	if (fd < 0)
		return item_fail(j, it, "cannot create directory", fd);
	j->dirs++;
	return 0;
}

/*
 * Give open file @fd exactly @size bytes of data.  On failure sets *@what
 * to what went wrong.
 */
static int fill_file(struct job *j, int fd, uint64_t size, const char **what)
{
	struct stat st;
	int rc;

	*what = "cannot write file";
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		*what = "exists, but not as a regular file";
		return -EINVAL;
	}
	if (st.st_nlink != 1) {
		*what = "has other hard links, left alone";
		return -EMLINK;
	}
	if (ftruncate(fd, 0) < 0)
		return -errno;
	rc = write_data(j, fd, size);
	if (rc)
		return rc;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size != size) {
		*what = "has the wrong size after writing";
		return -EIO;
	}
	return 0;
}

static int do_file(struct job *j, const struct item *it)
{
	const char *rel = j->names + it->rel, *last, *what;
	size_t plen = parent_len(rel, &last);
	int dfd, fd, rc;

	if (!*rel)
		return item_fail(j, it, "cannot create file", -EISDIR);
	dfd = open_dirs(j, rel, plen);
	if (dfd < 0)
		return item_fail(j, it, "cannot create parent directory", dfd);
	/* No O_TRUNC: a file with another link (a hard link planted by the
	 * sandbox's owner) is refused before it is changed.  O_NONBLOCK
	 * keeps a planted FIFO from blocking the open. */
	fd = sandbox_openat(dfd, last, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);
	if (fd < 0)
		return item_fail(j, it, "cannot create file", fd);
	rc = fill_file(j, fd, it->size, &what);
	/* Permission bits only: the reader refuses more (no set-ID file). */
	if (!rc && it->mode != RLOG_NO_MODE && fchmod(fd, (mode_t)it->mode)) {
		rc = -errno;
		what = "cannot set its mode";
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc == -ECANCELED)
		return rc;		/* another worker failed first */
	if (rc)
		return item_fail(j, it, what, rc);
	j->files++;
	return 0;
}

/* A symlink, its target the string stored after its name (a path in a
 * sandbox, from the reader); never over anything already there. */
static int do_symlink(struct job *j, const struct item *it)
{
	const char *rel = j->names + it->rel, *last;
	const char *target = rel + strlen(rel) + 1;
	size_t plen = parent_len(rel, &last);
	int dfd;

	if (!*rel)
		return item_fail(j, it, "cannot create symlink", -EISDIR);
	dfd = open_dirs(j, rel, plen);
	if (dfd < 0)
		return item_fail(j, it, "cannot create parent directory", dfd);
	if (symlinkat(target, dfd, last) < 0)
		return item_fail(j, it, "cannot create symlink", -errno);
	j->links++;
	return 0;
}

static int do_absent(struct job *j, const struct item *it)
{
	const char *rel = j->names + it->rel, *last;
	size_t plen = parent_len(rel, &last);
	char *parent;
	int dfd, rc = 0;

	if (!*rel)
		return item_fail(j, it, "cannot remove the sandbox root",
				 -EBUSY);
	parent = strndup(rel, plen);
	if (!parent)
		return item_fail(j, it, "cannot remove", -ENOMEM);
	dfd = plen ? sandbox_openat(j->fd, parent, O_RDONLY | O_DIRECTORY, 0) :
		     j->fd;
	free(parent);
	/* No parent directory: then the path cannot exist either. */
	if (dfd == -ENOENT || dfd == -ENOTDIR) {
		j->absent++;
		return 0;
	}
	if (dfd < 0)
		return item_fail(j, it, "cannot open parent directory", dfd);
	if (unlinkat(dfd, last, 0) < 0) {
		if (errno == EISDIR && unlinkat(dfd, last, AT_REMOVEDIR) == 0)
			forget_parent(j);	/* it may be the cached one */
		else if (errno != ENOENT)
			rc = -errno;
	}
	if (dfd != j->fd)
		close(dfd);
	if (rc)
		return item_fail(j, it, rc == -ENOTEMPTY ?
				 "must not exist, but is a directory that is not empty" :
				 "must not exist, but cannot be removed", rc);
	j->absent++;
	return 0;
}

/*
 * An extended attribute of the file or directory listed before it: its
 * name is stored after its path; its value, @it->size bytes of the data
 * pattern (a value is data, as file contents).  The path is opened as
 * every other, without following a symlink.
 */
static int do_xattr(struct job *j, const struct item *it)
{
	const char *rel = j->names + it->rel, *last;
	const char *name = rel + strlen(rel) + 1;
	size_t plen = parent_len(rel, &last);
	unsigned char none = 0;
	int dfd, fd, rc = 0;

	if (!*rel)
		fd = j->fd;
	else if ((dfd = open_dirs(j, rel, plen)) < 0)
		return item_fail(j, it, "cannot open parent directory", dfd);
	else if ((fd = sandbox_openat(dfd, last, O_RDONLY | O_NONBLOCK, 0)) < 0)
		return item_fail(j, it, "cannot open", fd);
	if (fsetxattr(fd, name, it->size ? j->buf : &none, (size_t)it->size,
		      0) < 0)
		rc = -errno;
	if (fd != j->fd)
		close(fd);
	if (rc)
		return item_fail(j, it, "cannot set extended attribute", rc);
	j->xattrs++;
	return 0;
}

/* A pseudo-random pattern (xorshift64), different per sandbox. */
static void fill_pattern(unsigned char *buf, int index)
{
	uint64_t x = mix((uint64_t)index) | 1;	/* xorshift needs x != 0 */

	for (size_t i = 0; i < CHUNK; i += sizeof(x)) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, sizeof(x));
	}
}

static void *worker(void *arg)
{
	struct job *j = arg;
	struct shared *sh = j->sh;
	char err[PATHMAP_MAX + 256];
	int rc = 0;

	if (sh->drop && (rc = creds_drop_thread(sh->uid, sh->gid))) {
		fail(sh, rc, "%s: cannot become uid %u: %s", j->root,
		     (unsigned)sh->uid, strerror(-rc));
	} else {
		j->fd = sandbox_enter(j->mnt, j->name, sh->uid, err, sizeof(err));
		if (j->fd < 0) {
			rc = j->fd;
			fail(sh, rc, "%s: %s", sh->replay, err);
		}
	}
	if (!rc && (j->bytes || j->xattr_bytes)) {
		j->buf = malloc(CHUNK);
		if (!j->buf) {
			fail(sh, -ENOMEM, "%s: out of memory", j->root);
			rc = -ENOMEM;
		} else {
			fill_pattern(j->buf, j->index);
		}
	}
	for (size_t i = 0; !rc && i < j->n; i++) {
		const struct item *it = &j->items[i];

		if (atomic_load_explicit(&sh->failed, memory_order_relaxed))
			break;
		switch (it->kind) {
		case RLOG_INIT_DIR:
			rc = do_dir(j, it);
			break;
		case RLOG_INIT_FILE:
			rc = do_file(j, it);
			break;
		case RLOG_INIT_SYMLINK:
			rc = do_symlink(j, it);
			break;
		case RLOG_INIT_XATTR:
			rc = do_xattr(j, it);
			break;
		default:
			rc = do_absent(j, it);
			break;
		}
	}
	forget_parent(j);
	/* Leave no dirty data behind to be written back during the replay. */
	if (!rc && j->bytes && !atomic_load(&sh->failed) && syncfs(j->fd) < 0)
		fail(sh, -errno, "%s: syncfs: %s", j->root, strerror(errno));
	pthread_mutex_lock(&sh->lock);
	sh->running--;
	pthread_cond_signal(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

/* The file's sandbox whose root is the longest prefix of @path, or
 * NULL. */
static const struct froot *froot_for(const struct froot *froots, size_t n,
				     const char *path, size_t len)
{
	const struct froot *best = NULL;

	for (size_t i = 0; i < n; i++) {
		if (path_is_below(path, len, froots[i].root, froots[i].len) &&
		    (!best || froots[i].len > best->len))
			best = &froots[i];
	}
	return best;
}

/*
 * Read the INIT section into the jobs.  Stops at the first operation.
 * Returns 0 or -errno with the message in @err.
 */
static int read_init(struct rlog_reader *r, const char *replay,
		     const struct froot *froots, size_t n, uint64_t *total,
		     char *err, size_t errlen)
{
	struct rlog_entry e;
	int rc;

	while ((rc = rlog_next(r, &e, err, errlen)) == 1) {
		if (e.type != RLOG_ENTRY_INIT)
			break;

		const char *p = e.init_path;
		size_t len = e.init_path_len;
		const struct froot *f = froot_for(froots, n, p, len);
		struct job *j;

		if (!f) {	/* the reader makes sure there is one */
			snprintf(err, errlen,
				 "%s:%llu: INIT path is in no sandbox", replay,
				 (unsigned long long)e.lineno);
			return -EPROTO;
		}
		j = f->job;
		p += f->len;
		len -= f->len;
		if (len) {
			p++;		/* the '/' after the root */
			len--;
		}
		if (job_add(j, &e, p, len) < 0) {
			snprintf(err, errlen, "%s: out of memory", replay);
			return -ENOMEM;
		}
		if (e.init_kind == RLOG_INIT_XATTR)
			j->xattr_bytes += e.init_size;
		if (e.init_kind == RLOG_INIT_FILE) {
			if (*total + e.init_size < *total) {
				snprintf(err, errlen,
					 "%s:%llu: INIT sizes add up to more than 2^64 bytes",
					 replay, (unsigned long long)e.lineno);
				return -EFBIG;
			}
			j->bytes += e.init_size;
			*total += e.init_size;
		}
	}
	return rc < 0 ? rc : 0;
}

/* Move each old sandbox to the trash and make a fresh one, the test
 * user's. */
static int open_sandboxes(struct job *jobs, size_t n,
			  const struct init_options *opt, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		char *mnt = jobs[i].mnt;
		const char *name;
		int rc = sandbox_split(jobs[i].root, mnt, &name);

		if (rc) {
			snprintf(err, errlen,
				 "%s: sandbox %s is not <mountpoint>/%s/NAME",
				 opt->replay_path, jobs[i].root, SANDBOX_DIR);
			return rc;
		}
		rc = sandbox_trash(mnt, name, err, errlen);
		if (rc)
			return rc;
		jobs[i].name = name;
		rc = sandbox_open(mnt, name, opt->uid, opt->gid, err, errlen);
		if (rc < 0)
			return rc;
		close(rc);	/* each worker enters as the test user */
	}
	return 0;
}

static void report(const struct init_options *opt, struct shared *sh,
		   uint64_t total)
{
	if (opt->progress)
		opt->progress(opt->progress_ctx, atomic_load(&sh->done), total);
}

/* Run the workers; the calling thread reports progress until all end. */
static int run_jobs(struct job *jobs, size_t n, const struct init_options *opt,
		    struct shared *sh, uint64_t total)
{
	pthread_condattr_t ca;
	uint64_t next;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&sh->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rc) {
		fail(sh, -rc, "%s: cannot set up the workers: %s",
		     opt->replay_path, strerror(rc));
		return -rc;
	}
	report(opt, sh, total);
	pthread_mutex_lock(&sh->lock);
	for (size_t i = 0; i < n; i++) {
		rc = pthread_create(&jobs[i].thread, NULL, worker, &jobs[i]);
		if (rc) {
			pthread_mutex_unlock(&sh->lock);
			fail(sh, -rc, "%s: cannot start a thread: %s",
			     opt->replay_path, strerror(rc));
			pthread_mutex_lock(&sh->lock);
			break;
		}
		jobs[i].started = true;
		sh->running++;
	}
	next = clock_ns(CLOCK_MONOTONIC) + TICK_NS;
	while (sh->running) {
		struct timespec ts = { .tv_sec = (time_t)(next / NS),
				       .tv_nsec = (long)(next % NS) };

		if (pthread_cond_timedwait(&sh->cond, &sh->lock, &ts) !=
		    ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&sh->lock);
		report(opt, sh, total);
		next = clock_ns(CLOCK_MONOTONIC) + TICK_NS;
		pthread_mutex_lock(&sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
	}
	pthread_cond_destroy(&sh->cond);
	report(opt, sh, total);
	return sh->rc;
}

/*
 * The jobs of @host (@copies sets of @h's sandboxes, each set in header
 * order): one per distinct host sandbox, in @jobs (room for all), their
 * number in *@n.  @froots gets the header's distinct sandboxes, each with
 * the job of its first copy, their number in *@nf.  Every copy's set
 * gives the same number of jobs (a copy differs only in its NAME.k).
 */
static void plan_jobs(const struct rlog_header *h, char *const *host,
		      size_t copies, struct shared *sh, struct job *jobs,
		      size_t *n, struct froot *froots, size_t *nf)
{
	size_t ns = h->nsandboxes;

	*n = *nf = 0;
	for (size_t c = 0; c < copies; c++) {
		size_t first = *n;

		for (size_t i = 0; i < ns; i++) {
			const char *hr = host[c * ns + i];
			struct job *j = NULL;
			bool known = false;

			for (size_t k = first; k < *n && !j; k++)
				if (!strcmp(jobs[k].root, hr))
					j = &jobs[k];
			if (!j) {
				j = &jobs[(*n)++];
				*j = (struct job){ .root = hr,
						   .index = (int)(j - jobs),
						   .fd = -1, .parent_fd = -1,
						   .sh = sh };
			}
			for (size_t k = 0; c == 0 && k < *nf && !known; k++)
				known = !strcmp(froots[k].root, h->sandboxes[i]);
			if (c == 0 && !known)	/* listed twice: one sandbox */
				froots[(*nf)++] = (struct froot){
					.root = h->sandboxes[i],
					.len = strlen(h->sandboxes[i]),
					.job = j };
		}
	}
}

/*
 * The copies after the first take the INIT entries the first copy's jobs
 * (@per of the @n @jobs) read; *@total grows to the bytes of all.  0 or
 * -EFBIG with a message.
 */
static int share_items(struct job *jobs, size_t n, size_t per,
		       uint64_t *total, const char *replay, char *err,
		       size_t errlen)
{
	uint64_t one = *total;

	for (size_t k = per; k < n; k++) {
		const struct job *from = &jobs[k % per];

		if (*total + one < *total) {
			snprintf(err, errlen, "%s: INIT sizes of the copies "
				 "add up to more than 2^64 bytes", replay);
			return -EFBIG;
		}
		if (k % per == 0)
			*total += one;
		jobs[k].items = from->items;
		jobs[k].n = from->n;
		jobs[k].names = from->names;
		jobs[k].bytes = from->bytes;
		jobs[k].xattr_bytes = from->xattr_bytes;
		jobs[k].borrowed = true;
	}
	return 0;
}

/* Whether root @i of @host names one before it (a file may list a
 * sandbox twice). */
static bool seen_before(char *const *host, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(host[j], host[i]))
			return true;
	return false;
}

/*
 * Lock the tests of the @n sandbox roots @host (teststate.h), their lock
 * fds into @locks, and record each as being built.  0 or -errno with a
 * message (-EBUSY: another init or replay of one runs).
 */
static int begin_tests(char *const *host, size_t n, int *locks, char *err,
		       size_t errlen)
{
	char mnt[PATHMAP_MAX];
	const char *name;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		if (seen_before(host, i))
			continue;
		rc = sandbox_split(host[i], mnt, &name);
		if (rc) {
			snprintf(err, errlen, "%s: not a sandbox root", host[i]);
			break;
		}
		locks[i] = teststate_lock(mnt, name, err, errlen);
		if (locks[i] < 0)
			rc = locks[i];
		else
			rc = teststate_set(mnt, name, TEST_STATE_INIT, err,
					   errlen);
	}
	return rc;
}

/* Record the tests of the @n roots @host as built whole.  0 or -errno
 * with a message. */
static int end_tests(char *const *host, size_t n, char *err, size_t errlen)
{
	char mnt[PATHMAP_MAX];
	const char *name;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++)
		rc = sandbox_split(host[i], mnt, &name) ? -EINVAL :
		     teststate_set(mnt, name, TEST_STATE_READY, err, errlen);
	return rc;
}

int init_run(const struct init_options *opt, struct init_summary *sum,
	     char *err, size_t errlen)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), total = 0;
	struct shared sh = { .replay = opt->replay_path, .uid = opt->uid,
			     .gid = opt->gid,
			     .drop = geteuid() == 0 && opt->uid != 0,
			     .lock = PTHREAD_MUTEX_INITIALIZER };
	size_t copies = opt->copies ? opt->copies : 1;
	const struct rlog_header *h;
	struct rlog_reader *r = opt->reader;
	struct froot *froots = NULL;
	struct job *jobs = NULL;
	char *const *host;
	size_t n = 0, nf = 0;
	int *locks = NULL;
	int rc;

	memset(sum, 0, sizeof(*sum));
	if (geteuid() != 0 && opt->uid != geteuid()) {
		snprintf(err, errlen, "%s: init creates files owned by uid %u: "
			 "run it as root or as that user", opt->replay_path,
			 (unsigned)opt->uid);
		rlog_close(r);
		return -EPERM;
	}
	if (!r && !(r = rlog_open(opt->replay_path, err, errlen)))
		return -errno;
	h = rlog_header(r);
	host = opt->host_roots ? opt->host_roots : h->sandboxes;
	if (copies > 1 && !opt->host_roots) {
		snprintf(err, errlen, "%s: copies without their sandboxes",
			 opt->replay_path);
		rlog_close(r);
		return -EINVAL;
	}
	jobs = calloc(copies * h->nsandboxes + 1, sizeof(*jobs));
	froots = calloc(h->nsandboxes + 1, sizeof(*froots));
	locks = malloc((copies * h->nsandboxes + 1) * sizeof(*locks));
	for (size_t i = 0; locks && i < copies * h->nsandboxes; i++)
		locks[i] = -1;
	if (!jobs || !froots || !locks) {
		snprintf(err, errlen, "%s: out of memory", opt->replay_path);
		rc = -ENOMEM;
		goto out;
	}
	plan_jobs(h, host, copies, &sh, jobs, &n, froots, &nf);
	/* Two sandboxes in one (--map): their paths must not meet. */
	rc = sandmap_shared(h->sandboxes, host, h->nsandboxes) ?
	     sandmap_check_collisions(opt->replay_path, host, err, errlen) : 0;
	/* The whole INIT section is read before anything is moved, so that a
	 * damaged file leaves the old sandboxes alone. */
	if (!rc)
		rc = read_init(r, opt->replay_path, froots, nf, &total, err,
			       errlen);
	if (!rc)
		rc = share_items(jobs, n, n / copies, &total,
				 opt->replay_path, err, errlen);
	/* Locked, and marked half built until every sandbox is whole. */
	if (!rc)
		rc = begin_tests(host, copies * h->nsandboxes, locks, err,
				 errlen);
	if (!rc)
		rc = open_sandboxes(jobs, n, opt, err, errlen);
	if (!rc) {
		rc = run_jobs(jobs, n, opt, &sh, total);
		if (rc)
			snprintf(err, errlen, "%s", sh.err);
	}
	if (!rc)
		rc = end_tests(host, copies * h->nsandboxes, err, errlen);
	sum->sandboxes = n;
	for (size_t i = 0; i < n; i++) {
		sum->dirs += jobs[i].dirs;
		sum->files += jobs[i].files;
		sum->links += jobs[i].links;
		sum->absent += jobs[i].absent;
		sum->xattrs += jobs[i].xattrs;
		if (jobs[i].fd >= 0)
			close(jobs[i].fd);
		if (!jobs[i].borrowed) {
			free(jobs[i].items);
			free(jobs[i].names);
		}
		free(jobs[i].parent);
		free(jobs[i].buf);
	}
	sum->bytes = atomic_load(&sh.done);
out:
	sum->duration_ns = clock_ns(CLOCK_MONOTONIC) - start;
	for (size_t i = 0; locks && i < copies * h->nsandboxes; i++)
		if (locks[i] >= 0)
			close(locks[i]);
	free(locks);
	free(froots);
	free(jobs);
	rlog_close(r);
	return rc;
}
