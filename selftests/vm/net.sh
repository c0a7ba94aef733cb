#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# net.sh - IP over the fabric: snode.ko's network interface, judged by
# Debian's own tools (busybox ip and ping, iperf3 staged from Debian).
#
# Usage: selftests/vm/net.sh 6.1|6.12|debug [pair|three]
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1 with a link on each of two
# switch planes, simulated node 2 without a network interface) and checks:
#   - every NIC has an interface with the MAC derived from fabric and node
#     id, MTU 9000, carrier on while another node is up
#   - addresses on both nodes, ping both ways, ethtool-style counters move
#   - the window ring (decision 0031): the first frames go as messages
#     (ethtool -S rx_msg_frames), large pings then go through the ring
#     (tx_ring_frames on the sender, rx_ring_frames on the receiver, one
#     window and one granted ring listed), data intact (a pattern ping, a
#     4 MiB file fetched over HTTP compared by sha256); the interface
#     taken down returns every pool range, export and ATT entry it held;
#     a GRANT later than the asker's ASK timeout (delay point net_grant):
#     the ring is used and no frame is delivered twice
#   - an iperf3 TCP run from node 0 to node 1 moves data (its rate is
#     printed, not judged: make bench compares it)
#   - a TCP connection survives the loss of plane 0 under it (iperf3 keeps
#     running and ends without error; data crossed after the failure)
#   - a function-level reset of node 1's NIC: the interface comes back by
#     itself, ping works again, through the ring again
#   - node 1 killed mid-stream: pings to it fail at once (no stuck queue),
#     counted as carrier errors; node 0's window onto node 1's ring is
#     gone (its ATT entry in snodectl mem list att, tx_rings 0) and so is
#     the ring it gave node 1 (rx_rings 0); node 0 keeps its carrier while
#     node 2 is up, loses it when node 2 is isolated and gets it back when
#     it joins
#   - snode.ko unloads with the interface up and addressed
# and then boots selftests/vm/net3.topo (VM nodes 0, 1 and 2) and checks
# that a peer which stops draining the ring it granted (debugfs
# net_rx_stall on node 1) stalls only itself: while node 0 floods node 1,
# pings from node 0 to node 2 are answered as before (an ordered transmit
# work that waited 200 ms per frame for node 1's full ring held every
# destination to ~5 frames/s); node 0 counts the frames node 1's full ring
# cost it as tx_fifo_errors (ip -s link); node 1 drained again gets pings
# through its ring again; a ring that changes hands (node 0 cut off the
# fabric, node 2 granted its ring on node 1) is scrubbed first: node 1's
# pool file, read on the host, holds none of node 0's frames any more.
# "pair" runs only the first part, "three" only the second.
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make emu-build; iperf3 and ethtool are staged from Debian
# (snode-vm --package).

set -u

. "$(dirname "$0")/lib.sh"
PART=${2:-all}
# each part its own supernode directory and logs, as ofi.sh's and mpi.sh's
case "$PART" in
all|pair) NAME=net ;;
three) NAME=net-three ;;
*) echo "usage: $0 6.1|6.12|debug [pair|three]" >&2; exit 2 ;;
esac
vm_suite "$NAME" "6.1|6.12|debug" "${1:-}" "[pair|three]"
require

# the interface of the first NIC, by its PCI parent
IFACE='$(ls /sys/class/snode/snode0/device/net)'
ip_of() { echo "10.77.0.$(($1 + 1))"; }

