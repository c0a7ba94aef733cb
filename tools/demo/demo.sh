#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: boot a two-node emulated supernode, load snode.ko on both
# nodes, show the NICs, then global memory: node 0 exports some of its
# fabric memory, node 1 maps it, and each writes data the other reads.

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VM=$TOP/tools/emu/vm/snode-vm
export SNODE_VM_UP=${SNODE_VM_UP:-${SNODE_BUILD:-$TOP/build}/vm/up-demo}
KERNEL=${SNODE_DEMO_KERNEL:-6.1}

step() { printf '\n==> %s\n' "$*"; }
# Guest output without the runner's "[nodeN] " prefix, indented.
on() { # on NODE COMMAND
	local node=$1
	shift
	"$VM" exec --node "$node" -- "$*" | sed -u 's/^\[node[0-9]*\] /    /'
	return "${PIPESTATUS[0]}"
}
trap '"$VM" down >/dev/null 2>&1 || true' EXIT

"$VM" down >/dev/null 2>&1 || true
step "booting two emulated nodes (Debian $KERNEL kernel, QEMU snode-nic, fabric manager)"
"$VM" up --topology "$TOP/tools/emu/topologies/2-b2b.topo" --kernel "$KERNEL"

step "insmod snode.ko on both nodes"
"$VM" exec --all -- 'insmod /lib/snode/snode.ko && dmesg | grep -m1 "snode0:"'

step "snodectl dev show on both nodes"
"$VM" exec --all -- snodectl dev show

step "the NIC's sensors, as lm-sensors sees them (node 0)"
"$VM" exec --node 0 -- sensors

step "global memory: node 0 exports 2 MiB of its fabric memory"
on 0 'snode-mem-demo export >/tmp/demo.log 2>&1 </dev/null & echo $! >/tmp/demo.pid
	for i in $(seq 100); do grep -q "exported\|snode-mem-demo:" /tmp/demo.log && break; sleep 0.1; done
	cat /tmp/demo.log'
handle=$("$VM" exec --node 0 -- 'cat /tmp/demo.log' |
	grep -o 'snode:v1:[0-9]*:[0-9]*:[0-9a-f]*' | head -1)
[ -n "$handle" ] || { echo "demo: node 0 did not export" >&2; exit 1; }

step "node 0's table of exports, with the owner"
on 0 'snodectl mem list exports'

step "node 1 maps it with the handle; both write, both read"
on 1 "snode-mem-demo import $handle >/tmp/demo.log 2>&1 </dev/null & echo \$! >/tmp/demo.pid
	for i in \$(seq 100); do grep -q 'wrote\|snode-mem-demo:' /tmp/demo.log && break; sleep 0.1; done
	head -2 /tmp/demo.log"
on 0 'while kill -0 $(cat /tmp/demo.pid) 2>/dev/null; do sleep 0.1; done
	tail -n +2 /tmp/demo.log'
on 1 'while kill -0 $(cat /tmp/demo.pid) 2>/dev/null; do sleep 0.1; done
	tail -n +3 /tmp/demo.log'

step "done: the supernode is shut down"
