/*
 * Security tests of the newer replay operations (docs/replay-format.md
 * §4.4-§4.6): extended attributes by path, link and fd and the INIT
 * attributes, mknod and bind, FIFO opens, the clone and dedupe ioctls,
 * splice, locks, I/O through mappings, symlinks with relative targets
 * and the umask.  Each attack is a hand-written replay file run by the
 * ioriot binary, as the test user nobody and, where root's privileges
 * would make a difference, as root (--allow-root, where the jail alone
 * keeps the replay in); a local user (nobody) plants symlinks and FIFOs
 * or swaps them in while init or the replay runs.  A victim tree of
 * root's files outside every sandbox (secutil.h) must keep its
 * contents, owners, modes and attributes, and get no new file; the
 * statistics must count what was refused, under the errno the replay
 * gave (docs/stats.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "secutil.h"

/* From a sandbox's directory: enough ".." to reach "/" from any of them,
 * and more (the jail's "/" is its own "..").  A relative symlink target
 * of UP and an absolute host path names that path on the host. */
#define UP "../../../../../../../../../../../../../../../.."

/* 250 bytes: "user." and it make the longest attribute name. */
#define LONG_NAME "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

#define FICLONE_CMD "1074041865"	/* _IOW(0x94, 9, int) */
#define FICLONERANGE_CMD "1075876877"	/* _IOW(0x94, 13, 32 bytes) */
#define FIDEDUPERANGE_CMD "3222836278"	/* _IOWR(0x94, 54, 24 bytes) */

/* A sandbox on the mount for test @name, malloc'd. */
static char *sandbox_of(const char *name)
{
	char *sb;

	ck_assert(asprintf(&sb, "%s/.ioriot/%s", sec_mnt, name) > 0);
	return sb;
}

/* printf into a malloc'd string. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	ck_assert(vasprintf(&s, f, ap) > 0);
	va_end(ap);
	return s;
}

/* Run ioriot @mode (-R, -r or -i) on @replay, as root with --allow-root
 * if @root, statistics into @json (not for -i); at most 30 s.  Its exit
 * status; stderr in *@err. */
static int run(const char *mode, const char *replay, const char *json,
	       bool root, char **err)
{
	const char *argv[10] = { "-q", mode, replay };
	size_t n = 3;

	if (strcmp(mode, "-i")) {
		argv[n++] = "-D";
		argv[n++] = "-S";
		argv[n++] = json;
	}
	if (root)
		argv[n++] = "--allow-root";
	argv[n] = NULL;
	int rc = sec_ioriot_within(argv, 30, err);
	ck_assert_msg(rc != -2, "ioriot %s %s hung (killed after 30 s): %s",
		      mode, replay, *err);
	return rc;
}

/* Run @mode on @replay, which must succeed; the JSON statistics. */
static char *replay_ok(const char *mode, const char *replay, bool root)
{
	char *json = fmt("%s.json", replay), *err, *text;
	int rc = run(mode, replay, json, root, &err);

	ck_assert_msg(rc == 0, "ioriot %s %s: %d: %s", mode, replay, rc, err);
	free(err);
	text = tu_read(json, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(unlink(json), 0);
	free(json);
	return text;
}

/* Assert that syscall @sys has @n results of class @cls in @json. */
#define STAT_IS(json, sys, cls, n)					\
	ck_assert_msg(sec_stat(json, sys, cls) == (n),			\
		      "%s %s: %ld, not %d\n%s", sys, cls,		\
		      sec_stat(json, sys, cls), (int)(n), json)

/* Whether @path has attribute @name (not following a link). */
static bool has_attr(const char *dir, const char *rel, const char *name)
{
	char *p = tu_join(dir, rel);
	ssize_t n = lgetxattr(p, name, NULL, 0);

	free(p);
	return n >= 0;
}

static void set_attr(const char *dir, const char *rel, const char *name)
{
	char *p = tu_join(dir, rel);

	ck_assert_msg(lsetxattr(p, name, "kept", 4, 0) == 0, "%s %s: %s", p,
		      name, strerror(errno));
	free(p);
}

/* One attack: the replay file @name (user nobody, or root); the victim
 * must not change. */
struct attack {
	const char *name;
	bool root;
	char *sb, *replay, *victim, *before;
};

static void attack_begin(struct attack *a, const char *name, bool root)
{
	a->name = name;
	a->root = root;
	a->sb = sandbox_of(name);
	a->replay = fmt("%s/%s.replay", sec_root, name);
	a->victim = sec_make_victim(name);
	a->before = sec_snapshot(a->victim);
}

/* @text with each "{V}" replaced by the victim's path and each "{R}" by
 * the directory that holds it and the mount, malloc'd. */
static char *expand(const struct attack *a, const char *text)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	for (const char *c = text; *c; c++) {
		if (!strncmp(c, "{V}", 3) || !strncmp(c, "{R}", 3)) {
			fputs(c[1] == 'V' ? a->victim : sec_root, f);
			c += 2;
		} else {
			fputc(*c, f);
		}
	}
	fclose(f);
	return out;
}

/* Write the replay file of @init and @ops (expand()ed). */
static void attack_write(struct attack *a, const char *init, const char *ops,
			 unsigned nops)
{
	char *i = expand(a, init), *o = expand(a, ops);

	sec_write_replay(a->replay, a->name, a->root ? "root" : "nobody",
			 a->sb, i, o, nops);
	free(i);
	free(o);
}

/* The victim is as it was; free everything. */
static void attack_end(struct attack *a)
{
	char *after = sec_snapshot(a->victim);

	ck_assert_str_eq(after, a->before);
	free(after);
	free(a->before);
	free(a->victim);
	free(a->replay);
	free(a->sb);
}

/*
 * Extended attributes through symlinks that lead out: made by the replay
 * itself (relative targets that climb above "/" and name the victim on
 * the host) and by INIT.  Every call by path or by an fd opened through
 * them finds nothing; one on a sandbox file works.
 */
