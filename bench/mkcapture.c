/*
 * mkcapture: writes a synthetic v4 capture log for the generate benchmark.
 *
 * The log imitates a mail archive: threads spread over processes open mail
 * files in hashed directories (/data/mail/ab/cd/N.eml) and application files
 * (/var/lib/app/N.db), read and write them with realistic sizes, stat,
 * fsync, rename .tmp files into place, unlink, mkdir, list directories, and
 * now and then touch sockets, stdin or /proc (events the generator filters).
 * Every process allocates the lowest free fd as the kernel does, times only
 * grow, and a fixed-seed PRNG makes the output the same on every run.
 *
 *   mkcapture [-3] [-l LINES] [-f FILES] [-t THREADS] [-p PROCESSES] [-s SEED] OUTPUT
 *
 * OUTPUT "-" is standard output.  Exactly LINES event lines are written
 * after the header.  -3 writes the same events as a version 3 log, as the
 * original I/O Riot's probe did (docs/capture-format.md): return times
 * since the epoch, results under each operation's v3 key, no mount table
 * (generate then needs --mounts) and no end record.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

#include "ioriot/caplog.h"
#include "ioriot/mounts.h"
#include "ioriot/outbuf.h"

#define KIB 1024u
#define MIB (1024u * 1024u)
#define US 1000u
#define MS 1000000u
#define FIRST_FREE_FD 5		/* 0-2 stdio, 3-4 sockets opened before capture */
#define SOCKET_IN 3
#define SOCKET_OUT 4
#define PATH_BUF 96

struct rng {
	uint64_t s;
};

/* splitmix64: one 64-bit output per call, any seed is fine. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

/* Uniform in [0, n) (n > 0); the modulo bias is irrelevant here. */
static inline uint64_t below(struct rng *r, uint64_t n)
{
	return rnd(r) % n;
}

/* Uniform in [lo, hi]. */
static inline uint64_t between(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + below(r, hi - lo + 1);
}

/* True with probability pct/100. */
static inline bool chance(struct rng *r, unsigned pct)
{
	return below(r, 100) < pct;
}

/* A transfer size from 4 KiB to 1 MiB, small sizes more likely. */
static uint64_t io_size(struct rng *r)
{
	static const unsigned shift[] = { 0, 0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 8 };

	return (uint64_t)4 * KIB << shift[below(r, sizeof(shift) / sizeof(shift[0]))];
}

enum session {
	S_READ,		/* open O_RDONLY, [fstat], reads, [lseek], close */
	S_WRITE,	/* open O_CREAT|O_TRUNC, writes, [fstat], [fsync], close, [rename] */
	S_APPEND,	/* open O_RDWR, lseek end, writes, fsync, close */
	S_DIR,		/* open directory, getdents64 until 0, close */
	S_PROC,		/* open /proc/self/stat, read, close */
};

enum phase { P_IDLE, P_BODY, P_RENAME };

enum todo {
	T_FSTAT = 1 << 0,
	T_FSYNC = 1 << 1,
	T_SEEK_END = 1 << 2,
};

struct thr {
	uint64_t ready;		/* time of its next event */
	uint32_t pid, tid, proc;
	enum phase phase;
	enum session kind;
	unsigned todo;		/* enum todo */
	unsigned left;		/* data operations left in the session */
	bool tmp;		/* writes a .tmp file renamed at the end */
	int fd;
	uint32_t file;
	uint64_t pos;
};

struct proc {
	uint8_t *used;		/* fd table: 1 = open */
	uint32_t cap;
};

struct mk {
	struct rng rng;
	struct outbuf *ob;
	struct thr *thr;
	struct proc *proc;
	uint32_t *heap;		/* thread indices, min-heap by ready time */
	uint32_t nthr, nproc, nfiles;
	uint64_t *size;		/* per file, bytes */
	uint8_t *exists;	/* per file */
	uint64_t archive_dirs;	/* new directories made so far */
	bool v3;		/* write version 3 lines */
	uint64_t epoch_ns;	/* v3: the time origin */
	struct cap_event ev;
};

