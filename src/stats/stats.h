/*
 * stats.h: the runs a comparison holds, shared by the reader (compare.c)
 * and the table (table.c).  Private to src/stats.
 */
#ifndef IORIOT_STATS_INTERNAL_H
#define IORIOT_STATS_INTERNAL_H

#include <stddef.h>

#include "ioriot/compare.h"
#include "ioriot/json.h"

#define COMPARE_LABEL_MAX 160	/* a row label, a JSON pointer in a message */

/* One stats file, checked: every member the table reads is there. */
struct compare_run {
	char *label;		/* column name: base name without .json */
	char *test;		/* the test name in the file */
	struct json_value *doc;
};

struct compare {
	struct compare_run *runs;
	size_t n, cap;
};

/* Replace control bytes in @s by '?', so names cannot break a line. */
void compare_printable(char *s);

#endif
