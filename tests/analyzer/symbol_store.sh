# SPDX-License-Identifier: GPL-2.0
# symbol_store.sh - sourced by test_watch.sh and test_follow.sh: corpus firmware of several
# builds and the --symbols stores and debuginfod server crashwalk finds them in by build-id.
# Needs $top (the tree), $tmp and $cw; the caller's EXIT trap calls debuginfod_stop.

debuginfod_pid=
debuginfod_url=

# corpus_fw CORE FLAVOUR: the directory of that corpus build (fw.elf, a directory a case).
# run-corpus.sh builds the corpus the first time and then only lists it.
corpus_fw() {
	[ -s "$tmp/corpus.list" ] ||
		"$top/tests/firmware/run-corpus.sh" >"$tmp/corpus.list" 2>"$tmp/corpus.err" || return 1
	awk -v k="$1 $2" '$1 " " $2 == k { sub("/[^/]*$", "", $4); print $4; exit }' \
		"$tmp/corpus.list" | grep .
}

# corpus_builds SUITE DUMP: fw_a and fw_b, two corpus builds for a store, fw_u one it lacks,
# and the reports of fw_a's and fw_b's DUMP (core.elf, core.zephyr) with the ELF given, without
# paths, in $tmp/a.json and $tmp/b.json; the KTAP result SUITE_symbols_corpus_built.
corpus_builds() {
	if fw_a=$(corpus_fw m4f O2-nofp-uw) && fw_b=$(corpus_fw m33 Os-fp) &&
		fw_u=$(corpus_fw m0 O0-fp); then
		ktap_result 0 "$1_symbols_corpus_built"
	else
		ktap_result 1 "$1_symbols_corpus_built"
		sed 's/^/# /' "$tmp/corpus.err"
		# Every case after this one reads those builds.
		ktap_note "the corpus builds are missing: the cases that use them are not run"
		exit 1
	fi
	"$cw" --json "$fw_a/fw.elf" "$fw_a/bus/$2" | no_paths >"$tmp/a.json"
	"$cw" --json "$fw_b/fw.elf" "$fw_b/isr/$2" | no_paths >"$tmp/b.json"
}

# build_id ELF: the firmware's GNU build-id, in hex.
build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

# build_id_tree DIR ELF...: each ELF as DIR/.build-id/xx/rest.debug, laid out like /usr/lib/debug.
build_id_tree() {
	tree=$1
	shift
	for elf; do
		id=$(build_id "$elf")
		mkdir -p "$tree/.build-id/${id%"${id#??}"}"
		cp "$elf" "$tree/.build-id/${id%"${id#??}"}/${id#??}.debug"
	done
}

# no_paths: a JSON report without its dump's and its firmware's paths, to compare the reports
# of one crash read from two places or with its firmware found in two ways.
no_paths() {
	sed 's/"path": "[^"]*"//g'
}

# debuginfod_start DIR: Debian's debuginfod over the ELFs in DIR on a loopback port of its
# own; debuginfod_url is its URL once it serves every build-id there (its scan is done), else
# it fails.
debuginfod_start() {
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -F -L -c 1 -g 0 -p "$port" -d "$tmp/debuginfod.sqlite" "$1" \
		>"$tmp/debuginfod.log" 2>&1 &
	debuginfod_pid=$!
	for elf in "$1"/*; do
		i=0
		until curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$(build_id "$elf")/debuginfo"; do
			i=$((i + 1))
			[ $i -lt 600 ] && kill -0 "$debuginfod_pid" 2>/dev/null || return 1
			sleep 0.2
		done
	done
	debuginfod_url=http://127.0.0.1:$port
}

debuginfod_stop() {
	[ -n "$debuginfod_pid" ] && kill "$debuginfod_pid" 2>/dev/null && wait "$debuginfod_pid"
	debuginfod_pid=
}
