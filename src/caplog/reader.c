/*
 * caplog reader: parses capture logs v2, v3 and v4 into struct cap_event.
 * See docs/capture-format.md for the grammar and caplog.h for the contract.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/caplog.h"
#include "ioriot/escape.h"
#include "ioriot/linereader.h"
#include "ioriot/log.h"
#include "ioriot/uncaptured.h"

#define MAX_WARNINGS 10
#define NS_PER_MS 1000000ULL
/* v2/v3 durations at or above this are artefacts (exit_group logs D = t). */
#define MAX_SANE_DURATION_NS (3600ULL * 1000000000ULL)

struct caplog_reader {
	struct linereader *lines;
	struct caplog_header hdr;
	char *path;
	struct line pending;		/* first event line, read with the header */
	bool have_pending;
	bool have_base;
	uint64_t base_ns;		/* entry time of the first event */
	uint64_t nlines;
	struct caplog_end end;		/* the last end record read */
	bool have_end;			/* ... and no line after it */
	struct uncaptured uncap;	/* the uncaptured record, if read */
	uint64_t bad[CAPLOG_BAD_COUNT];
	uint64_t warned;
};

/* Raw field values of one line, by key. */
struct fields {
	uint64_t seen;			/* bit per slot */
	int64_t num[64];
	const char *str[64];
	uint32_t len[64];
};

/* Keys map to slots 0..51: a-z then A-Z. */
static inline int slot_of(unsigned char key)
{
	if (key >= 'a' && key <= 'z')
		return key - 'a';
	if (key >= 'A' && key <= 'Z')
		return 26 + key - 'A';
	return -1;
}

#define SLOT(k) ((k) >= 'a' ? (k) - 'a' : 26 + (k) - 'A')
#define HAS(f, k) (((f)->seen >> SLOT(k)) & 1)
#define NUM(f, k) ((f)->num[SLOT(k)])
#define BIT(k) (1ULL << SLOT(k))

/* The keys each version defines; v2/v3 reject others, v4 ignores them. */
#define KEYS_V3 (BIT('t') | BIT('D') | BIT('i') | BIT('o') | BIT('d') | \
		 BIT('p') | BIT('P') | BIT('f') | BIT('m') | BIT('b') | \
		 BIT('c') | BIT('s') | BIT('O') | BIT('W') | BIT('F') | \
		 BIT('G') | BIT('a') | BIT('A') | BIT('T'))
#define KEYS_V4 (BIT('t') | BIT('D') | BIT('i') | BIT('o') | BIT('r') | \
		 BIT('d') | BIT('e') | BIT('p') | BIT('P') | BIT('f') | \
		 BIT('m') | BIT('O') | BIT('Q') | BIT('W') | BIT('c') | \
		 BIT('F') | BIT('G') | BIT('U') | BIT('s') | BIT('a') | \
		 BIT('A') | BIT('k') | BIT('B') | BIT('u') | BIT('C') | \
		 BIT('X') | BIT('K') | BIT('R') | BIT('T'))

static const char *const bad_names[CAPLOG_BAD_COUNT] = {
	[CAPLOG_BAD_SYNTAX] = "malformed line",
	[CAPLOG_BAD_MISSING] = "missing t, i or o field",
	[CAPLOG_BAD_UNKNOWN_OP] = "unknown operation",
	[CAPLOG_BAD_TOO_LONG] = "line too long",
	[CAPLOG_BAD_TRUNCATED] = "truncated last line",
	[CAPLOG_BAD_NUL] = "NUL byte in line",
};

const char *caplog_bad_name(enum caplog_bad why)
{
	return bad_names[why];
}

static void reject(struct caplog_reader *r, const struct line *ln,
		   enum caplog_bad why, const char *detail)
{
	r->bad[why]++;
	if (r->warned++ < MAX_WARNINGS)
		log_warn("%s:%llu: %s%s%s, line skipped", r->path,
			 (unsigned long long)ln->lineno, bad_names[why],
			 detail ? ": " : "", detail ? detail : "");
	else if (r->warned == MAX_WARNINGS + 1)
		log_warn("%s: more bad lines follow; they are counted in the summary",
			 r->path);
}

/* Keys whose values are text, and keys holding PID:TID; every other key
 * holds a decimal number. */
