#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# link.sh - link health on an emulated supernode: the snode netlink family,
# its events, failover and snodectl, driven from the host by fault
# injection through the fabric manager.
#
# Usage: selftests/vm/link.sh 6.1|6.12|debug
#
# Boots tools/emu/topologies/256-sim.topo (one VM, node 0, facing 256
# simulated nodes on two switch planes) under the given guest kernel and
# checks:
#   - netlink_test of the kselftest collection, run by run_kselftest.sh
#     (each case is one test here)
#   - snodectl dev show / link status / node list, text and JSON, agree
#     with the fabric manager's own tables (snode-fm ctl show ... -j)
#   - a second client that knows only the YAML spec (the kernel's YNL
#     cli.py) dumps devices and links, and agrees with snodectl
#   - counters follow the fabric manager's BER model; clearing works
#   - a BER threshold raises exactly one event per crossing
#   - snodectl monitor sees every injected fault: link down/up, flap
#     (rate limited, with a suppressed count), lanes, BER alarm, node
#     death and return, thermal
#   - failover: with plane 0 down every node routes through port 1, the
#     event says so, and a stream through a remote window keeps every
#     byte; with both planes down the nodes are unreachable and the
#     window is revoked, and the events say that too
#   - an unprivileged user reads everything and changes nothing
#   - snodectl health, and its message when snode.ko is not loaded
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make all modules-guest selftests (and the kernels).
# The supernode runs in its own state directory (SNODE_VM_UP), so other
# suites' supernodes are left alone.

set -u

. "$(dirname "$0")/lib.sh"
vm_suite link "6.1|6.12|debug" "${1:-}"
TOPO=$TOP/tools/emu/topologies/256-sim.topo
YNL_STAGED=/usr/lib/snode/ynl
NODES=256
GEXEC_TIMEOUT=180

finish_hook() {
	gexec 0 "dmesg" >"$LOG/dmesg" 2>&1
}

require "$BUILD/stage/common/usr/bin/snodectl" "$BUILD/stage/common$KSFT_BIN/link_stream"

# nl-check renders into one directory of build/: link-6.1 and link-6.12 may
# run at once (run-all.sh), so they take turns
nl_check() {
	flock "$BUILD/.nl-check.lock" make -s -C "$TOP" nl-check >>"$LOG/nl-check.log" 2>&1
}
check "$KERNEL: uapi/linux/snode.h netlink block is what snode.yaml renders (make nl-check)" \
	nl_check

vm_up 256-sim --topology "$TOPO" || finish

gexec 0 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
check "$KERNEL: insmod snode.ko" [ $? -eq 0 ]

# --- kselftests ------------------------------------------------------------------
ksft_run "$KERNEL: netlink_test" 0 300 netlink_test

# --- snodectl against the fabric manager ---------------------------------------
# Let the links settle: the tests above took port 1 down and up.
sleep 1
fmctl link ber 0.0 0
fmctl link ber 0.1 0
gexec 0 "snodectl link clear snode0 0 && snodectl link clear snode0 1" >/dev/null

out=$(gexec 0 "snodectl dev show")
echo "$out" >"$LOG/dev-show"
check "$KERNEL: snodectl dev show: snode0 attached as node 0 of fabric 5" \
	grep -q '^snode0: attached node 0 fabric 5 ports 2' <<<"$out"
dev_json=$(gexec 0 "snodectl -j dev show")
check "$KERNEL: snodectl -j dev show parses (node 0, 2 ports)" pycheck '
d = json.loads(sys.argv[1])["devices"]
sys.exit(0 if len(d) == 1 and d[0]["node"] == 0 and d[0]["ports"] == 2 else 1)' "$dev_json"

links_json=$(gexec 0 "snodectl -j link status")
fm_links=$("$FM" ctl --dir "$SNODE_FM_DIR" show links -j 2>>"$LOG/fm-ctl.log")
echo "$links_json" >"$LOG/links.json"
echo "$fm_links" >"$LOG/fm-links.json"
check "$KERNEL: snodectl -j link status parses, one entry per port" pycheck '
l = json.loads(sys.argv[1])["links"]
sys.exit(0 if [(x["dev"], x["port"]) for x in l] == [("snode0", 0), ("snode0", 1)] else 1)' "$links_json"
check "$KERNEL: link status agrees with snode-fm show links (state, lanes, speed, counters)" pycheck '
l = json.loads(sys.argv[1])["links"]
fm = {x["a"]: x for x in json.loads(sys.argv[2])}
bad = []
for x in l:
    f = fm["0.%d" % x["port"]]
    for k, fk in (("state", "oper"), ("admin", "admin"), ("lanes", "lanes"),
                  ("max_lanes", "max_lanes"), ("speed", "speed"),
                  ("crc_errors", "crc_errors"), ("replays", "replays"),
                  ("recoveries", "recoveries"), ("down_events", "down_events")):
        if x[k] != f[fk]:
            bad.append((x["port"], k, x[k], f[fk]))
    if x["verdict"] != "ok":
        bad.append((x["port"], "verdict", x["verdict"]))
