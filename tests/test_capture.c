/*
 * Tests of the eBPF capture (capture_run): each workload in tests/workloads/
 * performs a known sequence of syscalls while it is captured (with -x, with
 * --comm, or the whole host); the test then reads the capture log back and
 * checks that the workload's events hold the expected ones, in order, with
 * their arguments, results and absolute paths; that ioriot itself never
 * shows up, and with -x and --comm no other process either (a noise process
 * does file I/O beside the workload); and that the generator turns the log
 * into a replay file with the workload's files in the sandbox.  One
 * (thinkload) is replayed with --think on two mounts too, its think time
 * accounted exactly (test_think_replay).
 *
 * A workload blocks on reading a byte from stdin, which the capture's ready
 * callback writes once the probe is attached.  A watcher thread reaps it and
 * stops the capture shortly after.  Needs root and a kernel with BTF; the
 * tests pass with a note on stdout without them.  IORIOT_WORKLOADS names the
 * directory of the built workloads (the Makefile sets it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/fs.h>
#include <linux/xattr.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/caplog.h"
#include "ioriot/capture.h"
#include "ioriot/generate.h"
#include "ioriot/json.h"
#include "ioriot/log.h"
#include "ioriot/mounts.h"
#include "ioriot/rlog.h"
#include "testutil.h"
#include "workloads/aio.h"
#include "workloads/fdrace.h"
#include "workloads/mmapio.h"
#include "workloads/fileapi.h"
#include "workloads/uncaptured.h"
#include "workloads/uring.h"

#define ERRLEN 4096
#define NVARS 16
#define V_WPID 1		/* variable that holds the workload's pid */
#define GIB (1024LL * 1024 * 1024)
#define STOP_DELAY_US 100000	/* capture on after the workload exited */

/*
 * One expected event.  Fields in @have are compared (and must be present;
 * a cqe's opcode only where the kernel gives it), fields in @lacks must be
 * absent.  Paths: "" or "." is the workload's
 * directory, "@bin" the workload binary, "=TEXT" TEXT as it is, anything
 * else is relative to the workload's directory.
 *
 * Variables 1..NVARS-1 stand for values only known at run time (fds, pids,
 * tids); V_WPID holds the workload's pid.  The first event that matches
 * binds an unbound variable; a bound one must be equal.  The event must
 * belong to process v_pid (0: the workload) and thread v_tid (0: the main
 * thread, tid == pid; any thread with any_tid).  With v_addr, the event's
 * address (a) is variable v_addr plus addr_off.
 */
struct exp {
	enum sys_id sys;
	unsigned have, lacks;
	const char *path, *path2;
	int64_t fd, fd2, flags, mode, offset, offset2, count, whence, cmd,
		arg, size, ret, buf_index, umask;
	int64_t flags_mask;	/* non-zero: compare flags & flags_mask */
	bool ret_positive;
	bool any_tid;		/* any thread of the process */
	int v_ret, v_fd, v_fd2, v_child, v_ctid, v_pid, v_tid, v_addr;
	int64_t addr_off;
};

#define E(name) .sys = SYS_##name
#define END { .sys = SYS_COUNT }

/*
 * A workload: chains of expected events (each chain is matched on its own,
 * as a subsequence of the log in file order, after the ones before it), and
 * replay file lines.  A replay line spec is a list of tokens that must all
 * be fields of one line; "%S" stands for the sandbox path of the workload's
 * directory, "%vN" for variable N, and "$X" (X a capital letter) for a
 * replay variable: unbound, it matches anything and binds; bound, it is its
 * value.
 */
struct workload {
	const char *name;
	const struct exp *const *chains;
	const char *const *replay;
	const char *counts;	/* in the replay header */
};

/* ---- fileio ------------------------------------------------------------ */

/* 2: pre's fd, 3: data's fd, 4: the dup, 5: made's fd */
static const struct exp fileio_main[] = {
	{ E(OPENFD), .have = CAP_PATH | CAP_FLAGS | CAP_OFFSET | CAP_SIZE |
	  CAP_MODE, .path = "pre", .flags = O_RDWR, .flags_mask = O_ACCMODE,
	  .offset = 100, .size = 1000, .mode = S_IFREG | 0644, .v_fd = 2 },
	{ E(READ), .have = CAP_COUNT | CAP_RET, .count = 50, .ret = 50,
	  .v_fd = 2 },
	{ E(OPEN), .have = CAP_PATH | CAP_FLAGS | CAP_MODE, .path = "data",
	  .flags = O_CREAT | O_RDWR | O_TRUNC, .mode = 0644, .v_ret = 3 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 100, .ret = 100,
	  .v_fd = 3 },
	{ E(WRITEV), .have = CAP_RET, .ret = 60, .v_fd = 3 },
	{ E(PWRITE64), .have = CAP_OFFSET | CAP_COUNT | CAP_RET,
	  .offset = 5 * GIB, .count = 4096, .ret = 4096, .v_fd = 3 },
	{ E(PREAD64), .have = CAP_OFFSET | CAP_COUNT | CAP_RET,
	  .offset = 5 * GIB, .count = 4096, .ret = 4096, .v_fd = 3 },
	{ E(LSEEK), .have = CAP_OFFSET | CAP_WHENCE | CAP_RET, .offset = 0,
	  .whence = SEEK_END, .ret = 5 * GIB + 4096, .v_fd = 3 },
	{ E(LSEEK), .have = CAP_OFFSET | CAP_WHENCE | CAP_RET, .offset = 0,
	  .whence = SEEK_SET, .ret = 0, .v_fd = 3 },
	{ E(READV), .have = CAP_RET, .ret = 100, .v_fd = 3 },
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	{ E(FDATASYNC), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	{ E(FTRUNCATE), .have = CAP_COUNT | CAP_RET, .count = 6 * GIB,
	  .ret = 0, .v_fd = 3 },
	/* glibc's fstat */
	{ E(NEWFSTATAT), .have = CAP_FLAGS | CAP_SIZE | CAP_MODE | CAP_RET,
	  .lacks = CAP_PATH, .flags = AT_EMPTY_PATH, .size = 6 * GIB,
	  .mode = S_IFREG | 0644, .ret = 0, .v_fd = 3 },
	{ E(FSTAT), .have = CAP_SIZE | CAP_MODE | CAP_RET, .size = 6 * GIB,
	  .mode = S_IFREG | 0644, .ret = 0, .v_fd = 3 },
	/* glibc's stat */
	{ E(NEWFSTATAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_SIZE |
	  CAP_MODE | CAP_RET, .fd = AT_FDCWD, .path = "data", .flags = 0,
	  .size = 6 * GIB, .mode = S_IFREG | 0644, .ret = 0 },
	{ E(STATX), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_SIZE |
	  CAP_MODE | CAP_RET, .fd = AT_FDCWD, .path = "data", .flags = 0,
	  .size = 6 * GIB, .mode = S_IFREG | 0644, .ret = 0 },
	{ E(FCNTL), .have = CAP_CMD, .cmd = F_GETFL, .ret_positive = true,
	  .v_fd = 3 },
	{ E(FCNTL), .have = CAP_CMD | CAP_ARG | CAP_RET, .cmd = F_SETFL,
	  .arg = O_APPEND, .ret = 0, .v_fd = 3 },
	{ E(DUP), .v_fd = 3, .v_ret = 4 },
	{ E(DUP2), .have = CAP_FD2 | CAP_RET, .fd2 = 1, .ret = 1, .v_fd = 3 },
	{ E(WRITE), .have = CAP_FD | CAP_COUNT | CAP_RET, .fd = 1, .count = 7,
	  .ret = 7 },
	{ E(CLOSE), .have = CAP_FD | CAP_RET, .fd = 1, .ret = 0 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 4 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	{ E(CREAT), .have = CAP_PATH | CAP_MODE, .path = "made", .mode = 0600,
	  .v_ret = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 5 },
	{ E(LSEEK), .have = CAP_OFFSET | CAP_WHENCE | CAP_RET, .offset = 0,
	  .whence = SEEK_CUR, .ret = 150, .v_fd = 2 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	{ E(EXIT_GROUP) },
	{ E(EXIT) },
	END
};

static const struct exp *const fileio_chains[] = { fileio_main, NULL };

static const char *const fileio_replay[] = {
	"f 1000 %S/pre",
	"openat path=%S/pre vfd=$P",
	"lseek fd=$P off=100",
	"read 50 fd=$P count=50",
	"open path=%S/data vfd=$D flags=0x242 mode=0644",
	"write 100 fd=$D count=100",
	"writev 60 fd=$D count=60",
	"pwrite64 4096 fd=$D count=4096 off=5368709120",
	"pread64 4096 fd=$D count=4096 off=5368709120",
	"lseek 5368713216 fd=$D off=0 whence=2",
	"readv 100 fd=$D count=100",
	"fsync fd=$D",
	"fdatasync fd=$D",
	"ftruncate fd=$D count=6442450944",
	"fstat fd=$D",
	"newfstatat path=%S/data",
	"statx path=%S/data",
	"fcntl fd=$D cmd=4 arg=1024",
	"write 7 fd=$D count=7",		/* through fd 1, after dup2 */
	"creat path=%S/made vfd=$M mode=0600",
	"close fd=$M",
	"lseek 150 fd=$P whence=1",
	"close fd=$P",
	NULL
};

/* ---- paths ------------------------------------------------------------- */

/* 2: the dirfd, 3: sub/f1, 4: d2/f3, 5: d2/f4, 6: opendir's fd,
 * 7: the dirfd opened before the capture, 8: d0/pre, 9: sub as a dirfd */
static const struct exp paths_main[] = {
	/* the working directory and a dirfd from before the capture */
	{ E(CWD), .have = CAP_PATH, .path = "." },
	{ E(OPENFD), .have = CAP_PATH | CAP_MODE | CAP_FLAGS, .path = ".",
	  .mode = S_IFDIR | 0755, .flags = O_DIRECTORY,
	  .flags_mask = O_DIRECTORY, .v_fd = 7 },
	{ E(MKDIR), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "d0",
	  .mode = 0755, .ret = 0 },
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS | CAP_MODE, .path = "d0/pre",
	  .flags = O_CREAT | O_WRONLY, .mode = 0644, .v_fd = 7, .v_ret = 8 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 8 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET,
	  .path = "d0/pre", .flags = 0, .ret = 0, .v_fd = 7 },
	{ E(RMDIR), .have = CAP_PATH | CAP_RET, .path = "d0", .ret = 0 },
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS, .fd = AT_FDCWD,
	  .path = ".", .flags = O_RDONLY | O_DIRECTORY, .v_ret = 2 },
	{ E(MKDIRAT), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "sub",
	  .mode = 0755, .ret = 0, .v_fd = 2 },
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS | CAP_MODE, .path = "sub/f1",
	  .flags = O_CREAT | O_EXCL | O_WRONLY, .mode = 0600, .v_fd = 2,
	  .v_ret = 3 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 5, .ret = 5,
	  .v_fd = 3 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	{ E(NEWFSTATAT), .have = CAP_PATH | CAP_FLAGS | CAP_SIZE | CAP_MODE |
	  CAP_RET, .path = "sub/f1", .flags = 0, .size = 5,
	  .mode = S_IFREG | 0600, .ret = 0, .v_fd = 2 },
	{ E(STATX), .have = CAP_PATH | CAP_FLAGS | CAP_SIZE | CAP_MODE |
	  CAP_RET, .path = "sub/f1", .flags = AT_SYMLINK_NOFOLLOW, .size = 5,
	  .mode = S_IFREG | 0600, .ret = 0, .v_fd = 2 },
	{ E(RENAMEAT2), .have = CAP_PATH | CAP_PATH2 | CAP_FLAGS | CAP_RET,
	  .path = "sub/f1", .path2 = "sub/f2", .flags = RENAME_NOREPLACE,
	  .ret = 0, .v_fd = 2, .v_fd2 = 2 },
	/* the link path is relative to the dirfd, the target is raw */
	{ E(SYMLINKAT), .have = CAP_PATH | CAP_PATH2 | CAP_RET, .path = "=f2",
	  .path2 = "sub/sl", .ret = 0, .v_fd = 2 },
	/* P: the target readlink read, raw */
	{ E(READLINKAT), .have = CAP_PATH | CAP_PATH2 | CAP_COUNT | CAP_RET,
	  .path = "sub/sl", .path2 = "=f2", .count = 64, .ret = 2, .v_fd = 2 },
	{ E(LINKAT), .have = CAP_PATH | CAP_PATH2 | CAP_FLAGS | CAP_RET,
	  .path = "sub/f2", .path2 = "sub/l2", .flags = 0, .ret = 0,
	  .v_fd = 2, .v_fd2 = 2 },
	{ E(FCHMODAT), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "sub/l2",
	  .mode = 0600, .ret = 0, .v_fd = 2 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET, .path = "sub/sl",
	  .flags = 0, .ret = 0, .v_fd = 2 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET, .path = "sub/l2",
	  .flags = 0, .ret = 0, .v_fd = 2 },
	{ E(CHDIR), .have = CAP_PATH | CAP_RET, .path = ".", .ret = 0 },
	{ E(MKDIR), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "d2",
	  .mode = 0700, .ret = 0 },
	{ E(CHDIR), .have = CAP_PATH | CAP_RET, .path = "d2", .ret = 0 },
	{ E(OPEN), .have = CAP_PATH | CAP_FLAGS | CAP_MODE, .path = "d2/f3",
	  .flags = O_CREAT | O_RDWR, .mode = 0644, .v_ret = 4 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 4 },
	{ E(CREAT), .have = CAP_PATH | CAP_MODE, .path = "d2/f4", .mode = 0640,
	  .v_ret = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 5 },
	{ E(RENAME), .have = CAP_PATH | CAP_PATH2 | CAP_RET, .path = "d2/f4",
	  .path2 = "d2/f5", .ret = 0 },
	{ E(LINK), .have = CAP_PATH | CAP_PATH2 | CAP_RET, .path = "sub/f2",
	  .path2 = "d2/hard", .ret = 0 },
	/* the target is the link's content: never resolved */
	{ E(SYMLINK), .have = CAP_PATH | CAP_PATH2 | CAP_RET,
	  .path = "=../sub/f2", .path2 = "d2/sym", .ret = 0 },
	{ E(READLINK), .have = CAP_PATH | CAP_PATH2 | CAP_COUNT | CAP_RET,
	  .path = "d2/sym", .path2 = "=../sub/f2", .count = 64, .ret = 9 },
	{ E(LSTAT), .have = CAP_PATH | CAP_SIZE | CAP_MODE | CAP_RET,
	  .path = "d2/sym", .size = 9, .mode = S_IFLNK | 0777, .ret = 0 },
	{ E(STAT), .have = CAP_PATH | CAP_SIZE | CAP_MODE | CAP_RET,
	  .path = "d2/sym", .size = 5, .mode = S_IFREG | 0600, .ret = 0 },
	{ E(CHMOD), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "d2/f3",
	  .mode = 0600, .ret = 0 },
	{ E(ACCESS), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "d2/f3",
	  .mode = R_OK, .ret = 0 },
	{ E(ACCESS), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "d2/nope",
	  .mode = F_OK, .ret = -ENOENT },
	/* opendir(".") and readdir */
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS, .fd = AT_FDCWD,
	  .path = "d2", .flags = O_DIRECTORY, .flags_mask = O_DIRECTORY,
	  .v_ret = 6 },
	{ E(GETDENTS64), .ret_positive = true, .v_fd = 6 },
	{ E(GETDENTS64), .have = CAP_RET, .ret = 0, .v_fd = 6 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 6 },
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS, .path = "sub",
	  .flags = O_DIRECTORY, .v_fd = 2, .v_ret = 9 },
	{ E(FCHDIR), .have = CAP_RET, .ret = 0, .v_fd = 9 },
	{ E(STAT), .have = CAP_PATH | CAP_SIZE | CAP_MODE | CAP_RET,
	  .path = "sub/f2", .size = 5, .mode = S_IFREG | 0600, .ret = 0 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 9 },
	{ E(CHDIR), .have = CAP_PATH | CAP_RET, .path = ".", .ret = 0 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET,
	  .path = "d2/hard", .flags = 0, .ret = 0, .v_fd = 2 },
	{ E(UNLINK), .have = CAP_PATH | CAP_RET, .path = "d2/sym", .ret = 0 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET, .path = "sub",
	  .flags = AT_REMOVEDIR, .ret = -ENOTEMPTY, .v_fd = 2 },
	{ E(UNLINK), .have = CAP_PATH | CAP_RET, .path = "sub/f2", .ret = 0 },
	{ E(UNLINKAT), .have = CAP_PATH | CAP_FLAGS | CAP_RET, .path = "sub",
	  .flags = AT_REMOVEDIR, .ret = 0, .v_fd = 2 },
	{ E(RMDIR), .have = CAP_PATH | CAP_RET, .path = "d2",
	  .ret = -ENOTEMPTY },
	{ E(UNLINK), .have = CAP_PATH | CAP_RET, .path = "d2/f3", .ret = 0 },
	{ E(UNLINK), .have = CAP_PATH | CAP_RET, .path = "d2/f5", .ret = 0 },
	{ E(RMDIR), .have = CAP_PATH | CAP_RET, .path = "d2", .ret = 0 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 7 },
	{ E(EXIT_GROUP) },
	{ E(EXIT) },
	END
};

static const struct exp *const paths_chains[] = { paths_main, NULL };

static const char *const paths_replay[] = {
	"d %S",
	"x %S/d0",
	"openat path=%S vfd=$P",		/* the openfd */
	"mkdir 0 path=%S/d0 mode=0755",
	"openat path=%S/d0/pre vfd=$Q flags=0x41 mode=0644",
	"close 0 fd=$Q",
	"unlinkat 0 path=%S/d0/pre",
	"rmdir 0 path=%S/d0",
	"openat path=%S vfd=$A flags=0x10000",
	"mkdirat 0 path=%S/sub mode=0755",
	"openat path=%S/sub/f1 vfd=$B",
	"write 5 fd=$B count=5",
	"newfstatat 0 path=%S/sub/f1",
	"statx 0 path=%S/sub/f1",
	"renameat2 0 path=%S/sub/f1 path2=%S/sub/f2 flags=0x1",
	"symlinkat 0 path=%S/sub/sl target=f2",
	"readlinkat 2 path=%S/sub/sl",
	"linkat 0 path=%S/sub/f2 path2=%S/sub/l2",
	"fchmodat 0 path=%S/sub/l2 mode=0600",
	"unlinkat 0 path=%S/sub/sl",
	"unlinkat 0 path=%S/sub/l2",
	"mkdir 0 path=%S/d2 mode=0700",
	"open path=%S/d2/f3",
	"creat path=%S/d2/f4 mode=0640",
	"rename 0 path=%S/d2/f4 path2=%S/d2/f5",
	"link 0 path=%S/sub/f2 path2=%S/d2/hard",
	"symlink 0 path=%S/d2/sym target=../sub/f2",
	"readlink 9 path=%S/d2/sym",
	"lstat 0 path=%S/d2/sym",
	"stat 0 path=%S/d2/sym",
	"chmod 0 path=%S/d2/f3 mode=0600",
	"access 0 path=%S/d2/f3",
	"access -2 path=%S/d2/nope",
	"openat path=%S/d2 vfd=$C",
	"getdents64 fd=$C",
	"stat 0 path=%S/sub/f2",
	"unlinkat 0 path=%S/d2/hard",
	"unlink 0 path=%S/d2/sym",
	"unlinkat -39 path=%S/sub",
	"unlink 0 path=%S/sub/f2",
	"unlinkat 0 path=%S/sub",
	"rmdir -39 path=%S/d2",
	"rmdir 0 path=%S/d2",
	"close fd=$A",
	"close fd=$P",
	NULL
};

/* ---- threads ----------------------------------------------------------- */

/* 2, 3, 4: the threads' tids; 5, 6, 7: their fds */
static const struct exp threads_main[] = {
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 2 },
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 3 },
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 4 },
	{ E(NEWFSTATAT), .have = CAP_FD | CAP_PATH | CAP_SIZE | CAP_MODE |
	  CAP_RET, .fd = AT_FDCWD, .path = "t0", .size = 1000,
	  .mode = S_IFREG | 0644, .ret = 0 },
	{ E(NEWFSTATAT), .have = CAP_FD | CAP_PATH | CAP_SIZE | CAP_MODE |
	  CAP_RET, .fd = AT_FDCWD, .path = "t1", .size = 2000,
	  .mode = S_IFREG | 0644, .ret = 0 },
	{ E(NEWFSTATAT), .have = CAP_FD | CAP_PATH | CAP_SIZE | CAP_MODE |
	  CAP_RET, .fd = AT_FDCWD, .path = "t2", .size = 3000,
	  .mode = S_IFREG | 0644, .ret = 0 },
	{ E(EXIT_GROUP) },
	/* By the process's last task to go, not always its leader. */
	{ E(EXIT), .any_tid = true },
	END
};

#define THREAD_CHAIN(i, file, len)					\
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,	\
	  .fd = AT_FDCWD, .path = file,					\
	  .flags = O_CREAT | O_WRONLY | O_TRUNC, .mode = 0644,		\
	  .v_tid = 2 + (i), .v_ret = 5 + (i) },				\
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = len, .ret = len, \
	  .v_tid = 2 + (i), .v_fd = 5 + (i) },				\
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_tid = 2 + (i),	\
	  .v_fd = 5 + (i) },						\
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_tid = 2 + (i),	\
	  .v_fd = 5 + (i) },						\
	END

static const struct exp threads_t0[] = { THREAD_CHAIN(0, "t0", 1000) };
static const struct exp threads_t1[] = { THREAD_CHAIN(1, "t1", 2000) };
static const struct exp threads_t2[] = { THREAD_CHAIN(2, "t2", 3000) };

static const struct exp *const threads_chains[] = {
	threads_main, threads_t0, threads_t1, threads_t2, NULL
};

static const char *const threads_replay[] = {
	"%v1:%v2 openat path=%S/t0 vfd=$A",
	"%v1:%v2 write 1000 fd=$A count=1000",
	"%v1:%v2 fsync fd=$A",
	"%v1:%v2 close fd=$A",
	"%v1:%v3 openat path=%S/t1 vfd=$B",
	"%v1:%v3 write 2000 fd=$B count=2000",
	"%v1:%v4 openat path=%S/t2 vfd=$C",
	"%v1:%v4 write 3000 fd=$C count=3000",
	"%v1:%v1 newfstatat 0 path=%S/t0",
	"%v1:%v1 newfstatat 0 path=%S/t1",
	"%v1:%v1 newfstatat 0 path=%S/t2",
	NULL
};

/* ---- forkexec ---------------------------------------------------------- */

