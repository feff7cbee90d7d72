#!/bin/sh
# Runs the libFuzzer harnesses built by `make fuzz` (fuzz/*.c), one after
# the other, FUZZ_SECONDS each, and prints per harness the executions, the
# coverage (libFuzzer's cov: edges and ft: features at the end) and the
# crashes found.
#
#   scripts/fuzz.sh OUTDIR SECONDS NAME...
#
# Each harness OUTDIR/fuzz_NAME works on its own corpus OUTDIR/corpus/NAME,
# which is kept between runs and seeded every run with the fixtures of
# tests/data (copied: tests/data is never written) and the regression inputs
# of tests/data/fuzz/NAME.  Inputs that crash, leak, hang (over 10 s) or run
# out of memory go to OUTDIR/crashes/NAME/; the full output is in
# OUTDIR/NAME.log.  Exits 1 if any harness found something or did not run.
set -eu

[ $# -ge 3 ] || { echo "usage: $0 OUTDIR SECONDS NAME..." >&2; exit 2; }
out=$1 secs=$2
shift 2

# The seed files of harness $1, from tests/data.
seeds() {
	case $1 in
	caplog) ls tests/data/caplog/* tests/data/generate/*.capture \
		   tests/data/stap/*.capture ;;
	generate) ls tests/data/caplog/* tests/data/generate/*.capture ;;
	rlog) ls tests/data/generate/*.replay ;;
	esac 2>/dev/null || true
	[ -d "tests/data/fuzz/$1" ] && find "tests/data/fuzz/$1" -type f ! -name 'README*' || true
}

dict() {
	case $1 in
	caplog|generate) echo fuzz/caplog.dict ;;
	rlog) echo fuzz/rlog.dict ;;
	esac
}

found=0
report=""
for name in "$@"; do
	corpus=$out/corpus/$name crashes=$out/crashes/$name log=$out/$name.log
	mkdir -p "$corpus" "$crashes"
	for f in $(seeds "$name"); do
		cp "$f" "$corpus/seed-$(basename "$f")"
	done
	before=$(find "$crashes" -type f | wc -l)
	d=$(dict "$name")
	printf '  %-8s %s (%ss, corpus %s)\n' FUZZ "$name" "$secs" "$corpus"
	"$out/fuzz_$name" -max_total_time="$secs" -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		${d:+-dict="$d"} "$corpus" >"$log" 2>&1 || true
	after=$(find "$crashes" -type f | wc -l)
	new=$((after - before))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
	files=$(find "$corpus" -type f | wc -l)
	line=$(printf '%-9s %12s execs %8s/s  %-22s corpus %6s  crashes %s' \
		"$name" "${execs:-?}" "${rate:-?}" "${cov:-cov: ? ft: ?}" \
		"$files" "$new")
	[ "$new" -gt 0 ] && { found=1; line="$line -> $crashes/"; }
	[ -n "$execs" ] || { found=1; line="$line (did not run: see $log)"; }
	report="$report$line
"
done

echo
echo "Fuzzing, ${secs}s per harness (logs: $out/NAME.log):"
printf '%s' "$report"
if [ "$found" -ne 0 ]; then
	echo "Reproduce a crash with $out/fuzz_NAME FILE; once fixed, keep FILE in tests/data/fuzz/NAME/"
	exit 1
fi
