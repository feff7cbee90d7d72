/*
 * Tests of init (init_run): the INIT tree built in fresh sandboxes on real
 * file systems (loop-mounted ext4 and xfs, and a tmpfs), old data moved to
 * the trash, progress, the summary, planted symlinks, and the errors a bad
 * replay file or an impossible INIT section give.  Needs root; skipped with
 * a message otherwise.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/init.h"
#include "testutil.h"

#define ERRLEN 1024
#define NOBODY 65534
#define BIG (5u << 20)
#define CHUNK (1u << 20)		/* what init writes at once */
#define MAXFS 3

/* The file systems the "fs" test case mounts below its scratch directory. */
static char fs_root[PATH_MAX];	/* kept for the final mount check */
static char fs_mnt[MAXFS][PATH_MAX + 16];
static size_t fs_n;
static bool fs_ok;

/* Loop-mount an image formatted by @mkfs at fs_root/@name. */
static bool mount_image(const char *name, const char *mkfs,
			const char *force, unsigned mb)
{
	char *dir = fs_mnt[fs_n];

	snprintf(dir, sizeof(fs_mnt[0]), "%s/%s", fs_root, name);
	if (!tu_mount_image(dir, mkfs, force, mb)) {
		printf("init: the %s image is left out\n", name);
		return false;
	}
	fs_n++;
	return true;
}

static void fs_setup(void)
{
	const char *which[] = { "which", "mkfs.xfs", NULL };
	char *dir;

	if (geteuid() != 0) {
		printf("init: file system tests skipped: they need root\n");
		return;
	}
	dir = tu_mkdtemp();
	ck_assert(realpath(dir, fs_root));
	free(dir);
	fs_ok = mount_image("ext4", "mkfs.ext4", "-F", 128);
	if (!fs_ok) {
		printf("init: file system tests skipped: no ext4 loop mount\n");
		return;
	}
	/* xfsprogs refuses file systems below 300 MB; the image is sparse. */
	if (tu_exec(which, true) != 0)
		printf("init: xfs left out: mkfs.xfs is not installed\n");
	else
		mount_image("xfs", "mkfs.xfs", "-f", 320);
	snprintf(fs_mnt[fs_n], sizeof(fs_mnt[0]), "%s/tmpfs", fs_root);
	if (mkdir(fs_mnt[fs_n], 0755) == 0 &&
	    mount("tmpfs", fs_mnt[fs_n], "tmpfs", 0, "size=64m") == 0)
		fs_n++;
	else
		printf("init: tmpfs left out: %s\n", strerror(errno));
}

static void fs_teardown(void)
{
	while (fs_n) {
		const char *dir = fs_mnt[--fs_n];

		if (umount2(dir, 0) < 0 && umount2(dir, MNT_DETACH) < 0)
			printf("init: cannot unmount %s: %s\n", dir,
			       strerror(errno));
	}
	if (*fs_root)
		tu_rmtree(fs_root);
	fs_ok = false;
}

/* Skip a test that needs the mounts. */
#define NEED_FS()							\
	do {								\
		if (!fs_ok) {						\
			printf("%s: skipped, no test file systems\n",	\
			       __func__);				\
			return;						\
		}							\
	} while (0)

#define NEED_ROOT()							\
	do {								\
		if (geteuid() != 0) {					\
			printf("%s: skipped, needs root\n", __func__);	\
			return;						\
		}							\
	} while (0)

/*
 * Write a replay file for test @name into @dir with one sandbox per
 * mountpoint in @mnts and, for each sandbox, the INIT lines of @init with
 * every '@' replaced by its root.  Returns the malloc'd path.
 */
