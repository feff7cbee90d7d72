/*
 * Tests of the generator (generate_run): golden replay files for small
 * hand-written captures in tests/data/generate/, the well-formedness of
 * what it writes, determinism, the summary counters, and the failure cases
 * (an error, no output file and no temporary file left behind).
 *
 * Each NAME.capture has a NAME.replay next to it that was checked by hand,
 * line by line; NAME.mounts, if present, is the local mount table used for
 * v3 captures.  The "#|source=" header item holds the capture's path, so
 * only that item is left out of the comparison.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/generate.h"
#include "ioriot/log.h"
#include "ioriot/rlog.h"
#include "testutil.h"

#define ERRLEN 8192
#define SOURCE_ITEM "#|source="

static const char *const goldens[] = {
	"fdops",	/* every fd-based operation kind */
	"pathops",	/* every path-based operation kind, creat, chdir */
	"v3basic",	/* an I/O Riot v3 log with a local mount table */
	"fork",		/* inherited fd; close on the last reference */
	"dupexec",	/* dup2 onto an open fd, exec and O_CLOEXEC, exit */
	"openfd",	/* fds open before the capture started */
	"rename",	/* renamed files and directories, over a target */
	"paths",	/* "..", pseudo file systems, sandboxes, mountpoints */
	"mntonly",	/* only a non-root mount used */
	"initsize",	/* INIT file sizes */
	"order",	/* dependencies between timelines */
	"eexist",	/* failures that prove a path exists or not */
	"dirfds",	/* relative paths under a dirfd, second paths too */
	"symlinks",	/* symlink targets: rewritten only into a sandbox */
	"fdreuse",	/* threads: a close overlapping the open that reuses
			 * its fd; an open that began first but got its fd
			 * after another thread's open and close of it; a
			 * close that comes late, after another thread's
			 * open of the number; an fd reused without a close
			 * seen */
	"modes",	/* INIT file modes from stat results, not after a
			 * chmod, not for files the capture created */
	"prelinks",	/* symlinks from before the capture: targets read */
	"uring",	/* io_uring: fixed files, a chain cut by a request not
			 * replayed, a completion before its enter, an SQPOLL
			 * ring, unknown rings and requests */
	"umask",	/* captured umasks carried (not on opens that make
			 * nothing, nor from a line without one); mknod and
			 * bind make their path, EADDRINUSE proves it was
			 * there, ENOENT that its directory was not */
	"mmapio",	/* page records gathered into runs of one stride, one
			 * timeline, one mapping, no gap over 1 ms; pages
			 * of no known mapping; INIT size from the pages;
			 * madvise and msync on a file mapping only */
	"mapexit",	/* mappings an exit and an exec unmap: their munmap
			 * before the close; another process's use of the
			 * file after them waits for them, and for msync */
	"cpu",		/* cpu= from C, with the C and X of events not
			 * written (a dup, a chdir, a call without result,
			 * a page of a run) added to the next; none on a
			 * timeline's first operation or from a log without
			 * the keys; parent= of forked processes and
			 * threads, the nearest ancestor with an operation */
	"futex",	/* sync= and waited= from futex waits and the wakes
			 * that ended them: private and shared futexes, a
			 * wake before its wait in the log, waits that did
			 * not sleep and wakes of nobody */
	"shared",	/* uses of a file (opens, reads, syncs, writes
			 * inside it) wait for its last change only; the
			 * next change waits for each timeline's last use */
	"wake",		/* sync= and waited= from wake records: a wake in
			 * the woken thread's own call orders nothing, the
			 * last of two wakes in a gap orders, both sleeps
			 * wait, a sleep cut at the gap's start, a waker
			 * without operations */
	"probe",	/* probe= from the log's probe cost: its part of
			 * the gap, a call's cost for each event not
			 * written and each call the capture left out (K),
			 * never more than cpu= (a K that would wrap),
			 * none without cpu= */
	"runq",		/* runq= from R: the waits for a CPU of events not
			 * written added to the next, on the operation with
			 * cpu= only, none of 0, a sum held at 2^64 - 1 */
};

#define NGOLDENS (sizeof(goldens) / sizeof(goldens[0]))

static void quiet(void)
{
	log_set_level(LOG_ERROR);
}

/* tests/data/generate/NAME.EXT, malloc'd. */
static char *fixture(const char *name, const char *ext)
{
	char *path;

	ck_assert(asprintf(&path, "%s/generate/%s.%s", tu_datadir(), name,
			   ext) > 0);
	return path;
}

/* Run the generator with test name "test" and user "tester". */
static int run(const char *capture, const char *replay, const char *mounts,
	       struct gen_summary *sum, char *err)
{
	struct gen_options opt = {
		.capture_path = capture,
		.replay_path = replay,
		.name = "test",
		.user = "tester",
		.local_mounts = mounts,
	};

	err[0] = '\0';
	return generate_run(&opt, sum, err, ERRLEN);
}

/* Generate fixture @name into @dir/@out; returns the replay path.  A v4
 * capture carries its own mount table; NAME.mounts serves v3 ones. */
static char *gen_fixture(const char *name, const char *dir, const char *out,
			 struct gen_summary *sum)
{
	char *capture = fixture(name, "capture");
	char *mounts = fixture(name, "mounts");
	char *replay = tu_join(dir, out);
	char err[ERRLEN];
	int rc = run(capture, replay, mounts, sum, err);

	ck_assert_msg(rc == 0, "%s: generate failed (%d): %s", name, rc, err);
	free(capture);
	free(mounts);
	return replay;
}

/* Number of entries in @dir; the name of the first other than @except goes
 * to @other (if any, else ""). */
