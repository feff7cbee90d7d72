/*
 * Round trips of real programs: each program (tar, git, sqlite3 with a
 * rollback journal and with WAL, tests/workloads/writers with several
 * processes writing at once, dd with large and with direct I/O, Linux AIO,
 * fio's libaio engine, a PostgreSQL server under pgbench, cp --reflink,
 * setfattr and getfattr, cp -a, the file API workload, two flock(1)s)
 * works in its own directory DIR = MNT/NAME on each file system its row
 * names (a loop-mounted ext4 image on 512-byte sectors, an xfs image on
 * 4096-byte sectors, with reflink), captured with -x and --include DIR;
 * the log is generated into a replay file (test NAME, sandbox
 * MNT/.ioriot/NAME), initialised, and replayed by `ioriot -r -S
 * FILE.json`, itself captured with -x and --include on the sandbox.  Then:
 *
 *  1. Tree: every entry the program created or changed below DIR (new, or
 *     another type, size or ctime than before the run) is in the sandbox
 *     copy of DIR with the same type, regular files with the same size and
 *     symlinks with the same target (relative ones as they are, absolute
 *     ones below their tree's root: the generator rewrites those into the
 *     sandbox), the same extended attributes (names and value sizes), and
 *     those it created with the same
 *     permissions (what existed before gets the mode a stat of the capture
 *     showed, else 0644 or 0755); what the
 *     program removed is absent; and every entry of the sandbox copy exists
 *     in DIR with the same type.
 *  2. Results: per syscall, the JSON's "ops" equal the replay file's
 *     operations, and no result differs from the capture ("differ": no
 *     other byte count, value or errno; docs/stats.md), but those a row
 *     names as known to differ at times (printed, with the reason at the
 *     row).
 *  3. Capture of the replay: per syscall, the count of successful calls and
 *     the bytes read or written are the same in both capture logs, and so
 *     is the count of failed calls per errno.  Both logs are counted
 *     alike (count_log()): exec.c makes each call once, in its *at form;
 *     AIO and io_uring count requests per opcode with their lengths and
 *     completions with their bytes, not the number of io_getevents or
 *     io_uring_enter calls; the mappings of a ring's fd are not counted.
 *     Page faults on file mappings (mmap_read, mmap_write) are compared
 *     apart: whether a touch faults depends on the page cache (below).
 *  4. Device I/O: the sectors read and written on the image's loop device
 *     (/proc/diskstats) while the program ran and while the replay ran,
 *     each counted from settled file systems and dropped caches to a
 *     settled file system again, are within 10%, reads and writes each:
 *     writes where either side has DEV_MIN_SECTORS or more, reads where
 *     both have (a read reaches the device or not as the page cache kept
 *     its data: a program's reads under memory pressure vary by
 *     thousands of sectors between runs); a line per round trip prints
 *     both and their ratio.  Not judged, and reported as skipped, when
 *     another process dropped the page cache while either ran (as
 *     `ioriot -r` without -D does, with a sync(2), and this test itself
 *     in another make check on a shared host), or memory pressure made
 *     the kernel reclaim pages: then what reached the device was the
 *     host's doing.
 *
 * The match rates are printed, and with IORIOT_ROUNDTRIP_COUNTS set the
 * counts of check 3 for each program.  A program whose binary is not in PATH is
 * skipped with a note; so is everything without root or BTF.
 * IORIOT_ROUNDTRIP_ONLY=NAME,... runs only those programs, and with
 * IORIOT_STAP_MODULE=MODULE the programs are captured with that SystemTap
 * module (make check-vm, in its guest) instead of the probe.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/caplog.h"
#include "ioriot/capture.h"
#include "ioriot/diskstats.h"
#include "ioriot/init.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/syscalls.h"
#include "ioriot/uring.h"
#include "testutil.h"
#include "../src/replay/dioalign.h"

#ifndef FIFREEZE		/* linux/fs.h, which clashes with sys/mount.h */
#define FIFREEZE _IOWR('X', 119, int)
#define FITHAW _IOWR('X', 120, int)
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452	/* Linux 6.6; one number on every architecture */
#endif

#define ERRLEN 4096
#define CAPTURE_CAP_NS (120ULL * 1000000000ULL)	/* safety net */
#define STOP_DELAY_US 100000	/* capture on after the program exited */
#define CAPTURE_TRIES 5		/* the probe may be busy with another capture */

/* ---- the programs ------------------------------------------------------ */

static void prepare_tar(const char *dir);
static void prepare_git(const char *dir);
static void prepare_xattrs(const char *dir);
static void prepare_cp(const char *dir);

#define PG_BIN "/usr/lib/postgresql/15/bin"	/* Debian's postgresql-15 */

#define SQL_TXNS "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);" \
	"BEGIN; INSERT INTO t(b) VALUES(hex(randomblob(200)));" \
	"INSERT INTO t(b) VALUES(hex(randomblob(3000))); COMMIT;" \
	"BEGIN; UPDATE t SET b = hex(randomblob(500)) WHERE a = 1;" \
	"INSERT INTO t(b) SELECT b FROM t; COMMIT;" \
	"BEGIN; DELETE FROM t WHERE a = 2; COMMIT;"

/* The file systems a program runs on (struct program's fs). */
enum { FS_EXT4 = 1 << 0, FS_XFS = 1 << 1 };

