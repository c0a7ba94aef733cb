#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ops.sh - the operator's routines on an emulated supernode, driven from the
# host by fault injection through the fabric manager (snode-fm ctl).
#
# Usage: selftests/vm/ops.sh 6.1|6.12
#
# Boots tools/emu/topologies/4-dual-plane-sim.topo (the 4-node dual-plane
# fabric with node 0 a guest and nodes 1-3 simulated) under the given guest
# kernel and checks:
#   - link trend: a record, BER raised on exactly one link (0.1), traffic
#     ticks, a second record; snodectl link trend -j flags that link and
#     no other, exit status 1
#   - redundancy: a whole plane killed (snode-fm ctl switch down) while a
#     stream runs through node 1's window: health warns "node 0: one path
#     left (link P down)", names the switch as the common cause (text and
#     -j), the nodes route through the other plane, the stream keeps every
#     byte; once the plane is back health is ok again. Both planes in turn,
#     so the switch named is the one killed.
#   - auto-isolate (decision 0021): a flap policy on link 1, the link
#     flapped (snode-fm ctl link flap) under a stream: the driver isolates
#     it (state, reason, health verdict, text and -j), a link-isolation
#     event names the reason, the stream keeps every byte, the isolation
#     outlasts the flaps and refuses state up; link clear then state up
#     bring it back. With link 0 down the same flaps leave link 1 up and
#     only flapping (health critical). A BER policy isolates on a BER
#     raised past it.
#   - topology (decision 0030): node list (text and -j) shows every node's
#     rack, plane, switch and hops as the fabric manager computes them; with
#     a plane down the nodes read the other plane, and health names the
#     plane and its switch ("1 link down, on plane 0 (switch plane0)").
#   - scale: one guest on tools/emu/topologies/1024-sim.topo (1023
#     simulated nodes, 32 racks, two leaf-spine planes): node list, dev
#     show, link status and health answer, node list agrees
#     with snode-fm on all 1023 nodes (state, route, hops, switch, plane,
#     rack), a stream through node 1023's window keeps every byte, and a
#     cable cut in the fm moves every node to plane 1 and back.
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite ops "6.1|6.12" "${1:-}"
TOPO=$TOP/tools/emu/topologies/4-dual-plane-sim.topo
TOPO1024=$TOP/tools/emu/topologies/1024-sim.topo
H=/tmp/link-history.jsonl

finish_hook() {
	gexec 0 "dmesg" >"$LOG/dmesg" 2>&1
}

# links_are STATE0 STATE1: snodectl's oper state of ports 0 and 1
links_are() {
	local j
	j=$(gexec 0 "snodectl -j link status snode0")
	pycheck '
l = {x["port"]: x["state"] for x in json.loads(sys.argv[1])["links"]}
sys.exit(0 if l == {0: sys.argv[2], 1: sys.argv[3]} else 1)' "$j" "$1" "$2"
}

require "$BUILD/stage/common/usr/bin/snodectl" "$BUILD/stage/common$KSFT_BIN/link_stream"

vm_up 4-dual-plane-sim --topology "$TOPO" || finish

gexec 0 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
check "$KERNEL: insmod snode.ko" [ $? -eq 0 ]
check "$KERNEL: both links up" until_ok 30 links_are up up

# --- topology: what a scheduler reads (decision 0030) ----------------------------
# topo_agrees: snodectl -j node list says of every node what snode-fm
# tells node 0 (state, route port, hops, switch, plane, rack); $1: count
topo_agrees() {
	local j fm
	j=$(gexec 0 "snodectl -j node list")
	fm=$("$FM" ctl --dir "$SNODE_FM_DIR" show nodes from 0 -j 2>>"$LOG/fm-ctl.log")
	# files, not arguments: 1023 nodes are more than one argument may hold
	echo "$j" >"$LOG/topo-nodes.json"
	echo "$fm" >"$LOG/topo-fm.json"
	pycheck '
n = json.load(open(sys.argv[1]))["nodes"]
fm = {x["id"]: x for x in json.load(open(sys.argv[2])) if x["id"] != 0}
key = lambda x: (x.get("state", x.get("view")), x.get("route_port", -1), x.get("hops"),
                 x.get("switch"), x.get("plane"), x.get("rack"))
got = {x["node"]: key(x) for x in n}
want = {i: key(x) for i, x in fm.items()}
bad = [(i, got.get(i), want[i]) for i in want if got.get(i) != want[i]]
print(len(n), bad[:5], file=sys.stderr)
sys.exit(0 if len(n) == int(sys.argv[3]) and not bad else 1)' \
		"$LOG/topo-nodes.json" "$LOG/topo-fm.json" "$1"
}
check "$KERNEL: topology: node list -j agrees with snode-fm on nodes 1-3 (rack, plane, switch, hops)" \
	until_ok 10 topo_agrees 3
