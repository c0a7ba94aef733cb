#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# core.sh - the snode.ko core suite on an emulated supernode.
#
# Usage: selftests/vm/core.sh 6.1|6.12|debug
#
# Boots tools/emu/topologies/2nic-host.topo (host 0: a VM with the NICs of
# nodes 0 and 1; host 1: a VM with node 2) under the given guest kernel and
# checks, from the host:
#   - insmod prints the identity line of every NIC
#   - sysfs identity agrees with what the fabric manager configured
#   - core_test of the kselftest collection passes on both hosts, run by
#     run_kselftest.sh (each case is one test here)
#   - a temperature injected by the fabric manager raises temp1_max_alarm,
#     the THERMAL event reaches the driver and sensors(1) shows the NIC;
#     the alarm stays latched after the cause ends until root writes 0
#   - unload/load cycles leave nothing behind
#   - an unbind while the event thread holds a FABRIC event (the fabric
#     manager killed) waits for it and leaves no re-identify work behind
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite core "6.1|6.12|debug" "${1:-}"
TOPO=$TOP/tools/emu/topologies/2nic-host.topo

# host index -> first fabric node id (what "snode-vm exec --node" takes)
HOST_NODES=(0 2)

require
vm_up 2nic-host --topology "$TOPO" || finish

# --- load and identity ---------------------------------------------------------
for node in "${HOST_NODES[@]}"; do
	gexec "$node" "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: host of node $node: insmod snode.ko" [ $? -eq 0 ]
done

fm_json=$("$FM" ctl --dir "$SNODE_FM_DIR" show nodes -j 2>>"$LOG/fm-ctl.log")
fabric_id=$(awk '$1 == "fabric" { print $2 }' "$TOPO")

