#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# timed-step.sh NAME COMMAND...: run COMMAND and append "END NAME SECONDS
# CPU" to build/check/build-steps (END: the epoch second it ended; CPU: the
# user and system seconds COMMAND and its children used, which a loaded
# host does not inflate), so that run-all.sh's time table shows where make
# check's build went; COMMAND's exit status.
set -u
name=$1
shift
t0=$(date +%s)
"$@"
rc=$?
t1=$(date +%s)
dir=$(cd "$(dirname "$0")/.." && pwd)/build/check
mkdir -p "$dir" || exit "$rc"
# times: the shell's user/system line, then its children's ("1m2.5s
# 0m3.1s"); in this shell, not in a $(...) subshell, which has no children
times >"$dir/.times.$$"
cpu=$(sed -n 2p "$dir/.times.$$" | awk '
	function s(t,  m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t); return m * 60 + t }
	{ printf "%d", s($1) + s($2) + 0.5 }')
rm -f "$dir/.times.$$"
echo "$t1 $name $((t1 - t0)) $cpu" >>"$dir/build-steps"
exit "$rc"
