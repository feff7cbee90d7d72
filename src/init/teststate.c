/*
 * teststate: what is known of a test's sandbox on one mount, kept beside
 * it where the replay does not see it: <mnt>/.ioriot/.state/NAME.state
 * holds "init" while an init builds the sandbox, "ready" once it is
 * whole, "used" once a replay started in it; NAME.lock is what an init
 * or a replay of the test holds an exclusive flock on while it runs.
 * .state is made like .ioriot (sandbox.h): root's (or the caller's),
 * mode 0755; nothing in it is ever followed as a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/sandbox.h"
#include "ioriot/teststate.h"

#define STATE_DIR ".state"

static const char *const names[] = {
	[TEST_STATE_NONE] = "none", [TEST_STATE_INIT] = "init",
	[TEST_STATE_READY] = "ready", [TEST_STATE_USED] = "used",
};

const char *teststate_name(enum test_state st)
{
	return st <= TEST_STATE_USED ? names[st] : "?";
}

/* <mnt>/.ioriot/.state, made if @create: a directory of the caller's or
 * root's, writable by its owner only.  The fd, or -errno with a message
 * (-ENOENT without @create when there is none). */
static int state_dir(const char *mnt, bool create, char *err, size_t errlen)
{
	int top = sandbox_top(mnt, create, err, errlen), fd;
	struct stat st;

	if (top < 0)
		return top;
	if (create && mkdirat(top, STATE_DIR, 0755) < 0 && errno != EEXIST) {
		fd = -errno;
		goto fail;
	}
	fd = openat(top, STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0) {
		fd = errno == ENOTDIR ? -ELOOP : -errno;
		goto fail;
	}
	if (fstat(fd, &st) < 0 || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		snprintf(err, errlen, "%s/.ioriot/%s: not a directory of root's "
			 "(or yours) writable by its owner only", mnt, STATE_DIR);
		close(top);
		return -EPERM;
	}
	close(top);
	return fd;
fail:
	close(top);
	if (fd != -ENOENT || create)
		snprintf(err, errlen, "%s/.ioriot/%s: %s", mnt, STATE_DIR,
			 strerror(-fd));
	return fd;
}

int teststate_lock(const char *mnt, const char *name, char *err,
		   size_t errlen)
{
	char file[300];
	int dir = state_dir(mnt, true, err, errlen), fd;

	if (dir < 0)
		return dir;
	snprintf(file, sizeof(file), "%s.lock", name);
	fd = openat(dir, file, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	close(dir);
	if (fd < 0) {
		int rc = -errno;

		snprintf(err, errlen, "%s/.ioriot/%s/%s: %s", mnt, STATE_DIR,
			 file, strerror(-rc));
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int rc = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		snprintf(err, errlen, "test %s on %s: %s", name, mnt,
			 rc == -EBUSY ? "another init or replay of it is "
			 "running (wait for it, or give another -n to generate)" :
			 strerror(-rc));
		return rc;
	}
	return fd;
}

int teststate_get(const char *mnt, const char *name, enum test_state *st,
		  char *err, size_t errlen)
{
	char file[300], text[16];
	int dir = state_dir(mnt, false, err, errlen), fd;
	ssize_t n;

	*st = TEST_STATE_NONE;
	if (dir == -ENOENT)
		return 0;
	if (dir < 0)
		return dir;
	snprintf(file, sizeof(file), "%s.state", name);
	fd = openat(dir, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	for (int s = TEST_STATE_INIT; s <= TEST_STATE_USED; s++)
		if (!strcmp(text, names[s]))
			*st = (enum test_state)s;
	return 0;
}

int teststate_set(const char *mnt, const char *name, enum test_state st,
		  char *err, size_t errlen)
{
	char file[300], text[16];
	int dir = state_dir(mnt, true, err, errlen), fd, rc = 0;
	int len = snprintf(text, sizeof(text), "%s\n", teststate_name(st));

	if (dir < 0)
		return dir;
	snprintf(file, sizeof(file), "%s.state", name);
	fd = openat(dir, file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
	close(dir);
	if (fd < 0 || write(fd, text, (size_t)len) != len)
		rc = -errno;
	if (fd >= 0 && close(fd) && !rc)
		rc = -errno;
	if (rc)
		snprintf(err, errlen, "%s/.ioriot/%s/%s: %s", mnt, STATE_DIR,
			 file, strerror(-rc));
	return rc;
}
