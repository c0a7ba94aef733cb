#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# abi-check.sh - compare the built libsnode.so.1 with the committed baseline
# ABI (libsnode/libsnode.abi, abidw output) and print one TAP line. Any
# difference fails, compatible or not: a change of the ABI is made on
# purpose, by regenerating the baseline (make libsnode-abi-update) in the
# same commit, where review sees it. libabigail's exit bits: 4 the ABI
# changed, 8 incompatibly.
#
# Usage: abi-check.sh LIBSNODE_SO TESTNO
#        abi-check.sh --update LIBSNODE_SO   (rewrite the baseline)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BASELINE=$TOP/libsnode/libsnode.abi
# public types only: the headers a program includes
ABIDW_OPTS=(--headers-dir "$TOP/libsnode" --headers-dir "$TOP/uapi/linux"
	    --drop-private-types --no-show-locs --no-comp-dir-path
	    --no-corpus-path)

if [ "${1:-}" = --update ]; then
	abidw "${ABIDW_OPTS[@]}" --out-file "$BASELINE" "$2" || exit 1
	echo "wrote $BASELINE"
	exit 0
fi

so=$1
n=${2:-1}
name="libsnode ABI matches libsnode/libsnode.abi"
if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
	echo "ok $n - $name # SKIP abigail-tools not installed (scripts/install-deps.sh)"
	exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
if ! abidw "${ABIDW_OPTS[@]}" --out-file "$tmp" "$so"; then
	echo "not ok $n - $name: abidw failed on $so"
	exit 1
fi
abidiff --no-show-locs "$BASELINE" "$tmp" >"$tmp.diff" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok $n - $name"
	rm -f "$tmp.diff"
	exit 0
fi
sed 's/^/# /' "$tmp.diff"
rm -f "$tmp.diff"
if [ $((rc & 8)) -ne 0 ]; then
	echo "not ok $n - $name: incompatible change (abidiff exit $rc)"
elif [ $((rc & 4)) -ne 0 ]; then
	echo "not ok $n - $name: the ABI changed (abidiff exit $rc); if on purpose, make libsnode-abi-update and commit the baseline"
else
	echo "not ok $n - $name: abidiff failed (exit $rc)"
fi
exit 1
