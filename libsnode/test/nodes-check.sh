#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# nodes-check.sh - what the documentation and the Debian symbols file say
# of libsnode's version nodes is true. Two TAP lines:
#   - no symbol of debian/libsnode1.symbols claims a version above the
#     package's own (debian/changelog): such a symbol would be from a
#     release that does not exist, and dpkg-gensymbols lowers it with a
#     warning;
#   - every function of a node other than LIBSNODE_1 (libsnode/libsnode.sym)
#     has that node named in the VERSIONS section of its man page (the
#     page itself, or the one its ".so" names), as libsnode(7) promises.
#
# Usage: nodes-check.sh TESTNO

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1}
MAN=$TOP/libsnode/man

# --- the symbols file's versions -----------------------------------------------
name="debian/libsnode1.symbols names no version above the package's"
pkgver=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version 2>/dev/null)
if [ -z "$pkgver" ]; then
	echo "# dpkg-parsechangelog gave no version for debian/changelog"
	echo "not ok $n - $name"
	rc=1
else
	rc=0
	above=()
	while read -r sym ver; do
		dpkg --compare-versions "$ver" le "$pkgver" || above+=("$sym $ver")
	done < <(awk 'NR > 1 && /^ / { print $1, $2 }' "$TOP/debian/libsnode1.symbols")
	if [ ${#above[@]} -eq 0 ]; then
		echo "ok $n - $name ($pkgver)"
	else
		printf '# %s\n' "${above[@]}"
		echo "not ok $n - $name (${#above[@]} above $pkgver)"
		rc=1
	fi
fi

# --- the pages' VERSIONS sections ----------------------------------------------
n=$((n + 1))
name="every function outside LIBSNODE_1 has its node in its page's VERSIONS section"
# page FUNCTION: the page that documents it, following a ".so" link page
page() {
	local p=$MAN/$1.3 target
	[ -f "$p" ] || return 1
	target=$(sed -n '1s|^\.so man3/||p' "$p")
	[ -n "$target" ] && p=$MAN/$target
	echo "$p"
}
bad=()
count=0
while read -r fn node; do
	count=$((count + 1))
	p=$(page "$fn") || { bad+=("$fn: no page"); continue; }
	# the VERSIONS section's text (up to the next .SH) from the function's
	# name on: the first node named after it is its node
	said=$(awk '/^\.SH / { v = ($0 == ".SH VERSIONS"); next } v' "$p" | tr '\n' ' ' |
		sed -n "s/.*\(^\|[^a-z_]\)${fn} ()//p" | grep -Eo 'LIBSNODE_[0-9]+' | head -n 1)
	[ "$said" = "$node" ] || bad+=("$fn ($node): ${p##*/} says ${said:-nothing}")
done < <(awk '/^[A-Z0-9_]+ *\{/ { node = $1 }
	      /^\t[a-z_0-9]+;/ && node != "LIBSNODE_1" { sub(/;/, "", $1); print $1, node }' \
	"$TOP/libsnode/libsnode.sym")
if [ "$count" -gt 0 ] && [ ${#bad[@]} -eq 0 ]; then
	echo "ok $n - $name ($count functions)"
else
	printf '# %s\n' "${bad[@]}" "$count functions outside LIBSNODE_1"
	echo "not ok $n - $name"
	rc=1
fi
exit $rc