static int count_entries(const char *dir, const char *except, char *other,
			 size_t otherlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_msg(d, "%s: %s", dir, strerror(errno));
	other[0] = '\0';
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if ((!except || strcmp(de->d_name, except)) && !other[0])
			snprintf(other, otherlen, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* Next line of *@pos (without newline) in @line; false at the end. */
static bool next_line(const char **pos, char *line, size_t size)
{
	const char *s = *pos, *nl;
	size_t len;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	len = nl ? (size_t)(nl - s) : strlen(s);
	snprintf(line, size, "%.*s", (int)len, s);
	*pos = nl ? nl + 1 : s + len;
	return true;
}

/* A "#|source=PATH|rest" line without its PATH item. */
static const char *without_source(const char *line)
{
	if (strncmp(line, SOURCE_ITEM, strlen(SOURCE_ITEM)) != 0)
		return line;
	const char *bar = strchr(line + strlen(SOURCE_ITEM), '|');
	return bar ? bar : "";
}

/*
 * Compare replay file @got with golden file @want line by line, ignoring
 * the path in the source item; fail naming the first differing line.
 */
static void compare_golden(const char *got_path, const char *want_path)
{
	char *got = tu_read(got_path, NULL), *want = tu_read(want_path, NULL);
	char gl[1024], wl[1024];
	const char *gp, *wp;
	int lineno = 0;

	ck_assert_msg(got, "%s: cannot read", got_path);
	ck_assert_msg(want, "%s: cannot read", want_path);
	ck_assert_msg(got[0] && got[strlen(got) - 1] == '\n',
		      "%s: does not end with a newline", got_path);
	gp = got;
	wp = want;
	for (;;) {
		bool hg = next_line(&gp, gl, sizeof(gl));
		bool hw = next_line(&wp, wl, sizeof(wl));

		lineno++;
		if (!hg && !hw)
			break;
		ck_assert_msg(hg && hw && !strcmp(without_source(gl),
						  without_source(wl)),
			      "%s:%d differs from the generated file\n"
			      "  expected: %s\n  got:      %s", want_path,
			      lineno, hw ? wl : "(end of file)",
			      hg ? gl : "(end of file)");
	}
	free(got);
	free(want);
}

/*
 * Read @path back with the replay file reader: every entry must parse, op
 * ids must increase, dependencies must name earlier ops of other
 * timelines, and #END must count the ops.
 */
static void check_wellformed(const char *path)
{
	char err[ERRLEN];
	struct rlog_reader *r = rlog_open(path, err, sizeof(err));
	struct rlog_entry e;
	uint64_t ops = 0, last_id = 0, *tl = NULL;	/* timeline by id */
	int rc;

	ck_assert_msg(r, "%s", err);
	ck_assert_str_eq(rlog_header(r)->name, "test");
	ck_assert_str_eq(rlog_header(r)->user, "tester");
	while ((rc = rlog_next(r, &e, err, sizeof(err))) > 0) {
		const struct rlog_op *op = &e.op;
		unsigned long long ln = (unsigned long long)e.lineno;

		if (e.type != RLOG_ENTRY_OP)
			continue;
		ops++;
		ck_assert_msg(op->id > last_id && op->id < 1000000,
			      "%s:%llu: op id %llu does not follow id %llu",
			      path, ln, (unsigned long long)op->id,
			      (unsigned long long)last_id);
		tl = tu_realloc(tl, (op->id + 1) * sizeof(*tl));
		memset(tl + last_id + 1, 0, (op->id - last_id) * sizeof(*tl));
		tl[op->id] = (uint64_t)op->pid << 32 | op->tid;
		last_id = op->id;
		for (int i = 0; i < op->deps.n; i++) {
			uint64_t dep = op->deps.id[i];

			ck_assert_msg(dep < op->id && tl[dep],
				      "%s:%llu: dependency %llu is no earlier op",
				      path, ln, (unsigned long long)dep);
			ck_assert_msg(tl[dep] != tl[op->id],
				      "%s:%llu: dependency %llu on its own timeline",
				      path, ln, (unsigned long long)dep);
		}
	}
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_uint_eq(rlog_header(r)->ops, ops);
	free(tl);
	rlog_close(r);
}

/* True if @path (@len bytes) is absolute and has no "", "." or ".."
 * component. */
static bool normalised(const char *path, size_t len)
{
	size_t i = 0;

	if (len == 0 || path[0] != '/')
		return false;
	while (i < len) {
		size_t start = ++i;

		while (i < len && path[i] != '/')
			i++;
		if (i == start || (i - start == 1 && path[start] == '.') ||
		    (i - start == 2 && !memcmp(path + start, "..", 2)))
			return false;
	}
	return true;
}

/* True if normalised @path lies in (or is) a sandbox of @hdr. */
static bool in_sandbox(const struct rlog_header *hdr, const char *path,
		       size_t len)
{
	if (!normalised(path, len))
		return false;
	for (size_t i = 0; i < hdr->nsandboxes; i++) {
		size_t sl = strlen(hdr->sandboxes[i]);

		if (len >= sl && !memcmp(path, hdr->sandboxes[i], sl) &&
		    (len == sl || path[sl] == '/'))
			return true;
	}
	return false;
}

/*
 * Every path a replay file names must lie inside a sandbox its header
 * declares: INIT paths, path=, path2= and absolute symlink targets
 * (target=), which the generator rewrites; relative targets are kept
 * only where they stay in their mount (replay-format.md section 6).
 */
static void check_confined(const char *path)
{
	char err[ERRLEN];
	struct rlog_reader *r = rlog_open(path, err, sizeof(err));
	const struct rlog_header *hdr;
	struct rlog_entry e;
	int rc;

	ck_assert_msg(r, "%s", err);
	hdr = rlog_header(r);
	ck_assert_uint_gt(hdr->nsandboxes, 0);
	while ((rc = rlog_next(r, &e, err, sizeof(err))) > 0) {
		const struct rlog_op *op = &e.op;
		unsigned long long ln = (unsigned long long)e.lineno;

		if (e.type == RLOG_ENTRY_INIT) {
			ck_assert_msg(in_sandbox(hdr, e.init_path,
						 e.init_path_len),
				      "%s:%llu: INIT path %s outside the sandboxes",
				      path, ln, e.init_path);
			continue;
		}
		if (op->have & RL_PATH2)
			ck_assert_msg(in_sandbox(hdr, op->path2,
						 op->path2_len),
				      "%s:%llu: path2 %s outside the sandboxes",
				      path, ln, op->path2);
		if ((op->have & RL_TARGET) && op->target[0] == '/')
			ck_assert_msg(in_sandbox(hdr, op->target,
						 op->target_len),
				      "%s:%llu: target %s outside the sandboxes",
				      path, ln, op->target);
		if (!(op->have & RL_PATH))
			continue;
		ck_assert_msg(in_sandbox(hdr, op->path, op->path_len),
			      "%s:%llu: path %s outside the sandboxes",
			      path, ln, op->path);
	}
	ck_assert_msg(rc == 0, "%s", err);
	rlog_close(r);
}

START_TEST(test_golden)
{
	const char *name = goldens[_i];
	struct gen_summary sum;
	char *dir = tu_scratch();
	char *replay = gen_fixture(name, dir, "test.replay", &sum);
	char *want = fixture(name, "replay");
	char other[256];

	compare_golden(replay, want);
	ck_assert_msg(count_entries(dir, "test.replay", other,
				    sizeof(other)) == 1,
		      "%s: left %s in the output directory", name, other);
	free(want);
	free(replay);
	free(dir);
}
END_TEST

START_TEST(test_wellformed)
{
	const char *name = goldens[_i];
	struct gen_summary sum;
	char *dir = tu_scratch();
	char *want = fixture(name, "replay");
	char *replay;

	check_wellformed(want);		/* the hand-written file */
	replay = gen_fixture(name, dir, "test.replay", &sum);
	check_wellformed(replay);
	free(want);
	free(replay);
	free(dir);
}
END_TEST

START_TEST(test_confined)
{
	struct gen_summary sum;
	char *dir = tu_scratch();
	char *want = fixture(goldens[_i], "replay");
	char *replay;

	check_confined(want);		/* the hand-written file */
	replay = gen_fixture(goldens[_i], dir, "test.replay", &sum);
	check_confined(replay);
	free(want);
	free(replay);
	free(dir);
}
END_TEST

START_TEST(test_deterministic)
{
	struct gen_summary s1, s2;
	char *dir = tu_scratch();
	char *a = gen_fixture("fdops", dir, "a.replay", &s1);
	char *b = gen_fixture("fdops", dir, "b.replay", &s2);
	size_t alen, blen;
	char *ta = tu_read(a, &alen), *tb = tu_read(b, &blen);

	ck_assert_ptr_nonnull(ta);
	ck_assert_ptr_nonnull(tb);
	ck_assert_uint_gt(alen, 1000);
	ck_assert_uint_eq(alen, blen);
	ck_assert_msg(memcmp(ta, tb, alen) == 0, "two runs differ");
	ck_assert_uint_eq(s1.ops, s2.ops);
	ck_assert_uint_eq(s1.init_bytes, s2.init_bytes);
	free(ta);
	free(tb);
	free(a);
	free(b);
	free(dir);
}
END_TEST

/* Expected operation counts of fdops, by replay name. */
static const struct {
	enum sys_id sys;
	uint64_t n;
} fdops_ops[] = {
	{ SYS_OPENAT, 8 }, { SYS_CLOSE, 7 }, { SYS_READ, 2 },
	{ SYS_PREAD64, 1 }, { SYS_READV, 1 }, { SYS_PREADV2, 1 },
	{ SYS_WRITE, 3 }, { SYS_PWRITE64, 1 }, { SYS_WRITEV, 1 },
	{ SYS_LSEEK, 2 }, { SYS_SENDFILE, 1 }, { SYS_COPY_FILE_RANGE, 1 },
	{ SYS_FSYNC, 1 }, { SYS_FDATASYNC, 1 }, { SYS_SYNC, 1 },
	{ SYS_SYNCFS, 1 }, { SYS_SYNC_FILE_RANGE, 1 }, { SYS_FALLOCATE, 1 },
	{ SYS_FTRUNCATE, 1 }, { SYS_FADVISE64, 1 }, { SYS_READAHEAD, 1 },
	{ SYS_FSTAT, 1 }, { SYS_NEWFSTATAT, 1 }, { SYS_STATX, 1 },
	{ SYS_FSTATFS, 1 }, { SYS_GETDENTS64, 2 }, { SYS_FCHMOD, 1 },
	{ SYS_FCHOWN, 1 }, { SYS_UTIMENSAT, 1 }, { SYS_FCNTL, 2 },
	{ SYS_MMAP, 1 }, { SYS_MUNMAP, 1 },
};

START_TEST(test_summary_fdops)
{
	struct gen_summary s;
	char *dir = tu_scratch();
	char *replay = gen_fixture("fdops", dir, "test.replay", &s);
	uint64_t listed = 0;

	ck_assert_int_eq(s.capture_version, 4);
	ck_assert_uint_eq(s.lines, 65);		/* 4 header + 61 events */
	ck_assert_uint_eq(s.events, 61);
	for (int i = 0; i < CAPLOG_BAD_COUNT; i++)
		ck_assert_uint_eq(s.bad[i], 0);
	ck_assert_uint_eq(s.ops, 51);
	for (size_t i = 0; i < sizeof(fdops_ops) / sizeof(fdops_ops[0]); i++) {
		uint64_t got = s.ops_per_sys[fdops_ops[i].sys];

		ck_assert_msg(got == fdops_ops[i].n, "%s: %llu ops, expected %llu",
			      sys_info(fdops_ops[i].sys)->replay_name,
			      (unsigned long long)got,
			      (unsigned long long)fdops_ops[i].n);
		listed += fdops_ops[i].n;
	}
	ck_assert_uint_eq(listed, s.ops);	/* and no op of another kind */
	ck_assert_uint_eq(s.filtered[GF_NOT_FILE], 2);
	ck_assert_uint_eq(s.filtered[GF_FD_TABLE], 10);
	ck_assert_uint_eq(s.filtered[GF_UNKNOWN_FD], 0);
	ck_assert_uint_eq(s.filtered[GF_PSEUDO], 0);
	ck_assert_uint_eq(s.timelines, 1);
	ck_assert_uint_eq(s.processes, 1);
	/* /, data, a, out, rel.txt, sub, x */
	ck_assert_uint_eq(s.paths, 7);
	ck_assert_uint_eq(s.init_dirs, 1);
	ck_assert_uint_eq(s.init_files, 2);
	ck_assert_uint_eq(s.init_bytes, 20050);
	ck_assert_uint_eq(s.init_absent, 1);
	ck_assert_uint_eq(s.lost_events, 0);
	ck_assert_uint_eq(s.duration_ns, 60000);
	free(replay);
	free(dir);
}
END_TEST

/*
 * AIO: two threads share a context; a batch of three iocbs (one a POLL,
 * not replayed) of which the log holds two records for a submit of four;
 * completions in another order than submitted, one for an iocb never
 * seen; a call on a context never set up.  Checks the operations, the
 * INIT size the read completion asks for, and the counts.
 */
START_TEST(test_aio)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "aio.capture",
		"#|capture_version=4|\n"
		"#|mount=/|fstype=ext4|\n"
		"t=1;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/f;:,f=16386;:,r=3;:,\n"
		"t=2;:,i=5:5;:,o=io_setup;:,c=16;:,a=1000;:,r=0;:,\n"
		"t=3;:,i=5:5;:,o=iocb;:,a=1000;:,A=64;:,d=3;:,F=0;:,O=8192;:,c=4096;:,\n"
		"t=3;:,i=5:5;:,o=iocb;:,a=1000;:,A=128;:,d=3;:,F=1;:,O=0;:,c=512;:,f=16;:,\n"
		"t=3;:,i=5:5;:,o=iocb;:,a=1000;:,A=192;:,d=3;:,F=5;:,c=1;:,\n"
		"t=3;:,D=9;:,i=5:5;:,o=io_submit;:,a=1000;:,c=4;:,r=4;:,\n"
		"t=4;:,i=5:6;:,o=io_getevents;:,a=1000;:,G=1;:,c=8;:,r=3;:,\n"
		"t=4;:,i=5:6;:,o=io_event;:,a=1000;:,A=128;:,r=512;:,\n"
		"t=4;:,i=5:6;:,o=io_event;:,a=1000;:,A=64;:,r=4096;:,\n"
		"t=4;:,i=5:6;:,o=io_event;:,a=1000;:,A=256;:,r=7;:,\n"
		"t=5;:,i=5:5;:,o=io_submit;:,a=2000;:,c=1;:,r=-22;:,\n"
		"t=6;:,i=5:6;:,o=io_destroy;:,a=1000;:,r=0;:,\n"
		"t=7;:,i=5:5;:,o=close;:,d=3;:,r=0;:,\n");
	char *replay = tu_join(dir, "aio.replay");
	char err[ERRLEN], *text;
	struct gen_summary s;
	static const char *const want[] = {
		"2 5:5 1 0 - io_setup 0 count=16 ctx=1\n",
		"3 5:5 2 0 - iocb 0 fd=1 off=8192 count=4096 cmd=0 ctx=1 tag=1\n",
		"4 5:5 2 0 - iocb 0 fd=1 flags=0x10 off=0 count=512 cmd=1 ctx=1 "
		"tag=2\n",
		"5 5:5 2 9 - io_submit 4 count=4 ctx=1\n",
		"6 5:6 3 0 5 io_getevents 3 count=8 ctx=1 min=1\n",
		"7 5:6 3 0 4 aio_pwrite 512 fd=1 ctx=1 tag=2\n",
		"8 5:6 3 0 3 aio_pread 4096 fd=1 ctx=1 tag=1\n",
		"9 5:6 5 0 - io_destroy 0 ctx=1\n",
		"f 12288 /.ioriot/test/d/f\n",
	};

	ck_assert_msg(run(capture, replay, NULL, &s, err) == 0, "%s", err);
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(text, want[i]), "no line %s in\n%s",
			      want[i], text);
	ck_assert_uint_eq(s.ops_per_sys[SYS_IOCB], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_IO_SUBMIT], 1);
	/* the poll, the completion of an unknown iocb, the submit on a
	 * context never set up */
	ck_assert_uint_eq(s.filtered[GF_AIO], 3);
	ck_assert_uint_eq(s.aio_iocbs_missing, 1);
	free(text);
	free(replay);
	free(capture);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* The counts of the uring golden: what is written, what is not and why,
 * the requests submitted without a record, the skipped kinds by name. */
