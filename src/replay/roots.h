/*
 * roots: the sandbox roots held open in the jail, private to src/replay.
 * A replayed path names a file below a sandbox root by its absolute path;
 * the kernel would walk every component of the root's own path (the mount
 * point, .ioriot, the test's name) for every operation.  Each root is
 * opened once, O_PATH, inside the jail, and an operation's path below it
 * goes to the kernel as the rest of the path relative to that fd.
 *
 * The confinement is the same as for the absolute path: the walk from the
 * fd passes through the same dentry of the same mount (the sandbox's bind
 * mount in the jail, which nothing can rename, unmount or cover while the
 * replay runs: the jail's tmpfs is read-only and the replay mounts
 * nothing), and the thread's root is still the jail's, so ".." in a
 * symlink stops at the jail's root and an absolute symlink resolves from
 * it, exactly as before.  RESOLVE_BENEATH is not added: it would refuse
 * what the capture's kernel allowed (absolute symlinks, which INIT makes
 * with targets rewritten into the sandbox, and ".." above the root into
 * another sandbox), and the jail is what keeps every path inside.
 */
#ifndef IORIOT_REPLAY_ROOTS_H
#define IORIOT_REPLAY_ROOTS_H

#include <fcntl.h>
#include <stddef.h>
#include <string.h>

struct exec_root {
	const char *path;		/* absolute, in the jail */
	size_t len;
	int fd;				/* O_PATH directory */
};

struct exec_roots {
	size_t n;
	struct exec_root root[];
};

/*
 * Open the sandbox roots @paths (@n, as the replay file's header lists
 * them; kept by reference) in the calling thread's root, the jail's.
 * Returns the set, or NULL with errno set.
 */
struct exec_roots *roots_open(char *const *paths, size_t n);

/* Close every root of @r and free it.  Accepts NULL. */
void roots_close(struct exec_roots *r);

/*
 * The fd to resolve @path (@len bytes, absolute and normalised, as the
 * replay reader accepts it) from, in *@dfd, and the path relative to it:
 * the rest below a sandbox root, or @path itself and AT_FDCWD where @path
 * is no path below a root (a root itself, or @r NULL).
 */
static inline const char *roots_at(const struct exec_roots *r,
				   const char *path, size_t len, int *dfd)
{
	if (r) {
		for (size_t i = 0; i < r->n; i++) {
			const struct exec_root *t = &r->root[i];

			if (len > t->len + 1 && path[t->len] == '/' &&
			    memcmp(path, t->path, t->len) == 0) {
				*dfd = t->fd;
				return path + t->len + 1;
			}
		}
	}
	*dfd = AT_FDCWD;
	return path;
}

#endif
