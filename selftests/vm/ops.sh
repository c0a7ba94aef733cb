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
#     -j), the nodes route through the other plane (node list, and each
#     node's failover event in monitor -j names the plane, switch, hops and
#     rack), the stream keeps every byte; once the plane is back health is
#     ok again. Both planes in turn,
#     so the switch named is the one killed.
#   - auto-isolate (decision 0021): a flap policy on link 1, the link
#     flapped (snode-fm ctl link flap) under a stream: the driver isolates
#     it (state, reason, health verdict, text and -j), a link-isolation
#     event names the reason, the stream keeps every byte, the isolation
#     outlasts the flaps and refuses state up; link clear then state up
#     bring it back. With link 0 down the same flaps leave link 1 up and
#     only flapping (health critical). A BER policy isolates on a BER
#     raised past it.
#   - sensors (decision 0029): snodectl dev set programs temp-max,
#     temp-crit and power-max (hwmon shows them; out-of-range values and
#     non-root are refused and change nothing); sensor baseline record
#     stores the NIC's reading; the fabric manager raises the temperature
#     past temp-max, then past temp-crit: monitor -j sees both thermal
#     events, health warns, then is critical and throttled, and with
#     --baseline warns of drift; at another power the baseline is not
#     compared; cooled down, health is ok again.
#   - utilisation (decision 0027): both links at 1 lane x 1 Gb/s, a DMA
#     stream (snode-perf dma stream) into a window of node 1: link status
#     -s -j reads the busy link's tx within 10 % of the stream's own rate,
#     health warns, and monitor sees one link-util alarm raised and one
#     cleared; util-threshold out of range is refused.
#   - window utilisation (decision 0035): a stream of CPU stores, then one
#     of loads, through a 128M window of node 1 (snode-perf dma stream by
#     store|load): link status -s -j reads the busy link's tx (stores) or rx
#     (loads) within 10 % of the stream's rate, the rest idle, and its byte
#     counters took every byte the stream moved within 3 %; a window mapped
#     and left idle reads ~0.
#   - topology (decision 0030): node list (text and -j) shows every node's
#     rack, plane, switch and hops as the fabric manager computes them; with
#     a plane down the nodes read the other plane, and health names the
#     plane and its switch ("1 link down, on plane 0 (switch plane0)").
#   - scale: one guest on tools/emu/topologies/1024-sim.topo (1023
#     simulated nodes, 32 racks, two leaf-spine planes): node list, dev
#     show, link status and health answer, node list agrees
#     with snode-fm on all 1023 nodes (state, route, hops, switch, plane,
#     rack), node show of node 1023 is its node list entry and of node 1024
#     the kernel's out-of-range error, a stream through node 1023's window
#     keeps every byte, and a
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

