#!/bin/sh
# run-check.sh: runs the Check runner given as arguments (make check), its
# output both shown and kept in a log, and ends with the tests that were
# skipped: Check counts a test that returned early as passed, so those that
# print "... skipped: why" (or "skipped, why") are listed and counted here,
# after Check's own summary line.  The exit status is the runner's.
set -u

log=$(mktemp "${TMPDIR:-/tmp}/ioriot-check.XXXXXX") || exit 1
trap 'rm -f "$log" "$log.status"' EXIT
{ "$@"; echo $? > "$log.status"; } 2>&1 | tee "$log"
status=$(cat "$log.status" 2>/dev/null || echo 1)
skips=$(grep -E 'skipped[:,]' "$log" | sort -u)
if [ -n "$skips" ]; then
	echo "check: $(printf '%s\n' "$skips" | wc -l) skipped (counted as" \
		"passed above; each says why):"
	printf '%s\n' "$skips" | sed 's/^/  /'
else
	echo "check: 0 skipped"
fi
exit "$status"