static void xattr_through_links(bool root)
{
	struct attack a;
	char *json;

	attack_begin(&a, root ? "xlinks-root" : "xlinks", root);
	attack_write(&a,
		"f 10 @/real\n"
		"l @/il target=" UP "{V}/open\n",
		"1 1:1 0 0 - symlink 0 path=@/lo target=" UP "{V}/open\n"
		"2 1:1 0 0 - symlink 0 path=@/ls target=" UP "{V}/secret\n"
		"3 1:1 0 0 - symlink 0 path=@/ld target=" UP "{V}/drop\n"
		"4 1:1 0 0 - symlink 0 path=@/ll target=" UP "{V}/link\n"
		"5 1:1 0 0 - setxattr 0 path=@/lo name=user.evil count=8\n"
		"6 1:1 0 0 - setxattr 0 path=@/ll name=user.evil count=8\n"
		"7 1:1 0 0 - setxattr 0 path=@/ld/new name=user.evil count=8\n"
		"8 1:1 0 0 - setxattr 0 path=@/il name=user.evil count=8\n"
		"9 1:1 0 0 - removexattr 0 path=@/lo name=user.keep\n"
		"10 1:1 0 0 - removexattr 0 path=@/ls name=user.keep\n"
		"11 1:1 0 0 - setxattrat 0 path=@/lo name=user.evil count=8 "
		"flags=0x0\n"
		"12 1:1 0 0 - removexattrat 0 path=@/ls name=user.keep "
		"flags=0x0\n"
		"13 1:1 0 0 - getxattr 4 path=@/lo name=user.keep count=64\n"
		"14 1:1 0 0 - listxattr 10 path=@/ls count=256\n"
		"15 1:1 0 0 - open 3 vfd=1 path=@/lo flags=0x2\n"
		"16 1:1 0 0 - fsetxattr 0 fd=1 name=user.evil count=8\n"
		"17 1:1 0 0 - fremovexattr 0 fd=1 name=user.keep\n"
		"18 1:1 0 0 - open 4 vfd=2 path=@/ld flags=0x10000\n"
		"19 1:1 0 0 - fsetxattr 0 fd=2 name=user.evil count=8\n"
		"20 1:1 0 0 - setxattr 0 path=@/real name=user.ok count=8\n",
		20);
	json = replay_ok("-R", a.replay, root);
	STAT_IS(json, "setxattr", "ENOENT", 4);
	STAT_IS(json, "setxattr", "differ", 4);
	STAT_IS(json, "removexattr", "ENOENT", 2);
	/* The *at calls: Linux 6.13. */
	ck_assert_int_eq(sec_stat(json, "setxattrat", "ENOENT") +
			 sec_stat(json, "setxattrat", "ENOSYS"), 1);
	ck_assert_int_eq(sec_stat(json, "removexattrat", "ENOENT") +
			 sec_stat(json, "removexattrat", "ENOSYS"), 1);
	STAT_IS(json, "getxattr", "ENOENT", 1);
	STAT_IS(json, "listxattr", "ENOENT", 1);
	STAT_IS(json, "open", "ENOENT", 2);
	STAT_IS(json, "fsetxattr", "EBADF", 2);
	STAT_IS(json, "fremovexattr", "EBADF", 1);
	ck_assert(has_attr(a.sb, "real", "user.ok"));
	free(json);
	attack_end(&a);
}

START_TEST(test_xattr_through_links)
{
	SEC_NEED_MOUNT();
	xattr_through_links(false);
	xattr_through_links(true);
}
END_TEST

/*
 * Attributes of the namespaces that need privilege (security.*, with the
 * file capabilities, and trusted.*) are never set or removed by a
 * replay, as root either: refused with EPERM, what the kernel answers a
 * user without CAP_SYS_ADMIN, and counted.  user.* works; a value beyond
 * the kernel's limit gives E2BIG.
 */
static void xattr_namespaces(bool root)
{
	struct attack a;
	char *json, *err;

	attack_begin(&a, root ? "xns-root" : "xns", root);
	attack_write(&a,
		"d @/d\n"
		"f 10 @/f\n"
		"l @/l target=f\n",
		"1 1:1 0 0 - setxattr 0 path=@/f name=security.capability "
		"count=20\n"
		"2 1:1 0 0 - setxattr 0 path=@/f name=trusted.overlay.redirect "
		"count=8\n"
		"3 1:1 0 0 - setxattr 0 path=@/d name=security.evil count=4\n"
		"4 1:1 0 0 - lsetxattr 0 path=@/l name=trusted.evil count=4\n"
		"5 1:1 0 0 - open 3 vfd=1 path=@/f flags=0x2\n"
		"6 1:1 0 0 - fsetxattr 0 fd=1 name=security.capability "
		"count=24\n"
		"7 1:1 0 0 - fsetxattr 0 fd=1 name=trusted.evil count=4\n"
		"8 1:1 0 0 - setxattrat 0 path=@/f name=trusted.evil count=4 "
		"flags=0x0\n"
		"9 1:1 0 0 - setxattrat 0 fd=1 name=security.evil count=4 "
		"flags=0x1000\n"
		"10 1:1 0 0 - removexattr 0 path=@/f name=trusted.keep\n"
		"11 1:1 0 0 - lremovexattr 0 path=@/f name=security.keep\n"
		"12 1:1 0 0 - fremovexattr 0 fd=1 name=trusted.keep\n"
		"13 1:1 0 0 - removexattrat 0 path=@/d name=trusted.keep "
		"flags=0x0\n"
		"14 1:1 0 0 - setxattr 0 path=@/f name=user.ok count=8\n"
		"15 1:1 0 0 - setxattr 0 path=@/f name=user.big count=65537\n"
		"16 1:1 0 0 - setxattr 0 path=@/f name=user.%2F..%2F..%2Fx "
		"count=4\n"
		"17 1:1 0 0 - setxattr 0 path=@/f name=user." LONG_NAME
		" count=1\n"
		"18 1:1 0 0 - setxattr 0 path=@/f name=%20security.x count=4\n"
		"19 1:1 0 0 - setxattr 0 path=@/f name=Trusted.x count=4\n",
		19);
	ck_assert_msg(run("-i", a.replay, NULL, root, &err) == 0, "%s", err);
	free(err);
	set_attr(a.sb, "f", "trusted.keep");
	set_attr(a.sb, "f", "security.keep");
	set_attr(a.sb, "d", "trusted.keep");
	json = replay_ok("-r", a.replay, root);
	STAT_IS(json, "setxattr", "EPERM", 3);
	STAT_IS(json, "setxattr", "E2BIG", 1);
	STAT_IS(json, "setxattr", "EOPNOTSUPP", 2);	/* 18, 19: no such
							 * namespace */
	ck_assert(has_attr(a.sb, "f", "user./../../x"));
	ck_assert(has_attr(a.sb, "f", "user." LONG_NAME));
	STAT_IS(json, "lsetxattr", "EPERM", 1);
	STAT_IS(json, "fsetxattr", "EPERM", 2);
	STAT_IS(json, "setxattrat", "EPERM", 2);
	STAT_IS(json, "removexattr", "EPERM", 1);
	STAT_IS(json, "lremovexattr", "EPERM", 1);
	STAT_IS(json, "fremovexattr", "EPERM", 1);
	STAT_IS(json, "removexattrat", "EPERM", 1);
	ck_assert(has_attr(a.sb, "f", "user.ok"));
	ck_assert(has_attr(a.sb, "f", "trusted.keep"));
	ck_assert(has_attr(a.sb, "f", "security.keep"));
	ck_assert(has_attr(a.sb, "d", "trusted.keep"));
	ck_assert(!has_attr(a.sb, "f", "security.capability"));
	ck_assert(!has_attr(a.sb, "f", "trusted.overlay.redirect"));
	ck_assert(!has_attr(a.sb, "f", "trusted.evil"));
	ck_assert(!has_attr(a.sb, "f", "security.evil"));
	ck_assert(!has_attr(a.sb, "d", "security.evil"));
	ck_assert(!has_attr(a.sb, "l", "trusted.evil"));
	free(json);
	attack_end(&a);
}

