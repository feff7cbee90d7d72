/*
 * Tests of json.h: valid documents and what they decode to, invalid ones
 * with the error code and position, the limits, files, and the accessors.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/json.h"
#include "testutil.h"

/* Scalars: the text, its type, and its integer, double or string. */
static const struct {
	const char *text;
	enum json_type type;
	int64_t i;
	double d;
	const char *s;
} scalars[] = {
	{ "0", JSON_INT, 0, 0, NULL },
	{ "-0", JSON_INT, 0, 0, NULL },
	{ " 42 ", JSON_INT, 42, 0, NULL },
	{ "\n\t\r 7\n", JSON_INT, 7, 0, NULL },
	{ "-9223372036854775808", JSON_INT, INT64_MIN, 0, NULL },
	{ "9223372036854775807", JSON_INT, INT64_MAX, 0, NULL },
	{ "1.5", JSON_DOUBLE, 0, 1.5, NULL },
	{ "-0.25", JSON_DOUBLE, 0, -0.25, NULL },
	{ "-1e3", JSON_DOUBLE, 0, -1000, NULL },
	{ "1E+2", JSON_DOUBLE, 0, 100, NULL },
	{ "5e-1", JSON_DOUBLE, 0, 0.5, NULL },
	{ "0.000001", JSON_DOUBLE, 0, 1e-6, NULL },
	{ "1e-400", JSON_DOUBLE, 0, 0, NULL },	/* underflow is 0, finite */
	{ "true", JSON_TRUE, 0, 0, NULL },
	{ "false", JSON_FALSE, 0, 0, NULL },
	{ "null", JSON_NULL, 0, 0, NULL },
	{ "\"\"", JSON_STRING, 0, 0, "" },
	{ "\"plain text\"", JSON_STRING, 0, 0, "plain text" },
	{ "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", JSON_STRING, 0, 0,
	  "\"\\/\b\f\n\r\t" },
	{ "\"\\u0041\\u00e9\\u20AC\"", JSON_STRING, 0, 0,
	  "A\xc3\xa9\xe2\x82\xac" },
	{ "\"\\ud83d\\ude00!\"", JSON_STRING, 0, 0, "\xf0\x9f\x98\x80!" },
	{ "\"\\uDBFF\\uDFFF\"", JSON_STRING, 0, 0, "\xf4\x8f\xbf\xbf" },
	{ "\"caf\xc3\xa9 \x80\xff\"", JSON_STRING, 0, 0,
	  "caf\xc3\xa9 \x80\xff" },	/* raw bytes pass through */
	{ "\"a\x7f\"", JSON_STRING, 0, 0, "a\x7f" },
};

START_TEST(test_scalar)
{
	struct json_error e;
	struct json_value *v = json_parse(scalars[_i].text,
					  strlen(scalars[_i].text), &e);
	int64_t i;
	double d;

	ck_assert_msg(v, "'%s': %s", scalars[_i].text, e.msg);
	ck_assert_int_eq(e.code, 0);
	ck_assert_int_eq(json_type(v), scalars[_i].type);
	switch (scalars[_i].type) {
	case JSON_INT:
		ck_assert_int_eq(json_int(v, &i), 0);
		ck_assert(i == scalars[_i].i);
		ck_assert_int_eq(json_number(v, &d), 0);
		ck_assert_double_eq(d, (double)scalars[_i].i);
		break;
	case JSON_DOUBLE:
		ck_assert_int_eq(json_int(v, &i), -EINVAL);
		ck_assert_int_eq(json_number(v, &d), 0);
		ck_assert_double_eq_tol(d, scalars[_i].d, 1e-12);
		break;
	case JSON_STRING:
		ck_assert_str_eq(json_string(v), scalars[_i].s);
		ck_assert_int_eq(json_number(v, &d), -EINVAL);
		break;
	default:
		ck_assert_ptr_null(json_string(v));
		ck_assert_int_eq(json_number(v, &d), -EINVAL);
		break;
	}
	ck_assert_uint_eq(json_count(v), 0);
	ck_assert_ptr_null(json_at(v, 0));
	ck_assert_ptr_null(json_get(v, "x"));
	json_free(v);
}
END_TEST

