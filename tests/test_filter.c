/*
 * Tests of the generate-time filters (--only-syscalls, --only-comm,
 * --only-path, --from, --to): what each leaves out, the opens, lseeks and
 * closes added so the operations kept find their files and positions, INIT
 * inferred from the kept operations alone, dependencies only on operations
 * in the file, the summary's counts, the header line, bad input, and end
 * to end: a filtered replay file initialised and replayed with no result
 * differing from the capture's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/generate.h"
#include "ioriot/log.h"
#include "testutil.h"

#define ERRLEN 8192
#define HEADER "#|capture_version=4|\n" \
	"#|host=h|kernel=6.1.0|backend=test|start_epoch_ns=1700000000000000000|\n"

/* Files written, used and read back across the window of 0.5 s to 1.5 s:
 * new made and written before the window and read in it through the fd
 * opened before; old, there before the capture, read before and in it. */
#define WORKLOAD(M) \
	"t=0;:,D=10;:,i=500:500;:,o=mkdir;:,p=" M "/data/d;:,m=493;:,r=0;:,\n" \
	"t=500;:,D=10;:,i=500:500;:,o=openat;:,d=-100;:,p=" M "/data/old;:,f=0;:,r=4;:,\n" \
	"t=600;:,D=10;:,i=500:500;:,o=read;:,d=4;:,c=100;:,r=100;:,\n" \
	"t=1000;:,D=10;:,i=500:500;:,o=openat;:,d=-100;:,p=" M "/data/d/new;:,f=578;:,m=420;:,r=3;:,\n" \
	"t=2000;:,D=10;:,i=500:500;:,o=write;:,d=3;:,c=8192;:,r=8192;:,\n" \
	"t=3000;:,D=10;:,i=500:500;:,o=fsync;:,d=3;:,r=0;:,\n" \
	"t=4000;:,D=10;:,i=500:500;:,o=lseek;:,d=3;:,O=0;:,W=0;:,r=0;:,\n" \
	"t=5000;:,D=10;:,i=500:500;:,o=read;:,d=3;:,c=4096;:,r=4096;:,\n" \
	"t=6000;:,D=10;:,i=500:500;:,o=pread64;:,d=3;:,O=4096;:,c=4096;:,r=4096;:,\n" \
	"t=1000000000;:,D=10;:,i=500:500;:,o=read;:,d=3;:,c=4096;:,r=4096;:,\n" \
	"t=1000001000;:,D=10;:,i=500:500;:,o=stat;:,p=" M "/data/d/new;:,m=33188;:,s=8192;:,r=0;:,\n" \
	"t=1000002000;:,D=10;:,i=500:500;:,o=read;:,d=3;:,c=4096;:,r=0;:,\n" \
	"t=1000003000;:,D=10;:,i=500:500;:,o=close;:,d=3;:,r=0;:,\n" \
	"t=1000005000;:,D=10;:,i=500:500;:,o=read;:,d=4;:,c=100;:,r=100;:,\n" \
	"t=1000006000;:,D=10;:,i=500:500;:,o=close;:,d=4;:,r=0;:,\n" \
	"t=2000000000;:,D=10;:,i=500:500;:,o=unlink;:,p=" M "/data/d/new;:,r=0;:,\n"

/* A shell that opens its child's output before the child execs dd. */
#define REDIRECT \
	"t=0;:,D=10;:,i=600:600;:,o=exec;:,p=/bin/bash;:,r=0;:,\n" \
	"t=1000;:,D=10;:,i=600:600;:,o=fork;:,k=601:601;:,r=601;:,\n" \
	"t=2000;:,D=10;:,i=601:601;:,o=openat;:,d=-100;:,p=/srv/out/log;:,f=577;:,m=420;:,r=1;:,\n" \
	"t=3000;:,D=10;:,i=601:601;:,o=exec;:,p=/usr/bin/dd;:,r=0;:,\n" \
	"t=4000;:,D=10;:,i=601:601;:,o=openat;:,d=-100;:,p=/srv/in/src;:,f=0;:,r=3;:,\n" \
	"t=5000;:,D=10;:,i=601:601;:,o=read;:,d=3;:,c=512;:,r=512;:,\n" \
	"t=6000;:,D=10;:,i=601:601;:,o=write;:,d=1;:,c=512;:,r=512;:,\n" \
	"t=7000;:,D=10;:,i=601:601;:,o=stat;:,p=/etc/passwd;:,m=33188;:,s=100;:,r=0;:,\n" \
	"t=8000;:,D=10;:,i=601:601;:,o=exit;:,r=0;:,\n" \
	"t=9000;:,D=10;:,i=600:600;:,o=stat;:,p=/srv/out/log;:,m=33188;:,s=512;:,r=0;:,\n"

static void quiet(void)
{
	log_set_level(LOG_ERROR);
}

/* Generate from capture @text with @f; the replay file's text (NULL if
 * none was written) and the return code in *@rc. */