/* 2: forked's fd, 3: the child's pid, 4: cloexec's fd, 5: inherited's fd */
static const struct exp forkexec_main[] = {
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,
	  .fd = AT_FDCWD, .path = "forked",
	  .flags = O_CREAT | O_WRONLY | O_TRUNC, .mode = 0644, .v_ret = 2 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 5, .ret = 5,
	  .v_fd = 2 },
	{ E(FORK), .have = CAP_CHILD, .v_child = 3, .v_ctid = 3 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 10, .ret = 10,
	  .v_fd = 2, .v_pid = 3 },
	{ E(EXIT_GROUP), .v_pid = 3 },
	{ E(EXIT), .v_pid = 3 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 20, .ret = 20,
	  .v_fd = 2 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,
	  .fd = AT_FDCWD, .path = "cloexec",
	  .flags = O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, .mode = 0644,
	  .v_ret = 4 },
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,
	  .fd = AT_FDCWD, .path = "inherited",
	  .flags = O_CREAT | O_WRONLY | O_TRUNC, .mode = 0644, .v_ret = 5 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 3, .ret = 3,
	  .v_fd = 4 },
	{ E(EXEC), .have = CAP_PATH | CAP_RET, .path = "@bin", .ret = 0 },
	{ E(FCNTL), .have = CAP_CMD | CAP_RET, .cmd = F_GETFD, .ret = -EBADF,
	  .v_fd = 4 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 6, .ret = 6,
	  .v_fd = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 5 },
	{ E(EXIT_GROUP) },
	{ E(EXIT) },
	END
};

static const struct exp *const forkexec_chains[] = { forkexec_main, NULL };

static const char *const forkexec_replay[] = {
	"%v1:%v1 openat path=%S/forked vfd=$F",
	"%v1:%v1 write 5 fd=$F count=5",
	"%v3:%v3 write 10 fd=$F count=10",	/* the child, inherited fd */
	"%v1:%v1 write 20 fd=$F count=20",
	"%v1:%v1 close 0 fd=$F",
	"%v1:%v1 openat path=%S/cloexec vfd=$C",
	"%v1:%v1 openat path=%S/inherited vfd=$N",
	"%v1:%v1 write 3 fd=$C count=3",
	"%v1:%v1 close 0 fd=$C",		/* by the exec */
	"%v1:%v1 write 6 fd=$N count=6",	/* after the exec */
	"%v1:%v1 close 0 fd=$N",
	NULL
};

/* ---- leaderexit -------------------------------------------------------- */

/* 2: shared's fd, 3: the thread's tid, 4: after's fd */
static const struct exp leaderexit_main[] = {
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,
	  .fd = AT_FDCWD, .path = "shared",
	  .flags = O_CREAT | O_WRONLY | O_TRUNC, .mode = 0644, .v_ret = 2 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 4, .ret = 4,
	  .v_fd = 2 },
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 3 },
	/* the main thread is gone, the process is not */
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 6, .ret = 6,
	  .v_fd = 2, .v_tid = 3 },
	{ E(OPENAT), .have = CAP_FD | CAP_PATH | CAP_FLAGS | CAP_MODE,
	  .fd = AT_FDCWD, .path = "after",
	  .flags = O_CREAT | O_WRONLY | O_TRUNC, .mode = 0644, .v_ret = 4,
	  .v_tid = 3 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 5, .ret = 5,
	  .v_fd = 4, .v_tid = 3 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 4, .v_tid = 3 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2, .v_tid = 3 },
	{ E(EXIT_GROUP), .v_tid = 3 },
	{ E(EXIT), .any_tid = true },
	END
};

static const struct exp *const leaderexit_chains[] = {
	leaderexit_main, NULL
};

static const char *const leaderexit_replay[] = {
	"%v1:%v1 openat path=%S/shared vfd=$S",
	"%v1:%v1 write 4 fd=$S count=4",
	"%v1:%v3 write 6 fd=$S count=6",
	"%v1:%v3 openat path=%S/after vfd=$A",
	"%v1:%v3 write 5 fd=$A count=5",
	"%v1:%v3 close 0 fd=$A",
	"%v1:%v3 close 0 fd=$S",
	NULL
};

/* ---- aio --------------------------------------------------------------- */

#define AIO_HAVE (CAP_ADDR | CAP_RET)
#define IOCB(op, off, len) \
	{ E(IOCB), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_ARG | \
	  CAP_FLAGS | CAP_ADDR | CAP_ADDR2, .lacks = CAP_RET | CAP_FD2, \
	  .cmd = (op), .offset = (off), .count = (len), .arg = 0, .flags = 0, \
	  .v_fd = 3 }
#define IO_EVENT(res) \
	{ E(IO_EVENT), .have = CAP_ADDR | CAP_ADDR2 | CAP_RET, .ret = (res) }
#define IO_EVENT_ANY { E(IO_EVENT), .have = CAP_ADDR | CAP_ADDR2 }

/* 3: aio.dat's fd.  The second batch's completions come in any order:
 * their results are checked in the replay file. */
static const struct exp aio_main[] = {
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS, .path = "aio.dat",
	  .flags = O_CREAT | O_DIRECT, .flags_mask = O_CREAT | O_DIRECT,
	  .v_ret = 3 },
	{ E(IO_SETUP), .have = CAP_COUNT | AIO_HAVE, .count = AIO_DEPTH,
	  .ret = 0 },
	IOCB(IOCB_CMD_PWRITE, 0, 4096), IOCB(IOCB_CMD_PWRITE, 4096, 4096),
	IOCB(IOCB_CMD_PWRITE, 8192, 4096), IOCB(IOCB_CMD_PWRITE, 12288, 4096),
	{ E(IO_SUBMIT), .have = CAP_COUNT | AIO_HAVE, .count = 4, .ret = 4 },
	{ E(IO_GETEVENTS), .have = CAP_COUNT | CAP_ARG | AIO_HAVE,
	  .count = 2 * AIO_BATCH_MAX, .arg = 4, .ret = 4 },
	IO_EVENT(4096), IO_EVENT(4096), IO_EVENT(4096), IO_EVENT(4096),
	IOCB(IOCB_CMD_PREAD, 0, 4096), IOCB(IOCB_CMD_PREAD, 4096, 8192),
	IOCB(IOCB_CMD_PWRITEV, AIO_VEC_OFF, 8192), IOCB(IOCB_CMD_FDSYNC, 0, 0),
	{ E(IO_SUBMIT), .have = CAP_COUNT | AIO_HAVE, .count = 4, .ret = 4 },
	{ E(IO_GETEVENTS), .have = CAP_COUNT | CAP_ARG | AIO_HAVE,
	  .count = 2 * AIO_BATCH_MAX, .arg = 4, .ret = 4 },
	IO_EVENT_ANY, IO_EVENT_ANY, IO_EVENT_ANY, IO_EVENT_ANY,
	{ E(IO_DESTROY), .have = AIO_HAVE, .ret = 0 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	END
};

static const struct exp *const aio_chains[] = { aio_main, NULL };

static const char *const aio_replay[] = {
	"openat path=%S/aio.dat vfd=$D",
	"io_setup 0 count=32 ctx=$C",
	"iocb 0 fd=$D off=0 count=4096 cmd=1 ctx=$C",
	"iocb 0 fd=$D off=12288 count=4096 cmd=1 ctx=$C",
	"io_submit 4 count=4 ctx=$C",
	"io_getevents 4 count=8 ctx=$C min=4",
	"aio_pwrite 4096 fd=$D ctx=$C",
	"iocb 0 fd=$D off=4096 count=8192 cmd=0 ctx=$C",
	"iocb 0 fd=$D off=32768 count=8192 cmd=8 ctx=$C",
	"iocb 0 fd=$D off=0 count=0 cmd=3 ctx=$C",
	"aio_pread 4096 fd=$D ctx=$C",
	"aio_pread 8192 fd=$D ctx=$C",
	"aio_pwritev 8192 fd=$D ctx=$C",
	"aio_fdsync 0 fd=$D ctx=$C",
	"io_destroy 0 ctx=$C",
	"close 0 fd=$D",
	NULL
};

/* ---- uring ------------------------------------------------------------- */

#define SQE(op, off, len, sqflags) \
	{ E(SQE), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_ARG | \
	  CAP_ADDR2, .lacks = CAP_BUF, .cmd = (op), .offset = (off), \
	  .count = (len), .arg = (sqflags), .v_fd = 3, .v_fd2 = 4 }
#define SQE_FIXED(op, off, buf) \
	{ E(SQE), .have = CAP_FD | CAP_CMD | CAP_OFFSET | CAP_COUNT | \
	  CAP_ARG | CAP_BUF | CAP_ADDR2, .fd = 0, .cmd = (op), \
	  .offset = (off), .count = URING_BUF, .arg = IOSQE_FIXED_FILE, \
	  .buf_index = (buf), .v_fd2 = 4 }
#define CQE_ANY { E(CQE), .have = CAP_ADDR2, .v_fd2 = 4 }

/* 2: the dirfd, 3: uring.dat's fd, 4: the ring's fd.  Completions come
 * in any order: their results are checked in the replay file. */
static const struct exp uring_main[] = {
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS, .path = "uring.dat",
	  .flags = O_CREAT | O_RDWR | O_TRUNC, .v_fd = 2, .v_ret = 3 },
	{ E(IO_URING_SETUP), .have = CAP_COUNT | CAP_FLAGS | CAP_ARG,
	  .count = URING_DEPTH, .flags = 0, .arg = 2 * URING_DEPTH, .v_ret = 4 },
	{ E(URING_FILE), .have = CAP_OFFSET, .lacks = CAP_RET, .offset = 0,
	  .v_fd = 3, .v_fd2 = 4 },
	{ E(IO_URING_REGISTER), .have = CAP_CMD | CAP_COUNT | CAP_RET,
	  .cmd = IORING_REGISTER_FILES, .count = 1, .ret = 0, .v_fd = 4 },
	{ E(URING_BUF), .have = CAP_OFFSET | CAP_COUNT, .lacks = CAP_RET,
	  .offset = 0, .count = URING_BUF, .v_fd2 = 4 },
	{ E(URING_BUF), .have = CAP_OFFSET | CAP_COUNT, .lacks = CAP_RET,
	  .offset = 1, .count = URING_BUF, .v_fd2 = 4 },
	{ E(IO_URING_REGISTER), .have = CAP_CMD | CAP_COUNT | CAP_RET,
	  .cmd = IORING_REGISTER_BUFFERS, .count = URING_NBUFS, .ret = 0,
	  .v_fd = 4 },
	SQE(IORING_OP_WRITE, 0, 4096, 0),
	SQE(IORING_OP_WRITEV, URING_VEC_OFF, 8192, IOSQE_IO_LINK),
	/* The kernel may mark an fsync async itself: its flags vary. */
	{ E(SQE), .have = CAP_CMD | CAP_FLAGS | CAP_ADDR2, .cmd = IORING_OP_FSYNC,
	  .flags = IORING_FSYNC_DATASYNC, .v_fd = 3, .v_fd2 = 4 },
	SQE_FIXED(IORING_OP_WRITE_FIXED, URING_FIXED_OFF, 0),
	{ E(IO_URING_ENTER), .have = CAP_COUNT | CAP_ARG | CAP_FLAGS | CAP_RET,
	  .count = 4, .arg = 4, .flags = IORING_ENTER_GETEVENTS, .ret = 4,
	  .v_fd = 4 },
	CQE_ANY, CQE_ANY, CQE_ANY, CQE_ANY,
	SQE(IORING_OP_READ, 0, 4096, 0),
	SQE(IORING_OP_READV, URING_VEC_OFF, 8192, 0),
	SQE_FIXED(IORING_OP_READ_FIXED, URING_FIXED_OFF, 1),
	{ E(SQE), .have = CAP_CMD | CAP_ARG | CAP_ADDR2, .lacks = CAP_FD,
	  .cmd = IORING_OP_NOP, .arg = 0, .v_fd2 = 4 },
	{ E(SQE), .have = CAP_CMD | CAP_ADDR2, .lacks = CAP_FD,
	  .cmd = IORING_OP_TIMEOUT, .v_fd2 = 4 },
	{ E(IO_URING_ENTER), .have = CAP_COUNT | CAP_ARG | CAP_FLAGS | CAP_RET,
	  .count = 5, .arg = 5, .flags = IORING_ENTER_GETEVENTS, .ret = 5,
	  .v_fd = 4 },
	CQE_ANY, CQE_ANY, CQE_ANY, CQE_ANY, CQE_ANY,
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 4 },
	END
};

/* 5: the SQPOLL ring's fd.  Its requests are submitted by its kernel
 * thread, and recorded as the main thread's, which set the ring up. */
