#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# path-alias.sh - print a path without spaces or colons that leads to this
# checkout: the checkout's own path when it has none, else a symbolic link
# made for it. make splits words on spaces and kbuild refuses a module
# directory whose path holds one, so GNUmakefile builds such a checkout
# through the link. The link is private to the user ($XDG_RUNTIME_DIR, or
# /tmp/snode-src-UID, a directory only the user may write), named after a
# hash of the checkout's path so that every run uses the same one (build/
# caches record absolute paths), and re-made when it leads elsewhere.
#
# Usage: scripts/path-alias.sh        (from anywhere; prints the path)

set -eu
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
case $top in
*[[:space:]:]*) ;;
*) echo "$top"; exit 0 ;;
esac
die() { echo "path-alias.sh: $*" >&2; exit 1; }

base=${XDG_RUNTIME_DIR:-}
case $base in
"" | *[[:space:]:]*)
	base=/tmp/snode-src-$(id -u)
	mkdir -p -m 0700 "$base" 2>/dev/null || true
	# someone else's directory (or a link to one) would choose our sources
	[ -d "$base" ] && [ ! -L "$base" ] && [ "$(stat -c %u "$base")" = "$(id -u)" ] ||
		die "$base is not a directory of this user's"
	chmod 0700 "$base" ;;
esac
link=$base/snode-$(printf '%s' "$top" | sha256sum | cut -c1-12)
if [ "$(readlink "$link" 2>/dev/null)" != "$top" ]; then
	ln -sfn "$top" "$link" || die "cannot make $link"
fi
echo "$link"
