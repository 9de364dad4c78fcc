#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ktap.sh - KTAP result lines for the host's shell tests (the C tests use ktap.h).

ktap_n=0
ktap_failed=0

# ktap_result STATUS DESCRIPTION: STATUS 0 passes.
ktap_result() {
	ktap_n=$((ktap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $ktap_n $2"
	else
		echo "not ok $ktap_n $2"
		ktap_failed=$((ktap_failed + 1))
	fi
}

# ktap_done: the plan and totals; the exit status says whether all passed.
ktap_done() {
	echo "1..$ktap_n"
	echo "# $((ktap_n - ktap_failed)) passed, $ktap_failed failed"
	[ "$ktap_failed" = 0 ]
}