START_TEST(test_uring_counts)
{
	struct gen_summary s;
	char *dir = tu_scratch();
	char *replay = gen_fixture("uring", dir, "test.replay", &s);

	ck_assert_uint_eq(s.ops_per_sys[SYS_IO_URING_SETUP], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_URING_FILE], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_IO_URING_REGISTER], 1);
	ck_assert_uint_eq(s.ops_per_sys[SYS_SQE], 4);
	ck_assert_uint_eq(s.ops_per_sys[SYS_IO_URING_ENTER], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_URING_READ], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_URING_WRITE], 1);
	ck_assert_uint_eq(s.ops_per_sys[SYS_URING_FSYNC], 1);
	/* the eventfd register, the timeout and its completion, the
	 * completion never submitted, the request and the enter on a ring
	 * never set up, the ring's mmap, the close of its fd */
	ck_assert_uint_eq(s.filtered[GF_URING], 8);
	ck_assert_uint_eq(s.uring_sqes_missing, 1);
	ck_assert_uint_eq(s.uring_skipped[IORING_OP_TIMEOUT], 1);
	for (int op = 0; op < 256; op++)
		ck_assert_uint_eq(s.uring_skipped[op],
				  op == IORING_OP_TIMEOUT ? 1 : 0);
	ck_assert_uint_eq(s.init_bytes, 12288);
	free(replay);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * io_uring setups the replay cannot make (no entries, more than the
 * kernel's 32768 entries or 65536 completion entries, a result no fd can
 * be) are counted, not written, and what uses their rings too; the replay
 * file holds only the valid one and reads back.
 */
