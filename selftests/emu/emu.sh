#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Emulator test: boot a two-node supernode on kernel KERNEL and check, from
# inside the guests and before any driver is loaded, that each NIC is on the
# PCI bus with the documented IDs and that its identity registers read back
# what the fabric manager configured (Documentation/hw/snode-nic.rst).
# Also runs a plain command on every node through `snode-vm run`.
#
# Usage: selftests/emu/emu.sh 6.1|6.12      Prints TAP.

set -u
KERNEL=${1:?usage: emu.sh 6.1|6.12}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VM=$TOP/tools/emu/vm/snode-vm
FM=$TOP/build/tools/snode-fm
TOPO=$TOP/tools/emu/topologies/2-b2b.topo
export SNODE_VM_UP=$TOP/build/vm/up-emu-$KERNEL
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
finish() { echo "1..$n"; [ "$fails" -eq 0 ]; exit; }

cleanup() { "$VM" down >/dev/null 2>&1; }
trap cleanup EXIT

# 1. snode-vm run: every node runs the command and its output is prefixed.
out=$("$VM" run --topology "$TOPO" --kernel "$KERNEL" -- \
	'grep -c ^processor /proc/cpuinfo' 2>&1)
rc=$?
for node in 0 1; do
	cpus=$(printf '%s\n' "$out" | sed -n "s/^\[node$node\] \([0-9][0-9]*\)\r*$/\1/p" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ "$cpus" = 2 ]; then
		ok "snode-vm run: node $node ran the command on 2 vCPUs ($KERNEL)"
	else
		not_ok "snode-vm run: node $node output '$cpus', status $rc ($KERNEL)"
	fi
done
out=$("$VM" run --topology "$TOPO" --kernel "$KERNEL" -- 'test "$SNODE_NODE" != 1' 2>&1)
if [ $? -ne 0 ]; then
	ok "snode-vm run: a command failing on one node fails the run"
else
	not_ok "snode-vm run: a command failing on one node left the run green"
fi

# The dual-plane topology: four VMs, each NIC attached to both planes.
if [ "$KERNEL" = 6.1 ]; then
	out=$("$VM" run --topology "$TOP/tools/emu/topologies/4-dual-plane.topo" \
		--kernel "$KERNEL" -- 'lspci -n -d 1b36:0110 | wc -l' 2>&1)
	rc=$?
	seen=$(printf '%s\n' "$out" | grep -c '^\[node[0-3]\] 1\r*$')
	if [ "$rc" -eq 0 ] && [ "$seen" -eq 4 ]; then
		ok "snode-vm run: 4 nodes on the dual-plane topology each see their NIC"
	else
		not_ok "snode-vm run: 4-node dual-plane: $seen of 4 nodes saw their NIC, status $rc"
	fi
fi

# 2. The identity registers, against the fabric manager's configuration.
fabric=$("$FM" check "$TOPO" | sed -n 's/^fabric \([0-9]*\):.*/\1/p')
if ! "$VM" up --topology "$TOPO" --kernel "$KERNEL" >/dev/null 2>&1; then
	not_ok "snode-vm up: two-node supernode boots ($KERNEL)"
	finish
fi
ok "snode-vm up: two-node supernode boots ($KERNEL)"
nodes_json=$("$FM" ctl --dir "$SNODE_VM_UP" show nodes -j)
for node in 0 1; do
	read -r pool nports attached < <(printf '%s' "$nodes_json" | python3 -c '
import json, sys
n = [x for x in json.load(sys.stdin) if x["id"] == int(sys.argv[1])][0]
print(n["pool_size"], n["nports"], int(n["attached"]))' "$node")
	if [ "$attached" = 1 ]; then
		ok "fabric manager sees node $node attached"
	else
		not_ok "fabric manager does not see node $node attached"
	fi
	guest=$("$VM" exec --node "$node" -- \
		/usr/lib/snode/selftests/emu/guest-emu.sh "$node" "$fabric" "$nports" "$pool" 2>&1)
	rc=$?
	checks=0
	# Renumber the guest's TAP lines into this script's sequence.
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "node $node: ${line#* - }"; checks=$((checks + 1)) ;;
		"not ok "*) not_ok "node $node: ${line#* - }"; checks=$((checks + 1)) ;;
		*) echo "# $line" ;;
		esac
	done < <(printf '%s\n' "$guest" | sed -e 's/^\[node[0-9]*\] //' -e 's/\r$//')
	if [ "$checks" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; }; then
		not_ok "node $node: guest checks did not run (status $rc)"
	fi
done
finish
