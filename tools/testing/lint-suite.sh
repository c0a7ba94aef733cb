#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel-code quality gates as tests: W=1 + sparse against each guest
# kernel's headers, checkpatch --strict and kernel-doc, over driver/ and
# uapi/, the driver's layering (driver-layering.py: no cycle between its
# features, no forbidden call beyond driver-layering.allow), a tree without
# symlinks, and the fabric manager's layering (its
# domain code never calls its device protocol, tools/emu/fm/tests/layering.sh).
# Each gate is one TAP line; its findings go to the log. Prints TAP.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
n=0
fails=0
# lint-layering reads the objects lint-6.12 built, so it comes right after
for target in lint-6.1 lint-6.12 lint-layering lint-checkpatch lint-kernel-doc; do
	n=$((n + 1))
	if out=$(make -s --no-print-directory -C "$TOP" "$target" 2>&1); then
		echo "ok $n - $target: no findings"
	else
		fails=$((fails + 1))
		echo "not ok $n - $target"
		printf '%s\n' "$out" | grep -E 'warning|error|WARNING|ERROR|CHECK' |
			head -n 30 | sed 's/^/# /'
	fi
done
# The tree CI tests is a copy that carries no symlinks (one arrived as a
# file holding its target's path and broke the package build): none here.
n=$((n + 1))
links=$(git -C "$TOP" ls-files -s 2>/dev/null | awk '$1 == "120000" { print $4 }')
if [ -z "$links" ]; then
	echo "ok $n - no symlinks in the tree"
else
	fails=$((fails + 1))
	echo "not ok $n - no symlinks in the tree: $(echo $links)"
fi
n=$((n + 1))
if out=$(bash "$TOP/tools/emu/fm/tests/layering.sh" 2>&1); then
	echo "ok $n - snode-fm: the domain reaches the devices only through struct fm_emit"
else
	fails=$((fails + 1))
	echo "not ok $n - snode-fm: the domain reaches the devices only through struct fm_emit"
	printf '%s\n' "$out" | head -n 30 | sed 's/^/# /'
fi
echo "1..$n"
[ "$fails" -eq 0 ]