START_TEST(test_uring_setup_bounds)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "bounds.capture",
		"#|capture_version=4|\n"
		"#|mount=/|fstype=ext4|\n"
		"t=1;:,i=5:5;:,o=io_uring_setup;:,f=0;:,r=4;:,\n"
		"t=2;:,i=5:5;:,o=io_uring_setup;:,c=40000;:,f=0;:,r=5;:,\n"
		"t=3;:,i=5:5;:,o=io_uring_setup;:,c=8;:,f=8;:,G=70000;:,r=6;:,\n"
		"t=4;:,i=5:5;:,o=io_uring_setup;:,c=8;:,f=0;:,r=139637976727552;:,\n"
		"t=5;:,i=5:5;:,o=io_uring_enter;:,d=5;:,c=0;:,G=0;:,f=0;:,r=0;:,\n"
		"t=6;:,i=5:5;:,o=io_uring_setup;:,c=32768;:,f=8;:,G=65536;:,r=7;:,\n");
	char *replay = tu_join(dir, "bounds.replay");
	char err[ERRLEN], *text;
	struct gen_summary s;

	ck_assert_msg(run(capture, replay, NULL, &s, err) == 0, "%s", err);
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "1 5:5 5 0 - io_uring_setup 7 flags=0x8 "
			     "count=32768 ctx=1 cq=65536\n"), "%s", text);
	ck_assert_uint_eq(s.ops, 1);
	ck_assert_uint_eq(s.filtered[GF_URING], 5);
	check_wellformed(replay);
	free(text);
	free(replay);
	free(capture);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_summary_paths)
{
	struct gen_summary s;
	char *dir = tu_scratch();
	char *replay = gen_fixture("paths", dir, "test.replay", &s);

	ck_assert_uint_eq(s.events, 19);
	ck_assert_uint_eq(s.ops, 11);
	ck_assert_uint_eq(s.ops_per_sys[SYS_STAT], 10);
	ck_assert_uint_eq(s.ops_per_sys[SYS_OPENAT], 1);
	ck_assert_uint_eq(s.filtered[GF_PSEUDO], 4);
	ck_assert_uint_eq(s.filtered[GF_OWN], 2);
	ck_assert_uint_eq(s.filtered[GF_RELATIVE], 1);
	ck_assert_uint_eq(s.filtered[GF_UNKNOWN_FD], 0);
	ck_assert_uint_eq(s.filtered[GF_NO_MOUNT], 0);
	ck_assert_uint_eq(s.lost_events, 42);
	ck_assert_uint_eq(s.timelines, 1);	/* the lost record has none */
	free(replay);
	free(dir);
}
END_TEST

