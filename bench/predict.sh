#!/bin/bash
# predict.sh: how well a replay predicts a real program's time on other
# storage.  Four real programs, each doing a fixed amount of work, run on
# five storage configurations built here on loop devices:
#   C1  ext4 on a disk-backed loop device with direct I/O (the image in the
#       scratch directory on the disk)
#   C2  C1 under a cgroup v1 blkio throttle of 1,000 read / 300 write IOPS
#   C3  xfs on a loop device whose image is in a tmpfs
#   C4  C2 with the loop device's scheduler set to mq-deadline
#   C5  C2 with the loop device's scheduler set to bfq (kyber where the
#       kernel has no bfq; the table names the one used)
# Each program runs once untimed on each configuration first (a warm-up:
# a first run can be slow), then is captured once
# on C1 (PREDICT_CAPTURE) with the eBPF probe (only the fixed
# work, only I/O below the C1 mount), the capture is generated into a
# replay file, and on every configuration the program runs PREDICT_RUNS
# times and the replay (init + replay, -R, into the configuration's mount
# by --map) as often with each pacing, interleaved run by run.  Printed per
# program, configuration and pacing: the program's time (median and
# spread = (max - min) / median), the replay's (median), the error
# |replay - program| / program and the time ratio to C1 predicted by the
# replay beside the program's own; per pacing the mean and median error,
# the worst cell, how many ratios are on the correct side of 1 and how
# many pairs of configurations the replay ranks as the program does (the
# pairs the program separates beyond its noise: its run times on the two
# do not overlap).  Every run is a row of OUTPUT_DIR/predict.tsv, the table is
# also in OUTPUT_DIR/predict.txt.  Needs root; exits non-zero only if
# something fails to run.
#
#   bench/predict.sh BIN OUTPUT_DIR
#
# BIN is the ioriot binary under test.  Environment:
#   PREDICT_RUNS       runs of each program and replay per configuration (5)
#   PREDICT_PROGRAMS   a subset of "pgbench sqlite fio tar" (all)
#   PREDICT_PACINGS    a subset of "s0 s1 think": -s 0, -s 1, -s 1 --think
#                      (all; think only if BIN's --help offers --think)
#   PREDICT_CONFIGS    a subset of "C1 C2 C3 C4 C5" (all; C1 always runs)
#   PREDICT_CAPTURE    the configuration each program is captured on (C1)
set -eu
set -o pipefail

RUNS=${PREDICT_RUNS:-5}
PROGRAMS=${PREDICT_PROGRAMS:-"pgbench sqlite fio tar"}
PACINGS=${PREDICT_PACINGS:-"s0 s1 think"}
CONFIGS=${PREDICT_CONFIGS:-"C1 C2 C3 C4 C5"}
CAPTURE_CFG=${PREDICT_CAPTURE:-C1}
READ_IOPS=1000			# C2, C4, C5: the blkio throttle
WRITE_IOPS=300
IMAGE_MB=2048			# each loop device's image
RAM_SIZE=2600m			# the tmpfs holding C3's image and the tarball
PG_SCALE=1			# pgbench -i -s
PG_CLIENTS=4			# pgbench -c, -j 2
PG_TX=250			# pgbench -t: transactions per client
SQL_TX=150			# sqlite: transactions of SQL_ROWS inserts
SQL_ROWS=20
FIO_IOS=2000			# fio: number_ios, 4 KiB random O_DIRECT
FIO_THINK_US=1000		# fio: thinktime
FIO_SIZE_MB=64			# fio: the file
TAR_DIRS=120			# tar: directories of TAR_FILES files,
TAR_FILES=100			# 512 B to 32 KiB each
READ_AHEAD_KB=128		# both loop devices' read-ahead