static char *make_replay(const char *dir, const char *name,
			 const char *const *mnts, size_t n,
			 const char *const *init)
{
	char *text = NULL, *path, file[300];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert(f);
	fprintf(f, "#|replay_version=1|name=%s|user=nobody|\n", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "#|sandbox=%s/.ioriot/%s|\n", mnts[i], name);
	fprintf(f, "#INIT\n");
	for (size_t i = 0; i < n; i++) {
		for (const char *const *l = init; *l; l++) {
			for (const char *c = *l; *c; c++) {
				if (*c == '@')
					fprintf(f, "%s/.ioriot/%s", mnts[i], name);
				else
					fputc(*c, f);
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "#OPS\n#END|ops=0|\n");
	ck_assert_int_eq(fclose(f), 0);
	snprintf(file, sizeof(file), "%s.replay", name);
	path = tu_write_str(dir, file, text);
	free(text);
	return path;
}

/* What the progress callback saw. */
struct progress {
	pthread_t caller;
	unsigned calls;
	uint64_t done, total;
	bool backwards, other_thread, total_changed;
};

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;

	if (!pthread_equal(pthread_self(), p->caller))
		p->other_thread = true;
	if (p->calls && done < p->done)
		p->backwards = true;
	if (p->calls && total != p->total)
		p->total_changed = true;
	p->calls++;
	p->done = done;
	p->total = total;
}

static int init(const char *replay, struct init_summary *sum,
		struct progress *p, char *err)
{
	struct init_options opt = {
		.replay_path = replay, .uid = NOBODY, .gid = NOBODY,
		.progress = progress_cb, .progress_ctx = p,
	};

	memset(p, 0, sizeof(*p));
	p->caller = pthread_self();
	err[0] = '\0';
	return init_run(&opt, sum, err, ERRLEN);
}

static char *sandbox_path(const char *mnt, const char *name, const char *rel)
{
	char *p;

	ck_assert(asprintf(&p, "%s/.ioriot/%s%s%s", mnt, name, *rel ? "/" : "",
			   rel) > 0);
	return p;
}

/* Assert that @rel below sandbox @name of @mnt has type @type (S_IFDIR,
 * S_IFREG, 0: absent), and for a file @size bytes, owned by nobody. */
static void expect(const char *mnt, const char *name, const char *rel,
		   mode_t type, off_t size)
{
	char *p = sandbox_path(mnt, name, rel);
	struct stat st;

	if (!type) {
		ck_assert_msg(lstat(p, &st) < 0 && errno == ENOENT,
			      "%s exists", p);
		free(p);
		return;
	}
	ck_assert_msg(lstat(p, &st) == 0, "%s: %s", p, strerror(errno));
	ck_assert_msg((st.st_mode & S_IFMT) == type, "%s: wrong type", p);
	ck_assert_msg(st.st_uid == NOBODY && st.st_gid == NOBODY,
		      "%s owned by %u:%u", p, st.st_uid, st.st_gid);
	if (type == S_IFREG) {
		ck_assert_msg(st.st_size == size, "%s: %lld bytes, not %lld", p,
			      (long long)st.st_size, (long long)size);
		ck_assert_msg((off_t)st.st_blocks * 512 >= size,
			      "%s is sparse", p);
	}
	free(p);
}

/* The names in directory @path, sorted and joined with ','. */
static char *list_dir(const char *path)
{
	struct dirent **v;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int n = scandir(path, &v, NULL, alphasort);

	ck_assert_msg(n >= 0, "%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			fprintf(f, "%s%s", len ? "," : "", v[i]->d_name);
		fflush(f);
		free(v[i]);
	}
	free(v);
	fclose(f);
	return s;
}

static void expect_list(const char *mnt, const char *name, const char *rel,
			const char *want)
{
	char *p = sandbox_path(mnt, name, rel), *got = list_dir(p);

	ck_assert_msg(!strcmp(got, want), "%s holds %s, expected %s", p, got,
		      want);
	free(got);
	free(p);
}

/* Names in <mnt>/.ioriot/.trash that start with "@name.", in order. */
static size_t trash_entries(const char *mnt, const char *name,
			    char out[][256], size_t max)
{
	char *dir, *all, *tok, *save;
	size_t n = 0, nlen = strlen(name);

	ck_assert(asprintf(&dir, "%s/.ioriot/.trash", mnt) > 0);
	all = list_dir(dir);
	for (tok = strtok_r(all, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, name, nlen) && tok[nlen] == '.' && n < max)
			snprintf(out[n++], 256, "%s", tok);
	}
	free(all);
	free(dir);
	return n;
}

