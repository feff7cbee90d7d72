/*
 * Tests of the SystemTap capture probe, systemtap/ioriot.stp.  This host
 * cannot load kernel modules, so stap only parses the script (-p1) and
 * elaborates it (-p2: every probe point, tapset variable and printf argument)
 * against a fake kernel build tree: a release file, an empty .config and
 * Module.symvers, and a System.map naming every function the tapsets' kprobe
 * probes ask for.  The lines the script prints are checked with the capture
 * log reader: lines built from the script's own format strings, and the
 * hand-made tests/data/stap/expected-lines.capture, which must follow those
 * formats field by field.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/capture.h"
#include "ioriot/caplog.h"
#include "ioriot/syscalls.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_FMTS 1024

/* The keys of capture log v4 (docs/capture-format.md section 4). */
static const char v4_keys[] = "tDiordepPfmOQWcsFGUaAkuCXT";

/* Sample values put into the script's %s conversions. */
#define SAMPLE_PATH "/srv/mail/inbox%20old"
#define SAMPLE_PATH_DECODED "/srv/mail/inbox old"
#define SAMPLE_PATH2 "rel%3Ab"
#define SAMPLE_HOST "db1"

/* ---- the script and its format strings ---- */

static char *script_path(void)
{
	return tu_join(tu_datadir(), "../../systemtap/ioriot.stp");
}

static char *script_text(void)
{
	char *path = script_path();
	char *text = tu_read(path, NULL);

	ck_assert_msg(text, "%s: %s", path, strerror(errno));
	free(path);
	return text;
}

/* A string literal of the script with the calls it is an argument of. */
struct fmt {
	char call[32];		/* "printf", "sprintf", "enter", ... */
	char outer[32];		/* the call around @call, or "" */
	char *text;		/* the literal, escapes decoded */
};

struct fmts {
	struct fmt v[MAX_FMTS];
	size_t n;
};

/*
 * The identifier before the "(" that ends just before @pos in @s (spaces
 * allowed around the parenthesis); "" if there is none.  *@start gets where
 * the identifier begins.
 */
static void call_before(const char *s, size_t pos, char *out, size_t outlen,
			size_t *start)
{
	size_t i = pos, end;

	out[0] = '\0';
	*start = pos;
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n'))
		i--;
	if (i == 0 || s[i - 1] != '(')
		return;
	i--;
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	end = i;
	while (i > 0 && (s[i - 1] == '_' || (s[i - 1] >= 'a' && s[i - 1] <= 'z') ||
			 (s[i - 1] >= '0' && s[i - 1] <= '9')))
		i--;
	if (end - i >= outlen)
		return;
	memcpy(out, s + i, end - i);
	out[end - i] = '\0';
	*start = i;
}

/* Every string literal outside comments, with the calls around it. */
static void collect_fmts(const char *s, struct fmts *f)
{
	size_t len = strlen(s);

	f->n = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '#' || (s[i] == '/' && s[i + 1] == '/')) {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (s[i] == '/' && s[i + 1] == '*') {
			const char *e = strstr(s + i + 2, "*/");

			ck_assert(e);
			i = (size_t)(e - s) + 1;
			continue;
		}
		if (s[i] != '"')
			continue;

		struct fmt *m = &f->v[f->n];
		size_t start, o = 0, j;

		ck_assert_msg(f->n < MAX_FMTS, "too many string literals");
		call_before(s, i, m->call, sizeof(m->call), &start);
		m->outer[0] = '\0';
		if (m->call[0])
			call_before(s, start, m->outer, sizeof(m->outer), &start);
		m->text = malloc(len - i);
		ck_assert(m->text);
		for (j = i + 1; j < len && s[j] != '"'; j++) {
			if (s[j] == '\\' && j + 1 < len) {
				j++;
				m->text[o++] = s[j] == 'n' ? '\n' : s[j];
			} else {
				m->text[o++] = s[j];
			}
		}
		ck_assert_msg(j < len, "unterminated string literal");
		m->text[o] = '\0';
		i = j;
		f->n++;
	}
}

static void free_fmts(struct fmts *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].text);
	f->n = 0;
}

static bool is_call(const struct fmt *m, const char *call, const char *outer)
{
	return !strcmp(m->call, call) && (!outer || !strcmp(m->outer, outer));
}

/* The fields a syscall's entry probe formats (they start with "o=");
 * *@stat: stat results (m, s) follow, *@link: readlink's target (P). */
static bool is_entry(const struct fmt *m, bool *stat, bool *link)
{
	*stat = is_call(m, "sprintf", "enter_stat");
	*link = is_call(m, "sprintf", "enter_readlink");
	return is_call(m, "enter", NULL) || *stat || *link ||
	       is_call(m, "sprintf", "enter");
}

/* A full line printed as it is: a header line or a record. */
static bool is_line(const struct fmt *m)
{
	return is_call(m, "printf", NULL) &&
	       (!strncmp(m->text, "t=", 2) || !strncmp(m->text, "#|", 2));
}

/* The format of the line every syscall ends with (it has two bare %s). */
static const char *syscall_line_fmt(const struct fmts *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (is_line(&f->v[i]) && strstr(f->v[i].text, "%s%s"))
			return f->v[i].text;
	ck_abort_msg("no printf format with the syscall fields");
	return NULL;
}

/* The format added at return that starts with @prefix: the stat results
 * ("m=") or readlink's target ("P="). */
