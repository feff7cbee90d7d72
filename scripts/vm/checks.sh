#!/bin/sh
# The checks of `make check-vm`, run by the guest's init (guest-init) from
# the shared directory /share that scripts/vm/run.sh filled: the capture
# suite of the test runner, with the eBPF probe on this kernel and, where
# share/ioriot.ko was built for it, with the SystemTap module loaded by
# staprun.  Writes 0 to /share/status if the suite passed, else 1.
cd /share || exit 1
echo 1 > status

export IORIOT_BIN=/share/ioriot
export IORIOT_TESTDATA=/share/testdata
export IORIOT_WORKLOADS=/share/workloads
[ -f ioriot.ko ] && export IORIOT_STAP_MODULE=/share/ioriot.ko
# The tests' scratch directories on the guest's ext4 root (a snapshot the
# host drops): a 6.1 tmpfs refuses O_DIRECT, which the aio workload uses.
export TMPDIR=/var/tmp
# Emulated CPUs are slow: every test case gets ten times its time.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
# Nor the 20 ms reorder window that the fd race test counts on.
export CK_EXCLUDE_TAGS=timing

echo "guest: $(./ioriot --version 2>&1 | head -1), kernel $(uname -r)"
start=$(cut -d' ' -f1 /proc/uptime)
CK_RUN_SUITE=capture ./check_ioriot
rc=$?
end=$(cut -d' ' -f1 /proc/uptime)
echo "guest: capture suite: exit $rc, from ${start} s to ${end} s of uptime"
[ $rc -eq 0 ] && echo 0 > status
exit 0