/* Invalid documents: the code, where (line:col) and what. */
static const struct {
	const char *text;
	size_t len;		/* 0: strlen */
	int code;
	unsigned line, col;
	const char *msg;
} invalid[] = {
	{ "", 0, -EINVAL, 1, 1, "unexpected end of input, expected a value" },
	{ "  \n ", 0, -EINVAL, 2, 2, "unexpected end of input" },
	{ "[1,]", 0, -EINVAL, 1, 4, "unexpected ']'" },
	{ "[1 2]", 0, -EINVAL, 1, 4, "expected ',' or ']'" },
	{ "[1", 0, -EINVAL, 1, 3, "unexpected end of input, expected ',' or ']'" },
	{ "{\"a\":1,}", 0, -EINVAL, 1, 8, "expected a string key" },
	{ "{\"a\" 1}", 0, -EINVAL, 1, 6, "expected ':'" },
	{ "{a:1}", 0, -EINVAL, 1, 2, "unexpected 'a', expected a string key" },
	{ "{\"a\":1 \"b\":2}", 0, -EINVAL, 1, 8, "expected ',' or '}'" },
	{ "{\"a\":1,\n \"b\":2,\n \"a\":3}", 0, -EINVAL, 3, 2, "duplicate key" },
	{ "{\"a\":{\"x\":1,\"x\":1}}", 0, -EINVAL, 1, 13, "duplicate key" },
	{ "01", 0, -EINVAL, 1, 1, "leading zero" },
	{ "-01", 0, -EINVAL, 1, 2, "leading zero" },
	{ "1.", 0, -EINVAL, 1, 3, "invalid number" },
	{ "1.e5", 0, -EINVAL, 1, 3, "invalid number" },
	{ ".5", 0, -EINVAL, 1, 1, "unexpected '.'" },
	{ "-", 0, -EINVAL, 1, 2, "invalid number" },
	{ "-a", 0, -EINVAL, 1, 2, "invalid number" },
	{ "1e", 0, -EINVAL, 1, 3, "invalid number" },
	{ "1e+", 0, -EINVAL, 1, 4, "invalid number" },
	{ "+1", 0, -EINVAL, 1, 1, "unexpected '+'" },
	{ "0x10", 0, -EINVAL, 1, 2, "unexpected 'x', expected the end" },
	{ "9223372036854775808", 0, -EINVAL, 1, 1, "integer out of range" },
	{ "-9223372036854775809", 0, -EINVAL, 1, 1, "integer out of range" },
	{ "1e400", 0, -EINVAL, 1, 1, "number out of range" },
	{ "[0, 10000000000000000000000000000000000000000000000000000000000000000]",
	  0, -E2BIG, 1, 5, "number longer than 64 characters" },
	{ "tru", 0, -EINVAL, 1, 1, "unexpected 't', expected a value" },
	{ "True", 0, -EINVAL, 1, 1, "unexpected 'T'" },
	{ "nulll", 0, -EINVAL, 1, 5, "unexpected 'l', expected the end" },
	{ "NaN", 0, -EINVAL, 1, 1, "unexpected 'N'" },
	{ "-Infinity", 0, -EINVAL, 1, 2, "invalid number" },
	{ "'a'", 0, -EINVAL, 1, 1, "unexpected '''" },
	{ "// x\n1", 0, -EINVAL, 1, 1, "unexpected '/'" },
	{ "\"abc", 0, -EINVAL, 1, 1, "unterminated string" },
	{ "\"abc\\\"", 0, -EINVAL, 1, 1, "unterminated string" },
	{ "\"a\nb\"", 0, -EINVAL, 1, 3, "control character in a string" },
	{ "\"a\tb\"", 0, -EINVAL, 1, 3, "control character in a string" },
	{ "\"\\x\"", 0, -EINVAL, 1, 2, "invalid escape" },
	{ "\"\\'\"", 0, -EINVAL, 1, 2, "invalid escape" },
	{ "\"\\u12G4\"", 0, -EINVAL, 1, 2, "invalid \\u escape" },
	{ "\"\\u12\"", 0, -EINVAL, 1, 2, "invalid \\u escape" },
	{ "\"\\ud800\"", 0, -EINVAL, 1, 2, "unpaired surrogate" },
	{ "\"\\udc00\\ud800\"", 0, -EINVAL, 1, 2, "unpaired surrogate" },
	{ "\"x\\ud800\\u0041\"", 0, -EINVAL, 1, 3, "unpaired surrogate" },
	{ "\"\\u0000\"", 0, -EINVAL, 1, 2, "\\u0000 in a string" },
	{ "\"a\0b\"", 5, -EINVAL, 1, 3, "control character" },
	{ "[\0]", 3, -EINVAL, 1, 2, "unexpected byte 0x00" },
	{ "1 2", 0, -EINVAL, 1, 3, "unexpected '2', expected the end after the value" },
	{ "{}\n\nx", 0, -EINVAL, 3, 1, "unexpected 'x'" },
	{ "\xef\xbb\xbf{}", 0, -EINVAL, 1, 1, "unexpected byte 0xef" },
	{ "[1,\n 2,\n ]", 0, -EINVAL, 3, 2, "unexpected ']'" },
	{ "{\"k\":}", 0, -EINVAL, 1, 6, "unexpected '}', expected a value" },
};