print(bad, file=sys.stderr)
sys.exit(1 if bad else 0)' "$links_json" "$fm_links"

nodes_json=$(gexec 0 "snodectl -j node list")
fm_nodes=$("$FM" ctl --dir "$SNODE_FM_DIR" show nodes from 0 -j 2>>"$LOG/fm-ctl.log")
echo "$nodes_json" >"$LOG/nodes.json"
echo "$fm_nodes" >"$LOG/fm-nodes.json"
check "$KERNEL: snodectl node list: all $NODES nodes, as snode-fm tells node 0" pycheck '
n = json.loads(sys.argv[1])["nodes"]
fm = {x["id"]: x for x in json.loads(sys.argv[2]) if x["id"] != 0}
got = {x["node"]: (x["state"], x.get("route_port")) for x in n}
want = {i: (x["view"], x.get("route_port")) for i, x in fm.items()}
sys.exit(0 if len(n) == int(sys.argv[3]) and got == want else 1)' \
	"$nodes_json" "$fm_nodes" "$NODES"
out=$(gexec 0 "snodectl node list | grep -c ' up route-port 0$'")
check "$KERNEL: snodectl node list text: $NODES lines 'up route-port 0' ($out)" \
	[ "$out" = "$NODES" ]

# --- the YAML spec alone: the kernel's YNL client --------------------------------
if gexec 0 "test -x $YNL_STAGED/ynl-cli" >/dev/null; then
	ynl="$YNL_STAGED/ynl-cli --output-json"
	ynl_links=$(gexec 0 "$ynl --dump link-get")
	ynl_devs=$(gexec 0 "$ynl --dump dev-get")
	# --dbg-small-recv reads with 4000-byte buffers: several skbs
	ynl_small=$(gexec 0 "$ynl --dump node-get --dbg-small-recv 2>&1 | grep -E '^(Recv|\[)'")
	links_json=$(gexec 0 "snodectl -j link status")
	echo "$ynl_links" >"$LOG/ynl-links.json"
	echo "$ynl_devs" >"$LOG/ynl-devs.json"
	check "$KERNEL: YNL (spec only) dumps devices, and they agree with snodectl dev show" pycheck '
y = json.loads(sys.argv[1]); s = json.loads(sys.argv[2])["devices"]
ok = len(y) == len(s) and all(a["name"] == b["dev"] and a["node-id"] == b["node"] and
       a["nports"] == b["ports"] and a["serial"] == b["serial"] and
       a["pool-size"] == b["pool_size"] for a, b in zip(y, s))
sys.exit(0 if ok else 1)' "$ynl_devs" "$dev_json"
	check "$KERNEL: YNL (spec only) dumps links, and they agree with snodectl link status" pycheck '
y = json.loads(sys.argv[1]); s = json.loads(sys.argv[2])["links"]
states = ["down", "up", "degraded", "training"]
ok = len(y) == len(s) and all(a["dev-name"] == b["dev"] and a["port"] == b["port"] and
       a["oper-state"] == b["state"] and a["lanes"] == b["lanes"] and
       a["speed"] == b["speed"] and a["crc-errors"] == b["crc_errors"] and
       a["down-events"] == b["down_events"] for a, b in zip(y, s))
sys.exit(0 if ok else 1)' "$ynl_links" "$links_json"
	echo "$ynl_small" >"$LOG/ynl-small"
	check "$KERNEL: YNL node dump through small buffers: all $NODES nodes, several reads" pycheck '
lines = sys.argv[1].splitlines()
nodes = json.loads([l for l in lines if l.startswith("[")][-1])
reads = [l for l in lines if l.startswith("Recv:")]
sys.exit(0 if len(nodes) == int(sys.argv[2]) and len(reads) > 2 else 1)' \
		"$ynl_small" "$NODES"
else
	skip "$KERNEL: YNL (spec only) agrees with snodectl" \
		"no python3 with YNL staged in the guest (make ynl-stage)"
