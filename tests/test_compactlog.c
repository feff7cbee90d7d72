/*
 * Tests of the compact capture log and the log's limits: a .zst log
 * written by the capture's log writer (frames of whole lines) and read
 * back by the caplog reader and by generate like its text; a .zst log cut
 * short or damaged, read up to there with a warning; --max-size and
 * --min-free ending a text or .zst log cleanly (library and binary); and
 * a real BPF capture of one workload to .zst and to text, event for event.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/caplog.h"
#include "ioriot/capture.h"
#include "ioriot/generate.h"
#include "ioriot/linereader.h"
#include "ioriot/log.h"
#include "ioriot/rlog.h"
#include "ioriot/zstdio.h"
#include "testutil.h"

#define ERRLEN 4096

/* ---- helpers ---------------------------------------------------------- */

/* What a reader found in a log. */
struct readout {
	struct cap_event *ev;	/* paths strdup'ed */
	size_t n;
	uint64_t bad[CAPLOG_BAD_COUNT];
	bool have_end;
	struct caplog_end end;
};

/* Read every event of @path; the reader must open it and reach its end. */
static void read_all(const char *path, struct readout *ro)
{
	char err[ERRLEN];
	struct caplog_reader *rd = caplog_open(path, err, sizeof(err));
	struct cap_event ev;
	size_t cap = 0;
	int rc;

	ck_assert_msg(rd, "caplog_open(%s): %s", path, err);
	memset(ro, 0, sizeof(*ro));
	while ((rc = caplog_next(rd, &ev)) == 1) {
		if (ro->n == cap) {
			cap = cap ? 2 * cap : 1024;
			ro->ev = realloc(ro->ev, cap * sizeof(*ro->ev));
			ck_assert(ro->ev);
		}
		if (ev.path)
			ev.path = strdup(ev.path);
		if (ev.path2)
			ev.path2 = strdup(ev.path2);
		ro->ev[ro->n++] = ev;
	}
	ck_assert_msg(rc == 0, "%s: caplog_next: %d", path, rc);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ro->bad[why] = caplog_bad(rd, why);
	const struct caplog_end *end = caplog_end_record(rd);
	ro->have_end = end != NULL;
	if (end)
		ro->end = *end;
	caplog_close(rd);
}

static void readout_free(struct readout *ro)
{
	for (size_t i = 0; i < ro->n; i++) {
		free((char *)ro->ev[i].path);
		free((char *)ro->ev[i].path2);
	}
	free(ro->ev);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* @a and @b hold the same operations with the same arguments and
 * results; with @exact, the same times and ids too. */
static bool same_event(const struct cap_event *a, const struct cap_event *b,
		       bool exact)
{
	if (exact && (a->time_ns != b->time_ns || a->dur_ns != b->dur_ns ||
		      a->pid != b->pid || a->tid != b->tid))
		return false;
	/* Two captures: a wait for a CPU (R, written where above 0) is the
	 * host's timing, as the times are. */
	unsigned timing = exact ? 0 : CAP_RUNQ;

	return a->sys == b->sys && ((a->have ^ b->have) & ~timing) == 0 &&
	       a->ret == b->ret &&
	       a->fd == b->fd && a->fd2 == b->fd2 && a->flags == b->flags &&
	       a->mode == b->mode && a->offset == b->offset &&
	       a->count == b->count && a->whence == b->whence &&
	       a->size == b->size && same_str(a->path, b->path) &&
	       same_str(a->path2, b->path2);
}

/* Events and process records: what the end record's events counts. */
static uint64_t count_events(const struct readout *ro)
{
	uint64_t events = 0;

	for (size_t i = 0; i < ro->n; i++)
		events += ro->ev[i].sys != SYS_CWD && ro->ev[i].sys != SYS_OPENFD &&
			  ro->ev[i].sys != SYS_LOST;
	return events;
}

/* A 64-bit LCG: varied, repeatable test data. */
static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 17;
}

/*
 * Event @i of a synthetic capture: stat calls of paths made of random hex
 * (so that they compress like real paths, not like one repeated line),
 * with an openfd record first.
 */
static void synth_event(uint64_t i, uint64_t *seed, char *path,
			struct cap_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = ev->tid = 4242;
	if (i == 0) {
		ev->sys = SYS_OPENFD;
		ev->fd = 3;
		ev->path = "/srv/data/open";
		ev->path_len = 14;
		ev->have = CAP_FD | CAP_PATH;
		return;
	}
	ev->time_ns = i * 1000 + next_rand(seed) % 1000;
	ev->dur_ns = next_rand(seed) % 5000;
	ev->sys = SYS_NEWFSTATAT;
	ev->ret = -(int64_t)(next_rand(seed) % 3);
	int n = snprintf(path, 64, "/srv/data/%02llx/%06llx.dat",
			 (unsigned long long)(next_rand(seed) % 256),
			 (unsigned long long)(next_rand(seed) % 0xffffff));
	ev->path = path;
	ev->path_len = (uint32_t)n;
	ev->have = CAP_PATH | CAP_RET | CAP_DUR;
}