START_TEST(test_xattr_namespaces)
{
	SEC_NEED_MOUNT();
	xattr_namespaces(false);
	xattr_namespaces(true);
}
END_TEST

/*
 * INIT attributes: only user.* names are accepted (the reader refuses the
 * others with the line, before the old sandbox is touched); one on a
 * symlink that leads out, or below one, makes init fail without
 * following it.
 */
static void init_xattrs(bool root)
{
	static const char *const bad[] = {
		"a 20 @/f name=security.capability\n",
		"a 4 @/f name=trusted.overlay.opaque\n",
		"a 28 @/f name=system.posix_acl_access\n",
		"a 4 @/f name=nonamespace\n",
	};
	static const char *const out[] = {
		"a 4 {V}/open name=user.evil\n",
		"f 1 @/f\na 4 @/f/../../../../victim-ixattr/open name=user.evil\n",
		"l @/l target=" UP "{V}/open\na 4 @/l name=user.evil\n",
		"l @/ld target=" UP "{V}/drop\na 4 @/ld/x name=user.evil\n",
		"l @/ld target=" UP "{V}\na 4 @/ld/open name=user.evil\n",
	};
	struct attack a;
	char *err, *init;

	attack_begin(&a, root ? "ixattr-root" : "ixattr", root);
	attack_write(&a, "f 10 @/f\na 16 @/f name=user.fine\n", "", 0);
	ck_assert_msg(run("-i", a.replay, NULL, root, &err) == 0, "%s", err);
	free(err);
	ck_assert(has_attr(a.sb, "f", "user.fine"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		init = fmt("f 10 @/f\nf 5 @/g\n%s", bad[i]);
		attack_write(&a, init, "", 0);
		ck_assert_int_eq(run("-i", a.replay, NULL, root, &err), 1);
		ck_assert_msg(strstr(err, ".replay:6: ") &&
			      strstr(err, "user."), "%s", err);
		free(err);
		free(init);
		/* Refused before anything moved: the old sandbox stands. */
		ck_assert(has_attr(a.sb, "f", "user.fine"));
	}
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++) {
		attack_write(&a, out[i], "", 0);
		ck_assert_int_eq(run("-i", a.replay, NULL, root, &err), 1);
		free(err);
	}
	attack_end(&a);
}

START_TEST(test_init_xattrs)
{
	SEC_NEED_MOUNT();
	init_xattrs(false);
	init_xattrs(true);
}
END_TEST

/* The swapper of the INIT race: each file of the sandbox's directory is
 * replaced, over and over, by a symlink to the victim's file anyone may
 * write, or by a hard link to root's file on the mount. */
struct swapper {
	const char *dir;
	const char *link_to;
	const char *hard_to;
	const char *prefix;
	int n;
};

static int swap_files(void *arg)
{
	const struct swapper *s = arg;
	char path[PATH_MAX];

	for (unsigned round = 0;; round++) {
		for (int i = 0; i < s->n; i++) {
			snprintf(path, sizeof(path), "%s/%s%d", s->dir,
				 s->prefix, i);
			if (unlink(path) == 0 || errno == ENOENT) {
				if (s->hard_to && (round + i) % 2)
					link(s->hard_to, path);
				else
					symlink(s->link_to, path);
			}
		}
	}
	return 0;
}

/*
 * INIT attributes raced: while init makes files and sets their
 * attributes, the test user swaps each file for a symlink to the victim
 * or a hard link to root's file on the mount (hard links to other users'
 * files need protected_hardlinks off).  Init may fail; neither file
 * changes.
 */
START_TEST(test_init_xattr_race)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *err, old[64], *init, *dir, *hard, *target, *hard_before;
	FILE *f;
	size_t len;

	attack_begin(&a, "ixrace", false);
	hard = tu_join(sec_mnt, "root-file");
	free(tu_write_str(sec_mnt, "root-file", "root's file on the mount\n"));
	ck_assert_int_eq(chmod(hard, 0644), 0);
	hard_before = sec_snapshot(hard);
	f = open_memstream(&init, &len);
	fprintf(f, "d @/d\n");
	for (int i = 0; i < 300; i++)
		fprintf(f, "f 1 @/d/f%d\na 8 @/d/f%d name=user.x\n", i, i);
	fclose(f);
	attack_write(&a, init, "", 0);
	dir = tu_join(a.sb, "d");
	target = tu_join(a.victim, "open");
	struct swapper s = { .dir = dir, .link_to = target, .hard_to = hard,
			     .prefix = "f", .n = 300 };
	sec_sysctl_set("/proc/sys/fs/protected_hardlinks", "0", old);
	pid_t pid = sec_spawn_nobody(swap_files, &s);
	const char *argv[] = { "-q", "-i", a.replay, NULL };
	int worst = 0;
	/* No assertion until the sysctl is back. */
	for (int round = 0; round < 4; round++) {
		int rc = sec_ioriot_within(argv, 30, &err);

		if (rc < 0 || rc > worst)
			worst = rc < 0 ? 99 : rc;
		free(err);
	}
	sec_stop(pid);
	sec_sysctl_set("/proc/sys/fs/protected_hardlinks", old, NULL);
	ck_assert_int_le(worst, 1);	/* a lost race may fail init */
	char *hard_after = sec_snapshot(hard);
	ck_assert_str_eq(hard_after, hard_before);
	free(hard_after);
	free(hard_before);
	free(hard);
	free(target);
	free(dir);
	free(init);
	attack_end(&a);
}
END_TEST

/* The device nodes below @dir, counted by nftw(). */
static int devices;

static int count_device(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		devices++;
	return 0;
}

static int devices_below(const char *dir)
{
	devices = 0;
	ck_assert_int_eq(nftw(dir, count_device, 16, FTW_PHYS), 0);
	return devices;
}

/* The file type of @dir/@rel (not following a link), or 0. */
static mode_t type_of(const char *dir, const char *rel, mode_t *perm)
{
	char *p = tu_join(dir, rel);
	struct stat st;
	int rc = lstat(p, &st);

	free(p);
	if (perm)
		*perm = rc ? 0 : st.st_mode & 07777;
	return rc ? 0 : st.st_mode & S_IFMT;
}

/*
 * mknod and bind: device nodes are never made (EPERM, counted), also as
 * root; FIFOs, sockets and files are made in the sandbox only, never
 * through a symlink that leads out, never over one, and without
 * set-user-ID bits.
 */
