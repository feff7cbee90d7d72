/*
 * rlog reader: parses a replay file (header, INIT entries, operation lines,
 * #END) back into struct rlog_header and struct rlog_entry.  The line syntax
 * is the one src/rlog/writer.c produces; rlog.h has the contract.
 *
 * Lines are parsed in place in the line reader's buffer: paths are %XX
 * decoded where they stand, so reading an entry costs no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/escape.h"
#include "ioriot/linereader.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/uring.h"

#define ERR_TOKEN_MAX 40	/* bytes of an offending field quoted in errors */

enum rlog_state {
	ST_HEADER,		/* before #INIT */
	ST_INIT,		/* after #INIT, before #OPS */
	ST_OPS,			/* after #OPS, before #END */
	ST_END,			/* after #END: only comments may follow */
	ST_DONE,		/* end of file reached after #END */
};

struct rlog_reader {
	struct linereader *lines;
	char *path;
	struct rlog_header hdr;
	size_t sandboxes_cap;
	enum rlog_state state;
	struct line pending;	/* first line after the header, read by open */
	bool have_pending;
	uint64_t last_id;	/* ids must increase */
};

/* How the value of an operation argument is written. */
enum arg_type {
	AT_UDEC,		/* unsigned decimal */
	AT_SDEC,		/* signed decimal */
	AT_FLAGS,		/* 0x hex, or signed decimal */
	AT_MODE,		/* 0-prefixed octal */
	AT_HEX,			/* 0x hex */
	AT_PATH,		/* %XX escaped bytes */
	AT_NAME,		/* %XX escaped bytes: an xattr name */
};

struct arg_key {
	const char *name;
	unsigned char len;
	unsigned char type;	/* enum arg_type */
	unsigned bit;		/* enum rlog_have */
	size_t off;		/* of the value in struct rlog_op */
	size_t len_off;		/* AT_PATH: of the length */
};

#define NUM_KEY(k, t, b, field) \
	{ k, sizeof(k) - 1, t, b, offsetof(struct rlog_op, field), 0 }
#define PATH_KEY(k, b, field) \
	{ k, sizeof(k) - 1, AT_PATH, b, offsetof(struct rlog_op, field), \
	  offsetof(struct rlog_op, field##_len) }

static const struct arg_key arg_keys[] = {
	NUM_KEY("fd", AT_UDEC, RL_FD, fd),
	NUM_KEY("fd2", AT_UDEC, RL_FD2, fd2),
	NUM_KEY("vfd", AT_UDEC, RL_VFD, vfd),
	PATH_KEY("path", RL_PATH, path),
	PATH_KEY("path2", RL_PATH2, path2),
	PATH_KEY("target", RL_TARGET, target),
	NUM_KEY("flags", AT_FLAGS, RL_FLAGS, flags),
	NUM_KEY("mode", AT_MODE, RL_MODE, mode),
	NUM_KEY("off", AT_SDEC, RL_OFFSET, offset),
	NUM_KEY("off2", AT_SDEC, RL_OFFSET2, offset2),
	NUM_KEY("whence", AT_SDEC, RL_WHENCE, whence),
	NUM_KEY("count", AT_SDEC, RL_COUNT, count),
	NUM_KEY("cmd", AT_SDEC, RL_CMD, cmd),
	NUM_KEY("arg", AT_SDEC, RL_ARG, arg),
	NUM_KEY("uid", AT_SDEC, RL_UID, uid),
	NUM_KEY("gid", AT_SDEC, RL_GID, gid),
	NUM_KEY("addr", AT_HEX, RL_ADDR, addr),
	NUM_KEY("ctx", AT_UDEC, RL_CTX, ctx),
	NUM_KEY("tag", AT_UDEC, RL_TAG, tag),
	NUM_KEY("min", AT_SDEC, RL_MIN, min),
	NUM_KEY("cq", AT_SDEC, RL_CQ, cq),
	NUM_KEY("slot", AT_UDEC, RL_SLOT, slot),
	NUM_KEY("buf", AT_UDEC, RL_BUF, buf),
	NUM_KEY("sqflags", AT_FLAGS, RL_SQFLAGS, sqflags),
	NUM_KEY("umask", AT_MODE, RL_UMASK, umask),
	NUM_KEY("stride", AT_UDEC, RL_STRIDE, stride),
	{ "name", 4, AT_NAME, RL_NAME, offsetof(struct rlog_op, name),
	  offsetof(struct rlog_op, name_len) },
};

#define NARG_KEYS (sizeof(arg_keys) / sizeof(arg_keys[0]))

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format a message into @err, which may be NULL. */
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void line_err(const struct rlog_reader *r, const struct line *ln,
		     char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Format "FILE:LINE: message" into @err, which may be NULL. */
static void line_err(const struct rlog_reader *r, const struct line *ln,
		     char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s:%llu: ", r->path,
		     (unsigned long long)ln->lineno);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Length of a field when quoted in an error message. */
static int quote_len(size_t len)
{
	return len > ERR_TOKEN_MAX ? ERR_TOKEN_MAX : (int)len;
}

/* Parse unsigned decimal digits.  Returns 0 or -EINVAL. */
static int parse_udec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 20)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Parse an optionally negative decimal in int64_t range. */
static int parse_sdec(const char *s, size_t len, int64_t *out)
{
	bool neg = len > 0 && s[0] == '-';
	uint64_t v;

	if (parse_udec(s + neg, len - neg, &v))
		return -EINVAL;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -EINVAL;
		*out = v ? -(int64_t)(v - 1) - 1 : 0;
	} else {
		if (v > INT64_MAX)
			return -EINVAL;
		*out = (int64_t)v;
	}
	return 0;
}

/* Parse 0x-prefixed hex of up to 64 bits. */
static int parse_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -EINVAL;
	for (size_t i = 2; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Parse 0-prefixed octal ("0" alone is zero) of up to 64 bits. */
static int parse_oct(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || s[0] != '0')
		return -EINVAL;
	for (size_t i = 1; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 7 || v >> 61)
			return -EINVAL;
		v = v << 3 | d;
	}
	*out = v;
	return 0;
}

