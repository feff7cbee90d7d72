/* Tests of src/util: escaping, outbuf formatting, u64map, mounts, the
 * cycle clock, names and diagnostics made safe for a terminal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/cycleclock.h"
#include "ioriot/escape.h"
#include "ioriot/log.h"
#include "ioriot/mounts.h"
#include "ioriot/outbuf.h"
#include "ioriot/outfile.h"
#include "ioriot/textsafe.h"
#include "ioriot/u64map.h"
#include "testutil.h"

START_TEST(escape_round_trip_every_byte)
{
	char src[255], enc[255 * 3 + 1];

	for (int i = 0; i < 255; i++)
		src[i] = (char)(i + 1);
	long n = fmt_path(enc, src, sizeof(src)) - enc;
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (long)sizeof(enc));
	for (long i = 0; i < n; i++)
		ck_assert_msg(!strchr(" ;:,=|\n", enc[i]) && enc[i] > 0x20 &&
			      enc[i] < 0x7f, "raw byte 0x%02x in encoding",
			      (unsigned char)enc[i]);
	ck_assert_int_eq(escape_decode(enc, (size_t)n), 255);
	ck_assert_mem_eq(enc, src, 255);
}
END_TEST

START_TEST(escape_rejects_bad)
{
	static const char *const bad[] = { "%", "%4", "%GG", "a%00b", "%zz" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[16];
		strcpy(buf, bad[i]);
		ck_assert_int_eq(escape_decode(buf, strlen(buf)), -EINVAL);
	}
}
END_TEST

START_TEST(outbuf_formats)
{
	char *dir = tu_mkdtemp();
	char *path;
	struct outbuf *ob = malloc(sizeof(*ob));

	ck_assert(asprintf(&path, "%s/out", dir) > 0);
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	outbuf_init(ob, fd);
	outbuf_u64(ob, 0);
	outbuf_putc(ob, ' ');
	outbuf_i64(ob, INT64_MIN);
	outbuf_putc(ob, ' ');
	outbuf_u64(ob, UINT64_MAX);
	outbuf_putc(ob, ' ');
	outbuf_hex(ob, 0x241);
	outbuf_putc(ob, ' ');
	outbuf_oct(ob, 0644);
	outbuf_putc(ob, ' ');
	outbuf_oct(ob, 0);
	outbuf_putc(ob, ' ');
	outbuf_path(ob, "a b%", 4);
	ck_assert_int_eq(outbuf_flush(ob), 0);
	close(fd);
	char *text = tu_read(path, NULL);
	ck_assert_str_eq(text, "0 -9223372036854775808 18446744073709551615 "
			 "0x241 0644 0 a%20b%25");
	free(text);
	free(ob);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* fmt_u64 against printf at every digit count and its edges, and the
 * bytes it may touch: 20, never more. */
START_TEST(fmt_u64_matches_printf)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 200000; i++) {
		char got[32], want[32];
		uint64_t v;

		if (i < 100000)
			v = (uint64_t)i;
		else if (i < 100200)
			v = UINT64_MAX - (uint64_t)(i - 100000);
		else {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			v = x >> (i % 64);
		}
		memset(got, 'X', sizeof(got));
		char *end = fmt_u64(got, v);
		/* Plain comparisons, an assertion only on a mismatch: Check
		 * marks every assertion it runs, too slow for 200,000. */
		for (size_t k = 20; k < sizeof(got); k++)
			if (got[k] != 'X')
				ck_abort_msg("%llu: byte %zu written",
					     (unsigned long long)v, k);
		*end = '\0';
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		if (strcmp(got, want) != 0)
			ck_abort_msg("%llu: got %s", (unsigned long long)v, got);
	}
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10) {
		char got[32], want[32];
		for (uint64_t v = p - 1; v <= p + 1; v++) {
			*fmt_u64(got, v) = '\0';
			snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
			ck_assert_str_eq(got, want);
		}
	}
}
END_TEST

