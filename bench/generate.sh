#!/bin/bash
# generate.sh: the generate benchmark.  Writes synthetic v4 and v3 capture
# logs with mkcapture and times `ioriot -c LOG -r REPLAY` on each in turns
# with awk splitting the same log's lines into fields (the cost of reading
# the bytes).  awk is pinned to one CPU when taskset allows; generate, which
# parses the log in a second thread, may use every CPU.  Prints lines/s of
# both, the ratio of their times (median of the interleaved pairs), the
# instructions per line (valgrind, if installed) and the peak RSS of a
# 10 M-line log with 200k files, against the targets.  A missed target is
# reported, not an error; a failing mkcapture or generate run is.
#
#   bench/generate.sh BIN OUTPUT_DIR [--quick]
#
# BIN is the ioriot binary; OUTPUT_DIR holds bench/mkcapture and gets the
# scratch directory.  --quick uses 100k-line logs and leaves out the 10 M
# one.
set -eu
set -o pipefail

RUNS=5
TARGET_RATIO=1.5		# generate's time / awk's, on the same log
TARGET_LPS=5000000
TARGET_RSS_MB=100		# the 10 M-line log
BIG_LINES=10000000
BIG_ARGS="-f 200000 -t 400 -p 40"
CG_LINES=100000			# the log the instructions are counted on

. "$(dirname "$0")/common.sh"
bench_args "$@"
lines=1000000
[ -z "$quick" ] || lines=100000
bench_setup generate "$bin" "$outdir"
replay=$scratch/io.replay
# The v3 log has no mount table: generate takes this one.
mounts=$scratch/mounts
printf '%s\n' '/dev/sda1 / ext4 rw 0 0' '/dev/sdb1 /data xfs rw 0 0' \
	'proc /proc proc rw 0 0' > "$mounts"

# Pin awk to CPU 0 if taskset exists and that CPU is ours to use.
pin=
pinned="awk not pinned"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	pin="taskset -c 0"
	pinned="awk pinned to CPU 0"
fi
timebin=
if [ -x /usr/bin/time ]; then
	timebin=/usr/bin/time
fi
have_ns=yes
case $(date +%N) in
*[!0-9]*|"") have_ns= ;;
esac
awk_name=$(awk -W version 2>/dev/null | head -n 1 || true)
[ -n "$awk_name" ] || awk_name=$(awk --version 2>/dev/null | head -n 1 || true)
[ -n "$awk_name" ] || awk_name=awk

now_ns() {
	if [ -n "$have_ns" ]; then
		date +%s%N
	else
		echo $(($(date +%s) * 1000000000))
	fi
}

# Median of the numbers in $1 (an odd count), and their maximum.
sorted() {
	echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g
}
median() {
	sorted "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
maximum() {
	sorted "$1" | tail -n 1
}

# gen LOG [OPTIONS...]: one timed generate run; sets $wall (s) and $rss_kib.
gen() {
	local log=$1 rc=0 start end
	shift
	rm -f "$replay"
	start=$(now_ns)
	if [ -n "$timebin" ]; then
		"$timebin" -o "$scratch/time" -f '%M' "$bin" -q -c "$log" \
			-r "$replay" -n bench -u nobody "$@" || rc=$?
		rss_kib=$(tail -n 1 "$scratch/time")
	else
		"$bin" -q -c "$log" -r "$replay" -n bench -u nobody "$@" || rc=$?
		rss_kib=
	fi
	end=$(now_ns)
	if [ "$rc" -ne 0 ] || [ ! -s "$replay" ]; then
		echo "$0: generate of $log failed (exit status $rc)" >&2
		exit 1
	fi
	wall=$(awk -v d=$((end - start)) 'BEGIN { printf "%.4f", d / 1e9 }')
}

# split LOG: awk splitting every line of LOG into its fields; sets $wall.
split_fields() {
	local start end
	start=$(now_ns)
	$pin env LC_ALL=C awk -F';' '{ n += NF } END { print n }' "$1" > /dev/null
	end=$(now_ns)
	wall=$(awk -v d=$((end - start)) 'BEGIN { printf "%.4f", d / 1e9 }')
}

mb() {
	awk -v k="$1" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }'
}

lps_of() {
	awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'
}

echo "ioriot generate benchmark: $lines-line v4 and v3 logs, $RUNS interleaved rounds, $(nproc 2>/dev/null || echo ?) CPUs, $pinned"
echo "awk reference: $awk_name, LC_ALL=C awk -F';' '{ n += NF } END { print n }' LOG"
for v in 4 3; do
	flag=
	[ "$v" = 4 ] || flag=-3
	"$mkcapture" $flag -l "$lines" "$scratch/v$v.capture" || {
		echo "$0: mkcapture failed" >&2
		exit 1
	}
done
v4_lines=$(wc -l < "$scratch/v4.capture")
v3_lines=$(wc -l < "$scratch/v3.capture")

# One run with the summary (it also warms the page cache), and one of v3.
echo
echo "--- ioriot summary, v4 log (warm-up run) ---"
"$bin" -c "$scratch/v4.capture" -r "$replay" -n bench -u nobody || {
	echo "$0: generate failed" >&2
	exit 1
}
echo "---"
replay_mb=$(awk -v b="$(wc -c < "$replay")" 'BEGIN { printf "%.1f", b / 1e6 }')
gen "$scratch/v3.capture" --mounts "$mounts"
split_fields "$scratch/v4.capture"
split_fields "$scratch/v3.capture"

