/*
 * starttime: the TIME of --start-at, parsed and checked against now.
 * Private to src/cli.
 */
#ifndef IORIOT_CLI_STARTTIME_H
#define IORIOT_CLI_STARTTIME_H

#include <stddef.h>
#include <stdint.h>

/* How far ahead --start-at may be. */
#define START_AT_MAX_AHEAD_NS (24 * 3600 * 1000000000ULL)
/* How far in the past it may be (a fleet's clocks differ a little). */
#define START_AT_MAX_PAST_NS 1000000000ULL

/*
 * Parse @arg: epoch seconds with up to 9 decimals ("1795600800.5"), the
 * same after '@', or ISO 8601 in UTC or with an offset
 * ("2026-11-25T10:00:00Z", "2026-11-25T11:00:00.25+01:00", "+0100"; a
 * zone is required).  It must lie from START_AT_MAX_PAST_NS before @now_ns
 * to START_AT_MAX_AHEAD_NS after it.  Returns 0 with ns since the epoch in
 * *@out, or -EINVAL with what is wrong in @err.
 */
int start_time_parse(const char *arg, uint64_t now_ns, uint64_t *out,
		     char *err, size_t errlen);

#endif
