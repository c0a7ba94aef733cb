#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: run snode-perf inside an emulated node, on each guest kernel.
#
# Boots tools/emu/topologies/bench-2.topo (a VM facing a simulated node
# that exports 1 GiB) and runs "snode-perf mem" against that export. The
# results are printed, and kept in build/bench/<kernel>.{txt,json}, then
# "snode-perf link" measures each of its two links alone against lanes x
# speed (build/bench/perf-link-<kernel>.{txt,json}). Then
# tools/snode-perf/bench-msg.sh measures messages, doorbells and DMA on the
# same kernel (build/bench/msg-<kernel>/), and tools/snode-perf/bench-net.sh
# IP over the fabric against the DMA engine (build/bench/net-<kernel>/), and
# selftests/vm/ofi.sh with OFI_BENCH=1 the libfabric provider's fi_pingpong
# against snode-perf ping and dma (build/bench/ofi-<kernel>.txt), and
# tools/snode-perf/bench-mpi.sh OpenMPI over the provider against
# snode-perf's ping, dma and allreduce (build/bench/mpi-<kernel>/). A
# benchmark never fails on a timing; the exit status says only whether it
# ran.
#
# Usage: tools/snode-perf/bench.sh [6.1|6.12 ...]   (default: both)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
TOPO=$TOP/tools/emu/topologies/bench-2.topo
HANDLE=snode:v1:1:0:000000000000be0c
OUT=$BUILD/bench
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-bench}
mkdir -p "$OUT"
rc=0

[ $# -gt 0 ] || set -- 6.1 6.12
for kernel in "$@"; do
	echo "== snode-perf mem on Debian $kernel (TCG, 2 vCPUs; ratios matter, absolute numbers do not)"
	"$VM" down >/dev/null 2>&1
	if ! "$VM" up --topology "$TOPO" --kernel "$kernel" --mem 1536 \
		>"$OUT/vm-$kernel.log" 2>&1; then
		echo "bench: snode-vm up failed (see $OUT/vm-$kernel.log)"
		rc=1
		continue
	fi
	"$VM" exec --timeout 900 -- "insmod /lib/snode/snode.ko &&
		snode-perf -o /tmp/perf.json mem handle $HANDLE" |
		sed 's/^\[node[0-9]*\] //' | tee "$OUT/$kernel.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	"$VM" exec -- "cat /tmp/perf.json" | sed 's/^\[node[0-9]*\] //' \
		>"$OUT/$kernel.json"
	# each of the two links alone: MB/s against lanes x speed (no
	# baseline here: the verdict only says the copies took the link)
	echo "== snode-perf link on Debian $kernel"
	"$VM" exec --timeout 300 -- "snode-perf -o /tmp/link.json link handle $HANDLE seconds 2" |
		sed 's/^\[node[0-9]*\] //' | tee "$OUT/perf-link-$kernel.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	"$VM" exec -- "cat /tmp/link.json" | sed 's/^\[node[0-9]*\] //' \
		>"$OUT/perf-link-$kernel.json"
	"$VM" down >/dev/null 2>&1
	bash "$TOP/tools/snode-perf/bench-msg.sh" "$kernel" || rc=1
	bash "$TOP/tools/snode-perf/bench-net.sh" "$kernel" || rc=1
	echo "== the libfabric provider on Debian $kernel (fi_pingpong against snode-perf)"
	OFI_BENCH=1 bash "$TOP/selftests/vm/ofi.sh" "$kernel" \
		>"$OUT/ofi-$kernel.txt" 2>&1 || rc=1
	grep '^# ofi \(latency\|bandwidth\)' "$OUT/ofi-$kernel.txt"
	bash "$TOP/tools/snode-perf/bench-mpi.sh" "$kernel" || rc=1
done
exit $rc