static void expect_mode(const char *mnt, const char *name, const char *rel,
			mode_t mode)
{
	char *p = sandbox_path(mnt, name, rel);
	struct stat st;

	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == mode, "%s: mode %o, want %o", p,
		      st.st_mode & 07777, mode);
	free(p);
}

/* @rel is a symlink of the test user to @target in the same sandbox. */
static void expect_link(const char *mnt, const char *name, const char *rel,
			const char *target)
{
	char *p = sandbox_path(mnt, name, rel), *want = sandbox_path(mnt, name,
								    target);
	char got[4096];
	struct stat st;
	ssize_t n;

	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "%s: not a symlink", p);
	ck_assert_uint_eq(st.st_uid, NOBODY);
	n = readlink(p, got, sizeof(got) - 1);
	ck_assert_int_gt(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, want);
	free(want);
	free(p);
}

static const char *const tree_init[] = {
	"d @/a",
	"a 3 @/a name=user.dir",
	"d @/a/b",
	"d @/a/b/c",
	"f 0 @/a/empty mode=0600",
	"f 5242880 @/a/b/big",
	"f 4097 @/top",
	"a 500 @/top name=user.big%20one",
	"a 0 @/top name=user.empty",
	"f 3 @/n1/n2/deep mode=0755",
	"l @/a/ln target=@/a/b/big",
	"x @/gone",
	"x @/a/b/nothere",
	NULL
};

/* @rel has attribute @attr with a value of @size bytes. */
static void expect_xattr(const char *mnt, const char *name, const char *rel,
			 const char *attr, ssize_t size)
{
	char *p = sandbox_path(mnt, name, rel);

	ck_assert_msg(lgetxattr(p, attr, NULL, 0) == size, "%s: %s: %s", p,
		      attr, strerror(errno));
	free(p);
}

