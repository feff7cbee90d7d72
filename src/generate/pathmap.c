/* pathmap: sandbox rewrite of captured paths (pathmap.h). */
#include <errno.h>
#include <string.h>

#include "ioriot/pathmap.h"

/* True if the part of @path below the mount starts with "/.ioriot". */
static bool is_own(const char *rest, size_t rest_len)
{
	size_t l = sizeof(SANDBOX_DIR) - 1;

	return rest_len >= l + 1 && rest[0] == '/' &&
	       memcmp(rest + 1, SANDBOX_DIR, l) == 0 &&
	       (rest_len == l + 1 || rest[l + 1] == '/');
}

enum pathmap_status pathmap_rewrite(const struct pathmap *pm, const char *path,
				    size_t len, char *out, size_t *out_len,
				    const struct mount_entry **mnt)
{
	const struct mount_entry *m = mounttab_find(pm->mounts, path, len);

	if (mnt)
		*mnt = m;
	if (!m)
		return PATHMAP_NO_MOUNT;
	if (m->pseudo)
		return PATHMAP_PSEUDO;

	/* rest is the part below the mountpoint: "" or "/..." */
	size_t base = m->dir_len == 1 ? 0 : m->dir_len;
	const char *rest = path + base;
	size_t rest_len = len - base;
	if (rest_len == 1 && rest[0] == '/')
		rest_len = 0;
	if (is_own(rest, rest_len))
		return PATHMAP_OWN;

	size_t total = base + 1 + sizeof(SANDBOX_DIR) - 1 + 1 + pm->name_len +
		       rest_len;
	if (total >= PATHMAP_MAX)
		return PATHMAP_TOO_LONG;
	char *p = out;
	memcpy(p, m->dir, base);
	p += base;
	*p++ = '/';
	memcpy(p, SANDBOX_DIR, sizeof(SANDBOX_DIR) - 1);
	p += sizeof(SANDBOX_DIR) - 1;
	*p++ = '/';
	memcpy(p, pm->name, pm->name_len);
	p += pm->name_len;
	memcpy(p, rest, rest_len);
	p += rest_len;
	*p = '\0';
	*out_len = (size_t)(p - out);
	return PATHMAP_OK;
}

const char *pathmap_status_name(enum pathmap_status st)
{
	static const char *const names[PATHMAP_STATUS_COUNT] = {
		[PATHMAP_OK] = "ok",
		[PATHMAP_PSEUDO] = "pseudo file system",
		[PATHMAP_OWN] = "ioriot's own sandbox",
		[PATHMAP_NO_MOUNT] = "no mount",
		[PATHMAP_TOO_LONG] = "path too long",
		[PATHMAP_RELATIVE] = "relative path, unknown directory",
	};
	return names[st];
}