/*
 * A program runs in DIR/w with HOME=DIR/home, GIT_CONFIG_NOSYSTEM=1 and
 * LC_ALL=C, as root unless it names a user.  In argv, "@" followed by a
 * name is that workload binary.  Fields after argv may be left out: zero
 * is their default (ext4 only, as root).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct program {
	const char *name;		/* test name and directory on the image */
	const char *need;		/* binary that must be in PATH (or this
					 * absolute path), or NULL */
	void (*prepare)(const char *dir);	/* inputs, made before */
	const char *argv[8];
	unsigned fs;			/* FS_* it runs on; 0: FS_EXT4 only */
	const char *user;		/* runs as this user, or NULL: root */
	const char *exclude;		/* below DIR: not captured, or NULL */
	const char *may_differ;		/* "SYSCALL:CLASS ..." (as in the
					 * statistics' differ_by_result) of
					 * results known to differ at times,
					 * printed, not failed; NULL: none */
} programs[] = {
	{ "tar", "tar", prepare_tar, { "tar", "-xf", "../a.tar", NULL },
	  FS_EXT4 | FS_XFS },
	/* git add reads the symlink w/d1/link, from before the capture; init
	 * makes it again from the target the capture read. */
	{ "git", "git", prepare_git, { "sh", "-c", "git init -q && git add . "
	  "&& git -c user.name=ioriot -c user.email=ioriot@example.org "
	  "commit -q -m roundtrip", NULL } },
	{ "sqlite", "sqlite3", NULL, { "sqlite3", "db", SQL_TXNS, NULL },
	  FS_EXT4 | FS_XFS },
	{ "sqlite-wal", "sqlite3", NULL, { "sqlite3", "db",
	  "PRAGMA journal_mode=WAL;" SQL_TXNS, NULL } },
	/* Four processes at once.  Their mkdirs of one directory race: one
	 * creates it, the others get EEXIST, and the log must hold them in
	 * the order they began (reorder.h) for the replay to do the same. */
	{ "writers", NULL, NULL, { "@writers", ".", NULL } },
	/* Relative links made, read and replaced, one climbing two levels,
	 * and links from before the capture only lstat'ed (ls -l): they
	 * come back as links with the same targets.  (Files reached only
	 * through a link are not in INIT: README, limits.) */
	{ "symlinks", "ln", prepare_git, { "sh", "-c", "ln -s d1/f1 a && "
	  "ln -s ../README d1/up && ln -s a b && readlink b >/dev/null && "
	  "mkdir -p x/y && ln -s ../../d1 x/y/z && ls -l d1 >/dev/null && "
	  "rm a && ln -s d1/f3 a", NULL } },
	/* Reads and writes of several MiB each: one call each. */
	{ "dd-big", "dd", NULL, { "sh", "-c", "dd if=/dev/zero of=f bs=3M "
	  "count=2 status=none && dd if=f of=/dev/null bs=3M status=none",
	  NULL }, FS_EXT4 | FS_XFS },
	/* Direct I/O: aligned buffers, offsets and lengths. */
	{ "dd-direct", "dd", NULL, { "sh", "-c", "dd if=/dev/zero of=f bs=64k "
	  "count=64 oflag=direct status=none && dd if=f of=/dev/null bs=64k "
	  "iflag=direct status=none", NULL }, FS_EXT4 | FS_XFS },
	/* Two direct writers at once, each then reading its file back. */
	{ "dd-direct-par", "dd", NULL, { "sh", "-c", "for f in a b; do "
	  "(dd if=/dev/zero of=$f bs=64k count=48 oflag=direct status=none && "
	  "dd if=$f of=/dev/null bs=64k iflag=direct status=none) & done; "
	  "wait", NULL }, FS_EXT4 | FS_XFS },
	/* Files, directories, nodes and a Unix socket made under umasks
	 * 077, 027 (a thread's too) and a child's 0: the replay, under the
	 * harness's 022, makes them with the captured permissions. */
	{ "umask", NULL, NULL, { "@umask", ".", NULL } },
	/* Linux AIO with O_DIRECT through the raw syscalls: several iocbs
	 * per io_submit, reaped by io_getevents. */
	{ "aio", NULL, NULL, { "@aio", ".", NULL }, FS_EXT4 | FS_XFS },
	/* fio's libaio engine: random reads and writes at depth 16. */
	{ "fio", "fio", NULL, { "sh", "-c", "fio --name=rt --ioengine=libaio "
	  "--direct=1 --rw=randrw --bs=4k --size=16m --iodepth=16 "
	  "--filename=rt.dat --randseed=1 --output=/dev/null", NULL },
	  FS_EXT4 | FS_XFS },
	/* fio's psync engine: two processes, each with a file of its own,
	 * random reads and writes with pread and pwrite. */
	{ "fio-psync", "fio", NULL, { "sh", "-c", "fio --name=rt "
	  "--ioengine=psync --rw=randrw --bs=4k --size=4m --numjobs=2 "
	  "--randseed=1 --output=/dev/null", NULL }, FS_EXT4 | FS_XFS },
	/* fio's posixaio engine: glibc's POSIX AIO, whose threads make the
	 * preads and pwrites, at depth 8. */
	{ "fio-posixaio", "fio", NULL, { "sh", "-c", "fio --name=rt "
	  "--ioengine=posixaio --rw=randrw --bs=4k --size=4m --iodepth=8 "
	  "--filename=rt.dat --randseed=1 --output=/dev/null", NULL } },
	/*
	 * A database server of many processes with fsync: initdb, the
	 * server on a socket in DIR/w (no TCP), pgbench's tables and 3 s of
	 * its transactions from two clients, stop.  PostgreSQL refuses to
	 * run as root, and sets umask 077 for itself: its files come back
	 * 0600 from a replay under umask 022.  Its socket, made by bind(2),
	 * is replayed as the socket inode, which its chmod and unlink then
	 * find.  Without
	 * parallel index builds: their workers' overlapping mkdirs of one
	 * directory can end in the other order than they began (README,
	 * limits).  A backend's lseek(SEEK_END) of a table may see another
	 * backend's extension of it that the capture saw later: calls on
	 * different descriptions of one file are not ordered (README).
	 */
	{ "postgres", PG_BIN "/pgbench", NULL, { "sh", "-c", "set -e; "
	  "B=" PG_BIN "; $B/initdb -D pg -U postgres -A trust; "
	  "$B/pg_ctl -D pg -w -s -l pg.log -o \"-c listen_addresses= "
	  "-c unix_socket_directories=$PWD "
	  "-c max_parallel_maintenance_workers=0\" start; "
	  "$B/pgbench -h \"$PWD\" -U postgres -i -s 1 -q postgres; "
	  "$B/pgbench -h \"$PWD\" -U postgres -T 3 -c 2 postgres; "
	  "$B/pg_ctl -D pg -w -s stop", NULL }, FS_EXT4 | FS_XFS, "postgres",
	  NULL, "lseek:value" },
	/* io_uring through liburing: fixed files and buffers, linked
	 * requests, batches of several requests. */
	{ "uring", NULL, NULL, { "@uring", ".", NULL } },
	/* fio's io_uring engine at depth 16: buffered, with fixed files,
	 * and with O_DIRECT. */
	{ "fio-uring", "fio", NULL, { "sh", "-c", "fio --name=rt "
	  "--ioengine=io_uring --rw=randrw --bs=4k --size=4m --iodepth=16 "
	  "--filename=rt.dat --randseed=1 --output=/dev/null", NULL } },
	{ "fio-uring-fixed", "fio", NULL, { "sh", "-c", "fio --name=rt "
	  "--ioengine=io_uring --registerfiles=1 --rw=randrw --bs=4k "
	  "--size=4m --iodepth=16 --filename=rt.dat --randseed=1 "
	  "--output=/dev/null", NULL } },
	{ "fio-uring-direct", "fio", NULL, { "sh", "-c", "fio --name=rt "
	  "--ioengine=io_uring --direct=1 --rw=randrw --bs=4k --size=4m "
	  "--iodepth=16 --filename=rt.dat --randseed=1 --output=/dev/null",
	  NULL }, FS_EXT4 | FS_XFS },
	/* I/O through mappings: reads and writes of some pages of a shared
	 * mapping, msync, a private one (tests/workloads/mmapio.c). */
	{ "mmapio", NULL, NULL, { "@mmapio", ".", NULL } },
	/* fio's mmap engine: random writes into a shared mapping, written
	 * back at the end, then a sequential read through one. */
	{ "fio-mmap", "fio", NULL, { "sh", "-c", "fio --name=rtm "
	  "--ioengine=mmap --rw=randwrite --bs=4k --size=4m --end_fsync=1 "
	  "--filename=m.dat --randseed=1 --output=/dev/null && fio --name=rtm "
	  "--ioengine=mmap --rw=read --bs=64k --size=4m --filename=m.dat "
	  "--output=/dev/null", NULL } },
	/* A Python writer: a new file made 1 MiB long, written through a
	 * shared mapping, msync (flush), close. */
	{ "python-mmap", "python3", NULL, { "python3", "-c", "import mmap\n"
	  "with open('py.dat', 'w+b') as f:\n"
	  " f.truncate(1 << 20)\n"
	  " m = mmap.mmap(f.fileno(), 1 << 20)\n"
	  " m[:] = b'x' * (1 << 20)\n"
	  " m.flush()\n"
	  " m.close()\n", NULL } },
	/* Clones on xfs: one FICLONE per file, no data copied. */
	{ "reflink", "cp", prepare_git, { "sh", "-c", "mkdir c && "
	  "cp --reflink=always d1/f1 d1/f2 d1/f5 README c/", NULL }, FS_XFS },
	/* Attributes set, replaced, removed and read; some from before the
	 * capture (INIT makes them). */
	{ "xattr", "setfattr", prepare_xattrs, { "sh", "-c",
	  "setfattr -n user.new -v hello d1/f1 && "
	  "setfattr -n user.old -v 0x0102030405060708 d1/f1 && "
	  "setfattr -x user.gone d1/f2 && getfattr -d d1/f1 d1/f2 d1 "
	  ">/dev/null && getfattr -n user.keep d1/f2 >/dev/null && "
	  "setfattr -n user.dir -v x d1", NULL } },
	/* cp -a of a tree with user attributes: modes as ACLs, owners,
	 * times, links. */
	{ "cp-a", "cp", prepare_cp, { "cp", "-a", "src", "dst", NULL } },
	/* The file API workload: clones, dedupe, every xattr call, locks,
	 * splice through pipes, mknod (no device), hints and syncs. */
	{ "fileapi", NULL, NULL, { "@fileapi", ".", "nodev", NULL }, FS_XFS },
	/* Two flock(1)s on one file: the second waits for the first. */
	{ "flock", "flock", NULL, { "sh", "-c", "flock lk sleep 0.3 & "
	  "sleep 0.1; flock lk true; wait", NULL } },
};
#pragma GCC diagnostic pop
#define NPROGRAMS (sizeof(programs) / sizeof(programs[0]))

/* Write @len bytes of a pattern to @dir/@name. */
static void put_file(const char *dir, const char *name, size_t len)
{
	char *buf = malloc(len + 1);

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + i % 23);
	free(tu_write(dir, name, buf, len));
	free(buf);
}

/* A small tree below @top: nested directories, files of several sizes, an
 * empty one, and a relative symlink. */
static void make_tree(const char *top)
{
	static const struct {
		const char *name;
		size_t len;	/* (size_t)-1: a directory */
	} entries[] = {
		{ "d1", (size_t)-1 }, { "d1/d2", (size_t)-1 },
		{ "d1/f1", 3000 }, { "d1/f2", 6000 }, { "d1/f3", 9000 },
		{ "d1/f4", 12000 }, { "d1/f5", 70000 }, { "d1/d2/small", 3 },
		{ "d1/d2/empty", 0 }, { "README", 40 },
	};
	char *path;

	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (entries[i].len != (size_t)-1) {
			put_file(top, entries[i].name, entries[i].len);
			continue;
		}
		path = tu_join(top, entries[i].name);
		ck_assert_int_eq(mkdir(path, 0755), 0);
		free(path);
	}
	path = tu_join(top, "d1/link");
	ck_assert_int_eq(symlink("f1", path), 0);
	free(path);
}

/* DIR/a.tar of a tree made in DIR/src (not captured). */
static void prepare_tar(const char *dir)
{
	char *src = tu_join(dir, "src"), *tar = tu_join(dir, "a.tar");
	const char *argv[] = { "tar", "-cf", tar, "-C", src, ".", NULL };

	ck_assert_int_eq(mkdir(src, 0755), 0);
	make_tree(src);
	ck_assert_int_eq(tu_exec(argv, false), 0);
	free(src);
	free(tar);
}

