/* syscalls: the operation table and name look-up (syscalls.h). */
#include <linux/aio_abi.h>
#include <pthread.h>
#include <string.h>

#include "ioriot/syscalls.h"

static const struct sys_info table[SYS_COUNT] = {
#define SYS_ENTRY(id, nm, knd, v3, rname, class) \
	[SYS_##id] = { .name = nm, .replay_name = rname, .kind = knd, \
		       .cls = class, .v3_ret_key = v3, \
		       .name_len = sizeof(nm) - 1, \
		       .replay_name_len = sizeof(rname) - 1 },
	SYSCALL_TABLE(SYS_ENTRY)
#undef SYS_ENTRY
};

const struct sys_info *sys_info(enum sys_id id)
{
	return &table[id];
}

enum sys_id sys_aio_completion(int64_t opcode)
{
	switch (opcode) {
	case IOCB_CMD_PREAD: return SYS_AIO_PREAD;
	case IOCB_CMD_PWRITE: return SYS_AIO_PWRITE;
	case IOCB_CMD_PREADV: return SYS_AIO_PREADV;
	case IOCB_CMD_PWRITEV: return SYS_AIO_PWRITEV;
	case IOCB_CMD_FSYNC: return SYS_AIO_FSYNC;
	case IOCB_CMD_FDSYNC: return SYS_AIO_FDSYNC;
	default: return SYS_COUNT;	/* poll, noop, unknown */
	}
}

/*
 * Name look-up: one open-addressing table per name set, built once.  Slots
 * hold id + 1 (0 = empty).  Capture logs are parsed at millions of lines per
 * second, so this is one hash and usually one compare.
 */
#define NAME_SLOTS 1024
static unsigned short log_names[NAME_SLOTS], replay_names[NAME_SLOTS];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

_Static_assert(SYS_COUNT * 2 < NAME_SLOTS,
	       "name tables hold id + 1, at most half full");

static unsigned name_hash(const char *name, size_t len)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static void names_insert(unsigned short *slots, const char *name, int id)
{
	unsigned i = name_hash(name, strlen(name)) % NAME_SLOTS;

	while (slots[i])
		i = (i + 1) % NAME_SLOTS;
	slots[i] = (unsigned short)(id + 1);
}

static void build_names(void)
{
	for (int i = 0; i < SYS_COUNT; i++) {
		names_insert(log_names, table[i].name, i);
		/* Replay files use canonical names only: entries whose log
		 * name is their replay name. */
		if (strcmp(table[i].name, table[i].replay_name) == 0)
			names_insert(replay_names, table[i].name, i);
	}
}

int sys_lookup(const char *name, size_t len, bool replay)
{
	const unsigned short *slots = replay ? replay_names : log_names;

	pthread_once(&names_once, build_names);
	for (unsigned i = name_hash(name, len) % NAME_SLOTS; slots[i];
	     i = (i + 1) % NAME_SLOTS) {
		const struct sys_info *si = &table[slots[i] - 1];

		if (si->name_len == len && memcmp(si->name, name, len) == 0)
			return slots[i] - 1;
	}
	return -1;
}

static enum sys_id canonical[SYS_COUNT];
static pthread_once_t canonical_once = PTHREAD_ONCE_INIT;

static void build_canonical(void)
{
	for (int i = 0; i < SYS_COUNT; i++) {
		const char *rn = table[i].replay_name;
		int c = sys_lookup(rn, strlen(rn), true);
		canonical[i] = c < 0 ? (enum sys_id)i : (enum sys_id)c;
	}
}

enum sys_id sys_canonical(enum sys_id id)
{
	pthread_once(&canonical_once, build_canonical);
	return canonical[id];
}

bool sys_is_chown(enum sys_id id)
{
	switch (id) {
	case SYS_CHOWN: case SYS_CHOWN16: case SYS_LCHOWN: case SYS_LCHOWN16:
	case SYS_FCHOWN: case SYS_FCHOWN16: case SYS_FCHOWNAT:
		return true;
	default:
		return false;
	}
}

bool sys_is_chmod(enum sys_id id)
{
	switch (id) {
	case SYS_CHMOD: case SYS_FCHMOD: case SYS_FCHMODAT:
	case SYS_FCHMODAT2:
		return true;
	default:
		return false;
	}
}

bool sys_path_is_content(enum sys_id id, bool second)
{
	if (second)
		return id == SYS_READLINK || id == SYS_READLINKAT ||
		       sys_xattr(id, NULL, NULL);
	return id == SYS_SYMLINK || id == SYS_SYMLINKAT;
}

bool sys_xattr(enum sys_id id, enum xattr_op *op, enum xattr_by *by)
{
	static const struct {
		enum sys_id id;
		enum xattr_op op;
		enum xattr_by by;
	} calls[] = {
		{ SYS_SETXATTR, XATTR_OP_SET, XATTR_BY_PATH },
		{ SYS_LSETXATTR, XATTR_OP_SET, XATTR_BY_LINK },
		{ SYS_FSETXATTR, XATTR_OP_SET, XATTR_BY_FD },
		{ SYS_SETXATTRAT, XATTR_OP_SET, XATTR_BY_AT },
		{ SYS_GETXATTR, XATTR_OP_GET, XATTR_BY_PATH },
		{ SYS_LGETXATTR, XATTR_OP_GET, XATTR_BY_LINK },
		{ SYS_FGETXATTR, XATTR_OP_GET, XATTR_BY_FD },
		{ SYS_GETXATTRAT, XATTR_OP_GET, XATTR_BY_AT },
		{ SYS_LISTXATTR, XATTR_OP_LIST, XATTR_BY_PATH },
		{ SYS_LLISTXATTR, XATTR_OP_LIST, XATTR_BY_LINK },
		{ SYS_FLISTXATTR, XATTR_OP_LIST, XATTR_BY_FD },
		{ SYS_LISTXATTRAT, XATTR_OP_LIST, XATTR_BY_AT },
		{ SYS_REMOVEXATTR, XATTR_OP_REMOVE, XATTR_BY_PATH },
		{ SYS_LREMOVEXATTR, XATTR_OP_REMOVE, XATTR_BY_LINK },
		{ SYS_FREMOVEXATTR, XATTR_OP_REMOVE, XATTR_BY_FD },
		{ SYS_REMOVEXATTRAT, XATTR_OP_REMOVE, XATTR_BY_AT },
	};

	if (sys_info(id)->kind != SK_XATTR)
		return false;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (calls[i].id != id)
			continue;
		if (op)
			*op = calls[i].op;
		if (by)
			*by = calls[i].by;
		return true;
	}
	return false;
}

bool sys_is_stat(enum sys_id id)
{
	switch (id) {
	case SYS_STAT: case SYS_LSTAT: case SYS_FSTAT: case SYS_NEWFSTATAT:
	case SYS_FSTATAT: case SYS_STATX:
		return true;
	default:
		return false;
	}
}