/* A log of many batches for the reader thread (readahead.c), with paths
 * long enough that some batches end for their paths' room: every event
 * comes out once, in order, with its own path. */
START_TEST(test_many_batches)
{
	enum { EVENTS = 12000 };
	struct gen_summary s;
	char *dir = tu_scratch();
	char pad[181], line[512], err[ERRLEN];
	size_t cap = 64 + (size_t)EVENTS * 300, len = 0;
	char *log = malloc(cap);

	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	len += (size_t)snprintf(log + len, cap - len,
				"#|capture_version=4|\n#|mount=/|fstype=ext4|\n");
	for (int i = 0; i < EVENTS; i++)
		len += (size_t)snprintf(log + len, cap - len,
					"t=%d;:,D=1;:,i=7:7;:,o=stat;:,p=/d%d/%s%s%d;:,r=0;:,\n",
					1000 + i, i % 50, i % 3 ? "" : pad,
					i % 3 ? "f" : "_", i);
	char *capture = tu_write(dir, "many.capture", log, len);
	char *replay = tu_join(dir, "many.replay");
	ck_assert_msg(run(capture, replay, NULL, &s, err) == 0, "%s", err);
	ck_assert_uint_eq(s.events, EVENTS);
	ck_assert_uint_eq(s.ops, EVENTS);
	char *text = tu_read(replay, NULL);
	const char *pos = strstr(text, "#OPS\n");
	ck_assert_ptr_nonnull(pos);
	pos += 5;
	for (int i = 0; i < EVENTS; i++) {
		ck_assert_msg(next_line(&pos, line, sizeof(line)), "op %d missing", i);
		char want[300];
		snprintf(want, sizeof(want), " path=/.ioriot/test/d%d/%s%s%d",
			 i % 50, i % 3 ? "" : pad, i % 3 ? "f" : "_", i);
		const char *at = strstr(line, want);
		ck_assert_msg(at && at[strlen(want)] == '\0', "op %d: %s", i, line);
	}
	free(text);
	free(replay);
	free(capture);
	free(log);
	free(dir);
}
END_TEST

/* mmapio: 14 page records become 8 operations; two have no mapping the
 * generator knows (one's offset is not the mapping's), a madvise of
 * anonymous memory is not file I/O. */
START_TEST(test_summary_mmapio)
{
	struct gen_summary s;
	char *dir = tu_scratch();
	char *replay = gen_fixture("mmapio", dir, "test.replay", &s);

	ck_assert_uint_eq(s.events, 23);
	ck_assert_uint_eq(s.ops, 16);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MMAP_READ], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MMAP_WRITE], 6);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MMAP], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MUNMAP], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MADVISE], 1);
	ck_assert_uint_eq(s.ops_per_sys[SYS_MSYNC], 1);
	ck_assert_uint_eq(s.filtered[GF_UNKNOWN_MAP], 2);
	ck_assert_uint_eq(s.filtered[GF_NOT_FILE], 1);
	ck_assert_uint_eq(s.timelines, 2);
	ck_assert_uint_eq(s.init_files, 1);
	ck_assert_uint_eq(s.init_bytes, 131073);	/* into page 32 */
	free(replay);
	free(dir);
}
END_TEST