/*
 * Write a log through the capture's log writer as the backends do: the
 * header, a sync, then up to @n synthetic events, a sync (a frame of a
 * .zst log) every @every events, counting like the backends (capture.h)
 * and stopping at a failed write; then end it, all under a file size
 * limit of @fsize bytes if it is not 0.  Returns capture_log_end()'s
 * result, the counts in @sum and, if @frames is not NULL, the file size
 * after each sync (at most @nframes).
 */
static int write_log(const struct capture_options *opt, uint64_t n,
		     uint64_t every, rlim_t fsize, struct capture_summary *sum,
		     char *err, uint64_t *frames, size_t nframes)
{
	struct caplog_header hdr = { .version = 4, .host = "h", .backend = "bpf" };
	struct capture_log *lg = capture_log_open(opt, err, ERRLEN);
	struct rlimit rl, saved;
	uint64_t seed = 7;
	size_t nf = 0;
	char path[64];
	int rc;

	ck_assert_msg(lg, "%s", err);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	rl = saved;
	if (fsize)
		rl.rlim_cur = fsize;
	/* No check from here to the reset: Check's own file would hit the
	 * limit. */
	setrlimit(RLIMIT_FSIZE, &rl);
	memset(sum, 0, sizeof(*sum));
	caplog_write_header(&lg->ob, &hdr);
	for (uint64_t i = 0; i < n && !lg->ob.err; i++) {
		struct cap_event ev;

		if (i % every == 0) {
			capture_log_sync(lg);
			if (frames && nf < nframes)
				frames[nf++] = capture_log_bytes(lg);
			if (lg->ob.err)
				break;
		}
		synth_event(i, &seed, path, &ev);
		caplog_write_event(&lg->ob, &ev);
		if (lg->ob.err)
			sum->lost_disk_full += capture_log_full(lg->ob.err);
		else if (ev.sys == SYS_OPENFD)
			sum->snapshot_fds++;
		else
			sum->events++;
	}
	sum->duration_ns = 1000;
	rc = capture_log_end(lg, sum, err, ERRLEN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	ck_assert_uint_eq(sum->bytes, capture_log_bytes(lg));
	ck_assert_int_eq(capture_log_close(lg), 0);
	return rc;
}

/* The size of the file @path. */
static uint64_t file_size(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* True if the file @path starts with the zstd magic. */
static bool is_zstd(const char *path)
{
	unsigned char head[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	ck_assert_int_ge(fd, 0);
	yes = read(fd, head, 4) == 4 && zstd_is_stream(head, 4);
	close(fd);
	return yes;
}

/*
 * The log @path after a capture stopped early with end record error
 * @error: the reader finds every event its end record counts, no bad
 * line, and @sum's counts; generate reads it as a complete log.
 */
static void check_stopped_log(const char *path, const char *error,
			      const struct capture_summary *sum)
{
	struct readout ro;
	char err[ERRLEN];

	read_all(path, &ro);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(ro.bad[why] == 0, "%s: %s", path,
			      caplog_bad_name(why));
	ck_assert_msg(ro.have_end, "%s: no end record", path);
	ck_assert_str_eq(ro.end.error, error);
	ck_assert_uint_eq(ro.end.events, count_events(&ro));
	ck_assert_uint_eq(ro.end.events, sum->events);
	ck_assert_uint_eq(ro.end.lost_disk_full, sum->lost_disk_full);
	ck_assert_uint_gt(sum->lost_disk_full, 0);
	ck_assert_uint_gt(sum->events, 0);
	readout_free(&ro);

	struct gen_options go = { .capture_path = path, .name = "test",
				  .user = "u" };
	struct gen_summary gs;
	char *dir = tu_scratch();
	char *replay = tu_join(dir, "stopped.replay");
	go.replay_path = replay;
	log_set_level(LOG_ERROR);
	int rc = generate_run(&go, &gs, err, sizeof(err));
	ck_assert_msg(rc == 0 || rc == -ENODATA, "generate: %s", err);
	ck_assert(gs.have_end && !gs.end_missing);
	ck_assert_str_eq(gs.end.error, error);
	free(replay);
	free(dir);
}

/* A tmpfs of @size at the new directory @dir, in a mount namespace of
 * this (forked) test process.  False, with a note, if it cannot be. */
static bool small_tmpfs(const char *dir, const char *size)
{
	char opts[32];

	snprintf(opts, sizeof(opts), "size=%s", size);
	if (geteuid() != 0 || mkdir(dir, 0755) < 0 ||
	    unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, opts) < 0) {
		printf("compactlog: test skipped: no tmpfs: %s\n",
		       geteuid() ? "not root" : strerror(errno));
		return false;
	}
	return true;
}

/* ---- generate reads .zst as text -------------------------------------- */

/* Captures of tests/data/generate with a mount table (v4). */
static const char *const gen_logs[] = {
	"dirfds", "fdops", "fork", "mmapio", "openfd", "paths", "rename",
	"uring",
};

/* Compress the file @in into @out with the capture's writer, a frame
 * every @lines lines. */
static void compress_with_writer(const char *in, const char *out,
				 unsigned lines)
{
	size_t len;
	char *text = tu_read(in, &len), *p = text;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct outbuf *ob = malloc(sizeof(*ob));
	struct log_guard g;
	struct zstd_out *zo;
	unsigned n = 0;

	ck_assert(text && fd >= 0 && ob);
	log_guard_init(&g, fd, 0, 0);
	zo = zstd_out_new(log_guard_write, &g);
	ck_assert(zo);
	outbuf_init(ob, fd);
	outbuf_set_sink(ob, zstd_out_write, zo);
	while (p < text + len) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t l = nl ? (size_t)(nl + 1 - p) : (size_t)(text + len - p);

		outbuf_put(ob, p, l);
		p += l;
		if (++n % lines == 0) {
			ck_assert_int_eq(outbuf_flush(ob), 0);
			ck_assert_int_eq(zstd_out_end_frame(zo), 0);
		}
	}
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(zstd_out_end_frame(zo), 0);
	ck_assert_uint_eq(zstd_out_text_bytes(zo), len);
	ck_assert_uint_eq(zstd_out_committed(zo), g.written);
	zstd_out_free(zo);
	free(ob);
	close(fd);
	free(text);
}

/* Generate @capture into @dir/@name; the replay file without its line 2
 * (which names the capture). */
static char *generate_to(const char *capture, const char *dir,
			 const char *name)
{
	char err[ERRLEN], *replay = tu_join(dir, name), *text, *l2, *l3;
	struct gen_options go = { .capture_path = capture, .name = "test",
				  .user = "tester", .replay_path = replay };
	struct gen_summary gs;
	int rc;

	log_set_level(LOG_ERROR);
	rc = generate_run(&go, &gs, err, sizeof(err));
	ck_assert_msg(rc == 0 || rc == -ENODATA, "generate %s: %s", capture, err);
	text = tu_read(replay, NULL);
	ck_assert(text);
	l2 = strchr(text, '\n');
	ck_assert(l2);
	l3 = strchr(l2 + 1, '\n');
	ck_assert(l3);
	memmove(l2, l3, strlen(l3) + 1);
	free(replay);
	return text;
}

/* Each capture of tests/data/generate compressed by the capture's writer
 * (a frame every 7 lines) and by the zstd program, if there is one,
 * generates the replay file its text does. */
START_TEST(generate_zst_equals_text)
{
	char *dir = tu_scratch(), name[256], *src, *zw, *zc, *want, *got;

	snprintf(name, sizeof(name), "%s/generate/%s.capture", tu_datadir(),
		 gen_logs[_i]);
	src = strdup(name);
	snprintf(name, sizeof(name), "%s.capture.zst", gen_logs[_i]);
	zw = tu_join(dir, name);
	compress_with_writer(src, zw, 7);
	ck_assert(is_zstd(zw));
	want = generate_to(src, dir, "text.replay");
	got = generate_to(zw, dir, "writer.replay");
	ck_assert_str_eq(got, want);
	free(got);

	snprintf(name, sizeof(name), "cli-%s.zst", gen_logs[_i]);
	zc = tu_join(dir, name);
	const char *const zstd[] = { "zstd", "-q", "-f", "-3", src, "-o", zc, NULL };
	if (tu_exec(zstd, true) == 0) {
		got = generate_to(zc, dir, "cli.replay");
		ck_assert_str_eq(got, want);
		free(got);
	} else {
		printf("compactlog: no zstd program: its output not tried\n");
	}
	free(want);
	free(zc);
	free(zw);
	free(src);
	free(dir);
}
END_TEST

/* ---- the decompressing thread ------------------------------------------ */

#define AHEAD_LINES 60000	/* ~3 MiB of text: more than the thread's chunks */

/* Line @i of the read-ahead test's text into @buf. */
static int ahead_line(char *buf, size_t size, unsigned i)
{
	return snprintf(buf, size, "line %u %0*u", i, (int)(i % 61), i);
}

/*
 * A .zst stream, decompressed ahead of the reader by a thread of its own
 * (loop 1) or in the reader's thread (loop 0): every line comes out once,
 * in order, across the chunks; the offset ends at the file's size; a
 * reader that stops early (the thread waiting for a free chunk) or never
 * reads is freed without hanging.
 */
START_TEST(zst_read_ahead)
{
	const bool ahead = _i;
	size_t len = 0, cap = 4096;
	char *dir = tu_scratch(), *text = tu_realloc(NULL, cap), line[128];
	char *src = tu_join(dir, "ahead.txt"), *zst = tu_join(dir, "ahead.zst");
	struct linereader *lr;
	struct line ln;
	struct stat st;
	unsigned i;

	for (i = 0; i < AHEAD_LINES; i++) {
		int n = ahead_line(line, sizeof(line), i);

		if (len + (size_t)n + 1 > cap) {
			cap = 2 * cap;
			text = tu_realloc(text, cap);
		}
		memcpy(text + len, line, (size_t)n);
		len += (size_t)n;
		text[len++] = '\n';
	}
	free(tu_write(dir, "ahead.txt", text, len));
	compress_with_writer(src, zst, 997);
	ck_assert(is_zstd(zst));
	ck_assert_int_eq(stat(zst, &st), 0);

	lr = linereader_open(zst, ahead);
	ck_assert(lr);
	for (i = 0; linereader_next(lr, &ln) == 1; i++) {
		int n = ahead_line(line, sizeof(line), i);

		ck_assert_uint_eq(ln.flags, 0);
		ck_assert_uint_eq(ln.lineno, i + 1);
		ck_assert_uint_eq(ln.len, (size_t)n);
		ck_assert_str_eq(ln.s, line);
	}
	ck_assert_uint_eq(i, AHEAD_LINES);
	ck_assert_uint_eq(linereader_offset(lr), (uint64_t)st.st_size);
	ck_assert_int_eq(linereader_next(lr, &ln), 0);
	linereader_free(lr);

	lr = linereader_open(zst, ahead);
	ck_assert(lr);
	ck_assert_int_eq(linereader_next(lr, &ln), 1);
	ck_assert_str_eq(ln.s, "line 0 0");
	usleep(100 * 1000);		/* the thread fills its chunks and waits */
	linereader_free(lr);

	linereader_free(linereader_open(zst, ahead));
	free(text);
	free(zst);
	free(src);
	free(dir);
}
END_TEST

/* The threads of this process, from /proc/self/task. */
static int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	ck_assert(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

#define BIG_REPLAY_OPS 100000	/* ~4 MiB: more than a read-ahead holds */

/*
 * A compressed replay file is read in the reader's own thread: the replay
 * makes its user namespace after opening the file, which unshare(2)
 * refuses to a process of more than one thread.  The file is larger than
 * a read-ahead thread would decompress before waiting, so such a thread
 * would still be there.
 */
START_TEST(zst_replay_one_thread)
{
	char *dir = tu_scratch(), *text = NULL;
	char *src, *zst = tu_join(dir, "big.replay.zst");
	char err[ERRLEN] = "";
	struct rlog_reader *r;
	struct rlog_entry e;
	size_t len = 0;
	int rc, threads = thread_count();
	FILE *f = open_memstream(&text, &len);

	ck_assert(f);
	fprintf(f, "#|replay_version=1|name=test|user=tester|\n"
		"#|ops=%d|timelines=1|processes=1|duration_ns=%d|\n"
		"#|sandbox=/.ioriot/test|mount=/|fstype=ext4|\n"
		"#INIT\nf 4096 /.ioriot/test/data/f\n#OPS\n"
		"1 5:5 0 1 - openat 3 vfd=1 path=/.ioriot/test/data/f "
		"flags=0x0\n", BIG_REPLAY_OPS + 1, BIG_REPLAY_OPS + 1);
	for (int i = 2; i <= BIG_REPLAY_OPS + 1; i++)
		fprintf(f, "%d 5:5 %d 1 - pread64 4096 fd=1 off=0 count=4096\n",
			i, i);
	fprintf(f, "#END|ops=%d|\n", BIG_REPLAY_OPS + 1);
	ck_assert_int_eq(fclose(f), 0);
	src = tu_write(dir, "big.replay", text, len);
	compress_with_writer(src, zst, 5000);
	ck_assert(is_zstd(zst));
	r = rlog_open(zst, err, sizeof(err));
	ck_assert_msg(r, "%s", err);
	while ((rc = rlog_next(r, &e, err, sizeof(err))) > 0)
		ck_assert_int_eq(thread_count(), threads);
	ck_assert_msg(rc == 0, "%s", err);
	rlog_close(r);
	free(text);
	free(src);
	free(zst);
	free(dir);
}
END_TEST

/* ---- a .zst log cut short or damaged ---------------------------------- */

#define CUT_EVENTS 4000
#define CUT_EVERY 1000		/* events per frame */

/* Copy the first @len bytes of @in to @out, then the @tl bytes @tail. */
static void copy_cut(const char *in, const char *out, uint64_t len,
		     const char *tail, size_t tl)
{
	size_t have;
	char *text = tu_read(in, &have);
	char *dir = strdup(out), *slash = strrchr(dir, '/');

	ck_assert(text && slash && len <= have);
	*slash = '\0';
	text = tu_realloc(text, (size_t)len + tl);
	memcpy(text + len, tail, tl);
	free(tu_write(dir, slash + 1, text, (size_t)len + tl));
	free(dir);
	free(text);
}

/*
 * A .zst log whose last frame is cut short (a crash), or followed by
 * garbage (a damaged disk): the reader reads its text up to there, counts
 * one truncated line, finds no end record, and does not fail; generate
 * reads it and says the log was cut short.
 */
START_TEST(zst_cut_short)
{
	struct capture_options opt = { 0 };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch();
	char *path = tu_join(dir, "io.capture.zst");
	char *cut = tu_join(dir, "cut.capture.zst");
	uint64_t frames[8] = { 0 };
	struct readout full, ro;
	int rc;

	opt.output = path;
	rc = write_log(&opt, CUT_EVENTS, CUT_EVERY, 0, &sum, err, frames, 8);
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert(is_zstd(path));
	read_all(path, &full);
	ck_assert(full.have_end);
	ck_assert_uint_eq(full.end.events, sum.events);
	ck_assert_uint_eq(full.n, CUT_EVENTS);
	/* frames[k]: the header and k frames of events. */
	ck_assert_uint_gt(frames[3], frames[2]);

	/* Cut inside frame 3, whose events are 2000-2999. */
	log_set_level(LOG_ERROR);
	copy_cut(path, cut, frames[3] - 100, "", 0);
	read_all(cut, &ro);
	ck_assert(!ro.have_end);
	ck_assert_uint_eq(ro.bad[CAPLOG_BAD_TRUNCATED], 1);
	ck_assert_uint_ge(ro.n, 2 * CUT_EVERY);
	ck_assert_uint_lt(ro.n, 3 * CUT_EVERY);
	for (size_t i = 0; i < ro.n; i++)
		ck_assert(same_event(&ro.ev[i], &full.ev[i], true));
	readout_free(&ro);

	/* Cut at a frame's end: a valid stream, only the end is missing. */
	copy_cut(path, cut, frames[3], "", 0);
	read_all(cut, &ro);
	ck_assert(!ro.have_end);
	ck_assert_uint_eq(ro.bad[CAPLOG_BAD_TRUNCATED], 0);
	ck_assert_uint_eq(ro.n, 3 * CUT_EVERY);
	readout_free(&ro);

	/* Garbage after frame 3 (zeros, as a crash may leave). */
	copy_cut(path, cut, frames[3], "\0\0\0\0\0\0\0\0garbage", 15);
	read_all(cut, &ro);
	ck_assert(!ro.have_end);
	ck_assert_uint_eq(ro.bad[CAPLOG_BAD_TRUNCATED], 1);
	ck_assert_uint_eq(ro.n, 3 * CUT_EVERY);
	readout_free(&ro);

	/* Generate: no error, the log named as cut short. */
	copy_cut(path, cut, frames[3] - 100, "", 0);
	struct gen_options go = { .capture_path = cut, .name = "test",
				  .user = "u" };
	struct gen_summary gs;
	char *replay = tu_join(dir, "cut.replay");
	go.replay_path = replay;
	rc = generate_run(&go, &gs, err, sizeof(err));
	ck_assert_msg(rc == 0, "generate: %s", err);
	ck_assert(gs.end_missing);
	ck_assert_uint_eq(gs.bad[CAPLOG_BAD_TRUNCATED], 1);
	ck_assert_uint_ge(gs.events, 2 * CUT_EVERY);
	free(replay);
	readout_free(&full);
	free(cut);
	free(path);
	free(dir);
}
END_TEST

/* The warning names the file and the offset, on stderr. */
START_TEST(zst_cut_short_warns)
{
	struct capture_options opt = { 0 };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch(), *out = NULL, *stderr_text = NULL;
	char *path = tu_join(dir, "io.capture.zst");
	char *cut = tu_join(dir, "cut.capture.zst");
	char *replay = tu_join(dir, "cut.replay");
	uint64_t frames[4] = { 0 };
	char want[512];
	int rc;

	opt.output = path;
	rc = write_log(&opt, CUT_EVENTS, CUT_EVERY, 0, &sum, err, frames, 4);
	ck_assert_msg(rc == 0, "%s", err);
	copy_cut(path, cut, frames[3] - 100, "", 0);
	char *const args[] = { "ioriot", "-c", cut, "-r", replay, "-n", "t",
			       "-u", "nobody", NULL };
	rc = tu_run(args, &out, &stderr_text);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, stderr_text);
	snprintf(want, sizeof(want), "%s: the zstd stream ends inside a frame "
		 "at byte %llu: its text is read up to there", cut,
		 (unsigned long long)(frames[3] - 100));
	ck_assert_msg(strstr(stderr_text, want), "stderr: %s\nwant: %s",
		      stderr_text, want);
	ck_assert_msg(strstr(out, "Capture end record: missing"), "%s", out);
	free(out);
	free(stderr_text);
	free(replay);
	free(cut);
	free(path);
	free(dir);
}
END_TEST

/* ---- limits and full disks -------------------------------------------- */

/* RLIMIT_FSIZE (EFBIG) under a .zst log, exact to the byte: the log is
 * cut back frame by frame until the end record's frame fits. */
static const rlim_t zst_fsize_limits[] = { 60, 20000, 65536 + 1000 };

START_TEST(zst_file_size_limit)
{
	struct capture_options opt = { 0 };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch();
	char *path = tu_join(dir, "io.capture.zst");
	uint64_t limit = zst_fsize_limits[_i];
	int rc;

	opt.output = path;
	rc = write_log(&opt, 100000, 500, limit, &sum, err, NULL, 0);
	ck_assert_msg(rc == -EFBIG, "%d: %s", rc, err);
	ck_assert_int_eq(sum.log_full, -EFBIG);
	ck_assert_uint_le(file_size(path), limit);
	ck_assert_uint_eq(file_size(path), sum.bytes);
	if (_i == 0) {
		/* The header's frame does not fit: no log at all. */
		ck_assert_msg(strstr(err, "not even the end record fits"), "%s",
			      err);
		ck_assert_uint_eq(sum.bytes, 0);
	} else {
		ck_assert(is_zstd(path));
		check_stopped_log(path, "EFBIG", &sum);
	}
	free(path);
	free(dir);
}
END_TEST

/* --max-size: a text (_i 0) or .zst (_i 1) log stops within the size,
 * complete, with error=MAX_SIZE. */
START_TEST(max_size_stops)
{
	struct capture_options opt = { .max_size = LOG_GUARD_MIN_SIZE };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch(), want[256];
	char *path = tu_join(dir, _i ? "io.capture.zst" : "io.capture");
	int rc;

	opt.output = path;
	rc = write_log(&opt, 1000000, 500, 0, &sum, err, NULL, 0);
	ck_assert_msg(rc == -EFBIG, "%d: %s", rc, err);
	ck_assert_int_eq(sum.log_stop, LOG_STOP_MAX_SIZE);
	snprintf(want, sizeof(want), "capture log %s: reached --max-size "
		 "(%u bytes): stopped after %llu events", path,
		 (unsigned)LOG_GUARD_MIN_SIZE, (unsigned long long)sum.events);
	ck_assert_str_eq(err, want);
	ck_assert_uint_le(file_size(path), LOG_GUARD_MIN_SIZE);
	/* Stopped near the limit: within the reserve and a frame. */
	ck_assert_uint_gt(file_size(path), LOG_GUARD_MIN_SIZE -
			  LOG_GUARD_RESERVE - (_i ? 40000 : 0));
	ck_assert(is_zstd(path) == (_i == 1));
	check_stopped_log(path, "MAX_SIZE", &sum);
	free(path);
	free(dir);
}
END_TEST

/* --min-free on a 1 MiB tmpfs: a text (_i 0) or .zst (_i 1) log stops
 * before the file system has less than half free, complete, with
 * error=MIN_FREE. */
START_TEST(min_free_stops)
{
	struct capture_options opt = { .min_free_pct = 50 };
	struct capture_summary sum;
	struct statvfs vfs;
	char err[ERRLEN] = "", *dir = tu_scratch(), *mnt = tu_join(dir, "small");
	char *path = tu_join(mnt, _i ? "io.capture.zst" : "io.capture");
	int rc;

	if (!small_tmpfs(mnt, "1m"))
		goto out;
	opt.output = path;
	rc = write_log(&opt, 1000000, 500, 0, &sum, err, NULL, 0);
	ck_assert_msg(rc == -ENOSPC, "%d: %s", rc, err);
	ck_assert_int_eq(sum.log_stop, LOG_STOP_MIN_FREE);
	ck_assert_msg(strstr(err, "its file system would have less than 50% "
			     "free (--min-free): stopped after "), "%s", err);
	ck_assert_int_eq(statvfs(mnt, &vfs), 0);
	ck_assert_uint_ge((uint64_t)vfs.f_bavail * 2, (uint64_t)vfs.f_blocks);
	/* And not far from it: the reserve, a frame, the blocks. */
	ck_assert_uint_gt(file_size(path), 256 * 1024);
	check_stopped_log(path, "MIN_FREE", &sum);
out:
	free(path);
	free(mnt);
	free(dir);
}
END_TEST

/* ---- the binary, with the probe --------------------------------------- */

/*
 * The binary capturing a busy loop into a .zst log with --max-size 256K
 * (_i 0) or, on a 2 MiB tmpfs, --min-free 60 (_i 1): it stops by itself,
 * prints its summary and why it stopped, exits 0 (--max-size) or 1
 * (--min-free), and leaves a complete log.
 */
START_TEST(bpf_limits)
{
	const char *why = tu_cannot_capture();
	char *dir = tu_scratch(), *mnt = tu_join(dir, "small");
	char *path = tu_join(mnt, "io.capture.zst"), *out = NULL, *err = NULL;
	char pid[16];
	pid_t loop;
	int rc, status;

	if (why) {
		printf("compactlog: test bpf_limits skipped: %s\n", why);
		goto out;
	}
	if (_i == 0)
		ck_assert_int_eq(mkdir(mnt, 0755), 0);
	else if (!small_tmpfs(mnt, "2m"))
		goto out;
	loop = tu_busy_loop();
	snprintf(pid, sizeof(pid), "%d", (int)loop);
	char *const args[] = { "ioriot", "-c", path, "-x", pid, "--duration",
			       "60", _i ? "--min-free" : "--max-size",
			       _i ? "60" : "256K", NULL };
	rc = tu_run(args, &out, &err);
	kill(loop, SIGKILL);
	waitpid(loop, &status, 0);
	ck_assert_msg(rc == _i, "exit %d; stdout: %s; stderr: %s", rc, out, err);
	ck_assert_msg(strstr(err, _i ? "would have less than 60% free "
			     "(--min-free): stopped after " :
			     "reached --max-size (262144 bytes): stopped after "),
		      "stderr: %s", err);
	ck_assert_msg(strstr(out, _i ? "Events lost at the stop (--min-free): " :
			     "Events lost at the stop (--max-size): "),
		      "stdout: %s", out);
	ck_assert(is_zstd(path));
	if (_i == 0)
		ck_assert_uint_le(file_size(path), 256 * 1024);

	struct readout ro;
	char want[64];
	read_all(path, &ro);
	ck_assert_msg(ro.have_end, "%s: no end record", path);
	ck_assert_str_eq(ro.end.error, _i ? "MIN_FREE" : "MAX_SIZE");
	ck_assert_uint_eq(ro.end.events, count_events(&ro));
	for (int b = 0; b < CAPLOG_BAD_COUNT; b++)
		ck_assert_msg(ro.bad[b] == 0, "%s", caplog_bad_name(b));
	snprintf(want, sizeof(want), "Events: %llu\n",
		 (unsigned long long)ro.end.events);
	ck_assert_msg(strstr(out, want), "stdout: %s, want %s", out, want);
	readout_free(&ro);
out:
	free(out);
	free(err);
	free(path);
	free(mnt);
	free(dir);
}
END_TEST

/* ---- the same workload captured to text and to .zst ------------------- */

#define WORK_FILES 40

/* The workload: once the go byte comes on @go, files made, written,
 * renamed, stat'ed, read and removed in @dir. */
static void workload(int go, const char *dir)
{
	char a[512], b[512], buf[256], c;
	struct stat st;

	if (read(go, &c, 1) != 1)
		_exit(2);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < WORK_FILES; i++) {
		snprintf(a, sizeof(a), "%s/f%d", dir, i);
		snprintf(b, sizeof(b), "%s/g%d", dir, i);
		int fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, (size_t)(i + 1)) != i + 1 ||
		    close(fd) < 0 || rename(a, b) < 0 || stat(b, &st) < 0)
			_exit(3);
		fd = open(b, O_RDONLY);
		if (fd < 0 || pread(fd, buf, sizeof(buf), 0) != i + 1 ||
		    close(fd) < 0 || unlink(b) < 0)
			_exit(4);
	}
	_exit(0);
}

