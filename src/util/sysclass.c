/*
 * sysclass: the class (read, write, meta, sync, open, other) of each
 * operation, shared by analyze's tables and the generator's
 * --only-syscalls filter.
 */
#include <string.h>

#include "ioriot/syscalls.h"

static const char *const class_names[CLS_COUNT] = {
	[CLS_READ] = "read", [CLS_WRITE] = "write", [CLS_META] = "meta",
	[CLS_SYNC] = "sync", [CLS_OPEN] = "open", [CLS_OTHER] = "other",
};

enum sys_class sys_class_of(enum sys_id sys)
{
	sys = sys_canonical(sys);
	switch (sys) {
	case SYS_OPEN: case SYS_OPENAT: case SYS_OPENAT2: case SYS_CREAT:
	case SYS_CLOSE: case SYS_CLOSE_RANGE: case SYS_OPENFD:
		return CLS_OPEN;
	case SYS_READ: case SYS_PREAD64: case SYS_READV: case SYS_PREADV:
	case SYS_PREADV2: case SYS_AIO_PREAD: case SYS_AIO_PREADV:
	case SYS_URING_READV: case SYS_URING_READ_FIXED: case SYS_URING_READ:
	case SYS_MMAP_READ:
		return CLS_READ;
	case SYS_WRITE: case SYS_PWRITE64: case SYS_WRITEV: case SYS_PWRITEV:
	case SYS_PWRITEV2: case SYS_AIO_PWRITE: case SYS_AIO_PWRITEV:
	case SYS_URING_WRITEV: case SYS_URING_WRITE_FIXED:
	case SYS_URING_WRITE: case SYS_MMAP_WRITE:
		return CLS_WRITE;
	case SYS_FSYNC: case SYS_FDATASYNC: case SYS_SYNC: case SYS_SYNCFS:
	case SYS_SYNC_FILE_RANGE: case SYS_AIO_FSYNC: case SYS_AIO_FDSYNC:
	case SYS_URING_FSYNC: case SYS_URING_SYNC_FILE_RANGE:
		return CLS_SYNC;
	case SYS_FTRUNCATE: case SYS_FALLOCATE: case SYS_FSTAT:
	case SYS_FSTATFS: case SYS_FCHMOD: case SYS_FCHOWN:
		return CLS_META;
	default:
		break;
	}
	switch (sys_info(sys)->kind) {
	case SK_PATHOP: case SK_STATAT: case SK_TRUNCATE: case SK_MKDIR:
	case SK_RMDIR: case SK_UNLINK: case SK_RENAME: case SK_LINK:
	case SK_SYMLINK: case SK_MKNOD: case SK_READDIR: case SK_XATTR:
	case SK_CHDIR: case SK_FCHDIR:
		return CLS_META;
	default:
		return CLS_OTHER;
	}
}

const char *sys_class_name(enum sys_class c)
{
	return class_names[c];
}

int sys_class_lookup(const char *name, size_t len)
{
	for (int c = 0; c < CLS_COUNT; c++)
		if (strlen(class_names[c]) == len &&
		    memcmp(class_names[c], name, len) == 0)
			return c;
	return -1;
}
