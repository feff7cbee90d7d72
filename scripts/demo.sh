#!/bin/sh
# The demo behind `sudo make demo`.  As root it captures a small mail archive
# workload (hashed directories, new messages written as .tmp and renamed,
# messages read back, some deleted) with the eBPF probe, then generates the
# replay file from the capture and shows its summary and the start of each
# section.  Without root, or where the probe cannot load, it generates from
# a synthetic capture instead (bench/mkcapture).  As root the workload runs
# on a tmpfs mounted for the demo, so the replay's sandbox is on that tmpfs
# too: init and replay (-R) then run there, never on the host's own mounts.
#   usage: scripts/demo.sh IORIOT_BIN MKCAPTURE_BIN
set -eu

bin=$1
mkcapture=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-demo.XXXXXX")
mnt=$work/mnt
mail=$mnt/mail
cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The workload: 16 hashed directories, 8 messages each.
workload() {
	sleep 2		# the probe is attached by then
	for h in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
		mkdir -p "$mail/$h$h"
		for n in 1 2 3 4 5 6 7 8; do
			head -c $((n * 1024)) /dev/urandom > "$mail/$h$h/$n.tmp"
			mv "$mail/$h$h/$n.tmp" "$mail/$h$h/$n.eml"
		done
	done
	for f in "$mail"/*/*.eml; do
		cat "$f" > /dev/null
	done
	rm -f "$mail"/*/8.eml
	sync
}

mkdir -p "$mnt"
captured=no
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64m,mode=0755 ioriot-demo "$mnt"; then
	mkdir -p "$mail"
	echo "== 1. capture: ioriot -c io.capture --include $mail (a mail archive workload)"
	workload &
	if "$bin" -c "$work/io.capture" --include "$mail" --duration 6; then
		captured=yes
	fi
	wait
fi
if [ $captured = no ]; then
	echo "== 1. capture (synthetic, no root or no BPF): a mail archive workload, 50000 events"
	"$mkcapture" -l 50000 -f 2000 -t 40 -p 8 "$work/io.capture"
fi
grep -v '^#' "$work/io.capture" | grep -v 'o=cwd' | head -n 6 | cut -c 1-160
echo "   ..."
echo
echo "== 2. generate: ioriot -c io.capture -r io.replay -n demo -u nobody"
"$bin" -c "$work/io.capture" -r "$work/io.replay" -n demo -u nobody
echo
echo "== the replay file: header, INIT section, operations"
sed -n '1,/^#INIT$/p' "$work/io.replay" | cut -c 1-160
sed -n '/^#INIT$/,/^#OPS$/p' "$work/io.replay" | sed -n '2,6p'
echo "   ..."
sed -n '/^#OPS$/,$p' "$work/io.replay" | sed -n '2,9p' | cut -c 1-160
echo "   ..."
tail -n 1 "$work/io.replay"
echo
if [ $captured = no ]; then
	echo "Init and replay need root and a capture on the demo tmpfs; see README.md."
	exit 0
fi
rm -rf "$mail"		# the test host starts without the workload's files
echo "== 3. init + replay: ioriot -R io.replay -S stats.txt (sandbox on the demo tmpfs)"
"$bin" -R "$work/io.replay" -S "$work/stats.txt"
echo
echo "== the sandbox after the replay"
find "$mnt/.ioriot/demo" | head -n 8
echo "   ... $(find "$mnt/.ioriot/demo" -type f | wc -l) files"
