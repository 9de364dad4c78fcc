#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The framewalk-dkms package built by DKMS (KTAP): the package make deb wrote, unpacked and
# added to a private DKMS tree, then `dkms build` against each kernel's headers in the
# kernel cache (--kernelsourcedir), cross-compiled for arm64; each kernel's framewalk.ko
# must carry that kernel's release in its vermagic. The host's own DKMS state is left alone.
# usage: test_dkms.sh [KERNEL...] (default $KERNELS), after make deb
set -u
. "$(cd "$(dirname "$0")" && pwd)/../ktap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
kernels=${*:-${KERNELS:-}}
[ -n "$kernels" ] || { echo "usage: test_dkms.sh KERNEL... (or KERNELS=...)" >&2; exit 2; }
version=$(cat "$top/VERSION")
kcache=$top/.cache/kernels
pkg=$top/build/deb/amd64/framewalk-dkms_${version}_all.deb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# --dkmstree, --sourcetree and --installtree keep every file DKMS writes in $tmp. Signing
# would otherwise make a key in /var/lib/dkms (dkms reads these from the environment).
tree=$tmp/dkms
src=$tmp/pkg/usr/src
export sign_file=$tmp/no-sign-file mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
dkms_private() {
	nice dkms "$@" --dkmstree "$tree" --sourcetree "$src" --installtree "$tmp/install"
}
# Where dkms writes by default: its tree, the sources, the kernels' module directories.
host_state() {
	local k
	ls -lR /var/lib/dkms 2>&1
	ls -d /usr/src/framewalk-* 2>&1
	for k in $kernels; do ls -d "/lib/modules/$(cat "$kcache/$k/release" 2>/dev/null)" 2>&1; done
}

ktap_header
# test_deb.sh installs the packages on this machine under this lock: not while we look.
exec 9>/var/lock/framewalk-deb-test.lock
flock 9
before=$(host_state)
ok=0
command -v dkms >/dev/null || { ok=1; ktap_note "no dkms: scripts/deps.sh installs it"; }
[ -f "$pkg" ] || { ok=1; ktap_note "no $pkg: run make deb"; }
if [ $ok = 0 ]; then
	mkdir -p "$tree" "$tmp/install"
	dpkg-deb -x "$pkg" "$tmp/pkg" &&
		dkms_private add "framewalk/$version" >"$tmp/add.log" 2>&1 &&
		dkms_private status "framewalk/$version" | grep -q "^framewalk/$version: added"
	ok=$?
	sed 's/^/# /' "$tmp/add.log"
fi
ktap_result $ok "dkms add: framewalk-dkms's source in a private DKMS tree"
[ $ok = 0 ] || { ktap_done; exit; }

for k in $kernels; do
	kdir=$kcache/$k/build
	release=$(cat "$kcache/$k/release" 2>/dev/null)
	if [ ! -d "$kdir" ] || [ -z "$release" ]; then
		ktap_result 1 "dkms build against $k's headers" "no kernel $k in $kcache: run make deps"
		continue
	fi
	# What build-modules.sh adds for this kernel (unstable's headers name a compiler bookworm
	# lacks): make takes MAKEFLAGS' variables as if given on its command line. The file holds
	# one per line; a newline in MAKEFLAGS would join two of them into one value.
	extra=$(tr '\n' ' ' <"$kcache/$k/make-args" 2>/dev/null)
	s=$(date +%s)
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- MAKEFLAGS="$extra" \
		dkms_private build "framewalk/$version" -k "$release/aarch64" \
		--kernelsourcedir "$kdir" >"$tmp/build-$k.log" 2>&1
	rc=$?
	ko=$tree/framewalk/$version/$release/aarch64/module/framewalk.ko
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null)
	modver=$(modinfo -F version "$ko" 2>/dev/null)
	ktap_note "$k: dkms build exit $rc in $(($(date +%s) - s)) s; vermagic: ${magic:-none}"
	if [ $rc != 0 ]; then
		sed 's/^/# /' "$tmp/build-$k.log" | tail -5
		tail -15 "$tree/framewalk/$version/build/make.log" 2>/dev/null | sed 's/^/# make.log: /'
	fi
	# MODULE_VERSION comes from the package's dkms.conf, one level above module/.
	[ $rc = 0 ] && [ "${magic%% *}" = "$release" ] && [ "$modver" = "$version" ]
	ktap_result $? "dkms build against $k's headers: framewalk.ko $modver for $release"
done

[ "$(host_state)" = "$before" ]
ktap_result $? "the host's DKMS tree, /usr/src and /lib/modules are as before"
ktap_done