START_TEST(u64map_put_get_del)
{
	struct u64map m;
	static int vals[5000];

	ck_assert_int_eq(u64map_init(&m), 0);
	for (uint64_t k = 0; k < 5000; k++)
		ck_assert_int_eq(u64map_put(&m, k * 7919, &vals[k]), 0);
	ck_assert_uint_eq(m.count, 5000);
	for (uint64_t k = 0; k < 5000; k += 2)
		ck_assert_ptr_eq(u64map_del(&m, k * 7919), &vals[k]);
	for (uint64_t k = 0; k < 5000; k++)
		ck_assert_ptr_eq(u64map_get(&m, k * 7919), k % 2 ? &vals[k] : NULL);
	size_t pos = 0, seen = 0;
	while (u64map_next(&m, &pos))
		seen++;
	ck_assert_uint_eq(seen, 2500);
	/* Replacing keeps the count and never adds an absent key. */
	ck_assert(u64map_replace(&m, 1 * 7919, &vals[0]));
	ck_assert_ptr_eq(u64map_get(&m, 1 * 7919), &vals[0]);
	ck_assert(!u64map_replace(&m, 2 * 7919, &vals[0]));
	ck_assert_ptr_null(u64map_get(&m, 2 * 7919));
	ck_assert_uint_eq(m.count, 2500);
	u64map_destroy(&m);
}
END_TEST

START_TEST(mounts_whole_components)
{
	struct mounttab *mt = mounttab_new();
	static const struct { const char *path, *mount; } cases[] = {
		{ "/", "/" },
		{ "/mnt/1", "/mnt/1" },
		{ "/mnt/1/x", "/mnt/1" },
		{ "/mnt/10", "/" },
		{ "/mnt/10/x", "/" },
		{ "/proc/self/fd", "/proc" },
		{ "/procfoo", "/" },
	};

	ck_assert_int_eq(mounttab_add(mt, "/", 1, "ext4"), 0);
	ck_assert_int_eq(mounttab_add(mt, "/mnt/1/", 7, "xfs"), 0);
	ck_assert_int_eq(mounttab_add(mt, "/proc", 5, "proc"), 0);
	ck_assert_int_eq(mounttab_add(mt, "rel", 3, "xfs"), -EINVAL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mount_entry *e =
			mounttab_find(mt, cases[i].path, strlen(cases[i].path));
		ck_assert_ptr_nonnull(e);
		ck_assert_str_eq(e->dir, cases[i].mount);
	}
	ck_assert(mounttab_find(mt, "/proc/1", 7)->pseudo);
	mounttab_free(mt);
}
END_TEST

