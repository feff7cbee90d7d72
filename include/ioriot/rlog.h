/*
 * rlog: the replay file, written by the generator and read by init and the
 * replay engine.  docs/replay-format.md is the specification.
 *
 *   #|replay_version=1|name=NAME|user=USER|...     header lines
 *   #|sandbox=/mnt/.ioriot/NAME|                   one per sandbox
 *   #INIT
 *   d PATH | f SIZE PATH [mode=0OCT] | l PATH target=PATH | x PATH
 *   a SIZE PATH name=NAME                          an xattr of the path before
 *   #OPS
 *   ID PID:TID TIME_NS DUR_NS DEPS OP RET key=value ...
 *   #END|ops=N|
 */
#ifndef IORIOT_RLOG_H
#define IORIOT_RLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/outbuf.h"
#include "ioriot/syscalls.h"
#include "ioriot/uncaptured.h"

#define RLOG_VERSION 1

/* An operation waits for at most this many others (DEPS, §5 of
 * docs/replay-format.md). */
#define DEPS_MAX 16

/* The operations an operation waits for: its DEPS column. */
struct deps {
	uint64_t id[DEPS_MAX];
	int n;
	int dropped;		/* dependencies beyond DEPS_MAX, not kept */
};

/* Optional arguments of an operation. */
enum rlog_have {
	RL_FD = 1 << 0,		/* fd=VFD */
	RL_FD2 = 1 << 1,	/* fd2=VFD */
	RL_VFD = 1 << 2,	/* vfd=VFD: the description an open creates */
	RL_PATH = 1 << 3,	/* path= */
	RL_PATH2 = 1 << 4,	/* path2= */
	RL_FLAGS = 1 << 5,	/* flags=0xHEX */
	RL_MODE = 1 << 6,	/* mode=0OCT */
	RL_OFFSET = 1 << 7,	/* off= */
	RL_OFFSET2 = 1 << 8,	/* off2= */
	RL_WHENCE = 1 << 9,	/* whence= */
	RL_COUNT = 1 << 10,	/* count= */
	RL_CMD = 1 << 11,	/* cmd= */
	RL_ARG = 1 << 12,	/* arg= */
	RL_UID = 1 << 13,	/* uid= */
	RL_GID = 1 << 14,	/* gid= */
	RL_ADDR = 1 << 15,	/* addr= */
	RL_TARGET = 1 << 16,	/* target= (symlink content) */
	RL_CTX = 1 << 17,	/* ctx=: a virtual AIO context id */
	RL_TAG = 1 << 18,	/* tag=: a virtual id of one AIO request */
	RL_MIN = 1 << 19,	/* min=: io_getevents' min_nr, io_uring_enter's
				 * min_complete */
	RL_CQ = 1 << 20,	/* cq=: io_uring_setup's cq_entries */
	RL_SLOT = 1 << 21,	/* slot=: a fixed file's index */
	RL_BUF = 1 << 22,	/* buf=: a registered buffer's index */
	RL_SQFLAGS = 1 << 23,	/* sqflags=: an io_uring request's IOSQE_* */
	RL_UMASK = 1 << 24,	/* umask=0OCT: the captured umask (0 to 0777)
				 * of a call that makes an inode */
	RL_STRIDE = 1 << 25,	/* stride=: pages from one touched page to the
				 * next (mmap_read, mmap_write) */
	RL_NAME = 1 << 26,	/* name=: an extended attribute's name */
	RL_CPU = 1 << 27,	/* cpu=: the thread's on-CPU ns since its
				 * previous operation ended */
	RL_PARENT = 1 << 28,	/* parent=PID:TID: the timeline that forked or
				 * cloned this one during the capture (on a
				 * timeline's first operation) */
	RL_SYNC = 1 << 29,	/* sync=ID:NS: in the capture, this
				 * timeline waited (futex) for a wake that
				 * came after operation ID of another timeline
				 * ended; this operation began NS after that
				 * end */
	RL_WAITED = 1 << 30,	/* waited=NS: of the gap before this
				 * operation, the ns its thread was blocked
				 * in such waits (--think replaces them by
				 * the sync= dependency) */
	RL_PROBE = 1u << 31,	/* probe=NS: of the cpu= part of the gap
				 * before this operation, the ns that were
				 * the capture probe's own (capture-format
				 * §4.2): --think does not burn them */
};

/* Bits of rlog_op.have beyond an enum's int. */
/* runq=NS: of the gap before this operation, the ns its thread waited
 * runnable for a CPU in the capture (the scheduler's run delay): --think
 * does not sleep them, its own threads wait for their CPUs. */
#define RL_RUNQ (1ULL << 32)

/* The page of mmap_read and mmap_write: count= and stride= are in pages
 * of this size (the capture's, x86_64). */
#define RLOG_PAGE_SIZE 4096