static const struct exp uring_sqpoll[] = {
	{ E(IO_URING_SETUP), .have = CAP_COUNT | CAP_FLAGS,
	  .count = URING_DEPTH, .flags = IORING_SETUP_SQPOLL, .v_ret = 5 },
	{ E(SQE), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_ARG |
	  CAP_ADDR2, .cmd = IORING_OP_WRITE, .offset = URING_SQPOLL_OFF,
	  .count = 4096, .arg = 0, .v_fd = 3, .v_fd2 = 5 },
	{ E(CQE), .have = CAP_CMD | CAP_RET, .cmd = IORING_OP_WRITE,
	  .ret = 4096, .v_fd2 = 5 },
	{ E(SQE), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_ARG |
	  CAP_ADDR2, .cmd = IORING_OP_READ, .offset = URING_SQPOLL_OFF,
	  .count = 4096, .arg = 0, .v_fd = 3, .v_fd2 = 5 },
	{ E(CQE), .have = CAP_CMD | CAP_RET, .cmd = IORING_OP_READ,
	  .ret = 4096, .v_fd2 = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	END
};

/* The timeout's completion, -ETIME, in the second batch. */
static const struct exp uring_timeout[] = {
	{ E(CQE), .have = CAP_CMD | CAP_ADDR2 | CAP_RET,
	  .cmd = IORING_OP_TIMEOUT, .ret = -ETIME, .v_fd2 = 4 },
	END
};

static const struct exp *const uring_chains[] = { uring_main, uring_timeout,
						 uring_sqpoll, NULL };

static const char *const uring_replay[] = {
	"#|uring_skipped|timeout=1|",
	"openat path=%S/uring.dat vfd=$D",
	"io_uring_setup count=8 flags=0x0 ctx=$C",
	"uring_file 0 fd=$D ctx=$C slot=0",
	"io_uring_register 0 count=1 cmd=2 ctx=$C",
	"uring_buf 0 count=4096 ctx=$C slot=0",
	"uring_buf 0 count=4096 ctx=$C slot=1",
	"io_uring_register 0 count=2 cmd=0 ctx=$C",
	"sqe 0 fd=$D off=0 count=4096 cmd=23 ctx=$C",
	"sqe 0 fd=$D off=4096 count=8192 cmd=2 ctx=$C sqflags=0x4",
	"sqe 0 fd=$D flags=0x1 cmd=3 ctx=$C",
	"sqe 0 fd=$D off=16384 count=4096 cmd=5 ctx=$C slot=0 buf=0 sqflags=0x1",
	"io_uring_enter 4 flags=0x1 count=4 ctx=$C min=4",
	"uring_write 4096 fd=$D ctx=$C",
	"uring_writev 8192 fd=$D ctx=$C",
	"uring_fsync 0 fd=$D ctx=$C",
	"uring_write_fixed 4096 fd=$D ctx=$C",
	"sqe 0 fd=$D off=0 count=4096 cmd=22 ctx=$C",
	"sqe 0 fd=$D off=4096 count=8192 cmd=1 ctx=$C",
	"sqe 0 fd=$D off=16384 count=4096 cmd=4 ctx=$C slot=0 buf=1 sqflags=0x1",
	"sqe 0 cmd=0 ctx=$C",
	"io_uring_enter 5 flags=0x1 count=5 ctx=$C min=5",
	"uring_read 4096 fd=$D ctx=$C",
	"uring_readv 8192 fd=$D ctx=$C",
	"uring_read_fixed 4096 fd=$D ctx=$C",
	"uring_nop 0 ctx=$C",
	"io_uring_setup count=8 flags=0x2 ctx=$Q",
	"sqe 0 fd=$D off=24576 count=4096 cmd=23 ctx=$Q",
	"uring_write 4096 fd=$D ctx=$Q",
	"sqe 0 fd=$D off=24576 count=4096 cmd=22 ctx=$Q",
	"uring_read 4096 fd=$D ctx=$Q",
	"close 0 fd=$D",
	NULL
};

/* ---- mmapio ------------------------------------------------------------ */

#define MAP_LEN (MMAPIO_PAGES * MMAPIO_PAGE)
#define PAGE(op, pg, var) \
	{ .sys = SYS_##op, .have = CAP_OFFSET, .lacks = CAP_RET, \
	  .offset = (pg) * MMAPIO_PAGE, .v_addr = (var), \
	  .addr_off = (pg) * MMAPIO_PAGE }

/* 3: pre.dat's fd, 4: the shared mapping, 5: the private one, 6: the
 * mapping made before the capture (from /proc/PID/maps). */
static const struct exp mmapio_main[] = {
	{ .sys = SYS_MMAP_READ, .have = CAP_OFFSET, .lacks = CAP_RET,
	  .offset = MMAPIO_EARLY_PAGE * MMAPIO_PAGE, .v_addr = 6 },
	{ E(MUNMAP), .have = CAP_COUNT | CAP_RET, .count = MMAPIO_PAGE,
	  .ret = 0, .v_addr = 6, .addr_off = 0 },
	{ E(OPENAT), .have = CAP_PATH | CAP_FLAGS, .path = "pre.dat",
	  .flags = O_RDWR, .v_ret = 3 },
	{ E(MMAP), .have = CAP_COUNT | CAP_MODE | CAP_FLAGS | CAP_OFFSET,
	  .count = MAP_LEN, .mode = PROT_READ | PROT_WRITE, .flags = MAP_SHARED,
	  .offset = 0, .v_fd = 3, .v_ret = 4 },
	{ E(MADVISE), .have = CAP_COUNT | CAP_FLAGS | CAP_RET, .count = MAP_LEN,
	  .flags = MADV_RANDOM, .ret = 0, .v_addr = 4 },
	PAGE(MMAP_READ, 0, 4), PAGE(MMAP_READ, 16, 4), PAGE(MMAP_READ, 32, 4),
	PAGE(MMAP_WRITE, 1, 4), PAGE(MMAP_WRITE, 2, 4), PAGE(MMAP_WRITE, 3, 4),
	PAGE(MMAP_WRITE, 40, 4),
	{ E(MSYNC), .have = CAP_COUNT | CAP_FLAGS | CAP_RET, .count = MAP_LEN,
	  .flags = MS_SYNC, .ret = 0, .v_addr = 4 },
	PAGE(MMAP_WRITE, MMAPIO_REWRITE, 4),
	{ E(MUNMAP), .have = CAP_COUNT | CAP_RET, .count = MAP_LEN, .ret = 0,
	  .v_addr = 4 },
	{ E(MMAP), .have = CAP_COUNT | CAP_FLAGS | CAP_OFFSET,
	  .count = MMAPIO_PAGE, .flags = MAP_PRIVATE,
	  .offset = MMAPIO_PRIV_PAGE * MMAPIO_PAGE, .v_fd = 3, .v_ret = 5 },
	/* A write to a private page not mapped yet reads the file's page. */
	{ .sys = SYS_MMAP_READ, .have = CAP_OFFSET, .lacks = CAP_RET,
	  .offset = MMAPIO_PRIV_PAGE * MMAPIO_PAGE, .v_addr = 5 },
	{ E(MUNMAP), .have = CAP_COUNT | CAP_RET, .count = MMAPIO_PAGE,
	  .ret = 0, .v_addr = 5 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 3 },
	END
};

static const struct exp *const mmapio_chains[] = { mmapio_main, NULL };

/* pre.dat was written before the capture: INIT needs it into page 40. */
static const char *const mmapio_replay[] = {
	"f 163841 %S/pre.dat",
	"openat 4 vfd=$D path=%S/pre.dat flags=0x2",
	"mmap $M fd=$D flags=0x1 mode=03 off=0 count=262144",
	"madvise 0 fd=$D flags=0x1 count=262144",
	"mmap_read 3 fd=$D off=0 count=3 stride=16",
	"mmap_write 3 fd=$D off=4096 count=3",
	"mmap_write 1 fd=$D off=163840 count=1",
	"msync 0 fd=$D flags=0x4 count=262144",
	"mmap_write 1 fd=$D off=4096 count=1",
	"munmap 0 fd=$D count=262144",
	"mmap $P fd=$D flags=0x2 mode=03 off=32768 count=4096",
	"mmap_read 1 fd=$D off=32768 count=1",
	"close 0 fd=$D",
	NULL
};

static const struct workload workloads[] = {
	{ "fileio", fileio_chains, fileio_replay, "|timelines=1|processes=1|" },
	{ "paths", paths_chains, paths_replay, "|timelines=1|processes=1|" },
	{ "threads", threads_chains, threads_replay,
	  "|timelines=4|processes=1|" },
	{ "forkexec", forkexec_chains, forkexec_replay,
	  "|timelines=2|processes=2|" },
	{ "leaderexit", leaderexit_chains, leaderexit_replay,
	  "|timelines=2|processes=1|" },
	{ "aio", aio_chains, aio_replay, "|timelines=1|processes=1|" },
	{ "uring", uring_chains, uring_replay, "|timelines=1|processes=1|" },
	{ "mmapio", mmapio_chains, mmapio_replay, "|timelines=1|processes=1|" },
};

/* How a case selects what to capture. */
enum mode {
	BY_PID,		/* -x: the workload and its descendants */
	BY_COMM,	/* --comm: tasks named like the workload */
	EVERYTHING,	/* the whole host */
};

static const struct {
	const struct workload *w;
	enum mode mode;
} cases[] = {
	{ &workloads[0], BY_PID },
	{ &workloads[1], BY_PID },
	{ &workloads[2], BY_PID },
	{ &workloads[3], BY_PID },
	{ &workloads[4], BY_PID },
	{ &workloads[5], BY_PID },
	{ &workloads[6], BY_PID },
	{ &workloads[3], BY_COMM },
	{ &workloads[4], EVERYTHING },
};

#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* ---- running a workload under capture ---------------------------------- */

struct run {
	const struct workload *w;
	enum mode mode;
	const char *module;	/* SystemTap module to capture with, or NULL */
	uint64_t lost;		/* events the capture counted as lost */
	size_t matched;		/* expected events found in the log */
	bool below_wdir;	/* capture only I/O below wdir (--include) */
	bool sync;		/* wake records (--sync) */
	char label[64];		/* workload and mode, for messages */
	pid_t noise;		/* a process doing I/O beside the workload */
	char *noise_path;	/* the file it writes */
	uint32_t family[64];	/* the workload's pid and its children's */
	size_t nfamily;
	char *dir;		/* scratch directory (real path) */
	char *wdir;		/* dir/w: the workload's directory */
	char *sandbox;		/* wdir rewritten into the sandbox of "test" */
	char *bin;		/* the workload binary (real path) */
	char *log, *replay, *errfile;
	pid_t pid;
	struct cap_event *ev;	/* the log's events, paths copied */
	size_t nev;
	int64_t vars[NVARS];
	bool bound[NVARS];
	char rvars[26][64];	/* replay variables $A..$Z, "" unbound */
	bool cqe_no_op;		/* the kernel's io_uring_complete has no
				 * request: a cqe's opcode is absent */
};

/* Shared by the test and the watcher thread. */
struct watch {
	pid_t pid;
	int status;
	volatile sig_atomic_t stop;
};

struct go {
	int fd;
	bool sent;
};

/* The ready callback: the probe is attached, let the workload go. */
static void send_go(void *ctx)
{
	struct go *g = ctx;

	g->sent = write(g->fd, "g", 1) == 1;
}

/* Reap the workload, then stop the capture a little later. */
static void *watcher(void *arg)
{
	struct watch *w = arg;

	while (waitpid(w->pid, &w->status, 0) < 0 && errno == EINTR)
		;
	usleep(STOP_DELAY_US);
	__atomic_store_n(&w->stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Fork and exec the workload with stdin from a pipe whose write end goes
 * to *@go_fd; stdout to /dev/null, stderr to r->errfile, no other fds. */
static pid_t start_workload(const struct run *r, int *go_fd)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int err = open(r->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (null < 0 || err < 0 || dup2(p[0], 0) < 0 ||
		    dup2(null, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		closefrom(3);
		execl(r->bin, r->bin, r->wdir, (char *)NULL);
		dprintf(2, "exec %s: %s\n", r->bin, strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

/* Wait until @pid blocks in read(0, ...): its setup is done.  Gives up
 * (and lets the test fail) after 5 s, saying whether it exited. */
static void wait_blocked(const struct run *r, pid_t pid)
{
	int status;

	if (tu_wait_reading_stdin(pid))
		return;
	if (waitpid(pid, &status, WNOHANG) == pid) {
		char *text = tu_read(r->errfile, NULL);

		ck_abort_msg("workload %s ended before the capture (status "
			     "0x%x): %s", r->label, status, text ? text : "");
	}
	ck_abort_msg("workload %s did not block on stdin", r->label);
}

/* A process that writes r->noise_path in a loop until it is killed, or
 * its parent (the test) goes away. */
static void start_noise(struct run *r)
{
	pid_t parent = getpid();

	r->noise = fork();
	ck_assert_msg(r->noise >= 0, "fork: %s", strerror(errno));
	if (r->noise == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (getppid() == parent) {
			int fd = open(r->noise_path, O_WRONLY | O_CREAT |
				      O_TRUNC | O_CLOEXEC, 0644);

			if (fd < 0 || write(fd, "noise", 5) != 5)
				_exit(1);
			close(fd);
			usleep(2000);
		}
		_exit(0);
	}
}

static void stop_noise(struct run *r)
{
	int status;

	kill(r->noise, SIGKILL);
	waitpid(r->noise, &status, 0);
}

/* The sandbox path of @path for test "test", as the generator makes it. */
static char *sandbox_of(const char *path)
{
	struct mounttab *mt = mounttab_new();
	const struct mount_entry *m;
	bool root;
	char *s;

	ck_assert(mt && mounttab_load(mt, "/proc/self/mounts") == 0);
	m = mounttab_find(mt, path, strlen(path));
	ck_assert_msg(m, "%s: no mount", path);
	root = strcmp(m->dir, "/") == 0;
	ck_assert(asprintf(&s, "%s/.ioriot/test%s", root ? "" : m->dir,
			   path + (root ? 0 : m->dir_len)) > 0);
	mounttab_free(mt);
	return s;
}

/* True if this kernel's io_uring_complete tracepoint carries no request
 * (5.10), so that cqe records have no opcode (docs/capture-format.md
 * §10.1). */
static bool uring_complete_lacks_req(void)
{
	char *fmt = tu_read("/sys/kernel/tracing/events/io_uring/"
			    "io_uring_complete/format", NULL);
	bool lacks = fmt && !strstr(fmt, "void * req;");

	free(fmt);
	return lacks;
}

static void run_init(struct run *r, const struct workload *w, enum mode mode)
{
	const char *dir = getenv("IORIOT_WORKLOADS");
	char *scratch, *bin;

	memset(r, 0, sizeof(*r));
	r->w = w;
	r->mode = mode;
	snprintf(r->label, sizeof(r->label), "%s (%s)", w->name,
		 mode == BY_PID ? "-x" : mode == BY_COMM ? "--comm" :
		 "everything");
	ck_assert_msg(dir && *dir, "IORIOT_WORKLOADS is not set (make check "
		      "sets it to the directory of the built workloads)");
	bin = tu_join(dir, w->name);
	r->bin = realpath(bin, NULL);
	ck_assert_msg(r->bin, "%s: %s (build it with make %s)", bin,
		      strerror(errno), "$(OUTPUT)/workloads/NAME");
	free(bin);
	scratch = tu_scratch();
	r->dir = realpath(scratch, NULL);
	ck_assert(r->dir);
	free(scratch);
	r->wdir = tu_join(r->dir, "w");
	ck_assert_int_eq(mkdir(r->wdir, 0755), 0);
	ck_assert_int_eq(chmod(r->wdir, 0755), 0);	/* whatever the umask */
	r->sandbox = sandbox_of(r->wdir);
	r->log = tu_join(r->dir, "capture.log");
	r->replay = tu_join(r->dir, "test.replay");
	r->errfile = tu_join(r->dir, "stderr.txt");
	r->noise_path = tu_join(r->dir, "noise");
	r->cqe_no_op = uring_complete_lacks_req();
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		free((char *)r->ev[i].path);
		free((char *)r->ev[i].path2);
	}
	free(r->ev);
	free(r->dir);
	free(r->wdir);
	free(r->sandbox);
	free(r->bin);
	free(r->log);
	free(r->replay);
	free(r->errfile);
	free(r->noise_path);
}

/*
 * Capture the workload from start to exit into r->log.  The capture ends
 * when the watcher has seen the workload exit, never by a time of its own
 * (duration_ns 0: the default hour): a cap of 10 s once ended the capture
 * of the fd race's 48,000 writes while a busy host still ran them, and the
 * test blamed the capture for the writes it missed.  A workload that never
 * exits is the case's timeout's, which ends the test process and its probe.
 */
static void capture_workload(struct run *r)
{
	struct watch wt = { 0 };
	struct go go = { -1, false };
	struct capture_summary sum;
	struct capture_options opt = {
		.output = r->log,
		.stop = &wt.stop,
		.ready = send_go,
		.ready_ctx = &go,
	};
	const char *include[] = { r->wdir };
	char err[ERRLEN] = "";
	struct timespec deadline;
	pthread_t th;
	int rc;

	if (r->below_wdir) {
		opt.filter.include = include;
		opt.filter.ninclude = 1;
	}
	opt.sync = r->sync;
	/* The noise first: it must not hold the go pipe. */
	start_noise(r);
	r->pid = wt.pid = start_workload(r, &go.fd);
	r->vars[V_WPID] = r->pid;
	r->bound[V_WPID] = true;
	wait_blocked(r, r->pid);
	if (r->mode == BY_PID)
		opt.pid = (uint32_t)r->pid;
	else if (r->mode == BY_COMM)
		opt.comm = r->w->name;
	ck_assert_int_eq(pthread_create(&th, NULL, watcher, &wt), 0);
	rc = r->module ? capture_stap_run(&opt, r->module, &sum, err,
					  sizeof(err))
		       : capture_run(&opt, &sum, err, sizeof(err));
	/* Without the go byte the workload reads EOF and fails. */
	close(go.fd);
	stop_noise(r);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	if (pthread_timedjoin_np(th, NULL, &deadline) != 0) {
		kill(r->pid, SIGKILL);
		pthread_join(th, NULL);
	}
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);
	ck_assert_msg(go.sent, "the ready callback did not run");

	char *text = tu_read(r->errfile, NULL);
	ck_assert_msg(WIFEXITED(wt.status) && WEXITSTATUS(wt.status) == 0,
		      "workload %s failed (status 0x%x): %s", r->label,
		      wt.status, text ? text : "");
	free(text);
	/* The probe loses nothing of the workload's here.  SystemTap skips
	 * a probe now and then under emulation (a lock not taken in time
	 * while the host preempts a vCPU); a capture of the whole host takes
	 * every other process's events too, which on a busy host (another
	 * make check's fd race: 150,000 calls a second) can fill the ring
	 * faster than the reader, which competes for the CPUs, empties it.
	 * Either is counted as lost, whose ever event it was; the chains
	 * then show that the workload's events are all there. */
	if (sum.lost && (r->module || r->mode == EVERYTHING))
		printf("capture: %s: %llu events lost (%s)\n", r->label,
		       (unsigned long long)sum.lost, r->module ?
		       "skipped by SystemTap" : "the whole host's");
	else
		ck_assert_uint_eq(sum.lost, 0);
	r->lost = sum.lost;
	ck_assert_uint_gt(sum.events, 0);
	ck_assert_uint_gt(sum.bytes, 0);
}

/* Events and process records: what the end record's events counts. */
static uint64_t count_events(const struct cap_event *ev, size_t n)
{
	uint64_t events = 0;

	for (size_t i = 0; i < n; i++)
		events += ev[i].sys != SYS_CWD && ev[i].sys != SYS_OPENFD &&
			  ev[i].sys != SYS_LOST;
	return events;
}

/* The log @path, read to its end by @rd, ends with an end record that
 * counts the @n events read, and @lost lost. */
static void check_end(const char *path, const struct caplog_reader *rd,
		      const struct cap_event *ev, size_t n, uint64_t lost)
{
	const struct caplog_end *end = caplog_end_record(rd);
	size_t len;
	char *text = tu_read(path, &len), *last;

	ck_assert_msg(end, "%s: no end record", path);
	ck_assert_uint_eq(end->events, count_events(ev, n));
	ck_assert_uint_eq(end->lost, lost);
	ck_assert_uint_eq(end->lost_disk_full, 0);
	ck_assert_str_eq(end->error, "");
	ck_assert_uint_gt(end->duration_ns, 0);
	/* The very last line. */
	ck_assert(text && len > 0 && text[len - 1] == '\n');
	text[len - 1] = '\0';
	last = strrchr(text, '\n');
	ck_assert_msg(last && !strncmp(last + 1, "#|end|events=", 13),
		      "%s: last line: %s", path, last ? last + 1 : text);
	free(text);
}

/* Read every event of r->log into r->ev; the log must be clean. */
static void read_log(struct run *r)
{
	char err[ERRLEN];
	struct caplog_reader *rd = caplog_open(r->log, err, sizeof(err));
	struct cap_event ev;
	size_t cap = 0;
	int rc;

	ck_assert_msg(rd, "%s", err);
	ck_assert_int_eq(caplog_header(rd)->version, 4);
	ck_assert_str_eq(caplog_header(rd)->backend,
			 r->module ? "systemtap" : "bpf");
	while ((rc = caplog_next(rd, &ev)) == 1) {
		if (r->nev == cap) {
			cap = cap ? 2 * cap : 256;
			r->ev = realloc(r->ev, cap * sizeof(*r->ev));
			ck_assert(r->ev);
		}
		ev.path = strdup(ev.path ? ev.path : "");
		ev.path2 = strdup(ev.path2 ? ev.path2 : "");
		ck_assert(ev.path && ev.path2);
		r->ev[r->nev++] = ev;
	}
	ck_assert_int_eq(rc, 0);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(rd, why) == 0, "%s: %llu lines: %s",
			      r->log, (unsigned long long)caplog_bad(rd, why),
			      caplog_bad_name(why));
	check_end(r->log, rd, r->ev, r->nev, r->lost);
	caplog_close(rd);
}

/* Print the log's event lines to stderr, to see why a match failed (only
 * the workload's, when everything was captured). */
static void dump_log(const struct run *r)
{
	char *text = tu_read(r->log, NULL);
	unsigned line = 0;
	char mine[32];

	snprintf(mine, sizeof(mine), "i=%d:", r->pid);
	fprintf(stderr, "---- %s (workload %s, pid %d, dir %s)\n", r->log,
		r->label, r->pid, r->wdir);
	for (char *s = text, *nl; s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s) - 1;
		line++;
		if (*s != '#' && (r->mode != EVERYTHING ||
				  memmem(s, (size_t)(nl - s), mine, strlen(mine))))
			fprintf(stderr, "%4u %.*s\n", line, (int)(nl - s), s);
	}
	fprintf(stderr, "----\n");
	free(text);
}

/*
 * ioriot's own events never appear.  Capturing by pid or name, only the
 * workload and the processes it forked do; capturing everything, the noise
 * process does too.
 */
static void check_pids(struct run *r)
{
	uint32_t *pids = r->family;
	size_t n = 0;
	bool noise = false;

	pids[n++] = (uint32_t)r->pid;
	for (size_t i = 0; i < r->nev; i++) {
		const struct cap_event *e = &r->ev[i];
		bool known = false;

		if (e->sys == SYS_LOST)		/* i=0:0, no process's */
			continue;
		ck_assert_msg(e->pid != (uint32_t)getpid(),
			      "line %llu: an event of ioriot itself (pid %u)",
			      (unsigned long long)e->lineno, e->pid);
		noise |= e->pid == (uint32_t)r->noise &&
			 strcmp(e->path, r->noise_path) == 0;
		for (size_t j = 0; j < n; j++)
			known |= pids[j] == e->pid;
		if (!known && r->mode == EVERYTHING)
			continue;
		if (!known)
			dump_log(r);
		ck_assert_msg(known, "line %llu: pid %u is neither workload "
			      "pid %d nor a process it forked",
			      (unsigned long long)e->lineno, e->pid, r->pid);
		if (e->sys == SYS_FORK && (e->have & CAP_CHILD) &&
		    e->child_pid != e->pid) {
			ck_assert(n < sizeof(r->family) / sizeof(r->family[0]));
			pids[n++] = e->child_pid;
		}
	}
	r->nfamily = n;
	if (r->mode == EVERYTHING)
		ck_assert_msg(noise, "no event of the noise process (pid %d) "
			      "in a capture of everything", r->noise);
}

/* True if @pid is the workload or a process it forked (check_pids). */
static bool in_family(const struct run *r, uint32_t pid)
{
	for (size_t i = 0; i < r->nfamily; i++)
		if (r->family[i] == pid)
			return true;
	return false;
}

/* Per thread of the workload, entry times never go back in file order
 * (records are sent when a syscall returns); every duration is shorter
 * than the case's timeout, 60 s: a longer one is no call the workload
 * made but a wrong entry time (an fsync on a busy host's shared scratch
 * disk may wait seconds behind other processes' writeback, so not 1 s).
 * Not io_uring's sqe and cqe records: they carry the ring's thread but
 * happen elsewhere too (its SQPOLL thread, an io-wq worker), while that
 * thread waits in io_uring_enter, whose line comes after them when the
 * call outlasts the capture's reorder window (slow guests). */
static void check_times(const struct run *r)
{
	uint32_t tids[64];
	uint64_t last[64];
	size_t n = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct cap_event *e = &r->ev[i];
		size_t t;

		if (!in_family(r, e->pid))
			continue;
		ck_assert_msg(e->dur_ns < 60000000000ULL, "line %llu: D=%llu",
			      (unsigned long long)e->lineno,
			      (unsigned long long)e->dur_ns);
		if (e->sys == SYS_SQE || e->sys == SYS_CQE)
			continue;
		for (t = 0; t < n && tids[t] != e->tid; t++)
			;
		if (t == n) {
			ck_assert(n < sizeof(tids) / sizeof(tids[0]));
			tids[n] = e->tid;
			last[n++] = 0;
		}
		ck_assert_msg(e->time_ns >= last[t], "line %llu: time %llu is "
			      "before the thread's last event (%llu)",
			      (unsigned long long)e->lineno,
			      (unsigned long long)e->time_ns,
			      (unsigned long long)last[t]);
		last[t] = e->time_ns;
	}
}

/* The absolute path an expected path stands for, into @buf. */
static const char *expected_path(const struct run *r, const char *p,
				 char *buf, size_t len)
{
	if (p[0] == '=')
		return p + 1;
	if (strcmp(p, "@bin") == 0)
		return r->bin;
	if (!p[0] || strcmp(p, ".") == 0)
		return r->wdir;
	if (p[0] == '/')
		return p;
	snprintf(buf, len, "%s/%s", r->wdir, p);
	return buf;
}

/* Compare @v with variable @var (0: none), binding it if unbound. */
static bool var_match(int64_t *vars, bool *bound, int var, int64_t v)
{
	if (!var)
		return true;
	if (!bound[var]) {
		vars[var] = v;
		bound[var] = true;
		return true;
	}
	return vars[var] == v;
}

/* The numeric fields compared through @have. */
static const struct {
	unsigned bit;
	size_t ev, exp;
} numbers[] = {
	{ CAP_FD, offsetof(struct cap_event, fd), offsetof(struct exp, fd) },
	{ CAP_FD2, offsetof(struct cap_event, fd2), offsetof(struct exp, fd2) },
	{ CAP_MODE, offsetof(struct cap_event, mode), offsetof(struct exp, mode) },
	{ CAP_OFFSET, offsetof(struct cap_event, offset),
	  offsetof(struct exp, offset) },
	{ CAP_OFFSET2, offsetof(struct cap_event, offset2),
	  offsetof(struct exp, offset2) },
	{ CAP_COUNT, offsetof(struct cap_event, count),
	  offsetof(struct exp, count) },
	{ CAP_WHENCE, offsetof(struct cap_event, whence),
	  offsetof(struct exp, whence) },
	{ CAP_CMD, offsetof(struct cap_event, cmd), offsetof(struct exp, cmd) },
	{ CAP_ARG, offsetof(struct cap_event, arg), offsetof(struct exp, arg) },
	{ CAP_SIZE, offsetof(struct cap_event, size), offsetof(struct exp, size) },
	{ CAP_RET, offsetof(struct cap_event, ret), offsetof(struct exp, ret) },
	{ CAP_BUF, offsetof(struct cap_event, buf_index),
	  offsetof(struct exp, buf_index) },
	{ CAP_UMASK, offsetof(struct cap_event, umask),
	  offsetof(struct exp, umask) },
};

static int64_t field(const void *base, size_t off)
{
	int64_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

/* True if @e is what @x expects; binds variables in @vars / @bound. */
static bool matches(const struct run *r, const struct exp *x,
		    const struct cap_event *e, int64_t *vars, bool *bound)
{
	int pid_var = x->v_pid ? x->v_pid : V_WPID;
	unsigned have = x->have;
	char buf[8192];

	if (x->sys == SYS_CQE && r->cqe_no_op)
		have &= ~CAP_CMD;
	if (e->sys != x->sys || !bound[pid_var] || e->pid != vars[pid_var])
		return false;
	if (x->v_tid ? !bound[x->v_tid] || e->tid != vars[x->v_tid] :
	    !x->any_tid && e->tid != e->pid)
		return false;
	if ((e->have & have) != have || (e->have & x->lacks))
		return false;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if ((have & numbers[i].bit) &&
		    field(e, numbers[i].ev) != field(x, numbers[i].exp))
			return false;
	if ((have & CAP_FLAGS) &&
	    (x->flags_mask ? e->flags & x->flags_mask : e->flags) != x->flags)
		return false;
	if ((have & CAP_PATH) &&
	    strcmp(e->path, expected_path(r, x->path, buf, sizeof(buf))))
		return false;
	if ((have & CAP_PATH2) &&
	    strcmp(e->path2, expected_path(r, x->path2, buf, sizeof(buf))))
		return false;
	if (x->ret_positive && (!(e->have & CAP_RET) || e->ret <= 0))
		return false;
	if (x->v_addr && !(e->have & CAP_ADDR))
		return false;
	if ((x->v_ret && !(e->have & CAP_RET)) ||
	    (x->v_fd && !(e->have & CAP_FD)) ||
	    (x->v_fd2 && !(e->have & CAP_FD2)) ||
	    ((x->v_child || x->v_ctid) && !(e->have & CAP_CHILD)))
		return false;
	return var_match(vars, bound, x->v_addr,
			 (int64_t)(e->addr - (uint64_t)x->addr_off)) &&
	       var_match(vars, bound, x->v_ret, e->ret) &&
	       var_match(vars, bound, x->v_fd, e->fd) &&
	       var_match(vars, bound, x->v_fd2, e->fd2) &&
	       var_match(vars, bound, x->v_child, e->child_pid) &&
	       var_match(vars, bound, x->v_ctid, e->child_tid);
}

/* Find @chain as a subsequence of the log's events, in order, binding
 * its variables in @r.  Returns -1, or the index of the first event not
 * found (*@from: the event after which it was looked for). */
static int find_chain(struct run *r, const struct exp *chain, size_t *from)
{
	*from = 0;
	for (int i = 0; chain[i].sys != SYS_COUNT; i++) {
		bool found = false;

		for (size_t j = *from; j < r->nev && !found; j++) {
			int64_t vars[NVARS];
			bool bound[NVARS];

			memcpy(vars, r->vars, sizeof(vars));
			memcpy(bound, r->bound, sizeof(bound));
			if (matches(r, &chain[i], &r->ev[j], vars, bound)) {
				memcpy(r->vars, vars, sizeof(vars));
				memcpy(r->bound, bound, sizeof(bound));
				*from = j + 1;
				found = true;
				r->matched++;
			}
		}
		if (!found)
			return i;
	}
	return -1;
}

/* Find @chain (number @ci) as find_chain() does; fail if it is not there. */
static void match_chain(struct run *r, const struct exp *chain, int ci)
{
	size_t from;
	int i = find_chain(r, chain, &from);
	const struct exp *x = &chain[i < 0 ? 0 : i];
	char buf[8192];

	if (i < 0)
		return;
	dump_log(r);
	ck_abort_msg("%s: chain %d, event %d (o=%s%s%s) not found after line "
		     "%llu", r->label, ci, i, sys_info(x->sys)->name,
		     x->path ? " p=" : "",
		     x->path ? expected_path(r, x->path, buf, sizeof(buf)) : "",
		     from ? (unsigned long long)r->ev[from - 1].lineno : 0ULL);
}

/* The log's pids and times, and every chain of the workload in it. */
static void check_chains(struct run *r)
{
	check_pids(r);
	check_times(r);
	for (int c = 0; r->w->chains[c]; c++)
		match_chain(r, r->w->chains[c], c);
	printf("capture: %s: %zu expected events matched, %zu records in the "
	       "log\n", r->label, r->matched, r->nev);
}

/* Whether every chain of the workload is in the log; @r as it was. */
static bool chains_present(struct run *r)
{
	int64_t vars[NVARS];
	bool bound[NVARS], ok = true;
	size_t matched = r->matched, from;

	memcpy(vars, r->vars, sizeof(vars));
	memcpy(bound, r->bound, sizeof(bound));
	for (int c = 0; ok && r->w->chains[c]; c++)
		ok = find_chain(r, r->w->chains[c], &from) < 0;
	memcpy(r->vars, vars, sizeof(vars));
	memcpy(r->bound, bound, sizeof(bound));
	r->matched = matched;
	return ok;
}

/* @spec with %S, %vN and bound $X replaced, into @out. */
static void expand(const struct run *r, const char *spec, char *out,
		   size_t len)
{
	size_t n = 0;

	for (const char *s = spec; *s; s++) {
		const char *add = NULL;
		char num[32];

		if (s[0] == '%' && s[1] == 'S') {
			add = r->sandbox;
			s++;
		} else if (s[0] == '%' && s[1] == 'v') {
			char *end;
			long v = strtol(s + 2, &end, 10);

			ck_assert(v > 0 && v < NVARS && r->bound[v]);
			snprintf(num, sizeof(num), "%lld", (long long)r->vars[v]);
			add = num;
			s = end - 1;
		} else if (s[0] == '$' && s[1] >= 'A' && s[1] <= 'Z' &&
			   r->rvars[s[1] - 'A'][0]) {
			add = r->rvars[s[1] - 'A'];
			s++;
		}
		if (add) {
			ck_assert(n + strlen(add) < len);
			memcpy(out + n, add, strlen(add));
			n += strlen(add);
		} else {
			ck_assert(n + 1 < len);
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

/* True if the space-separated fields of @line hold @tok; an unbound "$X"
 * at the end of @tok matches any rest and binds it into @bind. */
static bool has_token(const char *line, size_t len, const char *tok,
		      size_t toklen, char *bind)
{
	const char *dollar = memchr(tok, '$', toklen);
	size_t fixed = dollar ? (size_t)(dollar - tok) : toklen;

	for (size_t i = 0; i < len;) {
		size_t end = i;

		while (end < len && line[end] != ' ')
			end++;
		if (dollar ? end - i > fixed && !memcmp(line + i, tok, fixed)
			   : end - i == toklen && !memcmp(line + i, tok, toklen)) {
			if (dollar)
				snprintf(bind, 64, "%.*s", (int)(end - i - fixed),
					 line + i + fixed);
			return true;
		}
		i = end + 1;
	}
	return false;
}

/* True if @line (@len bytes) holds every token of @spec; binds $X. */
static bool line_matches(struct run *r, const char *line, size_t len,
			 const char *spec)
{
	char binds[26][64];
	bool bound_here[26] = { false };

	for (const char *t = spec; *t;) {
		size_t tl = strcspn(t, " ");
		const char *dollar = memchr(t, '$', tl);
		int v = dollar ? dollar[1] - 'A' : -1;

		/* cppcheck-suppress legacyUninitvar ; the caller bound each $X */
		if (!has_token(line, len, t, tl, v >= 0 ? binds[v] : NULL))
			return false;
		if (v >= 0)
			bound_here[v] = true;
		t += tl;
		while (*t == ' ')
			t++;
	}
	for (int v = 0; v < 26; v++)
		if (bound_here[v])
			memcpy(r->rvars[v], binds[v], sizeof(binds[v]));
	return true;
}

/* Generate a replay file from r->log and look for the workload's lines. */
static void check_replay(struct run *r)
{
	struct gen_options go = {
		.capture_path = r->log,
		.replay_path = r->replay,
		.name = "test",
		.user = "u",
	};
	struct gen_summary sum;
	char err[ERRLEN] = "", spec[8192];
	char *text;
	int rc;

	log_set_level(LOG_ERROR);
	rc = generate_run(&go, &sum, err, sizeof(err));
	ck_assert_msg(rc == 0, "generate: %s (%d)", err, rc);
	ck_assert_int_eq(sum.capture_version, 4);
	ck_assert_uint_gt(sum.ops, 0);
	ck_assert_uint_eq(sum.lost_events, r->lost);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_uint_eq(sum.bad[why], 0);
	text = tu_read(r->replay, NULL);
	ck_assert_msg(text, "%s: %s", r->replay, strerror(errno));
	ck_assert_msg(strncmp(text, "#|replay_version=1|name=test|user=u|",
			      36) == 0, "replay header: %.60s", text);
	for (const char *const *s = r->w->replay; *s; s++) {
		bool found = false;

		expand(r, *s, spec, sizeof(spec));
		for (const char *l = text, *nl; *l && !found; l = nl + 1) {
			nl = strchr(l, '\n');
			if (!nl)
				nl = l + strlen(l) - 1;
			found = line_matches(r, l, (size_t)(nl - l), spec);
		}
		if (!found)
			fprintf(stderr, "---- %s\n%s----\n", r->replay, text);
		ck_assert_msg(found, "%s: no replay line with: %s", r->label,
			      spec);
	}
	/* Last, so that everything else has been checked when it fails. */
	ck_assert_msg(r->mode == EVERYTHING || strstr(text, r->w->counts),
		      "%s: the replay header lacks %s:\n%.300s", r->label,
		      r->w->counts, text);
	free(text);
}

/*
 * Exactly the faults of mmapio.h in the workload's mappings: each page
 * read at the start of a 64 KiB window faults, each page written faults
 * once until the msync writes it back; the page of the mapping made
 * before the capture too.
 */
static void mmapio_check(const struct run *r)
{
	uint64_t shared = (uint64_t)r->vars[4], priv = (uint64_t)r->vars[5];
	uint64_t early = (uint64_t)r->vars[6];
	size_t reads = 0, writes = 0, priv_reads = 0, early_reads = 0;
	size_t other = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct cap_event *e = &r->ev[i];

		if (e->pid != (uint32_t)r->pid ||
		    sys_info(e->sys)->kind != SK_MAPPAGE)
			continue;
		if (e->addr - shared < MAP_LEN)
			e->sys == SYS_MMAP_READ ? reads++ : writes++;
		/* The private mapping may get the early one's address. */
		else if (e->addr == priv &&
			 e->offset == MMAPIO_PRIV_PAGE * MMAPIO_PAGE)
			e->sys == SYS_MMAP_READ ? priv_reads++ : other++;
		else if (e->addr == early &&
			 e->offset == MMAPIO_EARLY_PAGE * MMAPIO_PAGE)
			e->sys == SYS_MMAP_READ ? early_reads++ : other++;
		else
			other++;	/* ld.so.cache, libraries' data */
	}
	ck_assert_uint_eq(reads, 3);
	ck_assert_uint_eq(writes, 5);
	ck_assert_uint_eq(priv_reads, 1);
	ck_assert_uint_eq(early_reads, 1);
	(void)other;
}

/* Checks of a workload beyond its chains, by name. */
static const struct {
	const char *name;
	void (*check)(const struct run *r);
} more_checks[] = {
	{ "mmapio", mmapio_check },
};

START_TEST(test_workload)
{
	const char *why = tu_cannot_capture();
	struct run r;

	if (why) {
		printf("capture: test %s skipped: %s\n", cases[_i].w->name, why);
		return;
	}
	/* A capture of the whole host that lost events (capture_workload())
	 * and with them an expected one is made again, twice at most; the
	 * third is checked whatever it lost. */
	for (int attempt = 1;; attempt++) {
		run_init(&r, cases[_i].w, cases[_i].mode);
		capture_workload(&r);
		read_log(&r);
		if (!r.lost || attempt == 3 || chains_present(&r))
			break;
		printf("capture: %s: events lost, an expected event is "
		       "missing: captured again\n", r.label);
		run_free(&r);
	}
	check_chains(&r);
	for (size_t c = 0; c < sizeof(more_checks) / sizeof(more_checks[0]); c++)
		if (!strcmp(more_checks[c].name, r.w->name))
			more_checks[c].check(&r);
	check_replay(&r);
	run_free(&r);
}
END_TEST

/*
 * The same workloads captured with the SystemTap module that
 * IORIOT_STAP_MODULE names (make check-vm builds it for its guest's kernel
 * and sets it there; this kernel has no loadable modules), each log checked
 * event by event and generated like the BPF ones, and with its record of
 * the syscalls not captured (from the module's counts).  Not aio, uring
 * and mmapio: the script does not capture them.  fileio captured with
 * everything else lost its fstat's line at times on 5.10 (under
 * emulation).
 */
static const struct {
	const struct workload *w;
	enum mode mode;
} stap_cases[] = {
	{ &workloads[0], BY_PID },
	{ &workloads[1], BY_PID },
	{ &workloads[2], BY_PID },
	{ &workloads[3], BY_PID },
	{ &workloads[4], BY_PID },
	{ &workloads[3], BY_COMM },
	{ &workloads[4], EVERYTHING },
};

#define NSTAP_CASES ((int)(sizeof(stap_cases) / sizeof(stap_cases[0])))

START_TEST(test_stap_workload)
{
	const char *module = getenv("IORIOT_STAP_MODULE");
	struct run r;

	if (geteuid() != 0 || !module || !*module) {
		printf("capture: systemtap test %s skipped: %s\n",
		       stap_cases[_i].w->name, geteuid() ? "not root" :
		       "IORIOT_STAP_MODULE not set (make check-vm sets it)");
		return;
	}
	/*
	 * A capture in which SystemTap skipped probes (counted as lost; under
	 * emulation now and then) and that misses an expected event is made
	 * again, twice at most; the third is checked whatever it lost.
	 */
	for (int attempt = 1;; attempt++) {
		run_init(&r, stap_cases[_i].w, stap_cases[_i].mode);
		r.module = module;
		snprintf(r.label, sizeof(r.label), "%s (%s, systemtap)",
			 r.w->name, r.mode == BY_PID ? "-x" :
			 r.mode == BY_COMM ? "--comm" : "everything");
		capture_workload(&r);
		read_log(&r);
		if (!r.lost || attempt == 3 || chains_present(&r))
			break;
		printf("capture: %s: SystemTap skipped probes, an expected "
		       "event is missing: captured again\n", r.label);
		run_free(&r);
	}
	check_chains(&r);
	char *text = tu_read(r.log, NULL);
	ck_assert_msg(text && strstr(text, "\n" UNCAP_PREFIX),
		      "%s: no uncaptured record", r.label);
	free(text);
	check_replay(&r);
	run_free(&r);
}
END_TEST

/* Lines of the replay file r->replay with @op as their operation. */
static size_t replay_ops(const struct run *r, const char *op)
{
	char *text = tu_read(r->replay, NULL), *line, *save = NULL;
	char sys[32];
	size_t n = 0;

	ck_assert_msg(text, "%s: %s", r->replay, strerror(errno));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%*u %*s %*u %*u %*s %31s", sys) == 1 &&
		    !strcmp(sys, op))
			n++;
	free(text);
	return n;
}

/*
 * Threads that open, write and close as fast as they can on busy CPUs
 * (tests/workloads/fdrace.c) reuse each other's fd numbers all the time,
 * with overlapping opens and closes.  Captured with --include (the capture
 * follows each fd to its path to filter it), every write must be in the log,
 * and in the replay file the generator makes of it.
 */
START_TEST(test_fd_race)
{
	static const char *const no_lines[] = { NULL };
	static const struct workload fdrace = {
		.name = "fdrace", .replay = no_lines, .counts = "|processes=1|"
	};
	const size_t want = FDRACE_THREADS * FDRACE_ITERS;
	const char *why = tu_cannot_capture();
	size_t writes = 0;
	struct run r;

	if (why) {
		printf("capture: test fdrace skipped: %s\n", why);
		return;
	}
	run_init(&r, &fdrace, BY_PID);
	r.below_wdir = true;
	capture_workload(&r);
	read_log(&r);
	for (size_t i = 0; i < r.nev; i++)
		writes += r.ev[i].sys == SYS_WRITE &&
			  r.ev[i].ret == FDRACE_BYTES;
	ck_assert_msg(writes == want, "%zu writes captured of %zu", writes,
		      want);
	check_replay(&r);
	ck_assert_uint_eq(replay_ops(&r, "write"), want);
	ck_assert_uint_eq(replay_ops(&r, "close"), want);
	run_free(&r);
}
END_TEST

/*
 * A daemon: the workload runs (blocked on its go byte) before the whole
 * host's capture begins, and never execs while captured.  The /proc
 * snapshot names it (its cwd record's P is its comm), so generate's
 * --only-comm selects it by that name and nothing of other processes.
 */
START_TEST(test_daemon_comm)
{
	const char *const comms[] = { workloads[0].name };
	struct gen_filters f = { .comms = comms, .ncomms = 1 };
	const char *why = tu_cannot_capture();
	char err[ERRLEN] = "", own[32];
	struct gen_summary sum;
	bool named = false;
	char *text;
	struct run r;

	if (why) {
		printf("capture: test daemon_comm skipped: %s\n", why);
		return;
	}
	run_init(&r, &workloads[0], EVERYTHING);
	r.below_wdir = true;
	capture_workload(&r);
	read_log(&r);
	for (size_t i = 0; i < r.nev; i++)
		named |= r.ev[i].sys == SYS_CWD && r.ev[i].pid == (uint32_t)r.pid &&
			 (r.ev[i].have & CAP_PATH2) &&
			 !strcmp(r.ev[i].path2, workloads[0].name);
	ck_assert_msg(named, "no cwd record names %d %s", (int)r.pid,
		      workloads[0].name);

	struct gen_options go = {
		.capture_path = r.log, .replay_path = r.replay, .name = "test",
		.user = "u", .filters = &f,
	};
	log_set_level(LOG_ERROR);
	ck_assert_msg(generate_run(&go, &sum, err, sizeof(err)) == 0, "%s", err);
	text = tu_read(r.replay, NULL);
	ck_assert_uint_gt(sum.ops, 0);
	snprintf(own, sizeof(own), " %d:", (int)r.pid);
	/* Every operation line ("ID PID:TID ...", up to #END) is the
	 * workload's. */
	const char *l = strstr(text, "#OPS\n"), *nl;
	ck_assert(l);
	for (l += 5; *l != '#' && (nl = strchr(l, '\n')); l = nl + 1) {
		const char *sp = strchr(l, ' ');

		ck_assert_msg(sp && !strncmp(sp, own, strlen(own)),
			      "not the workload's: %.80s", l);
	}
	free(text);
	run_free(&r);
}
END_TEST

/* The aio and uring workloads, in a directory below --include and in one
 * outside it, all started once the probe records. */
struct async_pair {
	const char *dirs[2];	/* inside, outside */
	pid_t pids[4];		/* aio, uring inside; aio, uring outside */
	int status[4];
	int started;		/* set once all four run */
	volatile sig_atomic_t stop;
};

static void start_async_pair(void *ctx)
{
	static const char *const progs[] = { "aio", "uring" };
	struct async_pair *a = ctx;
	const char *dir = getenv("IORIOT_WORKLOADS");

	for (int i = 0; i < 4; i++) {
		char *bin = tu_join(dir, progs[i % 2]);
		pid_t pid = fork();

		if (pid == 0) {
			int null = open("/dev/null", O_RDWR);

			if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
			    dup2(null, 2) < 0)
				_exit(126);
			execl(bin, bin, a->dirs[i / 2], (char *)NULL);
			_exit(127);
		}
		a->pids[i] = pid;
		free(bin);
	}
	__atomic_store_n(&a->started, 1, __ATOMIC_SEQ_CST);
}

static void *wait_async_pair(void *arg)
{
	struct async_pair *a = arg;

	while (!__atomic_load_n(&a->started, __ATOMIC_SEQ_CST) && !a->stop)
		usleep(1000);
	for (int i = 0; i < 4 && a->pids[i] > 0; i++)
		while (waitpid(a->pids[i], &a->status[i], 0) < 0 &&
		       errno == EINTR)
			;
	usleep(STOP_DELAY_US);
	__atomic_store_n(&a->stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * --include is a filter for the calls without a path too: a whole-host
 * capture below one directory, where the aio and uring workloads run, and
 * beside it the same two in a directory outside.  Their AIO and io_uring
 * requests, submits, enters, waits and completions all name the captured
 * ones' processes (the others' set-ups and registers stay,
 * asyncfilter.h); both kinds of each captured workload are there.
 */
START_TEST(test_include_async)
{
	static const char *const async_ops[] = {
		"io_submit", "io_getevents", "io_destroy", "iocb", "io_event",
		"io_uring_enter", "sqe", "cqe",
	};
	const char *why = tu_cannot_capture();
	char *scratch = tu_scratch(), *in, *out, *log, err[ERRLEN] = "";
	struct async_pair a = { .pids = { -1, -1, -1, -1 } };
	const char *include[1];
	struct capture_summary sum;
	unsigned ours[2] = { 0, 0 }, others = 0;
	struct caplog_reader *rd;
	struct cap_event ev;
	pthread_t th;
	int rc;

	if (why) {
		printf("capture: test include_async skipped: %s\n", why);
		free(scratch);
		return;
	}
	in = tu_join(scratch, "in");
	out = tu_join(scratch, "out");
	log = tu_join(scratch, "io.capture");
	ck_assert_int_eq(mkdir(in, 0755), 0);
	ck_assert_int_eq(mkdir(out, 0755), 0);
	a.dirs[0] = include[0] = in;
	a.dirs[1] = out;
	struct capture_options opt = {
		.output = log, .stop = &a.stop, .ready = start_async_pair,
		.ready_ctx = &a, .filter = { .include = include, .ninclude = 1 },
	};
	ck_assert_int_eq(pthread_create(&th, NULL, wait_async_pair, &a), 0);
	rc = capture_run(&opt, &sum, err, sizeof(err));
	a.stop = 1;
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);
	for (int i = 0; i < 4; i++)
		ck_assert_msg(WIFEXITED(a.status[i]) &&
			      WEXITSTATUS(a.status[i]) == 0,
			      "workload %d: status 0x%x", i, a.status[i]);

	rd = caplog_open(log, err, sizeof(err));
	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) > 0) {
		const char *name = sys_info(ev.sys)->name;
		bool async = false;

		for (size_t i = 0; i < sizeof(async_ops) / sizeof(*async_ops); i++)
			async |= !strcmp(name, async_ops[i]);
		if (!async)
			continue;
		if (ev.pid == (uint32_t)a.pids[0])
			ours[0]++;
		else if (ev.pid == (uint32_t)a.pids[1])
			ours[1]++;
		else if (ev.pid == (uint32_t)a.pids[2] ||
			 ev.pid == (uint32_t)a.pids[3]) {
			if (!others++)
				snprintf(err, sizeof(err), "%s of %u (fd %lld, "
					 "ring %lld)", name, ev.pid,
					 (long long)ev.fd, (long long)ev.fd2);
		}
	}
	ck_assert_int_eq(rc, 0);
	caplog_close(rd);
	/* aio: 2 submits of 4 iocbs, 2 waits for 4 events, a destroy; uring:
	 * 11 requests and their completions, and the enters. */
	ck_assert_msg(ours[0] == 21 && ours[1] >= 22 + 2 && others == 0,
		      "AIO and io_uring lines: aio inside %u, uring inside %u, "
		      "outside %u (the first: %s)", ours[0], ours[1], others,
		      others ? err : "");
	free(log);
	free(in);
	free(out);
	free(scratch);
}
END_TEST

/* Two fileio workloads blocked on their go pipes; both let go once the
 * probe records. */
struct cgroup_pair {
	pid_t pids[2];
	int go[2];
	int status[2];
	volatile sig_atomic_t stop;
};

static void go_cgroup_pair(void *ctx)
{
	struct cgroup_pair *c = ctx;

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(write(c->go[i], "g", 1), 1);
		close(c->go[i]);
	}
}

