/* mounts: mount table and whole-component mountpoint look-up (mounts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/mounts.h"
#include "ioriot/paths.h"

static const char *const pseudo_types[] = {
	"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "tracefs",
	"debugfs", "securityfs", "pstore", "bpf", "configfs", "fusectl",
	"mqueue", "hugetlbfs", "autofs", "binfmt_misc", "efivarfs",
	"rpc_pipefs", "nsfs", "selinuxfs", "sockfs", "pipefs", "anon_inodefs",
	"nfsd", "ramfs", "fuse.gvfsd-fuse", "fuse.portal",
};

bool fstype_is_pseudo(const char *fstype)
{
	for (size_t i = 0; i < sizeof(pseudo_types) / sizeof(pseudo_types[0]); i++)
		if (strcmp(fstype, pseudo_types[i]) == 0)
			return true;
	return false;
}

struct mounttab *mounttab_new(void)
{
	return calloc(1, sizeof(struct mounttab));
}

int mounttab_add(struct mounttab *mt, const char *dir, size_t dir_len,
		 const char *fstype)
{
	struct mount_entry *e = NULL;

	char norm[PATHMAP_MAX];
	long n;

	/* Normalised, so that look-ups of normalised paths match. */
	if (dir_len == 0 || dir[0] != '/' ||
	    (n = path_normalize(dir, dir_len, NULL, norm)) < 0)
		return -EINVAL;
	dir = norm;
	dir_len = (size_t)n;
	/* A mount inside a sandbox would put sandboxes into sandboxes: it is
	 * left out, so its paths count as ioriot's own. */
	if (path_has_component(dir, dir_len, SANDBOX_DIR))
		return 0;
	for (size_t i = 0; i < mt->n; i++) {
		if (mt->v[i].dir_len == dir_len &&
		    memcmp(mt->v[i].dir, dir, dir_len) == 0) {
			e = &mt->v[i];
			break;
		}
	}
	char *type = strdup(fstype);
	if (!type)
		return -ENOMEM;
	if (e) {
		free(e->fstype);
		e->fstype = type;
		e->pseudo = fstype_is_pseudo(type);
		return 0;
	}
	if (mt->n == mt->cap) {
		size_t cap = mt->cap ? mt->cap * 2 : 16;
		struct mount_entry *v = realloc(mt->v, cap * sizeof(*v));
		if (!v)
			goto err_type;
		mt->v = v;
		mt->cap = cap;
	}
	e = &mt->v[mt->n];
	e->dir = strndup(dir, dir_len);
	if (!e->dir)
		goto err_type;
	e->dir_len = dir_len;
	e->fstype = type;
	e->pseudo = fstype_is_pseudo(type);
	mt->n++;
	return 0;

err_type:
	free(type);
	return -ENOMEM;
}

size_t mount_unescape(char *s)
{
	size_t in = 0, out = 0;

	while (s[in]) {
		if (s[in] == '\\' && s[in + 1] >= '0' && s[in + 1] <= '3' &&
		    s[in + 2] >= '0' && s[in + 2] <= '7' &&
		    s[in + 3] >= '0' && s[in + 3] <= '7') {
			s[out++] = (char)((s[in + 1] - '0') << 6 |
					  (s[in + 2] - '0') << 3 | (s[in + 3] - '0'));
			in += 4;
		} else {
			s[out++] = s[in++];
		}
	}
	s[out] = '\0';
	return out;
}

int mounttab_load(struct mounttab *mt, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL;
		char *dev = strtok_r(line, " \t\n", &save);
		char *dir = strtok_r(NULL, " \t\n", &save);
		char *type = strtok_r(NULL, " \t\n", &save);

		if (!dev || !dir || !type)
			continue;
		size_t len = mount_unescape(dir);
		err = mounttab_add(mt, dir, len, type);
		if (err == -EINVAL) {
			err = 0;
			continue;
		}
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	return err;
}

const struct mount_entry *mounttab_find(const struct mounttab *mt,
					const char *path, size_t len)
{
	const struct mount_entry *best = NULL;

	for (size_t i = 0; i < mt->n; i++) {
		const struct mount_entry *e = &mt->v[i];

		if ((!best || e->dir_len > best->dir_len) &&
		    path_is_below(path, len, e->dir, e->dir_len))
			best = e;
	}
	return best;
}

bool mounttab_has_below(const struct mounttab *mt, const char *path,
			size_t len)
{
	for (size_t i = 0; i < mt->n; i++) {
		const struct mount_entry *e = &mt->v[i];

		if (e->dir_len > len && path_is_below(e->dir, e->dir_len, path, len))
			return true;
	}
	return false;
}

void mounttab_free(struct mounttab *mt)
{
	if (!mt)
		return;
	for (size_t i = 0; i < mt->n; i++) {
		free(mt->v[i].dir);
		free(mt->v[i].fstype);
	}
	free(mt->v);
	free(mt);
}