#define TEXT_KEYS (BIT('o') | BIT('p') | BIT('P') | BIT('T'))
#define ID_KEYS (BIT('i') | BIT('k'))

/*
 * Parse the decimal number at *@pp, optionally negative, and leave *@pp
 * after it.  Digits are converted eight at a time (SWAR): this reads up to 8
 * bytes past the number, which linereader's padding allows.  Returns false
 * if there is no number, it overflows, or it runs past @end.
 */
static inline __attribute__((always_inline)) bool
scan_number(char **pp, const char *end, int64_t *out)
{
	static const uint64_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000,
					   1000000, 10000000, 100000000 };
	char *p = *pp;
	bool neg = p < end && *p == '-';
	uint64_t v = 0;
	unsigned n;

	p += neg;
	char *digits = p;
	do {
		uint64_t x;
		memcpy(&x, p, 8);
		/* High bit of each byte that is not '0'..'9' (the first one
		 * from the low end is exact; carries only go upward). */
		uint64_t bad = ((x + 0x4646464646464646ULL) |
				(x - 0x3030303030303030ULL) | x) &
			       0x8080808080808080ULL;
		n = bad ? (unsigned)__builtin_ctzll(bad) >> 3 : 8;
		if (n) {
			uint64_t t = x << (64 - 8 * n);	/* n digits, high end */
			t = (t & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
			t = (t & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
			t = (t & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
			v = v * pow10[n] + t;
			p += n;
		}
	} while (n == 8);
	size_t ndigits = (size_t)(p - digits);
	if (ndigits == 0 || p > end || (neg && v > (uint64_t)INT64_MAX + 1))
		return false;
	if (ndigits > 19) {
		/* Only 20-digit values can overflow: redo them carefully. */
		v = 0;
		for (char *q = digits; q < p; q++)
			if (__builtin_mul_overflow(v, 10, &v) ||
			    __builtin_add_overflow(v, (unsigned)(*q - '0'), &v))
				return false;
	}
	/* Unsigned 64-bit values (addresses) wrap into int64_t on purpose. */
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*pp = p;
	return true;
}

/*
 * The first ';' or NUL at or after @q, eight bytes at a time (lines end with
 * a NUL and are padded, so the reads stay inside the buffer).  In the zero
 * byte test only bytes above the first match can be false positives.
 */
static inline char *find_stop(char *q)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;

	for (;; q += 8) {
		uint64_t x, semi;
		memcpy(&x, q, 8);
		semi = x ^ (ones * ';');
		uint64_t hit = (((x - ones) & ~x) | ((semi - ones) & ~semi)) & highs;
		if (hit)
			return q + (__builtin_ctzll(hit) >> 3);
	}
}

/* Whether ";:," is at @q (which has 4 readable bytes: padding). */
static inline bool is_field_end(const char *q)
{
	uint32_t w;

	memcpy(&w, q, 4);
	return (w & 0xFFFFFF) == (';' | ':' << 8 | ',' << 16);
}

/* Parse "PID:TID" at *@pp into pid << 32 | tid.  False if malformed. */
static inline bool scan_ids(char **pp, const char *end, int64_t *out)
{
	int64_t pid, tid;

	if (!scan_number(pp, end, &pid) || *pp >= end || **pp != ':')
		return false;
	(*pp)++;
	if (!scan_number(pp, end, &tid) || pid < 0 || tid < 0 ||
	    pid > UINT32_MAX || tid > UINT32_MAX)
		return false;
	*out = (int64_t)((uint64_t)pid << 32 | (uint64_t)tid);
	return true;
}

/*
 * A syntax error at @p: the rest of the line, from @p on, is still as read,
 * so a NUL byte there is the better explanation.  Returns the message.
 */
static const char *bad_syntax(const char *p, const char *end, const char *msg,
			      enum caplog_bad *why)
{
	if (memchr(p, '\0', (size_t)(end - p))) {
		*why = CAPLOG_BAD_NUL;
		return "";
	}
	*why = CAPLOG_BAD_SYNTAX;
	return msg;
}

static const char *split_fields(char *s, size_t len, int version,
				struct fields *f, enum caplog_bad *why)
{
	const uint64_t known = version >= 4 ? KEYS_V4 : KEYS_V3;
	char *p = s, *end = s + len;

	f->seen = 0;
	*why = CAPLOG_BAD_SYNTAX;
	while (p < end) {
		if (end - p < 2 || p[1] != '=')
			return bad_syntax(p, end, "field is not KEY=VALUE", why);
		int slot = slot_of((unsigned char)p[0]);
		bool keep = slot >= 0 && (known >> slot & 1);
		char *v = p + 2, *q = v;

		if (!keep && version < 4)
			return bad_syntax(p, end, "unknown key", why);
		if (keep && (ID_KEYS >> slot & 1)) {
			if (!scan_ids(&q, end, &f->num[slot]))
				return bad_syntax(q, end, "bad PID:TID", why);
		} else if (keep && !(TEXT_KEYS >> slot & 1)) {
			if (!scan_number(&q, end, &f->num[slot]))
				return bad_syntax(q, end, "bad number", why);
		} else {
			q = find_stop(q);
			while (version < 4 && q < end && *q == ';' &&
			       !(end - q >= 3 && q[1] == ':' && q[2] == ','))
				q = find_stop(q + 1);
			if (keep) {
				f->str[slot] = v;
				f->len[slot] = (uint32_t)(q - v);
			}
		}
		if (q < end) {
			if (end - q < 3 || !is_field_end(q))
				return bad_syntax(q, end, !keep || (TEXT_KEYS >> slot & 1) ?
						  "field not ended by ;:," :
						  (ID_KEYS >> slot & 1) ? "bad PID:TID" :
						  "bad number", why);
			*q = '\0';
			p = q + 3;
		} else {
			p = end;
		}
		if (keep)
			f->seen |= 1ULL << slot;
	}
	return NULL;
}

/* Decode a path field in place.  Returns false for a bad escape. */
static bool field_path(struct fields *f, int slot, int version,
			      const char **out, uint32_t *out_len)
{
	char *s = (char *)f->str[slot];
	size_t len = f->len[slot];

	if (version >= 4) {
		long n = escape_decode(s, len);
		if (n < 0)
			return false;
		len = (size_t)n;
	} else if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		s++;
		len -= 2;
		s[len] = '\0';
	}
	*out = s;
	*out_len = (uint32_t)len;
	return true;
}

