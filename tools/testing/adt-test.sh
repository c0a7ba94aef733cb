#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# adt-test.sh - the package's autopkgtests (debian/tests) run by Debian's
# autopkgtest on the packages make deb built (build/deb; made here when
# missing), one TAP line per test of debian/tests/control from
# autopkgtest's summary.
#
#   host   (the "adt" suite of make check) the testbed is a chroot whose
#          root is an overlay of this host's (tools/testing/pkg-lib.sh:
#          the host's dpkg database, groups and /usr/src are not written),
#          autopkgtest's "null" runner inside it; the dependencies come
#          from the host's archive configuration, mostly installed. The
#          install-test.sh wrapper is skipped: the install suite runs that
#          script from the same tree.
#   clean  (the "adt-clean" suite of make check-full) a clean bookworm
#          made by mmdebstrap (build/adt/bookworm.tar, kept a week),
#          unpacked anew, autopkgtest's "chroot" runner; every
#          dependency, build dependencies included, is installed from
#          Debian's archive. All tests run.
# In both the tests share one testbed, in debian/tests/control's order:
# device-access, first, sees only its own dependencies installed.
#
# Usage: tools/testing/adt-test.sh [host|clean]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
MODE=${1:-host}
T=$TOP/build/adt-test-$MODE
LOG=$T/log
DEB=$TOP/build/deb
unset CFLAGS CPPFLAGS LDFLAGS PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

case $MODE in
host|clean) ;;
*) echo "usage: $0 [host|clean]" >&2; exit 2 ;;
esac
rm -rf "$T"
mkdir -p "$T"
: >"$LOG"

# the tests debian/tests/control declares, in its order
mapfile -t TESTS < <(awk '/^Tests:/ { for (i = 2; i <= NF; i++) print $i }
	/^Test-Command:/ { print "command" ++c }' "$TOP/debian/tests/control")

if ! command -v autopkgtest >/dev/null; then
	skip "autopkgtest of debian/tests" "autopkgtest is not installed (scripts/install-deps.sh)"
	finish
fi
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	skip "autopkgtest of debian/tests" "needs root and unshare"
	finish
fi
if ! ls "$DEB"/*.deb >/dev/null 2>&1; then
	if DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
		make -C "$TOP" --no-print-directory deb >"$T/make-deb.log" 2>&1; then
		ok "make deb (no packages in build/deb)"
	else
		tail -n 30 "$T/make-deb.log" >"$LOG"; not_ok "make deb"; finish
	fi
fi

# The source tree autopkgtest runs the tests in: the checkout's files as
# make deb takes them (not build/)
SRC=$T/src
export_tree "$SRC"

OUT=$T/out
ADT=(autopkgtest --output-dir "$OUT" "$DEB"/*.deb "$SRC")
if [ "$MODE" = host ]; then
	cat >"$T/inside.sh" <<EOF
#!/bin/bash
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
$(printf '%q ' "${ADT[@]}") --skip-test command1 -- null
EOF
	overlay_chroot "$T/overlay" "$T/inside.sh" >"$T/adt.log" 2>&1
	rc=$?
	rm -rf "$T/overlay"
else
	TAR=$TOP/build/adt/bookworm.tar
	if ! debian_tarball bookworm apt "$TAR" >"$LOG" 2>&1; then
		not_ok "mmdebstrap: a clean bookworm"; finish
	fi
	# unpacked anew, in a private mount namespace (pkg-lib.sh's
	# tarball_ns); autopkgtest's chroot runner, as root, which first
	# updates the package lists mmdebstrap left empty (-U). (Its unshare
	# runner wants /etc/subuid entries for root, which this host's
	# configuration has none of.)
	tarball_ns "$TAR" "$T/root" "${ADT[@]}" --apt-upgrade -- chroot "$T/root" >"$T/adt.log" 2>&1
	rc=$?
fi
if [ ! -s "$OUT/summary" ]; then
	tail -n 30 "$T/adt.log" >"$LOG"
	not_ok "autopkgtest ran the tests (exit $rc, no summary)"
	finish
fi

# autopkgtest's exit status: 0 all passed, 2 some skipped, 4 some failed,
# 8 none ran, 12+ its own error or the testbed's; the summary says which
# test did what
for t in "${TESTS[@]}"; do
	line=$(awk -v t="$t" '$1 == t' "$OUT/summary" 2>/dev/null)
	case $line in
	*" PASS"*) ok "autopkgtest $t ($MODE)" ;;
	*" SKIP"*) skip "autopkgtest $t ($MODE)" "${line#* SKIP }" ;;
	"")
		if [ "$MODE" = host ] && [ "$t" = command1 ]; then
			skip "autopkgtest $t: tools/testing/install-test.sh ($MODE)" \
				"the install suite runs it from the same tree"
		else
			: >"$LOG"
			not_ok "autopkgtest $t ($MODE): no result (autopkgtest exit $rc)"
		fi
		;;
	*)
		# the test's own output, its failures first
		grep -A3 '^not ok' "$OUT/$t-stdout" >"$LOG" 2>/dev/null
		tail -n 15 "$OUT/$t-stderr" >>"$LOG" 2>/dev/null
		not_ok "autopkgtest $t ($MODE): ${line#"$t"}"
		;;
	esac
done
[ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || [ "$rc" -eq 4 ] ||
	{ tail -n 30 "$T/adt.log" >"$LOG"; not_ok "autopkgtest ran (exit $rc)"; }
finish
