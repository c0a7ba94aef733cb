#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: boot a two-node emulated supernode, load snode.ko on both nodes
# and show what the stack does today. Grows as features land.

set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VM=$TOP/tools/emu/vm/snode-vm
export SNODE_VM_UP=$TOP/build/vm/up-demo
KERNEL=${SNODE_DEMO_KERNEL:-6.1}

step() { printf '\n==> %s\n' "$*"; }
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

step "done: the supernode is shut down"