/* Parse "PID:TID", both 32-bit unsigned. */
static int parse_ids(const char *s, size_t len, uint32_t *pid, uint32_t *tid)
{
	const char *colon = memchr(s, ':', len);
	uint64_t p, t;
	size_t plen;

	if (!colon)
		return -EINVAL;
	plen = (size_t)(colon - s);
	if (parse_udec(s, plen, &p) || parse_udec(colon + 1, len - plen - 1, &t))
		return -EINVAL;
	if (p > UINT32_MAX || t > UINT32_MAX)
		return -EINVAL;
	*pid = (uint32_t)p;
	*tid = (uint32_t)t;
	return 0;
}

/*
 * Parse "-" or a comma list of operation ids into @d.  Returns 0, -EINVAL
 * for a malformed list or -E2BIG for more than DEPS_MAX ids.
 */
static int parse_deps(const char *s, size_t len, struct deps *d)
{
	size_t start = 0;

	d->n = 0;
	if (len == 1 && s[0] == '-')
		return 0;
	for (;;) {
		const char *comma = memchr(s + start, ',', len - start);
		size_t end = comma ? (size_t)(comma - s) : len;

		if (d->n == DEPS_MAX)
			return -E2BIG;
		if (parse_udec(s + start, end - start, &d->id[d->n]))
			return -EINVAL;
		d->n++;
		if (!comma)
			return 0;
		start = end + 1;
	}
}

/*
 * Cut the next space-separated token from [*pos, end) and NUL-terminate it.
 * Returns the token, or NULL if none is left.
 */
static char *next_token(char **pos, char *end, size_t *len)
{
	char *s = *pos, *p;

	while (s < end && *s == ' ')
		s++;
	if (s == end)
		return NULL;
	/* Tokens are short: a plain loop beats a memchr() call here. */
	for (p = s; p < end && *p != ' '; p++)
		;
	*p = '\0';
	*len = (size_t)(p - s);
	*pos = p < end ? p + 1 : end;
	return s;
}

/* Whether the first strlen(@name) bytes of @s are @name.  Keys are a few
 * bytes long: a loop, not a memcmp() call. */
static bool key_equal(const char *name, const char *s)
{
	for (; *name; name++, s++)
		if (*name != *s)
			return false;
	return true;
}

/* Whether decoded @name (@len bytes) can be an extended attribute's name:
 * 1 to RLOG_XATTR_NAME_MAX bytes, no NUL. */
static bool xattr_name_ok(const char *name, size_t len)
{
	return len && len <= RLOG_XATTR_NAME_MAX && !memchr(name, '\0', len);
}

/* Store one key=value argument into @op.  Returns NULL or what is wrong. */
static const char *parse_arg(struct rlog_op *op, char *tok, size_t len)
{
	char *eq = tok;
	const struct arg_key *k = NULL;
	size_t klen, vlen;
	char *val, *base = (char *)op;
	uint64_t u;
	int64_t i;
	int ret;

	while (*eq && *eq != '=')
		eq++;
	if (!*eq)
		return "argument is not key=value";
	klen = (size_t)(eq - tok);
	val = eq + 1;
	vlen = len - klen - 1;
	for (size_t n = 0; n < NARG_KEYS && !k; n++)
		if (arg_keys[n].len == klen && key_equal(arg_keys[n].name, tok))
			k = &arg_keys[n];
	if (!k)
		return NULL;	/* unknown keys: from a newer writer, ignored */
	if (op->have & k->bit)
		return "argument given twice";

	switch (k->type) {
	case AT_UDEC:
		ret = parse_udec(val, vlen, &u);
		if (!ret)
			memcpy(base + k->off, &u, sizeof(u));
		break;
	case AT_SDEC:
		ret = parse_sdec(val, vlen, &i);
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_FLAGS:
		if (vlen > 1 && val[0] == '0' && (val[1] == 'x' || val[1] == 'X')) {
			ret = parse_hex(val, vlen, &u);
			i = (int64_t)u;
		} else {
			ret = parse_sdec(val, vlen, &i);
		}
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_MODE:
		ret = parse_oct(val, vlen, &u);
		i = (int64_t)u;
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_HEX:
		ret = parse_hex(val, vlen, &u);
		if (!ret)
			memcpy(base + k->off, &u, sizeof(u));
		break;
	default: {
		long n = escape_decode(val, vlen);
		const char *p = val;
		uint32_t plen;

		if (n < 0)
			return "bad %XX escape in argument";
		if (k->type == AT_NAME && !xattr_name_ok(val, (size_t)n))
			return "bad attribute name (1 to 255 bytes, no NUL) in argument";
		plen = (uint32_t)n;
		memcpy(base + k->off, &p, sizeof(p));
		memcpy(base + k->len_off, &plen, sizeof(plen));
		ret = 0;
		break;
	}
	}
	if (ret)
		return "malformed number in argument";
	op->have |= k->bit;
	return NULL;
}

