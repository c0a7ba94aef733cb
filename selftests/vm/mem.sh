#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mem.sh - the global memory suite on an emulated supernode.
#
# Usage: selftests/vm/mem.sh 6.1|6.12|debug
#
# Boots tools/emu/topologies/mem-sim.topo (VM nodes 0 and 1, simulated
# exporters 2-4) under the given guest kernel and checks, from the host:
#   - mem_test of the kselftest collection on both nodes at once, run by
#     run_kselftest.sh with SNODE_PEER set (its peer tests pair them up)
#   - revocation by every cause, each ending in SIGBUS (or the zero page)
#     in the importer and the right reason on its file descriptor:
#     exporter node killed, all its links down, node isolated (sim nodes,
#     fault injection through snode-fm ctl), exporter process killed,
#     exporter NIC reset, importer NIC unbound; re-importing works once
#     the cause is gone
#   - rmmod is refused while an import is open
#   - tools/emu/topologies/256-sim.topo: one VM imports from 256 nodes and
#     checks their memory, then the ATT is full and the next import fails
#     with ENOSPC
#   - nothing leaked: the pool is whole, no import, export or ATT entry is
#     left, the module unloads
# Every check prints one TAP line; the exit status is 1 if any failed.
# SNODE_MEM_PARTS (default "kselftest fabric vms unbind leak scale") runs
# a subset, for development.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite mem "6.1|6.12|debug" "${1:-}"
TOPO=$TOP/tools/emu/topologies/mem-sim.topo
TOPO_SCALE=$TOP/tools/emu/topologies/256-sim.topo
PEER=$KSFT_BIN/mem_peer
KEY=0x5100
PARTS=" ${SNODE_MEM_PARTS:-kselftest fabric vms unbind leak scale} "

want() { [[ "$PARTS" == *" $1 "* ]]; }

# Wait until a guest file holds a line matching PATTERN (seconds).
wait_line() { # wait_line NODE FILE PATTERN SECONDS
	local i
	for ((i = 0; i < $4 * 2; i++)); do
		gexec "$1" "grep -q '$3' $2" && return 0
		sleep 0.5
	done
	return 1
}

require "$BUILD/stage/common$PEER"
# mem_test's import_read_only_store_violation and aperture_hole_violation
# store into the aperture through /dev/mem, which the kernel allows on a
# range a driver holds only with iomem=relaxed (decision 0022).
export SNODE_VM_APPEND="${SNODE_VM_APPEND:+$SNODE_VM_APPEND }iomem=relaxed"
vm_up mem-sim --topology "$TOPO" --mem 768 || finish
for node in 0 1; do
	gexec "$node" "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

# --- mem_test on both nodes, paired ---------------------------------------------
if want kselftest; then
	ksft_exec 0 1800 mem_test SNODE_PEER=1 &
	pid0=$!
	ksft_exec 1 1800 mem_test SNODE_PEER=0 &
	pid1=$!
	wait "$pid0"; rc0=$?
	wait "$pid1"; rc1=$?
	ksft_report "$KERNEL: node 0 mem_test" "$LOG/mem_test-node0.tap" "$rc0"
	ksft_report "$KERNEL: node 1 mem_test" "$LOG/mem_test-node1.tap" "$rc1"
fi

# --- revocation by the fabric -----------------------------------------------------
# hold_start NODE ARGS...: mem_peer hold in the background on NODE
hold_start() {
	local node=$1
	shift
	gexec "$node" "rm -f /tmp/hold.log; $PEER hold $* >/tmp/hold.log 2>&1 </dev/null & echo \$! >/tmp/hold.pid"
	wait_line "$node" /tmp/hold.log '^mapped\|^error' 30 &&
		gexec "$node" "grep -q '^mapped' /tmp/hold.log"
}

