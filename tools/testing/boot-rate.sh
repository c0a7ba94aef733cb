#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Measure how often an emulated host's kernel crashes while booting: RUNS
# two-node `snode-vm run --kernel KERNEL -- true` runs, one after the other,
# with the runner's boot retry off (SNODE_VM_BOOT_RETRY=0), so that every
# crash counts. Other SNODE_VM_* variables pass through, e.g.
# SNODE_VM_BOOT_ALL_CPUS=1 to boot both vCPUs at once (the old way).
# Put the load you want beside it (e.g. `nice stress-ng --cpu 2`).
#
# Usage: tools/testing/boot-rate.sh RUNS [KERNEL [OUTDIR]]
# Prints a line per run and a summary line:
#   boot-rate: RUNS runs, BOOTS boots, P panicked (I int3), F other failures
# The console of every crashed boot, and the logs of a run that failed
# otherwise, are copied to OUTDIR (default
# build/boot-rate). BOOT_RATE_UNTIL=<epoch seconds> starts no run after then.

set -u
runs=${1:?usage: boot-rate.sh RUNS [KERNEL [OUTDIR]]}
kernel=${2:-6.12}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
out_dir=${3:-$TOP/build/boot-rate}
VM=$TOP/tools/emu/vm/snode-vm
export SNODE_VM_BOOT_RETRY=0
mkdir -p "$out_dir"

boots=0 panics=0 int3=0 other=0
for ((r = 1; r <= runs; r++)); do
	if [ -n "${BOOT_RATE_UNTIL:-}" ] && [ "$(date +%s)" -ge "$BOOT_RATE_UNTIL" ]; then
		runs=$((r - 1))
		break
	fi
	out=$("$VM" run --nodes 2 --kernel "$kernel" -- true 2>&1)
	rc=$?
	dir=$(printf '%s\n' "$out" | sed -n 's/.*(logs: \(.*\))$/\1/p' | tail -n 1)
	line="run $r: status $rc"
	crashed=0
	for log in "$dir"/node*.log; do
		[ -f "$log" ] || continue
		boots=$((boots + 1))
		grep -aq 'Kernel panic' "$log" || continue
		crashed=1
		panics=$((panics + 1))
		grep -aq 'Oops: int3' "$log" && int3=$((int3 + 1))
		cp "$log" "$out_dir/run$r-$(basename "$log")"
		line+=", ${log##*/}: $(grep -a -m1 -E 'Oops|BUG:|Kernel panic' "$log" | tr -d '\r')"
	done
	if [ "$rc" -ne 0 ] && [ "$crashed" = 0 ]; then
		other=$((other + 1))
		mkdir -p "$out_dir/run$r-failed"
		cp "$dir"/*.log "$out_dir/run$r-failed/" 2>/dev/null
		line+=", failed without a panic (logs $out_dir/run$r-failed)"
	fi
	echo "$line"
done
echo "boot-rate: $runs runs, $boots boots, $panics panicked ($int3 int3), $other other failures"
