/*
 * oplines: a replay file's operation lines, parsed in place into struct
 * rlog_entry, and checked: increasing ids, arguments in range, every path
 * confined to the sandboxes.  The fields' number formats are here too.
 * This is the replay's hot path: one pass over each line, no allocation.
 */
#include <errno.h>
#include <string.h>

#include "ioriot/escape.h"
#include "ioriot/paths.h"
#include "ioriot/uring.h"
#include "reader.h"

/* How the value of an operation argument is written. */
enum arg_type {
	AT_UDEC,		/* unsigned decimal */
	AT_SDEC,		/* signed decimal */
	AT_FLAGS,		/* 0x hex, or signed decimal */
	AT_MODE,		/* 0-prefixed octal */
	AT_HEX,			/* 0x hex */
	AT_PATH,		/* %XX escaped bytes */
	AT_NAME,		/* %XX escaped bytes: an xattr name */
	AT_TIMELINE,		/* PID:TID, stored as PID << 32 | TID */
	AT_PAIR,		/* A:B, two unsigned decimals, stored in
				 * the field and the one after it */
};

struct arg_key {
	const char *name;
	unsigned char len;
	unsigned char type;	/* enum arg_type */
	uint64_t bit;		/* enum rlog_have, RL_RUNQ */
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
	NUM_KEY("cpu", AT_UDEC, RL_CPU, cpu_ns),
	NUM_KEY("parent", AT_TIMELINE, RL_PARENT, parent),
	NUM_KEY("sync", AT_PAIR, RL_SYNC, sync_id),
	NUM_KEY("waited", AT_UDEC, RL_WAITED, waited_ns),
	NUM_KEY("probe", AT_UDEC, RL_PROBE, probe_ns),
	NUM_KEY("runq", AT_UDEC, RL_RUNQ, runq_ns),
	{ "name", 4, AT_NAME, RL_NAME, offsetof(struct rlog_op, name),
	  offsetof(struct rlog_op, name_len) },
};

#define NARG_KEYS (sizeof(arg_keys) / sizeof(arg_keys[0]))

/* Length of a field when quoted in an error message. */
int rl_quote_len(size_t len)
{
	return len > ERR_TOKEN_MAX ? ERR_TOKEN_MAX : (int)len;
}