fi

# --- events ------------------------------------------------------------------------
# The guest's monitor writes one JSON object per event; the host reads them.
mon_start() {
	gexec 0 "rm -f /tmp/ev.json /tmp/ev.err
		snodectl -j monitor >/tmp/ev.json 2>/tmp/ev.err &
		for i in \$(seq 100); do
			grep -q monitoring /tmp/ev.err 2>/dev/null && exit 0
			sleep 0.1
		done; exit 1" >/dev/null
}

# events_wait SECONDS PYTHON [ARG...]: until the predicate over "ev" (the
# events so far) holds, ARGs in sys.argv[2:]; the events are left in
# $LOG/ev.json.
events_wait() {
	local t=$1 pred=$2 i
	for ((i = 0; i < t; i++)); do
		# a failover notifies every node: fetch only the ones checked
		gexec 0 "grep -E '\"event\":\"(link|thermal|window|access)|\"node\":(1|9|$NODES),' /tmp/ev.json" >"$LOG/ev.json"
		if python3 -c "import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
$pred" "$LOG/ev.json" "${@:3}" 2>>"$LOG/py.err"; then
			return 0
		fi
		sleep 1
	done
	return 1
}

check "$KERNEL: snodectl monitor subscribes" mon_start

fmctl link down 0.1
check "$KERNEL: monitor: link down (port 1 down)" events_wait 10 '
sys.exit(0 if any(e["event"] == "link-state" and e["port"] == 1 and e["state"] == "down" for e in ev) else 1)'
sleep 1.2
fmctl link up 0.1
check "$KERNEL: monitor: link up (port 1 up)" events_wait 10 '
l = [e for e in ev if e["event"] == "link-state" and e["port"] == 1]
sys.exit(0 if l and l[-1]["state"] == "up" else 1)'

sleep 1.2
fmctl link flap 0.1 count 5 period 150
check "$KERNEL: monitor: flap is rate limited, suppressed count, last state up" events_wait 15 '
l = [e for e in ev if e["event"] == "link-state" and e["port"] == 1][2:]
sys.exit(0 if l and l[-1]["state"] == "up" and len(l) < 10 and
         sum(e.get("suppressed", 0) for e in l) > 0 else 1)'

sleep 1.2
fmctl link lanes 0.1 2
check "$KERNEL: monitor: lanes degraded to 2" events_wait 10 '
sys.exit(0 if any(e["event"] == "link-state" and e["port"] == 1 and e["state"] == "degraded" and e["lanes"] == 2 for e in ev) else 1)'
out=$(gexec 0 "snodectl health; echo status \$?")
echo "$out" >"$LOG/health-degraded"
check "$KERNEL: snodectl health: a degraded link is a warning, exit status 1" \
	grep -q '^overall: warning' <<<"$out"
grep -q '^status 1$' <<<"$out" || not_ok "$KERNEL: snodectl health exit status 1 when warning"
sleep 1.2
fmctl link lanes 0.1 max
check "$KERNEL: monitor: lanes restored" events_wait 10 '
l = [e for e in ev if e["event"] == "link-state" and e["port"] == 1]
sys.exit(0 if l[-1]["state"] == "up" and l[-1]["lanes"] == 4 else 1)'

fmctl node kill 9
check "$KERNEL: monitor: node 9 killed -> dead" events_wait 10 '
sys.exit(0 if any(e["event"] == "node-state" and e["node"] == 9 and e["state"] == "dead" for e in ev) else 1)'
sleep 1.2
fmctl node join 9
check "$KERNEL: monitor: node 9 joins again" events_wait 10 '
l = [e for e in ev if e["event"] == "node-state" and e["node"] == 9]
sys.exit(0 if l[-1]["state"] == "up" and l[-1]["change"] == "join" else 1)'

fmctl node temp 0 95000
check "$KERNEL: monitor: thermal alarm at 95 C" events_wait 10 '
sys.exit(0 if any(e["event"] == "thermal" and e["temp"] == 95000 and "temp-max" in e["alarms"] for e in ev) else 1)'
fmctl node temp 0 40000

