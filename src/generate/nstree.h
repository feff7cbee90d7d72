/*
 * nstree: the generator's model of the captured file system namespace.
 *
 * One node per path the capture touched, in a tree keyed by (parent, name).
 * The model follows renames, unlinks and creations so that it can tell which
 * files and directories existed before the capture (the INIT section), which
 * must not exist, and how large each pre-existing file must be.  Each node is
 * also an ordering resource (see deps.h).
 *
 * Memory grows with the number of distinct paths, never with log length.
 */
#ifndef IORIOT_NSTREE_H
#define IORIOT_NSTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "deps.h"

enum node_type { NT_UNKNOWN, NT_FILE, NT_DIR, NT_SYMLINK };
enum node_state { NS_UNKNOWN, NS_EXISTS, NS_ABSENT };

/* What the capture showed of one extended attribute of a node. */
struct xattr_fact {
	struct xattr_fact *next;
	uint64_t size;		/* its value's size before the capture */
	bool init;		/* it existed before the capture */
	bool size_known;	/* ... and a read showed its size */
	bool settled;		/* written or removed since: later calls
				 * show nothing of before */
	uint16_t name_len;
	char name[];
};

/* What an extended attribute call showed (nstree_xattr_seen()). */
enum xattr_seen {
	XS_READ,		/* a get returned the value's size */
	XS_NO_DATA,		/* a get, a replacing set or a remove failed
				 * with ENODATA: absent */
	XS_EXISTED,		/* an exclusive set failed with EEXIST */
	XS_SET,			/* a set succeeded */
	XS_REPLACED,		/* a set with XATTR_REPLACE succeeded */
	XS_CREATED,		/* a set with XATTR_CREATE succeeded */
	XS_REMOVED,		/* a remove succeeded */
};

/* What few nodes have: apart, so that the many nodes stay small. */
struct node_extra {
	char *init_target;		/* INIT: a symlink's target, in a
					 * sandbox, or NULL */
	struct xattr_fact *xattrs;	/* INIT: attributes from before */
	struct lock_order *locks;	/* file locks (events_lock.c) */
};

/*
 * One path of the namespace.  Nodes are many (one per distinct path), so
 * they are packed: flags are bits, names are kept once, in the node, and
 * the rare facts are in node_extra.
 */
struct node {
	struct node *parent;		/* current parent; NULL: root/detached */
	struct node *orig_parent;	/* parent when first seen */
	struct node *hnext;		/* hash chain */
	char *name;			/* current name: orig_name, or a copy of
					 * its own after a rename */
	struct node *data;		/* hard link: the node with the content */
	struct node_extra *extra;	/* NULL until needed (nstree_extra()) */
	uint64_t init_size;		/* INIT size of a pre-existing file */
	uint64_t wlo, whi;		/* hull of ranges written in capture */
	uint64_t cur_size;		/* best estimate of the current size */
	struct resource res;		/* any operation on this path */
	struct resource ns_res;		/* renames, mkdir, rmdir of it: every
					 * path below it depends on these */
	uint32_t hash;
	uint16_t name_len, orig_name_len;	/* < PATHMAP_MAX */
	uint16_t init_mode;		/* INIT: its permission bits then */
	uint8_t type;			/* enum node_type */
	uint8_t state;			/* enum node_state */
	bool preexisting : 1;		/* INIT: exists before replay */
	bool init_absent : 1;		/* INIT: must not exist before replay */
	bool from_start : 1;		/* content dates from before the capture */
	bool attached : 1;		/* reachable through the hash */
	bool init_keep : 1;		/* scratch for INIT output (generate.c) */
	bool has_children : 1;
	bool mode_changed : 1;		/* chmod seen: later modes are not
					 * the ones from before the capture */
	bool init_mode_known : 1;
	bool opened : 1;		/* opened by this path (through a
					 * link: the replay would not) */
	bool fifo : 1;			/* made a FIFO in the capture */
	bool xattrs_new : 1;		/* made in the capture: its attributes
					 * are all from the capture too */
	char orig_name[];		/* the name when first seen, NUL-ended */
};

/* The extended attributes, symlink target and locks of @n, if any. */
static inline struct xattr_fact *node_xattrs(const struct node *n)
{
	return n->extra ? n->extra->xattrs : NULL;
}

static inline const char *node_init_target(const struct node *n)
{
	return n->extra ? n->extra->init_target : NULL;
}

/* @n's node_extra, made if missing.  NULL on allocation failure. */
struct node_extra *nstree_extra(struct node *n);

struct nstree;

/* An empty tree holding only "/".  Returns NULL on allocation failure. */
struct nstree *nstree_new(void);

/*
 * The node of normalised absolute @path (@len bytes), created (with unknown
 * state) along with missing ancestors.  Returns NULL on allocation failure.
 */
struct node *nstree_lookup(struct nstree *t, const char *path, size_t len);

/* The hash nstree_lookup() keys its path cache by; a pure function of the
 * path, so another thread may compute it ahead. */
