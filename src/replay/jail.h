/*
 * jail: confines the replay to its sandboxes without a check per
 * operation.  The thread that runs the replay gets a mount namespace and a
 * root directory of its own: a small tmpfs that holds nothing but the
 * sandbox roots' paths ("<mnt>/.ioriot/NAME"), each the bind mount of its
 * sandbox; the host's root is unmounted from that namespace.  Every path an
 * operation names then resolves in there, as the kernel walks it: absolute
 * and relative symlinks, "..", mount roots; none leads outside the
 * sandboxes, and each operation is the one syscall it was captured as.
 * Threads the jailed thread starts share its root; the other threads of
 * the process keep the host's view (to write statistics, read
 * /proc/diskstats).
 */
#ifndef IORIOT_REPLAY_JAIL_H
#define IORIOT_REPLAY_JAIL_H

#include <stddef.h>
#include <sys/types.h>

/*
 * For a caller that is not root, while the process has one thread only:
 * enter a new user namespace, the caller's uid and gid mapped to
 * themselves, in which jail_enter() may mount.  Does nothing for root.
 * Returns 0 or -errno with a message in @err (e.g. where unprivileged user
 * namespaces are disabled).
 */
int jail_prepare(char *err, size_t errlen);

/*
 * Confine the calling thread, and the threads it starts later, to sandboxes
 * @roots (@n absolute "<mnt>/.ioriot/NAME" roots, as a replay file header
 * lists them): sandbox @host[i] of this host (sandmap.h: the same, or
 * where --map and --copies put it) is bound at @roots[i] in the jail.
 * Each host sandbox is opened with sandbox_enter() (so each must be on a
 * mount root reached without symlinks, and owned by @owner).  The thread's
 * working directory becomes "/".  A thread that is not root keeps no
 * capability.  Returns 0 or -errno with a message in @err; on failure the
 * thread may be half confined and must not replay anything.
 */
int jail_enter(char *const *roots, char *const *host, size_t n, uid_t owner,
	       char *err, size_t errlen);

#endif
