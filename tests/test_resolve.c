/*
 * Tests of the capture's user-space pieces that need no kernel: probe record
 * to log fields (src/capture/fields.c), path completion (resolve.c) and
 * the file mappings a process has at the start (maps.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/xattr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ioriot/capture.h"
#include "../src/capture/emit.h"
#include "../src/capture/resolve.h"
#include "testutil.h"

/* A probe record of @sys with @args (int arguments as the registers hold
 * them: the low 32 bits, upper bits zero). */
static struct ioriot_event record(enum sys_id sys, long long ret,
				  const uint64_t args[6])
{
	struct ioriot_event e = { .time_ns = 1000, .dur_ns = 50, .pid = 7,
				  .tid = 8, .sys = sys, .ret = ret };

	memcpy(e.args, args, sizeof(e.args));
	return e;
}

START_TEST(fields_openat)
{
	uint64_t args[6] = { 0xffffff9cULL, 0x7fff0000, O_CREAT | O_WRONLY, 0644 };
	struct ioriot_event e = record(SYS_OPENAT, 3, args);
	struct cap_event ce;

	e.path_len[0] = 6;
	ck_assert_int_eq(capture_event_fields(&e, "/a/b c", "", &ce), 0);
	ck_assert_int_eq(ce.sys, SYS_OPENAT);
	ck_assert_int_eq(ce.fd, AT_FDCWD);	/* sign-extended from 32 bits */
	ck_assert_int_eq(ce.flags, O_CREAT | O_WRONLY);
	ck_assert_int_eq(ce.mode, 0644);
	ck_assert_int_eq(ce.ret, 3);
	ck_assert_str_eq(ce.path, "/a/b c");
	ck_assert_uint_eq(ce.path_len, 6);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE |
				   CAP_RET | CAP_DUR);
	ck_assert_uint_eq(ce.pid, 7);
	ck_assert_uint_eq(ce.tid, 8);
}
END_TEST

/* The probe's on-CPU times: C where the record has a mark to count from,
 * X always, at most the duration (the probe's own bound). */
START_TEST(fields_cpu)
{
	uint64_t args[6] = { 3, 0x7fff0000, 100 };
	struct ioriot_event e = record(SYS_READ, 100, args);
	struct cap_event ce;

	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert(!(ce.have & (CAP_CPU | CAP_CPU_CALL)));
	e.flags = IORIOT_EV_CPU_CALL;
	e.cpu_call = 30;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have & (CAP_CPU | CAP_CPU_CALL), CAP_CPU_CALL);
	ck_assert_uint_eq(ce.cpu_call_ns, 30);
	e.flags = IORIOT_EV_CPU_CALL | IORIOT_EV_CPU_GAP;
	e.cpu_gap = 123456789;
	e.cpu_call = 51;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have & (CAP_CPU | CAP_CPU_CALL),
			  CAP_CPU | CAP_CPU_CALL);
	ck_assert_uint_eq(ce.cpu_ns, 123456789);
	ck_assert_uint_eq(ce.cpu_call_ns, 50);
	ck_assert(!(ce.have & CAP_RUNQ));
	/* The wait for a CPU counts with the gap only. */
	e.flags = IORIOT_EV_CPU_CALL | IORIOT_EV_RUNQ_GAP;
	e.runq_gap = 777;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert(!(ce.have & CAP_RUNQ));
	e.flags |= IORIOT_EV_CPU_GAP;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert(ce.have & CAP_RUNQ);
	ck_assert_uint_eq(ce.runq_ns, 777);
}
END_TEST

