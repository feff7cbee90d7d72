/*
 * classes: which class (read, write, meta, sync, open, other) each
 * operation of the replay file belongs to, and which operations are
 * calls with a captured duration of their own.
 */
#include "analyze.h"

enum an_class an_class_of(enum sys_id sys)
{
	switch (sys) {
	case SYS_OPEN: case SYS_OPENAT: case SYS_OPENAT2: case SYS_CREAT:
	case SYS_CLOSE: case SYS_CLOSE_RANGE:
		return AC_OPEN;
	case SYS_READ: case SYS_PREAD64: case SYS_READV: case SYS_PREADV:
	case SYS_PREADV2: case SYS_AIO_PREAD: case SYS_AIO_PREADV:
	case SYS_URING_READV: case SYS_URING_READ_FIXED: case SYS_URING_READ:
	case SYS_MMAP_READ:
		return AC_READ;
	case SYS_WRITE: case SYS_PWRITE64: case SYS_WRITEV: case SYS_PWRITEV:
	case SYS_PWRITEV2: case SYS_AIO_PWRITE: case SYS_AIO_PWRITEV:
	case SYS_URING_WRITEV: case SYS_URING_WRITE_FIXED:
	case SYS_URING_WRITE: case SYS_MMAP_WRITE:
		return AC_WRITE;
	case SYS_FSYNC: case SYS_FDATASYNC: case SYS_SYNC: case SYS_SYNCFS:
	case SYS_SYNC_FILE_RANGE: case SYS_AIO_FSYNC: case SYS_AIO_FDSYNC:
	case SYS_URING_FSYNC: case SYS_URING_SYNC_FILE_RANGE:
		return AC_SYNC;
	case SYS_FTRUNCATE: case SYS_FALLOCATE: case SYS_FSTAT:
	case SYS_FSTATFS: case SYS_FCHMOD: case SYS_FCHOWN:
		return AC_META;
	default:
		break;
	}
	switch (sys_info(sys)->kind) {
	case SK_PATHOP: case SK_STATAT: case SK_TRUNCATE: case SK_MKDIR:
	case SK_RMDIR: case SK_UNLINK: case SK_RENAME: case SK_LINK:
	case SK_SYMLINK: case SK_MKNOD: case SK_READDIR: case SK_XATTR:
	case SK_CHDIR: case SK_FCHDIR:
		return AC_META;
	default:
		return AC_OTHER;
	}
}

const char *an_class_name(enum an_class c)
{
	static const char *const names[AC_COUNT] = {
		[AC_READ] = "read", [AC_WRITE] = "write", [AC_META] = "meta",
		[AC_SYNC] = "sync", [AC_OPEN] = "open", [AC_OTHER] = "other",
	};
	return names[c];
}

bool an_is_completion(enum sys_id sys)
{
	enum sys_kind k = sys_info(sys)->kind;

	return k == SK_AIO_DATA || k == SK_AIO_DONE || k == SK_URING_DATA ||
	       k == SK_URING_DONE;
}

bool an_is_timed(enum sys_id sys)
{
	enum sys_kind k = sys_info(sys)->kind;

	return !an_is_completion(sys) && k != SK_IOCB && k != SK_URING_SQE &&
	       k != SK_URING_FILE && k != SK_URING_BUF && k != SK_MAPPAGE &&
	       k != SK_DEDUPE && k != SK_DEDUPE_DONE;
}