struct watch {
	pid_t pid;
	int status;
	volatile sig_atomic_t stop;
	int go;
};

/* Ends the capture once the workload has exited. */
static void *watcher(void *arg)
{
	struct watch *w = arg;

	waitpid(w->pid, &w->status, 0);
	usleep(100 * 1000);	/* its last events reach the ring */
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void send_go(void *ctx)
{
	struct watch *w = ctx;

	if (write(w->go, "g", 1) != 1)
		w->go = -1;
}

/* Capture the workload in @work into @log with the probe; its pid. */
static pid_t capture_workload(const char *log, const char *work)
{
	const char *include[] = { work };
	struct watch w = { 0 };
	struct capture_options opt = {
		.output = log, .duration_ns = 30ULL * 1000000000ULL,
		.stop = &w.stop, .ready = send_go, .ready_ctx = &w,
		.filter = { .include = include, .ninclude = 1 },
	};
	struct capture_summary sum;
	char err[ERRLEN] = "";
	pthread_t th;
	int pipefd[2], rc;

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	w.pid = fork();
	ck_assert_int_ge(w.pid, 0);
	if (w.pid == 0) {
		close(pipefd[1]);
		workload(pipefd[0], work);
	}
	close(pipefd[0]);
	w.go = pipefd[1];
	opt.pid = (uint32_t)w.pid;
	ck_assert_int_eq(pthread_create(&th, NULL, watcher, &w), 0);
	rc = capture_run(&opt, &sum, err, sizeof(err));
	close(pipefd[1]);
	if (rc)
		kill(w.pid, SIGKILL);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);
	ck_assert_msg(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0,
		      "workload status 0x%x", w.status);
	ck_assert_uint_eq(sum.lost, 0);
	return w.pid;
}

