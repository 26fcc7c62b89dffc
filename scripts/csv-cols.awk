# csv-cols.awk - after csv.awk, for a program that reads columns by name:
# the header line's names into c[name] (the column's index), then each
# later line's fields into F, so that a rule reads a column as
# F[c["name"]].  Used by gemm-kernel-gpu.sh, gemm-targets.sh,
# impl-sweep.sh and sigmoid-ab.sh: cat csv.awk csv-cols.awk, then the
# program's own rules.
NR == 1 { nh_ = split_csv($0, hd_); for (i = 1; i <= nh_; i++) c[hd_[i]] = i; next }
{ delete F; split_csv($0, F) }
