/*
 * Tests of the capture log reader and writer (src/caplog): v4 round trips
 * of every operation, v2/v3 parsing of the original I/O Riot logs, path
 * escaping, the v4 header, and rejection of bad files and lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/caplog.h"
#include "ioriot/log.h"
#include "ioriot/mounts.h"
#include "ioriot/outbuf.h"
#include "ioriot/syscalls.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Write a v4 log: @hdr then @n events.  Returns the malloc'd path. */
static char *write_v4(const char *dir, const struct caplog_header *hdr,
		      const struct cap_event *ev, size_t n)
{
	struct outbuf *ob = malloc(sizeof(*ob));
	char *path;

	ck_assert(ob);
	ck_assert(asprintf(&path, "%s/v4.capture", dir) > 0);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	caplog_write_header(ob, hdr);
	for (size_t i = 0; i < n; i++)
		caplog_write_event(ob, &ev[i]);
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);
	free(ob);
	return path;
}

static struct caplog_reader *open_ok(const char *path)
{
	char err[512] = "";
	struct caplog_reader *r = caplog_open(path, err, sizeof(err));

	ck_assert_msg(r, "caplog_open(%s): %s", path, err);
	return r;
}

/* Capture log @text written to a new file @name in a scratch directory
 * (the test case's fixture removes it), opened as open_ok() does. */
static struct caplog_reader *open_text(const char *name, const char *text)
{
	char *dir = tu_scratch(), *path = tu_write_str(dir, name, text);
	struct caplog_reader *r = open_ok(path);

	free(path);
	free(dir);
	return r;
}

static void assert_no_bad(const struct caplog_reader *r)
{
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(r, why) == 0, "%llu lines rejected: %s",
			      (unsigned long long)caplog_bad(r, why),
			      caplog_bad_name(why));
}

static void assert_path(const char *what, const char *got, uint32_t got_len,
			const char *want, size_t want_len)
{
	ck_assert_msg(got, "%s: no path", what);
	ck_assert_msg(got_len == want_len, "%s: path length %u, want %zu",
		      what, got_len, want_len);
	ck_assert_msg(memcmp(got, want, want_len) == 0,
		      "%s: path \"%.*s\", want \"%.*s\"", what, (int)got_len,
		      got, (int)want_len, want);
	ck_assert_msg(got[got_len] == '\0', "%s: path not NUL-terminated", what);
}

/*
 * Compare @got with @want: identity, times and the have mask always, every
 * other field where @want has its bit.  dur_ns must be 0 without CAP_DUR.
 */
static void assert_event(const char *what, const struct cap_event *want,
			 const struct cap_event *got)
{
	unsigned h = want->have;

	ck_assert_msg(got->sys == want->sys, "%s: sys %s, want %s", what,
		      sys_info(got->sys)->name, sys_info(want->sys)->name);
	ck_assert_msg(got->have == h, "%s: have 0x%x, want 0x%x", what,
		      got->have, h);
	ck_assert_msg(got->pid == want->pid && got->tid == want->tid,
		      "%s: i=%u:%u, want %u:%u", what, got->pid, got->tid,
		      want->pid, want->tid);
	ck_assert_msg(got->time_ns == want->time_ns, "%s: time %llu, want %llu",
		      what, (unsigned long long)got->time_ns,
		      (unsigned long long)want->time_ns);
	ck_assert_msg(got->dur_ns == ((h & CAP_DUR) ? want->dur_ns : 0),
		      "%s: dur %llu, want %llu", what,
		      (unsigned long long)got->dur_ns,
		      (unsigned long long)((h & CAP_DUR) ? want->dur_ns : 0));
#define SAME(bit, field) \
	ck_assert_msg(!(h & (bit)) || got->field == want->field, \
		      "%s: " #field " %lld, want %lld", what, \
		      (long long)got->field, (long long)want->field)
	SAME(CAP_RET, ret);
	SAME(CAP_FD, fd);
	SAME(CAP_FD2, fd2);
	SAME(CAP_FLAGS, flags);
	SAME(CAP_MODE, mode);
	SAME(CAP_OFFSET, offset);
	SAME(CAP_OFFSET2, offset2);
	SAME(CAP_WHENCE, whence);
	SAME(CAP_COUNT, count);
	SAME(CAP_CMD, cmd);
	SAME(CAP_ARG, arg);
	SAME(CAP_UID, uid);
	SAME(CAP_SIZE, size);
	SAME(CAP_ADDR, addr);
	SAME(CAP_ADDR2, addr2);
	SAME(CAP_BUF, buf_index);
	SAME(CAP_CHILD, child_pid);
	SAME(CAP_CHILD, child_tid);
	SAME(CAP_UMASK, umask);
	SAME(CAP_CPU, cpu_ns);
	SAME(CAP_CPU_CALL, cpu_call_ns);
#undef SAME
	if (h & CAP_PATH)
		assert_path(what, got->path, got->path_len, want->path,
			    want->path_len);
	if (h & CAP_PATH2)
		assert_path(what, got->path2, got->path2_len, want->path2,
			    want->path2_len);
}

/* ---- v4: every operation of the table ---------------------------------- */

/* The fields a v4 record of each kind carries. */
static const unsigned kind_fields[] = {
	[SK_OPEN] = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE | CAP_UMASK |
		    CAP_RET,
	[SK_CLOSE] = CAP_FD | CAP_RET,
	[SK_CLOSE_RANGE] = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_RET,
	[SK_DUP] = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_RET,
	[SK_READ] = CAP_FD | CAP_COUNT | CAP_OFFSET | CAP_FLAGS | CAP_RET,
	[SK_WRITE] = CAP_FD | CAP_COUNT | CAP_OFFSET | CAP_FLAGS | CAP_RET,
	[SK_SEEK] = CAP_FD | CAP_OFFSET | CAP_WHENCE | CAP_RET,
	[SK_READDIR] = CAP_FD | CAP_COUNT | CAP_RET,
	[SK_FDOP] = CAP_FD | CAP_OFFSET | CAP_OFFSET2 | CAP_COUNT | CAP_MODE |
		    CAP_FLAGS | CAP_UID | CAP_ARG | CAP_SIZE | CAP_RET,
	[SK_FCNTL] = CAP_FD | CAP_CMD | CAP_ARG | CAP_WHENCE | CAP_OFFSET |
		     CAP_COUNT | CAP_RET,
	[SK_PATHOP] = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE | CAP_UID |
		      CAP_ARG | CAP_COUNT | CAP_SIZE | CAP_RET,
	[SK_STATAT] = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_SIZE | CAP_RET,
	[SK_TRUNCATE] = CAP_PATH | CAP_OFFSET | CAP_RET,
	[SK_MKDIR] = CAP_FD | CAP_PATH | CAP_MODE | CAP_UMASK | CAP_RET,
	[SK_MKNOD] = CAP_FD | CAP_PATH | CAP_MODE | CAP_UMASK | CAP_RET,
	[SK_RMDIR] = CAP_PATH | CAP_RET,
	[SK_UNLINK] = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_RET,
	[SK_RENAME] = CAP_FD | CAP_FD2 | CAP_PATH | CAP_PATH2 | CAP_FLAGS |
		      CAP_RET,
	[SK_LINK] = CAP_FD | CAP_FD2 | CAP_PATH | CAP_PATH2 | CAP_FLAGS |
		    CAP_RET,
	[SK_SYMLINK] = CAP_FD | CAP_PATH | CAP_PATH2 | CAP_RET,
	[SK_SENDFILE] = CAP_FD | CAP_FD2 | CAP_OFFSET | CAP_COUNT | CAP_RET,
	[SK_COPY_RANGE] = CAP_FD | CAP_FD2 | CAP_OFFSET | CAP_OFFSET2 |
			  CAP_COUNT | CAP_FLAGS | CAP_RET,
	[SK_SYNC] = CAP_RET,
	[SK_CHDIR] = CAP_PATH | CAP_RET,
	[SK_FCHDIR] = CAP_FD | CAP_RET,
	[SK_MMAP] = CAP_ADDR | CAP_COUNT | CAP_MODE | CAP_FLAGS | CAP_FD |
		    CAP_OFFSET | CAP_ADDR2 | CAP_RET,
	[SK_ADDR] = CAP_ADDR | CAP_ADDR2 | CAP_COUNT | CAP_FLAGS | CAP_RET,
	[SK_EXIT_GROUP] = CAP_ARG,
	[SK_FORK] = CAP_CHILD | CAP_FLAGS,
	[SK_EXEC] = CAP_PATH,
	[SK_EXIT] = CAP_RET,
	[SK_OPENFD] = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_OFFSET | CAP_SIZE,
	[SK_CWD] = CAP_PATH,
	[SK_LOST] = CAP_COUNT,
	[SK_AIO_SETUP] = CAP_COUNT | CAP_ADDR | CAP_RET,
	[SK_AIO_DESTROY] = CAP_ADDR | CAP_RET,
	[SK_AIO_SUBMIT] = CAP_ADDR | CAP_COUNT | CAP_RET,
	[SK_AIO_CANCEL] = CAP_ADDR | CAP_ADDR2 | CAP_RET,
	[SK_AIO_GETEVENTS] = CAP_ADDR | CAP_ARG | CAP_COUNT | CAP_RET,
	[SK_IOCB] = CAP_ADDR | CAP_ADDR2 | CAP_FD | CAP_FD2 | CAP_OFFSET |
		    CAP_COUNT | CAP_FLAGS | CAP_CMD | CAP_ARG,
	[SK_IO_EVENT] = CAP_ADDR | CAP_ADDR2 | CAP_RET,
	[SK_MAPPAGE] = CAP_ADDR | CAP_OFFSET,
	[SK_AIO_DATA] = CAP_RET,
	[SK_AIO_DONE] = CAP_RET,
	[SK_URING_SETUP] = CAP_COUNT | CAP_FLAGS | CAP_ARG | CAP_RET,
	[SK_URING_ENTER] = CAP_FD | CAP_COUNT | CAP_ARG | CAP_FLAGS | CAP_RET,
	[SK_URING_REGISTER] = CAP_FD | CAP_CMD | CAP_COUNT | CAP_RET,
	[SK_URING_SQE] = CAP_FD2 | CAP_FD | CAP_OFFSET | CAP_COUNT | CAP_FLAGS |
			 CAP_ADDR2 | CAP_CMD | CAP_ARG | CAP_BUF,
	[SK_URING_CQE] = CAP_FD2 | CAP_ADDR2 | CAP_CMD | CAP_RET,
	[SK_URING_FILE] = CAP_FD2 | CAP_FD | CAP_OFFSET,
	[SK_URING_BUF] = CAP_FD2 | CAP_COUNT | CAP_OFFSET,
	[SK_URING_DATA] = CAP_RET,
	[SK_URING_DONE] = CAP_RET,
	[SK_IOCTL] = CAP_FD | CAP_FD2 | CAP_CMD | CAP_OFFSET | CAP_OFFSET2 |
		     CAP_COUNT | CAP_ARG | CAP_SIZE | CAP_RET,
	[SK_XATTR] = CAP_FD | CAP_PATH | CAP_PATH2 | CAP_FLAGS | CAP_COUNT |
		     CAP_ARG | CAP_MODE | CAP_RET,
	[SK_FLOCK] = CAP_FD | CAP_FLAGS | CAP_RET,
	[SK_SPLICE] = CAP_FD | CAP_FD2 | CAP_OFFSET | CAP_OFFSET2 | CAP_COUNT |
		      CAP_FLAGS | CAP_RET,
	[SK_DEDUPE] = CAP_FD | CAP_OFFSET2 | CAP_COUNT | CAP_RET,
	[SK_DEDUPE_DONE] = CAP_RET,
	[SK_FUTEX] = CAP_ADDR | CAP_CMD | CAP_ARG | CAP_RET,
	[SK_WAKE] = CAP_ADDR | CAP_COUNT,
};

static const char op_path[] = "/srv/data/file with space";
static const char op_path2[] = "/srv/other;:,x";
#define BASE_NS 1700000000000000000ULL

/* An event of @sys with a distinct value in every field. */
static void fill_event(struct cap_event *ev, enum sys_id sys, unsigned have)
{
	memset(ev, 0, sizeof(*ev));
	ev->sys = sys;
	ev->have = have;
	ev->time_ns = BASE_NS + 123456789;
	ev->dur_ns = 4567;
	ev->pid = 4242;
	ev->tid = 4243;
	ev->ret = -13;
	ev->fd = 3;
	ev->fd2 = -100;
	ev->flags = 0x80241;
	ev->mode = 0644;
	ev->offset = (1LL << 40) + 7;
	ev->offset2 = -1;
	ev->whence = 2;
	ev->count = 65536;
	ev->cmd = 1030;
	ev->arg = -2;
	ev->uid = 1000;
	ev->size = 123456789012LL;
	ev->addr = 0xffffffffff600000ULL;
	ev->addr2 = 0x7f0000001000ULL;
	ev->buf_index = 17;
	ev->child_pid = 99999;
	ev->child_tid = 100000;
	ev->umask = 027;
	ev->path = op_path;
	ev->path_len = sizeof(op_path) - 1;
	ev->path2 = op_path2;
	ev->path2_len = sizeof(op_path2) - 1;
}

