#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_watch.sh - crashwalk --watch DIR: dumps moved or written into DIR are analyzed as they
# arrive, a bad one does not stop the watch and is an error object in the JSON stream, one
# crash in two formats gets one signature, and a devcoredump-like devcdN/data entry is copied
# to --keep, released by a write, analyzed once. Without the firmware ELF, each arriving dump's
# firmware is found by its build-id in --symbols (dumps of two builds: the reports of their
# ELFs given by hand); one whose build-id no place has is one error line and the watch goes on.
# Usage: test_watch.sh CRASHWALK BUNDLED_DIR
set -u
cw=$1
b=$2
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/ktap.sh"
. "$top/tests/analyzer/symbol_store.sh"

# wait_watching PID: files that arrive before the inotify watch is set are not seen: wait for
# it (its fdinfo line), not a fixed pause an ASan build on a loaded machine overran.
wait_watching() {
	i=0
	until grep -qs '^inotify wd:' /proc/"$1"/fdinfo/* || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

ktap_header
ktap_note "suite: crashwalk-watch"
mkdir "$tmp/in" "$tmp/keep" "$tmp/stage" "$tmp/stage/devcd7"
"$cw" --json --watch "$tmp/in" --keep "$tmp/keep" "$b/demo.elf" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_watching "$pid"
cp "$b/demo.core" "$tmp/in/.a.part" && mv "$tmp/in/.a.part" "$tmp/in/a.core"
printf 'not a dump' >"$tmp/in/c.bin"
cp "$b/demo.zephyr" "$tmp/in/b.zephyr"
cp "$b/demo.core" "$tmp/stage/devcd7/data"
mv "$tmp/stage/devcd7" "$tmp/in/devcd7"
# Until the four reports are in; a loaded machine may take seconds.
i=0
while [ "$(grep -c -e '/a.core"' -e '/b.zephyr"' -e '/c.bin"' -e '/devcd7-0.core"' "$tmp/out")" -lt 4 ] &&
	[ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 1.5	# one periodic rescan: the released entry must not be taken again
kill -0 "$pid" 2>/dev/null
alive=$?

grep -q '"path": "[^"]*/a.core"' "$tmp/out"
ktap_result $? "watch_moved_in_dump_analyzed"
grep -q '"path": "[^"]*/b.zephyr"' "$tmp/out"
ktap_result $? "watch_written_dump_analyzed"
grep -q 'c.bin: offset 0' "$tmp/err" && [ "$alive" -eq 0 ]
ktap_result $? "watch_survives_bad_dump"
grep -q '"path": "[^"]*/c.bin", "build_id": null}, "error": "[^"]*c.bin: offset 0' "$tmp/out"
ktap_result $? "watch_bad_dump_is_an_error_object_in_the_json_stream"
[ "$(grep -o '"signature": "[0-9a-f]*"' "$tmp/out" | sort -u | wc -l)" -eq 1 ]
ktap_result $? "watch_same_crash_same_signature"
! grep -q '\.a\.part' "$tmp/out" "$tmp/err"
ktap_result $? "watch_skips_hidden_partial_files"
cmp -s "$b/demo.core" "$tmp/keep/devcd7-0.core" && [ "$(ls "$tmp/keep" | wc -l)" -eq 1 ]
ktap_result $? "watch_devcoredump_copied_once"
[ "$(head -c 1 "$tmp/in/devcd7/data")" = 1 ]
ktap_result $? "watch_devcoredump_released"
grep -q '"path": "[^"]*/keep/devcd7-0.core"' "$tmp/out"
ktap_result $? "watch_devcoredump_analyzed"
kill "$pid"
wait "$pid" 2>/dev/null

# No ELF: dumps of two corpus builds and, between them, one of a build --symbols lacks.
corpus_builds watch core.elf
build_id_tree "$tmp/store" "$fw_a/fw.elf" "$fw_b/fw.elf"
mkdir "$tmp/fleet"
env -u DEBUGINFOD_URLS "$cw" -q --json --watch "$tmp/fleet" --symbols "$tmp/store" \
	>"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_watching "$pid"
# One at a time, each after the report of the one before: the order the reports are read in.
i=0
for dump in "$fw_a/bus/core.elf" "$fw_u/undef/core.elf" "$fw_b/isr/core.elf"; do
	i=$((i + 1))
	cp "$dump" "$tmp/fleet/$i.core"
	j=0
	while [ "$(wc -l <"$tmp/out")" -lt $i ] && [ $j -lt 300 ]; do
		sleep 0.1
		j=$((j + 1))
	done
done
kill -0 "$pid" 2>/dev/null
alive=$?

[ "$(sed -n 1p "$tmp/out" | no_paths)" = "$(cat "$tmp/a.json")" ] &&
	[ "$(sed -n 3p "$tmp/out" | no_paths)" = "$(cat "$tmp/b.json")" ] &&
	grep -q '"format"' "$tmp/a.json" && ! cmp -s "$tmp/a.json" "$tmp/b.json"
ktap_result $? "watch_symbols_each_dump_gets_its_own_build_s_chain"
id=$(build_id "$fw_u/fw.elf")
sed -n 2p "$tmp/out" | grep -q "\"path\": \"$tmp/fleet/2.core\", \"build_id\": \"$id\"}, \"error\"" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "^crashwalk: $tmp/fleet/2.core: build-id $id: no firmware found: $tmp/store (.*not there; debuginfod: not asked" \
		"$tmp/err"
ktap_result $? "watch_unknown_build_id_is_one_error_naming_the_id_and_places"
[ "$alive" -eq 0 ] && [ "$(wc -l <"$tmp/out")" -eq 3 ] && sed -n 3p "$tmp/out" | grep -q '/3.core"'
ktap_result $? "watch_goes_on_after_an_unknown_build_id"
ktap_done
