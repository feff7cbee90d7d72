/* uring: io_uring's opcodes and flags as ioriot uses them (uring.h). */
#include <inttypes.h>
#include <stdio.h>

#include "ioriot/uring.h"

/* The kernel's names of the request opcodes, lower case. */
static const char *const op_names[URING_OPS_NAMED] = {
	"nop", "readv", "writev", "fsync", "read_fixed", "write_fixed",
	"poll_add", "poll_remove", "sync_file_range", "sendmsg", "recvmsg",
	"timeout", "timeout_remove", "accept", "async_cancel", "link_timeout",
	"connect", "fallocate", "openat", "close", "files_update", "statx",
	"read", "write", "fadvise", "madvise", "send", "recv", "openat2",
	"epoll_ctl", "splice", "provide_buffers", "remove_buffers", "tee",
	"shutdown", "renameat", "unlinkat", "mkdirat", "symlinkat", "linkat",
	"msg_ring", "fsetxattr", "setxattr", "fgetxattr", "getxattr",
	"socket", "uring_cmd", "send_zc", "sendmsg_zc", "read_multishot",
	"waitid", "futex_wait", "futex_wake", "futex_waitv",
	"fixed_fd_install", "ftruncate", "bind", "listen", "recv_zc",
	"epoll_wait", "readv_fixed", "writev_fixed", "pipe",
};

const char *uring_op_name(int64_t op, char buf[URING_NAME_MAX])
{
	if (op >= 0 && op < URING_OPS_NAMED)
		return op_names[op];
	snprintf(buf, URING_NAME_MAX, "op_%" PRIu64, (uint64_t)op);
	return buf;
}

enum sys_id uring_completion_of(int64_t op)
{
	switch (op) {
	case URING_OP_NOP: return SYS_URING_NOP;
	case URING_OP_READV: return SYS_URING_READV;
	case URING_OP_WRITEV: return SYS_URING_WRITEV;
	case URING_OP_FSYNC: return SYS_URING_FSYNC;
	case URING_OP_READ_FIXED: return SYS_URING_READ_FIXED;
	case URING_OP_WRITE_FIXED: return SYS_URING_WRITE_FIXED;
	case URING_OP_SYNC_FILE_RANGE: return SYS_URING_SYNC_FILE_RANGE;
	case URING_OP_FALLOCATE: return SYS_URING_FALLOCATE;
	case URING_OP_READ: return SYS_URING_READ;
	case URING_OP_WRITE: return SYS_URING_WRITE;
	case URING_OP_FADVISE: return SYS_URING_FADVISE;
	case URING_OP_FTRUNCATE: return SYS_URING_FTRUNCATE;
	default: return SYS_COUNT;
	}
}

bool uring_completion_reads(enum sys_id sys)
{
	return sys_info(sys)->kind == SK_URING_DATA &&
	       sys_info(sys)->cls == OC_READ;
}

bool uring_register_table(int64_t op, bool *files)
{
	switch (op) {
	case URING_REG_FILES: case URING_REG_FILES_UPDATE:
	case URING_REG_FILES2: case URING_REG_FILES_UPDATE2:
		*files = true;
		return true;
	case URING_REG_BUFFERS: case URING_REG_BUFFERS2:
	case URING_REG_BUFFERS_UPDATE:
		*files = false;
		return true;
	default:
		return false;
	}
}

bool uring_register_replayed(int64_t op)
{
	bool files;

	return uring_register_table(op, &files) ||
	       op == URING_REG_UNREGISTER_BUFFERS ||
	       op == URING_REG_UNREGISTER_FILES || op == URING_REG_PROBE;
}
