/*
 * End-to-end replays of the generator's golden replay files
 * (tests/data/generate/NAME.replay) on loop-mounted ext4 and xfs images:
 * each file is moved onto the image (its sandbox /.ioriot/test becomes
 * MNT/.ioriot/test), initialised and replayed as fast as possible; then
 * every operation's result must match the captured one except for the
 * differences listed here, and the sandbox must hold exactly the tree in
 * tests/data/replay/NAME.tree ("d PATH", "f PATH SIZE", "l PATH TARGET",
 * sorted bytewise, MNT taken out of symlink targets).  "order" holds
 * three timelines whose results depend on the recorded dependencies.
 * "initsize" is left out: it needs a 5 GB file.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioriot/init.h"
#include "ioriot/replay.h"
#include "testutil.h"

static const struct {
	const char *name;
	const char *differ;	/* "SYSCALL=N ..." in table order */
} golden[] = {
	{ "dirfds", "" },
	{ "dupexec", "" },
	{ "eexist", "" },
	/* The hand-written capture's getdents64 returned 1024 bytes, not
	 * the size of the entries the directory has. */
	{ "fdops", "getdents64=1" },
	{ "fork", "" },
	{ "openfd", "" },
	{ "order", "" },
	/* faccessat2(X_OK) succeeded on the capture host; init creates the
	 * file without execute bits. */
	{ "pathops", "faccessat2=1" },
	{ "rename", "" },
	/* The capture opened a file through a symlink to outside the
	 * sandbox: in the replay's jail it leads nowhere, so the write and
	 * close on that fd fail too. */
	{ "symlinks", "openat=1 close=1 write=1" },
	/* Links from before the capture come back, their readlinks work
	 * (/data/self, whose target (/proc) maps into no sandbox, as a link
	 * of the captured length to nothing); but not /data/lib.so, opened
	 * through: init makes a file of it, and readlink of a file fails
	 * with EINVAL. */
	{ "prelinks", "readlink=1" },
	/* The capture's faccessat2(X_OK) on run.sh works: INIT mode 0755. */
	{ "modes", "" },
	/* io_uring: a fixed file, an SQPOLL ring; the requests not written
	 * (a timeout) are not in the enter's batch. */
	{ "uring", "" },
	/* bind and mknod make their nodes (bind as mknodat), an existing
	 * one gives bind's EADDRINUSE, mknodat's EEXIST. */
	{ "umask", "" },
	/* Pages read and written through shared and private mappings. */
	{ "mmapio", "" },
	/* Two processes' mappings at one captured address, unmapped by an
	 * exit and an exec: each process's pages through its own. */
	{ "mapexit", "" },
};
#define NGOLDEN (sizeof(golden) / sizeof(golden[0]))

static const struct {
	const char *name, *mkfs, *force;
	unsigned mb;
} images[] = {
	{ "ext4", "mkfs.ext4", "-F", 64 },
	/* xfsprogs refuses file systems below 300 MB; the image is sparse. */
	{ "xfs", "mkfs.xfs", "-f", 320 },
};
#define NIMAGES (sizeof(images) / sizeof(images[0]))

static char *fs_root;
static char *fs_mnt[NIMAGES];	/* NULL: not mounted */

static void fs_setup(void)
{
	if (geteuid() != 0) {
		printf("replay_golden: skipped, loop mounts need root\n");
		return;
	}
	fs_root = tu_mkdtemp();
	for (size_t i = 0; i < NIMAGES; i++) {
		char *dir = tu_join(fs_root, images[i].name);

		if (tu_mount_image(dir, images[i].mkfs, images[i].force,
				   images[i].mb))
			fs_mnt[i] = dir;
		else
			free(dir);
	}
}

static void fs_teardown(void)
{
	for (size_t i = 0; i < NIMAGES; i++) {
		if (fs_mnt[i] && umount2(fs_mnt[i], 0) < 0 &&
		    umount2(fs_mnt[i], MNT_DETACH) < 0)
			printf("replay_golden: cannot unmount %s: %s\n",
			       fs_mnt[i], strerror(errno));
		free(fs_mnt[i]);
		fs_mnt[i] = NULL;
	}
	if (fs_root)
		tu_rmtree(fs_root);
	free(fs_root);
	fs_root = NULL;
}