# Rounds: generate v4, awk v4, generate v3, awk v3.
g4= a4= r4= g3= a3= r3= rsss=
for i in $(seq 1 "$RUNS"); do
	gen "$scratch/v4.capture"
	gw=$wall
	rsss="$rsss $(mb "$rss_kib")"
	split_fields "$scratch/v4.capture"
	g4="$g4 $gw" a4="$a4 $wall"
	r4="$r4 $(awk -v g="$gw" -v a="$wall" 'BEGIN { printf "%.3f", g / a }')"
	gen "$scratch/v3.capture" --mounts "$mounts"
	gw=$wall
	split_fields "$scratch/v3.capture"
	g3="$g3 $gw" a3="$a3 $wall"
	r3="$r3 $(awk -v g="$gw" -v a="$wall" 'BEGIN { printf "%.3f", g / a }')"
done

# Instructions per line, the steady measure on a shared machine.
ipl=
if command -v valgrind >/dev/null 2>&1; then
	"$mkcapture" -l "$CG_LINES" "$scratch/cg.capture"
	rm -f "$replay"
	if valgrind --tool=callgrind --callgrind-out-file="$scratch/cg.out" \
		"$bin" -q -c "$scratch/cg.capture" -r "$replay" -n bench \
		-u nobody > /dev/null 2> "$scratch/cg.err"; then
		ir=$(sed -n 's/^summary: *//p' "$scratch/cg.out")
		ipl=$(awk -v i="$ir" -v n="$CG_LINES" 'BEGIN { printf "%.0f", i / n }')
	fi
	rm -f "$scratch/cg.capture" "$scratch/cg.out"
fi

# Peak memory at 10 M lines, 200k distinct files.
big_rss= big_lps=
if [ -z "$quick" ] && [ -n "$timebin" ]; then
	rm -f "$scratch/v4.capture" "$scratch/v3.capture"
	"$mkcapture" -l "$BIG_LINES" $BIG_ARGS "$scratch/big.capture" || {
		echo "$0: mkcapture failed" >&2
		exit 1
	}
	gen "$scratch/big.capture"
	big_rss=$(mb "$rss_kib")
	big_lps=$(lps_of "$(wc -l < "$scratch/big.capture")" "$wall")
	rm -f "$scratch/big.capture"
fi

row() {
	local name=$1 n=$2 gw=$3 aw=$4 ratios=$5 gmed amed rmed
	gmed=$(median "$gw")
	amed=$(median "$aw")
	rmed=$(median "$ratios")
	printf '%-6s %-14s %-14s %-14s %s\n' "$name" "$(lps_of "$n" "$gmed")" \
		"$(lps_of "$n" "$amed")" "${rmed}x" \
		"$(awk -v r="$rmed" -v t="$TARGET_RATIO" 'BEGIN { print (r <= t ? "PASS" : "MISS") }')"
	echo "       generate (s): ${gw# }"
	echo "       awk (s):      ${aw# }"
}

echo
printf '%-24s %s\n' "v4 log" "$v4_lines lines, replay file $replay_mb MB"
printf '%-24s %s\n' "v3 log" "$v3_lines lines"
echo
echo "log    generate l/s   awk l/s        gen/awk time   <= ${TARGET_RATIO}x (median of pairs)"
row v4 "$v4_lines" "$g4" "$a4" "$r4"
row v3 "$v3_lines" "$g3" "$a3" "$r3"
echo
lps4=$(lps_of "$v4_lines" "$(median "$g4")")
lps3=$(lps_of "$v3_lines" "$(median "$g3")")
printf '%-44s %-16s %s\n' "target" "measured" "result"
for v in 4 3; do
	eval "l=\$lps$v"
	printf '%-44s %-16s %s\n' ">= $TARGET_LPS lines/s, v$v log" "$l" \
		"$(awk -v a="$l" -v t="$TARGET_LPS" 'BEGIN { print (a >= t ? "PASS" : "MISS") }')"
done
if [ -n "$rsss" ]; then
	printf '%-44s %-16s %s\n' "peak RSS, $lines-line v4 log (max)" \
		"$(maximum "$rsss") MB" "(no target)"
fi
if [ -n "$big_rss" ]; then
	printf '%-44s %-16s %s\n' "< $TARGET_RSS_MB MB peak RSS, 10 M lines, 200k files" \
		"$big_rss MB" \
		"$(awk -v a="$big_rss" -v t="$TARGET_RSS_MB" 'BEGIN { print (a < t ? "PASS" : "MISS") }')"
	printf '%-44s %s\n' "  its lines/s (one run)" "$big_lps"
elif [ -n "$quick" ]; then
	echo "10 M-line log: left out (--quick)"
else
	echo "10 M-line log: /usr/bin/time (Debian package time) is missing: peak RSS not measured"
fi
if [ -n "$ipl" ]; then
	printf '%-44s %s\n' "instructions per line ($CG_LINES-line v4 log)" "$ipl (valgrind callgrind)"
else
	echo "instructions per line: not counted (valgrind missing or failed)"
fi
