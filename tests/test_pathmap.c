/*
 * Tests of src/generate/pathmap.c: lexical path normalisation, test name
 * validation, and the rewrite of captured paths into per-mountpoint
 * sandboxes, with a property test that no path leaves its sandbox.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/mounts.h"
#include "ioriot/pathmap.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- path_normalize ----------------------------------------------------- */

static const struct {
	const char *path;
	const char *cwd;
	const char *want;	/* NULL: expect @err */
	long err;
} norm_cases[] = {
	{ "/", NULL, "/", 0 },
	{ "//", NULL, "/", 0 },
	{ "//a//b", NULL, "/a/b", 0 },
	{ "/a/./b/.", NULL, "/a/b", 0 },
	{ "/./.", NULL, "/", 0 },
	{ "/a/b/../c", NULL, "/a/c", 0 },
	{ "/a/b/../../c", NULL, "/c", 0 },
	{ "/a/..", NULL, "/", 0 },
	{ "/..", NULL, "/", 0 },
	{ "/../..", NULL, "/", 0 },
	{ "/../../etc", NULL, "/etc", 0 },
	{ "/a/../../b/../../c", NULL, "/c", 0 },
	{ "/a/b/", NULL, "/a/b", 0 },
	{ "/a/b//", NULL, "/a/b", 0 },
	{ "/a/b/./", NULL, "/a/b", 0 },
	{ "/a/...", NULL, "/a/...", 0 },
	{ "/.hidden/..x/x..", NULL, "/.hidden/..x/x..", 0 },
	{ "/a b/\tc", NULL, "/a b/\tc", 0 },
	{ "x/y", "/home/u", "/home/u/x/y", 0 },
	{ "./x", "/home/u", "/home/u/x", 0 },
	{ "../x", "/home/u", "/home/x", 0 },
	{ "../../../../x", "/home/u", "/x", 0 },
	{ "..", "/home/u", "/home", 0 },
	{ ".", "/home/u", "/home/u", 0 },
	{ "", "/home/u", "/home/u", 0 },
	{ "x/", "/", "/x", 0 },
	{ "x", "/", "/x", 0 },
	{ "..", "/", "/", 0 },
	{ "/abs", "/home/u", "/abs", 0 },
	{ "x", NULL, NULL, -EINVAL },
	{ "", NULL, NULL, -EINVAL },
	{ "./x", NULL, NULL, -EINVAL },
};

START_TEST(normalize_table)
{
	char out[PATHMAP_MAX];
	const char *path = norm_cases[_i].path;
	long n = path_normalize(path, strlen(path), norm_cases[_i].cwd, out);

	if (!norm_cases[_i].want) {
		ck_assert_msg(n == norm_cases[_i].err,
			      "\"%s\" (cwd %s): %ld, want %ld", path,
			      norm_cases[_i].cwd ? norm_cases[_i].cwd : "none",
			      n, norm_cases[_i].err);
		return;
	}
	ck_assert_msg(n >= 0, "\"%s\": error %ld", path, n);
	ck_assert_msg(strcmp(out, norm_cases[_i].want) == 0,
		      "\"%s\" (cwd %s) -> \"%s\", want \"%s\"", path,
		      norm_cases[_i].cwd ? norm_cases[_i].cwd : "none", out,
		      norm_cases[_i].want);
	ck_assert_int_eq(n, (long)strlen(norm_cases[_i].want));
}
END_TEST

/* Only @len bytes of the path count, not up to its NUL. */
START_TEST(normalize_uses_len)
{
	char out[PATHMAP_MAX];

	ck_assert_int_eq(path_normalize("/abc/def", 4, NULL, out), 4);
	ck_assert_str_eq(out, "/abc");
	ck_assert_int_eq(path_normalize("/a/../b/c", 6, NULL, out), 1);
	ck_assert_str_eq(out, "/");
	ck_assert_int_eq(path_normalize("x/yz", 3, "/w", out), 6);
	ck_assert_str_eq(out, "/w/x/y");
}
END_TEST

