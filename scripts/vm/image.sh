#!/bin/sh
# Builds the guest of `make check-vm` into DIR (the Makefile's .output/vm):
#
#   DIR/root.img              ext4 image of a Debian 12 (bookworm) minbase
#                             system with systemtap-runtime, the libraries of
#                             ioriot and the test runner, and two kernels:
#   DIR/kernels/NAME/{vmlinuz,initrd.img,release}
#                             "6.1" (Debian 12's linux-image-amd64) and
#                             "5.10" (Debian 11's, from bullseye-security)
#   DIR/kernels/NAME/headers  the kernel's linux-headers, unpacked (not
#                             installed), for `stap -r` on the host
#
# Everything comes from Debian's package mirror (VM_MIRROR, default
# deb.debian.org): debootstrap for the root file system, apt-get download
# for the kernels and headers.  The image is made with `mkfs.ext4 -d` from
# the directory tree, without mounting anything.  Run as root (debootstrap
# and dpkg chroot into the tree).  Builds in DIR/tmp and moves the results
# into place at the end, so an interrupted build leaves no half image.
set -eu

mkdir -p "$1"
dir=$(cd "$1" && pwd)		# apt wants absolute paths
mirror=${VM_MIRROR:-http://deb.debian.org/debian}
security=${VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# What the guest runs: the init (util-linux, kmod for 9p), staprun, the
# libraries ioriot and check_ioriot link dynamically, and the tools of the
# test workloads and the tests (mkfs for loop-mounted images).
packages=linux-image-amd64,systemtap-runtime,libelf1,zlib1g,libsubunit0
packages=$packages,kmod,util-linux,e2fsprogs,xfsprogs,procps

here=$(cd "$(dirname "$0")" && pwd)
tmp=$dir/tmp
rm -rf "$tmp"
mkdir -p "$tmp/debs"
root=$tmp/rootfs

say() { printf '  %-8s %s\n' VM "$*"; }

say "debootstrap bookworm ($mirror)"
debootstrap --variant=minbase --include="$packages" bookworm "$root" \
	"$mirror" > "$tmp/debootstrap.log" 2>&1 || {
	tail -20 "$tmp/debootstrap.log" >&2
	exit 1
}

# A private apt state for bullseye, so the host's own lists stay as they are.
apt11=$tmp/apt11
mkdir -p "$apt11/lists/partial" "$apt11/cache/archives/partial"
: > "$apt11/status"
cat > "$apt11/sources.list" <<EOF
deb [signed-by=$keyring] $mirror bullseye main
deb [signed-by=$keyring] $security bullseye-security main
EOF
apt11() {
	"$@" -o Dir::State::Lists="$apt11/lists" -o Dir::Cache="$apt11/cache" \
		-o Dir::State::status="$apt11/status" \
		-o Dir::Etc::SourceList="$apt11/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent -o APT::Sandbox::User=root
}
say "apt-get update (bullseye, private lists)"
apt11 apt-get -q update > "$tmp/apt11.log" 2>&1 || {
	tail -20 "$tmp/apt11.log" >&2
	exit 1
}

# The package an amd64 meta package points to, with its version.
image_of() {
	"$@" depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# Kernel 6.1: the one debootstrap installed; its version from the tree.
k61=$(chroot "$root" dpkg-query -W -f='${Package}\n' 'linux-image-[0-9]*' |
	head -1)
v61=$(chroot "$root" dpkg-query -W -f='${Version}' "$k61")
abi61=${k61#linux-image-}
abi61=${abi61%-amd64}
# Kernel 5.10: bullseye's current one.
k510=$(apt11 image_of apt-cache)
v510=$(apt11 apt-cache show "$k510" | awk '/^Version:/ { print $2; exit }')
[ -n "$k61" ] && [ -n "$v61" ] && [ -n "$k510" ] && [ -n "$v510" ] || {
	echo "image.sh: kernel packages not found (6.1: $k61 $v61;" \
	     "5.10: $k510 $v510)" >&2
	exit 1
}
abi510=${k510#linux-image-}
abi510=${abi510%-amd64}

say "download $k510 $v510 and the headers of both kernels"
(
	cd "$tmp/debs"
	apt-get -q -o APT::Sandbox::User=root download \
		"linux-headers-$abi61-amd64=$v61" \
		"linux-headers-$abi61-common=$v61" "linux-kbuild-6.1=$v61"
	apt11 apt-get -q download "$k510=$v510" \
		"linux-headers-$abi510-amd64=$v510" \
		"linux-headers-$abi510-common=$v510" "linux-kbuild-5.10=$v510"
) > "$tmp/download.log" 2>&1 || {
	tail -20 "$tmp/download.log" >&2
	exit 1
}

say "install $k510 into the guest"
cp "$tmp/debs/${k510}_"*.deb "$root/tmp/k510.deb"
chroot "$root" dpkg -i /tmp/k510.deb > "$tmp/dpkg.log" 2>&1 || {
	tail -20 "$tmp/dpkg.log" >&2
	exit 1
}
rm -f "$root/tmp/k510.deb"

# The guest's init is the check-vm script on the shared directory, started
# by scripts/vm/guest-init; no systemd.
install -m 0755 "$here/guest-init" "$root/sbin/ioriot-vm-init"
echo ioriot-vm > "$root/etc/hostname"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

for k in 6.1:$abi61 5.10:$abi510; do
	name=${k%%:*}
	abi=${k#*:}
	kd=$tmp/kernels/$name
	mkdir -p "$kd/headers"
	cp "$root/boot/vmlinuz-$abi-amd64" "$kd/vmlinuz"
	cp "$root/boot/initrd.img-$abi-amd64" "$kd/initrd.img"
	echo "$abi-amd64" > "$kd/release"
	for deb in "linux-headers-$abi-amd64" "linux-headers-$abi-common" \
		   "linux-kbuild-$name"; do
		dpkg-deb -x "$tmp/debs/${deb}_"*.deb "$kd/headers"
	done
	# The headers include their common part by its installed path, and
	# 5.10's name the compiler it was built with, gcc-10, which Debian 12
	# lacks: the common part by a relative path, and Debian 12's gcc.
	build=$kd/headers/usr/src/linux-headers-$abi-amd64
	sed -i 's|^include /usr/src/|include ../|' "$build/Makefile"
	sed -i 's|)gcc-[0-9]*$|)gcc|' "$build/.kernelvariables"
	# include/config holds thousands of empty files, make's dependency
	# marks, which stap walks again and again (minutes of system time):
	# only the files with content stay (auto.conf, kernel.release).
	find "$build/include/config" -type f -empty -delete
	find "$build/include/config" -mindepth 1 -type d -empty -delete
done

say "root.img (mkfs.ext4 -d)"
mkfs.ext4 -q -F -L ioriot-vm -d "$root" "$tmp/root.img" 3G > /dev/null

# Debian's System.map is a placeholder; stap needs the kernel's symbols to
# place its kprobes.  Each kernel boots once and writes /proc/kallsyms (its
# own symbols, without the modules') as the headers' System.map.
accel=$("$here/boot.sh" --accel "$tmp")
for name in 6.1 5.10; do
	say "boot $name ($accel) for its symbols"
	share=$tmp/share-$name
	mkdir -p "$share"
	echo 'grep -v "\[" /proc/kallsyms > /share/System.map && echo 0 > /share/status' \
		> "$share/checks.sh"
	VM_ACCEL=$accel "$here/boot.sh" "$tmp" "$name" "$share" 600 || {
		echo "image.sh: kernel $name did not boot:" >&2
		tail -20 "$share/console.log" >&2
		exit 1
	}
	mv "$share/System.map" \
	   "$tmp/kernels/$name/headers/usr/src/linux-headers-$(cat "$tmp/kernels/$name/release")/System.map"
done

rm -rf "$dir/kernels" "$dir/root.img"
mv "$tmp/kernels" "$dir/kernels"
mv "$tmp/accel" "$dir/accel"
mv "$tmp/root.img" "$dir/root.img"
rm -rf "$tmp"
say "guest ready: $(cat "$dir/kernels/6.1/release"), $(cat "$dir/kernels/5.10/release")"
