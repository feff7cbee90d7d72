#!/bin/bash
# compact.sh: the compact capture log benchmark.  Runs the capture
# microbenchmark's flat-out loop (openat + pread64 + close of a file on
# tmpfs, pinned to CPU 0) under `ioriot -c -x PID` (its events only) into
# a text log and into a .zst log, interleaved, PAIRS pairs; prints the medians of bytes per event of
# each log, the MB/s the capture writes at the measured events/s and scaled
# to 1 M events/s, the loop's events/s and the events lost, and the
# capture process's CPU time per event (its reader thread's work: format,
# compress, write).  Then generate on a mkcapture log, as text and as .zst
# (zstd -1), interleaved, in lines/s: on all CPUs (a thread decompresses
# ahead of generate's reader thread, which parses beside the generator) and
# pinned to one.  Needs root for the
# capture part (skipped without); prints PASS/MISS against the targets and
# exits non-zero only if something fails to run.
#
#   bench/compact.sh BIN OUTPUT_DIR
set -eu
set -o pipefail

PAIRS=${PAIRS:-3}
LOOP_SECONDS=${LOOP_SECONDS:-5}
GEN_PAIRS=${GEN_PAIRS:-5}
TARGET_BPE=30

[ $# -eq 2 ] || { echo "usage: $0 BIN OUTPUT_DIR" >&2; exit 2; }
bin=$1
loop=$2/bench/syscall-loop
mkcapture=$2/bench/mkcapture
for x in "$loop" "$mkcapture"; do
	[ -x "$x" ] || { echo "$0: $x missing: run make bench" >&2; exit 1; }
done
command -v zstd >/dev/null || { echo "$0: no zstd program (Debian zstd)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-compact.XXXXXX")
cleanup() {
	[ -n "${cap_pid:-}" ] && kill -INT "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null
	umount "$work/tmpfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
pin=""
taskset -c 0 true 2>/dev/null && pin="taskset -c 0"
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# Clock ticks of CPU time (user + system) process $1 has used.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)

# One flat-out run into log $1: "events bytes rate lost cpu_ns_per_event".
# The loop waits on a FIFO while the capture attaches to it (-x), so the
# log holds its events alone.
capture_run() {
	local log=$1 out t0 t1 events bytes end lpid
	rm -f "$work/go"
	mkfifo "$work/go"
	( read -r _ < "$work/go"; exec $pin "$loop" io "$file" "$LOOP_SECONDS" ) \
		> "$work/loop.out" &
	lpid=$!
	rm -f "$log"	# a capture keeps an existing log
	"$bin" -q -c "$log" --ring-mb 256 --min-free 0 -x "$lpid" &
	cap_pid=$!
	sleep 2		# attached and snapshot written
	t0=$(cpu_ticks "$cap_pid")
	echo go > "$work/go"
	wait "$lpid"
	sleep 0.5	# what the ring still held is taken
	t1=$(cpu_ticks "$cap_pid")
	out=$(cat "$work/loop.out")
	kill -INT "$cap_pid"
	wait "$cap_pid"
	cap_pid=""
	bytes=$(stat -c %s "$log")
	case $log in
	*.zst) end=$(zstdcat "$log" | tail -n 1) ;;
	*) end=$(tail -n 1 "$log") ;;
	esac
	events=$(echo "$end" | sed -n 's/.*|events=\([0-9]*\)|.*/\1/p')
	lost=$(echo "$end" | sed -n 's/.*|lost=\([0-9]*\)|.*/\1/p')
	[ -n "$events" ] && [ "$events" -gt 0 ] || {
		echo "$0: $log: no end record" >&2
		exit 1
	}
	rate=$(echo "$out" | awk '{print $6}')
	calls=$(echo "$out" | awk '{print $2}')
	# CPU of the capture during the loop, per event (syscall) of the loop.
	awk -v e="$events" -v b="$bytes" -v r="$rate" -v l="$lost" \
	    -v c=$((t1 - t0)) -v tck="$tck" -v n="$calls" 'BEGIN {
		printf "%d %d %.0f %d %.1f\n", e, b, r, l, c / tck * 1e9 / n
	}'
	rm -f "$log"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "compact log benchmark: capture part skipped: it needs root"