/* v2/v3: d is a dirfd (ignored: paths are absolute) for these kinds. */
static bool v3_d_is_dirfd(enum sys_kind kind)
{
	switch (kind) {
	case SK_PATHOP: case SK_STATAT: case SK_MKDIR: case SK_RMDIR:
	case SK_UNLINK: case SK_RENAME: case SK_LINK: case SK_SYMLINK:
	case SK_TRUNCATE: case SK_MKNOD:
		return true;
	default:
		return false;
	}
}

/*
 * C and X of a v4 line of duration @dur into @ev: X, or without it all of
 * @dur when the line has C (docs/capture-format.md §4); and K and R, which
 * only a line with C may have (and R a wake record).  Returns NULL, or
 * what is wrong.
 */
static const char *take_cpu(const struct fields *f, int64_t dur,
			    struct cap_event *ev)
{
	if (HAS(f, 'C')) {
		if (NUM(f, 'C') < 0)
			return "negative on-CPU time";
		ev->cpu_ns = (uint64_t)NUM(f, 'C');
		ev->cpu_call_ns = dur > 0 ? (uint64_t)dur : 0;
		ev->have |= CAP_CPU | CAP_CPU_CALL;
	}
	if (HAS(f, 'X')) {
		if (NUM(f, 'X') < 0 || NUM(f, 'X') > (dur > 0 ? dur : 0))
			return "on-CPU time in the call beyond its duration";
		ev->cpu_call_ns = (uint64_t)NUM(f, 'X');
		ev->have |= CAP_CPU_CALL;
	}
	if (HAS(f, 'K')) {
		if (NUM(f, 'K') < 0 || !HAS(f, 'C'))
			return "calls left out (K) without C, or negative";
		ev->folded = (uint64_t)NUM(f, 'K');
	}
	if (HAS(f, 'R')) {
		if (NUM(f, 'R') < 0 || (!HAS(f, 'C') && ev->sys != SYS_WAKE))
			return "wait for a CPU (R) without C, or negative";
		ev->runq_ns = (uint64_t)NUM(f, 'R');
		ev->have |= CAP_RUNQ;
	}
	return NULL;
}

