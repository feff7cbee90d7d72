# predict-table.awk: the table of bench/predict.sh, from its TSV of runs
# (program, config, what, run, seconds, ops, differ; a header line first).
# Per program, configuration and pacing: the program's median seconds and
# spread ((max - min) / median), the replay's, the error |replay - program|
# / program of the medians, and the time ratio to C1 of the replay beside
# the program's; per pacing the mean and median error, the worst cell,
# the ratios on the correct side of 1 and the pairs of configurations
# ranked as the program ranks them, of those it separates beyond its
# noise (its run times on the two do not overlap).  The captured run's time
# follows each program, and how far off it is when the program's own runs
# on its configuration never took as long (or as little).
#
#   awk -F'\t' [-v configs="C1 C2"] [-v pacings="s0 s1"] [-v programs=...] \
#       -f bench/predict-table.awk predict.tsv
#
# Lists not given are taken from the TSV, in the order they first appear.

# Sort a[1..n] in place (insertion sort: a few values per key).
function sort(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
		a[j + 1] = x
	}
}

# The median, min and max of the values of key k into med[k], lo[k],
# hi[k]; returns how many there are.
function stats(k,   n, a, i, v) {
	n = split(vals[k], v, " ")
	for (i = 1; i <= n; i++) a[i] = v[i] + 0
	if (n == 0) return 0
	sort(a, n)
	med[k] = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	lo[k] = a[1]; hi[k] = a[n]
	return n
}

# Append word w to the list named by l in seen order, once.
function note(l, w) {
	if ((l, w) in noted) return
	noted[l, w] = 1
	order[l] = order[l] " " w
}

NR == 1 { next }
{
	note("programs", $1); note("configs", $2)
	if ($3 != "program" && $3 != "captured") note("pacings", $3)
}
$5 != "NA" && $3 != "captured" { vals[$1 SUBSEP $2 SUBSEP $3] = vals[$1 SUBSEP $2 SUBSEP $3] " " $5 }
$5 == "NA" { failed[$1 SUBSEP $2 SUBSEP $3]++ }
$3 == "captured" { captured[$1] = $5; captured_on[$1] = $2 }
END {
	if (configs == "") configs = order["configs"]
	if (pacings == "") pacings = order["pacings"]
	if (programs == "") programs = order["programs"]
	nc = split(configs, C, " "); np = split(pacings, P, " ")
	ng = split(programs, G, " ")
	printf "%-8s %-6s %-6s %9s %7s %9s %7s %8s %8s %8s\n", "program", "config",
	       "pacing", "program", "spread", "replay", "spread", "error",
	       "ratio:", "program"
	printf "%-8s %-6s %-6s %9s %7s %9s %7s %8s %8s %8s\n", "", "", "",
	       "s", "", "s", "", "", "replay", ""
	for (g = 1; g <= ng; g++) {
		for (c = 1; c <= nc; c++) {
			k = G[g] SUBSEP C[c] SUBSEP "program"
			if (!stats(k)) continue
			for (p = 1; p <= np; p++) stats(G[g] SUBSEP C[c] SUBSEP P[p])
		}
		for (c = 1; c <= nc; c++) {
			kp = G[g] SUBSEP C[c] SUBSEP "program"
			k1 = G[g] SUBSEP "C1" SUBSEP "program"
			if (!(kp in med)) continue
			for (p = 1; p <= np; p++) {
				kr = G[g] SUBSEP C[c] SUBSEP P[p]
				r1 = G[g] SUBSEP "C1" SUBSEP P[p]
				if (!(kr in med)) {
					printf "%-8s %-6s %-6s %9.3f %6.1f%% %9s\n", G[g], C[c], P[p],
					       med[kp], 100 * (hi[kp] - lo[kp]) / med[kp], "failed"
					continue
				}
				err = med[kr] - med[kp]; if (err < 0) err = -err
				err /= med[kp]
				pr = (r1 in med) && med[r1] > 0 ? med[kr] / med[r1] : 0
				gr = med[kp] / med[k1]
				printf "%-8s %-6s %-6s %9.3f %6.1f%% %9.3f %6.1f%% %7.1f%% %8.2f %8.2f%s\n",
				       G[g], C[c], P[p], med[kp], 100 * (hi[kp] - lo[kp]) / med[kp],
				       med[kr], med[kr] ? 100 * (hi[kr] - lo[kr]) / med[kr] : 0,
				       100 * err, pr, gr,
				       failed[kr] ? sprintf("  (%d failed)", failed[kr]) : ""
				sum[P[p]] += err; cells[P[p]]++
				errs[P[p]] = errs[P[p]] " " err
				if (err >= worst[P[p]]) {
					worst[P[p]] = err; wcell[P[p]] = G[g] " " C[c]
				}
				if (C[c] != "C1" && gr != 1) {
					sides[P[p]]++
					if ((pr - 1) * (gr - 1) > 0) right[P[p]]++
					else wrong[P[p]] = wrong[P[p]] sprintf(", %s %s %.2f/%.2f", G[g], C[c], pr, gr)
				}
			}
		}
		# A captured run beyond the program's own runs there: the
		# paced replays repeat its gaps, so their errors are its.
		if (G[g] in captured) {
			kc = G[g] SUBSEP captured_on[G[g]] SUBSEP "program"
			beyond = ""
			if ((kc in med) && (captured[G[g]] > hi[kc] || captured[G[g]] < lo[kc]))
				beyond = sprintf("; %.2f times the program's median there, " \
						 "beyond its runs: -s 1 and --think repeat it",
						 captured[G[g]] / med[kc])
			printf "%-8s %-6s %-6s %9.3f  (the captured run, under the probe%s)\n",
			       G[g], captured_on[G[g]], "", captured[G[g]], beyond
		}
		# pairs the program separates: its run times do not overlap
		for (a = 1; a < nc; a++) for (b = a + 1; b <= nc; b++) {
			ka = G[g] SUBSEP C[a] SUBSEP "program"
			kb = G[g] SUBSEP C[b] SUBSEP "program"
			if (!(ka in med) || !(kb in med)) continue
			if (!(hi[ka] < lo[kb] || hi[kb] < lo[ka])) continue
			for (p = 1; p <= np; p++) {
				ra = G[g] SUBSEP C[a] SUBSEP P[p]
				rb = G[g] SUBSEP C[b] SUBSEP P[p]
				if (!(ra in med) || !(rb in med)) continue
				pairs[P[p]]++
				if ((med[ra] - med[rb]) * (med[ka] - med[kb]) > 0) agree[P[p]]++
			}
		}
	}
	printf "\n%-6s %11s %8s %-22s %15s %17s\n", "pacing", "mean error", "median",
	       "worst cell", "ratio side ok", "pairs ranked ok"
	for (p = 1; p <= np; p++) {
		q = P[p]
		if (!cells[q]) continue
		vals["errors"] = errs[q]
		stats("errors")
		printf "%-6s %10.1f%% %7.1f%% %-22s %9d of %-3d %11d of %-3d\n", q,
		       100 * sum[q] / cells[q], 100 * med["errors"],
		       wcell[q] sprintf(" %.1f%%", 100 * worst[q]),
		       right[q], sides[q], agree[q], pairs[q]
	}
	for (p = 1; p <= np; p++)
		if (wrong[P[p]] != "")
			printf "ratio on the wrong side, %s (replay/program): %s\n", P[p],
			       substr(wrong[P[p]], 3)
}