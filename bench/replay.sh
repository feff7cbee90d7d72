#!/bin/bash
# replay.sh: the replay engine benchmarks.  Replay files written by mkreplay
# (openat + pread64 + close of a file per timeline) are initialised and
# replayed in a tmpfs mounted for the run:
#   1. engine overhead: one timeline as fast as possible (-s 0) against
#      syscall-loop doing the same syscalls; the replay's reader thread
#      parses the file beside the timeline's thread, so the replay also
#      runs with all its threads pinned to one CPU (its whole CPU cost);
#   2. scaling: the same number of operations on 1, 2 and 4 timelines, -s 0;
#      beside it syscall-loop on 2 files in 2 threads of one process and in
#      2 processes: how far the kernel lets these syscalls scale at all;
#   3. timing accuracy: 10k operations/s for 3 s at captured speed (-s 1)
#      on 1 and 4 timelines: start lateness and duration error; the 4
#      timelines also with --spin 1000 (no target: what a busy VM needs);
#   4. memory: peak RSS replaying 1 M and 4 M operations on 4 timelines,
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
# BIN is the ioriot binary; OUTPUT_DIR holds bench/mkreplay and
# bench/syscall-loop.
set -eu
set -o pipefail

RUNS=${RUNS:-5}			# runs of each test (median)
OVERHEAD_OPS=300000		# one timeline
LOOP_SECS=0.5			# syscall-loop run per overhead run
SCALE_OPS=600000		# in all, split over the timelines
PACE_RATE=10000			# ops/s in all
PACE_OPS=30000			# 3 s at PACE_RATE
TARGET_RATIO=0.8
TARGET_P99_US=100
TARGET_ERR_PCT=1
MEM_SMALL=250002		# ops per timeline, 4 timelines
MEM_LARGE=1000002
TARGET_MEM_GROWTH=1.25		# peak RSS at 4x the operations
TARGET_SCALE=1.1		# 2 timelines against 1: above run-to-run noise
SPIN_US=1000			# -s 1 on 4 timelines again with --spin: no target

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
for b in "$mkreplay" "$loop"; do
	[ -x "$b" ] || { echo "$0: $b missing: run make bench" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
	echo "replay benchmark skipped: it needs root (sudo make bench)"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-replay.XXXXXX")
cleanup() {
	umount "$work/mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$work/mnt"
mount -t tmpfs -o size=64m tmpfs "$work/mnt"
pin=""
pinned="not pinned"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
	pinned="pinned to CPU 0"
fi

# Init and replays run as root (--allow-root), as the syscall loop they are
# measured against does.
# Write replay file NAME (sandbox $work/mnt/.ioriot/NAME) with TIMELINES,
# OPS_PER_TIMELINE and RATE, and init its sandbox.  Each test has a name
# of its own and only reads, so one init serves all of its runs.
prepare() {
	local name=$1 file=$work/$1.replay

	"$mkreplay" "$work/mnt/.ioriot/$name" "$2" "$3" "$4" > "$file" || {
		echo "$0: mkreplay failed" >&2
		exit 1
	}
	"$bin" -q --allow-root -i "$file" > "$work/init.out" 2>&1 || {
		cat "$work/init.out" >&2
		echo "$0: init of $file failed" >&2
		exit 1
	}
}

# Replay NAME at speed SPEED (after PIN, a command prefix or "", and with
# the options in EXTRA, split at spaces) into $work/NAME.stats.  Every operation must have run and none may have
# failed, or the figures would measure something else.
replay() {
	local name=$1 speed=$2 stats=$work/$1.stats want ops differ

	rm -f "$stats"
	# shellcheck disable=SC2086	# EXTRA is split on purpose
	$3 "$bin" -q -r "$work/$name.replay" -D -u root --allow-root -s "$speed" ${4:-} \
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

# Operations per second of the last replay of NAME.
rate_of() {
	stat_of "Average ioops/s" "$work/$1.stats"
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

echo "ioriot replay benchmark: $(nproc) CPUs, $RUNS runs of each test"

echo "== engine overhead: 1 timeline, $OVERHEAD_OPS ops, -s 0; replay also $pinned"
prepare ovh 1 "$OVERHEAD_OPS" 0
file=$work/mnt/.ioriot/ovh/t0/file
loop_rates= ovh_rates= pin_rates= ovh_ratios= pin_ratios=
ovh_j0=$(cpu_jiffies)
for i in $(seq 1 "$RUNS"); do
	out=$("$loop" io "$file" "$LOOP_SECS") || {
		echo "$0: syscall-loop failed" >&2
		exit 1
	}
	lr=$(echo "$out" | awk '{ print $6 }')
	loop_rates="$loop_rates $lr"
	replay ovh 0 ""
	ovh_rates="$ovh_rates $(rate_of ovh)"
	ovh_ratios="$ovh_ratios $(ratio "$(rate_of ovh)" "$lr")"
	replay ovh 0 "$pin"
	pin_rates="$pin_rates $(rate_of ovh)"
	pin_ratios="$pin_ratios $(ratio "$(rate_of ovh)" "$lr")"
done
ovh_steal=$(steal_pct "$ovh_j0" "$(cpu_jiffies)")
loop_rate=$(echo "$loop_rates" | median)
ovh_rate=$(echo "$ovh_rates" | median)
pin_rate=$(echo "$pin_rates" | median)
ovh_ratio=$(echo "$ovh_ratios" | median)
pin_ratio=$(echo "$pin_ratios" | median)

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
ratio4=$(echo "$r4" | median)
ratiop2=$(echo "$rp2" | median)
ratiot2=$(echo "$rt2" | median)
scale1=$(echo "$s1" | median)
scale2=$(echo "$s2" | median)
scale4=$(echo "$s4" | median)
loopp1=$(echo "$lp1" | median)
loopp2=$(echo "$lp2" | median)
loopt1=$(echo "$lt1" | median)
loopt2=$(echo "$lt2" | median)

echo "== timing: $PACE_RATE ops/s for $((PACE_OPS / PACE_RATE)) s on 1 and 4 timelines, -s 1"
for n in 1 4; do
	prepare "pace$n" "$n" $((PACE_OPS / n)) "$PACE_RATE"
done
p50_1= p99_1= err_1= p50_4= p99_4= err_4= steal_1= steal_4=
p50_4s= p99_4s= err_4s= steal_4s=
for i in $(seq 1 "$RUNS"); do
	# 4s: the 4-timeline file with --spin $SPIN_US.
	for c in 1 4 4s; do
		n=${c%s}
		extra=
		[ "$c" = 4s ] && extra="--spin $SPIN_US"
		j0=$(cpu_jiffies)
		replay "pace$n" 1 "" "$extra"
		eval "steal_$c=\"\$steal_$c $(steal_pct "$j0" "$(cpu_jiffies)")\""
		stats=$work/pace$n.stats
		late=$(awk -F': ' '/^\tStart lateness p50\/p99\/max: / {
			sub(/ us$/, "", $2); split($2, v, "/"); print v[1] "/" v[2] }' "$stats")
		[ -n "$late" ] || { echo "$0: no start lateness in $stats" >&2; exit 1; }
		# The replay's duration from ops / (ops/s): more digits than
		# "Total time"; the captured one from the file's last op.
		err=$(awk -v ops="$(stat_of "Performed ioops" "$stats")" \
			  -v r="$(rate_of "pace$n")" \
			  '!/^#/ && NF >= 7 { cap = $3 + $4 }
			   END { d = ops / r - cap / 1e9; if (d < 0) d = -d
				 printf "%.4f", d * 100 / (cap / 1e9) }' "$work/pace$n.replay")
		eval "p50_$c=\"\$p50_$c ${late%/*}\""
		eval "p99_$c=\"\$p99_$c ${late#*/}\""
		eval "err_$c=\"\$err_$c $err\""
	done
done
for v in p50_1 p99_1 err_1 p50_4 p99_4 err_4 steal_1 steal_4 \
	 p50_4s p99_4s err_4s steal_4s; do
	eval "$v=\$(echo \"\$$v\" | median)"
done

echo "== memory: peak RSS replaying $((MEM_SMALL * 4)) and $((MEM_LARGE * 4)) ops on 4 timelines, -s 0"
# Peak RSS in KiB of a replay of NAME (GNU time's %M).
peak_rss() {
	/usr/bin/time -f %M -o "$work/rss" "$bin" -q -r "$work/$1.replay" -D \
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

awk -v lr="$loop_rate" -v orate="$ovh_rate" -v prate="$pin_rate" \
    -v ratio="$ovh_ratio" -v pratio="$pin_ratio" -v r2="$ratio2" -v r4="$ratio4" \
    -v rp2="$ratiop2" -v rt2="$ratiot2" \
    -v pinned="$pinned" -v s1="$scale1" -v s2="$scale2" \
    -v s4="$scale4" -v lp1="$loopp1" -v lp2="$loopp2" \
    -v lt1="$loopt1" -v lt2="$loopt2" -v a50="$p50_1" -v a99="$p99_1" -v ae="$err_1" \
    -v b50="$p50_4" -v b99="$p99_4" -v be="$err_4" -v tr="$TARGET_RATIO" \
    -v tp="$TARGET_P99_US" -v te="$TARGET_ERR_PCT" -v ms="$rss_small" \
    -v ml="$rss_large" -v nsmall="$((MEM_SMALL * 4))" \
    -v nlarge="$((MEM_LARGE * 4))" -v tm="$TARGET_MEM_GROWTH" \
    -v tsc="$TARGET_SCALE" -v osteal="$ovh_steal" -v as="$steal_1" \
    -v bs="$steal_4" -v c50="$p50_4s" -v c99="$p99_4s" -v ce="$err_4s" \
    -v cs="$steal_4s" -v spin="$SPIN_US" 'BEGIN {
	printf "\n%-44s %12s\n", "", "ops/s"
	printf "%-44s %12.0f\n", "syscall-loop (openat+pread64+close)", lr
	printf "%-44s %12.0f  (%.2fx the loop)\n", "replay, 1 timeline", orate, ratio
	printf "%-44s %11.1f%%\n", "  host steal during these runs", osteal
	printf "%-44s %12.0f  (%.2fx the loop)\n", "replay, 1 timeline, " pinned, prate,
	       pratio
	printf "%-44s %12.0f  (1.00x)\n", "scaling, 1 timeline", s1
	printf "%-44s %12.0f  (%.2fx)\n", "scaling, 2 timelines", s2, r2
	printf "%-44s %12.0f  (%.2fx)\n", "scaling, 4 timelines", s4, r4
	printf "%-44s %12.0f  (1.00x)\n", "syscall-loop, 1 process", lp1
	printf "%-44s %12.0f  (%.2fx)\n", "syscall-loop, 2 processes", lp2, rp2
	printf "%-44s %12.0f  (1.00x)\n", "syscall-loop, 1 thread of a process", lt1
	printf "%-44s %12.0f  (%.2fx)\n", "syscall-loop, 2 threads of one process", lt2,
	       rt2
	printf "\n%-44s %8s %8s %10s %7s\n", "-s 1", "p50 us", "p99 us", "dur. err.",
	       "steal"
	printf "%-44s %8.1f %8.1f %9.3f%% %6.1f%%\n", "start lateness, 1 timeline", a50,
	       a99, ae, as
	printf "%-44s %8.1f %8.1f %9.3f%% %6.1f%%\n", "start lateness, 4 timelines", b50,
	       b99, be, bs
	printf "%-44s %8.1f %8.1f %9.3f%% %6.1f%%\n",
	       "start lateness, 4 timelines, --spin " spin, c50, c99, ce, cs
	printf "\n%-44s %8s\n", "", "peak RSS"
	printf "%-44s %6.1f MB\n", sprintf("replay of %d ops", nsmall), ms / 1024
	printf "%-44s %6.1f MB\n", sprintf("replay of %d ops", nlarge), ml / 1024
	printf "\n%-36s %-16s %s\n", "target", "measured", "result"
	printf "%-36s %-16s %s\n", sprintf(">= %.1fx the syscall loop", tr),
	       sprintf("%.3fx", ratio), (ratio >= tr ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("p99 lateness <= %g us, 1 timeline", tp),
	       sprintf("%.1f us", a99), (a99 <= tp ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("p99 lateness <= %g us, 4 timelines", tp),
	       sprintf("%.1f us", b99), (b99 <= tp ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("duration error < %g%%, 1 timeline", te),
	       sprintf("%.3f%%", ae), (ae < te ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("duration error < %g%%, 4 timelines", te),
	       sprintf("%.3f%%", be), (be < te ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("2 timelines >= %gx 1 timeline", tsc),
	       sprintf("%.3fx", r2), (r2 >= tsc ? "PASS" : "MISS")
	printf "%-36s %-16s %s\n", sprintf("RSS at 4x the ops < %gx", tm),
	       sprintf("%.2fx", ml / ms), (ml / ms < tm ? "PASS" : "MISS")
}'
