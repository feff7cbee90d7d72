/*
 * csvseries: reads a replay's time series CSV (docs/series.md) for the
 * HTML report: the columns it draws, found by name in the header, a
 * number or an empty cell each; every row must have the header's number
 * of cells.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define MAX_LINE 65536
#define MAX_COLS 4096

static const char *const col_names[COL_COUNT] = {
	[COL_TIME] = "time_s", [COL_OPS] = "ops_per_s",
	[COL_READ_MB] = "read_mb_per_s", [COL_WRITE_MB] = "write_mb_per_s",
	[COL_P99] = "p99_us",
};

struct reader {
	const char *path;
	char *err;
	size_t errlen;
	unsigned line;
	int idx[COL_COUNT];	/* the column of each; -1 missing */
	int ncols;
};

static int fail(struct reader *rd, int code, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s:%u: %s", rd->path, rd->line, what);
	return code;
}

/* The header line @s: the index of every column the report needs. */
static int header(struct reader *rd, char *s)
{
	int c = 0;

	for (int k = 0; k < COL_COUNT; k++)
		rd->idx[k] = -1;
	for (char *cell = s, *end;; cell = end + 1) {
		end = strchr(cell, ',');
		if (end)
			*end = '\0';
		for (int k = 0; k < COL_COUNT; k++)
			if (!strcmp(cell, col_names[k]) && rd->idx[k] < 0)
				rd->idx[k] = c;
		if (++c > MAX_COLS)
			return fail(rd, -E2BIG, "too many columns");
		if (!end)
			break;
	}
	rd->ncols = c;
	for (int k = 0; k < COL_COUNT; k++)
		if (rd->idx[k] < 0)
			return fail(rd, -EINVAL, "not an ioriot time series "
				    "(a column is missing)");
	return 0;
}

/* Data line @s into row @row of @ser. */
static int row(struct reader *rd, char *s, struct csv_series *ser, size_t r)
{
	int c = 0;

	for (char *cell = s, *end;; cell = end + 1, c++) {
		end = strchr(cell, ',');
		if (end)
			*end = '\0';
		for (int k = 0; k < COL_COUNT; k++) {
			char *stop;
			double v;

			if (rd->idx[k] != c)
				continue;
			v = *cell ? strtod(cell, &stop) : NAN;
			if (*cell && (*stop || !isfinite(v)))
				return fail(rd, -EINVAL, "a cell is no number");
			ser->col[k][r] = v;
		}
		if (!end)
			break;
	}
	if (c + 1 != rd->ncols)
		return fail(rd, -EINVAL, "not as many cells as the header");
	return 0;
}

static int grow(struct csv_series *s, size_t cap)
{
	for (int k = 0; k < COL_COUNT; k++) {
		double *n = realloc(s->col[k], cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->col[k] = n;
	}
	return 0;
}

/* Data line @s as the next row of @s, growing it (@cap rows) as needed. */
static int add_row(struct reader *rd, char *line, struct csv_series *s,
		   size_t *cap)
{
	if (s->n == HTMLREPORT_MAX_ROWS)
		return fail(rd, -E2BIG, "too many rows");
	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if (grow(s, *cap))
			return fail(rd, -ENOMEM, strerror(ENOMEM));
	}
	return row(rd, line, s, s->n++);
}

struct csv_series *csv_series_load(const char *path, char *err, size_t errlen)
{
	struct reader rd = { .path = path, .err = err, .errlen = errlen };
	struct csv_series *s = calloc(1, sizeof(*s));
	FILE *f = fopen(path, "re");
	size_t cap = 0, bufsz = 0;
	char *line = NULL;
	ssize_t len;
	int ret = -ENOMEM;

	if (!f || !s) {
		ret = -(f ? ENOMEM : errno);
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out;
	}
	while ((len = getline(&line, &bufsz, f)) > 0) {
		rd.line++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		ret = len > MAX_LINE ? fail(&rd, -E2BIG, "line too long") :
		      strlen(line) != (size_t)len ?
		      fail(&rd, -EINVAL, "a NUL byte") : 0;
		if (!ret && rd.line == 1)
			ret = header(&rd, line);
		else if (!ret)
			ret = add_row(&rd, line, s, &cap);
		if (ret)
			goto out;
	}
	ret = ferror(f) ? -EIO : rd.line == 0 ?
	      fail(&rd, -EINVAL, "empty") : 0;
	if (ret == -EIO)
		snprintf(err, errlen, "%s: %s", path, strerror(EIO));
out:
	free(line);
	if (f)
		fclose(f);
	if (ret) {
		csv_series_free(s);
		errno = -ret;
		return NULL;
	}
	return s;
}

void csv_series_free(struct csv_series *s)
{
	if (!s)
		return;
	for (int k = 0; k < COL_COUNT; k++)
		free(s->col[k]);
	free(s);
}