/* Write an anchor event and then @ev; read both back and compare. */
static void round_trip(const struct cap_event *ev)
{
	char *dir = tu_scratch();
	struct caplog_header hdr = { .version = 4 };
	struct cap_event in[2], out;
	char what[64];

	memset(&in[0], 0, sizeof(in[0]));
	in[0].sys = SYS_SYNC;
	in[0].time_ns = BASE_NS;
	in[0].pid = in[0].tid = 1;
	in[0].have = CAP_RET;
	in[1] = *ev;
	char *path = write_v4(dir, &hdr, in, 2);
	struct caplog_reader *r = open_ok(path);

	ck_assert_int_eq(caplog_header(r)->version, 4);
	ck_assert_int_eq(caplog_next(r, &out), 1);
	in[0].time_ns = 0;
	assert_event("anchor", &in[0], &out);
	ck_assert_uint_eq(out.lineno, 3);

	memset(&out, 0, sizeof(out));
	ck_assert_int_eq(caplog_next(r, &out), 1);
	in[1].time_ns = ev->time_ns - BASE_NS;
	snprintf(what, sizeof(what), "v4 %s", sys_info(ev->sys)->name);
	assert_event(what, &in[1], &out);
	ck_assert_uint_eq(out.lineno, 4);

	ck_assert_int_eq(caplog_next(r, &out), 0);
	ck_assert_uint_eq(caplog_lines(r), 4);
	ck_assert_uint_eq(caplog_offset(r), caplog_size(r));
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}

START_TEST(v4_every_op)
{
	const struct sys_info *si = sys_info((enum sys_id)_i);
	struct cap_event ev;

	ck_assert_uint_lt(si->kind, ARRAY_SIZE(kind_fields));
	ck_assert_msg(kind_fields[si->kind], "no fields for %s", si->name);
	fill_event(&ev, (enum sys_id)_i, kind_fields[si->kind] | CAP_DUR);
	round_trip(&ev);
}
END_TEST

/* Every field at once, at the edges of its range. */
START_TEST(v4_all_fields_extremes)
{
	struct cap_event ev;

	fill_event(&ev, SYS_FALLOCATE, (CAP_UMASK << 1) - 1);
	ev.time_ns = BASE_NS + 1;
	ev.dur_ns = 3599ULL * 1000000000ULL;
	ev.pid = UINT32_MAX;
	ev.tid = 0;
	ev.ret = INT64_MIN;
	ev.fd = INT64_MAX;
	ev.fd2 = -1;
	ev.offset = INT64_MIN;
	ev.offset2 = INT64_MAX;
	ev.count = 0;
	ev.flags = -1;
	ev.mode = 07777;
	ev.cmd = INT32_MAX;
	ev.arg = INT64_MIN + 1;
	ev.uid = 4294967295LL;
	ev.size = 0;
	ev.addr = UINT64_MAX;
	ev.addr2 = 0;
	ev.buf_index = 65535;
	ev.child_pid = UINT32_MAX;
	ev.child_tid = 1;
	ev.umask = 0777;
	ev.path = "";
	ev.path_len = 0;
	round_trip(&ev);
}
END_TEST

/*
 * The on-CPU keys: C as written; X where it is not all of D, or the line
 * has no C (a thread's first event); a line with C and no X was on a CPU
 * for all of D; K (calls left out in C's span) where there were any.  Each
 * form writes, reads back, and reads from its text.
 */
START_TEST(v4_cpu_keys)
{
	static const struct {
		unsigned have;
		uint64_t dur, cpu, call, folded, runq;
		const char *text;	/* the fields after o=read;:, */
	} cases[] = {
		{ CAP_CPU | CAP_CPU_CALL, 500, 7000, 120, 0, 0,
		  "C=7000;:,X=120;:," },
		{ CAP_CPU | CAP_CPU_CALL, 500, 7000, 500, 0, 0, "C=7000;:," },
		{ CAP_CPU_CALL, 500, 0, 500, 0, 0, "X=500;:," },
		{ CAP_CPU_CALL, 500, 0, 0, 0, 0, "X=0;:," },
		{ CAP_CPU | CAP_CPU_CALL, 0, 0, 0, 0, 0, "C=0;:," },
		{ 0, 500, 0, 0, 0, 0, "" },
		{ CAP_CPU | CAP_CPU_CALL, 500, 7000, 120, 3, 0,
		  "C=7000;:,X=120;:,K=3;:," },
		{ CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 500, 7000, 120, 3, 44,
		  "C=7000;:,X=120;:,K=3;:,R=44;:," },
	};
	char *dir = tu_scratch();

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct caplog_header hdr = { .version = 4 };
		struct cap_event ev, out;
		char line[256], *got, *path;
		struct caplog_reader *r;

		memset(&ev, 0, sizeof(ev));
		ev.sys = SYS_READ;
		ev.time_ns = BASE_NS;
		ev.dur_ns = cases[i].dur;
		ev.pid = ev.tid = 9;
		ev.ret = 1;
		ev.cpu_ns = cases[i].cpu;
		ev.cpu_call_ns = cases[i].call;
		ev.folded = cases[i].folded;
		ev.runq_ns = cases[i].runq;
		ev.have = CAP_RET | CAP_DUR | cases[i].have;
		if (!cases[i].dur)
			ev.have &= ~CAP_DUR;
		round_trip(&ev);

		path = write_v4(dir, &hdr, &ev, 1);
		got = tu_read(path, NULL);
		snprintf(line, sizeof(line), "i=9:9;:,o=read;:,%sr=1;:,\n",
			 cases[i].text);
		ck_assert_msg(got && strstr(got, line), "case %zu: no \"%s\" in"
			      "\n%s", i, line, got ? got : "");
		free(got);
		r = open_ok(path);
		ck_assert_int_eq(caplog_next(r, &out), 1);
		ck_assert_uint_eq(out.have & (CAP_CPU | CAP_CPU_CALL | CAP_RUNQ),
				  cases[i].have);
		ck_assert_uint_eq(out.runq_ns, cases[i].runq);
		ck_assert_uint_eq(out.cpu_ns, cases[i].cpu);
		ck_assert_uint_eq(out.cpu_call_ns, cases[i].call);
		ck_assert_uint_eq(out.folded, cases[i].folded);
		caplog_close(r);
		free(path);
	}
	free(dir);
}
END_TEST

/*
 * A wake record's R (the woken thread's wait for a CPU up to the wake) is
 * written, read back and read from its text without C; a negative one is
 * malformed, as on any line.
 */