START_TEST(mounts_load_proc_format)
{
	char *dir = tu_mkdtemp();
	char *path = tu_write_str(dir, "mounts",
		"/dev/sda1 / ext4 rw 0 0\n"
		"proc /proc proc rw 0 0\n"
		"/dev/sdb1 /data\\040dir xfs rw 0 0\n"
		"garbage\n");
	struct mounttab *mt = mounttab_new();

	ck_assert_int_eq(mounttab_load(mt, path), 0);
	ck_assert_uint_eq(mt->n, 3);
	ck_assert_str_eq(mounttab_find(mt, "/data dir/f", 11)->fstype, "xfs");
	ck_assert_int_eq(mounttab_load(mt, "/nonexistent/mounts"), -ENOENT);
	mounttab_free(mt);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * For 20 ms, each reading of @c lies between two CLOCK_MONOTONIC readings
 * taken around it, give or take 20 us (the calibration and its drift are
 * far below that, so a miss means a wrong rate or origin).
 */
static void clock_tracks_monotonic(const struct cycleclock *c)
{
	const uint64_t slack = 20000;
	uint64_t start = clock_ns(CLOCK_MONOTONIC), n = 0;

	while (clock_ns(CLOCK_MONOTONIC) - start < 20000000ULL) {
		uint64_t before = clock_ns(CLOCK_MONOTONIC);
		uint64_t now = cycleclock_ns(c);
		uint64_t after = clock_ns(CLOCK_MONOTONIC);

		ck_assert_msg(now + slack >= before && now <= after + slack,
			      "reading %llu: %llu not within [%llu, %llu]",
			      (unsigned long long)n, (unsigned long long)now,
			      (unsigned long long)before,
			      (unsigned long long)after);
		n++;
	}
}

START_TEST(cycleclock_is_monotonic_time)
{
	char *dir = tu_scratch(), *fake = tu_join(dir, "clocksource");
	char text[32] = "";
	struct cycleclock c;
	int fd;

	/* The kernel's clocksource: the counter where it is the TSC. */
	fd = open(CYCLECLOCK_SOURCE, O_RDONLY);
	if (fd >= 0) {
		ck_assert_int_ge(read(fd, text, sizeof(text) - 1), 0);
		close(fd);
	}
	cycleclock_init(&c, CYCLECLOCK_SOURCE, 2000000);
#if defined(__x86_64__)
	ck_assert_int_eq(c.counter, strcmp(text, "tsc\n") == 0);
#else
	ck_assert(!c.counter);
#endif
	clock_tracks_monotonic(&c);

	/* Another clocksource: CLOCK_MONOTONIC itself. */
	fd = open(fake, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "hpet\n", 5), 5);
	ck_assert_int_eq(close(fd), 0);
	cycleclock_init(&c, fake, 2000000);
	ck_assert(!c.counter);
	clock_tracks_monotonic(&c);
	cycleclock_init(&c, "/nonexistent/clocksource", 2000000);
	ck_assert(!c.counter);
	free(fake);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* Entries of @dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/*
 * An unnamed output file is nowhere in its directory until linked under a
 * temporary name, beside an existing one; a file made unlinkable
 * (O_TMPFILE with O_EXCL) is refused with ENOENT, nothing named; a symlink
 * planted at the next temporary name is skipped, its target untouched.
 */
/*
 * Temporary names start at a random number: another user who made
 * ".BASE.PID.1" to ".BASE.PID.100" for ioriot's pid beforehand (in /tmp)
 * cannot make its outputs fail.  A child waits while they are planted.
 */
START_TEST(outfile_temp_names_unguessable)
{
	char *dir = tu_scratch(), *name;
	int go[2], done[2], dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	char byte = 0, result = 0;
	pid_t pid;

	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(done), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char tmp[NAME_MAX + 1];

		if (read(go[0], &byte, 1) != 1)
			_exit(2);
		int fd = outfile_temp(dfd, "x", tmp, sizeof(tmp));
		result = fd >= 0 ? 'y' : 'n';
		_exit(write(done[1], &result, 1) == 1 ? 0 : 2);
	}
	for (int n = 1; n <= 100; n++) {
		ck_assert(asprintf(&name, "%s/.x.%d.%d", dir, (int)pid, n) > 0);
		free(tu_write_str(dir, strrchr(name, '/') + 1, ""));
		free(name);
	}
	ck_assert_int_eq(write(go[1], &byte, 1), 1);
	ck_assert_int_eq(read(done[0], &result, 1), 1);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(result == 'y', "outfile_temp failed on planted names");
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	close(dfd);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(outfile_unnamed_links)
{
	char *dir = tu_scratch(), *path = tu_join(dir, "r.replay"), *text;
	char err[256], name[64], name2[64];
	int dfd = outfile_dir(path, err, sizeof(err)), fd, fd2;

	ck_assert_msg(dfd >= 0, "%s", err);
	fd = outfile_unnamed(dfd, "r.replay");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "abc\n", 4), 4);
	ck_assert_int_eq(entries(dir), 0);
	ck_assert_int_eq(outfile_link_temp(dfd, fd, "r.replay", name,
					   sizeof(name)), 0);
	ck_assert_msg(!strncmp(name, ".r.replay.", 10), "%s", name);
	ck_assert_int_eq(entries(dir), 1);
	char *linked = tu_join(dir, name);
	text = tu_read(linked, NULL);
	ck_assert_str_eq(text, "abc\n");
	free(text);

	fd2 = openat(dfd, ".", O_TMPFILE | O_EXCL | O_RDWR, 0600);
	ck_assert_int_ge(fd2, 0);
	ck_assert_int_eq(outfile_link_temp(dfd, fd2, "r.replay", name2,
					   sizeof(name2)), -ENOENT);
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(outfile_link_temp(dfd, fd, "r.replay", name2, 8),
			 -ENAMETOOLONG);

	/* A link planted at the next name is neither followed nor
	 * replaced: the name after it is taken. */
	char *victim = tu_write_str(dir, "victim", "keep\n"), *planted;
	unsigned long n = strtoul(strrchr(name, '.') + 1, NULL, 10);
	ck_assert(asprintf(&planted, "%s/.r.replay.%d.%lu", dir, (int)getpid(),
			   n + 2) > 0);	/* n + 1 went to the short buffer */
	ck_assert_int_eq(symlink(victim, planted), 0);
	ck_assert_int_eq(outfile_link_temp(dfd, fd, "r.replay", name2,
					   sizeof(name2)), 0);
	ck_assert_uint_eq(strtoul(strrchr(name2, '.') + 1, NULL, 10), n + 3);
	text = tu_read(victim, NULL);
	ck_assert_str_eq(text, "keep\n");
	free(text);
	char target[PATH_MAX];
	ssize_t tlen = readlink(planted, target, sizeof(target) - 1);
	ck_assert_int_eq(tlen, (ssize_t)strlen(victim));
	ck_assert_int_eq(unlinkat(dfd, name2, 0), 0);
	ck_assert_int_eq(unlink(planted), 0);
	ck_assert_int_eq(unlink(victim), 0);
	free(planted);
	free(victim);
	close(fd2);
	close(fd);
	close(dfd);
	free(linked);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* Join a head to a body of 600,001 bytes (three chunks and a bit) in
 * @dir, the body linkable or not, and check the file renamed into place. */