/* The tree to commit in DIR/w. */
static void prepare_git(const char *dir)
{
	char *w = tu_join(dir, "w");

	make_tree(w);
	free(w);
}

/* Set attribute @name of @dir/@rel to @len bytes. */
static void put_xattr(const char *dir, const char *rel, const char *name,
		      size_t len)
{
	char *path = tu_join(dir, rel), value[256];

	ck_assert_uint_le(len, sizeof(value));
	memset(value, 'v', len);
	ck_assert_msg(lsetxattr(path, name, value, len, 0) == 0, "%s: %s: %s",
		      path, name, strerror(errno));
	free(path);
}

/* The tree in DIR/w, with attributes the program reads, replaces and
 * removes. */
static void prepare_xattrs(const char *dir)
{
	char *w = tu_join(dir, "w");

	make_tree(w);
	put_xattr(w, "d1/f1", "user.old", 3);
	put_xattr(w, "d1/f2", "user.keep", 10);
	put_xattr(w, "d1/f2", "user.gone", 200);
	put_xattr(w, "d1", "user.tag", 4);
	free(w);
}

/* DIR/w/src: the tree, with attributes on files and a directory. */
static void prepare_cp(const char *dir)
{
	char *src = tu_join(dir, "w/src");

	ck_assert_int_eq(mkdir(src, 0755), 0);
	make_tree(src);
	put_xattr(src, "d1/f1", "user.a", 5);
	put_xattr(src, "d1/f1", "user.b", 100);
	put_xattr(src, "d1/f5", "user.c", 1);
	put_xattr(src, "d1/d2", "user.d", 7);
	free(src);
}

/* ---- the images -------------------------------------------------------- */

/* One loop-mounted image per file system, in fs_root/NAME. */
static const struct image {
	const char *name;	/* its file system, and its directory */
	unsigned fs;		/* FS_* */
	unsigned mb;		/* sparse */
	unsigned sector;	/* logical block size of its loop device */
	const char *mkfs[8];
} images[] = {
	/* Inode tables and journal written by mkfs, not by a kernel thread
	 * in the background while device I/O is counted. */
	{ "ext4", FS_EXT4, 512, 512, { "mkfs.ext4", "-q", "-F", "-E",
	  "lazy_itable_init=0,lazy_journal_init=0", NULL } },
	/* 4 KiB sectors (losetup --sector-size 4096): direct I/O needs 4 KiB
	 * offsets and lengths.  xfsprogs refuses images below 300 MB. */
	{ "xfs", FS_XFS, 512, 4096, { "mkfs.xfs", "-q", "-f", NULL } },
};
#define NIMAGES (sizeof(images) / sizeof(images[0]))

static char *fs_root;		/* scratch directory: images, logs, replays */
static char *img_mnt[NIMAGES];	/* the mounted images, NULL if not */
static char img_dev[NIMAGES][32];	/* their devices in /proc/diskstats */

static void fs_setup(void)
{
	const char *why = tu_cannot_capture();

	if (why) {
		printf("roundtrip: skipped, %s\n", why);
		return;
	}
	fs_root = tu_mkdtemp();
	for (size_t i = 0; i < NIMAGES; i++) {
		const struct image *im = &images[i];
		char *dir = tu_join(fs_root, im->name), *real;

		if (!tu_mount_loop(dir, im->mb, im->sector, im->mkfs)) {
			free(dir);
			continue;
		}
		real = realpath(dir, NULL);
		img_mnt[i] = real ? real : dir;
		if (real)
			free(dir);
		if (diskstats_device_of(img_mnt[i], img_dev[i],
					sizeof(img_dev[i])) < 0)
			img_dev[i][0] = '\0';
	}
}

static void fs_teardown(void)
{
	for (size_t i = 0; i < NIMAGES; i++) {
		if (img_mnt[i] && umount2(img_mnt[i], 0) < 0 &&
		    umount2(img_mnt[i], MNT_DETACH) < 0)
			printf("roundtrip: cannot unmount %s: %s\n",
			       img_mnt[i], strerror(errno));
		free(img_mnt[i]);
		img_mnt[i] = NULL;
	}
	if (fs_root)
		tu_rmtree(fs_root);
	free(fs_root);
	fs_root = NULL;
}

/* True if @name is an executable file in a directory of $PATH (@name
 * itself if it has a slash). */
static bool in_path(const char *name)
{
	char *path = tu_which(name);
	bool found = path != NULL;

	free(path);
	return found;
}

/* ---- running a program under capture ----------------------------------- */

/* A child that waits for one byte on a pipe, then execs its program. */
struct child {
	pid_t pid;
	int go;			/* the pipe's write end */
	bool sent;		/* the byte was written */
	int status;		/* wait status, once reaped */
	volatile sig_atomic_t stop;	/* the capture's stop flag */
};

/* Who a program runs as, uid (uid_t)-1 being the test's own user, and
 * with which umask. */
struct runas {
	uid_t uid;
	gid_t gid;
	mode_t umask;
};

#define AS_ROOT ((struct runas){ (uid_t)-1, (gid_t)-1, 022 })

/*
 * Fork a child that blocks reading stdin (a pipe), and once it gets a byte
 * runs @argv in @cwd with @envp as @as, stdin and stdout on /dev/null,
 * stderr to @errfile.
 */