out=$(gexec 0 "snodectl -j node list")
check "$KERNEL: topology: node 1 in rack0, 2-3 in rack1, all on plane 0 via switch plane0, 2 hops" pycheck '
n = {x["node"]: x for x in json.loads(sys.argv[1])["nodes"]}
want = {1: "rack0", 2: "rack1", 3: "rack1"}
sys.exit(0 if all(n[i]["rack"] == r and n[i]["plane"] == 0 and n[i]["switch"] == "plane0" and
                  n[i]["switch_id"] == 0 and n[i]["hops"] == 2 and n[i]["rack_id"] == (0 if r == "rack0" else 1)
                  for i, r in want.items()) and sorted(n) == [1, 2, 3] else 1)' "$out"
out=$(gexec 0 "snodectl node list")
echo "$out" >"$LOG/topo-nodes.txt"
check "$KERNEL: topology: node list text: 'node 2 rack rack1 plane 0 switch plane0 hops 2 up route-port 0'" \
	grep -q '^snode0 node 2 rack rack1 plane 0 switch plane0 hops 2 up route-port 0$' <<<"$out"
out=$(gexec 0 "snodectl -j link status snode0")
check "$KERNEL: topology: link status -j names each link's switch and plane" pycheck '
l = {x["port"]: x for x in json.loads(sys.argv[1])["links"]}
sys.exit(0 if all(l[p]["peer_switch"] == p and l[p]["peer_switch_name"] == "plane%d" % p and
                  l[p]["peer_plane"] == p for p in (0, 1)) else 1)' "$out"

# --- link trend: BER raised on one link ------------------------------------------
fmctl link ber 0.0 0
fmctl link ber 0.1 0
gexec 0 "snodectl link clear snode0 0 && snodectl link clear snode0 1" >/dev/null
gexec 0 "rm -f $H && snodectl link diag --record $H" >>"$LOG/diag.log" 2>&1
rec=$(gexec 0 "cat $H")
check "$KERNEL: link diag --record: the first snapshot, one line holding both links" pycheck '
r = [json.loads(l) for l in sys.argv[1].splitlines()]
sys.exit(0 if len(r) == 1 and [(x["dev"], x["port"]) for x in r[0]["links"]] ==
         [("snode0", 0), ("snode0", 1)] else 1)' "$rec"
# 1e-11 on 4 x 100G: 4 CRC errors a second, some 50 in the window; a
# record's time is in whole seconds, so the window must span several
fmctl link ber 0.1 1e-11
sleep 12
gexec 0 "snodectl link diag --record $H" >>"$LOG/diag.log" 2>&1
fmctl link ber 0.1 0
gexec 0 "cat $H" >"$LOG/link-history.jsonl"
check "$KERNEL: link diag --record appends: two snapshots" [ "$(wc -l <"$LOG/link-history.jsonl")" = 2 ]
st=$(gexec 0 "snodectl -j link trend $H >/tmp/trend.json 2>/tmp/trend.err; echo \$?")
trend=$(gexec 0 "cat /tmp/trend.json")
echo "$trend" >"$LOG/trend.json"
check "$KERNEL: link trend exits 1: a link is flagged ($st)" [ "$st" = 1 ]
check "$KERNEL: link trend -j flags exactly snode0/1, past threshold on its CRC rate" pycheck '
d = json.loads(sys.argv[1])
l = d["links"]
flagged = [(x["dev"], x["port"]) for x in l if x["flagged"]]
one = [x for x in l if x["port"] == 1]
print(flagged, one, file=sys.stderr)
sys.exit(0 if len(l) == 2 and flagged == [("snode0", 1)] and d["flagged"] == 1 and
         "crc_errors" in one[0]["past_threshold"] and one[0]["crc_errors_per_hour"] > 10 and
         one[0]["samples"] == 2 else 1)' "$trend"
