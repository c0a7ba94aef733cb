#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deb-chroot-test.sh - the source package builds on a Debian release as a
# buildd builds it: in a clean RELEASE that mmdebstrap makes (buildd
# variant, build/adt/RELEASE-buildd.tar, kept a week), the build
# dependencies installed by apt-get build-dep from Debian's archive alone,
# dpkg-buildpackage -b of the checkout's files (as make deb takes them),
# then the release's own lintian. Checks: the dependencies resolve, the
# eight packages build with the build's test step (install-test.sh),
# dpkg's tools and debhelper warn of nothing, lintian finds no error or
# warning, and the release's directories are used: udev's and systemd's
# from pkg-config (under /usr/lib after trixie's usr-merge), the kselftest
# harness of the release's linux-source (Built-Using). TAP.
#
# Usage: tools/testing/deb-chroot-test.sh bookworm|trixie

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
REL=${1:-}
case $REL in
bookworm) WANT_UDEV=/lib/udev WANT_LINUX=6.1 ;;
trixie) WANT_UDEV=/usr/lib/udev WANT_LINUX=6.12 ;;
*) echo "usage: $0 bookworm|trixie" >&2; exit 2 ;;
esac
T=$TOP/build/deb-chroot-$REL
LOG=$T/log
VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

rm -rf "$T"
mkdir -p "$T"
: >"$LOG"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v mmdebstrap >/dev/null; then
	skip "package build in a clean $REL" "needs root, unshare and mmdebstrap (scripts/install-deps.sh)"
	finish
fi
TAR=$TOP/build/adt/$REL-buildd.tar
if ! debian_tarball "$REL" buildd "$TAR" >"$LOG" 2>&1; then
	not_ok "mmdebstrap: a clean $REL"; finish
fi

# the source where the chroot sees it (bound in below), and the results
SRC=$T/src/snode-$VERSION
export_tree "$SRC"
OUT=$T/out
mkdir -p "$OUT"
R=$T/root
cat >"$T/inside.sh" <<'EOF'
#!/bin/bash
# run in the chroot: /src holds snode-VERSION, /out takes the results
res() { if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi; }
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8
src=$(echo /src/snode-*)
apt-get -q update >/out/apt.log 2>&1 &&
	apt-get -q -y --no-install-recommends build-dep "$src" >>/out/apt.log 2>&1 &&
	apt-get -q -y --no-install-recommends install lintian >>/out/apt.log 2>&1
res $? "apt-get build-dep: the build dependencies resolve from $(. /etc/os-release && echo "$PRETTY_NAME")'s archive"
(cd "$src" && dpkg-buildpackage -us -uc -b) >/out/build.log 2>&1
res $? "dpkg-buildpackage -b (its test step: tools/testing/install-test.sh)"
cp /src/*.deb /src/*.changes /out/ 2>/dev/null
lintian --version >/out/lintian.version 2>&1
lintian --info /src/*.changes >/out/lintian.log 2>&1
dpkg-query -W -f '${Package} ${Version}\n' linux-source 'linux-source-*' systemd-dev udev 2>/dev/null >/out/versions
EOF
cp "$T/inside.sh" "$SRC/../inside.sh"
# shellcheck disable=SC2016 # expanded by the inner bash
tarball_ns "$TAR" "$R" bash -c '
	set -e
	r=$1 src=$2 out=$3
	mkdir -p "$r/src" "$r/out"
	mount --bind "$src" "$r/src"
	mount --bind "$out" "$r/out"
	chroot "$r" /bin/bash /src/inside.sh
' sh "$R" "$T/src" "$OUT" >"$T/chroot.log" 2>&1
nres=0
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "$REL: ${line#ok - }"; nres=$((nres + 1)) ;;
	"not ok - "*)
		case $line in
		*build-dep*) tail -n 20 "$OUT/apt.log" >"$LOG" ;;
		*) tail -n 30 "$OUT/build.log" >"$LOG" ;;
		esac
		not_ok "$REL: ${line#not ok - }"; nres=$((nres + 1)) ;;
	esac
done <"$T/chroot.log"
if [ "$nres" -ne 2 ]; then
	tail -n 20 "$T/chroot.log" >"$LOG"; not_ok "$REL: the chroot ran both steps (it ran $nres)"
	finish
fi

deb() { echo "$OUT/${1}_${VERSION}_$2.deb"; }
missing=()
for p in "snode-common all" "snode-dkms all" "libsnode1 $ARCH" "libsnode-dev $ARCH" \
	"snode-tools $ARCH" "snode-selftests $ARCH" "libfabric-snode $ARCH" "libfabric-snode-dev all"; do
	# shellcheck disable=SC2086
	[ -f "$(deb $p)" ] || missing+=("${p% *}")
done
if [ ${#missing[@]} -eq 0 ]; then
	ok "$REL: the eight packages were built"
else
	: >"$LOG"; not_ok "$REL: the eight packages were built (missing: ${missing[*]})"
fi
if grep -E '^(dpkg-[a-z]+|dh_[a-z_]+): warning' "$OUT/build.log" >"$LOG"; then
	not_ok "$REL: no warning from dpkg's tools or debhelper"
else
	ok "$REL: no warning from dpkg's tools or debhelper"
fi
if [ -s "$OUT/lintian.version" ] && ! grep -Eq '^[EW]:' "$OUT/lintian.log"; then
	ok "$REL: $(cat "$OUT/lintian.version"): no errors or warnings"
else
	grep -E '^[EW]:' "$OUT/lintian.log" >"$LOG" 2>&1
	not_ok "$REL: lintian: no errors or warnings"
fi
rule=$(dpkg-deb -c "$(deb snode-common all)" 2>/dev/null | awk '{ print $6 }' | grep '/rules\.d/60-snode\.rules$')
if [ "$rule" = ".$WANT_UDEV/rules.d/60-snode.rules" ]; then
	ok "$REL: the udev rule is in the release's udev directory ($WANT_UDEV)"
else
	echo "rule at: ${rule:-none}" >"$LOG"; not_ok "$REL: the udev rule is in the release's udev directory ($WANT_UDEV)"
fi
using=$(dpkg-deb -f "$(deb snode-selftests "$ARCH")" Built-Using 2>/dev/null)
if grep -Eq "(^|, )linux \(= $WANT_LINUX\." <<<"$using"; then
	ok "$REL: snode-selftests is built with linux-source-$WANT_LINUX's harness ($using)"
else
	{ echo "Built-Using: $using"; cat "$OUT/versions"; } >"$LOG" 2>&1
	not_ok "$REL: snode-selftests is built with linux-source-$WANT_LINUX's harness"
fi
finish