/*
 * Turn the fields of one line into @ev.  Returns NULL, or a description of
 * what is wrong with the reason in @why.
 */
static const char *build_event(struct caplog_reader *r, struct fields *f,
			       struct cap_event *ev, enum caplog_bad *why)
{
	int version = r->hdr.version;
	int64_t t, dur = 0;

	*why = CAPLOG_BAD_SYNTAX;
	if (!HAS(f, 't') || !HAS(f, 'i') || !HAS(f, 'o')) {
		*why = CAPLOG_BAD_MISSING;
		return "";
	}
	int sys = sys_lookup(f->str[SLOT('o')], f->len[SLOT('o')], false);
	if (sys < 0) {
		*why = CAPLOG_BAD_UNKNOWN_OP;
		return f->str[SLOT('o')];
	}
	/* Absent fields read as "none": no fd, empty path, zero. */
	memset(ev, 0, sizeof(*ev));
	ev->fd = ev->fd2 = -1;
	ev->path = ev->path2 = "";
	ev->sys = (enum sys_id)sys;
	ev->pid = (uint32_t)((uint64_t)NUM(f, 'i') >> 32);
	ev->tid = (uint32_t)NUM(f, 'i');

	t = NUM(f, 't');
	if (HAS(f, 'D'))
		dur = NUM(f, 'D');
	if (HAS(f, 'p') &&
	    !field_path(f, SLOT('p'), version, &ev->path, &ev->path_len))
		return "bad %XX escape in path";
	if (HAS(f, 'P') &&
	    !field_path(f, SLOT('P'), version, &ev->path2, &ev->path2_len))
		return "bad %XX escape in path";
	if (HAS(f, 'p'))
		ev->have |= CAP_PATH;
	if (HAS(f, 'P'))
		ev->have |= CAP_PATH2;

#define TAKE(key, field, bit) \
	do { if (HAS(f, key)) { ev->field = NUM(f, key); ev->have |= bit; } } while (0)
	TAKE('f', flags, CAP_FLAGS);
	TAKE('m', mode, CAP_MODE);
	TAKE('W', whence, CAP_WHENCE);
	TAKE('c', count, CAP_COUNT);
	TAKE('F', cmd, CAP_CMD);
	TAKE('G', arg, CAP_ARG);
	if (version >= 4) {
		TAKE('r', ret, CAP_RET);
		TAKE('d', fd, CAP_FD);
		TAKE('e', fd2, CAP_FD2);
		TAKE('O', offset, CAP_OFFSET);
		TAKE('Q', offset2, CAP_OFFSET2);
		TAKE('U', uid, CAP_UID);
		TAKE('s', size, CAP_SIZE);
		TAKE('B', buf_index, CAP_BUF);
		TAKE('u', umask, CAP_UMASK);
		if (HAS(f, 'u') && (ev->umask < 0 || ev->umask > 0777))
			return "umask beyond 0777";
		if (HAS(f, 'C') || HAS(f, 'X') || HAS(f, 'R')) {
			const char *bad = take_cpu(f, dur, ev);
			if (bad)
				return bad;
		}
		if (HAS(f, 'a')) {
			ev->addr = (uint64_t)NUM(f, 'a');
			ev->have |= CAP_ADDR;
		}
		if (HAS(f, 'A')) {
			ev->addr2 = (uint64_t)NUM(f, 'A');
			ev->have |= CAP_ADDR2;
		}
		if (HAS(f, 'k')) {
			ev->child_pid = (uint32_t)((uint64_t)NUM(f, 'k') >> 32);
			ev->child_tid = (uint32_t)NUM(f, 'k');
			ev->have |= CAP_CHILD;
		}
		if (t < 0)
			return "negative time";
	} else {
		const struct sys_info *si = sys_info(ev->sys);
		char rk = si->v3_ret_key;

		if (rk && f->seen >> SLOT(rk) & 1) {
			ev->ret = f->num[SLOT(rk)];
			ev->have |= CAP_RET;
		}
		if (HAS(f, 'd') && rk != 'd' && !v3_d_is_dirfd(si->kind))
			TAKE('d', fd, CAP_FD);
		if (HAS(f, 'b') && rk != 'b')
			TAKE('b', count, CAP_COUNT);
		if (sys_is_chown(ev->sys))
			TAKE('O', uid, CAP_UID);
		else
			TAKE('O', offset, CAP_OFFSET);
		if (HAS(f, 'a')) {
			ev->addr = (uint64_t)NUM(f, 'a');
			ev->have |= CAP_ADDR;
		}
		if (HAS(f, 'A') && rk != 'A') {
			ev->addr2 = (uint64_t)NUM(f, 'A');
			ev->have |= CAP_ADDR2;
		}
		if (t < 0)
			return "negative time";
		if (version <= 2)
			t = (int64_t)((uint64_t)t * NS_PER_MS);
		/* v2/v3 time is taken at return: the entry is t - D. */
		if (dur > 0 && (uint64_t)dur < MAX_SANE_DURATION_NS && dur <= t)
			t -= dur;
		else
			dur = 0;
	}
#undef TAKE
	if (dur < 0)
		dur = 0;
	if (dur)
		ev->have |= CAP_DUR;
	ev->dur_ns = (uint64_t)dur;
	if (!r->have_base) {
		r->base_ns = (uint64_t)t;
		r->have_base = true;
	}
	ev->time_ns = (uint64_t)t > r->base_ns ? (uint64_t)t - r->base_ns : 0;
	return NULL;
}