START_TEST(fields_layouts)
{
	static const struct {
		enum sys_id sys;
		uint64_t args[6];
		unsigned flags;
		uint64_t extra[2];
		unsigned have;
		int64_t fd, fd2, offset, offset2, count, size, mode;
	} cases[] = {
		{ SYS_PREAD64, { 4, 0x1000, 4096, 5ULL << 30 }, 0, { 0 },
		  CAP_FD | CAP_COUNT | CAP_OFFSET, 4, -1, 5LL << 30, 0, 4096, 0, 0 },
		{ SYS_SENDFILE, { 5, 6, 0x7000, 100 }, IORIOT_EV_OFFSET, { 77 },
		  CAP_FD | CAP_FD2 | CAP_COUNT | CAP_OFFSET, 5, 6, 77, 0, 100, 0, 0 },
		{ SYS_COPY_FILE_RANGE, { 3, 0x1, 4, 0x2, 10, 0 },
		  IORIOT_EV_OFFSET | IORIOT_EV_OFFSET2, { 11, 22 },
		  CAP_FD | CAP_FD2 | CAP_COUNT | CAP_FLAGS | CAP_OFFSET | CAP_OFFSET2,
		  3, 4, 11, 22, 10, 0, 0 },
		{ SYS_NEWFSTATAT, { 9, 0, 0x7000, 0x1000 }, IORIOT_EV_STAT,
		  { 123, 0100644 }, CAP_FD | CAP_FLAGS | CAP_SIZE | CAP_MODE,
		  9, -1, 0, 0, 0, 123, 0100644 },
		{ SYS_MMAP, { 0, 8192, 1, 2, 0xffffffffULL, 4096 }, 0, { 0 },
		  CAP_ADDR | CAP_COUNT | CAP_MODE | CAP_FLAGS | CAP_FD | CAP_OFFSET,
		  -1, -1, 4096, 0, 8192, 0, 1 },
		{ SYS_CLOSE_RANGE, { 3, 0xffffffffULL, 4 }, 0, { 0 },
		  CAP_FD | CAP_FD2 | CAP_FLAGS, 3, -1, 0, 0, 0, 0, 0 },
		{ SYS_FCHMODAT2, { 5, 0x7000, 0600, AT_SYMLINK_NOFOLLOW }, 0,
		  { 0 }, CAP_FD | CAP_MODE | CAP_FLAGS, 5, -1, 0, 0, 0, 0, 0600 },
		/* madvise(addr, len, MADV_RANDOM): the advice in f */
		{ SYS_MADVISE, { 0x7f0000000000ULL, 8192, 1 }, 0, { 0 },
		  CAP_ADDR | CAP_COUNT | CAP_FLAGS, -1, -1, 0, 0, 8192, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ioriot_event e = record(cases[i].sys, 0, cases[i].args);
		struct cap_event ce;

		e.flags = cases[i].flags;
		e.extra[0] = cases[i].extra[0];
		e.extra[1] = cases[i].extra[1];
		ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
		ck_assert_msg(ce.have == (cases[i].have | CAP_RET | CAP_DUR),
			      "case %zu: have %#x", i, ce.have);
		ck_assert_int_eq(ce.fd, cases[i].fd);
		ck_assert_int_eq(ce.fd2, cases[i].fd2);
		ck_assert_int_eq(ce.offset, cases[i].offset);
		ck_assert_int_eq(ce.offset2, cases[i].offset2);
		ck_assert_int_eq(ce.count, cases[i].count);
		ck_assert_int_eq(ce.size, cases[i].size);
		ck_assert_int_eq(ce.mode, cases[i].mode);
	}
}
END_TEST

/* What the probe reads behind pointers: a lock command's struct flock,
 * the clone and dedupe ioctls' structs and the source's size, the *at
 * xattr calls' struct xattr_args, an ACL's mode; and the names of xattr
 * calls in P. */
START_TEST(fields_fileapi)
{
	uint64_t lk[6] = { 4, F_SETLKW, F_WRLCK | SEEK_END << 16 };
	uint64_t clone[6] = { 5, FICLONERANGE, 4, 4096, 8192, 12288 };
	uint64_t whole[6] = { 5, FICLONE, 4 };
	uint64_t dedupe[6] = { 4, FIDEDUPERANGE, 2, 0, 4096 };
	uint64_t dest[6] = { 6, 65536, 4096 };
	uint64_t at[6] = { 0xffffff9cULL, 0x7000, AT_SYMLINK_NOFOLLOW, 0x8000,
			   0x9000, 16 };
	uint64_t fset[6] = { 4, 0x8000, 0x9000, 28, 0 };
	struct ioriot_event e = record(SYS_FCNTL, 0, lk);
	struct cap_event ce;

	e.flags = IORIOT_EV_FLOCK;
	e.extra[0] = (uint64_t)-100;
	e.extra[1] = 0;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_CMD | CAP_ARG | CAP_WHENCE |
			  CAP_OFFSET | CAP_COUNT | CAP_RET | CAP_DUR);
	ck_assert_int_eq(ce.cmd, F_SETLKW);
	ck_assert_int_eq(ce.arg, F_WRLCK);
	ck_assert_int_eq(ce.whence, SEEK_END);
	ck_assert_int_eq(ce.offset, -100);
	ck_assert_int_eq(ce.count, 0);

	e = record(SYS_IOCTL, -EXDEV, clone);
	e.flags = IORIOT_EV_IOCTL_ARGS | IORIOT_EV_SRC_SIZE;
	e.extra[0] = 20000;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_FD2 | CAP_CMD | CAP_OFFSET |
			  CAP_COUNT | CAP_OFFSET2 | CAP_SIZE | CAP_RET | CAP_DUR);
	ck_assert_int_eq(ce.cmd, FICLONERANGE);
	ck_assert_int_eq(ce.fd2, 4);
	ck_assert_int_eq(ce.offset, 4096);
	ck_assert_int_eq(ce.count, 8192);
	ck_assert_int_eq(ce.offset2, 12288);
	ck_assert_int_eq(ce.size, 20000);

	e = record(SYS_IOCTL, 0, whole);
	e.flags = IORIOT_EV_SRC_SIZE;
	e.extra[0] = 7;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_FD2 | CAP_CMD | CAP_SIZE |
			  CAP_RET | CAP_DUR);

	e = record(SYS_IOCTL, 0, dedupe);
	e.flags = IORIOT_EV_IOCTL_ARGS;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_CMD | CAP_OFFSET | CAP_COUNT |
			  CAP_ARG | CAP_RET | CAP_DUR);
	ck_assert_int_eq(ce.cmd, FIDEDUPERANGE);	/* unsigned */
	ck_assert_int_eq(ce.arg, 2);

	e = record(SYS_DEDUPE, 1, dest);
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_OFFSET2 | CAP_COUNT | CAP_RET |
			  CAP_DUR);
	ck_assert_int_eq(ce.offset2, 65536);
	ck_assert_int_eq(ce.count, 4096);

	e = record(SYS_SETXATTRAT, 0, at);
	e.flags = IORIOT_EV_XATTR_ARGS;
	e.extra[1] = 5 | (uint64_t)XATTR_CREATE << 32;
	e.path_len[0] = 4;
	e.path_len[1] = 6;
	ck_assert_int_eq(capture_event_fields(&e, "/a/b", "user.x", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_PATH | CAP_FLAGS | CAP_PATH2 |
			  CAP_COUNT | CAP_ARG | CAP_RET | CAP_DUR);
	ck_assert_str_eq(ce.path2, "user.x");
	ck_assert_int_eq(ce.count, 5);
	ck_assert_int_eq(ce.arg, XATTR_CREATE);
	ck_assert_int_eq(ce.flags, AT_SYMLINK_NOFOLLOW);

	e = record(SYS_FSETXATTR, 0, fset);
	e.flags = IORIOT_EV_ACL;
	e.extra[0] = 0750;
	e.path_len[1] = 23;
	ck_assert_int_eq(capture_event_fields(&e, "", "system.posix_acl_access",
					      &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_FD | CAP_PATH2 | CAP_COUNT | CAP_ARG |
			  CAP_MODE | CAP_RET | CAP_DUR);
	ck_assert_int_eq(ce.mode, 0750);
	ck_assert_int_eq(ce.count, 28);
	ck_assert(sys_path_is_content(SYS_FSETXATTR, true));
	ck_assert(!sys_path_is_content(SYS_FSETXATTR, false));
}
END_TEST

START_TEST(fields_records)
{
	uint64_t none[6] = { 0 };
	struct ioriot_event e = record(SYS_FORK, 0, none);
	struct cap_event ce;

	e.flags = IORIOT_EV_NO_RET | IORIOT_EV_CHILD;
	e.extra[0] = 40;
	e.extra[1] = 41;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_CHILD | CAP_DUR);
	ck_assert_uint_eq(ce.child_pid, 40);
	ck_assert_uint_eq(ce.child_tid, 41);

	e = record(SYS_EXIT_GROUP, 0, none);
	e.flags = IORIOT_EV_NO_RET;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert(!(ce.have & CAP_RET));

	/* A page record: the page and its file offset, no result. */
	uint64_t page[6] = { 0x7f0000003000ULL, 5ULL << 32 };
	e = record(SYS_MMAP_WRITE, 0, page);
	e.flags = IORIOT_EV_NO_RET;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), 0);
	ck_assert_uint_eq(ce.have, CAP_ADDR | CAP_OFFSET | CAP_DUR);
	ck_assert_uint_eq(ce.addr, 0x7f0000003000ULL);
	ck_assert_int_eq(ce.offset, 5LL << 32);

	e = record(SYS_LOST, 0, none);	/* not a probe record */
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), -EINVAL);
	e.sys = SYS_COUNT + 5;
	ck_assert_int_eq(capture_event_fields(&e, "", "", &ce), -EINVAL);
}
END_TEST

