/*
 * json: a strict recursive-descent JSON reader (json.h).  Values are a
 * tree of malloc'd nodes; an object also keeps its members' indices sorted
 * by key, which finds duplicate keys and makes json_get() a binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/json.h"

struct member {
	char *key;
	struct json_value *val;
	size_t key_off;		/* where the key starts, for errors */
};

struct json_value {
	enum json_type type;
	unsigned line;
	union {
		int64_t i;
		double d;
		char *s;
		struct {
			struct json_value **v;
			size_t n, cap;
		} arr;
		struct {
			struct member *m;
			size_t *order;	/* member indices sorted by key */
			size_t n, cap;
		} obj;
	} u;
};

struct parser {
	const char *s;
	size_t len, pos;
	unsigned line;		/* of s[pos] */
	int depth;
	struct json_error *err;
};

/* Record the first error, at byte @off; returns NULL for the caller. */
__attribute__((format(printf, 4, 5)))
static void *fail(struct parser *p, size_t off, int code, const char *fmt, ...)
{
	struct json_error *e = p->err;
	va_list ap;

	if (e->code)
		return NULL;
	e->code = code;
	e->offset = off;
	e->line = 1;
	e->col = 1;
	for (size_t i = 0; i < off && i < p->len; i++) {
		if (p->s[i] == '\n') {
			e->line++;
			e->col = 1;
		} else {
			e->col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return NULL;
}

/* A message about the byte at @off, which was not expected there. */
static void *unexpected(struct parser *p, size_t off, const char *wanted)
{
	unsigned char c;

	if (off >= p->len)
		return fail(p, off, -EINVAL, "unexpected end of input%s%s",
			    *wanted ? ", expected " : "", wanted);
	c = (unsigned char)p->s[off];
	if (c > 0x20 && c < 0x7f)
		return fail(p, off, -EINVAL, "unexpected '%c'%s%s", c,
			    *wanted ? ", expected " : "", wanted);
	return fail(p, off, -EINVAL, "unexpected byte 0x%02x%s%s", c,
		    *wanted ? ", expected " : "", wanted);
}

static void skip_ws(struct parser *p)
{
	for (; p->pos < p->len; p->pos++) {
		char c = p->s[p->pos];

		if (c == '\n')
			p->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			break;
	}
}

static struct json_value *new_value(struct parser *p, enum json_type type)
{
	struct json_value *v = calloc(1, sizeof(*v));

	if (!v)
		return fail(p, p->pos, -ENOMEM, "out of memory");
	v->type = type;
	v->line = p->line;
	return v;
}

void json_free(struct json_value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case JSON_STRING:
		free(v->u.s);
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < v->u.arr.n; i++)
			json_free(v->u.arr.v[i]);
		free(v->u.arr.v);
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < v->u.obj.n; i++) {
			free(v->u.obj.m[i].key);
			json_free(v->u.obj.m[i].val);
		}
		free(v->u.obj.m);
		free(v->u.obj.order);
		break;
	default:
		break;
	}
	free(v);
}

static bool is_digit(const struct parser *p, size_t i)
{
	return i < p->len && p->s[i] >= '0' && p->s[i] <= '9';
}

static struct json_value *parse_number(struct parser *p)
{
	size_t start = p->pos, i = p->pos;
	char buf[JSON_MAX_NUMBER + 1];
	bool integer = true;
	struct json_value *v;

	if (i < p->len && p->s[i] == '-')
		i++;
	if (!is_digit(p, i))
		return fail(p, i, -EINVAL, "invalid number");
	if (p->s[i] == '0' && is_digit(p, i + 1))
		return fail(p, i, -EINVAL, "invalid number (leading zero)");
	while (is_digit(p, i))
		i++;
	if (i < p->len && p->s[i] == '.') {
		integer = false;
		if (!is_digit(p, ++i))
			return fail(p, i, -EINVAL, "invalid number");
		while (is_digit(p, i))
			i++;
	}
	if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
		integer = false;
		i++;
		if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		if (!is_digit(p, i))
			return fail(p, i, -EINVAL, "invalid number");
		while (is_digit(p, i))
			i++;
	}
	if (i - start > JSON_MAX_NUMBER)
		return fail(p, start, -E2BIG,
			    "number longer than %d characters", JSON_MAX_NUMBER);
	memcpy(buf, p->s + start, i - start);
	buf[i - start] = '\0';
	v = new_value(p, integer ? JSON_INT : JSON_DOUBLE);
	if (!v)
		return NULL;
	errno = 0;
	if (integer)
		v->u.i = strtoll(buf, NULL, 10);
	else
		v->u.d = strtod(buf, NULL);
	if (integer ? errno == ERANGE : !isfinite(v->u.d)) {
		json_free(v);
		return fail(p, start, -EINVAL, "%s out of range",
			    integer ? "integer" : "number");
	}
	p->pos = i;
	return v;
}