# stat_of NODE COUNTER: /sys/class/net/IFACE/statistics/COUNTER on NODE
stat_of() {
	gexec "$1" "cat /sys/class/net/$IFACE/statistics/$2" | tr -dc 0-9
}
carrier_is() { [ "$(gexec "$1" "cat /sys/class/net/$IFACE/carrier" | tr -dc 0-9)" = "$2" ]; }
# ethtool_of NODE COUNTER: ethtool -S's COUNTER of the interface on NODE
ethtool_of() {
	gexec "$1" "ethtool -S $IFACE" | awk -v c="$2:" '$1 == c { print $2 }' | tr -dc 0-9
}
# att_to NODE PEER: ATT entries of NODE that map PEER's memory (netlink dump)
att_to() {
	local out
	out=$(gexec "$1" "snodectl -j mem list att")
	echo "$out" >>"$LOG/att.json"
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(sum(1 for x in d["devices"] for e in x["att"] if e.get("node") == int(sys.argv[2])))' \
		"$out" "$2" 2>>"$LOG/py.err"
}

# up_iface NODE: snode.ko in, the interface up and addressed (one TAP line)
up_iface() {
	gexec_t "$1" 60 "insmod /lib/snode/snode.ko && ip link set dev $IFACE up && ip addr add $(ip_of "$1")/24 dev $IFACE" >>"$LOG/ip" 2>&1
	check "$KERNEL: node $1: insmod snode.ko, ip link set up, ip addr add $(ip_of "$1")/24" [ $? -eq 0 ]
}
ping_ok() { gexec 0 "ping -c 1 -W 2 $(ip_of "${1:-1}")" | grep -q '1 packets received'; }

if [ "$PART" != three ]; then
SNODE_VM_PACKAGES="iperf3 ethtool" vm_up net --topology "$TOP/selftests/vm/msg.topo" || finish
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
# The interface's endpoint is the driver's, not the shell's that ran
# `ip link set up`: comm [snode], no pid.
out=$(gexec 0 "snodectl -j msg list")
echo "$out" >>"$LOG/msg-list.json"
check "$KERNEL: node 0: the interface's endpoint is listed as the driver's (comm [snode], no pid)" pycheck '
eps = [e for x in json.loads(sys.argv[1])["devices"] for e in x["endpoints"]]
print(eps, file=sys.stderr)
sys.exit(0 if eps and all(e.get("comm") == "[snode]" and "pid" not in e for e in eps) else 1)' "$out"

for pair in "0 1" "1 0"; do
	set -- $pair
	out=$(gexec "$1" "ping -c 3 -W 5 $(ip_of "$2")")
	echo "$out" >>"$LOG/ping"
	check "$KERNEL: ping node $1 -> node $2: 3 of 3 answered" \
		grep -q '3 packets transmitted, 3 packets received' <<<"$out"
done
out=$(gexec 0 "ping -c 2 -s 8972 -W 10 $(ip_of 1)")
echo "$out" >>"$LOG/ping"
check "$KERNEL: ping with 9000-byte frames" \
	grep -q '2 packets transmitted, 2 packets received' <<<"$out"
rx=$(stat_of 1 rx_packets)
check "$KERNEL: node 1 counted the frames it received (rx_packets $rx)" [ "${rx:-0}" -ge 5 ]

# --- the window ring ---------------------------------------------------------------
msg=$(ethtool_of 1 rx_msg_frames)
check "$KERNEL: ring: the first frames came as messages (node 1 rx_msg_frames ${msg:-none})" \
	[ "${msg:-0}" -ge 1 ]
tx0=$(ethtool_of 0 tx_ring_frames)
rx0=$(ethtool_of 1 rx_ring_frames)
out=$(gexec 0 "ping -c 5 -s 8972 -p a5 -W 10 $(ip_of 1)")
echo "$out" >>"$LOG/ping"
check "$KERNEL: ring: ping -s 8972 -p a5, 5 of 5 answered" \
	grep -q '5 packets transmitted, 5 packets received' <<<"$out"
tx1=$(ethtool_of 0 tx_ring_frames)
rx1=$(ethtool_of 1 rx_ring_frames)
check "$KERNEL: ring: ... the echo requests went through the ring (node 0 tx_ring_frames $tx0 -> $tx1, node 1 rx_ring_frames $rx0 -> $rx1)" \
	bash -c '[ "${1:-0}" -ge $(( ${2:-0} + 5 )) ] && [ "${3:-0}" -ge $(( ${4:-0} + 5 )) ]' _ "$tx1" "$tx0" "$rx1" "$rx0"