static void *wait_cgroup_pair(void *arg)
{
	struct cgroup_pair *c = arg;

	for (int i = 0; i < 2; i++)
		while (waitpid(c->pids[i], &c->status[i], 0) < 0 &&
		       errno == EINTR)
			;
	usleep(STOP_DELAY_US);
	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Fork the fileio workload in @dir, blocked on a pipe whose write end
 * goes to *@go_fd. */
static pid_t start_fileio(const char *dir, int *go_fd)
{
	char *bin = tu_join(getenv("IORIOT_WORKLOADS"), "fileio");
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(p[0], 0) < 0 || dup2(null, 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(126);
		execl(bin, bin, dir, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	free(bin);
	return pid;
}

/*
 * --cgroup: a whole-host capture of one cgroup, a private cgroup2 mount's
 * child (0) or a v1 blkio hierarchy's (1), with one fileio workload in it
 * and one beside it: the log holds the first's events, nothing of the
 * second, and the /proc snapshot only the processes in the cgroup.
 */
START_TEST(test_cgroup_capture)
{
	const char *why = tu_cannot_capture();
	char *scratch = tu_scratch(), *cg = NULL, *procs, *mnt = NULL;
	char err[ERRLEN] = "", pidtext[32], *dirs[2], *log;
	struct cgroup_pair c = { .pids = { -1, -1 } };
	struct cgroup_sel sel;
	struct capture_summary sum;
	unsigned events[2] = { 0, 0 }, snapshot = 0;
	struct caplog_reader *rd;
	struct cap_event ev;
	pthread_t th;
	int rc;

	if (!why && _i == 1 && access("/sys/fs/cgroup/blkio/cgroup.procs",
				      F_OK))
		why = "no cgroup v1 blkio hierarchy at /sys/fs/cgroup/blkio";
	if (why) {
		printf("capture: test cgroup_capture %d skipped: %s\n", _i, why);
		free(scratch);
		return;
	}
	if (_i == 0) {
		/* In this test's own mount namespace: the mount goes with
		 * it, also when a check fails. */
		ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
		ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE,
				       NULL), 0);
		mnt = tu_join(scratch, "cgroup2");
		ck_assert_int_eq(mkdir(mnt, 0755), 0);
		ck_assert_msg(mount("none", mnt, "cgroup2", 0, NULL) == 0,
			      "mount cgroup2: %s", strerror(errno));
		ck_assert(asprintf(&cg, "%s/ioriot-test.%d", mnt,
				   (int)getpid()) > 0);
	} else {
		ck_assert(asprintf(&cg, "/sys/fs/cgroup/blkio/ioriot-test.%d",
				   (int)getpid()) > 0);
	}
	ck_assert_msg(mkdir(cg, 0755) == 0, "%s: %s", cg, strerror(errno));
	rc = cgroup_sel_resolve(cg, "/proc/self/mountinfo", "/proc/cgroups",
				&sel, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	for (int i = 0; i < 2; i++) {
		char name[8];

		snprintf(name, sizeof(name), "w%d", i);
		dirs[i] = tu_join(scratch, name);
		ck_assert_int_eq(mkdir(dirs[i], 0755), 0);
		c.pids[i] = start_fileio(dirs[i], &c.go[i]);
	}
	procs = tu_join(cg, "cgroup.procs");
	snprintf(pidtext, sizeof(pidtext), "%d\n", (int)c.pids[0]);
	free(tu_write_str(cg, "cgroup.procs", pidtext));
	log = tu_join(scratch, "io.capture");
	struct capture_options opt = {
		.output = log, .stop = &c.stop, .ready = go_cgroup_pair,
		.ready_ctx = &c, .cgroup = &sel,
	};
	ck_assert_int_eq(pthread_create(&th, NULL, wait_cgroup_pair, &c), 0);
	rc = capture_run(&opt, &sum, err, sizeof(err));
	if (rc) {	/* the workloads read EOF and end */
		close(c.go[0]);
		close(c.go[1]);
	}
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);

	rd = caplog_open(log, err, sizeof(err));
	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) > 0) {
		if (ev.sys == SYS_CWD || ev.sys == SYS_OPENFD)
			snapshot += ev.pid != (uint32_t)c.pids[0];
		for (int i = 0; i < 2; i++)
			events[i] += ev.pid == (uint32_t)c.pids[i];
	}
	ck_assert_int_eq(rc, 0);
	caplog_close(rd);
	for (int i = 0; i < 2; i++)
		ck_assert_msg(WIFEXITED(c.status[i]) &&
			      WEXITSTATUS(c.status[i]) == 0,
			      "workload %d: status 0x%x", i, c.status[i]);
	ck_assert_msg(events[0] >= 20 && events[1] == 0 && snapshot == 0,
		      "events in the cgroup %u, beside it %u; snapshot records "
		      "of other processes %u", events[0], events[1], snapshot);
	/* Empty again (the workload ended): the cgroup can go. */
	ck_assert_msg(rmdir(cg) == 0, "%s: %s", cg, strerror(errno));
	if (mnt) {
		ck_assert_int_eq(umount(mnt), 0);
		free(mnt);
	}
	for (int i = 0; i < 2; i++)
		free(dirs[i]);
	free(procs);
	free(log);
	free(cg);
	free(scratch);
}
END_TEST

