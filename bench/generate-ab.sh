#!/bin/bash
# generate-ab.sh: two generate binaries compared in one run, interleaved.
# Writes the 1 M-line v4 and v3 logs of bench/generate.sh and, in each
# round and for each log, times generate with BEFORE, generate with AFTER
# and awk splitting the same lines (pinned to CPU 0 when taskset allows),
# so that both binaries see the same host load.  Prints per binary and log
# the median lines/s, the median of the per-round ratios generate / awk
# and the peak RSS; with the zstd program, also each binary on the v4 log
# compressed (zstd -1) and the ratio of its lines/s to the text's in the
# same round; then the instructions per line of each (valgrind
# callgrind, 100,000-line v4 log, all threads) and the peak RSS of each on
# the 10 M-line log with 200,000 files (one run each).
#
#   bench/generate-ab.sh BEFORE AFTER OUTPUT_DIR [ROUNDS]
#
# OUTPUT_DIR holds bench/mkcapture (make bench builds it) and gets the
# scratch directory, removed at exit.  ROUNDS defaults to 7.
set -eu
set -o pipefail

[ $# -ge 3 ] && [ $# -le 4 ] || {
	echo "usage: $0 BEFORE AFTER OUTPUT_DIR [ROUNDS]" >&2
	exit 2
}
before=$1
after=$2
outdir=$3
rounds=${4:-7}
mkcapture=$outdir/bench/mkcapture
for b in "$before" "$after" "$mkcapture" /usr/bin/time; do
	[ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 1; }
done
scratch=$(mktemp -d "$outdir/bench-ab.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
printf '%s\n' '/dev/sda1 / ext4 rw 0 0' '/dev/sdb1 /data xfs rw 0 0' \
	'proc /proc proc rw 0 0' > "$scratch/mounts"
pin=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
fi

# gen BIN LOG: one timed run; prints "WALL_US RSS_KIB".
gen() {
	local extra= start end
	case $2 in *v3.capture) extra="--mounts $scratch/mounts" ;; esac
	rm -f "$scratch/out.replay"
	start=$(date +%s%N)
	/usr/bin/time -o "$scratch/time" -f %M "$1" -q -c "$2" \
		-r "$scratch/out.replay" -n bench -u nobody $extra || {
		echo "$0: $1 failed on $2" >&2
		exit 1
	}
	end=$(date +%s%N)
	echo "$(((end - start) / 1000)) $(tail -n 1 "$scratch/time")"
}

# split LOG: awk splitting its lines into fields; prints WALL_US.
split() {
	local start end
	start=$(date +%s%N)
	$pin env LC_ALL=C awk -F';' '{ n += NF } END { print n }' "$1" > /dev/null
	end=$(date +%s%N)
	echo $(((end - start) / 1000))
}

"$mkcapture" -l 1000000 "$scratch/v4.capture"
"$mkcapture" -3 -l 1000000 "$scratch/v3.capture"
lines4=$(wc -l < "$scratch/v4.capture")
lines3=$(wc -l < "$scratch/v3.capture")
logs="4 3"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -1 "$scratch/v4.capture" -o "$scratch/vz.capture.zst"
	logs="4 3 z"
fi
logfile() {
	if [ "$1" = z ]; then echo "$scratch/vz.capture.zst"; else echo "$scratch/v$1.capture"; fi
}
for v in 4 3; do			# warm-up: page cache, first runs
	gen "$before" "$scratch/v$v.capture" > /dev/null
	gen "$after" "$scratch/v$v.capture" > /dev/null
	split "$scratch/v$v.capture" > /dev/null
done
: > "$scratch/runs"
for i in $(seq 1 "$rounds"); do
	for v in $logs; do
		log=$(logfile "$v")
		echo "before$v $(gen "$before" "$log")" >> "$scratch/runs"
		echo "after$v $(gen "$after" "$log")" >> "$scratch/runs"
		[ "$v" = z ] || echo "awk$v $(split "$log")" >> "$scratch/runs"
	done
done

# Instructions per line, all threads.
"$mkcapture" -l 100000 "$scratch/cg.capture"
for b in before after; do
	eval "bin=\$$b"
	if command -v valgrind >/dev/null 2>&1 &&
	   valgrind --tool=callgrind --callgrind-out-file="$scratch/cg.out" \
		"$bin" -q -c "$scratch/cg.capture" -r "$scratch/out.replay" \
		-n bench -u nobody > /dev/null 2>&1; then
		echo "cg$b $(sed -n 's/^summary: *//p' "$scratch/cg.out")" >> "$scratch/runs"
	fi
done
rm -f "$scratch/cg.capture" "$scratch/cg.out"

# Peak RSS at 10 M lines, 200k files.
rm -f "$scratch/v4.capture" "$scratch/v3.capture" "$scratch/vz.capture.zst"
"$mkcapture" -l 10000000 -f 200000 -t 400 -p 40 "$scratch/big.capture"
big_lines=$(wc -l < "$scratch/big.capture")
echo "bigbefore $(gen "$before" "$scratch/big.capture")" >> "$scratch/runs"
echo "bigafter $(gen "$after" "$scratch/big.capture")" >> "$scratch/runs"

echo "generate before: $before"
echo "generate after:  $after"
echo "$rounds interleaved rounds, 1 M-line logs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v lines4="$lines4" -v lines3="$lines3" -v big_lines="$big_lines" '
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return a[int((n + 1) / 2)]
}
{ k = $1; n[k]++; w[k, n[k]] = $2; r[k, n[k]] = $3 }
END {
	for (v = 4; v >= 3; v--) {
		l = v == 4 ? lines4 : lines3
		m = n["awk" v]
		for (i = 1; i <= m; i++) a[i] = w["awk" v, i]
		printf "v%d log: awk %.0f lines/s\n", v, l / (median(a, m) / 1e6)
		split("before after", names, " ")
		for (x = 1; x <= 2; x++) {
			k = names[x] v; rss = 0
			for (i = 1; i <= m; i++) {
				a[i] = w[k, i]; q[i] = w[k, i] / w["awk" v, i]
				if (r[k, i] > rss) rss = r[k, i]
			}
			printf "  %-6s %.0f lines/s, generate / awk %.3fx (median of pairs), peak RSS %.1f MB\n",
			       names[x], l / (median(a, m) / 1e6), median(q, m), rss * 1024 / 1e6
		}
	}
	if (n["beforez"]) {
		m = n["beforez"]
		printf "v4 log as .zst (zstd -1):\n"
		for (x = 1; x <= 2; x++) {
			k = names[x]
			for (i = 1; i <= m; i++) {
				a[i] = w[k "z", i]; q[i] = w[k "4", i] / w[k "z", i]
			}
			printf "  %-6s %.0f lines/s, .zst / text lines/s %.3fx (median of pairs)\n",
			       k, lines4 / (median(a, m) / 1e6), median(q, m)
		}
	}
	for (x = 1; x <= 2; x++) {
		k = x == 1 ? "before" : "after"
		if (n["cg" k])
			printf "instructions per line, %s: %.0f\n", k, w["cg" k, 1] / 100000
		printf "10 M lines, 200k files, %s: peak RSS %.1f MB, %.0f lines/s\n", k,
		       r["big" k, 1] * 1024 / 1e6, big_lines / (w["big" k, 1] / 1e6)
	}
}' "$scratch/runs"