static char *gen(const char *text, const struct gen_filters *f,
		 struct gen_summary *sum, int *rc, char *err)
{
	char *dir = tu_scratch();
	char *cap = tu_write_str(dir, "f.capture", text);
	char *out = tu_join(dir, "f.replay");
	struct gen_options opt = {
		.capture_path = cap, .replay_path = out, .name = "t",
		.user = "tester", .filters = f,
	};
	char *replay;

	*rc = generate_run(&opt, sum, err, ERRLEN);
	replay = *rc ? NULL : tu_read(out, NULL);
	free(cap);
	free(out);
	free(dir);
	return replay;
}

/* The replay file @text, generated without error. */
static char *gen_ok(const char *text, const struct gen_filters *f,
		    struct gen_summary *sum)
{
	char err[ERRLEN];
	int rc;
	char *replay = gen(text, f, sum, &rc, err);

	ck_assert_msg(rc == 0, "generate: %d %s", rc, err);
	return replay;
}

/* The operation lines of @replay after "#OPS\n", with "ID " cut off each,
 * and DEPS checked: every listed ID is an operation of the file. */
static char *ops_of(const char *replay)
{
	const char *p = strstr(replay, "#OPS\n");
	char *ops = calloc(1, strlen(replay) + 1);
	unsigned long ids[256];
	size_t n = 0;

	ck_assert_ptr_nonnull(p);
	for (p += 5; *p && strncmp(p, "#END", 4); p = strchr(p, '\n') + 1) {
		unsigned long id, pid, tid, t, d;
		char deps[256];
		int used;

		ck_assert_int_eq(sscanf(p, "%lu %lu:%lu %lu %lu %255s %n", &id,
					&pid, &tid, &t, &d, deps, &used), 6);
		ck_assert_uint_lt(n, 256);
		ids[n++] = id;
		for (char *tok = strtok(deps, ","); strcmp(deps, "-") && tok;
		     tok = strtok(NULL, ",")) {
			bool found = false;
			for (size_t i = 0; i < n; i++)
				found |= ids[i] == strtoul(tok, NULL, 10);
			ck_assert_msg(found, "dependency %s is no operation of "
				      "the file: %s", tok, replay);
		}
		const char *sp = strchr(p, ' ');
		strncat(ops, sp + 1, (size_t)(strchr(p, '\n') - sp));
	}
	return ops;
}

/* Whether @text holds line @line (without its newline). */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return true;
	return false;
}

#define ASSERT_LINE(text, line) \
	ck_assert_msg(has_line(text, line), "no line '%s' in:\n%s", line, text)