/*
 * True if decoded @path is normalised and inside a sandbox the header
 * declares: the replay engine runs as root on what this reader accepts.
 */
static bool confined(const struct rlog_reader *r, const char *path, size_t len)
{
	if (!path_is_normal(path, len))
		return false;
	for (size_t i = 0; i < r->hdr.nsandboxes; i++) {
		const char *sb = r->hdr.sandboxes[i];
		if (path_is_below(path, len, sb, strlen(sb)))
			return true;
	}
	return false;
}

/*
 * Whether @target (@len bytes) can be a symlink's content: a relative one
 * is any name (it resolves from the link, in the replay's jail, where
 * nothing outside the sandboxes exists), an absolute one must be confined.
 */
static bool link_target_ok(const struct rlog_reader *r, const char *target,
			   size_t len)
{
	if (!len || len >= PATHMAP_MAX || memchr(target, '\0', len))
		return false;
	return target[0] != '/' || confined(r, target, len);
}

/* Bounds of io_uring arguments the replay allocates or registers by: the
 * kernel's own limits (ring entries, fixed files, registered buffers and
 * their size, one read or write). */
#define URING_ENTRIES_MAX 32768
#define URING_CQ_MAX (2 * URING_ENTRIES_MAX)
#define URING_FILES_MAX (1u << 20)
#define URING_BUFS_MAX (1u << 14)
#define URING_BUF_BYTES_MAX (1ull << 30)
#define URING_RW_MAX 0x7ffff000

/* What is wrong with io_uring operation @op, or NULL: the arguments the
 * replay needs, within the kernel's limits. */
static const char *uring_op_problem(const struct rlog_op *op)
{
	enum sys_kind kind = sys_info(op->sys)->kind;
	unsigned h = op->have;

	switch (kind) {
	case SK_URING_SETUP: case SK_URING_ENTER: case SK_URING_REGISTER:
	case SK_URING_SQE: case SK_URING_CQE: case SK_URING_FILE:
	case SK_URING_BUF: case SK_URING_DATA: case SK_URING_DONE:
		break;
	default:
		return NULL;	/* not io_uring */
	}
	if (kind == SK_URING_SETUP)
		return !(h & RL_COUNT) || op->count < 1 ||
		       op->count > URING_ENTRIES_MAX ? "count= (entries) "
		       "missing or beyond 1..32768" :
		       (h & RL_CQ) && (op->cq < 1 || op->cq > URING_CQ_MAX) ?
		       "cq= beyond 1..65536" : NULL;
	if (!(h & RL_CTX))
		return "no ctx= (ring)";
	if ((h & RL_SLOT) && op->slot >= URING_FILES_MAX)
		return "slot= beyond 2^20 - 1";
	if ((h & RL_BUF) && op->buf >= URING_BUFS_MAX)
		return "buf= beyond 16383";
	switch (kind) {
	case SK_URING_REGISTER:
		return h & RL_CMD ? NULL : "no cmd= (opcode)";
	case SK_URING_FILE:
		return h & RL_SLOT ? NULL : "no slot=";
	case SK_URING_BUF:
		return !(h & RL_SLOT) ? "no slot=" : !(h & RL_COUNT) ||
		       op->count < 1 || (uint64_t)op->count > URING_BUF_BYTES_MAX ?
		       "count= (buffer size) missing or beyond 1..2^30" : NULL;
	case SK_URING_SQE: {
		enum sys_id done = (h & RL_CMD) ? uring_completion_of(op->cmd) :
				   SYS_COUNT;

		if (!(h & RL_TAG) || !(h & RL_CMD))
			return "no tag= or cmd=";
		if ((h & RL_SQFLAGS) && (op->sqflags & ~(int64_t)0x7f))
			return "sqflags= beyond 0x7f";
		if (done != SYS_COUNT && sys_info(done)->kind == SK_URING_DATA &&
		    (h & RL_COUNT) && (op->count < 0 || op->count > URING_RW_MAX))
			return "count= beyond 0..0x7ffff000";
		return NULL;
	}
	case SK_URING_DATA: case SK_URING_DONE:
		return h & RL_TAG ? NULL : "no tag=";
	default:
		return NULL;
	}
}

/* Check what makes an operation safe and replayable: increasing ids,
 * dependencies on earlier ids only, confined paths, io_uring arguments
 * within bounds.  0 or -EPROTO. */