START_TEST(test_summary_processes)
{
	struct gen_summary s;
	char *dir = tu_scratch();
	char *replay = gen_fixture("order", dir, "test.replay", &s);

	ck_assert_uint_eq(s.timelines, 3);
	ck_assert_uint_eq(s.processes, 2);
	ck_assert_uint_eq(s.op_timelines, 3);
	ck_assert_uint_eq(s.op_processes, 2);
	ck_assert_uint_eq(s.ops_end_ns, 14010);
	/* the fork record of the thread */
	ck_assert_uint_eq(s.filtered[GF_FD_TABLE], 1);
	free(replay);
	free(dir);
}
END_TEST

/* A thread or process without an operation is captured but is no timeline
 * of the replay file: only a read of an fd it never opened (filtered). */
START_TEST(test_summary_timelines_with_ops)
{
	struct gen_summary s;
	char *dir = tu_scratch(), *text, *capture, *replay, *head;
	char *order = fixture("order", "capture");
	char err[ERRLEN];

	text = tu_read(order, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert(asprintf(&head, "%st=15000;:,D=10;:,i=3000:3000;:,o=read;:,"
			   "d=9;:,c=10;:,r=10;:,\n", text) > 0);
	capture = tu_write_str(dir, "x.capture", head);
	replay = tu_join(dir, "x.replay");
	ck_assert_msg(run(capture, replay, NULL, &s, err) == 0, "%s", err);
	ck_assert_uint_eq(s.timelines, 4);
	ck_assert_uint_eq(s.processes, 3);
	ck_assert_uint_eq(s.op_timelines, 3);
	ck_assert_uint_eq(s.op_processes, 2);
	ck_assert_uint_eq(s.filtered[GF_UNKNOWN_FD], 1);
	free(text);
	text = tu_read(replay, NULL);
	ck_assert_msg(strstr(text, "|timelines=3|processes=2|"), "%.300s", text);
	free(text);
	free(head);
	free(order);
	free(capture);
	free(replay);
	free(dir);
}
END_TEST

/* A generate that must fail: @rc expected, no file at @replay and nothing
 * but @keep (may be NULL) left in @dir. */
static void expect_failure(const char *capture, const char *replay,
			   const char *dir, const char *keep, int want_rc,
			   const char *in_msg)
{
	struct gen_summary sum;
	char err[ERRLEN], other[256];
	struct stat st;
	int rc = run(capture, replay, NULL, &sum, err);

	ck_assert_msg(rc == want_rc, "generate returned %d (%s), expected %d",
		      rc, err, want_rc);
	ck_assert_msg(err[0], "no error message");
	ck_assert_msg(strstr(err, in_msg), "message '%s' does not name '%s'",
		      err, in_msg);
	if (!keep)
		ck_assert_msg(stat(replay, &st) < 0 && errno == ENOENT,
			      "%s exists after a failure", replay);
	ck_assert_msg(count_entries(dir, keep, other, sizeof(other)) ==
		      (keep ? 1 : 0), "left %s in %s", other, dir);
}

START_TEST(test_fail_no_output_dir)
{
	char *dir = tu_scratch();
	char *capture = fixture("fork", "capture");
	char *replay = tu_join(dir, "nodir/out.replay");

	expect_failure(capture, replay, dir, NULL, -ENOENT, "nodir");
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

START_TEST(test_fail_output_dir_is_file)
{
	char *dir = tu_scratch();
	char *capture = fixture("fork", "capture");
	char *file = tu_write_str(dir, "file", "not a directory\n");
	char *replay = tu_join(dir, "file/out.replay");

	expect_failure(capture, replay, dir, "file", -ENOTDIR, "file");
	free(file);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

START_TEST(test_fail_output_dir_read_only)
{
	char *dir = tu_scratch();
	char *capture = fixture("fork", "capture");
	char *ro = tu_join(dir, "ro");
	char *replay = tu_join(ro, "out.replay");

	ck_assert_int_eq(mkdir(ro, 0555), 0);
	if (access(ro, W_OK) == 0) {
		/* root ignores the mode: nothing to test here */
		rmdir(ro);
	} else {
		expect_failure(capture, replay, ro, NULL, -EACCES, "ro");
	}
	free(replay);
	free(ro);
	free(capture);
	free(dir);
}
END_TEST

/* The final rename fails: the temporary output must be removed. */
START_TEST(test_fail_output_is_dir)
{
	char *dir = tu_scratch();
	char *capture = fixture("fork", "capture");
	char *replay = tu_join(dir, "out.replay");
	struct stat st;

	ck_assert_int_eq(mkdir(replay, 0755), 0);
	expect_failure(capture, replay, dir, "out.replay", -EISDIR,
		       "out.replay");
	ck_assert_int_eq(stat(replay, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

START_TEST(test_fail_only_bad_lines)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "bad.capture",
		"#|capture_version=4|\n"
		"#|mount=/|fstype=ext4|\n"
		"this is not a capture line\n"
		"t=1;:,i=1:1;:,o=no_such_op;:,r=0;:,\n"
		"t=x;:,i=1:1;:,o=close;:,d=3;:,r=0;:,\n"
		"i=1:1;:,o=close;:,d=3;:,r=0;:,\n");
	char *replay = tu_join(dir, "out.replay");
	struct gen_summary sum;
	char err[ERRLEN], other[256];

	ck_assert_int_eq(run(capture, replay, NULL, &sum, err), -ENODATA);
	ck_assert_msg(strstr(err, capture), "message '%s' lacks the file", err);
	ck_assert_uint_eq(sum.events, 0);
	ck_assert_uint_eq(sum.bad[CAPLOG_BAD_SYNTAX], 2);
	ck_assert_uint_eq(sum.bad[CAPLOG_BAD_UNKNOWN_OP], 1);
	ck_assert_uint_eq(sum.bad[CAPLOG_BAD_MISSING], 1);
	ck_assert_msg(access(replay, F_OK) < 0, "output written");
	ck_assert_msg(count_entries(dir, "bad.capture", other,
				    sizeof(other)) == 1, "left %s", other);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

START_TEST(test_fail_missing_capture)
{
	char *dir = tu_scratch();
	char *capture = tu_join(dir, "missing.capture");
	char *replay = tu_join(dir, "out.replay");

	expect_failure(capture, replay, dir, NULL, -ENOENT, "missing.capture");
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

/* v3 logs without a readable local mount table cannot be rewritten. */
START_TEST(test_fail_v3_no_mount_table)
{
	char *dir = tu_scratch();
	char *capture = fixture("v3basic", "capture");
	char *mounts = tu_join(dir, "no-such-mounts");
	char *replay = tu_join(dir, "out.replay");
	struct gen_summary sum;
	char err[ERRLEN], other[256];

	ck_assert_int_eq(run(capture, replay, mounts, &sum, err), -ENOENT);
	ck_assert_msg(strstr(err, "no-such-mounts"), "message: %s", err);
	ck_assert_msg(count_entries(dir, NULL, other, sizeof(other)) == 0,
		      "left %s", other);
	free(replay);
	free(mounts);
	free(capture);
	free(dir);
}
END_TEST

/* ---- the end record ---------------------------------------------------- */

#define END_HEAD "#|capture_version=4|\n#|host=h|backend=bpf|\n" \
		 "#|mount=/|fstype=ext4|\n"
#define END_EVENTS "t=0;:,D=5;:,i=7:7;:,o=stat;:,p=/data/a;:,r=0;:,\n" \
		   "t=9;:,D=5;:,i=7:7;:,o=stat;:,p=/data/b;:,r=0;:,\n"

/*
 * Generate @capture with warnings on: its stderr and the printed summary
 * into malloc'd strings.  The test process is forked: fd 2 may be moved.
 */
static void run_warned(const char *capture, const char *mounts,
		       const char *dir, struct gen_summary *sum,
		       char **warnings, char **summary)
{
	char *replay = tu_join(dir, "out.replay"), *errpath;
	char err[ERRLEN];
	size_t len;
	FILE *f;
	int saved = dup(2), fd, rc;

	errpath = tu_join(dir, "stderr.txt");
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
	log_set_level(LOG_WARN);
	rc = run(capture, replay, mounts, sum, err);
	fflush(stderr);
	ck_assert(dup2(saved, 2) == 2);
	close(saved);
	close(fd);
	ck_assert_msg(rc == 0, "generate: %s (%d)", err, rc);
	*warnings = tu_read(errpath, NULL);
	ck_assert_ptr_nonnull(*warnings);
	f = open_memstream(summary, &len);
	ck_assert_ptr_nonnull(f);
	generate_print_summary(f, sum);
	ck_assert_int_eq(fclose(f), 0);
	free(errpath);
	free(replay);
}

/* A v4 log cut at a line boundary: read, warned about, flagged. */
START_TEST(test_end_missing)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "cut.capture", END_HEAD END_EVENTS);
	char *warn, *summary, *want;
	struct gen_summary sum;

	run_warned(capture, NULL, dir, &sum, &warn, &summary);
	ck_assert(sum.end_missing);
	ck_assert(!sum.have_end);
	ck_assert_uint_eq(sum.events, 2);
	ck_assert(asprintf(&want, "%s ends without its end record: the capture "
			   "was cut short (killed, or its disk filled); 2 events "
			   "read\n", capture) > 0);
	ck_assert_msg(strstr(warn, want), "stderr: %s", warn);
	ck_assert_msg(strstr(summary, "Capture end record: missing: the capture "
			     "was cut short\n"), "summary: %s", summary);
	free(want);
	free(warn);
	free(summary);
	free(capture);
	free(dir);
}
END_TEST

/* A complete v4 log: no warning; the summary shows the record's counts. */
START_TEST(test_end_present)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "ok.capture", END_HEAD END_EVENTS
		"#|end|events=2|lost=3|lost_disk_full=0|filtered=4|paths_cut=0|"
		"snapshot_fds=1|missing_tracepoints=0|duration_ns=2500000000|\n");
	char *warn, *summary;
	struct gen_summary sum;

	run_warned(capture, NULL, dir, &sum, &warn, &summary);
	ck_assert(!sum.end_missing);
	ck_assert(sum.have_end);
	ck_assert_uint_eq(sum.end.lost, 3);
	ck_assert_str_eq(warn, "");
	ck_assert_msg(strstr(summary, "Capture end record: complete\n"),
		      "summary: %s", summary);
	ck_assert_msg(strstr(summary, "  Events lost in the capture") &&
		      strstr(summary, " 3\n  Events filtered out by path") &&
		      strstr(summary, " 4\n  Files open at start") &&
		      strstr(summary, "  Capture duration") &&
		      strstr(summary, " 2.500s\n"), "summary: %s", summary);
	ck_assert_msg(!strstr(summary, "full disk"), "summary: %s", summary);
	free(warn);
	free(summary);
	free(capture);
	free(dir);
}
END_TEST

/*
 * The syscalls the capture did not record: file I/O by name in the summary
 * with a warning, the others as a total, and all of them in the replay
 * file's header, where the replay reads them back.
 */
START_TEST(test_uncaptured_carried)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "u.capture", END_HEAD END_EVENTS
		"#|uncaptured|futex=100|io_submit=4230|io_getevents=4230|"
		"ioctl=3|\n#|end|events=2|\n");
	char *replay = tu_join(dir, "out.replay"), *warn, *summary, *text;
	char *want, err[ERRLEN];
	struct gen_summary sum;
	struct rlog_reader *r;

	run_warned(capture, NULL, dir, &sum, &warn, &summary);
	ck_assert(sum.uncaptured.known);
	ck_assert_uint_eq(sum.uncaptured.n, 4);
	ck_assert(asprintf(&want, "%s: 8463 calls of the file I/O API were not "
			   "captured, so they are not replayed (summary: Not "
			   "captured)\n", capture) > 0);
	ck_assert_msg(strstr(warn, want), "stderr: %s", warn);
	ck_assert_msg(strstr(summary, "Not captured (not replayed): "
			     "io_getevents 4230, io_submit 4230, ioctl 3\n"
			     "Other syscalls not captured: 100 (not file I/O)\n"),
		      "summary: %s", summary);
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "|duration_ns=14|\n#|uncaptured|io_getevents="
			     "4230|io_submit=4230|futex=100|ioctl=3|\n#|sandbox="),
		      "replay: %s", text);
	r = rlog_open(replay, err, sizeof(err));
	ck_assert_msg(r, "%s", err);
	ck_assert(rlog_header(r)->uncaptured.known);
	ck_assert_uint_eq(rlog_header(r)->uncaptured.n, 4);
	ck_assert_str_eq(rlog_header(r)->uncaptured.v[3].name, "ioctl");
	rlog_close(r);
	free(text);
	free(want);
	free(warn);
	free(summary);
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