check "$KERNEL: link trend -j: snode0/0 has no CRC errors and no flag" pycheck '
z = [x for x in json.loads(sys.argv[1])["links"] if x["port"] == 0]
sys.exit(0 if z and z[0]["crc_errors_per_hour"] == 0 and not z[0]["flagged"] and
         not z[0]["past_threshold"] and not z[0]["rising"] else 1)' "$trend"
out=$(gexec 0 "snodectl link tr $H")
echo "$out" >"$LOG/trend.txt"
check "$KERNEL: link tr (trend): text says 1 of 2 links flagged" grep -q '^1 of 2 links flagged' <<<"$out"

stream_done() { gexec 0 "grep -q ' state ' /tmp/stream.out" >/dev/null; }

# --- a plane fails under traffic ----------------------------------------------------
# plane_down SWITCH ID PORT: switch ID (index in the topology) carries every
# node's port PORT; the other port stays up
plane_down() {
	local sw=$1 id=$2 port=$3 other=$((1 - $3)) st out
	gexec 0 "rm -f /tmp/stream.*; $KSFT_BIN/link_stream 1 0 0x5100 65536 20 /tmp/stream.ready >/tmp/stream.out 2>&1 &
		for i in \$(seq 100); do test -f /tmp/stream.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
	check "$KERNEL: $sw: stream through node 1's window started" [ $? -eq 0 ]
	sleep 2
	fmctl switch down "$sw"
	if [ "$port" = 0 ]; then
		check "$KERNEL: $sw down: link 0 down, link 1 up" until_ok 15 links_are down up
	else
		check "$KERNEL: $sw down: link 1 down, link 0 up" until_ok 15 links_are up down
	fi
	sleep 1
	out=$(gexec 0 "snodectl node list | grep -c ' up route-port $other\$'")
	check "$KERNEL: $sw down: nodes 1-3 route through port $other ($out)" [ "$out" = 3 ]
	st=$(gexec 0 "snodectl -j health >/tmp/health.json; echo \$?")
	out=$(gexec 0 "cat /tmp/health.json")
	echo "$out" >"$LOG/health-$sw.json"
	check "$KERNEL: $sw down: health exits 1 (warning) ($st)" [ "$st" = 1 ]
	check "$KERNEL: $sw down: health -j: one path left, common cause plane $id (switch $sw)" pycheck '
d = json.loads(sys.argv[1]); sw = int(sys.argv[2]); port = sys.argv[3]
p = d["devices"][0]["problems"]
c = d["common_causes"]
want = [{"text": "1 link down, on plane %d (switch plane%d)" % (sw, sw), "links": 1,
         "links_down": 1, "switch": sw, "plane": sw, "switch_name": "plane%d" % sw}]
print(p, c, file=sys.stderr)
sys.exit(0 if "node 0: one path left (link %s down)" % port in p and c == want and
         d["verdict"] == "warning" else 1)' "$out" "$id" "$port"
	out=$(gexec 0 "snodectl health")
	echo "$out" >"$LOG/health-$sw.txt"
	check "$KERNEL: $sw down: health text names the path left, the plane and the switch" eval \
		'grep -q "problem: node 0: one path left (link $port down)" <<<"$out" &&
		 grep -q "^common cause: 1 link down, on plane $id (switch $sw)$" <<<"$out"'
	out=$(gexec 0 "snodectl -j node list")
	check "$KERNEL: $sw down: node list -j: nodes 1-3 on plane $other via switch plane$other" pycheck '
n = json.loads(sys.argv[1])["nodes"]; o = int(sys.argv[2])
sys.exit(0 if len(n) == 3 and all(x["plane"] == o and x["switch"] == "plane%d" % o and
                                  x["hops"] == 2 and x["route_port"] == o for x in n) else 1)' "$out" "$other"
	check "$KERNEL: $sw down: node list agrees with snode-fm after the failover" topo_agrees 3
	until_ok 40 stream_done
	out=$(gexec 0 "cat /tmp/stream.out")
	echo "$out" >"$LOG/stream-$sw"
	check "$KERNEL: $sw down: the stream kept every byte and its window ($out)" \
		grep -Eq '^rounds [1-9][0-9]* bytes [0-9]+ mismatches 0 state active' <<<"$out"
	fmctl switch up "$sw"
	check "$KERNEL: $sw up: both links up" until_ok 15 links_are up up
	st=$(gexec 0 "snodectl -j health >/tmp/health.json; echo \$?")
	out=$(gexec 0 "cat /tmp/health.json")
	check "$KERNEL: $sw up: health ok (exit $st), no common cause" pycheck '
d = json.loads(sys.argv[1])
sys.exit(0 if sys.argv[2] == "0" and d["common_causes"] == [] and d["verdict"] == "ok" else 1)' "$out" "$st"
}