START_TEST(test_parse_classes)
{
	char err[256];
	unsigned mask;

	ck_assert_int_eq(gen_parse_classes("read", &mask, err, sizeof(err)), 0);
	ck_assert_uint_eq(mask, 1u << CLS_READ);
	ck_assert_int_eq(gen_parse_classes("meta,sync,open,other,write", &mask,
					   err, sizeof(err)), 0);
	ck_assert_uint_eq(mask, (1u << CLS_COUNT) - 1 - (1u << CLS_READ));
	ck_assert_int_eq(gen_parse_classes("read,bogus", &mask, err,
					   sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "unknown class 'bogus'"), "%s", err);
	ck_assert_int_eq(gen_parse_classes("read,", &mask, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(gen_parse_classes("", &mask, err, sizeof(err)),
			 -EINVAL);
}
END_TEST

START_TEST(test_parse_time)
{
	static const char *const bad[] = {
		"", "1x", "-1", ".5", "1.", "@", "@x", "2026-13-01T00:00:00",
		"2026-11-25T10:00", "2026-11-25T10:00:00+25:00",
		"2026-11-25T10:00:00Zjunk", "2026-11-25 10:00:00",
	};
	char err[512];
	struct gen_time t;

	ck_assert_int_eq(gen_parse_time("12.5", &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.kind, GT_OFFSET);
	ck_assert_uint_eq(t.ns, 12500000000ULL);
	ck_assert_int_eq(gen_parse_time("0.000000001", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.ns, 1);
	ck_assert_int_eq(gen_parse_time("@1764064800.25", &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.kind, GT_EPOCH);
	ck_assert_uint_eq(t.ns, 1764064800250000000ULL);
	ck_assert_int_eq(gen_parse_time("2026-11-25T10:00:00", &t, err,
					sizeof(err)), 0);
	ck_assert_int_eq(t.kind, GT_EPOCH);
	ck_assert_uint_eq(t.ns, 1795600800ULL * 1000000000ULL);
	ck_assert_int_eq(gen_parse_time("2026-11-25T10:00:00.5Z", &t, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(t.ns, 1795600800500000000ULL);
	ck_assert_int_eq(gen_parse_time("2026-11-25T11:30:00+01:30", &t, err,
					sizeof(err)), 0);
	ck_assert_uint_eq(t.ns, 1795600800ULL * 1000000000ULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(gen_parse_time(bad[i], &t, err, sizeof(err)) ==
			      -EINVAL, "accepted '%s'", bad[i]);
		ck_assert_msg(strstr(err, "bad time"), "%s", err);
	}
}
END_TEST

/*
 * --only-syscalls read: the file made and written in the capture is in
 * INIT with the size the reads need; its open is kept without O_CREAT and
 * O_TRUNC, the left-out lseek is written again before the next read, the
 * close of the open is kept; nothing else.
 */
START_TEST(test_only_read)
{
	struct gen_filters f = { .classes = 1u << CLS_READ };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" WORKLOAD(""),
			      &f, &sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "#|only_syscalls=read|");
	ASSERT_LINE(replay, "f 8192 /.ioriot/t/data/d/new");
	ASSERT_LINE(replay, "f 200 /.ioriot/t/data/old");
	ck_assert_str_eq(ops,
		"500:500 500 10 - openat 4 vfd=1 path=/.ioriot/t/data/old flags=0x0\n"
		"500:500 600 10 - read 100 fd=1 count=100\n"
		"500:500 1000 10 - openat 3 vfd=2 path=/.ioriot/t/data/d/new flags=0x2 mode=0644\n"
		"500:500 5000 0 - lseek 0 fd=2 off=0 whence=0\n"
		"500:500 5000 10 - read 4096 fd=2 count=4096\n"
		"500:500 6000 10 - pread64 4096 fd=2 off=4096 count=4096\n"
		"500:500 1000000000 10 - read 4096 fd=2 count=4096\n"
		"500:500 1000002000 10 - read 0 fd=2 count=0\n"
		"500:500 1000003000 10 - close 0 fd=2\n"
		"500:500 1000005000 10 - read 100 fd=1 count=100\n"
		"500:500 1000006000 10 - close 0 fd=1\n");
	/* mkdir, write, fsync, lseek, stat, unlink */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 6);
	ck_assert_uint_eq(sum.filtered[GF_FILTER_FD], 0);
	ck_assert_uint_eq(sum.filter_plain_opens, 1);
	/* the read at the end: the writes left out would grow the file */
	ck_assert_uint_eq(sum.filter_reads_cut, 1);
	ck_assert_uint_eq(sum.filter_seeks, 1);
	ck_assert_uint_eq(sum.filter_closes, 2);
	ck_assert_uint_eq(sum.filter_reopens, 0);
	ck_assert_uint_eq(sum.ops, 11);
	free(ops);
	free(replay);
}
END_TEST

/* --only-syscalls meta,open: the namespace and stat calls as captured,
 * the opens with their flags. */
START_TEST(test_only_meta)
{
	struct gen_filters f = { .classes = 1u << CLS_META | 1u << CLS_OPEN };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" WORKLOAD(""),
			      &f, &sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "#|only_syscalls=meta+open|");
	ck_assert_msg(strstr(ops, " mkdir 0 path=/.ioriot/t/data/d mode=0755\n") &&
		      strstr(ops, " openat 3 vfd=2 path=/.ioriot/t/data/d/new "
			     "flags=0x242 mode=0644\n") &&
		      strstr(ops, " stat 0 path=/.ioriot/t/data/d/new\n") &&
		      strstr(ops, " unlink 0 path=/.ioriot/t/data/d/new\n") &&
		      !strstr(ops, " read ") && !strstr(ops, " write ") &&
		      !strstr(ops, " fsync ") && !strstr(ops, " lseek "), "%s",
		      ops);
	/* 5 reads, pread64, write, fsync, lseek */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 9);
	ck_assert_uint_eq(sum.filter_plain_opens, 0);
	ck_assert_uint_eq(sum.filter_closes, 0);
	free(ops);
	free(replay);
}
END_TEST

/* --only-syscalls meta: an open that made its file is kept for its fd
 * without O_CREAT (the file is in INIT) until a kept unlink removed the
 * file: then it makes it again, as captured. */
START_TEST(test_plain_opens)
{
	struct gen_filters f = { .classes = 1u << CLS_META };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,D=10;:,i=7:7;:,o=openat;:,d=-100;:,p=/f;:,f=577;:,m=420;:,r=3;:,\n"
		"t=1;:,D=10;:,i=7:7;:,o=write;:,d=3;:,c=5;:,r=5;:,\n"
		"t=2;:,D=10;:,i=7:7;:,o=close;:,d=3;:,r=0;:,\n"
		"t=3;:,D=10;:,i=7:7;:,o=unlink;:,p=/f;:,r=0;:,\n"
		"t=4;:,D=10;:,i=7:7;:,o=openat;:,d=-100;:,p=/f;:,f=577;:,m=420;:,r=3;:,\n"
		"t=5;:,D=10;:,i=7:7;:,o=fstat;:,d=3;:,r=0;:,\n"
		"t=6;:,D=10;:,i=7:7;:,o=close;:,d=3;:,r=0;:,\n"
		"t=7;:,D=10;:,i=7:7;:,o=openat;:,d=-100;:,p=/g;:,f=0;:,r=-2;:,\n", &f,
		&sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "f 0 /.ioriot/t/f");
	ck_assert_str_eq(ops,
		"7:7 0 10 - openat 3 vfd=1 path=/.ioriot/t/f flags=0x1 mode=0644\n"
		"7:7 2 10 - close 0 fd=1\n"
		"7:7 3 10 - unlink 0 path=/.ioriot/t/f\n"
		"7:7 4 10 - openat 3 vfd=2 path=/.ioriot/t/f flags=0x241 mode=0644\n"
		"7:7 5 10 - fstat 0 fd=2\n"
		"7:7 6 10 - close 0 fd=2\n");
	ck_assert_uint_eq(sum.filter_plain_opens, 1);
	ck_assert_uint_eq(sum.filter_closes, 2);
	/* the write; the failed open */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 2);
	free(ops);
	free(replay);
}
END_TEST

/*
 * --from 0.5 --to 1.5: what happened before is INIT state; the fds opened
 * before the window and used in it are opened at its start, at their
 * positions; times count from the window's start; the unlink after it is
 * left out.
 */
START_TEST(test_window)
{
	struct gen_filters f = {
		.from = { GT_OFFSET, 500000000 }, .to = { GT_OFFSET, 1500000000 },
	};
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" WORKLOAD(""),
			      &f, &sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "#|from_ns=500000000|to_ns=1500000000|");
	ASSERT_LINE(replay, "#|ops=10|timelines=1|processes=1|duration_ns=1000000000|");
	ASSERT_LINE(replay, "f 8192 /.ioriot/t/data/d/new mode=0644");
	ASSERT_LINE(replay, "f 200 /.ioriot/t/data/old");
	ck_assert_str_eq(ops,
		"500:500 500000000 0 - openat 3 vfd=1 path=/.ioriot/t/data/d/new flags=0x2\n"
		"500:500 500000000 0 - lseek 4096 fd=1 off=4096 whence=0\n"
		"500:500 500000000 0 - openat 4 vfd=2 path=/.ioriot/t/data/old flags=0x0\n"
		"500:500 500000000 0 - lseek 100 fd=2 off=100 whence=0\n"
		"500:500 500000000 10 - read 4096 fd=1 count=4096\n"
		"500:500 500001000 10 - stat 0 path=/.ioriot/t/data/d/new\n"
		"500:500 500002000 10 - read 0 fd=1 count=4096\n"
		"500:500 500003000 10 - close 0 fd=1\n"
		"500:500 500005000 10 - read 100 fd=2 count=100\n"
		"500:500 500006000 10 - close 0 fd=2\n");
	/* 9 before the window, the unlink after it */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 10);
	ck_assert_uint_eq(sum.filter_reopens, 2);
	ck_assert_uint_eq(sum.filter_seeks, 2);
	ck_assert_uint_eq(sum.filter_window_start_ns, 500000000);
	ck_assert_uint_eq(sum.filter_window_end_ns, 1500000000);
	free(ops);
	free(replay);
}
END_TEST

