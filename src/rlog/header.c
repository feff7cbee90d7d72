/*
 * header: a replay file's header lines (name, user, the sandboxes, the
 * uncaptured and uring_skipped counts), read and checked when it is
 * opened.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/escape.h"
#include "ioriot/paths.h"
#include "reader.h"

/*
 * Take the next item of a '|'-separated line from *@pos (just after a '|').
 * Items without '=' are skipped.  The value may then be decoded in place:
 * the '|' it may overwrite has already been passed.
 */
bool rl_next_item(char **pos, char *end, struct item *it)
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
char *rl_items_start(const struct line *ln)
{
	char *bar = memchr(ln->s, '|', ln->len);

	return bar ? bar + 1 : ln->s + ln->len;
}

bool rl_item_is(const struct item *it, const char *key, size_t klen)
{
	return it->klen == klen && memcmp(it->key, key, klen) == 0;
}

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
		n = realloc(h->test_mounts, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		h->test_mounts = n;
		r->sandboxes_cap = cap;
	}
	h->test_mounts[h->nsandboxes] = NULL;
	h->sandboxes[h->nsandboxes] = strdup(root);
	if (!h->sandboxes[h->nsandboxes])
		return -ENOMEM;
	h->nsandboxes++;
	return 0;
}

/*
 * Item test_mount= @it of a sandbox line (@after_sandbox: a sandbox= came
 * before it on the line): the mount of the test host the line's sandbox
 * moves to, absolute and normalised, once.  Returns 0, or -EPROTO with
 * what is wrong in @err (without file and line).
 */
static int take_test_mount(struct rlog_reader *r, bool after_sandbox,
			   struct item *it, char *err, size_t errlen)
{
	struct rlog_header *h = &r->hdr;
	long n = escape_decode(it->val, it->vlen);
	char **slot;

	if (!after_sandbox) {
		snprintf(err, errlen, "test_mount= without a sandbox= before it");
		return -EPROTO;
	}
	slot = &h->test_mounts[h->nsandboxes - 1];
	if (n <= 0 || it->val[0] != '/' ||
	    !path_is_normal(it->val, (size_t)n) || n >= PATHMAP_MAX) {
		snprintf(err, errlen, "test_mount= is not a normalised "
			 "absolute path");
		return -EPROTO;
	}
	if (*slot) {
		snprintf(err, errlen, "test_mount= given twice");
		return -EPROTO;
	}
	*slot = strdup(it->val);
	if (!*slot) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Take the items this reader knows from header line @ln: name, user, ops,
 * timelines and sandbox (which may repeat, each with its test_mount=).
 * Others are ignored.  Returns 0, -EPROTO or -ENOMEM.
 */
static int parse_header_line(struct rlog_reader *r, struct line *ln, char *err,
			     size_t errlen)
{
	char *pos = rl_items_start(ln), *end = ln->s + ln->len;
	bool sandbox_line = false;
	struct item it;
	int ret;

	while (rl_next_item(&pos, end, &it)) {
		if (ITEM_IS(&it, "name")) {
			if (item_string(&it, r->hdr.name, sizeof(r->hdr.name)))
				goto bad_value;
		} else if (ITEM_IS(&it, "user")) {
			if (item_string(&it, r->hdr.user, sizeof(r->hdr.user)))
				goto bad_value;
		} else if (ITEM_IS(&it, "ops")) {
			if (rl_parse_udec(it.val, it.vlen, &r->hdr.ops_hint))
				goto bad_value;
		} else if (ITEM_IS(&it, "timelines")) {
			if (rl_parse_udec(it.val, it.vlen,
					  &r->hdr.timelines_hint))
				goto bad_value;
		} else if (ITEM_IS(&it, "sandbox")) {
			long n = escape_decode(it.val, it.vlen);

			if (n < 0 || it.val[0] != '/') {
				rl_line_err(r, ln, err, errlen,
					    "sandbox= is not an absolute path");
				return -EPROTO;
			}
			ret = add_sandbox(r, it.val);
			if (ret) {
				rl_line_err(r, ln, err, errlen, "%s",
					    strerror(-ret));
				return ret;
			}
			sandbox_line = true;
		} else if (ITEM_IS(&it, "test_mount")) {
			char why[64];

			ret = take_test_mount(r, sandbox_line, &it, why,
					      sizeof(why));
			if (ret) {
				rl_line_err(r, ln, err, errlen, "%s", why);
				return ret;
			}
		}
	}
	return 0;

bad_value:
	rl_line_err(r, ln, err, errlen, "bad %%XX escape or over-long value in %.*s=",
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
		rl_line_err(r, ln, err, errlen, "a second %.*s header line", klen,
			    kind);
		return -EPROTO;
	}
	why = uncaptured_parse(u, ln->s + plen, ln->len - plen, item);
	if (why) {
		rl_line_err(r, ln, err, errlen, "malformed %.*s header line, "
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
		while (!found && rl_next_item(&pos, end, &it))
			found = ITEM_IS(&it, "replay_version");
	}
	if (!found) {
		rl_line_err(r, ln, err, errlen,
			    "missing header: a replay file starts with #|replay_version=N|");
		return -EPROTO;
	}
	if (rl_parse_udec(it.val, it.vlen, &version)) {
		rl_line_err(r, ln, err, errlen, "malformed replay_version '%.*s'",
			    rl_quote_len(it.vlen), it.val);
		return -EPROTO;
	}
	if (version != RLOG_VERSION) {
		rl_line_err(r, ln, err, errlen,
			    "replay file version %llu is not supported; this ioriot reads version %d (regenerate the replay file)",
			    (unsigned long long)version, RLOG_VERSION);
		return -EPROTONOSUPPORT;
	}
	r->hdr.version = (int)version;
	return rl_check_line(r, ln, err, errlen);
}

/* Which section marker a '#' line is: 'I', 'O', 'E', or 0 for a comment. */
char rl_marker(const struct line *ln)
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

bool rl_is_header_line(const struct line *ln)
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
		rl_set_err(err, errlen, "%s: header has no valid name=", r->path);
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
			rl_set_err(err, errlen,
				   "%s: sandbox %s is not <mountpoint>/%s/%s",
				   r->path, sb, SANDBOX_DIR, name);
			return -EPROTO;
		}
	}
	return 0;
}

int rl_read_header(struct rlog_reader *r, char *err, size_t errlen)
{
	struct line ln;
	int ret;

	ret = linereader_next(r->lines, &ln);
	if (ret < 0) {
		rl_set_err(err, errlen, "%s: %s", r->path, strerror(-ret));
		return ret;
	}
	if (ret == 0) {
		rl_set_err(err, errlen, "%s: empty file, not a replay file",
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
			rl_set_err(err, errlen, "%s: %s", r->path, strerror(-ret));
			return ret;
		}
		if (ret == 0)	/* rlog_next() reports the missing #END */
			return check_sandboxes(r, err, errlen);
		ret = rl_check_line(r, &ln, err, errlen);
		if (ret)
			return ret;
		if (ln.len == 0)
			continue;
		if (rl_is_header_line(&ln)) {
			const char *prefix;
			struct uncaptured *u = count_line(r, &ln, &prefix);

			ret = u ? parse_count_line(r, &ln, u, prefix, err,
						   errlen) :
			      parse_header_line(r, &ln, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		if (ln.s[0] == '#' && !rl_marker(&ln))
			continue;	/* a comment */
		break;
	}
	r->pending = ln;
	r->have_pending = true;
	return check_sandboxes(r, err, errlen);
}
