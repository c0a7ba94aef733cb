#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# symbols-check.sh - the Debian symbols file (debian/libsnode1.symbols),
# the version script (libsnode/libsnode.sym) and the built library's
# dynamic symbols name the same versioned symbols. One TAP line.
#
# Usage: symbols-check.sh LIBSNODE_SO TESTNO

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
so=$1
n=${2:-1}
name="libsnode1.symbols, libsnode.sym and the library agree"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "name@VERSION" for each, the version node itself included
awk 'NR > 1 && /^ / { print $1 }' "$TOP/debian/libsnode1.symbols" |
	sort >"$tmp/debian"
awk '/^[A-Z0-9_]+ *\{/ { node = $1; print node "@" node }
     /^\t[a-z_0-9]+;/ { sub(/;/, "", $1); print $1 "@" node }' \
	"$TOP/libsnode/libsnode.sym" | sort >"$tmp/map"
nm -D --defined-only "$so" |
	awk '{ s = $3; sub(/@@/, "@", s); if (s !~ /@/) s = s "@" s; print s }' | sort >"$tmp/lib"

rc=0
diff -u "$tmp/map" "$tmp/debian" >"$tmp/d1" || rc=1
diff -u "$tmp/map" "$tmp/lib" >"$tmp/d2" || rc=1
if [ $rc -ne 0 ]; then
	sed 's/^/# /' "$tmp/d1" "$tmp/d2"
	echo "not ok $n - $name"
	exit 1
fi
echo "ok $n - $name"