/*
 * The size a file had when the capture saw it first holds for INIT when
 * the window leaves that out: an fd open at the start (openfd's s=) and
 * an open that found the file (the probe's s= at its exit), both before
 * the window, of files the window only overwrites (a preallocated log):
 * INIT makes them as long as they were, not empty.  An open that
 * truncates tells nothing of the size before.
 */
START_TEST(test_window_sizes)
{
	struct gen_filters f = { .from = { GT_OFFSET, 1000 } };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,i=600:600;:,o=openfd;:,d=3;:,p=/data/wal;:,f=2;:,O=0;:,"
		"s=16777216;:,m=33188;:,\n"
		"t=100;:,D=10;:,i=600:600;:,o=openat;:,d=-100;:,p=/data/seg;:,"
		"f=2;:,s=65536;:,r=4;:,\n"
		"t=200;:,D=10;:,i=600:600;:,o=openat;:,d=-100;:,p=/data/tr;:,"
		"f=514;:,s=0;:,r=5;:,\n"
		"t=5000;:,D=100;:,i=600:600;:,o=pwrite64;:,d=3;:,c=8192;:,O=0;:,"
		"r=8192;:,\n"
		"t=5200;:,D=100;:,i=600:600;:,o=pwrite64;:,d=4;:,c=4096;:,O=0;:,"
		"r=4096;:,\n"
		"t=5400;:,D=100;:,i=600:600;:,o=pwrite64;:,d=5;:,c=10;:,O=0;:,"
		"r=10;:,\n", &f, &sum);

	ASSERT_LINE(replay, "f 16777216 /.ioriot/t/data/wal mode=0644");
	ASSERT_LINE(replay, "f 65536 /.ioriot/t/data/seg");
	ASSERT_LINE(replay, "f 0 /.ioriot/t/data/tr");
	free(replay);
}
END_TEST