static void join_parts(const char *dir, bool linkable)
{
	char err[256], tmp[64], *path = tu_join(dir, "r.replay"), *text;
	static const char head[] = "#head\n#INIT\n";
	size_t body_len = 600001, len;
	char *body = malloc(body_len);
	int dfd = outfile_dir(path, err, sizeof(err)), head_fd, body_fd, fd;

	ck_assert_msg(dfd >= 0, "%s", err);
	for (size_t i = 0; i < body_len; i++)
		body[i] = (char)('a' + i * 7 % 26);
	head_fd = outfile_unnamed(dfd, "r.replay");
	body_fd = linkable ? outfile_unnamed(dfd, "r.replay") :
		  openat(dfd, ".", O_TMPFILE | O_EXCL | O_RDWR, 0600);
	ck_assert_int_ge(head_fd, 0);
	ck_assert_int_ge(body_fd, 0);
	ck_assert_int_eq(write(head_fd, head, sizeof(head) - 1),
			 sizeof(head) - 1);
	ck_assert_int_eq(write(body_fd, body, body_len), (ssize_t)body_len);
	fd = outfile_join(dfd, "r.replay", head_fd, body_fd, tmp, sizeof(tmp));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#END\n", 5), 5);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(renameat(dfd, tmp, dfd, "r.replay"), 0);
	text = tu_read(path, &len);
	ck_assert_uint_eq(len, sizeof(head) - 1 + body_len + 5);
	ck_assert(!memcmp(text, head, sizeof(head) - 1));
	ck_assert(!memcmp(text + sizeof(head) - 1, body, body_len));
	ck_assert(!memcmp(text + len - 5, "#END\n", 5));
	close(head_fd);
	close(body_fd);
	close(dfd);
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(unlink(path), 0);
	free(text);
	free(body);
	free(path);
}

/* The body becomes the file when it can be linked, and is copied into a
 * new one when it cannot: the same bytes either way. */
