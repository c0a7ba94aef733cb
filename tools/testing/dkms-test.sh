#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dkms-test.sh - DKMS builds and installs snode.ko from the source tree that
# "make dkms-source" (and the snode-dkms package) installs, for Debian's 6.1
# and 6.12 kernels, whose headers are in build/kernels/<ver>/headers (make
# kernels). Host only: the real dkms runs with private trees under
# build/dkms-test (--sourcetree, --dkmstree, --installtree), so the host's
# /usr/src, /var/lib/dkms and /lib/modules are never touched, and depmod is
# run on the private module tree. TAP output.
#
# Usage: tools/testing/dkms-test.sh [KERNEL...]   (default: 6.1 6.12)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$TOP/build/dkms-test
LOG=$T/log
KERNELS=("$@")
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
VERSION=$(sed -n 's/^SNODE_VERSION *:= *//p' "$TOP/libsnode/libsnode.mk")

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

rm -rf "$T"
mkdir -p "$T/dkms" "$T/lib/modules"
: >"$LOG"

SRC=$T/root/usr/src
if make -C "$TOP" --no-print-directory dkms-source DESTDIR="$T/root" >"$LOG" 2>&1 &&
	[ -f "$SRC/snode-$VERSION/dkms.conf" ]; then
	ok "make dkms-source installs the module source"
else
	not_ok "make dkms-source installs the module source"
	finish
fi
# the version is filled in at install time, never kept by hand in dkms.conf
v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SRC/snode-$VERSION/dkms.conf")
if [ "$v" = "$VERSION" ] && grep -q '^PACKAGE_VERSION="#MODULE_VERSION#"$' "$TOP/dkms.conf"; then
	ok "the installed dkms.conf's PACKAGE_VERSION is SNODE_VERSION ($v)"
else
	echo "installed dkms.conf: '$v', libsnode.mk: '$VERSION'" >"$LOG"
	not_ok "the installed dkms.conf's PACKAGE_VERSION is SNODE_VERSION"
fi

if ! command -v dkms >/dev/null; then
	skip "dkms builds snode.ko" "dkms is not installed (scripts/install-deps.sh)"
	finish
fi

DKMS=(dkms --sourcetree "$SRC" --dkmstree "$T/dkms" --installtree "$T/lib/modules")
# dkms resolves relative paths and $PWD-dependent defaults: run it from $T
cd "$T" || exit 1
if "${DKMS[@]}" add -m snode -v "$VERSION" >"$LOG" 2>&1; then
	ok "dkms add snode/$VERSION"
else
	not_ok "dkms add snode/$VERSION"
	finish
fi

for k in "${KERNELS[@]}"; do
	kdir=$TOP/build/kernels/$k/headers
	if [ ! -f "$TOP/build/kernels/$k/kver" ] || [ ! -d "$kdir" ]; then
		skip "dkms build and install for $k" "no headers in build/kernels/$k (make kernels)"
		continue
	fi
	kver=$(cat "$TOP/build/kernels/$k/kver")
	if nice "${DKMS[@]}" build -m snode -v "$VERSION" -k "$kver" \
		--kernelsourcedir "$kdir" >"$LOG" 2>&1; then
		ok "dkms build for $k ($kver)"
	else
		cat "$T/dkms/snode/$VERSION/build/make.log" >>"$LOG" 2>/dev/null
		not_ok "dkms build for $k ($kver)"
		continue
	fi
	mkdir -p "$T/lib/modules/$kver"
	if "${DKMS[@]}" install -m snode -v "$VERSION" -k "$kver" --kernelsourcedir "$kdir" \
		--no-depmod >"$LOG" 2>&1; then
		ok "dkms install for $k"
	else
		not_ok "dkms install for $k"
		continue
	fi
	ko=$(find "$T/lib/modules/$kver" -name 'snode.ko*' | head -n 1)
	if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ] &&
		[ "$(modinfo -F name "$ko")" = snode ]; then
		ok "installed ${ko#"$T"/} is snode for $kver"
	else
		echo "module: '${ko:-none}'" >"$LOG"
		[ -n "$ko" ] && modinfo "$ko" >>"$LOG" 2>&1
		not_ok "installed snode.ko is snode for $kver"
		continue
	fi
	if depmod -b "$T" "$kver" >"$LOG" 2>&1 &&
		grep -q "snode.ko" "$T/lib/modules/$kver/modules.dep"; then
		ok "depmod finds it for $k"
	else
		not_ok "depmod finds it for $k"
	fi
	if "${DKMS[@]}" status -m snode -k "$kver" 2>&1 | tee "$LOG" |
		grep -q "^snode/$VERSION, $kver, x86_64: installed"; then
		ok "dkms status: installed for $k"
	else
		not_ok "dkms status: installed for $k"
	fi
done

# A kernel snode is not tested on: dkms skips the module (77, "excluded")
# rather than failing that kernel's header package with a build error.
kdir=
for k in "${KERNELS[@]}"; do
	[ -d "$TOP/build/kernels/$k/headers" ] && kdir=$TOP/build/kernels/$k/headers
done
if [ -z "$kdir" ]; then
	skip "dkms skips a kernel outside BUILD_EXCLUSIVE_KERNEL" "no kernel headers (make kernels)"
else
	"${DKMS[@]}" build -m snode -v "$VERSION" -k 6.99.0-1-amd64 \
		--kernelsourcedir "$kdir" >"$LOG" 2>&1
	rc=$?
	if [ "$rc" = 77 ] && [ -z "$(find "$T/dkms/snode/$VERSION/6.99.0-1-amd64" -name 'snode.ko*' 2>/dev/null)" ]; then
		ok "dkms skips a kernel outside BUILD_EXCLUSIVE_KERNEL (6.99: status 77, nothing built)"
	else
		echo "dkms build for 6.99.0-1-amd64 exited $rc" >>"$LOG"
		not_ok "dkms skips a kernel outside BUILD_EXCLUSIVE_KERNEL"
	fi
fi

if "${DKMS[@]}" remove -m snode -v "$VERSION" --all --no-depmod >"$LOG" 2>&1 &&
	[ -z "$(find "$T/lib/modules" -name 'snode.ko*')" ]; then
	ok "dkms remove takes the modules away"
else
	not_ok "dkms remove takes the modules away"
fi
finish