/* Wall-clock times against start_epoch_ns, and refused for a log without
 * it. */
START_TEST(test_window_wallclock)
{
	struct gen_filters f = {
		.from = { GT_EPOCH, 1700000000500000000ULL },
		.to = { GT_EPOCH, 1700000001500000000ULL },
	};
	struct gen_summary sum;
	char err[ERRLEN];
	int rc;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" WORKLOAD(""),
			      &f, &sum);

	ASSERT_LINE(replay, "#|from_ns=500000000|to_ns=1500000000|");
	free(replay);

	replay = gen("#|capture_version=4|\n#|host=h|kernel=6.1.0|backend=test|\n"
		     "#|mount=/|fstype=ext4|\n" WORKLOAD(""), &f, &sum, &rc, err);
	ck_assert_ptr_null(replay);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_msg(strstr(err, "--from gives a wall-clock time, but the log "
			     "records no wall-clock start"), "%s", err);

	f.from = (struct gen_time){ GT_OFFSET, 2000000000 };
	f.to = (struct gen_time){ GT_OFFSET, 1000000000 };
	replay = gen(HEADER "#|mount=/|fstype=ext4|\n" WORKLOAD(""), &f, &sum,
		     &rc, err);
	ck_assert_ptr_null(replay);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_msg(strstr(err, "is not before --to"), "%s", err);
}
END_TEST

/*
 * --only-comm dd: the output the shell opened for dd before its exec is
 * opened when dd starts; the shell's stat is left out.
 */
START_TEST(test_only_comm)
{
	static const char *const comms[] = { "dd" };
	struct gen_filters f = { .comms = comms, .ncomms = 1 };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" REDIRECT, &f,
			      &sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "#|only_comm=dd|");
	ASSERT_LINE(replay, "f 0 /.ioriot/t/srv/out/log");
	ck_assert_str_eq(ops,
		"601:601 3000 0 - openat 1 vfd=1 path=/.ioriot/t/srv/out/log flags=0x1\n"
		"601:601 4000 10 - openat 3 vfd=2 path=/.ioriot/t/srv/in/src flags=0x0\n"
		"601:601 5000 10 - read 512 fd=2 count=512\n"
		"601:601 6000 10 - write 512 fd=1 count=512\n"
		"601:601 7000 10 - stat 0 path=/.ioriot/t/etc/passwd\n"
		"601:601 8000 0 - close 0 fd=1\n"
		"601:601 8000 0 - close 0 fd=2\n");
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 2);
	ck_assert_uint_eq(sum.filter_reopens, 1);
	free(ops);
	free(replay);
}
END_TEST

/*
 * --only-comm of a daemon that runs when the capture begins and never
 * execs: the /proc snapshot's cwd record names it (P), so its file open
 * then and its calls are kept, those of the other process left out; a
 * child it forks is of its program too.
 */
START_TEST(test_only_comm_snapshot)
{
	static const char *const comms[] = { "pydaemon" };
	struct gen_filters f = { .comms = comms, .ncomms = 1 };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,i=700:700;:,o=cwd;:,p=/srv;:,P=pydaemon;:,\n"
		"t=0;:,i=700:700;:,o=openfd;:,d=5;:,p=/srv/db;:,f=2;:,O=0;:,s=4096;:,m=33188;:,\n"
		"t=0;:,i=800:800;:,o=cwd;:,p=/;:,P=other;:,\n"
		"t=1000;:,D=10;:,i=700:700;:,o=pwrite64;:,d=5;:,O=0;:,c=512;:,r=512;:,\n"
		"t=2000;:,D=10;:,i=800:800;:,o=stat;:,p=/etc/passwd;:,m=33188;:,s=100;:,r=0;:,\n"
		"t=3000;:,D=10;:,i=700:700;:,o=fork;:,k=701:701;:,r=701;:,\n"
		"t=4000;:,D=10;:,i=701:701;:,o=fsync;:,d=5;:,r=0;:,\n",
		&f, &sum);
	char *ops = ops_of(replay);

	ck_assert_str_eq(ops,
		"700:700 0 0 - openat 5 vfd=1 path=/.ioriot/t/srv/db flags=0x2\n"
		"700:700 1000 10 - pwrite64 512 fd=1 off=0 count=512\n"
		"701:701 4000 10 1 fsync 0 fd=1 parent=700:700\n");
	free(ops);
	free(replay);
}
END_TEST

/* --only-path: operations on paths below the prefixes, by path or by fd;
 * an fd of a file outside is never opened. */