out="$(ethtool_of 0 tx_rings) $(ethtool_of 1 ring_grants) $(ethtool_of 1 rx_rings) $(att_to 0 1)"
check "$KERNEL: ring: one window on node 0, granted and held by node 1, one ATT entry onto node 1 (tx_rings ring_grants rx_rings att: $out)" \
	bash -c 'set -- $1; [ "$1" = 1 ] && [ "${2:-0}" -ge 1 ] && [ "$3" -ge 1 ] && [ "$4" = 1 ]' _ "$out"
gexec 1 "mkdir -p /tmp/www && head -c 4194304 /dev/urandom >/tmp/www/blob && httpd -p 8080 -h /tmp/www" >>"$LOG/http" 2>&1
want=$(gexec 1 "sha256sum /tmp/www/blob" | awk '{ print $1 }')
got=$(gexec_t 0 180 "wget -q -O /tmp/blob http://$(ip_of 1):8080/blob && sha256sum /tmp/blob" | awk '{ print $1 }')
check "$KERNEL: ring: a 4 MiB file fetched from node 1 arrives intact (sha256 ${want:0:12} / ${got:0:12})" \
	bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$want" "$got"
out="$(ethtool_of 1 tx_ring_frames) $(ethtool_of 0 rx_ring_frames)"
check "$KERNEL: ring: ... node 1 sent it through node 0's ring (tx_ring_frames rx_ring_frames: $out)" \
	bash -c 'set -- $1; [ "${1:-0}" -ge 100 ] && [ "${2:-0}" -ge 100 ]' _ "$out"
# Taking the interface down returns what the rings held: node 0's whole
# pool is free again and it lists no export, import or ATT entry any more
# (netlink dump).
gexec 0 "ip link set dev $IFACE down" >>"$LOG/ip" 2>&1
out=$(gexec 0 "snodectl -j mem list")
echo "$out" >"$LOG/mem-after-down.json"
check "$KERNEL: ring: node 0's interface down: its rings, exports and windows are gone" pycheck '
d = json.loads(sys.argv[1])
left = [(k, e) for x in d["devices"] for k in ("exports", "imports", "att") for e in x[k]]
left += [x for x in d["devices"] if x["pool_free"] != x["pool_size"]]
print(left, file=sys.stderr)
sys.exit(0 if d["devices"] and not left else 1)' "$out"
gexec 0 "ip link set dev $IFACE up" >>"$LOG/ip" 2>&1
check "$KERNEL: ring: ... and up again: ping answers" until_ok 20 ping_ok

# A late GRANT (node 1 answers each ASK after 3 s, past node 0's 2 s
# ASK timeout): node 0 asks twice and must take only the answer to its
# latest ASK; node 1, seeing that ASK again while node 0 already uses the
# ring, must not empty the ring under it (before version 3 it did, and the
# frames since the grant came twice: node 1 took more frames out of the
# ring than node 0 put in). Node 1's transmit work waits in the delay, so
# the replies of those 6 s beyond its queue are lost; the pings after it
# are answered.
grants0=$(ethtool_of 1 ring_grants)
rx0=$(ethtool_of 1 rx_ring_frames)
tx0=$(ethtool_of 0 tx_ring_frames)
gexec 1 "echo 3000000 > /sys/kernel/debug/snode/delay/net_grant"
gexec 0 "ip link set dev $IFACE down; ip link set dev $IFACE up" >>"$LOG/ip" 2>&1
out=$(gexec_t 0 60 "ping -c 40 -i 0.2 -s 1000 -W 10 $(ip_of 1)")
gexec 1 "echo 0 > /sys/kernel/debug/snode/delay/net_grant"
echo "$out" >>"$LOG/ping"
sleep 1
grants1=$(ethtool_of 1 ring_grants)
rx1=$(ethtool_of 1 rx_ring_frames)
tx1=$(ethtool_of 0 tx_ring_frames)
check "$KERNEL: ring: late GRANT: node 0 asked again and node 1 answered both (ring_grants ${grants0:-none} -> ${grants1:-none})" \
	[ $((${grants1:-0} - ${grants0:-0})) -ge 2 ]
