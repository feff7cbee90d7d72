#!/bin/sh
# Boots the check-vm guest (scripts/vm/image.sh) once per kernel and runs
# scripts/vm/checks.sh in it: the eBPF capture tests, and the SystemTap
# ones with the module built for that kernel.
#
#   run.sh VMDIR KERNEL...      e.g. run.sh .output/vm 6.1 5.10
#
# Environment: IORIOT_BIN, CHECK_BIN (the test runner), WORKLOADS (the
# directory of the built workloads), TESTDATA (tests/data); VM_ACCEL=tcg or
# kvm to choose (default: kvm if a guest really boots with it here, else
# tcg; scripts/vm/boot.sh); VM_TIMEOUT seconds per boot (default 1200).
#
# A guest that runs out of time is booted once more: under TCG with two
# vCPUs the 5.10 guest hung for good now and then (3 of about 12 runs),
# both vCPUs looping where the kernel patches code it runs (boot.sh gives
# it one vCPU since).
#
# Per kernel, a fresh VMDIR/share/KERNEL holds copies of the binaries, the
# workloads, the test data, the kernel's ioriot.ko (if built) and
# checks.sh; the guest mounts it over 9p, writes its log and its status
# there, and powers off.  The root image is used with -snapshot: the guest's
# writes never reach it.  Exits 0 if every guest's checks passed.
set -eu

vmdir=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
timeout=${VM_TIMEOUT:-1200}

acc=$("$here/boot.sh" --accel "$vmdir")
fail=0
summary=
for k in "$@"; do
	kd=$vmdir/kernels/$k
	share=$vmdir/share/$k
	rm -rf "$share"
	mkdir -p "$share"
	cp "$IORIOT_BIN" "$share/ioriot"
	cp "$CHECK_BIN" "$share/check_ioriot"
	cp -r "$WORKLOADS" "$share/workloads"
	cp -r "$TESTDATA" "$share/testdata"
	cp "$here/checks.sh" "$share/checks.sh"
	[ -f "$kd/ioriot.ko" ] && cp "$kd/ioriot.ko" "$share/ioriot.ko"
	echo "check-vm: kernel $(cat "$kd/release") ($acc)"
	start=$(date +%s)
	st=0
	VM_ACCEL=$acc "$here/boot.sh" "$vmdir" "$k" "$share" "$timeout" || st=$?
	if [ "$st" = 124 ]; then
		echo "check-vm: kernel $k: the guest hung (${timeout}s); booting it once more"
		tail -20 "$share/guest.log" 2>/dev/null || true
		rm -f "$share/guest.log" "$share/status"
		st=0
		VM_ACCEL=$acc "$here/boot.sh" "$vmdir" "$k" "$share" "$timeout" || st=$?
	fi
	if [ -f "$share/guest.log" ]; then
		cat "$share/guest.log"
	else
		tail -40 "$share/console.log"
	fi
	case $st in
	124) why="timed out after ${timeout}s" ;;
	125) why="the guest wrote no status (see $share/console.log)" ;;
	*) why="status $st" ;;
	esac
	echo "check-vm: kernel $k: $why, $(( $(date +%s) - start )) s"
	[ "$st" = 0 ] || fail=1
	# What failed (and what passed only the second time), once more
	# at the very end, where a log's tail shows it.
	summary="$summary
check-vm: kernel $k: $why"
	for f in retried failures; do
		[ -s "$share/$f" ] || continue
		summary="$summary
check-vm: kernel $k, $f:
$(sed 's/^/  /' "$share/$f")"
	done
done
echo "$summary"
exit $fail