START_TEST(outfile_join_parts)
{
	char *dir = tu_scratch();

	join_parts(dir, true);
	join_parts(dir, false);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* What a terminal would act on is shown as %XX, byte by byte; printable
 * UTF-8 stays as it is. */
START_TEST(text_write_shows_controls_escaped)
{
	static const struct {
		const char *in;
		bool percent;
		const char *want;
	} cases[] = {
		{ "/data/plain.txt", true, "/data/plain.txt" },
		{ "a\x1b[2Jb", true, "a%1B[2Jb" },		/* ESC */
		{ "line\nforged", false, "line%0Aforged" },
		{ "tab\there\r", false, "tab%09here%0D" },
		{ "del\x7f", false, "del%7F" },
		{ "caf\xc3\xa9 \xe2\x82\xac", true, "caf\xc3\xa9 \xe2\x82\xac" },
		{ "c1\xc2\x9b" "31m", true, "c1%C2%9B31m" },	/* CSI, U+009B */
		{ "rlo\xe2\x80\xae" "exe.txt", true, "rlo%E2%80%AEexe.txt" },
		{ "iso\xe9\xff", true, "iso%E9%FF" },	/* not UTF-8 */
		{ "trunc\xe2\x82", true, "trunc%E2%82" },
		{ "overlong\xc0\xaf", true, "overlong%C0%AF" },
		{ "100%", true, "100%25" },
		{ "100%", false, "100%" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		ck_assert_ptr_nonnull(f);
		text_write(f, cases[i].in, cases[i].percent);
		ck_assert_int_eq(fclose(f), 0);
		ck_assert_msg(strcmp(out, cases[i].want) == 0,
			      "case %zu: got '%s'", i, out);
		free(out);
	}
}
END_TEST

/* Run log_warn() with @arg and return what reached stderr. */
static char *warned(const char *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO);
	char *text;

	ck_assert_ptr_nonnull(tmp);
	ck_assert_int_ge(saved, 0);
	fflush(stderr);
	ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
	log_warn("cannot open %s", arg);
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);
	long n = ftell(tmp);
	ck_assert_int_ge(n, 0);
	text = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(text);
	rewind(tmp);
	ck_assert_uint_eq(fread(text, 1, (size_t)n, tmp), (size_t)n);
	fclose(tmp);
	return text;
}

/* A diagnostic quoting a captured name cannot drive the terminal, however
 * long the message. */
START_TEST(log_lines_are_terminal_safe)
{
	char *text = warned("/data/\x1b]0;owned\x07\nioriot: all good");

	ck_assert_str_eq(text, "ioriot: warning: cannot open "
			 "/data/%1B]0;owned%07%0Aioriot: all good\n");
	free(text);

	char big[3000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[2500] = '\x1b';
	text = warned(big);
	ck_assert_uint_eq(strlen(text), strlen("ioriot: warning: cannot open ") +
			  sizeof(big) - 1 + 2 + 1);
	ck_assert_ptr_null(strchr(text, '\x1b'));
	ck_assert_ptr_nonnull(strstr(text, "x%1Bx"));
	free(text);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, escape_round_trip_every_byte);
	tcase_add_test(tc, escape_rejects_bad);
	tcase_add_test(tc, outbuf_formats);
	tcase_add_test(tc, fmt_u64_matches_printf);
	tcase_add_test(tc, u64map_put_get_del);
	tcase_add_test(tc, mounts_whole_components);
	tcase_add_test(tc, mounts_load_proc_format);
	tcase_add_test(tc, cycleclock_is_monotonic_time);
	tcase_add_test(tc, outfile_unnamed_links);
	tcase_add_test(tc, outfile_temp_names_unguessable);
	tcase_add_test(tc, outfile_join_parts);
	tcase_add_test(tc, text_write_shows_controls_escaped);
	tcase_add_test(tc, log_lines_are_terminal_safe);
	suite_add_tcase(s, tc);
	return s;
}