check "$KERNEL: ring: ... the echo requests went through the ring (node 0 tx_ring_frames ${tx0:-none} -> ${tx1:-none})" \
	[ $((${tx1:-0} - ${tx0:-0})) -ge 10 ]
check "$KERNEL: ring: ... node 1 took out of the ring exactly what node 0 put in (rx_ring_frames ${rx0:-none} -> ${rx1:-none})" \
	[ $((${rx1:-0} - ${rx0:-0})) -eq $((${tx1:-0} - ${tx0:-0})) ]
check "$KERNEL: ring: ... no echo answered twice ($(grep -c 'DUP!' <<<"$out") DUP!, $(grep -c 'bytes from' <<<"$out") of 40 answered)" \
	bash -c '! grep -q "DUP!" <<<"$1" && [ "$(grep -c "bytes from" <<<"$1")" -ge 10 ]' _ "$out"

# --- broadcast budget ---------------------------------------------------------------
# Node 0 floods 9 KB multicast frames (ping 224.0.0.1 -s 8972: one frame,
# 188 messages a copy; node 1 ignores echo requests to multicast) and
# pings node 1 meanwhile. Every copy is 188 synchronous sends of the one
# transmit work, which the echo requests queue behind; the copies may take
# it 25 ms of every 100 ms, the others are dropped and counted
# (tx_broadcast_dropped). Before the budget every copy went: the queue
# filled with frames of ~190 messages each, the echo requests waited
# seconds behind them or found the queue full (ENOBUFS).
gexec 0 "ip route add 224.0.0.0/4 dev $IFACE" >>"$LOG/ip" 2>&1
c0=$(ethtool_of 0 tx_broadcast_copies)
out=$(gexec_t 0 90 "ping -q -c 300 -i 0.01 -s 8972 -W 1 224.0.0.1 >/tmp/mflood 2>&1 & sleep 1; ping -c 20 -i 0.2 -W 2 $(ip_of 1); wait; cat /tmp/mflood")
echo "$out" >>"$LOG/bcast"
c1=$(ethtool_of 0 tx_broadcast_copies)
d1=$(ethtool_of 0 tx_broadcast_dropped)
got=$(grep -c 'bytes from' <<<"$out")
rtt=$(sed -n 's|.*min/avg/max = [0-9.]*/\([0-9.]*\)/\([0-9.]*\).*|\1 \2|p' <<<"$out")
check "$KERNEL: broadcast: while node 0 floods 9 KB multicast frames, its pings to node 1 are answered ($got of 20; avg max ms: ${rtt:-none})" \
	[ "$got" -ge 18 ]
check "$KERNEL: ... the copies over the budget were dropped and counted (tx_broadcast_copies ${c0:-none} -> ${c1:-none}, tx_broadcast_dropped ${d1:-none})" \
	bash -c '[ "${1:-0}" -gt "${2:-0}" ] && [ "${3:-0}" -gt 0 ]' _ "$c1" "$c0" "$d1"
gexec 0 "ip route del 224.0.0.0/4 dev $IFACE" >>"$LOG/ip" 2>&1

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
check "$KERNEL: ... node 1's interface came back by itself: ping answers" until_ok 20 ping_ok
tx0=$(ethtool_of 0 tx_ring_frames)
out=$(gexec 0 "ping -c 5 -s 8000 -W 10 $(ip_of 1)")
echo "$out" >>"$LOG/ping"
tx1=$(ethtool_of 0 tx_ring_frames)
check "$KERNEL: ... and the ring is back: large pings answered through it (tx_ring_frames $tx0 -> $tx1)" \
	bash -c 'grep -q "5 packets received" <<<"$1" && [ "${2:-0}" -ge $(( ${3:-0} + 3 )) ]' _ "$out" "$tx1" "$tx0"