/*
 * The file mappings of a process at the start: data files only, shared
 * or private, not programs or libraries (a file also mapped executable),
 * not deleted files, not anonymous memory, as the path filter says; those
 * beyond the table are counted.
 */
START_TEST(maps_from_proc)
{
	static const char maps[] =
		"55d0a0000000-55d0a0002000 r--p 00000000 fe:01 100 /usr/bin/prog\n"
		"55d0a0002000-55d0a0005000 r-xp 00002000 fe:01 100 /usr/bin/prog\n"
		"55d0a0005000-55d0a0006000 rw-p 00005000 fe:01 100 /usr/bin/prog\n"
		"55d0a1000000-55d0a1021000 rw-p 00000000 00:00 0 [heap]\n"
		"7f0000000000-7f0000040000 rw-s 00010000 fe:01 200 /srv/db/data\n"
		"7f0000040000-7f0000041000 r--p 00003000 fe:02 200 /srv/db/other dev\n"
		"7f0000050000-7f0000051000 rw-s 00000000 fe:01 300 /srv/db/gone (deleted)\n"
		"7f0000060000-7f0000062000 r--p 00000000 fe:01 400 /var/log/x\n"
		"7f0000070000-7f0000071000 rw-p 00000000 00:00 0 \n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
	const char *include[] = { "/srv" };
	struct path_filter srv = { .include = include, .ninclude = 1 };
	char *dir = tu_mkdtemp(), *pid_dir = tu_join(dir, "42"), *file;
	struct ioriot_maps t;
	uint64_t full = 9;

	ck_assert_int_eq(mkdir(pid_dir, 0755), 0);
	file = tu_write_str(pid_dir, "maps", maps);
	ck_assert_int_eq(capture_read_maps(dir, 42, &srv, &t, &full), 0);
	ck_assert_uint_eq(full, 0);
	ck_assert_uint_eq(t.r[0].start, 0x7f0000000000ULL);
	ck_assert_uint_eq(t.r[0].end, 0x7f0000040000ULL);
	ck_assert_uint_eq(t.r[0].offset, 0x10000);
	ck_assert_uint_eq(t.r[0].shared, 1);
	/* Same inode, other device: not the program. */
	ck_assert_uint_eq(t.r[1].start, 0x7f0000040000ULL);
	ck_assert_uint_eq(t.r[1].offset, 0x3000);
	ck_assert_uint_eq(t.r[1].shared, 0);
	ck_assert_uint_eq(t.r[2].end, 0);

	/* Without a filter /var/log/x too; a process that is gone. */
	ck_assert_int_eq(capture_read_maps(dir, 42, NULL, &t, &full), 0);
	ck_assert_uint_eq(t.r[2].start, 0x7f0000060000ULL);
	ck_assert_uint_eq(t.r[3].end, 0);
	ck_assert_int_eq(capture_read_maps(dir, 43, NULL, &t, &full), -ENOENT);
	ck_assert_uint_eq(t.r[0].end, 0);

	/* More data mappings than the table has slots. */
	FILE *f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < IORIOT_EV_MAPS + 3; i++)
		fprintf(f, "%x000-%x000 r--s 00000000 fe:01 %d /srv/f%d\n",
			0x10000 + 2 * i, 0x10001 + 2 * i, 1000 + i, i);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(capture_read_maps(dir, 42, NULL, &t, &full), 0);
	ck_assert_uint_eq(full, 3);
	ck_assert_uint_eq(t.r[IORIOT_EV_MAPS - 1].start,
			  (0x10000ULL + 2 * (IORIOT_EV_MAPS - 1)) << 12);
	free(file);
	free(pid_dir);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A cap_event for the resolver tests. */