static void mknod_bind(bool root)
{
	struct attack a;
	char *json;
	mode_t perm;

	attack_begin(&a, root ? "mknod-root" : "mknod", root);
	attack_write(&a, "d @/d\n",
		"1 1:1 0 0 - mknod 0 path=@/cdev mode=020666\n"
		"2 1:1 0 0 - mknodat 0 path=@/bdev mode=060600\n"
		"3 1:1 0 0 - mknodat 0 path=@/d/zero mode=020000\n"
		"4 1:1 0 0 - symlink 0 path=@/ld target=" UP "{V}/drop\n"
		"5 1:1 0 0 - mknod 0 path=@/ld/fifo mode=010666\n"
		"6 1:1 0 0 - bind 0 path=@/ld/sock umask=0\n"
		"7 1:1 0 0 - mknodat 0 path=@/ld/cdev mode=020666\n"
		"8 1:1 0 0 - mknodat 0 path=@/ld/reg mode=0100666\n"
		"9 1:1 0 0 - mknod 0 path=@/fifo mode=010640 umask=0\n"
		"10 1:1 0 0 - bind 0 path=@/sock umask=022\n"
		"11 1:1 0 0 - bind -98 path=@/sock\n"
		"12 1:1 0 0 - mknod 0 path=@/reg mode=0106755 umask=0\n"
		"13 1:1 0 0 - symlink 0 path=@/lo target=" UP "{V}/open\n"
		"14 1:1 0 0 - mknod 0 path=@/lo mode=010666\n"
		"15 1:1 0 0 - bind 0 path=@/lo\n"
		"16 1:1 0 0 - mknod 0 path=@/dir mode=040755\n",
		16);
	json = replay_ok("-R", a.replay, root);
	STAT_IS(json, "mknod", "EPERM", 2);	/* 1; 16 by the kernel */
	STAT_IS(json, "mknodat", "EPERM", 3);	/* 2, 3, 7 */
	STAT_IS(json, "mknod", "ENOENT", 1);
	STAT_IS(json, "mknodat", "ENOENT", 1);
	STAT_IS(json, "bind", "ENOENT", 1);
	STAT_IS(json, "mknod", "EEXIST", 1);
	STAT_IS(json, "bind", "EADDRINUSE", 1);	/* 15; 11 as captured */
	ck_assert_int_eq(devices_below(a.sb), 0);
	ck_assert_int_eq(type_of(a.sb, "fifo", &perm), S_IFIFO);
	ck_assert_int_eq(perm, 0640);
	ck_assert_int_eq(type_of(a.sb, "sock", &perm), S_IFSOCK);
	ck_assert_int_eq(perm, 0755);
	ck_assert_int_eq(type_of(a.sb, "reg", &perm), S_IFREG);
	ck_assert_int_eq(perm, 0755);
	ck_assert_int_eq(type_of(a.sb, "lo", NULL), S_IFLNK);
	ck_assert_uint_eq(type_of(a.sb, "dir", NULL), 0);
	ck_assert_int_eq(sec_stat(json, "mknod", "ops"), 6);
	ck_assert_msg(strstr(json, "\"setid_stripped\": 1,"), "%s", json);
	free(json);
	attack_end(&a);
}

START_TEST(test_mknod_bind)
{
	SEC_NEED_MOUNT();
	mknod_bind(false);
	mknod_bind(true);
}
END_TEST

/* Hold FIFO @arg open for reading and writing until killed: a blocking
 * read of it would wait for ever, a blocking open would not. */
static int hold_fifo(void *arg)
{
	int fd;

	for (;;) {
		fd = open(arg, O_RDWR);
		if (fd >= 0)
			pause();
		usleep(1000);
	}
	return 0;
}

static int plant_fifo_for(void *arg)
{
	return unlink(arg) || mkfifo(arg, 0666) ? 1 : 0;
}

static int plant_link_for(void *arg)
{
	char **p = arg;	/* the path, the target */

	return unlink(p[0]) || symlink(p[1], p[0]) ? 1 : 0;
}

/*
 * FIFOs: opened without O_NONBLOCK by a hand-written replay file, or
 * planted by the test user where the replay opens a file, while another
 * process of theirs holds them open (so that nothing ever reaches the end
 * of the data).  No open, read, write, AIO or io_uring request or splice
 * on them may wait for ever; a file swapped for a symlink to the victim
 * leads nowhere.
 */
static void fifo_opens(bool root)
{
	struct attack a;
	char *json, *err, *f1, *f2, *pipe_path;
	pid_t holder;

	attack_begin(&a, root ? "fifo-root" : "fifo", root);
	attack_write(&a, "f 4 @/f1\nf 4 @/f2\n",
		"1 1:1 0 0 - mknod 0 path=@/p mode=010666 umask=0\n"
		"2 1:1 0 0 - open 3 vfd=1 path=@/p flags=0x0\n"
		"3 1:1 0 0 - read 0 fd=1 count=16\n"
		"4 1:1 0 0 - open 4 vfd=2 path=@/p flags=0x1\n"
		"5 1:1 0 0 - write 16 fd=2 count=16\n"
		"6 1:1 0 0 - open 5 vfd=3 path=@/p flags=0x2\n"
		"7 1:1 0 0 - read 16 fd=3 count=16\n"
		"8 1:1 0 0 - read 16 fd=3 count=16\n"
		"9 1:1 0 0 - write 4000000 fd=2 count=4000000\n"
		"10 1:1 0 0 - read 4000000 fd=1 count=4000000\n"
		"11 1:1 0 0 - fcntl 0 fd=1 cmd=4 arg=0\n"
		"12 1:1 0 0 - read 16 fd=1 count=16\n"
		"13 1:1 0 0 - io_setup 0 count=4 ctx=1\n"
		"14 1:1 0 0 - iocb 0 fd=3 off=0 count=16 cmd=0 ctx=1 tag=1\n"
		"15 1:1 0 0 - io_submit 1 count=1 ctx=1\n"
		"16 1:1 0 0 - io_getevents 1 count=1 ctx=1 min=1\n"
		"17 1:1 0 0 - aio_pread 16 fd=3 ctx=1 tag=1\n"
		"18 1:1 0 0 - io_destroy 0 ctx=1\n"
		"19 1:1 0 0 - io_uring_setup 7 count=4 ctx=1\n"
		"20 1:1 0 0 - sqe 0 fd=3 off=-1 count=16 cmd=22 ctx=1 tag=1\n"
		"21 1:1 0 0 - io_uring_enter 1 count=1 ctx=1 min=0\n"
		"22 1:1 0 0 - uring_read 16 fd=3 ctx=1 tag=1\n"
		"23 1:1 0 0 - splice 16 fd=3 count=16\n"
		"24 1:1 0 0 - splice 16 fd2=2 count=16\n"
		"25 1:1 0 0 - open 3 vfd=4 path=@/f1 flags=0x0\n"
		"26 1:1 0 0 - read 4 fd=4 count=4\n"
		"27 1:1 0 0 - open 3 vfd=5 path=@/f2 flags=0x241\n"
		"28 1:1 0 0 - write 4 fd=5 count=4\n",
		28);
	ck_assert_msg(run("-i", a.replay, NULL, root, &err) == 0, "%s", err);
	free(err);
	f1 = tu_join(a.sb, "f1");
	f2 = tu_join(a.sb, "f2");
	pipe_path = tu_join(a.sb, "p");
	char *to_open = tu_join(a.victim, "open");
	char *swap[2] = { f2, to_open };
	if (root) {		/* root's sandbox: the test plants */
		ck_assert_int_eq(unlink(f1), 0);
		ck_assert_int_eq(mkfifo(f1, 0666), 0);
		ck_assert_int_eq(chmod(f1, 0666), 0);
		ck_assert_int_eq(unlink(f2), 0);
		ck_assert_int_eq(symlink(to_open, f2), 0);
	} else {
		ck_assert_int_eq(sec_as_nobody(plant_fifo_for, f1), 0);
		ck_assert_int_eq(sec_as_nobody(plant_link_for, swap), 0);
	}
	holder = sec_spawn_nobody(hold_fifo, f1);
	json = replay_ok("-r", a.replay, root);
	sec_stop(holder);
	STAT_IS(json, "open", "differ", 1);	/* 27: ENOENT */
	STAT_IS(json, "open", "ENOENT", 1);
	STAT_IS(json, "read", "EAGAIN", 3);	/* 8, 12, 26 */
	STAT_IS(json, "read", "short", 1);	/* 10: what the FIFO held */
	STAT_IS(json, "write", "short", 1);	/* 9: what it took */
	STAT_IS(json, "write", "EBADF", 1);	/* 28 */
	STAT_IS(json, "aio_pread", "differ", 1);
	STAT_IS(json, "uring_read", "ETIMEDOUT", 1);
	STAT_IS(json, "splice", "EAGAIN", 1);	/* 23 */
	ck_assert_int_eq(type_of(a.sb, "p", NULL), S_IFIFO);
	free(json);
	free(to_open);
	free(pipe_path);
	free(f1);
	free(f2);
	attack_end(&a);
}

