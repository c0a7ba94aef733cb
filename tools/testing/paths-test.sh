#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# paths-test.sh - the build and the tests do not assume where the checkout
# lives (issue 34): a clone of HEAD under /tmp in a directory whose path
# holds a space builds and passes a make target through GNUmakefile's
# link (scripts/path-alias.sh), and the overlay chroot that deb-test.sh
# installs the packages in (pkg-lib.sh: overlay_chroot, a tmpfs on /tmp)
# still sees a script under that checkout's build/. Host only, about 10 s.
# TAP.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LOG=$TOP/build/paths-test.log
mkdir -p "$TOP/build"
: >"$LOG"

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

tmp=$(mktemp -d "/tmp/snode paths.XXXXXX")
trap 'rm -rf "$tmp"; [ -z "${alias1:-}" ] || rm -f "$alias1"' EXIT
C="$tmp/sn ode"

out=$("$TOP/scripts/path-alias.sh" 2>&1)
if [ "$out" = "$(cd "$TOP" && pwd -P)" ]; then
	ok "path-alias.sh: a checkout without spaces is its own path"
else
	echo "$out" >"$LOG"; not_ok "path-alias.sh: a checkout without spaces is its own path"
fi

if ! git -C "$TOP" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	! git clone -q --shared "$TOP" "$C" >"$LOG" 2>&1; then
	not_ok "git clone of HEAD into '$C'"
	finish
fi
# what is being tested is the working tree's, not only HEAD's
for f in GNUmakefile scripts/path-alias.sh tools/testing/pkg-lib.sh; do
	cp "$TOP/$f" "$C/$f"
done

alias1=$("$C/scripts/path-alias.sh" 2>"$LOG")
alias2=$(cd "$C" && scripts/path-alias.sh 2>>"$LOG")
if [ -n "$alias1" ] && [ "$alias1" = "$alias2" ] && [[ "$alias1" != *[[:space:]:]* ]] &&
	[ "$(cd "$alias1" && pwd -P)" = "$(cd "$C" && pwd -P)" ]; then
	ok "path-alias.sh: one link without spaces to a checkout at '$C'"
else
	echo "'$alias1' '$alias2'" >>"$LOG"; not_ok "path-alias.sh: one link without spaces to the checkout"
fi

# a real build and test through make, from the directory a user is in
if (cd "$C" && make -s hw-contract) >"$LOG" 2>&1 && grep -q '^ok ' "$LOG" && ! grep -q '^not ok ' "$LOG" &&
	[ -n "$(find "$C/build" -name '*.o' -print -quit)" ]; then
	ok "make hw-contract in '$C' ($(grep -c '^ok ' "$LOG") checks)"
else
	not_ok "make hw-contract in '$C'"
fi
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip "overlay_chroot sees a script under a checkout in /tmp" "needs root and unshare"
else
	mkdir -p "$C/build/paths"
	printf '#!/bin/bash\necho "ran in $(cat /etc/hostname 2>/dev/null || echo chroot)"\n' >"$C/build/paths/inside.sh"
	for top in "$C" "$alias1"; do
		out=$(TOP=$top; overlay_chroot "$C/build/paths/overlay" "$top/build/paths/inside.sh" 2>&1)
		if [[ "$out" == "ran in "* ]]; then
			ok "overlay_chroot runs a script under the checkout at '$top'"
		else
			echo "$out" >"$LOG"; not_ok "overlay_chroot runs a script under the checkout at '$top'"
		fi
	done
fi
finish
