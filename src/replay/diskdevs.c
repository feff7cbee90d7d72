/*
 * diskdevs: the block devices under a replay's sandboxes (diskstats.h).
 * A sandbox's mount comes from /proc/self/mountinfo (the longest
 * mountpoint over the sandbox, or over its nearest existing parent before
 * init), its device from the mount's MAJOR:MINOR through
 * /sys/dev/block, or, for a file system with an anonymous device number
 * (btrfs), from the mount's source /dev/X.  A device-mapper or md device
 * brings its slaves.  Everything is read as it is at the call; what cannot
 * be read is left out, never guessed.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ioriot/diskstats.h"
#include "ioriot/mounts.h"

#define SLAVE_DEPTH_MAX 8	/* dm on md on dm ...: far beyond real stacks */

/* True if mountpoint @mnt is @path or a whole-component prefix of it. */
static bool holds(const char *mnt, const char *path)
{
	size_t len = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return true;
	return !strncmp(mnt, path, len) && (!path[len] || path[len] == '/');
}

/* @path made absolute and real, or, where it does not exist yet, its
 * nearest existing parent's; malloc'd, NULL if none resolves. */
static char *existing_real(const char *path)
{
	char *p = strdup(path), *slash, *real = NULL;

	while (p && !(real = realpath(p, NULL)) && (slash = strrchr(p, '/'))) {
		if (slash == p) {
			p[1] = '\0';
			real = realpath(p, NULL);
			break;
		}
		*slash = '\0';
	}
	free(p);
	return real;
}

/*
 * The mount that holds real path @path: its mountpoint in *@mnt
 * (malloc'd) and its device in *@dev (0 for none).  Returns 0, -ENOENT if
 * no mount holds it, -ENOMEM, or -errno of reading the mount table.
 */
static int mount_of(const char *path, char **mnt, dev_t *dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *best = NULL;
	size_t cap = 0, best_len = 0;
	int ret = -ENOENT;

	*mnt = NULL;
	*dev = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char point[PATH_MAX], source[PATH_MAX], *dash;
		unsigned maj, min;
		struct stat st;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min,
			   point) != 3 || !(dash = strstr(line, " - ")) ||
		    sscanf(dash, " - %*s %4095s", source) != 1)
			continue;
		mount_unescape(point);
		mount_unescape(source);
		/* A later mount on the same point hides the earlier. */
		if (!holds(point, path) || strlen(point) < best_len)
			continue;
		free(best);
		if (!(best = strdup(point))) {
			ret = -ENOMEM;
			goto out;
		}
		best_len = strlen(point);
		*dev = makedev(maj, min);
		if (!maj && !strncmp(source, "/dev/", 5) &&
		    !stat(source, &st) && S_ISBLK(st.st_mode))
			*dev = st.st_rdev;
		else if (!maj)
			*dev = 0;
		ret = 0;
	}
out:
	if (ret) {
		free(best);
		best = NULL;
	}
	*mnt = best;
	free(line);
	fclose(f);
	return ret;
}

