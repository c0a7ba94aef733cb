#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make deb: build the Debian packages (debian/) from a copy of the source
# tree under build/deb/src, so that dpkg-buildpackage writes nothing into the
# checkout or its parent, and collect them in build/deb/ with lintian's
# report (build/deb/lintian.log). Needs debhelper, dh-dkms and the build
# dependencies in debian/control (scripts/install-deps.sh installs them).
#
# Usage: scripts/build-deb.sh   (make deb)
# Environment: SNODE_DEB_OUT, another directory than build/deb (tests);
# DEB_BUILD_PROFILES and DEB_BUILD_OPTIONS as dpkg-buildpackage reads them
# (pkg.snode.noselftests: no snode-selftests, no linux-source needed).

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${SNODE_DEB_OUT:-$TOP/build/deb}
VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
SRC=$OUT/src/snode-$VERSION

rm -rf "$OUT"
mkdir -p "$SRC"
# the checkout's files, committed or not, without build/ and ignored files
# (the inner sh expands $f)
# shellcheck disable=SC2016
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -C "$SRC" -xf -

# -J: parallel=<CPUs> in DEB_BUILD_OPTIONS, which debian/rules honours
(cd "$SRC" && dpkg-buildpackage -us -uc -b -J)
mv "$OUT"/src/*.deb "$OUT"/src/*.changes "$OUT"/src/*.buildinfo "$OUT"/
rm -rf "$OUT/src"

if command -v lintian >/dev/null; then
	# lintian's exit status is 2 on errors; keep the report either way
	lintian --fail-on error --info "$OUT"/*.changes >"$OUT/lintian.log" 2>&1 || {
		cat "$OUT/lintian.log"
		echo "make deb: lintian found errors ($OUT/lintian.log)" >&2
		exit 1
	}
	cat "$OUT/lintian.log"
fi
ls -l "$OUT"/*.deb
