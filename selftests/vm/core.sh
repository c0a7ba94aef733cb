#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# core.sh - the snode.ko core suite on an emulated supernode.
#
# Usage: selftests/vm/core.sh 6.1|6.12
#
# Boots tools/emu/topologies/2nic-host.topo (host 0: a VM with the NICs of
# nodes 0 and 1; host 1: a VM with node 2) under the given guest kernel and
# checks, from the host:
#   - insmod prints the identity line of every NIC
#   - sysfs identity agrees with what the fabric manager configured
#   - the kselftest binaries pass on both hosts (each case is one test here)
#   - a temperature injected by the fabric manager raises temp1_max_alarm,
#     the THERMAL event reaches the driver and sensors(1) shows the NIC
#   - unload/load cycles leave nothing behind
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make modules-guest selftests qemu kernels (make check-build).

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=${1:-}
case "$KERNEL" in
6.1|6.12) ;;
*) echo "usage: $0 6.1|6.12" >&2; exit 2 ;;
esac

BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
TOPO=$TOP/tools/emu/topologies/2nic-host.topo
FM=${SNODE_FM:-$BUILD/tools/snode-fm}
# A state directory of our own, so other supernodes may be up meanwhile.
STATE=$BUILD/vm/core-$KERNEL
export SNODE_FM_DIR=$STATE
LOG=$BUILD/check/core-$KERNEL
mkdir -p "$LOG"

# host index -> first fabric node id (what "snode-vm exec --node" takes)
HOST_NODES=(0 2)

n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # check NAME COMMAND...: one TAP line from the command's status
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# Run a guest command on the host carrying NODE; output without the
# "[nodeN] " prefix goes to stdout; returns the command's status.
gexec() {
	local node=$1
	shift
	"$VM" exec --state "$STATE" --node "$node" --timeout 120 -- "$*" 2>>"$LOG/exec.err" |
		sed -u 's/^\[node[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}

finish() {
	"$VM" down --state "$STATE" >>"$LOG/vm.log" 2>&1
	check "$KERNEL: snode-vm down" [ $? -eq 0 ]
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# --- prerequisites -----------------------------------------------------------
missing=
for f in "$BUILD/qemu/qemu-system-x86_64" "$FM" \
	"$BUILD/stage/k$KERNEL/lib/snode/snode.ko" \
	"$BUILD/stage/common/usr/lib/snode/selftests/core_test"; do
	[ -e "$f" ] || missing="$missing ${f#"$TOP"/}"
done
if [ -n "$missing" ]; then
	not_ok "$KERNEL: prerequisites present (missing:$missing; run make check-build)"
	echo "1..$n"
	exit 1
fi
ok "$KERNEL: prerequisites present"

if ! "$VM" up --state "$STATE" --topology "$TOPO" --kernel "$KERNEL" \
	>"$LOG/vm.log" 2>&1; then
	not_ok "$KERNEL: snode-vm up (see ${LOG#"$TOP"/}/vm.log)"
	echo "1..$n"
	exit 1
fi
ok "$KERNEL: snode-vm up 2nic-host"

# --- load and identity ---------------------------------------------------------
for node in "${HOST_NODES[@]}"; do
	gexec "$node" "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: host of node $node: insmod snode.ko" [ $? -eq 0 ]
done

fm_json=$("$FM" ctl --dir "$SNODE_FM_DIR" show nodes -j 2>"$LOG/fm-ctl.err")
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
# Re-emit each kselftest case as one TAP line of this suite.
# Re-emit each kselftest case as one TAP line of this suite. The 6.1
# harness leaves the name out of "ok N # SKIP" lines; take it from "RUN".
run_kselftest() {
	local h=$1 node=$2 prog=$3 line rc name= seen=0
	gexec "$node" "/usr/lib/snode/selftests/$prog" >"$LOG/$prog-host$h.tap" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"#  RUN "*)
			name=${line#\#  RUN }
			name=${name#"${name%%[! ]*}"}
			name=${name% ...} ;;
		"ok "[0-9]*"# SKIP"*)
			skip "$KERNEL: host $h $prog $name" "${line#*# SKIP }"
			seen=1 ;;
		"ok "[0-9]*)
			ok "$KERNEL: host $h $prog $name"
			seen=1 ;;
		"not ok "[0-9]*)
			not_ok "$KERNEL: host $h $prog $name"
			seen=1 ;;
		"1..0 # SKIP"*)
			skip "$KERNEL: host $h $prog" "${line#1..0 # SKIP }"
			seen=1 ;;
		esac
	done <"$LOG/$prog-host$h.tap"
	if [ "$seen" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] &&
		! grep -q '^not ok' "$LOG/$prog-host$h.tap"; }; then
		not_ok "$KERNEL: host $h $prog ran (status $rc)"
	fi
}

for h in 0 1; do
	run_kselftest "$h" "${HOST_NODES[$h]}" core_test
done

# --- hwmon alarm from an injected temperature ---------------------------------
# The snodeN of host 0 that is fabric node 0.
dev0=$(awk '$2 == 0 { print $1 }' "$LOG/ids-host0")
hw="/sys/class/snode/$dev0/device/hwmon/hwmon*"
if [ -z "$dev0" ]; then
	not_ok "$KERNEL: node 0 is on host 0"
else
	before=$(gexec 0 "grep 'type 6 ' /sys/kernel/debug/snode/$dev0/queues | cut -d' ' -f5")
	"$FM" ctl --dir "$SNODE_FM_DIR" node temp 0 95000 >>"$LOG/fm-ctl.err" 2>&1
	check "$KERNEL: snode-fm ctl node temp 0 95000" [ $? -eq 0 ]
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

	"$FM" ctl --dir "$SNODE_FM_DIR" node temp 0 45000 >>"$LOG/fm-ctl.err" 2>&1
	alarm=$(gexec 0 "sleep 1; cat $hw/temp1_max_alarm >/dev/null; cat $hw/temp1_max_alarm")
	check "$KERNEL: node 0 temp1_max_alarm clears at 45 C" [ "$alarm" = 0 ]
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

finish
