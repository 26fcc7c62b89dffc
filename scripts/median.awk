# median.awk - median(a, n): the median of a[1..n], which it sorts in
# place (insertion sort: the lists are a few rounds or processes);
# median_of(X, g, n): the median of X[g, 1..n], X left as it is.  Shared
# by lls-impl-ab.sh and f8b-targets.sh: prepend this file's text to an awk
# program.  (Its names end in _ where a program may have a function of
# the same name: f8b-targets.sh's v().)
function median(a_, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a_[j - 1] > a_[j]; j--) { t = a_[j]; a_[j] = a_[j - 1]; a_[j - 1] = t }
	return n % 2 ? a_[(n + 1) / 2] : (a_[n / 2] + a_[n / 2 + 1]) / 2
}
function median_of(X, g, n,    a_, j) {
	for (j = 1; j <= n; j++) a_[j] = X[g, j]
	return median(a_, n)
}
