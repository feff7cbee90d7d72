/*
 * fileops: the replay of the file API beyond reads and writes, private to
 * src/replay: file locks with bounded waits (locks.c), extended
 * attributes (xattr.c), the clone and dedupe ioctls (clone.c), splice
 * through a pipe of the replay's own (splice.c) and file mappings
 * (mappings.c).  exec.c calls them with the real fds of an operation's
 * vfds.
 */
#ifndef IORIOT_REPLAY_FILEOPS_H
#define IORIOT_REPLAY_FILEOPS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/rlog.h"
#include "stop.h"

struct exec_ctx;

/* A syscall's result @rc as a result or -errno. */
static inline int64_t neg_errno(long rc)
{
	return rc < 0 ? -(int64_t)errno : (int64_t)rc;
}

/*
 * An fcntl lock command (op->cmd with arg= l_type, whence=, off= l_start,
 * count= l_len) or a flock (flags= its operation) on @fd.  A blocking one
 * (F_SETLKW, F_OFD_SETLKW, flock without LOCK_NB) is tried without
 * blocking until it succeeds, fails otherwise, or its wait passes twice
 * the captured duration plus a second: then -ETIMEDOUT; or until @stop
 * says the replay stops: then -EINTR.  Returns the result or -errno.
 */
int64_t lock_call(const struct rlog_op *op, int fd,
		  const struct replay_stop *stop);

/*
 * The extended attribute call @op on op->path, or on @fd (-1: none) for
 * the f* calls and an *at call with an empty path.  Values set are
 * @data (more than RLOG_XATTR_SIZE_MAX bytes), but a POSIX ACL of three
 * entries with mode= is built from its mode; values and lists read go to
 * @buf (@cap bytes).  Returns the result or -errno; -EINVAL for a
 * missing name, path or fd; -EPERM, without a call, for setting or
 * removing an attribute of the security.* or trusted.* namespace.
 */
int64_t xattr_call(const struct rlog_op *op, int fd, const char *data,
		   char *buf, size_t cap);

struct dedupe_table;

/* An empty table of FIDEDUPERANGE destinations per timeline, or NULL. */
struct dedupe_table *dedupe_table_new(void);

/* Free @t.  Accepts NULL. */
void dedupe_table_free(struct dedupe_table *t);

/*
 * The clone and dedupe ioctls and their lines: ioctl FICLONE (@fd the
 * destination, @fd2 the source), FICLONERANGE (op's off, count, off2),
 * FIDEDUPERANGE (@fd the source, the destinations its timeline's dedupe
 * lines queued), dedupe (queues @fd at off2: 0), dedupe_done (the next
 * destination's status from the timeline's last FIDEDUPERANGE, or that
 * call's error).  Other commands give -EINVAL.  Safe from several
 * threads.  Returns the result or -errno; 0 or -ENOMEM in *@rc.
 */
int64_t clone_call(struct dedupe_table *t, const struct rlog_op *op, int fd,
		   int fd2, int *rc);

/*
 * splice from @fd (at off=, if given) to @fd2 (at off2=): a side of -1
 * (no vfd: it was a pipe) is a pipe of this thread's own, which the
 * replay fills with @data before (the bytes the capture moved, at most
 * its size) or empties after.  Returns the splice's result or -errno;
 * -EINVAL for a tee line.
 */
int64_t splice_call(const struct rlog_op *op, int fd, int fd2,
		    const char *data, size_t data_len);

/*
 * mmap of @fd as @op captured it (the captured prot without PROT_EXEC,
 * the flags without MAP_FIXED), kept under the captured address and
 * process for the calls by address; a mapping already there is unmapped.
 * The result (the captured address, or -errno) in *@result.  Returns 0,
 * or -ENOMEM.
 */
int mapping_mmap(struct exec_ctx *x, const struct rlog_op *op, int fd,
		 int64_t *result);

/* munmap (the whole mapping that holds op->addr), msync or madvise (on the
 * part of it the capture named; only the advices safe_advice() allows) of
 * @op's process.  The result or -errno (-EINVAL: no such mapping). */
int64_t mapping_addr_call(struct exec_ctx *x, const struct rlog_op *op);

/* mmap_read, mmap_write: op->count pages op->stride pages apart from the
 * captured address op->addr, through the replay's mapping that holds it.
 * Pages beyond the mapping are not touched.  The pages touched, or
 * -errno. */
int64_t mapping_pages(struct exec_ctx *x, const struct rlog_op *op);

/* Unmap and free every mapping of @x, and its table. */
void mappings_free(struct exec_ctx *x);

#endif