/* Directory hash of file @n: 256 top directories of 16 each (00..0f). */
static inline uint32_t leaf_of(uint32_t n)
{
	return (uint32_t)(mix64(n) & 0xfff);
}

static inline bool is_app_file(uint32_t n)
{
	return n % 16 == 15;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_hex2(char *p, unsigned v)
{
	static const char hex[] = "0123456789abcdef";

	*p++ = hex[(v >> 4) & 15];
	*p++ = hex[v & 15];
	return p;
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "/data/mail/ab/cd" for leaf @leaf (0..4095); returns the length. */
static uint32_t leaf_path(uint32_t leaf, char *buf)
{
	char *p = put_str(buf, "/data/mail/");

	p = put_hex2(p, leaf >> 4);
	*p++ = '/';
	p = put_hex2(p, leaf & 15);
	*p = '\0';
	return (uint32_t)(p - buf);
}

/* Path of file @n (with ".tmp" appended if @tmp); returns the length. */
static uint32_t file_path(uint32_t n, bool tmp, char *buf)
{
	char *p;

	if (is_app_file(n)) {
		p = put_str(buf, "/var/lib/app/");
		p = put_dec(p, n);
		p = put_str(p, ".db");
	} else {
		p = buf + leaf_path(leaf_of(n), buf);
		*p++ = '/';
		p = put_dec(p, n);
		p = put_str(p, ".eml");
	}
	if (tmp)
		p = put_str(p, ".tmp");
	*p = '\0';
	return (uint32_t)(p - buf);
}

static int fd_alloc(struct proc *p)
{
	for (uint32_t fd = FIRST_FREE_FD; fd < p->cap; fd++) {
		if (!p->used[fd]) {
			p->used[fd] = 1;
			return (int)fd;
		}
	}
	abort();		/* cap covers one fd per thread */
}

static void fd_free(struct proc *p, int fd)
{
	p->used[fd] = 0;
}

/* A file: half the time from the hot 5%, as recent mail is read most. */
static uint32_t pick_file(struct mk *m)
{
	uint32_t hot = m->nfiles / 20 + 1;

	if (chance(&m->rng, 50))
		return (uint32_t)below(&m->rng, hot < m->nfiles ? hot : m->nfiles);
	return (uint32_t)below(&m->rng, m->nfiles);
}

/* A file that does not exist yet if one is found quickly. */
static uint32_t pick_new_file(struct mk *m)
{
	uint32_t n = 0;

	for (int i = 0; i < 8; i++) {
		n = (uint32_t)below(&m->rng, m->nfiles);
		if (!m->exists[n])
			break;
	}
	return n;
}

/* Start the event of thread @t at its ready time. */
static struct cap_event *ev_start(struct mk *m, struct thr *t, enum sys_id sys)
{
	struct cap_event *ev = &m->ev;

	memset(ev, 0, sizeof(*ev));
	ev->time_ns = t->ready;
	ev->pid = t->pid;
	ev->tid = t->tid;
	ev->sys = sys;
	ev->have = CAP_RET | CAP_DUR;
	return ev;
}

static void ev_fd(struct cap_event *ev, int64_t fd)
{
	ev->fd = fd;
	ev->have |= CAP_FD;
}

static void ev_path(struct cap_event *ev, const char *path, uint32_t len)
{
	ev->path = path;
	ev->path_len = len;
	ev->have |= CAP_PATH;
}

static void ev_count(struct cap_event *ev, int64_t count)
{
	ev->count = count;
	ev->have |= CAP_COUNT;
}

/* One v3 number field KEY=VALUE;:, */
static void v3_num(struct outbuf *ob, char key, int64_t v)
{
	outbuf_putc(ob, key);
	outbuf_putc(ob, '=');
	outbuf_i64(ob, v);
	outbuf_puts(ob, ";:,");
}

/*
 * Write @ev as a version 3 line: t is the return time since the epoch, the
 * result goes under the operation's v3 key, paths are raw (mkcapture's need
 * no escaping), a dirfd is left out, and the keys v3 lacks (r, s and m of a
 * stat result) are dropped.
 */
static void write_v3(struct outbuf *ob, const struct cap_event *ev,
		     uint64_t epoch_ns)
{
	const struct sys_info *si = sys_info(ev->sys);
	char rk = si->v3_ret_key;
	bool stat_result = ev->have & CAP_SIZE;

	v3_num(ob, 't', (int64_t)(epoch_ns + ev->time_ns + ev->dur_ns));
	v3_num(ob, 'D', (int64_t)ev->dur_ns);
	outbuf_puts(ob, "i=");
	outbuf_u64(ob, ev->pid);
	outbuf_putc(ob, ':');
	outbuf_u64(ob, ev->tid);
	outbuf_puts(ob, ";:,o=");
	outbuf_puts(ob, si->name);
	outbuf_puts(ob, ";:,");
	if ((ev->have & CAP_FD) && rk != 'd' && si->kind != SK_STATAT)
		v3_num(ob, 'd', ev->fd);
	if (ev->have & CAP_PATH) {
		outbuf_puts(ob, "p=");
		outbuf_put(ob, ev->path, ev->path_len);
		outbuf_puts(ob, ";:,");
	}
	if (ev->have & CAP_PATH2) {
		outbuf_puts(ob, "P=");
		outbuf_put(ob, ev->path2, ev->path2_len);
		outbuf_puts(ob, ";:,");
	}
	if (ev->have & CAP_FLAGS)
		v3_num(ob, 'f', ev->flags);
	if ((ev->have & CAP_MODE) && !stat_result)
		v3_num(ob, 'm', ev->mode);
	if (ev->have & CAP_OFFSET)
		v3_num(ob, 'O', ev->offset);
	if (ev->have & CAP_WHENCE)
		v3_num(ob, 'W', ev->whence);
	if (ev->have & CAP_COUNT)
		v3_num(ob, 'c', ev->count);
	if (rk)
		v3_num(ob, rk, ev->ret);
	outbuf_putc(ob, '\n');
}

/* Write the event with duration @dur; the thread is ready again after
 * @think more ns. */
static void ev_end(struct mk *m, struct thr *t, int64_t ret, uint64_t dur,
		   uint64_t think)
{
	m->ev.ret = ret;
	m->ev.dur_ns = dur;
	if (m->v3)
		write_v3(m->ob, &m->ev, m->epoch_ns);
	else
		caplog_write_event(m->ob, &m->ev);
	t->ready += dur + think;
}

/* Think time inside a session and between sessions. */
static uint64_t think_short(struct mk *m)
{
	return between(&m->rng, 1 * US, 40 * US);
}

static uint64_t think_long(struct mk *m)
{
	if (chance(&m->rng, 10))
		return between(&m->rng, 2 * MS, 30 * MS);
	return between(&m->rng, 20 * US, 1 * MS);
}

/* Time to move @bytes: page cache speed, with an occasional disk miss. */
static uint64_t io_time(struct mk *m, uint64_t bytes, bool write)
{
	uint64_t t = 1 * US + bytes * (write ? 2 : 1) / 3;	/* 1.5 / 3 GB/s */

	if (!write && chance(&m->rng, 5))
		t += between(&m->rng, 100 * US, 8 * MS);
	return t;
}

static void emit_open(struct mk *m, struct thr *t, const char *path,
		      uint32_t len, int64_t flags, int64_t ret)
{
	struct cap_event *ev = ev_start(m, t, SYS_OPENAT);

	ev_fd(ev, AT_FDCWD);
	ev_path(ev, path, len);
	ev->flags = flags;
	ev->have |= CAP_FLAGS;
	if (flags & O_CREAT) {
		ev->mode = 0644;
		ev->have |= CAP_MODE;
	}
	ev_end(m, t, ret, between(&m->rng, 2 * US, 25 * US), think_short(m));
}

/* Open @path for session @kind; on failure the thread stays idle. */
static void start_session(struct mk *m, struct thr *t, enum session kind,
			  const char *path, uint32_t len, int64_t flags,
			  bool ok)
{
	struct proc *p = &m->proc[t->proc];

	if (!ok) {
		emit_open(m, t, path, len, flags, -ENOENT);
		t->ready += think_long(m);
		return;
	}
	t->fd = fd_alloc(p);
	emit_open(m, t, path, len, flags, t->fd);
	t->kind = kind;
	t->phase = P_BODY;
	t->pos = 0;
	t->todo = 0;
}

static void begin_read(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t n = pick_file(m);
	uint32_t len = file_path(n, false, path);

	t->file = n;
	start_session(m, t, S_READ, path, len, O_RDONLY | O_CLOEXEC,
		      m->exists[n]);
	if (t->phase != P_BODY)
		return;
	t->left = (unsigned)between(&m->rng, 1, 8);
	if (chance(&m->rng, 50))
		t->todo |= T_FSTAT;
}

static void begin_write(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t n = pick_new_file(m);
	bool tmp = !is_app_file(n) && chance(&m->rng, 50);
	uint32_t len = file_path(n, tmp, path);

	t->file = n;
	t->tmp = tmp;
	start_session(m, t, S_WRITE, path, len,
		      O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, true);
	if (!tmp) {
		m->exists[n] = 1;
		m->size[n] = 0;
	}
	t->left = (unsigned)between(&m->rng, 1, 6);
	if (chance(&m->rng, 30))
		t->todo |= T_FSTAT;
	if (tmp || chance(&m->rng, 40))
		t->todo |= T_FSYNC;
}

static void begin_append(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t n = pick_file(m);
	uint32_t len = file_path(n, false, path);

	t->file = n;
	start_session(m, t, S_APPEND, path, len, O_RDWR | O_CLOEXEC,
		      m->exists[n]);
	if (t->phase != P_BODY)
		return;
	t->left = (unsigned)between(&m->rng, 1, 2);
	t->todo = T_SEEK_END | T_FSYNC;
}

static void begin_dir(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t len;

	if (chance(&m->rng, 10)) {
		len = (uint32_t)(put_str(path, "/var/lib/app") - path);
		path[len] = '\0';
	} else {
		len = leaf_path((uint32_t)below(&m->rng, 4096), path);
	}
	start_session(m, t, S_DIR, path, len,
		      O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, true);
	t->left = 2;
}

static void begin_proc(struct mk *m, struct thr *t)
{
	static const char path[] = "/proc/self/stat";

	start_session(m, t, S_PROC, path, sizeof(path) - 1,
		      O_RDONLY | O_CLOEXEC, true);
	t->left = 1;
}

/* stat or newfstatat of a file, found or not. */
static void do_stat(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t n = pick_file(m);
	uint32_t len = file_path(n, false, path);
	bool at = chance(&m->rng, 60);
	struct cap_event *ev = ev_start(m, t, at ? SYS_NEWFSTATAT : SYS_STAT);

	if (at)
		ev_fd(ev, AT_FDCWD);
	ev_path(ev, path, len);
	if (at) {
		ev->flags = 0;
		ev->have |= CAP_FLAGS;
	}
	if (m->exists[n]) {
		ev->size = m->size[n];
		ev->mode = S_IFREG | 0644;
		ev->have |= CAP_SIZE | CAP_MODE;
	}
	ev_end(m, t, m->exists[n] ? 0 : -ENOENT,
	       between(&m->rng, 1 * US, 6 * US), think_long(m));
}

static void do_unlink(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t n = (uint32_t)below(&m->rng, m->nfiles);
	uint32_t len = file_path(n, false, path);
	struct cap_event *ev = ev_start(m, t, SYS_UNLINK);
	bool found = m->exists[n];

	ev_path(ev, path, len);
	m->exists[n] = 0;
	ev_end(m, t, found ? 0 : -ENOENT, between(&m->rng, 8 * US, 60 * US),
	       think_long(m));
}

/* mkdir -p of a mail directory (EEXIST), or a new archive directory. */
static void do_mkdir(struct mk *m, struct thr *t)
{
	char path[PATH_BUF];
	uint32_t len;
	int64_t ret = -EEXIST;

	if (chance(&m->rng, 25)) {
		char *p = put_str(path, "/data/archive/");
		p = put_dec(p, m->archive_dirs++);
		*p = '\0';
		len = (uint32_t)(p - path);
		ret = 0;
	} else {
		len = leaf_path((uint32_t)below(&m->rng, 4096), path);
	}
	struct cap_event *ev = ev_start(m, t, SYS_MKDIR);
	ev_path(ev, path, len);
	ev->mode = 0755;
	ev->have |= CAP_MODE;
	ev_end(m, t, ret, between(&m->rng, 5 * US, 40 * US), think_long(m));
}

/* I/O on stdin, stderr or a socket: fds the capture never saw opened. */
static void do_unknown_fd(struct mk *m, struct thr *t)
{
	unsigned what = (unsigned)below(&m->rng, 4);
	struct cap_event *ev;
	int64_t ret;

	if (what == 0) {
		ev = ev_start(m, t, SYS_READ);
		ev_fd(ev, 0);
		ev_count(ev, 4 * KIB);
		ret = -EAGAIN;
	} else if (what == 1) {
		ev = ev_start(m, t, SYS_WRITE);
		ev_fd(ev, 2);
		ret = (int64_t)between(&m->rng, 40, 200);
		ev_count(ev, ret);
	} else if (what == 2) {
		ev = ev_start(m, t, SYS_READ);
		ev_fd(ev, SOCKET_IN);
		ev_count(ev, 64 * KIB);
		ret = (int64_t)between(&m->rng, 100, 64 * KIB);
	} else {
		ev = ev_start(m, t, SYS_WRITE);
		ev_fd(ev, SOCKET_OUT);
		ret = (int64_t)between(&m->rng, 100, 16 * KIB);
		ev_count(ev, ret);
	}
	ev_end(m, t, ret, between(&m->rng, 1 * US, 30 * US), think_long(m));
}

static void step_idle(struct mk *m, struct thr *t)
{
	unsigned r = (unsigned)below(&m->rng, 100);

	if (r < 50)
		begin_read(m, t);
	else if (r < 62)
		begin_write(m, t);
	else if (r < 67)
		begin_append(m, t);
	else if (r < 79)
		do_stat(m, t);
	else if (r < 83)
		begin_dir(m, t);
	else if (r < 86)
		do_unlink(m, t);
	else if (r < 88)
		do_mkdir(m, t);
	else if (r < 96)
		do_unknown_fd(m, t);
	else
		begin_proc(m, t);
}

static void emit_fstat(struct mk *m, struct thr *t)
{
	struct cap_event *ev = ev_start(m, t, SYS_FSTAT);

	ev_fd(ev, t->fd);
	ev->size = m->size[t->file];
	ev->mode = S_IFREG | 0644;
	ev->have |= CAP_SIZE | CAP_MODE;
	ev_end(m, t, 0, between(&m->rng, 1 * US, 3 * US), think_short(m));
}

static void emit_lseek(struct mk *m, struct thr *t, int64_t off, int whence,
		       int64_t ret)
{
	struct cap_event *ev = ev_start(m, t, SYS_LSEEK);

	ev_fd(ev, t->fd);
	ev->offset = off;
	ev->whence = whence;
	ev->have |= CAP_OFFSET | CAP_WHENCE;
	t->pos = (uint64_t)ret;
	ev_end(m, t, ret, between(&m->rng, 1 * US, 2 * US), think_short(m));
}

/* One read of a S_READ session: sequential, positional, or a rewind. */
static void read_op(struct mk *m, struct thr *t)
{
	uint64_t size = m->size[t->file];
	uint64_t count = io_size(&m->rng);
	unsigned r = (unsigned)below(&m->rng, 100);

	if (r < 8 && t->pos > 0) {
		emit_lseek(m, t, 0, SEEK_SET, 0);
		return;
	}
	bool positional = r < 35;
	uint64_t off = positional ? below(&m->rng, size / (4 * KIB) + 1) * 4 * KIB
				  : t->pos;
	uint64_t got = off < size ? size - off : 0;

	if (got > count)
		got = count;
	struct cap_event *ev = ev_start(m, t, positional ? SYS_PREAD64 : SYS_READ);
	ev_fd(ev, t->fd);
	ev_count(ev, (int64_t)count);
	if (positional) {
		ev->offset = (int64_t)off;
		ev->have |= CAP_OFFSET;
	} else {
		t->pos += got;
		if (got == 0)
			t->left = 1;	/* EOF ends the session */
	}
	t->left--;
	ev_end(m, t, (int64_t)got, io_time(m, got, false), think_short(m));
}

/* One write of a S_WRITE or S_APPEND session. */
static void write_op(struct mk *m, struct thr *t)
{
	uint64_t count = io_size(&m->rng);
	bool positional = t->kind == S_WRITE && t->pos > 0 &&
			  chance(&m->rng, 20);
	uint64_t off = positional ? below(&m->rng, t->pos / (4 * KIB) + 1) * 4 * KIB
				  : t->pos;
	struct cap_event *ev = ev_start(m, t, positional ? SYS_PWRITE64 : SYS_WRITE);

	ev_fd(ev, t->fd);
	ev_count(ev, (int64_t)count);
	if (positional) {
		ev->offset = (int64_t)off;
		ev->have |= CAP_OFFSET;
	} else {
		t->pos += count;
	}
	if (!t->tmp && off + count > m->size[t->file])
		m->size[t->file] = off + count;
	t->left--;
	ev_end(m, t, (int64_t)count, io_time(m, count, true), think_short(m));
}

/* The next operation of an open session; false when only close is left. */
static bool session_op(struct mk *m, struct thr *t)
{
	struct cap_event *ev;

	switch (t->kind) {
	case S_READ:
		if (t->todo & T_FSTAT) {
			t->todo &= ~T_FSTAT;
			emit_fstat(m, t);
			return true;
		}
		if (!t->left)
			return false;
		read_op(m, t);
		return true;
	case S_APPEND:
		if (t->todo & T_SEEK_END) {
			t->todo &= ~T_SEEK_END;
			emit_lseek(m, t, 0, SEEK_END, m->size[t->file]);
			return true;
		}
		/* fall through */
	case S_WRITE:
		if (t->left) {
			write_op(m, t);
			return true;
		}
		if (t->todo & T_FSTAT) {
			t->todo &= ~T_FSTAT;
			emit_fstat(m, t);
			return true;
		}
		if (t->todo & T_FSYNC) {
			t->todo &= ~T_FSYNC;
			ev = ev_start(m, t, SYS_FSYNC);
			ev_fd(ev, t->fd);
			ev_end(m, t, 0, between(&m->rng, 300 * US, 8 * MS),
			       think_short(m));
			return true;
		}
		return false;
	case S_DIR:
		if (!t->left)
			return false;
		ev = ev_start(m, t, SYS_GETDENTS64);
		ev_fd(ev, t->fd);
		ev_count(ev, 32 * KIB);
		t->left--;
		ev_end(m, t, t->left ? (int64_t)between(&m->rng, 48, 2 * KIB) : 0,
		       between(&m->rng, 3 * US, 60 * US), think_short(m));
		return true;
	case S_PROC:
		if (!t->left)
			return false;
		ev = ev_start(m, t, SYS_READ);
		ev_fd(ev, t->fd);
		ev_count(ev, 1 * KIB);
		t->left--;
		ev_end(m, t, (int64_t)between(&m->rng, 250, 350),
		       between(&m->rng, 2 * US, 10 * US), think_short(m));
		return true;
	}
	return false;
}

static void emit_close(struct mk *m, struct thr *t)
{
	struct cap_event *ev = ev_start(m, t, SYS_CLOSE);

	ev_fd(ev, t->fd);
	fd_free(&m->proc[t->proc], t->fd);
	t->fd = -1;
	if (t->tmp) {
		t->phase = P_RENAME;
		ev_end(m, t, 0, between(&m->rng, 1 * US, 4 * US), think_short(m));
	} else {
		t->phase = P_IDLE;
		ev_end(m, t, 0, between(&m->rng, 1 * US, 4 * US), think_long(m));
	}
}

static void emit_rename(struct mk *m, struct thr *t)
{
	char from[PATH_BUF], to[PATH_BUF];
	uint32_t flen = file_path(t->file, true, from);
	uint32_t tlen = file_path(t->file, false, to);
	struct cap_event *ev = ev_start(m, t, SYS_RENAME);

	ev_path(ev, from, flen);
	ev->path2 = to;
	ev->path2_len = tlen;
	ev->have |= CAP_PATH2;
	m->exists[t->file] = 1;
	m->size[t->file] = t->pos;
	t->tmp = false;
	t->phase = P_IDLE;
	ev_end(m, t, 0, between(&m->rng, 10 * US, 50 * US), think_long(m));
}

/* Write the next event of thread @t. */
static void step(struct mk *m, struct thr *t)
{
	switch (t->phase) {
	case P_IDLE:
		step_idle(m, t);
		break;
	case P_BODY:
		if (!session_op(m, t))
			emit_close(m, t);
		break;
	case P_RENAME:
		emit_rename(m, t);
		break;
	}
}

static inline bool before(const struct mk *m, uint32_t a, uint32_t b)
{
	uint64_t ta = m->thr[a].ready, tb = m->thr[b].ready;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct mk *m, uint32_t i)
{
	uint32_t n = m->nthr, *h = m->heap;

	for (;;) {
		uint32_t l = 2 * i + 1, best = i;

		if (l < n && before(m, h[l], h[best]))
			best = l;
		if (l + 1 < n && before(m, h[l + 1], h[best]))
			best = l + 1;
		if (best == i)
			return;
		uint32_t tmp = h[i];
		h[i] = h[best];
		h[best] = tmp;
		i = best;
	}
}

static int setup(struct mk *m, uint32_t files, uint32_t threads,
		 uint32_t procs, uint64_t seed)
{
	uint32_t per_proc = (threads + procs - 1) / procs;

	m->rng.s = seed;
	m->nfiles = files;
	m->nthr = threads;
	m->nproc = procs;
	m->thr = calloc(threads, sizeof(*m->thr));
	m->heap = calloc(threads, sizeof(*m->heap));
	m->proc = calloc(procs, sizeof(*m->proc));
	m->size = calloc(files, sizeof(*m->size));
	m->exists = calloc(files, 1);
	if (!m->thr || !m->heap || !m->proc || !m->size || !m->exists)
		return -ENOMEM;
	for (uint32_t i = 0; i < procs; i++) {
		m->proc[i].cap = FIRST_FREE_FD + per_proc + 1;
		m->proc[i].used = calloc(m->proc[i].cap, 1);
		if (!m->proc[i].used)
			return -ENOMEM;
	}
	for (uint32_t n = 0; n < files; n++) {
		m->exists[n] = chance(&m->rng, 85);
		uint64_t span = (uint64_t)4 * KIB << below(&m->rng, 9);
		uint64_t sz = between(&m->rng, 4 * KIB, span);
		m->size[n] = sz < MIB ? sz : MIB;
	}
	/* Thread i runs in process i % procs; pids are spaced so that
	 * every tid is distinct, and the first thread's tid is the pid. */
	for (uint32_t i = 0; i < threads; i++) {
		struct thr *t = &m->thr[i];

		t->proc = i % procs;
		t->pid = 1000 + t->proc * (per_proc + 1);
		t->tid = t->pid + i / procs;
		t->fd = -1;
		t->ready = 5000000000ULL + between(&m->rng, 0, 2 * MS);
		m->heap[i] = i;
	}
	for (uint32_t i = threads / 2; i-- > 0;)
		sift_down(m, i);
	return 0;
}

static void teardown(struct mk *m)
{
	for (uint32_t i = 0; m->proc && i < m->nproc; i++)
		free(m->proc[i].used);
	free(m->proc);
	free(m->thr);
	free(m->heap);
	free(m->size);
	free(m->exists);
}

static void usage(FILE *out)
{
	fputs("Usage: mkcapture [-3] [-l LINES] [-f FILES] [-t THREADS] [-p PROCESSES]"
	      " [-s SEED] OUTPUT\n"
	      "Write a synthetic v4 capture log of LINES events (default 1000000)\n"
	      "over FILES files (20000), THREADS threads (200) in PROCESSES\n"
	      "processes (20).  -3 writes it as a version 3 log (no mount table:\n"
	      "generate it with --mounts).  OUTPUT - is standard output.\n", out);
}


static int write_log(const char *out_path, uint64_t lines, uint32_t files,
		     uint32_t threads, uint32_t procs, uint64_t seed, bool v3)
{
	struct caplog_header hdr = {
		.version = CAPLOG_VERSION,
		.host = "mail-archive-01",
		.kernel = "6.1.0-synthetic",
		.backend = "mkcapture",
		.start_epoch_ns = 1700000000000000000ULL,
	};
	struct mk m = { 0 };
	int fd = -1, rc = -ENOMEM;

	m.ob = malloc(sizeof(*m.ob));
	hdr.mounts = mounttab_new();
	if (!m.ob || !hdr.mounts || mounttab_add(hdr.mounts, "/", 1, "ext4") ||
	    mounttab_add(hdr.mounts, "/data", 5, "xfs") ||
	    mounttab_add(hdr.mounts, "/proc", 5, "proc") ||
	    setup(&m, files, threads, procs, seed)) {
		fprintf(stderr, "mkcapture: out of memory\n");
		goto out;
	}
	if (strcmp(out_path, "-") == 0) {
		fd = STDOUT_FILENO;
	} else {
		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			rc = -errno;
			fprintf(stderr, "mkcapture: %s: %s\n", out_path, strerror(errno));
			goto out;
		}
	}
	outbuf_init(m.ob, fd);
	m.v3 = v3;
	m.epoch_ns = hdr.start_epoch_ns;
	if (v3)
		outbuf_puts(m.ob, "#|capture_version=3|\n");
	else
		caplog_write_header(m.ob, &hdr);
	for (uint64_t i = 0; i < lines && !m.ob->err; i++) {
		step(&m, &m.thr[m.heap[0]]);
		sift_down(&m, 0);
	}
	/* A complete log ends with its end record, as a capture's does. */
	struct caplog_end end = { .events = lines };
	if (!v3)
		caplog_write_end(m.ob, &end);
	rc = outbuf_flush(m.ob);
	if (fd != STDOUT_FILENO && close(fd) < 0 && !rc)
		rc = -errno;
	if (rc)
		fprintf(stderr, "mkcapture: %s: %s\n", out_path, strerror(-rc));
out:
	teardown(&m);
	mounttab_free(hdr.mounts);
	free(m.ob);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t lines = 1000000, files = 20000, threads = 200, procs = 20;
	uint64_t seed = 42;
	bool v3 = false;
	int c;

	while ((c = getopt(argc, argv, "3l:f:t:p:s:h")) != -1) {
		bool ok = true;

		switch (c) {
		case '3': v3 = true; break;
		case 'l': ok = parse_u64(optarg, 0, UINT64_MAX, &lines); break;
		case 'f': ok = parse_u64(optarg, 1, 1u << 30, &files); break;
		case 't': ok = parse_u64(optarg, 1, 1u << 20, &threads); break;
		case 'p': ok = parse_u64(optarg, 1, 1u << 20, &procs); break;
		case 's': ok = parse_u64(optarg, 0, UINT64_MAX, &seed); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (!ok) {
			fprintf(stderr, "mkcapture: invalid -%c value '%s'\n", c, optarg);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (procs > threads)
		procs = threads;
	return write_log(argv[optind], lines, (uint32_t)files, (uint32_t)threads,
			 (uint32_t)procs, seed, v3) ? 1 : 0;
}
