/*
 * The replay file reader's parts (src/rlog/reader.c: the file, its
 * sections and errors; oplines.c: operation lines; initlines.c: INIT
 * entries; header.c: the header): what they share.  Private to src/rlog.
 */
#ifndef IORIOT_RLOG_READER_H
#define IORIOT_RLOG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/linereader.h"
#include "ioriot/rlog.h"

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

/* One KEY=VALUE item of a '|'-separated line such as the header. */
struct item {
	char *key, *val;
	size_t klen, vlen;
};
#define ITEM_IS(it, k) rl_item_is(it, k, sizeof(k) - 1)

/* Format a message into @err, which may be NULL. */
void rl_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Format "FILE:LINE: message" into @err, which may be NULL. */
void rl_line_err(const struct rlog_reader *r, const struct line *ln,
		 char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Report lines the line reader could not deliver whole, and NUL bytes.
 * Returns 0 or -EPROTO with a message. */
int rl_check_line(struct rlog_reader *r, const struct line *ln, char *err,
		  size_t errlen);

/* ---- fields (oplines.c) ---- */

/* Length of a field when quoted in an error message. */
int rl_quote_len(size_t len);

/* Parse unsigned decimal digits.  Returns 0 or -EINVAL. */
int rl_parse_udec(const char *s, size_t len, uint64_t *out);

/* Parse an optionally negative decimal in int64_t range.  0 or -EINVAL. */
int rl_parse_sdec(const char *s, size_t len, int64_t *out);

/* Parse 0-prefixed octal ("0" alone is zero) of up to 64 bits.  0 or
 * -EINVAL. */
int rl_parse_oct(const char *s, size_t len, uint64_t *out);

/*
 * Cut the next space-separated token from [*pos, end) and NUL-terminate it.
 * Returns the token, or NULL if none is left.
 */
char *rl_next_token(char **pos, char *end, size_t *len);

/* Whether decoded @name (@len bytes) can be an extended attribute's name:
 * 1 to RLOG_XATTR_NAME_MAX bytes, no NUL. */
bool rl_xattr_name_ok(const char *name, size_t len);

/*
 * True if decoded @path is normalised and inside a sandbox the header
 * declares: the replay engine runs as root on what this reader accepts.
 */
bool rl_confined(const struct rlog_reader *r, const char *path, size_t len);

/*
 * Whether @target (@len bytes) can be a symlink's content: a relative one
 * is any name (it resolves from the link, in the replay's jail, where
 * nothing outside the sandboxes exists), an absolute one must be confined.
 */
bool rl_link_target_ok(const struct rlog_reader *r, const char *target,
		       size_t len);

/* Parse an operation line into @e.  Returns 0 or -EPROTO with a message. */
int rl_parse_op(struct rlog_reader *r, struct line *ln,
		struct rlog_entry *e, char *err, size_t errlen);

/* ---- INIT entries (initlines.c) ---- */

/* Parse an INIT entry ("d PATH", "f SIZE PATH [mode=0OCT]",
 * "l PATH target=PATH", "x PATH", "a SIZE PATH name=NAME") into @e.
 * Returns 0 or -EPROTO with a message. */
int rl_parse_init(struct rlog_reader *r, struct line *ln,
		  struct rlog_entry *e, char *err, size_t errlen);

/* Whether line @ln is an INIT entry: a kind letter and a space. */
bool rl_is_init_entry(const struct line *ln);

/* ---- the header (header.c) ---- */

/*
 * Take the next item of a '|'-separated line from *@pos (just after a '|').
 * Items without '=' are skipped.  The value may then be decoded in place:
 * the '|' it may overwrite has already been passed.
 */
bool rl_next_item(char **pos, char *end, struct item *it);

/* Where the items of line @ln start: after its first '|'. */
char *rl_items_start(const struct line *ln);

/* Whether item @it has key @key (@klen bytes). */
bool rl_item_is(const struct item *it, const char *key, size_t klen);

/* Which section marker a '#' line is: 'I', 'O', 'E', or 0 for a comment. */
char rl_marker(const struct line *ln);

/* Whether line @ln is a header line ("#|..."). */
bool rl_is_header_line(const struct line *ln);

/* Read and check the header; the first line after it is kept pending.
 * Returns 0 or -errno with a message. */
int rl_read_header(struct rlog_reader *r, char *err, size_t errlen);

#endif
