#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# net.sh - IP over the fabric: snode.ko's network interface, judged by
# Debian's own tools (busybox ip and ping, iperf3 staged from Debian).
#
# Usage: selftests/vm/net.sh 6.1|6.12|debug
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1 with a link on each of two
# switch planes, simulated node 2 without a network interface) and checks:
#   - every NIC has an interface with the MAC derived from fabric and node
#     id, MTU 9000, carrier on while another node is up
#   - addresses on both nodes, ping both ways, ethtool-style counters move
#   - an iperf3 TCP run from node 0 to node 1 moves data (its rate is
#     printed, not judged: make bench compares it)
#   - a TCP connection survives the loss of plane 0 under it (iperf3 keeps
#     running and ends without error; data crossed after the failure)
#   - a function-level reset of node 1's NIC: the interface comes back by
#     itself and ping works again
#   - node 1 killed: pings to it fail at once (no stuck queue), counted as
#     carrier errors; node 0 keeps its carrier while node 2 is up, loses it
#     when node 2 is isolated and gets it back when it joins
#   - snode.ko unloads with the interface up and addressed
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make emu-build; iperf3 is staged from Debian (snode-vm --package).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite net "6.1|6.12|debug" "${1:-}"
require

# the interface of the first NIC, by its PCI parent
IFACE='$(ls /sys/class/snode/snode0/device/net)'
ip_of() { echo "10.77.0.$(($1 + 1))"; }

# stat_of NODE COUNTER: /sys/class/net/IFACE/statistics/COUNTER on NODE
stat_of() {
	gexec "$1" "cat /sys/class/net/$IFACE/statistics/$2" | tr -dc 0-9
}
carrier_is() { [ "$(gexec "$1" "cat /sys/class/net/$IFACE/carrier" | tr -dc 0-9)" = "$2" ]; }

SNODE_VM_PACKAGES="iperf3" vm_up net --topology "$TOP/selftests/vm/msg.topo" || finish
fabric=$(awk '$1 == "fabric" { print $2 }' "$TOP/selftests/vm/msg.topo")

for node in 0 1; do
	gexec_t "$node" 60 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
	out=$(gexec "$node" "i=$IFACE; echo \$i \$(cat /sys/class/net/\$i/address) \$(cat /sys/class/net/\$i/mtu) \$(cat /sys/class/net/\$i/type)")
	want=$(printf '02:53:4e:%02x:00:%02x 9000 1' "$fabric" "$node")
	check "$KERNEL: node $node: an interface with MAC, MTU, type $want (got: $out)" \
		[ "${out#* }" = "$want" ]
	gexec "$node" "ip link set dev $IFACE up && ip addr add $(ip_of "$node")/24 dev $IFACE" >>"$LOG/ip" 2>&1
	check "$KERNEL: node $node: ip link set up, ip addr add $(ip_of "$node")/24" [ $? -eq 0 ]
done
check "$KERNEL: node 0: carrier on" until_ok 10 carrier_is 0 1

for pair in "0 1" "1 0"; do
	set -- $pair
	out=$(gexec "$1" "ping -c 3 -W 5 $(ip_of "$2")")
	echo "$out" >>"$LOG/ping"
	check "$KERNEL: ping node $1 -> node $2: 3 of 3 answered" \
		grep -q '3 packets transmitted, 3 packets received' <<<"$out"
done
out=$(gexec 0 "ping -c 2 -s 8972 -W 10 $(ip_of 1)")
echo "$out" >>"$LOG/ping"
check "$KERNEL: ping with 9000-byte frames (one frame = 188 messages)" \
	grep -q '2 packets transmitted, 2 packets received' <<<"$out"
rx=$(stat_of 1 rx_packets)
check "$KERNEL: node 1 counted the frames it received (rx_packets $rx)" [ "${rx:-0}" -ge 5 ]