START_TEST(v4_wake_runq)
{
	struct caplog_header hdr = { .version = 4 };
	struct cap_event ev, out;
	struct caplog_reader *r;
	char *dir = tu_scratch(), *path, *got;

	memset(&ev, 0, sizeof(ev));
	ev.sys = SYS_WAKE;
	ev.time_ns = BASE_NS;
	ev.pid = ev.tid = 9;
	ev.addr = 8ULL << 32 | 8;
	ev.count = 4000;
	ev.runq_ns = 250;
	ev.have = CAP_ADDR | CAP_COUNT | CAP_RUNQ;
	round_trip(&ev);
	path = write_v4(dir, &hdr, &ev, 1);
	got = tu_read(path, NULL);
	ck_assert_msg(got && strstr(got, "R=250;:,"), "no R in\n%s",
		      got ? got : "");
	free(got);
	r = open_ok(path);
	ck_assert_int_eq(caplog_next(r, &out), 1);
	ck_assert_int_eq(out.sys, SYS_WAKE);
	ck_assert(out.have & CAP_RUNQ);
	ck_assert(!(out.have & (CAP_CPU | CAP_CPU_CALL)));
	ck_assert_uint_eq(out.runq_ns, 250);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* ---- v4 escaping ------------------------------------------------------- */

START_TEST(v4_path_escaping)
{
	static const char odd[] = "/a\nb;c:d,e|f=g%h i\tj\x01k\xffl/%41;:,/"
				  "\xc3\xa9t\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac";
	char every[256];
	char *dir = tu_scratch();
	struct caplog_header hdr = { .version = 4 };
	struct cap_event in[2], out;

	for (int i = 0; i < 255; i++)
		every[i] = (char)(i + 1);
	memset(in, 0, sizeof(in));
	for (int i = 0; i < 2; i++) {
		in[i].sys = SYS_RENAME;
		in[i].pid = in[i].tid = 7;
		in[i].time_ns = 10 + (uint64_t)i;
		in[i].have = CAP_PATH | CAP_PATH2 | CAP_RET;
	}
	in[0].path = odd;
	in[0].path_len = sizeof(odd) - 1;
	in[0].path2 = every;
	in[0].path2_len = 255;
	in[1].path = every + 200;	/* starts with bytes >= 0xc9 */
	in[1].path_len = 55;
	in[1].path2 = ";:,";
	in[1].path2_len = 3;
	char *path = write_v4(dir, &hdr, in, 2);

	/* Escaped, each event is one line and no raw separator is left. */
	size_t len;
	char *text = tu_read(path, &len);
	ck_assert(text);
	size_t nl = 0;
	for (size_t i = 0; i < len; i++)
		nl += text[i] == '\n';
	ck_assert_uint_eq(nl, 4);
	free(text);

	struct caplog_reader *r = open_ok(path);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(caplog_next(r, &out), 1);
		in[i].time_ns = (uint64_t)i;
		assert_event(i ? "second" : "first", &in[i], &out);
	}
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* ---- v4 header ---------------------------------------------------------- */

START_TEST(v4_header_round_trip)
{
	static const struct {
		const char *dir, *fstype;
		bool pseudo;
	} mounts[] = {
		{ "/", "ext4", false },
		{ "/mnt/data disk", "xfs", false },
		{ "/proc", "proc", true },
		{ "/mnt/a|b=c%d", "btrfs", false },
	};
	char *dir = tu_scratch();
	struct caplog_header hdr = {
		.version = 4,
		.host = "build host|01=x%y",
		.kernel = "6.8.0-45-generic #45~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC",
		.backend = "bpf",
		.start_epoch_ns = 1712345678901234567ULL,
		.probe_gap_ns = 151, .probe_call_ns = 207,
	};
	struct cap_event ev, out;

	hdr.mounts = mounttab_new();
	ck_assert(hdr.mounts);
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++)
		ck_assert_int_eq(mounttab_add(hdr.mounts, mounts[i].dir,
					      strlen(mounts[i].dir),
					      mounts[i].fstype), 0);
	memset(&ev, 0, sizeof(ev));
	ev.sys = SYS_CWD;
	ev.pid = ev.tid = 1;
	ev.path = "/";
	ev.path_len = 1;
	ev.have = CAP_PATH;
	char *path = write_v4(dir, &hdr, &ev, 1);
	mounttab_free(hdr.mounts);

	struct caplog_reader *r = open_ok(path);
	const struct caplog_header *got = caplog_header(r);
	ck_assert_int_eq(got->version, 4);
	ck_assert_str_eq(got->host, hdr.host);
	ck_assert_str_eq(got->kernel, hdr.kernel);
	ck_assert_str_eq(got->backend, hdr.backend);
	ck_assert_uint_eq(got->start_epoch_ns, hdr.start_epoch_ns);
	ck_assert_uint_eq(got->probe_gap_ns, 151);
	ck_assert_uint_eq(got->probe_call_ns, 207);
	ck_assert(got->mounts);
	ck_assert_uint_eq(got->mounts->n, ARRAY_SIZE(mounts));
	for (size_t i = 0; i < ARRAY_SIZE(mounts); i++) {
		const struct mount_entry *m = &got->mounts->v[i];

		ck_assert_uint_eq(m->dir_len, strlen(mounts[i].dir));
		ck_assert_str_eq(m->dir, mounts[i].dir);
		ck_assert_str_eq(m->fstype, mounts[i].fstype);
		ck_assert_int_eq(m->pseudo, mounts[i].pseudo);
	}
	/* Header lines are not events; the event keeps its own line number. */
	ck_assert_int_eq(caplog_next(r, &out), 1);
	assert_event("cwd", &ev, &out);
	ck_assert_uint_eq(out.lineno, 2 + ARRAY_SIZE(mounts) + 1);
	ck_assert_int_eq(caplog_next(r, &out), 0);
	ck_assert_uint_eq(caplog_lines(r), 2 + ARRAY_SIZE(mounts) + 1);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* The AIO lines of docs/capture-format.md §5.1, as a BPF capture writes
 * them: iocb records before their io_submit, io_event records after
 * their io_getevents. */
START_TEST(v4_aio_lines)
{
	struct caplog_reader *r = open_text("log",
		"#|capture_version=4|\n"
		"t=10;:,D=5;:,i=7:8;:,o=io_setup;:,c=32;:,a=139625767301120;:,r=0;:,\n"
		"t=20;:,D=0;:,i=7:8;:,o=iocb;:,d=4;:,f=0;:,O=4096;:,c=8192;:,F=8;:,"
		"G=1;:,e=9;:,a=139625767301120;:,A=140728297147904;:,\n"
		"t=20;:,D=70;:,i=7:8;:,o=io_submit;:,c=1;:,a=139625767301120;:,r=1;:,\n"
		"t=30;:,D=9;:,i=7:8;:,o=io_pgetevents;:,c=8;:,G=1;:,"
		"a=139625767301120;:,r=1;:,\n"
		"t=30;:,D=0;:,i=7:8;:,o=io_event;:,a=139625767301120;:,"
		"A=140728297147904;:,r=-5;:,\n"
		"t=40;:,D=3;:,i=7:8;:,o=io_destroy;:,a=139625767301120;:,r=0;:,\n");
	const uint64_t ctx = 139625767301120ULL, cb = 140728297147904ULL;
	struct cap_event out, want[] = {
		{ .sys = SYS_IO_SETUP, .time_ns = 0, .dur_ns = 5, .count = 32,
		  .addr = ctx, .have = CAP_COUNT | CAP_ADDR | CAP_RET | CAP_DUR },
		{ .sys = SYS_IOCB, .time_ns = 10, .fd = 4, .fd2 = 9, .flags = 0,
		  .offset = 4096, .count = 8192, .cmd = IOCB_CMD_PWRITEV,
		  .arg = IOCB_FLAG_RESFD, .addr = ctx, .addr2 = cb,
		  .have = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_OFFSET | CAP_COUNT |
			  CAP_CMD | CAP_ARG | CAP_ADDR | CAP_ADDR2 },
		{ .sys = SYS_IO_SUBMIT, .time_ns = 10, .dur_ns = 70, .count = 1,
		  .addr = ctx, .ret = 1,
		  .have = CAP_COUNT | CAP_ADDR | CAP_RET | CAP_DUR },
		{ .sys = SYS_IO_PGETEVENTS, .time_ns = 20, .dur_ns = 9,
		  .count = 8, .arg = 1, .addr = ctx, .ret = 1,
		  .have = CAP_COUNT | CAP_ARG | CAP_ADDR | CAP_RET | CAP_DUR },
		{ .sys = SYS_IO_EVENT, .time_ns = 20, .addr = ctx, .addr2 = cb,
		  .ret = -5, .have = CAP_ADDR | CAP_ADDR2 | CAP_RET },
		{ .sys = SYS_IO_DESTROY, .time_ns = 30, .dur_ns = 3, .addr = ctx,
		  .have = CAP_ADDR | CAP_RET | CAP_DUR },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		want[i].pid = 7;
		want[i].tid = 8;
		if (!(want[i].have & CAP_FD))
			want[i].fd = -1;
		if (!(want[i].have & CAP_FD2))
			want[i].fd2 = -1;
		ck_assert_int_eq(caplog_next(r, &out), 1);
		assert_event(sys_info(want[i].sys)->name, &want[i], &out);
	}
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
}
END_TEST

/* The io_uring lines of docs/capture-format.md §5.2, as a BPF capture
 * writes them: registered files and buffers before their register, sqe
 * records before their enter, cqe records after it; a request of an
 * SQPOLL ring's kernel thread and a cqe without its ring or opcode. */
START_TEST(v4_uring_lines)
{
	struct caplog_reader *r = open_text("log",
		"#|capture_version=4|\n"
		"t=10;:,D=5;:,i=7:8;:,o=io_uring_setup;:,f=8;:,c=16;:,G=64;:,r=5;:,\n"
		"t=20;:,D=0;:,i=7:8;:,o=uring_file;:,d=4;:,e=5;:,O=0;:,\n"
		"t=20;:,D=0;:,i=7:8;:,o=uring_file;:,d=-1;:,e=5;:,O=1;:,\n"
		"t=20;:,D=9;:,i=7:8;:,o=io_uring_register;:,d=5;:,c=2;:,F=2;:,r=0;:,\n"
		"t=25;:,D=0;:,i=7:8;:,o=uring_buf;:,e=5;:,O=0;:,c=65536;:,\n"
		"t=25;:,D=8;:,i=7:8;:,o=io_uring_register;:,d=5;:,c=1;:,F=0;:,r=0;:,\n"
		"t=30;:,D=0;:,i=7:8;:,o=sqe;:,d=0;:,e=5;:,f=0;:,O=8192;:,c=4096;:,"
		"F=5;:,G=5;:,A=140728297147904;:,B=0;:,\n"
		"t=30;:,D=0;:,i=7:8;:,o=sqe;:,e=5;:,F=26;:,G=0;:,A=18446744073709551615;:,\n"
		"t=30;:,D=70;:,i=7:8;:,o=io_uring_enter;:,d=5;:,f=1;:,c=2;:,G=1;:,r=2;:,\n"
		"t=31;:,D=0;:,i=7:8;:,o=cqe;:,e=5;:,F=5;:,A=140728297147904;:,r=4096;:,\n"
		"t=32;:,D=0;:,i=7:7;:,o=sqe;:,d=4;:,f=1;:,O=0;:,c=0;:,F=3;:,G=0;:,A=3;:,\n"
		"t=33;:,D=0;:,i=7:7;:,o=cqe;:,A=3;:,r=-5;:,\n");
	const uint64_t ud = 140728297147904ULL;
	struct cap_event out, want[] = {
		{ .sys = SYS_IO_URING_SETUP, .time_ns = 0, .dur_ns = 5,
		  .flags = 8, .count = 16, .arg = 64, .ret = 5,
		  .have = CAP_FLAGS | CAP_COUNT | CAP_ARG | CAP_RET | CAP_DUR },
		{ .sys = SYS_URING_FILE, .time_ns = 10, .fd = 4, .fd2 = 5,
		  .offset = 0, .have = CAP_FD | CAP_FD2 | CAP_OFFSET },
		{ .sys = SYS_URING_FILE, .time_ns = 10, .fd = -1, .fd2 = 5,
		  .offset = 1, .have = CAP_FD | CAP_FD2 | CAP_OFFSET },
		{ .sys = SYS_IO_URING_REGISTER, .time_ns = 10, .dur_ns = 9,
		  .fd = 5, .count = 2, .cmd = 2, .ret = 0,
		  .have = CAP_FD | CAP_COUNT | CAP_CMD | CAP_RET | CAP_DUR },
		{ .sys = SYS_URING_BUF, .time_ns = 15, .fd2 = 5, .offset = 0,
		  .count = 65536, .have = CAP_FD2 | CAP_OFFSET | CAP_COUNT },
		{ .sys = SYS_IO_URING_REGISTER, .time_ns = 15, .dur_ns = 8,
		  .fd = 5, .count = 1, .cmd = 0, .ret = 0,
		  .have = CAP_FD | CAP_COUNT | CAP_CMD | CAP_RET | CAP_DUR },
		{ .sys = SYS_SQE, .time_ns = 20, .fd = 0, .fd2 = 5, .flags = 0,
		  .offset = 8192, .count = 4096, .cmd = 5, .arg = 5,
		  .addr2 = ud, .buf_index = 0,
		  .have = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_OFFSET | CAP_COUNT |
			  CAP_CMD | CAP_ARG | CAP_ADDR2 | CAP_BUF },
		{ .sys = SYS_SQE, .time_ns = 20, .fd2 = 5, .cmd = 26, .arg = 0,
		  .addr2 = UINT64_MAX,
		  .have = CAP_FD2 | CAP_CMD | CAP_ARG | CAP_ADDR2 },
		{ .sys = SYS_IO_URING_ENTER, .time_ns = 20, .dur_ns = 70,
		  .fd = 5, .flags = 1, .count = 2, .arg = 1, .ret = 2,
		  .have = CAP_FD | CAP_FLAGS | CAP_COUNT | CAP_ARG | CAP_RET |
			  CAP_DUR },
		{ .sys = SYS_CQE, .time_ns = 21, .fd2 = 5, .cmd = 5, .addr2 = ud,
		  .ret = 4096, .have = CAP_FD2 | CAP_CMD | CAP_ADDR2 | CAP_RET },
		{ .sys = SYS_SQE, .time_ns = 22, .tid = 7, .fd = 4, .flags = 1,
		  .offset = 0, .count = 0, .cmd = 3, .arg = 0, .addr2 = 3,
		  .have = CAP_FD | CAP_FLAGS | CAP_OFFSET | CAP_COUNT | CAP_CMD |
			  CAP_ARG | CAP_ADDR2 },
		{ .sys = SYS_CQE, .time_ns = 23, .tid = 7, .addr2 = 3, .ret = -5,
		  .have = CAP_ADDR2 | CAP_RET },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		want[i].pid = 7;
		if (!want[i].tid)
			want[i].tid = 8;
		if (!(want[i].have & CAP_FD))
			want[i].fd = -1;
		if (!(want[i].have & CAP_FD2))
			want[i].fd2 = -1;
		ck_assert_int_eq(caplog_next(r, &out), 1);
		assert_event(sys_info(want[i].sys)->name, &want[i], &out);
	}
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
}
END_TEST

/* The lines of I/O through a mapping (docs/capture-format.md §5.2) as a
 * BPF capture writes them: the mmap, madvise, page records with no D
 * worth reading and no result, msync. */
START_TEST(v4_page_lines)
{
	struct caplog_reader *r = open_text("log",
		"#|capture_version=4|\n"
		"t=10;:,D=5;:,i=7:8;:,o=mmap;:,d=4;:,f=1;:,m=3;:,O=0;:,"
		"c=262144;:,a=0;:,r=140528146776064;:,\n"
		"t=20;:,D=4;:,i=7:8;:,o=madvise;:,f=1;:,c=262144;:,"
		"a=140528146776064;:,r=0;:,\n"
		"t=30;:,D=0;:,i=7:8;:,o=mmap_read;:,O=65536;:,"
		"a=140528146841600;:,\n"
		"t=40;:,D=0;:,i=7:9;:,o=mmap_write;:,O=18446744073709547520;:,"
		"a=18446744073709547520;:,\n"
		"t=50;:,D=9;:,i=7:8;:,o=msync;:,f=4;:,c=262144;:,"
		"a=140528146776064;:,r=0;:,\n");
	const uint64_t map = 140528146776064ULL;
	struct cap_event out, want[] = {
		{ .sys = SYS_MMAP, .time_ns = 0, .dur_ns = 5, .fd = 4, .flags = 1,
		  .mode = 3, .offset = 0, .count = 262144, .addr = 0,
		  .ret = (int64_t)map,
		  .have = CAP_FD | CAP_FLAGS | CAP_MODE | CAP_OFFSET |
			  CAP_COUNT | CAP_ADDR | CAP_RET | CAP_DUR },
		{ .sys = SYS_MADVISE, .time_ns = 10, .dur_ns = 4, .flags = 1,
		  .count = 262144, .addr = map,
		  .have = CAP_FLAGS | CAP_COUNT | CAP_ADDR | CAP_RET | CAP_DUR },
		{ .sys = SYS_MMAP_READ, .time_ns = 20, .offset = 65536,
		  .addr = map + 65536, .have = CAP_OFFSET | CAP_ADDR },
		{ .sys = SYS_MMAP_WRITE, .time_ns = 30, .tid = 9,
		  .offset = -4096, .addr = UINT64_MAX - 4095,
		  .have = CAP_OFFSET | CAP_ADDR },
		{ .sys = SYS_MSYNC, .time_ns = 40, .dur_ns = 9, .flags = 4,
		  .count = 262144, .addr = map,
		  .have = CAP_FLAGS | CAP_COUNT | CAP_ADDR | CAP_RET | CAP_DUR },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		want[i].pid = 7;
		if (!want[i].tid)
			want[i].tid = 8;
		if (!(want[i].have & CAP_FD))
			want[i].fd = -1;
		want[i].fd2 = -1;
		ck_assert_int_eq(caplog_next(r, &out), 1);
		assert_event(sys_info(want[i].sys)->name, &want[i], &out);
	}
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
}
END_TEST

/* The file API's lines as the BPF capture writes them: clone and dedupe
 * ioctls with the dedupe record before its ioctl, xattr calls (the name
 * in P, an ACL's mode in m), a lock command's struct flock, flock,
 * splice, tee, mknodat. */
START_TEST(v4_fileapi_lines)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "log",
		"#|capture_version=4|\n"
		"t=10;:,D=5;:,i=7:7;:,o=ioctl;:,d=5;:,e=4;:,F=1074041865;:,"
		"s=8192;:,r=0;:,\n"
		"t=20;:,D=6;:,i=7:7;:,o=ioctl;:,d=5;:,e=4;:,O=0;:,Q=4096;:,"
		"c=4096;:,F=1075876877;:,s=8192;:,r=-18;:,\n"
		"t=30;:,D=0;:,i=7:7;:,o=dedupe;:,d=5;:,Q=0;:,c=4096;:,r=1;:,\n"
		"t=30;:,D=9;:,i=7:7;:,o=ioctl;:,d=4;:,O=0;:,c=4096;:,"
		"F=3222836278;:,G=1;:,r=0;:,\n"
		"t=40;:,D=3;:,i=7:7;:,o=fsetxattr;:,d=4;:,"
		"P=system.posix_acl_access;:,m=416;:,c=28;:,G=0;:,r=0;:,\n"
		"t=50;:,D=3;:,i=7:7;:,o=getxattrat;:,d=-100;:,p=/w/src;:,"
		"P=user.%3Bodd%20name;:,f=256;:,c=256;:,r=-61;:,\n"
		"t=60;:,D=2;:,i=7:7;:,o=fcntl;:,d=4;:,O=10;:,W=0;:,c=20;:,F=7;:,"
		"G=1;:,r=0;:,\n"
		"t=70;:,D=2;:,i=7:7;:,o=flock;:,d=4;:,f=6;:,r=-11;:,\n"
		"t=80;:,D=4;:,i=7:7;:,o=splice;:,d=9;:,e=5;:,f=1;:,Q=8192;:,"
		"c=100;:,r=100;:,\n"
		"t=90;:,D=1;:,i=7:7;:,o=tee;:,d=9;:,e=11;:,f=0;:,c=50;:,r=50;:,\n"
		"t=95;:,D=1;:,i=7:7;:,o=mknodat;:,d=3;:,p=/w/fifo;:,m=4516;:,"
		"r=0;:,\n");
	struct caplog_reader *r = open_ok(path);
	struct cap_event out, want[] = {
		{ .sys = SYS_IOCTL, .time_ns = 0, .dur_ns = 5, .fd = 5, .fd2 = 4,
		  .cmd = 1074041865, .size = 8192,
		  .have = CAP_FD | CAP_FD2 | CAP_CMD | CAP_SIZE | CAP_RET |
			  CAP_DUR },
		{ .sys = SYS_IOCTL, .time_ns = 10, .dur_ns = 6, .fd = 5, .fd2 = 4,
		  .offset = 0, .offset2 = 4096, .count = 4096,
		  .cmd = 1075876877, .size = 8192, .ret = -18,
		  .have = CAP_FD | CAP_FD2 | CAP_OFFSET | CAP_OFFSET2 |
			  CAP_COUNT | CAP_CMD | CAP_SIZE | CAP_RET | CAP_DUR },
		{ .sys = SYS_DEDUPE, .time_ns = 20, .fd = 5, .offset2 = 0,
		  .count = 4096, .ret = 1,
		  .have = CAP_FD | CAP_OFFSET2 | CAP_COUNT | CAP_RET },
		{ .sys = SYS_IOCTL, .time_ns = 20, .dur_ns = 9, .fd = 4,
		  .offset = 0, .count = 4096, .cmd = 3222836278LL, .arg = 1,
		  .have = CAP_FD | CAP_OFFSET | CAP_COUNT | CAP_CMD | CAP_ARG |
			  CAP_RET | CAP_DUR },
		{ .sys = SYS_FSETXATTR, .time_ns = 30, .dur_ns = 3, .fd = 4,
		  .path2 = "system.posix_acl_access", .path2_len = 23,
		  .mode = 0640, .count = 28, .arg = 0,
		  .have = CAP_FD | CAP_PATH2 | CAP_MODE | CAP_COUNT | CAP_ARG |
			  CAP_RET | CAP_DUR },
		{ .sys = SYS_GETXATTRAT, .time_ns = 40, .dur_ns = 3, .fd = -100,
		  .path = "/w/src", .path_len = 6, .path2 = "user.;odd name",
		  .path2_len = 14, .flags = 256, .count = 256, .ret = -61,
		  .have = CAP_FD | CAP_PATH | CAP_PATH2 | CAP_FLAGS |
			  CAP_COUNT | CAP_RET | CAP_DUR },
		{ .sys = SYS_FCNTL, .time_ns = 50, .dur_ns = 2, .fd = 4,
		  .offset = 10, .whence = 0, .count = 20, .cmd = 7, .arg = 1,
		  .have = CAP_FD | CAP_OFFSET | CAP_WHENCE | CAP_COUNT |
			  CAP_CMD | CAP_ARG | CAP_RET | CAP_DUR },
		{ .sys = SYS_FLOCK, .time_ns = 60, .dur_ns = 2, .fd = 4,
		  .flags = 6, .ret = -11,
		  .have = CAP_FD | CAP_FLAGS | CAP_RET | CAP_DUR },
		{ .sys = SYS_SPLICE, .time_ns = 70, .dur_ns = 4, .fd = 9,
		  .fd2 = 5, .flags = 1, .offset2 = 8192, .count = 100,
		  .ret = 100,
		  .have = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_OFFSET2 |
			  CAP_COUNT | CAP_RET | CAP_DUR },
		{ .sys = SYS_TEE, .time_ns = 80, .dur_ns = 1, .fd = 9, .fd2 = 11,
		  .flags = 0, .count = 50, .ret = 50,
		  .have = CAP_FD | CAP_FD2 | CAP_FLAGS | CAP_COUNT | CAP_RET |
			  CAP_DUR },
		{ .sys = SYS_MKNODAT, .time_ns = 85, .dur_ns = 1, .fd = 3,
		  .path = "/w/fifo", .path_len = 7, .mode = 010644,
		  .have = CAP_FD | CAP_PATH | CAP_MODE | CAP_RET | CAP_DUR },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		want[i].pid = want[i].tid = 7;
		if (!(want[i].have & CAP_FD))
			want[i].fd = -1;
		if (!(want[i].have & CAP_FD2))
			want[i].fd2 = -1;
		ck_assert_int_eq(caplog_next(r, &out), 1);
		assert_event(sys_info(want[i].sys)->name, &want[i], &out);
	}
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

