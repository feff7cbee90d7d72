/*
 * syscalls: the table of every operation a capture log may hold, shared by
 * the capture log reader, the generator and the replay file reader.
 *
 * Each entry names the operation as it appears in logs, the kind that says
 * how the generator treats it, the v3 key that carried its return value,
 * the canonical x86_64 name it is written under in a replay file (legacy
 * v3 names such as llseek or chown16 map to their modern syscall), and its
 * class (enum sys_op_class, syscall_table.h), which every grouping of
 * operations by what they do derives from.
 */
#ifndef IORIOT_SYSCALLS_H
#define IORIOT_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/syscall_table.h"

struct sys_info {
	const char *name;		/* as written in capture logs */
	const char *replay_name;	/* as written in replay files */
	unsigned char name_len, replay_name_len;
	enum sys_kind kind;
	enum sys_op_class cls;		/* syscall_table.h */
	char v3_ret_key;		/* key of the return value in v1-v3 */
};

/* The entry for @id (0 <= id < SYS_COUNT). */
const struct sys_info *sys_info(enum sys_id id);

/*
 * The entry replay files name @id by (its replay name's own entry): for
 * example SYS_FSTATAT -> SYS_NEWFSTATAT.  Thread-safe.
 */
enum sys_id sys_canonical(enum sys_id id);

/* True for the chown family, whose G key is a gid. */
bool sys_is_chown(enum sys_id id);

/* True for the stat family, whose m and s keys are results. */
bool sys_is_stat(enum sys_id id);

/* True for the chmod family. */
bool sys_is_chmod(enum sys_id id);

/* Whether the first (@second false) or second path of @id is a link's
 * content, not a path it touches: symlink's target p, readlink's P, or
 * the name of an extended attribute call's attribute (P).
 * Such a string is never resolved, filtered or looked up. */
bool sys_path_is_content(enum sys_id id, bool second);

/* What an extended attribute call does, and what it names the file by. */
enum xattr_op { XATTR_OP_SET, XATTR_OP_GET, XATTR_OP_LIST, XATTR_OP_REMOVE };
enum xattr_by {
	XATTR_BY_PATH,		/* setxattr, ...: follows a last symlink */
	XATTR_BY_LINK,		/* lsetxattr, ...: does not */
	XATTR_BY_FD,		/* fsetxattr, ... */
	XATTR_BY_AT,		/* setxattrat, ... (Linux 6.13): dirfd d,
				 * AT_ flags f, an empty path names fd d */
};

/* For an extended attribute call @id, what it does (@op) and how it names
 * its file (@by); false for every other id.  Either pointer may be NULL. */
bool sys_xattr(enum sys_id id, enum xattr_op *op, enum xattr_by *by);

/*
 * Look up a name of @len bytes as written in capture logs, or in replay
 * files when @replay is true.  Returns the id, or -1 if unknown.
 */
int sys_lookup(const char *name, size_t len, bool replay);

/* The class of an operation (sysclass.c): what analyze's tables group by
 * and what generate's --only-syscalls selects (docs/guide.md, Filters). */
enum sys_class { CLS_READ, CLS_WRITE, CLS_META, CLS_SYNC, CLS_OPEN, CLS_OTHER,
		 CLS_COUNT };

/* The class of @sys (a capture log's or a replay file's id), from its
 * table class (enum sys_op_class): write takes copies and alters, meta the
 * namespace calls. */
enum sys_class sys_class_of(enum sys_id sys);

/* The completion operation of an AIO request of @opcode (IOCB_CMD_*), or
 * SYS_COUNT for one that is not replayed (poll, noop, unknown). */
enum sys_id sys_aio_completion(int64_t opcode);

/* The directions in which an operation moves file data, from its table
 * class: a read, a write, both for a copy, none for the rest (alters
 * included: they pass no data).  What the rate caps count an operation
 * in and the time series counts its bytes as. */
#define SYS_DATA_READ 1u
#define SYS_DATA_WRITE 2u
unsigned sys_data_dirs(enum sys_id sys);

/* The name of class @c ("read", ...). */
const char *sys_class_name(enum sys_class c);

/* The class named by @len bytes at @name, or -1 if none is. */
int sys_class_lookup(const char *name, size_t len);

#endif
