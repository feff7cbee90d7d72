#!/bin/sh
# scheduler-loop.sh: the scheduler loop of the I/O Riot article, now a thin
# wrapper around ioriot-sweep (scripts/ioriot-sweep, installed to sbin),
# which changes only the devices under the replay's sandboxes, refuses the
# device of /, restores the schedulers on every exit and keeps one
# statistics file per scheduler:
#
#   ioriot-sweep --scheduler none,mq-deadline,kyber,bfq --runs 1 REPLAY DIR -- OPTION...
#
# This wrapper keeps the old interface: REPLAY DIR [IORIOT_OPTION...], with
# SCHEDULERS (default: none mq-deadline kyber bfq) and IORIOT_BIN from the
# environment; RUNS (default 1) replays per scheduler.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sweep=${IORIOT_SWEEP:-}
if [ -z "$sweep" ]; then
	if [ -x "$here/../../scripts/ioriot-sweep" ]; then
		sweep=$here/../../scripts/ioriot-sweep
	else
		sweep=ioriot-sweep
	fi
fi
if [ $# -lt 2 ]; then
	echo "usage: ${0##*/} REPLAY DIR [IORIOT_OPTION...]" >&2
	exit 2
fi
replay=$1
dir=$2
shift 2
exec "$sweep" --scheduler "${SCHEDULERS:-none mq-deadline kyber bfq}" \
	--runs "${RUNS:-1}" "$replay" "$dir" -- "$@"
