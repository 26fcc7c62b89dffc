# csv.awk - split_csv(line, out): the fields of one CSV line (f8bench
# export) into out[1..n], split as RFC 4180 writes them: a quoted field may
# hold commas and doubled quotes (a message, a transport), which awk -F,
# would split, shifting every column after it.  Returns n.  Shared by
# scripts (ag-targets.sh, ag-node.sh) and tests/tap.sh's csv_get: prepend
# this file's text to an awk program.
function split_csv(line, out,    n, i, ch, q, cur) {
	n = 0; cur = ""; q = 0
	for (i = 1; i <= length(line); i++) {
		ch = substr(line, i, 1)
		if (q) {
			if (ch == "\"" && substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
			else if (ch == "\"") q = 0
			else cur = cur ch
		} else if (ch == "\"") q = 1
		else if (ch == ",") { out[++n] = cur; cur = "" }
		else cur = cur ch
	}
	out[++n] = cur
	return n
}
