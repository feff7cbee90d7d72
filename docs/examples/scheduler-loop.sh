#!/bin/sh
# scheduler-loop.sh: replay a test once per I/O scheduler and compare the
# runs, the loop of the I/O Riot article.  It finds the block devices that
# hold the replay file's sandboxes; for each scheduler of SCHEDULERS that
# every one of them offers, it sets the scheduler on all of them and runs
# `ioriot -R REPLAY -S DIR/SCHEDULER.json`.  At the end (also after an
# error or Ctrl-C) each device gets its scheduler back, and
# `ioriot --compare` prints the runs side by side.
#
# A partition stands for its disk, whose queue it uses.  A loop device has
# a queue of its own and is set, not the device under its backing file;
# device-mapper and md devices usually offer only "none".
set -eu

prog=${0##*/}
ioriot=${IORIOT_BIN:-ioriot}
schedulers=${SCHEDULERS:-none mq-deadline kyber bfq}

usage() {
	cat >&2 <<EOF
usage: $prog REPLAY DIR [IORIOT_OPTION...]
Replay REPLAY with ioriot -R once per I/O scheduler, write DIR/SCHEDULER.json
for each, and compare them.  IORIOT_OPTIONs go to every ioriot -R (for
example -u USER, -s 1, -D).  Needs root.
Environment: IORIOT_BIN (default: ioriot), SCHEDULERS (default: $schedulers).
EOF
	exit 2
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

# The mountpoints of the sandboxes: each sandbox= item of the header is
# <mountpoint>/.ioriot/NAME, with bytes escaped as %XX.
mountpoints() {
	LC_ALL=C awk '
	function decode(s,    out, i, c) {
		out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "%") {
				c = sprintf("%c", hex[toupper(substr(s, i + 1, 2))])
				i += 2
			}
			out = out c
		}
		return out
	}
	BEGIN {
		for (i = 0; i < 256; i++)
			hex[sprintf("%02X", i)] = i
	}
	/^#\|/ {
		n = split($0, item, "|")
		for (i = 2; i <= n; i++) {
			if (item[i] !~ /^sandbox=/)
				continue
			dir = decode(substr(item[i], 9))
			sub(/\/\.ioriot\/[^\/]*$/, "", dir)
			print dir == "" ? "/" : dir
		}
		next
	}
	/^#/ || /^$/ { next }
	{ exit }
	' "$1"
}

# The scheduler file of the block device holding the directory $1.
scheduler_file() {
	dir=$1
	while [ ! -e "$dir" ]; do
		dir=$(dirname "$dir")
	done
	majmin=$(findmnt -n -r -o MAJ:MIN -T "$dir") ||
		die "$1: no mount found"
	sys=/sys/dev/block/$majmin
	if [ ! -e "$sys" ]; then
		# btrfs and the like report an anonymous device number.
		src=$(findmnt -n -r -o SOURCE -T "$dir")
		case $src in
		/dev/*) sys=/sys/class/block/$(basename "$(readlink -f "$src")") ;;
		*) die "$1: on $src, not on a block device" ;;
		esac
	fi
	[ -e "$sys" ] || die "$1: no block device found"
	sys=$(cd -P "$sys" && pwd)
	if [ -e "$sys/partition" ]; then
		sys=${sys%/*}
	fi
	[ -w "$sys/queue/scheduler" ] ||
		die "$1: ${sys##*/} has no I/O scheduler to set (needs root)"
	echo "$sys/queue/scheduler"
}

# The scheduler in use: the [bracketed] word.
current() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$1"
}

# True if every device offers scheduler $1.
offered() {
	for q in $queues; do
		awk -v s="$1" '{
			for (i = 1; i <= NF; i++) {
				w = $i
				gsub(/[][]/, "", w)
				if (w == s)
					found = 1
			}
		} END { exit !found }' "$q" || return 1
	done
}

set_scheduler() {
	for q in $queues; do
		echo "$1" 2>/dev/null > "$q" || die "cannot set $1 in $q"
		[ "$(current "$q")" = "$1" ] || die "$q did not take $1"
	done
}

restore() {
	for entry in $saved; do
		echo "${entry#*=}" 2>/dev/null > "${entry%%=*}" ||
			echo "$prog: cannot restore ${entry#*=} in ${entry%%=*}" >&2
	done
}

[ $# -ge 2 ] || usage
case $1 in -*) usage ;; esac
replay=$1
dir=$2
shift 2
[ -r "$replay" ] && [ -f "$replay" ] || die "cannot read $replay"

case $ioriot in
*/*) ioriot=$(cd "$(dirname "$ioriot")" && pwd)/${ioriot##*/} ;;
esac

mounts=$(mountpoints "$replay")
[ -n "$mounts" ] || die "$replay: no sandbox= line in the header"
queues=
set -f
ifs=$IFS
IFS='
'
for m in $mounts; do
	q=$(scheduler_file "$m")
	case " $queues " in
	*" $q "*) ;;
	*) queues="$queues $q" ;;
	esac
done
IFS=$ifs
set +f

runs=
for s in $schedulers; do
	offered "$s" && runs="$runs $s"
done
[ -n "$runs" ] || die "no scheduler of '$schedulers' is offered by every device"

mkdir -p "$dir"
saved=
for q in $queues; do
	saved="$saved $q=$(current "$q")"
done
trap restore EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

names=
for s in $runs; do
	set_scheduler "$s"
	echo "$prog: scheduler $s on" $(printf '%s\n' $queues |
		sed 's,/queue/scheduler$,,; s,.*/,,')
	"$ioriot" -R "$replay" -S "$dir/$s.json" "$@"
	names="$names $s.json"
done
restore
saved=
# In DIR, so the names are scheduler names, without blanks.
cd "$dir"
"$ioriot" --compare $names
