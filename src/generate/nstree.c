/*
 * nstree: namespace model of the capture (nstree.h).  Nodes live in one hash
 * table keyed by (parent pointer, name); a rename re-keys one node and so
 * moves its whole subtree.  Nodes are cut from large chunks, each with its
 * name, and are all freed at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/hashing.h"
#include "ioriot/pathmap.h"
#include "nstree.h"

/* Chunks are aligned to their size, so a node's address gives its chunk
 * (nstree_next()). */
#define CHUNK_SIZE ((size_t)1 << 20)

/* A chunk the nodes are cut from, in creation order. */
struct chunk {
	struct chunk *next;		/* the next newer one */
	size_t used;			/* bytes of mem cut */
	char mem[] __attribute__((aligned(8)));
};

#define CHUNK_ROOM (CHUNK_SIZE - offsetof(struct chunk, mem))

struct nstree {
	struct node **buckets;
	size_t mask;
	uint64_t count;
	struct node *root;
	/* A direct-mapped cache of whole paths: mask + 1 slots, like the
	 * buckets, each the node a path hashing there was last found at;
	 * a hit is checked against the node's names up to the root. */
	struct node **paths;
	struct chunk *oldest, *newest;
};

/* Hash of a (parent, name) key of the tree. */
static uint32_t hash_name(const struct node *parent, const char *name,
			  size_t len)
{
	return (uint32_t)hash_bytes((uint64_t)(uintptr_t)parent *
				   0x9e3779b97f4a7c15ULL ^ len, name, len);
}

static void hash_insert(struct nstree *t, struct node *n)
{
	size_t b = n->hash & t->mask;

	n->hnext = t->buckets[b];
	t->buckets[b] = n;
	n->attached = true;
}

static void hash_remove(struct nstree *t, struct node *n)
{
	struct node **pp = &t->buckets[n->hash & t->mask];

	while (*pp && *pp != n)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = n->hnext;
	n->attached = false;
}