static void child_start(struct child *c, const char *const argv[],
			const char *cwd, char *const envp[],
			const char *errfile, struct runas as)
{
	int p[2];

	memset(c, 0, sizeof(*c));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	c->pid = fork();
	ck_assert_msg(c->pid >= 0, "fork: %s", strerror(errno));
	if (c->pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int err = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char byte;

		if (close(p[1]) < 0 || null < 0 || err < 0 || chdir(cwd) < 0 ||
		    dup2(p[0], 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		if (read(0, &byte, 1) != 1)
			_exit(125);
		if (dup2(null, 0) < 0)
			_exit(126);
		if (as.uid != (uid_t)-1 &&
		    (setgroups(0, NULL) < 0 || setgid(as.gid) < 0 ||
		     setuid(as.uid) < 0))
			_exit(126);
		umask(as.umask);
		closefrom(3);
		execvpe(argv[0], (char *const *)argv, envp);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	ck_assert_int_eq(close(p[0]), 0);
	c->go = p[1];
}

/* Wait until the child blocks in read(0, ...), at most 5 s. */
static void child_wait_blocked(const struct child *c)
{
	ck_assert_msg(tu_wait_reading_stdin(c->pid),
		      "child %d did not block on its pipe", (int)c->pid);
}

/* capture_run's ready callback: the probe is attached, let the child go. */
static void child_go(void *ctx)
{
	struct child *c = ctx;

	c->sent = write(c->go, "g", 1) == 1;
}

/* Reap the child, then stop the capture a little later. */
static void *child_watch(void *arg)
{
	struct child *c = arg;

	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	usleep(STOP_DELAY_US);
	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * Run @argv as described at child_start() under a capture into @log of the
 * child (-x) and I/O below @include but not below @exclude (or NULL); the
 * program must exit 0 and the probe must lose no event.  With the
 * SystemTap module @module, else with the BPF probe.  A capture that fails
 * before the probe is attached (another capture may hold it) is tried
 * again.  Returns the events the capture counted as lost.
 */
static uint64_t run_captured(const char *const argv[], const char *cwd,
			     char *const envp[], const char *log,
			     const char *include, const char *exclude,
			     const char *errfile, struct runas as,
			     const char *module)
{
	const char *inc[] = { include }, *exc[] = { exclude };
	struct child c;
	struct capture_summary sum;
	struct capture_options opt = {
		.output = log,
		.duration_ns = CAPTURE_CAP_NS,
		.filter = { .include = inc, .ninclude = 1, .exclude = exc,
			    .nexclude = exclude ? 1 : 0 },
		.ready = child_go,
	};
	char err[ERRLEN] = "";
	struct timespec deadline;
	pthread_t th;
	int rc = -EAGAIN;

	child_start(&c, argv, cwd, envp, errfile, as);
	child_wait_blocked(&c);
	opt.pid = (uint32_t)c.pid;
	opt.stop = &c.stop;
	opt.ready_ctx = &c;
	ck_assert_int_eq(pthread_create(&th, NULL, child_watch, &c), 0);
	for (int i = 0; i < CAPTURE_TRIES && rc && !c.sent; i++) {
		if (i)
			sleep(1);
		rc = module ? capture_stap_run(&opt, module, &sum, err, sizeof(err))
			    : capture_run(&opt, &sum, err, sizeof(err));
	}
	/* Without the byte the child reads EOF and exits 125. */
	close(c.go);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	if (pthread_timedjoin_np(th, NULL, &deadline) != 0) {
		kill(c.pid, SIGKILL);
		pthread_join(th, NULL);
	}
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);
	ck_assert_msg(c.sent, "the ready callback did not run");
	char *text = tu_read(errfile, NULL);
	ck_assert_msg(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0,
		      "%s failed (status 0x%x): %s", argv[0], c.status,
		      text ? text : "");
	free(text);
	/* SystemTap skips a probe now and then under emulation: counted. */
	if (!module)
		ck_assert_uint_eq(sum.lost, 0);
	return sum.lost;
}

/* ---- trees ------------------------------------------------------------- */

struct entry {
	char *rel;		/* below the tree's root */
	char type;		/* 'd', 'f', 'l', '?' */
	unsigned mode;		/* permission bits */
	long long size;
	struct timespec ctime;
	char *target;		/* symlinks: link_place() of the content */
	char *xattrs;		/* "NAME=SIZE " per attribute, sorted */
};

struct tree {
	struct entry *e;
	size_t n, cap;
};

/* Being built by tree_one(). */
static struct tree *tree_cur;
static size_t tree_skip;	/* length of "ROOT/" */
static const char *tree_root;	/* the root, for absolute link targets */

/* What symlink content @target says, to compare across trees: a relative
 * target as it is, an absolute one as "/" and its path below the root, or
 * "" if outside it (malloc'd). */
static char *link_place(const char *target)
{
	char *s;

	if (target[0] == '/') {
		size_t n = strlen(tree_root);
		if (strncmp(target, tree_root, n) || target[n] != '/')
			return strdup("");
		ck_assert(asprintf(&s, "/%s", target + n + 1) > 0);
		return s;
	}
	return strdup(target);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The extended attributes of @path, not following a symlink, as
 * "NAME=SIZE " each, sorted by name (malloc'd). */
static char *xattr_list(const char *path)
{
	char names[4096], *sorted[128], *text = NULL;
	ssize_t len = llistxattr(path, names, sizeof(names));
	size_t n = 0, tlen = 0;
	FILE *f = open_memstream(&text, &tlen);

	ck_assert_ptr_nonnull(f);
	ck_assert_msg(len >= 0, "%s: llistxattr: %s", path, strerror(errno));
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(names + i) + 1) {
		ck_assert_uint_lt(n, sizeof(sorted) / sizeof(sorted[0]));
		sorted[n++] = names + i;
	}
	/* cppcheck-suppress uninitvar ; the loop above set sorted[0..n) */
	qsort(sorted, n, sizeof(sorted[0]), cmp_str);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s=%zd ", sorted[i],
			lgetxattr(path, sorted[i], NULL, 0));
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

static int tree_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	struct tree *t = tree_cur;
	struct entry *e;
	char target[PATH_MAX];
	ssize_t len;

	(void)flag;
	if (ftw->level == 0)
		return 0;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->e = realloc(t->e, t->cap * sizeof(*t->e));
		ck_assert_ptr_nonnull(t->e);
	}
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	e->rel = strdup(path + tree_skip);
	ck_assert_ptr_nonnull(e->rel);
	e->type = S_ISDIR(st->st_mode) ? 'd' : S_ISREG(st->st_mode) ? 'f' :
		  S_ISLNK(st->st_mode) ? 'l' : '?';
	e->mode = st->st_mode & 07777;
	e->size = (long long)st->st_size;
	e->ctime = st->st_ctim;
	e->xattrs = xattr_list(path);
	if (e->type == 'l') {
		len = readlink(path, target, sizeof(target) - 1);
		ck_assert_int_ge(len, 0);
		target[len] = '\0';
		e->target = link_place(target);
		ck_assert_ptr_nonnull(e->target);
	}
	return 0;
}

/* Every entry below @root, which must exist. */
static void tree_read(const char *root, struct tree *t)
{
	memset(t, 0, sizeof(*t));
	tree_cur = t;
	tree_skip = strlen(root) + 1;
	tree_root = root;
	ck_assert_msg(nftw(root, tree_one, 16, FTW_PHYS) == 0, "%s: %s", root,
		      strerror(errno));
}

static const struct entry *tree_find(const struct tree *t, const char *rel)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].rel, rel))
			return &t->e[i];
	return NULL;
}

static void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].rel);
		free(t->e[i].target);
		free(t->e[i].xattrs);
	}
	free(t->e);
}

/* True if @a (in the sandbox) and @b agree in type, size, target and
 * extended attributes. */
static bool same_entry(const struct entry *a, const struct entry *b)
{
	if (a->type != b->type || strcmp(a->xattrs, b->xattrs))
		return false;
	if (a->type == 'f' && a->size != b->size)
		return false;
	return a->type != 'l' || !strcmp(a->target, b->target);
}

/*
 * Check 1 (the top of the file) for the tree @before and @after the
 * program and the sandbox copy @sb.  Returns the entries checked in
 * *@total and how many were right; prints each wrong one.
 */
static size_t tree_check(const char *name, const struct tree *before,
			 const struct tree *after, const struct tree *sb,
			 size_t *total)
{
	size_t ok = 0;

	*total = 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct entry *a = &after->e[i];
		const struct entry *b = tree_find(before, a->rel);
		const struct entry *s = tree_find(sb, a->rel);

		if (b && b->type == a->type && b->size == a->size &&
		    b->ctime.tv_sec == a->ctime.tv_sec &&
		    b->ctime.tv_nsec == a->ctime.tv_nsec)
			continue;	/* not changed by the program */
		(*total)++;
		if (s && same_entry(s, a) && (b || s->mode == a->mode))
			ok++;
		else
			printf("roundtrip: %s: %s is %c %lld %04o [%s] in "
			       "the capture, %c %lld %04o [%s] in the "
			       "replay\n", name, a->rel, a->type, a->size,
			       a->mode, a->xattrs, s ? s->type : '-',
			       s ? s->size : -1LL, s ? s->mode : 0,
			       s ? s->xattrs : "");
	}
	for (size_t i = 0; i < before->n; i++) {
		const char *rel = before->e[i].rel;

		if (tree_find(after, rel))
			continue;
		(*total)++;
		if (!tree_find(sb, rel))
			ok++;
		else
			printf("roundtrip: %s: %s was removed, but not by the "
			       "replay\n", name, rel);
	}
	for (size_t i = 0; i < sb->n; i++) {
		const struct entry *s = &sb->e[i];
		const struct entry *a = tree_find(after, s->rel);

		(*total)++;
		if (a && a->type == s->type)
			ok++;
		else
			printf("roundtrip: %s: the replay left %s (%c), the "
			       "capture %c\n", name, s->rel, s->type,
			       a ? a->type : '-');
	}
	return ok;
}

/* ---- the replay file and the statistics -------------------------------- */

/* Operations per syscall in replay file @path. */
static void replay_counts(const char *path, uint64_t ops[SYS_COUNT])
{
	char err[ERRLEN];
	struct rlog_reader *r = rlog_open(path, err, sizeof(err));
	struct rlog_entry e;
	int rc;

	ck_assert_msg(r, "%s", err);
	memset(ops, 0, SYS_COUNT * sizeof(ops[0]));
	while ((rc = rlog_next(r, &e, err, sizeof(err))) == 1) {
		const struct rlog_op *op = &e.op;

		if (e.type != RLOG_ENTRY_OP)
			continue;
		ops[op->sys]++;
	}
	ck_assert_msg(rc == 0, "%s", err);
	rlog_close(r);
}

/* "SYSCALL=N ..." for the non-zero counts of @n, in table order
 * (malloc'd). */
static char *sys_counts_text(const uint64_t n[SYS_COUNT])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *sep = "";

	ck_assert_ptr_nonnull(f);
	for (int s = 0; s < SYS_COUNT; s++) {
		if (!n[s])
			continue;
		fprintf(f, "%s%s=%llu", sep, sys_info(s)->replay_name,
			(unsigned long long)n[s]);
		sep = " ";
	}
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/*
 * Where the value of member @key of the member object @name of "syscalls"
 * in JSON text @json begins, or NULL if there is none.
 */
static const char *json_sys_at(const char *json, const char *name,
			       const char *key)
{
	const char *s = strstr(json, "\"syscalls\"");
	char pat[64];
	int depth = 0;

	snprintf(pat, sizeof(pat), "\"%s\"", name);
	if (!s || !(s = strstr(s, pat)))
		return NULL;
	s += strlen(pat);
	s += strspn(s, " \t\n:");
	if (*s != '{')
		return NULL;
	snprintf(pat, sizeof(pat), "\"%s\"", key);
	for (; *s; s++) {
		if (*s == '{' || *s == '[') {
			depth++;
		} else if (*s == '}' || *s == ']') {
			if (--depth == 0)
				return NULL;
		} else if (depth == 1 && !strncmp(s, pat, strlen(pat))) {
			s += strlen(pat);
			return s + strspn(s, " \t\n:");
		}
	}
	return NULL;
}

/* The number after member @key of syscall @name's object (json_sys_at()),
 * or -1. */
static long long json_sys(const char *json, const char *name, const char *key)
{
	const char *s = json_sys_at(json, name, key);

	return s ? strtoll(s, NULL, 10) : -1;
}

/* How many of syscall @name's results differed as @class ("value",
 * "ENOENT", ...: its "differ_by_result"), 0 if none. */
