/*
 * rlog_confined: what every entry the replay-file reader accepts must
 * name, checked by fuzz/fuzz_rlog.c and by the fuzzing regressions
 * (tests/test_fuzz_regress.c): init and replay run as root on it.  Paths
 * are normalised and inside a sandbox the header declares; a symlink's
 * content may also be relative (it resolves from the link, in the replay's
 * jail); an extended attribute's name is user.NAME.
 */
#ifndef IORIOT_FUZZ_RLOG_CONFINED_H
#define IORIOT_FUZZ_RLOG_CONFINED_H

#include <stdbool.h>
#include <string.h>

#include "ioriot/paths.h"
#include "ioriot/rlog.h"

/* Whether @path (@len bytes) is normalised and below a sandbox of @h. */
static inline bool rlog_path_confined(const struct rlog_header *h,
				      const char *path, size_t len)
{
	if (strlen(path) != len || !path_is_normal(path, len))
		return false;
	for (size_t i = 0; i < h->nsandboxes; i++)
		if (path_is_below(path, len, h->sandboxes[i],
				  strlen(h->sandboxes[i])))
			return true;
	return false;
}

/* Whether @target (@len bytes) is a symlink content the replay may make. */
static inline bool rlog_link_confined(const struct rlog_header *h,
				      const char *target, size_t len)
{
	if (!len || strlen(target) != len)
		return false;
	return target[0] != '/' || rlog_path_confined(h, target, len);
}

/* Whether entry @e of a file with header @h names only what it may. */
static inline bool rlog_entry_confined(const struct rlog_header *h,
				       const struct rlog_entry *e)
{
	const struct rlog_op *op = &e->op;

	if (e->type == RLOG_ENTRY_OP)
		return (!(op->have & RL_PATH) ||
			rlog_path_confined(h, op->path, op->path_len)) &&
		       (!(op->have & RL_PATH2) ||
			rlog_path_confined(h, op->path2, op->path2_len)) &&
		       (!(op->have & RL_TARGET) ||
			rlog_link_confined(h, op->target, op->target_len));
	if (!rlog_path_confined(h, e->init_path, e->init_path_len))
		return false;
	switch (e->init_kind) {
	case RLOG_INIT_SYMLINK:
		return e->init_target &&
		       rlog_link_confined(h, e->init_target, e->init_target_len);
	case RLOG_INIT_XATTR:
		return e->init_target && e->init_target_len > 5 &&
		       strlen(e->init_target) == e->init_target_len &&
		       !memcmp(e->init_target, "user.", 5);
	default:
		return !e->init_target;
	}
}

#endif
