/*
 * Tests of the replay file (rlog): writer/reader round trip, header and
 * section checks, argument parsing and the errors a damaged file gives.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/outbuf.h"
#include "ioriot/rlog.h"
#include "testutil.h"

#define HDR "#|replay_version=1|name=t|user=u|sandbox=/.ioriot/t|\n"
#define ERRLEN 512

/* Write @len bytes of @text to a new temp file; its name goes to @path. */
static void rlog_test_file(char *path, size_t size, const char *text,
			   size_t len)
{
	int fd;

	ck_assert_int_lt(snprintf(path, size, "/tmp/ioriot-test-rlog-XXXXXX"),
			 (int)size);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	while (len) {
		ssize_t n = write(fd, text, len);

		ck_assert_int_gt(n, 0);
		text += n;
		len -= (size_t)n;
	}
	ck_assert_int_eq(close(fd), 0);
}

/* Open @text as a replay file; the file is unlinked at once. */
static struct rlog_reader *rlog_test_open(const char *text, size_t len,
					  char *err)
{
	char path[64];
	struct rlog_reader *r;
	int saved;

	rlog_test_file(path, sizeof(path), text, len);
	r = rlog_open(path, err, ERRLEN);
	saved = errno;
	ck_assert_int_eq(unlink(path), 0);
	errno = saved;
	return r;
}

static struct rlog_reader *open_ok(const char *text, char *err)
{
	struct rlog_reader *r = rlog_test_open(text, strlen(text), err);

	ck_assert_msg(r, "rlog_open failed: %s", err);
	return r;
}

static void assert_bytes(const char *got, uint32_t got_len, const char *want,
			 size_t want_len)
{
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got_len, want_len);
	ck_assert(memcmp(got, want, want_len) == 0);
	ck_assert_int_eq(got[got_len], '\0');
}

static void assert_op_eq(const struct rlog_op *a, const struct rlog_op *b)
{
	ck_assert_uint_eq(a->id, b->id);
	ck_assert_uint_eq(a->pid, b->pid);
	ck_assert_uint_eq(a->tid, b->tid);
	ck_assert_uint_eq(a->time_ns, b->time_ns);
	ck_assert_uint_eq(a->dur_ns, b->dur_ns);
	ck_assert_int_eq(a->deps.n, b->deps.n);
	for (int i = 0; i < a->deps.n; i++)
		ck_assert_uint_eq(a->deps.id[i], b->deps.id[i]);
	ck_assert_int_eq(a->sys, b->sys);
	ck_assert_int_eq(a->ret, b->ret);
	ck_assert_uint_eq(a->have, b->have);
	if (b->have & RL_FD)
		ck_assert_uint_eq(a->fd, b->fd);
	if (b->have & RL_FD2)
		ck_assert_uint_eq(a->fd2, b->fd2);
	if (b->have & RL_VFD)
		ck_assert_uint_eq(a->vfd, b->vfd);
	if (b->have & RL_PATH)
		assert_bytes(a->path, a->path_len, b->path, b->path_len);
	if (b->have & RL_PATH2)
		assert_bytes(a->path2, a->path2_len, b->path2, b->path2_len);
	if (b->have & RL_TARGET)
		assert_bytes(a->target, a->target_len, b->target,
			     b->target_len);
	if (b->have & RL_FLAGS)
		ck_assert_int_eq(a->flags, b->flags);
	if (b->have & RL_MODE)
		ck_assert_int_eq(a->mode, b->mode);
	if (b->have & RL_OFFSET)
		ck_assert_int_eq(a->offset, b->offset);
	if (b->have & RL_OFFSET2)
		ck_assert_int_eq(a->offset2, b->offset2);
	if (b->have & RL_WHENCE)
		ck_assert_int_eq(a->whence, b->whence);
	if (b->have & RL_COUNT)
		ck_assert_int_eq(a->count, b->count);
	if (b->have & RL_CMD)
		ck_assert_int_eq(a->cmd, b->cmd);
	if (b->have & RL_ARG)
		ck_assert_int_eq(a->arg, b->arg);
	if (b->have & RL_UID)
		ck_assert_int_eq(a->uid, b->uid);
	if (b->have & RL_GID)
		ck_assert_int_eq(a->gid, b->gid);
	if (b->have & RL_ADDR)
		ck_assert_uint_eq(a->addr, b->addr);
	if (b->have & RL_CTX)
		ck_assert_uint_eq(a->ctx, b->ctx);
	if (b->have & RL_TAG)
		ck_assert_uint_eq(a->tag, b->tag);
	if (b->have & RL_MIN)
		ck_assert_int_eq(a->min, b->min);
	if (b->have & RL_CQ)
		ck_assert_int_eq(a->cq, b->cq);
	if (b->have & RL_SLOT)
		ck_assert_uint_eq(a->slot, b->slot);
	if (b->have & RL_BUF)
		ck_assert_uint_eq(a->buf, b->buf);
	if (b->have & RL_SQFLAGS)
		ck_assert_int_eq(a->sqflags, b->sqflags);
	if (b->have & RL_UMASK)
		ck_assert_int_eq(a->umask, b->umask);
	if (b->have & RL_STRIDE)
		ck_assert_uint_eq(a->stride, b->stride);
	if (b->have & RL_CPU)
		ck_assert_uint_eq(a->cpu_ns, b->cpu_ns);
	if (b->have & RL_PARENT)
		ck_assert_uint_eq(a->parent, b->parent);
	if (b->have & RL_SYNC) {
		ck_assert_uint_eq(a->sync_id, b->sync_id);
		ck_assert_uint_eq(a->sync_gap_ns, b->sync_gap_ns);
	}
	if (b->have & RL_WAITED)
		ck_assert_uint_eq(a->waited_ns, b->waited_ns);
	if (b->have & RL_PROBE)
		ck_assert_uint_eq(a->probe_ns, b->probe_ns);
	if (b->have & RL_RUNQ)
		ck_assert_uint_eq(a->runq_ns, b->runq_ns);
}

/* A path with a space, '%', a newline and a byte that is not UTF-8. */
static const char weird[] = "/data/.ioriot/my%test/a b%c\nd\xff" "e";

