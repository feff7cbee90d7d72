#!/bin/sh
# fleet.sh: the fleet playbook (docs/examples/ansible/fleet.yml) timed step
# by step against N "hosts" on this machine (ansible_connection=local), each
# a tmpfs, working directory and test name of its own, with a writer loop on
# each mount during the capture.  Run as root (mounts, capture).
#
#   bench/fleet.sh BIN OUTPUT_DIR [N ...]        (default N: 2 4 8)
#
# Prints, per N: the seconds each step took (capture less its 3 s, generate,
# replay less the wait for the common start, gather), the ops replayed, and
# the start spread and worst skew from the merged statistics.  The ansible
# forks stay at their default, 5: beyond, the hosts are reached in batches.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BIN OUTPUT_DIR [N ...]" >&2; exit 2; }
bin=$(realpath "$1")
outdir=$2
shift 2
[ $# -gt 0 ] || set -- 2 4 8
book=$(dirname "$(realpath "$0")")/../docs/examples/ansible/fleet.yml
command -v ansible-playbook >/dev/null || { echo "$0: no ansible-playbook" >&2; exit 1; }
mkdir -p "$outdir"
scratch=$(mktemp -d "$(realpath "$outdir")/bench-fleet.XXXXXX")
chmod 755 "$scratch"	# the test user reaches the mounts
loops=""
cleanup() {
	for p in $loops; do kill "$p" 2>/dev/null || true; done
	for m in "$scratch"/*/*/m; do umount "$m" 2>/dev/null || true; done
	rm -rf "$scratch"
}
trap cleanup EXIT INT TERM
export ANSIBLE_LOCAL_TEMP="$scratch/tmp" ANSIBLE_REMOTE_TEMP="$scratch/tmp"
export ANSIBLE_ASYNC_DIR="$scratch/tmp" ANSIBLE_NOCOLOR=1 LC_ALL=C.UTF-8
export ANSIBLE_RETRY_FILES_ENABLED=0
delay=20

now() { date +%s.%N; }
# Run the playbook's step $2 for inventory $1, its output in $3; on failure
# show the output and stop.
step() {
	ansible-playbook -i "$1" --tags "$2" "$book" >"$3" 2>&1 || {
		tail -30 "$3" >&2
		exit 1
	}
}
secs() { awk "BEGIN { print $2 - $1 }"; }

echo "hosts  capture-3s  generate  replay-wait  gather  ops  spread_ms  worst_skew_ms"
for n in "$@"; do
	run="$scratch/n$n"
	mkdir -p "$run"
	inv="$run/inventory.ini"
	for group in capture test; do
		echo "[$group]"
		i=1
		while [ $i -le "$n" ]; do
			echo "h$i ioriot_dir=$run/h$i/d test_name=h$i" \
			     "capture_args='[\"--include\", \"$run/h$i/m\"]'" \
			     "replay_args='[\"-D\"]'"
			i=$((i + 1))
		done
	done >"$inv"
	cat >>"$inv" <<EOT
[all:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
ioriot_become=false
ioriot_bin=$bin
fleet_dir=$run/fleet
capture_seconds=3
test_user=nobody
start_delay=$delay
EOT
	i=1
	loops=""
	while [ $i -le "$n" ]; do
		mkdir -p "$run/h$i/m"
		mount -t tmpfs -o size=64m ioriot-bench "$run/h$i/m"
		m="$run/h$i/m"
		sh -c "mkdir -p $m/w; while :; do dd if=/dev/zero of=$m/w/f bs=4096 count=16 conv=fsync status=none; cat $m/w/f >/dev/null; rm $m/w/f; sleep 0.02; done" &
		loops="$loops $!"
		i=$((i + 1))
	done
	t0=$(now)
	step "$inv" capture "$run/capture.log"
	t1=$(now)
	for p in $loops; do kill "$p" 2>/dev/null || true; done
	loops=""
	step "$inv" generate "$run/generate.log"
	t2=$(now)
	step "$inv" replay "$run/replay.log"
	t3=$(now)
	step "$inv" gather "$run/gather.log"
	t4=$(now)
	python3 - "$run/fleet/fleet.json" "$n" \
		"$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" \
		"$(secs "$t2" "$t3")" "$(secs "$t3" "$t4")" "$delay" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
n, cap, gen, rep, gat, delay = sys.argv[2], *map(float, sys.argv[3:8])
sa = f.get("start_at") or {}
print("%5s  %10.1f  %8.1f  %11.1f  %6.1f  %d  %9.3f  %13.3f" % (
    n, cap - 3, gen, rep - delay, gat, f["performed_ioops"],
    sa.get("spread_ns", 0) / 1e6, abs(sa.get("skew_ns", 0)) / 1e6))
PY
	for m in "$run"/h*/m; do umount "$m"; done
done