static long long json_differ_by(const char *json, const char *name,
				const char *class)
{
	const char *s = json_sys_at(json, name, "differ_by_result");
	const char *end = s && *s == '{' ? strchr(s, '}') : NULL;
	char pat[80];

	snprintf(pat, sizeof(pat), "\"%s\"", class);
	if (!end || !(s = strstr(s, pat)) || s > end)
		return 0;
	s += strlen(pat);
	s += strspn(s, " \t\n:");
	return strtoll(s, NULL, 10);
}

/* The number after the first member @key of @json, or -1. */
static long long json_top(const char *json, const char *key)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	if (!(s = strstr(json, pat)))
		return -1;
	s += strlen(pat);
	s += strspn(s, " \t\n:");
	return strtoll(s, NULL, 10);
}

/* How many results of syscall @sys differed in a way @known ("SYSCALL:CLASS
 * ...", or NULL) names. */
static long long known_differ(const char *json, const char *sys,
			      const char *known)
{
	char item[64];
	long long n = 0;
	size_t len = strlen(sys);

	for (const char *k = known; k && *k; k += strcspn(k, " "),
	     k += strspn(k, " ")) {
		size_t ilen = strcspn(k, " ");

		if (ilen >= sizeof(item) || ilen <= len + 1 ||
		    strncmp(k, sys, len) || k[len] != ':')
			continue;
		memcpy(item, k + len + 1, ilen - len - 1);
		item[ilen - len - 1] = '\0';
		n += json_differ_by(json, sys, item);
	}
	return n;
}

/*
 * Check 2 for program @name: returns the operations whose result class
 * matched, and "SYSCALL=N ..." of those that differed in *@differ
 * (malloc'd), less those @known ("SYSCALL:CLASS ...", or NULL) names,
 * which are printed.
 */
static uint64_t results_check(const char *name, const char *json,
			      const uint64_t ops[SYS_COUNT], const char *known,
			      char **differ)
{
	uint64_t total = 0, bad = 0, d_all[SYS_COUNT] = { 0 };

	for (int s = 0; s < SYS_COUNT; s++) {
		const char *sys = sys_info(s)->replay_name;
		long long n, d, k;

		if (!ops[s])
			continue;
		total += ops[s];
		n = json_sys(json, sys, "ops");
		d = json_sys(json, sys, "differ");
		ck_assert_msg(n == (long long)ops[s] && d >= 0,
			      "%s: %s: %llu in the replay file, %lld replayed",
			      name, sys, (unsigned long long)ops[s], n);
		k = known_differ(json, sys, known);
		if (k)
			printf("roundtrip: %s: %s: %lld results differ as "
			       "known (%s)\n", name, sys, k, known);
		d_all[s] = (uint64_t)(d - k);
		bad += (uint64_t)d;
	}
	*differ = sys_counts_text(d_all);
	ck_assert_msg(json_top(json, "performed_ioops") == (long long)total,
		      "%s: %llu operations in the replay file, %lld replayed",
		      name, (unsigned long long)total,
		      json_top(json, "performed_ioops"));
	return total - bad;
}

/* ---- counting a capture log -------------------------------------------- */

/* The syscall under which exec.c's form of a call shows in a capture (the
 * *at form, as the C library makes it; bind's socket inode as mknodat);
 * syscalls not listed keep theirs. */
static const struct {
	enum sys_id from, to;
} as_replayed[] = {
	{ SYS_OPEN, SYS_OPENAT }, { SYS_CREAT, SYS_OPENAT },
	{ SYS_STAT, SYS_NEWFSTATAT }, { SYS_LSTAT, SYS_NEWFSTATAT },
	{ SYS_FSTAT, SYS_NEWFSTATAT }, { SYS_FSTATAT, SYS_NEWFSTATAT },
	{ SYS_STATFS64, SYS_STATFS }, { SYS_FSTATFS64, SYS_FSTATFS },
	{ SYS_ACCESS, SYS_FACCESSAT },
	{ SYS_GETDENTS, SYS_GETDENTS64 }, { SYS_READDIR, SYS_GETDENTS64 },
	{ SYS_MKDIR, SYS_MKDIRAT }, { SYS_RMDIR, SYS_UNLINKAT },
	{ SYS_MKNOD, SYS_MKNODAT }, { SYS_BIND, SYS_MKNODAT },
	{ SYS_UNLINK, SYS_UNLINKAT }, { SYS_RENAME, SYS_RENAMEAT },
	{ SYS_LINK, SYS_LINKAT }, { SYS_SYMLINK, SYS_SYMLINKAT },
	{ SYS_READLINK, SYS_READLINKAT }, { SYS_CHMOD, SYS_FCHMODAT },
	{ SYS_CHOWN, SYS_FCHOWNAT }, { SYS_CHOWN16, SYS_FCHOWNAT },
	{ SYS_LCHOWN, SYS_FCHOWNAT }, { SYS_LCHOWN16, SYS_FCHOWNAT },
	{ SYS_FCHOWN16, SYS_FCHOWN }, { SYS_LLSEEK, SYS_LSEEK },
	{ SYS_MMAP2, SYS_MMAP }, { SYS_IO_PGETEVENTS, SYS_IO_GETEVENTS },
};

static enum sys_id replayed_as(enum sys_id sys)
{
	for (size_t i = 0; i < sizeof(as_replayed) / sizeof(as_replayed[0]);
	     i++)
		if (as_replayed[i].from == sys)
			return as_replayed[i].to;
	return sys;
}

/* Counts of one kind of call in both logs. */
struct tally {
	char key[48];
	uint64_t n[2], bytes[2];
};

struct tallies {
	struct tally t[96];
	size_t n;
};

static void tally_add(struct tallies *ts, int side, const char *key,
		      uint64_t bytes)
{
	size_t i;

	for (i = 0; i < ts->n && strcmp(ts->t[i].key, key); i++)
		;
	if (i == ts->n) {
		ck_assert_uint_lt(ts->n, sizeof(ts->t) / sizeof(ts->t[0]));
		memset(&ts->t[i], 0, sizeof(ts->t[i]));
		snprintf(ts->t[i].key, sizeof(ts->t[i].key), "%s", key);
		ts->n++;
	}
	ts->t[i].n[side]++;
	ts->t[i].bytes[side] += bytes;
}

/* Whether an event of @sys is left out of the counts: records and calls
 * that only change the fd table, working directory or mappings, which
 * the generator models but does not replay, and tee, which moves data
 * between pipes only (not replayed). */
static bool model_only(const struct cap_event *e)
{
	switch (sys_info(e->sys)->kind) {
	case SK_DUP: case SK_CHDIR: case SK_FCHDIR: case SK_CLOSE_RANGE:
	case SK_EXIT_GROUP: case SK_FORK: case SK_EXEC: case SK_EXIT:
	case SK_CWD: case SK_LOST:
		return true;
	case SK_FCNTL:
		return !(e->have & CAP_CMD) || e->cmd == F_DUPFD ||
		       e->cmd == F_DUPFD_CLOEXEC || e->cmd == F_GETFD ||
		       e->cmd == F_SETFD;
	default:
		return e->sys == SYS_MREMAP || e->sys == SYS_TEE;
	}
}

/* A ring's fd in a process. */
struct ring_fd {
	uint32_t pid;
	int64_t fd;
};

static bool is_ring(const struct ring_fd *rings, size_t n, uint32_t pid,
		    int64_t fd)
{
	for (size_t i = 0; i < n; i++)
		if (rings[i].pid == pid && rings[i].fd == fd)
			return true;
	return false;
}

/* The events of capture log @path, paths dropped. */
static struct cap_event *read_events(const char *path, size_t *n)
{
	char err[ERRLEN];
	struct caplog_reader *rd = caplog_open(path, err, sizeof(err));
	struct cap_event ev, *evs = NULL;
	size_t cap = 0;
	int rc;

	ck_assert_msg(rd, "%s", err);
	*n = 0;
	while ((rc = caplog_next(rd, &ev)) == 1) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			evs = tu_realloc(evs, cap * sizeof(*evs));
		}
		ev.path = ev.path2 = NULL;
		evs[(*n)++] = ev;
	}
	ck_assert_int_eq(rc, 0);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(rd, why) == 0, "%s: %s", path,
			      caplog_bad_name(why));
	caplog_close(rd);
	return evs;
}

/* Print the syscalls of the program the capture at @path did not record
 * (its uncaptured record), as the issue's closing tables list them. */
static void print_uncaptured(const char *label, const char *path)
{
	char err[ERRLEN];
	struct caplog_reader *rd = caplog_open(path, err, sizeof(err));
	const struct uncaptured *u;
	struct cap_event ev;

	ck_assert_msg(rd, "%s", err);
	while (caplog_next(rd, &ev) == 1)
		;
	u = caplog_uncaptured(rd);
	printf("roundtrip: %-18s not captured:", label);
	for (size_t i = 0; u && i < u->n; i++)
		printf(" %s=%llu", u->v[i].name,
		       (unsigned long long)u->v[i].count);
	printf("%s\n", !u ? " (no record)" : u->n ? "" : " none");
	caplog_close(rd);
}