struct rlog_op {
	/* The fields most operations use come first (the replay engine
	 * reads them for every operation: fewer cache lines), the
	 * dependency array last (the reader zeroes the rest only). */
	enum sys_id sys;
	uint64_t have;			/* enum rlog_have, RL_RUNQ */
	uint64_t time_ns;		/* start, ns since the capture's start */
	uint64_t dur_ns;		/* captured duration */
	int64_t ret;			/* captured result or -errno */
	uint64_t fd, vfd;
	const char *path;
	uint32_t path_len, path2_len;
	int64_t flags, mode, offset, count;
	const char *path2, *target;
	uint32_t target_len;
	uint32_t pid, tid;		/* the timeline */
	uint64_t fd2;
	int64_t offset2, whence, cmd, arg;
	int64_t uid, gid;
	uint64_t addr;
	uint64_t ctx, tag;		/* AIO context or io_uring ring, and
					 * request */
	int64_t min;
	int64_t cq, sqflags;		/* io_uring */
	uint64_t slot, buf;
	int64_t umask;			/* RL_UMASK */
	uint64_t stride;		/* pages between touched pages */
	const char *name;		/* an extended attribute's name */
	uint32_t name_len;
	uint64_t cpu_ns;		/* RL_CPU */
	uint64_t parent;		/* RL_PARENT: PID << 32 | TID */
	uint64_t sync_id, sync_gap_ns;	/* RL_SYNC, in this order (the
					 * reader stores the pair at once) */
	uint64_t waited_ns;		/* RL_WAITED */
	uint64_t probe_ns;		/* RL_PROBE */
	uint64_t runq_ns;		/* RL_RUNQ */
	uint64_t id;			/* unique, increasing */
	struct deps deps;
};

enum rlog_init_kind { RLOG_INIT_DIR = 'd', RLOG_INIT_FILE = 'f',
		      RLOG_INIT_SYMLINK = 'l', RLOG_INIT_ABSENT = 'x',
		      RLOG_INIT_XATTR = 'a' };

/* The largest value of an extended attribute (XATTR_SIZE_MAX) and the
 * longest name (XATTR_NAME_MAX), as replay files may hold them. */
#define RLOG_XATTR_SIZE_MAX 65536
#define RLOG_XATTR_NAME_MAX 255

/* No INIT mode (rlog_write_init(), struct rlog_entry). */
#define RLOG_NO_MODE (-1)

/* Write one INIT entry; @mode (permission bits, files only) or
 * RLOG_NO_MODE.  Errors are sticky in @ob. */
void rlog_write_init(struct outbuf *ob, enum rlog_init_kind kind,
		     uint64_t size, const char *path, size_t len, int mode);

/* Write an INIT symlink entry: @path links to @target (a path in a
 * sandbox).  Errors are sticky in @ob. */
void rlog_write_init_symlink(struct outbuf *ob, const char *path, size_t len,
			     const char *target, size_t target_len);

/* Write an INIT extended attribute entry: @path (a file or directory
 * listed before it) has attribute @name (@name_len bytes) with a value of
 * @size bytes.  Errors are sticky in @ob. */
void rlog_write_init_xattr(struct outbuf *ob, uint64_t size, const char *path,
			   size_t len, const char *name, size_t name_len);

/* Write one operation line.  Errors are sticky in @ob. */
void rlog_write_op(struct outbuf *ob, const struct rlog_op *op);

/* What the reader refuses in io_uring operation @op (a static text), or
 * NULL: the arguments the replay needs, within the kernel's limits.  NULL
 * for every other operation. */
const char *rlog_uring_problem(const struct rlog_op *op);

/* An entry read back from a replay file. */
struct rlog_entry {
	enum { RLOG_ENTRY_INIT, RLOG_ENTRY_OP } type;
	enum rlog_init_kind init_kind;
	uint64_t init_size;
	int init_mode;			/* files: 0..0777, or RLOG_NO_MODE */
	const char *init_path;
	uint32_t init_path_len;
	const char *init_target;	/* symlinks: what it links to;
					 * xattrs: the attribute's name,
					 * always user.NAME */
	uint32_t init_target_len;
	struct rlog_op op;
	uint64_t lineno;
};

struct rlog_header {
	int version;
	char name[256];
	char user[256];
	uint64_t ops;			/* from the #END line, once read */
	uint64_t ops_hint;		/* the header's ops=, 0 if absent; for
					 * progress only: users may edit files */
	uint64_t timelines_hint;	/* the header's timelines=, 0 if
					 * absent; sizes queues only */
	char **sandboxes;		/* absolute sandbox roots */
	/* Per sandbox: the test host's mount it is moved to (a sandbox
	 * line's test_mount=, written by generate --map), or NULL. */
	char **test_mounts;
	size_t nsandboxes;
	/* The capture's syscalls it did not record, from the header line
	 * "#|uncaptured|NAME=N|...|", sorted by count; unknown (known
	 * false) in a file without one. */
	struct uncaptured uncaptured;
	/* The io_uring requests the generator did not write, counted by
	 * opcode name, from "#|uring_skipped|NAME=N|...|"; unknown (known
	 * false) in a file without one. */
	struct uncaptured uring_skipped;
};

struct rlog_reader;

/*
 * Open a replay file and read its header.  Returns NULL with errno set
 * (ENODATA empty, EPROTO no header, a malformed header line such as an
 * uncaptured line that is not "#|uncaptured|NAME=N|...|" or comes twice,
 * EPROTONOSUPPORT unknown version, or open(2)'s error) and a message
 * naming file and line in @err.
 */
struct rlog_reader *rlog_open(const char *path, char *err, size_t errlen);

const struct rlog_header *rlog_header(const struct rlog_reader *r);

/*
 * Read the next INIT entry or operation into @e (strings valid until the next
 * call).  Returns 1, 0 at the end (after #END), or -errno: -EPROTO for a
 * malformed line or a file that ends without #END (a truncated file), with
 * the message in @err.
 */
int rlog_next(struct rlog_reader *r, struct rlog_entry *e, char *err,
	      size_t errlen);

/* Close and free.  Accepts NULL. */
void rlog_close(struct rlog_reader *r);

#endif