START_TEST(test_only_path)
{
	static const char *const paths[] = { "/srv/out" };
	struct gen_filters f = { .paths = paths, .npaths = 1 };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n" REDIRECT, &f,
			      &sum);
	char *ops = ops_of(replay);

	ASSERT_LINE(replay, "#|only_path=/srv/out|");
	ck_assert_str_eq(ops,
		"601:601 2000 10 - openat 1 vfd=1 path=/.ioriot/t/srv/out/log flags=0x241 mode=0644\n"
		"601:601 6000 10 - write 512 fd=1 count=512\n"
		"601:601 8000 0 - close 0 fd=1\n"
		"600:600 9000 10 2 stat 0 path=/.ioriot/t/srv/out/log\n");
	/* the open of src, its read, the stat of /etc/passwd */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 3);
	free(ops);
	free(replay);
}
END_TEST

/* A filter that leaves an operation on an fd it never opens: counted as
 * such, not written. */
START_TEST(test_fd_left_out)
{
	static const char *const comms[] = { "bash" };
	struct gen_filters f = { .comms = comms, .ncomms = 1 };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,D=10;:,i=600:600;:,o=exec;:,p=/bin/bash;:,r=0;:,\n"
		"t=1000;:,D=10;:,i=600:600;:,o=fork;:,k=601:601;:,r=601;:,\n"
		"t=2000;:,D=10;:,i=601:601;:,o=exec;:,p=/usr/bin/cat;:,r=0;:,\n"
		"t=3000;:,D=10;:,i=601:601;:,o=openat;:,d=-100;:,p=/srv/a;:,f=0;:,r=3;:,\n"
		"t=4000;:,D=10;:,i=601:601;:,o=fork;:,k=602:602;:,r=602;:,\n"
		"t=5000;:,D=10;:,i=602:602;:,o=exec;:,p=/bin/bash;:,r=0;:,\n"
		"t=6000;:,D=10;:,i=602:602;:,o=stat;:,p=/srv/b;:,m=33188;:,s=1;:,r=0;:,\n",
		&f, &sum);
	char *ops = ops_of(replay);

	/* bash execs with the fd cat opened: opened for it at its exec */
	ck_assert_str_eq(ops,
		"602:602 5000 0 - openat 3 vfd=1 path=/.ioriot/t/srv/a flags=0x0\n"
		"602:602 6000 10 - stat 0 path=/.ioriot/t/srv/b\n");
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 1);
	ck_assert_uint_eq(sum.filter_reopens, 1);
	free(ops);
	free(replay);

	/* --to before the exec: the fd is used by nothing kept */
	f.to = (struct gen_time){ GT_OFFSET, 5500 };
	f.comms = NULL;
	f.ncomms = 0;
	static const char *const paths[] = { "/srv/b" };
	f.paths = paths;
	f.npaths = 1;
	replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,D=10;:,i=600:600;:,o=openat;:,d=-100;:,p=/srv/a;:,f=0;:,r=3;:,\n"
		"t=1000;:,D=10;:,i=600:600;:,o=read;:,d=3;:,c=1;:,r=1;:,\n"
		"t=2000;:,D=10;:,i=600:600;:,o=stat;:,p=/srv/b;:,m=33188;:,s=1;:,r=0;:,\n",
		&f, &sum);
	ck_assert_uint_eq(sum.ops, 1);
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 2);
	free(replay);
}
END_TEST

/*
 * A file mapping and an AIO context set up before the window: their page
 * records and calls in it cannot be replayed (the replay has no such
 * mapping or context) and are counted as such; the fd opened before is
 * opened at the window's start all the same, for the pread64 in it.
 */
START_TEST(test_window_contexts)
{
	struct gen_filters f = { .from = { GT_OFFSET, 1000 } };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,D=10;:,i=100:100;:,o=openat;:,d=-100;:,p=/data/m;:,f=2;:,r=3;:,\n"
		"t=100;:,D=10;:,i=100:100;:,o=mmap;:,d=3;:,a=0;:,c=65536;:,m=3;:,f=1;:,O=0;:,r=139637976727552;:,\n"
		"t=200;:,D=10;:,i=100:100;:,o=io_setup;:,c=16;:,a=1000;:,r=0;:,\n"
		"t=2000;:,D=0;:,i=100:100;:,o=mmap_read;:,O=0;:,a=139637976727552;:,\n"
		"t=2100;:,D=0;:,i=100:100;:,o=mmap_read;:,O=4096;:,a=139637976731648;:,\n"
		"t=3000;:,i=100:100;:,o=iocb;:,a=1000;:,A=64;:,d=3;:,F=0;:,O=8192;:,c=4096;:,\n"
		"t=3000;:,D=9;:,i=100:100;:,o=io_submit;:,a=1000;:,c=1;:,r=1;:,\n"
		"t=4000;:,D=10;:,i=100:100;:,o=pread64;:,d=3;:,O=0;:,c=100;:,r=100;:,\n"
		"t=5000;:,D=10;:,i=100:100;:,o=munmap;:,a=139637976727552;:,c=65536;:,r=0;:,\n"
		"t=6000;:,D=10;:,i=100:100;:,o=io_destroy;:,a=1000;:,r=0;:,\n"
		"t=7000;:,D=10;:,i=100:100;:,o=close;:,d=3;:,r=0;:,\n",
		&f, &sum);
	char *ops = ops_of(replay);

	ck_assert_str_eq(ops,
		"100:100 1000 0 - openat 3 vfd=1 path=/.ioriot/t/data/m flags=0x2\n"
		"100:100 3000 10 - pread64 100 fd=1 off=0 count=100\n"
		"100:100 6000 10 - close 0 fd=1\n");
	/* open, mmap, io_setup */
	ck_assert_uint_eq(sum.filtered[GF_FILTERED], 3);
	/* 2 pages, iocb, io_submit, munmap, io_destroy */
	ck_assert_uint_eq(sum.filtered[GF_FILTER_CTX], 6);
	ck_assert_uint_eq(sum.filtered[GF_AIO], 0);
	ck_assert_uint_eq(sum.filtered[GF_UNKNOWN_MAP], 0);
	ck_assert_uint_eq(sum.filter_reopens, 1);
	free(ops);
	free(replay);
}
END_TEST