/* Parse a "#|key=value|key=value|" line into the header.  0 or -ENOMEM. */
static int parse_meta(struct caplog_reader *r, char *s, size_t len)
{
	char *mount = NULL, *fstype = NULL;
	size_t mount_len = 0;
	char *save = NULL;

	s[len] = '\0';
	for (char *tok = strtok_r(s + 2, "|", &save); tok;
	     tok = strtok_r(NULL, "|", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		long vlen = escape_decode(eq, strlen(eq));
		if (vlen < 0)
			continue;
		if (strcmp(tok, "host") == 0)
			snprintf(r->hdr.host, sizeof(r->hdr.host), "%s", eq);
		else if (strcmp(tok, "kernel") == 0)
			snprintf(r->hdr.kernel, sizeof(r->hdr.kernel), "%s", eq);
		else if (strcmp(tok, "backend") == 0)
			snprintf(r->hdr.backend, sizeof(r->hdr.backend), "%s", eq);
		else if (strcmp(tok, "start_epoch_ns") == 0)
			r->hdr.start_epoch_ns = strtoull(eq, NULL, 10);
		else if (strcmp(tok, "probe_gap_ns") == 0)
			r->hdr.probe_gap_ns = strtoull(eq, NULL, 10);
		else if (strcmp(tok, "probe_call_ns") == 0)
			r->hdr.probe_call_ns = strtoull(eq, NULL, 10);
		else if (strcmp(tok, "mount") == 0) {
			mount = eq;
			mount_len = (size_t)vlen;
		} else if (strcmp(tok, "fstype") == 0)
			fstype = eq;
	}
	if (mount && fstype && r->hdr.version >= 4) {
		if (!r->hdr.mounts)
			r->hdr.mounts = mounttab_new();
		if (!r->hdr.mounts ||
		    mounttab_add(r->hdr.mounts, mount, mount_len, fstype) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

#define END_PREFIX "#|end|"
#define END_PREFIX_LEN (sizeof(END_PREFIX) - 1)

static bool is_end_record(const struct line *ln)
{
	return ln->len >= END_PREFIX_LEN &&
	       memcmp(ln->s, END_PREFIX, END_PREFIX_LEN) == 0;
}

/* The counter of the end record named @key, or NULL. */
static uint64_t *end_counter(struct caplog_end *e, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "events", offsetof(struct caplog_end, events) },
		{ "lost", offsetof(struct caplog_end, lost) },
		{ "lost_disk_full", offsetof(struct caplog_end, lost_disk_full) },
		{ "filtered", offsetof(struct caplog_end, filtered) },
		{ "paths_cut", offsetof(struct caplog_end, paths_cut) },
		{ "snapshot_fds", offsetof(struct caplog_end, snapshot_fds) },
		{ "missing_tracepoints",
		  offsetof(struct caplog_end, missing_tracepoints) },
		{ "duration_ns", offsetof(struct caplog_end, duration_ns) },
		{ "maps_unfollowed",
		  offsetof(struct caplog_end, maps_unfollowed) },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i].key) == 0)
			return (uint64_t *)((char *)e + keys[i].off);
	return NULL;
}