static int check_op(struct rlog_reader *r, const struct line *ln,
		    const struct rlog_op *op, char *err, size_t errlen)
{
	static const struct { unsigned bit; const char *name; } paths[] = {
		{ RL_PATH, "path" }, { RL_PATH2, "path2" },
		{ RL_TARGET, "target" },
	};

	if (op->id <= r->last_id) {
		line_err(r, ln, err, errlen,
			 "operation id %llu does not follow %llu: ids must increase",
			 (unsigned long long)op->id,
			 (unsigned long long)r->last_id);
		return -EPROTO;
	}
	for (int i = 0; i < op->deps.n; i++) {
		if (op->deps.id[i] >= op->id) {
			line_err(r, ln, err, errlen,
				 "dependency %llu is not an earlier operation",
				 (unsigned long long)op->deps.id[i]);
			return -EPROTO;
		}
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i].bit == RL_PATH ? op->path :
				paths[i].bit == RL_PATH2 ? op->path2 : op->target;
		uint32_t len = paths[i].bit == RL_PATH ? op->path_len :
			       paths[i].bit == RL_PATH2 ? op->path2_len :
			       op->target_len;

		if (!(op->have & paths[i].bit) ||
		    (paths[i].bit == RL_TARGET ? link_target_ok(r, p, len) :
		     confined(r, p, len)))
			continue;
		line_err(r, ln, err, errlen, "%s is not a normalised path "
			 "inside a sandbox%s", paths[i].name,
			 paths[i].bit == RL_TARGET ? " (nor a relative one)" : "");
		return -EPROTO;
	}
	/* Pages through a mapping: where, how many, how far apart. */
	if (sys_info(op->sys)->kind == SK_MAPPAGE &&
	    ((op->have & (RL_FD | RL_ADDR | RL_COUNT)) !=
	     (RL_FD | RL_ADDR | RL_COUNT) || op->count < 1 ||
	     ((op->have & RL_STRIDE) && op->stride < 1))) {
		line_err(r, ln, err, errlen, "%s needs fd=, addr= and a count= "
			 "of 1 or more pages (and a stride= of 1 or more)",
			 sys_info(op->sys)->replay_name);
		return -EPROTO;
	}
	if ((op->have & RL_UMASK) && (uint64_t)op->umask > 0777) {
		line_err(r, ln, err, errlen, "umask 0%llo beyond 0777",
			 (unsigned long long)op->umask);
		return -EPROTO;
	}
	const char *problem = uring_op_problem(op);
	if (problem) {
		line_err(r, ln, err, errlen, "malformed %s operation: %s",
			 sys_info(op->sys)->replay_name, problem);
		return -EPROTO;
	}
	r->last_id = op->id;
	return 0;
}

/* Parse an operation line into @e.  Returns 0 or -EPROTO. */
static int parse_op(struct rlog_reader *r, struct line *ln,
		    struct rlog_entry *e, char *err, size_t errlen)
{
	static const char *const names[] = {
		"ID", "PID:TID", "TIME_NS", "DUR_NS", "DEPS", "OP", "RET",
	};
	struct rlog_op *op = &e->op;
	char *pos = ln->s, *end = ln->s + ln->len;
	char *tok[7];
	size_t len[7];
	int sys, ret = 0, bad = -1;

	for (int n = 0; n < 7; n++) {
		tok[n] = next_token(&pos, end, &len[n]);
		if (!tok[n]) {
			line_err(r, ln, err, errlen,
				 "operation line has %d fields, needs ID PID:TID TIME_NS DUR_NS DEPS OP RET",
				 n);
			return -EPROTO;
		}
	}

	/* The dependency ids are set as far as deps.n says: not zeroed. */
	memset(op, 0, offsetof(struct rlog_op, deps));
	op->deps.n = 0;
	op->deps.dropped = 0;
	if (parse_udec(tok[0], len[0], &op->id))
		bad = 0;
	else if (parse_ids(tok[1], len[1], &op->pid, &op->tid))
		bad = 1;
	else if (parse_udec(tok[2], len[2], &op->time_ns))
		bad = 2;
	else if (parse_udec(tok[3], len[3], &op->dur_ns))
		bad = 3;
	else if ((ret = parse_deps(tok[4], len[4], &op->deps)))
		bad = 4;
	else if (parse_sdec(tok[6], len[6], &op->ret))
		bad = 6;
	if (bad == 4 && ret == -E2BIG) {
		line_err(r, ln, err, errlen, "more than %d dependencies in '%.*s'",
			 DEPS_MAX, quote_len(len[4]), tok[4]);
		return -EPROTO;
	}
	if (bad >= 0) {
		line_err(r, ln, err, errlen, "malformed %s field '%.*s'",
			 names[bad], quote_len(len[bad]), tok[bad]);
		return -EPROTO;
	}
	sys = sys_lookup(tok[5], len[5], true);
	if (sys < 0) {
		line_err(r, ln, err, errlen, "unknown operation '%.*s'",
			 quote_len(len[5]), tok[5]);
		return -EPROTO;
	}
	op->sys = (enum sys_id)sys;

	for (;;) {
		size_t alen;
		char *arg = next_token(&pos, end, &alen);
		const char *what;

		if (!arg)
			break;
		what = parse_arg(op, arg, alen);
		if (what) {
			line_err(r, ln, err, errlen, "%s '%.*s'", what,
				 quote_len(alen), arg);
			return -EPROTO;
		}
	}

	ret = check_op(r, ln, op, err, errlen);
	if (ret)
		return ret;
	e->type = RLOG_ENTRY_OP;
	e->init_kind = 0;
	e->init_size = 0;
	e->init_mode = RLOG_NO_MODE;
	e->init_target = NULL;
	e->init_target_len = 0;
	e->init_path = NULL;
	e->init_path_len = 0;
	e->lineno = ln->lineno;
	return 0;
}