START_TEST(v4_unknown_keys_ignored)
{
	struct caplog_reader *r = open_text("log",
		"#|capture_version=4|future=1|\n"
		"#|host=h|newkey=%ZZ|\n"
		"t=5;:,x=hello world;:,i=1:2;:,Z=a=b;:,o=close;:,1=?;:,d=3;:,"
		"y=;:,r=0;:,\n");
	struct cap_event out, want = {
		.sys = SYS_CLOSE, .pid = 1, .tid = 2, .fd = 3, .ret = 0,
		.have = CAP_FD | CAP_RET,
	};

	ck_assert_str_eq(caplog_header(r)->host, "h");
	ck_assert_int_eq(caplog_next(r, &out), 1);
	assert_event("close", &want, &out);
	ck_assert_int_eq(caplog_next(r, &out), 0);
	assert_no_bad(r);
	caplog_close(r);
}
END_TEST

/* ---- v3 and v2 ---------------------------------------------------------- */

#define T3(n) (1509989598023456789ULL + (n) * 10000000ULL)

struct v3_case {
	uint64_t t;		/* t= (return time, ns since epoch) */
	const char *D;		/* D= value, NULL for none */
	uint64_t dur;		/* expected duration; entry is t - dur */
	const char *rest;	/* the fields after t and D */
	struct cap_event want;	/* time_ns is computed; pid 0 means 17159:17358 */
};

#define ID "i=17159:17358;:,"
#define PATHV(s) .path = s, .path_len = sizeof(s) - 1
#define PATHV2(s) .path2 = s, .path2_len = sizeof(s) - 1
#define R CAP_RET
#define DU CAP_DUR

