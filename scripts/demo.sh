#!/bin/sh
# The demo behind `sudo make demo`: makes a sample capture of a small mail
# archive workload (bench/mkcapture), generates the replay file from it and
# shows the summary and the start of each section.  Capture and replay join
# the demo when they are built.
#   usage: scripts/demo.sh IORIOT_BIN MKCAPTURE_BIN
set -eu

bin=$1
mkcapture=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ioriot-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

echo "== 1. capture (sample): a mail archive workload, 50000 events, 40 threads"
"$mkcapture" -l 50000 -f 2000 -t 40 -p 8 "$work/io.capture"
grep -v '^#' "$work/io.capture" | head -n 6 | cut -c 1-160
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
echo "Init and replay of this file come with the replay engine; see README.md."
