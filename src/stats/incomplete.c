/*
 * incomplete: a run's reasons for being incomplete (incomplete.h), from
 * the members the replay writes (src/replay/report.c).
 */
#include <stdbool.h>
#include <stdio.h>

#include "ioriot/incomplete.h"

/* Add "WHAT (N operation[s])" to @why, or WHAT alone when the count
 * @ops is unknown (@have false). */
static void add_count(struct run_why *why, const char *what, bool have,
		      double ops)
{
	char *r = why->reason[why->n++];

	if (!have)
		snprintf(r, RUN_WHY_MAX, "%s", what);
	else
		snprintf(r, RUN_WHY_MAX, "%s (%.0f operation%s)", what, ops,
			 ops == 1 ? "" : "s");
}

size_t run_incomplete(const json_t *doc, struct run_why *why)
{
	double full = 0, io = 0;
	bool have_full;

	why->n = 0;
	if (json_is_true(json_object_get(doc, "interrupted")))
		snprintf(why->reason[why->n++], RUN_WHY_MAX, "interrupted");
	have_full = !jv_number(json_object_get(doc, "disk_full_ops"), &full) &&
		    full > 0;
	if (json_is_true(json_object_get(doc, "disk_full")))
		add_count(why, "disk full", have_full, full);
	if (!jv_number(json_object_get(doc, "io_error_ops"), &io) && io > 0)
		add_count(why, "I/O errors", true, io);
	return why->n;
}

const char *run_why_text(const struct run_why *why, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < why->n && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", why->reason[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}