static const struct v3_case v3_cases[] = {
	{ T3(0), "8123", 8123,
	  ID "o=open;:,d=5;:,p=/var/log/app.log;:,f=1089;:,m=438;:,",
	  { .sys = SYS_OPEN, .have = R | DU | CAP_PATH | CAP_FLAGS | CAP_MODE,
	    .ret = 5, PATHV("/var/log/app.log"), .flags = 1089, .mode = 438 } },
	{ T3(1), "4100", 4100,
	  ID "o=openat;:,d=-2;:,p=/etc/missing.conf;:,f=524288;:,m=0;:,",
	  { .sys = SYS_OPENAT, .have = R | DU | CAP_PATH | CAP_FLAGS | CAP_MODE,
	    .ret = -2, PATHV("/etc/missing.conf"), .flags = 524288 } },
	{ T3(2), "15001", 15001,
	  ID "o=creat;:,d=6;:,p=/home/u/out.bin;:,m=420;:,",
	  { .sys = SYS_CREAT, .have = R | DU | CAP_PATH | CAP_MODE, .ret = 6,
	    PATHV("/home/u/out.bin"), .mode = 420 } },
	{ T3(3), "2100", 2100, ID "o=read;:,d=5;:,b=4096;:,",
	  { .sys = SYS_READ, .have = R | DU | CAP_FD, .fd = 5, .ret = 4096 } },
	{ T3(4), "2200", 2200, ID "o=readv;:,d=5;:,b=-14;:,",
	  { .sys = SYS_READV, .have = R | DU | CAP_FD, .fd = 5, .ret = -14 } },
	{ T3(5), "3300", 3300, ID "o=write;:,d=5;:,b=512;:,",
	  { .sys = SYS_WRITE, .have = R | DU | CAP_FD, .fd = 5, .ret = 512 } },
	{ T3(6), "3900", 3900, ID "o=writev;:,d=5;:,b=8192;:,",
	  { .sys = SYS_WRITEV, .have = R | DU | CAP_FD, .fd = 5, .ret = 8192 } },
	{ T3(7), "900", 900, ID "o=lseek;:,d=5;:,O=0;:,W=2;:,b=1048576;:,",
	  { .sys = SYS_LSEEK, .have = R | DU | CAP_FD | CAP_OFFSET | CAP_WHENCE,
	    .fd = 5, .offset = 0, .whence = 2, .ret = 1048576 } },
	{ T3(8), "950", 950,
	  "i=2001:2001;:,o=llseek;:,d=7;:,O=4096;:,W=0;:,b=0;:,",
	  { .sys = SYS_LLSEEK, .pid = 2001, .tid = 2001,
	    .have = R | DU | CAP_FD | CAP_OFFSET | CAP_WHENCE,
	    .fd = 7, .offset = 4096, .whence = 0, .ret = 0 } },
	{ T3(9), "1200", 1200, ID "o=close;:,d=5;:,s=0;:,",
	  { .sys = SYS_CLOSE, .have = R | DU | CAP_FD, .fd = 5, .ret = 0 } },
	{ T3(10), "2500000", 2500000, ID "o=fsync;:,d=6;:,s=0;:,",
	  { .sys = SYS_FSYNC, .have = R | DU | CAP_FD, .fd = 6, .ret = 0 } },
	{ T3(11), "1900000", 1900000, ID "o=fdatasync;:,d=6;:,s=-5;:,",
	  { .sys = SYS_FDATASYNC, .have = R | DU | CAP_FD, .fd = 6, .ret = -5 } },
	{ T3(12), "700", 700, ID "o=syncfs;:,d=6;:,s=0;:,",
	  { .sys = SYS_SYNCFS, .have = R | DU | CAP_FD, .fd = 6, .ret = 0 } },
	{ T3(13), "800", 800, ID "o=fstat;:,d=6;:,s=0;:,",
	  { .sys = SYS_FSTAT, .have = R | DU | CAP_FD, .fd = 6, .ret = 0 } },
	{ T3(14), "810", 810, ID "o=fstatfs;:,d=6;:,s=0;:,",
	  { .sys = SYS_FSTATFS, .have = R | DU | CAP_FD, .fd = 6, .ret = 0 } },
	{ T3(15), "820", 820, ID "o=fstatfs64;:,d=6;:,s=-9;:,",
	  { .sys = SYS_FSTATFS64, .have = R | DU | CAP_FD, .fd = 6, .ret = -9 } },
	{ T3(16), "830", 830, ID "o=readdir;:,d=8;:,s=1;:,",
	  { .sys = SYS_READDIR, .have = R | DU | CAP_FD, .fd = 8, .ret = 1 } },
	{ T3(17), "7000", 7000, ID "o=getdents;:,d=8;:,c=32768;:,b=1024;:,",
	  { .sys = SYS_GETDENTS, .have = R | DU | CAP_FD | CAP_COUNT, .fd = 8,
	    .count = 32768, .ret = 1024 } },
	{ T3(18), "9000000", 9000000, "i=300:300;:,o=sync;:,s=0;:,",
	  { .sys = SYS_SYNC, .pid = 300, .tid = 300, .have = R | DU } },
	{ T3(19), "40000", 40000,
	  ID "o=sync_file_range;:,d=6;:,O=4096;:,b=65536;:,s=0;:,",
	  { .sys = SYS_SYNC_FILE_RANGE,
	    .have = R | DU | CAP_FD | CAP_OFFSET | CAP_COUNT, .fd = 6,
	    .offset = 4096, .count = 65536, .ret = 0 } },
	/* As the probe wrote it: no ";:," after the last field. */
	{ T3(20), "6000", 6000,
	  ID "o=readahead;:,d=5;:,b=0;:,O=8192;:,c=131072",
	  { .sys = SYS_READAHEAD,
	    .have = R | DU | CAP_FD | CAP_OFFSET | CAP_COUNT, .fd = 5,
	    .offset = 8192, .count = 131072, .ret = 0 } },
	{ T3(21), "500", 500, ID "o=fcntl;:,d=5;:,F=3;:,G=0;:,s=32770;:,",
	  { .sys = SYS_FCNTL, .have = R | DU | CAP_FD | CAP_CMD | CAP_ARG,
	    .fd = 5, .cmd = 3, .arg = 0, .ret = 32770 } },
	{ T3(22), "3000", 3000, ID "o=stat;:,p=/var/lib/db/data.idx;:,s=0;:,",
	  { .sys = SYS_STAT, .have = R | DU | CAP_PATH,
	    PATHV("/var/lib/db/data.idx") } },
	{ T3(23), "2000", 2000, ID "o=lstat;:,p=/tmp/x;:,s=-2;:,",
	  { .sys = SYS_LSTAT, .have = R | DU | CAP_PATH, PATHV("/tmp/x"),
	    .ret = -2 } },
	{ T3(24), "2000", 2000, ID "o=statfs;:,p=/srv;:,s=0;:,",
	  { .sys = SYS_STATFS, .have = R | DU | CAP_PATH, PATHV("/srv") } },
	{ T3(25), "2000", 2000, ID "o=statfs64;:,p=/srv;:,s=0;:,",
	  { .sys = SYS_STATFS64, .have = R | DU | CAP_PATH, PATHV("/srv") } },
	{ T3(26), "2000", 2000, ID "o=readlink;:,p=/srv/link;:,s=7;:,",
	  { .sys = SYS_READLINK, .have = R | DU | CAP_PATH, PATHV("/srv/link"),
	    .ret = 7 } },
	{ T3(27), "2000", 2000, ID "o=readlinkat;:,p=/srv/link2;:,s=8;:,",
	  { .sys = SYS_READLINKAT, .have = R | DU | CAP_PATH,
	    PATHV("/srv/link2"), .ret = 8 } },
	{ T3(28), "19000", 19000, ID "o=unlink;:,p=/srv/data/tmp1;:,s=0;:,",
	  { .sys = SYS_UNLINK, .have = R | DU | CAP_PATH,
	    PATHV("/srv/data/tmp1") } },
	{ T3(29), "17000", 17000, ID "o=rmdir;:,p=/srv/data/new;:,s=0;:,",
	  { .sys = SYS_RMDIR, .have = R | DU | CAP_PATH,
	    PATHV("/srv/data/new") } },
	/* d is a dirfd for *at and path ops: dropped, the path is absolute. */
	{ T3(30), "18000", 18000,
	  ID "o=unlinkat;:,d=-100;:,p=/srv/data/d2;:,f=512;:,s=0;:,",
	  { .sys = SYS_UNLINKAT, .have = R | DU | CAP_PATH | CAP_FLAGS,
	    PATHV("/srv/data/d2"), .flags = 512 } },
	{ T3(31), "22000", 22000, ID "o=mkdir;:,p=/srv/data/new;:,m=493;:,s=0;:,",
	  { .sys = SYS_MKDIR, .have = R | DU | CAP_PATH | CAP_MODE,
	    PATHV("/srv/data/new"), .mode = 493 } },
	{ T3(32), "21000", 21000,
	  ID "o=mkdirat;:,d=3;:,p=/srv/data/new2;:,m=493;:,s=0;:,",
	  { .sys = SYS_MKDIRAT, .have = R | DU | CAP_PATH | CAP_MODE,
	    PATHV("/srv/data/new2"), .mode = 493 } },
	{ T3(33), "1800", 1800,
	  ID "o=fstatat;:,d=-100;:,p=/usr/lib/x.so;:,f=256;:,s=0;:,",
	  { .sys = SYS_FSTATAT, .have = R | DU | CAP_PATH | CAP_FLAGS,
	    PATHV("/usr/lib/x.so"), .flags = 256 } },
	{ T3(34), "30000", 30000, ID "o=rename;:,p=/srv/a.tmp;:,P=/srv/a;:,s=0;:,",
	  { .sys = SYS_RENAME, .have = R | DU | CAP_PATH | CAP_PATH2,
	    PATHV("/srv/a.tmp"), PATHV2("/srv/a") } },
	{ T3(35), "30500", 30500,
	  ID "o=renameat;:,p=/srv/c.tmp;:,P=/srv/c;:,s=-18;:,",
	  { .sys = SYS_RENAMEAT, .have = R | DU | CAP_PATH | CAP_PATH2,
	    PATHV("/srv/c.tmp"), PATHV2("/srv/c"), .ret = -18 } },
	{ T3(36), "31000", 31000,
	  ID "o=renameat2;:,p=/srv/b.tmp;:,P=/srv/b;:,s=0;:,",
	  { .sys = SYS_RENAMEAT2, .have = R | DU | CAP_PATH | CAP_PATH2,
	    PATHV("/srv/b.tmp"), PATHV2("/srv/b") } },
	{ T3(37), "5000", 5000, ID "o=chmod;:,p=/srv/a;:,m=420;:,s=0;:,",
	  { .sys = SYS_CHMOD, .have = R | DU | CAP_PATH | CAP_MODE,
	    PATHV("/srv/a"), .mode = 420 } },
	{ T3(38), "5100", 5100, ID "o=fchmodat;:,p=/srv/a;:,m=384;:,s=0;:,",
	  { .sys = SYS_FCHMODAT, .have = R | DU | CAP_PATH | CAP_MODE,
	    PATHV("/srv/a"), .mode = 384 } },
	{ T3(39), "4000", 4000, ID "o=fchmod;:,d=6;:,m=384;:,s=0;:,",
	  { .sys = SYS_FCHMOD, .have = R | DU | CAP_FD | CAP_MODE, .fd = 6,
	    .mode = 384 } },
	/* chown family: O is the owner uid, G the gid. */
	{ T3(40), "6000", 6000, ID "o=chown;:,p=/srv/a;:,O=1000;:,G=1001;:,s=0;:,",
	  { .sys = SYS_CHOWN, .have = R | DU | CAP_PATH | CAP_UID | CAP_ARG,
	    PATHV("/srv/a"), .uid = 1000, .arg = 1001 } },
	{ T3(41), "6000", 6000, ID "o=chown16;:,p=/srv/a;:,O=500;:,G=501;:,s=0;:,",
	  { .sys = SYS_CHOWN16, .have = R | DU | CAP_PATH | CAP_UID | CAP_ARG,
	    PATHV("/srv/a"), .uid = 500, .arg = 501 } },
	{ T3(42), "6000", 6000, ID "o=lchown;:,p=/srv/l;:,O=0;:,G=0;:,s=-1;:,",
	  { .sys = SYS_LCHOWN, .have = R | DU | CAP_PATH | CAP_UID | CAP_ARG,
	    PATHV("/srv/l"), .ret = -1 } },
	{ T3(43), "6000", 6000, ID "o=lchown16;:,p=/srv/l;:,O=7;:,G=8;:,s=0;:,",
	  { .sys = SYS_LCHOWN16, .have = R | DU | CAP_PATH | CAP_UID | CAP_ARG,
	    PATHV("/srv/l"), .uid = 7, .arg = 8 } },
	{ T3(44), "6000", 6000, ID "o=fchown;:,d=6;:,O=1000;:,G=-1;:,s=0;:,",
	  { .sys = SYS_FCHOWN, .have = R | DU | CAP_FD | CAP_UID | CAP_ARG,
	    .fd = 6, .uid = 1000, .arg = -1 } },
	{ T3(45), "6000", 6000, ID "o=fchown16;:,d=6;:,O=-1;:,G=100;:,s=0;:,",
	  { .sys = SYS_FCHOWN16, .have = R | DU | CAP_FD | CAP_UID | CAP_ARG,
	    .fd = 6, .uid = -1, .arg = 100 } },
	{ T3(46), "6500", 6500,
	  ID "o=fchownat;:,p=/srv/a;:,O=1000;:,G=-1;:,f=256;:,s=0;:,",
	  { .sys = SYS_FCHOWNAT,
	    .have = R | DU | CAP_PATH | CAP_UID | CAP_ARG | CAP_FLAGS,
	    PATHV("/srv/a"), .uid = 1000, .arg = -1, .flags = 256 } },
	/* mmap2: A is the returned address, b the length. */
	{ T3(47), "3000", 3000,
	  ID "o=mmap2;:,a=0;:,b=4096;:,m=1;:,f=1;:,d=5;:,O=0;:,A=140234567680000;:,",
	  { .sys = SYS_MMAP2, .have = R | DU | CAP_ADDR | CAP_COUNT | CAP_MODE |
				     CAP_FLAGS | CAP_FD | CAP_OFFSET,
	    .addr = 0, .count = 4096, .mode = 1, .flags = 1, .fd = 5,
	    .offset = 0, .ret = 140234567680000LL } },
	{ T3(48), "2500", 2500,
	  ID "o=mremap;:,a=140234567690000;:,A=140234567680000;:,b=8192;:,f=1;:,s=-12;:,",
	  { .sys = SYS_MREMAP,
	    .have = R | DU | CAP_ADDR | CAP_ADDR2 | CAP_COUNT | CAP_FLAGS,
	    .addr = 140234567690000ULL, .addr2 = 140234567680000ULL,
	    .count = 8192, .flags = 1, .ret = -12 } },
	{ T3(49), "2000", 2000,
	  ID "o=munmap;:,a=140234567680000;:,b=4096;:,s=0;:,",
	  { .sys = SYS_MUNMAP, .have = R | DU | CAP_ADDR | CAP_COUNT,
	    .addr = 140234567680000ULL, .count = 4096 } },
	{ T3(50), "2000", 2000,
	  ID "o=msync;:,a=140234567680000;:,b=4096;:,f=4;:,s=0;:,",
	  { .sys = SYS_MSYNC, .have = R | DU | CAP_ADDR | CAP_COUNT | CAP_FLAGS,
	    .addr = 140234567680000ULL, .count = 4096, .flags = 4 } },
	/* Paths: quotes are removed, nothing is %-decoded, a lone ';' stays. */
	{ T3(51), "1000", 1000, ID "o=stat;:,p=\"/var/q path\";:,s=0;:,",
	  { .sys = SYS_STAT, .have = R | DU | CAP_PATH,
	    PATHV("/var/q path") } },
	{ T3(52), "1000", 1000, ID "o=stat;:,p=/srv/100%25done%;:,s=0;:,",
	  { .sys = SYS_STAT, .have = R | DU | CAP_PATH,
	    PATHV("/srv/100%25done%") } },
	{ T3(53), "1000", 1000, ID "o=stat;:,p=/srv/a;b;:,s=0;:,",
	  { .sys = SYS_STAT, .have = R | DU | CAP_PATH, PATHV("/srv/a;b") } },
	/* The documented debug text field T is accepted and ignored. */
	{ T3(54), "1000", 1000, ID "o=close;:,d=4;:,s=0;:,T=some text;:,",
	  { .sys = SYS_CLOSE, .have = R | DU | CAP_FD, .fd = 4 } },
	/* Durations that cannot be right are unknown: entry = t. */
	{ T3(55), NULL, 0, ID "o=close;:,d=4;:,s=0;:,",
	  { .sys = SYS_CLOSE, .have = R | CAP_FD, .fd = 4 } },
	{ T3(56), "0", 0, ID "o=close;:,d=4;:,s=0;:,",
	  { .sys = SYS_CLOSE, .have = R | CAP_FD, .fd = 4 } },
	{ T3(57), "-5", 0, ID "o=close;:,d=4;:,s=0;:,",
	  { .sys = SYS_CLOSE, .have = R | CAP_FD, .fd = 4 } },
	{ T3(58), "3600000000000", 0, ID "o=close;:,d=4;:,s=0;:,",
	  { .sys = SYS_CLOSE, .have = R | CAP_FD, .fd = 4 } },
	/* exit_group has no entry probe: D equals t. */
	{ 1509989599000000000ULL, "1509989599000000000", 0,
	  "i=17159:17159;:,o=exit_group;:,",
	  { .sys = SYS_EXIT_GROUP, .pid = 17159, .tid = 17159 } },
};

#undef ID
#undef R
#undef DU

