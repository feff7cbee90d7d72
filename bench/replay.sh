#!/bin/bash
# replay.sh: the replay engine benchmarks.  Replay files written by mkreplay
# (openat + pread64 + close of a file per timeline) are initialised and
# replayed in a tmpfs mounted for the run, and in a loop-mounted ext4 image:
#   1. engine overhead: one timeline as fast as possible (-s 0) against
#      syscall-loop doing the same syscalls, on tmpfs and on ext4: the
#      median and the slowest of the per-pair ratios; the replay's reader
#      thread parses the file beside the timeline's thread, so the replay
#      also runs with all its threads pinned to one CPU (its whole CPU cost);
#   2. scaling: the same number of operations on 1, 2 and 4 timelines, -s 0;
#      beside it syscall-loop on 2 files in 2 threads of one process and in
#      2 processes: how far the kernel lets these syscalls scale at all;
#   3. timing accuracy: 10k operations/s for 3 s at captured speed (-s 1)
#      on 1, 4 and 64 timelines: start lateness and duration error, each run
#      beside a run of sleep-floor on as many threads with the same
#      deadlines and the same spin (the host's own wake-up lateness: the
#      target is the replay's p99 within 50 us of it); the 4 timelines also
#      with --spin 1000 (no target: what a busy VM needs);
#   4. many processes: a parallel build (make -j4 of a generated tree of
#      hundreds of small rules, each a shell running head and tail, every
#      level reading what processes of the level before wrote, and each
#      level summed by a python3 process with a thread per file) captured
#      with ioriot -c -x, generated, initialised and replayed at -s 1:
#      duration error against the captured duration, and start lateness
#      beside sleep-floor -f on the same file (the host's floor for those
#      deadlines on as many threads);
#   5. memory: peak RSS replaying 1 M and 4 M operations on 4 timelines,
#      -s 0 (the file is read while it runs: RSS should not grow).
# Figures are medians of runs interleaved with each other; a ratio is the
# median of the ratios of runs made one right after the other (this VM's
# speed changes within seconds).  On a virtual
# machine, the share of CPU time the hypervisor stole (/proc/stat) is printed
# beside the overhead and timing figures: lateness of milliseconds comes
# with it.  Needs root;
# prints figures and targets, exits 0 on a missed target and non-zero only
# if something fails to run.
#
#   bench/replay.sh BIN OUTPUT_DIR
#
# BIN is the ioriot binary; OUTPUT_DIR holds bench/mkreplay,
# bench/syscall-loop and bench/sleep-floor.
set -eu
set -o pipefail
set -eu
set -o pipefail

RUNS=${RUNS:-5}			# runs of each test (median)
TESTS=${TESTS:-"overhead scaling timing many memory"}	# which to run
OVERHEAD_OPS=300000		# one timeline
LOOP_SECS=0.5			# syscall-loop run per overhead run
SCALE_OPS=600000		# in all, split over the timelines
PACE_RATE=10000			# ops/s in all
PACE_OPS=30000			# 3 s at PACE_RATE (rounded down to a multiple
				# of 3 operations per timeline)
PACE_TIMELINES="1 4 64"
TARGET_RATIO=0.92		# median of the replay/loop ratios
TARGET_SLOWEST=0.85		# the slowest of them
TARGET_FLOOR_US=50		# p99 lateness above sleep-floor's p99
TARGET_ERR_PCT=1
MANY_WIDTH=40			# the build: files per level
MANY_LEVELS=8			# levels made by rules
MANY_JOBS=4			# make -j
TARGET_MANY_P99_US=1000
MEM_SMALL=250002		# ops per timeline, 4 timelines
MEM_LARGE=1000002
TARGET_MEM_GROWTH=1.25		# peak RSS at 4x the operations
TARGET_SCALE=1.1		# 2 timelines against 1: above run-to-run noise
SPIN_US=1000			# -s 1 on 4 timelines again with --spin: no target
DEFAULT_SPIN_US=100		# the replay's spin without --spin