START_TEST(test_round_trip)
{
	static const struct {
		enum rlog_init_kind kind;
		uint64_t size;
		const char *path;
		int mode;
	} inits[] = {
		{ RLOG_INIT_DIR, 0, "/data/.ioriot/my%test/d", RLOG_NO_MODE },
		{ RLOG_INIT_FILE, 4096, weird, RLOG_NO_MODE },
		{ RLOG_INIT_FILE, 0, "/data/.ioriot/my%test/empty", 0755 },
		{ RLOG_INIT_FILE, 1, "/data/.ioriot/my%test/none", 0 },
		{ RLOG_INIT_ABSENT, 0, "/data/.ioriot/my%test/gone",
		  RLOG_NO_MODE },
	};
	struct rlog_op ops[4];
	struct outbuf *ob = malloc(sizeof(*ob));
	char path[64], err[ERRLEN] = "";
	struct rlog_reader *r;
	const struct rlog_header *h;
	struct rlog_entry e;
	size_t ninit = sizeof(inits) / sizeof(inits[0]);
	size_t nops = sizeof(ops) / sizeof(ops[0]);
	int fd;

	ck_assert_ptr_nonnull(ob);
	memset(ops, 0, sizeof(ops));
	/* Every argument at once, with extreme values. */
	ops[0] = (struct rlog_op){
		.id = 1, .pid = 4242, .tid = 4243, .time_ns = 0,
		.dur_ns = 1500, .sys = SYS_OPENAT, .ret = 5,
		.have = RL_FD | RL_FD2 | RL_VFD | RL_PATH | RL_PATH2 |
			RL_FLAGS | RL_MODE | RL_OFFSET | RL_OFFSET2 |
			RL_WHENCE | RL_COUNT | RL_CMD | RL_ARG | RL_UID |
			RL_GID | RL_ADDR | RL_TARGET | RL_UMASK,
		.fd = 3, .fd2 = UINT64_MAX, .vfd = 17,
		.path = weird, .path_len = sizeof(weird) - 1,
		.path2 = "/.ioriot/my%test/x/y", .path2_len = 20,
		.target = "/mnt/.ioriot/my%test/t a", .target_len = 24,
		.flags = 0x80241, .mode = 0644, .offset = INT64_MAX,
		.offset2 = -1, .whence = 2, .count = 123456789,
		.cmd = 1030, .arg = INT64_MIN, .uid = 1000, .gid = -1,
		.addr = 0x7f0012345000ULL, .umask = 0777,
	};
	ops[1] = (struct rlog_op){
		.id = 2, .pid = 4242, .tid = 4244, .time_ns = 2000,
		.dur_ns = 10, .deps = { .id = { 1 }, .n = 1 },
		.sys = SYS_PREAD64, .ret = -11, .have = RL_FD | RL_COUNT |
		RL_OFFSET, .fd = 17, .count = 4096, .offset = 8192,
	};
	ops[2] = (struct rlog_op){
		.id = 3, .pid = UINT32_MAX, .tid = UINT32_MAX,
		.time_ns = UINT64_MAX, .dur_ns = UINT64_MAX,
		.deps = { .id = { 1, 2 }, .n = 2 },
		.sys = SYS_STATX, .ret = INT64_MIN,
		.have = RL_PATH | RL_FLAGS | RL_MODE,
		.path = "/mnt/.ioriot/my%test", .path_len = 20, .flags = -1,
		.mode = 0,
	};
	ops[2].have |= RL_UMASK | RL_CPU | RL_PARENT;
	ops[2].umask = 0;
	ops[2].cpu_ns = UINT64_MAX;
	ops[2].parent = (uint64_t)UINT32_MAX << 32 | 7;
	ops[2].have |= RL_SYNC | RL_WAITED;
	ops[2].sync_id = 2;
	ops[2].sync_gap_ns = UINT64_MAX;
	ops[2].waited_ns = UINT64_MAX;
	/* runq= is a bit beyond 32 of have. */
	ops[2].have |= RL_PROBE | RL_RUNQ;
	ops[2].probe_ns = 5;
	ops[2].runq_ns = UINT64_MAX;
	ops[3] = (struct rlog_op){
		.id = 4, .pid = 1, .tid = 1, .time_ns = 3000,
		.sys = SYS_MMAP_WRITE, .ret = 3,
		.have = RL_FD | RL_ADDR | RL_OFFSET | RL_COUNT | RL_STRIDE,
		.fd = 17, .addr = 0x7f0012345000ULL, .offset = 1LL << 40,
		.count = 3, .stride = UINT64_MAX,
	};
	ops[3].have |= RL_CPU | RL_PARENT;
	ops[3].parent = 4242ULL << 32 | UINT32_MAX;

	ck_assert_int_lt(snprintf(path, sizeof(path),
				  "/tmp/ioriot-test-rlog-XXXXXX"),
			 (int)sizeof(path));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	outbuf_puts(ob, "#|replay_version=1|name=");
	outbuf_path(ob, "my%test", 7);
	outbuf_puts(ob, "|user=");
	outbuf_path(ob, weird, sizeof(weird) - 1);
	outbuf_puts(ob, "|future=whatever|\n# a comment\n\n");
	outbuf_puts(ob, "#|source=/var/log/x.capture|lines=12|ops=5|"
		    "timelines=3|\n");
	outbuf_puts(ob, "#|sandbox=");
	outbuf_path(ob, "/mnt/.ioriot/my%test", 20);
	outbuf_puts(ob, "|\n#|sandbox=/data/.ioriot/my%25test|sandbox=/.ioriot/my%25test|\n#INIT\n");
	for (size_t i = 0; i < ninit; i++)
		rlog_write_init(ob, inits[i].kind, inits[i].size,
				inits[i].path, strlen(inits[i].path),
				inits[i].mode);
	rlog_write_init_symlink(ob, "/data/.ioriot/my%test/ln", 24,
				"/mnt/.ioriot/my%test/x y", 24);
	outbuf_puts(ob, "# between sections\n#OPS\n");
	for (size_t i = 0; i < nops; i++) {
		rlog_write_op(ob, &ops[i]);
		if (i == 1)
			outbuf_puts(ob, "\n# a comment among ops\n");
	}
	outbuf_puts(ob, "#END|ops=4|\n# trailing comment\n\n");
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);
	free(ob);

	r = rlog_open(path, err, sizeof(err));
	ck_assert_int_eq(unlink(path), 0);	/* the reader keeps it open */
	ck_assert_msg(r, "rlog_open: %s", err);
	h = rlog_header(r);
	ck_assert_int_eq(h->version, RLOG_VERSION);
	ck_assert_str_eq(h->name, "my%test");
	ck_assert_uint_eq(strlen(h->user), sizeof(weird) - 1);
	ck_assert_str_eq(h->user, weird);
	ck_assert_uint_eq(h->nsandboxes, 3);
	ck_assert_str_eq(h->sandboxes[0], "/mnt/.ioriot/my%test");
	ck_assert_str_eq(h->sandboxes[1], "/data/.ioriot/my%test");
	ck_assert_str_eq(h->sandboxes[2], "/.ioriot/my%test");
	ck_assert_uint_eq(h->ops, 0);
	ck_assert_uint_eq(h->ops_hint, 5);
	ck_assert_uint_eq(h->timelines_hint, 3);

	for (size_t i = 0; i < ninit; i++) {
		ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
		ck_assert_int_eq(e.type, RLOG_ENTRY_INIT);
		ck_assert_int_eq(e.init_kind, inits[i].kind);
		ck_assert_uint_eq(e.init_size, inits[i].size);
		ck_assert_int_eq(e.init_mode, inits[i].mode);
		assert_bytes(e.init_path, e.init_path_len, inits[i].path,
			     strlen(inits[i].path));
		ck_assert_uint_eq(e.lineno, 8 + i);
	}
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.init_kind, RLOG_INIT_SYMLINK);
	assert_bytes(e.init_path, e.init_path_len, "/data/.ioriot/my%test/ln", 24);
	assert_bytes(e.init_target, e.init_target_len,
		     "/mnt/.ioriot/my%test/x y", 24);
	for (size_t i = 0; i < nops; i++) {
		int ret = rlog_next(r, &e, err, sizeof(err));

		ck_assert_msg(ret == 1, "op %zu: %d %s", i, ret, err);
		ck_assert_int_eq(e.type, RLOG_ENTRY_OP);
		assert_op_eq(&e.op, &ops[i]);
	}
	ck_assert_uint_eq(e.lineno, 21);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	ck_assert_uint_eq(rlog_header(r)->ops, 4);
	rlog_close(r);
}
END_TEST

