/*
 * json: JSON documents read through jansson with ioriot's limits, indexed
 * access to their values, and the string writer every JSON output uses
 * (json.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/json.h"
#include "ioriot/textsafe.h"

/* A failure that is not about the text: @code with its message. */
static void *input_error(struct jv_error *err, int code)
{
	err->code = code;
	if (code == -E2BIG)
		snprintf(err->msg, sizeof(err->msg), "larger than %u bytes",
			 JV_MAX_SIZE);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", strerror(-code));
	return NULL;
}

json_t *jv_parse(const char *text, size_t len, struct jv_error *err)
{
	json_error_t je;
	json_t *v;

	memset(err, 0, sizeof(*err));
	if (len > JV_MAX_SIZE)
		return input_error(err, -E2BIG);
	v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (v)
		return v;
	if (json_error_code(&je) == json_error_out_of_memory)
		return input_error(err, -ENOMEM);
	err->code = -EINVAL;
	err->line = je.line > 0 ? (unsigned)je.line : 1;
	err->col = je.column > 0 ? (unsigned)je.column : 1;
	snprintf(err->msg, sizeof(err->msg), "%s", je.text);
	return NULL;
}

json_t *jv_load(const char *path, struct jv_error *err)
{
	json_t *v = NULL;
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

		if (len > JV_MAX_SIZE) {
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
	v = jv_parse(buf, len, err);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return v;
}

int jv_int(const json_t *v, int64_t *out)
{
	if (!json_is_integer(v))
		return -EINVAL;
	*out = (int64_t)json_integer_value(v);
	return 0;
}

int jv_number(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return 0;
}

const char *jv_member_string(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

size_t jv_count(const json_t *v)
{
	if (json_is_array(v))
		return json_array_size(v);
	return json_object_size(v);
}

/* The iterator at member @i of the object @v, or NULL.  jansson keeps
 * the members in the order of the text; its iterators take no const. */
static void *member(const json_t *v, size_t i)
{
	json_t *obj = (json_t *)v;
	void *it = json_is_object(v) ? json_object_iter(obj) : NULL;

	while (it && i--)
		it = json_object_iter_next(obj, it);
	return it;
}

json_t *jv_at(const json_t *v, size_t i)
{
	if (json_is_array(v))
		return json_array_get(v, i);
	return json_object_iter_value(member(v, i));
}

const char *jv_key(const json_t *v, size_t i)
{
	return json_object_iter_key(member(v, i));
}

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = utf8_seq_len(p);

		if (!n) {
			fprintf(f, "%%%02X", *p++);
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (!text_printable_len(p)) {	/* a control character */
			fprintf(f, "\\u%04x", utf8_code_point(p, n));
			p += n;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}