plane_down plane0 0 0
plane_down plane1 1 1

# --- auto-isolate ---------------------------------------------------------------------
# iso_is PORT ISOLATION REASON ADMIN: link status -j says so of port PORT
iso_is() {
	local j
	j=$(gexec 0 "snodectl -j link status snode0")
	pycheck '
l = [x for x in json.loads(sys.argv[1])["links"] if x["port"] == int(sys.argv[2])][0]
r = None if sys.argv[4] == "-" else sys.argv[4]
sys.exit(0 if (l["isolation"], l["isolate_reason"], l["admin"]) == (sys.argv[3], r, sys.argv[5]) else 1)' \
		"$j" "$@"
}

out=$(gexec 0 "snodectl link set snode0 1 auto-isolate flaps 4/60s && snodectl -j link status snode0")
check "$KERNEL: auto-isolate: the policy in link status -j, isolation none" pycheck '
l = [x for x in json.loads(sys.argv[1])["links"] if x["port"] == 1][0]
print(l, file=sys.stderr)
sys.exit(0 if l["auto_isolate"] == {"enabled": True, "ber": 0, "flaps": 4, "window": 60} and
         l["isolation"] == "none" and l["isolate_reason"] is None else 1)' "$out"
out=$(gexec 0 "snodectl link status snode0")
check "$KERNEL: auto-isolate: the policy in link status text" grep -q "port 1 .* ok auto-isolate flaps 4/60s$" <<<"$out"
gexec 0 "rm -f /tmp/mon.*; (snodectl -j monitor timeout 60 >/tmp/mon.json 2>/tmp/mon.err & echo \$! >/tmp/mon.pid)
	for i in \$(seq 50); do grep -q monitoring /tmp/mon.err && exit 0; sleep 0.1; done; exit 1" >/dev/null
check "$KERNEL: auto-isolate: monitor listening" [ $? -eq 0 ]
gexec 0 "rm -f /tmp/stream.*; $KSFT_BIN/link_stream 1 0 0x5100 65536 12 /tmp/stream.ready >/tmp/stream.out 2>&1 &
	for i in \$(seq 100); do test -f /tmp/stream.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
check "$KERNEL: auto-isolate: stream through node 1's window started" [ $? -eq 0 ]
sleep 1
# 6 flaps of 300 ms down, 300 ms up: the 4th down event is past 4/60s
fmctl link flap 0.1 count 6 period 300
check "$KERNEL: auto-isolate: link 1 flapped past 4/60s is isolated (flaps), admin down" \
	until_ok 20 iso_is 1 isolated flaps down
out=$(gexec 0 "snodectl link status snode0")
echo "$out" >"$LOG/iso-status.txt"
check "$KERNEL: auto-isolate: link status text says isolated (flaps)" grep -q "port 1 down (admin down) .* isolated (flaps) auto-isolate flaps 4/60s$" <<<"$out"
st=$(gexec 0 "snodectl -j health >/tmp/health.json; echo \$?")
out=$(gexec 0 "cat /tmp/health.json")
echo "$out" >"$LOG/iso-health.json"
check "$KERNEL: auto-isolate: health -j warns: link 1 isolated (flaps), one path left, no common cause (exit $st)" pycheck '
d = json.loads(sys.argv[1]); p = d["devices"][0]["problems"]
print(p, d["common_causes"], file=sys.stderr)
sys.exit(0 if sys.argv[2] == "1" and d["verdict"] == "warning" and "link 1 isolated (flaps)" in p and
         "node 0: one path left (link 1 down)" in p and d["common_causes"] == [] and
         d["devices"][0]["links"]["isolated"] == 1 else 1)' "$out" "$st"
