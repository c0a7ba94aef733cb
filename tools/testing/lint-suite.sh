#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel-code quality gates as tests: W=1 + sparse against each guest
# kernel's headers, checkpatch --strict and kernel-doc, over driver/ and
# uapi/.
# Each gate is one TAP line; its findings go to the log. Prints TAP.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
n=0
fails=0
for target in lint-6.1 lint-6.12 lint-checkpatch lint-kernel-doc; do
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
echo "1..$n"
[ "$fails" -eq 0 ]