/* The first line of @dir/@file without its newline, malloc'd, or NULL. */
static char *read_line(const char *dir, const char *file)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path) || !(f = fopen(path, "re")))
		return NULL;
	n = getline(&line, &cap, f);
	fclose(f);
	if (n <= 0) {
		free(line);
		return NULL;
	}
	if (line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/* Add sandbox @root to @d's list if it is not there.  0 or -ENOMEM. */
static int add_sandbox(struct disk_device *d, size_t root)
{
	size_t *grown;

	for (size_t i = 0; i < d->nsandboxes; i++)
		if (d->sandboxes[i] == root)
			return 0;
	grown = realloc(d->sandboxes, (d->nsandboxes + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	d->sandboxes = grown;
	d->sandboxes[d->nsandboxes++] = root;
	return 0;
}

static void device_free(struct disk_device *d)
{
	free(d->sysfs);
	free(d->queue);
	free(d->mount);
	free(d->backing);
	free(d->sandboxes);
}

/*
 * Fill @d from its real sysfs directory @sysfs (taken over: freed on
 * failure too).  Returns 0, -ENODEV for a directory without a readable
 * MAJOR:MINOR or with a name /proc/diskstats would not show, or -ENOMEM.
 */
static int device_init(struct disk_device *d, char *sysfs)
{
	const char *base = strrchr(sysfs, '/');
	char *devno = read_line(sysfs, "dev"), part[PATH_MAX];
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->sysfs = sysfs;
	base = base ? base + 1 : sysfs;
	if (!devno || sscanf(devno, "%u:%u", &d->major, &d->minor) != 2 ||
	    strlen(base) >= sizeof(d->name)) {
		free(devno);
		device_free(d);
		return -ENODEV;
	}
	free(devno);
	strcpy(d->name, base);
	snprintf(part, sizeof(part), "%s/partition", sysfs);
	d->queue = stat(part, &st) ? strdup(sysfs) :
		   strndup(sysfs, (size_t)(base - 1 - sysfs));
	if (!d->queue) {
		device_free(d);
		return -ENOMEM;
	}
	d->backing = read_line(sysfs, "loop/backing_file");
	return 0;
}

static int add_slaves(struct disk_set *set, size_t at, size_t root,
		      unsigned depth);

/*
 * Add the device whose real sysfs directory is @sysfs (taken over) to
 * @set for sandbox @root, found under mount @mnt (NULL: a slave), then its
 * slaves.  0, or -ENOMEM; a device that cannot be read is left out.
 */
static int add_device(struct disk_set *set, char *sysfs, size_t root,
		      const char *mnt, unsigned depth)
{
	struct disk_device d, *grown;
	size_t i;
	int ret = device_init(&d, sysfs);

	if (ret)
		return ret == -ENODEV ? 0 : ret;
	for (i = 0; i < set->n; i++)
		if (!strcmp(set->dev[i].name, d.name))
			break;
	if (i < set->n) {
		device_free(&d);
		/* A mounted device found as a slave first is mounted. */
		if (mnt && set->dev[i].slave) {
			set->dev[i].slave = false;
			if (!(set->dev[i].mount = strdup(mnt)))
				return -ENOMEM;
		}
		return add_sandbox(&set->dev[i], root);
	}
	d.slave = !mnt;
	if ((mnt && !(d.mount = strdup(mnt))) || add_sandbox(&d, root) ||
	    !(grown = realloc(set->dev, (set->n + 1) * sizeof(*grown)))) {
		device_free(&d);
		return -ENOMEM;
	}
	set->dev = grown;
	set->dev[set->n++] = d;
	return add_slaves(set, set->n - 1, root, depth + 1);
}

/* The slaves of device @at of @set (dm, md), for sandbox @root.  0 or
 * -ENOMEM. */
static int add_slaves(struct disk_set *set, size_t at, size_t root,
		      unsigned depth)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *dir;
	int ret = 0;

	if (depth > SLAVE_DEPTH_MAX ||
	    snprintf(path, sizeof(path), "%s/slaves", set->dev[at].sysfs) >=
	    (int)sizeof(path) || !(dir = opendir(path)))
		return 0;
	while (!ret && (e = readdir(dir))) {
		char link[PATH_MAX], *real;

		if (e->d_name[0] == '.' ||
		    snprintf(link, sizeof(link), "%s/%s", path, e->d_name) >=
		    (int)sizeof(link))
			continue;
		if ((real = realpath(link, NULL)))
			ret = add_device(set, real, root, NULL, depth);
	}
	closedir(dir);
	return ret;
}

int diskstats_devices(struct disk_set *set, char *const *roots, size_t n)
{
	int ret = 0;

	memset(set, 0, sizeof(*set));
	if (!(set->mounts = calloc(n ? n : 1, sizeof(*set->mounts))))
		return -ENOMEM;
	set->nroots = n;
	for (size_t i = 0; !ret && i < n; i++) {
		char link[64], *path = existing_real(roots[i]), *sysfs;
		dev_t dev;

		if (!path)
			continue;
		ret = mount_of(path, &set->mounts[i], &dev);
		free(path);
		if (ret) {
			ret = ret == -ENOMEM ? ret : 0;
			continue;
		}
		if (!dev)
			continue;	/* tmpfs, overlay, NFS: no device */
		snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
			 major(dev), minor(dev));
		if ((sysfs = realpath(link, NULL)))
			ret = add_device(set, sysfs, i, set->mounts[i], 0);
	}
	if (ret)
		diskstats_devices_free(set);
	return ret;
}

bool diskstats_set_holds(const struct disk_set *set,
			 const struct disk_device *d)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->dev[i].name, d->name) ||
		    !strcmp(set->dev[i].queue, d->queue))
			return true;
	return false;
}

void diskstats_devices_free(struct disk_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		device_free(&set->dev[i]);
	for (size_t i = 0; set->mounts && i < set->nroots; i++)
		free(set->mounts[i]);
	free(set->dev);
	free(set->mounts);
	memset(set, 0, sizeof(*set));
}
