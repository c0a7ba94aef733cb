#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the few files we use from Debian's linux-source-<ver> package into
# build/linux-source-<ver>/ (never committed):
#   6.1:  kselftest_harness.h, kselftest.h, checkpatch.pl + its data files
#   6.12: tools/net/ynl/ (netlink YAML tooling) + checkpatch, and its
#         kselftest harness (the Debian package builds the collection
#         against its release's linux-source: 6.12 on trixie)
#
# Usage: scripts/fetch-linux-source.sh [--refresh] 6.1|6.12
#
# Once build/linux-source-<ver>/stamp exists this does no network work.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SNODE_BUILD:-$ROOT/build}
APT=$ROOT/scripts/apt-private.sh

refresh=
if [ "${1:-}" = "--refresh" ]; then
	refresh=1
	shift
fi
ver=${1:-}
CHECKPATCH=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch)
case "$ver" in
6.1)
	MEMBERS=(tools/testing/selftests/kselftest_harness.h
		 tools/testing/selftests/kselftest.h "${CHECKPATCH[@]}")
	;;
6.12)
	MEMBERS=(tools/net/ynl tools/testing/selftests/kselftest_harness.h
		 tools/testing/selftests/kselftest.h "${CHECKPATCH[@]}")
	;;
*)
	echo "usage: $0 [--refresh] 6.1|6.12" >&2
	exit 2
	;;
esac

D=$BUILD/linux-source-$ver
STAMP=$D/stamp

complete()
{
	local m
	[ -f "$STAMP" ] || return 1
	for m in "${MEMBERS[@]}"; do
		[ -e "$D/$m" ] || return 1
	done
}

if [ -z "$refresh" ] && complete; then
	exit 0
fi

"$APT" setup
export APT_CONFIG=$BUILD/apt/apt.conf
pkg=linux-source-$ver
pkgver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
if [ -z "$pkgver" ] || [ "$pkgver" = "(none)" ]; then
	echo "fetch-linux-source: $pkg not found in the archive" >&2
	exit 1
fi
want="$pkg=$pkgver"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && complete; then
	touch "$STAMP"
	exit 0
fi

echo "fetch-linux-source: $want"
mkdir -p "$BUILD"
tmp=$(mktemp -d "$BUILD/.linux-source.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get -q download "$want")
members=()
for m in "${MEMBERS[@]}"; do
	members+=("$pkg/$m")
done
mkdir "$tmp/out"
# The .deb carries one tarball of the whole tree; stream it instead of
# extracting 1.5 GB. --wildcards off: the member list names dirs and files.
dpkg-deb --fsys-tarfile "$tmp"/*.deb |
	tar -xO "./usr/src/$pkg.tar.xz" |
	tar -xJ -C "$tmp/out" "${members[@]}"

rm -rf "$D"
mv "$tmp/out/$pkg" "$D"
echo "$want" > "$STAMP"
echo "fetch-linux-source: $D ready"