/* Parse an end record ("#|end|key=value|...|") into r->end.  Unknown keys
 * and items that do not parse are ignored, as in header lines. */
static void parse_end(struct caplog_reader *r, char *s, size_t len)
{
	char *save = NULL;

	memset(&r->end, 0, sizeof(r->end));
	s[len] = '\0';
	for (char *tok = strtok_r(s + END_PREFIX_LEN, "|", &save); tok;
	     tok = strtok_r(NULL, "|", &save)) {
		char *eq = strchr(tok, '='), *end;
		uint64_t *counter;

		if (!eq)
			continue;
		*eq++ = '\0';
		if (escape_decode(eq, strlen(eq)) < 0)
			continue;
		if (strcmp(tok, "error") == 0) {
			snprintf(r->end.error, sizeof(r->end.error), "%s", eq);
			continue;
		}
		if (!(counter = end_counter(&r->end, tok)) || *eq < '0' || *eq > '9')
			continue;
		errno = 0;
		uint64_t v = strtoull(eq, &end, 10);
		if (!errno && !*end)
			*counter = v;
	}
	r->have_end = true;
}

static bool is_uncap_record(const struct line *ln)
{
	return ln->len >= UNCAP_PREFIX_LEN &&
	       memcmp(ln->s, UNCAP_PREFIX, UNCAP_PREFIX_LEN) == 0;
}

/* Take the uncaptured record @ln into r->uncap; a malformed one, or a
 * second one, is a bad line. */
static void parse_uncap(struct caplog_reader *r, const struct line *ln)
{
	char item[48], detail[128];
	const char *why;

	if (r->uncap.known) {
		reject(r, ln, CAPLOG_BAD_SYNTAX, "a second uncaptured record");
		return;
	}
	why = uncaptured_parse(&r->uncap, ln->s + UNCAP_PREFIX_LEN,
			       ln->len - UNCAP_PREFIX_LEN, item);
	if (why) {
		snprintf(detail, sizeof(detail), "uncaptured record: %s: '%s'",
			 why, item);
		reject(r, ln, CAPLOG_BAD_SYNTAX, detail);
	}
}

/* Read the version line; 0 or -errno with @err filled in. */
static int read_version(struct caplog_reader *r, char *err, size_t errlen)
{
	struct line ln;
	int rc = linereader_next(r->lines, &ln);
	const char *v;

	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", r->path, strerror(-rc));
		return rc;
	}
	if (rc == 0) {
		snprintf(err, errlen, "%s: empty file, not a capture log", r->path);
		return -ENODATA;
	}
	r->nlines++;
	if (ln.len < 2 || memcmp(ln.s, "#|", 2) != 0 ||
	    !(v = strstr(ln.s, "|capture_version="))) {
		snprintf(err, errlen,
			 "%s:1: missing header: a capture log starts with #|capture_version=N|",
			 r->path);
		return -EPROTO;
	}
	const char *digits = v + strlen("|capture_version="), *end = digits;
	long version = 0;
	while (*end >= '0' && *end <= '9' && end - digits < 6)
		version = version * 10 + (*end++ - '0');
	if (end == digits || *end != '|') {
		snprintf(err, errlen, "%s:1: malformed capture_version in header",
			 r->path);
		return -EPROTO;
	}
	if (version < 2 || version > CAPLOG_VERSION) {
		snprintf(err, errlen,
			 "%s:1: capture log version %ld is not supported (this ioriot reads versions 2 to %d)",
			 r->path, version, CAPLOG_VERSION);
		return -EPROTONOSUPPORT;
	}
	r->hdr.version = (int)version;
	if (parse_meta(r, ln.s, ln.len)) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		return -ENOMEM;
	}
	return 0;
}

