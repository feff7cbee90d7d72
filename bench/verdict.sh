#!/bin/sh
# verdict.sh: does --compare's verdict hold?  (docs/benchmarks.md, Verdict)
#
#   bench/verdict.sh BIN OUTPUT_DIR [--quick]
#
# One storage setup on this host, an ext4 image on a loop device with its
# image on OUTPUT_DIR's disk and direct I/O (every fdatasync reaches the
# virtual disk), and one replay file of writes, fdatasyncs and reads.
#   A/A: ROUNDS times (20; 5 with --quick), ten runs on that setup, labelled
#        A1 and A2 in turn (interleaved, so that a change of the host's
#        load between runs hits both alike): every verdict naming a winner
#        is false.  Counted for the headline (total time) and for any
#        figure.
#   A/B: the setup against itself under a blkio throttle of 300 write IOPS
#        on the loop device (a cloud volume's cap; cgroup v1), --repeat 5
#        each: the verdict must name the unthrottled setup, with an interval
#        of the difference that excludes 0.
# Needs root (loop devices, mounts); everything lives under a scratch
# directory that is removed at exit, mounts and loop devices included.
set -eu

usage() {
	echo "usage: $0 BIN OUTPUT_DIR [--quick]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
bin=$1
outdir=$2
rounds=20
[ "${3:-}" = --quick ] && rounds=5
case $bin in */*) ;; *) bin=./$bin ;; esac
[ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "verdict: skipped, needs root for loop devices"
	exit 0
fi
mkdir -p "$outdir"
scratch=$(mktemp -d "$(cd "$outdir" && pwd)/bench-verdict.XXXXXX")
chmod 755 "$scratch"
disk_loop=
cgroup=/sys/fs/cgroup/blkio/ioriot-bench-verdict.$$

# Unmount and detach everything made here, then remove the scratch dir.
cleanup() {
	umount "$scratch/disk" 2>/dev/null || true
	[ -n "$disk_loop" ] && losetup -d "$disk_loop" 2>/dev/null || true
	rmdir "$cgroup" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mount_image NAME IMAGE DIRECT: an ext4 image of 64 MiB on a loop device
# mounted at $scratch/NAME; prints the loop device.
mount_image() {
	truncate -s 64M "$2"
	mkfs.ext4 -q -F "$2"
	loop=$(losetup --find --show --direct-io="$3" "$2")
	mkdir -p "$scratch/$1"
	mount "$loop" "$scratch/$1"
	echo "$loop"
}

disk_loop=$(mount_image disk "$scratch/disk.img" on)
mkdir "$cgroup"
echo "$(lsblk -dno MAJ:MIN "$disk_loop" | tr -d ' ') 300" \
	> "$cgroup/blkio.throttle.write_iops_device"

# The replay file: one thread appends 4 KiB and fdatasyncs 150 times, then
# reads the file back.
sb="$scratch/disk/.ioriot/v"
replay="$scratch/v.replay"
{
	echo "#|replay_version=1|name=v|user=nobody|"
	echo "#|sandbox=$sb|"
	echo "#INIT"
	echo "#OPS"
	echo "1 1:1 0 1000 - openat 3 vfd=1 path=$sb/f flags=0x41 mode=0644"
	awk -v n=150 'BEGIN {
		id = 2; t = 1000;
		for (i = 0; i < n; i++) {
			printf "%d 1:1 %d 1000 - write 4096 fd=1 count=4096\n", id++, t; t += 2000;
			printf "%d 1:1 %d 1000 - fdatasync 0 fd=1\n", id++, t; t += 2000;
		}
		printf "%d 1:1 %d 1000 - lseek 0 fd=1 off=0 whence=0\n", id++, t; t += 2000;
		for (i = 0; i < n; i++) {
			printf "%d 1:1 %d 1000 - read 4096 fd=1 count=4096\n", id++, t; t += 2000;
		}
		printf "%d 1:1 %d 1000 - close 0 fd=1\n", id++, t;
		printf "#END|ops=%d|\n", id - 1;
	}'
} > "$replay"

# runs LABEL N OUT [CGROUP]: N runs of the replay into OUT, in CGROUP.
runs() {
	(
		[ -z "${4:-}" ] || echo 0 > "$4/cgroup.procs"
		exec "$bin" -q -R "$replay" --repeat "$2" --label "$1" -S "$3"
	)
}

# verdict FILE...: "WINNER ANY" from --compare's JSON: the headline's
# winner (or -) and how many figures have a winner.
verdict() {
	"$bin" --compare --output-format json "$@" | python3 -c '
import json, sys
v = json.load(sys.stdin)["verdict"]
anyw = sum(1 for f in v["figures"] if f["winner"])
d, ci = v["difference"], v["ci"]
print(v["winner"] or "-", anyw, len(v["figures"]),
      "%.4f" % d if d is not None else "-",
      "%.4f" % ci[0] if ci[0] is not None else "-",
      "%.4f" % ci[1] if ci[1] is not None else "-")'
}

echo "verdict: $rounds A/A rounds of 5+5 interleaved runs on the disk-backed loop (direct I/O), then A/B"
false_head=0
false_any=0
r=1
start=$(date +%s)
while [ "$r" -le "$rounds" ]; do
	i=1
	while [ "$i" -le 5 ]; do
		runs A1 1 "$scratch/a1.$i.json"
		runs A2 1 "$scratch/a2.$i.json"
		i=$((i + 1))
	done
	set -- $(verdict "$scratch"/a[12].*.json)
	[ "$1" != - ] && false_head=$((false_head + 1))
	[ "$2" -gt 0 ] && false_any=$((false_any + 1))
	echo "verdict: A/A round $r: winner $1, figures with a winner $2 of $3, total time A2 vs A1 $4 ($5 .. $6)"
	r=$((r + 1))
done
echo "verdict: A/A false verdicts: headline (total time) $false_head of $rounds rounds; rounds with a winner in any figure $false_any of $rounds"
runs throttled 5 "$scratch/throttled.json" "$cgroup"
runs disk 5 "$scratch/disk.json"
set -- $(verdict "$scratch/throttled.json" "$scratch/disk.json")
echo "verdict: A/B 300 write IOPS vs unthrottled: winner $1 (total time $4 of the runner-up's, 95% interval $5 .. $6); figures with a winner $2 of $3"
"$bin" --compare "$scratch/throttled.json" "$scratch/disk.json" |
	sed -n '1,/^Verdict\|^No /p'
echo "verdict: $(( $(date +%s) - start )) s wall"
