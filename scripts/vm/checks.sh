#!/bin/sh
# The checks of `make check-vm`, run by the guest's init (guest-init) from
# the shared directory /share that scripts/vm/run.sh filled: the capture
# suite of the test runner, with the eBPF probe on this kernel and, where
# share/ioriot.ko was built for it, with the SystemTap module loaded by
# staprun, then round trips of programs captured with that module.
# A test case that fails is run once more (an emulated guest is slow and
# uneven; scripts/vm/run.sh boots a hung guest once more for the same
# reason): its first failure stays in the log and in /share/retried, which
# run.sh prints at the end.  Writes 0 to /share/status if the suites
# passed, else 1; the lines of the failures that stood go to
# /share/failures.
cd /share || exit 1
echo 1 > status
: > retried
: > failures

# run_suite NAME: the suite, then once more each test case of it that
# failed.  Exit status 0 if every case passed the first or second time.
run_suite() {
	CK_RUN_SUITE=$1 ./check_ioriot > "out.$1" 2>&1
	st=$?
	cat "out.$1"
	[ $st -eq 0 ] && return 0
	grep -E '^[^:]+:[0-9]+:[FE]:' "out.$1" > "failed.$1"
	cases=$(cut -d: -f4 "failed.$1" | sort -u)
	if [ -z "$cases" ]; then	# a crash, not a failed check
		tail -5 "out.$1" >> failures
		return $st
	fi
	st=0
	for c in $cases; do
		echo "guest: $1: test case $c failed; running it once more"
		grep ":[FE]:$c:" "failed.$1" | sed "s/^/$1 (first run): /" \
			>> retried
		CK_RUN_SUITE=$1 CK_RUN_CASE=$c ./check_ioriot > "out.$1.$c" 2>&1
		r=$?
		cat "out.$1.$c"
		if [ $r -ne 0 ]; then
			st=$r
			grep -E '^[^:]+:[0-9]+:[FE]:' "out.$1.$c" |
				sed "s/^/$1: /" >> failures
		fi
	done
	return $st
}

export IORIOT_BIN=/share/ioriot
export IORIOT_TESTDATA=/share/testdata
export IORIOT_WORKLOADS=/share/workloads
[ -f ioriot.ko ] && export IORIOT_STAP_MODULE=/share/ioriot.ko
# The tests' scratch directories on the guest's ext4 root (a snapshot the
# host drops): a 6.1 tmpfs refuses O_DIRECT, which the aio workload uses.
export TMPDIR=/var/tmp
# Emulated CPUs are slow: every test case gets ten times its time.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
# Nor the timing cases (tests/testutil.h), among them the fd race, which
# counts on the capture's 20 ms reorder window.
export CK_EXCLUDE_TAGS=timing

# The file system images of the tests; nothing else loads it.
modprobe loop || echo "guest: no loop devices: the tests on images skip"

echo "guest: $(./ioriot --version 2>&1 | head -1), kernel $(uname -r)"
start=$(cut -d' ' -f1 /proc/uptime)
run_suite capture
rc=$?
end=$(cut -d' ' -f1 /proc/uptime)
echo "guest: capture suite: exit $rc, from ${start} s to ${end} s of uptime"
# Programs captured with the SystemTap module, generated, replayed (and
# the replay captured with the probe), compared: the round trips whose
# programs the guest has and whose I/O the script captures.  Not flock:
# under emulation its replay sometimes meets the other process's lock
# where the capture did not (a failed EAGAIN more in the replay's capture).
if [ -f ioriot.ko ]; then
	export IORIOT_ROUNDTRIP_ONLY=tar,writers,symlinks,dd-direct,umask,cp-a
	run_suite roundtrip
	rt=$?
	end2=$(cut -d' ' -f1 /proc/uptime)
	echo "guest: roundtrip suite (SystemTap): exit $rt, from ${end} s to ${end2} s of uptime"
	[ $rt -eq 0 ] || rc=$rt
fi
[ $rc -eq 0 ] && echo 0 > status
exit 0