START_TEST(test_invalid)
{
	const char *text = invalid[_i].text;
	size_t len = invalid[_i].len ? invalid[_i].len : strlen(text);
	struct json_error e;
	struct json_value *v = json_parse(text, len, &e);

	ck_assert_msg(!v, "case %d parsed", _i);
	ck_assert_msg(e.code == invalid[_i].code, "case %d: code %d", _i, e.code);
	ck_assert_msg(e.line == invalid[_i].line && e.col == invalid[_i].col,
		      "case %d: at %u:%u, expected %u:%u (%s)", _i, e.line,
		      e.col, invalid[_i].line, invalid[_i].col, e.msg);
	ck_assert_msg(strstr(e.msg, invalid[_i].msg), "case %d: '%s' lacks '%s'",
		      _i, e.msg, invalid[_i].msg);
}
END_TEST

/* "[[[...1...]]]" nested @depth deep. */
static char *nested(int depth)
{
	char *s = malloc((size_t)depth * 2 + 2);

	ck_assert_ptr_nonnull(s);
	memset(s, '[', (size_t)depth);
	s[depth] = '1';
	memset(s + depth + 1, ']', (size_t)depth);
	s[depth * 2 + 1] = '\0';
	return s;
}

START_TEST(test_limits)
{
	struct json_error e;
	struct json_value *v;
	char *s = nested(JSON_MAX_DEPTH);
	const struct json_value *in;

	v = json_parse(s, strlen(s), &e);
	ck_assert_msg(v, "%s", e.msg);
	in = v;
	for (int d = 0; d < JSON_MAX_DEPTH; d++) {
		ck_assert_int_eq(json_type(in), JSON_ARRAY);
		ck_assert_uint_eq(json_count(in), 1);
		in = json_at(in, 0);
	}
	ck_assert_int_eq(json_type(in), JSON_INT);
	json_free(v);
	free(s);

	s = nested(JSON_MAX_DEPTH + 1);
	ck_assert_ptr_null(json_parse(s, strlen(s), &e));
	ck_assert_int_eq(e.code, -E2BIG);
	ck_assert_uint_eq(e.col, JSON_MAX_DEPTH + 1);
	ck_assert_str_eq(e.msg, "nested deeper than 32");
	free(s);

	/* Objects count too. */
	s = malloc(JSON_MAX_DEPTH * 6 + 8);
	ck_assert_ptr_nonnull(s);
	s[0] = '\0';
	for (int d = 0; d <= JSON_MAX_DEPTH; d++)
		strcat(s, "{\"a\":");
	ck_assert_ptr_null(json_parse(s, strlen(s), &e));
	ck_assert_int_eq(e.code, -E2BIG);
	free(s);

	/* Size: the whole input, before any parsing. */
	s = malloc(JSON_MAX_SIZE + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, ' ', JSON_MAX_SIZE + 1);
	s[0] = '1';
	v = json_parse(s, JSON_MAX_SIZE, &e);
	ck_assert_msg(v, "%s", e.msg);
	json_free(v);
	ck_assert_ptr_null(json_parse(s, JSON_MAX_SIZE + 1, &e));
	ck_assert_int_eq(e.code, -E2BIG);
	ck_assert_uint_eq(e.line, 0);
	ck_assert_str_eq(e.msg, "larger than 4194304 bytes");
	free(s);

	/* 64 characters are a number, 65 are too long. */
	v = json_parse("1.00000000000000000000000000000000000000000000000000"
		       "000000000000", 64, &e);
	ck_assert_msg(v, "%s", e.msg);
	json_free(v);
}
END_TEST