/* chroot_capture's process: chroot to @root, wait for the go byte on
 * @go, then write "/data/c.db" as its root has it.  Exits 0 or 1. */
static void chrooted_writer(const char *root, const char *unused, int go)
{
	char byte;
	long fd;

	(void)unused;
	if (chroot(root) || chdir("/") || read(go, &byte, 1) != 1)
		_exit(1);
	fd = syscall(SYS_openat, AT_FDCWD, "/data/c.db",
		     O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || syscall(SYS_write, fd, "0123456789abcdef", 16) != 16 ||
	    syscall(SYS_fsync, fd) || syscall(SYS_close, fd))
		_exit(1);
	_exit(0);
}

static void go_writer(void *ctx)
{
	int *go = ctx;

	ck_assert_int_eq(write(*go, "g", 1), 1);
	close(*go);
	*go = -1;
}

/*
 * Fork @writer(@a, @b, go fd), which waits for the go byte before it
 * writes; capture it with -x into SCRATCH/io.capture, let it go once the
 * probe records; then the log must have an openat of @logged, and the
 * replay file generated from it a path= @replayed.
 */
static void capture_writer(void (*writer)(const char *, const char *, int),
			   const char *a, const char *b, const char *scratch,
			   const char *logged, const char *replayed)
{
	char *log = tu_join(scratch, "io.capture");
	char *rep = tu_join(scratch, "io.replay"), *text, *want;
	char err[ERRLEN] = "";
	struct watch wt = { 0 };
	struct capture_summary sum;
	struct gen_summary gs;
	pthread_t th;
	int p[2], rc;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	wt.pid = fork();
	ck_assert_int_ge(wt.pid, 0);
	if (wt.pid == 0) {
		close(p[1]);
		writer(a, b, p[0]);
	}
	close(p[0]);
	struct capture_options opt = {
		.output = log, .pid = (uint32_t)wt.pid, .stop = &wt.stop,
		.ready = go_writer, .ready_ctx = &p[1],
	};
	ck_assert_int_eq(pthread_create(&th, NULL, watcher, &wt), 0);
	rc = capture_run(&opt, &sum, err, sizeof(err));
	if (p[1] >= 0)
		close(p[1]);
	pthread_join(th, NULL);
	ck_assert_msg(rc == 0, "capture_run: %s (%d)", err, rc);
	ck_assert_msg(WIFEXITED(wt.status) && WEXITSTATUS(wt.status) == 0,
		      "the writer: status 0x%x", wt.status);

	text = tu_read(log, NULL);
	ck_assert(asprintf(&want, "o=openat;:,d=-100;:,p=%s;", logged) > 0);
	ck_assert_msg(strstr(text, want), "no %s in\n%s", want, text);
	free(want);
	free(text);
	struct gen_options go = {
		.capture_path = log, .replay_path = rep, .name = "test",
		.user = "u",
	};
	log_set_level(LOG_ERROR);
	ck_assert_msg(generate_run(&go, &gs, err, sizeof(err)) == 0, "%s", err);
	text = tu_read(rep, NULL);
	ck_assert(asprintf(&want, "path=%s", replayed) > 0);
	ck_assert_msg(strstr(text, want), "no %s in\n%s", want, text);
	free(want);
	free(text);
	free(rep);
	free(log);
}

/*
 * A process in a chroot on a loop-mounted xfs (a container's view of
 * /data), running before the capture: its paths are logged as the host
 * sees them, below the chroot, so generate puts its sandbox on the xfs,
 * not on the root file system.
 */
START_TEST(test_chroot_capture)
{
	const char *why = tu_cannot_capture();
	char *scratch = tu_scratch(), *xfs = tu_join(scratch, "xfs"), *root;
	char *data, *logged, *replayed;

	if (!why && !tu_mount_image(xfs, "mkfs.xfs", "-f", 320))
		why = "no xfs image";
	if (why) {
		printf("capture: test chroot_capture skipped: %s\n", why);
		free(xfs);
		free(scratch);
		return;
	}
	root = tu_join(xfs, "ct");
	ck_assert_int_eq(mkdir(root, 0755), 0);
	data = tu_join(root, "data");
	ck_assert_int_eq(mkdir(data, 0755), 0);
	logged = tu_join(data, "c.db");
	ck_assert(asprintf(&replayed, "%s/.ioriot/test/ct/data/c.db", xfs) > 0);
	capture_writer(chrooted_writer, root, NULL, scratch, logged, replayed);
	ck_assert_int_eq(umount2(xfs, MNT_DETACH), 0);
	free(replayed);
	free(logged);
	free(data);
	free(root);
	free(xfs);
	free(scratch);
}
END_TEST

/* mntns_capture's process: in a mount namespace of its own, @vol bound
 * over @view (only it sees that), wait for the go byte on @go, then write
 * VIEW/c.db.  Exits 0 or 1. */
static void namespaced_writer(const char *vol, const char *view, int go)
{
	char *file = tu_join(view, "c.db"), byte;
	long fd;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(vol, view, NULL, MS_BIND, NULL) || read(go, &byte, 1) != 1)
		_exit(1);
	fd = syscall(SYS_openat, AT_FDCWD, file, O_CREAT | O_WRONLY | O_TRUNC,
		     0644);
	if (fd < 0 || syscall(SYS_write, fd, "0123456789abcdef", 16) != 16 ||
	    syscall(SYS_close, fd))
		_exit(1);
	_exit(0);
}

/*
 * A process in a mount namespace of its own (unshare --mount) with a
 * private bind mount of a directory of a loop-mounted xfs, as a container
 * gets a volume, running before the capture: the path it writes through
 * the bind is logged as the host sees it, on the xfs, and the replay
 * file's sandbox is there too.
 */
START_TEST(test_mntns_capture)
{
	const char *why = tu_cannot_capture();
	char *scratch = tu_scratch(), *xfs = tu_join(scratch, "xfs");
	char *view = tu_join(scratch, "ct-data"), *vol, *logged, *replayed;

	if (!why && !tu_mount_image(xfs, "mkfs.xfs", "-f", 320))
		why = "no xfs image";
	if (why) {
		printf("capture: test mntns_capture skipped: %s\n", why);
		free(view);
		free(xfs);
		free(scratch);
		return;
	}
	vol = tu_join(xfs, "vol");
	ck_assert_int_eq(mkdir(vol, 0755), 0);
	ck_assert_int_eq(mkdir(view, 0755), 0);
	logged = tu_join(vol, "c.db");
	ck_assert(asprintf(&replayed, "%s/.ioriot/test/vol/c.db", xfs) > 0);
	capture_writer(namespaced_writer, vol, view, scratch, logged, replayed);
	ck_assert_int_eq(umount2(xfs, MNT_DETACH), 0);
	free(replayed);
	free(logged);
	free(vol);
	free(view);
	free(xfs);
	free(scratch);
}
END_TEST

/* The count of syscall @name in @u, 0 if it has none. */
static uint64_t uncaptured_count(const struct uncaptured *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].name, name) == 0)
			return u->v[i].count;
	return 0;
}

/*
 * A workload that makes syscalls the probe does not capture, each a known
 * number of times (tests/workloads/uncaptured.c), captured with -x: the
 * log's uncaptured record holds exactly those, by name, and nothing of
 * other processes (the noise process sleeps, the workload never does);
 * generate carries it into the replay file's header.
 */
START_TEST(test_uncaptured)
{
	static const char *const no_lines[] = { NULL };
	static const struct workload uncaptured = {
		.name = "uncaptured", .replay = no_lines,
		.counts = "|processes=1|"
	};
	const char *why = tu_cannot_capture();
	char err[ERRLEN], *mark, *text;
	struct caplog_reader *rd;
	const struct uncaptured *u;
	struct cap_event ev;
	struct run r;
	int rc;

	if (why) {
		printf("capture: test uncaptured skipped: %s\n", why);
		return;
	}
	run_init(&r, &uncaptured, BY_PID);
	capture_workload(&r);
	read_log(&r);
	rd = caplog_open(r.log, err, sizeof(err));
	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) == 1)
		;
	ck_assert_int_eq(rc, 0);
	u = caplog_uncaptured(rd);
	if (!u)
		dump_log(&r);
	ck_assert_msg(u, "%s: no uncaptured record", r.log);
	mark = tu_join(r.wdir, UNCAP_IA32_MARK);
	const struct {
		const char *name;
		uint64_t count;
	} want[] = {
		{ "ioctl", UNCAP_IOCTLS },
		{ "vmsplice", UNCAP_VMSPLICES },
		{ "remap_file_pages", UNCAP_REMAP },
		{ "cachestat", UNCAP_CACHESTATS },
		{ "getppid", UNCAP_GETPPIDS },
		{ UNCAP_OTHER_ABI, access(mark, F_OK) == 0 ? UNCAP_IA32 : 0 },
	};
	size_t nwant = 0;
	text = tu_read(r.log, NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_msg(uncaptured_count(u, want[i].name) == want[i].count,
			      "%s: %llu, want %llu: %s", want[i].name,
			      (unsigned long long)uncaptured_count(u, want[i].name),
			      (unsigned long long)want[i].count,
			      strstr(text, "#|uncaptured|"));
		nwant += want[i].count > 0;
	}
	/* Nothing else: not the noise process's, not captured syscalls. */
	ck_assert_msg(u->n == nwant, "%zu syscalls, want %zu: %s", u->n, nwant,
		      strstr(text, "#|uncaptured|"));
	ck_assert_uint_eq(uncaptured_other(u), UNCAP_GETPPIDS);
	caplog_close(rd);
	free(text);
	free(mark);

	/* Generate: in the summary, and in the replay header as in the log. */
	check_replay(&r);
	text = tu_read(r.replay, NULL);
	ck_assert_msg(text && strstr(text, "\n#|uncaptured|getppid=7|remap_file_pages=6|"
				     "ioctl=5|vmsplice=4|"),
		      "replay: %.600s", text);
	free(text);
	run_free(&r);
}
END_TEST

/* ---- umask and Unix sockets ------------------------------------------- */

#define MADE (CAP_PATH | CAP_MODE | CAP_UMASK | CAP_RET)
#define OPENED (CAP_PATH | CAP_MODE | CAP_UMASK)	/* ret: a variable */

/* 2: the files' fds; 3: the child's pid; 4: the thread's tid */
static const struct exp umask_main[] = {
	{ E(OPEN), .have = OPENED | CAP_FLAGS, .path = "f600",
	  .flags = O_CREAT | O_WRONLY, .flags_mask = O_CREAT | O_ACCMODE,
	  .mode = 0666, .umask = 077, .v_ret = 2 },
	{ E(CLOSE), .have = CAP_RET, .lacks = CAP_UMASK, .ret = 0, .v_fd = 2 },
	{ E(MKDIR), .have = MADE, .path = "d700", .mode = 0777, .umask = 077,
	  .ret = 0 },
	/* No inode made: no umask. */
	{ E(OPEN), .have = CAP_PATH | CAP_FLAGS, .lacks = CAP_UMASK,
	  .path = "f600", .flags = O_RDONLY, .flags_mask = O_CREAT | O_ACCMODE,
	  .v_ret = 2 },
	{ E(OPENAT), .have = OPENED | CAP_FD, .fd = AT_FDCWD, .path = "f640",
	  .mode = 0666, .umask = 027, .v_ret = 2 },
	{ E(MKDIRAT), .have = MADE | CAP_FD, .fd = AT_FDCWD, .path = "d750",
	  .mode = 0777, .umask = 027, .ret = 0 },
	{ E(CREAT), .have = OPENED, .path = "c640", .mode = 0666, .umask = 027,
	  .v_ret = 2 },
	{ E(OPENAT2), .have = OPENED | CAP_FLAGS, .path = "o600",
	  .flags = O_CREAT | O_WRONLY, .flags_mask = O_CREAT | O_ACCMODE,
	  .mode = 0606, .umask = 027, .v_ret = 2 },
	{ E(OPENAT), .have = OPENED | CAP_FLAGS, .path = ".",
	  .flags = O_TMPFILE | O_WRONLY, .flags_mask = O_TMPFILE | O_ACCMODE,
	  .mode = 0666, .umask = 027, .v_ret = 2 },
	{ E(MKNOD), .have = MADE, .lacks = CAP_FD, .path = "fifo",
	  .mode = S_IFIFO | 0666, .umask = 027, .ret = 0 },
	{ E(MKNODAT), .have = MADE | CAP_FD, .fd = AT_FDCWD, .path = "reg",
	  .mode = S_IFREG | 0666, .umask = 027, .ret = 0 },
	/* The socket's inode; its fd is not logged. */
	{ E(BIND), .have = CAP_PATH | CAP_UMASK | CAP_RET,
	  .lacks = CAP_FD | CAP_MODE, .path = "sock", .umask = 027, .ret = 0 },
	/* glibc's lstat */
	{ E(NEWFSTATAT), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "sock",
	  .mode = S_IFSOCK | 0750, .ret = 0 },
	{ E(CHMOD), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "sock",
	  .mode = 0770, .ret = 0 },
	{ E(UNLINK), .have = CAP_PATH | CAP_RET, .path = "sock", .ret = 0 },
	/* The thread's fork record has the process's own pid. */
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 4 },
	{ E(MKDIR), .have = MADE, .path = "t750", .mode = 0777, .umask = 027,
	  .ret = 0, .v_tid = 4 },
	{ E(FORK), .have = CAP_CHILD, .v_child = 3 },
	{ E(MKDIR), .have = MADE, .path = "k777", .mode = 0777, .umask = 0,
	  .ret = 0, .v_pid = 3 },
	{ E(MKDIR), .have = MADE, .path = "p750", .mode = 0777, .umask = 027,
	  .ret = 0 },
	END
};

static const struct exp *const umask_chains[] = { umask_main, NULL };

/* The umask goes into the replay file; bind's line has its path. */
static const char *const umask_replay[] = {
	"open path=%S/f600 mode=0666 umask=077",
	"mkdir 0 path=%S/d700 mode=0777 umask=077",
	"openat path=%S/f640 mode=0666 umask=027",
	"creat path=%S/c640 mode=0666 umask=027",
	"openat2 path=%S/o600 mode=0606 umask=027",
	"mknod 0 path=%S/fifo mode=010666 umask=027",
	"mknodat 0 path=%S/reg mode=0100666 umask=027",
	"bind 0 path=%S/sock umask=027",
	"chmod 0 path=%S/sock mode=0770",
	"unlink 0 path=%S/sock",
	"mkdir 0 path=%S/k777 mode=0777 umask=0",
	NULL
};

/*
 * tests/workloads/umask.c, captured with -x: every call that makes an
 * inode carries the umask its process had then (077 from before the
 * capture, 027 after umask(2), the thread's shared one, the child's own
 * 0), opens without O_CREAT carry none; bind of a Unix socket to a path
 * is an event with that path, the other two binds are counted among the
 * syscalls not captured.  Generate carries the umask into the replay file.
 */
START_TEST(test_umask)
{
	static const struct workload umask_w = {
		.name = "umask", .chains = umask_chains, .replay = umask_replay,
		.counts = "|timelines=3|processes=2|"
	};
	const char *why = tu_cannot_capture();
	char err[ERRLEN];
	struct caplog_reader *rd;
	const struct uncaptured *u;
	struct cap_event ev;
	size_t binds = 0;
	struct run r;
	int rc;

	if (why) {
		printf("capture: test umask skipped: %s\n", why);
		return;
	}
	run_init(&r, &umask_w, BY_PID);
	capture_workload(&r);
	read_log(&r);
	check_pids(&r);
	match_chain(&r, umask_main, 0);
	for (size_t i = 0; i < r.nev; i++)
		binds += r.ev[i].sys == SYS_BIND;
	ck_assert_uint_eq(binds, 1);
	rd = caplog_open(r.log, err, sizeof(err));
	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) == 1)
		ck_assert_msg(!(ev.have & CAP_UMASK) ||
			      sys_info(ev.sys)->kind == SK_OPEN ||
			      sys_info(ev.sys)->kind == SK_MKDIR ||
			      sys_info(ev.sys)->kind == SK_MKNOD,
			      "%s has a umask", sys_info(ev.sys)->name);
	ck_assert_int_eq(rc, 0);
	u = caplog_uncaptured(rd);
	ck_assert_msg(u, "%s: no uncaptured record", r.log);
	ck_assert_uint_eq(uncaptured_count(u, "bind"), 2);
	caplog_close(rd);
	check_replay(&r);
	run_free(&r);
}
END_TEST

/* ---- the order of threads: wake records -------------------------------- */

/* The operation whose line starts with @id in replay file @text: its
 * name, in @op (empty if none). */
static void op_of_id(const char *text, unsigned long long id, char *op,
		     size_t oplen)
{
	char want[32];
	int n = snprintf(want, sizeof(want), "\n%llu ", id);

	op[0] = '\0';
	for (const char *l = strstr(text, want); l; l = NULL) {
		char name[64];

		if (sscanf(l + n, "%*s %*s %*s %*s %63s", name) == 1)
			snprintf(op, oplen, "%s", name);
	}
}

/*
 * tests/workloads/wakeorder.c, captured with -x and wake records (the CLI
 * records them with -x by default): main sleeps in futex waits its thread
 * ends, then in pipe reads its child ends.  Every wake of main by the
 * thread or the child is in the log, with how long main slept; generate
 * turns it into sync= on main's next pwrite64, naming the waker's
 * fdatasync before the wake, the blocked time in waited=.  A loaded host
 * may let main find the word changed or the byte there already (no sleep,
 * no wake), so the rounds that slept are counted from the log, not
 * assumed, and every one of them must be ordered.  A wake's R (main's
 * wait for a CPU up to the wake) is at most the R of main's next event.
 */
START_TEST(test_wake_order)
{
	static const char *const no_lines[] = { NULL };
	static const struct workload wake_w = {
		.name = "wakeorder", .replay = no_lines,
		.counts = "|timelines=3|processes=2|"
	};
	const char *why = tu_cannot_capture();
	unsigned slept[2] = { 0 }, ordered[2] = { 0 }, wakes = 0;
	int pending = -1;	/* main's last wake: 0 thread, 1 child */
	uint64_t wake_rq = 0;	/* and its R */
	bool wake_open = false;	/* no event of main since */
	char *text;
	struct run r;

	if (why) {
		printf("capture: test wake_order skipped: %s\n", why);
		return;
	}
	run_init(&r, &wake_w, BY_PID);
	r.sync = true;
	capture_workload(&r);
	read_log(&r);
	for (size_t i = 0; i < r.nev; i++) {
		const struct cap_event *e = &r.ev[i];

		wakes += e->sys == SYS_WAKE;
		if (e->pid != (uint32_t)r.pid || e->tid != (uint32_t)r.pid)
			continue;
		if (e->sys == SYS_WAKE) {
			ck_assert(e->have & CAP_ADDR && e->have & CAP_COUNT &&
				  e->count > 0);
			ck_assert((uint32_t)e->addr != (uint32_t)r.pid);
			pending = (e->addr >> 32) != (uint32_t)r.pid;
			wake_rq = e->have & CAP_RUNQ ? e->runq_ns : 0;
			wake_open = true;
			continue;
		}
		/* The wait for a CPU up to a wake in a gap is part of the
		 * gap's: the next event's R is no less. */
		if (wake_open && (e->have & CAP_CPU))
			ck_assert_msg((e->have & CAP_RUNQ ? e->runq_ns : 0) >=
				      wake_rq, "R %" PRIu64 " of sys %d after a "
				      "wake with R %" PRIu64, e->runq_ns,
				      (int)e->sys, wake_rq);
		wake_open = false;
		if (e->sys == SYS_PWRITE64) {
			int phase = e->offset >= 300 ? 1 : 0;

			if (pending == phase)
				slept[phase]++;
			pending = -1;
		}
	}
	ck_assert_msg(slept[0] >= 1 && slept[1] >= 1,
		      "rounds that slept: %u futex, %u pipe (%u wake records, "
		      "%zu records)", slept[0], slept[1], wakes, r.nev);
	check_replay(&r);
	text = tu_read(r.replay, NULL);
	ck_assert(text);
	for (const char *l = strstr(text, " pwrite64 "); l;
	     l = strstr(l + 1, " pwrite64 ")) {
		const char *eol = strchr(l, '\n'), *s = strstr(l, " sync=");
		const char *w = strstr(l, " waited=");
		unsigned long long id, gap, waited;
		char op[64];

		if (!s || (eol && s > eol))
			continue;
		ck_assert_msg(sscanf(s, " sync=%llu:%llu", &id, &gap) == 2 &&
			      w && (!eol || w < eol) &&
			      sscanf(w, " waited=%llu", &waited) == 1,
			      "%.200s", l);
		op_of_id(text, id, op, sizeof(op));
		ck_assert_msg(strcmp(op, "fdatasync") == 0,
			      "sync=%llu is a %s, not the waker's fdatasync",
			      id, op);
		const char *off = strstr(l, " off=");
		long o = off && (!eol || off < eol) ? atol(off + 5) : -1;

		ck_assert_msg(((o >= 100 && o < 200) || o >= 300) &&
			      waited > 0, "%.200s", l);
		ordered[o >= 300]++;
	}
	ck_assert_msg(ordered[0] == slept[0] && ordered[1] == slept[1],
		      "writes of main ordered after a wake: %u after the "
		      "thread's (%u slept), %u after the child's (%u slept)",
		      ordered[0], slept[0], ordered[1], slept[1]);
	free(text);
	run_free(&r);
}
END_TEST