START_TEST(test_fifo_opens)
{
	SEC_NEED_MOUNT();
	fifo_opens(false);
	fifo_opens(true);
}
END_TEST

/*
 * The clone and dedupe ioctls take vfds only: a number that is no open
 * vfd (the real fds of the replay file or the statistics among them)
 * gives EBADF, as a source and as a destination (also of a dedupe); other
 * ioctl commands (FS_IOC_SETFLAGS: chattr +i as root; TCGETS) are
 * refused with EINVAL.  The replay file stays as it was.
 */
static void clone_fds(bool root)
{
	struct attack a;
	char *json, *text_before, *text_after;

	attack_begin(&a, root ? "clone-root" : "clone", root);
	attack_write(&a, "f 4096 @/a\nf 4096 @/b\n",
		"1 1:1 0 0 - open 3 vfd=1 path=@/a flags=0x2\n"
		"2 1:1 0 0 - open 4 vfd=2 path=@/b flags=0x2\n"
		"3 1:1 0 0 - ioctl 0 fd=1 fd2=3 cmd=" FICLONE_CMD "\n"
		"4 1:1 0 0 - ioctl 0 fd=1 fd2=0 cmd=" FICLONE_CMD "\n"
		"5 1:1 0 0 - ioctl 0 fd=4 fd2=1 cmd=" FICLONE_CMD "\n"
		"6 1:1 0 0 - ioctl 0 fd=1 fd2=5 off=0 count=4096 off2=0 "
		"cmd=" FICLONERANGE_CMD "\n"
		"7 1:1 0 0 - ioctl 0 fd=6 fd2=2 off=0 count=4096 off2=0 "
		"cmd=" FICLONERANGE_CMD "\n"
		"8 1:1 0 0 - dedupe 0 fd=3 off2=0\n"
		"9 1:1 0 0 - ioctl 0 fd=7 off=0 count=4096 "
		"cmd=" FIDEDUPERANGE_CMD " arg=0\n"
		"10 1:1 0 0 - dedupe 0 fd=2 off2=0\n"
		"11 1:1 0 0 - close 0 fd=2\n"
		"12 1:1 0 0 - open 3 vfd=3 path=@/b flags=0x2\n"
		"13 1:1 0 0 - ioctl 0 fd=1 off=0 count=4096 "
		"cmd=" FIDEDUPERANGE_CMD " arg=1\n"
		"14 1:1 0 0 - dedupe_done 0 fd=2 count=4096\n"
		"15 1:1 0 0 - ioctl 0 fd=1 cmd=1074292226 arg=16\n"
		"16 1:1 0 0 - ioctl 0 fd=1 cmd=21505\n",
		16);
	text_before = tu_read(a.replay, NULL);
	json = replay_ok("-R", a.replay, root);
	STAT_IS(json, "ioctl", "EBADF", 6);		/* 3 to 7, 9 */
	STAT_IS(json, "dedupe", "EBADF", 1);		/* 8 */
	STAT_IS(json, "ioctl", "EINVAL", 2);		/* 15, 16 */
	text_after = tu_read(a.replay, NULL);
	ck_assert_str_eq(text_after, text_before);
	free(text_after);
	free(text_before);
	free(json);
	attack_end(&a);
}

START_TEST(test_clone_fds)
{
	SEC_NEED_MOUNT();
	clone_fds(false);
	clone_fds(true);
}
END_TEST

/* Hold @arg's locks until killed: flock and an OFD lock on the whole
 * file (which conflicts with POSIX locks too). */
static int hold_locks(void *arg)
{
	int fd = open(arg, O_RDWR);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (fd < 0 || flock(fd, LOCK_EX) || fcntl(fd, F_OFD_SETLK, &fl))
		return 1;
	for (;;)
		pause();
	return 0;
}

static int locked_by_other(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETLK, &fl), 0);
	close(fd);
	return fl.l_type != F_UNLCK;
}

/*
 * Locks the test user holds for ever: every blocking lock call of the
 * replay (flock, F_SETLKW, F_OFD_SETLKW) gives up after its bounded wait
 * (ETIMEDOUT, counted); the three wait at once, on three timelines.
 */
