#!/bin/bash
# analyze.sh: the analysis benchmark.  Writes a synthetic 10 M-line v4
# capture log with mkcapture (200k files, as generate.sh's peak-memory log)
# and times `ioriot --analyze LOG` on it, text and JSON with folded stacks,
# printing lines/s and peak RSS against the targets.  A missed target is
# reported, not an error; a failing mkcapture or analysis run is.
#
#   bench/analyze.sh BIN OUTPUT_DIR [--quick]
#
# BIN is the ioriot binary; OUTPUT_DIR holds bench/mkcapture and gets the
# scratch directory.  --quick uses a 1 M-line log.  The folded stacks
# (one entry per distinct process, syscall and file, up to 2^20) are timed
# but not judged.
set -eu
set -o pipefail

TARGET_LPS=2000000
TARGET_RSS_MB=200
LINES=10000000
ARGS="-f 200000 -t 400 -p 40"

. "$(dirname "$0")/common.sh"
bench_args "$@"
[ -z "$quick" ] || LINES=1000000
bench_setup analyze "$bin" "$outdir"
[ -x /usr/bin/time ] || {
	echo "$0: /usr/bin/time (Debian package time) is missing" >&2
	exit 1
}
log=$scratch/big.capture

# run NAME JUDGE OPTIONS...: one timed analysis; prints its row, judged
# against the targets if JUDGE is yes.
run() {
	local name=$1 judge=$2 start end wall rss verdict="(no target)"
	shift 2
	start=$(date +%s%N)
	/usr/bin/time -o "$scratch/time" -f '%M' "$bin" -q --analyze "$log" \
		"$@" > "$scratch/out" || {
		echo "$0: ioriot --analyze $* failed" >&2
		exit 1
	}
	end=$(date +%s%N)
	rss=$(awk -v k="$(tail -n 1 "$scratch/time")" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
	wall=$(awk -v d=$((end - start)) 'BEGIN { printf "%.3f", d / 1e9 }')
	lps=$(awk -v n="$lines" -v s="$wall" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
	[ "$judge" = yes ] && verdict="$(awk -v a="$lps" -v t="$TARGET_LPS" 'BEGIN { print (a >= t ? "PASS" : "MISS") }') / $(awk -v a="$rss" -v t="$TARGET_RSS_MB" 'BEGIN { print (a < t ? "PASS" : "MISS") }')"
	printf '%-34s %10s %12s %10s   %s\n' "$name" "$wall" "$lps" "$rss" "$verdict"
}

"$mkcapture" -l "$LINES" $ARGS "$log" || {
	echo "$0: mkcapture failed" >&2
	exit 1
}
lines=$(wc -l < "$log")
cat "$log" > /dev/null		# warm the page cache
echo "ioriot analyze benchmark: $lines-line v4 log, $(nproc 2>/dev/null || echo ?) CPUs"
printf '%-34s %10s %12s %10s   %s\n' "run" "time s" "lines/s" "RSS MB" \
	">= $TARGET_LPS l/s / < $TARGET_RSS_MB MB"
run "--analyze (text)" yes
run "--analyze --output-format json" yes --output-format json
run "  ... --folded (ops)" no --output-format json --folded "$scratch/folded"
echo "folded stacks: $(wc -l < "$scratch/folded") lines"