/* The value of 4 hex digits at @i, or -1. */
static long hex4(const struct parser *p, size_t i)
{
	long v = 0;

	if (p->len - i < 4)
		return -1;
	for (size_t k = i; k < i + 4; k++) {
		char c = p->s[k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* Write code point @cp as UTF-8 at @out; returns the bytes written. */
static size_t utf8(unsigned long cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The code point of the \u escape at @i (the backslash), joining a
 * surrogate pair; *@end is set past it.  Returns -1 after recording an
 * error.
 */
static long unicode_escape(struct parser *p, size_t i, size_t *end)
{
	long cp = hex4(p, i + 2), lo;

	if (cp < 0) {
		fail(p, i, -EINVAL, "invalid \\u escape");
		return -1;
	}
	*end = i + 6;
	if (cp >= 0xdc00 && cp <= 0xdfff) {
		fail(p, i, -EINVAL, "unpaired surrogate in \\u escape");
		return -1;
	}
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (p->len - *end < 6 || p->s[*end] != '\\' ||
		    p->s[*end + 1] != 'u' ||
		    (lo = hex4(p, *end + 2)) < 0xdc00 || lo > 0xdfff) {
			fail(p, i, -EINVAL, "unpaired surrogate in \\u escape");
			return -1;
		}
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		*end += 6;
	}
	if (cp == 0) {
		fail(p, i, -EINVAL, "\\u0000 in a string");
		return -1;
	}
	return cp;
}

/* The string starting at p->pos (its quote), decoded into a malloc'd
 * buffer; NULL after recording an error. */
static char *parse_string(struct parser *p)
{
	size_t start = p->pos, i = start + 1, end, n = 0;
	char *out;

	/* Find the closing quote first: the text is an upper bound of the
	 * decoded length, since every escape shrinks. */
	for (end = i; end < p->len && p->s[end] != '"'; end++) {
		if ((unsigned char)p->s[end] < 0x20)
			return fail(p, end, -EINVAL,
				    "control character in a string");
		if (p->s[end] == '\\')
			end++;
	}
	if (end >= p->len)
		return fail(p, start, -EINVAL, "unterminated string");
	out = malloc(end - i + 1);
	if (!out)
		return fail(p, start, -ENOMEM, "out of memory");
	while (i < end) {
		static const char from[] = "\"\\/bfnrt";
		static const char to[] = "\"\\/\b\f\n\r\t";
		const char *esc;
		long cp;

		if (p->s[i] != '\\') {
			out[n++] = p->s[i++];
			continue;
		}
		if (p->s[i + 1] == 'u') {
			cp = unicode_escape(p, i, &i);
			if (cp < 0)
				goto err;
			n += utf8((unsigned long)cp, out + n);
			continue;
		}
		esc = strchr(from, p->s[i + 1]);
		if (!esc || !p->s[i + 1]) {
			fail(p, i, -EINVAL, "invalid escape in a string");
			goto err;
		}
		out[n++] = to[esc - from];
		i += 2;
	}
	out[n] = '\0';
	p->pos = end + 1;
	return out;

err:
	free(out);
	return NULL;
}

static struct json_value *parse_value(struct parser *p);

/* Append @elem to the array @v; -ENOMEM. */
static int push_element(struct json_value *v, struct json_value *elem)
{
	if (v->u.arr.n == v->u.arr.cap) {
		size_t cap = v->u.arr.cap ? v->u.arr.cap * 2 : 8;
		struct json_value **nv = realloc(v->u.arr.v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->u.arr.v = nv;
		v->u.arr.cap = cap;
	}
	v->u.arr.v[v->u.arr.n++] = elem;
	return 0;
}

/* Append a member to the object @v, which takes @key and @val; -ENOMEM. */
static int push_member(struct json_value *v, char *key, struct json_value *val,
		       size_t key_off)
{
	if (v->u.obj.n == v->u.obj.cap) {
		size_t cap = v->u.obj.cap ? v->u.obj.cap * 2 : 8;
		struct member *nm = realloc(v->u.obj.m, cap * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		v->u.obj.m = nm;
		v->u.obj.cap = cap;
	}
	v->u.obj.m[v->u.obj.n++] = (struct member){ key, val, key_off };
	return 0;
}

/* Entering an array or object; false after recording an error. */
static bool descend(struct parser *p)
{
	if (++p->depth > JSON_MAX_DEPTH) {
		fail(p, p->pos, -E2BIG, "nested deeper than %d",
		     JSON_MAX_DEPTH);
		return false;
	}
	p->pos++;
	skip_ws(p);
	return true;
}

/* After an element of an array or object: 1 for a ',' (more follow), 0
 * for @close (left in place), -1 after recording an error. */
static int after_element(struct parser *p, char close, const char *wanted)
{
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == ',') {
		p->pos++;
		return 1;
	}
	if (p->pos < p->len && p->s[p->pos] == close)
		return 0;
	unexpected(p, p->pos, wanted);
	return -1;
}

static struct json_value *parse_array(struct parser *p)
{
	struct json_value *v = new_value(p, JSON_ARRAY), *elem;
	int more;

	if (!v || !descend(p))
		goto err;
	if (p->pos < p->len && p->s[p->pos] == ']') {
		p->pos++;
		p->depth--;
		return v;
	}
	for (;;) {
		elem = parse_value(p);
		if (!elem)
			goto err;
		if (push_element(v, elem)) {
			json_free(elem);
			fail(p, p->pos, -ENOMEM, "out of memory");
			goto err;
		}
		more = after_element(p, ']', "',' or ']'");
		if (more < 0)
			goto err;
		if (!more)
			break;
	}
	p->pos++;
	p->depth--;
	return v;

err:
	json_free(v);
	return NULL;
}

/* Order of member indices by key, then by index. */
static int cmp_members(const void *a, const void *b, void *ctx)
{
	const struct member *m = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(m[i].key, m[j].key);

	return c ? c : (i > j) - (i < j);
}

/* Sort the members of @v by key; an error if a key repeats. */
static bool index_members(struct parser *p, struct json_value *v)
{
	size_t n = v->u.obj.n, *order;

	if (!n)
		return true;
	order = malloc(n * sizeof(*order));
	if (!order) {
		fail(p, p->pos, -ENOMEM, "out of memory");
		return false;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_members, v->u.obj.m);
	v->u.obj.order = order;
	for (size_t i = 1; i < n; i++) {
		const struct member *a = &v->u.obj.m[order[i - 1]];
		const struct member *b = &v->u.obj.m[order[i]];

		if (!strcmp(a->key, b->key)) {
			fail(p, b->key_off, -EINVAL, "duplicate key");
			return false;
		}
	}
	return true;
}

static struct json_value *parse_object(struct parser *p)
{
	struct json_value *v = new_value(p, JSON_OBJECT), *val;
	size_t key_off;
	char *key;
	int more;

	if (!v || !descend(p))
		goto err;
	if (p->pos < p->len && p->s[p->pos] == '}') {
		p->pos++;
		p->depth--;
		return v;
	}
	for (;;) {
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != '"') {
			unexpected(p, p->pos, "a string key");
			goto err;
		}
		key_off = p->pos;
		key = parse_string(p);
		if (!key)
			goto err;
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != ':') {
			free(key);
			unexpected(p, p->pos, "':'");
			goto err;
		}
		p->pos++;
		val = parse_value(p);
		if (!val || push_member(v, key, val, key_off)) {
			if (val)
				fail(p, p->pos, -ENOMEM, "out of memory");
			free(key);
			json_free(val);
			goto err;
		}
		more = after_element(p, '}', "',' or '}'");
		if (more < 0)
			goto err;
		if (!more)
			break;
	}
	if (!index_members(p, v))
		goto err;
	p->pos++;
	p->depth--;
	return v;

err:
	json_free(v);
	return NULL;
}

/* true, false or null. */
static struct json_value *parse_literal(struct parser *p)
{
	static const struct {
		const char *word;
		enum json_type type;
	} words[] = {
		{ "true", JSON_TRUE },
		{ "false", JSON_FALSE },
		{ "null", JSON_NULL },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);
		struct json_value *v;

		if (p->len - p->pos < n ||
		    memcmp(p->s + p->pos, words[i].word, n))
			continue;
		v = new_value(p, words[i].type);
		if (v)
			p->pos += n;
		return v;
	}
	return unexpected(p, p->pos, "a value");
}

static struct json_value *parse_value(struct parser *p)
{
	struct json_value *v;
	char *s;

	skip_ws(p);
	if (p->pos >= p->len)
		return unexpected(p, p->pos, "a value");
	switch (p->s[p->pos]) {
	case '{':
		return parse_object(p);
	case '[':
		return parse_array(p);
	case '"':
		v = new_value(p, JSON_STRING);
		s = v ? parse_string(p) : NULL;
		if (!s) {
			json_free(v);
			return NULL;
		}
		v->u.s = s;
		return v;
	case '-':
	case '0' ... '9':
		return parse_number(p);
	default:
		return parse_literal(p);
	}
}

/* Record an error about the input as a whole (no position): its size, or
 * why it cannot be read. */
static void *input_error(struct json_error *err, int code)
{
	err->code = code;
	if (code == -E2BIG)
		snprintf(err->msg, sizeof(err->msg), "larger than %u bytes",
			 JSON_MAX_SIZE);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-code));
	return NULL;
}

