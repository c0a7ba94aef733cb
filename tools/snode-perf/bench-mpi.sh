#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The MPI part of make bench, on one guest kernel: Debian's OpenMPI over
# the libfabric provider snode next to snode-perf, in one 4-node run.
#
# Boots tools/emu/topologies/4-dual-plane.topo with OpenMPI staged
# (selftests/vm/mpi-env.sh, decision 0032) and measures, in this order and
# on the same nodes:
#   - snode-perf ping client 1 (node 1 serving): the NIC's message round trip
#   - snode-perf dma on node 1 (a window onto its own pool): DMA bandwidth
#   - snode-perf allreduce on nodes 0-3, 256 KiB: its bus bandwidth
#   - mpi_test on 2 ranks (nodes 0, 1): MPI round trip of 8 bytes and
#     bandwidth of 64 KiB messages; on 4 ranks: allreduce bus bandwidth of
#     256 KiB (1 MiB takes minutes per iteration over eager messages)
# and prints MPI / snode-perf for each (issue 26's targets: round trip
# within 1.0x, bandwidth 0.8x of the DMA engine's, allreduce 1.0x). Results
# in build/bench/mpi-KERNEL/. Timings never fail the run.
#
# The ranks run with FI_SNODE_IDLE_WAIT_US=200 (fi_snode(7)): four guests
# that poll on two host cores keep the CPU from the threads that carry
# their messages, while snode-perf sleeps in poll(); SNODE_BENCH_IDLE_US=0
# measures the ranks spinning (decision 0034, stop 24's addendum).
#
# Usage: tools/snode-perf/bench-mpi.sh 6.1|6.12

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
KERNEL=${1:-6.12}
OUT=$BUILD/bench/mpi-$KERNEL
IDLE_US=${SNODE_BENCH_IDLE_US:-200}
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-bench-mpi}
. "$TOP/selftests/vm/mpi-env.sh"
mkdir -p "$OUT"
rc=0

bexec() { # bexec NODE COMMAND: on a guest, without the "[nodeN] " prefix
	"$VM" exec --node "$1" --timeout 1200 -- "$2" | sed 's/^\[node[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
perf() { # perf NODE NAME ARGS: snode-perf ARGS, text to OUT/NAME.txt, JSON to OUT/NAME.json
	local node=$1 name=$2
	shift 2
	bexec "$node" "snode-perf -o /tmp/$name.json $*" | tee "$OUT/$name.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	bexec "$node" "cat /tmp/$name.json" >"$OUT/$name.json"
}
mpi() { # mpi NAME N ARGS: mpi_test on N ranks, output to OUT/NAME.txt
	local name=$1 np=$2
	shift 2
	bexec 0 "export FI_PROVIDER_PATH=$MPI_OFI; $(mpi_cmd "$np" FI_SNODE_IDLE_WAIT_US=$IDLE_US "$@") 2>&1" >"$OUT/$name.txt" ||
		rc=1
	grep -E '^(not )?ok - |^# mpi ' "$OUT/$name.txt"
	sed -n 's/^# mpi-json //p' "$OUT/$name.txt" >"$OUT/$name.json"
}

echo "== MPI over snode next to snode-perf on Debian $KERNEL (TCG; ratios matter, absolute numbers do not; ranks with FI_SNODE_IDLE_WAIT_US=$IDLE_US)"
[ -x "$BUILD/mpi/mpi_test" ] || { echo "bench: build/mpi/mpi_test missing (make mpi)"; exit 1; }
"$VM" down >/dev/null 2>&1
if ! "$VM" up --topology "$TOP/tools/emu/topologies/4-dual-plane.topo" \
	--kernel "$KERNEL" "${MPI_STAGE[@]}" >"$OUT/vm.log" 2>&1; then
	echo "bench: snode-vm up failed (see $OUT/vm.log)"
	exit 1
fi
for node in 0 1 2 3; do
	bexec "$node" "$(mpi_node_setup "$node")" >>"$OUT/setup.log" 2>&1 || rc=1
done
mpi_keys bexec 0 1 2 3 >>"$OUT/setup.log" 2>&1

# sleeping receivers: busy-polling vCPUs starve the emulator's threads
"$VM" exec --node 1 --timeout 1200 -- "snode-perf ping server mode sleep" >/dev/null 2>&1 &
perf 0 ping "ping client 1 iters 500 mode sleep"
wait
perf 1 dma "dma max 4M"
"$VM" exec --all --timeout 1200 -- "snode-perf -o /tmp/allreduce.json allreduce nodes 0,1,2,3 size 256K iters 3" |
	tee "$OUT/allreduce.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
bexec 0 "cat /tmp/allreduce.json" >"$OUT/allreduce.json"
mpi mpi2 2 -l 65536 -i 200 -b 65536 -w 4 -a 65536
mpi mpi4 4 -l 65536 -i 20 -b 16384 -w 1 -a 262144
"$VM" down >/dev/null 2>&1

python3 - "$OUT" <<'PY' || rc=1
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
ping, dma, ar = load("ping"), load("dma"), load("allreduce")
m2, m4 = load("mpi2"), load("mpi4")
if ping and m2 and "rtt" in ping:
    print("MPI round trip 8 B / snode-perf ping round trip (mean): %.0f / %.0f us = %.2fx (target <= 1.0x, issue 26)"
          % (m2["rtt_us"], ping["rtt"]["mean_us"], m2["rtt_us"] / ping["rtt"]["mean_us"]))
if dma and m2 and dma.get("rows"):
    best = max(r["dma_to"] for r in dma["rows"])
    print("MPI bandwidth %d KiB / DMA engine (best of its sizes): %.3f / %.1f MB/s = %.2gx (target >= 0.8x, issue 26)"
          % (m2["bw_bytes"] >> 10, m2["bw_MBps"], best, m2["bw_MBps"] / best))
if ar and m4 and ar.get("busbw_GBps"):
    print("MPI allreduce 256 KiB / snode-perf allreduce 256 KiB, bus bandwidth: %.3f / %.1f MB/s = %.2gx (target >= 1.0x, issue 26)"
          % (m4["allreduce_busbw_MBps"], ar["busbw_GBps"] * 1e3,
             m4["allreduce_busbw_MBps"] / (ar["busbw_GBps"] * 1e3)))
PY
exit $rc