# --- TCP ----------------------------------------------------------------------------
gexec 1 "iperf3 -s -D -I /tmp/iperf3.pid" >>"$LOG/iperf3" 2>&1
sleep 1
out=$(gexec_t 0 120 "iperf3 -c $(ip_of 1) -t 5 -J")
echo "$out" >"$LOG/iperf3-run.json"
rate=$(python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["end"]; print("%d %.2f" % (e["sum_received"]["bytes"], e["sum_received"]["bits_per_second"]/1e6))' <<<"$out" 2>>"$LOG/py.err")
moved=0
[ -n "$rate" ] && [ "${rate%% *}" -gt 0 ] && moved=1
check "$KERNEL: iperf3 TCP node 0 -> node 1 moved data (bytes, Mbit/s: ${rate:-none})" \
	[ "$moved" = 1 ]

# A connection across a plane failure: plane 0 carries node 0's traffic
# until its cable goes down 4 s into a 12 s run.
gexec_t 0 120 "iperf3 -c $(ip_of 1) -t 12 -i 1 -J" >"$LOG/iperf3-failover.json" 2>&1 &
client=$!
sleep 4
fmctl link down 0.0
check "$KERNEL: snode-fm ctl link down 0.0 (plane 0 of node 0) mid-connection" [ $? -eq 0 ]
wait "$client"
crc=$?
after=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
if "error" in d: print("error: " + d["error"]); sys.exit()
print(sum(i["sum"]["bytes"] for i in d["intervals"] if i["sum"]["start"] >= 5))' \
	"$LOG/iperf3-failover.json" 2>>"$LOG/py.err")
survived=0
[ "$crc" -eq 0 ] && [[ "$after" =~ ^[0-9]+$ ]] && [ "$after" -gt 0 ] && survived=1
check "$KERNEL: ... the connection survived and carried data after the failure (exit $crc; from 5 s on: ${after:-nothing} bytes)" \
	[ "$survived" = 1 ]
fmctl link up 0.0

# --- reset ---------------------------------------------------------------------------
gexec 1 "echo 1 > /sys/class/snode/snode0/device/reset" >>"$LOG/reset" 2>&1
check "$KERNEL: node 1: function-level reset" [ $? -eq 0 ]
ping_ok() { gexec 0 "ping -c 1 -W 2 $(ip_of 1)" | grep -q '1 packets received'; }
check "$KERNEL: ... node 1's interface came back by itself: ping answers" until_ok 20 ping_ok

# --- a peer dies ---------------------------------------------------------------------
before=$(stat_of 0 tx_carrier_errors)
fmctl node kill 1
check "$KERNEL: snode-fm ctl node kill 1" [ $? -eq 0 ]
node_dead() { gexec 0 "snodectl -j node list" | grep -q '"state": *"dead"\|"state":"dead"'; }
until_ok 30 node_dead
t0=$SECONDS
out=$(gexec_t 0 60 "ping -c 3 -W 2 $(ip_of 1)")
echo "$out" >>"$LOG/ping"
check "$KERNEL: ... pings to the dead node go unanswered, within $((SECONDS - t0)) s (no stuck queue)" \
	grep -q '3 packets transmitted, 0 packets received' <<<"$out"
after=$(stat_of 0 tx_carrier_errors)
check "$KERNEL: ... counted as carrier errors ($before -> $after)" \
	[ "${after:-0}" -gt "${before:-0}" ]
check "$KERNEL: ... node 0 keeps its carrier: node 2 is still up" carrier_is 0 1
fmctl node isolate 2
check "$KERNEL: snode-fm ctl node isolate 2: no other node is reachable, carrier off" \
	until_ok 20 carrier_is 0 0
fmctl node join 2
check "$KERNEL: snode-fm ctl node join 2: carrier on again" until_ok 20 carrier_is 0 1

gexec 0 "rmmod snode" >>"$LOG/rmmod" 2>&1
check "$KERNEL: node 0: rmmod snode with the interface up and addressed" [ $? -eq 0 ]
out=$(gexec 0 "ls /sys/class/net" | tr '\n' ' ')
check "$KERNEL: ... and the interface is gone (left: $out)" \
	bash -c '[ -n "$1" ] && [[ "$1" != *snode* ]]' _ "$out"

finish
