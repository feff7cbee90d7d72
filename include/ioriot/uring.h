/*
 * uring: what ioriot knows of io_uring's numbers, shared by the generator,
 * the replay file reader and the replay (docs/capture-format.md §5.2,
 * docs/replay-format.md §4.3): the names of the request opcodes, the
 * requests the replay makes and the completion operation each is written
 * as, the io_uring_register opcodes it replays, and the setup and sqe
 * flags it asks the kernel for.  The numbers are the kernel's ABI
 * (<linux/io_uring.h>), spelled out here so that a build against older
 * headers knows the newer ones.
 */
#ifndef IORIOT_URING_H
#define IORIOT_URING_H

#include <stdbool.h>
#include <stdint.h>

#include "ioriot/syscalls.h"

/* Request opcodes named one by one; the others are "op_N". */
#define URING_OPS_NAMED 63
/* Bytes of a name, with its NUL ("sync_file_range", "op_18446..."). */
#define URING_NAME_MAX 32

/* Request opcodes the replay makes. */
enum uring_opcode {
	URING_OP_NOP = 0, URING_OP_READV = 1, URING_OP_WRITEV = 2,
	URING_OP_FSYNC = 3, URING_OP_READ_FIXED = 4, URING_OP_WRITE_FIXED = 5,
	URING_OP_SYNC_FILE_RANGE = 8, URING_OP_FALLOCATE = 17,
	URING_OP_READ = 22, URING_OP_WRITE = 23, URING_OP_FADVISE = 24,
	URING_OP_FTRUNCATE = 55,
};

/* io_uring_register opcodes the replay makes. */
enum uring_register_op {
	URING_REG_BUFFERS = 0, URING_REG_UNREGISTER_BUFFERS = 1,
	URING_REG_FILES = 2, URING_REG_UNREGISTER_FILES = 3,
	URING_REG_FILES_UPDATE = 6, URING_REG_PROBE = 8,
	URING_REG_FILES2 = 13, URING_REG_FILES_UPDATE2 = 14,
	URING_REG_BUFFERS2 = 15, URING_REG_BUFFERS_UPDATE = 16,
};

/* sqe flags (IOSQE_*). */
#define URING_SQE_FIXED_FILE (1u << 0)
#define URING_SQE_IO_DRAIN (1u << 1)
#define URING_SQE_IO_LINK (1u << 2)
#define URING_SQE_IO_HARDLINK (1u << 3)
#define URING_SQE_ASYNC (1u << 4)
#define URING_SQE_BUFFER_SELECT (1u << 5)
#define URING_SQE_CQE_SKIP_SUCCESS (1u << 6)
#define URING_SQE_LINKS (URING_SQE_IO_LINK | URING_SQE_IO_HARDLINK)

/* Setup flags (IORING_SETUP_*) of a captured ring the replay cannot ask
 * for: a CPU, another ring's workers, a disabled start, memory of the
 * captured process, a ring fd it never gets.  Every other known flag is
 * asked for; unknown ones are not. */
#define URING_SETUP_SQPOLL (1u << 1)
#define URING_SETUP_CQSIZE (1u << 3)
#define URING_SETUP_KNOWN 0x3ffffu
#define URING_SETUP_NOT_REPLAYED ((1u << 2) | (1u << 5) | (1u << 6) | \
				  (1u << 14) | (1u << 15))

/* The ring sizes the replay sets up (the kernel's own limits): entries,
 * and completion entries with IORING_SETUP_CQSIZE.  The replay file's
 * reader refuses others, so generate writes no setup beyond them. */
#define URING_ENTRIES_MAX 32768
#define URING_CQ_MAX (2 * URING_ENTRIES_MAX)

/* The name of request opcode @op: "read", "send", ...; an opcode without
 * a name as "op_N" in @buf.  Never NULL. */
const char *uring_op_name(int64_t op, char buf[URING_NAME_MAX]);

/* The completion operation of a request of opcode @op that the replay
 * makes (SYS_URING_READ, ...), or SYS_COUNT for one it does not. */
enum sys_id uring_completion_of(int64_t op);

/* True if completion operation @sys is of a read (uring_read,
 * uring_readv, uring_read_fixed). */
bool uring_completion_reads(enum sys_id sys);

/* True if io_uring_register opcode @op (its registered-ring bit cleared)
 * is replayed. */
bool uring_register_replayed(int64_t op);

/* True if io_uring_register opcode @op sets fixed files (uring_file
 * lines before it), buffers (*@files false; uring_buf lines), or neither
 * (false). */
bool uring_register_table(int64_t op, bool *files);

/* Bounds of io_uring arguments the replay allocates or registers by: the
 * kernel's own limits (fixed files, registered buffers, one buffer's
 * size), and the replay's own limit on the bytes of one ring's registered
 * buffers (the kernel's is RLIMIT_MEMLOCK, which root does not have):
 * beyond it a registration is answered with ENOMEM, nothing allocated. */
#define URING_FILES_MAX (1u << 20)
#define URING_BUFS_MAX (1u << 14)
#define URING_BUF_BYTES_MAX (1ull << 30)
#define URING_BUF_TOTAL_MAX (1ull << 30)

#endif