# mon_start NAME SECONDS: snodectl -j monitor in the background on node 0
# (its events in /tmp/NAME.json) until SECONDS or mon_stop; succeeds once it
# listens. mon_stop NAME: stop it, print its events.
mon_start() {
	gexec 0 "rm -f /tmp/$1.*; (snodectl -j monitor timeout $2 >/tmp/$1.json 2>/tmp/$1.err & echo \$! >/tmp/$1.pid)
	for i in \$(seq 50); do grep -q monitoring /tmp/$1.err && exit 0; sleep 0.1; done; exit 1" >/dev/null
}
mon_stop() {
	gexec 0 "kill \$(cat /tmp/$1.pid)" >&2
	gexec 0 "cat /tmp/$1.json"
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
	mon_start "mon-$sw" 60
	check "$KERNEL: $sw: monitor listening" [ $? -eq 0 ]
	# the nodes whose route the failure moves (after a plane came back the
	# routes may already be on the other one)
	moved=$(gexec 0 "snodectl node list" | grep -c " route-port $port\$")
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
	# the failover events say where the routes go now (cap ev-topo): one
	# for each node that was routed through the plane that failed
	out=$(mon_stop "mon-$sw")
	echo "$out" >"$LOG/monitor-$sw.json"
	check "$KERNEL: $sw down: monitor -j: the failover events of the $moved node(s) routed through port $port name plane $other, switch plane$other, hops 2 and the rack" pycheck '
e = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{")]
o = int(sys.argv[2]); moved = int(sys.argv[3]); rack = {1: "rack0", 2: "rack1", 3: "rack1"}
last = {}
for x in e:
    if x["event"] == "node-state":
        last[x["node"]] = x
print(last, file=sys.stderr)
sys.exit(0 if len(last) == moved and set(last) <= {1, 2, 3} and all(
    x["route_port"] == o and x["plane"] == o and x["switch"] == "plane%d" % o and
    x["switch_id"] == o and x["hops"] == 2 and x["rack"] == rack[n]
    for n, x in last.items()) else 1)' "$out" "$other" "$moved"
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
mon_start mon 60
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
out=$(mon_stop mon)
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

# --- sensors: limits, baseline, throttling -------------------------------------------
HW="/sys/class/snode/snode0/device/hwmon/hwmon*"
BASE=/tmp/sensor-baseline.jsonl
# hw_limits: temp1_max temp1_crit power1_max as hwmon has them
hw_limits() { gexec 0 "cat $HW/temp1_max $HW/temp1_crit $HW/power1_max" | tr '\n' ' '; }
# hw_reads TEMP POWER: the NIC reads TEMP m°C and POWER µW
hw_reads() { [ "$(gexec 0 "cat $HW/temp1_input $HW/power1_input" | tr '\n' ' ')" = "$1 $2 " ]; }
# health_b: "STATUS JSON" of snodectl -j health --baseline
health_b() {
	gexec 0 "snodectl -j health --baseline $BASE >/tmp/health.json 2>/tmp/health.err; echo \$?; cat /tmp/health.json"
}

fmctl node temp 0 45000
fmctl node power 0 12000
check "$KERNEL: sensors: the NIC reads 45 C and 12 W" until_ok 15 hw_reads 45000 12000000
out=$(gexec 0 "snodectl -j dev set snode0 temp-max 70 temp-crit 90 power-max 30")
check "$KERNEL: sensors: dev set -j prints the limits in force" pycheck '
sys.exit(0 if json.loads(sys.argv[1]) == {"dev": "snode0", "temp_max": 70000, "temp_crit": 90000,
         "power_max": 30000000} else 1)' "$out"
check "$KERNEL: sensors: dev set: hwmon holds 70 C, 90 C, 30 W" [ "$(hw_limits)" = "70000 90000 30000000 " ]
out=$(gexec 0 "snodectl dev set snode0 temp-max 60 power-max 2000 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: sensors: power-max 2000 W refused (exit 64, range), temp-max not written either ($out)" eval \
	'grep -q "rc=64" <<<"$out" && grep -q "at most 1000 W" <<<"$out" && [ "$(hw_limits)" = "70000 90000 30000000 " ]'
out=$(gexec 0 "snodectl dev set snode0 temp-crit 65 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: sensors: temp-crit below temp-max refused, nothing written ($out)" eval \
	'grep -q "rc=64" <<<"$out" && grep -q "would be above temp-crit" <<<"$out" && [ "$(hw_limits)" = "70000 90000 30000000 " ]'
out=$(gexec 0 "su user -s /bin/sh -c 'snodectl dev set snode0 temp-max 60' 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: sensors: dev set as a user is refused (root only), nothing written ($out)" eval \
	'grep -q "rc=1" <<<"$out" && grep -q "root only" <<<"$out" && [ "$(hw_limits)" = "70000 90000 30000000 " ]'

out=$(gexec 0 "rm -f $BASE; snodectl -j sensor baseline record $BASE load idle && cat /sys/class/snode/snode0/serial && cat $BASE")
echo "$out" >"$LOG/baseline-record"
check "$KERNEL: sensors: baseline record: snode0 by its serial, 45 C at 12 W, load idle, one line in the file" pycheck '
l = sys.argv[1].splitlines()
r = json.loads(l[0]); serial = l[1]; f = [json.loads(x) for x in l[2:]]
print(r, serial, f, file=sys.stderr)
e = r["recorded"]
sys.exit(0 if len(e) == 1 and e[0]["dev"] == "snode0" and e[0]["serial"] == serial and e[0]["node"] == 0 and
         e[0]["temp"] == 45000 and e[0]["power"] == 12000000 and e[0]["load"] == "idle" and
         len(f) == 1 and f[0]["serial"] == serial and f[0]["temp_mC"] == 45000 and
         f[0]["power_uW"] == 12000000 and f[0]["version"] == 1 else 1)' "$out"
out=$(health_b)
echo "$out" >"$LOG/health-baseline-cool.json"
check "$KERNEL: sensors: health --baseline at the baseline: ok, compared, +0 C, no drift" pycheck '
st, j = sys.argv[1].split("\n", 1); d = json.loads(j); b = d["devices"][0]["baseline"]
print(st, b, d["devices"][0]["problems"], file=sys.stderr)
sys.exit(0 if st == "0" and d["verdict"] == "ok" and b["compared"] and b["delta"] == 0 and
         not b["drift"] and b["load"] == "idle" and b["line"] == 1 else 1)' "$out"

mon_start mon 90
check "$KERNEL: sensors: monitor listening" [ $? -eq 0 ]
# hot_is STATUS: health --baseline exits STATUS
hot_is() { [ "$(health_b | head -1)" = "$1" ]; }
fmctl node temp 0 75000
check "$KERNEL: sensors: 75 C, past temp-max 70: health --baseline warns (exit 1)" until_ok 15 hot_is 1
out=$(health_b)
echo "$out" >"$LOG/health-baseline-hot.json"
check "$KERNEL: sensors: ... above max and +30 C drift over the idle baseline, not throttled" pycheck '
st, j = sys.argv[1].split("\n", 1); d = json.loads(j); x = d["devices"][0]; p = x["problems"]
print(st, p, x["sensors"], file=sys.stderr)
sys.exit(0 if st == "1" and d["verdict"] == "warning" and "temperature 75.0 C above max 70.0 C" in p and
         "temperature drift: +30.0 C over baseline 45.0 C at 12.000 W (load idle)" in p and
         x["baseline"]["drift"] and not x["sensors"]["throttled"] else 1)' "$out"
out=$(gexec 0 "snodectl health --baseline $BASE")
echo "$out" >"$LOG/health-baseline-hot.txt"
check "$KERNEL: sensors: ... health text: the drift line and the baseline line" eval \
	'grep -q "problem: temperature drift: +30.0 C over baseline 45.0 C" <<<"$out" && grep -q "baseline: 45.0 C at 12.000 W (load idle): now +30.0 C, drift" <<<"$out"'
fmctl node temp 0 95000
check "$KERNEL: sensors: 95 C, past temp-crit 90: health critical (exit 2)" until_ok 15 hot_is 2
out=$(health_b)
echo "$out" >"$LOG/health-baseline-throttled.json"
check "$KERNEL: sensors: ... throttled, above critical, drift" pycheck '
st, j = sys.argv[1].split("\n", 1); d = json.loads(j); x = d["devices"][0]; p = x["problems"]
print(st, p, file=sys.stderr)
sys.exit(0 if st == "2" and d["verdict"] == "critical" and "throttled (too hot)" in p and
         "temperature 95.0 C above critical 90.0 C" in p and x["sensors"]["throttled"] and
         x["baseline"]["drift"] else 1)' "$out"
out=$(gexec 0 "snodectl -j dev show snode0")
check "$KERNEL: sensors: ... dev show -j says throttled" pycheck '
sys.exit(0 if json.loads(sys.argv[1])["devices"][0]["throttled"] else 1)' "$out"
sleep 2
out=$(mon_stop mon)
echo "$out" >"$LOG/thermal-monitor.json"
check "$KERNEL: sensors: monitor -j: a thermal event at 75 C (temp-max), one at 95 C (temp-crit)" pycheck '
e = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{")]
t = [x for x in e if x["event"] == "thermal" and x["dev"] == "snode0"]
print(t, file=sys.stderr)
sys.exit(0 if any(x["temp"] == 75000 and "temp-max" in x["alarms"] for x in t) and
         any(x["temp"] == 95000 and "temp-crit" in x["alarms"] for x in t) else 1)' "$out"

# another load: 60 C at 20 W is not compared with the 12 W baseline
fmctl node power 0 20000
fmctl node temp 0 60000
check "$KERNEL: sensors: 60 C at 20 W: health --baseline ok (exit 0)" until_ok 15 hot_is 0
out=$(health_b)
echo "$out" >"$LOG/health-baseline-power.json"
check "$KERNEL: sensors: ... the baseline at 12 W is not compared, no drift, not throttled" pycheck '
st, j = sys.argv[1].split("\n", 1); d = json.loads(j); x = d["devices"][0]
print(st, x, file=sys.stderr)
sys.exit(0 if st == "0" and not x["baseline"]["compared"] and not x["baseline"]["drift"] and
         x["problems"] == [] and not x["sensors"]["throttled"] else 1)' "$out"
fmctl node power 0 12000
fmctl node temp 0 45000
check "$KERNEL: sensors: cooled to 45 C at 12 W: the NIC reads it" until_ok 15 hw_reads 45000 12000000
out=$(health_b)
echo "$out" >"$LOG/health-baseline-recovered.json"
check "$KERNEL: sensors: ... health --baseline ok again: no problem, not throttled, +0 C" pycheck '
st, j = sys.argv[1].split("\n", 1); d = json.loads(j); x = d["devices"][0]
print(st, x, file=sys.stderr)
sys.exit(0 if st == "0" and d["verdict"] == "ok" and x["problems"] == [] and
         not x["sensors"]["throttled"] and x["baseline"]["delta"] == 0 else 1)' "$out"
st=$(gexec 0 "snodectl health >/dev/null; echo \$?")
check "$KERNEL: sensors: ... and plain health ok (exit $st)" [ "$st" = 0 ]
gexec 0 "snodectl dev set snode0 temp-max 85 temp-crit 100 power-max 25 >/dev/null
	for f in $HW/temp1_*_alarm $HW/power1_max_alarm; do echo 0 >\$f; done" >/dev/null
# --- utilisation (decision 0027): a DMA stream saturates a slow link -----------
# Both of node 0's links at 1 lane x 1 Gb/s, which the device paces its DMA
# engine to, whichever one routes to node 1; a 3 MiB window of node 1.
out=$(gexec 0 "snodectl -j link show snode0 0")
check "$KERNEL: util: link show -j: threshold 80 by default, hysteresis 10, no alarm" pycheck '
l = json.loads(sys.argv[1])["links"][0]
sys.exit(0 if l["util_threshold"] == 80 and l["util_hysteresis"] == 10 and
         l["util_alarm"] is False else 1)' "$out"
out=$(gexec 0 "snodectl link set snode0 0 util-threshold 0 2>&1; echo rc=\$?; snodectl link set snode0 0 util-threshold 101 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: util: util-threshold 0 and 101 refused, naming the value ($out)" eval \
	'[ "$(grep -o "rc=64" <<<"$out" | wc -l)" = 2 ] && grep -q "bad util-threshold \"0\"" <<<"$out" && grep -q "bad util-threshold \"101\"" <<<"$out"'
gexec 0 "snodectl link set snode0 1 util-threshold 50" >/dev/null
out=$(gexec 0 "snodectl -j link show snode0 1; snodectl -j link show snode0 0")
check "$KERNEL: util: util-threshold 50 on link 1 only" pycheck '
a, b = [json.loads(x)["links"][0] for x in sys.argv[1].splitlines()]
sys.exit(0 if a["util_threshold"] == 50 and b["util_threshold"] == 80 else 1)' "$out"
# The stream's alarm at 50 % on both links: the device paces the engine to
# the link's 1 Gb/s (0.96 measured), but a loaded host slows the stream in
# some periods (0.85 over 3 s of one run at load 11), and the check is of
# the counters and the alarm, not of the host's pace.
gexec 0 "snodectl link set snode0 1 util-threshold 50 && snodectl link set snode0 0 util-threshold 50" >/dev/null
for p in 0 1; do
	fmctl link lanes 0.$p 1
	fmctl link speed 0.$p 1
done
fmctl sim export 1 7 1M 3M 0x5700 rw
check "$KERNEL: util: both links at 1 x 1G" until_ok 15 eval \
	'gexec 0 "snodectl -j link status snode0" | python3 -c "import json, sys; sys.exit(0 if all(x[\"lanes\"] == 1 and x[\"speed\"] == 1 for x in json.load(sys.stdin)[\"links\"]) else 1)"'
sleep 3
mon_start umon 60
check "$KERNEL: util: monitor listening" [ $? -eq 0 ]
# link status -s over 12 s holds the whole 9-s stream: the busy link's bytes
# in it are the stream's, however the host's load paced the stream
gexec 0 "rm -f /tmp/ustream.* /tmp/urates.json
	(snodectl -j link status -s --interval 12 snode0 >/tmp/urates.json 2>&1 &)
	sleep 0.5
	(snode-perf -j dma handle snode:v1:1:7:0x5700 max 3M stream 9 >/tmp/ustream.json 2>/tmp/ustream.err; echo \$? >/tmp/ustream.rc) &" >/dev/null
sleep 3
st=$(gexec 0 "snodectl -j health >/tmp/uhealth.json; echo \$?")
uhealth=$(gexec 0 "cat /tmp/uhealth.json")
echo "$uhealth" >"$LOG/util-health.json"
text=$(gexec 0 "snodectl link status -s --interval 0.5 snode0")
echo "$text" >"$LOG/util-rates.txt"
until_ok 30 gexec 0 "test -f /tmp/ustream.rc" >/dev/null
until_ok 15 gexec 0 "test -s /tmp/urates.json" >/dev/null
rates=$(gexec 0 "cat /tmp/urates.json")
echo "$rates" >"$LOG/util-rates.json"
stream=$(gexec 0 "cat /tmp/ustream.json")
echo "$stream" >"$LOG/util-stream.json"
check "$KERNEL: util: the DMA stream ran and saturates the 1 Gbit/s link ($stream)" pycheck '
d = json.loads(sys.argv[1])
sys.exit(0 if d["benchmark"] == "dma-stream" and 0.8 <= d["gbps"] <= 1.1 else 1)' "$stream"
check "$KERNEL: util: link status -s -j over the stream: the busy link sent the stream's bytes (within 10%), the other nothing" pycheck '
s = json.loads(sys.argv[2])["bytes"]
l = json.loads(sys.argv[1])["links"]
sent = sorted(x["rate"]["tx_gbps"] * x["rate"]["interval"] * 1e9 / 8 for x in l)
print(s, sent, [x["rate"] for x in l], file=sys.stderr)
busy = [x for x in l if x["rate"]["tx_gbps"] * x["rate"]["interval"] * 1e9 / 8 == sent[-1]][0]
sys.exit(0 if abs(sent[-1] - s) <= 0.1 * s and sent[0] < 0.01 * s and
         abs(busy["rate"]["tx_pct"] - 100 * busy["rate"]["tx_gbps"] / (busy["lanes"] * busy["speed"])) < 0.01 and
         busy["rate"]["interval"] >= 11 else 1)' "$rates" "$stream"
check "$KERNEL: util: link status -s text: a rate line per link" eval \
	'[ "$(grep -Ec "^    over [0-9.]+s: rx [0-9.]+ Gbit/s \([0-9.]+%\) tx [0-9.]+ Gbit/s \([0-9.]+%\)$" <<<"$text")" = 2 ]'
check "$KERNEL: util: health -j warns of the busy link's utilisation (exit $st)" pycheck '
d = json.loads(sys.argv[1]); p = d["devices"][0]["problems"]
print(p, file=sys.stderr)
sys.exit(0 if sys.argv[2] == "1" and d["verdict"] == "warning" and
         any(x.startswith("link ") and " utilisation " in x and x.endswith("(alarm at 50%)") for x in p) else 1)' "$uhealth" "$st"
# the alarm clears in the first whole period after the stream (1 s), held at
# most one rate-limit interval (1 s)
sleep 1
out=$(mon_stop umon)
echo "$out" >"$LOG/util-monitor.json"
check "$KERNEL: util: monitor -j: one link-util raised, then one cleared, on the busy link" pycheck '
e = [json.loads(l) for l in sys.argv[1].splitlines() if l.startswith("{")]
u = [x for x in e if x["event"] == "link-util"]
print(u, file=sys.stderr)
sys.exit(0 if len(u) == 2 and u[0]["alarm"] == "raised" and u[1]["alarm"] == "cleared" and
         u[0]["port"] == u[1]["port"] and max(u[0]["tx_pct"], u[0]["rx_pct"]) >= 50 and
         max(u[1]["tx_pct"], u[1]["rx_pct"]) < 40 and u[0]["util_threshold"] == 50 else 1)' "$out"
gexec 0 "snodectl link set snode0 0 util-threshold 80 && snodectl link set snode0 1 util-threshold 80" >/dev/null
for p in 0 1; do
	fmctl link speed 0.$p 100
	fmctl link lanes 0.$p max
done
fmctl sim unexport 1 7
health_ok() { [ "$(gexec 0 "snodectl health >/dev/null; echo \$?")" = 0 ]; }
check "$KERNEL: util: stream over, links back to 4 x 100G: health ok again" until_ok 15 health_ok
# --- utilisation of loads and stores through a window (decision 0035) -----------
# The device counts a window page a CPU touches once per 10 ms period, as
# 4 KiB, tx if stored to, else rx. A stream over 128 MiB comes back to a
# page after 50 to 130 ms at the 8 to 20 Gbit/s TCG reaches, while the
# periods measured 10.3 ms (median), 24 ms (p99) and 35 ms at most at a host
# load of 5.6: each pass counts every page once, so the counters should read
# the stream's own rate. A buffer of a few periods' worth or less would read
# low (decision 0035 says by how much). The stream's rate follows the host's
# load and rises over its first seconds (a load stream, second by second:
# 6.5, 7.0, 7.8, 8.9, then 10 to 15 Gbit/s), so the link is
# sampled over as much of it as it can be: 10 s of the stream's 11, from
# the line the stream prints when its timed part begins. (Sampling from a
# fixed 1 s after the start put the setup and the untimed first pass,
# which maps the window, into the sample, and left the stream's fastest
# last seconds out of it: 13.3 against 14.9 Gbit/s, once.) The byte
# counters, read before and after, are checked against every byte the
# stream moved, first pass included. Links at 4 x 100G: no alarm to disturb.
fmctl sim export 1 8 4M 128M 0x5800 rw
# port_bytes PORT: "TX RX" of snode0's port PORT, bytes since it was cleared
port_bytes() {
	gexec 0 "snodectl -j link show snode0 $1" | python3 -c '
import json, sys
l = json.load(sys.stdin)["links"][0]
print(l["tx_bytes"], l["rx_bytes"])' 2>>"$LOG/py.err"
}
for by in store load; do
	before="$(port_bytes 0) $(port_bytes 1)"
	gexec 0 "rm -f /tmp/wstream.*; (snode-perf -j dma handle snode:v1:1:8:0x5800 max 128M stream 11 by $by >/tmp/wstream.json 2>/tmp/wstream.err; echo \$? >/tmp/wstream.rc) &" >/dev/null
	rates=$(gexec 0 "for i in \$(seq 300); do grep -q 'timing from now' /tmp/wstream.err && break; sleep 0.1; done
		snodectl -j link status -s --interval 10 snode0")
	echo "$rates" >"$LOG/window-$by-rates.json"
	until_ok 30 gexec 0 "test -f /tmp/wstream.rc" >/dev/null
	stream=$(gexec 0 "cat /tmp/wstream.json")
	echo "$stream" >"$LOG/window-$by-stream.json"
	gexec 0 "cat /tmp/wstream.err" >"$LOG/window-$by-stream.err"
	after="$(port_bytes 0) $(port_bytes 1)"
	echo "$before -> $after" >"$LOG/window-$by-bytes"
	check "$KERNEL: window: a $by stream through node 1's 128M window ran ($stream)" pycheck '
d = json.loads(sys.argv[1])
sys.exit(0 if d["benchmark"] == sys.argv[2] + "-stream" and d["bytes"] > 0 else 1)' "$stream" "$by"
	# stores are tx, loads rx, on the link routing to node 1
	check "$KERNEL: window: link status -s -j: the busy link's $by direction within 10% of the stream's rate, its other direction and the other link idle" pycheck '
s = json.loads(sys.argv[2])["gbps"]
l = json.loads(sys.argv[1])["links"]
d, o = ("tx_gbps", "rx_gbps") if sys.argv[3] == "store" else ("rx_gbps", "tx_gbps")
l.sort(key=lambda x: x["rate"][d])
busy, idle = l[1]["rate"], l[0]["rate"]
print(s, busy, idle, file=sys.stderr)
sys.exit(0 if abs(busy[d] - s) <= 0.1 * s and busy[o] < 0.05 * s and
         idle[d] < 0.01 and idle[o] < 0.01 and busy["interval"] >= 10 else 1)' "$rates" "$stream" "$by"
	check "$KERNEL: window: the busy link counted the $by stream's bytes and its first pass within 3% ($before -> $after)" pycheck '
s = json.loads(sys.argv[1])["bytes"] + (128 << 20)
b = [int(x) for x in sys.argv[3].split()]; a = [int(x) for x in sys.argv[4].split()]
d = [y - x for x, y in zip(b, a)]    # port 0 tx, rx, port 1 tx, rx
i = 0 if sys.argv[2] == "store" else 1
busy = max((0, 2), key=lambda p: d[p + i])
print(s, d, file=sys.stderr)
sys.exit(0 if len(d) == 4 and abs(d[busy + i] - s) <= 0.03 * s and d[busy + 1 - i] < 0.01 * s and
         d[2 - busy + i] < 0.01 * s and d[3 - busy - i] < 0.01 * s else 1)' "$stream" "$by" "$before" "$after"
done
# an idle window counts nothing: mapped, written and read once, then held
gexec 0 "rm -f /tmp/idle.*; ($KSFT_BIN/link_stream 1 8 0x5800 0x100000 1 /tmp/idle.ready 8 >/tmp/idle.out 2>&1 &)
	for i in \$(seq 100); do test -f /tmp/idle.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
check "$KERNEL: window: link_stream mapped node 1's window" [ $? -eq 0 ]
sleep 2
rates=$(gexec 0 "snodectl -j link status -s --interval 3 snode0; test ! -s /tmp/idle.out && echo held")
echo "$rates" >"$LOG/window-idle-rates.json"
check "$KERNEL: window: held idle, both links read under 0.001 Gbit/s each way" pycheck '
j, held = sys.argv[1].rsplit("\n", 1)
r = [x["rate"] for x in json.loads(j)["links"]]
print(held, r, file=sys.stderr)
sys.exit(0 if held == "held" and all(x["tx_gbps"] < 0.001 and x["rx_gbps"] < 0.001 for x in r) else 1)' "$rates"
until_ok 15 gexec 0 "test -s /tmp/idle.out" >/dev/null
out=$(gexec 0 "cat /tmp/idle.out")
check "$KERNEL: window: link_stream kept every byte, then held the window ($out)" \
	grep -q "mismatches 0 state active" <<<"$out"
fmctl sim unexport 1 8
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
	# node show asks the NIC for one node (NODE_GET), not the dump
	out=$(gexec 0 "snodectl -j node show snode0 node 1023")
	check "$KERNEL: 1024: node show snode0 node 1023 -j: the same node as its node list entry" pycheck '
one = json.loads(sys.argv[1])["nodes"]
n = {x["node"]: x for x in json.load(open(sys.argv[2]))["nodes"]}
sys.exit(0 if len(one) == 1 and one[0] == n[1023] and one[0]["rack"] == "rack31" else 1)' "$out" "$LOG/nodes-1024.json"
	out=$(gexec 0 "snodectl node show node 1024 2>&1; echo rc=\$?")
	check "$KERNEL: 1024: node show node 1024 (past max_nodes): exit 1, the kernel's reason" \
		bash -c '[[ "$1" == *"out of range"* && "$1" == *"rc=1"* ]]' _ "$out"
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
