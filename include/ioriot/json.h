/*
 * json: reading JSON through jansson, and writing JSON strings.
 *
 * jv_load() and jv_parse() hand the text to jansson with the strictness
 * ioriot relies on: duplicate keys in an object and \u0000 in a string are
 * refused, strings must be valid UTF-8, the document must be an object or
 * an array, and a file may hold at most JV_MAX_SIZE bytes.  Syntax errors
 * carry the line and column jansson reports.  Values are jansson's json_t;
 * the few accessors below add what jansson lacks: an integer or number
 * with an error code, and indexed access to the members of an object in
 * the order of the text.
 *
 * json_write_string() writes any C string as valid JSON: bytes that are
 * not part of valid UTF-8 (names from a capture can be arbitrary bytes)
 * are written as %XX with two upper-case hex digits, as the capture
 * format escapes paths; a '%' of the name itself is written as it is.
 */
#ifndef IORIOT_JSON_H
#define IORIOT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#define JV_MAX_SIZE (4u << 20)	/* bytes of input */

/* Why and where reading failed. */
struct jv_error {
	int code;		/* -EINVAL (syntax), -E2BIG (the size limit),
				 * -ENOMEM, or the -errno of reading the file */
	unsigned line, col;	/* 1-based; 0 when not about the text */
	char msg[JSON_ERROR_TEXT_LENGTH];	/* what is wrong, not where */
};

/*
 * Parse the @len bytes at @text as one JSON document.  Returns the value
 * (free it with json_decref()), or NULL with @err filled in.
 */
json_t *jv_parse(const char *text, size_t len, struct jv_error *err);

/*
 * Read the file @path (at most JV_MAX_SIZE bytes) and parse it as
 * jv_parse() does.  Returns the value, or NULL with @err filled in.
 */
json_t *jv_load(const char *path, struct jv_error *err);

/* The integer @v in *@out.  Returns 0, or -EINVAL if @v is no integer. */
int jv_int(const json_t *v, int64_t *out);

/* The number @v (an integer or a real) in *@out.  Returns 0, or -EINVAL
 * if @v is not a number. */
int jv_number(const json_t *v, double *out);

/* The string member @key of the object @obj, or NULL if @obj is no
 * object, has no such member or it is no string. */
const char *jv_member_string(const json_t *obj, const char *key);

/* Elements of an array, members of an object; 0 for other types and
 * NULL. */
size_t jv_count(const json_t *v);

/* Element @i of an array, or the value of member @i of an object in the
 * order of the text (found in O(@i) steps: jansson's objects are hash
 * tables).  NULL if @i is out of range or @v is neither. */
json_t *jv_at(const json_t *v, size_t i);

/* The key of member @i of an object, in the order of the text.  NULL if
 * @i is out of range or @v is no object. */
const char *jv_key(const json_t *v, size_t i);

/* Write @s as a JSON string (quoted, escaped, control characters as
 * textsafe.h defines them as \uXXXX, bytes that are not UTF-8 as %XX) to
 * @f; errors are left in @f's error indicator. */
void json_write_string(FILE *f, const char *s);

#endif