static int grow(struct nstree *t)
{
	size_t cap = (t->mask + 1) * 2;
	struct node **b = calloc(cap, sizeof(*b));
	struct node **paths = malloc(cap * sizeof(*paths));

	if (!b || !paths) {
		free(b);
		free(paths);
		return -ENOMEM;
	}
	/* A path of slot i is in slot i or i + mask + 1 now: the cache
	 * keeps its entries in both (a hit is checked anyway). */
	memcpy(paths, t->paths, (t->mask + 1) * sizeof(*paths));
	memcpy(paths + t->mask + 1, t->paths, (t->mask + 1) * sizeof(*paths));
	free(t->paths);
	t->paths = paths;
	for (size_t i = 0; i <= t->mask; i++) {
		struct node *n = t->buckets[i];
		while (n) {
			struct node *next = n->hnext;
			n->hnext = b[n->hash & (cap - 1)];
			b[n->hash & (cap - 1)] = n;
			n = next;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->mask = cap - 1;
	return 0;
}

/* The bytes a node with a name of @len bytes takes in its chunk. */
static size_t node_size(size_t len)
{
	return (sizeof(struct node) + len + 1 + 7) & ~(size_t)7;
}

static struct node *node_new(struct nstree *t, struct node *parent,
			     const char *name, size_t len)
{
	size_t size = node_size(len);
	struct chunk *c = t->newest;

	if (!c || CHUNK_ROOM - c->used < size) {
		c = aligned_alloc(CHUNK_SIZE, CHUNK_SIZE);
		if (!c)
			return NULL;
		c->next = NULL;
		c->used = 0;
		if (t->newest)
			t->newest->next = c;
		else
			t->oldest = c;
		t->newest = c;
	}
	struct node *n = (struct node *)(c->mem + c->used);
	c->used += size;
	memset(n, 0, size);
	n->name = n->orig_name;
	memcpy(n->orig_name, name, len);
	n->name_len = n->orig_name_len = (uint16_t)len;
	n->parent = n->orig_parent = parent;
	n->hash = hash_name(parent, name, len);
	t->count++;
	return n;
}

struct nstree *nstree_new(void)
{
	struct nstree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->mask = 1023;
	t->buckets = calloc(t->mask + 1, sizeof(*t->buckets));
	t->paths = calloc(t->mask + 1, sizeof(*t->paths));
	if (!t->buckets || !t->paths)
		goto err;
	t->root = node_new(t, NULL, "", 0);
	if (!t->root)
		goto err;
	t->root->type = NT_DIR;
	t->root->state = NS_EXISTS;
	t->root->attached = true;
	return t;
err:
	nstree_free(t);
	return NULL;
}

struct node *nstree_anon(struct nstree *t)
{
	struct node *n = node_new(t, NULL, "", 0);

	if (n) {
		n->state = NS_EXISTS;
		n->type = NT_FILE;
	}
	return n;
}

/* Compare short names inline: a memcmp call costs more than the bytes. */
static inline bool names_equal(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The child @name of @parent, created if missing; NULL on ENOMEM. */
static struct node *child(struct nstree *t, struct node *parent,
			  const char *name, size_t len)
{
	uint32_t h = hash_name(parent, name, len);

	for (struct node *n = t->buckets[h & t->mask]; n; n = n->hnext)
		if (n->hash == h && n->parent == parent &&
		    n->name_len == len && names_equal(n->name, name, len))
			return n;
	/* Load factor at most 1/2: chains stay at about one node, which
	 * matters more than memory once the tree outgrows the caches. */
	if (t->count * 2 > t->mask + 1 && grow(t))
		return NULL;
	struct node *n = node_new(t, parent, name, len);
	if (!n)
		return NULL;
	parent->has_children = true;
	/* Below a directory known to be absent or created in the capture,
	 * nothing can have existed before it. */
	if (parent->state == NS_ABSENT || (!parent->preexisting &&
					   parent != t->root &&
					   parent->state == NS_EXISTS)) {
		n->state = NS_ABSENT;
	}
	hash_insert(t, n);
	return n;
}

/*
 * True if @n is where normalised @path (@len bytes) leads now: its names,
 * and its ancestors', are the path's components from the end, each of them
 * attached, up to the root.
 */
static bool found_by(const struct nstree *t, const struct node *n,
		     const char *path, size_t len)
{
	size_t end = len;

	for (; n != t->root; n = n->parent) {
		size_t nl;

		if (!n)
			return false;
		nl = n->name_len;
		if (!n->attached || end < nl + 1 || path[end - nl - 1] != '/' ||
		    !names_equal(path + end - nl, n->name, nl))
			return false;
		end -= nl + 1;
	}
	return end == 0;
}

uint64_t nstree_path_hash(const char *path, size_t len)
{
	return hash_bytes(len, path, len);
}

void nstree_prefetch_slot(const struct nstree *t, uint64_t hash)
{
	__builtin_prefetch(&t->paths[hash & t->mask]);
}

void nstree_prefetch_node(const struct nstree *t, uint64_t hash)
{
	const struct node *n = t->paths[hash & t->mask];

	/* found_by() reads its lengths and flags, name pointer and name
	 * (the node's tail): its three cache lines. */
	if (n) {
		__builtin_prefetch(n);
		__builtin_prefetch((const char *)n + 64);
		__builtin_prefetch((const char *)n + 128);
	}
}

struct node *nstree_lookup(struct nstree *t, const char *path, size_t len)
{
	return nstree_lookup_hashed(t, path, len, hash_bytes(len, path, len));
}

struct node *nstree_lookup_hashed(struct nstree *t, const char *path,
				  size_t len, uint64_t h)
{
	struct node *hit = t->paths[h & t->mask];

	/* Paths repeat: most look-ups end here, without a walk. */
	if (hit && found_by(t, hit, path, len))
		return hit;

	struct node *n = t->root;
	size_t i = 0;

	while (i < len && n) {
		size_t start, clen = path_next_component(path, len, &i, &start);
		if (clen)
			n = child(t, n, path + start, clen);
	}
	/* child() may have grown the tables: index afresh. */
	if (n)
		t->paths[h & t->mask] = n;
	return n;
}

long nstree_path(const struct node *n, char *out, bool original)
{
	const struct node *chain[PATHMAP_MAX / 2];
	size_t depth = 0, len = 0;

	for (; n && n->name_len; n = original ? n->orig_parent : n->parent) {
		if (depth == PATHMAP_MAX / 2)
			return -ENAMETOOLONG;
		chain[depth++] = n;
	}
	if (depth == 0) {
		out[0] = '/';
		out[1] = '\0';
		return 1;
	}
	while (depth--) {
		const struct node *c = chain[depth];
		const char *name = original ? c->orig_name : c->name;
		size_t nl = original ? c->orig_name_len : c->name_len;

		if (len + 1 + nl >= PATHMAP_MAX)
			return -ENAMETOOLONG;
		out[len++] = '/';
		memcpy(out + len, name, nl);
		len += nl;
	}
	out[len] = '\0';
	return (long)len;
}

/* Ancestors of an existing node exist; unknown ones existed before. */
static void ancestors_exist(struct node *n)
{
	for (struct node *p = n->parent;
	     p && !(p->state == NS_EXISTS && p->type == NT_DIR); p = p->parent) {
		if (p->state == NS_UNKNOWN) {
			p->preexisting = true;
			p->from_start = true;
		}
		p->state = NS_EXISTS;
		p->type = NT_DIR;
	}
}

void nstree_exists(struct node *n, enum node_type type)
{
	if (n->state == NS_UNKNOWN) {
		n->preexisting = true;
		n->from_start = true;
	}
	n->state = NS_EXISTS;
	if (type != NT_UNKNOWN)
		n->type = type;
	ancestors_exist(n);
}

void nstree_enoent(struct node *n)
{
	if (n->state == NS_UNKNOWN) {
		n->state = NS_ABSENT;
		n->init_absent = true;
	}
}

void nstree_created(struct node *n, enum node_type type, bool proves_absence)
{
	if (n->state == NS_UNKNOWN && proves_absence)
		n->init_absent = true;
	n->state = NS_EXISTS;
	n->type = (uint8_t)type;
	n->from_start = false;
	n->mode_changed = true;		/* a new file: its mode is new too */
	n->xattrs_new = true;		/* and so are its attributes */
	n->fifo = false;
	n->data = NULL;
	n->wlo = n->whi = n->cur_size = 0;
	ancestors_exist(n);
}

void nstree_open_creat(struct node *n, bool trunc)
{
	switch (n->state) {
	case NS_UNKNOWN:
		n->state = NS_EXISTS;
		n->type = NT_FILE;
		n->from_start = !trunc;
		ancestors_exist(n);
		break;
	case NS_ABSENT:
		nstree_created(n, NT_FILE, false);
		break;
	default:
		if (trunc)
			nstree_truncated(node_data(n), 0);
		break;
	}
}

/*
 * Leave an absent placeholder at (@parent, @name), where @gone was: it is the
 * same path, so it carries on @gone's ordering resources.  0 or -ENOMEM.
 */
static int leave_hole(struct nstree *t, struct node *parent, const char *name,
		      size_t len, const struct node *gone)
{
	struct node *hole = child(t, parent, name, len);

	if (!hole)
		return -ENOMEM;
	hole->state = NS_ABSENT;
	hole->res = gone->res;
	hole->ns_res = gone->ns_res;
	return 0;
}

int nstree_removed(struct nstree *t, struct node *n)
{
	struct node *parent = n->parent;

	if (!parent || !n->attached)
		return 0;		/* "/" or already gone */
	/* Like a replaced rename target: out of the namespace, facts kept
	 * for fds still open on it, an absent placeholder under its name. */
	hash_remove(t, n);
	n->state = NS_ABSENT;
	return leave_hole(t, parent, n->name, n->name_len, n);
}

/* Point @n at a new (parent, name) and re-key it. */
static int move_node(struct nstree *t, struct node *n, struct node *parent,
		     const char *name, size_t len)
{
	if (n->attached)
		hash_remove(t, n);
	if (n->name != n->orig_name)
		free(n->name);
	if (len == n->orig_name_len && memcmp(name, n->orig_name, len) == 0) {
		n->name = n->orig_name;
	} else {
		n->name = malloc(len + 1);
		if (!n->name) {
			n->name = n->orig_name;
			return -ENOMEM;
		}
		memcpy(n->name, name, len);
		n->name[len] = '\0';
	}
	n->name_len = (uint16_t)len;
	n->parent = parent;
	n->hash = hash_name(parent, n->name, len);
	hash_insert(t, n);
	return 0;
}

/* True if @a is @n or one of its ancestors. */
static bool is_ancestor(const struct node *a, const struct node *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return true;
	return false;
}

int nstree_rename(struct nstree *t, struct node *from, struct node *to,
		  bool exchange)
{
	struct node *fp = from->parent, *tp = to->parent;
	char fname[PATHMAP_MAX], tname[PATHMAP_MAX];
	size_t flen = from->name_len, tlen = to->name_len;
	int err;

	if (from == to)
		return 0;
	/* The kernel refuses to move "/" or a directory into itself. */
	if (!fp || !tp || is_ancestor(from, to) ||
	    (exchange && is_ancestor(to, from)))
		return -EINVAL;
	nstree_exists(from, NT_UNKNOWN);
	if (exchange)
		nstree_exists(to, NT_UNKNOWN);
	memcpy(fname, from->name, flen);
	memcpy(tname, to->name, tlen);
	hash_remove(t, to);
	if (exchange) {
		if ((err = move_node(t, from, tp, tname, tlen)))
			return err;
		return move_node(t, to, fp, fname, flen);
	}
	/* The replaced target leaves the namespace but keeps what INIT
	 * needs (open fds may still read it); the source name is absent. */
	to->state = NS_ABSENT;
	if ((err = move_node(t, from, tp, tname, tlen)))
		return err;
	return leave_hole(t, fp, fname, flen, from);
}

/* True if [@off, @off + @len) is a possible byte range of a file. */
static bool range_ok(uint64_t off, uint64_t len)
{
	return off <= INT64_MAX && len <= INT64_MAX - off;
}

void nstree_read(struct node *n, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, need;

	if (!n->from_start || len == 0 || !range_ok(off, len))
		return;
	if (n->whi == n->wlo)		/* nothing written yet */
		need = end;
	else if (end > n->whi)
		need = end;
	else if (off < n->wlo)
		need = end < n->wlo ? end : n->wlo;
	else
		need = 0;
	if (need > n->init_size) {
		n->init_size = need;
		n->preexisting = true;	/* an O_CREAT open found old data */
	}
	if (end > n->cur_size)
		n->cur_size = end;
}

void nstree_write(struct node *n, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;

	if (len == 0 || !range_ok(off, len))
		return;
	if (n->whi == n->wlo) {
		n->wlo = off;
		n->whi = end;
	} else {
		if (off < n->wlo)
			n->wlo = off;
		if (end > n->whi)
			n->whi = end;
	}
	if (end > n->cur_size)
		n->cur_size = end;
}

void nstree_size_seen(struct node *n, uint64_t size)
{
	if (!range_ok(size, 0))
		return;
	if (n->from_start && size > n->whi && size > n->init_size) {
		n->init_size = size;
		n->preexisting = true;
	}
	n->cur_size = size;
}

void nstree_mode_seen(struct node *n, int64_t mode)
{
	/* Regular files only: init applies no other modes. */
	if (!n || n->mode_changed || n->init_mode_known || !n->preexisting ||
	    mode < 0 || (mode & 0170000) != 0100000)
		return;
	/* Permission bits only: INIT's mode= holds no set-id or sticky bit
	 * (docs/replay-format.md), and its reader rejects them. */
	n->init_mode = (uint16_t)(mode & 0777);
	n->init_mode_known = true;
}

void nstree_mode_changed(struct node *n)
{
	if (n)
		n->mode_changed = true;
}

int nstree_link_target(struct node *n, const char *target, size_t len)
{
	/* The first one read: a re-created link (mode_changed, set by
	 * nstree_created()) is not the one from before. */
	if (!n || node_init_target(n) || !n->preexisting || n->mode_changed ||
	    n->type != NT_SYMLINK)
		return 0;
	struct node_extra *x = nstree_extra(n);
	if (!x || !(x->init_target = strndup(target, len)))
		return -ENOMEM;
	return 0;
}

void nstree_link_size_seen(struct node *n, uint64_t size)
{
	if (n && n->preexisting && !n->mode_changed && n->type == NT_SYMLINK &&
	    !n->init_size && size < PATHMAP_MAX)
		n->init_size = size;
}

/* The fact about attribute @name of @n, created if missing; NULL on
 * ENOMEM. */
static struct xattr_fact *xattr_fact(struct node *n, const char *name,
				     size_t len)
{
	struct node_extra *e = nstree_extra(n);
	struct xattr_fact *x, **tail;

	if (!e)
		return NULL;
	tail = &e->xattrs;
	for (x = e->xattrs; x; x = x->next) {
		if (x->name_len == len && memcmp(x->name, name, len) == 0)
			return x;
		tail = &x->next;
	}
	x = calloc(1, sizeof(*x) + len + 1);
	if (!x)
		return NULL;
	memcpy(x->name, name, len);
	x->name_len = (uint16_t)len;
	*tail = x;		/* INIT lists them in the order first seen */
	return x;
}

int nstree_xattr_seen(struct node *n, const char *name, size_t len,
		      enum xattr_seen what, uint64_t size)
{
	struct xattr_fact *x;

	/* Attributes of a file made in the capture are all the capture's. */
	if (n->xattrs_new || !len || len > UINT16_MAX)
		return 0;
	x = xattr_fact(n, name, len);
	if (!x)
		return -ENOMEM;
	if (x->settled)
		return 0;
	switch (what) {
	case XS_READ:
		if (!x->init || !x->size_known) {
			x->init = true;
			x->size = size;
			x->size_known = true;
		}
		return 0;
	case XS_EXISTED:
		x->init = true;
		return 0;
	case XS_REPLACED:
		/* It existed: of a size no read showed; the new one will do. */
		if (!x->init) {
			x->init = true;
			x->size = size;
		}
		break;
	case XS_REMOVED:
		x->init = true;
		break;
	case XS_NO_DATA: case XS_SET: case XS_CREATED:
		break;
	}
	x->settled = true;
	return 0;
}

void nstree_truncated(struct node *n, uint64_t size)
{
	if (!range_ok(size, 0))
		return;
	if (size == 0)
		n->from_start = false;
	n->cur_size = size;
	if (n->whi > size)
		n->whi = size > n->wlo ? size : n->wlo;
}

struct node *nstree_first(const struct nstree *t)
{
	return t->oldest ? (struct node *)t->oldest->mem : NULL;
}

struct node *nstree_next(const struct nstree *t, const struct node *n)
{
	const struct chunk *c =
		(const struct chunk *)((uintptr_t)n & ~(uintptr_t)(CHUNK_SIZE - 1));
	size_t off = (size_t)((const char *)n - c->mem) +
		     node_size(n->orig_name_len);

	(void)t;
	if (off < c->used)
		return (struct node *)(c->mem + off);
	return c->next ? (struct node *)c->next->mem : NULL;
}

uint64_t nstree_count(const struct nstree *t)
{
	return t->count;
}

struct node_extra *nstree_extra(struct node *n)
{
	if (!n->extra)
		n->extra = calloc(1, sizeof(*n->extra));
	return n->extra;
}

void nstree_free(struct nstree *t)
{
	if (!t)
		return;
	for (struct node *n = nstree_first(t); n; n = nstree_next(t, n)) {
		if (n->name != n->orig_name)
			free(n->name);
		if (!n->extra)
			continue;
		free(n->extra->init_target);
		free(n->extra->locks);
		while (n->extra->xattrs) {
			struct xattr_fact *x = n->extra->xattrs;
			n->extra->xattrs = x->next;
			free(x);
		}
		free(n->extra);
	}
	while (t->oldest) {
		struct chunk *c = t->oldest;
		t->oldest = c->next;
		free(c);
	}
	free(t->buckets);
	free(t->paths);
	free(t);
}