static const char *return_fmt(const struct fmts *f, const char *prefix)
{
	for (size_t i = 0; i < f->n; i++)
		if (is_call(&f->v[i], "sprintf", NULL) &&
		    !strncmp(f->v[i].text, prefix, strlen(prefix)))
			return f->v[i].text;
	ck_abort_msg("no sprintf format that starts with %s", prefix);
	return NULL;
}

/* The operation name of an entry or record format ("o=NAME;:,"). */
static bool op_of(const char *fmt, char *name, size_t len)
{
	const char *o = strstr(fmt, "o=");
	const char *e = o ? strstr(o, ";:,") : NULL;

	if (!e || (size_t)(e - o - 2) >= len || memchr(o, '%', (size_t)(e - o)))
		return false;
	memcpy(name, o + 2, (size_t)(e - o - 2));
	name[e - o - 2] = '\0';
	return true;
}

/*
 * Fill @fmt's conversions into @out: %d by the key it is the value of,
 * "%s=" by a key name, a path %s by a sample path, another KEY=%s by a
 * sample word, and each bare %s (a group of fields) by the next of @bare.
 */
static void fill(const char *fmt, const char *const *bare, size_t nbare,
		 char *out, size_t outlen)
{
	static uint64_t now = 1000;
	size_t o = 0, b = 0;

	for (const char *p = fmt; *p; p++) {
		char val[512];
		char key = p > fmt + 1 && p[-1] == '=' ? p[-2] : '\0';

		if (*p != '%') {
			ck_assert(o + 1 < outlen);
			out[o++] = *p;
			continue;
		}
		p++;
		if (*p == '%') {
			snprintf(val, sizeof(val), "%%");
		} else if (*p == 'd' && key == 't') {
			snprintf(val, sizeof(val), "%llu",
				 (unsigned long long)(now += 1000));
		} else if (*p == 'd' && (key == 'i' || key == 'k')) {
			snprintf(val, sizeof(val), "100");
		} else if (*p == 'd' && p[-2] == ':') {
			snprintf(val, sizeof(val), "101");
		} else if (*p == 'd') {
			snprintf(val, sizeof(val), key == 'd' || key == 'e' ?
				 "-100" : "42");
		} else if (*p == 's' && p[1] == '=') {
			snprintf(val, sizeof(val), "O");
		} else if (*p == 's' && key == 'p') {
			snprintf(val, sizeof(val), "%s", SAMPLE_PATH);
		} else if (*p == 's' && key == 'P') {
			snprintf(val, sizeof(val), "%s", SAMPLE_PATH2);
		} else if (*p == 's' && key) {
			snprintf(val, sizeof(val), "%s", SAMPLE_HOST);
		} else if (*p == 's') {
			ck_assert_msg(b < nbare, "format \"%s\": too many bare %%s",
				      fmt);
			snprintf(val, sizeof(val), "%s", bare[b++]);
		} else {
			ck_abort_msg("format \"%s\": unexpected conversion %%%c",
				     fmt, *p);
		}
		ck_assert(o + strlen(val) < outlen);
		memcpy(out + o, val, strlen(val));
		o += strlen(val);
	}
	out[o] = '\0';
}

/*
 * NULL if @s is a run of v4 fields KEY=VALUE;:, with known keys, none twice
 * and values without ';' (only p and P may be empty); else what is wrong.
 */
static const char *fields_error(const char *s)
{
	bool seen[128] = { false };

	while (*s) {
		const char *e;

		if (!s[0] || !strchr(v4_keys, s[0]) || s[1] != '=')
			return "not KEY= with a v4 key";
		if (seen[(unsigned char)s[0]])
			return "a key twice";
		seen[(unsigned char)s[0]] = true;
		e = strstr(s + 2, ";:,");
		if (!e)
			return "field not ended by ;:,";
		if (memchr(s + 2, ';', (size_t)(e - s - 2)))
			return "';' inside a value";
		if (e == s + 2 && s[0] != 'p' && s[0] != 'P')
			return "empty value";
		s = e + 3;
	}
	return NULL;
}

/* ---- running stap against a fake kernel build tree ---- */

static char *stap_or_skip(const char *test)
{
	char *stap = tu_which("stap");

	if (!stap)
		printf("%s: skipped: stap is not installed\n", test);
	return stap;
}

/* The tapset directory of @stap: $SYSTEMTAP_TAPSET or PREFIX/share/... */
static char *tapset_dir(const char *stap)
{
	const char *env = getenv("SYSTEMTAP_TAPSET");
	char *dir, *slash;

	if (env && *env)
		return strdup(env);
	ck_assert(asprintf(&dir, "%s", stap) > 0);
	for (int up = 0; up < 2; up++) {	/* PREFIX/bin/stap -> PREFIX */
		slash = strrchr(dir, '/');
		ck_assert_msg(slash, "cannot find the tapsets of %s", stap);
		*slash = '\0';
	}
	slash = dir;
	ck_assert(asprintf(&dir, "%s/share/systemtap/tapset", slash) > 0);
	free(slash);
	return dir;
}