/* @text with every @from replaced by @to (malloc'd). */
static char *replace_all(const char *text, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = text; (p = strstr(p, from)); p += flen)
		n++;
	out = malloc(strlen(text) + n * tlen + 1);
	ck_assert_ptr_nonnull(out);
	for (o = out, p = text; *p;) {
		if (!strncmp(p, from, flen)) {
			memcpy(o, to, tlen);
			o += tlen;
			p += flen;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The tree listing being built by list_one(). */
static char **tree_lines;
static size_t tree_n, tree_cap;
static size_t tree_skip;		/* length of "SANDBOX/" */
static const char *tree_mnt;

static int list_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	char *line = NULL, target[PATH_MAX];
	const char *rel = path + tree_skip;
	ssize_t len;
	int ret = 0;

	(void)flag;
	if (ftw->level == 0)
		return 0;
	if (S_ISDIR(st->st_mode)) {
		ret = asprintf(&line, "d %s", rel);
	} else if (S_ISREG(st->st_mode)) {
		ret = asprintf(&line, "f %s %lld", rel, (long long)st->st_size);
	} else if (S_ISLNK(st->st_mode)) {
		len = readlink(path, target, sizeof(target) - 1);
		ck_assert_int_ge(len, 0);
		target[len] = '\0';
		char *t = replace_all(target, tree_mnt, "");
		ret = asprintf(&line, "l %s %s", rel, t);
		free(t);
	} else {
		ret = asprintf(&line, "? %s", rel);
	}
	ck_assert_int_gt(ret, 0);
	if (tree_n == tree_cap) {
		tree_cap = tree_cap ? tree_cap * 2 : 16;
		tree_lines = tu_realloc(tree_lines,
					tree_cap * sizeof(*tree_lines));
	}
	tree_lines[tree_n++] = line;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The listing of @sandbox on @mnt, one line per entry. */
static char *list_tree(const char *sandbox, const char *mnt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tree_n = 0;
	tree_skip = strlen(sandbox) + 1;
	tree_mnt = mnt;
	ck_assert_int_eq(nftw(sandbox, list_one, 16, FTW_PHYS), 0);
	qsort(tree_lines, tree_n, sizeof(*tree_lines), cmp_str);
	for (size_t i = 0; i < tree_n; i++) {
		fprintf(f, "%s\n", tree_lines[i]);
		free(tree_lines[i]);
	}
	free(tree_lines);
	tree_lines = NULL;
	tree_cap = 0;
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

/* "SYSCALL=N ..." for every syscall whose results differed. */
static char *differ_text(const struct replay_summary *sum)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	const char *sep = "";

	for (int s = 0; s < SYS_COUNT; s++) {
		if (!sum->sys[s].differ)
			continue;
		fprintf(f, "%s%s=%llu", sep, sys_info(s)->replay_name,
			(unsigned long long)sum->sys[s].differ);
		sep = " ";
	}
	ck_assert_int_eq(fclose(f), 0);
	return text;
}

START_TEST(test_golden)
{
	size_t g = (size_t)_i / NIMAGES, img = (size_t)_i % NIMAGES;
	const char *mnt = fs_mnt[img];
	char *src, *orig, *moved, *sandbox, *path, *tmp, *tree, *want, *differ;
	char err[1024], from[64];
	struct init_summary isum;
	struct replay_summary *sum;

	if (!mnt) {
		printf("replay_golden: %s on %s skipped: no %s image mounted\n",
		       golden[g].name, images[img].name, images[img].name);
		return;
	}
	ck_assert(asprintf(&src, "%s/generate/%s.replay", tu_datadir(),
			   golden[g].name) > 0);
	orig = tu_read(src, NULL);
	ck_assert_ptr_nonnull(orig);
	ck_assert(asprintf(&sandbox, "%s/.ioriot/test", mnt) > 0);
	tmp = replace_all(orig, "/.ioriot/test", sandbox);
	snprintf(from, sizeof(from), "|mount=/|");
	ck_assert(asprintf(&path, "|mount=%s|", mnt) > 0);
	moved = replace_all(tmp, from, path);
	free(tmp);
	free(path);
	ck_assert(asprintf(&tmp, "%s.replay", golden[g].name) > 0);
	path = tu_write_str(fs_root, tmp, moved);
	free(tmp);

	struct init_options io = { .replay_path = path };
	ck_assert_msg(init_run(&io, &isum, err, sizeof(err)) == 0, "init: %s",
		      err);
	struct replay_options ro = { .replay_path = path };
	sum = malloc(sizeof(*sum));
	ck_assert_ptr_nonnull(sum);
	ck_assert_msg(replay_run(&ro, sum, err, sizeof(err)) == 0,
		      "replay: %s", err);
	ck_assert_ptr_nonnull(strstr(moved, "#END|ops="));
	ck_assert_uint_eq(sum->ops,
			  strtoull(strstr(moved, "#END|ops=") + 9, NULL, 10));

	differ = differ_text(sum);
	ck_assert_msg(!strcmp(differ, golden[g].differ),
		      "%s on %s: results differ: '%s', expected '%s'",
		      golden[g].name, images[img].name, differ,
		      golden[g].differ);
	tree = list_tree(sandbox, mnt);
	ck_assert(asprintf(&tmp, "%s/replay/%s.tree", tu_datadir(),
			   golden[g].name) > 0);
	want = tu_read(tmp, NULL);
	ck_assert_ptr_nonnull(want);
	ck_assert_msg(!strcmp(tree, want), "%s on %s: tree\n%s\nexpected\n%s",
		      golden[g].name, images[img].name, tree, want);
	free(want);
	free(tmp);
	free(tree);
	free(differ);
	free(sum);
	free(path);
	free(moved);
	free(sandbox);
	free(orig);
	free(src);
}
END_TEST

Suite *replay_golden_suite(void)
{
	Suite *s = suite_create("replay_golden");
	TCase *tc = tcase_create("images");

	tcase_add_unchecked_fixture(tc, fs_setup, fs_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_golden, 0, (int)(NGOLDEN * NIMAGES));
	suite_add_tcase(s, tc);
	return s;
}