/* Whether @e is the replay's own statx for the direct I/O alignment of a
 * device (src/replay/dioalign.h): its flags are no replayed statx's. */
static bool dioalign_probe(const struct cap_event *e)
{
	return e->sys == SYS_STATX && (e->have & CAP_FLAGS) &&
	       e->flags == DIOALIGN_STATX_FLAGS;
}

/*
 * Count capture log @path into side @side of @ts (0: the program's capture,
 * 1: the replay's).  On side 1 only the replay's timelines count: not its
 * main thread (it reads the replay file) nor the first thread it starts
 * (the replay's own, which sets up the jail); nor the statx the replay
 * adds once per device at the first O_DIRECT open (dioalign_probe()).
 * Else the same rules apply to both logs:
 *  - model_only() events do not count;
 *  - a call counts under replayed_as() its syscall when it succeeded, and
 *    as "failed ERRNO" otherwise;
 *  - mmap counts with an fd; munmap, msync and madvise only at an address
 *    a file mmap of that process returned; a page record (mmap_read,
 *    mmap_write) only in such a mapping, as one page, into @pages;
 *  - reads and writes add the bytes they moved.
 * Successful closes on side 0 count as the successful opens: a program
 * closes a description once for every fd or child that shares it, or not
 * at all when it exits, and the generator writes one close for each
 * description, when its last reference goes.  Likewise successful
 * munmaps of a file mapping (not a ring's) on side 0 count as its mmap:
 * an exit or exec unmaps what the program left mapped, and the generator
 * writes that munmap.
 */
static void count_log(const char *path, int side, struct tallies *ts,
		      struct tallies *pages)
{
	size_t n;
	struct cap_event *ev = read_events(path, &n);
	bool *skip = calloc(n ? n : 1, sizeof(*skip));
	struct { uint32_t pid; uint64_t addr, len; bool ring; } maps[256];
	struct ring_fd rings[64];
	size_t nmaps = 0, nrings = 0;
	uint32_t setup_tid = 0;

	ck_assert_ptr_nonnull(skip);
	for (size_t i = 0; i < n; i++) {
		const struct cap_event *e = &ev[i];

		if (side == 1 && !setup_tid && e->tid != e->pid &&
		    sys_info(e->sys)->kind < SK_EXIT_GROUP)
			setup_tid = e->tid;
		skip[i] = model_only(e) || (side == 1 && (e->tid == e->pid ||
							  e->tid == setup_tid ||
							  dioalign_probe(e)));
	}
	for (size_t i = 0; i < n; i++) {
		const struct cap_event *e = &ev[i];
		enum sys_kind kind = sys_info(e->sys)->kind;
		bool ok = (e->have & CAP_RET) && (e->ret >= 0 || e->ret < -4095);
		char key[48];
		size_t m;

		if (skip[i] || (side == 0 && kind == SK_CLOSE && ok))
			continue;
		if (kind == SK_MMAP) {
			if (!(e->have & CAP_FD) || e->fd < 0)
				continue;
			if (ok) {
				ck_assert_uint_lt(nmaps, 256);
				maps[nmaps].pid = e->pid;
				maps[nmaps].len = (uint64_t)e->count;
				maps[nmaps].ring = is_ring(rings, nrings,
							   e->pid, e->fd);
				maps[nmaps++].addr = (uint64_t)e->ret;
			}
			if (ok && side == 0 && !maps[nmaps - 1].ring)
				tally_add(ts, 0, sys_info(SYS_MUNMAP)->name, 0);
		} else if (kind == SK_ADDR) {
			for (m = 0; m < nmaps; m++)
				if (maps[m].pid == e->pid &&
				    maps[m].addr == e->addr)
					break;
			if (m == nmaps)
				continue;
			bool counted = side == 0 && !maps[m].ring;
			if (e->sys == SYS_MUNMAP && ok) {
				maps[m] = maps[--nmaps];
				if (counted)
					continue;
			}
		} else if (kind == SK_MAPPAGE) {
			for (m = 0; m < nmaps; m++)
				if (maps[m].pid == e->pid &&
				    e->addr - maps[m].addr < maps[m].len)
					break;
			if (m < nmaps)
				tally_add(pages, side, sys_info(e->sys)->name,
					  RLOG_PAGE_SIZE);
			continue;
		}
		/* AIO and io_uring: the requests by opcode with their
		 * lengths, and the completions with their bytes.  Neither
		 * io_getevents nor io_uring_enter calls are counted: when
		 * completions come in another order than captured, the
		 * replay waits more often (aio.c, uring.c).  A ring's own
		 * memory is the replay's ring's, mapped as its library
		 * maps it. */
		if (kind == SK_AIO_GETEVENTS || kind == SK_URING_ENTER)
			continue;
		if (kind == SK_URING_SETUP && ok) {
			ck_assert_uint_lt(nrings, 64);
			rings[nrings].pid = e->pid;
			rings[nrings++].fd = e->ret;
		}
		if (kind == SK_MMAP && is_ring(rings, nrings, e->pid, e->fd))
			continue;
		/* Kinds not replayed (not file I/O): the generator counts
		 * them by name instead (uring_skipped). */
		if ((kind == SK_URING_SQE || kind == SK_URING_CQE) &&
		    (e->have & CAP_CMD) &&
		    uring_completion_of(e->cmd) == SYS_COUNT)
			continue;
		if (kind == SK_URING_SQE || kind == SK_URING_CQE) {
			snprintf(key, sizeof(key), "%s opcode %lld%s",
				 sys_info(e->sys)->name,
				 e->have & CAP_CMD ? (long long)e->cmd : -1LL,
				 kind == SK_URING_CQE && e->ret < 0 ?
				 " failed" : "");
			tally_add(ts, side, key, kind == SK_URING_SQE ?
				  (e->have & CAP_COUNT ? (uint64_t)e->count : 0) :
				  (e->ret > 0 ? (uint64_t)e->ret : 0));
			continue;
		}
		if (kind == SK_URING_FILE || kind == SK_URING_BUF) {
			tally_add(ts, side, sys_info(e->sys)->name,
				  kind == SK_URING_BUF ? (uint64_t)e->count : 0);
			continue;
		}
		if (kind == SK_IOCB) {
			snprintf(key, sizeof(key), "iocb opcode %lld",
				 (long long)e->cmd);
			tally_add(ts, side, key, e->have & CAP_COUNT ?
				  (uint64_t)e->count : 0);
			continue;
		}
		if (kind == SK_IO_EVENT) {
			tally_add(ts, side, e->ret < 0 ? "io_event failed" :
				  "io_event", e->ret > 0 ? (uint64_t)e->ret : 0);
			continue;
		}
		if (!(e->have & CAP_RET))
			snprintf(key, sizeof(key), "no result");
		else if (!ok)
			snprintf(key, sizeof(key), "failed %s",
				 strerrorname_np((int)-e->ret) ?
				 strerrorname_np((int)-e->ret) : "errno?");
		else
			snprintf(key, sizeof(key), "%s",
				 sys_info(replayed_as(e->sys))->name);
		tally_add(ts, side, key, ok && (kind == SK_READ ||
						kind == SK_WRITE ||
						kind == SK_SENDFILE ||
						kind == SK_COPY_RANGE ||
						kind == SK_SPLICE) ?
			  (uint64_t)e->ret : 0);
		if (side == 0 && kind == SK_OPEN && ok)
			tally_add(ts, 0, sys_info(SYS_CLOSE)->name, 0);
	}
	free(skip);
	free(ev);
}

/* ---- device I/O -------------------------------------------------------- */

/*
 * Check 4 compares what reached the image's loop device.  Below this many
 * sectors (read, or written) the figures are printed, not checked: a
 * small workload's device I/O is mostly what the file system adds on its
 * own (journal commits and their timing, inode table and allocation
 * blocks, xfs log records), which the replay, faster and without the
 * program's own files already cached, cannot and need not repeat
 * sector for sector.
 */
#define DEV_MIN_SECTORS 2048
#define DEV_TOLERANCE 0.10

/* Sectors (512 bytes) read and written on a device, and the page cache's
 * losses (cache_losses()): so far at the start, while it ran at the end. */
struct dev_io {
	uint64_t rd, wr, drops, reclaimed;
};

/* Counter @name of /proc/vmstat's @text, 0 if it has none. */
static uint64_t vmstat_of(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtoull(p + len + 1, NULL, 10);
	}
	return 0;
}

/*
 * What the page cache lost that no program here asked for, since boot:
 * how often anyone dropped it (drop_caches 1 or 3) into @io->drops, the
 * pages the kernel reclaimed under memory pressure into @io->reclaimed
 * (0 where the kernel does not count them).  Either while a program or
 * its replay runs makes reads that the cache would have answered reach
 * the device; `ioriot -r` without -D also syncs first, which writes what
 * would have been merged with later writes.
 */
