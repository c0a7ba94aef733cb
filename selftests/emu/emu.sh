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

# A guest kernel that panics while booting, before the command started, is
# booted again once, loudly, its console kept (Documentation/emu/vm.rst, "Boot
# crashes"). SNODE_VM_TEST_BOOT_PANIC=<node> makes the first boot of that
# node's host really panic (no /init: the kernel finds no root device).
# The runner logic is the same for both kernels: checked on 6.12 only.
rundir_of() { printf '%s\n' "$1" | sed -n 's/.*(logs: \(.*\))$/\1/p' | tail -n 1; }
# A console that shows the injected panic, once checked, leaves the *.log
# names that run-all.sh scans for splats (as node1.log.boot-failed does).
injected_panic() {
	grep -aq 'VFS: Unable to mount root fs' "$1/node1.log" 2>/dev/null &&
		mv "$1/node1.log" "$1/node1.log.injected-panic"
}
if [ "$KERNEL" = 6.12 ]; then
	out=$(SNODE_VM_TEST_BOOT_PANIC=1 "$VM" run --topology "$TOPO" --kernel "$KERNEL" -- \
		'echo "ran on node $SNODE_NODE"' 2>&1)
	rc=$?
	dir=$(rundir_of "$out")
	if [ "$rc" -eq 0 ] &&
		[ "$(printf '%s\n' "$out" | grep -c "run: node 1's kernel crashed while booting")" = 1 ] &&
		printf '%s\n' "$out" | grep -q '^\[node1\] ran on node 1' &&
		grep -aq 'Kernel panic' "$dir/node1.log.boot-failed" 2>/dev/null &&
		! grep -aq 'Kernel panic' "$dir/node1.log"; then
		ok "snode-vm run: a kernel panic while booting boots the supernode again, once, console kept"
	else
		not_ok "snode-vm run: no retry after a boot panic (status $rc, logs ${dir:-?})"
		printf '%s\n' "$out" | grep -v '^\[node' | sed 's/^/# /'
	fi
	out=$(SNODE_VM_TEST_BOOT_PANIC=1+ "$VM" run --topology "$TOPO" --kernel "$KERNEL" -- true 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] &&
		[ "$(printf '%s\n' "$out" | grep -c "kernel crashed while booting")" = 1 ] &&
		injected_panic "$(rundir_of "$out")"; then
		ok "snode-vm run: a host panicking on every boot is retried once, then fails the run"
	else
		not_ok "snode-vm run: a host panicking on every boot: status $rc"
		printf '%s\n' "$out" | grep -v '^\[node' | sed 's/^/# /'
	fi
	out=$(SNODE_VM_BOOT_RETRY=0 SNODE_VM_TEST_BOOT_PANIC=1 "$VM" run --topology "$TOPO" \
		--kernel "$KERNEL" -- true 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && ! printf '%s\n' "$out" | grep -q "kernel crashed while booting" &&
		injected_panic "$(rundir_of "$out")"; then
		ok "snode-vm run: SNODE_VM_BOOT_RETRY=0 reports a boot panic as a failure"
	else
		not_ok "snode-vm run: SNODE_VM_BOOT_RETRY=0 with a boot panic: status $rc"
	fi
	up=$TOP/build/vm/up-emu-retry-$KERNEL
	out=$(SNODE_VM_TEST_BOOT_PANIC=1 SNODE_VM_UP=$up "$VM" up --topology "$TOPO" --timeout 150 \
		--kernel "$KERNEL" 2>&1)
	rc=$?
	ran=$(SNODE_VM_UP=$up "$VM" exec --all -- 'echo "up on node $SNODE_NODE"' 2>&1 | grep -c '^\[node[01]\] up on node [01]')
	SNODE_VM_UP=$up "$VM" down >/dev/null 2>&1
	if [ "$rc" -eq 0 ] && [ "$ran" = 2 ] &&
		printf '%s\n' "$out" | grep -q "up: node 1's kernel crashed while booting" &&
		grep -aq 'Kernel panic' "$up/node1.log.boot-failed" 2>/dev/null; then
		ok "snode-vm up: a kernel panic while booting boots that host again, console kept"
	else
		not_ok "snode-vm up: no retry after a boot panic (status $rc, exec on $ran of 2 nodes)"
		printf '%s\n' "$out" | sed 's/^/# /'
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