/* Write all v3 cases into one log, read it back, compare line by line. */
START_TEST(v3_every_op)
{
	char *dir = tu_scratch();
	char *text = strdup("#|capture_version=3|\n");
	const uint64_t base = v3_cases[0].t - v3_cases[0].dur;

	for (size_t i = 0; i < ARRAY_SIZE(v3_cases); i++) {
		const struct v3_case *c = &v3_cases[i];
		char *more;

		ck_assert(asprintf(&more, "%st=%llu;:,%s%s%s%s\n", text,
				   (unsigned long long)c->t, c->D ? "D=" : "",
				   c->D ? c->D : "", c->D ? ";:," : "",
				   c->rest) > 0);
		free(text);
		text = more;
	}
	char *path = tu_write_str(dir, "v3.capture", text);
	struct caplog_reader *r = open_ok(path);

	ck_assert_int_eq(caplog_header(r)->version, 3);
	ck_assert_ptr_null(caplog_header(r)->mounts);
	for (size_t i = 0; i < ARRAY_SIZE(v3_cases); i++) {
		const struct v3_case *c = &v3_cases[i];
		struct cap_event want = c->want, got;
		char what[64];

		if (!want.pid) {
			want.pid = 17159;
			want.tid = 17358;
		}
		want.dur_ns = c->dur;
		want.time_ns = c->t - c->dur - base;
		snprintf(what, sizeof(what), "v3 case %zu (%s)", i,
			 sys_info(want.sys)->name);
		memset(&got, 0, sizeof(got));
		ck_assert_msg(caplog_next(r, &got) == 1, "%s: no event", what);
		assert_event(what, &want, &got);
		ck_assert_uint_eq(got.lineno, i + 2);
	}
	struct cap_event end;
	ck_assert_int_eq(caplog_next(r, &end), 0);
	ck_assert_uint_eq(caplog_lines(r), ARRAY_SIZE(v3_cases) + 1);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

/* v2: t is in milliseconds and there is no D. */
START_TEST(v2_times_in_ms)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "v2.capture",
		"#|capture_version=2|\n"
		"t=1509989598023;:,i=17159:17358;:,o=open;:,d=5;:,p=/a;:,f=0;:,m=0;:,\n"
		"t=1509989598030;:,i=17159:17358;:,o=read;:,d=5;:,b=10;:,\n"
		"t=1509989599023;:,i=17159:17358;:,o=close;:,d=5;:,s=0;:,\n");
	const struct cap_event want[] = {
		{ .sys = SYS_OPEN, .pid = 17159, .tid = 17358, .time_ns = 0,
		  .have = CAP_RET | CAP_PATH | CAP_FLAGS | CAP_MODE, .ret = 5,
		  PATHV("/a") },
		{ .sys = SYS_READ, .pid = 17159, .tid = 17358,
		  .time_ns = 7000000, .have = CAP_RET | CAP_FD, .fd = 5,
		  .ret = 10 },
		{ .sys = SYS_CLOSE, .pid = 17159, .tid = 17358,
		  .time_ns = 1000000000, .have = CAP_RET | CAP_FD, .fd = 5 },
	};
	struct caplog_reader *r = open_ok(path);
	struct cap_event got;

	ck_assert_int_eq(caplog_header(r)->version, 2);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_int_eq(caplog_next(r, &got), 1);
		assert_event(sys_info(want[i].sys)->name, &want[i], &got);
	}
	ck_assert_int_eq(caplog_next(r, &got), 0);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* A duration longer than the time since the epoch is unknown too. */
START_TEST(v3_duration_beyond_t)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "v3.capture",
		"#|capture_version=3|\n"
		"t=5000;:,D=6000;:,i=1:1;:,o=sync;:,s=0;:,\n"
		"t=20000;:,D=5000;:,i=1:1;:,o=sync;:,s=0;:,\n"
		"t=30000;:,D=30000;:,i=1:1;:,o=sync;:,s=0;:,\n");
	const struct cap_event want[] = {
		{ .sys = SYS_SYNC, .pid = 1, .tid = 1, .have = CAP_RET },
		{ .sys = SYS_SYNC, .pid = 1, .tid = 1, .have = CAP_RET | CAP_DUR,
		  .time_ns = 10000, .dur_ns = 5000 },
		{ .sys = SYS_SYNC, .pid = 1, .tid = 1, .have = CAP_RET | CAP_DUR,
		  .time_ns = 0, .dur_ns = 30000 },
	};
	struct caplog_reader *r = open_ok(path);
	struct cap_event got;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ck_assert_int_eq(caplog_next(r, &got), 1);
		assert_event("sync", &want[i], &got);
	}
	ck_assert_int_eq(caplog_next(r, &got), 0);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* Keys v3 never had (some are v4 keys) reject a v3 line. */
static const char *const v3_extra_keys[] = {
	"x=1", "r=0", "e=4", "U=0", "Q=5", "k=1:2",
};

START_TEST(v3_unknown_key_rejects)
{
	const char *extra = v3_extra_keys[_i];
	char *dir = tu_scratch();
	char *text;

	ck_assert(asprintf(&text,
		"#|capture_version=3|\n"
		"t=100;:,D=1;:,i=1:1;:,o=close;:,d=3;:,s=0;:,%s;:,\n"
		"t=200;:,D=1;:,i=1:1;:,o=close;:,d=3;:,s=0;:,\n",
		extra) > 0);
	char *path = tu_write_str(dir, "v3.capture", text);
	struct caplog_reader *r = open_ok(path);
	struct cap_event got;

	ck_assert_int_eq(caplog_next(r, &got), 1);
	ck_assert_uint_eq(got.lineno, 3);
	ck_assert_int_eq(caplog_next(r, &got), 0);
	ck_assert_msg(caplog_bad(r, CAPLOG_BAD_SYNTAX) == 1,
		      "v3 line with %s not rejected", extra);
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

/* The sample fixture: a whole v3 log as the SystemTap script wrote it. */
START_TEST(v3_sample_fixture)
{
	static const enum sys_id ops[] = {
		SYS_OPEN, SYS_OPENAT, SYS_CREAT, SYS_READ, SYS_WRITE,
		SYS_WRITEV, SYS_LSEEK, SYS_LLSEEK, SYS_CLOSE, SYS_FSYNC,
		SYS_STAT, SYS_LSTAT, SYS_FSTAT, SYS_FSTATAT, SYS_MKDIR,
		SYS_MKDIRAT, SYS_RMDIR, SYS_UNLINK, SYS_UNLINKAT, SYS_RENAME,
		SYS_RENAMEAT2, SYS_GETDENTS, SYS_FCNTL, SYS_FDATASYNC, SYS_SYNC,
		SYS_SYNC_FILE_RANGE, SYS_READAHEAD, SYS_CHMOD, SYS_FCHMOD,
		SYS_CHOWN, SYS_FCHOWNAT, SYS_MMAP2, SYS_MUNMAP, SYS_EXIT_GROUP,
	};
	char *path;
	struct cap_event ev;

	ck_assert(asprintf(&path, "%s/caplog/v3-sample.capture",
			   tu_datadir()) > 0);
	struct caplog_reader *r = open_ok(path);
	ck_assert_int_eq(caplog_header(r)->version, 3);
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		ck_assert_int_eq(caplog_next(r, &ev), 1);
		ck_assert_msg(ev.sys == ops[i], "event %zu is %s, want %s", i,
			      sys_info(ev.sys)->name, sys_info(ops[i])->name);
		if (i == 0) {
			ck_assert_uint_eq(ev.time_ns, 0);
			ck_assert_uint_eq(ev.dur_ns, 8123);
		}
		if (ev.sys == SYS_READAHEAD) {
			ck_assert_uint_eq(ev.have & CAP_COUNT, CAP_COUNT);
			ck_assert_int_eq(ev.count, 131072);
		}
		if (ev.sys == SYS_EXIT_GROUP) {
			ck_assert_uint_eq(ev.dur_ns, 0);
			/* t - (first t - first D) */
			ck_assert_uint_eq(ev.time_ns, 233211 + 8123);
		}
	}
	ck_assert_int_eq(caplog_next(r, &ev), 0);
	/* Header, one comment line, the events. */
	ck_assert_uint_eq(caplog_lines(r), ARRAY_SIZE(ops) + 2);
	assert_no_bad(r);
	caplog_close(r);
	free(path);
}
END_TEST

/* ---- files caplog_open refuses ------------------------------------------ */

static void assert_open_fails(const char *path, int want_errno,
			      const char *want_in_msg)
{
	char err[512] = "";

	errno = 0;
	struct caplog_reader *r = caplog_open(path, err, sizeof(err));
	ck_assert_msg(!r, "%s opened", path);
	ck_assert_msg(errno == want_errno, "%s: errno %d (%s), want %d (%s)",
		      path, errno, strerror(errno), want_errno,
		      strerror(want_errno));
	ck_assert_msg(strstr(err, path), "message \"%s\" lacks the path", err);
	if (want_in_msg)
		ck_assert_msg(strstr(err, want_in_msg),
			      "message \"%s\" lacks \"%s\"", err, want_in_msg);
}

START_TEST(open_missing_and_directory)
{
	char *dir = tu_scratch();
	char *missing;

	ck_assert(asprintf(&missing, "%s/no-such.capture", dir) > 0);
	assert_open_fails(missing, ENOENT, NULL);
	assert_open_fails(dir, EISDIR, NULL);
	free(missing);
	free(dir);
}
END_TEST

static const struct {
	const char *text;
	int err;
	const char *msg;
} bad_headers[] = {
	{ "", ENODATA, NULL },
	{ "t=1;:,i=1:1;:,o=sync;:,\n", EPROTO, ":1:" },
	{ "\n", EPROTO, ":1:" },
	{ "# comment\n#|capture_version=4|\n", EPROTO, ":1:" },
	{ "#|capture_version=x|\n", EPROTO, ":1:" },
	{ "#|capture_version=4\n", EPROTO, ":1:" },
	{ "#|capture_version=9|\n", EPROTONOSUPPORT, ":1: capture log version 9" },
	{ "#|capture_version=1|\n", EPROTONOSUPPORT, ":1: capture log version 1" },
	{ "#|capture_version=5|\nt=1;:,i=1:1;:,o=sync;:,\n", EPROTONOSUPPORT,
	  "version 5" },
};

START_TEST(open_bad_header)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "bad.capture", bad_headers[_i].text);

	assert_open_fails(path, bad_headers[_i].err, bad_headers[_i].msg);
	free(path);
	free(dir);
}
END_TEST

/* ---- bad lines ----------------------------------------------------------- */

#define L(s) s, sizeof(s) - 1

struct bad_line {
	int version;
	const char *line;
	size_t len;
	enum caplog_bad why;
};