/* ---- on-CPU time ------------------------------------------------------ */

#define CPU_KEYS (CAP_CPU | CAP_CPU_CALL)
#define CPUTIME_WRITE \
	{ E(WRITE), .have = CAP_COUNT | CAP_RET | CPU_KEYS, .count = 1, \
	  .ret = 1, .v_fd = 2 }

/* 2: the file's fd; 3: the child's pid; 4: its fd */
static const struct exp cputime_main[] = {
	/* Its first captured event (it entered the read of its go byte
	 * before the probe was attached): no C. */
	{ E(OPEN), .have = CAP_PATH | CAP_CPU_CALL, .lacks = CAP_CPU,
	  .path = "f", .v_ret = 2 },
	CPUTIME_WRITE,
	CPUTIME_WRITE,		/* after the busy loop */
	CPUTIME_WRITE,		/* after the sleep */
	{ E(FORK), .have = CAP_CHILD, .lacks = CPU_KEYS, .v_child = 3 },
	/* A new thread's first event has no C: nothing to count from. */
	{ E(OPEN), .have = CAP_PATH | CAP_CPU_CALL, .lacks = CAP_CPU,
	  .path = "k", .v_pid = 3, .v_ret = 4 },
	{ E(WRITE), .have = CAP_RET | CPU_KEYS, .ret = 1, .v_pid = 3,
	  .v_fd = 4 },
	{ E(CLOSE), .have = CAP_RET | CPU_KEYS, .ret = 0, .v_fd = 2 },
	END
};

static const struct exp *const cputime_chains[] = { cputime_main, NULL };

static const char *const cputime_replay[] = {
	"%v1:%v1 open path=%S/f vfd=$F",
	"%v1:%v1 write 1 fd=$F count=1 cpu=$B",
	"%v3:%v3 open path=%S/k vfd=$K parent=%v1:%v1",
	"%v3:%v3 write 1 fd=$K count=1 cpu=$C",
	NULL
};

/* The index of the @nth (from 0) write of thread @tid in r->ev. */
static size_t nth_write(const struct run *r, uint32_t tid, int nth)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].tid == tid && r->ev[i].sys == SYS_WRITE &&
		    r->ev[i].fd == r->vars[2] && nth-- == 0)
			return i;
	ck_abort_msg("no write %d of thread %u", nth, tid);
	return 0;
}

/*
 * tests/workloads/cputime.c, captured with -x: C of the write after the
 * busy loop holds most of the loop's own CPU time (measured by the
 * workload; the scheduler's runtime lags by up to a tick at either end,
 * and the machine is shared) and never more than the gap; C of the write
 * after the sleep is a small part of its gap.  Every C is at most its
 * gap from the thread's previous event, every X at most its D.  Generate
 * writes cpu= and the child's parent=.
 */
START_TEST(test_cputime)
{
	static const struct workload cputime_w = {
		.name = "cputime", .chains = cputime_chains,
		.replay = cputime_replay,
		.counts = "|timelines=2|processes=2|"
	};
	const char *why = tu_cannot_capture();
	const struct cap_event *a, *b, *c, *last[2] = { NULL, NULL };
	unsigned long long busy = 0;
	uint64_t gap_b, gap_c;
	char *text, *p;
	struct run r;

	if (why) {
		printf("capture: test cputime skipped: %s\n", why);
		return;
	}
	run_init(&r, &cputime_w, BY_PID);
	capture_workload(&r);
	read_log(&r);
	check_pids(&r);
	match_chain(&r, cputime_main, 0);
	text = tu_read(r.errfile, NULL);
	p = text ? strstr(text, "busy_ns=") : NULL;
	ck_assert_msg(p && sscanf(p, "busy_ns=%llu", &busy) == 1,
		      "cputime printed no busy_ns: %s", text ? text : "");
	free(text);
	ck_assert_uint_ge(busy, 60000000);

	a = &r.ev[nth_write(&r, (uint32_t)r.pid, 0)];
	b = &r.ev[nth_write(&r, (uint32_t)r.pid, 1)];
	c = &r.ev[nth_write(&r, (uint32_t)r.pid, 2)];
	gap_b = b->time_ns - cap_event_end(a);
	gap_c = c->time_ns - cap_event_end(b);
	ck_assert_msg(b->cpu_ns >= busy / 2 && b->cpu_ns <= gap_b,
		      "busy gap: C=%llu ns, the loop's CPU %llu ns, the gap "
		      "%llu ns", (unsigned long long)b->cpu_ns, busy,
		      (unsigned long long)gap_b);
	ck_assert_msg(gap_c >= 60000000 && c->cpu_ns <= gap_c / 4,
		      "sleep gap: C=%llu ns of %llu ns",
		      (unsigned long long)c->cpu_ns, (unsigned long long)gap_c);

	/* C counts from the end of the thread's previous event. */
	for (size_t i = 0; i < r.nev; i++) {
		const struct cap_event *e = &r.ev[i];
		int t = e->pid == (uint32_t)r.pid ? 0 : 1;

		if (e->pid != (uint32_t)r.pid && e->pid != (uint32_t)r.vars[3])
			continue;
		if (!(e->have & CAP_CPU_CALL))
			continue;	/* a record: no part of the count */
		ck_assert_uint_le(e->cpu_call_ns, e->dur_ns);
		if ((e->have & CAP_CPU) && last[t])
			ck_assert_msg(e->time_ns >= cap_event_end(last[t]) &&
				      e->cpu_ns <= e->time_ns -
						   cap_event_end(last[t]),
				      "%s at %llu: C=%llu beyond its gap",
				      sys_info(e->sys)->name,
				      (unsigned long long)e->time_ns,
				      (unsigned long long)e->cpu_ns);
		last[t] = e;
	}
	check_replay(&r);
	run_free(&r);
}
END_TEST

/* ---- think time, captured and replayed ------------------------------- */

#define THINK_FSYNCS 4		/* thinkload.c's */
/*
 * The on-CPU time the capture may count in a thread's 6 gaps beyond its
 * busy loop's wall time.  A gap the thread was never switched out of
 * counts as on a CPU whole (a hypervisor's steal time too: hence the wall
 * time, not the CPU time): the short ones between calls, microseconds,
 * and the busy loop if not preempted.  One it was switched out of (the
 * sleep, the join, a preempted busy loop) counts the scheduler's runtime,
 * which lags by up to a tick at either end: less than a tick off in all
 * (HZ=100: 10 ms), three times.
 */
#define THINK_CPU_SLACK_NS 50000000ULL

/* 2: m's fd; 3: thread w's tid; 4: w's fd */
static const struct exp think_m[] = {
	{ E(OPENAT), .have = CAP_PATH, .path = "m", .v_ret = 2 },
	{ E(WRITE), .have = CAP_COUNT | CAP_RET, .count = 1, .ret = 1,
	  .v_fd = 2 },
	{ E(FORK), .have = CAP_CHILD, .v_child = V_WPID, .v_ctid = 3 },
	CPUTIME_WRITE,		/* after the busy loop */
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	CPUTIME_WRITE,		/* after the sleep */
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	END
};

static const struct exp think_w[] = {
	{ E(OPENAT), .have = CAP_PATH, .path = "w", .v_tid = 3, .v_ret = 4 },
	{ E(WRITE), .have = CAP_RET | CPU_KEYS, .ret = 1, .v_tid = 3,
	  .v_fd = 4 },
	{ E(WRITE), .have = CAP_RET | CPU_KEYS, .ret = 1, .v_tid = 3,
	  .v_fd = 4 },		/* after the sleep */
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_tid = 3, .v_fd = 4 },
	{ E(WRITE), .have = CAP_RET | CPU_KEYS, .ret = 1, .v_tid = 3,
	  .v_fd = 4 },		/* after the busy loop */
	{ E(FSYNC), .have = CAP_RET, .ret = 0, .v_tid = 3, .v_fd = 4 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_tid = 3, .v_fd = 4 },
	END
};

static const struct exp *const think_chains[] = { think_m, think_w, NULL };

static const char *const think_replay[] = {
	"%v1:%v1 openat path=%S/m vfd=$M",
	"%v1:%v1 fsync 0 fd=$M cpu=$C",
	"%v1:%v3 openat path=%S/w vfd=$W parent=%v1:%v1",
	"%v1:%v3 fsync 0 fd=$W cpu=$D",
	NULL
};

/* What thinkload printed about thread @name: its busy loop's CPU and
 * wall time, its sleep's and its whole span's wall time. */
struct think_thread {
	unsigned long long busy_ns, busy_wall_ns, sleep_ns, span_ns;
};

static void think_printed(const struct run *r, const char *name,
			  struct think_thread *t)
{
	char *text = tu_read(r->errfile, NULL), key[16];
	const char *p;

	snprintf(key, sizeof(key), "thread=%s ", name);
	p = text ? strstr(text, key) : NULL;
	ck_assert_msg(p && sscanf(p + strlen(key), "busy_ns=%llu "
				  "busy_wall_ns=%llu sleep_ns=%llu "
				  "span_ns=%llu", &t->busy_ns, &t->busy_wall_ns,
				  &t->sleep_ns, &t->span_ns) == 4,
		      "thinkload printed nothing about %s: %s", name,
		      text ? text : "");
	free(text);
	/* What thinkload.c's loops make sure of. */
	ck_assert_uint_ge(t->busy_ns, 50000000);
	ck_assert_uint_ge(t->sleep_ns, 50000000);
}

/*
 * A timeline's think time as the replay file gives it, worked out here
 * from its lines alone, as replay-format §4.7 says: the gap before each
 * operation but the timeline's first is its TIME_NS minus the end (TIME_NS
 * + DUR_NS) of the timeline's operation before; cpu= of it is on a CPU
 * (at most the gap).  At -s @speed and --cpu-scale @cpu_scale (powers of
 * two: the divisions are exact), the parts --think must keep.
 */
struct think_sums {
	uint32_t tid;
	uint64_t ops, gap_ns, cpu_ns;		/* as captured */
	uint64_t probe_ns;			/* probe=, at most cpu= */
	uint64_t runq_ns;			/* runq=, at most the rest */
	uint64_t sleep_ns, burn_ns;		/* scaled */
	uint64_t end_ns;
};

static void think_sums(const char *replay, uint32_t pid, const uint32_t *tids,
		       struct think_sums *s, size_t n, unsigned speed,
		       unsigned cpu_scale)
{
	char err[ERRLEN];
	struct rlog_reader *rd = rlog_open(replay, err, sizeof(err));
	struct rlog_entry e;
	int rc;

	ck_assert_msg(rd, "%s", err);
	memset(s, 0, n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i].tid = tids[i];
	while ((rc = rlog_next(rd, &e, err, sizeof(err))) == 1) {
		const struct rlog_op *op = &e.op;
		struct think_sums *t = NULL;
		uint64_t gap = 0, cpu = 0, probe = 0, runq = 0;

		if (e.type != RLOG_ENTRY_OP)
			continue;
		for (size_t i = 0; i < n; i++)
			if (op->pid == pid && op->tid == s[i].tid)
				t = &s[i];
		ck_assert_msg(t, "line %llu: timeline %u:%u is not thinkload's",
			      (unsigned long long)e.lineno, op->pid, op->tid);
		if (t->ops++) {
			gap = op->time_ns > t->end_ns ? op->time_ns - t->end_ns
						      : 0;
			if (op->have & RL_CPU)
				cpu = op->cpu_ns < gap ? op->cpu_ns : gap;
			if (op->have & RL_PROBE)
				probe = op->probe_ns < cpu ? op->probe_ns : cpu;
			if (op->have & RL_RUNQ)
				runq = op->runq_ns < gap - cpu ? op->runq_ns
							       : gap - cpu;
		}
		t->gap_ns += gap;
		t->cpu_ns += cpu;
		t->probe_ns += probe;
		t->runq_ns += runq;
		t->sleep_ns += (gap - cpu - runq) / speed;
		t->burn_ns += (cpu - probe) / cpu_scale;
		t->end_ns = op->time_ns + op->dur_ns;
	}
	ck_assert_msg(rc == 0, "%s", err);
	rlog_close(rd);
}

static json_t *load_json(const char *path)
{
	struct jv_error jerr;
	json_t *v = jv_load(path, &jerr);

	ck_assert_msg(v, "%s: line %u: %s", path, jerr.line, jerr.msg);
	return v;
}

/* The integer at @key, or at @key.@sub if @sub is not NULL, of @v. */
static uint64_t json_u64(const json_t *v, const char *key, const char *sub)
{
	int64_t n = -1;

	v = json_object_get(v, key);
	if (sub)
		v = json_object_get(v, sub);
	ck_assert_msg(jv_int(v, &n) == 0 && n >= 0, "%s%s%s: no count", key,
		      sub ? "." : "", sub ? sub : "");
	return (uint64_t)n;
}

/* What one --think replay accounted, and the time and CPU it took. */
struct think_run {
	const char *label;
	char fs_label[64];	/* the statistics' label: FSTYPE:SCHEDULER */
	uint64_t think_sleep_ns, think_cpu_ns, think_probe_ns, think_runq_ns;
	uint64_t gaps_ns, gaps_cpu_ns;
	uint64_t total_ns, cpu_used_ns, ops, fsyncs;
};

static uint64_t children_cpu_ns(void)
{
	struct rusage ru;

	ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
	       1000000000ULL + ((uint64_t)ru.ru_utime.tv_usec +
				(uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

/*
 * `ioriot -R REPLAY --think` (init, then replay) as nobody, with @map
 * (CAPTURED=TEST, or NULL) and -s @speed --cpu-scale @cpu_scale, its JSON
 * statistics into @json, read into @out.  Every operation must be
 * replayed with its captured result, thinkload's files written in
 * @sandbox (3 bytes each).
 */
static void think_replay_run(const struct run *r, const char *label,
			     const char *map, const char *sandbox,
			     const char *speed, const char *cpu_scale,
			     const char *json, struct think_run *out)
{
	static const char *const files[] = { "m", "w" };
	const char *fs;
	const char *args[20] = { "-R", r->replay, "-D", "-q", "-u", "nobody",
				 "--think", "-s", speed, "--cpu-scale",
				 cpu_scale, "-S", json };
	size_t n = 13;
	uint64_t cpu0;
	char *sout, *serr;
	json_t *st, *sys;
	int rc;

	if (map) {
		args[n++] = "--map";
		args[n++] = map;
	}
	args[n] = NULL;
	cpu0 = children_cpu_ns();
	rc = tu_run_args(args, &sout, &serr);
	ck_assert_msg(rc == 0, "%s: ioriot -R --think: exit %d: %s", label, rc,
		      serr);
	out->cpu_used_ns = children_cpu_ns() - cpu0;
	free(sout);
	free(serr);
	for (int i = 0; i < 2; i++) {
		char *path = tu_join(sandbox, files[i]);
		struct stat sb;

		ck_assert_msg(stat(path, &sb) == 0 && sb.st_size == 3,
			      "%s: %s: %s", label, path, strerror(errno));
		free(path);
	}

	st = load_json(json);
	ck_assert_str_eq(jv_member_string(st, "pacing"), "think");
	out->label = label;
	fs = jv_member_string(st, "label");
	ck_assert_msg(fs, "%s: no label", json);
	snprintf(out->fs_label, sizeof(out->fs_label), "%s", fs);
	out->think_sleep_ns = json_u64(st, "think_replayed_ns", "sleep");
	out->think_cpu_ns = json_u64(st, "think_replayed_ns", "cpu");
	out->think_probe_ns = json_u64(st, "think_replayed_ns",
				       "probe_left_out");
	out->think_runq_ns = json_u64(st, "think_replayed_ns",
				      "runq_left_out");
	out->gaps_ns = json_u64(st, "captured_thread_time_ns", "gaps");
	out->gaps_cpu_ns = json_u64(st, "captured_thread_time_ns",
				    "gaps_on_cpu");
	out->total_ns = json_u64(st, "total_time_ns", NULL);
	out->ops = json_u64(st, "performed_ioops", NULL);
	sys = json_object_get(st, "syscalls");
	out->fsyncs = json_u64(sys, "fsync", "ops");
	for (size_t i = 0; i < jv_count(sys); i++)
		ck_assert_msg(json_u64(jv_at(sys, i), "differ", NULL) == 0,
			      "%s: %s: results differ from the capture",
			      label, jv_key(sys, i));
	json_decref(st);
}

/*
 * The think time of a real program, captured and replayed with --think on
 * two mounts.  tests/workloads/thinkload.c (two threads, each with a busy
 * loop of 50 ms of CPU, a sleep of 50 ms and 2 fsyncs) is captured with -x
 * on a tmpfs, generated, and replayed with `ioriot -R --think` on that
 * tmpfs and, through --map, on an ext4 image; and once more on the tmpfs
 * at -s 2 --cpu-scale 4.
 *
 * Exactly: per run, the think time the replay accounts (JSON
 * think_replayed_ns, captured_thread_time_ns) is the one worked out here
 * from the replay file's lines (think_sums()): slept + burnt + the
 * probe's part left out + the waits for a CPU left out (runq=) == the
 * gaps and burnt == their cpu= less probe=
 * at -s 1, each part divided at -s 2 --cpu-scale 4; the same on both
 * mounts, since it comes from the file.  The capture measured the probe's
 * cost: the file has probe=.
 * Every operation is replayed as captured, the 4 fsyncs on each mount.
 *
 * Loosely, whatever the load: each thread's captured on-CPU gaps hold its
 * busy loop (3/4 of its CPU time at least: the scheduler's runtime lags a
 * tick; at most THINK_CPU_SLACK_NS more than its wall time), its slept
 * part its sleep (3/4 of it at least), and its gaps lie within its span
 * as thinkload measured it.  Each
 * replay took at least the think time of its longest timeline, its
 * captured waits for a CPU left out (the time
 * is a lower bound only: the machine may be busy) and spent at least half
 * of the burnt time on a CPU (less only when the replay thread is
 * preempted just after an operation: --think counts that as the program's
 * computing).
 */
START_TEST(test_think_replay)
{
	static const struct workload think_wl = {
		.name = "thinkload", .chains = think_chains,
		.replay = think_replay,
		.counts = "|timelines=2|processes=1|"
	};
	const char *why = tu_cannot_capture();
	struct think_thread printed[2];
	struct think_sums s1[2], s2[2];
	struct think_run run[3];
	uint32_t tids[2];
	char *ext4, *ext4_sandbox, *json[3], *map;
	uint64_t gap = 0, cpu = 0, probe = 0, runq = 0, sleep2 = 0, burn2 = 0;
	uint64_t longest = 0, longest2 = 0;
	struct run r;

	if (why) {
		printf("capture: test thinkload skipped: %s\n", why);
		return;
	}
	run_init(&r, &think_wl, BY_PID);
	/* Capture and replay on mounts of this test's own: init makes
	 * MOUNT/.ioriot/test. */
	ck_assert_int_eq(rmdir(r.wdir), 0);
	if (!tu_mount_tmpfs(r.wdir)) {
		printf("capture: test thinkload skipped: no tmpfs\n");
		run_free(&r);
		return;
	}
	free(r.sandbox);
	r.sandbox = sandbox_of(r.wdir);
	r.below_wdir = true;
	capture_workload(&r);
	read_log(&r);
	check_pids(&r);
	for (int c = 0; r.w->chains[c]; c++)
		match_chain(&r, r.w->chains[c], c);
	check_replay(&r);
	ck_assert_uint_eq(replay_ops(&r, "fsync"), THINK_FSYNCS);
	think_printed(&r, "m", &printed[0]);
	think_printed(&r, "w", &printed[1]);

	tids[0] = (uint32_t)r.pid;
	tids[1] = (uint32_t)r.vars[3];
	think_sums(r.replay, (uint32_t)r.pid, tids, s1, 2, 1, 1);
	think_sums(r.replay, (uint32_t)r.pid, tids, s2, 2, 2, 4);
	for (int t = 0; t < 2; t++) {
		const struct think_thread *p = &printed[t];

		printf("capture: thinkload thread %s: captured gaps %llu ns, "
		       "%llu ns on a CPU; its busy loop %llu ns (wall %llu "
		       "ns), sleep %llu ns, span %llu ns\n", t ? "w" : "m",
		       (unsigned long long)s1[t].gap_ns,
		       (unsigned long long)s1[t].cpu_ns, p->busy_ns,
		       p->busy_wall_ns, p->sleep_ns, p->span_ns);
		ck_assert_msg(s1[t].cpu_ns >= p->busy_ns / 4 * 3 &&
			      s1[t].cpu_ns <= p->busy_wall_ns +
					       THINK_CPU_SLACK_NS,
			      "thread %d: captured gaps on a CPU %llu ns, its "
			      "busy loop %llu ns (%llu ns of wall time)", t,
			      (unsigned long long)s1[t].cpu_ns, p->busy_ns,
			      p->busy_wall_ns);
		ck_assert_msg(s1[t].sleep_ns + s1[t].runq_ns >=
			      p->sleep_ns / 4 * 3,
			      "thread %d: captured gaps off a CPU %llu ns, its "
			      "sleep %llu ns", t, (unsigned long long)
			      (s1[t].sleep_ns + s1[t].runq_ns), p->sleep_ns);
		ck_assert_msg(s1[t].gap_ns <= p->span_ns,
			      "thread %d: captured gaps %llu ns, its span "
			      "%llu ns", t, (unsigned long long)s1[t].gap_ns,
			      p->span_ns);
		gap += s1[t].gap_ns;
		cpu += s1[t].cpu_ns;
		probe += s1[t].probe_ns;
		runq += s1[t].runq_ns;
		sleep2 += s2[t].sleep_ns;
		burn2 += s2[t].burn_ns;
		if (s1[t].gap_ns - s1[t].runq_ns > longest)
			longest = s1[t].gap_ns - s1[t].runq_ns;
		if (s2[t].sleep_ns + s2[t].burn_ns > longest2)
			longest2 = s2[t].sleep_ns + s2[t].burn_ns;
	}

	/* Mount 2: an ext4 image beside the tmpfs, in this test's mount
	 * namespace (tu_mount_tmpfs made it), gone with it. */
	ext4 = tu_join(r.dir, "ext4");
	if (!tu_mount_image(ext4, "mkfs.ext4", "-F", 32)) {
		printf("capture: test thinkload skipped: no ext4 image\n");
		free(ext4);
		run_free(&r);
		return;
	}
	ck_assert(asprintf(&map, "%s=%s", r.wdir, ext4) > 0);
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "think%d.json", i);
		json[i] = tu_join(r.dir, name);
	}
	ext4_sandbox = tu_join(ext4, ".ioriot/test");
	think_replay_run(&r, "tmpfs", NULL, r.sandbox, "1", "1", json[0],
			 &run[0]);
	think_replay_run(&r, "ext4", map, ext4_sandbox, "1", "1", json[1],
			 &run[1]);
	think_replay_run(&r, "tmpfs -s 2 --cpu-scale 4", NULL, r.sandbox, "2",
			 "4", json[2], &run[2]);
	/* Each on the mount it was meant for. */
	ck_assert_str_eq(run[0].fs_label, "tmpfs");
	ck_assert_msg(!strncmp(run[1].fs_label, "ext4:", 5) ||
		      !strcmp(run[1].fs_label, "ext4"), "ext4 run: label %s",
		      run[1].fs_label);

	for (int i = 0; i < 3; i++) {
		const struct think_run *x = &run[i];

		printf("capture: thinkload --think on %s (%s): think %llu ns "
		       "slept, %llu ns burnt (%llu ns of CPU used), of "
		       "captured gaps %llu ns (%llu ns on a CPU); took %llu "
		       "ns\n",
		       x->label, x->fs_label,
		       (unsigned long long)x->think_sleep_ns,
		       (unsigned long long)x->think_cpu_ns,
		       (unsigned long long)x->cpu_used_ns,
		       (unsigned long long)x->gaps_ns,
		       (unsigned long long)x->gaps_cpu_ns,
		       (unsigned long long)x->total_ns);
		ck_assert_uint_eq(x->gaps_ns, gap);
		ck_assert_uint_eq(x->gaps_cpu_ns, cpu);
		ck_assert_uint_eq(x->ops, s1[0].ops + s1[1].ops);
		ck_assert_uint_eq(x->fsyncs, THINK_FSYNCS);
		ck_assert_msg(x->cpu_used_ns >= x->think_cpu_ns / 2,
			      "%s: burnt %llu ns, used %llu ns of CPU",
			      x->label, (unsigned long long)x->think_cpu_ns,
			      (unsigned long long)x->cpu_used_ns);
	}
	/* The same on both mounts: it comes from the file. */
	ck_assert_uint_eq(run[1].think_cpu_ns, run[0].think_cpu_ns);
	ck_assert_uint_eq(run[1].think_sleep_ns, run[0].think_sleep_ns);
	/* The capture measured the probe's cost (a BPF capture on this
	 * kernel): each gap with cpu= has probe=. */
	ck_assert_msg(probe > 0, "no probe= in %s", r.replay);
	/* The waits for a CPU the capture saw (runq=) are left out too. */
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(run[i].think_probe_ns, probe);
		ck_assert_uint_eq(run[i].think_runq_ns, runq);
	}
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(run[i].think_cpu_ns, cpu - probe);
		ck_assert_uint_eq(run[i].think_sleep_ns, gap - cpu - runq);
		ck_assert_uint_eq(run[i].think_sleep_ns + run[i].think_cpu_ns +
				  run[i].think_probe_ns + run[i].think_runq_ns,
				  run[i].gaps_ns);
		ck_assert_msg(run[i].total_ns >= longest, "%s: took %llu ns, "
			      "a timeline's think time is %llu ns",
			      run[i].label,
			      (unsigned long long)run[i].total_ns,
			      (unsigned long long)longest);
	}
	ck_assert_uint_eq(run[2].think_cpu_ns, burn2);
	ck_assert_uint_eq(run[2].think_sleep_ns, sleep2);
	ck_assert_msg(run[2].total_ns >= longest2, "%s: took %llu ns, a "
		      "timeline's think time is %llu ns", run[2].label,
		      (unsigned long long)run[2].total_ns,
		      (unsigned long long)longest2);

	ck_assert_int_eq(umount2(ext4, MNT_DETACH), 0);
	ck_assert_int_eq(umount2(r.wdir, MNT_DETACH), 0);
	for (int i = 0; i < 3; i++)
		free(json[i]);
	free(map);
	free(ext4_sandbox);
	free(ext4);
	run_free(&r);
}
END_TEST