START_TEST(test_locks_bounded)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json, *err, *path;
	struct timespec t0, t1;

	attack_begin(&a, "locks", false);
	attack_write(&a, "f 100 @/l\n",
		"1 1:1 0 0 - open 3 vfd=1 path=@/l flags=0x2\n"
		"2 1:2 0 0 - open 3 vfd=2 path=@/l flags=0x2\n"
		"3 1:3 0 0 - open 3 vfd=3 path=@/l flags=0x2\n"
		"4 1:1 0 0 - flock 0 fd=1 flags=0x2\n"
		"5 1:2 0 0 - fcntl 0 fd=2 cmd=7 arg=1 whence=0 off=0 count=0\n"
		"6 1:3 0 0 - fcntl 0 fd=3 cmd=38 arg=1 whence=0 off=0 "
		"count=0\n"
		"7 1:1 0 0 - flock 0 fd=1 flags=0x46\n"
		"8 1:2 0 0 - fcntl 0 fd=2 cmd=7 arg=9 whence=0 off=0 count=0\n",
		8);
	ck_assert_msg(run("-i", a.replay, NULL, false, &err) == 0, "%s", err);
	free(err);
	path = tu_join(a.sb, "l");
	pid_t holder = sec_spawn_nobody(hold_locks, path);
	for (int i = 0; !locked_by_other(path); i++) {
		ck_assert_msg(i < 5000, "the lock holder did not lock");
		usleep(1000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	json = replay_ok("-r", a.replay, false);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sec_stop(holder);
	STAT_IS(json, "flock", "ETIMEDOUT", 1);
	STAT_IS(json, "fcntl", "ETIMEDOUT", 2);
	STAT_IS(json, "fcntl", "EINVAL", 1);	/* l_type 9 */
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 6);
	free(json);
	free(path);
	attack_end(&a);
}
END_TEST

/*
 * I/O through mappings, as root: madvise never poisons or offlines pages
 * (EINVAL, counted), page touches stay within the replay's own mapping
 * (beyond it: not touched, or EFAULT; after munmap: EFAULT), and a
 * mapping of a link that leads out cannot be made.
 */
START_TEST(test_mmap_pages)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json, *path;
	struct stat st;

	attack_begin(&a, "mmap-root", true);
	attack_write(&a, "f 8192 @/m\n",
		"1 1:1 0 0 - open 3 vfd=1 path=@/m flags=0x2\n"
		"2 1:1 0 0 - mmap 139637976727552 fd=1 flags=0x11 mode=07 "
		"off=0 count=8192 addr=0x7f0000001000\n"
		"3 1:1 0 0 - madvise 0 fd=1 flags=0x64 count=4096 "
		"addr=0x7f0000000000\n"
		"4 1:1 0 0 - madvise 0 fd=1 flags=0x65 count=4096 "
		"addr=0x7f0000000000\n"
		"5 1:1 0 0 - mmap_write 2 fd=1 off=0 count=2 "
		"addr=0x7f0000000000\n"
		"6 1:1 0 0 - mmap_write 1000 fd=1 off=0 count=1000 "
		"addr=0x7f0000000000\n"
		"7 1:1 0 0 - mmap_write 1 fd=1 off=8192 count=1 "
		"addr=0x7f0000002000\n"
		"8 1:1 0 0 - mmap_read 5 fd=1 off=4096 count=5 "
		"addr=0x7f0000001000 stride=2251799813685247\n"
		"9 1:1 0 0 - msync 0 fd=1 flags=0x4 count=99999999 "
		"addr=0x7f0000000000\n"
		"10 1:1 0 0 - munmap 0 fd=1 count=8192 addr=0x7f0000000000\n"
		"11 1:1 0 0 - mmap_write 1 fd=1 off=0 count=1 "
		"addr=0x7f0000000000\n"
		"12 1:1 0 0 - symlink 0 path=@/lo target=" UP "{V}/open\n"
		"13 1:1 0 0 - open 3 vfd=2 path=@/lo flags=0x2\n"
		"14 1:1 0 0 - mmap 139637976735744 fd=2 flags=0x1 mode=03 "
		"off=0 count=4096 addr=0x0\n",
		14);
	json = replay_ok("-R", a.replay, true);
	STAT_IS(json, "madvise", "EINVAL", 2);
	STAT_IS(json, "mmap_write", "short", 1);	/* 6: 2 pages */
	STAT_IS(json, "mmap_write", "EFAULT", 2);	/* 7, 11 */
	STAT_IS(json, "mmap_read", "short", 1);		/* 8: 1 page */
	STAT_IS(json, "mmap", "EBADF", 1);
	STAT_IS(json, "open", "ENOENT", 1);
	path = tu_join(a.sb, "m");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 8192);
	free(path);
	free(json);
	attack_end(&a);
}
END_TEST

/*
 * Symlinks with relative targets that climb out of the sandbox, made by
 * the replay as root: chmod, chown, the *at forms, truncate, utimensat,
 * opens that create or truncate, link, rename and unlink through them
 * reach nothing of the victim; readlink reads the link; lchown and
 * fchownat with AT_SYMLINK_NOFOLLOW change the link itself.
 */
START_TEST(test_relative_links)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json;

	mode_t perm;

	attack_begin(&a, "rel-root", true);
	attack_write(&a, "d @/d\n",
		"1 1:1 0 0 - symlink 0 path=@/ls target=" UP "{V}/secret\n"
		"2 1:1 0 0 - symlink 0 path=@/d/lv target=../" UP "{V}\n"
		"3 1:1 0 0 - symlink 0 path=@/lp target=" UP "{V}/private\n"
		"4 1:1 0 0 - symlink 0 path=@/loop target=loop\n"
		"5 1:1 0 0 - chmod 0 path=@/ls mode=0666\n"
		"6 1:1 0 0 - fchmodat 0 path=@/d/lv mode=0777\n"
		"7 1:1 0 0 - fchmodat2 0 path=@/ls mode=0666 flags=0x0\n"
		"8 1:1 0 0 - chown 0 path=@/ls uid=65534 gid=65534\n"
		"9 1:1 0 0 - fchownat 0 path=@/lp uid=65534 gid=65534 "
		"flags=0x0\n"
		"10 1:1 0 0 - truncate 0 path=@/ls count=0\n"
		"11 1:1 0 0 - utimensat 0 path=@/ls flags=0x0\n"
		"12 1:1 0 0 - open 3 vfd=1 path=@/ls flags=0x241 mode=0666\n"
		"13 1:1 0 0 - open 3 vfd=2 path=@/lp/new flags=0x41 "
		"mode=0666\n"
		"14 1:1 0 0 - linkat 0 path=@/ls path2=@/hard flags=0x400\n"
		"15 1:1 0 0 - rename 0 path=@/lp/data path2=@/stolen\n"
		"16 1:1 0 0 - unlink 0 path=@/d/lv/secret\n"
		"17 1:1 0 0 - mkdir 0 path=@/lp/dir mode=0777\n"
		"18 1:1 0 0 - chmod 0 path=@/loop mode=0777\n"
		"19 1:1 0 0 - readlink 48 path=@/ls count=4096\n"
		"20 1:1 0 0 - lchown 0 path=@/ls uid=65534 gid=65534\n"
		"21 1:1 0 0 - fchownat 0 path=@/lp uid=65534 gid=65534 "
		"flags=0x100\n"
		"22 1:1 0 0 - symlink 0 path=@/d/up target=..\n"
		"23 1:1 0 0 - chmod 0 path=@/d/up/d/up mode=0700\n"
		"24 1:1 0 0 - symlink 0 path=@/lm target=" UP "{R}/m/new\n"
		"25 1:1 0 0 - open 3 vfd=3 path=@/lm flags=0x41 mode=0666\n"
		"26 1:1 0 0 - symlink 0 path=@/lmd target=" UP "{R}/m\n"
		"27 1:1 0 0 - mkdir 0 path=@/lmd/dir mode=0777\n",
		27);
	json = replay_ok("-R", a.replay, true);
	STAT_IS(json, "chmod", "ENOENT", 1);
	STAT_IS(json, "chmod", "ELOOP", 1);
	STAT_IS(json, "fchmodat", "ENOENT", 1);
	STAT_IS(json, "fchmodat2", "ENOENT", 1);
	STAT_IS(json, "chown", "ENOENT", 1);
	STAT_IS(json, "fchownat", "ENOENT", 1);
	STAT_IS(json, "truncate", "ENOENT", 1);
	STAT_IS(json, "utimensat", "ENOENT", 1);
	STAT_IS(json, "open", "ENOENT", 2);
	STAT_IS(json, "open", "EROFS", 1);	/* 25: the jail's skeleton */
	STAT_IS(json, "linkat", "ENOENT", 1);
	STAT_IS(json, "rename", "ENOENT", 1);
	STAT_IS(json, "unlink", "ENOENT", 1);
	STAT_IS(json, "mkdir", "ENOENT", 1);
	STAT_IS(json, "mkdir", "EROFS", 1);	/* 27 */
	STAT_IS(json, "readlink", "differ", 1);	/* as long as its target */
	STAT_IS(json, "lchown", "differ", 0);
	ck_assert_int_eq(type_of(a.sb, "", &perm), S_IFDIR);	/* 23 */
	ck_assert_int_eq(perm, 0700);
	free(json);
	attack_end(&a);
}
END_TEST

