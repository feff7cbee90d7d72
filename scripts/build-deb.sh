#!/bin/sh
# Builds the Debian package from a copy of the source tree, so that the
# package build's clean step (`make clean`) never touches the tree itself,
# then prints lintian's findings.
#
#   build-deb.sh DIR      copies the tree to DIR/ioriot-VERSION, builds
#                         DIR/ioriot_VERSION_ARCH.deb, exit status of the
#                         build (lintian errors fail it too)
set -eu
out=$1
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$src/VERSION")
tree="$out/ioriot-$version"

rm -rf "$tree"
mkdir -p "$tree"
# The files git knows (with uncommitted changes), else all but the build
# output.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && tar -cf - --null --no-recursion -T -) |
		tar -xf - -C "$tree"
else
	(cd "$src" && tar -cf - --exclude=./.output --exclude=./ioriot .) |
		tar -xf - -C "$tree"
fi
(cd "$tree" && dpkg-buildpackage -us -uc -b)
deb=$(ls "$out"/ioriot_"$version"_*.deb)
echo "build-deb: $deb"
# lintian: every finding printed; an error fails the build.
lintian --tag-display-limit 0 "$deb" | tee "$out/lintian.txt"
if grep -q '^E:' "$out/lintian.txt"; then
	echo "build-deb: lintian found errors" >&2
	exit 1
fi
