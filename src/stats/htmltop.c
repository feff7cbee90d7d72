/*
 * htmltop: the top lists of an analysis (files, directories, processes
 * and threads by operations, bytes and time) as tables, and the flame
 * graph of operations: process;syscall;directories;file from the
 * analysis's "folded" rows where it has them, else directories;file from
 * the top files by operations.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define MAX_FRAMES 34		/* process, syscall and 32 path components */

static const char *const lists[] = { "files", "directories", "processes",
				     "threads" };
static const char *const orders[] = { "by_ops", "by_bytes", "by_time" };
static const char *const order_names[] = { "operations", "bytes", "time" };

/* A cell of @row's member @key in format @fmt. */
static void cell(FILE *f, const json_t *row, const char *key,
		 fmt_fn fmt)
{
	char buf[32];

	fmt(buf, sizeof(buf), json_num(row, key));
	fprintf(f, "<td>%s</td>", buf);
}

static void share(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", v * 100);
}

static void top_table(FILE *f, const json_t *rows, bool files)
{
	fputs("<div class=\"table-wrap\"><table><thead><tr><th>name</th>"
	      "<th>ops</th><th>read</th><th>written</th><th>time</th>", f);
	if (files)
		fputs("<th>sequential</th><th>read share</th><th>working set"
		      "</th><th>syncs</th><th>bytes between syncs</th>", f);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < jv_count(rows); i++) {
		const json_t *row = jv_at(rows, i);
		const char *name = jv_member_string(row, "name");

		fputs("<tr><td class=\"name\">", f);
		if (name)
			html_text(f, name);
		else
			fputs("<i>everything else</i>", f);
		fputs("</td>", f);
		cell(f, row, "ops", fmt_plain);
		cell(f, row, "bytes_read", fmt_bytes);
		cell(f, row, "bytes_written", fmt_bytes);
		cell(f, row, "time_ns", fmt_ns);
		if (files) {
			cell(f, row, "sequential_share", share);
			cell(f, row, "read_share", share);
			cell(f, row, "working_set_bytes", fmt_bytes);
			cell(f, row, "syncs", fmt_plain);
			cell(f, row, "bytes_between_syncs_mean", fmt_bytes);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

int html_top_sections(FILE *f, const json_t *doc)
{
	const json_t *top = json_object_get(doc, "top");
	char n[32];

	fmt_plain(n, sizeof(n), json_num(top, "n"));
	fprintf(f, "<h3>Top lists</h3>\n<p class=\"note\">The top %s of each "
		"list; the last row sums up everything else.</p>\n", n);
	for (size_t l = 0; l < 4; l++) {
		const json_t *list = json_object_get(top, lists[l]);

		for (size_t o = 0; o < 3; o++) {
			fprintf(f, "<details%s><summary>%c%s by %s</summary>\n",
				o == 0 ? " open" : "", lists[l][0] - 32,
				lists[l] + 1, order_names[o]);
			top_table(f, json_object_get(list, orders[o]), l < 2);
			fputs("</details>\n", f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* The components of the path @path (copied into @buf of @len bytes) as
 * frames after *@n of @frames: "/" first for an absolute path. */
static void path_frames(const char *path, char *buf, size_t len,
			const char **frames, size_t *n)
{
	char *save = NULL;

	snprintf(buf, len, "%s", path);
	if (path[0] == '/' && *n < MAX_FRAMES)
		frames[(*n)++] = "/";
	for (char *c = strtok_r(buf, "/", &save); c && *n < MAX_FRAMES;
	     c = strtok_r(NULL, "/", &save))
		frames[(*n)++] = c;
}

/* The stack of one row: [process, syscall,] directories, file. */
static int add_row(struct icicle *ic, const json_t *row,
		   bool folded, double w)
{
	const char *frames[MAX_FRAMES];
	const char *path = jv_member_string(row, folded ? "path" : "name");
	char buf[4096];
	size_t n = 0;

	if (folded) {
		const char *proc = jv_member_string(row, "process");
		const char *sys = jv_member_string(row, "syscall");

		frames[n++] = proc ? proc : "other processes";
		frames[n++] = sys ? sys : "other syscalls";
	}
	if (path)
		path_frames(path, buf, sizeof(buf), frames, &n);
	else if (!folded || json_is_true(json_object_get(row, "other")) ||
		 json_is_true(json_object_get(row, "other_files")))
		frames[n++] = "other files";
	return icicle_add(ic, frames, n, w);
}

int html_flame_section(FILE *f, const json_t *doc)
{
	const json_t *rows = json_object_get(doc, "folded");
	bool folded = json_is_array(rows);
	struct icicle *ic = icicle_new();
	int ret = ic ? 0 : -ENOMEM;

	if (!folded)
		rows = json_object_get(json_object_get(json_object_get(doc,
				       "top"), "files"), "by_ops");
	for (size_t i = 0; !ret && i < jv_count(rows); i++)
		ret = add_row(ic, jv_at(rows, i), folded,
			      json_num(jv_at(rows, i), "ops"));
	if (ret)
		goto out;
	fprintf(f, "<h3>Flame graph of operations</h3>\n<p class=\"note\">%s "
		"Each box is as wide as its share of the operations; hover "
		"for names and counts.</p>\n", folded ?
		"Process, syscall, directories, file." :
		"Directories and files of the top files by operations (the "
		"analysis has no rows by process, syscall and file).");
	ret = icicle_write(f, ic, "Flame graph of operations", fmt_count);
out:
	icicle_free(ic);
	return ret;
}