[ $# -eq 2 ] || { echo "usage: $0 BIN OUTPUT_DIR" >&2; exit 2; }
bin=$1
# A bare name would be looked up in PATH: it means the file here.
case $bin in
*/*) ;;
*) bin=./$bin ;;
esac
[ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 1; }
outdir=$2
if [ "$(id -u)" -ne 0 ]; then
	echo "prediction benchmark skipped: it needs root (sudo make bench-predict)"
	exit 0
fi
case $RUNS in
''|*[!0-9]*|0) echo "$0: PREDICT_RUNS must be a positive number" >&2; exit 2 ;;
esac
for p in $PROGRAMS; do
	case $p in
	pgbench|sqlite|fio|tar) ;;
	*) echo "$0: PREDICT_PROGRAMS: unknown program $p" >&2; exit 2 ;;
	esac
done
for c in $CONFIGS; do
	case $c in
	C[1-5]) ;;
	*) echo "$0: PREDICT_CONFIGS: unknown configuration $c" >&2; exit 2 ;;
	esac
done
# C1 first: the capture and every ratio are taken there.
CONFIGS="C1 $(echo "$CONFIGS" | tr ' ' '\n' | awk '/^C[2-5]$/' | sort -u | tr '\n' ' ')"
case " $CONFIGS " in
*" $CAPTURE_CFG "*) ;;
*) echo "$0: PREDICT_CAPTURE: $CAPTURE_CFG is none of $CONFIGS" >&2; exit 2 ;;
esac
pacings='' left_out=''
help=$("$bin" --help 2>&1 || true)	# not piped: grep -q could end it early
for p in $PACINGS; do
	case $p in
	s0|s1) pacings="$pacings $p" ;;
	think)
		if echo "$help" | grep -q -- --think; then
			pacings="$pacings think"
		else
			left_out="think (this ioriot has no --think)"
			echo "predict: $bin has no --think: that pacing is left out"
		fi ;;
	*) echo "$0: PREDICT_PACINGS: unknown pacing $p" >&2; exit 2 ;;
	esac
done
# The capture records the futex waits and wakes that order threads
# (--think's sync=) where this ioriot can: --include alone is a whole-host
# capture, which leaves them out by default.
sync_opt=
if echo "$help" | grep -q -- --sync; then
	sync_opt=--sync
fi
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
need="mkfs.ext4 mkfs.xfs losetup runuser sqlite3 fio tar"
case " $PROGRAMS " in *" pgbench "*) need="$need $PG_BIN/initdb $PG_BIN/pg_ctl pgbench psql" ;; esac
for c in $need; do
	command -v "$c" > /dev/null || {
		echo "$0: $c missing (make deps installs it)" >&2
		exit 1
	}
done
blkio=/sys/fs/cgroup/blkio
[ -w "$blkio/cgroup.procs" ] || {
	echo "$0: no cgroup v1 blkio controller at $blkio" >&2
	exit 1
}

mkdir -p "$outdir"
tsv=$outdir/predict.tsv
txt=$outdir/predict.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-bench-predict.XXXXXX")
chmod 755 "$work"		# the postgres user reaches its socket and data
disk=$work/disk			# C1, C2, C4, C5
xfs=$work/xfs			# C3
ram=$work/ram			# the tmpfs: C3's image, the tarball
cg=$blkio/ioriot-predict.$$
disk_loop='' xfs_loop='' sched_saved='' cap_pid='' pg_dir='' cap_mnt=''
port=$((50000 + $$ % 10000))	# only a socket name: listen_addresses is empty
sock=$work/pgsock

# Undo everything the benchmark made, in reverse order, whatever failed
# before: capture, postgres, what else still runs in the cgroup (a replay
# a signal interrupted: only the benchmark's own processes are there),
# throttle and cgroup, scheduler, mounts, loop devices, the scratch
# directory (only once nothing is mounted in it).  Never fails.
cleanup() {
	set +e
	local pid mounted=
	if [ -n "$cap_pid" ]; then
		kill -INT "$cap_pid" 2>/dev/null
		wait "$cap_pid" 2>/dev/null
	fi
	[ -n "$pg_dir" ] && pg_stop
	if [ -d "$cg" ]; then
		for pid in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			kill -TERM "$pid" 2>/dev/null
		done
		sleep 0.5
		for pid in $(cat "$cg/cgroup.procs" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
			echo "$pid" > "$blkio/cgroup.procs" 2>/dev/null
		done
		[ -z "$disk_loop" ] || throttle 0 0
		rmdir "$cg" || echo "$0: could not remove cgroup $cg" >&2
	fi
	if [ -n "$disk_loop" ] && [ -n "$sched_saved" ]; then
		scheduler "$sched_saved"
	fi
	unmount "$xfs" || mounted=yes
	unmount "$disk" || mounted=yes
	# The loop devices before the tmpfs that holds an image.
	[ -n "$xfs_loop" ] && losetup -d "$xfs_loop"
	[ -n "$disk_loop" ] && losetup -d "$disk_loop"
	unmount "$ram" || mounted=yes
	if [ -n "$mounted" ]; then
		echo "$0: $work left in place: something is still mounted in it" >&2
	else
		rm -rf "$work"
	fi
}

# Unmount MNT if it is mounted, trying for 10 s: a loop device's release
# and udev's probing after an unmount take a moment.  Returns 1 (with a
# message) if it stays mounted.
unmount() {
	local i
	for i in $(seq 1 100); do
		mountpoint -q "$1" || return 0
		umount "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$0: could not unmount $1" >&2
	return 1
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Run COMMAND... in the benchmark's blkio cgroup (its children too).
in_cgroup() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

# Set the blkio throttle of the disk's loop device to READ and WRITE IOPS
# (0: none).
throttle() {
	local dev
	dev=$(cat "/sys/block/${disk_loop#/dev/}/dev")
	echo "$dev $1" > "$cg/blkio.throttle.read_iops_device"
	echo "$dev $2" > "$cg/blkio.throttle.write_iops_device"
}

# Set the I/O scheduler of the disk's loop device to NAME.
scheduler() {
	echo "$1" > "/sys/block/${disk_loop#/dev/}/queue/scheduler"
}

# Make configuration CONFIG current: throttle and scheduler; print its
# mount.
apply_config() {
	case $1 in
	C1) throttle 0 0; scheduler "$sched_saved"; echo "$disk" ;;
	C2) throttle "$READ_IOPS" "$WRITE_IOPS"; scheduler "$sched_saved"; echo "$disk" ;;
	C3) throttle 0 0; scheduler "$sched_saved"; echo "$xfs" ;;
	C4) throttle "$READ_IOPS" "$WRITE_IOPS"; scheduler mq-deadline; echo "$disk" ;;
	C5) throttle "$READ_IOPS" "$WRITE_IOPS"; scheduler "$C5_SCHED"; echo "$disk" ;;
	esac
}

# The one-line description of configuration CONFIG.
config_text() {
	case $1 in
	C1) echo "ext4, loop on a disk image, direct I/O, scheduler $sched_saved" ;;
	C2) echo "C1 + blkio throttle $READ_IOPS read / $WRITE_IOPS write IOPS" ;;
	C3) echo "xfs, loop on an image in a tmpfs" ;;
	C4) echo "C2, scheduler mq-deadline" ;;
	C5) echo "C2, scheduler $C5_SCHED" ;;
	esac
}

# Run COMMAND... with its output in $work/cmd.out, which is printed if it
# fails; then fail with message WHAT (the first argument).
quietly() {
	local what=$1
	shift
	"$@" > "$work/cmd.out" 2>&1 || {
		cat "$work/cmd.out" >&2
		echo "$0: $what failed" >&2
		exit 1
	}
}

# Set loop device $1's read-ahead to READ_AHEAD_KB, a disk's default (a
# loop device may start with megabytes: a read throttle would then see few
# requests for a whole file read).
read_ahead() {
	echo "$READ_AHEAD_KB" > "/sys/block/${1#/dev/}/queue/read_ahead_kb"
}

# Write dirty data and drop the page cache, as -R does before a replay.
# sync until a sync writes nothing more (at most 8), as ioriot does before
# a replay: one sync can leave ext4 metadata dirty that the program's own
# sync would then pay for.
drop_caches() {
	local i before after
	before=$(awk '{ s += $10 } END { print s }' /proc/diskstats)
	for i in 1 2 3 4 5 6 7 8; do
		sync
		after=$(awk '{ s += $10 } END { print s }' /proc/diskstats)
		[ "$after" = "$before" ] && break
		before=$after
	done
	echo 3 > /proc/sys/vm/drop_caches
}

# Seconds since the epoch with microseconds.
now() {
	echo "$EPOCHREALTIME"
}

# --- the programs: NAME_start MNT (before its runs on a configuration),
# NAME_prepare MNT (before each run, not timed), NAME_run MNT (the fixed
# work, timed, in the cgroup), NAME_stop (after the configuration's runs),
# NAME_text (what it does).

# Run COMMAND... as the postgres user.
as_postgres() {
	runuser -u postgres -- "$@"
}

# A PostgreSQL cluster in MNT/pg (made once per mount, autovacuum off and
# no timed checkpoint, so the work stays fixed), started in the cgroup:
# its server processes do the I/O.
pgbench_start() {
	pg_dir=$1/pg
	if [ ! -d "$pg_dir" ]; then
		mkdir "$pg_dir"
		chown postgres: "$pg_dir"
		chmod 700 "$pg_dir"
		quietly initdb as_postgres "$PG_BIN/initdb" -D "$pg_dir" -A trust --no-sync
		cat >> "$pg_dir/postgresql.conf" <<-EOF
		listen_addresses = ''
		unix_socket_directories = '$sock'
		port = $port
		autovacuum = off
		checkpoint_timeout = 1h
		max_wal_size = 4GB
		EOF
		sync
	fi
	quietly "pg_ctl start" in_cgroup runuser -u postgres -- \
		"$PG_BIN/pg_ctl" -D "$pg_dir" -w -l "$sock/pg.log" start
}

# pgbench's tables made again, a checkpoint: every run starts alike.
pgbench_prepare() {
	quietly "pgbench -i" as_postgres pgbench -i -q -s "$PG_SCALE" -h "$sock" -p "$port" postgres
	quietly checkpoint as_postgres psql -q -h "$sock" -p "$port" -c CHECKPOINT postgres
}

# The timed work: the clients' transactions, done by the server.
pgbench_run() {
	in_cgroup runuser -u postgres -- pgbench -n -c "$PG_CLIENTS" -j 2 -t "$PG_TX" \
		-h "$sock" -p "$port" postgres
}

# After a configuration's runs: the cluster stopped.
pgbench_stop() {
	pg_stop
}

# Stop the running cluster, if any (also called by cleanup).
pg_stop() {
	[ -n "$pg_dir" ] || return 0
	as_postgres "$PG_BIN/pg_ctl" -D "$pg_dir" -w -m fast stop > /dev/null 2>&1 || true
	pg_dir=
}

# What pgbench's fixed work is, for the table.
pgbench_text() {
	echo "PostgreSQL: pgbench -c $PG_CLIENTS -j 2 -t $PG_TX (scale $PG_SCALE, after pgbench -i and a checkpoint)"
}

# sqlite needs nothing per configuration.
sqlite_start() { :; }

# A fresh directory: the database is made by the timed run.
sqlite_prepare() {
	rm -rf "$1/sqlite"
	mkdir "$1/sqlite"
}

# The SQL script: a table with an index, SQL_TX transactions of SQL_ROWS
# inserts each, queries, an update and a delete (rollback journal, the
# default: each commit syncs the journal and the database).
sqlite_script() {
	awk -v tx="$SQL_TX" -v rows="$SQL_ROWS" 'BEGIN {
		srand(1)
		print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);"
		print "CREATE INDEX t_k ON t(k);"
		for (i = 0; i < tx; i++) {
			print "BEGIN;"
			for (j = 0; j < rows; j++)
				printf "INSERT INTO t(k, v) VALUES(%d, hex(randomblob(%d)));\n",
				       int(rand() * 100000), 50 + int(rand() * 200)
			print "COMMIT;"
		}
		for (i = 0; i < 20; i++)
			printf "SELECT count(*), sum(length(v)) FROM t WHERE k BETWEEN %d AND %d;\n",
			       i * 5000, i * 5000 + 2500
		print "SELECT k, count(*) FROM t GROUP BY k % 97 ORDER BY 2 DESC LIMIT 5;"
		print "BEGIN; UPDATE t SET v = upper(v) WHERE k % 7 = 0; COMMIT;"
		print "BEGIN; DELETE FROM t WHERE k % 5 = 0; COMMIT;"
		print "SELECT count(*) FROM t;"
	}'
}

# The timed work: sqlite3 runs the script on a new database.
sqlite_run() {
	in_cgroup sqlite3 -batch -init /dev/null "$1/sqlite/test.db" < "$work/sqlite.sql"
}

# Nothing of sqlite's runs on after its runs.
sqlite_stop() { :; }

# What sqlite's fixed work is, for the table.
sqlite_text() {
	echo "sqlite3: $SQL_TX transactions of $SQL_ROWS inserts, 22 queries, an update, a delete"
}

# fio's file, made once per mount.
fio_start() {
	[ -f "$1/fio.data" ] && return 0
	quietly "fio's file" dd if=/dev/urandom of="$1/fio.data" bs=1M \
		count="$FIO_SIZE_MB" conv=fsync
}

# The file stays from run to run: fio only reads and overwrites it.
fio_prepare() { :; }

# The timed work: one fio job, its random offsets the same every run.
fio_run() {
	in_cgroup fio --name=predict --filename="$1/fio.data" --size="${FIO_SIZE_MB}m" \
		--rw=randrw --rwmixread=50 --bs=4k --direct=1 --ioengine=psync \
		--thinktime="$FIO_THINK_US" --number_ios="$FIO_IOS" \
		--randrepeat=1 --randseed=42 --output=/dev/null
}

# Nothing of fio's runs on after its runs.
fio_stop() { :; }

# What fio's fixed work is, for the table.
fio_text() {
	echo "fio: $FIO_IOS random 4 KiB O_DIRECT reads and writes (50/50, psync) in a ${FIO_SIZE_MB} MiB file, thinktime $FIO_THINK_US us"
}

# The tarball, copied once per mount: tar reads it there, so its reads
# are the configuration's too (the throttle holds for a caller's reads).
tar_start() {
	[ -f "$1/tree.tar" ] && return 0
	quietly "tar's tarball" dd if="$ram/tree.tar" of="$1/tree.tar" bs=1M conv=fsync
}

# An empty directory to unpack into.
tar_prepare() {
	rm -rf "$1/tarx"
	mkdir "$1/tarx"
}

# Unpack the tarball on the mount (its pages were dropped), then syncfs.
tar_run() {
	in_cgroup sh -c 'tar -xf "$1" -C "$2" && sync -f "$2"' sh "$1/tree.tar" "$1/tarx"
}

# Nothing of tar's runs on after its runs.
tar_stop() { :; }

# What tar's fixed work is, for the table.
tar_text() {
	echo "tar: tar -x of $((TAR_DIRS * TAR_FILES)) files ($(du -m "$ram/tree.tar" | cut -f1) MB) in $TAR_DIRS directories from a tarball on the mount, then sync -f"
}

# The tarball of TAR_DIRS directories of TAR_FILES files with random
# contents and sizes, in the tmpfs.
make_tarball() {
	local d f src=$ram/src
	mkdir "$src"
	for d in $(seq 1 "$TAR_DIRS"); do
		mkdir "$src/d$d"
		for f in $(seq 1 "$TAR_FILES"); do
			head -c $((512 + (d * 7919 + f * 104729) % 32257)) /dev/urandom \
				> "$src/d$d/f$f.c"
		done
	done
	tar -cf "$ram/tree.tar" -C "$src" .
	rm -rf "$src"
}

# --- runs

# Append a row to the TSV: program, config, what (program, captured, or a
# pacing), run, seconds, operations, differing results.
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$tsv"
}

# Run program PROG once on MNT (prepared, caches dropped) and print its
# seconds.
time_program() {
	local prog=$1 mnt=$2 t0 t1
	"${prog}_prepare" "$mnt" > /dev/null
	drop_caches
	t0=$(now)
	"${prog}_run" "$mnt" > "$work/prog.out" 2>&1 || {
		cat "$work/prog.out" >&2
		echo "$0: $prog failed" >&2
		exit 1
	}
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'
}

# Capture one run of PROG on the configuration current, its mount MNT
# (everything below it) into $work/PROG.capture, record its time, and
# generate $work/PROG.replay from the operations that began during the run
# (copies of both in OUTPUT_DIR).
# One run of PROG on MNT, neither timed nor captured: a program's first
# run on a configuration can be slower than the ones after it (sqlite3 on
# C1: 0.53 s, then 0.40-0.44 s), and a captured first run is replayed
# with all of its slowness by -s 1 and --think.
warm_up() {
	"${1}_prepare" "$2" > /dev/null
	drop_caches
	"${1}_run" "$2" > "$work/prog.out" 2>&1 || {
		cat "$work/prog.out" >&2
		echo "$0: $1 failed (the warm-up run)" >&2
		exit 1
	}
}

capture_program() {
	local prog=$1 mnt=$2 t0 t1 secs i
	warm_up "$prog" "$mnt"
	"${prog}_prepare" "$mnt"
	drop_caches
	rm -f "$work/$prog.capture"	# a capture keeps an existing log
	"$bin" -v -c "$work/$prog.capture" --include "$mnt" $sync_opt \
		> "$work/capture.out" 2> "$work/capture.err" &
	cap_pid=$!
	# The capture is ready when its /proc snapshot is written.
	for i in $(seq 1 300); do
		grep -q 'recording into' "$work/capture.err" && break
		kill -0 "$cap_pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'recording into' "$work/capture.err" || {
		cat "$work/capture.err" >&2
		echo "$0: the capture did not start" >&2
		exit 1
	}
	t0=$(now)
	"${prog}_run" "$mnt" > "$work/prog.out" 2>&1 || {
		cat "$work/prog.out" >&2
		echo "$0: $prog failed under capture" >&2
		exit 1
	}
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	sleep 0.2
	kill -INT "$cap_pid"
	wait "$cap_pid" || {
		cat "$work/capture.err" >&2
		echo "$0: the capture of $prog failed" >&2
		exit 1
	}
	cap_pid=
	record "$prog" "$CAPTURE_CFG" captured 0 "$secs" - -
	# Only what began while the program ran, its times counted from its
	# start: a paced replay does not wait out the capture's start first.
	quietly "generate of $prog's capture" "$bin" -c "$work/$prog.capture" \
		-r "$work/$prog.replay" -n "predict-$prog" -u root \
		--from "@$t0" --to "@$t1"
	cp "$work/$prog.replay" "$outdir/predict-$prog.replay"
	cp "$work/$prog.capture" "$outdir/predict-$prog.capture"
	echo "  captured on $CAPTURE_CFG: ${secs} s; replay file: $(sed -n 3p "$work/$prog.replay" | tr '|' ' ' | sed 's/^#//')"
}

# Replay PROG's file on MNT with PACING (init + replay, caches dropped, in
# the cgroup) and print "SECONDS OPS DIFFER", or "NA - -" if it failed.
time_replay() {
	local prog=$1 mnt=$2 pacing=$3 json=$work/replay.json
	local -a opts
	case $pacing in
	s0) opts=(-s 0) ;;
	s1) opts=(-s 1) ;;
	think) opts=(-s 1 --think) ;;
	esac
	[ "$mnt" = "$cap_mnt" ] || opts+=(--map "$cap_mnt=$mnt")
	rm -rf "$mnt/.ioriot" "$json"
	if ! in_cgroup "$bin" -q -R "$work/$prog.replay" -u root --allow-root \
		-S "$json" "${opts[@]}" > "$work/replay.out" 2>&1; then
		cat "$work/replay.out" >&2
		echo "predict: replay of $prog on $mnt ($pacing) failed" >&2
		echo "NA - -"
		return 0
	fi
	awk -F'[:,]' '/"total_time_ns"/ { t = $2 + 0 } /"performed_ioops"/ { o = $2 + 0 }
		{ s = $0; while (match(s, /"differ": [0-9]+/)) {
			d += substr(s, RSTART + 10, RLENGTH - 10); s = substr(s, RSTART + RLENGTH) } }
		END { printf "%.4f %d %d\n", t / 1e9, o, d }' "$json"
	rm -rf "$mnt/.ioriot"
}

# All runs of PROG: the capture on CAPTURE_CFG, then per configuration
# its runs, each run of the program followed by one replay per pacing.
bench_program() {
	local prog=$1 cfg mnt i secs p r
	echo "== $prog: $("${prog}_text")"
	cap_mnt=$(apply_config "$CAPTURE_CFG")
	"${prog}_start" "$cap_mnt"
	capture_program "$prog" "$cap_mnt"
	# C1's runs go on with what the capture started there.
	[ "$CAPTURE_CFG" = C1 ] || "${prog}_stop"
	for cfg in $CONFIGS; do
		mnt=$(apply_config "$cfg")
		if [ "$cfg" != C1 ] || [ "$CAPTURE_CFG" != C1 ]; then
			"${prog}_start" "$mnt"
		fi
		[ "$cfg" = "$CAPTURE_CFG" ] || warm_up "$prog" "$mnt"
		printf '  %s:' "$cfg"
		for i in $(seq 1 "$RUNS"); do
			secs=$(time_program "$prog" "$mnt")
			record "$prog" "$cfg" program "$i" "$secs" - -
			printf ' %s' "$secs"
			for p in $pacings; do
				r=$(time_replay "$prog" "$mnt" "$p")
				# shellcheck disable=SC2086	# r is 3 fields
				record "$prog" "$cfg" "$p" "$i" $r
				printf ' %s=%s' "$p" "${r%% *}"
			done
		done
		echo
		"${prog}_stop"
	done
}

# --- the table, from the TSV

# Print the table and the summaries of the TSV: configurations CONFIGS,
# pacings PACINGS, programs PROGRAMS in that order (bench/predict-table.awk).
report() {
	awk -F'\t' -v configs="$1" -v pacings="$2" -v programs="$3" \
		-f "$(dirname "$0")/predict-table.awk" "$tsv"
}

# --- set-up

echo "ioriot prediction benchmark: $(nproc) CPUs, $RUNS runs, programs: $PROGRAMS; pacings:$pacings"
started=$(date +%s)
mkdir "$disk" "$xfs" "$ram"
mount -t tmpfs -o size="$RAM_SIZE" tmpfs "$ram"
# Written in full, not sparse: no run pays for the allocation of the
# image's blocks in the host's file system.
quietly "the disk image" dd if=/dev/zero of="$work/disk.img" bs=4M \
	count=$((IMAGE_MB / 4)) oflag=direct
disk_loop=$(losetup -f --show --direct-io=on "$work/disk.img")
read_ahead "$disk_loop"
quietly mkfs.ext4 mkfs.ext4 -q -F "$disk_loop"
mount "$disk_loop" "$disk"
truncate -s "${IMAGE_MB}M" "$ram/xfs.img"
xfs_loop=$(losetup -f --show --direct-io=on "$ram/xfs.img")
read_ahead "$xfs_loop"
quietly mkfs.xfs mkfs.xfs -q -f "$xfs_loop"
mount "$xfs_loop" "$xfs"
sched_saved=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/${disk_loop#/dev/}/queue/scheduler")
C5_SCHED=bfq
grep -qw bfq "/sys/block/${disk_loop#/dev/}/queue/scheduler" || C5_SCHED=kyber
for s in mq-deadline "$C5_SCHED"; do
	grep -qw "$s" "/sys/block/${disk_loop#/dev/}/queue/scheduler" || {
		echo "$0: ${disk_loop}: no scheduler $s" >&2
		exit 1
	}
done
mkdir "$cg"
mkdir "$sock"
chown postgres: "$sock" 2>/dev/null || true
case " $PROGRAMS " in *" sqlite "*) sqlite_script > "$work/sqlite.sql" ;; esac
case " $PROGRAMS " in *" tar "*) make_tarball ;; esac
printf 'program\tconfig\twhat\trun\tseconds\tops\tdiffer\n' > "$tsv"
for c in $CONFIGS; do
	echo "  $c: $(config_text "$c")"
done
echo "  disk loop $disk_loop (dio $(cat "/sys/block/${disk_loop#/dev/}/loop/dio")), tmpfs loop $xfs_loop (dio $(cat "/sys/block/${xfs_loop#/dev/}/loop/dio"))"

for prog in $PROGRAMS; do
	bench_program "$prog"
done

{
	echo "ioriot prediction benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $RUNS runs each, $("$bin" --version 2>&1 | head -1)"
	for c in $CONFIGS; do
		echo "  $c: $(config_text "$c")"
	done
	for prog in $PROGRAMS; do
		echo "  $prog: $("${prog}_text")"
	done
	echo "  pacings: s0 = -s 0, s1 = -s 1, think = -s 1 --think; each replay is -R (init, caches dropped, replay)"
	[ -z "$left_out" ] || echo "  left out: $left_out"
	echo "  program and replay: median seconds of $RUNS runs; spread = (max - min) / median;"
	echo "  error = |replay - program| / program; ratio = time on the config / time on C1"
	echo
	report "$CONFIGS" "$pacings" "$PROGRAMS"
	echo
	echo "  ratio side ok: configurations other than C1 whose replay ratio is on the same side of 1 as the program's"
	echo "  pairs ranked ok: pairs of configurations whose program run times do not overlap (min-max)"
	echo "  that the replay's medians order as the program's do"
	echo "  took $(( ($(date +%s) - started + 30) / 60 )) min; every run: $tsv"
} > "$txt"
echo
cat "$txt"