# hold_result NODE REASON LOAD STORE NAME: the holder saw the revocation
hold_result() {
	local node=$1 reason=$2 load=$3 store=$4 name=$5 out
	wait_line "$node" /tmp/hold.log '^store\|^timeout\|^error' 70
	out=$(gexec "$node" "cat /tmp/hold.log")
	echo "$name: $out" >>"$LOG/hold.log"
	check "$KERNEL: $name: fd reports reason $reason" \
		grep -q "^revoked reason $reason state 2" <<<"$out"
	check "$KERNEL: $name: poll woke with POLLPRI and POLLERR" \
		grep -q "pri 1 err 1$" <<<"$out"
	check "$KERNEL: $name: load through the old mapping: $load" \
		grep -q "^load $load" <<<"$out"
	check "$KERNEL: $name: store through the old mapping: $store" \
		grep -q "^store $store" <<<"$out"
}

# revoke_case NAME SIMNODE REASON LOAD FLAGS "FAULT..." "RESTORE..."
revoke_case() {
	local name=$1 sim=$2 reason=$3 load=$4 flags=$5 fault=$6 restore=$7 c
	if ! hold_start 0 "$sim 0 $KEY 2M rw $flags 60"; then
		not_ok "$KERNEL: $name: import from node $sim and map it"
		return
	fi
	ok "$KERNEL: $name: import from node $sim and map it"
	while read -r c; do
		[ -n "$c" ] && eval "fmctl $c"
	done <<<"$fault"
	hold_result 0 "$reason" "$load" sigbus "$name"
	while read -r c; do
		[ -n "$c" ] && eval "fmctl $c"
	done <<<"$restore"
	# the node is back: wait for the fabric to say so, then import again
	local i out=
	for ((i = 0; i < 20; i++)); do
		out=$(gexec 0 "$PEER check $sim 0 $KEY 2M" 2>&1)
		grep -q "^pattern ok" <<<"$out" && break
		sleep 0.5
	done
	check "$KERNEL: $name: import again after recovery ($out)" \
		grep -q "^pattern ok" <<<"$out"
}

if want fabric; then
revoke_case "node kill" 2 3 sigbus "" "node kill 2" "node join 2"
revoke_case "node kill, zero page" 2 3 "ok zero" zero "node kill 2" "node join 2"
revoke_case "all links down" 3 4 sigbus "" "link down 3.0
link down 3.1" "link up 3.0
link up 3.1"
revoke_case "node isolate" 4 4 sigbus "" "node isolate 4" "node join 4"

# one link down is not a revocation: the other plane carries the traffic
if hold_start 0 "3 0 $KEY 2M rw 3"; then
	fmctl link down 3.0
	wait_line 0 /tmp/hold.log '^timeout\|^revoked' 10
	check "$KERNEL: one link down: the window survives" \
		gexec 0 "grep -q '^timeout' /tmp/hold.log"
	fmctl link up 3.0
else
	not_ok "$KERNEL: one link down: import from node 3"
fi
fi

# --- revocation between the two VMs --------------------------------------------
# exporter_start: mem_peer export on node 0 (first allocation: pool 0)
exporter_start() {
	gexec 0 "rm -f /tmp/exp.log; $PEER export 0xe5 2M rw >/tmp/exp.log 2>&1 </dev/null & echo \$! >/tmp/exp.pid"
	wait_line 0 /tmp/exp.log '^export\|^error' 30 &&
		gexec 0 "grep -q '^export node 0 id 0 ' /tmp/exp.log"
}

if ! want vms; then
	:
elif exporter_start && hold_start 1 "0 0 0xe5 2M rw 60"; then
	ok "$KERNEL: exporter reset: node 1 maps node 0's export"
	gexec 0 "echo 1 >/sys/class/snode/snode0/device/reset"
	hold_result 1 2 sigbus sigbus "exporter reset"
	out=$(gexec 1 "$PEER check 0 0 0xe5 2M" 2>&1)
	check "$KERNEL: exporter reset: the export is restored ($out)" \
		grep -q "^pattern ok" <<<"$out"

	hold_start 1 "0 0 0xe5 2M rw 60"
	gexec 0 "kill -KILL \$(cat /tmp/exp.pid)"
	hold_result 1 1 sigbus sigbus "exporter killed"