[ $# -eq 2 ] || { echo "usage: $0 BIN OUTPUT_DIR" >&2; exit 2; }
bin=$1
# A bare name would be looked up in PATH: it means the file here.
case $bin in
*/*) ;;
*) bin=./$bin ;;
esac
[ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 1; }
mkreplay=$2/bench/mkreplay
loop=$2/bench/syscall-loop
floor=$2/bench/sleep-floor
for b in "$mkreplay" "$loop" "$floor"; do
	[ -x "$b" ] || { echo "$0: $b missing: run make bench" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "replay benchmark skipped: it needs root (sudo make bench)"
	exit 0
fi
runs_test() {
	case " $TESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-replay.XXXXXX")
cap_pid=
cleanup() {
	[ -n "$cap_pid" ] && kill -INT "$cap_pid" 2>/dev/null && wait "$cap_pid"
	umount "$work/mnt" 2>/dev/null || true
	umount "$work/ext4" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$work/mnt" "$work/ext4"
mount -t tmpfs -o size=64m tmpfs "$work/mnt"
# ext4 on a loop device: an image file in the scratch directory.
truncate -s 256M "$work/ext4.img"
mkfs.ext4 -q -F "$work/ext4.img" > "$work/mkfs.out" 2>&1 || {
	cat "$work/mkfs.out" >&2
	echo "$0: mkfs.ext4 failed" >&2
	exit 1
}
mount -o loop "$work/ext4.img" "$work/ext4"
pin=""
pinned="not pinned"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
	pinned="pinned to CPU 0"
fi

# Init and replays run as root (--allow-root), as the syscall loop they are
# measured against does.
# Write replay file NAME (sandbox MOUNT/.ioriot/NAME, MOUNT $work/mnt
# unless given as the fifth argument) with TIMELINES, OPS_PER_TIMELINE and
# RATE, and init its sandbox.  Each test has a name of its own and only
# reads, so one init serves all of its runs.
prepare() {
	local name=$1 file=$work/$1.replay mnt=${5:-$work/mnt}

	"$mkreplay" "$mnt/.ioriot/$name" "$2" "$3" "$4" > "$file" || {
		echo "$0: mkreplay failed" >&2
		exit 1
	}
	init "$file"
}

# Initialise the sandboxes of replay file FILE.
init() {
	"$bin" -q --allow-root -i "$1" > "$work/init.out" 2>&1 || {
		cat "$work/init.out" >&2
		echo "$0: init of $1 failed" >&2
		exit 1
	}
}

# Replay NAME at speed SPEED (after PIN, a command prefix or "", and with
# the options in EXTRA, split at spaces) into $work/NAME.stats, its CPU
# time (user and system, all threads, GNU time) into $work/NAME.time.  Every
# operation must have run and none may have failed, or the figures would
# measure something else.
replay() {
	local name=$1 speed=$2 stats=$work/$1.stats want ops differ

	rm -f "$stats"
	# shellcheck disable=SC2086	# EXTRA is split on purpose
	$3 /usr/bin/time -f "%U %S" -o "$work/$name.time" \
		"$bin" -q -r "$work/$name.replay" --reuse -D -u root --allow-root -s "$speed" ${4:-} \
		-S "$stats" > "$work/replay.out" 2>&1 || {
		cat "$work/replay.out" >&2
		echo "$0: replay of $work/$name.replay failed" >&2
		exit 1
	}
	want=$(awk '/^#END/ { split($0, a, /[=|]/); print a[3] }' "$work/$name.replay")
	ops=$(stat_of "Performed ioops" "$stats")
	differ=$(awk 'seen && NF == 0 { seen = 0 }
		      seen && NF >= 4 { n += $4 } /^syscall / { seen = 1 }
		      END { print n + 0 }' "$stats")
	if [ "$ops" != "$want" ] || [ "$differ" -ne 0 ]; then
		cat "$stats" >&2
		echo "$0: replay of $name: $ops of $want operations performed, $differ results differ from the file" >&2
		exit 1
	fi
}

# The value of stats line "\tKEY: VALUE" (VALUE up to a space or "s").
stat_of() {
	awk -v k="$1" 'index($0, "\t" k ": ") == 1 {
		v = substr($0, length(k) + 4); sub(/[ s].*$/, "", v); print v }' "$2"
}

# CPU ns per operation of the last replay of NAME: all its threads, the
# reading of the file and the setup included.
cpu_per_op() {
	awk -v ops="$(stat_of "Performed ioops" "$work/$1.stats")" \
		'{ printf "%.0f", ($1 + $2) * 1e9 / ops }' "$work/$1.time"
}

# Operations per second of the last replay of NAME.
rate_of() {
	stat_of "Average ioops/s" "$work/$1.stats"
}

# p50/p99 start lateness in us of the last replay of NAME.
lateness_of() {
	local late
	late=$(awk -F': ' '/^\tStart lateness p50\/p99\/max: / {
		sub(/ us$/, "", $2); split($2, v, "/"); print v[1] "/" v[2] }' \
		"$work/$1.stats")
	[ -n "$late" ] || { echo "$0: no start lateness in $work/$1.stats" >&2; exit 1; }
	echo "$late"
}

# The "cpu" line of /proc/stat: jiffies of all CPUs, and the steal among
# them (time the hypervisor ran something else while this VM wanted to run).
cpu_jiffies() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t, $9 }' /proc/stat
}

# Percent of CPU time stolen between two cpu_jiffies readings.
steal_pct() {
	echo "$1 $2" | awk '{ d = $3 - $1; printf "%.1f", d ? 100 * ($4 - $2) / d : 0 }'
}

# A / B with 4 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b ? a / b : 0 }'
}

median() {
	tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

lowest() {
	tr ' ' '\n' | sed '/^$/d' | sort -g | head -1
}

# PASS or MISS: awk condition COND on the variables v, t given.
verdict() {
	awk -v v="$1" -v t="$2" "BEGIN { print ($3) ? \"PASS\" : \"MISS\" }"
}

echo "ioriot replay benchmark: $(nproc) CPUs, $RUNS runs of each test"
results=$work/results		# the table printed at the end
targets=$work/targets		# the targets, one line each
: > "$results"
: > "$targets"
# A row of the targets table: TARGET MEASURED RESULT.
target() {
	printf "%-46s %-22s %s\n" "$1" "$2" "$3" >> "$targets"
}

if runs_test overhead; then
echo "== engine overhead: 1 timeline, $OVERHEAD_OPS ops, -s 0, tmpfs and ext4; replay also $pinned"
prepare ovh_tmpfs 1 "$OVERHEAD_OPS" 0 "$work/mnt"
prepare ovh_ext4 1 "$OVERHEAD_OPS" 0 "$work/ext4"
for fs in tmpfs ext4; do
	eval "lr_$fs= or_$fs= pr_$fs= orat_$fs= prat_$fs= lc_$fs= oc_$fs="
done
ovh_j0=$(cpu_jiffies)
for i in $(seq 1 "$RUNS"); do
	for fs in tmpfs ext4; do
		case $fs in
		tmpfs) file=$work/mnt/.ioriot/ovh_tmpfs/t0/file ;;
		ext4) file=$work/ext4/.ioriot/ovh_ext4/t0/file ;;
		esac
		out=$("$loop" io "$file" "$LOOP_SECS") || {
			echo "$0: syscall-loop failed" >&2
			exit 1
		}
		lr=$(echo "$out" | awk '{ print $6 }')
		lc=$(echo "$out" | awk '{ printf "%.0f", $8 }')
		replay "ovh_$fs" 0 ""
		orate=$(rate_of "ovh_$fs")
		oc=$(cpu_per_op "ovh_$fs")
		replay "ovh_$fs" 0 "$pin"
		prate=$(rate_of "ovh_$fs")
		eval "lr_$fs=\"\$lr_$fs $lr\" or_$fs=\"\$or_$fs $orate\""
		eval "pr_$fs=\"\$pr_$fs $prate\" lc_$fs=\"\$lc_$fs $lc\" oc_$fs=\"\$oc_$fs $oc\""
		eval "orat_$fs=\"\$orat_$fs $(ratio "$orate" "$lr")\""
		eval "prat_$fs=\"\$prat_$fs $(ratio "$prate" "$lr")\""
	done
done
ovh_steal=$(steal_pct "$ovh_j0" "$(cpu_jiffies)")
{
	printf "\n%-44s %12s  %s\n" "-s 0, $OVERHEAD_OPS ops" "ops/s" "ratio: median, slowest of $RUNS"
	for fs in tmpfs ext4; do
		eval "l=\$lr_$fs o=\$or_$fs p=\$pr_$fs oq=\$orat_$fs pq=\$prat_$fs"
		# shellcheck disable=SC2154	# set by the eval above
		printf "%-44s %12.0f\n" "syscall-loop (openat+pread64+close), $fs" "$(echo "$l" | median)"
		# shellcheck disable=SC2154
		printf "%-44s %12.0f  %.3fx, %.3fx\n" "replay, 1 timeline, $fs" \
		       "$(echo "$o" | median)" "$(echo "$oq" | median)" "$(echo "$oq" | lowest)"
		# shellcheck disable=SC2154
		printf "%-44s %12.0f  %.3fx, %.3fx\n" "replay, 1 timeline, $fs, $pinned" \
		       "$(echo "$p" | median)" "$(echo "$pq" | median)" "$(echo "$pq" | lowest)"
		eval "lc=\$lc_$fs oc=\$oc_$fs"
		# shellcheck disable=SC2154
		printf "%-44s %12s  loop %.0f ns, replay %.0f ns (all threads)\n" \
		       "  CPU time per operation (syscall), $fs" "" "$(echo "$lc" | median)" \
		       "$(echo "$oc" | median)"
	done
	printf "%-44s %11.1f%%\n" "  host steal during these runs" "$ovh_steal"
} >> "$results"
for fs in tmpfs ext4; do
	eval "oq=\$orat_$fs"
	m=$(echo "$oq" | median)
	s=$(echo "$oq" | lowest)
	target ">= ${TARGET_RATIO}x the loop, $fs (median)" "$(printf %.3fx "$m")" \
	       "$(verdict "$m" "$TARGET_RATIO" 'v >= t')"
	target ">= ${TARGET_SLOWEST}x the loop, $fs (slowest)" "$(printf %.3fx "$s")" \
	       "$(verdict "$s" "$TARGET_SLOWEST" 'v >= t')"
done
fi

if runs_test scaling; then
echo "== scaling: $SCALE_OPS ops on 1, 2 and 4 timelines, -s 0"
for n in 1 2 4; do
	prepare "scale$n" "$n" $((SCALE_OPS / n)) 0
done
# What the kernel allows for the same syscalls: syscall-loop on one and
# two files, in one and two processes, and in one and two threads of a
# process (threads share the fd table, as the replay's threads do).
f0=$work/mnt/.ioriot/scale2/t0/file
f1=$work/mnt/.ioriot/scale2/t1/file
s1= s2= s4= lp1= lp2= lt1= lt2= r2= r4= rp2= rt2=
for i in $(seq 1 "$RUNS"); do
	for n in 1 2 4; do
		replay "scale$n" 0 ""
		eval "s$n=\"\$s$n \$(rate_of scale$n)\""
		eval "x$n=\$(rate_of scale$n)"
	done
	r2="$r2 $(ratio "$x2" "$x1")"
	r4="$r4 $(ratio "$x4" "$x1")"
	xp1=$("$loop" io "$f0" "$LOOP_SECS" | awk '{ print $6 }')
	xt1=$("$loop" threads "$LOOP_SECS" "$f0" | awk '{ print $6 }')
	xt2=$("$loop" threads "$LOOP_SECS" "$f0" "$f1" | awk '{ print $6 }')
	"$loop" io "$f0" "$LOOP_SECS" > "$work/loop0.out" &
	"$loop" io "$f1" "$LOOP_SECS" > "$work/loop1.out" || exit 1
	wait $! || exit 1
	xp2=$(awk '{ r += $6 } END { print r }' "$work/loop0.out" "$work/loop1.out")
	lp1="$lp1 $xp1" lp2="$lp2 $xp2" lt1="$lt1 $xt1" lt2="$lt2 $xt2"
	rp2="$rp2 $(ratio "$xp2" "$xp1")"
	rt2="$rt2 $(ratio "$xt2" "$xt1")"
done
ratio2=$(echo "$r2" | median)
{
	printf "\n%-44s %12s\n" "-s 0, $SCALE_OPS ops" "ops/s"
	printf "%-44s %12.0f  (1.00x)\n" "scaling, 1 timeline" "$(echo "$s1" | median)"
	printf "%-44s %12.0f  (%.2fx)\n" "scaling, 2 timelines" "$(echo "$s2" | median)" "$ratio2"
	printf "%-44s %12.0f  (%.2fx)\n" "scaling, 4 timelines" "$(echo "$s4" | median)" \
	       "$(echo "$r4" | median)"
	printf "%-44s %12.0f  (1.00x)\n" "syscall-loop, 1 process" "$(echo "$lp1" | median)"
	printf "%-44s %12.0f  (%.2fx)\n" "syscall-loop, 2 processes" "$(echo "$lp2" | median)" \
	       "$(echo "$rp2" | median)"
	printf "%-44s %12.0f  (1.00x)\n" "syscall-loop, 1 thread of a process" \
	       "$(echo "$lt1" | median)"
	printf "%-44s %12.0f  (%.2fx)\n" "syscall-loop, 2 threads of one process" \
	       "$(echo "$lt2" | median)" "$(echo "$rt2" | median)"
} >> "$results"
target "2 timelines >= ${TARGET_SCALE}x 1 timeline" "$(printf %.3fx "$ratio2")" \
       "$(verdict "$ratio2" "$TARGET_SCALE" 'v >= t')"
fi

if runs_test timing; then
echo "== timing: $PACE_RATE ops/s for $((PACE_OPS / PACE_RATE)) s on $PACE_TIMELINES timelines, -s 1, each run beside sleep-floor"
for n in $PACE_TIMELINES; do
	prepare "pace$n" "$n" $((PACE_OPS / n / 3 * 3)) "$PACE_RATE"
done
cases=
for n in $PACE_TIMELINES; do
	cases="$cases $n"
	[ "$n" = 4 ] && cases="$cases 4s"
done
for c in $cases; do
	eval "p50_$c= p99_$c= err_$c= steal_$c= f50_$c= f99_$c= fsteal_$c= diff_$c="
done
for i in $(seq 1 "$RUNS"); do
	# 4s: the 4-timeline file with --spin $SPIN_US.
	for c in $cases; do
		n=${c%s}
		extra= spin=$DEFAULT_SPIN_US
		if [ "$c" = 4s ]; then
			extra="--spin $SPIN_US"
			spin=$SPIN_US
		fi
		j0=$(cpu_jiffies)
		replay "pace$n" 1 "" "$extra"
		eval "steal_$c=\"\$steal_$c $(steal_pct "$j0" "$(cpu_jiffies)")\""
		late=$(lateness_of "pace$n")
		# The replay's duration from ops / (ops/s): more digits than
		# "Total time"; the captured one from the file's last op.
		stats=$work/pace$n.stats
		err=$(awk -v ops="$(stat_of "Performed ioops" "$stats")" \
			  -v r="$(rate_of "pace$n")" \
			  '!/^#/ && NF >= 7 { cap = $3 + $4 }
			   END { d = ops / r - cap / 1e9; if (d < 0) d = -d
				 printf "%.4f", d * 100 / (cap / 1e9) }' "$work/pace$n.replay")
		eval "p50_$c=\"\$p50_$c ${late%/*}\""
		eval "p99_$c=\"\$p99_$c ${late#*/}\""
		eval "err_$c=\"\$err_$c $err\""
		# The host's floor: as many threads, the same deadlines and
		# spin, right after the replay.
		j0=$(cpu_jiffies)
		fl=$("$floor" "$n" $((PACE_OPS / n / 3 * 3 * n)) "$PACE_RATE" "$spin") || {
			echo "$0: sleep-floor failed" >&2
			exit 1
		}
		eval "fsteal_$c=\"\$fsteal_$c $(steal_pct "$j0" "$(cpu_jiffies)")\""
		f50=$(echo "$fl" | awk '{ print $2 }')
		f99=$(echo "$fl" | awk '{ print $4 }')
		eval "f50_$c=\"\$f50_$c $f50\" f99_$c=\"\$f99_$c $f99\""
		eval "diff_$c=\"\$diff_$c $(awk -v a="${late#*/}" -v b="$f99" 'BEGIN { printf "%.1f", a - b }')\""
	done
done
{
	printf "\n%-30s %8s %8s %9s %8s %8s %9s %10s %7s\n" "-s 1, $PACE_RATE ops/s" \
	       "p50 us" "p99 us" "floor p50" "p99" "p99-fl." "err." "steal" "fl.st."
	for c in $cases; do
		label="$c timelines"
		[ "$c" = 1 ] && label="1 timeline"
		[ "$c" = 4s ] && label="4 timelines, --spin $SPIN_US"
		eval "v=\"\$p50_$c|\$p99_$c|\$f50_$c|\$f99_$c|\$diff_$c|\$err_$c|\$steal_$c|\$fsteal_$c\""
		IFS='|' read -r a b cc d e f g h <<< "$v"
		printf "%-30s %8.1f %8.1f %9.1f %8.1f %8.1f %8.3f%% %9.1f%% %6.1f%%\n" "$label" \
		       "$(echo "$a" | median)" "$(echo "$b" | median)" "$(echo "$cc" | median)" \
		       "$(echo "$d" | median)" "$(echo "$e" | median)" "$(echo "$f" | median)" \
		       "$(echo "$g" | median)" "$(echo "$h" | median)"
	done
	echo "  (p99-fl.: median over the runs of the replay's p99 minus the floor's p99 of the run beside it)"
} >> "$results"
for n in $PACE_TIMELINES; do
	eval "d=\$(echo \"\$diff_$n\" | median) e=\$(echo \"\$err_$n\" | median)"
	target "p99 <= floor + $TARGET_FLOOR_US us, $n timeline(s)" "$(printf "%+.1f us" "$d")" \
	       "$(verdict "$d" "$TARGET_FLOOR_US" 'v <= t')"
	target "duration error < $TARGET_ERR_PCT%, $n timeline(s)" "$(printf %.3f%% "$e")" \
	       "$(verdict "$e" "$TARGET_ERR_PCT" 'v < t')"
done
fi

if runs_test many; then
echo "== many processes: make -j$MANY_JOBS of $((MANY_WIDTH * MANY_LEVELS)) rules captured, replayed at -s 1"
# The tree: level 0 is MANY_WIDTH files of 6000 bytes; file I of level L
# is the head of file I and the tail of file I+1 of level L-1, made by a
# shell running head and tail (3 short-lived processes a rule).  Where
# python3 is, each level made is also summed by a process with a thread
# per file (each reads its file and writes its length to FILE.sum).
build=$work/mnt/build
mkdir "$build"
sum_cmd=
command -v python3 > /dev/null && sum_cmd="python3 -c \"import sys, threading as t; \
ts = [t.Thread(target=lambda f=f: open(f + '.sum', 'w').write(str(len(open(f, 'rb').read())))) \
for f in sys.argv[1:]]; [x.start() for x in ts]; [x.join() for x in ts]\" \$^"
{
	printf 'all:'
	for i in $(seq 0 $((MANY_WIDTH - 1))); do printf ' l%d_%d' "$MANY_LEVELS" "$i"; done
	[ -n "$sum_cmd" ] && for l in $(seq 1 "$MANY_LEVELS"); do printf ' sum%d' "$l"; done
	echo
	for l in $(seq 1 "$MANY_LEVELS"); do
		for i in $(seq 0 $((MANY_WIDTH - 1))); do
			a=l$((l - 1))_$i b=l$((l - 1))_$(((i + 1) % MANY_WIDTH))
			printf 'l%d_%d: %s %s\n\t{ head -c 3000 %s; tail -c 3000 %s; } > $@\n' \
			       "$l" "$i" "$a" "$b" "$a" "$b"
		done
		if [ -n "$sum_cmd" ]; then
			printf 'sum%d:' "$l"
			for i in $(seq 0 $((MANY_WIDTH - 1))); do printf ' l%d_%d' "$l" "$i"; done
			printf '\n\t%s\n' "$sum_cmd"
		fi
	done
} > "$build/Makefile"
for i in $(seq 0 $((MANY_WIDTH - 1))); do
	head -c 6000 /dev/urandom > "$build/l0_$i"
done
# A shell waits for the capture to attach, then becomes make.
sh -c 'sleep 2; exec make -s -j"$1" -C "$0"' "$build" "$MANY_JOBS" > "$work/make.out" 2>&1 &
make_pid=$!
"$bin" -q -c "$work/many.capture" -x "$make_pid" --include "$build" &
cap_pid=$!
wait "$make_pid" || { cat "$work/make.out" >&2; echo "$0: make failed" >&2; exit 1; }
sleep 0.1
kill -INT "$cap_pid"
wait "$cap_pid" || { echo "$0: the capture of make failed" >&2; exit 1; }
cap_pid=
"$bin" -q -c "$work/many.capture" -r "$work/many.replay" -n many -u root \
	> "$work/generate.out" 2>&1 || {
	cat "$work/generate.out" >&2
	echo "$0: generate of the build's capture failed" >&2
	exit 1
}
init "$work/many.replay"
hdr=$(sed -n 3p "$work/many.replay")
forks=$(grep -c 'o=fork;' "$work/many.capture" || true)
# The build starts after the shell's 2 s: its span is from the first
# operation to the captured end, and the replay's from the same time.
first=$(awk '!/^#/ && NF >= 7 { print $3; exit }' "$work/many.replay")
want=$(awk '/^#END/ { split($0, a, /[=|]/); print a[3] }' "$work/many.replay")
m50= m99= mmax= merr= mspan= msteal= mf99=
for i in $(seq 1 "$RUNS"); do
	j0=$(cpu_jiffies)
	"$bin" -q -r "$work/many.replay" --reuse -D -u root --allow-root -s 1 \
		-S "$work/many.json" > "$work/replay.out" 2>&1 || {
		cat "$work/replay.out" >&2
		echo "$0: replay of $work/many.replay failed" >&2
		exit 1
	}
	ops=$(awk -F'[:,]' '/"performed_ioops"/ { print $2 + 0 }' "$work/many.json")
	[ "$ops" = "$want" ] || {
		echo "$0: replay of the build: $ops of $want operations performed" >&2
		exit 1
	}
	msteal="$msteal $(steal_pct "$j0" "$(cpu_jiffies)")"
	read -r p50 p99 pmax tot cap < <(awk -F'[:,{} ]+' '
		/"total_time_ns"/ { t = $3 } /"captured_time_ns"/ { c = $3 }
		/"start_lateness_ns"/ { for (i = 1; i < NF; i++) {
			if ($i == "\"p50\"") a = $(i + 1)
			if ($i == "\"p99\"") b = $(i + 1)
			if ($i == "\"max\"") m = $(i + 1) } }
		END { print a / 1000, b / 1000, m / 1000, t, c }' "$work/many.json")
	m50="$m50 $p50" m99="$m99 $p99" mmax="$mmax $pmax"
	merr="$merr $(awk -v t="$tot" -v c="$cap" -v f="$first" 'BEGIN {
		d = (t - f) - (c - f); if (d < 0) d = -d; printf "%.4f", 100 * d / (c - f) }')"
	mspan="$mspan $(awk -v c="$cap" -v f="$first" 'BEGIN { printf "%.3f", (c - f) / 1e9 }')"
	# The host's floor for these deadlines: a thread per timeline.
	fl=$("$floor" -f "$work/many.replay" "$DEFAULT_SPIN_US") || {
		echo "$0: sleep-floor -f failed" >&2
		exit 1
	}
	mf99="$mf99 $(echo "$fl" | awk '{ print $4 }')"
done
mp99=$(echo "$m99" | median)
merr_med=$(echo "$merr" | median)
{
	printf "\n%-44s %s\n" "many processes (make -j$MANY_JOBS)" \
	       "$(echo "$hdr" | tr '|' ' ' | sed 's/^#//'), $forks forks and clones captured"
	printf "%-44s %8s %8s %8s %8s %10s %8s %7s\n" "" "p50 us" "p99 us" "max us" \
	       "floor99" "build s" "err." "steal"
	printf "%-44s %8.1f %8.1f %8.1f %8.1f %10.3f %7.3f%% %6.1f%%\n" \
	       "-s 1, start lateness, duration error" \
	       "$(echo "$m50" | median)" "$mp99" "$(echo "$mmax" | median)" \
	       "$(echo "$mf99" | median)" "$(echo "$mspan" | median)" "$merr_med" \
	       "$(echo "$msteal" | median)"
	echo "  (err.: the replay's span from the first operation to its end against the captured one;"
	echo "   floor99: p99 of sleep-floor -f on the file, a thread per timeline, run after each replay)"
} >> "$results"
target "many processes: duration error < $TARGET_ERR_PCT%" "$(printf %.3f%% "$merr_med")" \
       "$(verdict "$merr_med" "$TARGET_ERR_PCT" 'v < t')"
target "many processes: p99 lateness <= $TARGET_MANY_P99_US us" "$(printf "%.1f us" "$mp99")" \
       "$(verdict "$mp99" "$TARGET_MANY_P99_US" 'v <= t')"
fi

if runs_test memory; then
echo "== memory: peak RSS replaying $((MEM_SMALL * 4)) and $((MEM_LARGE * 4)) ops on 4 timelines, -s 0"
# Peak RSS in KiB of a replay of NAME (GNU time's %M).
peak_rss() {
	/usr/bin/time -f %M -o "$work/rss" "$bin" -q -r "$work/$1.replay" --reuse -D \
		-u root --allow-root > "$work/replay.out" 2>&1 || {
		cat "$work/replay.out" >&2
		echo "$0: replay of $1 failed" >&2
		exit 1
	}
	cat "$work/rss"
}
prepare memsmall 4 "$MEM_SMALL" 0
rss_small=$(peak_rss memsmall)
rm -f "$work/memsmall.replay"
prepare memlarge 4 "$MEM_LARGE" 0
rss_large=$(peak_rss memlarge)
rm -f "$work/memlarge.replay"
{
	printf "\n%-44s %8s\n" "" "peak RSS"
	printf "%-44s %6.1f MB\n" "replay of $((MEM_SMALL * 4)) ops" "$(ratio "$rss_small" 1024)"
	printf "%-44s %6.1f MB\n" "replay of $((MEM_LARGE * 4)) ops" "$(ratio "$rss_large" 1024)"
} >> "$results"
g=$(ratio "$rss_large" "$rss_small")
target "RSS at 4x the ops < ${TARGET_MEM_GROWTH}x" "$(printf %.2fx "$g")" \
       "$(verdict "$g" "$TARGET_MEM_GROWTH" 'v < t')"
fi

cat "$results"
printf "\n%-46s %-22s %s\n" "target" "measured" "result"
cat "$targets"