static struct cap_event ev(enum sys_id sys, uint32_t pid, int64_t ret)
{
	struct cap_event ce = { .sys = sys, .pid = pid, .tid = pid, .ret = ret,
				.fd = -1, .fd2 = -1, .path = "", .path2 = "",
				.have = CAP_RET };
	return ce;
}

static void with_path(struct cap_event *ce, const char *p)
{
	ce->path = p;
	ce->path_len = (uint32_t)strlen(p);
	ce->have |= CAP_PATH;
}

/*
 * A process in a chroot (its /proc/PID/root a directory of the host, as a
 * container's can be): its absolute paths are put below that directory,
 * as the host sees them; relative ones start from its cwd, which /proc
 * already gives as the host sees it; a child has its root; a path through
 * /proc/self/fd/N is the fd's; "/" is the root itself.
 */
START_TEST(resolve_chroot)
{
	char *proc = tu_mkdtemp(), *pid_dir = tu_join(proc, "20");
	char *root = tu_join(pid_dir, "root");
	char b1[PATHMAP_MAX], b2[PATHMAP_MAX];
	struct resolver r;
	struct cap_event ce;

	ck_assert_int_eq(mkdir(pid_dir, 0755), 0);
	ck_assert_int_eq(symlink("/srv/ct", root), 0);
	ck_assert_int_eq(resolver_init(&r, proc), 0);
	ck_assert_int_eq(resolver_note(&r, 20, -1, "/srv/ct/app"), 0);

	ce = ev(SYS_OPEN, 20, 3);
	with_path(&ce, "/data//db/../c.db");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/ct/data/c.db");
	ck_assert_str_eq(resolver_fd_path(&r, 20, 3), "/srv/ct/data/c.db");

	ce = ev(SYS_STAT, 20, 0);
	with_path(&ce, "log");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/ct/app/log");

	ce = ev(SYS_STAT, 20, 0);
	with_path(&ce, "/proc/self/fd/3");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/ct/data/c.db");

	ce = ev(SYS_FORK, 20, 0);
	ce.child_pid = ce.child_tid = 21;
	ce.have = CAP_CHILD;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ce = ev(SYS_STAT, 21, 0);
	with_path(&ce, "/");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/ct");

	resolver_destroy(&r);
	ck_assert_int_eq(unlink(root), 0);
	ck_assert_int_eq(rmdir(pid_dir), 0);
	ck_assert_int_eq(rmdir(proc), 0);
	free(root);
	free(pid_dir);
	free(proc);
}
END_TEST

/*
 * A process in a mount namespace of its own (a container): its paths, and
 * its cwd as /proc shows it, are mapped onto the host's mounts by device
 * and root (fake /proc: self/ and 30/ with ns/mnt links and mountinfo): a
 * volume bound from the host's /srv/ct/data, a directory of it, the
 * overlay root; a path no host mount shows stays as it is.
 */