/* INIT a entries and name= arguments: any byte but NUL in a name, up to
 * 255, escaped; the path of an a entry must be confined, its name not. */
START_TEST(test_xattr_entries)
{
	static const char name[] = "user.%a b;:\n\xff|=";
	struct rlog_op op = {
		.id = 1, .pid = 1, .tid = 1, .sys = SYS_LSETXATTR,
		.have = RL_PATH | RL_NAME | RL_COUNT | RL_ARG | RL_MODE,
		.path = "/.ioriot/t/f", .path_len = 12, .name = name,
		.name_len = sizeof(name) - 1, .count = 28, .arg = 2,
		.mode = 0750,
	};
	struct outbuf *ob = malloc(sizeof(*ob));
	char path[64], err[ERRLEN] = "";
	struct rlog_reader *r;
	struct rlog_entry e;
	int fd;

	ck_assert_ptr_nonnull(ob);
	ck_assert_int_lt(snprintf(path, sizeof(path),
				  "/tmp/ioriot-test-rlog-XXXXXX"),
			 (int)sizeof(path));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	outbuf_puts(ob, HDR "#INIT\n");
	rlog_write_init(ob, RLOG_INIT_FILE, 3, "/.ioriot/t/f", 12,
			RLOG_NO_MODE);
	rlog_write_init_xattr(ob, RLOG_XATTR_SIZE_MAX, "/.ioriot/t/f", 12,
			      name, sizeof(name) - 1);
	outbuf_puts(ob, "#OPS\n");
	rlog_write_op(ob, &op);
	outbuf_puts(ob, "#END|ops=1|\n");
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);
	free(ob);

	r = rlog_open(path, err, sizeof(err));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_msg(r, "rlog_open: %s", err);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.init_kind, RLOG_INIT_FILE);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.init_kind, RLOG_INIT_XATTR);
	ck_assert_uint_eq(e.init_size, RLOG_XATTR_SIZE_MAX);
	assert_bytes(e.init_path, e.init_path_len, "/.ioriot/t/f", 12);
	assert_bytes(e.init_target, e.init_target_len, name, sizeof(name) - 1);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.type, RLOG_ENTRY_OP);
	assert_op_eq(&e.op, &op);
	assert_bytes(e.op.name, e.op.name_len, name, sizeof(name) - 1);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

START_TEST(test_deps)
{
	static const char text[] = HDR
		"#OPS\n"
		"5 1:1 100 10 - openat 3 path=/.ioriot/t/a vfd=1 flags=0x0 mode=0\n"
		"8 1:2 200 10 3,7 close 0 fd=1\n"
		"18446744073709551615 1:2 300 10 18446744073709551614 close 0 fd=1\n"
		"#END|ops=3|\n";
	char err[ERRLEN] = "";
	struct rlog_reader *r = open_ok(text, err);
	struct rlog_entry e;

	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_uint_eq(e.op.id, 5);
	ck_assert_int_eq(e.op.deps.n, 0);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_uint_eq(e.op.id, 8);
	ck_assert_int_eq(e.op.deps.n, 2);
	ck_assert_uint_eq(e.op.deps.id[0], 3);
	ck_assert_uint_eq(e.op.deps.id[1], 7);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.op.deps.n, 1);
	ck_assert_uint_eq(e.op.deps.id[0], UINT64_MAX - 1);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

/* Accepted spellings the writer does not produce, and ignored keys. */
START_TEST(test_lenient_values)
{
	static const char text[] = HDR
		"#INIT\n#OPS\n"
		"1 7:8 1 2 - openat 3 flags=66 mode=0 future=1 path=/.ioriot/t/a%20b\n"
		"2 7:8 3 4 - fcntl 0 fd=3 flags=-1 mode=00755 addr=0XFF\n"
		"#END|ops=99|\n";
	char err[ERRLEN] = "";
	struct rlog_reader *r = open_ok(text, err);
	struct rlog_entry e;

	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.op.sys, SYS_OPENAT);
	ck_assert_uint_eq(e.op.pid, 7);
	ck_assert_uint_eq(e.op.tid, 8);
	ck_assert_uint_eq(e.op.have, RL_FLAGS | RL_MODE | RL_PATH);
	ck_assert_int_eq(e.op.flags, 66);
	ck_assert_int_eq(e.op.mode, 0);
	assert_bytes(e.op.path, e.op.path_len, "/.ioriot/t/a b", 14);
	ck_assert_uint_eq(e.lineno, 4);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.op.flags, -1);
	ck_assert_int_eq(e.op.mode, 0755);
	ck_assert_uint_eq(e.op.addr, 255);
	/* The count in #END is stored, not enforced: ops may be deleted. */
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	ck_assert_uint_eq(rlog_header(r)->ops, 99);
	rlog_close(r);
}
END_TEST

/* Symlink targets may be relative, as they are: the replay resolves them
 * from the link, in its jail. */
START_TEST(test_relative_targets)
{
	static const char text[] = HDR
		"#INIT\nl /.ioriot/t/a target=../../x/y\n#OPS\n"
		"1 1:1 0 0 - symlink 0 path=/.ioriot/t/l target=b/./c\n"
		"#END|ops=1|\n";
	char err[ERRLEN] = "";
	struct rlog_reader *r = open_ok(text, err);
	struct rlog_entry e;

	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert_int_eq(e.type, RLOG_ENTRY_INIT);
	assert_bytes(e.init_target, e.init_target_len, "../../x/y", 9);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 1);
	ck_assert(e.op.have & RL_TARGET);
	assert_bytes(e.op.target, e.op.target_len, "b/./c", 5);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

