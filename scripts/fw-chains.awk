# SPDX-License-Identifier: GPL-2.0
# fw-chains.awk - print framewalk:chain events as symbolized call chains,
# "child <- parent+off <- ancestor+off ...", one per line, using a kallsyms
# listing sorted by address.
# usage: awk -f fw-chains.awk SORTED_KALLSYMS TRACE

# Exact value of up to 12 hex digits (awk numbers are doubles).
function hexval(h,    i, v) {
	v = 0
	h = tolower(h)
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}

# The symbol holding a 16-digit address, as name+0xoff; addresses compare as strings.
function sym(a,    lo, hi, mid, off) {
	a = sprintf("%16s", a)
	gsub(/ /, "0", a)
	lo = 1
	hi = nsyms
	if (nsyms == 0 || a < addr[1])
		return "0x" a
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (addr[mid] <= a)
			lo = mid
		else
			hi = mid - 1
	}
	if (substr(addr[lo], 1, 4) != substr(a, 1, 4))
		return "0x" a
	off = hexval(substr(a, 5)) - hexval(substr(addr[lo], 5))
	return sprintf("%s+0x%x", name[lo], off)
}

FNR == NR {
	if ($2 ~ /^[tTwW]$/) {
		nsyms++
		addr[nsyms] = $1
		name[nsyms] = $3
	}
	next
}

/ chain: / {
	line = $0
	sub(/.* chain: /, "", line)
	child = line
	sub(/ .*/, "", child)
	pip = line
	sub(/.*parent_ip=0x/, "", pip)
	sub(/ .*/, "", pip)
	stop = line
	sub(/.*stop=/, "", stop)
	sub(/ .*/, "", stop)
	anc = line
	sub(/.*ancestors=\{/, "", anc)
	sub(/\}.*/, "", anc)
	out = child " <- " sym(pip)
	n = split(anc, a, ",")
	for (i = 1; i <= n; i++) {
		sub(/^0x/, "", a[i])
		out = out " <- " sym(a[i])
	}
	print out "   [" stop "]"
}
