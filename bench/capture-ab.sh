#!/bin/bash
# capture-ab.sh: two capture binaries compared in one run, interleaved.
# In each round, the traced loop of bench/capture.sh (openat + pread64 +
# close of a 4 KiB file on a tmpfs, 1 s, pinned to CPU 0 when taskset
# allows) runs bare, under `BEFORE -q -c LOG` and under `AFTER -q -c LOG`
# (whole host, each started 2 s before its run, the log on the tmpfs), so
# that both binaries see the same host load.  Prints each round's CPU ns
# per syscall, then the median bare cost and the median of each round's
# difference to its bare run per binary.  Needs root.
#
#   bench/capture-ab.sh BEFORE AFTER OUTPUT_DIR [ROUNDS]
#
# OUTPUT_DIR holds bench/syscall-loop (make bench builds it).  ROUNDS
# defaults to 9.
set -eu
set -o pipefail

[ $# -ge 3 ] && [ $# -le 4 ] || {
	echo "usage: $0 BEFORE AFTER OUTPUT_DIR [ROUNDS]" >&2
	exit 2
}
before=$1 after=$2 loop=$3/bench/syscall-loop rounds=${4:-9}
[ -x "$loop" ] || { echo "$0: $loop missing: run make bench" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-capture-ab.XXXXXX")
cleanup() {
	[ -n "${cap_pid:-}" ] && kill -INT "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null
	umount "$work/tmpfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/tmpfs"
mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"
head -c 4096 /dev/urandom > "$work/tmpfs/data"
pin=""
taskset -c 0 true 2>/dev/null && pin="taskset -c 0"

cpu_ns() { $pin "$loop" io "$work/tmpfs/data" 1 | awk '{print $8}'; }
under() {	# BIN: one loop run under BIN's whole-host capture
	rm -f "$work/tmpfs/ab.capture"	# a capture keeps an existing log
	"$1" -q -c "$work/tmpfs/ab.capture" &
	cap_pid=$!
	sleep 2
	cpu_ns
	kill -INT "$cap_pid"
	wait "$cap_pid"
	cap_pid=""
	rm -f "$work/tmpfs/ab.capture"
}

echo "round: bare, under BEFORE, under AFTER (CPU ns per syscall)"
for i in $(seq "$rounds"); do
	echo "$(cpu_ns) $(under "$before") $(under "$after")"
done | tee "$work/rounds"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
bare=$(awk '{print $1}' "$work/rounds" | median)
add_before=$(awk '{print $2 - $1}' "$work/rounds" | median)
add_after=$(awk '{print $3 - $1}' "$work/rounds" | median)
printf "\n%-32s %10.1f ns\n" "bare (median)" "$bare"
printf "%-32s %+10.1f ns\n" "added by BEFORE (median)" "$add_before"
printf "%-32s %+10.1f ns\n" "added by AFTER (median)" "$add_after"
