/*
 * json: a small, strict JSON reader, enough for the statistics ioriot
 * writes (report.h) and reads back to compare runs (compare.h).
 *
 * It accepts RFC 8259 JSON only: no comments, no trailing commas, no
 * leading zeros, no duplicate keys in an object, no byte order mark.
 * Strings are decoded (escapes, \u surrogate pairs to UTF-8); a \u0000
 * is refused because strings are handed out NUL-terminated, and bytes of
 * 0x80 and above are taken as they are (the writer passes names through
 * unchanged).  Numbers without a fraction or exponent are integers and must
 * fit int64_t; the others are doubles and must be finite.
 */
#ifndef IORIOT_JSON_H
#define IORIOT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32		/* arrays and objects nested */
#define JSON_MAX_SIZE (4u << 20)	/* bytes of input */
#define JSON_MAX_NUMBER 64		/* characters of one number */

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_INT,
	JSON_DOUBLE,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value;

/* Why and where parsing failed. */
struct json_error {
	int code;		/* -EINVAL (syntax), -E2BIG (a limit), -ENOMEM,
				 * or the -errno of reading the file */
	size_t offset;		/* byte offset of the fault, from 0 */
	unsigned line, col;	/* 1-based; 0 when not about the text */
	char msg[96];		/* what is wrong, without the position */
};

/*
 * Parse the @len bytes at @text as one JSON value (surrounded by
 * whitespace only).  Returns the value, or NULL with @err filled in.
 */
struct json_value *json_parse(const char *text, size_t len,
			      struct json_error *err);

/*
 * Read the file @path (at most JSON_MAX_SIZE bytes) and parse it as
 * json_parse() does.  Returns the value, or NULL with @err filled in.
 */
struct json_value *json_load(const char *path, struct json_error *err);

/* Free @v and everything below it.  Accepts NULL. */
void json_free(struct json_value *v);

/* The type of @v. */
enum json_type json_type(const struct json_value *v);

/* The input line @v starts on (1-based). */
unsigned json_line(const struct json_value *v);

/* The integer @v in *@out.  Returns 0, or -EINVAL if @v is no JSON_INT. */
int json_int(const struct json_value *v, int64_t *out);

/* The number @v (an integer or a double) in *@out.  Returns 0, or -EINVAL
 * if @v is not a number. */
int json_number(const struct json_value *v, double *out);

/* The NUL-terminated text of a string, or NULL if @v is no JSON_STRING. */
const char *json_string(const struct json_value *v);

/* Elements of an array, members of an object; 0 for other types. */
size_t json_count(const struct json_value *v);

/* Element @i of an array, or the value of member @i of an object, in
 * input order.  NULL if @i is out of range or @v is neither. */
const struct json_value *json_at(const struct json_value *v, size_t i);

/* The key of member @i of an object, in input order.  NULL if @i is out
 * of range or @v is no object. */
const char *json_key(const struct json_value *v, size_t i);

/* The value of member @key of an object.  NULL if @v is no object or has
 * no such member. */
const struct json_value *json_get(const struct json_value *v, const char *key);

/* Write @s as a JSON string (quoted, escaped) to @f; errors are left in
 * @f's error indicator. */
void json_write_string(FILE *f, const char *s);

#endif