/* Positions: left-out reads on an O_APPEND fd are followed by an lseek;
 * after a left-out append write the position is unknown: a kept read
 * counts it, a kept append write does not need it. */
START_TEST(test_positions)
{
	struct gen_filters f = { .classes = 1u << CLS_READ | 1u << CLS_OPEN };
	struct gen_summary sum;
	char *replay = gen_ok(HEADER "#|mount=/|fstype=ext4|\n"
		"t=0;:,D=10;:,i=7:7;:,o=openat;:,d=-100;:,p=/l;:,f=1090;:,r=3;:,\n"
		"t=1;:,D=10;:,i=7:7;:,o=lseek;:,d=3;:,O=10;:,W=0;:,r=10;:,\n"
		"t=2;:,D=10;:,i=7:7;:,o=read;:,d=3;:,c=10;:,r=10;:,\n"
		"t=3;:,D=10;:,i=7:7;:,o=write;:,d=3;:,c=5;:,r=5;:,\n"
		"t=4;:,D=10;:,i=7:7;:,o=read;:,d=3;:,c=10;:,r=0;:,\n"
		"t=5;:,D=10;:,i=7:7;:,o=close;:,d=3;:,r=0;:,\n", &f, &sum);
	char *ops = ops_of(replay);

	ck_assert_str_eq(ops,
		"7:7 0 10 - openat 3 vfd=1 path=/.ioriot/t/l flags=0x442\n"
		"7:7 2 0 - lseek 10 fd=1 off=10 whence=0\n"
		"7:7 2 10 - read 10 fd=1 count=10\n"
		"7:7 4 10 - read 0 fd=1 count=0\n"
		"7:7 5 10 - close 0 fd=1\n");
	ck_assert_uint_eq(sum.filter_seeks, 1);
	ck_assert_uint_eq(sum.filter_pos_lost, 1);
	free(ops);
	free(replay);
}
END_TEST

/* Bad filter options: a clear message and a non-zero exit. */
START_TEST(test_cli_errors)
{
	static const char *const cases[][3] = {
		{ "--only-syscalls", "read,bogus", "unknown class 'bogus'" },
		{ "--from", "1x", "--from: bad time '1x'" },
		{ "--to", "2026-11-25T25:00:00", "--to: bad time" },
		{ "--only-path", "srv", "--only-path expects an absolute path" },
		{ "--only-comm", "a,,b", "--only-comm expects process names" },
	};
	char *dir = tu_scratch();
	char *cap = tu_write_str(dir, "f.capture", HEADER "#|mount=/|fstype=ext4|\n"
				 WORKLOAD(""));
	char *rep = tu_join(dir, "f.replay");
	char *out, *err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "ioriot", "-c", cap, "-r", rep, "-n", "t", "-u",
				 "tester", (char *)cases[i][0],
				 (char *)cases[i][1], NULL };
		int rc = tu_run(argv, &out, &err);
		ck_assert_msg(rc != 0 && strstr(err, cases[i][2]),
			      "%s %s: exit %d: %s", cases[i][0], cases[i][1],
			      rc, err);
		ck_assert_int_ne(access(rep, F_OK), 0);
		free(out);
		free(err);
	}
	char *wall[] = { "ioriot", "-c", cap, "-r", rep, "-n", "t", "-u",
			 "tester", "--from", "@1", "--to", "5", NULL };
	char *v3 = tu_write_str(dir, "v3.capture", "#|capture_version=4|\n"
				"#|mount=/|fstype=ext4|\n" WORKLOAD(""));
	wall[2] = v3;
	int rc = tu_run(wall, &out, &err);
	ck_assert_msg(rc != 0 && strstr(err, "records no wall-clock start"),
		      "exit %d: %s", rc, err);
	free(out);
	free(err);
	char *replay_mode[] = { "ioriot", "-r", rep, "--from", "1", NULL };
	rc = tu_run(replay_mode, &out, &err);
	ck_assert_msg(rc != 0 && strstr(err, "--from goes with -c FILE -r FILE (generate)"),
		      "exit %d: %s", rc, err);
	free(out);
	free(err);

	/* And one that works prints what the filters did. */
	char *ok[] = { "ioriot", "-c", cap, "-r", rep, "-n", "t", "-u",
		       "tester", "--from", "0.5", "--only-syscalls", "read,meta",
		       NULL };
	rc = tu_run(ok, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(strstr(out, "Filters: 9 events left out, 0 operations "
			     "left out because their fd was opened by one, 0 "
			     "because their mapping, AIO context or ring was "
			     "set up by one\n") &&
		      strstr(out, "Opens added for fds opened before") &&
		      strstr(out, "0.500s to the end"), "%s", out);
	free(out);
	free(err);
	free(v3);
	free(rep);
	free(cap);
	free(dir);
}
END_TEST

