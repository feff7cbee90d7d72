/*
 * htmlpage: `ioriot --report OUT.html FILE...`.  Each input is recognised
 * by its content and read; the page is built in memory and written only
 * when every input was good, so a failed run leaves OUT as it was.  OUT
 * is opened as every output is (outfile.h) and must be none of the
 * inputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioriot/htmlreport.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "htmlpage.h"

#define ERR_LEN 4352

/* Add @path to @r by its kind.  0, or -errno after printing why. */
static int add_input(struct htmlreport *r, const char *path)
{
	char err[ERR_LEN];
	int kind = htmlreport_kind(path, err, sizeof(err));

	if (kind == HTMLREPORT_CAPTURE || kind == HTMLREPORT_REPLAY) {
		/*
		 * A capture log or replay file is to be analysed here, in
		 * process, once --analyze is built: its JSON text then goes
		 * to htmlreport_add_analysis(r, label, json, len, err,
		 * sizeof(err)), labelled by the base name.  Until then it is
		 * refused, never skipped.
		 */
		log_error("%s: a %s; --report reads its analysis, written by "
			  "ioriot --analyze FILE --output-format json", path,
			  kind == HTMLREPORT_CAPTURE ? "capture log" :
			  "replay file");
		return -EINVAL;
	}
	if (kind >= 0)
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
		failed |= add_input(r, o->files[i]) != 0;
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
