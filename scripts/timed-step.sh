#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# timed-step.sh NAME COMMAND...: run COMMAND and append "END NAME SECONDS"
# (END: the epoch second it ended) to build/check/build-steps, so that
# run-all.sh's time table shows where make check's build went; COMMAND's
# exit status.
set -u
name=$1
shift
t0=$(date +%s)
"$@"
rc=$?
t1=$(date +%s)
dir=$(cd "$(dirname "$0")/.." && pwd)/build/check
mkdir -p "$dir" && echo "$t1 $name $((t1 - t0))" >>"$dir/build-steps"
exit "$rc"
