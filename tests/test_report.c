/*
 * Tests of the replay statistics (src/replay/report.c): the syscalls the
 * capture did not record, from the replay file's header, in the text
 * report and in the JSON object; files without that header line report
 * nothing (text) and null (JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/json.h"
#include "ioriot/report.h"
#include "ioriot/version.h"
#include "testutil.h"

/* The report of an empty replay with @u, as text or JSON, malloc'd. */
static char *report_of(const struct uncaptured *u, bool json)
{
	struct replay_summary *sum = calloc(1, sizeof(*sum));
	struct report_info info = { .name = "t", .uncaptured = u,
				    .host = "testbox",
				    .started_ns = 1795651141900000000ull,
				    .finished_ns = 1795651142000000000ull };
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ck_assert(sum && f);
	ck_assert_int_eq(json ? report_write_json(f, &info, sum) :
			 report_write(f, &info, sum), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(sum);
	return text;
}

/* io_uring_enter 4230, ioctl 12 (file I/O); futex 77, epoll_wait 3. */
static void sample(struct uncaptured *u)
{
	memset(u, 0, sizeof(*u));
	ck_assert_int_eq(uncaptured_add(u, "futex", 77), 0);
	ck_assert_int_eq(uncaptured_add(u, "ioctl", 12), 0);
	ck_assert_int_eq(uncaptured_add(u, "epoll_wait", 3), 0);
	ck_assert_int_eq(uncaptured_add(u, "io_uring_enter", 4230), 0);
	uncaptured_sort(u);
	u->known = true;
}

START_TEST(text_lists_not_replayed)
{
	static struct uncaptured u;
	char *text;

	sample(&u);
	text = report_of(&u, false);
	ck_assert_msg(strstr(text, "\tPacing: fast (-s 0: as fast as possible)\n"
			     "\tCaptured thread time: 0.000s in calls, 0.000s "
			     "between calls (0.0%), of which 0.000s known on a "
			     "CPU\n"
			     "\tNot replayed (not captured): io_uring_enter 4230, "
			     "ioctl 12\n\tOther syscalls not captured: 80 (not "
			     "file I/O)\n"), "%s", text);
	free(text);
	/* Counted, and nothing of the file I/O API among them. */
	memset(&u, 0, sizeof(u));
	ck_assert_int_eq(uncaptured_add(&u, "futex", 5), 0);
	u.known = true;
	text = report_of(&u, false);
	ck_assert_msg(strstr(text, "\tNot replayed (not captured): none\n"
			     "\tOther syscalls not captured: 5 (not file I/O)\n"),
		      "%s", text);
	free(text);
}
END_TEST

START_TEST(text_without_header_line)
{
	static struct uncaptured u;
	char *text = report_of(NULL, false);

	ck_assert_msg(!strstr(text, "captured)") && !strstr(text, "Other "),
		      "%s", text);
	free(text);
	memset(&u, 0, sizeof(u));
	text = report_of(&u, false);
	ck_assert_msg(!strstr(text, "Not replayed"), "%s", text);
	free(text);
}
END_TEST

START_TEST(json_uncaptured)
{
	static struct uncaptured u;
	struct jv_error jerr;
	const json_t *unc, *nr;
	json_t *doc;
	int64_t v;
	char *text;

	sample(&u);
	text = report_of(&u, true);
	doc = jv_parse(text, strlen(text), &jerr);
	ck_assert_msg(doc, "%s", text);
	unc = json_object_get(doc, "uncaptured");
	ck_assert_int_eq(json_typeof(unc), JSON_OBJECT);
	nr = json_object_get(unc, "not_replayed");
	ck_assert_uint_eq(jv_count(nr), 2);
	ck_assert_str_eq(jv_key(nr, 0), "io_uring_enter");
	ck_assert(jv_int(json_object_get(nr, "io_uring_enter"), &v) == 0 &&
		  v == 4230);
	ck_assert(jv_int(json_object_get(nr, "ioctl"), &v) == 0 && v == 12);
	ck_assert(jv_int(json_object_get(unc, "other"), &v) == 0 && v == 80);
	json_decref(doc);
	free(text);

	text = report_of(NULL, true);
	doc = jv_parse(text, strlen(text), &jerr);
	ck_assert_msg(doc, "%s", text);
	ck_assert(json_is_null(json_object_get(doc, "uncaptured")));
	json_decref(doc);
	free(text);
}
END_TEST

/* The JSON says what it is, which ioriot wrote it and when. */
START_TEST(json_identifies_itself)
{
	struct jv_error jerr;
	json_t *doc;
	int64_t v;
	char *text = report_of(NULL, true);

	doc = jv_parse(text, strlen(text), &jerr);
	ck_assert_msg(doc, "%s", text);
	ck_assert_str_eq(jv_member_string(doc, "format"), "ioriot-stats");
	ck_assert(jv_int(json_object_get(doc, "format_version"), &v) == 0 &&
		  v == REPORT_JSON_VERSION);
	ck_assert_str_eq(jv_member_string(doc, "ioriot_version"),
			 ioriot_version());
	ck_assert_str_eq(jv_member_string(doc, "host"), "testbox");
	ck_assert_str_eq(jv_member_string(doc, "started"),
			 "2026-11-25T23:59:01Z");
	ck_assert_str_eq(jv_member_string(doc, "finished"),
			 "2026-11-25T23:59:02Z");
	json_decref(doc);
	free(text);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("uncaptured");

	tcase_add_test(tc, text_lists_not_replayed);
	tcase_add_test(tc, text_without_header_line);
	tcase_add_test(tc, json_uncaptured);
	tcase_add_test(tc, json_identifies_itself);
	suite_add_tcase(s, tc);
	return s;
}