START_TEST(resolve_mount_namespace)
{
	char *proc = tu_mkdtemp(), *self = tu_join(proc, "self");
	char *pid_dir = tu_join(proc, "30"), *link;
	char b1[PATHMAP_MAX], b2[PATHMAP_MAX], buf[PATHMAP_MAX];
	struct resolver r;
	struct cap_event ce;
	static const struct { const char *in, *out; } cases[] = {
		{ "/data/db/c.db", "/srv/ct/data/c.db" },
		{ "/data/logs/a.log", "/srv/ct/data/logs/a.log" },
		{ "/etc/hosts", "/var/lib/ct/merged/etc/hosts" },
		{ "/data/db", "/srv/ct/data" },
		{ "/dev/shm/x", "/dev/shm/x" },
	};

	ck_assert_int_eq(mkdir(self, 0755), 0);
	ck_assert_int_eq(mkdir(pid_dir, 0755), 0);
	free(tu_write_str(self, "ns", ""));	/* a plain file is no dir */
	link = tu_join(self, "ns");
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(mkdir(link, 0755), 0);
	free(link);
	link = tu_join(pid_dir, "ns");
	ck_assert_int_eq(mkdir(link, 0755), 0);
	free(link);
	link = tu_join(self, "ns/mnt");
	ck_assert_int_eq(symlink("mnt:[4026531841]", link), 0);
	free(link);
	link = tu_join(pid_dir, "ns/mnt");
	ck_assert_int_eq(symlink("mnt:[4026532999]", link), 0);
	free(link);
	link = tu_join(pid_dir, "cwd");
	ck_assert_int_eq(symlink("/data/db", link), 0);
	free(link);
	free(tu_write_str(self, "mountinfo",
		"22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
		"40 22 8:1 / /srv/ct/data rw,relatime shared:9 - xfs /dev/sda1 rw\n"
		"41 22 0:50 / /var/lib/ct/merged rw,relatime - overlay overlay rw\n"
		"42 22 0:5 / /dev/shm rw - tmpfs tmpfs rw\n"));
	free(tu_write_str(pid_dir, "mountinfo",
		"500 400 0:50 / / rw,relatime - overlay overlay rw\n"
		"501 500 8:1 / /data/db rw,relatime - xfs /dev/sda1 rw\n"
		"502 500 8:1 /logs /data/logs rw,relatime - xfs /dev/sda1 rw\n"
		"503 500 0:77 / /dev/shm rw - tmpfs shm rw\n"));

	ck_assert_int_eq(resolver_init(&r, proc), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ce = ev(SYS_STAT, 30, 0);
		with_path(&ce, cases[i].in);
		ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
		ck_assert_str_eq(ce.path, cases[i].out);
	}
	/* a relative path from its cwd, which /proc gives in its view */
	ce = ev(SYS_STAT, 30, 0);
	with_path(&ce, "wal/1");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/ct/data/wal/1");
	ck_assert_str_eq(resolver_proc_path(&r, 30, "/data/db/x", buf),
			 "/srv/ct/data/x");
	resolver_destroy(&r);
	tu_rmtree(proc);
	free(pid_dir);
	free(self);
	free(proc);
}
END_TEST