/* Parse an INIT entry ("d PATH", "f SIZE PATH [mode=0OCT]",
 * "l PATH target=PATH", "x PATH", "a SIZE PATH name=NAME") into @e. */
static int parse_init(struct rlog_reader *r, struct line *ln,
		      struct rlog_entry *e, char *err, size_t errlen)
{
	char *pos = ln->s + 2, *end = ln->s + ln->len;
	char *path, *size = NULL, *mode_tok, *target = NULL;
	size_t plen, slen = 0, mlen;
	uint64_t bytes = 0, mode = 0;
	long n, tlen = 0;

	if (ln->s[0] == RLOG_INIT_FILE || ln->s[0] == RLOG_INIT_XATTR) {
		size = next_token(&pos, end, &slen);
		if (!size || parse_udec(size, slen, &bytes)) {
			line_err(r, ln, err, errlen,
				 "malformed size in INIT entry, expected %c SIZE PATH",
				 ln->s[0]);
			return -EPROTO;
		}
	}
	path = next_token(&pos, end, &plen);
	if (!path) {
		line_err(r, ln, err, errlen, "INIT entry without a path");
		return -EPROTO;
	}
	mode_tok = next_token(&pos, end, &mlen);
	if (ln->s[0] == RLOG_INIT_SYMLINK) {
		if (!mode_tok || mlen < 8 || memcmp(mode_tok, "target=", 7)) {
			line_err(r, ln, err, errlen,
				 "malformed INIT symlink, expected l PATH target=PATH");
			return -EPROTO;
		}
		target = mode_tok + 7;
		tlen = escape_decode(target, mlen - 7);
		if (tlen < 0 || !link_target_ok(r, target, (size_t)tlen)) {
			line_err(r, ln, err, errlen,
				 "INIT symlink target is neither relative nor a "
				 "normalised path inside a sandbox");
			return -EPROTO;
		}
		mode_tok = NULL;
	} else if (ln->s[0] == RLOG_INIT_XATTR) {
		if (!mode_tok || mlen < 6 || memcmp(mode_tok, "name=", 5)) {
			line_err(r, ln, err, errlen,
				 "malformed INIT xattr, expected a SIZE PATH name=NAME");
			return -EPROTO;
		}
		target = mode_tok + 5;
		tlen = escape_decode(target, mlen - 5);
		if (tlen < 0 || !xattr_name_ok(target, (size_t)tlen)) {
			line_err(r, ln, err, errlen,
				 "INIT xattr name is not 1 to 255 bytes without NUL");
			return -EPROTO;
		}
		/* Init sets attributes as the test user, who may set no
		 * other; as root it must not set any other either. */
		if ((size_t)tlen < 6 || memcmp(target, "user.", 5)) {
			line_err(r, ln, err, errlen,
				 "INIT xattr name is not user.NAME");
			return -EPROTO;
		}
		if (bytes > RLOG_XATTR_SIZE_MAX) {
			line_err(r, ln, err, errlen,
				 "INIT xattr value of more than %d bytes",
				 RLOG_XATTR_SIZE_MAX);
			return -EPROTO;
		}
		mode_tok = NULL;
	} else if (mode_tok && (ln->s[0] != RLOG_INIT_FILE || mlen < 6 ||
				memcmp(mode_tok, "mode=", 5) ||
				parse_oct(mode_tok + 5, mlen - 5, &mode) ||
				mode > 0777)) {
		line_err(r, ln, err, errlen, ln->s[0] == RLOG_INIT_FILE ?
			 "bad INIT field after the path, expected mode=0OCT "
			 "(permission bits)" : "extra field after the INIT path");
		return -EPROTO;
	}
	if (next_token(&pos, end, &mlen)) {
		line_err(r, ln, err, errlen, "extra field after the INIT path");
		return -EPROTO;
	}
	n = escape_decode(path, plen);
	if (n < 0) {
		line_err(r, ln, err, errlen, "bad %%XX escape in INIT path");
		return -EPROTO;
	}
	if (!confined(r, path, (size_t)n)) {
		line_err(r, ln, err, errlen,
			 "INIT path is not a normalised path inside a sandbox");
		return -EPROTO;
	}
	if (bytes > INT64_MAX) {
		line_err(r, ln, err, errlen, "INIT size beyond what a file can have");
		return -EPROTO;
	}

	memset(&e->op, 0, sizeof(e->op));
	e->type = RLOG_ENTRY_INIT;
	e->init_kind = (enum rlog_init_kind)ln->s[0];
	e->init_size = bytes;
	e->init_mode = mode_tok ? (int)mode : RLOG_NO_MODE;
	e->init_path = path;
	e->init_path_len = (uint32_t)n;
	e->init_target = target;
	e->init_target_len = (uint32_t)tlen;
	e->lineno = ln->lineno;
	return 0;
}

static bool is_init_entry(const struct line *ln)
{
	char c = ln->s[0];

	return ln->len >= 2 && ln->s[1] == ' ' &&
	       (c == RLOG_INIT_DIR || c == RLOG_INIT_FILE ||
		c == RLOG_INIT_SYMLINK || c == RLOG_INIT_ABSENT ||
		c == RLOG_INIT_XATTR);
}