# Lines "snodeX node_id fabric_id nports pool_size" of every NIC on a host.
guest_ids() {
	gexec "$1" 'for d in /sys/class/snode/snode*; do
		echo ${d##*/} $(cat $d/node_id $d/fabric_id $d/nports $d/pool_size)
	done'
}

# fm_check NODE HOST NPORTS POOL: the fabric manager knows NODE on HOST with
# these ports and pool size.
fm_check() {
	python3 -c '
import json, sys
nodes = {n["id"]: n for n in json.loads(sys.argv[1])}
node, host, nports, pool = map(int, sys.argv[2:6])
n = nodes.get(node)
sys.exit(0 if n and n["host"] == host and n["nports"] == nports and
         n["pool_size"] == pool and n["attached"] else 1)
' "$fm_json" "$@"
}

expect_nics=(2 1)
for h in 0 1; do
	node=${HOST_NODES[$h]}
	dmesg_out=$(gexec "$node" "dmesg")
	ids=$(guest_ids "$node")
	echo "$ids" >"$LOG/ids-host$h"
	count=$(echo "$ids" | grep -c '^snode')
	check "$KERNEL: host $h has ${expect_nics[$h]} NIC(s)" \
		[ "$count" -eq "${expect_nics[$h]}" ]
	while read -r dev nid fid nports pool; do
		[ -n "$dev" ] || continue
		check "$KERNEL: host $h $dev: dmesg identity line (node $nid, fw)" \
			grep -Eq "$dev: node $nid fabric $fid fw [0-9]+\.[0-9]+\.[0-9]+, $nports ports" \
			<<<"$dmesg_out"
		check "$KERNEL: host $h $dev: fabric id $fid matches the topology" \
			[ "$fid" = "$fabric_id" ]
		check "$KERNEL: host $h $dev: node $nid identity matches snode-fm" \
			fm_check "$nid" "$h" "$nports" "$pool"
	done <<<"$ids"
done

# --- kselftests ------------------------------------------------------------------
for h in 0 1; do
	ksft_run "$KERNEL: host $h core_test" "${HOST_NODES[$h]}" 300 core_test
done

# --- hwmon alarm from an injected temperature ---------------------------------
# The snodeN of host 0 that is fabric node 0.
dev0=$(awk '$2 == 0 { print $1 }' "$LOG/ids-host0")
hw="/sys/class/snode/$dev0/device/hwmon/hwmon*"
if [ -z "$dev0" ]; then
	not_ok "$KERNEL: node 0 is on host 0"
else
	before=$(gexec 0 "grep 'type 6 ' /sys/kernel/debug/snode/$dev0/queues | cut -d' ' -f5")
	check "$KERNEL: snode-fm ctl node temp 0 95000" fmctl node temp 0 95000
	alarm=$(gexec 0 "for i in 1 2 3 4 5 6 7 8 9 10; do
			a=\$(cat $hw/temp1_max_alarm)
			[ \"\$a\" = 1 ] && break
			sleep 0.5
		done; echo \$a")
	check "$KERNEL: node 0 temp1_max_alarm=1 after 95 C" [ "$alarm" = 1 ]
	temp=$(gexec 0 "cat $hw/temp1_input")
	check "$KERNEL: node 0 temp1_input=95000 ($temp)" [ "$temp" = 95000 ]
	after=$(gexec 0 "grep 'type 6 ' /sys/kernel/debug/snode/$dev0/queues | cut -d' ' -f5")
	check "$KERNEL: node 0 THERMAL event received (${before:-0} -> ${after:-0})" \
		[ "${after:-0}" -gt "${before:-0}" ]
	sensors_out=$(gexec 0 "sensors")
	echo "$sensors_out" >"$LOG/sensors"
	check "$KERNEL: sensors shows snode-pci with temp1 and power1" \
		grep -q "^snode-pci" <<<"$sensors_out"
	check "$KERNEL: sensors shows the alarm" grep -q "ALARM" <<<"$sensors_out"

	fmctl node temp 0 45000
	# reads do not clear the latched alarm; root's write of 0 does
	alarm=$(gexec 0 "sleep 1; cat $hw/temp1_max_alarm >/dev/null; cat $hw/temp1_max_alarm")
	check "$KERNEL: node 0 temp1_max_alarm stays latched at 45 C after reads" [ "$alarm" = 1 ]
	alarm=$(gexec 0 "for f in $hw/temp1_max_alarm; do echo 0 >\$f; done; cat $hw/temp1_max_alarm")
	check "$KERNEL: node 0 temp1_max_alarm clears at 45 C when root writes 0" [ "$alarm" = 0 ]
fi

# --- unload / load cycles -------------------------------------------------------
for node in "${HOST_NODES[@]}"; do
	out=$(gexec "$node" 'set -e
		for i in 1 2 3; do
			rmmod snode
			for p in /sys/class/snode /sys/module/snode /sys/kernel/debug/snode /dev/snode0; do
				[ ! -e $p ] || { echo "left behind: $p"; exit 1; }
			done
			! grep -qw snode /proc/devices || { echo "chrdev left"; exit 1; }
			insmod /lib/snode/snode.ko
			[ -e /dev/snode0 ] || { echo "no /dev/snode0 after insmod"; exit 1; }
			cat /sys/class/snode/snode0/node_id >/dev/null
		done; echo cycles-ok')
	check "$KERNEL: host of node $node: 3 unload/load cycles leave nothing behind" \
		grep -q cycles-ok <<<"$out"
done

# --- unbind while a FABRIC event is in the event thread -------------------------
# Last, because the fabric manager is killed for it: every NIC detaches and
# gets a FABRIC event. On host 1 the event thread holds it for 6 s (delay
# point fabric_event; longer than the debug kernel takes to get from the
# unbind to snode_hw_stop()'s cancel) before it queues the re-identify work,
# and the NIC is unbound as soon as the event is counted; the work, once queued, waits 3 s
# more before it looks at the device (identify_work). Unbind must wait for
# the thread and then cancel the work it queued, or the work outlives the
# device (KASAN on the debug kernel; the console scan fails the run).
gexec_t 2 120 'd=$(basename $(readlink /sys/class/snode/snode0/device))
	q=/sys/kernel/debug/snode/snode0/queues
	fabric() { n=$(sed -n "s/^event: type 8 count //p" $q); echo ${n:-0}; }
	n0=$(fabric)
	echo 6000000 >/sys/kernel/debug/snode/delay/fabric_event
	echo 3000000 >/sys/kernel/debug/snode/delay/identify_work
	echo "<3>snode-test: fabric-unbind ready" >/dev/kmsg
	i=0
	while [ $(fabric) -le $n0 ] && [ $i -lt 900 ]; do sleep 0.05; i=$((i + 1)); done
	echo fabric_events $n0 $(fabric)
	t0=$(cut -d" " -f1 /proc/uptime)
	echo $d >/sys/bus/pci/drivers/snode/unbind
	t1=$(cut -d" " -f1 /proc/uptime)
	echo unbind_ms $(awk "BEGIN { print int(($t1 - $t0) * 1000) }")
	sleep 4
	echo 0 >/sys/kernel/debug/snode/delay/fabric_event
	echo 0 >/sys/kernel/debug/snode/delay/identify_work
	echo $d >/sys/bus/pci/drivers/snode/bind && [ -e /dev/snode0 ] && echo bound
	dmesg | grep -c -E "BUG:|Oops|WARNING:|general protection" || true' \
	>"$LOG/fabric-unbind.out" 2>&1 &
gpid=$!
# the console shows when the delays are set (one exec per node at a time);
# KERN_ERR, since the stock kernels' consoles print nothing quieter. The
# guest waits at least 45 s for the event, longer than this wait.
until_ok 30 grep -q "snode-test: fabric-unbind ready" "$SNODE_VM_UP/node2.log"
kill -KILL "$(cat "$SNODE_VM_UP/fm.pid")" 2>>"$LOG/fabric-unbind"
wait "$gpid"
out=$(cat "$LOG/fabric-unbind.out")
echo "$out" >>"$LOG/fabric-unbind"
ms=$(sed -n 's/^unbind_ms //p' <<<"$out")
ev=$(sed -n 's/^fabric_events //p' <<<"$out")
check "$KERNEL: unbind waited for a FABRIC event in flight (${ms:-?} ms; FABRIC events before/after: ${ev:-?})" [ "${ms:-0}" -ge 1000 ]
check "$KERNEL: bind after that unbind brings /dev/snode0 back" grep -qx bound <<<"$out"
check "$KERNEL: no oops or BUG after unbind with a FABRIC event in flight" \
	[ "$(tail -n1 <<<"$out")" = 0 ]

finish