static void cache_losses(struct dev_io *io)
{
	char *text = tu_read("/proc/vmstat", NULL);

	io->drops = vmstat_of(text, "drop_pagecache");
	io->reclaimed = vmstat_of(text, "pgsteal_kswapd") +
			vmstat_of(text, "pgsteal_direct");
	free(text);
}

/* The counters of device @name so far. */
static struct dev_io dev_counters(const char *name)
{
	int fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC);
	struct diskstats ds;
	struct dev_io io = { 0, 0, 0, 0 };
	bool found = false;

	ck_assert_msg(fd >= 0, "/proc/diskstats: %s", strerror(errno));
	ck_assert_int_eq(diskstats_read(&ds, fd), 0);
	close(fd);
	for (size_t i = 0; i < ds.n; i++) {
		if (strcmp(ds.dev[i].name, name))
			continue;
		io.rd = ds.dev[i].rd_sectors;
		io.wr = ds.dev[i].wr_sectors;
		found = true;
	}
	diskstats_free(&ds);
	ck_assert_msg(found, "%s is not in /proc/diskstats", name);
	return io;
}

/* Everything of the file system at @mnt on its device: syncfs(2), then a
 * freeze and thaw, which also writes back the metadata xfs keeps in its
 * log only after a sync. */
static void fs_settle(const char *mnt)
{
	int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", mnt, strerror(errno));
	ck_assert_msg(syncfs(fd) == 0, "syncfs %s: %s", mnt, strerror(errno));
	ck_assert_msg(ioctl(fd, FIFREEZE, 0) == 0, "freeze %s: %s", mnt,
		      strerror(errno));
	ck_assert_msg(ioctl(fd, FITHAW, 0) == 0, "thaw %s: %s", mnt,
		      strerror(errno));
	close(fd);
}

/* Start counting device I/O of image @img: its file system settled, the
 * page cache and the dentry and inode caches dropped (as ioriot -d), the
 * drops counted from after ours. */
static struct dev_io dev_start(size_t img)
{
	struct dev_io io;
	int fd;

	fs_settle(img_mnt[img]);
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0 && write(fd, "3", 1) == 1,
		      "drop_caches: %s", strerror(errno));
	close(fd);
	io = dev_counters(img_dev[img]);
	cache_losses(&io);
	return io;
}

/* The device I/O of image @img since @start, its file system settled,
 * and the page cache's losses meanwhile. */
static struct dev_io dev_stop(size_t img, struct dev_io start)
{
	struct dev_io now;

	fs_settle(img_mnt[img]);
	now = dev_counters(img_dev[img]);
	cache_losses(&now);
	return (struct dev_io){ now.rd - start.rd, now.wr - start.wr,
				now.drops - start.drops,
				now.reclaimed - start.reclaimed };
}

/* "RATIO" of @rep to @orig, or "-" (in a static buffer of @slot). */
static const char *ratio_text(uint64_t orig, uint64_t rep, int slot)
{
	static char buf[2][16];

	if (!orig)
		return "-";
	snprintf(buf[slot], sizeof(buf[slot]), "%.2f",
		 (double)rep / (double)orig);
	return buf[slot];
}

/* Whether @rep is within DEV_TOLERANCE of @orig, or they are too few
 * sectors to tell (*@checked false): below DEV_MIN_SECTORS on both sides,
 * or with @both, on either side. */
static bool dev_close(uint64_t orig, uint64_t rep, bool both, bool *checked)
{
	uint64_t big = orig > rep ? orig : rep, small = orig > rep ? rep : orig;
	uint64_t diff = big - small;

	*checked = (both ? small : big) >= DEV_MIN_SECTORS;
	return !*checked || (double)diff <= DEV_TOLERANCE * (double)orig;
}

/*
 * Check 4 for @label: print the device I/O of the program @orig and of the
 * replay @rep, and return whether each of reads and writes is within
 * DEV_TOLERANCE where it is DEV_MIN_SECTORS or more; true, and skipped
 * with a line that says why, if another process dropped the page cache
 * while either ran.
 */
static bool dev_check(const char *label, struct dev_io orig,
		      struct dev_io rep)
{
	if (orig.drops || rep.drops || orig.reclaimed || rep.reclaimed) {
		printf("roundtrip: %-18s device sectors read %llu / %llu, "
		       "written %llu / %llu\n", label,
		       (unsigned long long)orig.rd, (unsigned long long)rep.rd,
		       (unsigned long long)orig.wr, (unsigned long long)rep.wr);
		printf("roundtrip: %s device I/O check skipped: the page "
		       "cache was dropped %llu times by another process and "
		       "%llu pages reclaimed while the program ran, %llu and "
		       "%llu while its replay did\n", label,
		       (unsigned long long)orig.drops,
		       (unsigned long long)orig.reclaimed,
		       (unsigned long long)rep.drops,
		       (unsigned long long)rep.reclaimed);
		return true;
	}

	bool rd_checked, wr_checked;
	/* Reads that reach the device depend on what the page cache kept,
	 * on either side: compared only where both read that much (check 3
	 * has compared the reads the replay made, call by call). */
	bool rd_ok = dev_close(orig.rd, rep.rd, true, &rd_checked);
	bool wr_ok = dev_close(orig.wr, rep.wr, false, &wr_checked);

	printf("roundtrip: %-18s device sectors read %llu / %llu (%s)%s, "
	       "written %llu / %llu (%s)%s\n", label,
	       (unsigned long long)orig.rd, (unsigned long long)rep.rd,
	       ratio_text(orig.rd, rep.rd, 0),
	       rd_checked ? (rd_ok ? "" : " DIFFERS") : " (too few to check)",
	       (unsigned long long)orig.wr, (unsigned long long)rep.wr,
	       ratio_text(orig.wr, rep.wr, 1),
	       wr_checked ? (wr_ok ? "" : " DIFFERS") : " (too few to check)");
	return rd_ok && wr_ok;
}

/* The count of tally @key on @side, 0 if none. */
static uint64_t tally_of(const struct tallies *ts, int side, const char *key)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->t[i].key, key))
			return ts->t[i].n[side];
	return 0;
}

/* ---- the test ---------------------------------------------------------- */

/* "@" + name in @arg is a workload binary (malloc'd), else a copy. */
static char *program_arg(const char *arg)
{
	const char *dir = getenv("IORIOT_WORKLOADS");

	if (arg[0] != '@')
		return strdup(arg);
	ck_assert_msg(dir && *dir, "IORIOT_WORKLOADS is not set (make check "
		      "sets it to the directory of the built workloads)");
	return tu_join(dir, arg + 1);
}

/* The round trips: each program on each file system it names. */
static struct run {
	unsigned char prog, img;
} runs[NPROGRAMS * NIMAGES];

/*
 * The SystemTap module that IORIOT_STAP_MODULE names (make check-vm builds
 * one for its guest's kernel), or NULL: the programs are captured with it,
 * their replays with the BPF probe.
 */
static const char *stap_module(void)
{
	const char *m = getenv("IORIOT_STAP_MODULE");

	return m && *m ? m : NULL;
}

/* Whether program @name is to run: IORIOT_ROUNDTRIP_ONLY, if set, lists
 * the names of those that do, separated by commas. */
