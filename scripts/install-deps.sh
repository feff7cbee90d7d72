#!/bin/sh
# Installs the Debian packages ioriot needs to build and test, if any are
# missing.  Called by `make check`, `make demo` and `make bench`, so that on a
# fresh Debian 12 machine one command does all set-up.  `make fuzz` calls it
# as `install-deps.sh fuzz`, which adds clang's libFuzzer runtime; `make
# check-vm` as `install-deps.sh vm`, which adds qemu and debootstrap for the
# guest of scripts/vm/.  Installs nothing when
# everything is present; fails with a clear message when a package is missing
# and we are not root or have no apt-get.
set -eu

packages="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev check
pkg-config systemtap strace time e2fsprogs xfsprogs tar git sqlite3"
packages="$packages gnuplot-nox graphite-carbon python3-whisper"	# series tests, ioriot-plot
packages="$packages python3-prometheus-client"	# --prom parsed by its parser
packages="$packages fio"	# round trip of Linux AIO (libaio engine)
packages="$packages liburing-dev"	# io_uring replay (linked statically)
packages="$packages libzstd-dev zstd"	# compressed capture logs (static), zstdcat
packages="$packages libjansson-dev"	# reading statistics JSON (static)
packages="$packages attr postgresql"	# round trips: setfattr/getfattr, PostgreSQL
packages="$packages python3"	# round trip: a Python writer through mmap
packages="$packages debhelper lintian"	# make deb, and its test
packages="$packages chromium"	# the HTML report opened headless (test_htmlreport)
packages="$packages ansible-core"	# the fleet playbook (docs/examples/ansible)
packages="$packages cppcheck"	# make check-static
if [ "${1:-}" = fuzz ]; then
	packages="$packages libclang-rt-14-dev"	# libFuzzer for clang 14
fi
if [ "${1:-}" = vm ]; then
	packages="$packages qemu-system-x86 debootstrap"	# make check-vm
fi

missing=""
for pkg in $packages; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done

[ -z "$missing" ] && exit 0

echo "install-deps: missing Debian packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (sudo make ...) or install them by hand" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: no apt-get here; install the packages by hand" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