/* Parse unsigned decimal digits.  Returns 0 or -EINVAL. */
int rl_parse_udec(const char *s, size_t len, uint64_t *out)
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
int rl_parse_sdec(const char *s, size_t len, int64_t *out)
{
	bool neg = len > 0 && s[0] == '-';
	uint64_t v;

	if (rl_parse_udec(s + neg, len - neg, &v))
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
int rl_parse_oct(const char *s, size_t len, uint64_t *out)
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
	if (rl_parse_udec(s, plen, &p) || rl_parse_udec(colon + 1, len - plen - 1, &t))
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
		if (rl_parse_udec(s + start, end - start, &d->id[d->n]))
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
char *rl_next_token(char **pos, char *end, size_t *len)
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
bool rl_xattr_name_ok(const char *name, size_t len)
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
		ret = rl_parse_udec(val, vlen, &u);
		if (!ret)
			memcpy(base + k->off, &u, sizeof(u));
		break;
	case AT_SDEC:
		ret = rl_parse_sdec(val, vlen, &i);
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_FLAGS:
		if (vlen > 1 && val[0] == '0' && (val[1] == 'x' || val[1] == 'X')) {
			ret = parse_hex(val, vlen, &u);
			i = (int64_t)u;
		} else {
			ret = rl_parse_sdec(val, vlen, &i);
		}
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_MODE:
		ret = rl_parse_oct(val, vlen, &u);
		i = (int64_t)u;
		if (!ret)
			memcpy(base + k->off, &i, sizeof(i));
		break;
	case AT_HEX:
		ret = parse_hex(val, vlen, &u);
		if (!ret)
			memcpy(base + k->off, &u, sizeof(u));
		break;
	case AT_TIMELINE: {
		uint32_t pid, tid;

		ret = parse_ids(val, vlen, &pid, &tid);
		u = (uint64_t)pid << 32 | tid;
		if (!ret)
			memcpy(base + k->off, &u, sizeof(u));
		break;
	}
	case AT_PAIR: {
		const char *colon = memchr(val, ':', vlen);
		uint64_t pair[2];

		ret = colon ? rl_parse_udec(val, (size_t)(colon - val), &pair[0]) :
			      -EINVAL;
		if (!ret)
			ret = rl_parse_udec(colon + 1, vlen - (size_t)(colon - val) - 1,
					    &pair[1]);
		if (!ret)
			memcpy(base + k->off, pair, sizeof(pair));
		break;
	}
	default: {
		long n = escape_decode(val, vlen);
		const char *p = val;
		uint32_t plen;

		if (n < 0)
			return "bad %XX escape in argument";
		if (k->type == AT_NAME && !rl_xattr_name_ok(val, (size_t)n))
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
bool rl_confined(const struct rlog_reader *r, const char *path, size_t len)
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
bool rl_link_target_ok(const struct rlog_reader *r, const char *target,
		       size_t len)
{
	if (!len || len >= PATHMAP_MAX || memchr(target, '\0', len))
		return false;
	return target[0] != '/' || rl_confined(r, target, len);
}

/* The most bytes one read or write moves (MAX_RW_COUNT). */
#define URING_RW_MAX 0x7ffff000

const char *rlog_uring_problem(const struct rlog_op *op)
{
	enum sys_kind kind = sys_info(op->sys)->kind;
	uint64_t h = op->have;

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
		return !(h & RL_SLOT) ? "no slot=" :
		       op->slot >= URING_BUFS_MAX ? "slot= (buffer) beyond 16383" :
		       !(h & RL_COUNT) ||
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
		rl_line_err(r, ln, err, errlen,
			    "operation id %llu does not follow %llu: ids must increase",
			    (unsigned long long)op->id,
			    (unsigned long long)r->last_id);
		return -EPROTO;
	}
	for (int i = 0; i < op->deps.n; i++) {
		if (op->deps.id[i] >= op->id) {
			rl_line_err(r, ln, err, errlen,
				    "dependency %llu is not an earlier operation",
				    (unsigned long long)op->deps.id[i]);
			return -EPROTO;
		}
	}
	if ((op->have & RL_SYNC) && (!op->sync_id || op->sync_id >= op->id)) {
		rl_line_err(r, ln, err, errlen,
			    "sync=%llu is not an earlier operation",
			    (unsigned long long)op->sync_id);
		return -EPROTO;
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const char *p = paths[i].bit == RL_PATH ? op->path :
				paths[i].bit == RL_PATH2 ? op->path2 : op->target;
		uint32_t len = paths[i].bit == RL_PATH ? op->path_len :
			       paths[i].bit == RL_PATH2 ? op->path2_len :
			       op->target_len;

		if (!(op->have & paths[i].bit) ||
		    (paths[i].bit == RL_TARGET ? rl_link_target_ok(r, p, len) :
		     rl_confined(r, p, len)))
			continue;
		rl_line_err(r, ln, err, errlen, "%s is not a normalised path "
			    "inside a sandbox%s", paths[i].name,
			    paths[i].bit == RL_TARGET ? " (nor a relative one)" : "");
		return -EPROTO;
	}
	/* Pages through a mapping: where, how many, how far apart. */
	if (sys_info(op->sys)->kind == SK_MAPPAGE &&
	    ((op->have & (RL_FD | RL_ADDR | RL_COUNT)) !=
	     (RL_FD | RL_ADDR | RL_COUNT) || op->count < 1 ||
	     ((op->have & RL_STRIDE) && op->stride < 1))) {
		rl_line_err(r, ln, err, errlen, "%s needs fd=, addr= and a count= "
			    "of 1 or more pages (and a stride= of 1 or more)",
			    sys_info(op->sys)->replay_name);
		return -EPROTO;
	}
	if ((op->have & RL_UMASK) && (uint64_t)op->umask > 0777) {
		rl_line_err(r, ln, err, errlen, "umask 0%llo beyond 0777",
			    (unsigned long long)op->umask);
		return -EPROTO;
	}
	const char *problem = rlog_uring_problem(op);
	if (problem) {
		rl_line_err(r, ln, err, errlen, "malformed %s operation: %s",
			    sys_info(op->sys)->replay_name, problem);
		return -EPROTO;
	}
	r->last_id = op->id;
	return 0;
}

/* Parse an operation line into @e.  Returns 0 or -EPROTO. */
int rl_parse_op(struct rlog_reader *r, struct line *ln,
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
		tok[n] = rl_next_token(&pos, end, &len[n]);
		if (!tok[n]) {
			rl_line_err(r, ln, err, errlen,
				    "operation line has %d fields, needs ID PID:TID TIME_NS DUR_NS DEPS OP RET",
				    n);
			return -EPROTO;
		}
	}

	/* The dependency ids are set as far as deps.n says: not zeroed. */
	memset(op, 0, offsetof(struct rlog_op, deps));
	op->deps.n = 0;
	op->deps.dropped = 0;
	if (rl_parse_udec(tok[0], len[0], &op->id))
		bad = 0;
	else if (parse_ids(tok[1], len[1], &op->pid, &op->tid))
		bad = 1;
	else if (rl_parse_udec(tok[2], len[2], &op->time_ns))
		bad = 2;
	else if (rl_parse_udec(tok[3], len[3], &op->dur_ns))
		bad = 3;
	else if ((ret = parse_deps(tok[4], len[4], &op->deps)))
		bad = 4;
	else if (rl_parse_sdec(tok[6], len[6], &op->ret))
		bad = 6;
	if (bad == 4 && ret == -E2BIG) {
		rl_line_err(r, ln, err, errlen, "more than %d dependencies in '%.*s'",
			    DEPS_MAX, rl_quote_len(len[4]), tok[4]);
		return -EPROTO;
	}
	if (bad >= 0) {
		rl_line_err(r, ln, err, errlen, "malformed %s field '%.*s'",
			    names[bad], rl_quote_len(len[bad]), tok[bad]);
		return -EPROTO;
	}
	sys = sys_lookup(tok[5], len[5], true);
	if (sys < 0) {
		rl_line_err(r, ln, err, errlen, "unknown operation '%.*s'",
			    rl_quote_len(len[5]), tok[5]);
		return -EPROTO;
	}
	op->sys = (enum sys_id)sys;

	for (;;) {
		size_t alen;
		char *arg = rl_next_token(&pos, end, &alen);
		const char *what;

		if (!arg)
			break;
		what = parse_arg(op, arg, alen);
		if (what) {
			rl_line_err(r, ln, err, errlen, "%s '%.*s'", what,
				    rl_quote_len(alen), arg);
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