struct caplog_reader *caplog_open(const char *path, char *err, size_t errlen)
{
	struct caplog_reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r || !(r->path = strdup(path))) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -ENOMEM;
		goto err_free;
	}
	r->lines = linereader_open(path, true);
	if (!r->lines) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto err_free;
	}
	rc = read_version(r, err, errlen);
	if (rc)
		goto err_free;
	/* Further header lines (v4 host and mounts) come before any event. */
	for (;;) {
		rc = linereader_next(r->lines, &r->pending);
		if (rc < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
			goto err_free;
		}
		if (rc == 0)
			break;
		r->nlines++;
		/* An end or uncaptured record ends the header (a log
		 * without events). */
		if (r->pending.len >= 2 && memcmp(r->pending.s, "#|", 2) == 0 &&
		    !is_end_record(&r->pending) &&
		    !is_uncap_record(&r->pending)) {
			rc = parse_meta(r, r->pending.s, r->pending.len);
			if (rc) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto err_free;
			}
			continue;
		}
		r->have_pending = true;
		break;
	}
	return r;

err_free:
	caplog_close(r);
	errno = -rc;
	return NULL;
}

const struct caplog_header *caplog_header(const struct caplog_reader *r)
{
	return &r->hdr;
}

int caplog_next(struct caplog_reader *r, struct cap_event *ev)
{
	struct fields f;
	struct line ln;

	for (;;) {
		if (r->have_pending) {
			ln = r->pending;
			r->have_pending = false;
		} else {
			int rc = linereader_next(r->lines, &ln);
			if (rc <= 0)
				return rc;
			r->nlines++;
		}
		/* Only the last line may end the log. */
		if (ln.len || (ln.flags & (LINE_TOO_LONG | LINE_NO_NEWLINE)))
			r->have_end = false;
		if (ln.flags & LINE_TOO_LONG) {
			reject(r, &ln, CAPLOG_BAD_TOO_LONG, NULL);
			continue;
		}
		if (ln.flags & LINE_NO_NEWLINE) {
			reject(r, &ln, CAPLOG_BAD_TRUNCATED, NULL);
			continue;
		}
		if (ln.len && ln.s[ln.len - 1] == '\r')	/* CRLF logs */
			ln.s[--ln.len] = '\0';
		if (ln.len == 0)
			continue;
		/* Records and comments start with '#', events never. */
		if (ln.s[0] == '#') {
			if (r->hdr.version >= 4 && is_end_record(&ln))
				parse_end(r, ln.s, ln.len);
			else if (r->hdr.version >= 4 && is_uncap_record(&ln))
				parse_uncap(r, &ln);
			continue;
		}
		enum caplog_bad why;
		const char *msg = split_fields(ln.s, ln.len, r->hdr.version, &f,
					       &why);
		if (!msg)
			msg = build_event(r, &f, ev, &why);
		if (msg) {
			reject(r, &ln, why, *msg ? msg : NULL);
			continue;
		}
		ev->lineno = ln.lineno;
		return 1;
	}
}

const char *caplog_parse_event(char *s, size_t len, struct cap_event *ev)
{
	struct caplog_reader r = {
		.hdr.version = CAPLOG_VERSION, .have_base = true, .base_ns = 0,
	};
	enum caplog_bad why;
	struct fields f;
	const char *msg = split_fields(s, len, CAPLOG_VERSION, &f, &why);

	if (!msg)
		msg = build_event(&r, &f, ev, &why);
	if (msg && !*msg)
		msg = caplog_bad_name(why);
	return msg;
}

const struct caplog_end *caplog_end_record(const struct caplog_reader *r)
{
	return r->have_end ? &r->end : NULL;
}

const struct uncaptured *caplog_uncaptured(const struct caplog_reader *r)
{
	return r->uncap.known ? &r->uncap : NULL;
}

uint64_t caplog_lines(const struct caplog_reader *r)
{
	return r->nlines;
}

uint64_t caplog_bad(const struct caplog_reader *r, enum caplog_bad why)
{
	return r->bad[why];
}

uint64_t caplog_offset(const struct caplog_reader *r)
{
	return linereader_offset(r->lines);
}

uint64_t caplog_size(const struct caplog_reader *r)
{
	return linereader_size(r->lines);
}

void caplog_close(struct caplog_reader *r)
{
	if (!r)
		return;
	linereader_free(r->lines);
	mounttab_free(r->hdr.mounts);
	free(r->path);
	free(r);
}