/* The events of process @pid in @ro, in order, into @out (pointers). */
static size_t events_of(const struct readout *ro, pid_t pid,
			const struct cap_event **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ro->n && n < max; i++)
		if (ro->ev[i].pid == (uint32_t)pid)
			out[n++] = &ro->ev[i];
	return n;
}

/*
 * One workload captured twice by the probe, into a text log and into a
 * .zst log: the workload's events are the same, operation for operation
 * (times and pids aside); the .zst log decompressed by the zstd program
 * is a text log with exactly the events the reader found in it.
 */
START_TEST(bpf_zst_equals_text)
{
	const char *why = tu_cannot_capture();
	char *dir = tu_scratch(), *work = tu_join(dir, "work");
	char *text = tu_join(dir, "io.capture"), *zst = tu_join(dir, "io.capture.zst");
	char *unz = tu_join(dir, "unzstd.capture");
	enum { MAX = 20 * WORK_FILES + 100 };
	const struct cap_event *a[MAX], *b[MAX];
	struct readout rt, rz;
	pid_t pt, pz;

	if (why) {
		printf("compactlog: test bpf_zst_equals_text skipped: %s\n", why);
		goto out;
	}
	ck_assert_int_eq(mkdir(work, 0755), 0);
	pt = capture_workload(text, work);
	pz = capture_workload(zst, work);
	ck_assert(!is_zstd(text) && is_zstd(zst));
	read_all(text, &rt);
	read_all(zst, &rz);
	ck_assert(rt.have_end && rz.have_end);
	size_t nt = events_of(&rt, pt, a, MAX), nz = events_of(&rz, pz, b, MAX);
	/* open, write, close, rename, stat, open, pread, close, unlink. */
	ck_assert_uint_ge(nt, 9 * WORK_FILES);
	ck_assert_uint_eq(nz, nt);
	for (size_t i = 0; i < nt; i++)
		ck_assert_msg(same_event(a[i], b[i], false),
			      "event %zu: %s vs %s", i, sys_info(a[i]->sys)->name,
			      sys_info(b[i]->sys)->name);

	const char *const zstd[] = { "zstd", "-d", "-q", "-f", zst, "-o", unz, NULL };
	if (tu_exec(zstd, true) == 0) {
		struct readout ru;
		read_all(unz, &ru);
		ck_assert(!is_zstd(unz));
		ck_assert_uint_eq(ru.n, rz.n);
		for (size_t i = 0; i < ru.n; i++)
			ck_assert(same_event(&ru.ev[i], &rz.ev[i], true));
		ck_assert(ru.have_end);
		ck_assert_uint_eq(ru.end.events, rz.end.events);
		readout_free(&ru);
	} else {
		printf("compactlog: no zstd program: zstdcat's text not tried\n");
	}
	readout_free(&rt);
	readout_free(&rz);
out:
	free(unz);
	free(zst);
	free(text);
	free(work);
	free(dir);
}
END_TEST

Suite *compactlog_suite(void)
{
	Suite *s = suite_create("compactlog");
	TCase *tc = tcase_create("zst");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, generate_zst_equals_text, 0,
			    sizeof(gen_logs) / sizeof(gen_logs[0]));
	tcase_add_loop_test(tc, zst_read_ahead, 0, 2);
	tcase_add_test(tc, zst_replay_one_thread);
	tcase_add_test(tc, zst_cut_short);
	tcase_add_test(tc, zst_cut_short_warns);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, zst_file_size_limit, 0,
			    sizeof(zst_fsize_limits) / sizeof(zst_fsize_limits[0]));
	tcase_add_loop_test(tc, max_size_stops, 0, 2);
	tcase_add_loop_test(tc, min_free_stops, 0, 2);
	tcase_add_loop_test(tc, bpf_limits, 0, 2);
	tcase_add_test(tc, bpf_zst_equals_text);
	suite_add_tcase(s, tc);
	return s;
}