static void expect_tree(const char *mnt, const char *name)
{
	struct stat st;
	char *root = sandbox_path(mnt, name, "");

	ck_assert_int_eq(lstat(root, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, NOBODY);
	free(root);
	expect_list(mnt, name, "", "a,n1,top");
	expect_list(mnt, name, "a", "b,empty,ln");
	expect_list(mnt, name, "a/b", "big,c");
	expect_list(mnt, name, "a/b/c", "");
	expect_list(mnt, name, "n1/n2", "deep");
	expect(mnt, name, "a", S_IFDIR, 0);
	expect(mnt, name, "a/b", S_IFDIR, 0);
	expect(mnt, name, "a/b/c", S_IFDIR, 0);
	expect(mnt, name, "a/empty", S_IFREG, 0);
	expect(mnt, name, "a/b/big", S_IFREG, BIG);
	expect(mnt, name, "top", S_IFREG, 4097);
	expect(mnt, name, "n1", S_IFDIR, 0);
	expect(mnt, name, "n1/n2", S_IFDIR, 0);
	expect(mnt, name, "n1/n2/deep", S_IFREG, 3);
	expect(mnt, name, "gone", 0, 0);
	expect_link(mnt, name, "a/ln", "a/b/big");
	/* mode= where the capture saw it; 0644 where not. */
	expect_mode(mnt, name, "n1/n2/deep", 0755);
	expect_mode(mnt, name, "a/empty", 0600);
	expect_mode(mnt, name, "top", 0644);
	expect_xattr(mnt, name, "a", "user.dir", 3);
	expect_xattr(mnt, name, "top", "user.big one", 500);
	expect_xattr(mnt, name, "top", "user.empty", 0);
}

/* The big file holds data: no zero block, and no block equal to the one
 * before it or to the one 1 MiB before it (init writes 1 MiB chunks). */
static void expect_data(const char *mnt, const char *name)
{
	char *p = sandbox_path(mnt, name, "a/b/big"), *data;
	static const char zero[4096];
	size_t len;

	data = tu_read(p, &len);
	ck_assert_msg(data, "%s unreadable", p);
	ck_assert_uint_eq(len, BIG);
	for (size_t off = 0; off < len; off += 4096) {
		ck_assert_msg(memcmp(data + off, zero, 4096) != 0,
			      "%s: zero block at %zu", p, off);
		if (off)
			ck_assert_msg(memcmp(data + off, data + off - 4096,
					     4096), "%s: block at %zu repeats",
				      p, off);
		if (off >= CHUNK)
			ck_assert_msg(memcmp(data + off, data + off - CHUNK,
					     4096), "%s: block at %zu repeats",
				      p, off);
	}
	free(data);
	free(p);
}

/* Make <mnt>/.ioriot/@name as an earlier run would have left it. */
static void make_old_sandbox(const char *mnt, const char *name)
{
	char *p;

	ck_assert(asprintf(&p, "%s/.ioriot", mnt) > 0);
	ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
	free(p);
	p = sandbox_path(mnt, name, "");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
}

static void plant_old_run(const char *mnt, const char *name)
{
	char *p;

	make_old_sandbox(mnt, name);
	p = sandbox_path(mnt, name, "gone");
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	p = sandbox_path(mnt, name, "");
	free(tu_write_str(p, "old.txt", "old"));
	free(p);
}

START_TEST(test_tree_and_trash)
{
	NEED_FS();
	const char *mnts[MAXFS];
	struct init_summary sum;
	struct progress prog;
	char err[ERRLEN], trash[4][256];
	char *replay;
	uint64_t per = BIG + 4097 + 3;

	for (size_t i = 0; i < fs_n; i++) {
		mnts[i] = fs_mnt[i];
		plant_old_run(mnts[i], "tree");
	}
	replay = make_replay(fs_root, "tree", mnts, fs_n, tree_init);

	for (int round = 1; round <= 2; round++) {
		int rc = init(replay, &sum, &prog, err);

		ck_assert_msg(rc == 0, "round %d: %d %s", round, rc, err);
		ck_assert_uint_eq(sum.sandboxes, fs_n);
		ck_assert_uint_eq(sum.dirs, 3 * fs_n);
		ck_assert_uint_eq(sum.files, 4 * fs_n);
		ck_assert_uint_eq(sum.absent, 2 * fs_n);
		ck_assert_uint_eq(sum.xattrs, 3 * fs_n);
		ck_assert_uint_eq(sum.bytes, per * fs_n);
		ck_assert_uint_gt(sum.duration_ns, 0);
		ck_assert_uint_ge(prog.calls, 2);
		ck_assert_uint_eq(prog.total, per * fs_n);
		ck_assert_uint_eq(prog.done, prog.total);
		ck_assert(!prog.backwards && !prog.total_changed);
		ck_assert_msg(!prog.other_thread,
			      "progress called from another thread");
		for (size_t i = 0; i < fs_n; i++) {
			expect_tree(mnts[i], "tree");
			expect_data(mnts[i], "tree");
			ck_assert_uint_eq(trash_entries(mnts[i], "tree", trash,
							4), (size_t)round);
		}
	}
	/* The first run's old data and the first run's tree, apart. */
	for (size_t i = 0; i < fs_n; i++) {
		char *p, *old;

		ck_assert_uint_eq(trash_entries(mnts[i], "tree", trash, 4), 2);
		ck_assert_str_ne(trash[0], trash[1]);
		for (int k = 0; k < 2; k++) {
			char *t, *list;

			ck_assert(asprintf(&t, "%s/.ioriot/.trash/%s", mnts[i],
					   trash[k]) > 0);
			list = list_dir(t);
			if (!strcmp(list, "gone,old.txt")) {
				p = tu_join(t, "old.txt");
				old = tu_read(p, NULL);
				ck_assert_str_eq(old, "old");
				free(old);
				free(p);
			} else {
				struct stat st;

				ck_assert_str_eq(list, "a,n1,top");
				p = tu_join(t, "a/b/big");
				ck_assert_int_eq(stat(p, &st), 0);
				ck_assert_int_eq(st.st_size, BIG);
				free(p);
			}
			free(list);
			free(t);
		}
	}
	unlink(replay);
	free(replay);
}
END_TEST

/* Later entries win: what an earlier entry made, an 'x' removes. */
START_TEST(test_absent_removes)
{
	NEED_FS();
	static const char *const lines[] = {
		"f 10 @/p", "x @/p",
		"d @/q", "f 1 @/q/r", "x @/q/r", "x @/q",
		"d @/c", "x @/c", "f 1 @/c/z",
		"x @/none/deeper",
		NULL
	};
	const char *mnt = fs_mnt[0];
	struct init_summary sum;
	struct progress prog;
	char err[ERRLEN], *replay;

	replay = make_replay(fs_root, "absent", &mnt, 1, lines);
	ck_assert_msg(init(replay, &sum, &prog, err) == 0, "%s", err);
	expect_list(mnt, "absent", "", "c");
	expect_list(mnt, "absent", "c", "z");
	expect(mnt, "absent", "c/z", S_IFREG, 1);
	ck_assert_uint_eq(sum.absent, 5);
	ck_assert_uint_eq(sum.files, 3);
	ck_assert_uint_eq(sum.dirs, 2);
	ck_assert_uint_eq(sum.bytes, 12);
	ck_assert_uint_eq(prog.done, 12);
	unlink(replay);
	free(replay);
}
END_TEST

/* A symlink left in the old sandbox goes to the trash, not followed. */
START_TEST(test_symlink_in_old_sandbox)
{
	NEED_FS();
	static const char *const lines[] = {
		"d @/a", "f 100 @/a/sentinel", "f 7 @/link", NULL
	};
	const char *mnt = fs_mnt[0];
	struct init_summary sum;
	struct progress prog;
	char err[ERRLEN], trash[2][256], *outside, *sentinel, *p, *s, *replay;
	struct stat st;

	ck_assert(asprintf(&outside, "%s/outside", fs_root) > 0);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	sentinel = tu_write_str(outside, "sentinel", "keep");
	make_old_sandbox(mnt, "hostile");
	p = sandbox_path(mnt, "hostile", "a");
	ck_assert_int_eq(symlink(outside, p), 0);
	free(p);
	p = sandbox_path(mnt, "hostile", "link");
	ck_assert_int_eq(symlink(sentinel, p), 0);
	free(p);

	replay = make_replay(fs_root, "hostile", &mnt, 1, lines);
	ck_assert_msg(init(replay, &sum, &prog, err) == 0, "%s", err);
	expect(mnt, "hostile", "a", S_IFDIR, 0);
	expect(mnt, "hostile", "a/sentinel", S_IFREG, 100);
	expect(mnt, "hostile", "link", S_IFREG, 7);
	s = tu_read(sentinel, NULL);
	ck_assert_str_eq(s, "keep");
	free(s);
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_uint_eq(st.st_uid, 0);
	ck_assert_uint_eq(trash_entries(mnt, "hostile", trash, 2), 1);
	ck_assert(asprintf(&p, "%s/.ioriot/.trash/%s/a", mnt, trash[0]) > 0);
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	free(p);
	s = list_dir(outside);
	ck_assert_str_eq(s, "sentinel");
	free(s);
	unlink(replay);
	free(replay);
	free(sentinel);
	free(outside);
}
END_TEST

/* A sandbox that is itself a mountpoint is refused and left alone. */
START_TEST(test_sandbox_is_mount)
{
	NEED_FS();
	static const char *const lines[] = { "f 1 @/x", NULL };
	const char *mnt = fs_mnt[0];
	struct init_summary sum;
	struct progress prog;
	char err[ERRLEN], *sb, *replay, *keep, *content, *list;
	int rc, umounted;

	make_old_sandbox(mnt, "mounted");
	sb = sandbox_path(mnt, "mounted", "");
	ck_assert_int_eq(mount("tmpfs", sb, "tmpfs", 0, "size=1m"), 0);
	keep = tu_write_str(sb, "keep", "k");
	replay = make_replay(fs_root, "mounted", &mnt, 1, lines);
	rc = init(replay, &sum, &prog, err);
	list = list_dir(sb);
	content = tu_read(keep, NULL);
	umounted = umount2(sb, 0);
	ck_assert_int_eq(umounted, 0);
	ck_assert_msg(rc < 0, "init on a mounted sandbox succeeded");
	ck_assert_msg(strstr(err, sb), "%s", err);
	ck_assert_str_eq(list, "keep");
	ck_assert_str_eq(content, "k");
	free(content);
	free(list);
	free(keep);
	unlink(replay);
	free(replay);
	free(sb);
}
END_TEST

/* One failing sandbox makes init fail with its path; the others stop. */
START_TEST(test_error_names_path)
{
	NEED_FS();
	static const char *const lines[] = {
		"d @/q", "f 1 @/q/r", "x @/q", NULL
	};
	const char *mnt = fs_mnt[0];
	struct init_summary sum;
	struct progress prog;
	char err[ERRLEN], *replay, *want;
	int rc;

	replay = make_replay(fs_root, "notempty", &mnt, 1, lines);
	rc = init(replay, &sum, &prog, err);
	ck_assert_int_eq(rc, -ENOTEMPTY);
	ck_assert(asprintf(&want, "%s:6: %s/.ioriot/notempty/q: ", replay,
			   mnt) > 0);
	ck_assert_msg(strstr(err, want) && strstr(err, "not empty"), "%s", err);
	free(want);
	unlink(replay);
	free(replay);
}
END_TEST

/*
 * Errors on a plain directory as the "mountpoint" (sandbox_open needs no
 * mount): each replay text gives -rc and a message with the text in want
 * (FILE stands for the replay file, ROOT for the sandbox root).
 */
static const struct {
	const char *init;		/* '@' is the sandbox root */
	int rc;
	const char *want;
	bool keeps_old;		/* the old sandbox is not moved */
} bad[] = {
	{ "f 1 @/a\nf 1 @/a/b\n", -ENOTDIR,
	  "FILE:6: ROOT/a/b: cannot create parent directory", false },
	{ "d @/a\nf 1 @/a\n", -EISDIR, "FILE:6: ROOT/a: cannot create file",
	  false },
	{ "f 1 @\n", -EISDIR, "FILE:5: ROOT: cannot create file", false },
	{ "x @\n", -EBUSY, "FILE:5: ROOT: cannot remove the sandbox root",
	  false },
	{ "f 1 @/a%00b\n", -EPROTO, "FILE:5: bad %XX escape in INIT path",
	  true },
	{ "d /elsewhere\n", -EPROTO, "FILE:5: INIT path is not", true },
	{ "f x @/a\n", -EPROTO, "FILE:5: malformed size", true },
	{ "f 9223372036854775807 @/a\nf 9223372036854775807 @/b\nf 2 @/c\n",
	  -EFBIG, "FILE:7: INIT sizes add up to more than 2^64", true },
};

/* A tmpfs mounted at @dir/m (sandboxes live on mountpoints); malloc'd. */
static char *scratch_mount(const char *dir)
{
	char *real = realpath(dir, NULL), *m;

	ck_assert(real);
	m = tu_join(real, "m");
	free(real);
	ck_assert(tu_mount_tmpfs(m));
	return m;
}

/* Replace FILE, and ROOT or '@', in @tmpl. */
static char *expand(const char *tmpl, const char *file, const char *root)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	for (const char *c = tmpl; *c; c++) {
		if (!strncmp(c, "FILE", 4)) {
			fputs(file, f);
			c += 3;
		} else if (!strncmp(c, "ROOT", 4)) {
			fputs(root, f);
			c += 3;
		} else if (*c == '@') {
			fputs(root, f);
		} else {
			fputc(*c, f);
		}
	}
	fclose(f);
	return s;
}

