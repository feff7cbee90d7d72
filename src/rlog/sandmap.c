/*
 * sandmap: the rules that move a replay file's sandboxes to other mounts
 * and copies, and the host roots they give (sandmap.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandmap.h"

/* Whether @p (@len bytes) is an absolute normalised path. */
static bool absolute_normal(const char *p, size_t len)
{
	return len > 0 && len < PATHMAP_MAX && p[0] == '/' &&
	       path_is_normal(p, len);
}

int sandmap_add(struct sandmap *m, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	size_t clen = eq ? (size_t)(eq - arg) : 0;
	struct sandmap_rule *r;

	if (!eq || !absolute_normal(arg, clen) ||
	    !absolute_normal(eq + 1, strlen(eq + 1))) {
		snprintf(err, errlen, "--map %s: not CAPTURED=TEST, two "
			 "absolute mountpoints (no '.', '..', '//' or "
			 "trailing '/')", arg);
		return -EINVAL;
	}
	for (size_t i = 0; i < m->n; i++) {
		if (strlen(m->rule[i].captured) == clen &&
		    !memcmp(m->rule[i].captured, arg, clen)) {
			snprintf(err, errlen, "--map %s: %.*s is mapped twice",
				 arg, (int)clen, arg);
			return -EINVAL;
		}
	}
	if (m->n == SANDMAP_RULES_MAX) {
		snprintf(err, errlen, "--map: more than %d rules",
			 SANDMAP_RULES_MAX);
		return -EINVAL;
	}
	r = &m->rule[m->n];
	r->captured = strndup(arg, clen);
	r->test = strdup(eq + 1);
	if (!r->captured || !r->test) {
		free(r->captured);
		free(r->test);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

void sandmap_free(struct sandmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->rule[i].captured);
		free(m->rule[i].test);
	}
	m->n = 0;
}

const char *sandmap_lookup(const struct sandmap *m, const char *mnt)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->rule[i].captured, mnt))
			return m->rule[i].test;
	return NULL;
}

int sandmap_root_mount(const char *root, const char *name, char *mnt)
{
	size_t len = strlen(root), nlen = strlen(name);
	size_t dlen = strlen(SANDBOX_DIR), tail = dlen + nlen + 2;

	if (len < tail || len - tail >= PATHMAP_MAX ||
	    strcmp(root + len - nlen, name) || root[len - nlen - 1] != '/' ||
	    memcmp(root + len - tail + 1, SANDBOX_DIR, dlen) ||
	    root[len - tail] != '/')
		return -EINVAL;
	if (len == tail) {		/* the sandbox of "/" */
		strcpy(mnt, "/");
		return 0;
	}
	memcpy(mnt, root, len - tail);
	mnt[len - tail] = '\0';
	return 0;
}

/* "<@mnt>/.ioriot/@name[.@copy]" into a new string, or NULL (errno). */
static char *host_root(const char *mnt, const char *name, unsigned copy)
{
	char suffix[16] = "";
	char *root = NULL;
	int n;

	if (copy)
		snprintf(suffix, sizeof(suffix), ".%u", copy);
	n = asprintf(&root, "%s/%s/%s%s", strcmp(mnt, "/") ? mnt : "",
		     SANDBOX_DIR, name, suffix);
	if (n < 0)
		return NULL;
	if (n >= PATHMAP_MAX || strlen(name) + strlen(suffix) > 255) {
		free(root);
		errno = ENAMETOOLONG;
		return NULL;
	}
	return root;
}

/* Every rule of @m must name a mount of @h.  0 or -EINVAL. */
static int rules_used(const struct sandmap *m, const struct rlog_header *h,
		      char *err, size_t errlen)
{
	char mnt[PATHMAP_MAX];

	for (size_t i = 0; m && i < m->n; i++) {
		bool used = false;

		for (size_t k = 0; k < h->nsandboxes && !used; k++)
			used = !sandmap_root_mount(h->sandboxes[k], h->name,
						   mnt) &&
			       !strcmp(mnt, m->rule[i].captured);
		if (!used) {
			snprintf(err, errlen, "--map %s=%s: the replay file "
				 "has no sandbox on %s", m->rule[i].captured,
				 m->rule[i].test, m->rule[i].captured);
			return -EINVAL;
		}
	}
	return 0;
}

char **sandmap_host_roots(const struct sandmap *m, const struct rlog_header *h,
			  unsigned copy, char *err, size_t errlen)
{
	char mnt[PATHMAP_MAX];
	char **roots;
	int rc;

	if (copy > SANDMAP_COPIES_MAX) {
		snprintf(err, errlen, "copy %u: at most %d copies", copy,
			 SANDMAP_COPIES_MAX);
		errno = EINVAL;
		return NULL;
	}
	rc = rules_used(m, h, err, errlen);
	if (rc) {
		errno = -rc;
		return NULL;
	}
	roots = calloc(h->nsandboxes ? h->nsandboxes : 1, sizeof(*roots));
	if (!roots)
		goto fail;
	for (size_t i = 0; i < h->nsandboxes; i++) {
		const char *test;

		if (sandmap_root_mount(h->sandboxes[i], h->name, mnt)) {
			errno = EINVAL;
			snprintf(err, errlen, "sandbox %s is not <mountpoint>/"
				 "%s/%s", h->sandboxes[i], SANDBOX_DIR,
				 h->name);
			sandmap_roots_free(roots, h->nsandboxes);
			return NULL;
		}
		test = sandmap_lookup(m, mnt);
		if (!test)
			test = h->test_mounts[i] ? h->test_mounts[i] : mnt;
		roots[i] = host_root(test, h->name, copy);
		if (!roots[i]) {
			int e = errno;

			sandmap_roots_free(roots, h->nsandboxes);
			errno = e;
			goto fail;
		}
	}
	return roots;
fail:
	snprintf(err, errlen, "sandboxes of the test host: %s",
		 strerror(errno));
	return NULL;
}

void sandmap_roots_free(char **roots, size_t n)
{
	if (!roots)
		return;
	for (size_t i = 0; i < n; i++)
		free(roots[i]);
	free(roots);
}

bool sandmap_shared(char *const *roots, char *const *host, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			if (!strcmp(host[i], host[k]) &&
			    strcmp(roots[i], roots[k]))
				return true;
	return false;
}