/* Report lines the line reader could not deliver whole, and NUL bytes. */
static int check_line(struct rlog_reader *r, const struct line *ln, char *err,
		      size_t errlen)
{
	if (ln->flags & LINE_TOO_LONG) {
		line_err(r, ln, err, errlen, "line longer than %d bytes",
			 LINE_MAX_LEN);
		return -EPROTO;
	}
	if (ln->flags & LINE_NO_NEWLINE) {
		line_err(r, ln, err, errlen,
			 "last line has no newline (truncated file?)");
		return -EPROTO;
	}
	if (strlen(ln->s) != ln->len) {
		line_err(r, ln, err, errlen, "NUL byte in line");
		return -EPROTO;
	}
	return 0;
}

/* One KEY=VALUE item of a '|'-separated line such as the header. */
struct item {
	char *key, *val;
	size_t klen, vlen;
};

/*
 * Take the next item of a '|'-separated line from *@pos (just after a '|').
 * Items without '=' are skipped.  The value may then be decoded in place:
 * the '|' it may overwrite has already been passed.
 */
static bool next_item(char **pos, char *end, struct item *it)
{
	while (*pos < end) {
		char *s = *pos;
		char *bar = memchr(s, '|', (size_t)(end - s));
		char *stop = bar ? bar : end;
		char *eq = memchr(s, '=', (size_t)(stop - s));

		*pos = bar ? bar + 1 : end;
		if (!eq)
			continue;
		it->key = s;
		it->klen = (size_t)(eq - s);
		it->val = eq + 1;
		it->vlen = (size_t)(stop - eq - 1);
		return true;
	}
	return false;
}

/* Where the items of line @ln start: after its first '|'. */
static char *items_start(const struct line *ln)
{
	char *bar = memchr(ln->s, '|', ln->len);

	return bar ? bar + 1 : ln->s + ln->len;
}

static bool item_is(const struct item *it, const char *key, size_t klen)
{
	return it->klen == klen && memcmp(it->key, key, klen) == 0;
}

#define ITEM_IS(it, k) item_is(it, k, sizeof(k) - 1)

/* Decode escaped item value into @dst (@size bytes).  0 or -EPROTO. */
static int item_string(const struct item *it, char *dst, size_t size)
{
	long n = escape_decode(it->val, it->vlen);

	if (n < 0 || (size_t)n >= size)
		return -EPROTO;
	memcpy(dst, it->val, (size_t)n + 1);
	return 0;
}