START_TEST(normalize_length_limits)
{
	char *path = malloc(3 * PATHMAP_MAX);
	char *out = malloc(PATHMAP_MAX + 16);

	ck_assert(path && out);
	/* The longest result that fits: PATHMAP_MAX - 1 bytes and a NUL. */
	path[0] = '/';
	memset(path + 1, 'a', PATHMAP_MAX - 2);
	memset(out, 'Z', PATHMAP_MAX + 16);
	ck_assert_int_eq(path_normalize(path, PATHMAP_MAX - 1, NULL, out),
			 PATHMAP_MAX - 1);
	ck_assert_int_eq(out[PATHMAP_MAX - 1], '\0');
	ck_assert_int_eq(out[PATHMAP_MAX], 'Z');

	/* One byte more does not. */
	path[PATHMAP_MAX - 1] = 'a';
	ck_assert_int_eq(path_normalize(path, PATHMAP_MAX, NULL, out),
			 -ENAMETOOLONG);
	ck_assert_int_eq(out[PATHMAP_MAX], 'Z');

	/* Long relative path under a cwd. */
	memset(path, 'b', PATHMAP_MAX - 8);
	ck_assert_int_eq(path_normalize(path, PATHMAP_MAX - 8, "/home/u", out),
			 -ENAMETOOLONG);

	/* A cwd that is itself too long. */
	path[0] = '/';
	memset(path + 1, 'c', PATHMAP_MAX);
	path[PATHMAP_MAX + 1] = '\0';
	ck_assert_int_eq(path_normalize("x", 1, path, out), -ENAMETOOLONG);

	/* A long input whose result is short is fine. */
	size_t len = 0;
	while (len + 6 < 3 * PATHMAP_MAX - 8) {
		memcpy(path + len, "/a/../", 6);
		len += 6;
	}
	memcpy(path + len, "b", 1);
	len++;
	ck_assert_int_eq(path_normalize(path, len, NULL, out), 2);
	ck_assert_str_eq(out, "/b");
	free(path);
	free(out);
}
END_TEST

/* path_is_normal() agrees with its definition: normalising changes
 * nothing.  Random paths over an alphabet that makes "//", "." and ".."
 * components likely, and the length limits. */
START_TEST(is_normal_matches_normalize)
{
	static const char alphabet[] = "/./a.b/";
	char path[64], *out = malloc(PATHMAP_MAX), *longp = malloc(PATHMAP_MAX);
	unsigned seed = 7;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(longp);
	for (int n = 0; n < 200000; n++) {
		size_t len = (size_t)(rand_r(&seed) % 12);
		long m;

		for (size_t i = 0; i < len; i++)
			path[i] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		m = path_normalize(path, len, NULL, out);
		ck_assert_msg(path_is_normal(path, len) ==
			      (len > 0 && path[0] == '/' && m == (long)len &&
			       !memcmp(out, path, len)),
			      "\"%.*s\"", (int)len, path);
	}
	memset(longp, 'a', PATHMAP_MAX);
	longp[0] = '/';
	ck_assert(path_is_normal(longp, PATHMAP_MAX - 1));
	ck_assert(!path_is_normal(longp, PATHMAP_MAX));
	free(longp);
	free(out);
}
END_TEST

/* ---- test_name_valid ------------------------------------------------------ */

START_TEST(test_names)
{
	static const struct {
		const char *name;
		bool valid;
	} cases[] = {
		{ "", false },
		{ ".", false },
		{ "..", false },
		{ "a/b", false },
		{ "/", false },
		{ "ok", true },
		{ "...", false },
		{ ".trash", false },
		{ "a.b", true },
		{ ".x", false },	/* a leading dot is reserved */
		{ "a-b_c.1", true },
		{ "with space", false },
		{ "tab\there", false },
		{ "x\x01", false },
		{ "\xc3\xa9t\xc3\xa9", true },
		{ "del\x7f", false },
		{ "csi\xc2\x9b" "2J", false },	/* C1 control */
		{ "rlo\xe2\x80\xae" "x", false },	/* bidi override */
		{ "latin\xe9", false },		/* no UTF-8 */
	};
	char name[300];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(test_name_valid(cases[i].name) == cases[i].valid,
			      "\"%s\": want %s", cases[i].name,
			      cases[i].valid ? "valid" : "invalid");
	memset(name, 'n', 255);
	name[255] = '\0';
	ck_assert(test_name_valid(name));
	name[255] = 'n';
	name[256] = '\0';
	ck_assert(!test_name_valid(name));
}
END_TEST

