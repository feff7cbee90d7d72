/*
 * Tests of json.h: what the loader refuses (with line and column), the
 * size limit and file errors, the accessors, and the string writer's
 * output for names that are not UTF-8, read back by the loader.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/json.h"
#include "testutil.h"

/* Documents ioriot must refuse: where (line:col) and what. */
static const struct {
	const char *text;
	unsigned line, col;
	const char *msg;
} refused[] = {
	{ "{\"a\":1,\n \"b\":2,\n \"a\":3}", 3, 4, "duplicate object key" },
	{ "{\"a\": {\"x\": 1, \"x\": 2}}", 1, 18, "duplicate object key" },
	{ "{\"a\": \"x\\u0000y\"}", 1, 16, "\\u0000 is not allowed" },
	{ "{\"p\": \"a\xff\"}", 1, 8, "unable to decode byte 0xff" },
	{ "[\"\xed\xa0\x80\"]", 1, 2, "unable to decode byte 0xed" },
	{ "{\n  \"a\": [1, 2,]\n}\n", 2, 14, "unexpected token near ']'" },
	{ "{\n\"k\": tru}", 2, 8, "invalid token near 'tru'" },
	{ "{\"a\": 1} x", 1, 10, "end of file expected" },
	{ "{\"a\": 9223372036854775808}", 1, 25, "too big integer" },
	{ "{\"a\": 1e400}", 1, 11, "real number overflow" },
	{ "42", 1, 2, "'[' or '{' expected" },
	{ "", 1, 1, "'[' or '{' expected near end of file" },
};

START_TEST(test_refused)
{
	const char *text = refused[_i].text;
	struct jv_error e;
	json_t *v = jv_parse(text, strlen(text), &e);

	ck_assert_msg(!v, "case %d parsed", _i);
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_msg(e.line == refused[_i].line && e.col == refused[_i].col,
		      "case %d: at %u:%u, expected %u:%u (%s)", _i, e.line,
		      e.col, refused[_i].line, refused[_i].col, e.msg);
	ck_assert_msg(strstr(e.msg, refused[_i].msg),
		      "case %d: '%s' lacks '%s'", _i, e.msg, refused[_i].msg);
}
END_TEST

/* The accessors: members in the order of the text, integers apart from
 * reals, counts of either container. */
START_TEST(test_accessors)
{
	const char *text = "{\"z\": 1, \"a\": [2.5, \"s\", null], \"m\": -3}";
	const char *text2 = "{\"s\": \"t\", \"n\": 1}";
	struct jv_error e;
	json_t *v = jv_parse(text, strlen(text), &e), *v2;
	const json_t *a;
	int64_t i;
	double d;

	ck_assert_msg(v, "%s", e.msg);
	ck_assert_uint_eq(jv_count(v), 3);
	ck_assert_str_eq(jv_key(v, 0), "z");
	ck_assert_str_eq(jv_key(v, 1), "a");
	ck_assert_str_eq(jv_key(v, 2), "m");
	ck_assert_ptr_null(jv_key(v, 3));
	ck_assert_ptr_null(jv_at(v, 3));
	ck_assert_int_eq(jv_int(jv_at(v, 2), &i), 0);
	ck_assert(i == -3);
	a = jv_at(v, 1);
	ck_assert_ptr_eq(a, json_object_get(v, "a"));
	ck_assert_uint_eq(jv_count(a), 3);
	ck_assert_ptr_null(jv_key(a, 0));
	ck_assert_int_eq(jv_int(jv_at(a, 0), &i), -EINVAL);
	ck_assert_int_eq(jv_number(jv_at(a, 0), &d), 0);
	ck_assert_double_eq(d, 2.5);
	ck_assert_int_eq(jv_number(jv_at(v, 0), &d), 0);
	ck_assert_double_eq(d, 1);
	ck_assert_int_eq(jv_number(jv_at(a, 1), &d), -EINVAL);
	ck_assert_int_eq(jv_int(NULL, &i), -EINVAL);
	ck_assert_uint_eq(jv_count(jv_at(a, 2)), 0);
	ck_assert_uint_eq(jv_count(NULL), 0);
	ck_assert_ptr_null(jv_at(NULL, 0));
	v2 = jv_parse(text2, strlen(text2), &e);
	ck_assert_msg(v2, "%s", e.msg);
	ck_assert_str_eq(jv_member_string(v2, "s"), "t");
	ck_assert_ptr_null(jv_member_string(v2, "n"));
	ck_assert_ptr_null(jv_member_string(v2, "x"));
	ck_assert_ptr_null(jv_member_string(a, "s"));
	json_decref(v2);
	json_decref(v);
}
END_TEST

