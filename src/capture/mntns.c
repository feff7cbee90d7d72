/*
 * mntns: paths of another mount namespace as the host sees them (mntns.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/mounts.h"
#include "ioriot/paths.h"
#include "mntns.h"

void mnt_table_free(struct mnt_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].mp);
		free(t->v[i].root);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* Add a mount of @line (a mountinfo line) to @t; a line it cannot read is
 * skipped.  0 or -ENOMEM. */
static int add_line(struct mnt_table *t, const char *line, size_t *cap)
{
	char root[4096], mp[4096];
	unsigned major, minor;
	struct mnt_ent *e;

	if (sscanf(line, "%*s %*s %u:%u %4095s %4095s", &major, &minor, root,
		   mp) != 4)
		return 0;
	mount_unescape(root);
	mount_unescape(mp);
	if (t->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 32;
		struct mnt_ent *v = realloc(t->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		*cap = ncap;
	}
	e = &t->v[t->n];
	e->mp = strdup(mp);
	e->root = strdup(root);
	e->dev = (uint64_t)major << 32 | minor;
	if (!e->mp || !e->root) {
		free(e->mp);
		free(e->root);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

int mnt_table_load(struct mnt_table *t, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t len = 0, cap = 0;
	int rc = 0;

	mnt_table_free(t);
	if (!f)
		return -errno;
	while (!rc && getline(&line, &len, f) > 0)
		rc = add_line(t, line, &cap);
	free(line);
	fclose(f);
	if (rc)
		mnt_table_free(t);
	return rc;
}

/* What of @path lies below @dir (@dir itself: ""), for @path below it. */
static const char *below(const char *path, const char *dir)
{
	return strcmp(dir, "/") ? path + strlen(dir) : path;
}

bool mnt_translate(const struct mnt_table *ns, const struct mnt_table *host,
		   const char *path, char *out, size_t size)
{
	const struct mnt_ent *in = NULL, *on = NULL;
	char fspath[PATHMAP_MAX];
	size_t plen = strlen(path);
	int n;

	/* The mount of the namespace holding @path: the last of the longest
	 * mount point (a later mount over the same point hides the earlier). */
	for (size_t i = 0; i < ns->n; i++)
		if (path_is_below(path, plen, ns->v[i].mp, strlen(ns->v[i].mp)) &&
		    (!in || strlen(ns->v[i].mp) >= strlen(in->mp)))
			in = &ns->v[i];
	if (!in)
		return false;
	/* The directory of its file system that @path is. */
	n = snprintf(fspath, sizeof(fspath), "%s%s",
		     strcmp(in->root, "/") ? in->root : "", below(path, in->mp));
	if (n < 0 || (size_t)n >= sizeof(fspath))
		return false;
	if (!fspath[0])
		strcpy(fspath, "/");
	/* The host's mount of that file system showing the most of it. */
	for (size_t i = 0; i < host->n; i++) {
		const struct mnt_ent *h = &host->v[i];

		if (h->dev == in->dev &&
		    path_is_below(fspath, strlen(fspath), h->root,
				  strlen(h->root)) &&
		    (!on || strlen(h->root) > strlen(on->root)))
			on = h;
	}
	if (!on)
		return false;
	n = snprintf(out, size, "%s%s", strcmp(on->mp, "/") ? on->mp : "",
		     below(fspath, on->root));
	if (n < 0 || (size_t)n >= size)
		return false;
	if (n > 1 && out[n - 1] == '/')	/* the mount's own root */
		out[n - 1] = '\0';
	if (!out[0])
		strcpy(out, "/");
	return true;
}
