/*
 * htmlpage: `ioriot --report OUT.html FILE...`.  Each input is recognised
 * by its content and read, a capture log or replay file analysed in
 * process (analyze.h); the page is built in memory and written only
 * when every input was good, so a failed run leaves OUT as it was.  OUT
 * is opened as every output is (outfile.h) and must be none of the
 * inputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/analyze.h"
#include "ioriot/htmlreport.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "ioriot/version.h"
#include "htmlpage.h"

#define ERR_LEN 4352

/* The label of a capture log or replay file @path: its base name without
 * .zst and then .capture, .log or .replay.  Fits @size bytes. */
static void input_label(const char *path, char *label, size_t size)
{
	static const char *const endings[] = { ".capture", ".log", ".replay" };
	const char *base = strrchr(path, '/');
	size_t len;

	snprintf(label, size, "%s", base ? base + 1 : path);
	len = strlen(label);
	if (len > 4 && !strcmp(label + len - 4, ".zst"))
		label[len -= 4] = '\0';
	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		size_t n = strlen(endings[i]);

		if (len > n && !strcmp(label + len - n, endings[i])) {
			label[len - n] = '\0';
			break;
		}
	}
}

/* Analyse the capture log or replay file @path in process (as --analyze
 * --output-format json does) and add the analysis to @r.  0, or -errno
 * with a message in @err. */
static int add_analysed(struct htmlreport *r, const struct cli_opts *o,
			const char *path, char *err, size_t errlen)
{
	struct analyze_options ao = {
		.path = path, .format = ANALYZE_JSON, .json_stacks = true,
		.local_mounts = o->mounts, .tool_version = ioriot_version(),
	};
	char label[256], *json = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&json, &len);
	int ret;

	if (!m) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = analyze_run(&ao, m, err, errlen);
	if (fclose(m) && !ret) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	}
	input_label(path, label, sizeof(label));
	if (!ret)
		ret = htmlreport_add_analysis(r, label, json, len, err, errlen);
	free(json);
	return ret;
}

/* Add @path to @r by its kind: a capture log or replay file is analysed
 * here.  0, or -errno after printing why. */
static int add_input(struct htmlreport *r, const struct cli_opts *o,
		     const char *path)
{
	char err[ERR_LEN];
	int kind = htmlreport_kind(path, err, sizeof(err));

	if (kind == HTMLREPORT_CAPTURE || kind == HTMLREPORT_REPLAY)
		kind = add_analysed(r, o, path, err, sizeof(err));
	else if (kind >= 0)
		kind = htmlreport_add_file(r, path, kind, err, sizeof(err));
	if (kind < 0)
		log_error("%s", err);
	return kind < 0 ? kind : 0;
}

/* Write the @len bytes of @page to @path, none of the @n @inputs.  0, or
 * -errno after printing why. */
static int write_page(const char *path, char *const *inputs, size_t n,
		      const char *page, size_t len)
{
	char err[ERR_LEN];
	int fd, ret = 0;

	for (size_t i = 0; i < n; i++)
		if ((ret = outfile_check_target(path, inputs[i], err,
						sizeof(err))))
			goto fail;
	fd = outfile_open(path, 0644, OUTFILE_TRUNCATE, NULL, NULL, err,
			  sizeof(err));
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	while (len) {
		ssize_t w = write(fd, page, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		page += w;
		len -= (size_t)w;
	}
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		snprintf(err, sizeof(err), "%s: %s", path, strerror(-ret));
fail:
	if (ret)
		log_error("%s", err);
	return ret;
}

int cli_report(const struct cli_opts *o)
{
	struct htmlreport *r = htmlreport_new();
	char *page = NULL;
	size_t len = 0;
	FILE *m = NULL;
	int failed = 0, ret;

	if (!r)
		goto nomem;
	for (size_t i = 0; i < o->nfiles; i++)
		failed |= add_input(r, o, o->files[i]) != 0;
	if (failed)
		goto out;
	m = open_memstream(&page, &len);
	if (!m)
		goto nomem;
	ret = htmlreport_write(m, r);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret) {
		log_error("%s: %s", o->report, strerror(-ret));
		failed = 1;
	} else if (write_page(o->report, o->files, o->nfiles, page, len)) {
		failed = 1;
	} else if (o->verbosity >= 0) {
		printf("Report: %s\n", o->report);
	}
out:
	free(page);
	htmlreport_free(r);
	return failed;
nomem:
	log_error("%s", strerror(ENOMEM));
	htmlreport_free(r);
	return 1;
}
