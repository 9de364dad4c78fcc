#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ktap.sh - the one KTAP (version 1) writer for the shell tests, on the host and in the
# guest (busybox sh); C uses ktap.h, Python ktap.py. Source it, print ktap_header, then report
# cases with ktap_result (or ktap_fail/ktap_expect and ktap_case_end), and end with ktap_done.

ktap_n=0
ktap_failed=0
ktap_case_ok=1
ktap_planned=

# ktap_header [COUNT]: the version line, and the plan when the count is known up front.
ktap_header() {
	echo "KTAP version 1"
	ktap_planned=${1:-}
	[ -z "$ktap_planned" ] || echo "1..$ktap_planned"
}

ktap_note() {
	echo "# $*"
}

# ktap_result STATUS DESCRIPTION [DIRECTIVE]: STATUS 0 passes, "skip" skips, anything else
# fails; DIRECTIVE (a reason) follows "# SKIP" or "#".
ktap_result() {
	ktap_n=$((ktap_n + 1))
	case $1 in
	0) echo "ok $ktap_n $2" ;;
	skip) echo "ok $ktap_n $2 # SKIP${3:+ $3}" ;;
	*)
		echo "not ok $ktap_n $2${3:+ # $3}"
		ktap_failed=$((ktap_failed + 1))
		;;
	esac
}

# Mark the current case failed, saying why.
ktap_fail() {
	echo "# FAIL: $*"
	ktap_case_ok=0
}

# ktap_expect WHAT TEST-EXPRESSION...: on failure the case fails, saying what and why.
ktap_expect() {
	ktap_what=$1
	shift
	test "$@" || ktap_fail "$ktap_what (test $*)"
}

# ktap_case_end DESCRIPTION: the result of the case ktap_fail/ktap_expect marked.
ktap_case_end() {
	if [ "$ktap_case_ok" = 1 ]; then
		ktap_result 0 "$1"
	else
		ktap_result 1 "$1"
	fi
	ktap_case_ok=1
}

# ktap_check DESCRIPTION GOT EXPECTED: a case that passes when GOT is EXPECTED, showing
# the first lines of both when it is not.
ktap_check() {
	if [ "$2" != "$3" ]; then
		echo "# expected: $(printf '%s' "$3" | head -8 | tr '\n' '|')"
		echo "# got:      $(printf '%s' "$2" | head -8 | tr '\n' '|')"
	fi
	[ "$2" = "$3" ]
	ktap_result $? "$1"
}

# ktap_done: the plan (unless ktap_header gave it) and the totals; status 0 when all passed.
ktap_done() {
	[ -n "$ktap_planned" ] || echo "1..$ktap_n"
	echo "# $((ktap_n - ktap_failed)) passed, $ktap_failed failed"
	[ "$ktap_failed" = 0 ]
}
