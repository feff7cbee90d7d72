#!/bin/sh
# Builds the SystemTap module of SCRIPT for a check-vm guest kernel, on the
# host, with that kernel's headers as scripts/vm/image.sh unpacked them:
#
#   stap-module.sh KDIR SCRIPT STAP_OPTIONS...    writes KDIR/ioriot.ko
#
# Debian's 6.1 and 5.10 kernels got the 6.11 task_work_cancel() (it takes
# a callback_head and returns bool; the old one is task_work_cancel_func())
# in stable updates, which Debian 12's SystemTap 4.8 runtime does not know:
# for such a kernel the module is built with a copy of the runtime in
# KDIR/runtime that calls task_work_cancel_func().
set -eu

kdir=$(cd "$1" && pwd)
script=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
build=$kdir/headers/usr/src/linux-headers-$(cat "$kdir/release")
runtime=/usr/share/systemtap/runtime

if grep -qs 'task_work_cancel_func' \
	"$build"/../linux-headers-*-common/include/linux/task_work.h; then
	rm -rf "$kdir/runtime"
	cp -r "$runtime" "$kdir/runtime"
	sed -i -E 's/\btask_work_cancel\b/task_work_cancel_func/g' \
		"$kdir/runtime/stp_task_work.c"
	runtime=$kdir/runtime
fi
# stap finds the tracepoints' headers (kernel.trace probes) through the
# build tree's link to the kernel source, which Debian's headers lack: the
# common part of the headers has include/trace.
ln -sfn "../$(basename "$(ls -d "$build"/../linux-headers-*-common)")" "$build/source"
cd "$kdir"
rm -f ioriot.ko
stap -p4 -m ioriot -R "$runtime" -r "$build" "$@" "$script" > /dev/null