static int add_sandbox(struct rlog_reader *r, const char *root)
{
	struct rlog_header *h = &r->hdr;

	if (h->nsandboxes == r->sandboxes_cap) {
		size_t cap = r->sandboxes_cap ? 2 * r->sandboxes_cap : 4;
		char **n = realloc(h->sandboxes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		h->sandboxes = n;
		r->sandboxes_cap = cap;
	}
	h->sandboxes[h->nsandboxes] = strdup(root);
	if (!h->sandboxes[h->nsandboxes])
		return -ENOMEM;
	h->nsandboxes++;
	return 0;
}

/*
 * Take the items this reader knows from header line @ln: name, user, ops,
 * timelines and sandbox (which may repeat).  Others are ignored.  Returns 0, -EPROTO
 * or -ENOMEM.
 */
static int parse_header_line(struct rlog_reader *r, struct line *ln, char *err,
			     size_t errlen)
{
	char *pos = items_start(ln), *end = ln->s + ln->len;
	struct item it;
	int ret;

	while (next_item(&pos, end, &it)) {
		if (ITEM_IS(&it, "name")) {
			if (item_string(&it, r->hdr.name, sizeof(r->hdr.name)))
				goto bad_value;
		} else if (ITEM_IS(&it, "user")) {
			if (item_string(&it, r->hdr.user, sizeof(r->hdr.user)))
				goto bad_value;
		} else if (ITEM_IS(&it, "ops")) {
			if (parse_udec(it.val, it.vlen, &r->hdr.ops_hint))
				goto bad_value;
		} else if (ITEM_IS(&it, "timelines")) {
			if (parse_udec(it.val, it.vlen,
				       &r->hdr.timelines_hint))
				goto bad_value;
		} else if (ITEM_IS(&it, "sandbox")) {
			long n = escape_decode(it.val, it.vlen);

			if (n < 0 || it.val[0] != '/') {
				line_err(r, ln, err, errlen,
					 "sandbox= is not an absolute path");
				return -EPROTO;
			}
			ret = add_sandbox(r, it.val);
			if (ret) {
				line_err(r, ln, err, errlen, "%s",
					 strerror(-ret));
				return ret;
			}
		}
	}
	return 0;

bad_value:
	line_err(r, ln, err, errlen, "bad %%XX escape or over-long value in %.*s=",
		 (int)it.klen, it.key);
	return -EPROTO;
}

/* The list a "#|uncaptured|" or "#|uring_skipped|" header line @ln holds,
 * its prefix in *@prefix; NULL for another line. */
static struct uncaptured *count_line(struct rlog_reader *r,
				     const struct line *ln, const char **prefix)
{
	static const char *const prefixes[] = { UNCAP_PREFIX,
						URING_SKIPPED_PREFIX };

	for (int i = 0; i < 2; i++) {
		size_t len = strlen(prefixes[i]);

		if (ln->len >= len && memcmp(ln->s, prefixes[i], len) == 0) {
			*prefix = prefixes[i];
			return i ? &r->hdr.uring_skipped : &r->hdr.uncaptured;
		}
	}
	return NULL;
}

/* Take the counts of header line @ln (an uncaptured or uring_skipped
 * line) into @u.  0 or -EPROTO. */
static int parse_count_line(struct rlog_reader *r, const struct line *ln,
			    struct uncaptured *u, const char *prefix,
			    char *err, size_t errlen)
{
	size_t plen = strlen(prefix);
	const char *why;
	char item[48];

	/* "uncaptured" or "uring_skipped", for the messages */
	int klen = (int)plen - 3;
	const char *kind = prefix + 2;

	if (u->known) {
		line_err(r, ln, err, errlen, "a second %.*s header line", klen,
			 kind);
		return -EPROTO;
	}
	why = uncaptured_parse(u, ln->s + plen, ln->len - plen, item);
	if (why) {
		line_err(r, ln, err, errlen, "malformed %.*s header line, "
			 "expected %sNAME=N|...|: %s: '%s'", klen, kind, prefix,
			 why, item);
		return -EPROTO;
	}
	return 0;
}

/* Check line 1 and take the version from it.  Returns 0 or -errno. */
static int parse_first_line(struct rlog_reader *r, struct line *ln, char *err,
			    size_t errlen)
{
	char *pos = ln->s + 2, *end = ln->s + ln->len;
	uint64_t version;
	struct item it;
	bool found = false;

	if (!(ln->flags & LINE_TOO_LONG) && ln->len >= 2 &&
	    ln->s[0] == '#' && ln->s[1] == '|') {
		while (!found && next_item(&pos, end, &it))
			found = ITEM_IS(&it, "replay_version");
	}
	if (!found) {
		line_err(r, ln, err, errlen,
			 "missing header: a replay file starts with #|replay_version=N|");
		return -EPROTO;
	}
	if (parse_udec(it.val, it.vlen, &version)) {
		line_err(r, ln, err, errlen, "malformed replay_version '%.*s'",
			 quote_len(it.vlen), it.val);
		return -EPROTO;
	}
	if (version != RLOG_VERSION) {
		line_err(r, ln, err, errlen,
			 "replay file version %llu is not supported; this ioriot reads version %d (regenerate the replay file)",
			 (unsigned long long)version, RLOG_VERSION);
		return -EPROTONOSUPPORT;
	}
	r->hdr.version = (int)version;
	return check_line(r, ln, err, errlen);
}

/* Which section marker a '#' line is: 'I', 'O', 'E', or 0 for a comment. */
static char marker(const struct line *ln)
{
	const char *s = ln->s + 1;
	size_t len = ln->len - 1;
	const char *bar = memchr(s, '|', len);
	size_t word = bar ? (size_t)(bar - s) : len;

	if (word == 4 && memcmp(s, "INIT", 4) == 0)
		return 'I';
	if (word == 3 && memcmp(s, "OPS", 3) == 0)
		return 'O';
	if (word == 3 && memcmp(s, "END", 3) == 0)
		return 'E';
	return 0;
}

static bool is_header_line(const struct line *ln)
{
	return ln->len >= 2 && ln->s[0] == '#' && ln->s[1] == '|';
}

/*
 * Read the header lines, with the empty lines and comments between them.
 * The first other line is kept as pending for rlog_next().
 */
/*
 * Every sandbox must be <mountpoint>/.ioriot/NAME for the header's test
 * name: a hand-edited sandbox=/etc must not open the door to /etc.  Returns
 * 0 or -EPROTO.
 */
static int check_sandboxes(struct rlog_reader *r, char *err, size_t errlen)
{
	const char *name = r->hdr.name;
	size_t nlen = strlen(name), dlen = strlen(SANDBOX_DIR);

	if (!test_name_valid(name)) {
		set_err(err, errlen, "%s: header has no valid name=", r->path);
		return -EPROTO;
	}
	for (size_t i = 0; i < r->hdr.nsandboxes; i++) {
		const char *sb = r->hdr.sandboxes[i];
		size_t len = strlen(sb);
		const char *tail = sb + len - nlen;

		if (!path_is_normal(sb, len) || len < nlen + dlen + 2 ||
		    memcmp(tail, name, nlen) != 0 || tail[-1] != '/' ||
		    memcmp(tail - 1 - dlen, SANDBOX_DIR, dlen) != 0 ||
		    tail[-2 - (long)dlen] != '/') {
			set_err(err, errlen,
				"%s: sandbox %s is not <mountpoint>/%s/%s",
				r->path, sb, SANDBOX_DIR, name);
			return -EPROTO;
		}
	}
	return 0;
}

static int read_header(struct rlog_reader *r, char *err, size_t errlen)
{
	struct line ln;
	int ret;

	ret = linereader_next(r->lines, &ln);
	if (ret < 0) {
		set_err(err, errlen, "%s: %s", r->path, strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		set_err(err, errlen, "%s: empty file, not a replay file",
			r->path);
		return -ENODATA;
	}
	ret = parse_first_line(r, &ln, err, errlen);
	if (ret)
		return ret;
	ret = parse_header_line(r, &ln, err, errlen);
	if (ret)
		return ret;

	for (;;) {
		ret = linereader_next(r->lines, &ln);
		if (ret < 0) {
			set_err(err, errlen, "%s: %s", r->path, strerror(-ret));
			return ret;
		}
		if (ret == 0)	/* rlog_next() reports the missing #END */
			return check_sandboxes(r, err, errlen);
		ret = check_line(r, &ln, err, errlen);
		if (ret)
			return ret;
		if (ln.len == 0)
			continue;
		if (is_header_line(&ln)) {
			const char *prefix;
			struct uncaptured *u = count_line(r, &ln, &prefix);

			ret = u ? parse_count_line(r, &ln, u, prefix, err,
						   errlen) :
			      parse_header_line(r, &ln, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		if (ln.s[0] == '#' && !marker(&ln))
			continue;	/* a comment */
		break;
	}
	r->pending = ln;
	r->have_pending = true;
	return check_sandboxes(r, err, errlen);
}

struct rlog_reader *rlog_open(const char *path, char *err, size_t errlen)
{
	struct rlog_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->path = strdup(path);
	if (!r->path) {
		ret = -ENOMEM;
		set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
		goto fail;
	}
	r->lines = linereader_open(path);
	if (!r->lines) {
		ret = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	r->state = ST_HEADER;
	ret = read_header(r, err, errlen);
	if (ret)
		goto fail;
	return r;

fail:
	rlog_close(r);
	errno = -ret;
	return NULL;
}

const struct rlog_header *rlog_header(const struct rlog_reader *r)
{
	return &r->hdr;
}

static const char *const state_names[] = {
	[ST_HEADER] = "the header",
	[ST_INIT] = "#INIT",
	[ST_OPS] = "#OPS",
	[ST_END] = "#END",
	[ST_DONE] = "#END",
};

/* Handle a line starting with '#'.  Returns 0 or -EPROTO. */
static int parse_hash_line(struct rlog_reader *r, struct line *ln, char *err,
			   size_t errlen)
{
	char m = marker(ln);
	char *pos, *end = ln->s + ln->len;
	struct item it;
	bool found = false;

	if (is_header_line(ln)) {
		line_err(r, ln, err, errlen,
			 "header line after %s: header lines come first",
			 state_names[r->state]);
		return -EPROTO;
	}
	switch (m) {
	case 'I':
		if (r->state != ST_HEADER)
			break;
		r->state = ST_INIT;
		return 0;
	case 'O':
		if (r->state != ST_HEADER && r->state != ST_INIT)
			break;
		r->state = ST_OPS;
		return 0;
	case 'E':
		if (r->state != ST_OPS)
			break;
		pos = items_start(ln);
		while (!found && next_item(&pos, end, &it))
			found = ITEM_IS(&it, "ops");
		if (!found || parse_udec(it.val, it.vlen, &r->hdr.ops)) {
			line_err(r, ln, err, errlen,
				 "malformed #END line, expected #END|ops=N|");
			return -EPROTO;
		}
		/* The count is not checked: users may delete op lines. */
		r->state = ST_END;
		return 0;
	default:
		return 0;	/* a comment */
	}
	line_err(r, ln, err, errlen, "unexpected #%s after %s",
		 m == 'I' ? "INIT" : m == 'O' ? "OPS" : "END",
		 state_names[r->state]);
	return -EPROTO;
}

int rlog_next(struct rlog_reader *r, struct rlog_entry *e, char *err,
	      size_t errlen)
{
	struct line ln;
	int ret;

	for (;;) {
		if (r->state == ST_DONE)
			return 0;
		if (r->have_pending) {
			ln = r->pending;
			r->have_pending = false;
		} else {
			ret = linereader_next(r->lines, &ln);
			if (ret < 0) {
				set_err(err, errlen, "%s: %s", r->path,
					strerror(-ret));
				return ret;
			}
			if (ret == 0) {
				if (r->state == ST_END) {
					r->state = ST_DONE;
					return 0;
				}
				set_err(err, errlen,
					"%s: truncated replay file: no #END line (interrupted generate?)",
					r->path);
				return -EPROTO;
			}
		}
		ret = check_line(r, &ln, err, errlen);
		if (ret)
			return ret;
		if (ln.len == 0)
			continue;
		if (ln.s[0] == '#') {
			ret = parse_hash_line(r, &ln, err, errlen);
			if (ret)
				return ret;
			continue;
		}

		switch (r->state) {
		case ST_OPS:
			if (!is_init_entry(&ln)) {
				ret = parse_op(r, &ln, e, err, errlen);
				return ret ? ret : 1;
			}
			line_err(r, &ln, err, errlen,
				 "INIT entry after #OPS");
			return -EPROTO;
		case ST_INIT:
			if (is_init_entry(&ln)) {
				ret = parse_init(r, &ln, e, err, errlen);
				return ret ? ret : 1;
			}
			line_err(r, &ln, err, errlen,
				 "not an INIT entry (d PATH, f SIZE PATH, l PATH target=, x PATH or a SIZE PATH name=); operations follow #OPS");
			return -EPROTO;
		case ST_HEADER:
			line_err(r, &ln, err, errlen, "%s before #%s",
				 is_init_entry(&ln) ? "INIT entry" : "operation",
				 is_init_entry(&ln) ? "INIT" : "OPS");
			return -EPROTO;
		default:
			line_err(r, &ln, err, errlen, "line after #END");
			return -EPROTO;
		}
	}
}

void rlog_close(struct rlog_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->hdr.nsandboxes; i++)
		free(r->hdr.sandboxes[i]);
	free(r->hdr.sandboxes);
	linereader_free(r->lines);
	free(r->path);
	free(r);
}