# A reset while frames go through the ring: node 1 stores each frame into
# node 0's ring 200 ms after it looked at its window (delay point
# net_ring_put) while node 0 pings it, so the reset comes while node 1's
# transmit work is about to store. No CPU access may reach the NIC while it
# resets: a store after the reset began goes to a window the reset took
# (the aperture hole), and the frame counted as put never arrives. Node 0
# must take out of its ring exactly what node 1 counted as put.
gexec 1 "echo 200000 > /sys/kernel/debug/snode/delay/net_ring_put"
tx0=$(ethtool_of 1 tx_ring_frames)
rx0=$(ethtool_of 0 rx_ring_frames)
gexec_t 0 60 "ping -c 40 -i 0.1 -s 1000 -W 2 $(ip_of 1)" >>"$LOG/ping" 2>&1 &
pinger=$!
sleep 2
gexec 1 "echo 1 > /sys/class/snode/snode0/device/reset" >>"$LOG/reset" 2>&1
check "$KERNEL: node 1: function-level reset while its transmit work stores into node 0's ring (delay point net_ring_put)" [ $? -eq 0 ]
wait "$pinger"
gexec 1 "echo 0 > /sys/kernel/debug/snode/delay/net_ring_put"
sleep 2
tx1=$(ethtool_of 1 tx_ring_frames)
rx1=$(ethtool_of 0 rx_ring_frames)
check "$KERNEL: ... no store reached the NIC during its reset: node 0 took out of its ring what node 1 put in (node 1 tx_ring_frames ${tx0:-none} -> ${tx1:-none}, node 0 rx_ring_frames ${rx0:-none} -> ${rx1:-none})" \
	bash -c '[ $(($1 - $2)) -ge 1 ] && [ $(($1 - $2)) -eq $(($3 - $4)) ]' _ "${tx1:-0}" "${tx0:-0}" "${rx1:-0}" "${rx0:-0}"
check "$KERNEL: ... and ping answers after it" until_ok 20 ping_ok

# --- a peer dies ---------------------------------------------------------------------
before=$(stat_of 0 tx_carrier_errors)
# mid-stream: node 0 sends to node 1 through the ring when node 1 dies
gexec_t 0 60 "ping -c 20 -i 0.2 -s 8000 -W 2 $(ip_of 1)" >>"$LOG/ping" 2>&1 &
pinger=$!
sleep 2
fmctl node kill 1
check "$KERNEL: snode-fm ctl node kill 1 (while node 0 pings it through the ring)" [ $? -eq 0 ]
wait "$pinger"
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
out="$(ethtool_of 0 tx_rings) $(ethtool_of 0 rx_rings) $(att_to 0 1)"
check "$KERNEL: ... node 0's window onto node 1's ring and the ring it gave node 1 are gone (tx_rings rx_rings att: $out)" \
	[ "$out" = "0 0 0" ]
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

# Detached: the fabric manager goes (its NICs detach, decision 0010), so
# node 0's NIC has no node id and reaches nobody: carrier off. The MAC
# stays what the last attach made it. (The emulated NIC attaches only when
# its QEMU starts, so a re-attach under a new id is not run here.)
gexec_t 0 60 "insmod /lib/snode/snode.ko && ip link set dev $IFACE up" >>"$LOG/ip" 2>&1
check "$KERNEL: node 0: snode.ko loaded again, interface up, carrier on (node 2 is up)" \
	until_ok 20 carrier_is 0 1