/* The swapper of the umask race: each name of the replay's world-writable
 * directory becomes a symlink to the victim (absolute, or relative and
 * climbing out), over and over. */
static int swap_in_links(void *arg)
{
	char **p = arg;	/* the directory, the victim */
	char path[PATH_MAX], target[PATH_MAX];

	for (unsigned round = 0;; round++) {
		for (int i = 0; i < 64; i++) {
			snprintf(path, sizeof(path), "%s/x%d", p[0], i);
			snprintf(target, sizeof(target), "%s%s/%s",
				 round % 2 ? UP : "", p[1],
				 i % 3 ? "open" : "drop");
			if (unlink(path) == 0 || errno == ENOENT ||
			    errno == EISDIR)
				symlink(target, path);
		}
	}
	return 0;
}

/*
 * The umask: a replay as root makes a directory anyone may write
 * (mode 0777, umask 0, as captured), and files in it with the captured
 * umask; the local user swaps every name in it for symlinks to the victim
 * while the replay creates, writes, truncates, chmods, chowns and sets
 * attributes there.  Nothing leads out.
 */
START_TEST(test_umask_race)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json, *ops, *dir, *swap[2], *err;
	FILE *f;
	size_t len;
	unsigned id = 0, vfd = 0;
	mode_t perm;

	attack_begin(&a, "umask-root", true);
	f = open_memstream(&ops, &len);
	fprintf(f, "%u 1:1 0 0 - mkdir 0 path=@/pub mode=0777 umask=0\n",
		++id);
	for (int r = 0; r < 8; r++) {
		for (int i = 0; i < 64; i++) {
			char p[32];

			snprintf(p, sizeof(p), "@/pub/x%d", i);
			vfd++;
			fprintf(f, "%u 1:1 0 0 - open 3 vfd=%u path=%s "
				"flags=0x241 mode=0666 umask=0\n", ++id, vfd, p);
			fprintf(f, "%u 1:1 0 0 - write 4 fd=%u count=4\n", ++id,
				vfd);
			fprintf(f, "%u 1:1 0 0 - close 0 fd=%u\n", ++id, vfd);
			fprintf(f, "%u 1:1 0 0 - chmod 0 path=%s mode=0777\n",
				++id, p);
			fprintf(f, "%u 1:1 0 0 - chown 0 path=%s uid=0 gid=0\n",
				++id, p);
			fprintf(f, "%u 1:1 0 0 - truncate 0 path=%s count=0\n",
				++id, p);
			fprintf(f, "%u 1:1 0 0 - setxattr 0 path=%s "
				"name=user.evil count=4\n", ++id, p);
			fprintf(f, "%u 1:1 0 0 - removexattr 0 path=%s "
				"name=user.keep\n", ++id, p);
			fprintf(f, "%u 1:1 0 0 - mknod 0 path=%s/f mode=010666 "
				"umask=0\n", ++id, p);
			fprintf(f, "%u 1:1 0 0 - unlink 0 path=%s\n", ++id, p);
		}
	}
	fprintf(f, "%u 1:1 0 0 - mkdir 0 path=@/own mode=0777 umask=077\n",
		++id);
	fprintf(f, "%u 1:1 0 0 - open 3 vfd=%u path=@/own/f flags=0x41 "
		"mode=0666 umask=077\n", ++id, ++vfd);
	fclose(f);
	attack_write(&a, "", ops, id);
	ck_assert_msg(run("-i", a.replay, NULL, true, &err) == 0, "%s", err);
	free(err);
	/* The swapper waits for the directory, which the replay makes
	 * first. */
	dir = fmt("%s/pub", a.sb);
	swap[0] = dir;
	swap[1] = a.victim;
	pid_t pid = sec_spawn_nobody(swap_in_links, swap);
	json = replay_ok("-r", a.replay, true);
	sec_stop(pid);
	ck_assert_int_eq(type_of(a.sb, "pub", &perm), S_IFDIR);
	ck_assert_int_eq(perm, 0777);
	ck_assert_int_eq(type_of(a.sb, "own", &perm), S_IFDIR);
	ck_assert_int_eq(perm, 0700);
	ck_assert_int_eq(type_of(a.sb, "own/f", &perm), S_IFREG);
	ck_assert_int_eq(perm, 0600);
	ck_assert_int_eq(sec_stat(json, "open", "ops"), 8 * 64 + 1);
	free(json);
	free(dir);
	free(ops);
	attack_end(&a);
}
END_TEST

/*
 * splice takes vfds only: a side that is no open vfd gives EBADF, a line
 * without any file side too; the replay's own pipe never blocks.  tee
 * (two pipes, never written by the generator) gives EINVAL.
 */