/* ---- pathmap_rewrite ------------------------------------------------------ */

static struct mounttab *make_mounts(bool with_root)
{
	static const struct {
		const char *dir, *fstype;
	} mounts[] = {
		{ "/", "ext4" },
		{ "/mnt/1", "ext4" },
		{ "/mnt/10", "xfs" },
		{ "/proc", "proc" },
		{ "/sys", "sysfs" },
	};
	struct mounttab *mt = mounttab_new();

	ck_assert(mt);
	for (size_t i = with_root ? 0 : 1; i < ARRAY_SIZE(mounts); i++)
		ck_assert_int_eq(mounttab_add(mt, mounts[i].dir,
					      strlen(mounts[i].dir),
					      mounts[i].fstype), 0);
	return mt;
}

static const struct {
	const char *path;
	enum pathmap_status st;
	const char *want;	/* the rewrite for PATHMAP_OK */
	const char *mount;	/* the mount reported */
} rewrite_cases[] = {
	{ "/etc/x", PATHMAP_OK, "/.ioriot/NAME/etc/x", "/" },
	{ "/", PATHMAP_OK, "/.ioriot/NAME", "/" },
	{ "/mnt/1/a", PATHMAP_OK, "/mnt/1/.ioriot/NAME/a", "/mnt/1" },
	{ "/mnt/10/a", PATHMAP_OK, "/mnt/10/.ioriot/NAME/a", "/mnt/10" },
	{ "/mnt/1", PATHMAP_OK, "/mnt/1/.ioriot/NAME", "/mnt/1" },
	{ "/mnt/10", PATHMAP_OK, "/mnt/10/.ioriot/NAME", "/mnt/10" },
	{ "/mnt/100/a", PATHMAP_OK, "/.ioriot/NAME/mnt/100/a", "/" },
	{ "/mnt", PATHMAP_OK, "/.ioriot/NAME/mnt", "/" },
	{ "/procfs/x", PATHMAP_OK, "/.ioriot/NAME/procfs/x", "/" },
	{ "/mnt/1/.ioriotx", PATHMAP_OK, "/mnt/1/.ioriot/NAME/.ioriotx",
	  "/mnt/1" },
	{ "/mnt/1/a/.ioriot/x", PATHMAP_OK,
	  "/mnt/1/.ioriot/NAME/a/.ioriot/x", "/mnt/1" },
	{ "/.ioriot2/x", PATHMAP_OK, "/.ioriot/NAME/.ioriot2/x", "/" },
	{ "/proc/1/stat", PATHMAP_PSEUDO, NULL, "/proc" },
	{ "/proc", PATHMAP_PSEUDO, NULL, "/proc" },
	{ "/sys/kernel/mm", PATHMAP_PSEUDO, NULL, "/sys" },
	{ "/mnt/1/.ioriot/other/x", PATHMAP_OWN, NULL, "/mnt/1" },
	{ "/mnt/1/.ioriot/NAME/x", PATHMAP_OWN, NULL, "/mnt/1" },
	{ "/mnt/1/.ioriot", PATHMAP_OWN, NULL, "/mnt/1" },
	{ "/.ioriot/NAME/etc/x", PATHMAP_OWN, NULL, "/" },
	{ "/.ioriot", PATHMAP_OWN, NULL, "/" },
};

START_TEST(rewrite_table)
{
	struct mounttab *mt = make_mounts(true);
	struct pathmap pm = { .mounts = mt, .name = "NAME", .name_len = 4 };
	const char *path = rewrite_cases[_i].path;
	const struct mount_entry *m = NULL;
	char out[PATHMAP_MAX];
	size_t out_len = 0;

	enum pathmap_status st = pathmap_rewrite(&pm, path, strlen(path), out,
						 &out_len, &m);
	ck_assert_msg(st == rewrite_cases[_i].st, "%s: %s, want %s", path,
		      pathmap_status_name(st),
		      pathmap_status_name(rewrite_cases[_i].st));
	ck_assert_msg(m, "%s: no mount", path);
	ck_assert_str_eq(m->dir, rewrite_cases[_i].mount);
	if (st == PATHMAP_OK) {
		ck_assert_str_eq(out, rewrite_cases[_i].want);
		ck_assert_uint_eq(out_len, strlen(rewrite_cases[_i].want));
	}
	/* The mount argument is optional. */
	ck_assert_int_eq(pathmap_rewrite(&pm, path, strlen(path), out,
					 &out_len, NULL), st);
	mounttab_free(mt);
}
END_TEST

