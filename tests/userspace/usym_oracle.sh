# SPDX-License-Identifier: GPL-2.0
# usym_oracle.sh - how binutils names a user frame, the oracle of framewalk's user symbols
# (test_usym.sh on the host's programs, test_e2e.sh on the guest's). Source it.

# usym_oracle FILE BASE ADDR RETURN [SHOWN]: "func+0xoff (SHOWN) src.c:N" for ADDR in FILE
# mapped at BASE, from nm (the function) and addr2line (the line, at ADDR - 1 for a return
# address: its call); SHOWN defaults to FILE. USYM_CROSS prefixes the tools (aarch64-linux-gnu-).
usym_oracle() {
	local rel=$(($3 - $2)) line sym= best=-1 v t name
	while read -r v t name; do
		[[ $t == [tT] ]] || continue
		v=$((16#$v))
		if [ "$v" -le "$rel" ] && [ "$v" -gt "$best" ]; then
			best=$v
			sym=$name
		fi
	done < <("${USYM_CROSS:-}nm" "$1")
	[ -z "$sym" ] || sym=$(printf '%s+0x%x' "$sym" $((rel - best)))
	line=$("${USYM_CROSS:-}addr2line" -e "$1" "$(printf '%x' $((rel - $4)))" |
		sed 's/ (discriminator.*//')
	line=${line##*/}
	case $line in
	*:\?|\?\?:*) line= ;;
	esac
	echo "$sym (${5:-$1})${line:+ $line}"
}