/* Without the record (SystemTap, older captures) the summary says it was
 * not counted, the replay header has no such line; a malformed record is
 * a bad line, reported with its file and line. */
START_TEST(test_uncaptured_absent_or_malformed)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "none.capture", END_HEAD END_EVENTS
				     "#|end|events=2|\n");
	char *replay = tu_join(dir, "out.replay"), *warn, *summary, *text;
	char *want;
	struct gen_summary sum;

	for (int bad = 0; bad < 2; bad++) {
		if (bad) {
			free(capture);
			capture = tu_write_str(dir, "bad.capture", END_HEAD
					       END_EVENTS "#|uncaptured|flock=1|"
					       "io_submit=x|\n#|end|events=2|\n");
		}
		run_warned(capture, NULL, dir, &sum, &warn, &summary);
		ck_assert(!sum.uncaptured.known);
		ck_assert_msg(strstr(summary, "Not captured: not counted by this "
				     "capture (SystemTap, or an older ioriot)\n"),
			      "summary: %s", summary);
		ck_assert_msg(!strstr(summary, "Other syscalls"), "summary: %s",
			      summary);
		text = tu_read(replay, NULL);
		ck_assert_ptr_nonnull(text);
		ck_assert_msg(!strstr(text, "uncaptured"), "replay: %s", text);
		ck_assert(asprintf(&want, "%s:6: malformed line: uncaptured "
				   "record: item is not NAME=COUNT: "
				   "'io_submit=x', line skipped\n", capture) > 0);
		ck_assert_msg(!bad == !strstr(warn, want), "stderr: %s", warn);
		ck_assert_uint_eq(sum.bad[CAPLOG_BAD_SYNTAX], (uint64_t)bad);
		free(want);
		free(text);
		free(warn);
		free(summary);
	}
	free(replay);
	free(capture);
	free(dir);
}
END_TEST

