#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# description: the framewalk CLI's options of issue #46 on a live module: list prints the traceable functions a glob matches, as available_filter_functions has them
# requires: framewalk.ko, fw_test_chain.ko, framewalk (CLI), tracefs, debugfs
. "$(dirname "$0")/fw_lib.sh"
fw_test_begin 1
P=/sys/module/framewalk/parameters
# Nothing an earlier run left may pass for this run's output.
rm -f /tmp/list.txt
fw_load_with_chain filter=fw_test_leaf depth=8

# list against the file it reads: every fw_test_l* function of the test module, no other.
framewalk list 'fw_test_l*' >/tmp/list.txt
rc=$?
sed 's/^/# /' /tmp/list.txt
ktap_expect "list exits 0" "$rc" = 0
ktap_expect "list prints the lines of available_filter_functions the glob matches" \
	"$(cat /tmp/list.txt)" = "$(grep '^fw_test_l' "$TRACEFS/available_filter_functions")"
ktap_expect "fw_test_leaf of the test module is among them" \
	-n "$(grep -x 'fw_test_leaf \[fw_test_chain\]' /tmp/list.txt)"
ktap_expect "comma-separated globs, as -f takes them" \
	"$(framewalk list 'fw_test_l[12], fw_test_leaf' | cut -d' ' -f1 | sort | tr '\n' ' ')" = \
	"fw_test_l1 fw_test_l2 fw_test_leaf "
msg=$(framewalk list 'fw_no_such_fn*' 2>&1)
rc=$?
ktap_expect "a glob that matches nothing: status 1" "$rc" = 1
ktap_expect "... saying so" "$msg" = "framewalk list: no traceable function matches 'fw_no_such_fn*'"
ktap_case_end "framewalk list prints the functions a glob matches, from available_filter_functions"

fw_unload_all
ktap_exit
