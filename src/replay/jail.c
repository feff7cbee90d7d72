/* jail: the replay's own mount namespace and root (jail.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ioriot/paths.h"
#include "ioriot/sandbox.h"
#include "jail.h"

/* The directory the new root's tmpfs is mounted on, in the jail's own
 * namespace only: every Linux system has it (FHS), and nothing of the host
 * is needed below it once the sandboxes are open. */
#define JAIL_MOUNT "/tmp"
/* The tmpfs holds directories only, and is read-only once built. */
#define JAIL_TMPFS_OPTS "mode=0755,size=1m,nr_inodes=65536"

/* Write @text to /proc/self/@file.  Returns 0 or -errno. */
static int write_proc(const char *file, const char *text)
{
	char path[64];
	size_t len = strlen(text);
	ssize_t n;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int jail_prepare(char *err, size_t errlen)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int rc;

	if (uid == 0)
		return 0;
	if (unshare(CLONE_NEWUSER) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot confine the replay to its "
			 "sandboxes: a user namespace: %s (run the replay as "
			 "root, or allow unprivileged user namespaces)",
			 strerror(errno));
		return rc;
	}
	rc = write_proc("setgroups", "deny");
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	if (!rc)
		rc = write_proc("uid_map", map);
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	if (!rc)
		rc = write_proc("gid_map", map);
	if (rc)
		snprintf(err, errlen, "cannot map user %u in the replay's user "
			 "namespace: %s", (unsigned)uid, strerror(-rc));
	return rc;
}

/*
 * Check @roots and their @host sandboxes: each a sandbox root, no root
 * below another (a bind mount would hide or change the other).  Returns 0
 * or -EINVAL with a message.
 */
static int check_roots(char *const *roots, char *const *host, size_t n,
		       char *err, size_t errlen)
{
	char mnt[PATHMAP_MAX];
	const char *name;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(roots[i]);

		if (len >= PATHMAP_MAX || sandbox_split(roots[i], mnt, &name) ||
		    strlen(host[i]) >= PATHMAP_MAX ||
		    sandbox_split(host[i], mnt, &name)) {
			snprintf(err, errlen, "sandbox %s (on this host %s) is "
				 "not <mountpoint>/%s/NAME", roots[i], host[i],
				 SANDBOX_DIR);
			return -EINVAL;
		}
		for (size_t j = 0; j < n; j++) {
			if (j != i && path_is_below(roots[i], len, roots[j],
						    strlen(roots[j]))) {
				snprintf(err, errlen, "sandbox %s lies in sandbox "
					 "%s", roots[i], roots[j]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Open every sandbox of @host into @fds (-1 first).  Returns 0 or
 * -errno with a message. */
static int open_sandboxes(char *const *host, size_t n, uid_t owner, int *fds,
			  char *err, size_t errlen)
{
	char mnt[PATHMAP_MAX], why[PATHMAP_MAX + 256];
	const char *name;

	for (size_t i = 0; i < n; i++) {
		sandbox_split(host[i], mnt, &name);	/* check_roots() passed */
		fds[i] = sandbox_enter(mnt, name, owner, why, sizeof(why));
		if (fds[i] < 0) {
			int rc = fds[i];

			snprintf(err, errlen, "cannot enter sandbox %s: %s",
				 host[i], why);
			return rc;
		}
	}
	return 0;
}

/* In the current directory: make the directories of relative @path (all
 * of it), mode 0755.  Returns 0 or -errno. */
static int make_dirs(const char *path)
{
	char buf[PATHMAP_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (size_t i = 0; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		/* The thread's own umask (CLONE_FS) is the replay's: set
		 * the mode whatever it is. */
		if (mkdir(buf, 0755) < 0 ? errno != EEXIST :
		    chmod(buf, 0755) < 0)
			return -errno;
		buf[i] = i < len ? '/' : '\0';
	}
	return 0;
}

/* A mount namespace of the calling thread's own, whose mounts and
 * unmounts nobody else sees.  Returns 0 or -errno with a message. */
static int own_namespace(char *err, size_t errlen)
{
	int rc;

	if (unshare(CLONE_FS | CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return 0;
	rc = -errno;
	snprintf(err, errlen, "cannot confine the replay to its sandboxes: "
		 "a mount namespace of its own: %s", strerror(errno));
	return rc;
}

/*
 * In the thread's own namespace: a tmpfs on JAIL_MOUNT, sandbox @fds
 * (opened in this namespace: a bind mount takes only its own mounts)
 * bound at @roots' paths in it, made the root.  Returns 0 or -errno with
 * a message naming the step that failed.
 */
static int build_root(char *const *roots, size_t n, const int *fds,
		      char *err, size_t errlen)
{
	const char *step;
	struct statfs sfs;
	char src[64];
	int rc;

	step = "a tmpfs on " JAIL_MOUNT;
	if (mount("ioriot", JAIL_MOUNT, "tmpfs", MS_NOSUID | MS_NODEV |
		  MS_NOEXEC, JAIL_TMPFS_OPTS) < 0 || chdir(JAIL_MOUNT) < 0)
		goto fail;
	if (statfs(".", &sfs) < 0 || sfs.f_type != TMPFS_MAGIC) {
		errno = EXDEV;
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		step = "the sandbox's mountpoint";
		rc = make_dirs(roots[i] + 1);
		if (rc) {
			errno = -rc;
			goto fail;
		}
		step = "a bind mount of the sandbox";
		snprintf(src, sizeof(src), "/proc/self/fd/%d", fds[i]);
		if (mount(src, roots[i] + 1, NULL, MS_BIND, NULL) < 0)
			goto fail;
	}
	step = "a read-only tmpfs";
	if (mount(NULL, ".", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID |
		  MS_NODEV | MS_NOEXEC, NULL) < 0)
		goto fail;
	/* The old root goes on top of the new one, then away.  Where the
	 * process root is no mount (ioriot run in a chroot), pivot_root
	 * cannot: chroot there, which nobody without CAP_SYS_CHROOT leaves
	 * and the replay never calls. */
	step = "the new root";
	if (syscall(SYS_pivot_root, ".", ".") == 0) {
		if (umount2(".", MNT_DETACH) < 0)
			goto fail;
	} else if (errno != EINVAL || chroot(".") < 0) {
		goto fail;
	}
	if (chdir("/") < 0)
		goto fail;
	return 0;
fail:
	rc = errno ? -errno : -EIO;
	snprintf(err, errlen, "cannot confine the replay to its sandboxes: "
		 "%s: %s", step, strerror(-rc));
	return rc;
}

/* Give up every capability of the calling thread.  Returns 0 or -errno. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{ 0 }};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

int jail_enter(char *const *roots, char *const *host, size_t n, uid_t owner,
	       char *err, size_t errlen)
{
	int *fds = NULL;
	int rc;

	rc = check_roots(roots, host, n, err, errlen);
	if (rc)
		return rc;
	fds = malloc((n ? n : 1) * sizeof(*fds));
	if (!fds) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		fds[i] = -1;
	rc = own_namespace(err, errlen);
	if (!rc)
		rc = open_sandboxes(host, n, owner, fds, err, errlen);
	if (!rc)
		rc = build_root(roots, n, fds, err, errlen);
	if (!rc && geteuid() != 0 && (rc = drop_caps()))
		snprintf(err, errlen, "cannot drop capabilities: %s",
			 strerror(-rc));
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return rc;
}