else
	not_ok "$KERNEL: exporter reset: node 1 maps node 0's export"
fi

# --- the importer's own NIC goes away ---------------------------------------------
bdf1=$(gexec 1 "basename \$(readlink /sys/class/snode/snode0/device)")
if ! want unbind; then
	:
elif hold_start 1 "2 0 $KEY 2M rw 60"; then
	ok "$KERNEL: unbind: node 1 maps node 2's export"
	out=$(gexec 1 "rmmod snode 2>&1; lsmod | grep -c '^snode '")
	check "$KERNEL: rmmod is refused while an import is open" \
		grep -q "^1$" <<<"$out"
	gexec 1 "echo $bdf1 >/sys/bus/pci/drivers/snode/unbind"
	hold_result 1 6 sigbus sigbus "importer unbind"
	# the old snode0 goes once its last import is closed
	gexec 1 "while kill -0 \$(cat /tmp/hold.pid) 2>/dev/null; do sleep 0.1; done"
	gexec 1 "echo $bdf1 >/sys/bus/pci/drivers/snode/bind"
	out=$(gexec 1 "$PEER check 2 0 $KEY 2M" 2>&1)
	check "$KERNEL: unbind: import again after bind ($out)" \
		grep -q "^pattern ok" <<<"$out"
else
	not_ok "$KERNEL: unbind: node 1 maps node 2's export"
fi

# --- nothing leaked ------------------------------------------------------------------
splat='WARNING:|BUG:|Call Trace:|Oops|possible circular locking|INFO: possible'
for node in $(want leak && echo 0 1); do
	out=$(gexec "$node" "dmesg" 2>&1)
	check "$KERNEL: node $node: no kernel splat in dmesg" \
		bash -c '! grep -Eq "$1" <<<"$2"' _ "$splat" "$out"
	out=$(gexec "$node" "$PEER stat" 2>&1)
	check "$KERNEL: node $node: pool whole, no import, export or ATT entry ($out)" \
		awk '$1 == "pool" && $2 == $4 && $6 == 0 && $8 == 0 && $10 == 0 { ok = 1 } END { exit !ok }' <<<"$out"
	gexec "$node" "rmmod snode" >>"$LOG/rmmod" 2>&1
	check "$KERNEL: node $node: rmmod snode" [ $? -eq 0 ]
done

# --- scale: 256 exporters ---------------------------------------------------------------
# One process imports from every node: it needs the whole ATT, beyond the
# default per-file cap (Documentation/decisions/0008-permission-model.md).
if want scale && vm_up 256-sim --topology "$TOPO_SCALE" --mem 768; then
	gexec 0 "insmod /lib/snode/snode.ko max_imports=0" >>"$LOG/insmod" 2>&1
	check "$KERNEL: 256-sim: insmod snode.ko" [ $? -eq 0 ]
	out=$(GEXEC_TIMEOUT=600 gexec 0 "$PEER scale 1 256 0 $KEY 64K" 2>&1)
	echo "$out" >"$LOG/scale.log"
	check "$KERNEL: 256-sim: imports from 256 nodes show their memory" \
		grep -q "^scale 256 ok" <<<"$out"
	check "$KERNEL: 256-sim: the next import fails with ENOSPC" \
		grep -q "^full ENOSPC" <<<"$out"
	out=$(gexec 0 "$PEER stat" 2>&1)
	check "$KERNEL: 256-sim: every entry released ($out)" \
		awk '$1 == "pool" && $6 == 0 && $10 == 0 { ok = 1 } END { exit !ok }' <<<"$out"
	gexec 0 "rmmod snode" >>"$LOG/rmmod" 2>&1
	check "$KERNEL: 256-sim: rmmod snode" [ $? -eq 0 ]
fi

finish
