#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deb-build-test.sh - the source package builds without linux-source. Only
# snode-selftests needs it (the kselftest harness headers, which Debian
# ships in linux-source-X.Y alone); the build profile pkg.snode.noselftests
# leaves that package and the build dependency out. In a chroot whose root
# is an overlay of this host's (tools/testing/pkg-lib.sh: the host's dpkg
# database and /usr/src are not written) from which every linux-source
# package is purged: dpkg-checkbuilddeps fails without the profile and
# passes with it, make deb with the profile builds the six other packages
# and no snode-selftests, lintian finds no error or warning, and the
# packages name no linux. TAP.
#
# Usage: tools/testing/deb-build-test.sh

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$TOP/build/deb-build-test
LOG=$T/log
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
unset CFLAGS CPPFLAGS LDFLAGS PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR DEB_BUILD_PROFILES

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

rm -rf "$T"
mkdir -p "$T"
: >"$LOG"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v dh_dkms >/dev/null; then
	skip "make deb with pkg.snode.noselftests and no linux-source" \
		"needs root, unshare and the build dependencies (scripts/install-deps.sh)"
	finish
fi

# The packages go to the test's own directory (SNODE_DEB_OUT), so build/deb
# of make deb and the deb suite is left as it is.
OUT=$T/deb
cat >"$T/inside.sh" <<EOF
#!/bin/bash
res() { if [ "\$1" -eq 0 ]; then echo "ok - \$2"; else echo "not ok - \$2"; fi; }
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
cd $(printf '%q' "$TOP")
pkgs=\$(dpkg-query -W -f '\${Package} \${db:Status-Status}\n' 'linux-source*' 2>/dev/null |
	awk '\$2 == "installed" { print \$1 }')
[ -z "\$pkgs" ] || dpkg --purge --force-depends \$pkgs >/tmp/purge.log 2>&1
! ls /usr/src/linux-source-*.tar.* >/dev/null 2>&1
res \$? "no linux-source package or tarball left (purged: \$(echo \$pkgs))"
! dpkg-checkbuilddeps >/tmp/cbd.log 2>&1 && grep -q 'linux-source' /tmp/cbd.log
res \$? "dpkg-checkbuilddeps without the profile asks for linux-source"
dpkg-checkbuilddeps -P pkg.snode.noselftests >/tmp/cbd-profile.log 2>&1
res \$? "dpkg-checkbuilddeps -P pkg.snode.noselftests is satisfied"
DEB_BUILD_PROFILES=pkg.snode.noselftests DEB_BUILD_OPTIONS=nocheck \
	SNODE_DEB_OUT=$(printf '%q' "$OUT") make --no-print-directory deb >/tmp/make-deb.log 2>&1
res \$? "make deb with DEB_BUILD_PROFILES=pkg.snode.noselftests"
tail -n 25 /tmp/make-deb.log | sed 's/^/# make deb: /'
sed 's/^/# dpkg-checkbuilddeps: /' /tmp/cbd.log
EOF
overlay_chroot "$T/overlay" "$T/inside.sh" >"$T/chroot.log" 2>&1
cp "$T/chroot.log" "$LOG"
relay_tap "$T/chroot.log" 4
rm -rf "$T/overlay"

deb() { echo "$OUT/${1}_${VERSION}_$2.deb"; }
missing=()
for p in "snode-common all" "snode-dkms all" "libsnode1 $ARCH" "libsnode-dev $ARCH" \
	"snode-tools $ARCH" "libfabric-snode $ARCH" "libfabric-snode-dev all"; do
	# shellcheck disable=SC2086
	[ -f "$(deb $p)" ] || missing+=("${p% *}")
done
if [ ${#missing[@]} -eq 0 ] && [ ! -e "$(deb snode-selftests "$ARCH")" ]; then
	ok "the profile built the seven packages and no snode-selftests"
else
	ls "$OUT" >"$LOG" 2>&1
	not_ok "the profile built the seven packages and no snode-selftests (missing: ${missing[*]:-none})"
fi
if [ -f "$OUT/lintian.log" ] && ! grep -Eq '^[EW]:' "$OUT/lintian.log"; then
	ok "lintian: no errors or warnings"
else
	grep -E '^[EW]:' "$OUT/lintian.log" >"$LOG" 2>&1; not_ok "lintian: no errors or warnings"
fi
using=$(for f in "$OUT"/*.deb; do dpkg-deb -f "$f" Built-Using; done 2>/dev/null | sort -u)
if ! grep -q 'linux' <<<"$using"; then
	ok "no package names linux in Built-Using"
else
	echo "$using" >"$LOG"; not_ok "no package names linux in Built-Using"
fi
finish