static const struct bad_line bad_lines[] = {
	{ 4, L("t=1;:,i=1:1;:,o=frobnicate;:,"), CAPLOG_BAD_UNKNOWN_OP },
	/* AIO lines (§5.1) */
	{ 4, L("t=1;:,i=1:1;:,o=io_submitt;:,a=5;:,c=1;:,r=1;:,"),
	  CAPLOG_BAD_UNKNOWN_OP },
	{ 4, L("t=1;:,i=1:1;:,o=iocb;:,a=0x7f00;:,A=1;:,d=3;:,F=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=iocb;:,a=5;:,A=18446744073709551616;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=iocb;:,a=5;:,A=1;:,F=pread;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=io_event;:,a=5;:,A=;:,r=4096;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=io_getevents;:,a=5;:,G=1;c=8;:,r=1;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("a=5;:,i=1:1;:,o=io_event;:,A=7;:,r=0;:,"), CAPLOG_BAD_MISSING },
	/* io_uring lines (§5.2) */
	{ 4, L("t=1;:,i=1:1;:,o=io_uring_submit;:,d=5;:,r=1;:,"),
	  CAPLOG_BAD_UNKNOWN_OP },
	{ 4, L("t=1;:,i=1:1;:,o=sqe;:,e=5;:,d=4;:,F=read;:,A=1;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=sqe;:,e=5;:,d=4;:,F=22;:,B=0x1;:,A=1;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=sqe;:,e=5;:,F=22;:,A=18446744073709551616;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=cqe;:,e=5;:,A=1;:,r=4096"
	       ";:"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=uring_file;:,e=5;:,O=0;:,d=;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=io_uring_enter;:,d=5;:,G=1;c=2;:,r=2;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("i=1:1;:,o=cqe;:,e=5;:,A=1;:,r=0;:,"), CAPLOG_BAD_MISSING },
	/* Page records (§5.2) */
	{ 4, L("t=1;:,i=1:1;:,o=mmap_reed;:,a=4096;:,O=0;:,"),
	  CAPLOG_BAD_UNKNOWN_OP },
	{ 4, L("t=1;:,i=1:1;:,o=mmap_read;:,a=0x7f0000001000;:,O=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=mmap_write;:,a=4096;:,O=4k;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=mmap_write;:,a=18446744073709551616;:,O=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=mmap_read;:,a=4096;O=0;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("i=1:1;:,o=mmap_read;:,a=4096;:,O=0;:,"), CAPLOG_BAD_MISSING },
	{ 4, L("t=1;:,i=1:1;:,o=madvise;:,a=4096;:,c=4096;:,f=MADV_RANDOM;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=;:,"), CAPLOG_BAD_UNKNOWN_OP },
	{ 4, L("t=1;:,i=1:1;:,o=SYNC;:,"), CAPLOG_BAD_UNKNOWN_OP },
	{ 4, L("i=1:1;:,o=sync;:,r=0;:,"), CAPLOG_BAD_MISSING },
	{ 4, L("t=1;:,o=sync;:,r=0;:,"), CAPLOG_BAD_MISSING },
	{ 4, L("t=1;:,i=1:1;:,r=0;:,"), CAPLOG_BAD_MISSING },
	{ 3, L("t=1;:,D=1;:,o=sync;:,s=0;:,"), CAPLOG_BAD_MISSING },
	{ 4, L("t=abc;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=-5;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d=12x;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d=--1;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d=-;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d=+1;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d= 1;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,d=0x10;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=mkdir;:,p=/a;:,m=511;:,u=512;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=mkdir;:,p=/a;:,m=511;:,u=-1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 3, L("t=1;:,i=1:1;:,o=mkdir;:,p=/a;:,m=511;:,u=18;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=-1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=1;:,X=6;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,X=-1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=read;:,d=3;:,X=1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=1k;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=1;:,K=-1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,X=1;:,K=2;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=1;:,R=-1;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=5;:,i=1:1;:,o=read;:,d=3;:,X=1;:,R=2;:,r=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,D=0;:,i=1:1;:,o=wake;:,a=8;:,c=5;:,R=-1;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 3, L("t=9;:,D=5;:,i=1:1;:,o=read;:,d=3;:,C=1;:,b=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,r=18446744073709551616;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,r=123456789012345678901;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 3, L("t=1;:,D=1;:,i=1:1;:,o=close;:,d=3;:,s=zero;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=stat;:,p=/a%zz;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=stat;:,p=/a%4;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=stat;:,p=/a%;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=stat;:,p=/a%00b;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=rename;:,p=/a;:,P=/b%g1;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=-1:2;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:-2;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 3, L("t=1;:,D=1;:,i=-17159:17358;:,o=sync;:,s=0;:,"),
	  CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=5;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=:;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=4294967296:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:2:3;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=fork;:,k=77;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=fork;:,k=-1:2;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;x"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=stat;:,p=/a;b;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("garbage"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t1;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("tt=1;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L(" t=1;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_SYNTAX },
	{ 4, L("t=1;:,i=1:1;:,o=sync;:,x"), CAPLOG_BAD_SYNTAX },
};

/* A NUL byte anywhere in a line, whatever else is wrong with it. */
static const struct bad_line nul_lines[] = {
	{ 4, L("\0t=1;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1\0;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1\0:1;:,o=sync;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=sy\0nc;:,r=0;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=close;:,p=/a\0b;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=sync;:,x=a\0b;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=sync;:,\0"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=sync;:,x\0=1;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=abc\0;:,i=1:1;:,o=sync;:,"), CAPLOG_BAD_NUL },
	{ 4, L("t=1;:,i=1:1;:,o=frob\0;:,"), CAPLOG_BAD_NUL },
	{ 4, L("garbage\0"), CAPLOG_BAD_NUL },
	{ 3, L("t=1;:,D=1;:,i=1:1;:,o=stat;:,p=/a;\0;:,s=0;:,"),
	  CAPLOG_BAD_NUL },
	{ 3, L("t=1;:,D=1;:,i=1:1;:,o=stat;:,p=/a;:,s=0;:,\0"),
	  CAPLOG_BAD_NUL },
};

/* @bad then a good line: the bad one is counted as it should be, the good
 * one is still read. */
static void check_bad_line(const struct bad_line *bad)
{
	char *dir = tu_scratch();
	const char *good = bad->version >= 4 ?
			   "t=9;:,i=7:8;:,o=sync;:,r=0;:,\n" :
			   "t=9;:,D=1;:,i=7:8;:,o=sync;:,s=0;:,\n";
	char head[32];
	int hlen = snprintf(head, sizeof(head), "#|capture_version=%d|\n",
			    bad->version);
	size_t len = (size_t)hlen + bad->len + 1 + strlen(good);
	char *text = malloc(len);

	ck_assert(text);
	memcpy(text, head, (size_t)hlen);
	memcpy(text + hlen, bad->line, bad->len);
	text[(size_t)hlen + bad->len] = '\n';
	memcpy(text + hlen + bad->len + 1, good, strlen(good));
	char *path = tu_write(dir, "bad.capture", text, len);
	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;

	ck_assert_int_eq(caplog_next(r, &ev), 1);
	ck_assert_int_eq(ev.sys, SYS_SYNC);
	ck_assert_uint_eq(ev.pid, 7);
	ck_assert_uint_eq(ev.lineno, 3);
	ck_assert_int_eq(caplog_next(r, &ev), 0);
	ck_assert_uint_eq(caplog_lines(r), 3);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(r, why) == (why == (int)bad->why),
			      "line \"%s\" (%zu bytes): %llu counted as %s, want %s",
			      bad->line, bad->len,
			      (unsigned long long)caplog_bad(r, why),
			      caplog_bad_name(why), caplog_bad_name(bad->why));
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}

START_TEST(bad_line_rejected)
{
	check_bad_line(&bad_lines[_i]);
}
END_TEST

START_TEST(nul_line_rejected)
{
	check_bad_line(&nul_lines[_i]);
}
END_TEST

/* Numbers below INT64_MIN must not wrap around to positive values. */
static const char *const below_int64_min[] = {
	"-9223372036854775809", "-18446744073709551615",
};

START_TEST(number_below_int64_min)
{
	char *dir = tu_scratch();
	char *text;

	ck_assert(asprintf(&text, "#|capture_version=4|\n"
			   "t=1;:,i=1:1;:,o=lseek;:,d=3;:,O=%s;:,r=0;:,\n",
			   below_int64_min[_i]) > 0);
	char *path = tu_write_str(dir, "min.capture", text);
	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;
	int rc = caplog_next(r, &ev);

	ck_assert_msg(rc == 0, "O=%s read as offset %lld",
		      below_int64_min[_i], (long long)ev.offset);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_SYNTAX), 1);
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

#define GOOD(n) "t=" #n ";:,i=" #n ":" #n ";:,o=sync;:,r=0;:,\n"

/* Over-long lines: one filling more than the read buffer, one smaller. */
START_TEST(bad_names)
{
	for (int i = 0; i < CAPLOG_BAD_COUNT; i++) {
		ck_assert_ptr_nonnull(caplog_bad_name(i));
		ck_assert_uint_gt(strlen(caplog_bad_name(i)), 0);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(caplog_bad_name(i), caplog_bad_name(j));
	}
}
END_TEST

START_TEST(too_long_lines)
{
	const size_t huge = (1u << 20) + 100, big = 100 * 1024;
	const char head[] = "#|capture_version=4|\n";
	size_t cap = sizeof(head) + huge + big + 1024;
	char *text = malloc(cap), *p = text;
	char *dir = tu_scratch();

	ck_assert(text);
	p = stpcpy(p, head);
	memset(p, 'x', huge);
	p += huge;
	*p++ = '\n';
	p = stpcpy(p, GOOD(1));
	memcpy(p, "t=2;:,i=2:2;:,o=stat;:,p=/", 26);
	p += 26;
	memset(p, 'y', big);
	p += big;
	p = stpcpy(p, ";:,\n");
	p = stpcpy(p, GOOD(3));
	char *path = tu_write(dir, "long.capture", text, (size_t)(p - text));
	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;

	ck_assert_int_eq(caplog_next(r, &ev), 1);
	ck_assert_uint_eq(ev.pid, 1);
	ck_assert_uint_eq(ev.lineno, 3);
	ck_assert_int_eq(caplog_next(r, &ev), 1);
	ck_assert_uint_eq(ev.pid, 3);
	ck_assert_uint_eq(ev.lineno, 5);
	ck_assert_int_eq(caplog_next(r, &ev), 0);
	ck_assert_uint_eq(caplog_lines(r), 5);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_TOO_LONG), 2);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_SYNTAX), 0);
	ck_assert_uint_eq(caplog_offset(r), caplog_size(r));
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

START_TEST(truncated_last_line)
{
	struct caplog_reader *r = open_text("trunc.capture",
		"#|capture_version=4|\n" GOOD(1) "t=2;:,i=2:2;:,o=sync;:,r=0;:,");
	struct cap_event ev;

	ck_assert_int_eq(caplog_next(r, &ev), 1);
	ck_assert_uint_eq(ev.pid, 1);
	ck_assert_int_eq(caplog_next(r, &ev), 0);
	ck_assert_uint_eq(caplog_lines(r), 3);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_TRUNCATED), 1);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_SYNTAX), 0);
	caplog_close(r);
}
END_TEST

/* Many bad lines of every kind in one log: each counted once. */
START_TEST(bad_lines_counted_together)
{
	char *dir = tu_scratch();
	size_t n = ARRAY_SIZE(bad_lines), len = 0, cap = 64;
	uint64_t want[CAPLOG_BAD_COUNT] = { 0 };

	for (size_t i = 0; i < n; i++)
		cap += bad_lines[i].len + sizeof(GOOD(1));
	char *text = malloc(cap);
	ck_assert(text);
	len = (size_t)sprintf(text, "#|capture_version=4|\n");
	for (size_t i = 0; i < n; i++) {
		if (bad_lines[i].version != 4)
			continue;
		memcpy(text + len, bad_lines[i].line, bad_lines[i].len);
		len += bad_lines[i].len;
		text[len++] = '\n';
		len += (size_t)sprintf(text + len, "%s", GOOD(5));
		want[bad_lines[i].why]++;
	}
	char *path = tu_write(dir, "many.capture", text, len);
	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;
	uint64_t events = 0;
	int rc;

	while ((rc = caplog_next(r, &ev)) == 1) {
		ck_assert_uint_eq(ev.pid, 5);
		events++;
	}
	ck_assert_int_eq(rc, 0);
	uint64_t nbad = 0;
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++) {
		ck_assert_msg(caplog_bad(r, why) == want[why],
			      "%s: %llu, want %llu", caplog_bad_name(why),
			      (unsigned long long)caplog_bad(r, why),
			      (unsigned long long)want[why]);
		nbad += want[why];
	}
	ck_assert_uint_eq(events, nbad);
	ck_assert_uint_eq(caplog_lines(r), 1 + 2 * nbad);
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

/* Binary garbage after a valid header: no crash, every line accounted for. */
START_TEST(garbage_after_header)
{
	static const char *const bits[] = {
		"t=", "i=", "o=", "p=", "D=", ";:,", "%", "%4", "=", "#|",
		"1:2", "-", "\n", "\n",
	};
	const size_t size = 16384;
	char *text = malloc(size + 64);
	char *dir = tu_scratch();
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(_i + 1);
	size_t len = (size_t)sprintf(text, "#|capture_version=4|\n");
	size_t body = len;

	while (len < size) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 4 == 0) {
			const char *b = bits[(x >> 8) % ARRAY_SIZE(bits)];
			memcpy(text + len, b, strlen(b));
			len += strlen(b);
		} else {
			text[len++] = (char)(x >> 24);
		}
	}
	char *path = tu_write(dir, "garbage.capture", text, len);

	/* What the reader must find, line by line. */
	uint64_t lines = 1, want_trunc = 0, want_bad = 0;
	for (size_t s = body; s < len;) {
		char *nl = memchr(text + s, '\n', len - s);
		size_t e = nl ? (size_t)(nl - text) : len;

		lines++;
		if (!nl)
			want_trunc++;
		else if (e > s && text[s] != '#')
			want_bad++;
		s = e + 1;
	}

	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;
	int rc;
	uint64_t events = 0;
	while ((rc = caplog_next(r, &ev)) == 1)
		events++;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(events, 0);
	ck_assert_uint_eq(caplog_lines(r), lines);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_TRUNCATED), want_trunc);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_TOO_LONG), 0);
	uint64_t nbad = 0;
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		if (why != CAPLOG_BAD_TRUNCATED)
			nbad += caplog_bad(r, why);
	ck_assert_uint_eq(nbad, want_bad);
	ck_assert_uint_gt(want_bad, 10);
	ck_assert_uint_gt(caplog_bad(r, CAPLOG_BAD_NUL), 0);
	caplog_close(r);
	free(path);
	free(text);
	free(dir);
}
END_TEST

/* ---- the end record ---------------------------------------------------- */

/* Read every event of @path; returns the reader, at its end. */
static struct caplog_reader *read_to_end(const char *path, uint64_t *events)
{
	struct caplog_reader *r = open_ok(path);
	struct cap_event ev;
	int rc;

	*events = 0;
	while ((rc = caplog_next(r, &ev)) == 1)
		(*events)++;
	ck_assert_int_eq(rc, 0);
	return r;
}

