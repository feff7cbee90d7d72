/*
 * filterargs: the values of generate's filter options, --only-syscalls'
 * class list and the times of --from and --to, parsed for the command
 * line (filter.c applies them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ioriot/generate.h"

#define NS_PER_S 1000000000ULL

int gen_parse_classes(const char *list, unsigned *mask, char *err,
		      size_t errlen)
{
	const char *s = list;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		int c = sys_class_lookup(s, len);

		if (c < 0) {
			snprintf(err, errlen, "--only-syscalls: unknown class "
				 "'%.*s' (classes: read, write, meta, sync, "
				 "open, other)", (int)len, s);
			return -EINVAL;
		}
		*mask |= 1u << c;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

/* Decimal seconds "S[.F]" at @s into ns; the end in *@end.  Returns 0 or
 * -EINVAL. */
static int parse_seconds(const char *s, uint64_t *ns, const char **end)
{
	uint64_t sec = 0, frac = 0, scale = NS_PER_S;
	const char *q = s;

	if (*q < '0' || *q > '9')
		return -EINVAL;
	for (; *q >= '0' && *q <= '9'; q++) {
		if (sec > (UINT64_MAX / NS_PER_S - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(*q - '0');
	}
	if (*q == '.') {
		q++;
		if (*q < '0' || *q > '9')
			return -EINVAL;
		for (; *q >= '0' && *q <= '9'; q++) {
			scale /= 10;
			frac += (uint64_t)(*q - '0') * scale;
		}
	}
	*ns = sec * NS_PER_S + frac;
	*end = q;
	return 0;
}

/* ISO 8601 "YYYY-MM-DDTHH:MM:SS[.F][Z|+HH:MM|-HH:MM]" into ns since the
 * epoch; no zone is UTC.  Returns 0 or -EINVAL. */
static int parse_iso(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, n = 0, zh = 0, zm = 0;
	uint64_t sec_ns;
	const char *q;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%n", &y, &mo, &d, &h, &mi, &n) != 5 ||
	    n != 17 || parse_seconds(s + n, &sec_ns, &q) || sec_ns >= 61 * NS_PER_S)
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || y < 1970)
		return -EINVAL;
	int sign = 0;
	if (*q == 'Z') {
		q++;
	} else if (*q == '+' || *q == '-') {
		sign = *q == '+' ? 1 : -1;
		if (sscanf(q + 1, "%2d:%2d%n", &zh, &zm, &n) != 2 || n != 5 ||
		    zh > 23 || zm > 59)
			return -EINVAL;
		q += 1 + n;
	}
	if (*q)
		return -EINVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	time_t t = timegm(&tm);
	if (t < 0)
		return -EINVAL;
	t -= sign * (zh * 3600 + zm * 60);
	if (t < 0)
		return -EINVAL;
	*ns = (uint64_t)t * NS_PER_S + sec_ns;
	return 0;
}

int gen_parse_time(const char *s, struct gen_time *t, char *err,
		   size_t errlen)
{
	const char *end;
	int rc;

	if (s[0] == '@') {
		t->kind = GT_EPOCH;
		rc = parse_seconds(s + 1, &t->ns, &end);
		if (!rc && *end)
			rc = -EINVAL;
	} else if (strchr(s, 'T')) {
		t->kind = GT_EPOCH;
		rc = parse_iso(s, &t->ns);
	} else {
		t->kind = GT_OFFSET;
		rc = parse_seconds(s, &t->ns, &end);
		if (!rc && *end)
			rc = -EINVAL;
	}
	if (rc)
		snprintf(err, errlen, "bad time '%s': give seconds from the "
			 "capture's start (12.5), epoch seconds (@1764064800) "
			 "or ISO 8601 (2026-11-25T10:00:00, UTC unless a zone "
			 "is given)", s);
	return rc;
}
