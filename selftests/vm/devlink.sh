#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# devlink.sh - snode.ko's devlink instances, read and driven by Debian's
# unmodified iproute2 devlink (staged from the host by make devlink-stage).
#
# Usage: selftests/vm/devlink.sh 6.1|6.12|debug
#
# Boots selftests/vm/devlink.topo (one VM with the NICs of nodes 0 and 1,
# two links each; a simulated node 2) under the given guest kernel and
# checks, mostly through devlink -j:
#   - dev show lists one instance per NIC, at the NIC's PCI address
#   - dev info: driver snode, the serial number, firmware, PCI revision and
#     contract versions as sysfs and snodectl report them
#   - port show: one physical port per link, numbered by link index
#   - health show: reporters "link" and "thermal" on every instance
#   - diagnose link: every link with the counters snodectl reports;
#     diagnose thermal: the sensors hwmon reads
#   - injected link errors (fabric manager: lanes, link down, BER) raise
#     the right instance's link reporter, dump shows the error; with
#     auto_recover the driver resets the link itself, without it
#     devlink health recover does, and the link comes back
#   - an administrative link down is no error; a link its auto-isolate
#     policy isolates (BER) is one ("isolated by auto-isolate (BER)"),
#     diagnose shows it isolated, and recover counts it without resetting
#     the link, which stays down until link clear; a THERMAL event raises
#     the thermal reporter until the alarm is acknowledged
#   - recover needs CAP_NET_ADMIN; an FLR, callbacks racing FLRs and an
#     unload/load leave the instances working, then gone and back
# On a kernel without CONFIG_NET_DEVLINK (the debug kernel) only loading
# the driver is checked and the rest is skipped, with the reason.
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make emu-build (devlink-stage stages /usr/sbin/devlink).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite devlink "6.1|6.12|debug" "${1:-}"
TOPO=$TOP/selftests/vm/devlink.topo
DL=/usr/sbin/devlink

finish_hook() {
	gexec 0 "dmesg" >"$LOG/dmesg" 2>&1
}

require
if [ ! -x "$BUILD/stage/common$DL" ]; then
	skip "$KERNEL: devlink" "no $DL staged (install iproute2 on the host, make devlink-stage)"
	plan_exit
fi
vm_up devlink --topology "$TOPO" || finish

gexec 0 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
check "$KERNEL: insmod snode.ko" [ $? -eq 0 ]

if ! grep -q '^CONFIG_NET_DEVLINK=y' "$BUILD/kernels/$KERNEL/config"; then
	out=$(gexec 0 "snodectl dev show")
	check "$KERNEL: without devlink the driver works: snodectl dev show lists both NICs" \
		[ "$(grep -c '^snode[01]: attached' <<<"$out")" = 2 ]
	skip "$KERNEL: devlink instances, ports and health reporters" \
		"the $KERNEL kernel has no CONFIG_NET_DEVLINK (a hidden symbol only drivers select; tools/emu/vm/debug.config has none of them)"
	finish
fi