uint64_t nstree_path_hash(const char *path, size_t len);

/* nstree_lookup() of @path whose nstree_path_hash() is @hash. */
struct node *nstree_lookup_hashed(struct nstree *t, const char *path,
				  size_t len, uint64_t hash);

/* Start loading the path cache slot of @hash into the CPU cache, ahead of
 * its look-up.  Changes nothing. */
void nstree_prefetch_slot(const struct nstree *t, uint64_t hash);

/* Start loading the node the path cache slot of @hash holds (fetched by
 * nstree_prefetch_slot() a while before).  Changes nothing. */
void nstree_prefetch_node(const struct nstree *t, uint64_t hash);

/*
 * A node outside the namespace for an unnamed file (O_TMPFILE).  Returns
 * NULL on allocation failure.
 */
struct node *nstree_anon(struct nstree *t);

/* The node holding @n's content: itself, or the file it is a hard link of. */
static inline struct node *node_data(struct node *n)
{
	return n->data ? n->data : n;
}

/* Write the current path of @n to @out (PATHMAP_MAX).  Returns length or
 * -ENAMETOOLONG. */
long nstree_path(const struct node *n, char *out, bool original);

/* An operation succeeded on @n: it exists now (and its ancestors). */
void nstree_exists(struct node *n, enum node_type type);

/* An operation failed with ENOENT on @n. */
void nstree_enoent(struct node *n);

/*
 * @n was created (mkdir, O_CREAT|O_EXCL, the new name of link, the link of
 * symlink).  @proves_absence: the call fails if the path exists, so if @n
 * was unknown it must not exist before replay.
 */
void nstree_created(struct node *n, enum node_type type, bool proves_absence);

/*
 * open(@n, O_CREAT without O_EXCL) succeeded: it may or may not have existed.
 * It is not put into INIT unless a later read or size shows old data.
 * @trunc: O_TRUNC was given, so no old data can be read.
 */
void nstree_open_creat(struct node *n, bool trunc);

/*
 * @n was removed (unlink, rmdir).  It leaves the namespace but keeps its
 * INIT facts, so fds still open on it count; an absent placeholder takes
 * its name.  Returns 0 or -ENOMEM.
 */
int nstree_removed(struct nstree *t, struct node *n);

/*
 * rename(@from, @to) succeeded.  @exchange swaps them (RENAME_EXCHANGE).
 * Returns 0, -ENOMEM, or -EINVAL (nothing changed) for a rename the kernel
 * cannot have done: of "/", or of a directory into itself.
 */
int nstree_rename(struct nstree *t, struct node *from, struct node *to,
		  bool exchange);

/* The model calls below ignore offsets and sizes beyond INT64_MAX, which
 * no file can have (negative values from a log arrive as such). */

/* Data [@off, @off + @len) was read from @n. */
void nstree_read(struct node *n, uint64_t off, uint64_t len);

/* Data [@off, @off + @len) was written to @n. */
void nstree_write(struct node *n, uint64_t off, uint64_t len);

/* @n was observed to be @size bytes long (stat, seek to end, fd snapshot). */
void nstree_size_seen(struct node *n, uint64_t size);

/* @n was observed with st_mode @mode (stat, fd snapshot): the permission
 * bits of a regular file become its INIT mode if it existed before the
 * capture and no chmod or re-creation of it was seen. */
void nstree_mode_seen(struct node *n, int64_t mode);

/* A chmod of @n succeeded: later modes seen are not the original one. */
void nstree_mode_changed(struct node *n);

/*
 * A readlink of @n read the target @target (@len bytes: relative as read,
 * or an absolute one's sandbox path): if @n is a symlink that existed
 * before the capture and was not created since, INIT makes it with that
 * target.  Returns 0 or -ENOMEM.
 */
int nstree_link_target(struct node *n, const char *target, size_t len);

/* An lstat of @n, a symlink, saw it @size bytes long (its target's
 * length): INIT makes a link of that length when no readlink told the
 * target. */
void nstree_link_size_seen(struct node *n, uint64_t size);

/*
 * An extended attribute call on @n, for attribute @name (@len bytes),
 * showed @what (with a value of @size bytes for XS_READ and XS_REPLACED):
 * an attribute of a node from before the capture that is read, replaced,
 * found or removed before the capture changes it is listed in INIT.
 * Returns 0 or -ENOMEM.
 */
int nstree_xattr_seen(struct node *n, const char *name, size_t len,
		      enum xattr_seen what, uint64_t size);

/* @n was truncated to @size. */
void nstree_truncated(struct node *n, uint64_t size);

/* The first node in creation order, and the one after @n; NULL after the
 * last. */
struct node *nstree_first(const struct nstree *t);
struct node *nstree_next(const struct nstree *t, const struct node *n);

/* Number of nodes. */
uint64_t nstree_count(const struct nstree *t);

/* Free the tree.  Accepts NULL. */
void nstree_free(struct nstree *t);

#endif