/*
 * tests/workloads/runqload.c, captured with -x: two processes held to one
 * CPU, each computing 20 ms between its writes, wait for each other.  The
 * R of their writes (the run delay in the gap, capture-format §4.2) adds
 * up to a good part of their computing (about all of it: each waits while
 * the other runs), and no event's C + R is beyond its gap, but for the
 * runtime's lag (THINK_CPU_SLACK_NS).
 */
START_TEST(test_runq)
{
	static const struct workload runq_wl = { .name = "runqload" };
	const char *why = tu_cannot_capture();
	struct { uint32_t tid; uint64_t end; } last[4];
	uint64_t cpu = 0, runq = 0;
	unsigned writes = 0, nlast = 0;
	struct run r;

	if (!why && access("/proc/self/schedstat", F_OK))
		why = "the kernel keeps no run delay (CONFIG_SCHED_INFO)";
	if (why) {
		printf("capture: test runq skipped: %s\n", why);
		return;
	}
	run_init(&r, &runq_wl, BY_PID);
	capture_workload(&r);
	read_log(&r);
	for (size_t i = 0; i < r.nev; i++) {
		const struct cap_event *e = &r.ev[i];
		unsigned t;

		if (!(e->have & CAP_CPU_CALL))
			continue;	/* a record: no part of the count */
		for (t = 0; t < nlast && last[t].tid != e->tid; t++)
			;
		if (t == nlast) {
			ck_assert_uint_lt(nlast, 4);
			last[nlast++].tid = e->tid;
		} else if (e->have & CAP_CPU) {
			uint64_t gap = e->time_ns - last[t].end;

			ck_assert_msg(e->time_ns >= last[t].end &&
				      e->cpu_ns + e->runq_ns <=
				      gap + THINK_CPU_SLACK_NS,
				      "%s of %u: C=%llu R=%llu, a gap of %llu",
				      sys_info(e->sys)->name, e->tid,
				      (unsigned long long)e->cpu_ns,
				      (unsigned long long)e->runq_ns,
				      (unsigned long long)gap);
		}
		ck_assert(!(e->have & CAP_RUNQ) || (e->have & CAP_CPU));
		last[t].end = cap_event_end(e);
		if (e->sys == SYS_WRITE && (e->have & CAP_CPU)) {
			writes++;
			cpu += e->cpu_ns;
			runq += e->runq_ns;
		}
	}
	ck_assert_uint_eq(writes, 8);
	ck_assert_msg(cpu >= 8 * 20000000ULL / 2 && runq >= cpu / 4,
		      "8 writes after 20 ms of computing each: C %llu ns, "
		      "R %llu ns in all", (unsigned long long)cpu,
		      (unsigned long long)runq);
	run_free(&r);
}
END_TEST

/* ---- fileapi ----------------------------------------------------------- */

#define XA(name, x) E(name), .path2 = "=" x
#define LOCK(c, type, off, len) \
	{ E(FCNTL), .have = CAP_CMD | CAP_ARG | CAP_WHENCE | CAP_OFFSET | \
	  CAP_COUNT | CAP_RET, .cmd = (c), .arg = (type), .whence = SEEK_SET, \
	  .offset = (off), .count = (len), .ret = 0, .v_fd = 2 }
#define FLOCK(op) \
	{ E(FLOCK), .have = CAP_FLAGS | CAP_RET, .flags = (op), .ret = 0, \
	  .v_fd = 2 }

/* 2: src's fd, 3: dst's fd, 4: the dirfd, 5 and 6: the first pipe's read
 * and write ends, 7: the second pipe's write end. */
static const struct exp fileapi_main[] = {
	{ E(OPENAT), .have = CAP_PATH, .path = ".", .v_ret = 4 },
	{ E(OPENAT), .have = CAP_PATH, .path = "src", .v_ret = 2 },
	{ E(OPENAT), .have = CAP_PATH, .path = "dst", .v_ret = 3 },
	{ E(IOCTL), .have = CAP_CMD | CAP_SIZE | CAP_RET, .lacks = CAP_OFFSET,
	  .cmd = FICLONE, .size = FA_SIZE, .ret = 0, .v_fd = 3,
	  .v_fd2 = 2 },
	{ E(IOCTL), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_OFFSET2 |
	  CAP_SIZE | CAP_RET, .cmd = FICLONERANGE, .offset = 0,
	  .count = FA_BLOCK, .offset2 = FA_BLOCK, .size = FA_SIZE, .ret = 0,
	  .v_fd = 3, .v_fd2 = 2 },
	{ E(DEDUPE), .have = CAP_OFFSET2 | CAP_COUNT | CAP_RET, .offset2 = 0,
	  .count = FA_BLOCK, .ret = FILE_DEDUPE_RANGE_SAME, .v_fd = 3 },
	{ E(IOCTL), .have = CAP_CMD | CAP_OFFSET | CAP_COUNT | CAP_ARG |
	  CAP_RET, .lacks = CAP_FD2, .cmd = FIDEDUPERANGE,
	  .offset = 0, .count = FA_BLOCK, .arg = 1, .ret = 0, .v_fd = 2 },
	{ XA(FSETXATTR, "user.a"), .have = CAP_PATH2 | CAP_COUNT | CAP_ARG |
	  CAP_RET, .lacks = CAP_MODE, .count = 5, .arg = 0, .ret = 0,
	  .v_fd = 2 },
	{ XA(FGETXATTR, FA_PRE), .have = CAP_PATH2 | CAP_COUNT | CAP_RET,
	  .count = 0, .ret = FA_PRE_LEN, .v_fd = 2 },
	{ XA(GETXATTR, FA_PRE), .have = CAP_PATH | CAP_PATH2 | CAP_COUNT |
	  CAP_RET, .path = "src", .count = 256, .ret = FA_PRE_LEN },
	{ XA(LGETXATTR, FA_PRE), .have = CAP_PATH | CAP_PATH2 | CAP_RET,
	  .path = "src", .ret = FA_PRE_LEN },
	{ XA(GETXATTR, "user.none"), .have = CAP_PATH2 | CAP_RET,
	  .ret = -ENODATA },
	{ E(FLISTXATTR), .have = CAP_COUNT | CAP_RET, .lacks = CAP_PATH2,
	  .count = 0, .ret = 16, .v_fd = 2 },
	{ E(LISTXATTR), .have = CAP_PATH | CAP_COUNT | CAP_RET, .path = "src",
	  .count = 256, .ret = 16 },
	{ E(LLISTXATTR), .have = CAP_PATH | CAP_RET, .path = "src", .ret = 16 },
	{ XA(SETXATTR, "user.b"), .have = CAP_PATH | CAP_PATH2 | CAP_COUNT |
	  CAP_ARG | CAP_RET, .path = "src", .count = 2, .arg = XATTR_CREATE,
	  .ret = 0 },
	{ XA(LSETXATTR, "user.c"), .have = CAP_PATH2 | CAP_COUNT | CAP_RET,
	  .count = 1, .ret = 0 },
	{ XA(REMOVEXATTR, "user.b"), .have = CAP_PATH | CAP_PATH2 | CAP_RET,
	  .path = "src", .ret = 0 },
	{ XA(LREMOVEXATTR, "user.c"), .have = CAP_PATH2 | CAP_RET, .ret = 0 },
	{ XA(FREMOVEXATTR, "user.a"), .have = CAP_PATH2 | CAP_RET, .ret = 0,
	  .v_fd = 2 },
	{ XA(FSETXATTR, "system.posix_acl_access"), .have = CAP_PATH2 |
	  CAP_COUNT | CAP_MODE | CAP_RET, .count = 28, .mode = FA_ACL_MODE,
	  .ret = 0, .v_fd = 2 },
	LOCK(F_SETLK, F_WRLCK, 10, 20), LOCK(F_GETLK, F_WRLCK, 10, 20),
	LOCK(F_SETLKW, F_UNLCK, 10, 20), LOCK(F_OFD_SETLK, F_RDLCK, 0, 100),
	LOCK(F_OFD_GETLK, F_RDLCK, 0, 100),
	LOCK(F_OFD_SETLKW, F_UNLCK, 0, 100),
	FLOCK(LOCK_EX), FLOCK(LOCK_UN), FLOCK(LOCK_SH | LOCK_NB), FLOCK(LOCK_UN),
	{ E(SPLICE), .have = CAP_OFFSET | CAP_COUNT | CAP_FLAGS | CAP_RET,
	  .lacks = CAP_OFFSET2, .offset = 0, .count = FA_SPLICE, .flags = 0,
	  .ret = FA_SPLICE, .v_fd = 2, .v_fd2 = 6 },
	{ E(TEE), .have = CAP_COUNT | CAP_RET, .count = FA_TEE, .ret = FA_TEE,
	  .v_fd = 5, .v_fd2 = 7 },
	{ E(SPLICE), .have = CAP_OFFSET2 | CAP_COUNT | CAP_RET,
	  .lacks = CAP_OFFSET, .offset2 = FA_SIZE, .count = FA_SPLICE,
	  .ret = FA_SPLICE, .v_fd = 5, .v_fd2 = 3 },
	{ E(MKNOD), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "fifo",
	  .mode = S_IFIFO | 0644, .ret = 0 },
	{ E(MKNODAT), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "reg",
	  .mode = S_IFREG | 0600, .ret = 0, .v_fd = 4 },
	{ E(MKNOD), .have = CAP_PATH | CAP_MODE | CAP_RET, .path = "null",
	  .mode = S_IFCHR | 0600, .ret = 0 },
	{ E(SYNC_FILE_RANGE), .have = CAP_OFFSET | CAP_COUNT | CAP_FLAGS |
	  CAP_RET, .offset = 0, .count = FA_BLOCK,
	  .flags = SYNC_FILE_RANGE_WRITE, .ret = 0, .v_fd = 2 },
	{ E(FADVISE64), .have = CAP_OFFSET | CAP_COUNT | CAP_FLAGS | CAP_RET,
	  .offset = 0, .count = FA_BLOCK, .flags = POSIX_FADV_WILLNEED,
	  .ret = 0, .v_fd = 2 },
	{ E(READAHEAD), .have = CAP_OFFSET | CAP_COUNT | CAP_RET, .offset = 0,
	  .count = FA_BLOCK, .ret = 0, .v_fd = 2 },
	{ E(SYNCFS), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	{ E(CLOSE), .have = CAP_RET, .ret = 0, .v_fd = 2 },
	END
};

/* The *xattrat calls (Linux 6.13), where the kernel has them. */
static const struct exp fileapi_at[] = {
	{ XA(SETXATTRAT, "user.at"), .have = CAP_FD | CAP_PATH | CAP_PATH2 |
	  CAP_FLAGS | CAP_COUNT | CAP_ARG | CAP_RET, .fd = AT_FDCWD,
	  .path = "src", .flags = 0, .count = 2, .arg = 0, .ret = 0 },
	{ XA(GETXATTRAT, "user.at"), .have = CAP_PATH | CAP_PATH2 | CAP_COUNT |
	  CAP_RET, .path = "src", .count = 256, .ret = 2 },
	{ E(LISTXATTRAT), .have = CAP_PATH | CAP_COUNT, .path = "src",
	  .count = 256, .ret_positive = true },
	{ XA(REMOVEXATTRAT, "user.at"), .have = CAP_PATH | CAP_PATH2 | CAP_RET,
	  .path = "src", .ret = 0 },
	END
};

static const struct exp *const fileapi_chains[] = { fileapi_main, NULL };
static const struct exp *const fileapi_at_chains[] = {
	fileapi_main, fileapi_at, NULL
};

static const char *const fileapi_replay[] = {
	"f 8192 %S/src",
	"a 5 %S/src name=user.pre",
	"openat path=%S/src vfd=$S",
	"openat path=%S/dst vfd=$D",
	"ioctl 0 fd=$D fd2=$S cmd=1074041865",
	"ioctl 0 fd=$D fd2=$S off=0 off2=4096 count=4096 cmd=1075876877",
	"dedupe 0 fd=$D off2=0",
	"ioctl 0 fd=$S off=0 count=4096 cmd=3222836278 arg=1",
	"dedupe_done 0 fd=$D count=4096",
	"fsetxattr 0 fd=$S count=5 arg=0 name=user.a",
	"fgetxattr 5 fd=$S count=0 name=user.pre",
	"getxattr 5 path=%S/src count=256 name=user.pre",
	"lgetxattr 5 path=%S/src count=256 name=user.pre",
	"getxattr -61 path=%S/src count=256 name=user.none",
	"flistxattr 16 fd=$S count=0",
	"listxattr 16 path=%S/src count=256",
	"llistxattr 16 path=%S/src count=256",
	"setxattr 0 path=%S/src count=2 arg=1 name=user.b",
	"lsetxattr 0 path=%S/src count=1 arg=0 name=user.c",
	"removexattr 0 path=%S/src name=user.b",
	"lremovexattr 0 path=%S/src name=user.c",
	"fremovexattr 0 fd=$S name=user.a",
	"fsetxattr 0 fd=$S mode=0640 count=28 arg=0 name=system.posix_acl_access",
	"fcntl 0 fd=$S off=10 whence=0 count=20 cmd=6 arg=1",
	"fcntl 0 fd=$S off=10 whence=0 count=20 cmd=5 arg=1",
	"fcntl 0 fd=$S off=10 whence=0 count=20 cmd=7 arg=2",
	"fcntl 0 fd=$S off=0 whence=0 count=100 cmd=37 arg=0",
	"fcntl 0 fd=$S off=0 whence=0 count=100 cmd=36 arg=0",
	"fcntl 0 fd=$S off=0 whence=0 count=100 cmd=38 arg=2",
	"flock 0 fd=$S flags=0x2",
	"flock 0 fd=$S flags=0x8",
	"flock 0 fd=$S flags=0x5",
	"splice 100 fd=$S flags=0x0 off=0 count=100",
	"splice 100 fd2=$D flags=0x0 off2=8192 count=100",
	"mknod 0 path=%S/fifo mode=010644",
	"mknodat 0 path=%S/reg mode=0100600",
	"mknod 0 path=%S/null mode=020600",
	"sync_file_range 0 fd=$S flags=0x2 off=0 count=4096",
	"fadvise64 0 fd=$S flags=0x3 off=0 count=4096",
	"readahead 0 fd=$S off=0 count=4096",
	"syncfs 0 fd=$S",
	"close 0 fd=$S",
	NULL
};

/* The count of @name in the uncaptured record of log @path. */
static uint64_t log_uncaptured(const char *path, const char *name)
{
	char err[ERRLEN];
	struct caplog_reader *rd = caplog_open(path, err, sizeof(err));
	const struct uncaptured *u;
	struct cap_event ev;
	uint64_t n;

	ck_assert_msg(rd, "%s", err);
	while (caplog_next(rd, &ev) == 1)
		;
	u = caplog_uncaptured(rd);
	ck_assert_msg(u, "%s: no uncaptured record", path);
	n = uncaptured_count(u, name);
	caplog_close(rd);
	return n;
}

/*
 * The file API beyond reads and writes (tests/workloads/fileapi.c) on an
 * xfs with reflink, captured with -x: each call with its arguments and
 * result, the dedupe record before its ioctl, the *xattrat calls where
 * the kernel has them; the FIONREAD ioctl only as an uncaptured ioctl;
 * and the replay file: every call but tee (the device's mknod too, which
 * the replay refuses), src's attribute from before in INIT.
 */
START_TEST(test_fileapi)
{
	static const struct workload fileapi = {
		.name = "fileapi", .chains = fileapi_chains,
		.replay = fileapi_replay, .counts = "|timelines=1|processes=1|"
	};
	static const struct workload fileapi_at_kernel = {
		.name = "fileapi", .chains = fileapi_at_chains,
		.replay = fileapi_replay, .counts = "|timelines=1|processes=1|"
	};
	const char *why = tu_cannot_capture();
	bool at = access("/sys/kernel/tracing/events/syscalls/"
			 "sys_enter_setxattrat", F_OK) == 0;
	struct run r;

	if (why) {
		printf("capture: test fileapi skipped: %s\n", why);
		return;
	}
	run_init(&r, at ? &fileapi_at_kernel : &fileapi, BY_PID);
	ck_assert_int_eq(rmdir(r.wdir), 0);
	if (!tu_mount_image(r.wdir, "mkfs.xfs", "-f", 320)) {
		printf("capture: test fileapi skipped: no xfs image\n");
		run_free(&r);
		return;
	}
	free(r.sandbox);
	r.sandbox = sandbox_of(r.wdir);
	capture_workload(&r);
	read_log(&r);
	check_pids(&r);
	for (int c = 0; r.w->chains[c]; c++)
		match_chain(&r, r.w->chains[c], c);
	printf("capture: %s: %zu expected events matched, %zu records in the "
	       "log\n", r.label, r.matched, r.nev);
	ck_assert_uint_eq(log_uncaptured(r.log, "ioctl"), 1);
	check_replay(&r);
	ck_assert_uint_eq(replay_ops(&r, "tee"), 0);
	ck_assert_uint_eq(replay_ops(&r, "mknod"), 2);
	ck_assert_int_eq(umount2(r.wdir, MNT_DETACH), 0);
	run_free(&r);
}
END_TEST

/* ---- the log file ------------------------------------------------------ */

#define NOBODY 65534

/* A file @dir/@name holding @text with mode @mode and owner @uid. */
static char *make_file(const char *dir, const char *name, const char *text,
		       mode_t mode, uid_t uid)
{
	char *path = tu_write_str(dir, name, text);

	ck_assert_int_eq(chown(path, uid, uid), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

/* @path still holds @text with mode @mode and owner @uid. */
static void assert_unchanged(const char *path, const char *text, mode_t mode,
			     uid_t uid)
{
	struct stat st;
	char *now = tu_read(path, NULL);

	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_msg(now && !strcmp(now, text), "%s: %s", path, now);
	ck_assert_uint_eq(st.st_mode & 07777, mode);
	ck_assert_uint_eq(st.st_uid, uid);
	free(now);
}

/* Root, and no SUDO_UID that would let another user's file pass. */
static bool log_file_setup(void)
{
	if (geteuid() != 0) {
		printf("capture: log file test skipped: not root\n");
		return false;
	}
	unsetenv("SUDO_UID");		/* this forked test process only */
	return true;
}

/* A file an unprivileged user made first stays theirs: refused. */
START_TEST(log_refuses_other_users_file)
{
	char err[ERRLEN] = "", *dir, *path;
	int fd;

	if (!log_file_setup())
		return;
	dir = tu_scratch();
	path = make_file(dir, "io.capture", "mine\n", 0644, NOBODY);
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_int_eq(fd, -EPERM);
	ck_assert_msg(strstr(err, path) && strstr(err, "another user"), "%s", err);
	assert_unchanged(path, "mine\n", 0644, NOBODY);
	free(path);
	free(dir);
}
END_TEST

/* A FIFO is refused at once, with or without a reader, and gets nothing. */
START_TEST(log_refuses_fifo)
{
	char err[ERRLEN] = "", *dir, *path, c;
	int fd, rd;

	if (!log_file_setup())
		return;
	dir = tu_scratch();
	path = tu_join(dir, "io.capture");
	ck_assert_int_eq(mkfifo(path, 0666), 0);
	alarm(10);			/* a blocking open fails the test */
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_msg(fd < 0, "FIFO without a reader opened");
	rd = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_int_eq(fd, -EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	/* Nothing came through: EOF (the refused writer closed) or none. */
	ck_assert_int_le(read(rd, &c, 1), 0);
	alarm(0);
	close(rd);
	free(path);
	free(dir);
}
END_TEST

/* A symlink to a victim is refused; the victim keeps its content. */
START_TEST(log_refuses_symlink)
{
	char err[ERRLEN] = "", *dir, *victim, *path;
	int fd;

	if (!log_file_setup())
		return;
	dir = tu_scratch();
	victim = make_file(dir, "passwd", "root:x:0:0\n", 0644, 0);
	path = tu_join(dir, "io.capture");
	ck_assert_int_eq(symlink(victim, path), 0);
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_int_eq(fd, -ELOOP);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	assert_unchanged(victim, "root:x:0:0\n", 0644, 0);
	free(path);
	free(victim);
	free(dir);
}
END_TEST

/* Root's own old log, mode 0644: emptied and made 0600. */
START_TEST(log_own_file_private_and_empty)
{
	char err[ERRLEN] = "", *dir, *path;
	struct stat st;
	int fd;

	if (!log_file_setup())
		return;
	dir = tu_scratch();
	path = make_file(dir, "io.capture", "old log\n", 0644, 0);
	/* Not overwritten without --force: left as it was. */
	fd = capture_open_log(path, false, err, sizeof(err));
	ck_assert_int_eq(fd, -EEXIST);
	ck_assert_msg(strstr(err, path) && strstr(err, "not overwritten"),
		      "%s", err);
	assert_unchanged(path, "old log\n", 0644, 0);
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(st.st_uid, 0);
	close(fd);
	/* A new one is created 0600 whatever the umask. */
	free(path);
	path = tu_join(dir, "new.capture");
	umask(0);
	fd = capture_open_log(path, true, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	close(fd);
	free(path);
	free(dir);
}
END_TEST

/* ---- a full disk ------------------------------------------------------- */

#define FULL_EVENTS 6000	/* lines offered, far more than fit */

/*
 * A tmpfs of @size at @dir, mounted in a mount namespace of this (forked)
 * test process, so that it goes away with it.  False, with a note, if that
 * cannot be done here.
 */
static bool private_tmpfs(const char *dir, const char *size)
{
	char opts[32];

	snprintf(opts, sizeof(opts), "size=%s", size);
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, opts) < 0) {
		printf("capture: disk full test skipped: no tmpfs: %s\n",
		       geteuid() ? "not root" : strerror(errno));
		return false;
	}
	return true;
}

/*
 * Write a log as the backends do to the capture log @path: a header, then
 * FULL_EVENTS events of varied length with an openfd record, and a lost
 * record every 100, counting like the backends (capture.h); then end it.
 * Returns capture_log_end()'s result, the counts in @sum.
 */
static int write_full_log(const char *path, struct capture_summary *sum,
			  char *err, rlim_t limit)
{
	struct rlimit rl, saved;
	static const char dirs[] = "/srv/data/some/deeper/directory/for/length";
	struct caplog_header hdr = { .version = 4, .host = "h", .backend = "bpf" };
	struct capture_options opt = { .output = path };
	struct capture_log *lg = capture_log_open(&opt, err, ERRLEN);
	struct outbuf *ob;
	struct cap_event ev;
	int rc;

	ck_assert_msg(lg, "%s", err);
	ob = &lg->ob;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &saved), 0);
	rl = saved;
	if (limit)
		rl.rlim_cur = limit;
	/* No check from here to the reset: Check's own file would hit the
	 * limit. */
	setrlimit(RLIMIT_FSIZE, &rl);
	memset(sum, 0, sizeof(*sum));
	caplog_write_header(ob, &hdr);
	memset(&ev, 0, sizeof(ev));
	ev.sys = SYS_OPENFD;
	ev.pid = ev.tid = 9;
	ev.fd = 3;
	ev.path = "/srv/data/open";
	ev.path_len = 14;
	ev.have = CAP_FD | CAP_PATH;
	caplog_write_event(ob, &ev);
	sum->snapshot_fds = !ob->err;
	for (int i = 0; i < FULL_EVENTS; i++) {
		bool lost = i % 100 == 99, failed = ob->err != 0;

		memset(&ev, 0, sizeof(ev));
		ev.time_ns = (uint64_t)i * 1000;
		ev.pid = ev.tid = 9;
		ev.sys = lost ? SYS_LOST : SYS_NEWFSTATAT;
		ev.count = 1;
		ev.path = dirs;
		ev.path_len = (uint32_t)(i * 7 % (sizeof(dirs) - 1));
		ev.have = lost ? CAP_COUNT : CAP_PATH | CAP_RET | CAP_DUR;
		if (!failed)
			caplog_write_event(ob, &ev);
		failed = ob->err != 0;
		if (lost)
			sum->lost++;
		else if (!failed)
			sum->events++;
		else if (capture_log_full(ob->err))
			sum->lost_disk_full++;
	}
	sum->duration_ns = 12345;
	rc = capture_log_end(lg, sum, err, ERRLEN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &saved), 0);
	ck_assert_uint_eq(sum->bytes, ob->written);
	ck_assert_uint_eq(sum->bytes, capture_log_bytes(lg));
	ck_assert_int_eq(capture_log_close(lg), 0);
	return rc;
}