# "snodeX node bdf serial fw hw nports revision" of every NIC
ids=$(gexec 0 'for d in /sys/class/snode/snode*; do
	p=$(readlink -f $d/device)
	echo ${d##*/} $(cat $d/node_id) ${p##*/} $(cat $d/serial $d/fw_version $d/hw_version $d/nports $p/revision)
done')
echo "$ids" >"$LOG/ids"
# the NIC of node 0, whose links the fabric manager breaks, and of node 1
read -r DEV0 _ BDF0 _ <<<"$(awk '$2 == 0' <<<"$ids")"
read -r DEV1 _ BDF1 _ <<<"$(awk '$2 == 1' <<<"$ids")"
H0=pci/$BDF0
H1=pci/$BDF1
check "$KERNEL: the NICs of nodes 0 and 1 are in sysfs ($DEV0 $H0, $DEV1 $H1)" \
	bash -c '[ -n "$1" ] && [ -n "$2" ]' _ "$BDF0" "$BDF1"

# --- instance, info, ports -------------------------------------------------------
out=$(gexec 0 "$DL -j dev show")
echo "$out" >"$LOG/dev-show.json"
check "$KERNEL: devlink dev show: exactly $H0 and $H1" pycheck '
d = json.loads(sys.argv[1])["dev"]
sys.exit(0 if sorted(d) == sorted(sys.argv[2:4]) else 1)' "$out" "$H0" "$H1"

snodectl_devs=$(gexec 0 "snodectl -j dev show")
for h in "$H0" "$H1"; do
	out=$(gexec 0 "$DL -j dev info $h")
	echo "$out" >>"$LOG/dev-info.json"
	check "$KERNEL: devlink dev info $h: driver snode, serial, fw, asic.rev, contract as sysfs and snodectl say" pycheck '
info = json.loads(sys.argv[1])["info"][sys.argv[2]]
bdf = sys.argv[2][4:]
ids = {l.split()[2]: l.split() for l in sys.argv[3].splitlines()}
name, node, _, serial, fw, hw, nports, rev = ids[bdf]
ctl = {d["dev"]: d for d in json.loads(sys.argv[4])["devices"]}[name]
v = info["versions"]
print(info, ids[bdf], ctl.get("serial"), file=sys.stderr)
sys.exit(0 if info["driver"] == "snode" and info["serial_number"] == serial == ctl["serial"] and
         v["running"]["fw"] == fw and v["fixed"]["snode.contract"] == hw and
         int(v["fixed"]["asic.rev"]) == int(rev, 16) else 1)' "$out" "$h" "$ids" "$snodectl_devs"
done

out=$(gexec 0 "$DL -j port show")
echo "$out" >"$LOG/port-show.json"
links=$(gexec 0 "snodectl -j link status")
echo "$links" >"$LOG/links.json"
check "$KERNEL: devlink port show: one physical port per link, numbered by link index" pycheck '
ports = json.loads(sys.argv[1])["port"]
ids = {l.split()[2]: l.split() for l in sys.argv[2].splitlines()}
links = json.loads(sys.argv[3])["links"]
want = {}
for x in links:
    bdf = [b for b, i in ids.items() if i[0] == x["dev"]][0]
    want["pci/%s/%d" % (bdf, x["port"])] = x["port"]
got = {k: v["port"] for k, v in ports.items() if v["flavour"] == "physical"}
print(got, want, file=sys.stderr)
sys.exit(0 if got == want and len(ports) == len(want) == 4 else 1)' "$out" "$ids" "$links"

# --- health: reporters, diagnose ---------------------------------------------------
out=$(gexec 0 "$DL -j health show")
echo "$out" >"$LOG/health-show.json"
check "$KERNEL: devlink health show: link and thermal on both instances, healthy" pycheck '
h = json.loads(sys.argv[1])["health"]
ok = all(sorted((r["reporter"], r["state"]) for r in h.get(d, [])) ==
         [("link", "healthy"), ("thermal", "healthy")] for d in sys.argv[2:4])
sys.exit(0 if ok and len(h) == 2 else 1)' "$out" "$H0" "$H1"

out=$(gexec 0 "$DL -j health diagnose $H0 reporter link")
links=$(gexec 0 "snodectl -j link status $DEV0")
echo "$out" >"$LOG/diagnose-link.json"
check "$KERNEL: diagnose link: every link of $DEV0 with the state and counters snodectl reports" pycheck '
d = json.loads(sys.argv[1])["links"]
s = {x["port"]: x for x in json.loads(sys.argv[2])["links"]}
ok = [x["port"] for x in d] == sorted(s) == [0, 1]
for x in d:
    y = s[x["port"]]
    ok = ok and x["oper"] == y["state"] and x["lanes"]["active"] == y["lanes"] and \
         x["lanes"]["max"] == y["max_lanes"] and x["lanes"]["state"] == "full" and \
         all(x["counters"][k] == y[k] for k in ("crc_errors", "replays", "recoveries", "down_events")) and \
         x["ber"]["alarm"] is False and x["stale"] is False
sys.exit(0 if ok else 1)' "$out" "$links"

out=$(gexec 0 "$DL -j health diagnose $H0 reporter thermal; cat /sys/class/snode/$DEV0/device/hwmon/hwmon*/temp1_input /sys/class/snode/$DEV0/device/hwmon/hwmon*/temp1_max")
echo "$out" >"$LOG/diagnose-thermal"
check "$KERNEL: diagnose thermal: temperature and threshold as hwmon reads them, no alarm" pycheck '
lines = sys.argv[1].splitlines()
d = json.loads(lines[0])
ok = d["temperature_mC"] == int(lines[1]) and d["temp_max_mC"] == int(lines[2]) and \
     not any(d["alarms"].values()) and d["throttled"] is False
sys.exit(0 if ok else 1)' "$out"

# --- link errors --------------------------------------------------------------
# rep_get HANDLE NAME: "error recover state" of a reporter
rep_get() {
	gexec 0 "$DL -j health show $1 reporter $2" | python3 -c '
import json, sys
r = list(json.load(sys.stdin)["health"].values())[0][0]
print(r["error"], r["recover"], r["state"])' 2>>"$LOG/py.err"
}
# fm_recoveries LINK: the fabric manager's recovery count of a link
fm_recoveries() {
	"$FM" ctl --dir "$SNODE_FM_DIR" show links -j 2>>"$LOG/fm-ctl.log" | python3 -c '
import json, sys
print([x for x in json.load(sys.stdin) if x["a"] == sys.argv[1]][0]["recoveries"])' "$1"
}
# rep_is HANDLE NAME "ERROR RECOVER STATE"
rep_is() { [ "$(rep_get "$1" "$2")" = "$3" ]; }
# link_state DEV PORT: the oper state snodectl reports
link_state() {
	gexec 0 "snodectl -j link show $1 $2" | python3 -c '
import json, sys
print(json.load(sys.stdin)["links"][0]["state"])' 2>>"$LOG/py.err"
}
link_is() { [ "$(link_state "$1" "$2")" = "$3" ]; }
# dump_has HANDLE REASON PORT: the stored dump of the link reporter is that error
dump_has() {
	local out
	out=$(gexec 0 "$DL -j health dump show $1 reporter link")
	echo "$out" >>"$LOG/dumps.json"
	pycheck '
d = json.loads(sys.argv[1])
sys.exit(0 if d["error"]["reason"] == sys.argv[2] and d["link"]["port"] == int(sys.argv[3]) else 1)' \
		"$out" "$2" "$3"
}

# Every recovery is automatic and immediate unless the test says otherwise.
gexec 0 "$DL health set $H0 reporter link grace_period 0" >>"$LOG/set.log" 2>&1
check "$KERNEL: devlink health set grace_period 0 on $H0 link" [ $? -eq 0 ]

read -r e0 r0 _ <<<"$(rep_get "$H0" link)"
read -r e1 r1 _ <<<"$(rep_get "$H1" link)"
fr=$(fm_recoveries 0.1)
fmctl link lanes 0.1 2
check "$KERNEL: lanes lost on 0.1: error and automatic recovery counted ($e0 $r0 -> +1 +1)" \
	until_ok 10 rep_is "$H0" link "$((e0 + 1)) $((r0 + 1)) healthy"
check "$KERNEL: ... the driver reset the link: the fabric manager counts a recovery" \
	until_ok 5 [ "$(fm_recoveries 0.1)" = "$((fr + 1))" ]
check "$KERNEL: ... the dump is that error: 'lanes lost, link degraded' on port 1" \
	dump_has "$H0" "lanes lost, link degraded" 1
check "$KERNEL: ... and $H1 saw no error" rep_is "$H1" link "$e1 $r1 healthy"
fmctl link lanes 0.1 max
check "$KERNEL: ... lanes back: the link is up" until_ok 10 link_is "$DEV0" 1 up
gexec 0 "$DL health dump clear $H0 reporter link" >>"$LOG/set.log" 2>&1

gexec 0 "$DL health set $H0 reporter link auto_recover false" >>"$LOG/set.log" 2>&1
check "$KERNEL: devlink health set auto_recover false on $H0 link" [ $? -eq 0 ]
read -r e0 r0 _ <<<"$(rep_get "$H0" link)"
fr=$(fm_recoveries 0.1)
fmctl link down 0.1
check "$KERNEL: link down on 0.1: error counted, state error, no recovery" \
	until_ok 10 rep_is "$H0" link "$((e0 + 1)) $r0 error"
check "$KERNEL: ... devlink health dump show: 'link down' on port 1" \
	dump_has "$H0" "link down" 1
fmctl link up 0.1
until_ok 10 link_is "$DEV0" 1 up
out=$(gexec 0 "$DL health recover $H0 reporter link; echo status \$?")
echo "$out" >"$LOG/recover"
check "$KERNEL: devlink health recover $H0 reporter link succeeds" grep -q '^status 0$' <<<"$out"
check "$KERNEL: ... recovery counted, state healthy" rep_is "$H0" link "$((e0 + 1)) $((r0 + 1)) healthy"
check "$KERNEL: ... it reset the link: the fabric manager counts a recovery" \
	[ "$(fm_recoveries 0.1)" = "$((fr + 1))" ]
check "$KERNEL: ... and the link comes back up" until_ok 10 link_is "$DEV0" 1 up
gexec 0 "$DL health dump clear $H0 reporter link" >>"$LOG/set.log" 2>&1

read -r e0 r0 _ <<<"$(rep_get "$H0" link)"
gexec 0 "snodectl link set $DEV0 1 state down" >>"$LOG/set.log" 2>&1
until_ok 10 link_is "$DEV0" 1 down
sleep 1
check "$KERNEL: an administrative link down is no error" rep_is "$H0" link "$e0 $r0 healthy"
gexec 0 "snodectl link set $DEV0 1 state up" >>"$LOG/set.log" 2>&1
until_ok 10 link_is "$DEV0" 1 up

gexec 0 "snodectl link threshold $DEV0 0 1e-10" >>"$LOG/set.log" 2>&1
fmctl link ber 0.0 1e-9
check "$KERNEL: BER above the threshold on 0.0: error counted" \
	until_ok 10 rep_is "$H0" link "$((e0 + 1)) $r0 error"
check "$KERNEL: ... dump: 'bit-error rate above threshold' on port 0" \
	dump_has "$H0" "bit-error rate above threshold" 0
fmctl link ber 0.0 0
gexec 0 "snodectl link threshold $DEV0 0 off; $DL health recover $H0 reporter link" >>"$LOG/set.log" 2>&1
out=$(gexec 0 "$DL -j health diagnose $H0 reporter link")
echo "$out" >"$LOG/diagnose-after.json"
check "$KERNEL: diagnose link counts the errors reported per link (port 0: 1, port 1: 2)" pycheck '
d = json.loads(sys.argv[1])["links"]
sys.exit(0 if [x["errors_reported"] for x in d] == [1, 2] else 1)' "$out"

out=$(gexec 0 "su user -s /bin/sh -c '$DL health recover $H0 reporter link' 2>&1; echo status \$?")
echo "$out" >"$LOG/unpriv"
check "$KERNEL: unprivileged devlink health recover fails (CAP_NET_ADMIN)" \
	grep -q '^status [1-9]' <<<"$out"

# --- auto-isolate ----------------------------------------------------------------
# isolation_of DEV PORT: the link's auto-isolate state as snodectl reports it
isolation_of() {
	gexec 0 "snodectl -j link show $1 $2" | python3 -c '
import json, sys
print(json.load(sys.stdin)["links"][0]["isolation"])' 2>>"$LOG/py.err"
}
gexec 0 "$DL health dump clear $H0 reporter link" >>"$LOG/set.log" 2>&1
read -r e0 r0 _ <<<"$(rep_get "$H0" link)"
fr=$(fm_recoveries 0.1)
gexec 0 "snodectl link set $DEV0 1 auto-isolate ber 1e-9" >>"$LOG/set.log" 2>&1
check "$KERNEL: auto-isolate ber 1e-9 on $DEV0 link 1" [ $? -eq 0 ]
fmctl link ber 0.1 1e-8
check "$KERNEL: BER 1e-8 past it: link 1 isolated" until_ok 15 eval '[ "$(isolation_of "$DEV0" 1)" = isolated ]'
check "$KERNEL: ... the isolation is one link error, state error (auto_recover off)" \
	until_ok 10 rep_is "$H0" link "$((e0 + 1)) $r0 error"
check "$KERNEL: ... dump: 'isolated by auto-isolate (BER)' on port 1" \
	dump_has "$H0" "isolated by auto-isolate (BER)" 1
out=$(gexec 0 "$DL -j health diagnose $H0 reporter link")
echo "$out" >"$LOG/diagnose-isolated.json"
check "$KERNEL: ... diagnose: port 1 isolated and admin down, port 0 not isolated" pycheck '
d = {x["port"]: x for x in json.loads(sys.argv[1])["links"]}
sys.exit(0 if (d[1]["isolation"], d[1]["admin"], d[0]["isolation"]) == ("isolated", "down", "none") else 1)' "$out"
out=$(gexec 0 "$DL health recover $H0 reporter link; echo status \$?")
echo "$out" >"$LOG/recover-isolated"
check "$KERNEL: ... devlink health recover succeeds, counted, healthy" \
	eval 'grep -q "^status 0$" <<<"$out" && rep_is "$H0" link "$((e0 + 1)) $((r0 + 1)) healthy"'
sleep 1
check "$KERNEL: ... the recovery did not reset the isolated link (fabric manager: no recovery)" \
	[ "$(fm_recoveries 0.1)" = "$fr" ]
check "$KERNEL: ... link 1 still isolated and down" \
	eval '[ "$(isolation_of "$DEV0" 1)" = isolated ] && link_is "$DEV0" 1 down'
fmctl link ber 0.1 0
gexec 0 "snodectl link set $DEV0 1 auto-isolate off && snodectl link clear $DEV0 1 && snodectl link set $DEV0 1 state up" >>"$LOG/set.log" 2>&1
check "$KERNEL: ... link clear, state up: link 1 back up, isolation none" \
	until_ok 15 eval 'link_is "$DEV0" 1 up && [ "$(isolation_of "$DEV0" 1)" = none ]'
gexec 0 "$DL health dump clear $H0 reporter link" >>"$LOG/set.log" 2>&1

# --- thermal -------------------------------------------------------------------
read -r te tr _ <<<"$(rep_get "$H0" thermal)"
fmctl node temp 0 95000
check "$KERNEL: 95 C on node 0: thermal reporter counts an error" \
	until_ok 10 rep_is "$H0" thermal "$((te + 1)) $tr error"
out=$(gexec 0 "$DL -j health dump show $H0 reporter thermal")
echo "$out" >"$LOG/dump-thermal.json"
check "$KERNEL: ... dump: the event at 95000 mC with temp_max" pycheck '
e = json.loads(sys.argv[1])["event"]
sys.exit(0 if e["temperature_mC"] == 95000 and e["alarms"]["temp_max"] else 1)' "$out"
fmctl node temp 0 40000
# the shell globs no redirection target
gexec 0 "for f in /sys/class/snode/$DEV0/device/hwmon/hwmon*/temp1_*_alarm; do echo 0 >\$f; done" >>"$LOG/set.log" 2>&1
gexec 0 "$DL health diagnose $H0 reporter thermal" >>"$LOG/set.log" 2>&1
check "$KERNEL: ... cooled and acknowledged: healthy again after diagnose" \
	rep_is "$H0" thermal "$((te + 1)) $tr healthy"

# --- reset and unload --------------------------------------------------------------
out=$(gexec 0 "echo 1 > /sys/bus/pci/devices/$BDF0/reset && $DL -j health diagnose $H0 reporter link && $DL -j dev info $H0")
echo "$out" >"$LOG/after-flr"
check "$KERNEL: after an FLR of $DEV0: diagnose and dev info answer" pycheck '
lines = sys.argv[1].splitlines()
d = json.loads(lines[0])["links"]
i = json.loads(lines[1])["info"]
sys.exit(0 if len(d) == 2 and i[sys.argv[2]]["driver"] == "snode" else 1)' "$out" "$H0"

# Callbacks racing resets: each must answer or fail (EAGAIN), never hang or
# touch the device mid-reset (the debug lanes' log scan would see that).
out=$(gexec 0 "(i=0; while [ \$i -lt 100 ]; do
		$DL health diagnose $H0 reporter link; $DL health diagnose $H0 reporter thermal
		$DL health recover $H0 reporter link; $DL dev info $H0; i=\$((i + 1))
	done) >/dev/null 2>/tmp/race.err &
	for n in 1 2 3 4 5; do echo 1 > /sys/bus/pci/devices/$BDF0/reset; sleep 0.2; done
	wait; sort /tmp/race.err | uniq -c | sed 's/^/# /'
	cat /sys/class/snode/$DEV0/state; $DL -j health diagnose $H0 reporter link")
echo "$out" >"$LOG/flr-race"
check "$KERNEL: diagnose, recover and dev info in a loop across 5 FLRs: no hang, live, fresh diagnose after" pycheck '
lines = sys.argv[1].splitlines()
d = json.loads(lines[-1])["links"]
sys.exit(0 if lines[-2] == "live" and len(d) == 2 and not any(x["stale"] for x in d) else 1)' "$out"

out=$(gexec 0 "rmmod snode && $DL -j dev show; insmod /lib/snode/snode.ko && $DL -j dev show")
echo "$out" >"$LOG/reload"
check "$KERNEL: rmmod: no instance left; insmod: both back" pycheck '
a, b = [json.loads(l)["dev"] for l in sys.argv[1].splitlines()[-2:]]
sys.exit(0 if not a and sorted(b) == sorted(sys.argv[2:4]) else 1)' "$out" "$H0" "$H1"

finish