START_TEST(test_bad_init)
{
	NEED_ROOT();
	char *dir = tu_scratch(), *real = scratch_mount(dir), *root, *replay;
	char *text, *init_text, *want, *old, err[ERRLEN];
	struct init_summary sum;
	struct progress prog;
	int rc;

	ck_assert(real);
	ck_assert(asprintf(&root, "%s/.ioriot/bad", real) > 0);
	init_text = expand(bad[_i].init, "", root);
	ck_assert(asprintf(&text, "#|replay_version=1|name=bad|user=nobody|\n"
			   "#|sandbox=%s|\n# a comment\n#INIT\n%s#OPS\n"
			   "#END|ops=0|\n", root, init_text) > 0);
	free(init_text);
	replay = tu_write_str(real, "bad.replay", text);
	/* An old sandbox with a marker file. */
	ck_assert(asprintf(&old, "%s/.ioriot", real) > 0);
	ck_assert_int_eq(mkdir(old, 0755), 0);
	ck_assert_int_eq(mkdir(root, 0755), 0);
	free(tu_write_str(root, "marker", "m"));

	rc = init(replay, &sum, &prog, err);
	want = expand(bad[_i].want, replay, root);
	ck_assert_msg(rc == bad[_i].rc, "row %d: rc %d (%s)", _i, rc, err);
	ck_assert_msg(strstr(err, want), "row %d: '%s' lacks '%s'", _i, err,
		      want);
	free(want);
	free(old);
	old = tu_join(root, "marker");
	ck_assert_int_eq(access(old, F_OK) == 0, bad[_i].keeps_old);
	free(old);
	free(text);
	free(replay);
	free(root);
	free(real);
	free(dir);
}
END_TEST