# --- BER: counters follow the model, alarms once per crossing -------------------
gexec 0 "snodectl link clear snode0 1" >/dev/null
sleep 0.5
t0=$(date +%s.%N)
fmctl link ber 0.1 1e-9
sleep 3
fmctl link ber 0.1 0
t1=$(date +%s.%N)
sleep 0.6
guest=$(gexec 0 "snodectl -j link show snode0 1")
fm_links=$("$FM" ctl --dir "$SNODE_FM_DIR" show links -j 2>>"$LOG/fm-ctl.log")
echo "$guest" >"$LOG/ber-guest.json"
echo "$fm_links" >"$LOG/ber-fm.json"
# errors = floor(BER x lanes x speed x 1e9 x t): 400/s at 1e-9 on 4x100G;
# t is measured around the two ctl calls, the model ticks every 100 ms.
check "$KERNEL: crc_errors as the BER model predicts (1e-9, 4x100G, ~3 s)" pycheck '
g = json.loads(sys.argv[1])["links"][0]
f = [x for x in json.loads(sys.argv[2]) if x["a"] == "0.1"][0]
t = float(sys.argv[4]) - float(sys.argv[3])
rate = 1e-9 * 4 * 100e9
print("guest", g["crc_errors"], "fm", f["crc_errors"], "expect", rate * t, file=sys.stderr)
ok = (g["crc_errors"] == f["crc_errors"] and g["replays"] == g["crc_errors"] and
      abs(g["crc_errors"] - rate * t) <= rate * 0.3 + 1 and g["crc_errors"] > 0)
sys.exit(0 if ok else 1)' "$guest" "$fm_links" "$t0" "$t1"

gexec 0 "snodectl link clear snode0 1" >/dev/null
sleep 0.5
out=$(gexec 0 "snodectl -j link show snode0 1")
fm_links=$("$FM" ctl --dir "$SNODE_FM_DIR" show links -j 2>>"$LOG/fm-ctl.log")
check "$KERNEL: snodectl link clear zeroes the counters (both ends)" pycheck '
g = json.loads(sys.argv[1])["links"][0]
f = [x for x in json.loads(sys.argv[2]) if x["a"] == "0.1"][0]
sys.exit(0 if g["crc_errors"] == g["replays"] == g["down_events"] == f["crc_errors"] == 0 else 1)' \
	"$out" "$fm_links"

gexec 0 "snodectl link threshold snode0 1 1e-10" >/dev/null
fmctl link ber 0.1 1e-9
sleep 1.5
fmctl link ber 0.1 1e-8
sleep 1.5
fmctl link ber 0.1 0
sleep 2.5
check "$KERNEL: BER threshold: exactly one raise and one clear for one crossing each way" events_wait 5 '
b = [e for e in ev if e["event"] == "link-ber" and e["port"] == 1]
sys.exit(0 if [e["alarm"] for e in b] == ["raised", "cleared"] else 1)'
out=$(gexec 0 "snodectl link status snode0" | grep 'port 1 ')
check "$KERNEL: link status verdict ok once the BER is back to 0" \
	grep -q ' ok$' <<<"$out"
gexec 0 "snodectl link threshold snode0 1 off" >/dev/null

# --- failover under traffic, then no path at all ----------------------------------
# Node 1's export 0 (64K, key 0x5100, read-write) through port 0; plane 0
# goes away while the stream runs.
gexec 0 "rm -f /tmp/stream.*; $KSFT_BIN/link_stream 1 0 0x5100 65536 12 /tmp/stream.ready >/tmp/stream.out 2>&1 &
	for i in \$(seq 100); do test -f /tmp/stream.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
check "$KERNEL: stream through node 1's window started" [ $? -eq 0 ]
sleep 2
fmctl link down 0.0
check "$KERNEL: failover: node events say failover, route 0 -> 1 (nodes 1, $NODES)" events_wait 15 '
f = {e["node"] for e in ev if e["event"] == "node-state" and e["change"] == "failover" and
     e.get("prev_route_port") == 0 and e.get("route_port") == 1}
sys.exit(0 if {1, int(sys.argv[2])} <= f else 1)' "$NODES"
out=$(gexec 0 "snodectl node list | grep -c ' up route-port 1$'")
check "$KERNEL: failover: snodectl node list shows route-port 1 for all ($out)" \
	[ "$out" = "$NODES" ]
sleep 11
out=$(gexec 0 "cat /tmp/stream.out")
echo "$out" >"$LOG/stream-failover"
check "$KERNEL: failover: the stream kept every byte and its window ($out)" \
	grep -Eq '^rounds [1-9][0-9]* bytes [0-9]+ mismatches 0 state active' <<<"$out"

gexec 0 "rm -f /tmp/stream.*; $KSFT_BIN/link_stream 1 0 0x5100 65536 30 /tmp/stream.ready >/tmp/stream.out 2>&1 &
	for i in \$(seq 100); do test -f /tmp/stream.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