START_TEST(test_no_ops)
{
	char err[ERRLEN] = "";
	struct rlog_reader *r = open_ok(HDR "#INIT\n#OPS\n#END|ops=0|\n", err);
	struct rlog_entry e;

	ck_assert_uint_eq(rlog_header(r)->nsandboxes, 1);
	ck_assert_str_eq(rlog_header(r)->sandboxes[0], "/.ioriot/t");
	ck_assert_str_eq(rlog_header(r)->name, "t");
	ck_assert_str_eq(rlog_header(r)->user, "u");
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

START_TEST(test_open_missing_file)
{
	char err[ERRLEN] = "";

	errno = 0;
	ck_assert_ptr_null(rlog_open("/nonexistent/ioriot.replay", err,
				     sizeof(err)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/ioriot.replay"));
	rlog_close(NULL);
}
END_TEST

#define OP "1 1:1 0 0 - close 0 fd=1\n"
#define NUL_LINE HDR "#OPS\n1 1:1 0 0 - close 0 fd=1\0x\n#END|ops=1|\n"

static const struct bad_file {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int open_errno;		/* 0: rlog_open succeeds, rlog_next fails */
	const char *msg;	/* expected in the message */
} bad_files[] = {
	/* rlog_open errors */
	{ "", 0, ENODATA, ": empty file, not a replay file" },
	{ OP, 0, EPROTO,
	  ":1: missing header: a replay file starts with #|replay_version=N|" },
	{ "\n" HDR, 0, EPROTO, ":1: missing header" },
	{ "#|name=x|user=y|\n", 0, EPROTO, ":1: missing header" },
	{ "#replay_version=1|\n", 0, EPROTO, ":1: missing header" },
	{ "#|replay_version=2|name=t|\n", 0, EPROTONOSUPPORT,
	  ":1: replay file version 2 is not supported; this ioriot reads version 1" },
	{ "#|replay_version=0|\n", 0, EPROTONOSUPPORT, "version 0" },
	{ "#|replay_version=x1|\n", 0, EPROTO, "malformed replay_version" },
	{ "#|replay_version=1|", 0, EPROTO, ":1: last line has no newline" },
	{ HDR "#|sandbox=mnt/x|\n", 0, EPROTO,
	  ":2: sandbox= is not an absolute path" },
	{ HDR "#|ops=1|\n#|uncaptured|io_submit=12|tee=x|\n", 0, EPROTO,
	  ":3: malformed uncaptured header line, expected "
	  "#|uncaptured|NAME=N|...|: item is not NAME=COUNT: 'tee=x'" },
	{ HDR "#|uncaptured|io_submit=12\n", 0, EPROTO,
	  ":2: malformed uncaptured header line, expected "
	  "#|uncaptured|NAME=N|...|: item not ended by |: 'io_submit=12'" },
	{ HDR "#|uncaptured|IO=1|\n", 0, EPROTO, ":2: malformed uncaptured "
	  "header line, expected #|uncaptured|NAME=N|...|: bad syscall name: "
	  "'IO=1'" },
	{ HDR "#|uncaptured|tee=1|tee=2|\n", 0, EPROTO,
	  ": syscall named twice: 'tee=2'" },
	{ HDR "#|uncaptured|tee=1|\n#|uncaptured|\n", 0, EPROTO,
	  ":3: a second uncaptured header line" },
	{ HDR "#|sandbox=|\n", 0, EPROTO, ":2: sandbox=" },
	{ "#|replay_version=1|name=a%zz|\n", 0, EPROTO, ":1: bad %XX escape" },
	{ "#|replay_version=1|name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|\n",
	  0, EPROTO, "over-long value in name=" },

	/* truncated files */
	{ HDR, 0, 0, ": truncated replay file: no #END line (interrupted generate?)" },
	{ HDR "#INIT\n#OPS\n" OP, 0, 0, ": truncated replay file: no #END" },
	{ HDR "#INIT\n#OPS\n1 1:1 0 0 - clo", 0, 0,
	  ":4: last line has no newline" },
	{ HDR "#INIT\n#OPS\n#END|ops=0|", 0, 0, ":4: last line has no newline" },

	/* sections */
	{ HDR OP, 0, 0, ":2: operation before #OPS" },
	{ HDR "d /a\n", 0, 0, ":2: INIT entry before #INIT" },
	{ HDR "#INIT\n" OP, 0, 0, ":3: not an INIT entry" },
	{ HDR "#INIT\n#OPS\nd /a\n", 0, 0, ":4: INIT entry after #OPS" },
	{ HDR "#INIT\n#INIT\n", 0, 0, ":3: unexpected #INIT after #INIT" },
	{ HDR "#OPS\n#INIT\n", 0, 0, ":3: unexpected #INIT after #OPS" },
	{ HDR "#INIT\n#OPS\n#OPS\n", 0, 0, ":4: unexpected #OPS" },
	{ HDR "#INIT\n#END|ops=0|\n", 0, 0, ":3: unexpected #END after #INIT" },
	{ HDR "#INIT\n#|sandbox=/x|\n", 0, 0, ":3: header line after #INIT" },
	{ HDR "#OPS\n#END\n", 0, 0, ":3: malformed #END line" },
	{ HDR "#OPS\n#END|ops=-1|\n", 0, 0, ":3: malformed #END line" },
	{ HDR "#OPS\n#END|ops=1|\n" OP, 0, 0, ":4: line after #END" },
	{ HDR "#OPS\n#END|ops=1|\n#END|ops=1|\n", 0, 0,
	  ":4: unexpected #END after #END" },

	/* INIT entries */
	{ HDR "#INIT\nf abc /x\n", 0, 0, ":3: malformed size in INIT entry" },
	{ HDR "#INIT\nf 12\n", 0, 0, ":3: INIT entry without a path" },
	{ HDR "#INIT\nd \n", 0, 0, ":3: INIT entry without a path" },
	{ HDR "#INIT\nd /.ioriot/t/a /b\n", 0, 0, ":3: extra field after the INIT path" },
	{ HDR "#INIT\nd /.ioriot/t/a mode=0755\n", 0, 0, ":3: extra field after the INIT path" },
	{ HDR "#INIT\nf 1 /.ioriot/t/a mode=0755 x\n", 0, 0, ":3: extra field after the INIT path" },
	{ HDR "#INIT\nf 1 /.ioriot/t/a mode=01755\n", 0, 0, ":3: bad INIT field after the path" },
	{ HDR "#INIT\nf 1 /.ioriot/t/a mode=9\n", 0, 0, ":3: bad INIT field after the path" },
	{ HDR "#INIT\nf 1 /.ioriot/t/a mode=\n", 0, 0, ":3: bad INIT field after the path" },
	{ HDR "#INIT\nf 1 /.ioriot/t/a size=4\n", 0, 0, ":3: bad INIT field after the path" },
	{ HDR "#INIT\nl /.ioriot/t/a\n", 0, 0, ":3: malformed INIT symlink" },
	{ HDR "#INIT\nl /.ioriot/t/a /.ioriot/t/b\n", 0, 0, ":3: malformed INIT symlink" },
	{ HDR "#INIT\nl /.ioriot/t/a target=/etc/passwd\n", 0, 0,
	  ":3: INIT symlink target is neither relative nor a normalised path "
	  "inside a sandbox" },
	{ HDR "#INIT\nl /.ioriot/t/a target=/.ioriot/t/../x\n", 0, 0,
	  ":3: INIT symlink target is neither relative nor a normalised path "
	  "inside a sandbox" },
	{ HDR "#INIT\nl /.ioriot/t/a target=/.ioriot/t/b c\n", 0, 0,
	  ":3: extra field after the INIT path" },
	{ HDR "#INIT\nl /etc/x target=/.ioriot/t/b\n", 0, 0,
	  ":3: INIT path is not a normalised path inside a sandbox" },
	{ HDR "#INIT\nx /.ioriot/t/a%4\n", 0, 0, ":3: bad %XX escape in INIT path" },
	{ HDR "#INIT\nq /a\n", 0, 0, ":3: not an INIT entry" },

	/* operation lines */
	{ HDR "#OPS\n1 1:1 0 0 - frobnicate 0\n", 0, 0,
	  ":3: unknown operation 'frobnicate'" },
	{ HDR "#OPS\n1 1:1 0 0 - llseek 0\n", 0, 0,
	  ":3: unknown operation 'llseek'" },
	{ HDR "#OPS\n99 1:1 0 0 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 close 0\n", 0, 0,
	  ":3: more than 16 dependencies" },
	/* Hand-edited files must not reach outside the sandboxes. */
	{ "#|replay_version=1|name=t|user=u|sandbox=/etc|\n#OPS\n", 0, EPROTO,
	  "sandbox /etc is not <mountpoint>/.ioriot/t" },
	{ "#|replay_version=1|name=t|user=u|sandbox=/.ioriot/other|\n#OPS\n", 0, EPROTO,
	  "sandbox /.ioriot/other is not" },
	{ "#|replay_version=1|name=t|user=u|sandbox=/x/../.ioriot/t|\n#OPS\n", 0, EPROTO,
	  "is not <mountpoint>/.ioriot/t" },
	{ "#|replay_version=1|name=..|user=u|\n#OPS\n", 0, EPROTO,
	  "header has no valid name=" },
	{ "#|replay_version=1|user=u|\n#OPS\n", 0, EPROTO,
	  "header has no valid name=" },
	{ HDR "#INIT\nf 5 /etc/passwd\n", 0, 0,
	  ":3: INIT path is not a normalised path inside a sandbox" },
	{ HDR "#INIT\nx /.ioriot/t/../../etc\n", 0, 0,
	  ":3: INIT path is not a normalised path inside a sandbox" },
	{ HDR "#INIT\nd /.ioriot/tt\n", 0, 0,
	  ":3: INIT path is not a normalised path inside a sandbox" },
	{ HDR "#INIT\nf 9223372036854775808 /.ioriot/t/a\n", 0, 0,
	  ":3: INIT size beyond what a file can have" },
	{ HDR "#OPS\n1 1:1 0 0 - openat 3 vfd=1 path=/.ioriot/t/../../etc/shadow\n",
	  0, 0, ":3: path is not a normalised path inside a sandbox" },
	{ HDR "#OPS\n1 1:1 0 0 - openat 3 vfd=1 path=relative\n", 0, 0,
	  ":3: path is not a normalised path inside a sandbox" },
	{ HDR "#OPS\n1 1:1 0 0 - rename 0 path=/.ioriot/t/a path2=/tmp/b\n", 0, 0,
	  ":3: path2 is not a normalised path inside a sandbox" },
	{ HDR "#OPS\n1 1:1 0 0 - symlink 0 path=/.ioriot/t/l target=/etc/passwd\n",
	  0, 0, ":3: target is not a normalised path inside a sandbox" },
	{ HDR "#OPS\n5 1:1 0 0 - sync 0\n3 1:1 0 0 - sync 0\n", 0, 0,
	  ":4: operation id 3 does not follow 5" },
	{ HDR "#OPS\n3 1:1 0 0 3 sync 0\n", 0, 0,
	  ":3: dependency 3 is not an earlier operation" },
	{ HDR "#OPS\n3 1:1 0 0 - sync 0 sync=3:0\n", 0, 0,
	  ":3: sync=3 is not an earlier operation" },
	{ HDR "#OPS\n3 1:1 0 0 - sync 0 sync=0:5\n", 0, 0,
	  ":3: sync=0 is not an earlier operation" },
	{ HDR "#OPS\n3 1:1 0 0 - sync 0 sync=2\n", 0, 0,
	  ":3: malformed number in argument 'sync=2'" },
	{ HDR "#OPS\n3 1:1 0 0 - sync 0 sync=2:x\n", 0, 0,
	  ":3: malformed number in argument 'sync=2:x'" },
	{ HDR "#OPS\n1 1:1 0 0 1,,2 close 0\n", 0, 0,
	  ":3: malformed DEPS field '1,,2'" },
	{ HDR "#OPS\n1 1:1 0 0 1, close 0\n", 0, 0, "malformed DEPS" },
	{ HDR "#OPS\n1 1:1 0 0 x close 0\n", 0, 0, "malformed DEPS" },
	{ HDR "#OPS\nx1 1:1 0 0 - close 0\n", 0, 0, ":3: malformed ID field 'x1'" },
	{ HDR "#OPS\n1 1-1 0 0 - close 0\n", 0, 0, "malformed PID:TID field" },
	{ HDR "#OPS\n1 4294967296:1 0 0 - close 0\n", 0, 0,
	  "malformed PID:TID field" },
	{ HDR "#OPS\n1 1:1 -5 0 - close 0\n", 0, 0, "malformed TIME_NS field" },
	{ HDR "#OPS\n1 1:1 0 0x10 - close 0\n", 0, 0, "malformed DUR_NS field" },
	{ HDR "#OPS\n1 1:1 0 0 - close 9223372036854775808\n", 0, 0,
	  "malformed RET field" },
	{ HDR "#OPS\n1 1:1 0 0 - close --1\n", 0, 0, "malformed RET field" },
	{ HDR "#OPS\n18446744073709551616 1:1 0 0 - close 0\n", 0, 0,
	  "malformed ID field" },
	{ HDR "#OPS\n1 1:1 0 0 - close\n", 0, 0, ":3: operation line has 6 fields" },
	{ HDR "#OPS\n1 1:1 0 0 - close 0 fd=x\n", 0, 0,
	  ":3: malformed number in argument 'fd=x'" },
	{ HDR "#OPS\n1 1:1 0 0 - close 0 fd=-1\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - close 0 fd=\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - chmod 0 mode=644\n", 0, 0,
	  "malformed number in argument 'mode=644'" },
	{ HDR "#OPS\n1 1:1 0 0 - chmod 0 mode=0789\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - mkdir 0 mode=0777 umask=022x\n", 0, 0,
	  ":3: malformed number in argument 'umask=022x'" },
	{ HDR "#OPS\n1 1:1 0 0 - mkdir 0 mode=0777 umask=22\n", 0, 0,
	  "malformed number in argument 'umask=22'" },
	{ HDR "#OPS\n1 1:1 0 0 - mkdir 0 mode=0777 umask=0800\n", 0, 0,
	  "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - mkdir 0 mode=0777 umask=-022\n", 0, 0,
	  "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - bind 0 umask=01000\n", 0, 0,
	  ":3: umask 01000 beyond 0777" },
	{ HDR "#OPS\n1 1:1 0 0 - bind 0 umask=022 umask=022\n", 0, 0,
	  "argument given twice 'umask=022'" },
	{ HDR "#OPS\n1 1:1 0 0 - fsync 0 fd=1 runq=5 runq=5\n", 0, 0,
	  "argument given twice 'runq=5'" },
	{ HDR "#OPS\n1 1:1 0 0 - fsync 0 fd=1 runq=-5\n", 0, 0,
	  "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - open 0 flags=0xZZ\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - open 0 flags=0x\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - open 0 flags=0x10000000000000000\n", 0, 0,
	  "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - munmap 0 addr=4096\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - lseek 0 off=1.5\n", 0, 0, "malformed number" },
	{ HDR "#OPS\n1 1:1 0 0 - open 0 path=/.ioriot/t/a%2\n", 0, 0,
	  ":3: bad %XX escape in argument 'path=/.ioriot/t/a%2'" },
	{ HDR "#OPS\n1 1:1 0 0 - open 0 path=/.ioriot/t/a%00b\n", 0, 0, "bad %XX escape" },
	{ HDR "#OPS\n1 1:1 0 0 - close 0 fd\n", 0, 0,
	  ":3: argument is not key=value 'fd'" },
	{ HDR "#OPS\n1 1:1 0 0 - close 0 fd=1 fd=2\n", 0, 0,
	  ":3: argument given twice 'fd=2'" },
	{ NUL_LINE, sizeof(NUL_LINE) - 1, 0, ":3: NUL byte in line" },
	/* io_uring lines: what the replay needs, within the kernel's
	 * limits (its buffers and rings are sized by them) */
	{ HDR "#|uring_skipped|send=1|send=2|\n", 0, EPROTO,
	  ":2: malformed uring_skipped header line, expected "
	  "#|uring_skipped|NAME=N|...|: syscall named twice: 'send=2'" },
	{ HDR "#|uring_skipped|send=x|\n", 0, EPROTO,
	  "malformed uring_skipped header line" },
	{ HDR "#|uring_skipped|\n#|uring_skipped|\n", 0, EPROTO,
	  ":3: a second uring_skipped header line" },
	{ HDR "#OPS\n1 1:1 0 0 - io_uring_setup 3 ctx=1\n", 0, 0,
	  ":3: malformed io_uring_setup operation: count= (entries) missing" },
	{ HDR "#OPS\n1 1:1 0 0 - io_uring_setup 3 count=65536 ctx=1\n", 0, 0,
	  "count= (entries) missing or beyond 1..32768" },
	{ HDR "#OPS\n1 1:1 0 0 - io_uring_setup 3 count=8 cq=0 ctx=1\n", 0, 0,
	  "cq= beyond 1..65536" },
	{ HDR "#OPS\n1 1:1 0 0 - io_uring_enter 1 count=1\n", 0, 0,
	  ":3: malformed io_uring_enter operation: no ctx= (ring)" },
	{ HDR "#OPS\n1 1:1 0 0 - io_uring_register 0 ctx=1\n", 0, 0,
	  "malformed io_uring_register operation: no cmd= (opcode)" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 cmd=22 fd=1 count=1\n", 0, 0,
	  "malformed sqe operation: no tag= or cmd=" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=22 fd=1 count=-1\n", 0, 0,
	  "malformed sqe operation: count= beyond 0..0x7ffff000" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=23 fd=1 "
	  "count=4294967296\n", 0, 0, "count= beyond 0..0x7ffff000" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=22 fd=1 sqflags=0x80\n",
	  0, 0, "malformed sqe operation: sqflags= beyond 0x7f" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=4 slot=1048576\n", 0, 0,
	  "malformed sqe operation: slot= beyond 2^20 - 1" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=4 buf=16384\n", 0, 0,
	  "malformed sqe operation: buf= beyond 16383" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=22 sqflags=0xZ\n", 0, 0,
	  "malformed number in argument 'sqflags=0xZ'" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_file 0 ctx=1 fd=1\n", 0, 0,
	  "malformed uring_file operation: no slot=" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_buf 0 ctx=1 slot=0 count=1073741825\n", 0,
	  0, "malformed uring_buf operation: count= (buffer size) missing or "
	  "beyond 1..2^30" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_buf 0 ctx=1 slot=16384 count=4096\n", 0,
	  0, "malformed uring_buf operation: slot= (buffer) beyond 16383" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_buf 0 ctx=1 slot=0\n", 0, 0,
	  "malformed uring_buf operation: count= (buffer size)" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_read 4096 ctx=1 fd=1\n", 0, 0,
	  ":3: malformed uring_read operation: no tag=" },
	{ HDR "#OPS\n1 1:1 0 0 - uring_fsync 0 tag=1\n", 0, 0,
	  "malformed uring_fsync operation: no ctx= (ring)" },
	{ HDR "#OPS\n1 1:1 0 0 - sqe 0 ctx=1 tag=1 cmd=22 slot=-1\n", 0, 0,
	  "malformed number in argument 'slot=-1'" },
	/* Pages through a mapping: where, how many, how far apart. */
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 fd=1 addr=0x7f0000000000 "
	  "count=0\n", 0, 0, ":3: mmap_read needs fd=, addr= and a count= of "
	  "1 or more pages (and a stride= of 1 or more)" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_write 3 fd=1 addr=0x7f0000000000 "
	  "count=-3\n", 0, 0, ":3: mmap_write needs fd=, addr= and a count=" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 fd=1 count=3\n", 0, 0,
	  ":3: mmap_read needs fd=, addr=" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 addr=0x1000 count=3\n", 0, 0,
	  ":3: mmap_read needs fd=, addr=" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 fd=1 addr=0x1000\n", 0, 0,
	  ":3: mmap_read needs fd=, addr=" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 fd=1 addr=0x1000 count=3 "
	  "stride=0\n", 0, 0, "(and a stride= of 1 or more)" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_read 3 fd=1 addr=0x1000 count=3 "
	  "stride=-1\n", 0, 0, ":3: malformed number in argument 'stride=-1'" },
	{ HDR "#OPS\n1 1:1 0 0 - stat 0 path=/.ioriot/t/f parent=12\n", 0, 0,
	  ":3: malformed number in argument 'parent=12'" },
	{ HDR "#OPS\n1 1:1 0 0 - stat 0 path=/.ioriot/t/f cpu=-1\n", 0, 0,
	  ":3: malformed number in argument 'cpu=-1'" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_write 3 fd=1 addr=4096 count=3\n", 0, 0,
	  ":3: malformed number in argument 'addr=4096'" },
	{ HDR "#OPS\n1 1:1 0 0 - mmap_writ 3 fd=1 addr=0x1000 count=3\n", 0, 0,
	  ":3: unknown operation 'mmap_writ'" },
	/* extended attributes: INIT a entries and name= */
	{ HDR "#INIT\na 65537 /.ioriot/t/f name=user.x\n", 0, 0,
	  ":3: INIT xattr value of more than 65536 bytes" },
	{ HDR "#INIT\na 5 /.ioriot/t/f\n", 0, 0,
	  ":3: malformed INIT xattr, expected a SIZE PATH name=NAME" },
	{ HDR "#INIT\na 5 /.ioriot/t/f mode=0644\n", 0, 0,
	  ":3: malformed INIT xattr" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=\n", 0, 0,
	  ":3: malformed INIT xattr, expected a SIZE PATH name=NAME" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=a%00b\n", 0, 0,
	  ":3: INIT xattr name is not 1 to 255 bytes without NUL" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=%zz\n", 0, 0,
	  ":3: INIT xattr name is not" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 0, 0,
	  ":3: INIT xattr name is not" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=trusted.x\n", 0, 0,
	  ":3: INIT xattr name is not user.NAME" },
	{ HDR "#INIT\na 20 /.ioriot/t/f name=security.capability\n", 0, 0,
	  ":3: INIT xattr name is not user.NAME" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=user.\n", 0, 0,
	  ":3: INIT xattr name is not user.NAME" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=User.x\n", 0, 0,
	  ":3: INIT xattr name is not user.NAME" },
	{ HDR "#INIT\na x /.ioriot/t/f name=u\n", 0, 0,
	  ":3: malformed size in INIT entry, expected a SIZE PATH" },
	{ HDR "#INIT\na 5 /etc/passwd name=user.x\n", 0, 0,
	  ":3: INIT path is not a normalised path inside a sandbox" },
	{ HDR "#INIT\na 5 /.ioriot/t/f name=user.x more\n", 0, 0,
	  ":3: extra field after the INIT path" },
	{ HDR "#OPS\n1 1:1 0 0 - getxattr 5 path=/.ioriot/t/f name=\n", 0, 0,
	  ":3: bad attribute name (1 to 255 bytes, no NUL) in argument" },
	{ HDR "#OPS\n1 1:1 0 0 - fgetxattr 5 fd=1 name=u%00\n", 0, 0,
	  ":3: bad %XX escape in argument" },
	{ HDR "#OPS\n1 1:1 0 0 - removexattr 0 path=/.ioriot/t/f "
	  "name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", 0, 0, ":3: bad attribute name" },
	{ HDR "#OPS\n1 1:1 0 0 - setxattr 0 path=/.ioriot/t/f name=u "
	  "name=v\n", 0, 0, ":3: argument given twice 'name=v'" },
};

START_TEST(test_bad_file)
{
	const struct bad_file *b = &bad_files[_i];
	size_t len = b->len ? b->len : strlen(b->text);
	char err[ERRLEN] = "";
	struct rlog_reader *r;
	struct rlog_entry e;
	int ret;

	errno = 0;
	r = rlog_test_open(b->text, len, err);
	if (b->open_errno) {
		ck_assert_msg(!r, "case %d: rlog_open succeeded", _i);
		ck_assert_msg(errno == b->open_errno,
			      "case %d: errno %d, want %d (%s)", _i, errno,
			      b->open_errno, err);
	} else {
		ck_assert_msg(r, "case %d: rlog_open: %s", _i, err);
		while ((ret = rlog_next(r, &e, err, sizeof(err))) == 1)
			;
		ck_assert_msg(ret == -EPROTO, "case %d: rlog_next %d, want %d",
			      _i, ret, -EPROTO);
		rlog_close(r);
	}
	ck_assert_msg(strstr(err, b->msg), "case %d: message \"%s\" lacks \"%s\"",
		      _i, err, b->msg);
	ck_assert_msg(strncmp(err, "/tmp/ioriot-test-rlog-", 22) == 0,
		      "case %d: message \"%s\" does not name the file", _i, err);
}
END_TEST

/* The uncaptured header line is read into the header, sorted; a file
 * without one has none. */
START_TEST(test_uncaptured)
{
	char err[ERRLEN] = "";
	struct rlog_reader *r = open_ok(HDR "#|ops=0|\n#|uncaptured|futex=3|"
					"io_submit=9|flock=9|\n#OPS\n#END|ops=0|\n",
					err);
	const struct uncaptured *u = &rlog_header(r)->uncaptured;

	ck_assert(u->known);
	ck_assert_uint_eq(u->n, 3);
	ck_assert_str_eq(u->v[0].name, "flock");
	ck_assert_uint_eq(u->v[0].count, 9);
	ck_assert_str_eq(u->v[1].name, "io_submit");
	ck_assert_str_eq(u->v[2].name, "futex");
	ck_assert_uint_eq(u->v[2].count, 3);
	ck_assert_uint_eq(rlog_header(r)->ops_hint, 0);
	rlog_close(r);
	r = open_ok(HDR "#OPS\n#END|ops=0|\n", err);
	ck_assert(!rlog_header(r)->uncaptured.known);
	ck_assert_uint_eq(rlog_header(r)->uncaptured.n, 0);
	rlog_close(r);
}
END_TEST

/* io_uring operations with every key of theirs read back as written,
 * and the uring_skipped header line into the header, sorted. */
START_TEST(test_uring_lines)
{
	struct rlog_op ops[] = {
		{ .id = 1, .pid = 7, .tid = 7, .sys = SYS_IO_URING_SETUP, .ret = 5,
		  .have = RL_COUNT | RL_FLAGS | RL_CQ | RL_CTX, .count = 32768,
		  .flags = 0x3108, .cq = 65536, .ctx = 1 },
		{ .id = 2, .pid = 7, .tid = 7, .sys = SYS_URING_FILE,
		  .have = RL_FD | RL_CTX | RL_SLOT, .fd = 3, .ctx = 1,
		  .slot = 1048575 },
		{ .id = 3, .pid = 7, .tid = 7, .sys = SYS_URING_BUF,
		  .have = RL_COUNT | RL_CTX | RL_SLOT, .count = 1 << 30,
		  .ctx = 1, .slot = 16383 },
		{ .id = 4, .pid = 7, .tid = 7, .sys = SYS_IO_URING_REGISTER,
		  .have = RL_CMD | RL_COUNT | RL_CTX, .cmd = 15, .count = 32,
		  .ctx = 1 },
		{ .id = 5, .pid = 7, .tid = 8, .sys = SYS_SQE,
		  .have = RL_FD | RL_OFFSET | RL_COUNT | RL_FLAGS | RL_CMD |
			  RL_CTX | RL_TAG | RL_SLOT | RL_BUF | RL_SQFLAGS,
		  .fd = 3, .offset = -1, .count = 0x7ffff000, .flags = 0x10,
		  .cmd = 5, .ctx = 1, .tag = UINT64_MAX, .slot = 0, .buf = 16383,
		  .sqflags = 0x7f },
		{ .id = 6, .pid = 7, .tid = 8, .sys = SYS_SQE,
		  .have = RL_CMD | RL_CTX | RL_TAG | RL_COUNT, .cmd = 17,
		  .count = INT64_MAX, .ctx = 1, .tag = 2 },
		{ .id = 7, .pid = 7, .tid = 8, .sys = SYS_IO_URING_ENTER, .ret = 2,
		  .have = RL_COUNT | RL_MIN | RL_FLAGS | RL_CTX, .count = 2,
		  .min = 1, .flags = 1, .ctx = 1, .deps = { .id = { 4 }, .n = 1 } },
		{ .id = 8, .pid = 7, .tid = 8, .sys = SYS_URING_WRITE_FIXED,
		  .ret = -125, .have = RL_FD | RL_CTX | RL_TAG, .fd = 3, .ctx = 1,
		  .tag = UINT64_MAX },
	};
	size_t nops = sizeof(ops) / sizeof(ops[0]);
	struct outbuf *ob = malloc(sizeof(*ob));
	char path[64], err[ERRLEN] = "";
	const struct uncaptured *u;
	struct rlog_reader *r;
	struct rlog_entry e;
	int fd;

	ck_assert_ptr_nonnull(ob);
	snprintf(path, sizeof(path), "/tmp/ioriot-test-rlog-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	outbuf_puts(ob, HDR "#|uring_skipped|timeout=2|send=9|\n#OPS\n");
	for (size_t i = 0; i < nops; i++)
		rlog_write_op(ob, &ops[i]);
	outbuf_puts(ob, "#END|ops=8|\n");
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);
	free(ob);
	r = rlog_open(path, err, sizeof(err));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_msg(r, "rlog_open: %s", err);
	u = &rlog_header(r)->uring_skipped;
	ck_assert(u->known);
	ck_assert_uint_eq(u->n, 2);
	ck_assert_str_eq(u->v[0].name, "send");
	ck_assert_uint_eq(u->v[0].count, 9);
	ck_assert_str_eq(u->v[1].name, "timeout");
	ck_assert(!rlog_header(r)->uncaptured.known);
	for (size_t i = 0; i < nops; i++) {
		int ret = rlog_next(r, &e, err, sizeof(err));

		ck_assert_msg(ret == 1, "op %zu: %d %s", i, ret, err);
		assert_op_eq(&e.op, &ops[i]);
	}
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

/* The file API's lines read back as written: a FIDEDUPERANGE's dedupe
 * lines, its ioctl and dedupe_done lines (none of them io_uring's, whose
 * checks need a ring), a clone, a lock and a splice. */
START_TEST(test_fileapi_lines)
{
	struct rlog_op ops[] = {
		{ .id = 1, .pid = 5, .tid = 5, .sys = SYS_DEDUPE,
		  .have = RL_FD | RL_OFFSET2, .fd = 2, .offset2 = 8192 },
		{ .id = 2, .pid = 5, .tid = 5, .sys = SYS_IOCTL,
		  .have = RL_FD | RL_OFFSET | RL_COUNT | RL_CMD | RL_ARG, .fd = 1,
		  .offset = 0, .count = 4096, .cmd = 3222836278LL, .arg = 1 },
		{ .id = 3, .pid = 5, .tid = 5, .sys = SYS_DEDUPE_DONE, .ret = 1,
		  .have = RL_FD | RL_COUNT, .fd = 2, .count = 0 },
		{ .id = 4, .pid = 5, .tid = 5, .sys = SYS_IOCTL, .ret = -95,
		  .have = RL_FD | RL_FD2 | RL_CMD, .fd = 2, .fd2 = 1,
		  .cmd = 1074041865 },
		{ .id = 5, .pid = 5, .tid = 6, .sys = SYS_FLOCK, .ret = -110,
		  .have = RL_FD | RL_FLAGS, .fd = 1, .flags = 2 },
		{ .id = 6, .pid = 5, .tid = 6, .sys = SYS_SPLICE, .ret = 100,
		  .have = RL_FD2 | RL_OFFSET2 | RL_COUNT | RL_FLAGS, .fd2 = 2,
		  .offset2 = 4096, .count = 100, .flags = 1 },
	};
	size_t nops = sizeof(ops) / sizeof(ops[0]);
	struct outbuf *ob = malloc(sizeof(*ob));
	char path[64], err[ERRLEN] = "";
	struct rlog_reader *r;
	struct rlog_entry e;
	int fd;

	ck_assert_ptr_nonnull(ob);
	snprintf(path, sizeof(path), "/tmp/ioriot-test-rlog-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	outbuf_puts(ob, HDR "#OPS\n");
	for (size_t i = 0; i < nops; i++)
		rlog_write_op(ob, &ops[i]);
	outbuf_puts(ob, "#END|ops=6|\n");
	ck_assert_int_eq(outbuf_flush(ob), 0);
	ck_assert_int_eq(close(fd), 0);
	free(ob);
	r = rlog_open(path, err, sizeof(err));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_msg(r, "rlog_open: %s", err);
	for (size_t i = 0; i < nops; i++) {
		int ret = rlog_next(r, &e, err, sizeof(err));

		ck_assert_msg(ret == 1, "op %zu: %d %s", i, ret, err);
		assert_op_eq(&e.op, &ops[i]);
	}
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), 0);
	rlog_close(r);
}
END_TEST

/* A line longer than the line reader takes is an error naming its line. */
START_TEST(test_line_too_long)
{
	size_t n = 100 * 1024;
	char *text = malloc(n);
	char err[ERRLEN] = "";
	struct rlog_reader *r;
	struct rlog_entry e;
	size_t pos;

	ck_assert_ptr_nonnull(text);
	pos = (size_t)snprintf(text, n, HDR "#OPS\n1 1:1 0 0 - open 0 path=/.ioriot/t/");
	memset(text + pos, 'a', n - pos);
	text[n - 1] = '\n';
	r = rlog_test_open(text, n, err);
	ck_assert_msg(r, "rlog_open: %s", err);
	ck_assert_int_eq(rlog_next(r, &e, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(err, ":3: line longer than"));
	rlog_close(r);
	free(text);
}
END_TEST

Suite *rlog_suite(void)
{
	Suite *s = suite_create("rlog");
	TCase *tc = tcase_create("rlog");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_uring_lines);
	tcase_add_test(tc, test_fileapi_lines);
	tcase_add_test(tc, test_deps);
	tcase_add_test(tc, test_xattr_entries);
	tcase_add_test(tc, test_lenient_values);
	tcase_add_test(tc, test_relative_targets);
	tcase_add_test(tc, test_no_ops);
	tcase_add_test(tc, test_open_missing_file);
	tcase_add_test(tc, test_uncaptured);
	tcase_add_loop_test(tc, test_bad_file, 0,
			    (int)(sizeof(bad_files) / sizeof(bad_files[0])));
	tcase_add_test(tc, test_line_too_long);
	suite_add_tcase(s, tc);
	return s;
}