struct json_value *json_parse(const char *text, size_t len,
			      struct json_error *err)
{
	struct parser p = { .s = text, .len = len, .line = 1, .err = err };
	struct json_value *v;

	memset(err, 0, sizeof(*err));
	if (len > JSON_MAX_SIZE)
		return input_error(err, -E2BIG);
	v = parse_value(&p);
	if (!v)
		return NULL;
	skip_ws(&p);
	if (p.pos < len) {
		json_free(v);
		return unexpected(&p, p.pos, "the end after the value");
	}
	return v;
}

struct json_value *json_load(const char *path, struct json_error *err)
{
	struct json_value *v = NULL;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(err, 0, sizeof(*err));
	if (!buf || fd < 0) {
		input_error(err, buf ? -errno : -ENOMEM);
		goto out;
	}
	for (;;) {
		ssize_t got;

		if (len > JSON_MAX_SIZE) {
			input_error(err, -E2BIG);
			goto out;
		}
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				input_error(err, -ENOMEM);
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			input_error(err, -errno);
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	v = json_parse(buf, len, err);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return v;
}

enum json_type json_type(const struct json_value *v)
{
	return v->type;
}

unsigned json_line(const struct json_value *v)
{
	return v->line;
}

int json_int(const struct json_value *v, int64_t *out)
{
	if (!v || v->type != JSON_INT)
		return -EINVAL;
	*out = v->u.i;
	return 0;
}

int json_number(const struct json_value *v, double *out)
{
	if (!v || (v->type != JSON_INT && v->type != JSON_DOUBLE))
		return -EINVAL;
	*out = v->type == JSON_INT ? (double)v->u.i : v->u.d;
	return 0;
}

const char *json_string(const struct json_value *v)
{
	return v && v->type == JSON_STRING ? v->u.s : NULL;
}

size_t json_count(const struct json_value *v)
{
	if (v && v->type == JSON_ARRAY)
		return v->u.arr.n;
	if (v && v->type == JSON_OBJECT)
		return v->u.obj.n;
	return 0;
}

const struct json_value *json_at(const struct json_value *v, size_t i)
{
	if (i >= json_count(v))
		return NULL;
	return v->type == JSON_ARRAY ? v->u.arr.v[i] : v->u.obj.m[i].val;
}

const char *json_key(const struct json_value *v, size_t i)
{
	if (!v || v->type != JSON_OBJECT || i >= v->u.obj.n)
		return NULL;
	return v->u.obj.m[i].key;
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
	size_t lo = 0, hi;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	hi = v->u.obj.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct member *m = &v->u.obj.m[v->u.obj.order[mid]];
		int c = strcmp(key, m->key);

		if (!c)
			return m->val;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