sleep 1
fmctl link down 0.1
check "$KERNEL: no path: node events say unreachable (nodes 1, $NODES)" events_wait 15 '
u = {e["node"] for e in ev if e["event"] == "node-state" and e["state"] == "unreachable"}
sys.exit(0 if {1, int(sys.argv[2])} <= u else 1)' "$NODES"
out=$(gexec 0 "snodectl node list | grep -c ' unreachable route-port -$'")
check "$KERNEL: no path: snodectl node list shows all unreachable ($out)" \
	[ "$out" = "$NODES" ]
check "$KERNEL: no path: window-revoked event, reason unreachable" events_wait 10 '
sys.exit(0 if any(e["event"] == "window-revoked" and e["node"] == 1 and e["reason"] == "unreachable" for e in ev) else 1)'
sleep 2
out=$(gexec 0 "cat /tmp/stream.out")
echo "$out" >"$LOG/stream-revoked"
check "$KERNEL: no path: the stream saw its window revoked, no byte wrong ($out)" \
	grep -Eq '^rounds [0-9]+ bytes [0-9]+ mismatches 0 state revoked reason 4' <<<"$out"
out=$(gexec 0 "snodectl health; echo status \$?")
echo "$out" >"$LOG/health-down"
check "$KERNEL: snodectl health: critical with no link up, exit status 2" \
	grep -q '^overall: critical' <<<"$out"
grep -q '^status 2$' <<<"$out" || not_ok "$KERNEL: snodectl health exit status 2 when critical"

fmctl link up 0.0
fmctl link up 0.1
check "$KERNEL: paths back: node events say reachable through port 0" events_wait 15 '
r = {}
for e in ev:
    if e["event"] == "node-state":
        r[e["node"]] = (e["state"], e.get("route_port"))
sys.exit(0 if r and all(v == ("up", 0) for v in r.values()) else 1)'
out=$(gexec 0 "snodectl node list | grep -c ' up route-port 0$'")
check "$KERNEL: paths back: snodectl node list shows route-port 0 for all ($out)" \
	[ "$out" = "$NODES" ]
out=$(gexec 0 "snodectl health; echo status \$?")
echo "$out" >"$LOG/health-ok"
check "$KERNEL: snodectl health: ok, exit status 0" \
	grep -q '^status 0' <<<"$out"
gexec 0 "killall snodectl" >/dev/null 2>&1

# --- permissions and errors -------------------------------------------------------
out=$(gexec 0 "su user -s /bin/sh -c 'snodectl link status && snodectl node list | wc -l && snodectl dev show' 2>&1")
check "$KERNEL: unprivileged user reads links, nodes and devices" \
	grep -q "^$NODES\$" <<<"$out"
out=$(gexec 0 "su user -s /bin/sh -c 'snodectl link set snode0 1 state down; echo status \$?' 2>&1")
echo "$out" >"$LOG/unpriv"
check "$KERNEL: unprivileged link set: EPERM, message names CAP_NET_ADMIN, exit 1" \
	grep -q 'needs CAP_NET_ADMIN' <<<"$out"
grep -q '^status 1' <<<"$out" || not_ok "$KERNEL: unprivileged link set exits 1"
out=$(gexec 0 "snodectl link show snode0 7 2>&1; echo status \$?")
echo "$out" >"$LOG/extack"
check "$KERNEL: snodectl shows the kernel's extack: 'Error: no such port ...', exit 1" \
	grep -q '^Error: no such port on this snode device\.$' <<<"$out"
grep -q '^status 1$' <<<"$out" || not_ok "$KERNEL: link show of a missing port exits 1"
out=$(gexec 0 "snodectl -j link show snode0 1")
check "$KERNEL: ... and the link stayed up" pycheck '
sys.exit(0 if json.loads(sys.argv[1])["links"][0]["state"] == "up" else 1)' "$out"

# what the devlink link reporter (auto-recovering) made of the faults above,
# before the unload below starts it over
gexec 0 "/usr/sbin/devlink -j health show" >"$LOG/devlink-health.json" 2>&1

out=$(gexec 0 "rmmod snode && snodectl link status; echo status \$?; insmod /lib/snode/snode.ko" 2>&1)
echo "$out" >"$LOG/not-loaded"
check "$KERNEL: without snode.ko: 'snode.ko not loaded', exit 1" \
	grep -q 'snode.ko not loaded' <<<"$out"

finish