mac0=$(gexec 0 "cat /sys/class/net/$IFACE/address" | tr -dc 0-9a-f:)
kill -KILL "$(cat "$SNODE_VM_UP/fm.pid")" 2>>"$LOG/fm-kill"
check "$KERNEL: fabric manager killed: node 0's NIC is detached, carrier off" \
	until_ok 20 carrier_is 0 0
mac1=$(gexec 0 "cat /sys/class/net/$IFACE/address" | tr -dc 0-9a-f:)
check "$KERNEL: ... its MAC stays ${mac0:-none} (now ${mac1:-none})" \
	bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$mac0" "$mac1"
# snode.ko loaded while the NIC is detached, as before a late attach: it
# has no node id, so no MAC of the fabric: a random one until it attaches
# (before, the MAC named node 0xffff: 02:53:4e:FF:ff:ff), carrier off.
gexec_t 0 60 "rmmod snode && insmod /lib/snode/snode.ko && ip link set dev $IFACE up" >>"$LOG/ip" 2>&1
mac2=$(gexec 0 "cat /sys/class/net/$IFACE/address" | tr -dc 0-9a-f:)
check "$KERNEL: snode.ko loaded on the detached NIC: a random MAC, not one of node 0xffff (${mac2:-none})" \
	bash -c '[ -n "$1" ] && [[ "$1" != 02:53:4e:* ]] && [[ "$1" != *:ff:ff ]]' _ "$mac2"
check "$KERNEL: ... carrier off" carrier_is 0 0
fi

# --- a peer that stops draining its ring (three nodes) -----------------------------
# Node 0 holds windows onto the rings of nodes 1 and 2; node 1 then stops
# draining its rings (debugfs net_rx_stall) while node 0 sends it 100
# frames a second. Node 1 must stall only itself: node 0's pings to node
# 2 are answered within their usual time, and the frames node 1's full
# ring cost are counted (tx_fifo_errors). Before each destination had its
# own wait, node 0's one transmit work waited 200 ms per frame for node
# 1's ring, and the pings to node 2 queued behind those frames.
if [ "$PART" != pair ]; then
if [ "$PART" = all ]; then
	# the pair's consoles stay for run-all.sh's log scan (snode-vm up
	# empties its directory), as msg.sh's four nodes do
	vm_down
	export SNODE_VM_UP=$SNODE_VM_UP-three
	export SNODE_FM_DIR=$SNODE_VM_UP
fi
SNODE_VM_PACKAGES="iperf3 ethtool" vm_up net3 --topology "$TOP/selftests/vm/net3.topo" || finish
for node in 0 1 2; do
	up_iface "$node"
done
for node in 1 2; do
	until_ok 20 ping_ok "$node"
	gexec 0 "ping -c 3 -s 8000 -W 5 $(ip_of "$node")" >>"$LOG/ping3" 2>&1
done
out="$(ethtool_of 0 tx_rings) $(ethtool_of 0 tx_ring_frames)"
check "$KERNEL: three: node 0 holds windows onto the rings of nodes 1 and 2 (tx_rings tx_ring_frames: $out)" \
	bash -c 'set -- $1; [ "$1" = 2 ] && [ "${2:-0}" -ge 4 ]' _ "$out"
fifo0=$(stat_of 0 tx_fifo_errors)
gexec 1 "echo 1 > /sys/kernel/debug/snode/net_rx_stall" >>"$LOG/ip" 2>&1
check "$KERNEL: three: node 1 stops draining its rings (debugfs net_rx_stall)" [ $? -eq 0 ]
# one exec per node at a time: the flood runs beside the pings in one shell
t0=$SECONDS
out=$(gexec_t 0 60 "ping -q -c 400 -i 0.01 -s 1400 -W 1 $(ip_of 1) >/tmp/flood 2>&1 & sleep 1; ping -c 20 -i 0.1 -W 1 $(ip_of 2); wait")
echo "$out" >>"$LOG/ping3"
got=$(grep -c 'bytes from' <<<"$out")
rtt=$(sed -n 's|.*min/avg/max = [0-9.]*/\([0-9.]*\)/\([0-9.]*\).*|\1 \2|p' <<<"$out")
check "$KERNEL: three: while node 1's ring is full, node 0's pings to node 2 are answered ($got of 20; avg max ms: ${rtt:-none}; $((SECONDS - t0)) s)" \
	[ "$got" -ge 18 ]