/* Append every kprobe.function("NAME") of the tapsets in @dir to @map. */
static void scan_kprobes(const char *dir, const char *prefix, FILE *map,
			 unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	ck_assert_msg(d, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char *path, *text;

		if (l < 5 || strcmp(de->d_name + l - 4, ".stp"))
			continue;
		path = tu_join(dir, de->d_name);
		text = tu_read(path, NULL);
		ck_assert_msg(text, "%s: %s", path, strerror(errno));
		for (char *p = text; (p = strstr(p, "kprobe.function(\"")); ) {
			char *name = p + strlen("kprobe.function(\"");
			size_t nl = strspn(name, "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

			if (nl && name[nl] == '"')
				fprintf(map, "ffffffff8%07x T %s%.*s\n",
					0x100000 + 16 * (*n)++, prefix,
					(int)nl, name);
			p = name;
		}
		free(text);
		free(path);
	}
	closedir(d);
}

/*
 * A fake build tree for kernel @release under @root, whose System.map names
 * every function the tapsets probe, each with @prefix (the syscall symbol
 * prefix of kernels from 4.17 on).  Returns its malloc'd path.
 */
static char *fake_kernel(const char *root, const char *stap,
			 const char *release, const char *prefix)
{
	char *tree = tu_join(root, release), *sub, *tapsets, *linux_dir,
	     *arch_dir;
	unsigned n = 0;
	FILE *map;

	ck_assert_int_eq(mkdir(tree, 0700), 0);
	sub = tu_join(tree, "include");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	free(sub);
	sub = tu_join(tree, "include/config");
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	free(tu_write_str(sub, "kernel.release", release));
	free(sub);
	free(tu_write_str(tree, ".config",
			  "CONFIG_64BIT=y\nCONFIG_X86_64=y\nCONFIG_COMPAT=y\n"));
	free(tu_write_str(tree, "Module.symvers", ""));

	sub = tu_join(tree, "System.map");
	map = fopen(sub, "we");
	ck_assert_msg(map, "%s: %s", sub, strerror(errno));
	tapsets = tapset_dir(stap);
	linux_dir = tu_join(tapsets, "linux");
	arch_dir = tu_join(tapsets, "linux/x86_64");
	scan_kprobes(linux_dir, prefix, map, &n);
	scan_kprobes(arch_dir, prefix, map, &n);
	ck_assert_int_eq(fclose(map), 0);
	ck_assert_msg(n > 100, "only %u kprobe functions in %s", n, linux_dir);
	free(arch_dir);
	free(linux_dir);
	free(tapsets);
	free(sub);
	return tree;
}

/*
 * Remove from @err the lines of the kbuild runs that fail in the fake tree
 * (stap tries to build type query modules for the kernel header casts).
 */
static void drop_kbuild_noise(char *err)
{
	static const char *const noise[] = {
		"make: ", "WARNING: kbuild exited", "Copy failed",
	};
	char *in = err, *out = err;

	while (*in) {
		size_t l = strcspn(in, "\n") + (in[strcspn(in, "\n")] == '\n');
		bool drop = false;

		for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
			drop |= !strncmp(in, noise[i], strlen(noise[i]));
		if (!drop) {
			memmove(out, in, l);
			out += l;
		}
		in += l;
	}
	*out = '\0';
}

/*
 * Run @stap with @args (NULL-terminated) on @tree, with its cache, home and
 * temporary files under @root.  Returns the exit status (-1 if it did not
 * exit); *@err gets its stderr.
 */
static int run_stap(const char *stap, const char *root, const char *tree,
		    const char *const *args, char **err)
{
	char *errfile = tu_join(root, "stap.err");
	char *sysdir = tu_join(root, "systemtap");
	const char *argv[32];
	size_t n = 0;
	int status;
	pid_t pid;

	argv[n++] = stap;
	argv[n++] = "-a";
	argv[n++] = "x86_64";
	argv[n++] = "-r";
	argv[n++] = tree;
	for (size_t i = 0; args[i]; i++) {
		ck_assert(n + 2 < ARRAY_SIZE(argv));
		argv[n++] = args[i];
	}
	argv[n] = NULL;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
		int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0600);

		if (out < 0 || fd < 0 || dup2(out, 1) < 0 || dup2(fd, 2) < 0 ||
		    setenv("SYSTEMTAP_DIR", sysdir, 1) || setenv("HOME", root, 1) ||
		    setenv("TMPDIR", root, 1))
			_exit(126);
		execv(stap, (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	*err = tu_read(errfile, NULL);
	ck_assert(*err);
	drop_kbuild_noise(*err);
	free(sysdir);
	free(errfile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(script_parses)
{
	char *stap = stap_or_skip("script_parses");
	char *root, *tree, *script, *err;

	if (!stap)
		return;
	root = tu_scratch();
	tree = fake_kernel(root, stap, "3.10.0-1160.el7.x86_64", "");
	script = script_path();
	const char *args[] = { "-p1", script, NULL };
	int rc = run_stap(stap, root, tree, args, &err);

	ck_assert_msg(rc == 0, "stap -p1 %s exited with %d:\n%s", script, rc,
		      err);
	free(err);
	free(script);
	free(tree);
	free(root);
	free(stap);
}
END_TEST

/* Kernels to elaborate the script for: their tapsets' probe variants. */
static const struct {
	const char *release;
	const char *prefix;	/* of syscall function symbols */
} kernels[] = {
	{ "3.10.0-1160.el7.x86_64", "" },	/* RHEL 7: nd1 kprobes */
	{ "5.14.0-362.el9.x86_64", "__x64_" },	/* 4.17+: nd2 kprobes */
};

START_TEST(script_elaborates)
{
	char *stap = stap_or_skip("script_elaborates");
	char *root, *tree, *script, *err;

	if (!stap)
		return;
	root = tu_scratch();
	tree = fake_kernel(root, stap, kernels[_i].release, kernels[_i].prefix);
	script = script_path();
	/* -W: a misspelt tapset variable is a "never-assigned" warning. */
	const char *args[] = { "-p2", "-W", script, NULL };
	int rc = run_stap(stap, root, tree, args, &err);

	ck_assert_msg(rc == 0, "stap -p2 -W for %s exited with %d:\n%s",
		      kernels[_i].release, rc, err);
	free(err);
	free(script);
	free(tree);
	free(root);
	free(stap);
}
END_TEST

/* ---- the lines the script prints ---- */

START_TEST(formats_are_v4_fields)
{
	char *text = script_text();
	struct fmts *f = malloc(sizeof(*f));
	size_t entries = 0, fragments = 0;

	ck_assert(f);
	collect_fmts(text, f);
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt *m = &f->v[i];
		const char *bare[] = { "", "" };
		char out[4096], name[64];
		const char *why;
		bool stat, link;

		if (is_entry(m, &stat, &link)) {
			ck_assert_msg(!strncmp(m->text, "o=", 2) &&
				      op_of(m->text, name, sizeof(name)),
				      "\"%s\" does not start with o=NAME;:,",
				      m->text);
			ck_assert_msg(sys_lookup(name, strlen(name), false) >= 0,
				      "unknown operation %s", name);
			entries++;
		} else if (!is_call(m, "sprintf", NULL) ||
			   strstr(m->text, "%%") || !strncmp(m->text, "|@", 2)) {
			continue;	/* not a group of fields: an escape, or
					 * the mark of a path read at return */
		} else {
			fragments++;
		}
		fill(m->text, bare, ARRAY_SIZE(bare), out, sizeof(out));
		why = fields_error(out);
		ck_assert_msg(!why, "format \"%s\" gives \"%s\": %s", m->text,
			      out, why);
	}
	ck_assert_uint_ge(entries, 60);
	ck_assert_uint_ge(fragments, 3);
	free_fmts(f);
	free(f);
	free(text);
}
END_TEST

/* Append @line to @buf (of size @cap, at *@len). */
static void add_line(char *buf, size_t cap, size_t *len, const char *line)
{
	size_t l = strlen(line);

	ck_assert(*len + l < cap);
	memcpy(buf + *len, line, l + 1);
	*len += l;
}

/*
 * The syscalls the loader takes for probed (it counts the others of the
 * module's syscall counts as not captured) are those the script prints
 * lines for, by their x86_64 names; exec records stand for execve and
 * execveat, fork records for the process calls.
 */
START_TEST(probed_list_is_the_scripts)
{
	static const char *const records[] = { "fork", "exec", "exit", "lost" };
	static const char *const not_probed[] = {
		"openat2", "close_range", "io_uring_enter", "io_submit",
		"madvise", "getpid", "futex", "exit",
	};
	char *text = script_text(), *p = text;
	size_t names = 0;

	ck_assert(text);
	while ((p = strstr(p, "o="))) {
		char name[64];
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789_");
		bool record = false;

		p += 2;
		if (n == 0 || n >= sizeof(name) || p[n] != ';')
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(records); i++)
			record |= !strcmp(name, records[i]);
		if (record)
			continue;
		ck_assert_msg(capture_syscall_nr(name) >= 0,
			      "o=%s: no x86_64 syscall of that name", name);
		ck_assert_msg(capture_stap_probes(name),
			      "o=%s: not in src/capture/stap.c's list", name);
		names++;
	}
	ck_assert_uint_ge(names, 90);
	for (size_t i = 0; i < ARRAY_SIZE(not_probed); i++)
		ck_assert_msg(!capture_stap_probes(not_probed[i]),
			      "%s taken for probed", not_probed[i]);
	for (const char *const *c = (const char *const[]){ "execve", "execveat",
		"clone", "clone3", "fork", "vfork", NULL }; *c; c++)
		ck_assert(capture_stap_probes(*c));
	free(text);
}
END_TEST

START_TEST(formats_parse)
{
	char *text = script_text(), *dir = tu_scratch(), *path, err[512];
	struct fmts *f = malloc(sizeof(*f));
	size_t cap = 1 << 20, len = 0, lines = 0, stats = 0, links = 0, got = 0;
	char *buf = malloc(cap);
	char (*ops)[64] = calloc(MAX_FMTS, 64);
	const char *line_fmt, *statres, *linkres;
	char statbuf[256], linkbuf[256];
	struct caplog_reader *r;
	struct cap_event ev;
	int rc;

	ck_assert(f && buf && ops);
	collect_fmts(text, f);
	line_fmt = syscall_line_fmt(f);
	statres = return_fmt(f, "m=");
	fill(statres, NULL, 0, statbuf, sizeof(statbuf));
	linkres = return_fmt(f, "P=");
	fill(linkres, NULL, 0, linkbuf, sizeof(linkbuf));

	buf[0] = '\0';
	for (size_t i = 0; i < f->n; i++) {	/* the header lines first */
		char out[4096];

		if (is_line(&f->v[i]) && f->v[i].text[0] == '#') {
			fill(f->v[i].text, NULL, 0, out, sizeof(out));
			add_line(buf, cap, &len, out);
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt *m = &f->v[i];
		const char *none[] = { "", "" };
		char fields[4096], out[8192];
		bool stat, link;

		if (is_entry(m, &stat, &link)) {
			const char *bare[2] = { fields, stat ? statbuf :
						link ? linkbuf : "" };

			fill(m->text, none, ARRAY_SIZE(none), fields,
			     sizeof(fields));
			fill(line_fmt, bare, 2, out, sizeof(out));
			stats += stat;
			links += link;
		} else if (is_line(m) && m->text[0] == 't' && m->text != line_fmt) {
			fill(m->text, NULL, 0, out, sizeof(out));
		} else {
			continue;
		}
		ck_assert(op_of(out, ops[lines], 64));
		add_line(buf, cap, &len, out);
		lines++;
	}
	ck_assert_uint_ge(lines, 60);
	ck_assert_uint_ge(stats, 5);
	ck_assert_uint_eq(links, 2);		/* readlink, readlinkat */
	path = tu_write_str(dir, "formats.capture", buf);

	r = caplog_open(path, err, sizeof(err));
	ck_assert_msg(r, "%s\n%s", err, buf);
	ck_assert_int_eq(caplog_header(r)->version, 4);
	ck_assert_str_eq(caplog_header(r)->backend, "systemtap");
	ck_assert_str_eq(caplog_header(r)->host, SAMPLE_HOST);
	while ((rc = caplog_next(r, &ev)) == 1) {
		const char *name = sys_info(ev.sys)->name;

		ck_assert_uint_lt(got, lines);
		ck_assert_msg(!strcmp(name, ops[got]), "event %zu is %s, not %s",
			      got, name, ops[got]);
		if (ev.sys < SYS_EXIT_GROUP)
			ck_assert_msg((ev.have & (CAP_RET | CAP_DUR)) ==
				      (CAP_RET | CAP_DUR),
				      "%s: no r or D", name);
		if (sys_is_stat(ev.sys))
			ck_assert_msg((ev.have & (CAP_MODE | CAP_SIZE)) ==
				      (CAP_MODE | CAP_SIZE),
				      "%s: no stat results", name);
		if (ev.have & CAP_PATH)
			ck_assert_str_eq(ev.path, SAMPLE_PATH_DECODED);
		if (ev.have & CAP_PATH2)
			ck_assert_str_eq(ev.path2, "rel:b");
		got++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(got, lines);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(r, why) == 0, "%s:\n%s",
			      caplog_bad_name(why), buf);
	caplog_close(r);

	free(path);
	free(ops);
	free(buf);
	free_fmts(f);
	free(f);
	free(dir);
	free(text);
}
END_TEST

/* ---- the hand-made capture ---- */

/*
 * The keys a line of operation @op must have, in order, from the script's
 * format for it: "tDi" and the entry fields and "r" for a syscall, the
 * record's own format otherwise.  A '*' stands for a bare %s (optional c,
 * O, Q, W fields, a lock's range, or an ACL's m), a '+' for the optional
 * stat results m and s, a '&' for
 * readlink's optional target P, a '~' for the optional on-CPU keys C and
 * X (cpu_fields()).  Returns false
 * if the script prints no such operation.
 */
static bool script_keys(const struct fmts *f, const char *op, char *keys,
			size_t len)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct fmt *m = &f->v[i];
		const char *t = m->text;
		char name[64];
		size_t k = 0;
		bool stat, link, entry = is_entry(m, &stat, &link);

		if ((!entry && !(is_line(m) && t[0] == 't')) ||
		    !op_of(t, name, sizeof(name)) || strcmp(name, op))
			continue;
		if (entry)
			k += (size_t)snprintf(keys, len, "tDi");
		for (const char *p = t; *p && k + 2 < len; p++) {
			if (p[1] == '=' && (p == t || p[-1] == ',' || p[-1] == ';' ||
					    (p - t >= 2 && p[-1] == 's' &&
					     p[-2] == '%')))
				keys[k++] = *p;
			else if (p > t && p[0] == '%' && p[1] == 's' &&
				 p[-1] != '=' && p[2] != '=')
				keys[k++] = '*';
		}
		if (entry) {
			if (stat)
				keys[k++] = '+';
			if (link)
				keys[k++] = '&';
			keys[k++] = '~';
			keys[k++] = 'r';
		}
		keys[k] = '\0';
		return true;
	}
	return false;
}

/* The keys of a log line, in order. */
static void line_keys(const char *line, char *keys, size_t len)
{
	size_t k = 0;

	for (const char *p = line; *p && *p != '\n' && k + 1 < len; ) {
		keys[k++] = *p;
		p = strstr(p, ";:,");
		if (!p)
			break;
		p += 3;
	}
	keys[k] = '\0';
}

/* True if the line keys @got follow the pattern @want of script_keys(). */
static bool keys_match(const char *want, const char *got)
{
	while (*want) {
		if (strchr("*+&~", *want)) {
			const char *set = *want == '*' ? "cOQWmp" :
					  *want == '+' ? "ms" :
					  *want == '~' ? "CX" : "P";
			const char *next = want + 1;

			/* Consecutive patterns each take their own keys, up
			 * to the next key wanted. */
			while (*next && strchr("*+&~", *next))
				next++;
			want++;
			while (*got && strchr(set, *got) && *got != *next)
				got++;
			continue;
		}
		if (*got != *want)
			return false;
		want++;
		got++;
	}
	return *got == '\0';
}

static char *fixture_path(void)
{
	return tu_join(tu_datadir(), "stap/expected-lines.capture");
}

START_TEST(fixture_follows_formats)
{
	char *text = script_text(), *path = fixture_path();
	char *log = tu_read(path, NULL), *save = NULL;
	struct fmts *f = malloc(sizeof(*f));
	bool seen[SYS_COUNT] = { false };
	size_t lines = 0;

	ck_assert_msg(log, "%s: %s", path, strerror(errno));
	ck_assert(f);
	collect_fmts(text, f);
	for (char *l = strtok_r(log, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[64], want[64], got[64];
		int id;

		if (l[0] == '#')
			continue;
		ck_assert_msg(op_of(l, name, sizeof(name)), "no o= in %s", l);
		id = sys_lookup(name, strlen(name), false);
		ck_assert_msg(id >= 0, "unknown operation in %s", l);
		ck_assert_msg(!seen[id], "operation %s twice", name);
		seen[id] = true;
		ck_assert_msg(script_keys(f, name, want, sizeof(want)),
			      "the script prints no %s", name);
		line_keys(l, got, sizeof(got));
		ck_assert_msg(keys_match(want, got),
			      "%s: keys %s, the script's format gives %s", name,
			      got, want);
		lines++;
	}
	/* And every operation the script prints has a line. */
	for (size_t i = 0; i < f->n; i++) {
		char name[64];
		bool stat, link;

		if ((is_entry(&f->v[i], &stat, &link) ||
		     (is_line(&f->v[i]) && f->v[i].text[0] == 't')) &&
		    op_of(f->v[i].text, name, sizeof(name)))
			ck_assert_msg(seen[sys_lookup(name, strlen(name), false)],
				      "%s has no line in %s", name, path);
	}
	ck_assert_uint_ge(lines, 60);
	free_fmts(f);
	free(f);
	free(log);
	free(path);
	free(text);
}
END_TEST

/* The numeric fields whose presence fixture_events[] states. */
#define CHECKED (CAP_FD | CAP_RET | CAP_MODE | CAP_SIZE | CAP_FLAGS | CAP_COUNT)

/* Expected fields of selected fixture lines. */
static const struct {
	enum sys_id sys;
	uint32_t pid, tid;
	unsigned have;		/* which CHECKED fields the line has */
	int64_t fd, ret, mode, size, flags, count;
	const char *path, *path2;
} fixture_events[] = {
	{ SYS_OPENAT, 100, 100, CAP_FD | CAP_RET | CAP_MODE | CAP_FLAGS,
	  -100, 4, 438, 0, 577, 0, "/srv/mail/inbox old", NULL },
	{ SYS_NEWFSTATAT, 100, 100, CHECKED & ~CAP_COUNT,
	  -100, 0, 41471, 7, 256, 0, "/usr/lib/caf\xc3\xa9.so", NULL },
	{ SYS_STATX, 100, 100, CHECKED & ~CAP_COUNT & ~CAP_PATH,
	  4, 0, 16877, 4096, 4096, 0, NULL, NULL },
	{ SYS_RENAMEAT2, 100, 100, CAP_FD | CAP_RET | CAP_FLAGS,
	  -100, 0, 0, 0, 1, 0, "/srv/c;x", "/srv/c" },
	{ SYS_RENAMEAT, 100, 100, CAP_FD | CAP_RET,
	  9, 0, 0, 0, 0, 0, "b.tmp", "/srv/b" },
	{ SYS_LSTAT, 100, 100, CAP_RET, 0, -2, 0, 0, 0, 0, "/tmp/x", NULL },
	{ SYS_GETDENTS, 100, 100, CAP_FD | CAP_RET | CAP_COUNT,
	  8, 1024, 0, 0, 0, 32768, NULL, NULL },
	{ SYS_GETDENTS64, 100, 100, CAP_FD | CAP_RET | CAP_COUNT,
	  8, 0, 0, 0, 0, 32768, NULL, NULL },
	{ SYS_READV, 100, 101, CAP_FD | CAP_RET | CAP_COUNT,
	  4, 12288, 0, 0, 0, 12288, NULL, NULL },
	{ SYS_WRITEV, 100, 101, CAP_FD | CAP_RET, 4, 1024, 0, 0, 0, 0,
	  NULL, NULL },
	{ SYS_SYMLINK, 100, 100, CAP_RET, 0, 0, 0, 0, 0, 0, "../a",
	  "/srv/sub/l" },
	/* P: the target read, kept as it is; c: the buffer's size */
	{ SYS_READLINKAT, 100, 100, CAP_FD | CAP_RET | CAP_COUNT, -100, 5, 0,
	  0, 0, 4096, "/srv/link", "../xy" },
	{ SYS_FCHMODAT2, 100, 100, CAP_FD | CAP_RET | CAP_MODE | CAP_FLAGS,
	  -100, 0, 416, 0, 256, 0, "/srv/a", NULL },
	/* an ACL's mode; an attribute's name, escaped, in P */
	{ SYS_SETXATTR, 100, 100, CAP_RET | CAP_MODE | CAP_COUNT, 0, 0, 420, 0,
	  0, 28, "/srv/a", "system.posix_acl_access" },
	{ SYS_LSETXATTR, 100, 100, CAP_RET | CAP_COUNT, 0, 0, 0, 0, 0, 3,
	  "/srv/a", "user.x y" },
	{ SYS_FLOCK, 100, 100, CAP_FD | CAP_RET | CAP_FLAGS, 4, 0, 0, 0, 6, 0,
	  NULL, NULL },
	{ SYS_EXEC, 200, 200, CAP_RET, 0, 0, 0, 0, 0, 0, NULL, NULL },
	{ SYS_EXIT, 200, 200, 0, 0, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct cap_event *find_event(const struct cap_event *evs,
					  size_t n, enum sys_id sys)
{
	for (size_t i = 0; i < n; i++)
		if (evs[i].sys == sys)
			return &evs[i];
	ck_abort_msg("no %s event in the fixture", sys_info(sys)->name);
	return NULL;
}

static void check_num(const char *op, const char *key, unsigned have,
		      unsigned bit, int64_t got, int64_t want)
{
	if (have & bit)
		ck_assert_msg(got == want, "%s %s is %lld, want %lld", op, key,
			      (long long)got, (long long)want);
}

START_TEST(fixture_fields)
{
	char *path = fixture_path(), err[512];
	struct caplog_reader *r = caplog_open(path, err, sizeof(err));
	struct cap_event *evs = calloc(128, sizeof(*evs));
	char *paths[128][2] = { { NULL } };
	size_t n = 0;
	int rc;

	ck_assert_msg(r, "%s", err);
	ck_assert(evs);
	ck_assert_int_eq(caplog_header(r)->version, 4);
	ck_assert_str_eq(caplog_header(r)->backend, "systemtap");
	ck_assert_str_eq(caplog_header(r)->kernel, "3.10.0-1160.el7.x86_64");
	while ((rc = caplog_next(r, &evs[n])) == 1) {
		ck_assert_uint_lt(n, 127);
		/* Strings last until the next call: keep copies. */
		if (evs[n].have & CAP_PATH)
			evs[n].path = paths[n][0] = strdup(evs[n].path);
		if (evs[n].have & CAP_PATH2)
			evs[n].path2 = paths[n][1] = strdup(evs[n].path2);
		n++;
	}
	ck_assert_int_eq(rc, 0);
	for (int why = 0; why < CAPLOG_BAD_COUNT; why++)
		ck_assert_msg(caplog_bad(r, why) == 0, "bad lines: %s",
			      caplog_bad_name(why));
	ck_assert_uint_eq(caplog_lines(r), 97);
	ck_assert_uint_eq(n, 95);

	for (size_t i = 0; i < ARRAY_SIZE(fixture_events); i++) {
		const typeof(fixture_events[0]) *e = &fixture_events[i];
		const struct cap_event *ev = find_event(evs, n, e->sys);
		const char *name = sys_info(ev->sys)->name;

		ck_assert_msg(ev->pid == e->pid && ev->tid == e->tid,
			      "%s: i=%u:%u", name, ev->pid, ev->tid);
		ck_assert_msg((ev->have & CHECKED) == e->have,
			      "%s: fields %#x, want %#x", name,
			      ev->have & CHECKED, e->have);
		check_num(name, "d", e->have, CAP_FD, ev->fd, e->fd);
		check_num(name, "r", e->have, CAP_RET, ev->ret, e->ret);
		check_num(name, "m", e->have, CAP_MODE, ev->mode, e->mode);
		check_num(name, "s", e->have, CAP_SIZE, ev->size, e->size);
		check_num(name, "f", e->have, CAP_FLAGS, ev->flags, e->flags);
		check_num(name, "c", e->have, CAP_COUNT, ev->count, e->count);
		if (e->path)
			ck_assert_msg((ev->have & CAP_PATH) &&
				      !strcmp(ev->path, e->path), "%s: path", name);
		if (e->path2)
			ck_assert_msg((ev->have & CAP_PATH2) &&
				      !strcmp(ev->path2, e->path2), "%s: path2",
				      name);
	}

	const struct cap_event *ev = find_event(evs, n, SYS_FORK);

	ck_assert(ev->have & CAP_CHILD);
	ck_assert(!(ev->have & CAP_RET));	/* as the BPF probe's */
	ck_assert_uint_eq(ev->child_pid, 200);
	ck_assert_uint_eq(ev->child_tid, 200);
	ev = find_event(evs, n, SYS_LOST);
	ck_assert(ev->have & CAP_COUNT);
	ck_assert_int_eq(ev->count, 3);
	ev = find_event(evs, n, SYS_CHOWN);
	ck_assert((ev->have & (CAP_UID | CAP_ARG)) == (CAP_UID | CAP_ARG));
	ck_assert_int_eq(ev->uid, 1000);
	ck_assert_int_eq(ev->arg, 1001);
	ev = find_event(evs, n, SYS_PREAD64);
	ck_assert_int_eq(ev->offset, 3221225472LL);
	/* The on-CPU keys where the kernel headers name them: a thread's
	 * first line has X only, later ones C, and X where the call was not
	 * all on a CPU; lines without them have neither. */
	ck_assert((ev->have & (CAP_CPU | CAP_CPU_CALL)) ==
		  (CAP_CPU | CAP_CPU_CALL));
	ck_assert_uint_eq(ev->cpu_ns, 250);
	ck_assert_uint_eq(ev->cpu_call_ns, 900);
	ev = find_event(evs, n, SYS_READ);
	ck_assert((ev->have & (CAP_CPU | CAP_CPU_CALL)) == CAP_CPU_CALL);
	ck_assert_uint_eq(ev->cpu_call_ns, 1500);
	ev = find_event(evs, n, SYS_READV);
	ck_assert((ev->have & (CAP_CPU | CAP_CPU_CALL)) ==
		  (CAP_CPU | CAP_CPU_CALL));
	ck_assert_uint_eq(ev->cpu_ns, 300);
	ck_assert_uint_eq(ev->cpu_call_ns, ev->dur_ns);
	ev = find_event(evs, n, SYS_OPEN);
	ck_assert(!(ev->have & (CAP_CPU | CAP_CPU_CALL)));
	ev = find_event(evs, n, SYS_MMAP);
	ck_assert_int_eq(ev->ret, 140234567680000LL);
	ck_assert((ev->have & CAP_ADDR) && ev->addr == 0);
	ev = find_event(evs, n, SYS_COPY_FILE_RANGE);
	ck_assert((ev->have & (CAP_FD2 | CAP_OFFSET2)) == (CAP_FD2 | CAP_OFFSET2));
	ck_assert_int_eq(ev->fd2, 6);
	ck_assert_int_eq(ev->offset2, 4096);

	for (size_t i = 0; i < n; i++) {
		free(paths[i][0]);
		free(paths[i][1]);
	}
	free(evs);
	caplog_close(r);
	free(path);
}
END_TEST

/* ---- the escaping function ---- */

/* The body of function @name in the script, malloc'd. */
static char *function_body(const char *text, const char *name)
{
	char head[64], *body;
	const char *p, *e;

	snprintf(head, sizeof(head), "function %s:", name);
	p = strstr(text, head);
	ck_assert_msg(p, "no %s in the script", head);
	e = strstr(p, "\n}\n");
	ck_assert(e);
	body = strndup(p, (size_t)(e - p));
	ck_assert(body);
	return body;
}

/* True if byte @c stays as it is in an escaped path (section 3). */
static bool plain_byte(unsigned c)
{
	return c >= 0x21 && c <= 0x7e && !strchr("%;:,=|", (int)c);
}

START_TEST(escape_regex_is_the_plain_set)
{
	char *text = script_text(), *body = function_body(text, "esc");
	const char *q = strstr(body, "=~ \"");
	char *re;
	regex_t rx;

	ck_assert_msg(q, "esc() has no =~ match");
	q += 4;
	re = strndup(q, strcspn(q, "\""));
	ck_assert(re);
	ck_assert_int_eq(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	for (unsigned c = 1; c < 256; c++) {
		char s[] = { 'a', (char)c, 'b', '\0' };
		bool m = regexec(&rx, s, 0, NULL, 0) == 0;

		ck_assert_msg(m == plain_byte(c),
			      "byte 0x%02x: regex %s says %s", c, re,
			      m ? "plain" : "escape");
	}
	ck_assert_int_eq(regexec(&rx, "", 0, NULL, 0), 0);
	regfree(&rx);
	free(re);
	free(body);
	free(text);
}
END_TEST

/*
 * A bare `return` at the end of a line takes the next line as its value
 * (stap's parser reads `return EXPR` across the newline): in leave() that
 * made every syscall line print only when it should not.  A return without
 * a value is written `return;`.
 */
START_TEST(bare_returns_end_their_statement)
{
	char *text = script_text();
	unsigned line = 1;

	for (char *l = text, *nl; l && *l; l = nl ? nl + 1 : NULL, line++) {
		size_t n = strspn(l, " \t");

		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		ck_assert_msg(strncmp(l + n, "return", 6) != 0 ||
			      l[n + 6 + strspn(l + n + 6, " \t")] != '\0',
			      "ioriot.stp: a bare return (write return;): "
			      "line %u", line);
	}
	free(text);
}
END_TEST

START_TEST(escape_loop_is_the_escaped_set)
{
	char *text = script_text(), *body = function_body(text, "esc");
	bool listed[256] = { false };
	size_t n = 0;

	/* The slow path escapes c < 33, c > 126 and the listed c == N. */
	ck_assert_msg(strstr(body, "c < 33") && strstr(body, "c > 126"),
		      "esc() does not escape outside 33..126");
	ck_assert(strstr(body, "sprintf(\"%%%02X\", c)"));
	for (const char *p = body; (p = strstr(p, "c == ")); p += 5) {
		long v = strtol(p + 5, NULL, 10);

		ck_assert(v > 0 && v < 256);
		listed[v] = true;
		n++;
	}
	for (unsigned c = 33; c <= 126; c++)
		ck_assert_msg(listed[c] == !plain_byte(c),
			      "byte '%c': listed %d", c, listed[c]);
	ck_assert_uint_eq(n, 6);
	free(body);
	free(text);
}
END_TEST

Suite *stap_suite(void)
{
	Suite *s = suite_create("stap");
	TCase *tc = tcase_create("stap");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, script_parses);
	tcase_add_loop_test(tc, script_elaborates, 0, ARRAY_SIZE(kernels));
	suite_add_tcase(s, tc);

	tc = tcase_create("lines");
	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, formats_are_v4_fields);
	tcase_add_test(tc, formats_parse);
	tcase_add_test(tc, probed_list_is_the_scripts);
	tcase_add_test(tc, fixture_follows_formats);
	tcase_add_test(tc, fixture_fields);
	tcase_add_test(tc, escape_regex_is_the_plain_set);
	tcase_add_test(tc, escape_loop_is_the_escaped_set);
	tcase_add_test(tc, bare_returns_end_their_statement);
	suite_add_tcase(s, tc);
	return s;
}