/* The figures of the replay's JSON statistics @json: every "differ" is 0,
 * and the read row has @reads operations. */
static void check_stats(const char *json, unsigned reads)
{
	char want[64];
	unsigned n = 0;

	for (const char *p = json; (p = strstr(p, "\"differ\": ")); p++, n++)
		ck_assert_msg(!strncmp(p, "\"differ\": 0,", 12), "%s", json);
	ck_assert_msg(n > 0, "%s", json);
	snprintf(want, sizeof(want), "\"read\": {\"ops\": %u,", reads);
	ck_assert_msg(strstr(json, want), "no %s in %s", want, json);
}

/* Generate with @filter and @arg from the workload under mountpoint @mnt,
 * init and replay it there; check its statistics. */
static void replay_filtered(const char *dir, const char *mnt,
			    const char *filter, const char *arg,
			    unsigned reads)
{
	char *text, *cap, *rep, *stats, *out, *err;
	int rc;

	ck_assert(asprintf(&text, HEADER "#|mount=%1$s|fstype=tmpfs|\n"
			   WORKLOAD("%1$s"), mnt) > 0);
	cap = tu_write_str(dir, "e.capture", text);
	rep = tu_join(dir, "e.replay");
	stats = tu_join(dir, "e.json");
	char *gen_argv[] = { "ioriot", "-q", "-c", cap, "-r", rep, "-n", "t",
			     "-u", "root", (char *)filter, (char *)arg, NULL };
	rc = tu_run(gen_argv, &out, &err);
	ck_assert_msg(rc == 0, "generate: exit %d: %s", rc, err);
	free(out);
	free(err);
	char *run_argv[] = { "ioriot", "-q", "-R", rep, "-D", "-u", "root",
			     "--allow-root", "-S", stats, NULL };
	rc = tu_run(run_argv, &out, &err);
	ck_assert_msg(rc == 0, "replay: exit %d: %s\n%s", rc, err, out);
	free(out);
	free(err);
	char *json = tu_read(stats, NULL);
	ck_assert_ptr_nonnull(json);
	check_stats(json, reads);
	free(json);
	free(text);
	free(stats);
	free(rep);
	free(cap);
}

/*
 * End to end on a tmpfs: with --only-syscalls read, and with a window that
 * starts after the file was made, written and its fds opened, the reads
 * kept find their files, sizes and positions: no result differs.
 */
START_TEST(test_replay_filtered)
{
	char *dir = tu_scratch();
	char *mnt1 = tu_join(dir, "m1"), *mnt2 = tu_join(dir, "m2");

	if (geteuid() != 0) {
		fprintf(stderr, "test_replay_filtered: skipped, needs root\n");
		goto out;
	}
	ck_assert_msg(tu_mount_tmpfs(mnt1) && tu_mount_tmpfs(mnt2),
		      "sandboxes must be on a mountpoint");
	/* old: 2 reads; new: 3 reads (pread64 apart) */
	replay_filtered(dir, mnt1, "--only-syscalls", "read", 5);
	/* new: 2 reads; old: 1 */
	replay_filtered(dir, mnt2, "--from", "0.5", 3);
out:
	free(mnt1);
	free(mnt2);
	free(dir);
}
END_TEST

Suite *filter_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("filters");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, test_parse_classes);
	tcase_add_test(tc, test_parse_time);
	tcase_add_test(tc, test_only_read);
	tcase_add_test(tc, test_only_meta);
	tcase_add_test(tc, test_plain_opens);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_window_sizes);
	tcase_add_test(tc, test_window_wallclock);
	tcase_add_test(tc, test_window_contexts);
	tcase_add_test(tc, test_positions);
	tcase_add_test(tc, test_only_comm);
	tcase_add_test(tc, test_only_comm_snapshot);
	tcase_add_test(tc, test_only_path);
	tcase_add_test(tc, test_fd_left_out);
	tcase_add_test(tc, test_cli_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replay_filtered);
	suite_add_tcase(s, tc);
	return s;
}