out=$(gexec 0 "snodectl health")
check "$KERNEL: auto-isolate: health text: problem: link 1 isolated (flaps)" grep -q "problem: link 1 isolated (flaps)" <<<"$out"
until_ok 30 stream_done
out=$(gexec 0 "cat /tmp/stream.out")
echo "$out" >"$LOG/stream-isolate"
check "$KERNEL: auto-isolate: the stream kept every byte and its window ($out)" \
	grep -Eq '^rounds [1-9][0-9]* bytes [0-9]+ mismatches 0 state active' <<<"$out"
# the flaps ended long ago (3.6 s); the link stays out of service
check "$KERNEL: auto-isolate: after the flaps: still isolated, admin down" iso_is 1 isolated flaps down
check "$KERNEL: auto-isolate: after the flaps: link 1 still down" links_are up down
out=$(gexec 0 "snodectl link set snode0 1 state up 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: auto-isolate: state up refused while isolated ($out)" eval \
	'grep -q "rc=1" <<<"$out" && grep -q "link-clear it first" <<<"$out"'
gexec 0 "kill \$(cat /tmp/mon.pid)"
out=$(gexec 0 "cat /tmp/mon.json")
echo "$out" >"$LOG/iso-monitor.json"
check "$KERNEL: auto-isolate: monitor -j: a link-isolation event, port 1 isolated, reason flaps" pycheck '
e = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{")]
i = [x for x in e if x["event"] == "link-isolation" and x["port"] == 1]
print(i, file=sys.stderr)
sys.exit(0 if any(x["isolation"] == "isolated" and x["reason"] == "flaps" for x in i) else 1)' "$out"
gexec 0 "dmesg | grep -q \"port 1 isolated: past its auto-isolate flap limit\""
check "$KERNEL: auto-isolate: the driver logged the isolation" [ $? -eq 0 ]
gexec 0 "snodectl link clear snode0 1 && snodectl link set snode0 1 state up" >/dev/null
check "$KERNEL: auto-isolate: link clear, state up: link 1 back up, isolation none" \
	until_ok 15 eval 'links_are up up && iso_is 1 none - up'
st=$(gexec 0 "snodectl health >/dev/null; echo \$?")
check "$KERNEL: auto-isolate: cleared: health ok again (exit $st)" [ "$st" = 0 ]

# the last link up: link 0 taken down by hand, link 1 flaps past its policy
gexec 0 "snodectl link set snode0 0 state down" >/dev/null
check "$KERNEL: auto-isolate: link 0 down by hand" until_ok 15 links_are down up
fmctl link flap 0.1 count 5 period 300
check "$KERNEL: auto-isolate: the last link up past its limit is only flapping, admin up" \
	until_ok 20 iso_is 1 flapping flaps up
sleep 3
check "$KERNEL: auto-isolate: ... and still not isolated once the flaps ended" iso_is 1 flapping flaps up
gexec 0 "dmesg | grep -q \"port 1 past its auto-isolate flap limit, not isolated: no other link is up\""
check "$KERNEL: auto-isolate: the driver logged the refusal" [ $? -eq 0 ]
st=$(gexec 0 "snodectl -j health >/tmp/health.json; echo \$?")
out=$(gexec 0 "cat /tmp/health.json")
echo "$out" >"$LOG/iso-last-health.json"
check "$KERNEL: auto-isolate: health critical: link 1 flapping and the last link up (exit $st)" pycheck '
d = json.loads(sys.argv[1]); p = d["devices"][0]["problems"]
print(p, file=sys.stderr)
sys.exit(0 if sys.argv[2] == "2" and "link 1 flapping (flaps)" in p and
         "link 1 flapping and the last link up: not isolated" in p else 1)' "$out" "$st"
gexec 0 "snodectl link clear snode0 1 && snodectl link set snode0 0 state up" >/dev/null
check "$KERNEL: auto-isolate: link 0 up, link 1 cleared" \
	until_ok 15 eval 'links_are up up && iso_is 1 none - up'

# BER: a rate past the policy's limit isolates at once
gexec 0 "snodectl link set snode0 1 auto-isolate ber 1e-9" >/dev/null
fmctl link ber 0.1 1e-8
check "$KERNEL: auto-isolate: BER 1e-8 past ber 1e-9: link 1 isolated (ber)" \
	until_ok 15 iso_is 1 isolated ber down
fmctl link ber 0.1 0
gexec 0 "snodectl link clear snode0 1 && snodectl link set snode0 1 state up && snodectl link set snode0 1 auto-isolate off" >/dev/null
check "$KERNEL: auto-isolate: BER cleared, link 1 back up, policy off" \
	until_ok 15 eval 'links_are up up && iso_is 1 none - up'

# --- scale: 1024 nodes, the device's max_nodes ------------------------------------
gexec 0 "dmesg" >"$LOG/dmesg-4-dual-plane" 2>&1
if vm_up 1024-sim --topology "$TOPO1024"; then
	gexec 0 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: 1024: insmod snode.ko" [ $? -eq 0 ]
	check "$KERNEL: 1024: both links up" until_ok 30 links_are up up
	nodes_up() { [ "$(gexec 0 "snodectl node list | grep -c ' up route-port 0\$'")" = 1023 ]; }
	check "$KERNEL: 1024: node list: 1023 other nodes up" until_ok 30 nodes_up
	check "$KERNEL: 1024: node list -j agrees with snode-fm on all 1023 nodes (state, route, hops, switch, plane, rack)" \
		topo_agrees 1023
	gexec 0 "snodectl -j node list" >"$LOG/nodes-1024.json"
	check "$KERNEL: 1024: own rack 2 hops via its leaf, other racks 4 via theirs" pycheck '
n = {x["node"]: x for x in json.load(open(sys.argv[1]))["nodes"]}
ok = all((n[i]["hops"], n[i]["switch"], n[i]["rack"], n[i]["plane"]) ==
         (2 if i < 32 else 4, "r%02dp0" % (i // 32), "rack%02d" % (i // 32), 0) for i in range(1, 1024))
sys.exit(0 if ok and len(n) == 1023 else 1)' "$LOG/nodes-1024.json"
	out=$(gexec 0 "snodectl -j dev show snode0")
	check "$KERNEL: 1024: dev show: max_nodes 1024, attached as node 0" pycheck '
d = json.loads(sys.argv[1])
d = d[0] if isinstance(d, list) else d["devices"][0] if "devices" in d else d
sys.exit(0 if d.get("max_nodes") == 1024 and d.get("node") == 0 else 1)' "$out"
	out=$(gexec 0 "snodectl -j link status snode0")
	check "$KERNEL: 1024: link status: 2 links to r00p0 (plane 0) and r00p1 (plane 1)" pycheck '
l = {x["port"]: x for x in json.loads(sys.argv[1])["links"]}
sys.exit(0 if len(l) == 2 and all(l[p]["peer_switch_name"] == "r00p%d" % p and
                                  l[p]["peer_plane"] == p and l[p]["state"] == "up" for p in (0, 1)) else 1)' "$out"
	gexec 0 "rm -f /tmp/stream.*; $KSFT_BIN/link_stream 1023 0 0x5100 65536 3 >/tmp/stream.out 2>&1; cat /tmp/stream.out" >"$LOG/stream-1024"
	check "$KERNEL: 1024: a stream through node 1023's window keeps every byte" \
		grep -Eq '^rounds [1-9][0-9]* bytes [0-9]+ mismatches 0 state active' "$LOG/stream-1024"
	out=$(gexec 0 "snodectl -j health >/dev/null; echo rc=\$?")
	check "$KERNEL: 1024: health ok with 1023 nodes ($(tail -1 <<<"$out"))" grep -q '^rc=0$' <<<"$out"
	fmctl link down 0.0
	check "$KERNEL: 1024: cable 0.0 cut in the fm: link 0 down" until_ok 15 links_are down up
	plane1() { [ "$(gexec 0 "snodectl node list | grep -c ' plane 1 switch r[0-9]*p1 hops [24] up route-port 1\$'")" = 1023 ]; }
	check "$KERNEL: 1024: all 1023 nodes move to plane 1, their plane-1 leaf" until_ok 20 plane1
	check "$KERNEL: 1024: node list agrees with snode-fm after the cut" topo_agrees 1023
	out=$(gexec 0 "snodectl health")
	echo "$out" >"$LOG/health-1024.txt"
	check "$KERNEL: 1024: health names plane 0 and switch r00p0" \
		grep -q "^common cause: 1 link down, on plane 0 (switch r00p0)$" <<<"$out"
	fmctl link up 0.0
	check "$KERNEL: 1024: cable back: 1023 nodes on route port 0 again" until_ok 20 nodes_up
fi

finish
