/*
 * sandmap: where the sandboxes of a replay file are on the test host.  A
 * replay file names each sandbox after the mount it was captured on,
 * <mount>/.ioriot/NAME, and every path in it lies below one.  A rule
 * CAPTURED=TEST (--map at init and replay time, or a sandbox line's
 * test_mount=, which generate --map writes) moves the sandbox of captured
 * mount CAPTURED to mount TEST of the test host; copy k of --copies N has
 * a tree of its own, NAME.k.  The file's paths are never rewritten: init
 * builds each sandbox in its host place, and the replay's jail binds each
 * host sandbox where the file's sandbox root is (src/replay/jail.h), so an
 * operation's path, a symlink's target and a readlink's length stay as
 * captured.
 */
#ifndef IORIOT_SANDMAP_H
#define IORIOT_SANDMAP_H

#include <stdbool.h>
#include <stddef.h>

#define SANDMAP_RULES_MAX 64
#define SANDMAP_COPIES_MAX 1024	/* --copies */

struct rlog_header;

struct sandmap_rule {
	char *captured;		/* a mountpoint as the replay file names it */
	char *test;		/* the test host's mountpoint */
};

struct sandmap {
	struct sandmap_rule rule[SANDMAP_RULES_MAX];
	size_t n;
};

/*
 * Add rule @arg, "CAPTURED=TEST", both absolute normalised paths, to @m.
 * Returns 0, or -EINVAL (a malformed rule, CAPTURED given before, more
 * than SANDMAP_RULES_MAX rules) or -ENOMEM with a message in @err.
 */
int sandmap_add(struct sandmap *m, const char *arg, char *err, size_t errlen);

/* Free the rules of @m and empty it.  Accepts NULL. */
void sandmap_free(struct sandmap *m);

/* The test mount rule of @m gives captured mount @mnt, or NULL. */
const char *sandmap_lookup(const struct sandmap *m, const char *mnt);

/*
 * The mountpoint of sandbox root @root (as a replay file's header has it,
 * "<mount>/.ioriot/@name") into @mnt (PATHMAP_MAX bytes).  Returns 0, or
 * -EINVAL when @root is not of that form.
 */
int sandmap_root_mount(const char *root, const char *name, char *mnt);

/*
 * Where each sandbox of header @h is on the test host, for copy @copy (0:
 * the sandbox NAME; k from 1 to SANDMAP_COPIES_MAX: NAME.k): <TEST>/.ioriot/
 * NAME[.k], TEST being what a rule of @m (NULL: none) maps the sandbox's
 * mount to, else the header's test_mount=, else the captured mount
 * itself.  Returns an array of h->nsandboxes roots (sandmap_roots_free()),
 * or NULL with errno and a message in @err: EINVAL for a rule of @m that
 * names no mount of the file, or a root or name too long; ENOMEM.
 */
char **sandmap_host_roots(const struct sandmap *m, const struct rlog_header *h,
			  unsigned copy, char *err, size_t errlen);

/* Free @n roots of sandmap_host_roots() and the array.  Accepts NULL. */
void sandmap_roots_free(char **roots, size_t n);

/* Whether two different sandboxes of the @n @roots (a header's) have the
 * same host sandbox in @host. */
bool sandmap_shared(char *const *roots, char *const *host, size_t n);

/*
 * Where two sandboxes of replay file @path share a host sandbox (@host,
 * from sandmap_host_roots()), check that their paths do not collide: no
 * path below the shared root may be named (by an INIT entry or an
 * operation's path) from two sandboxes, unless both list it as a
 * directory that existed before (INIT d).  Reads the whole file.
 * Returns 0, -EEXIST naming the path and the two captured mounts, a
 * reader error (file:line), -E2BIG for more than 64 sandboxes on one
 * host sandbox, or -ENOMEM; the message is in @err.
 */
int sandmap_check_collisions(const char *path, char *const *host,
			     char *err, size_t errlen);

#endif