/* A missing or damaged file names itself and leaves the sandbox alone. */
START_TEST(test_bad_file)
{
	NEED_ROOT();
	char *dir = tu_scratch(), *real = scratch_mount(dir), *missing, *trunc;
	char *text, *marker, err[ERRLEN];
	struct init_summary sum;
	struct progress prog;

	ck_assert(real);
	missing = tu_join(real, "missing.replay");
	ck_assert_int_eq(init(missing, &sum, &prog, err), -ENOENT);
	ck_assert_msg(strstr(err, missing), "%s", err);
	ck_assert_uint_eq(prog.calls, 0);

	ck_assert(asprintf(&text, "#|replay_version=1|name=t|user=nobody|\n"
			   "#|sandbox=%s/.ioriot/t|\n#INIT\nd %s/.ioriot/t/a\n",
			   real, real) > 0);
	trunc = tu_write_str(real, "trunc.replay", text);
	ck_assert(asprintf(&marker, "%s/.ioriot", real) > 0);
	ck_assert_int_eq(mkdir(marker, 0755), 0);
	free(marker);
	ck_assert(asprintf(&marker, "%s/.ioriot/t", real) > 0);
	ck_assert_int_eq(mkdir(marker, 0755), 0);
	free(marker);
	marker = tu_write_str(real, ".ioriot/t/keep", "k");
	ck_assert_int_eq(init(trunc, &sum, &prog, err), -EPROTO);
	ck_assert_msg(strstr(err, trunc) && strstr(err, "truncated"), "%s",
		      err);
	ck_assert_int_eq(access(marker, F_OK), 0);
	free(marker);
	free(trunc);
	free(text);
	free(missing);
	free(real);
	free(dir);
}
END_TEST