START_TEST(test_containers)
{
	static const char text[] =
		"{\n"
		"  \"zeta\": [1, 2.5, \"three\", true, false, null, [], {}],\n"
		"  \"alpha\": {\"inner\": -3},\n"
		"  \"\": \"empty key\",\n"
		"  \"m\\u00fc\": 1\n"
		"}\n";
	struct json_error e;
	struct json_value *v = json_parse(text, strlen(text), &e);
	const struct json_value *arr, *obj;
	int64_t i;

	ck_assert_msg(v, "%s", e.msg);
	ck_assert_int_eq(json_type(v), JSON_OBJECT);
	ck_assert_uint_eq(json_count(v), 4);
	/* Input order for iteration, any order for lookups. */
	ck_assert_str_eq(json_key(v, 0), "zeta");
	ck_assert_str_eq(json_key(v, 1), "alpha");
	ck_assert_str_eq(json_key(v, 2), "");
	ck_assert_str_eq(json_key(v, 3), "m\xc3\xbc");
	ck_assert_ptr_null(json_key(v, 4));
	ck_assert_ptr_eq(json_at(v, 1), json_get(v, "alpha"));
	ck_assert_str_eq(json_string(json_get(v, "")), "empty key");
	ck_assert_ptr_nonnull(json_get(v, "m\xc3\xbc"));
	ck_assert_ptr_null(json_get(v, "beta"));
	ck_assert_ptr_null(json_get(v, "alph"));
	ck_assert_uint_eq(json_line(v), 1);

	arr = json_get(v, "zeta");
	ck_assert_int_eq(json_type(arr), JSON_ARRAY);
	ck_assert_uint_eq(json_line(arr), 2);
	ck_assert_uint_eq(json_count(arr), 8);
	ck_assert_int_eq(json_type(json_at(arr, 1)), JSON_DOUBLE);
	ck_assert_str_eq(json_string(json_at(arr, 2)), "three");
	ck_assert_int_eq(json_type(json_at(arr, 3)), JSON_TRUE);
	ck_assert_int_eq(json_type(json_at(arr, 4)), JSON_FALSE);
	ck_assert_int_eq(json_type(json_at(arr, 5)), JSON_NULL);
	ck_assert_uint_eq(json_count(json_at(arr, 6)), 0);
	ck_assert_int_eq(json_type(json_at(arr, 7)), JSON_OBJECT);
	ck_assert_ptr_null(json_at(arr, 8));
	ck_assert_ptr_null(json_key(arr, 0));
	ck_assert_ptr_null(json_get(arr, "zeta"));

	obj = json_get(v, "alpha");
	ck_assert_uint_eq(json_line(obj), 3);
	ck_assert_int_eq(json_int(json_get(obj, "inner"), &i), 0);
	ck_assert(i == -3);
	ck_assert_int_eq(json_int(NULL, &i), -EINVAL);
	ck_assert_ptr_null(json_string(NULL));
	ck_assert_uint_eq(json_count(NULL), 0);
	ck_assert_ptr_null(json_get(NULL, "a"));
	json_free(v);
	json_free(NULL);
}
END_TEST