/* A capture stopped by a full disk: complete, but said so. */
START_TEST(test_end_disk_full)
{
	char *dir = tu_scratch();
	char *capture = tu_write_str(dir, "full.capture", END_HEAD END_EVENTS
		"#|end|events=2|lost=0|lost_disk_full=17|error=ENOSPC|\n");
	char *warn, *summary;
	struct gen_summary sum;

	run_warned(capture, NULL, dir, &sum, &warn, &summary);
	ck_assert(!sum.end_missing);
	ck_assert_msg(strstr(warn, "full.capture: the capture stopped early, its "
			     "log's disk was full (ENOSPC): 17 events were lost "
			     "to it\n"), "stderr: %s", warn);
	ck_assert_msg(strstr(summary, "Capture end record: the capture stopped "
			     "early, disk full: ENOSPC\n") &&
		      strstr(summary, "  Events lost to the full disk"),
		      "summary: %s", summary);
	free(warn);
	free(summary);
	free(capture);
	free(dir);
}
END_TEST

/* v3 logs (original I/O Riot) have no end record and get no warning. */
START_TEST(test_end_v3_not_needed)
{
	char *dir = tu_scratch();
	char *capture = fixture("v3basic", "capture");
	char *mounts = fixture("v3basic", "mounts");
	char *warn, *summary;
	struct gen_summary sum;

	run_warned(capture, mounts, dir, &sum, &warn, &summary);
	ck_assert_int_eq(sum.capture_version, 3);
	ck_assert(!sum.end_missing);
	ck_assert(!sum.have_end);
	ck_assert_msg(!strstr(warn, "end record"), "stderr: %s", warn);
	ck_assert_msg(!strstr(summary, "Capture end record"), "summary: %s",
		      summary);
	free(warn);
	free(summary);
	free(mounts);
	free(capture);
	free(dir);
}
END_TEST

Suite *generate_suite(void)
{
	Suite *s = suite_create("generate");
	TCase *tc = tcase_create("golden");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_loop_test(tc, test_golden, 0, NGOLDENS);
	tcase_add_loop_test(tc, test_wellformed, 0, NGOLDENS);
	tcase_add_loop_test(tc, test_confined, 0, NGOLDENS);
	tcase_add_test(tc, test_deterministic);
	suite_add_tcase(s, tc);

	tc = tcase_create("summary");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, test_summary_fdops);
	tcase_add_test(tc, test_summary_mmapio);
	tcase_add_test(tc, test_aio);
	tcase_add_test(tc, test_uring_counts);
	tcase_add_test(tc, test_uring_setup_bounds);
	tcase_add_test(tc, test_summary_paths);
	tcase_add_test(tc, test_many_batches);
	tcase_add_test(tc, test_summary_processes);
	tcase_add_test(tc, test_summary_timelines_with_ops);
	suite_add_tcase(s, tc);

	tc = tcase_create("failure");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, test_fail_no_output_dir);
	tcase_add_test(tc, test_fail_output_dir_is_file);
	tcase_add_test(tc, test_fail_output_dir_read_only);
	tcase_add_test(tc, test_fail_output_is_dir);
	tcase_add_test(tc, test_fail_only_bad_lines);
	tcase_add_test(tc, test_fail_missing_capture);
	tcase_add_test(tc, test_fail_v3_no_mount_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("end record");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_end_missing);
	tcase_add_test(tc, test_end_present);
	tcase_add_test(tc, test_end_disk_full);
	tcase_add_test(tc, test_end_v3_not_needed);
	tcase_add_test(tc, test_uncaptured_carried);
	tcase_add_test(tc, test_uncaptured_absent_or_malformed);
	suite_add_tcase(s, tc);
	return s;
}