/* A symlink at <mnt>/.ioriot is refused; its target is not touched.  One
 * at .ioriot/NAME is moved to the trash as a link. */
START_TEST(test_symlinked_sandbox)
{
	NEED_ROOT();
	char *dir = tu_scratch(), *real = realpath(dir, NULL), *target, *link;
	char *text, *replay, *s, err[ERRLEN];
	struct init_summary sum;
	struct progress prog;
	struct stat st;

	ck_assert(real);
	target = tu_join(real, "target");
	ck_assert_int_eq(mkdir(target, 0700), 0);
	free(tu_write_str(target, "sentinel", "keep"));
	ck_assert(asprintf(&text, "#|replay_version=1|name=t|user=nobody|\n"
			   "#|sandbox=%s/m/.ioriot/t|\n#INIT\nd %s/m/.ioriot/t/a\n"
			   "f 5 %s/m/.ioriot/t/sentinel\n#OPS\n#END|ops=0|\n",
			   real, real, real) > 0);
	replay = tu_write_str(real, "t.replay", text);
	free(text);
	link = tu_join(real, "m");
	ck_assert(tu_mount_tmpfs(link));
	free(link);

	/* <mnt>/.ioriot -> target */
	link = tu_join(real, "m/.ioriot");
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(init(replay, &sum, &prog, err), -ELOOP);
	ck_assert_msg(strstr(err, link), "%s", err);
	s = list_dir(target);
	ck_assert_str_eq(s, "sentinel");
	free(s);
	ck_assert_int_eq(unlink(link), 0);

	/* <mnt>/.ioriot/t -> target */
	ck_assert_int_eq(mkdir(link, 0755), 0);
	free(link);
	link = tu_join(real, "m/.ioriot/t");
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_msg(init(replay, &sum, &prog, err) == 0, "%s", err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_uid, NOBODY);
	s = list_dir(link);
	ck_assert_str_eq(s, "a,sentinel");
	free(s);
	s = list_dir(target);
	ck_assert_str_eq(s, "sentinel");
	free(s);
	free(link);
	link = tu_join(target, "sentinel");
	s = tu_read(link, NULL);
	ck_assert_str_eq(s, "keep");
	free(s);
	ck_assert_int_eq(stat(target, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	ck_assert_uint_eq(st.st_uid, 0);
	free(link);
	free(replay);
	free(target);
	free(real);
	free(dir);
}
END_TEST

/* No sandboxes: nothing to do, progress 0 of 0; a sandbox listed twice is
 * one sandbox. */
START_TEST(test_empty_and_duplicate)
{
	NEED_ROOT();
	char *dir = tu_scratch(), *real = scratch_mount(dir), *text, *replay;
	char err[ERRLEN];
	struct init_summary sum;
	struct progress prog;

	ck_assert(real);
	replay = tu_write_str(real, "e.replay",
			      "#|replay_version=1|name=e|user=nobody|\n"
			      "#INIT\n#OPS\n#END|ops=0|\n");
	ck_assert_msg(init(replay, &sum, &prog, err) == 0, "%s", err);
	ck_assert_uint_eq(sum.sandboxes, 0);
	ck_assert_uint_eq(sum.dirs + sum.files + sum.absent + sum.bytes, 0);
	ck_assert_uint_ge(prog.calls, 1);
	ck_assert_uint_eq(prog.done, 0);
	ck_assert_uint_eq(prog.total, 0);
	free(replay);

	ck_assert(asprintf(&text, "#|replay_version=1|name=d|user=nobody|\n"
			   "#|sandbox=%s/.ioriot/d|\n#|sandbox=%s/.ioriot/d|\n"
			   "#INIT\nf 3 %s/.ioriot/d/f\n#OPS\n#END|ops=0|\n",
			   real, real, real) > 0);
	replay = tu_write_str(real, "d.replay", text);
	ck_assert_msg(init(replay, &sum, &prog, err) == 0, "%s", err);
	ck_assert_uint_eq(sum.sandboxes, 1);
	ck_assert_uint_eq(sum.files, 1);
	ck_assert_uint_eq(sum.bytes, 3);
	expect(real, "d", "f", S_IFREG, 3);
	free(replay);
	free(text);
	free(real);
	free(dir);
}
END_TEST

/* Runs after the "fs" test case's teardown: nothing may stay mounted. */
START_TEST(test_no_leftover_mounts)
{
	char *mounts = tu_read("/proc/self/mounts", NULL);

	ck_assert(mounts);
	if (*fs_root)
		ck_assert_msg(!strstr(mounts, fs_root), "%s still mounted",
			      fs_root);
	free(mounts);
}
END_TEST

Suite *init_suite(void)
{
	Suite *s = suite_create("init");
	TCase *tc = tcase_create("fs");

	tcase_add_unchecked_fixture(tc, fs_setup, fs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_tree_and_trash);
	tcase_add_test(tc, test_absent_removes);
	tcase_add_test(tc, test_symlink_in_old_sandbox);
	tcase_add_test(tc, test_error_names_path);
	tcase_add_test(tc, test_sandbox_is_mount);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, test_bad_init, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_bad_file);
	tcase_add_test(tc, test_symlinked_sandbox);
	tcase_add_test(tc, test_empty_and_duplicate);
	suite_add_tcase(s, tc);

	tc = tcase_create("cleanup");
	tcase_add_test(tc, test_no_leftover_mounts);
	suite_add_tcase(s, tc);
	return s;
}