else
	mkdir "$work/tmpfs"
	mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"
	file=$work/tmpfs/data
	head -c 4096 /dev/urandom > "$file"
	echo "== capture: flat-out loop for ${LOOP_SECONDS} s, text and .zst interleaved, $PAIRS pairs"
	: > "$work/text.runs"
	: > "$work/zst.runs"
	for i in $(seq 1 "$PAIRS"); do
		if [ $((i % 2)) -eq 1 ]; then order="text zst"; else order="zst text"; fi
		for kind in $order; do
			case $kind in
			text) r=$(capture_run "$work/tmpfs/io.capture") ;;
			zst) r=$(capture_run "$work/tmpfs/io.capture.zst") ;;
			esac
			echo "  $kind: events bytes rate lost cpu_ns/event: $r"
			echo "$r" >> "$work/$kind.runs"
		done
	done
	# Medians per column, and of bytes per event.
	stats() {
		local f=$1
		bpe=$(awk '{printf "%.2f\n", $2 / $1}' "$f" | median)
		rate=$(awk '{print $3}' "$f" | median)
		lost=$(awk '{print $4}' "$f" | sort -n | tail -n 1)
		cpu=$(awk '{print $5}' "$f" | median)
	}
	stats "$work/text.runs"
	t_bpe=$bpe t_rate=$rate t_lost=$lost t_cpu=$cpu
	stats "$work/zst.runs"
	z_bpe=$bpe z_rate=$rate z_lost=$lost z_cpu=$cpu
	awk -v tb="$t_bpe" -v tr="$t_rate" -v tl="$t_lost" -v tc="$t_cpu" \
	    -v zb="$z_bpe" -v zr="$z_rate" -v zl="$z_lost" -v zc="$z_cpu" 'BEGIN {
		printf "\n%-44s %12s %12s\n", "capture, medians", "text", ".zst"
		printf "%-44s %12.1f %12.1f\n", "bytes per event", tb, zb
		printf "%-44s %12.0f %12.0f\n", "loop events/s under capture", tr, zr
		printf "%-44s %12.1f %12.1f\n", "MB/s written at that rate", tb * tr / 1e6, zb * zr / 1e6
		printf "%-44s %12.1f %12.1f\n", "MB/s written at 1 M events/s", tb, zb
		printf "%-44s %12d %12d\n", "events lost (most of a run)", tl, zl
		printf "%-44s %12.0f %12.0f\n", "capture CPU ns per event", tc, zc
		printf "%-44s %12.2f %12.2f\n", "  -> M events/s one core keeps up with", 1e3 / tc, 1e3 / zc
	}'
fi

echo
echo "== generate: 1 M-line mkcapture log, text and .zst (zstd -1) interleaved, $GEN_PAIRS pairs"
"$mkcapture" -l 1000000 "$work/gen.capture"
zstd -q -1 "$work/gen.capture" -o "$work/gen.capture.zst"
lines=$(wc -l < "$work/gen.capture")
# Wall ns of generating $2 with the CPU prefix $1 (empty: all CPUs).
gen() {
	local s e
	s=$(date +%s%N)
	$1 "$bin" -q -c "$2" -r "$work/gen.replay" -n bench -u nobody
	e=$(date +%s%N)
	echo $((e - s))
}
# Interleaved pairs with CPU prefix $1; sets g_text and g_zst (median ns).
gen_pairs() {
	gen "$1" "$work/gen.capture" > /dev/null	# warm the page cache
	gen "$1" "$work/gen.capture.zst" > /dev/null
	: > "$work/gen.text"
	: > "$work/gen.zst"
	for i in $(seq 1 "$GEN_PAIRS"); do
		if [ $((i % 2)) -eq 1 ]; then
			gen "$1" "$work/gen.capture" >> "$work/gen.text"
			gen "$1" "$work/gen.capture.zst" >> "$work/gen.zst"
		else
			gen "$1" "$work/gen.capture.zst" >> "$work/gen.zst"
			gen "$1" "$work/gen.capture" >> "$work/gen.text"
		fi
	done
	g_text=$(median < "$work/gen.text")
	g_zst=$(median < "$work/gen.zst")
}
gen_pairs ""
a_text=$g_text a_zst=$g_zst
if [ -n "$pin" ]; then
	gen_pairs "$pin"
	p_text=$g_text p_zst=$g_zst
else
	p_text=0 p_zst=0
fi
awk -v n="$lines" -v t="$a_text" -v z="$a_zst" -v pt="$p_text" -v pz="$p_zst" \
    -v tb="$(stat -c %s "$work/gen.capture")" -v zb="$(stat -c %s "$work/gen.capture.zst")" 'BEGIN {
	printf "\n%-44s %12s %12s\n", "generate, medians", "text", ".zst"
	printf "%-44s %12.1f %12.1f\n", "log MB", tb / 1e6, zb / 1e6
	printf "%-44s %12.1f %12.1f\n", "bytes per line", tb / n, zb / n
	printf "%-44s %12.0f %12.0f  (%.2fx)\n", "lines/s, all CPUs", n / (t / 1e9), n / (z / 1e9), t / z
	if (pt > 0)
		printf "%-44s %12.0f %12.0f  (%.2fx)\n", "lines/s, one CPU (taskset -c 0)", n / (pt / 1e9), n / (pz / 1e9), pt / pz
}'

if [ -n "${z_bpe:-}" ]; then
	echo
	printf '%-36s %-18s %s\n' "target" "measured" "result"
	printf '%-36s %-18s %s\n' "<= $TARGET_BPE bytes per event (.zst)" \
		"$z_bpe" "$(awk -v b="$z_bpe" -v t="$TARGET_BPE" 'BEGIN { print (b <= t ? "PASS" : "MISS") }')"
	printf '%-36s %-18s %s\n' "generate .zst as fast as text" \
		"$(awk -v t="$a_text" -v z="$a_zst" 'BEGIN { printf "%.2fx", t / z }')" \
		"$(awk -v t="$a_text" -v z="$a_zst" 'BEGIN { print (t / z >= 0.97 ? "PASS" : "MISS") }')"
fi