/* An object of many members, written in descending key order: every one
 * is found, and iteration keeps the input order. */
START_TEST(test_many_members)
{
	enum { N = 5000 };
	size_t cap = N * 24 + 8, n = 0;
	char *text = malloc(cap), key[16];
	struct json_error e;
	struct json_value *v;
	int64_t i;

	ck_assert_ptr_nonnull(text);
	text[n++] = '{';
	for (int k = N - 1; k >= 0; k--)
		n += (size_t)snprintf(text + n, cap - n, "\"k%05d\": %d%s", k, k,
				      k ? ", " : "}");
	v = json_parse(text, n, &e);
	ck_assert_msg(v, "%s", e.msg);
	ck_assert_uint_eq(json_count(v), N);
	ck_assert_str_eq(json_key(v, 0), "k04999");
	for (int k = 0; k < N; k++) {
		snprintf(key, sizeof(key), "k%05d", k);
		ck_assert_int_eq(json_int(json_get(v, key), &i), 0);
		ck_assert(i == k);
	}
	json_free(v);
	free(text);
}
END_TEST

START_TEST(test_load)
{
	char *dir = tu_scratch();
	char *good = tu_write_str(dir, "good.json", "{\"a\": [1, 2]}\n");
	char *bad = tu_write_str(dir, "bad.json", "{\n  \"a\": [1, 2,]\n}\n");
	char *missing = tu_join(dir, "missing.json");
	char *big = tu_join(dir, "big.json");
	struct json_error e;
	struct json_value *v;
	FILE *f;

	v = json_load(good, &e);
	ck_assert_msg(v, "%s", e.msg);
	ck_assert_uint_eq(json_count(json_get(v, "a")), 2);
	json_free(v);

	ck_assert_ptr_null(json_load(bad, &e));
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_uint_eq(e.line, 2);
	ck_assert_uint_eq(e.col, 14);
	ck_assert_uint_eq(e.offset, 15);

	ck_assert_ptr_null(json_load(missing, &e));
	ck_assert_int_eq(e.code, -ENOENT);
	ck_assert_uint_eq(e.line, 0);
	ck_assert_str_eq(e.msg, "No such file or directory");

	ck_assert_ptr_null(json_load(dir, &e));
	ck_assert_int_eq(e.code, -EISDIR);

	/* One byte over the limit, in whitespace after a valid value. */
	f = fopen(big, "w");
	ck_assert_ptr_nonnull(f);
	fputc('0', f);
	for (size_t k = 1; k <= JSON_MAX_SIZE; k++)
		fputc(' ', f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_null(json_load(big, &e));
	ck_assert_int_eq(e.code, -E2BIG);
	ck_assert_uint_eq(e.line, 0);
	ck_assert_ptr_null(json_load("/dev/null", &e));
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_uint_eq(e.line, 1);

	free(big);
	free(missing);
	free(bad);
	free(good);
	free(dir);
}
END_TEST

Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("json");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_loop_test(tc, test_scalar, 0,
			    sizeof(scalars) / sizeof(scalars[0]));
	tcase_add_loop_test(tc, test_invalid, 0,
			    sizeof(invalid) / sizeof(invalid[0]));
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_containers);
	tcase_add_test(tc, test_many_members);
	tcase_add_test(tc, test_load);
	suite_add_tcase(s, tc);
	return s;
}
