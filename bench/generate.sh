#!/bin/bash
# generate.sh: the generate benchmark.  Writes a synthetic capture log with
# mkcapture, times `ioriot -c LOG -r REPLAY` on it several times (pinned to
# one CPU when taskset allows) and prints wall time, lines/s and peak RSS
# against the targets.  A missed target is reported, not an error; a failing
# mkcapture or generate run is.
#
#   bench/generate.sh BIN OUTPUT_DIR [--quick]
#
# BIN is the ioriot binary; OUTPUT_DIR holds bench/mkcapture and gets the
# scratch directory.  --quick uses a 100k-line log instead of 1M lines.
set -eu
set -o pipefail

RUNS=5
TARGET_LPS=2000000
TARGET_RSS_MB=100

usage() {
	echo "usage: $0 BIN OUTPUT_DIR [--quick]" >&2
	exit 2
}

[ $# -eq 2 ] || [ $# -eq 3 ] || usage
bin=$1
outdir=$2
lines=1000000
if [ $# -eq 3 ]; then
	[ "$3" = --quick ] || usage
	lines=100000
fi

# A bare name would be looked up in PATH: it means the file here.
case $bin in
*/*) ;;
*) bin=./$bin ;;
esac
[ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 1; }
mkcapture=$outdir/bench/mkcapture
[ -x "$mkcapture" ] || {
	echo "$0: $mkcapture missing: run make bench" >&2
	exit 1
}

mkdir -p "$outdir"
scratch=$(mktemp -d "$outdir/bench-generate.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
capture=$scratch/io.capture
replay=$scratch/io.replay

# Pin to CPU 0 if taskset exists and that CPU is ours to use.
pin=
pinned="not pinned"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
	pinned="pinned to CPU 0"
fi
timebin=
if [ -x /usr/bin/time ]; then
	timebin=/usr/bin/time
fi
have_ns=yes
case $(date +%N) in
*[!0-9]*|"") have_ns= ;;
esac

now_ns() {
	if [ -n "$have_ns" ]; then
		date +%s%N
	else
		echo $(($(date +%s) * 1000000000))
	fi
}

echo "ioriot generate benchmark: $lines event lines, $RUNS runs, $pinned"
"$mkcapture" -l "$lines" "$capture" || {
	echo "$0: mkcapture failed" >&2
	exit 1
}
log_lines=$(wc -l < "$capture")
log_mb=$(awk -v b="$(wc -c < "$capture")" 'BEGIN { printf "%.1f", b / 1e6 }')

# One run with the summary (it also warms the page cache).
echo
echo "--- ioriot summary (warm-up run) ---"
$pin "$bin" -c "$capture" -r "$replay" -n bench -u nobody || {
	echo "$0: generate failed" >&2
	exit 1
}
echo "---"

walls=
rsss=
for i in $(seq 1 "$RUNS"); do
	rm -f "$replay"
	start=$(now_ns)
	rc=0
	if [ -n "$timebin" ]; then
		$pin "$timebin" -o "$scratch/time" -f '%M' \
			"$bin" -q -c "$capture" -r "$replay" -n bench -u nobody || rc=$?
		rss_kib=$(tail -n 1 "$scratch/time")
	else
		$pin "$bin" -q -c "$capture" -r "$replay" -n bench -u nobody || rc=$?
		rss_kib=
	fi
	end=$(now_ns)
	if [ "$rc" -ne 0 ] || [ ! -s "$replay" ]; then
		echo "$0: generate run $i failed (exit status $rc)" >&2
		exit 1
	fi
	walls="$walls $(awk -v d=$((end - start)) \
		'BEGIN { printf "%.3f", d / 1e9 }')"
	[ -z "$rss_kib" ] || rsss="$rsss $(awk -v k="$rss_kib" \
		'BEGIN { printf "%.1f", k * 1024 / 1e6 }')"
done

# Median of the numbers in $1 (an odd count), and their maximum.
sorted() {
	echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n
}
median() {
	sorted "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
maximum() {
	sorted "$1" | tail -n 1
}

wall=$(median "$walls")
lps=$(awk -v n="$log_lines" -v s="$wall" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
lps_ok=$(awk -v a="$lps" -v t="$TARGET_LPS" 'BEGIN { print (a >= t ? "PASS" : "MISS") }')
if [ -n "$rsss" ]; then
	rss_med="$(median "$rsss") MB"
	rss_max_n=$(maximum "$rsss")
	rss_max="$rss_max_n MB"
	rss_ok=$(awk -v a="$rss_max_n" -v t="$TARGET_RSS_MB" 'BEGIN { print (a < t ? "PASS" : "MISS") }')
else
	rss_med=unknown
	rss_max=unknown
	echo "note: /usr/bin/time (Debian package time) is missing: peak RSS not measured"
	rss_ok=UNKNOWN
fi

echo
printf '%-24s %s\n' "capture log" "$log_lines lines ($lines events), $log_mb MB"
printf '%-24s %s\n' "wall time, runs (s)" "${walls# }"
printf '%-24s %s s\n' "wall time, median" "$wall"
printf '%-24s %s lines/s\n' "throughput, median" "$lps"
printf '%-24s %s\n' "peak RSS, median" "$rss_med"
printf '%-24s %s\n' "peak RSS, max" "$rss_max"
echo
printf '%-34s %-18s %s\n' "target" "measured" "result"
printf '%-34s %-18s %s\n' ">= $TARGET_LPS lines/s on one core" "$lps" "$lps_ok"
printf '%-34s %-18s %s\n' "< $TARGET_RSS_MB MB peak RSS (max)" "$rss_max" "$rss_ok"