static bool selected(const char *name)
{
	const char *only = getenv("IORIOT_ROUNDTRIP_ONLY"), *p;
	size_t n = strlen(name);

	if (!only || !*only)
		return true;
	for (p = only; (p = strstr(p, name)); p += n)
		if ((p == only || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* The user @p runs as: AS_ROOT, or its named user's ids. */
static struct runas program_user(const struct program *p)
{
	struct passwd *pw;

	if (!p->user)
		return AS_ROOT;
	pw = getpwnam(p->user);
	ck_assert_msg(pw, "no user %s", p->user);
	return (struct runas){ pw->pw_uid, pw->pw_gid, 022 };
}

START_TEST(test_program)
{
	const struct program *p = &programs[runs[_i].prog];
	size_t img = runs[_i].img;
	const char *mnt = img_mnt[img];
	char *dir, *w, *home, *sbdir, *sandbox, *log1, *log2, *replay, *json;
	char *errfile, *env_home, *differ = NULL, *argv[8] = { NULL }, *text = NULL;
	char *exclude = NULL;
	char *out = NULL, *err = NULL, ierr[ERRLEN], label[48];
	char *envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", NULL,
			 "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "TZ=UTC", NULL };
	struct tree before, after, sb = { 0 };
	struct tallies ts = { .n = 0 }, pages = { .n = 0 };
	struct init_summary isum;
	struct dev_io io_start, io_orig, io_rep;
	struct runas as;
	uint64_t ops[SYS_COUNT], total_ops = 0, same_ops;
	size_t tree_ok, tree_total, sys_ok = 0;
	bool dev_ok;

	snprintf(label, sizeof(label), "%s/%s", p->name, images[img].name);
	if (!selected(p->name)) {
		printf("roundtrip: %s skipped: not in IORIOT_ROUNDTRIP_ONLY\n",
		       label);
		return;
	}
	if (!mnt || !img_dev[img][0]) {
		printf("roundtrip: %s skipped: no %s image mounted\n", label,
		       images[img].name);
		return;
	}
	if (p->need && !in_path(p->need)) {
		printf("roundtrip: %s skipped: no %s in PATH\n", label,
		       p->need);
		return;
	}
	as = program_user(p);
	dir = tu_join(mnt, p->name);
	w = tu_join(dir, "w");
	home = tu_join(dir, "home");
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(w, 0755), 0);
	ck_assert_int_eq(mkdir(home, 0755), 0);
	if (p->prepare)
		p->prepare(dir);
	if (as.uid != (uid_t)-1)
		ck_assert(!chown(dir, as.uid, as.gid) &&
			  !chown(w, as.uid, as.gid) &&
			  !chown(home, as.uid, as.gid));
	ck_assert(asprintf(&sandbox, "%s/.ioriot/%s", mnt, p->name) > 0);
	ck_assert(asprintf(&sbdir, "%s/%s", sandbox, p->name) > 0);
	ck_assert(asprintf(&log1, "%s/%s-%s.capture", fs_root, p->name,
			   images[img].name) > 0);
	ck_assert(asprintf(&log2, "%s/%s-%s.replay.capture", fs_root,
			   p->name, images[img].name) > 0);
	ck_assert(asprintf(&replay, "%s/%s-%s.replay", fs_root, p->name,
			   images[img].name) > 0);
	ck_assert(asprintf(&json, "%s/%s-%s.json", fs_root, p->name,
			   images[img].name) > 0);
	ck_assert(asprintf(&errfile, "%s/%s-%s.stderr", fs_root, p->name,
			   images[img].name) > 0);
	ck_assert(asprintf(&env_home, "HOME=%s", home) > 0);
	envp[1] = env_home;
	if (p->exclude)
		exclude = tu_join(dir, p->exclude);
	for (size_t i = 0; p->argv[i]; i++)
		ck_assert_ptr_nonnull(argv[i] = program_arg(p->argv[i]));

	/* The program, captured. */
	tree_read(dir, &before);
	io_start = dev_start(img);
	uint64_t lost = run_captured((const char *const *)argv, w, envp, log1,
				     dir, exclude, errfile, as, stap_module());
	io_orig = dev_stop(img, io_start);
	tree_read(dir, &after);

	/* Generate, init, and the replay, captured. */
	const char *gen[] = { "ioriot", "-q", "-c", log1, "-r", replay, "-n",
			      p->name, "-u", "root", NULL };
	ck_assert_msg(tu_run((char *const *)gen, &out, &err) == 0,
		      "generate: %s%s", out, err);
	free(out);
	free(err);
	struct init_options io = { .replay_path = replay };
	ck_assert_msg(init_run(&io, &isum, ierr, sizeof(ierr)) == 0, "init: %s",
		      ierr);
	/* As root, as captured: the programs' chowns and modes replay. */
	const char *rep[] = { tu_bin(), "-r", replay, "-D", "-u", "root",
			      "--allow-root", "-q", "-S", json, NULL };
	io_start = dev_start(img);
	(void)run_captured(rep, fs_root, envp, log2, sandbox, NULL, errfile,
			   AS_ROOT, NULL);
	io_rep = dev_stop(img, io_start);

	/* 1: the tree. */
	tree_read(sbdir, &sb);
	tree_ok = tree_check(p->name, &before, &after, &sb, &tree_total);

	/* 2: results. */
	replay_counts(replay, ops);
	text = tu_read(json, NULL);
	ck_assert_ptr_nonnull(text);
	same_ops = results_check(label, text, ops, p->may_differ, &differ);
	for (int s = 0; s < SYS_COUNT; s++)
		total_ops += ops[s];

	/* 3: the capture of the replay. */
	count_log(log1, 0, &ts, &pages);
	count_log(log2, 1, &ts, &pages);
	for (size_t i = 0; i < ts.n; i++) {
		const struct tally *t = &ts.t[i];

		if (getenv("IORIOT_ROUNDTRIP_COUNTS"))
			printf("roundtrip: %s: %-28s %6llu %9llu B captured, "
			       "%6llu %9llu B replayed\n", label, t->key,
			       (unsigned long long)t->n[0],
			       (unsigned long long)t->bytes[0],
			       (unsigned long long)t->n[1],
			       (unsigned long long)t->bytes[1]);
		if (t->n[0] == t->n[1] && t->bytes[0] == t->bytes[1]) {
			sys_ok++;
			continue;
		}
		printf("roundtrip: %s: %s: %llu calls (%llu bytes) captured, "
		       "%llu (%llu bytes) replayed\n", label, t->key,
		       (unsigned long long)t->n[0],
		       (unsigned long long)t->bytes[0],
		       (unsigned long long)t->n[1],
		       (unsigned long long)t->bytes[1]);
	}

	printf("roundtrip: %-18s results %llu/%llu ops as captured; "
	       "capture of the replay %zu/%zu syscall counts and bytes "
	       "equal; tree %zu/%zu entries equal\n", label,
	       (unsigned long long)same_ops, (unsigned long long)total_ops,
	       sys_ok, ts.n, tree_ok, tree_total);
	dev_ok = dev_check(label, io_orig, io_rep);
	print_uncaptured(label, log1);
	/* Pages faulted, for I/O through mappings. */
	if (pages.n)
		printf("roundtrip: %-10s pages faulted %llu read, %llu written "
		       "captured; %llu, %llu replayed\n", label,
		       (unsigned long long)tally_of(&pages, 0, "mmap_read"),
		       (unsigned long long)tally_of(&pages, 0, "mmap_write"),
		       (unsigned long long)tally_of(&pages, 1, "mmap_read"),
		       (unsigned long long)tally_of(&pages, 1, "mmap_write"));
	if (*differ)
		printf("roundtrip: %s: statistics\n%s", label, text);
	/* A log that lacks events (SystemTap skipped probes, for this
	 * program or another) need not round-trip: then not judged, said so. */
	if (lost)
		printf("roundtrip: %-18s %llu events lost (SystemTap skipped "
		       "probes)\n", label, (unsigned long long)lost);
	if (lost && (*differ || tree_ok != tree_total || sys_ok != ts.n ||
		     !dev_ok)) {
		printf("roundtrip: %-18s not judged: SystemTap skipped probes, "
		       "%llu events lost\n", label, (unsigned long long)lost);
		goto out;
	}
	fflush(stdout);
	ck_assert_msg(!*differ, "%s: results differ: '%s'", label, differ);
	ck_assert_msg(tree_ok == tree_total, "%s: the trees differ", label);
	ck_assert_msg(sys_ok == ts.n, "%s: the captures differ", label);
	ck_assert_msg(dev_ok, "%s: the device I/O differs by more than %.0f%%",
		      label, DEV_TOLERANCE * 100);
	/*
	 * The pages the replay touched are the captured ones (its results,
	 * check 2).  Whether a touch faults depends on the page cache: a
	 * read fault maps the cached neighbours (the fault-around window, on
	 * recent kernels all of a large folio), and a fault that lost a race
	 * is taken again.  So the replay may fault fewer times for reads,
	 * and within 2 (or a tenth) as often for writes, which fault once
	 * per page until written back; never more often than that.
	 */
	for (size_t i = 0; i < pages.n; i++) {
		uint64_t a = pages.t[i].n[0], b = pages.t[i].n[1];
		uint64_t tol = a / 10 > 2 ? a / 10 : 2;
		bool reads = !strcmp(pages.t[i].key, "mmap_read");

		ck_assert_msg(b <= a + tol && (reads ? b > 0 || a == 0 :
					       b + tol >= a),
			      "%s: %s: %llu pages faulted captured, %llu "
			      "replayed", label, pages.t[i].key,
			      (unsigned long long)a, (unsigned long long)b);
	}

out:
	free(text);
	free(differ);
	tree_free(&before);
	tree_free(&after);
	tree_free(&sb);
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(exclude);
	free(env_home);
	free(errfile);
	free(json);
	free(replay);
	free(log2);
	free(log1);
	free(sbdir);
	free(sandbox);
	free(home);
	free(w);
	free(dir);
}
END_TEST

Suite *roundtrip_suite(void)
{
	Suite *s = suite_create("roundtrip");
	TCase *tc = tcase_create("programs");
	int n = 0;

	for (size_t i = 0; i < NPROGRAMS; i++) {
		unsigned fs = programs[i].fs ? programs[i].fs : FS_EXT4;

		for (size_t j = 0; j < NIMAGES; j++) {
			if (!(fs & images[j].fs))
				continue;
			runs[n].prog = (unsigned char)i;
			runs[n++].img = (unsigned char)j;
		}
	}
	tcase_add_unchecked_fixture(tc, fs_setup, fs_teardown);
	tcase_set_timeout(tc, 120);	/* postgres: about 30 s */
	tcase_add_loop_test(tc, test_program, 0, n);
	suite_add_tcase(s, tc);
	return s;
}