START_TEST(rewrite_too_long)
{
	struct mounttab *mt = make_mounts(true);
	struct pathmap pm = { .mounts = mt, .name = "NAME", .name_len = 4 };
	char path[PATHMAP_MAX], out[PATHMAP_MAX + 16];
	size_t out_len = 0;
	/* "/mnt/1" + "/.ioriot/NAME" + "/" + k bytes: 20 + k. */
	size_t k = PATHMAP_MAX - 1 - 20;

	memcpy(path, "/mnt/1/", 7);
	memset(path + 7, 'a', k);
	memset(out, 'Z', sizeof(out));
	ck_assert_int_eq(pathmap_rewrite(&pm, path, 7 + k, out, &out_len, NULL),
			 PATHMAP_OK);
	ck_assert_uint_eq(out_len, PATHMAP_MAX - 1);
	ck_assert_int_eq(out[PATHMAP_MAX - 1], '\0');
	ck_assert_int_eq(out[PATHMAP_MAX], 'Z');

	path[7 + k] = 'a';
	memset(out, 'Z', sizeof(out));
	ck_assert_int_eq(pathmap_rewrite(&pm, path, 8 + k, out, &out_len, NULL),
			 PATHMAP_TOO_LONG);
	ck_assert_int_eq(out[PATHMAP_MAX], 'Z');

	/* A path that fits when normalised but not once rewritten. */
	path[0] = '/';
	memset(path + 1, 'b', PATHMAP_MAX - 2);
	ck_assert_int_eq(pathmap_rewrite(&pm, path, PATHMAP_MAX - 1, out,
					 &out_len, NULL), PATHMAP_TOO_LONG);
	mounttab_free(mt);
}
END_TEST

START_TEST(rewrite_without_root)
{
	struct mounttab *mt = make_mounts(false);
	struct pathmap pm = { .mounts = mt, .name = "NAME", .name_len = 4 };
	static const struct mount_entry unset;
	const struct mount_entry *m = &unset;
	char out[PATHMAP_MAX];
	size_t out_len;

	ck_assert_int_eq(pathmap_rewrite(&pm, "/etc/x", 6, out, &out_len, &m),
			 PATHMAP_NO_MOUNT);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(pathmap_rewrite(&pm, "/", 1, out, &out_len, NULL),
			 PATHMAP_NO_MOUNT);
	ck_assert_int_eq(pathmap_rewrite(&pm, "/mnt/100/a", 10, out, &out_len,
					 NULL), PATHMAP_NO_MOUNT);
	ck_assert_int_eq(pathmap_rewrite(&pm, "/mnt/1/a", 8, out, &out_len,
					 &m), PATHMAP_OK);
	ck_assert_str_eq(out, "/mnt/1/.ioriot/NAME/a");
	ck_assert_str_eq(m->dir, "/mnt/1");
	mounttab_free(mt);
}
END_TEST

/* ---- property: nothing leaves its sandbox ------------------------------ */

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Independent model of normalisation: a stack of components. */
static void model_normalize(const char *path, const char *cwd, char *out)
{
	char buf[2 * PATHMAP_MAX];
	const char *comp[PATHMAP_MAX];
	size_t clen[PATHMAP_MAX], depth = 0;

	snprintf(buf, sizeof(buf), "%s/%s", path[0] == '/' ? "" : cwd, path);
	for (char *p = buf; *p;) {
		char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (depth)
				depth--;
		} else if (n && !(n == 1 && p[0] == '.')) {
			comp[depth] = p;
			clen[depth++] = n;
		}
		p = *end ? end + 1 : end;
	}
	out[0] = '\0';
	for (size_t i = 0; i < depth; i++) {
		strcat(out, "/");
		strncat(out, comp[i], clen[i]);
	}
	if (!depth)
		strcpy(out, "/");
}

