#!/bin/sh
# check-flags.sh: builds ioriot as others will, with warnings as errors:
# -O1 -g, -O3, -Os, Debian's dpkg-buildflags (hardening, -O2, fortify) and
# clang, each into its own output directory under $1 (default
# .output/flags).  Called by `make check-flags`, which CI runs: a
# maybe-uninitialized or a format warning one compiler or level finds and
# another does not fails here, not in a distribution's build.
set -eu

out=${1:-.output/flags}
jobs=$(nproc 2>/dev/null || echo 2)
failed=

# build NAME MAKE-ARGS...: the binary in $out/NAME; prints the result.
build() {
	name=$1
	shift
	if make -s -j"$jobs" OUTPUT="$out/$name" WERROR=1 "$@" \
		"$out/$name/ioriot" > "$out/$name.log" 2>&1; then
		echo "check-flags: $name: ok"
	else
		echo "check-flags: $name: FAILED" >&2
		sed -n '1,40p' "$out/$name.log" >&2
		failed="$failed $name"
	fi
}

mkdir -p "$out"
build O1 CFLAGS="-O1 -g"
build O3 CFLAGS="-O3"
build Os CFLAGS="-Os"
if command -v dpkg-buildflags >/dev/null 2>&1; then
	build dpkg CFLAGS="$(dpkg-buildflags --get CFLAGS)" \
		CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)" \
		LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
else
	echo "check-flags: dpkg: skipped, no dpkg-buildflags"
fi
build clang CC=clang
[ -z "$failed" ] || { echo "check-flags: failed:$failed" >&2; exit 1; }