/*
 * The log @path after a capture stopped by a full disk (@error): whole
 * lines, then the end record; the reader finds every event the record
 * counts, and the generator reads it without error.  Returns the events.
 */
static uint64_t check_full_log(const char *path, const char *error,
			       const struct capture_summary *sum)
{
	char err[ERRLEN], *text, *last, *replay;
	struct caplog_reader *rd = caplog_open(path, err, sizeof(err));
	struct cap_event ev;
	uint64_t events = 0, openfds = 0;
	size_t len;
	int rc;

	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) == 1) {
		events += ev.sys != SYS_CWD && ev.sys != SYS_OPENFD &&
			  ev.sys != SYS_LOST;
		openfds += ev.sys == SYS_OPENFD;
	}
	ck_assert_int_eq(rc, 0);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(rd, why) == 0, "%s: %s", path,
			      caplog_bad_name(why));
	const struct caplog_end *end = caplog_end_record(rd);
	ck_assert_msg(end, "%s: no end record", path);
	ck_assert_str_eq(end->error, error);
	ck_assert_uint_eq(end->events, events);
	ck_assert_uint_gt(end->lost_disk_full, 0);
	if (sum) {
		ck_assert_uint_eq(sum->events, events);
		ck_assert_uint_eq(sum->snapshot_fds, openfds);
		ck_assert_uint_eq(end->lost_disk_full, sum->lost_disk_full);
		ck_assert_uint_eq(end->lost, sum->lost);
		ck_assert_uint_eq(end->snapshot_fds, openfds);
	}
	caplog_close(rd);

	text = tu_read(path, &len);
	ck_assert(text && len > 0 && text[len - 1] == '\n');
	text[len - 1] = '\0';
	last = strrchr(text, '\n');
	ck_assert_msg(last && !strncmp(last + 1, "#|end|events=", 13),
		      "last line: %s", last ? last + 1 : text);
	free(text);

	/* Generate takes it as a complete log (a warning only). */
	struct gen_options go = { .capture_path = path, .name = "test",
				  .user = "u" };
	struct gen_summary gs;
	char *dir = tu_scratch();
	replay = tu_join(dir, "full.replay");
	go.replay_path = replay;
	log_set_level(LOG_ERROR);
	rc = generate_run(&go, &gs, err, sizeof(err));
	ck_assert_msg(rc == 0 || rc == -ENODATA, "generate: %s", err);
	ck_assert(gs.have_end && !gs.end_missing);
	ck_assert_uint_eq(gs.end.events, events);
	free(replay);
	free(dir);
	return events;
}

/* Offsets at which the file size limit cuts the log: in the header (only
 * it is left), and at odd places among the events. */
static const rlim_t fsize_limits[] = { 30, 4096 + 17, 65536 + 1000, 100003 };

/* RLIMIT_FSIZE (EFBIG) is exact to the byte: the end record needs lines
 * cut off, one by one. */
START_TEST(full_file_size_limit)
{
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch();
	char *path = tu_join(dir, "io.capture");
	struct stat st;
	int rc;

	rc = write_full_log(path, &sum, err, fsize_limits[_i]);
	ck_assert_msg(rc == -EFBIG, "%d: %s", rc, err);
	ck_assert_int_eq(sum.log_full, -EFBIG);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_le((uint64_t)st.st_size, fsize_limits[_i]);
	ck_assert_uint_eq((uint64_t)st.st_size, sum.bytes);
	ck_assert_uint_eq(sum.events + sum.lost_disk_full,
			  FULL_EVENTS - FULL_EVENTS / 100);
	if (_i == 0) {
		/* Not even the end record fits after the version line. */
		ck_assert_msg(strstr(err, "not even the end record fits"), "%s",
			      err);
		ck_assert_uint_eq(sum.events, 0);
		ck_assert_int_eq(st.st_size, 21);
	} else {
		char want[128];
		snprintf(want, sizeof(want), "capture log %s: File too large: "
			 "stopped after %llu events", path,
			 (unsigned long long)sum.events);
		ck_assert_str_eq(err, want);
		ck_assert_uint_gt(sum.events, 0);
		check_full_log(path, "EFBIG", &sum);
		/* The cut left less than a line and an end record free. */
		ck_assert_uint_gt((uint64_t)st.st_size + 250, fsize_limits[_i]);
	}
	free(path);
	free(dir);
}
END_TEST

/* A real ENOSPC, on a small tmpfs. */
START_TEST(full_tmpfs)
{
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch();
	char *path = tu_join(dir, "io.capture");
	int rc;

	if (!private_tmpfs(dir, "64k"))
		goto out;
	rc = write_full_log(path, &sum, err, 0);
	ck_assert_msg(rc == -ENOSPC, "%d: %s", rc, err);
	ck_assert_msg(strstr(err, "No space left on device: stopped after "),
		      "%s", err);
	ck_assert_uint_le(sum.bytes, 64 * 1024);
	ck_assert_uint_gt(sum.events, 0);
	check_full_log(path, "ENOSPC", &sum);
out:
	free(path);
	free(dir);
}
END_TEST

/* A fake staprun in @dir, first in PATH: it prints a module's header,
 * the lines @body (shell), @n close events, the syscall counts and a lost
 * record. */
static void fake_staprun(const char *dir, const char *body, unsigned n)
{
	char *script, *path;

	ck_assert(asprintf(&script,
		"#!/bin/sh\n"
		"echo '#|capture_version=4|'\n"
		"echo '#|host=h|kernel=k|backend=systemtap|start_epoch_ns=1|'\n"
		"%s"
		"yes 't=1700000000000000000;:,D=10;:,i=5:5;:,o=close;:,d=3;:,r=0;:,'"
		" | head -n %u\n"
		"echo '#|syscall_count|%d=5|'\n"
		"echo '#|syscall_count|%d=7|'\n"
		"echo '#|syscall_count|%d=4|'\n"
		"echo 't=1700000000000000001;:,i=0:0;:,o=lost;:,c=2;:,'\n",
		body, n, capture_syscall_nr("close"), capture_syscall_nr("getpid"),
		capture_syscall_nr("ioctl")) > 0);
	free(tu_write_str(dir, "staprun", script));
	path = tu_join(dir, "staprun");
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	free(script);
	ck_assert(asprintf(&path, "%s:%s", dir, getenv("PATH")) > 0);
	setenv("PATH", path, 1);	/* this forked test process only */
	free(path);
}

/* The SystemTap backend ends its log with the end record too. */
START_TEST(stap_end_record)
{
	struct capture_options opt = { .comm = "no-such-comm-x" };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch(), *text;
	char *path = tu_join(dir, "io.capture");
	const char *want;
	int rc;

	fake_staprun(dir, "", 5);
	opt.output = path;
	rc = capture_stap_run(&opt, "mod.ko", &sum, err, sizeof(err));
	ck_assert_msg(rc == 0, "%d: %s", rc, err);
	ck_assert_uint_eq(sum.events, 5);
	text = tu_read(path, NULL);
	want = "o=lost;:,c=2;:,\n#|uncaptured|getpid=7|ioctl=4|\n"
	       "#|end|events=5|lost=2|lost_disk_full=0|"
	       "filtered=0|paths_cut=0|snapshot_fds=0|missing_tracepoints=0|"
	       "duration_ns=";
	char *at = strstr(text, want);
	ck_assert_msg(at && !strchr(strstr(at, "#|end|"), '\n')[1], "log: %s",
		      text);
	free(text);
	free(path);
	free(dir);
}
END_TEST

/*
 * The module's events go the BPF capture's way: a relative path made
 * absolute from the cwd the capture followed, the path filters applied
 * (an fd operation by its fd's path), lines put back into entry-time
 * order; an ioctl line is taken out of the ioctl count; the probes
 * SystemTap skipped are lost events.
 */
START_TEST(stap_resolves)
{
	const char *include[] = { "/srv/data" };
	struct capture_options opt = { .comm = "no-such-comm-x" };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch(), *text;
	char *path = tu_join(dir, "io.capture");
	int rc;

	opt.filter.include = include;
	opt.filter.ninclude = 1;
	fake_staprun(dir,
		"echo 't=1700000000000000100;:,D=10;:,i=7:7;:,o=chdir;:,p=/srv/data;:,r=0;:,'\n"
		"echo 't=1700000000000000300;:,D=10;:,i=7:7;:,o=openat;:,d=-100;:,p=db/x;:,f=0;:,r=4;:,'\n"
		"echo 't=1700000000000000200;:,D=10;:,i=7:8;:,o=openat;:,d=-100;:,p=/etc/passwd;:,f=0;:,r=5;:,'\n"
		"echo 't=1700000000000000400;:,D=10;:,i=7:7;:,o=read;:,d=4;:,c=9;:,r=9;:,'\n"
		"echo 't=1700000000000000500;:,D=10;:,i=7:7;:,o=read;:,d=5;:,c=9;:,r=9;:,'\n"
		"echo 't=1700000000000000600;:,D=10;:,i=7:7;:,o=ioctl;:,d=4;:,e=5;:,F=1074041865;:,r=0;:,'\n"
		"echo 'WARNING: Number of errors: 0, skipped probes: 3' >&2\n",
		0);
	opt.output = path;
	rc = capture_stap_run(&opt, "mod.ko", &sum, err, sizeof(err));
	ck_assert_msg(rc == 0, "%d: %s", rc, err);
	text = tu_read(path, NULL);
	ck_assert_msg(strstr(text, "o=chdir;:,p=/srv/data;:,r=0;:,\n"
			     "t=1700000000000000300;:,D=10;:,i=7:7;:,o=openat;:,"
			     "d=-100;:,p=/srv/data/db/x;:,f=0;:,r=4;:,\n"
			     "t=1700000000000000400;:,D=10;:,i=7:7;:,o=read;:,d=4;:,"
			     "c=9;:,r=9;:,\n"), "%s", text);
	ck_assert_msg(!strstr(text, "passwd") && !strstr(text, "d=5;:,c=9"),
		      "%s", text);
	ck_assert_msg(strstr(text, "#|uncaptured|getpid=7|ioctl=3|\n"), "%s", text);
	ck_assert_uint_eq(sum.excluded, 2);
	/* The module's lost record, and the probes SystemTap skipped. */
	ck_assert_msg(strstr(text, "i=0:0;:,o=lost;:,c=3;:,\n#|uncaptured|"),
		      "%s", text);
	ck_assert_uint_eq(sum.lost, 5);
	free(text);
	free(path);
	free(dir);
}
END_TEST

/* ... and on a full disk stops staprun and ends its log cleanly. */
START_TEST(stap_full_tmpfs)
{
	struct capture_options opt = { .comm = "no-such-comm-x" };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch(), *mnt;
	char *path;
	int rc;

	mnt = tu_join(dir, "small");
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	path = tu_join(mnt, "io.capture");
	fake_staprun(dir, "", 20000);
	if (!private_tmpfs(mnt, "64k"))
		goto out;
	opt.output = path;
	rc = capture_stap_run(&opt, "mod.ko", &sum, err, sizeof(err));
	ck_assert_msg(rc == -ENOSPC, "%d: %s", rc, err);
	ck_assert_msg(strstr(err, "No space left on device: stopped after "),
		      "%s", err);
	ck_assert_uint_eq(sum.events + sum.lost_disk_full, 20000);
	ck_assert_uint_le(sum.bytes, 64 * 1024);
	check_full_log(path, "ENOSPC", &sum);
out:
	free(path);
	free(mnt);
	free(dir);
}
END_TEST

/* The SystemTap backend writes a .zst log, and stops at --max-size. */
START_TEST(stap_zst_and_max_size)
{
	struct capture_options opt = { .comm = "no-such-comm-x" };
	struct capture_summary sum;
	char err[ERRLEN] = "", *dir = tu_scratch();
	char *zst = tu_join(dir, "io.capture.zst"), *path = tu_join(dir, "io.capture");
	struct caplog_reader *rd;
	struct cap_event ev;
	uint64_t n = 0;
	int rc;

	fake_staprun(dir, "", 20000);
	opt.output = zst;
	rc = capture_stap_run(&opt, "mod.ko", &sum, err, sizeof(err));
	ck_assert_msg(rc == 0, "%d: %s", rc, err);
	ck_assert_uint_eq(sum.events, 20000);
	ck_assert_uint_lt(sum.bytes * 20, sum.text_bytes);
	rd = caplog_open(zst, err, sizeof(err));
	ck_assert_msg(rd, "%s", err);
	while ((rc = caplog_next(rd, &ev)) == 1)
		n += ev.sys == SYS_CLOSE;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, 20000);
	ck_assert(caplog_end_record(rd) && caplog_end_record(rd)->events == 20000);
	caplog_close(rd);

	opt.output = path;
	opt.max_size = LOG_GUARD_MIN_SIZE;
	rc = capture_stap_run(&opt, "mod.ko", &sum, err, sizeof(err));
	ck_assert_msg(rc == -EFBIG, "%d: %s", rc, err);
	ck_assert_int_eq(sum.log_stop, LOG_STOP_MAX_SIZE);
	ck_assert_msg(strstr(err, "reached --max-size (131072 bytes): stopped "
			     "after "), "%s", err);
	ck_assert_uint_eq(sum.events + sum.lost_disk_full, 20000);
	ck_assert_uint_le(sum.bytes, LOG_GUARD_MIN_SIZE);
	check_full_log(path, "MAX_SIZE", &sum);
	free(path);
	free(zst);
	free(dir);
}
END_TEST

/*
 * The binary, capturing a busy shell loop with the probe into a 256 KiB
 * tmpfs: it stops on the full disk, prints its summary and the error,
 * exits 1, and leaves a log that ends with its end record.
 */
START_TEST(bpf_full_tmpfs)
{
	const char *why = tu_cannot_capture();
	char *dir = tu_scratch(), *mnt = tu_join(dir, "small");
	char *path = tu_join(mnt, "io.capture"), *out = NULL, *err = NULL;
	char pid[16];
	pid_t loop;
	int rc, status;

	if (why) {
		printf("capture: test bpf_full_tmpfs skipped: %s\n", why);
		goto out;
	}
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	if (!private_tmpfs(mnt, "256k"))
		goto out;
	loop = tu_busy_loop();
	snprintf(pid, sizeof(pid), "%d", (int)loop);
	/* --min-free 0: the disk itself fills (--min-free has its own
	 * test, in the compactlog suite). */
	char *const args[] = { "ioriot", "-c", path, "-x", pid,
			       "--duration", "30", "--min-free", "0", NULL };
	rc = tu_run(args, &out, &err);
	kill(loop, SIGKILL);
	waitpid(loop, &status, 0);
	ck_assert_msg(rc == 1, "exit %d; stdout: %s; stderr: %s", rc, out, err);
	ck_assert_msg(strstr(err, "No space left on device: stopped after "),
		      "stderr: %s", err);
	ck_assert_msg(strstr(out, "Events: ") &&
		      strstr(out, "Events lost to the full disk: ") &&
		      strstr(out, "Capture log: "), "stdout: %s", out);
	uint64_t events = check_full_log(path, "ENOSPC", NULL);
	char want[64];
	snprintf(want, sizeof(want), "Events: %llu\n",
		 (unsigned long long)events);
	ck_assert_msg(strstr(out, want), "stdout: %s, want %s", out, want);
out:
	free(out);
	free(err);
	free(path);
	free(mnt);
	free(dir);
}
END_TEST

Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("workloads");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_workload, 0, NCASES);
	tcase_add_test(tc, test_uncaptured);
	tcase_add_test(tc, test_umask);
	tcase_add_test(tc, test_cputime);
	tcase_add_test(tc, test_wake_order);
	tcase_add_test(tc, test_fileapi);
	suite_add_tcase(s, tc);

	/* Tagged timing (make check-timing): its threads race on fd numbers
	 * with the capture's 20 ms reorder window, which emulated CPUs (make
	 * check-vm) do not keep, nor a vCPU its busy host takes away. */
	tc = tu_timing_case("fd race");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fd_race);
	suite_add_tcase(s, tc);

	tc = tcase_create("think");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_think_replay);
	tcase_add_test(tc, test_runq);
	suite_add_tcase(s, tc);

	tc = tcase_create("daemon");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_daemon_comm);
	tcase_add_test(tc, test_include_async);
	tcase_add_loop_test(tc, test_cgroup_capture, 0, 2);
	tcase_add_test(tc, test_chroot_capture);
	tcase_add_test(tc, test_mntns_capture);
	suite_add_tcase(s, tc);

	tc = tcase_create("systemtap");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_stap_workload, 0, NSTAP_CASES);
	suite_add_tcase(s, tc);

	tc = tcase_create("log file");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, log_refuses_other_users_file);
	tcase_add_test(tc, log_refuses_fifo);
	tcase_add_test(tc, log_refuses_symlink);
	tcase_add_test(tc, log_own_file_private_and_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("disk full");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, full_file_size_limit, 0,
			    sizeof(fsize_limits) / sizeof(fsize_limits[0]));
	tcase_add_test(tc, full_tmpfs);
	tcase_add_test(tc, stap_end_record);
	tcase_add_test(tc, stap_resolves);
	tcase_add_test(tc, stap_full_tmpfs);
	tcase_add_test(tc, stap_zst_and_max_size);
	tcase_add_test(tc, bpf_full_tmpfs);
	suite_add_tcase(s, tc);
	return s;
}
