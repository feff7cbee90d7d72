#!/bin/bash
# capture.sh: the capture benchmarks.  Times a syscall loop (openat + pread64
# + close of a file on tmpfs) bare, under the hooks' own floors (empty BPF
# programs on the per-syscall tracepoints and on the raw sys_enter/sys_exit,
# bench/floor), under `ioriot -c` host-wide and with -x PID, in interleaved
# rounds; an untraced loop (getppid) bare and under capture; a pipe
# ping-pong between two processes (context switches and wake-ups) bare and
# under a capture of another process with and without wake records
# (--sync), in interleaved rounds; the traced loop
# under `strace -f`; then runs the traced loop flat out for 10 s under capture,
# one thread per CPU, and reports the event rate and lost events.  Needs root; prints figures and
# targets, exits 0 on a missed target and non-zero only if something fails
# to run.
#
#   bench/capture.sh BIN OUTPUT_DIR [ROUNDS]
set -eu
set -o pipefail

[ $# -ge 2 ] || { echo "usage: $0 BIN OUTPUT_DIR [ROUNDS]" >&2; exit 2; }
bin=$1
loop=$2/bench/syscall-loop
floor=$2/bench/floor
pingpong=$2/bench/pingpong
rounds=${3:-5}
for tool in "$loop" "$floor" "$pingpong"; do
	[ -x "$tool" ] || { echo "$0: $tool missing: run make bench" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "capture benchmark skipped: it needs root (sudo make bench)"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-capture.XXXXXX")
cleanup() {
	[ -n "${cap_pid:-}" ] && kill -INT "$cap_pid" 2>/dev/null && wait "$cap_pid" 2>/dev/null
	[ -n "${floor_pid:-}" ] && kill -INT "$floor_pid" 2>/dev/null && wait "$floor_pid" 2>/dev/null
	umount "$work/tmpfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/tmpfs"
mount -t tmpfs -o size=4g tmpfs "$work/tmpfs"
file=$work/tmpfs/data
head -c 4096 /dev/urandom > "$file"
# The floor's per-syscall tracepoints need tracefs (the capture mounts it
# itself; a freshly booted host may not have it yet).
tracefs=/sys/kernel/tracing
[ -d "$tracefs/events" ] || mount -t tracefs tracefs "$tracefs"
pin=""
taskset -c 0 true 2>/dev/null && pin="taskset -c 0"

# CPU ns per syscall of one 1 s loop run (the loop thread's own CPU time:
# on a shared machine, time other tasks held the CPU is most of the noise).
cpu_ns() { $pin "$loop" "$@" | awk '{print $8}'; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

start_capture() {
	rm -f "$work/tmpfs/io.capture"	# a capture keeps an existing log
	"$bin" -q -c "$work/tmpfs/io.capture" "$@" &
	cap_pid=$!
	sleep 2		# attached and snapshot written
}
stop_capture() {
	kill -INT "$cap_pid"
	wait "$cap_pid"
	cap_pid=""
}
under_floor() {		# MODE LOOP-ARGS...: one loop run under empty programs
	local mode=$1 ready
	shift
	"$floor" "$mode" > "$work/floor.out" &
	floor_pid=$!
	for ready in 1 2 3 4 5 6 7 8 9 10; do
		grep -q attached "$work/floor.out" && break
		sleep 0.2
	done
	grep -q attached "$work/floor.out" || { echo "$0: bench/floor $mode did not attach" >&2; exit 1; }
	cpu_ns "$@"
	kill -INT "$floor_pid"
	wait "$floor_pid"
	floor_pid=""
}
# The loop under `ioriot -x` of its own pid: a shell waits for the capture
# to attach, then becomes the loop.
under_pid_capture() {
	local out=$work/pid.out
	$pin sh -c 'sleep 2.5; exec "$0" "$@"' "$loop" "$@" > "$out" &
	local loop_pid=$!
	rm -f "$work/tmpfs/pid.capture"
	"$bin" -q -c "$work/tmpfs/pid.capture" -x "$loop_pid" &
	cap_pid=$!
	wait "$loop_pid"
	stop_capture
	awk '{print $8}' "$out"
}

# The root cgroup, every process in it: --cgroup's own cost, the same
# events captured as host-wide.
root_cgroup=
if [ -f /sys/fs/cgroup/cgroup.procs ]; then
	root_cgroup=/sys/fs/cgroup
elif [ -f /sys/fs/cgroup/blkio/cgroup.procs ]; then
	root_cgroup=/sys/fs/cgroup/blkio
fi
echo "== syscall cost: $rounds interleaved rounds of 1 s runs (CPU ns per syscall)"
: > "$work/rounds"
for r in $(seq "$rounds"); do
	b=$(cpu_ns io "$file" 1)
	tp=$(under_floor tp io "$file" 1)
	raw=$(under_floor raw io "$file" 1)
	start_capture
	host=$(cpu_ns io "$file" 1)
	un=$(cpu_ns untraced 1)
	stop_capture
	pid=$(under_pid_capture io "$file" 1)
	ub=$(cpu_ns untraced 1)
	cgr=0
	if [ -n "$root_cgroup" ]; then
		start_capture --cgroup "$root_cgroup"
		cgr=$(cpu_ns io "$file" 1)
		stop_capture
	fi
	echo "$b $tp $raw $host $pid $ub $un $cgr" >> "$work/rounds"
	echo "  round $r: bare $b, tp floor $tp, raw floor $raw, ioriot $host, ioriot -x $pid, ioriot --cgroup $cgr; getppid bare $ub, under ioriot $un"
done
# CPU ns per round trip of a 1 s ping-pong run: two sleeps and two
# wake-ups, both processes on one CPU.
pp_cpu() { $pin "$pingpong" 1 | awk '{print $11}'; }
echo "== context switches: pipe ping-pong, $rounds interleaved rounds (CPU ns per round trip)"
sleep 600 &
idle=$!
: > "$work/pp"
for r in $(seq "$rounds"); do
	b=$(pp_cpu)
	start_capture -x "$idle" --no-sync
	ns=$(pp_cpu)
	stop_capture
	start_capture -x "$idle" --sync
	s=$(pp_cpu)
	stop_capture
	echo "$b $ns $s" >> "$work/pp"
	echo "  round $r: bare $b, under ioriot -x OTHER --no-sync $ns, --sync $s"
done
kill "$idle"
wait "$idle" 2>/dev/null || true
pp_col() { awk -v c="$1" '{print $c}' "$work/pp" | median; }
pp_added() { awk -v c="$1" -v b="$2" '{print $c - $b}' "$work/pp" | median; }
printf "%-44s %12s %12s\n" "ping-pong, CPU ns per round trip (median)" "ns/trip" "added"
printf "%-44s %12s\n" "bare" "$(pp_col 1)"
printf "%-44s %12s %+12s\n" "capture of another process, --no-sync" "$(pp_col 2)" "$(pp_added 2 1)"
printf "%-44s %12s %+12s\n" "capture of another process, --sync" "$(pp_col 3)" "$(pp_added 3 1)"

# strace stops the loop at every syscall: its cost is wall time, not the
# loop's CPU time.
bare_wall=$($pin "$loop" io "$file" 3 | awk '{print $4}')
strace_io=$($pin strace -f -o /dev/null "$loop" io "$file" 3 | awk '{print $4}')

echo "== throughput: traced loop flat out for 10 s under capture, a thread per CPU"
cp "$file" "$file.2"
start_capture --ring-mb 256
# The capture's CPU time (user + system, clock ticks) and minor faults
# while the loop runs, from /proc/PID/stat.
cap_stat() { awk '{print $14 + $15, $10}' "/proc/$cap_pid/stat"; }
stat0=$(cap_stat)
out=$("$loop" threads 10 "$file" "$file.2")
stat1=$(cap_stat)
stop_capture
rate=$(echo "$out" | awk '{print $6}')
cap_cpu_ns=$(echo "$stat0 $stat1 $(getconf CLK_TCK) $(echo "$out" | awk '{print $2}')" |
	awk '{printf "%.0f", ($3 - $1) * 1e9 / $5 / $6}')
cap_faults=$(echo "$stat0 $stat1" | awk '{print $4 - $2}')
events=$(grep -c 'p=.*/tmpfs/data' "$work/tmpfs/io.capture" || true)
events=$((events * 3))
lost_of() {	# LOG: the events the probe lost, from its lost records
	awk -F';:,' '/o=lost/ { for (i = 1; i <= NF; i++) if ($i ~ /^c=/) n += substr($i, 3) } END { print n + 0 }' "$1"
}
lost=$(lost_of "$work/tmpfs/io.capture")

# Creates that fail with EEXIST: the capture looks for the held create each
# may have to follow (reorder.h), which must not cost a pass over all it holds.
echo "== failed creates: mkdir of an existing directory flat out for 5 s under capture"
mkdir -p "$work/tmpfs/exists"
start_capture --ring-mb 256
out=$($pin "$loop" exists "$work/tmpfs/exists" 5)
stop_capture
ex_rate=$(echo "$out" | awk '{print $6}')
ex_events=$(grep -c 'o=mkdir;.*p=.*/tmpfs/exists;.*r=-17' "$work/tmpfs/io.capture" || true)
ex_lost=$(lost_of "$work/tmpfs/io.capture")

# Per column, the median of the rounds; added costs are the medians of each
# round's difference to its own bare run.
col() { awk -v c="$1" '{print $c}' "$work/rounds" | median; }
added() { awk -v c="$1" -v b="$2" '{print $c - $b}' "$work/rounds" | median; }
awk -v bi="$(col 1)" -v tpi="$(col 2)" -v rawi="$(col 3)" -v hi="$(col 4)" \
    -v pi="$(col 5)" -v tpa="$(added 2 1)" -v rawa="$(added 3 1)" \
    -v gi="$(col 8)" -v ga="$(added 8 1)" -v groot="$root_cgroup" \
    -v ha="$(added 4 1)" -v pa="$(added 5 1)" -v si="$strace_io" -v bw="$bare_wall" \
    -v bu="$(col 6)" -v cu="$(col 7)" -v ua="$(added 7 6)" -v rate="$rate" \
    -v ev="$events" -v lost="$lost" -v exr="$ex_rate" -v exe="$ex_events" \
    -v exl="$ex_lost" -v ccpu="$cap_cpu_ns" -v cflt="$cap_faults" -v steal="$(awk '/^cpu / {print $9}' /proc/stat)" \
    -v ncpu="$(nproc)" 'BEGIN {
	printf "\n%-44s %12s %12s %10s\n", "CPU ns per syscall (median of rounds)", "ns/syscall", "added", "/tp floor"
	printf "%-44s %12.1f\n", "traced loop, bare", bi
	printf "%-44s %12.1f %+12.1f %10s\n", "empty programs, per-syscall tracepoints", tpi, tpa, "1.00x"
	printf "%-44s %12.1f %+12.1f %9.2fx\n", "empty programs, raw sys_enter/sys_exit", rawi, rawa, rawa / tpa
	printf "%-44s %12.1f %+12.1f %9.2fx\n", "under ioriot -c, whole host", hi, ha, ha / tpa
	printf "%-44s %12.1f %+12.1f %9.2fx\n", "under ioriot -c -x PID", pi, pa, pa / tpa
	if (groot != "")
		printf "%-44s %12.1f %+12.1f %9.2fx\n", "under ioriot -c --cgroup ROOT (all processes)", gi, ga, ga / tpa
	printf "%-44s %12.1f\n", "traced loop, bare (wall ns, one 3 s run)", bw
	printf "%-44s %12.1f %12s %9.1fx bare\n", "traced loop, under strace -f (wall ns)", si, "", si / bw
	printf "%-44s %12.1f\n", "untraced loop (getppid), bare", bu
	printf "%-44s %12.1f %+12.1f\n", "untraced loop, under ioriot -c", cu, ua
	printf "\n%-44s %12.0f\n", "events/s in 10 s, flat out", rate
	# What the CPUs allow at all: each event costs the bare syscall and at
	# least the empty programs of the hook, on ncpu CPUs (CPU ns per syscall
	# of the loop; the work of the capture process only in the last).
	printf "%-44s %12.0f\n", "  ceiling: CPUs / (bare + tp floor)", ncpu * 1e9 / (bi + tpa)
	printf "%-44s %12.0f\n", "  ceiling: CPUs / (bare + raw floor)", ncpu * 1e9 / (bi + rawa)
	printf "%-44s %12.0f\n", "  ceiling: CPUs / (bare + ioriot + capture CPU)", ncpu * 1e9 / (bi + ha + ccpu)
	printf "%-44s %12d\n", "events of the loop in the log", ev
	printf "%-44s %12d\n", "events lost", lost
	printf "%-44s %12d\n", "capture CPU ns per event (user + system)", ccpu
	printf "%-44s %12d\n", "capture minor faults meanwhile", cflt
	printf "%-44s %12.0f\n", "failed creates (mkdir EEXIST)/s, 5 s", exr
	printf "%-44s %12d\n", "of them in the log", exe
	printf "%-44s %12d\n", "events lost", exl
	printf "%-44s %12s\n", "host CPU time stolen since boot (ticks)", steal
	worst = ha > pa ? ha : pa
	printf "\n%-40s %-22s %s\n", "target", "measured", "result"
	printf "%-40s %-22s %s\n", "added <= 1.3x the tp floor, host-wide", sprintf("%.0f ns (%.2fx)", ha, ha / tpa), (ha <= 1.3 * tpa ? "PASS" : "MISS")
	printf "%-40s %-22s %s\n", "added <= 1.3x the tp floor, -x PID", sprintf("%.0f ns (%.2fx)", pa, pa / tpa), (pa <= 1.3 * tpa ? "PASS" : "MISS")
	printf "%-40s %-22s %s\n", "added <= 300 ns per captured call", sprintf("%.0f ns", worst), (worst <= 300 ? "PASS" : "MISS")
	printf "%-40s %-22s %s\n", ">= 2M events/s, 0 lost, 10 s", sprintf("%.0f/s, %d lost", rate, lost), ((rate >= 2000000 && lost == 0) ? "PASS" : "MISS")
	printf "%-40s %-22s %s\n", "failed creates flat out, 0 lost", sprintf("%d lost", exl), (exl == 0 ? "PASS" : "MISS")
	printf "%-40s %-22s %s\n", "untraced syscalls unchanged", sprintf("%+.1f ns", ua), "see docs/benchmarks.md"
}'
