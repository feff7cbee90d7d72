#!/bin/sh
# The demo behind `sudo make demo`.  As root, on two scratch file systems it
# makes (ext4 and xfs images on loop devices), it captures a mail archive
# workload with the eBPF probe: parallel deliveries into hashed directories
# (written as .tmp, fsynced, renamed to .eml, logged to an index on the other
# file system), parallel readers that stat and read messages, and an expunge
# that deletes some.  Then it analyses the capture, generates the replay
# file, replays it with -R as fast as possible and at the captured speed
# (each run's sandboxes are made anew on both file systems), prints both
# statistics, compares them, draws their time series and ends with
# report.html, one page of it all.  The results stay in OUT_DIR; the images
# and mounts are removed.  Without root, or where the probe or the loop
# devices are unavailable, it analyses and generates from a synthetic
# capture (bench/mkcapture) and stops there.
#   usage: scripts/demo.sh IORIOT_BIN MKCAPTURE_BIN OUT_DIR
set -eu

[ $# -eq 3 ] || { echo "usage: $0 IORIOT_BIN MKCAPTURE_BIN OUT_DIR" >&2; exit 2; }
bin=$1
mkcapture=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-demo.XXXXXX")
# The replay runs as nobody, and enters the sandboxes with nobody's rights.
chmod 755 "$work"
mail=$work/mail			# ext4: the messages
index=$work/index		# xfs: the delivery log
cleanup() {
	for m in "$mail" "$index"; do
		if mountpoint -q "$m"; then umount "$m"; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rm -rf "$out"
mkdir -p "$out"

# Make IMAGE.img of MB megabytes (sparse) with MKFS and mount it at DIR.
mount_image() {
	truncate -s "${3}M" "$1.img" &&
	$2 "$1.img" > "$work/mkfs.out" 2>&1 &&
	mkdir -p "$1" &&
	mount -o loop "$1.img" "$1"
}

# One delivery process: messages into hashed directories, each written as
# .tmp, fsynced, renamed to .eml and logged in the index.
deliver() {
	i=0
	while [ $i -lt 40 ]; do
		h=$(printf '%x%x' $(($1 % 16)) $((i % 16)))
		mkdir -p "$mail/$h"
		f="$mail/$h/$1-$i"
		dd if=/dev/urandom of="$f.tmp" bs=1k count=$((1 + i % 24)) \
			conv=fsync status=none
		mv "$f.tmp" "$f.eml"
		echo "$(date +%s) $1-$i $h" >> "$index/deliveries.log"
		i=$((i + 1))
	done
}

# One reader: stat and read the messages there are, a few times over.
read_mail() {
	for round in 1 2 3; do
		for f in "$mail"/*/*.eml; do
			[ -e "$f" ] || continue
			stat -c %s "$f" > /dev/null
			cat "$f" > /dev/null
		done
		sleep 0.2
	done
}

workload() {
	sleep 2		# the probe is attached by then
	for w in 1 2 3 4; do deliver $w & done
	read_mail &
	read_mail &
	wait
	rm -f "$mail"/*/*-3.eml "$mail"/*/*-7.eml	# expunge
	sync "$index/deliveries.log"
}

captured=no
if [ "$(id -u)" -eq 0 ] &&
   mount_image "$mail" "mkfs.ext4 -q -F" 64 &&
   mount_image "$index" "mkfs.xfs -q -f" 320; then	# xfs: 300 MB at least
	echo "== 1. capture: ioriot -c io.capture --include $mail --include $index"
	echo "   (4 parallel deliveries with fsync and rename, 2 readers with stat, an expunge)"
	workload &
	rm -f "$out/io.capture"	# a capture keeps an existing log
	if "$bin" -c "$out/io.capture" --include "$mail" --include "$index" \
		--duration 8; then
		captured=yes
	fi
	wait
fi
if [ $captured = no ]; then
	echo "== 1. capture (synthetic, no root, BPF or loop devices): a mail archive workload, 50000 events"
	"$mkcapture" -l 50000 -f 2000 -t 40 -p 8 "$out/io.capture"
fi
grep -v '^#' "$out/io.capture" | grep -v 'o=cwd' | head -n 6 | cut -c 1-160
echo "   ..."
echo
echo "== 2. analyze: ioriot --analyze io.capture --top 3"
"$bin" --analyze "$out/io.capture" --top 3
echo
echo "== 3. generate: ioriot -c io.capture -r io.replay -n demo -u nobody"
"$bin" -c "$out/io.capture" -r "$out/io.replay" -n demo -u nobody
echo
echo "== the replay file: header, INIT section, operations"
sed -n '1,/^#INIT$/p' "$out/io.replay" | cut -c 1-160
sed -n '/^#INIT$/,/^#OPS$/p' "$out/io.replay" | sed -n '2,6p'
echo "   ..."
sed -n '/^#OPS$/,$p' "$out/io.replay" | sed -n '2,9p' | cut -c 1-160
echo "   ..."
tail -n 1 "$out/io.replay"
echo
if [ $captured = no ]; then
	echo "Init and replay need root, BPF and loop devices; see docs/guide.md."
	echo "Files: $out"
	exit 0
fi
# The test host starts without the workload's files.
rm -rf "$mail"/* "$index"/*
for run in fast timed; do
	speed=0
	[ $run = timed ] && speed=1
	echo "== 4. init + replay: ioriot -R io.replay -s $speed -S $run.json --csv $run.csv --interval 0.1"
	"$bin" -R "$out/io.replay" -s "$speed" -S "$out/$run.json" \
		--csv "$out/$run.csv" --interval 0.1 | tee "$out/$run.txt"
	echo
done
echo "== the sandboxes after the replay"
for m in "$mail" "$index"; do
	echo "$m/.ioriot/demo: $(find "$m/.ioriot/demo" -type d | wc -l) directories," \
	     "$(find "$m/.ioriot/demo" -type f | wc -l) files"
done
echo
echo "== 5. compare: ioriot --compare fast.json timed.json"
"$bin" --compare "$out/fast.json" "$out/timed.json"
echo
if command -v gnuplot > /dev/null 2>&1; then
	echo "== 6. plot: ioriot-plot -o runs.png fast.csv timed.csv"
	"$here/ioriot-plot" -o "$out/runs.png" -t "ioriot demo" \
		"$out/fast.csv" "$out/timed.csv"
	echo
fi
echo "Files (the scratch file systems are gone):"
ls -l "$out"
echo
echo "== 7. report: ioriot --report report.html io.capture fast.json fast.csv timed.json timed.csv"
"$bin" --report "$out/report.html" "$out/io.capture" "$out/fast.json" \
	"$out/fast.csv" "$out/timed.json" "$out/timed.csv"
