/*
 * starttime: --start-at TIME (starttime.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "starttime.h"

#define NS 1000000000ULL

/* @n digits at *@p as a number, *@p moved past them.  false if fewer. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

/* ".DDD" (1 to 9 digits) at *@p as ns into *@ns, *@p moved past it; none
 * there: 0.  false for a '.' without digits or with more than 9. */
static bool fraction(const char **p, uint64_t *ns)
{
	uint64_t scale = NS;
	int n = 0;

	*ns = 0;
	if (**p != '.')
		return true;
	for ((*p)++; isdigit((unsigned char)**p); (*p)++, n++) {
		if (n == 9)
			return false;
		scale /= 10;
		*ns += (uint64_t)(**p - '0') * scale;
	}
	return n > 0;
}

/* Epoch seconds "S[.F]".  false if @s is not that. */
static bool parse_epoch(const char *s, uint64_t *out)
{
	uint64_t secs = 0, frac;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (secs > (UINT64_MAX / NS) / 10)
			return false;
		secs = secs * 10 + (uint64_t)(*p - '0');
	}
	if (!fraction(&p, &frac) || *p || secs > UINT64_MAX / NS - 1)
		return false;
	*out = secs * NS + frac;
	return true;
}

/* "YYYY-MM-DDTHH:MM:SS[.F](Z|±HH:MM|±HHMM)".  false if @s is not that,
 * or names no real instant (a 30 February). */
static bool parse_iso(const char *s, uint64_t *out)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, zh = 0, zm = 0, sign = 0;
	uint64_t frac;
	struct tm tm = { 0 }, back;
	time_t t;

	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d) || (*p != 'T' && *p != 't'))
		return false;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) ||
	    *p++ != ':' || !digits(&p, 2, &sec) || !fraction(&p, &frac))
		return false;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (!digits(&p, 2, &zh))
			return false;
		if (*p == ':')
			p++;
		if (!digits(&p, 2, &zm) || zh > 23 || zm > 59)
			return false;
	} else {
		return false;		/* no zone: which one is meant? */
	}
	if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
	    mi > 59 || sec > 59)
		return false;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (t == (time_t)-1 || !gmtime_r(&t, &back) || back.tm_mday != d)
		return false;
	t -= sign * (zh * 3600 + zm * 60);
	if (t < 0)
		return false;
	*out = (uint64_t)t * NS + frac;
	return true;
}

int start_time_parse(const char *arg, uint64_t now_ns, uint64_t *out,
		     char *err, size_t errlen)
{
	uint64_t at;
	bool ok = arg[0] == '@' ? parse_epoch(arg + 1, &at) :
		  strchr(arg, '-') ? parse_iso(arg, &at) :
		  parse_epoch(arg, &at);

	if (!ok) {
		snprintf(err, errlen, "--start-at expects epoch seconds "
			 "(1795600800.5, @1795600800) or ISO 8601 with a zone "
			 "(2026-11-25T10:00:00Z, 2026-11-25T11:00:00+01:00), "
			 "not '%s'", arg);
		return -EINVAL;
	}
	if (at + START_AT_MAX_PAST_NS < now_ns) {
		snprintf(err, errlen, "--start-at %s is %.3f s in the past",
			 arg, (double)(now_ns - at) / 1e9);
		return -EINVAL;
	}
	if (at > now_ns + START_AT_MAX_AHEAD_NS) {
		snprintf(err, errlen, "--start-at %s is %.0f s ahead, more "
			 "than %llu hours", arg, (double)(at - now_ns) / 1e9,
			 START_AT_MAX_AHEAD_NS / 3600 / NS);
		return -EINVAL;
	}
	*out = at;
	return 0;
}