START_TEST(test_splice_fds)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json;

	attack_begin(&a, "splice", false);
	attack_write(&a, "f 100 @/s\n",
		"1 1:1 0 0 - open 3 vfd=1 path=@/s flags=0x2\n"
		"2 1:1 0 0 - splice 100 fd=1 off=0 count=100\n"
		"3 1:1 0 0 - splice 100 fd2=1 off2=0 count=100\n"
		"4 1:1 0 0 - splice 10 fd=3 count=10\n"
		"5 1:1 0 0 - splice 10 fd2=4 count=10\n"
		"6 1:1 0 0 - splice 10 count=10\n"
		"7 1:1 0 0 - splice 10 fd=1 fd2=5 count=10\n"
		"8 1:1 0 0 - splice 2000000 fd2=1 count=2000000\n"
		"9 1:1 0 0 - tee 10 fd=1 count=10\n"
		"10 1:1 0 0 - tee 10 count=10\n"
		"11 1:1 0 0 - tee 10 fd=6 fd2=1 count=10\n",
		11);
	json = replay_ok("-R", a.replay, false);
	STAT_IS(json, "splice", "EBADF", 4);
	STAT_IS(json, "tee", "EINVAL", 2);	/* 9, 10: no pipes */
	STAT_IS(json, "tee", "EBADF", 1);
	free(json);
	attack_end(&a);
}
END_TEST

/*
 * Hand-written lines of the newer operations with paths that are not
 * normalised or lie outside the sandbox, also INIT attributes: the reader
 * refuses each with its line, before init or the replay touch anything.
 */
START_TEST(test_unconfined_paths)
{
	SEC_NEED_MOUNT();
	static const char *const ops[] = {
		"setxattr 0 path=@/../../../../victim-paths/open name=user.x "
		"count=4",
		"lsetxattr 0 path={V}/open name=user.x count=4",
		"removexattr 0 path=@/./f name=user.keep",
		"getxattr 4 path=/etc/passwd name=user.x count=4",
		"setxattrat 0 path={V}/secret name=user.x count=4 flags=0x0",
		"mknod 0 path={V}/drop/fifo mode=010666",
		"mknodat 0 path=@/../../dev mode=020666",
		"bind 0 path={V}/drop/sock",
		"symlink 0 path={V}/drop/l target=secret",
		"symlink 0 path=@/l target={V}/secret",
		"open 3 vfd=1 path=@//f flags=0x0",
		"linkat 0 path=@/f path2={V}/drop/f flags=0x0",
	};
	struct attack a;
	char *err, *line;

	attack_begin(&a, "paths", false);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		line = fmt("1 1:1 0 0 - %s\n", ops[i]);
		attack_write(&a, "f 1 @/f\n", line, 1);
		ck_assert_int_eq(run("-R", a.replay, "/dev/null", false, &err),
				 1);
		ck_assert_msg(strstr(err, ".replay:6: ") &&
			      strstr(err, "not a normalised path inside a "
				     "sandbox"), "%s: %s", ops[i], err);
		free(err);
		free(line);
	}
	attack_end(&a);
}
END_TEST

/* The swapper of the FIFO race: the FIFOs the replay makes in the
 * sandbox become symlinks to the victim's file anyone may write, over
 * and over. */
static int swap_fifos(void *arg)
{
	char **p = arg;	/* the sandbox, the victim's file */
	char path[PATH_MAX];

	for (;;) {
		for (int i = 0; i < 32; i++) {
			struct stat st;

			snprintf(path, sizeof(path), "%s/q%d", p[0], i);
			if (lstat(path, &st) == 0 && S_ISFIFO(st.st_mode) &&
			    unlink(path) == 0)
				symlink(p[1], path);
		}
	}
	return 0;
}

/*
 * FIFOs swapped for symlinks: the replay (as nobody) makes FIFOs and
 * opens them to write, with O_CREAT and O_TRUNC, while the test user swaps
 * each for a symlink to a victim file anyone may write.  Nothing leads
 * out, nothing blocks.
 */
START_TEST(test_fifo_swap_race)
{
	SEC_NEED_MOUNT();
	struct attack a;
	char *json, *ops, *swap[2];
	FILE *f;
	size_t len;
	unsigned id = 0, vfd = 0;

	attack_begin(&a, "fifoswap", false);
	f = open_memstream(&ops, &len);
	for (int r = 0; r < 8; r++) {
		for (int i = 0; i < 32; i++) {
			vfd++;
			fprintf(f, "%u 1:1 0 0 - mknod 0 path=@/q%d mode=010666 "
				"umask=0\n", ++id, i);
			fprintf(f, "%u 1:1 0 0 - open 3 vfd=%u path=@/q%d "
				"flags=0x241 mode=0666\n", ++id, vfd, i);
			fprintf(f, "%u 1:1 0 0 - write 4 fd=%u count=4\n", ++id,
				vfd);
			fprintf(f, "%u 1:1 0 0 - close 0 fd=%u\n", ++id, vfd);
			fprintf(f, "%u 1:1 0 0 - open 3 vfd=%u path=@/q%d "
				"flags=0x0\n", ++id, ++vfd, i);
			fprintf(f, "%u 1:1 0 0 - read 4 fd=%u count=4\n", ++id,
				vfd);
			fprintf(f, "%u 1:1 0 0 - close 0 fd=%u\n", ++id, vfd);
			fprintf(f, "%u 1:1 0 0 - unlink 0 path=@/q%d\n", ++id, i);
		}
	}
	fclose(f);
	attack_write(&a, "", ops, id);
	swap[0] = a.sb;
	swap[1] = fmt("%s/open", a.victim);
	char *err;
	ck_assert_msg(run("-i", a.replay, NULL, false, &err) == 0, "%s", err);
	free(err);
	pid_t pid = sec_spawn_nobody(swap_fifos, swap);
	json = replay_ok("-r", a.replay, false);
	sec_stop(pid);
	ck_assert_int_eq(sec_stat(json, "mknod", "ops"), 8 * 32);
	free(json);
	free(swap[1]);
	free(ops);
	attack_end(&a);
}
END_TEST

Suite *security_ops_suite(void)
{
	Suite *s = suite_create("security_ops");
	TCase *tc = tcase_create("attacks");

	tcase_add_unchecked_fixture(tc, sec_setup, sec_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_xattr_through_links);
	tcase_add_test(tc, test_xattr_namespaces);
	tcase_add_test(tc, test_init_xattrs);
	tcase_add_test(tc, test_init_xattr_race);
	tcase_add_test(tc, test_mknod_bind);
	tcase_add_test(tc, test_fifo_opens);
	tcase_add_test(tc, test_clone_fds);
	tcase_add_test(tc, test_locks_bounded);
	tcase_add_test(tc, test_mmap_pages);
	tcase_add_test(tc, test_relative_links);
	tcase_add_test(tc, test_umask_race);
	tcase_add_test(tc, test_splice_fds);
	tcase_add_test(tc, test_unconfined_paths);
	tcase_add_test(tc, test_fifo_swap_race);
	suite_add_tcase(s, tc);
	return s;
}