/* Names as json_write_string() writes them, and as they read back. */
static const struct {
	const char *name, *json, *read;
} names[] = {
	{ "plain", "\"plain\"", "plain" },
	{ "q\"b\\", "\"q\\\"b\\\\\"", "q\"b\\" },
	{ "t\tn\n\x7f", "\"t\\u0009n\\u000a\\u007f\"", "t\tn\n\x7f" },
	/* C1 CSI and a right-to-left override: escaped, read back whole */
	{ "c\xc2\x9b" "2J\xe2\x80\xae", "\"c\\u009b2J\\u202e\"",
	  "c\xc2\x9b" "2J\xe2\x80\xae" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
	  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	{ "a\xff", "\"a%FF\"", "a%FF" },
	{ "/d/\x80\x81.log", "\"/d/%80%81.log\"", "/d/%80%81.log" },
	{ "100%", "\"100%\"", "100%" },
	{ "\xc0\xaf", "\"%C0%AF\"", "%C0%AF" },	/* overlong '/' */
	{ "\xed\xa0\x80", "\"%ED%A0%80\"", "%ED%A0%80" },	/* surrogate */
	{ "\xf4\x90\x80\x80", "\"%F4%90%80%80\"", "%F4%90%80%80" },
	{ "cut\xe2\x82", "\"cut%E2%82\"", "cut%E2%82" },
};

START_TEST(test_write_string)
{
	char *out = NULL, *doc;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct jv_error e;
	json_t *v;

	ck_assert_ptr_nonnull(f);
	json_write_string(f, names[_i].name);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(out, names[_i].json);
	ck_assert_int_ge(asprintf(&doc, "[%s]", out), 0);
	v = jv_parse(doc, strlen(doc), &e);
	ck_assert_msg(v, "%s: %u:%u: %s", doc, e.line, e.col, e.msg);
	ck_assert_str_eq(json_string_value(json_array_get(v, 0)),
			 names[_i].read);
	json_decref(v);
	free(doc);
	free(out);
}
END_TEST

START_TEST(test_load)
{
	char *dir = tu_scratch();
	char *good = tu_write_str(dir, "good.json", "{\"a\": [1, 2]}\n");
	char *bad = tu_write_str(dir, "bad.json", "{\n  \"a\": [1, 2,]\n}\n");
	char *missing = tu_join(dir, "missing.json");
	char *big = tu_join(dir, "big.json");
	struct jv_error e;
	json_t *v;
	FILE *f;

	v = jv_load(good, &e);
	ck_assert_msg(v, "%s", e.msg);
	ck_assert_uint_eq(jv_count(json_object_get(v, "a")), 2);
	json_decref(v);

	ck_assert_ptr_null(jv_load(bad, &e));
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_uint_eq(e.line, 2);
	ck_assert_uint_eq(e.col, 14);

	ck_assert_ptr_null(jv_load(missing, &e));
	ck_assert_int_eq(e.code, -ENOENT);
	ck_assert_uint_eq(e.line, 0);
	ck_assert_str_eq(e.msg, "No such file or directory");

	ck_assert_ptr_null(jv_load(dir, &e));
	ck_assert_int_eq(e.code, -EISDIR);

	/* One byte over the limit, in whitespace after a valid value. */
	f = fopen(big, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{}", f);
	for (size_t k = 2; k <= JV_MAX_SIZE; k++)
		fputc(' ', f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_null(jv_load(big, &e));
	ck_assert_int_eq(e.code, -E2BIG);
	ck_assert_uint_eq(e.line, 0);
	ck_assert_str_eq(e.msg, "larger than 4194304 bytes");
	ck_assert_int_eq(truncate(big, JV_MAX_SIZE), 0);
	v = jv_load(big, &e);
	ck_assert_msg(v, "%s", e.msg);
	json_decref(v);

	ck_assert_ptr_null(jv_load("/dev/null", &e));
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
	tcase_add_loop_test(tc, test_refused, 0,
			    sizeof(refused) / sizeof(refused[0]));
	tcase_add_test(tc, test_accessors);
	tcase_add_loop_test(tc, test_write_string, 0,
			    sizeof(names) / sizeof(names[0]));
	tcase_add_test(tc, test_load);
	suite_add_tcase(s, tc);
	return s;
}