/* Every counter written comes back; the record is no event. */
START_TEST(end_round_trip)
{
	char *dir = tu_scratch(), *path;
	struct caplog_header hdr = { .version = 4, .host = "h", .backend = "bpf" };
	struct cap_event ev;
	struct caplog_end want = {
		.events = 1, .lost = 2, .lost_disk_full = 3, .filtered = 4,
		.paths_cut = 5, .snapshot_fds = 6, .missing_tracepoints = 7,
		.maps_unfollowed = 8, .duration_ns = UINT64_MAX,
		.error = "ENOSPC",
	};
	struct outbuf *ob = malloc(sizeof(*ob));
	uint64_t n;

	ck_assert(ob);
	fill_event(&ev, SYS_READ, CAP_FD | CAP_COUNT | CAP_RET);
	path = tu_join(dir, "end.capture");
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	caplog_write_header(ob, &hdr);
	caplog_write_event(ob, &ev);
	caplog_write_end(ob, &want);
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);

	char *text = tu_read(path, NULL);
	ck_assert_msg(strstr(text, "\n#|end|events=1|lost=2|lost_disk_full=3|"
			     "filtered=4|paths_cut=5|snapshot_fds=6|"
			     "missing_tracepoints=7|maps_unfollowed=8|"
			     "duration_ns=18446744073709551615|error=ENOSPC|\n"),
		      "%s", text);
	struct caplog_reader *r = read_to_end(path, &n);
	const struct caplog_end *got = caplog_end_record(r);
	ck_assert_uint_eq(n, 1);
	assert_no_bad(r);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->events, 1);
	ck_assert_uint_eq(got->lost, 2);
	ck_assert_uint_eq(got->lost_disk_full, 3);
	ck_assert_uint_eq(got->filtered, 4);
	ck_assert_uint_eq(got->paths_cut, 5);
	ck_assert_uint_eq(got->snapshot_fds, 6);
	ck_assert_uint_eq(got->missing_tracepoints, 7);
	ck_assert_uint_eq(got->maps_unfollowed, 8);
	ck_assert_uint_eq(got->duration_ns, UINT64_MAX);
	ck_assert_str_eq(got->error, "ENOSPC");
	caplog_close(r);
	free(text);
	free(path);
	free(ob);
	free(dir);
}
END_TEST

#define V4_HEAD "#|capture_version=4|\n#|host=h|backend=bpf|\n"
#define V4_EVENT "t=5;:,D=1;:,i=1:1;:,o=close;:,d=3;:,r=0;:,\n"

/* Logs and whether they end with their end record (after their events). */
static const struct {
	const char *text;
	bool ended;
	uint64_t events;
} end_cases[] = {
	/* 0: complete */
	{ V4_HEAD V4_EVENT "#|end|events=1|\n", true, 1 },
	/* 1: cut at a line boundary */
	{ V4_HEAD V4_EVENT V4_EVENT, false, 2 },
	/* 2: cut inside the end record */
	{ V4_HEAD V4_EVENT "#|end|events=1|lo", false, 1 },
	/* 3: an event after the end record */
	{ V4_HEAD "#|end|events=0|\n" V4_EVENT, false, 1 },
	/* 4: no events at all: the end record follows the header */
	{ V4_HEAD "#|end|events=0|duration_ns=7|\n", true, 0 },
	/* 5: CRLF, unknown keys and items without '=' are ignored */
	{ V4_HEAD V4_EVENT "#|end|events=1|future=x|odd|\r\n", true, 1 },
	/* 6: a comment after the end record undoes it too */
	{ V4_HEAD V4_EVENT "#|end|events=1|\n# more\n", false, 1 },
	/* 7: header only */
	{ V4_HEAD, false, 0 },
	/* 8: v3 never has one, and its #|end| lines are comments */
	{ "#|capture_version=3|\n#|end|events=1|\n", false, 0 },
};

START_TEST(end_record_last_line)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "x.capture", end_cases[_i].text);
	uint64_t n;
	struct caplog_reader *r = read_to_end(path, &n);
	const struct caplog_end *end = caplog_end_record(r);

	ck_assert_msg(!end == !end_cases[_i].ended, "case %d: end record %s",
		      _i, end ? "found" : "missing");
	ck_assert_uint_eq(n, end_cases[_i].events);
	if (_i == 4)
		ck_assert_uint_eq(end->duration_ns, 7);
	if (end)
		ck_assert_str_eq(end->error, "");
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* A reader that does not know the end record (this one, before it) takes
 * it as a comment, or among the header lines as unknown items. */
START_TEST(end_record_is_a_comment_by_the_old_rules)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "x.capture",
				  V4_HEAD "#|end|events=0|host=z|\n");
	uint64_t n;
	struct caplog_reader *r = read_to_end(path, &n);

	/* Only the known key that must not be there would change the
	 * header: the end record is never parsed as header items. */
	ck_assert_str_eq(caplog_header(r)->host, "h");
	ck_assert_ptr_nonnull(caplog_end_record(r));
	assert_no_bad(r);
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* ---- the uncaptured record ---------------------------------------------- */

/* Written by the capture, read back sorted by count, then name. */
START_TEST(uncaptured_round_trip)
{
	char *dir = tu_scratch(), *path = tu_join(dir, "u.capture");
	struct caplog_header hdr = { .version = 4, .host = "h", .backend = "bpf" };
	struct caplog_end end = { .events = 0 };
	static struct uncaptured want;
	struct outbuf *ob = malloc(sizeof(*ob));
	uint64_t n;

	ck_assert(ob);
	memset(&want, 0, sizeof(want));
	ck_assert_int_eq(uncaptured_add(&want, "futex", 7), 0);
	ck_assert_int_eq(uncaptured_add(&want, "io_submit", 4230), 0);
	ck_assert_int_eq(uncaptured_add(&want, "io_getevents", 4230), 0);
	ck_assert_int_eq(uncaptured_add(&want, "ioctl", 1ULL << 40), 0);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	caplog_write_header(ob, &hdr);
	uncaptured_write(ob, &want);
	caplog_write_end(ob, &end);
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);

	char *text = tu_read(path, NULL);
	ck_assert_msg(strstr(text, "\n#|uncaptured|futex=7|io_submit=4230|"
			     "io_getevents=4230|ioctl=1099511627776|\n"
			     "#|end|"), "%s", text);
	struct caplog_reader *r = read_to_end(path, &n);
	const struct uncaptured *got = caplog_uncaptured(r);
	ck_assert_uint_eq(n, 0);
	assert_no_bad(r);
	ck_assert_ptr_nonnull(caplog_end_record(r));
	ck_assert_ptr_nonnull(got);
	ck_assert(got->known);
	ck_assert_uint_eq(got->n, 4);
	ck_assert_str_eq(got->v[0].name, "ioctl");
	ck_assert_uint_eq(got->v[0].count, 1ULL << 40);
	ck_assert_str_eq(got->v[1].name, "io_getevents");
	ck_assert_str_eq(got->v[2].name, "io_submit");
	ck_assert_uint_eq(got->v[2].count, 4230);
	ck_assert_str_eq(got->v[3].name, "futex");
	ck_assert_uint_eq(got->v[3].count, 7);
	ck_assert_uint_eq(uncaptured_other(got), 7);
	ck_assert_uint_eq(uncaptured_file_io(got), (1ULL << 40) + 8460);
	caplog_close(r);
	free(text);
	free(path);
	free(ob);
	free(dir);
}
END_TEST

/* Logs with an uncaptured record: how many syscalls it names (-1: none
 * read) and the bad lines. */
static const struct {
	const char *text;
	int names;
	uint64_t bad;
} uncap_cases[] = {
	/* 0: none at all: SystemTap, older captures */
	{ V4_HEAD V4_EVENT "#|end|events=1|\n", -1, 0 },
	/* 1: before the end record, with events */
	{ V4_HEAD V4_EVENT "#|uncaptured|flock=2|getpid=1|\n#|end|events=1|\n",
	  2, 0 },
	/* 2: nothing uncaptured */
	{ V4_HEAD "#|uncaptured|\n#|end|events=0|\n", 0, 0 },
	/* 3: right after the header: not a header line */
	{ V4_HEAD "#|uncaptured|host=3|\n" V4_EVENT, 1, 0 },
	/* 4-9: malformed: a bad line, the record is not taken */
	{ V4_HEAD V4_EVENT "#|uncaptured|flock=x|\n", -1, 1 },
	{ V4_HEAD V4_EVENT "#|uncaptured|flock=2\n", -1, 1 },
	{ V4_HEAD V4_EVENT "#|uncaptured|Flock=2|\n", -1, 1 },
	{ V4_HEAD V4_EVENT "#|uncaptured|flock=2|flock=3|\n", -1, 1 },
	{ V4_HEAD V4_EVENT "#|uncaptured|flock|\n", -1, 1 },
	{ V4_HEAD V4_EVENT "#|uncaptured|flock=-1|\n", -1, 1 },
	/* 10: a second one is a bad line; the first stays */
	{ V4_HEAD "#|uncaptured|flock=2|\n" V4_EVENT "#|uncaptured|tee=1|\n",
	  1, 1 },
	/* 11: 2^64 is too many */
	{ V4_HEAD "#|uncaptured|tee=18446744073709551616|\n", -1, 1 },
	/* 12: v3 has none: a comment */
	{ "#|capture_version=3|\n#|uncaptured|flock=x|\n", -1, 0 },
};

START_TEST(uncaptured_record)
{
	char *dir = tu_scratch();
	char *path = tu_write_str(dir, "x.capture", uncap_cases[_i].text);
	uint64_t n, bad = 0;
	struct caplog_reader *r = read_to_end(path, &n);
	const struct uncaptured *u = caplog_uncaptured(r);

	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		bad += caplog_bad(r, why);
	ck_assert_msg(bad == uncap_cases[_i].bad, "case %d: %llu bad lines",
		      _i, (unsigned long long)bad);
	ck_assert_uint_eq(caplog_bad(r, CAPLOG_BAD_SYNTAX), bad);
	if (uncap_cases[_i].names < 0) {
		ck_assert_msg(!u, "case %d: a record was read", _i);
	} else {
		ck_assert_msg(u, "case %d: no record read", _i);
		ck_assert_uint_eq(u->n, (size_t)uncap_cases[_i].names);
	}
	if (_i == 1) {
		ck_assert_str_eq(u->v[0].name, "flock");
		ck_assert_uint_eq(u->v[0].count, 2);
		ck_assert_ptr_nonnull(caplog_end_record(r));
	}
	if (_i == 3) {
		ck_assert_str_eq(caplog_header(r)->host, "h");
		ck_assert_uint_eq(n, 1);
	}
	if (_i == 10)
		ck_assert_str_eq(u->v[0].name, "flock");
	caplog_close(r);
	free(path);
	free(dir);
}
END_TEST

/* The bad-input tests reject lines on purpose: keep their warnings quiet. */
static void quiet(void)
{
	log_set_level(LOG_ERROR);
}

Suite *caplog_suite(void)
{
	Suite *s = suite_create("caplog");
	TCase *tc = tcase_create("v4");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, v4_every_op, 0, SYS_COUNT);
	tcase_add_test(tc, v4_all_fields_extremes);
	tcase_add_test(tc, v4_cpu_keys);
	tcase_add_test(tc, v4_wake_runq);
	tcase_add_test(tc, v4_path_escaping);
	tcase_add_test(tc, v4_header_round_trip);
	tcase_add_test(tc, v4_unknown_keys_ignored);
	tcase_add_test(tc, v4_aio_lines);
	tcase_add_test(tc, v4_uring_lines);
	tcase_add_test(tc, v4_page_lines);
	tcase_add_test(tc, v4_fileapi_lines);
	suite_add_tcase(s, tc);

	tc = tcase_create("v3");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, v3_every_op);
	tcase_add_test(tc, v2_times_in_ms);
	tcase_add_test(tc, v3_duration_beyond_t);
	tcase_add_loop_test(tc, v3_unknown_key_rejects, 0,
			    ARRAY_SIZE(v3_extra_keys));
	tcase_add_test(tc, v3_sample_fixture);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, open_missing_and_directory);
	tcase_add_loop_test(tc, open_bad_header, 0, ARRAY_SIZE(bad_headers));
	tcase_add_loop_test(tc, bad_line_rejected, 0, ARRAY_SIZE(bad_lines));
	tcase_add_loop_test(tc, nul_line_rejected, 0, ARRAY_SIZE(nul_lines));
	tcase_add_loop_test(tc, number_below_int64_min, 0,
			    ARRAY_SIZE(below_int64_min));
	tcase_add_test(tc, bad_names);
	tcase_add_test(tc, too_long_lines);
	tcase_add_test(tc, truncated_last_line);
	tcase_add_test(tc, bad_lines_counted_together);
	tcase_add_loop_test(tc, garbage_after_header, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("end");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_checked_fixture(tc, quiet, NULL);
	tcase_add_test(tc, end_round_trip);
	tcase_add_loop_test(tc, end_record_last_line, 0, ARRAY_SIZE(end_cases));
	tcase_add_test(tc, end_record_is_a_comment_by_the_old_rules);
	tcase_add_test(tc, uncaptured_round_trip);
	tcase_add_loop_test(tc, uncaptured_record, 0, ARRAY_SIZE(uncap_cases));
	suite_add_tcase(s, tc);
	return s;
}
