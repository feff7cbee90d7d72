/*
 * secutil: what the security suites (test_security.c, test_security_ops.c)
 * share: a scratch root with an ext4 loop mount for the sandboxes, a
 * victim tree of root's files outside every sandbox and its snapshot
 * (contents, modes, owners, extended attributes, every name), a local
 * user (nobody) who prepares the ground or races in the background,
 * replay files written from templates, and runs of the ioriot binary,
 * also with a time limit, and the figures of their JSON statistics.
 */
#ifndef IORIOT_TESTS_SECUTIL_H
#define IORIOT_TESTS_SECUTIL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "testutil.h"

#define SEC_NOBODY 65534

extern char sec_root[PATH_MAX];		/* 0755, root's */
extern char sec_mnt[PATH_MAX + 8];	/* sec_root/m: the ext4 loop mount */
extern bool sec_mounted;

/* Unchecked fixture: the root and its mount (a note where there is no
 * root or no loop mount: then sec_mounted stays false). */
void sec_setup(void);
void sec_teardown(void);

#define SEC_NEED_MOUNT()						\
	do {								\
		if (!sec_mounted) {					\
			printf("%s: skipped, no test mount\n", __func__);	\
			return;						\
		}							\
	} while (0)

/* "sec_root/@rel", malloc'd. */
char *sec_at(const char *rel);

/* Make directory @path owned by @uid with @mode (umask ignored). */
void sec_make_dir(const char *path, uid_t uid, mode_t mode);

/*
 * The victim tree sec_root/victim-@name, malloc'd path: root's secret
 * (0600), a script (0755), a private directory (0700) with a file, a
 * symlink, a file anyone may write (open, 0666) and a directory anyone
 * may write (drop, 0777), so that only the sandboxes keep a replay as
 * nobody from them; secret and open carry user.keep and trusted.keep,
 * the link trusted.keep.
 */
char *sec_make_victim(const char *name);

/* Every entry of tree @dir: name, type and mode, owner, size, checksum of
 * the contents, symlink target, extended attributes (names, sizes and
 * checksums of the values).  malloc'd. */
char *sec_snapshot(const char *dir);

/* Run @fn(@arg) in a child process as nobody; its exit status. */
int sec_as_nobody(int (*fn)(void *), void *arg);

/* Start @fn(@arg) as nobody in the background (it runs until stopped);
 * its pid. */
pid_t sec_spawn_nobody(int (*fn)(void *), void *arg);

/* Stop and reap a process of sec_spawn_nobody(). */
void sec_stop(pid_t pid);

/*
 * A replay file at @path for test @name, user @user, one sandbox @sandbox,
 * with @init and @ops lines (each '@' replaced by the sandbox root).
 */
void sec_write_replay(const char *path, const char *name, const char *user,
		      const char *sandbox, const char *init, const char *ops,
		      unsigned nops);

/* Run ioriot with @argv (NULL-terminated, without argv[0]); its exit
 * status, with stderr in *@err (malloc'd). */
int sec_ioriot(const char *const *argv, char **err);

/* The same, killed after @secs seconds: then -2 (it hung). */
int sec_ioriot_within(const char *const *argv, unsigned secs, char **err);

/*
 * From the JSON statistics @json: for syscall @sys, the number after
 * "@key": in its line ("ops", "differ", or a class of differ_by_result
 * such as "EPERM"); 0 if the line lacks @key, -1 if there is no line.
 */
long sec_stat(const char *json, const char *sys, const char *key);

/* Write @value to @path; the old value in @old (64 bytes) if not NULL. */
void sec_sysctl_set(const char *path, const char *value, char *old);

#endif
