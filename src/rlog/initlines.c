/*
 * initlines: a replay file's INIT entries (d, f, l, x, a), parsed in place
 * and confined to the sandboxes.
 */
#include <errno.h>
#include <string.h>

#include "ioriot/escape.h"
#include "reader.h"

/* Parse an INIT entry ("d PATH", "f SIZE PATH [mode=0OCT]",
 * "l PATH target=PATH", "x PATH", "a SIZE PATH name=NAME") into @e. */
int rl_parse_init(struct rlog_reader *r, struct line *ln,
		  struct rlog_entry *e, char *err, size_t errlen)
{
	char *pos = ln->s + 2, *end = ln->s + ln->len;
	char *path, *size = NULL, *mode_tok, *target = NULL;
	size_t plen, slen = 0, mlen;
	uint64_t bytes = 0, mode = 0;
	long n, tlen = 0;

	if (ln->s[0] == RLOG_INIT_FILE || ln->s[0] == RLOG_INIT_XATTR) {
		size = rl_next_token(&pos, end, &slen);
		if (!size || rl_parse_udec(size, slen, &bytes)) {
			rl_line_err(r, ln, err, errlen,
				    "malformed size in INIT entry, expected %c SIZE PATH",
				    ln->s[0]);
			return -EPROTO;
		}
	}
	path = rl_next_token(&pos, end, &plen);
	if (!path) {
		rl_line_err(r, ln, err, errlen, "INIT entry without a path");
		return -EPROTO;
	}
	mode_tok = rl_next_token(&pos, end, &mlen);
	if (ln->s[0] == RLOG_INIT_SYMLINK) {
		if (!mode_tok || mlen < 8 || memcmp(mode_tok, "target=", 7)) {
			rl_line_err(r, ln, err, errlen,
				    "malformed INIT symlink, expected l PATH target=PATH");
			return -EPROTO;
		}
		target = mode_tok + 7;
		tlen = escape_decode(target, mlen - 7);
		if (tlen < 0 || !rl_link_target_ok(r, target, (size_t)tlen)) {
			rl_line_err(r, ln, err, errlen,
				    "INIT symlink target is neither relative nor a "
				    "normalised path inside a sandbox");
			return -EPROTO;
		}
		mode_tok = NULL;
	} else if (ln->s[0] == RLOG_INIT_XATTR) {
		if (!mode_tok || mlen < 6 || memcmp(mode_tok, "name=", 5)) {
			rl_line_err(r, ln, err, errlen,
				    "malformed INIT xattr, expected a SIZE PATH name=NAME");
			return -EPROTO;
		}
		target = mode_tok + 5;
		tlen = escape_decode(target, mlen - 5);
		if (tlen < 0 || !rl_xattr_name_ok(target, (size_t)tlen)) {
			rl_line_err(r, ln, err, errlen,
				    "INIT xattr name is not 1 to 255 bytes without NUL");
			return -EPROTO;
		}
		/* Init sets attributes as the test user, who may set no
		 * other; as root it must not set any other either. */
		if ((size_t)tlen < 6 || memcmp(target, "user.", 5)) {
			rl_line_err(r, ln, err, errlen,
				    "INIT xattr name is not user.NAME");
			return -EPROTO;
		}
		if (bytes > RLOG_XATTR_SIZE_MAX) {
			rl_line_err(r, ln, err, errlen,
				    "INIT xattr value of more than %d bytes",
				    RLOG_XATTR_SIZE_MAX);
			return -EPROTO;
		}
		mode_tok = NULL;
	} else if (mode_tok && (ln->s[0] != RLOG_INIT_FILE || mlen < 6 ||
				memcmp(mode_tok, "mode=", 5) ||
				rl_parse_oct(mode_tok + 5, mlen - 5, &mode) ||
				mode > 0777)) {
		rl_line_err(r, ln, err, errlen, ln->s[0] == RLOG_INIT_FILE ?
			    "bad INIT field after the path, expected mode=0OCT "
			    "(permission bits)" : "extra field after the INIT path");
		return -EPROTO;
	}
	if (rl_next_token(&pos, end, &mlen)) {
		rl_line_err(r, ln, err, errlen, "extra field after the INIT path");
		return -EPROTO;
	}
	n = escape_decode(path, plen);
	if (n < 0) {
		rl_line_err(r, ln, err, errlen, "bad %%XX escape in INIT path");
		return -EPROTO;
	}
	if (!rl_confined(r, path, (size_t)n)) {
		rl_line_err(r, ln, err, errlen,
			    "INIT path is not a normalised path inside a sandbox");
		return -EPROTO;
	}
	if (bytes > INT64_MAX) {
		rl_line_err(r, ln, err, errlen, "INIT size beyond what a file can have");
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

bool rl_is_init_entry(const struct line *ln)
{
	char c = ln->s[0];

	return ln->len >= 2 && ln->s[1] == ' ' &&
	       (c == RLOG_INIT_DIR || c == RLOG_INIT_FILE ||
		c == RLOG_INIT_SYMLINK || c == RLOG_INIT_ABSENT ||
		c == RLOG_INIT_XATTR);
}
