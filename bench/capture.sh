#!/bin/bash
# capture.sh: the capture benchmarks.  Times a syscall loop (openat + pread64
# + close of a file on tmpfs) bare, under `ioriot -c` and under `strace -f`,
# and an untraced syscall loop (getppid) bare and under capture; then runs the
# traced loop flat out for 10 s under capture and reports the event rate and
# lost events.  Needs root; prints figures and targets, exits 0 on a missed
# target and non-zero only if something fails to run.
#
#   bench/capture.sh BIN OUTPUT_DIR
set -eu
set -o pipefail

[ $# -eq 2 ] || { echo "usage: $0 BIN OUTPUT_DIR" >&2; exit 2; }
bin=$1
loop=$2/bench/syscall-loop
[ -x "$loop" ] || { echo "$0: $loop missing: run make bench" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "capture benchmark skipped: it needs root (sudo make bench)"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-capture.XXXXXX")
cleanup() {
	[ -n "${cap_pid:-}" ] && kill -INT "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null
	umount "$work/tmpfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/tmpfs"
mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"
file=$work/tmpfs/data
head -c 4096 /dev/urandom > "$file"
pin=""
taskset -c 0 true 2>/dev/null && pin="taskset -c 0"

# ns per syscall of one loop run: field 4 of its output.
ns() { $pin "$loop" "$@" | awk '{print $4}'; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
runs() { for i in 1 2 3; do ns "$@"; done | median; }

start_capture() {
	"$bin" -q -c "$work/tmpfs/io.capture" "$@" &
	cap_pid=$!
	sleep 2		# attached and snapshot written
}
stop_capture() {
	kill -INT "$cap_pid"
	wait "$cap_pid"
	cap_pid=""
}

echo "== syscall cost, median of 3 runs of 3 s (ns per syscall)"
bare_io=$(runs io "$file" 3)
bare_un=$(runs untraced 3)
start_capture
cap_io=$(runs io "$file" 3)
cap_un=$(runs untraced 3)
stop_capture
strace_io=$($pin strace -f -o /dev/null "$loop" io "$file" 3 | awk '{print $4}')

echo "== throughput: traced loop flat out for 10 s under capture"
start_capture --ring-mb 256
out=$($pin "$loop" io "$file" 10)
stop_capture
rate=$(echo "$out" | awk '{print $6}')
events=$(grep -c 'p=.*/tmpfs/data' "$work/tmpfs/io.capture" || true)
events=$((events * 3))
lost=$(awk -F';:,' '/o=lost/ { for (i = 1; i <= NF; i++) if ($i ~ /^c=/) n += substr($i, 3) } END { print n + 0 }' "$work/tmpfs/io.capture")

awk -v bi="$bare_io" -v ci="$cap_io" -v si="$strace_io" -v bu="$bare_un" \
    -v cu="$cap_un" -v rate="$rate" -v ev="$events" -v lost="$lost" 'BEGIN {
	added = ci - bi
	printf "\n%-44s %12s\n", "", "ns/syscall"
	printf "%-44s %12.1f\n", "traced loop, bare", bi
	printf "%-44s %12.1f  (%.2fx)\n", "traced loop, under ioriot -c", ci, ci / bi
	printf "%-44s %12.1f  (%.2fx)\n", "traced loop, under strace -f", si, si / bi
	printf "%-44s %12.1f\n", "untraced loop (getppid), bare", bu
	printf "%-44s %12.1f  (%+.1f%%)\n", "untraced loop, under ioriot -c", cu, (cu - bu) * 100 / bu
	printf "\n%-44s %12.0f\n", "events/s in 10 s, flat out", rate
	printf "%-44s %12d\n", "events of the loop in the log", ev
	printf "%-44s %12d\n", "events lost", lost
	printf "\n%-36s %-14s %s\n", "target", "measured", "result"
	printf "%-36s %-14s %s\n", "<= 250 ns added per captured call", sprintf("%.0f ns", added), (added <= 250 ? "PASS" : "MISS")
	printf "%-36s %-14s %s\n", ">= 500k events/s, 0 lost, 10 s", sprintf("%.0f/s, %d lost", rate, lost), ((rate >= 500000 && lost == 0) ? "PASS" : "MISS")
	printf "%-36s %-14s %s\n", "untraced syscalls unchanged", sprintf("%+.1f%%", (cu - bu) * 100 / bu), "see docs/benchmarks.md"
}'
