/*
 * cgroupsel: which cgroup a directory is, and whether a process is in it
 * (ioriot/cgroupsel.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "ioriot/cgroupsel.h"
#include "ioriot/mounts.h"
#include "ioriot/paths.h"

#define CGROUP_SUPER_MAGIC 0x27e0eb
#define CGROUP2_SUPER_MAGIC 0x63677270

/* The length of mount point @mnt if it is @path or a directory above it,
 * else 0. */
static size_t mount_prefix(const char *mnt, const char *path)
{
	size_t len = strlen(mnt);

	return path_is_below(path, strlen(path), mnt, len) ? len : 0;
}

/* The cgroup mount holding @path (resolved): its root in its hierarchy
 * into @root, its mount point's length into *@mlen, its super options
 * into @opts.  0, or -ENOENT if none does, -errno if @mountinfo cannot be
 * read. */
static int find_mount(const char *mountinfo, const char *path, char *root,
		      size_t *mlen, char *opts, size_t optlen)
{
	FILE *f = fopen(mountinfo, "re");
	char line[4 * PATH_MAX];
	int rc = -ENOENT;

	if (!f)
		return -errno;
	*mlen = 0;
	while (fgets(line, sizeof(line), f)) {
		char mroot[PATH_MAX], mnt[PATH_MAX], fstype[32], sopts[512];
		const char *dash = strstr(line, " - ");
		size_t len;

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", mroot,
				    mnt) != 2 ||
		    sscanf(dash + 3, "%31s %*s %511s", fstype, sopts) != 2 ||
		    (strcmp(fstype, "cgroup") && strcmp(fstype, "cgroup2")))
			continue;
		mount_unescape(mroot);
		mount_unescape(mnt);
		len = mount_prefix(mnt, path);
		if (len > *mlen || (len && rc)) {
			*mlen = len;
			snprintf(root, PATH_MAX, "%s", mroot);
			snprintf(opts, optlen, "%s", sopts);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

/* The subsystem id of the first controller of the comma list @opts, as
 * /proc/cgroups (@cgroups) lists them in id order, with its name into
 * @name; -1 if it names none. */
static int first_controller(const char *cgroups, const char *opts,
			    char *name, size_t namelen)
{
	char line[256], subsys[32];
	int ssid = -1;

	for (const char *o = opts; *o && ssid < 0; ) {
		size_t len = strcspn(o, ",");
		FILE *f = fopen(cgroups, "re");
		int id = 0;

		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			if (line[0] == '#' || sscanf(line, "%31s", subsys) != 1)
				continue;
			if (strlen(subsys) == len && !strncmp(subsys, o, len)) {
				ssid = id;
				snprintf(name, namelen, "%s", subsys);
				break;
			}
			id++;
		}
		fclose(f);
		o += len + (o[len] == ',');
	}
	return ssid;
}

int cgroup_sel_resolve(const char *path, const char *mountinfo,
		       const char *cgroups, struct cgroup_sel *out, char *err,
		       size_t errlen)
{
	char real[PATH_MAX], root[PATH_MAX], opts[512];
	struct statfs sf;
	struct stat st;
	size_t mlen = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!realpath(path, real) || stat(real, &st) || statfs(real, &sf)) {
		rc = -errno;
		snprintf(err, errlen, "--cgroup %s: %s", path, strerror(errno));
		return rc;
	}
	if (!S_ISDIR(st.st_mode) || (sf.f_type != CGROUP_SUPER_MAGIC &&
				     sf.f_type != CGROUP2_SUPER_MAGIC)) {
		snprintf(err, errlen, "--cgroup %s: not a cgroup directory "
			 "(one below /sys/fs/cgroup)", path);
		return -ENOTDIR;
	}
	rc = find_mount(mountinfo, real, root, &mlen, opts, sizeof(opts));
	if (rc) {
		snprintf(err, errlen, "--cgroup %s: no cgroup mount of it in "
			 "%s: %s", path, mountinfo, strerror(-rc));
		return rc;
	}
	out->id = (uint64_t)st.st_ino;
	out->ssid = -1;
	if (sf.f_type == CGROUP_SUPER_MAGIC) {
		out->ssid = first_controller(cgroups, opts, out->controller,
					     sizeof(out->controller));
		if (out->ssid < 0 || out->ssid >= CGROUP_SEL_SSID_MAX) {
			snprintf(err, errlen, "--cgroup %s: a cgroup v1 "
				 "hierarchy without a controller (%s): give "
				 "the path in a controller's, such as "
				 "/sys/fs/cgroup/blkio/...", path, opts);
			return -EINVAL;
		}
	}
	/* Its path in the hierarchy: the mount's root, then the rest. */
	const char *head = strcmp(root, "/") ? root : "";
	const char *tail = real[mlen] ? real + (mlen == 1 ? 0 : mlen) : "";
	if (strlen(head) + strlen(tail) >= sizeof(out->rel)) {
		snprintf(err, errlen, "--cgroup %s: %s", path,
			 strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	strcpy(out->rel, head);
	strcat(out->rel, tail);
	if (!out->rel[0])
		strcpy(out->rel, "/");
	return 0;
}

/* Whether cgroup path @p is @rel or below it. */
static bool below(const char *p, const char *rel)
{
	return path_is_below(p, strlen(p), rel, strlen(rel));
}

bool cgroup_sel_has(const struct cgroup_sel *sel, const char *proc_cgroup)
{
	FILE *f = fopen(proc_cgroup, "re");
	char line[PATH_MAX + 256];
	bool in = false;

	if (!f)
		return false;
	while (!in && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *p;

		if (!ctrl || !(p = strchr(ctrl + 1, ':')))
			continue;
		*p++ = '\0';
		ctrl++;
		p[strcspn(p, "\n")] = '\0';
		if (sel->ssid < 0) {
			in = !*ctrl && !strncmp(line, "0", 1) && below(p, sel->rel);
			continue;
		}
		for (char *c = strtok(ctrl, ","); c && !in; c = strtok(NULL, ","))
			in = !strcmp(c, sel->controller) && below(p, sel->rel);
	}
	fclose(f);
	return in;
}
