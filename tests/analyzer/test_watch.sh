#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_watch.sh - crashwalk --watch DIR: dumps moved or written into DIR are analyzed as they
# arrive, a bad one does not stop the watch and is an error object in the JSON stream, one
# crash in two formats gets one signature, and a devcoredump-like devcdN/data entry is copied
# to --keep, released by a write, analyzed once.
# Usage: test_watch.sh CRASHWALK BUNDLED_DIR
set -u
cw=$1
b=$2
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(cd "$(dirname "$0")/.." && pwd)/ktap.sh"

ktap_header
ktap_note "suite: crashwalk-watch"
mkdir "$tmp/in" "$tmp/keep" "$tmp/stage" "$tmp/stage/devcd7"
"$cw" --json --watch "$tmp/in" --keep "$tmp/keep" "$b/demo.elf" >"$tmp/out" 2>"$tmp/err" &
pid=$!
# Files that arrive before the inotify watch is set are not seen: wait for it
# (its fdinfo line), not a fixed pause an ASan build on a loaded machine overran.
i=0
until grep -qs '^inotify wd:' /proc/"$pid"/fdinfo/* || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
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
ktap_done
