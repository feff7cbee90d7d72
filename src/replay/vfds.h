/*
 * vfds: the replay's vfd table (vfds.c), private to src/replay.  Safe from
 * several threads.
 */
#ifndef IORIOT_REPLAY_VFDS_H
#define IORIOT_REPLAY_VFDS_H

#include <stdbool.h>
#include <stdint.h>

struct exec_ctx;
struct exec_vfd_shard;

/* An empty vfd table of EXEC_VFD_SHARDS shards, or NULL. */
struct exec_vfd_shard *vfd_table_new(void);

/* Close every real fd of vfd table @t and free it.  Accepts NULL. */
void vfd_table_free(struct exec_vfd_shard *t);

/* The real fd of vfd @vfd, or -1. */
int vfd_get(struct exec_ctx *x, uint64_t vfd);

/* The real fd of vfd @vfd, or -1, for io_uring: a regular file or a
 * directory to which the replay added O_NONBLOCK loses it here, once. */
int vfd_get_blocking(struct exec_ctx *x, uint64_t vfd);

/* Forget @vfd; its table entry (vfd_entry_fd() gives its fd, which the
 * caller closes), or NULL if it had none. */
void *vfd_del(struct exec_ctx *x, uint64_t vfd);

/* Map @vfd to @fd (opened with O_NONBLOCK the replay added, if
 * @nonblock_added), closing a real fd it had.  Returns 0, or -ENOMEM
 * (then @fd is closed). */
int vfd_put(struct exec_ctx *x, uint64_t vfd, int fd, bool nonblock_added);

/* Whether @fd is a regular file or a directory, asked with the replay's
 * own statx flags (dioalign.h), which a capture of the replay tells apart
 * from the replayed calls. */
bool fd_is_file_or_dir(int fd);

/* The real fd of table entry @v (non-NULL). */
int vfd_entry_fd(const void *v);

#endif
