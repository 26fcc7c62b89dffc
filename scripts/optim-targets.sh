#!/bin/sh
# optim-targets.sh - issue 24's targets, computed from an optim results
# file (f8bench export + awk), as Markdown on standard output.
#   scripts/optim-targets.sh FILE.h5 [LABEL]
# Rows: status ok, graph on, tensorwise, no stochastic rounding, the
# default chunk threshold (1M) and the largest parameter set of the file
# (or the one whose label is LABEL).  Every figure is read by column name.
set -eu
file=${1:?usage: optim-targets.sh FILE.h5 [LABEL]}
want=${2:-}
f8b=${F8BENCH:-f8bench}
"$f8b" export "$file" --table optim | awk -v want="$want" -v file="$file" '
function split_csv(line, out,    n, i, ch, f, q) {
	n = 0; f = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		ch = substr(line, i, 1)
		if (q) {
			if (ch == "\"" && substr(line, i + 1, 1) == "\"") { f = f "\""; i++ }
			else if (ch == "\"") q = 0
			else f = f ch
		} else if (ch == "\"") q = 1
		else if (ch == ",") { out[++n] = f; f = "" }
		else f = f ch
	}
	out[++n] = f
	return n
}
{ nf = split_csv($0, F) }
NR == 1 { for (i = 1; i <= nf; i++) c[F[i]] = i; next }
function v(name) { if (!(name in c)) { print "missing column " name > "/dev/stderr"; exit 2 } return F[c[name]] }
{
	if (v("status") != "ok" || v("graph") != 1 || v("granularity") != "tensorwise" || v("stochastic") != 0 || v("chunk_bytes") != 1048576) next
	if (want != "" && v("label") != want) next
	n++
	L[n] = v("label"); P[n] = v("params"); S[n] = v("steps")
	k = v("variant") " " v("scaling")
	key[n] = k; t[n] = v("time_median_s"); pct[n] = v("pct_of_copy_bw"); b[n] = v("step_bytes_per_param")
	fs[n] = v("fused_speedup"); sat[n] = v("saturated"); satst[n] = v("saturated_steps")
	w8[n] = v("sqnr_w8_db"); la[n] = v("launches"); bx[n] = v("bitexact")
	if (v("params") + 0 > best) { best = v("params") + 0 }
}
function yn(ok) { return ok ? "met" : "**not met**" }
# a figure the file has (not NaN or empty), as a number
function num(x) { return x ~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/ }
END {
	if (!n) { print "no ok rows (graph on, tensorwise, chunk 1M) in the file"; exit 1 }
	# the largest parameter set; for each variant x scaling its row with the most steps
	for (i = 1; i <= n; i++) {
		if (P[i] + 0 != best) continue
		if (!(key[i] in R) || S[i] + 0 > S[R[key[i]]] + 0) R[key[i]] = i
		label = L[i]
	}
	printf "## optim: issue 24 targets, %s (%d parameters), %s\n\n", label, best, file
	split("fp32 bf16 fp8 fp8-master16", V, " ")
	split("dynamic dynamic-sync delayed predicted", SC, " ")
	print "| variant | scaling | ms | % of copy bw | launches | bytes/param | split / fused | w8 SQNR dB | saturated | bit-exact |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (a = 1; a <= 4; a++) for (s = 1; s <= 4; s++) {
		k = V[a] " " SC[s]
		if (!(k in R)) continue
		i = R[k]
		printf "| %s | %s | %.4f | %.1f | %d | %.4g | %.3f | %.2f | %d in %d steps | %s |\n", V[a], SC[s], 1e3 * t[i], pct[i], la[i], b[i], fs[i], w8[i], sat[i], satst[i], bx[i] ? "yes" : "no"
	}
	print ""
	# 1. every variant (predicted: one launch) at >= 90% of the copy bandwidth
	for (a = 1; a <= 4; a++) {
		k = V[a] " predicted"
		if (!(k in R)) continue
		i = R[k]
		printf "- %s at %s%% of the copy bandwidth on its minimal bytes, %d launch(es) per step (target >= 90%%, 1): %s\n", V[a], num(pct[i]) ? sprintf("%.1f", pct[i]) : "?", la[i], num(pct[i]) ? yn(pct[i] + 0 >= 90 && la[i] == 1) : "unknown (no copy bandwidth)"
	}
	# 2. fp8 states: <= 0.58x the bytes of fp32 and >= 1.65x faster
	if (("fp8 predicted" in R) && ("fp32 predicted" in R)) {
		i = R["fp8 predicted"]; j = R["fp32 predicted"]
		printf "- fp8 states move %.3fx the bytes of fp32 (target <= 0.58): %s; run %.3fx faster (target >= 1.65): %s\n", b[i] / b[j], yn(b[i] / b[j] <= 0.58), t[j] / t[i], yn(t[j] / t[i] >= 1.65)
	}
	# 3. predicted: no saturated value, w8 SQNR within 0.3 dB of dynamic
	for (a = 1; a <= 4; a++) {
		p = V[a] " predicted"; d = V[a] " dynamic"; l = V[a] " delayed"
		if (!(p in R) || !(d in R)) continue
		printf "- %s predicted: %d saturated, w8 SQNR %.2f dB against dynamic %.2f dB (target 0, within 0.3 dB): %s", V[a], sat[R[p]], w8[R[p]], w8[R[d]], yn(sat[R[p]] == 0 && w8[R[d]] - w8[R[p]] <= 0.3)
		if (l in R) printf "; delayed saturated %d values in %d steps", sat[R[l]], satst[R[l]]
		printf "\n"
	}
	# 4. the single pass against update, amax, cast as three kernels
	if ("fp32 predicted" in R) printf "- fp32 single pass %.3fx faster than the split sequence (target >= 1.25, ideal 1.30): %s\n", fs[R["fp32 predicted"]], yn(fs[R["fp32 predicted"]] >= 1.25)
	if ("fp8 predicted" in R) printf "- fp8 single pass %.3fx faster than the split sequence (target >= 1.45, ideal 1.53): %s\n", fs[R["fp8 predicted"]], yn(fs[R["fp8 predicted"]] >= 1.45)
	# 5. dynamic scaling both ways (a measurement, no target): two launches
	# against one cooperative launch with grid barriers, the same bytes
	for (a = 1; a <= 4; a++) {
		d = V[a] " dynamic"; y = V[a] " dynamic-sync"
		if (!(d in R) || !(y in R)) continue
		printf "- %s dynamic-sync: %.4f ms in %d launch against dynamic %.4f ms in %d: %.3fx; w8 SQNR %.2f / %.2f dB (the same bits expected), bit-exact %s / %s\n", V[a], 1e3 * t[R[y]], la[R[y]], 1e3 * t[R[d]], la[R[d]], t[R[d]] / t[R[y]], w8[R[y]], w8[R[d]], bx[R[y]] ? "yes" : "no", bx[R[d]] ? "yes" : "no"
	}
}'
