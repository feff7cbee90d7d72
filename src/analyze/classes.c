/*
 * classes: which operations of the replay file are completions and which
 * are calls with a captured duration of their own (their class, read,
 * write, ..., is sys_class_of(), shared with the generator's filter).
 */
#include "analyze.h"

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
