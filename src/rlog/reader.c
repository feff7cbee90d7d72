/*
 * rlog reader: parses a replay file (header, INIT entries, operation lines,
 * #END) back into struct rlog_header and struct rlog_entry.  The line syntax
 * is the one src/rlog/writer.c produces; rlog.h has the contract.  This
 * file holds the file and its sections; oplines.c, initlines.c and
 * header.c parse the lines of each kind.
 *
 * Lines are parsed in place in the line reader's buffer: paths are %XX
 * decoded where they stand, so reading an entry costs no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"

/* Format a message into @err, which may be NULL. */
void rl_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Format "FILE:LINE: message" into @err, which may be NULL. */
void rl_line_err(const struct rlog_reader *r, const struct line *ln,
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

/* Report lines the line reader could not deliver whole, and NUL bytes. */
int rl_check_line(struct rlog_reader *r, const struct line *ln, char *err,
		  size_t errlen)
{
	if (ln->flags & LINE_TOO_LONG) {
		rl_line_err(r, ln, err, errlen, "line longer than %d bytes",
			    LINE_MAX_LEN);
		return -EPROTO;
	}
	if (ln->flags & LINE_NO_NEWLINE) {
		rl_line_err(r, ln, err, errlen,
			    "last line has no newline (truncated file?)");
		return -EPROTO;
	}
	if (strlen(ln->s) != ln->len) {
		rl_line_err(r, ln, err, errlen, "NUL byte in line");
		return -EPROTO;
	}
	return 0;
}

struct rlog_reader *rlog_open(const char *path, char *err, size_t errlen)
{
	struct rlog_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		rl_set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->path = strdup(path);
	if (!r->path) {
		ret = -ENOMEM;
		rl_set_err(err, errlen, "%s: %s", path, strerror(ENOMEM));
		goto fail;
	}
	/* Inline: the replay must be single-threaded when it makes its
	 * user namespace (jail.c), after opening the file. */
	r->lines = linereader_open(path, false);
	if (!r->lines) {
		ret = -errno;
		rl_set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	r->state = ST_HEADER;
	ret = rl_read_header(r, err, errlen);
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
	char m = rl_marker(ln);
	char *pos, *end = ln->s + ln->len;
	struct item it;
	bool found = false;

	if (rl_is_header_line(ln)) {
		rl_line_err(r, ln, err, errlen,
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
		pos = rl_items_start(ln);
		while (!found && rl_next_item(&pos, end, &it))
			found = ITEM_IS(&it, "ops");
		if (!found || rl_parse_udec(it.val, it.vlen, &r->hdr.ops)) {
			rl_line_err(r, ln, err, errlen,
				    "malformed #END line, expected #END|ops=N|");
			return -EPROTO;
		}
		/* The count is not checked: users may delete op lines. */
		r->state = ST_END;
		return 0;
	default:
		return 0;	/* a comment */
	}
	rl_line_err(r, ln, err, errlen, "unexpected #%s after %s",
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
				rl_set_err(err, errlen, "%s: %s", r->path,
					   strerror(-ret));
				return ret;
			}
			if (ret == 0) {
				if (r->state == ST_END) {
					r->state = ST_DONE;
					return 0;
				}
				rl_set_err(err, errlen,
					   "%s: truncated replay file: no #END line (interrupted generate?)",
					   r->path);
				return -EPROTO;
			}
		}
		ret = rl_check_line(r, &ln, err, errlen);
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
			if (!rl_is_init_entry(&ln)) {
				ret = rl_parse_op(r, &ln, e, err, errlen);
				return ret ? ret : 1;
			}
			rl_line_err(r, &ln, err, errlen,
				    "INIT entry after #OPS");
			return -EPROTO;
		case ST_INIT:
			if (rl_is_init_entry(&ln)) {
				ret = rl_parse_init(r, &ln, e, err, errlen);
				return ret ? ret : 1;
			}
			rl_line_err(r, &ln, err, errlen,
				    "not an INIT entry (d PATH, f SIZE PATH, l PATH target=, x PATH or a SIZE PATH name=); operations follow #OPS");
			return -EPROTO;
		case ST_HEADER:
			rl_line_err(r, &ln, err, errlen, "%s before #%s",
				    rl_is_init_entry(&ln) ? "INIT entry" : "operation",
				    rl_is_init_entry(&ln) ? "INIT" : "OPS");
			return -EPROTO;
		default:
			rl_line_err(r, &ln, err, errlen, "line after #END");
			return -EPROTO;
		}
	}
}

void rlog_close(struct rlog_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->hdr.nsandboxes; i++) {
		free(r->hdr.sandboxes[i]);
		free(r->hdr.test_mounts[i]);
	}
	free(r->hdr.sandboxes);
	free(r->hdr.test_mounts);
	linereader_free(r->lines);
	free(r->path);
	free(r);
}
