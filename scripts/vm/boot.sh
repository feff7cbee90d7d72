#!/bin/sh
# Boots the check-vm guest once: kernel KERNEL of VMDIR/kernels, the root
# image VMDIR/root.img with -snapshot (the guest's writes never reach it),
# and the host directory SHARE mounted over 9p, whose checks.sh the guest's
# init runs (scripts/vm/guest-init).  The console goes to SHARE/console.log.
#
#   boot.sh VMDIR KERNEL SHARE SECONDS
#
# Exits with the status the guest wrote to SHARE/status, 124 if it did not
# power off within SECONDS (qemu is killed), 125 if it wrote no status.
# The accelerator: VM_ACCEL (tcg or kvm), else the one `boot.sh --accel
# VMDIR` found: kvm if a guest really boots with it here, else tcg.
# VM_MEM: the guest's memory in MiB (2048).
set -eu

# The accelerator for VMDIR's guest: kvm if a guest boots to its init and
# powers off with it within 60 s, else tcg; found once per host kernel and
# qemu version and remembered in VMDIR/accel.
if [ "$1" = --accel ]; then
	vmdir=$2
	if [ -n "${VM_ACCEL:-}" ]; then
		echo "$VM_ACCEL"
		exit 0
	fi
	key="$(uname -r) $(qemu-system-x86_64 --version | head -1)"
	if [ -f "$vmdir/accel" ] && [ "$(sed -n 1p "$vmdir/accel")" = "$key" ]
	then
		sed -n 2p "$vmdir/accel"
		exit 0
	fi
	a=tcg
	if [ -w /dev/kvm ]; then
		probe=$vmdir/kvm-probe
		rm -rf "$probe"
		mkdir -p "$probe"
		echo 'echo 0 > /share/status' > "$probe/checks.sh"
		VM_ACCEL=kvm "$0" "$vmdir" 6.1 "$probe" 60 && a=kvm
		rm -rf "$probe"
	fi
	printf '%s\n%s\n' "$key" "$a" > "$vmdir/accel"
	echo "$a"
	exit 0
fi

vmdir=$1
kd=$vmdir/kernels/$2
share=$3
limit=$4
accel=${VM_ACCEL:-$("$0" --accel "$vmdir")}
rm -f "$share/status"
# Under TCG a guest gets one vCPU: with two it hung for good now and then
# (both vCPUs looping at a static key's or a probe's site just after the
# BPF probe or the SystemTap module was switched on, code the kernel
# patches while the other vCPU runs it: 5.10 first, then 6.1 in 2 of 5
# runs once the probe sat on the raw syscall tracepoints; the stack trace
# shows both in syscall_trace_enter, at the sys_enter tracepoint's key).
cpus=2
[ "$accel" = tcg ] && cpus=1

qemu-system-x86_64 -machine "q35,accel=$accel" -cpu max -m "${VM_MEM:-2048}" \
	-smp "$cpus" -nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$kd/vmlinuz" -initrd "$kd/initrd.img" \
	-drive "file=$vmdir/root.img,if=virtio,format=raw,snapshot=on" \
	-virtfs "local,path=$share,mount_tag=share,security_model=none,id=share" \
	-append "console=ttyS0 root=/dev/vda rw init=/sbin/ioriot-vm-init panic=-1 loglevel=5" \
	< /dev/null > "$share/console.log" 2>&1 &
qpid=$!
waited=0
while kill -0 $qpid 2>/dev/null; do
	if [ $waited -ge "$limit" ]; then
		kill $qpid 2>/dev/null || true
		wait $qpid 2>/dev/null || true
		exit 124
	fi
	sleep 1
	waited=$((waited + 1))
done
wait $qpid 2>/dev/null || true
exit "$(cat "$share/status" 2>/dev/null || echo 125)"
