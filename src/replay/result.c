/*
 * result: how a replayed result compares with the captured one (replay.h).
 * The kind of the syscall says what its successful result is: a byte
 * count, an fd or address that the replay cannot reproduce, or a value
 * that must come out the same (0 for most, an offset for lseek).
 */
#include "ioriot/replay.h"

#define MAX_ERRNO 4095		/* mmap: below -4095 a result is an address */

enum value_kind { VK_COUNT, VK_IDENTITY, VK_EXACT };

/* What a successful result of @sys is.  exec.c reports the captured fd of
 * an open and the captured address of an mmap on success: they, mremap's
 * address and fcntl's file flags (F_GETFL of a file the replay opens with
 * flags of its own) are compared as success only, and so is the number of
 * completions an io_getevents reaped (when they come depends on the
 * device).  An AIO or io_uring read's or write's completion is a byte
 * count.  io_uring_setup's fd is compared as success only, as an open's,
 * and so is the number of requests an io_uring_enter submitted: the
 * requests the generator left out (not file I/O) are not in its batch.
 * mmap_read's and mmap_write's result is a count of pages. */
static enum value_kind value_kind(enum sys_id sys)
{
	switch (sys_info(sys)->kind) {
	case SK_READ: case SK_WRITE: case SK_SENDFILE: case SK_COPY_RANGE:
	case SK_READDIR: case SK_AIO_DATA: case SK_URING_DATA: case SK_MAPPAGE:
	case SK_SPLICE:
		return VK_COUNT;
	case SK_OPEN: case SK_DUP: case SK_FCNTL: case SK_MMAP: case SK_ADDR:
	case SK_AIO_GETEVENTS: case SK_URING_SETUP: case SK_URING_ENTER:
		return VK_IDENTITY;
	default:
		return VK_EXACT;
	}
}

static bool failed(enum sys_id sys, int64_t v)
{
	if (sys_info(sys)->kind == SK_MMAP)
		return v < 0 && v >= -MAX_ERRNO;
	return v < 0;
}

enum replay_match replay_result_compare(enum sys_id sys, int64_t want,
					int64_t got)
{
	if (failed(sys, got))
		return failed(sys, want) && want == got ? REPLAY_SAME :
							  REPLAY_ERRNO;
	if (failed(sys, want))
		return REPLAY_OK;
	switch (value_kind(sys)) {
	case VK_IDENTITY:
		return REPLAY_SAME;
	case VK_COUNT:
		return got < want ? REPLAY_SHORT : got > want ? REPLAY_MORE :
							       REPLAY_SAME;
	case VK_EXACT:
		break;
	}
	return got == want ? REPLAY_SAME : REPLAY_VALUE;
}

unsigned replay_result_slot(enum replay_match m, int64_t got)
{
	switch (m) {
	case REPLAY_SHORT:
		return REPLAY_RESULT_SHORT;
	case REPLAY_MORE:
		return REPLAY_RESULT_MORE;
	case REPLAY_VALUE:
		return REPLAY_RESULT_VALUE;
	case REPLAY_ERRNO:
		return got > -REPLAY_RESULT_EOTHER ? (unsigned)-got :
						     REPLAY_RESULT_EOTHER;
	case REPLAY_SAME: case REPLAY_OK:
		break;
	}
	return REPLAY_RESULT_OK;
}