START_TEST(property_sandbox_holds)
{
	static const char *const parts[] = { "a", "..", ".", "", "b", "c.d" };
	static const char *const cwds[] = {
		NULL, "/", "/mnt/1", "/mnt/10/a", "/mnt/1/b/c.d",
	};
	struct mounttab *mt = make_mounts(true);
	struct pathmap pm = { .mounts = mt, .name = "NAME", .name_len = 4 };
	uint64_t x = 0x2545f4914f6cdd1dULL;
	unsigned per_mount[3] = { 0, 0, 0 };

	for (int iter = 0; iter < 5000; iter++) {
		char path[256], norm[PATHMAP_MAX], model[PATHMAP_MAX];
		char out[PATHMAP_MAX], root[64];
		const char *cwd = cwds[next_rand(&x) % ARRAY_SIZE(cwds)];
		int nparts = (int)(next_rand(&x) % 12);
		size_t len = 0;

		if (!cwd || next_rand(&x) % 2)
			path[len++] = '/';
		for (int i = 0; i < nparts; i++) {
			const char *p = parts[next_rand(&x) % ARRAY_SIZE(parts)];

			if (i)
				path[len++] = '/';
			memcpy(path + len, p, strlen(p));
			len += strlen(p);
		}
		if (next_rand(&x) % 4 == 0)
			path[len++] = '/';
		path[len] = '\0';

		long n = path_normalize(path, len, cwd, norm);
		ck_assert_msg(n > 0, "\"%s\" (cwd %s): %ld", path,
			      cwd ? cwd : "none", n);
		model_normalize(path, cwd ? cwd : "/", model);
		ck_assert_msg(strcmp(norm, model) == 0,
			      "\"%s\" (cwd %s) -> \"%s\", want \"%s\"", path,
			      cwd ? cwd : "none", norm, model);

		const struct mount_entry *m = NULL;
		size_t out_len = 0;
		enum pathmap_status st = pathmap_rewrite(&pm, norm, (size_t)n,
							 out, &out_len, &m);
		ck_assert_msg(st == PATHMAP_OK, "\"%s\": %s", norm,
			      pathmap_status_name(st));
		snprintf(root, sizeof(root), "%s/.ioriot/NAME",
			 strcmp(m->dir, "/") ? m->dir : "");
		size_t rl = strlen(root);
		ck_assert_msg(strncmp(out, root, rl) == 0 &&
			      (out[rl] == '\0' || out[rl] == '/'),
			      "\"%s\" -> \"%s\" is outside %s", path, out, root);
		ck_assert_uint_eq(out_len, strlen(out));
		ck_assert_msg(!strstr(out, "/../") && !strstr(out, "//") &&
			      !strstr(out, "/./"), "\"%s\" -> \"%s\"", path, out);
		ck_assert_msg(out_len < 3 || strcmp(out + out_len - 3, "/.."),
			      "\"%s\" -> \"%s\"", path, out);
		ck_assert_msg(out_len < 2 || strcmp(out + out_len - 2, "/."),
			      "\"%s\" -> \"%s\"", path, out);
		per_mount[m->dir_len == 1 ? 0 : m->dir_len == 6 ? 1 : 2]++;
	}
	/* The generator reached every sandbox, not only the root one. */
	for (int i = 0; i < 3; i++)
		ck_assert_uint_gt(per_mount[i], 100);
	mounttab_free(mt);
}
END_TEST

Suite *pathmap_suite(void)
{
	Suite *s = suite_create("pathmap");
	TCase *tc = tcase_create("normalize");

	tcase_add_loop_test(tc, normalize_table, 0, ARRAY_SIZE(norm_cases));
	tcase_add_test(tc, normalize_uses_len);
	tcase_add_test(tc, normalize_length_limits);
	tcase_add_test(tc, is_normal_matches_normalize);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("rewrite");
	tcase_add_loop_test(tc, rewrite_table, 0, ARRAY_SIZE(rewrite_cases));
	tcase_add_test(tc, rewrite_too_long);
	tcase_add_test(tc, rewrite_without_root);
	tcase_add_test(tc, property_sandbox_holds);
	suite_add_tcase(s, tc);
	return s;
}