START_TEST(resolve_paths)
{
	struct resolver r;
	char b1[PATHMAP_MAX], b2[PATHMAP_MAX];
	struct cap_event ce;

	/* A proc root without processes: nothing is looked up live. */
	ck_assert_int_eq(resolver_init(&r, "/nonexistent-proc"), 0);
	ck_assert_int_eq(resolver_note(&r, 10, -1, "/home/u"), 0);

	ce = ev(SYS_OPEN, 10, 3);
	with_path(&ce, "docs/../a.txt");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/home/u/a.txt");

	ce = ev(SYS_OPENAT, 10, 4);	/* a directory fd */
	ce.fd = AT_FDCWD;
	ce.have |= CAP_FD;
	with_path(&ce, "/srv/data/");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/data");

	ce = ev(SYS_NEWFSTATAT, 10, 0);	/* relative to dirfd 4 */
	ce.fd = 4;
	ce.have |= CAP_FD;
	with_path(&ce, "x/y");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/data/x/y");

	ce = ev(SYS_DUP2, 10, 9);	/* fd 9 now names /srv/data too */
	ce.fd = 4;
	ce.fd2 = 9;
	ce.have |= CAP_FD | CAP_FD2;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(resolver_fd_path(&r, 10, 9), "/srv/data");

	ce = ev(SYS_FORK, 10, 0);	/* the child inherits cwd and fds */
	ce.child_pid = ce.child_tid = 11;
	ce.have = CAP_CHILD;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(resolver_fd_path(&r, 11, 4), "/srv/data");

	ce = ev(SYS_FCHDIR, 11, 0);	/* the child moves into /srv/data */
	ce.fd = 4;
	ce.have |= CAP_FD;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ce = ev(SYS_RENAMEAT, 11, 0);	/* p from d, P from e */
	ce.fd = AT_FDCWD;
	ce.fd2 = 9;
	ce.have |= CAP_FD | CAP_FD2;
	with_path(&ce, "old");
	ce.path2 = "new";
	ce.path2_len = 3;
	ce.have |= CAP_PATH2;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/data/old");
	ck_assert_str_eq(ce.path2, "/srv/data/new");

	ce = ev(SYS_SYMLINK, 11, 0);	/* the target string stays as it is */
	with_path(&ce, "../t");
	ce.path2 = "ln";
	ce.path2_len = 2;
	ce.have |= CAP_PATH2;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "../t");
	ck_assert_str_eq(ce.path2, "/srv/data/ln");

	ce = ev(SYS_READLINK, 11, 4);	/* P, the target read, stays too */
	with_path(&ce, "ln");
	ce.path2 = "../t";
	ce.path2_len = 4;
	ce.have |= CAP_PATH2;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "/srv/data/ln");
	ck_assert_str_eq(ce.path2, "../t");

	ce = ev(SYS_CLOSE, 10, 0);
	ce.fd = 4;
	ce.have |= CAP_FD;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_ptr_null(resolver_fd_path(&r, 10, 4));
	ck_assert_str_eq(resolver_fd_path(&r, 11, 4), "/srv/data");

	ce = ev(SYS_OPEN, 11, 20);	/* close-on-exec: gone after exec */
	with_path(&ce, "/srv/c");
	ce.flags = O_CLOEXEC;
	ce.have |= CAP_FLAGS;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(resolver_fd_path(&r, 11, 20), "/srv/c");
	ce = ev(SYS_EXEC, 11, 0);
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_ptr_null(resolver_fd_path(&r, 11, 20));
	ck_assert_str_eq(resolver_fd_path(&r, 11, 4), "/srv/data");

	ce = ev(SYS_CLOSE_RANGE, 11, 0);	/* 3..~0U: logged as -1 */
	ce.fd = 3;
	ce.fd2 = -1;
	ce.have |= CAP_FD | CAP_FD2;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_ptr_null(resolver_fd_path(&r, 11, 4));
	ck_assert_ptr_null(resolver_fd_path(&r, 11, 9));

	/* Paths through /proc/PID/fd/N name what fd N has open. */
	static const struct {
		const char *path, *want;
	} magic[] = {
		{ "/proc/self/fd/20", "/srv/c" },
		{ "/proc/thread-self/fd/20/", "/srv/c" },
		{ "/proc/11/fd/20/x/../y", "/srv/c/y" },
		{ "/proc/12/fd/20", "/proc/12/fd/20" },		/* another pid */
		{ "/proc/self/fd/21", "/proc/self/fd/21" },	/* not open */
		{ "/proc/self/fd/2x", "/proc/self/fd/2x" },
		{ "/proc/self/fdinfo/20", "/proc/self/fdinfo/20" },
		{ "/proc/self/fd", "/proc/self/fd" },
	};
	ce = ev(SYS_OPEN, 11, 20);
	with_path(&ce, "/srv/c");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++) {
		ce = ev(SYS_FCHMODAT, 11, 0);
		ce.fd = AT_FDCWD;
		ce.have |= CAP_FD;
		with_path(&ce, magic[i].path);
		ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
		ck_assert_str_eq(ce.path, magic[i].want);
		ck_assert_uint_eq(ce.path_len, strlen(magic[i].want));
	}
	ce = ev(SYS_CLOSE, 11, 0);
	ce.fd = 20;
	ce.have |= CAP_FD;
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);

	/*
	 * Thread 31 opens /srv/b while thread 30 closes fd 5 (/srv/a): the
	 * close began first but freed 5 only after the open began, and the
	 * open got 5.  That close was of /srv/a; a later one closes /srv/b.
	 * The reverse too: an open that began first can get the number after
	 * another thread's open and close of it.
	 */
	static const struct {
		enum sys_id sys;
		uint32_t tid;
		uint64_t time, dur;
		const char *path;	/* open: its path; close: fd 5 after */
	} reuse[] = {
		{ SYS_OPEN, 30, 10, 5, "/srv/a" },
		{ SYS_OPEN, 31, 100, 50, "/srv/b" },
		{ SYS_CLOSE, 30, 120, 40, "/srv/b" },	/* overlaps: /srv/a */
		{ SYS_CLOSE, 31, 200, 5, NULL },
		{ SYS_OPEN, 30, 300, 5, "/srv/c" },
		{ SYS_OPEN, 31, 400, 50, "/srv/d" },	/* 5 still taken */
		{ SYS_CLOSE, 31, 420, 5, NULL },	/* same thread */
		{ SYS_OPEN, 30, 500, 5, "/srv/e" },
		{ SYS_OPEN, 31, 600, 50, "/srv/f" },
		{ SYS_CLOSE, 30, 700, 5, NULL },	/* after the open */
		/* Thread 30's open of /srv/g began first but got 5 only
		 * after thread 31 had opened and closed /srv/h on it. */
		{ SYS_OPEN, 30, 800, 100, "/srv/g" },
		{ SYS_OPEN, 31, 810, 5, "/srv/h" },
		{ SYS_CLOSE, 31, 820, 5, "/srv/g" },
		{ SYS_CLOSE, 30, 950, 5, NULL },
		/* Thread 30's close of /srv/l began first but ran longer
		 * than the reorder window: it comes after thread 31 opened
		 * and closed /srv/m and opened /srv/n on the number. */
		{ SYS_OPEN, 30, 1000, 5, "/srv/l" },
		{ SYS_OPEN, 31, 1100, 5, "/srv/m" },
		{ SYS_CLOSE, 31, 1110, 5, NULL },
		{ SYS_OPEN, 31, 1120, 5, "/srv/n" },
		{ SYS_CLOSE, 30, 1090, 50, "/srv/n" },
		{ SYS_CLOSE, 31, 1200, 5, NULL },
	};
	for (size_t i = 0; i < sizeof(reuse) / sizeof(reuse[0]); i++) {
		bool open = reuse[i].sys == SYS_OPEN;
		const char *now;

		ce = ev(reuse[i].sys, 30, open ? 5 : 0);
		ce.tid = reuse[i].tid;
		ce.time_ns = reuse[i].time;
		ce.dur_ns = reuse[i].dur;
		if (open) {
			with_path(&ce, reuse[i].path);
		} else {
			ce.fd = 5;
			ce.have |= CAP_FD;
		}
		ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
		now = resolver_fd_path(&r, 30, 5);
		if (reuse[i].path)
			ck_assert_msg(now && !strcmp(now, reuse[i].path),
				      "step %zu: fd 5 is %s", i, now);
		else
			ck_assert_msg(!now, "step %zu: fd 5 is %s", i, now);
	}

	ce = ev(SYS_OPEN, 12, 3);	/* unknown process, no /proc: relative */
	with_path(&ce, "rel");
	ck_assert_int_eq(resolver_apply(&r, &ce, b1, b2), 0);
	ck_assert_str_eq(ce.path, "rel");
	resolver_destroy(&r);
}
END_TEST