fifo1=$(stat_of 0 tx_fifo_errors)
check "$KERNEL: three: ... and node 0 counted the frames node 1's full ring cost (tx_fifo_errors ${fifo0:-none} -> ${fifo1:-none}; ethtool tx_ring_stuck $(ethtool_of 0 tx_ring_stuck))" \
	[ $((${fifo1:-0} - ${fifo0:-0})) -ge 100 ]
# what ip -s link reads (busybox's ip has no -s)
gexec 0 "cd /sys/class/net/$IFACE/statistics && grep . tx_*" >>"$LOG/ip" 2>&1
gexec 1 "echo 0 > /sys/kernel/debug/snode/net_rx_stall" >>"$LOG/ip" 2>&1
tx0=$(ethtool_of 0 tx_ring_frames)
check "$KERNEL: three: node 1 drains again: pings to it are answered" until_ok 20 ping_ok 1
tx1=$(ethtool_of 0 tx_ring_frames)
check "$KERNEL: three: ... through its ring (node 0 tx_ring_frames ${tx0:-none} -> ${tx1:-none})" \
	[ "${tx1:-0}" -gt "${tx0:-0}" ]

# A ring that changes hands is scrubbed: node 0 fills node 1's ring with
# frames of one byte (-p a7), is cut off the fabric (node 1 frees its
# ring), and node 2, asking node 1 for a ring, gets that one. Node 1's
# pool, read on the host (its file under /dev/shm), must no longer hold
# node 0's frames; before the scrub the new holder could read them.
a7_runs() {	# runs of 4 KiB of 0xa7 in node 1's pool file
	python3 -c 'import mmap, sys
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
pat, n, i = b"\xa7" * 4096, 0, 0
while True:
	i = m.find(pat, i)
	if i < 0:
		break
	n, i = n + 1, i + 8192
print(n)' "$pool1" 2>>"$LOG/py.err"
}
pool1=/dev/shm/snode-$(awk '$1 == "fabric" { print $2 }' "$TOP/selftests/vm/net3.topo")-$(cat "$SNODE_VM_UP/fm.pid")-node1
gexec 0 "ping -c 10 -s 8000 -p a7 -W 5 $(ip_of 1)" >>"$LOG/ping3" 2>&1
runs0=$(a7_runs)
check "$KERNEL: three: node 0's frames are in node 1's ring, seen from the host (${runs0:-no} runs of 4 KiB in ${pool1##*/})" \
	[ "${runs0:-0}" -ge 5 ]
rx_rings_is() { [ "$(ethtool_of 1 rx_rings)" = "$1" ]; }
fmctl node isolate 0
until_ok 20 rx_rings_is 0
out=$(ethtool_of 1 rx_rings)
check "$KERNEL: three: node 0 cut off: node 1 frees the ring it had (rx_rings ${out:-none})" \
	[ "$out" = 0 ]
gexec 2 "ping -c 3 -W 2 $(ip_of 1)" >>"$LOG/ping3" 2>&1
until_ok 20 rx_rings_is 1
out=$(ethtool_of 1 rx_rings)
check "$KERNEL: three: node 2 pings node 1 and is granted a ring (rx_rings ${out:-none})" \
	[ "$out" = 1 ]
runs1=$(a7_runs)
check "$KERNEL: three: ... scrubbed first: none of node 0's frames left in node 1's pool (${runs1:-?} runs of 4 KiB)" \
	[ "${runs1:-1}" -eq 0 ]
fmctl node join 0
fi

finish
