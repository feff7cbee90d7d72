# common.sh: what the benchmarks on synthetic capture logs share, sourced
# by bench/generate.sh and bench/analyze.sh.
#
#   bench_args "$@"
#
# Takes the arguments BIN OUTPUT_DIR [--quick] into $bin, $outdir and
# $quick (yes or empty); exits 2 with the usage otherwise.
#
#   bench_setup NAME BIN OUTPUT_DIR
#
# Checks the ioriot binary BIN (a bare name means the file here, not one
# in PATH) and OUTPUT_DIR/bench/mkcapture, and makes a scratch directory
# bench-NAME.* under OUTPUT_DIR that is removed at exit.  Sets $bin,
# $mkcapture and $scratch; exits 1 if a program is missing.
bench_args() {
	if { [ $# -ne 2 ] && [ $# -ne 3 ]; } ||
	   { [ $# -eq 3 ] && [ "$3" != --quick ]; }; then
		echo "usage: $0 BIN OUTPUT_DIR [--quick]" >&2
		exit 2
	fi
	bin=$1
	outdir=$2
	quick=
	[ $# -eq 2 ] || quick=yes
}

bench_setup() {
	bin=$2
	case $bin in
	*/*) ;;
	*) bin=./$bin ;;
	esac
	[ -x "$bin" ] || { echo "$0: $bin: not an executable" >&2; exit 1; }
	mkcapture=$3/bench/mkcapture
	[ -x "$mkcapture" ] || {
		echo "$0: $mkcapture missing: run make bench" >&2
		exit 1
	}
	mkdir -p "$3"
	scratch=$(mktemp -d "$3/bench-$1.XXXXXX" 2>/dev/null || mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