START_TEST(path_filters)
{
	static const char *const inc[] = { "/data", "/srv/mail" };
	static const char *const exc[] = { "/data/tmp" };
	struct path_filter f = { inc, 2, exc, 1 };
	static const struct { const char *path; bool kept; } cases[] = {
		{ "/data", true }, { "/data/x", true }, { "/datax", false },
		{ "/data/tmp/y", false }, { "/data/tmpz", true },
		{ "/srv/mail/a", true }, { "/srv", false }, { "/etc", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(path_filter_keeps(&f, cases[i].path,
						strlen(cases[i].path)) == cases[i].kept,
			      "%s", cases[i].path);
	ck_assert(path_filter_keeps(NULL, "/x", 2));
	f.ninclude = 0;
	ck_assert(path_filter_keeps(&f, "/etc", 4));
	ck_assert(!path_filter_keeps(&f, "/data/tmp", 9));
}
END_TEST

/* An emitter writing to a log in a new directory (emit_start()), its
 * events counted in sum. */
struct emit_run {
	char *dir, *log;
	struct outbuf *ob;
	int fd;
	struct emitter *em;
	struct capture_summary sum;
};

static void emit_start(struct emit_run *r, const struct path_filter *f)
{
	memset(r, 0, sizeof(*r));
	r->dir = tu_mkdtemp();
	r->log = tu_join(r->dir, "emit.log");
	r->ob = malloc(sizeof(*r->ob));
	r->fd = open(r->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(r->ob && r->fd >= 0);
	outbuf_init(r->ob, r->fd);
	r->em = emitter_new(f, &r->sum, r->ob);
	ck_assert(r->em);
}

/* Write out every event held, check that @events were written and
 * @excluded left out, free it all; the log's text, malloc'd. */
static char *emit_finish(struct emit_run *r, uint64_t events,
			 uint64_t excluded)
{
	char *text;

	emitter_release(r->em, UINT64_MAX);
	ck_assert_int_eq(r->em->err, 0);
	ck_assert_uint_eq(r->sum.events, events);
	ck_assert_uint_eq(r->sum.excluded, excluded);
	emitter_free(r->em);
	ck_assert_int_eq(outbuf_flush(r->ob), 0);
	close(r->fd);
	text = tu_read(r->log, NULL);
	ck_assert(text);
	free(r->ob);
	free(r->log);
	tu_rmtree(r->dir);
	free(r->dir);
	return text;
}

/*
 * The emitter (emit.c): an event the path filters leave out passes its
 * on-CPU time (C and X) to the next C of its thread, so that C still counts
 * from the end of the thread's previous event in the log, and is counted in
 * that event's K (capture-format §4.2); a thread's first event (X, no C)
 * starts the count anew.  Their waits for a CPU (R) go into the next R the
 * same way, and into the R of a wake record in between (which counts from
 * the thread's last event sent), without being taken from the next; an R
 * of 0 is not written.
 */
START_TEST(emit_carries_cpu_of_filtered)
{
	static const char *const inc[] = { "/keep" };
	static const struct {
		uint32_t tid;
		const char *path;
		unsigned have;
		uint64_t cpu, call, runq;
	} evs[] = {
		{ 1, "/keep/a", CAP_CPU_CALL, 0, 40, 0 },
		{ 1, "/other", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 100, 10, 300 },
		{ 2, "/other", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 7, 3, 5 },
		{ 1, "/other", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 1000, 20, 400 },
		/* C 1135, R 702 */
		{ 1, "/keep/b", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 5, 50, 2 },
		/* C 6, no R */
		{ 1, "/keep/c", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 6, 50, 0 },
		{ 2, "/other", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 9, 1, 11 },
		/* a new thread 2 */
		{ 2, "/keep/d", CAP_CPU_CALL, 0, 50, 0 },
		/* C 8, R 30 */
		{ 2, "/keep/e", CAP_CPU | CAP_CPU_CALL | CAP_RUNQ, 8, 50, 30 },
	};
	static const char *const want[] = {
		"i=7:1;:,o=stat;:,p=/keep/a;:,X=40;:,",
		"i=7:1;:,o=wake;:,c=9;:,R=720;:,a=",
		"i=7:1;:,o=stat;:,p=/keep/b;:,C=1135;:,K=2;:,R=702;:,r=",
		"i=7:1;:,o=stat;:,p=/keep/c;:,C=6;:,r=",
		"i=7:2;:,o=stat;:,p=/keep/d;:,X=50;:,r=",
		"i=7:2;:,o=stat;:,p=/keep/e;:,C=8;:,R=30;:,r=",
	};
	struct path_filter f = { inc, 1, NULL, 0 };
	struct emit_run r;
	char *text, *p;

	emit_start(&r, &f);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct cap_event ce = {
			.time_ns = 1000 * (i + 1), .dur_ns = 50, .pid = 7,
			.tid = evs[i].tid, .sys = SYS_STAT, .ret = 0,
			.path = evs[i].path, .path_len = strlen(evs[i].path),
			.have = CAP_DUR | CAP_RET | CAP_PATH | evs[i].have,
			.cpu_ns = evs[i].cpu, .cpu_call_ns = evs[i].call,
			.runq_ns = evs[i].runq,
		};
		/* Thread 1 woken before its /keep/b: its wake's R adds the
		 * left-out waits (700) and leaves them for /keep/b's R. */
		struct cap_event wake = {
			.time_ns = 1000 * (i + 1) - 500, .pid = 7, .tid = 1,
			.sys = SYS_WAKE, .addr = 7ULL << 32 | 2, .count = 9,
			.runq_ns = 20,
			.have = CAP_ADDR | CAP_COUNT | CAP_RUNQ,
		};
		if (i == 4)
			ck_assert_int_eq(emitter_push(r.em, &wake), 0);
		ck_assert_int_eq(emitter_push(r.em, &ce), 0);
	}
	text = emit_finish(&r, 6, 4);
	p = text;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		p = strstr(p, want[i]);
		ck_assert_msg(p, "no %s in\n%s", want[i], text);
	}
	free(text);
}
END_TEST

/*
 * The emitter's path filter on Linux AIO and io_uring (asyncfilter.h): two
 * processes each do AIO and io_uring on a file of their own, one below
 * --include, one not.  Of the other's, only its io_setup and
 * io_uring_setup are left (whether a context or ring will be in use is not
 * known when it is set up); its requests, submits, enters, waits and
 * completions are left out.
 */
START_TEST(emit_filters_aio_and_uring)
{
	static const char *const inc[] = { "/keep" };
	struct path_filter f = { inc, 1, NULL, 0 };
	uint64_t t = 1000;
	struct emit_run r;
	char *text, *copy;

	emit_start(&r, &f);
	for (uint32_t pid = 7; pid <= 8; pid++) {
		const char *file = pid == 7 ? "/keep/f" : "/other/g";
		uint64_t ctx = 0x7f0000000000ULL + pid;
		const struct cap_event evs[] = {
			{ .sys = SYS_OPENAT, .fd = -100, .path = file,
			  .path_len = (uint32_t)strlen(file), .ret = 4,
			  .have = CAP_FD | CAP_PATH | CAP_RET },
			{ .sys = SYS_IO_SETUP, .count = 8, .addr = ctx, .ret = 0,
			  .have = CAP_COUNT | CAP_ADDR | CAP_RET },
			{ .sys = SYS_IOCB, .fd = 4, .addr = ctx, .addr2 = 64,
			  .have = CAP_FD | CAP_ADDR | CAP_ADDR2 },
			{ .sys = SYS_IO_SUBMIT, .addr = ctx, .count = 1,
			  .ret = 1, .have = CAP_ADDR | CAP_COUNT | CAP_RET },
			{ .sys = SYS_IO_GETEVENTS, .addr = ctx, .count = 1,
			  .ret = 1, .have = CAP_ADDR | CAP_COUNT | CAP_RET },
			{ .sys = SYS_IO_EVENT, .addr = ctx, .addr2 = 64,
			  .ret = 4096, .have = CAP_ADDR | CAP_ADDR2 | CAP_RET },
			{ .sys = SYS_IO_URING_SETUP, .count = 8, .ret = 5,
			  .have = CAP_COUNT | CAP_RET },
			{ .sys = SYS_SQE, .fd2 = 5, .fd = 4, .cmd = 22,
			  .addr2 = 1, .have = CAP_FD | CAP_FD2 | CAP_CMD |
			  CAP_ADDR2 },
			{ .sys = SYS_IO_URING_ENTER, .fd = 5, .count = 1,
			  .ret = 1, .have = CAP_FD | CAP_COUNT | CAP_RET },
			{ .sys = SYS_CQE, .fd2 = 5, .addr2 = 1, .ret = 4096,
			  .have = CAP_FD2 | CAP_ADDR2 | CAP_RET },
		};

		for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
			struct cap_event ce = evs[i];

			ce.pid = ce.tid = pid;
			ce.time_ns = t;
			t += 1000;
			ck_assert_int_eq(emitter_push(r.em, &ce), 0);
		}
	}
	text = emit_finish(&r, 12, 8);
	ck_assert_msg(strstr(text, "i=7:7;:,o=io_getevents;") &&
		      strstr(text, "i=7:7;:,o=cqe;"), "%s", text);
	copy = strdup(text);
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n"))
		ck_assert_msg(!strstr(l, "i=8:8;") ||
			      strstr(l, ";:,o=io_setup;:,") ||
			      strstr(l, ";:,o=io_uring_setup;:,"),
			      "kept of the other process: %s", l);
	free(copy);
	free(text);
}
END_TEST

Suite *resolve_suite(void)
{
	Suite *s = suite_create("resolve");
	TCase *tc = tcase_create("capture");

	tcase_add_test(tc, fields_openat);
	tcase_add_test(tc, fields_cpu);
	tcase_add_test(tc, fields_layouts);
	tcase_add_test(tc, fields_records);
	tcase_add_test(tc, maps_from_proc);
	tcase_add_test(tc, fields_fileapi);
	tcase_add_test(tc, resolve_paths);
	tcase_add_test(tc, resolve_chroot);
	tcase_add_test(tc, resolve_mount_namespace);
	tcase_add_test(tc, path_filters);
	tcase_add_test(tc, emit_carries_cpu_of_filtered);
	tcase_add_test(tc, emit_filters_aio_and_uring);
	suite_add_tcase(s, tc);
	return s;
}
