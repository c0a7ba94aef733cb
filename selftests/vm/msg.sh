#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# msg.sh - the messaging and DMA suite on an emulated supernode.
#
# Usage: selftests/vm/msg.sh 6.1|6.12|debug [pair|four]
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1, simulated node 2 with an
# echo endpoint and DMA target exports) under the given guest kernel and
# checks, from the host:
#   - msg_test, dma_test and lifetime_test of the kselftest collection on
#     node 0, run by run_kselftest.sh (each kselftest case is one test)
#   - 10000 messages ping-pong between processes on nodes 0 and 1, content,
#     sequence numbers and order checked on both sides, over the NICs'
#     direct link: the fm relays none of them; then 200 with "snode-fm ctl
#     direct off" (all relayed) and 200 with it on again (none relayed)
#   - snode-perf ping against the simulated echo endpoint reports the raw
#     doorbell baseline; snodectl shows the endpoints and counters
#   - snode.ko unloads on both nodes afterwards (nothing pinned or held)
# then boots tools/emu/topologies/4-dual-plane.topo and runs snode-perf
# allreduce (libsnode's) on its four nodes, which must agree on the verified
# result, then libsnode's collectives test (every collective and size, bad
# arguments, a member killed mid-collective) on the four.
# "pair" runs only the first part, "four" only the second (make check runs
# the debug kernel's four-node part in make check-full only, for its time
# budget; see Documentation/driver/testing.rst).
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite msg "6.1|6.12|debug" "${1:-}" "[pair|four]"
PART=${2:-all}
case "$PART" in
all|pair|four) ;;
*) echo "usage: $0 6.1|6.12|debug [pair|four]" >&2; exit 2 ;;
esac
# each supernode is taken down (and checked) by down(), below
DOWN_TAP=

# The guests' consoles must show no oops, BUG, WARNING or lockdep report.
no_splat() {
	local hits
	hits=$(grep -l -E '\] (BUG:|WARNING:|Oops|Kernel panic|Call Trace:|INFO: task|.*possible circular locking|.*possible recursive locking)' \
		"$SNODE_VM_UP"/node*.log 2>/dev/null)
	check "$KERNEL: no kernel splat on the $1 guests${hits:+ (see $hits)}" [ -z "$hits" ]
}

down() {
	no_splat "$1"
	vm_down
	check "$KERNEL: snode-vm down" [ $? -eq 0 ]
}

require "$BUILD/stage/common/usr/bin/snode-perf" "$BUILD/stage/common/usr/bin/snodectl"

# --- two VM nodes and a simulated one --------------------------------------------
if [ "$PART" != four ]; then
vm_up msg --topology "$TOP/selftests/vm/msg.topo" || finish
for node in 0 1; do
	gexec_t "$node" 60 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

# the runner's CPU model: with ERMS/FSRM, memcpy() through a window runs
# TCG's byte-at-a-time rep movsb (decisions/0020-guest-cpu-without-erms.md)
flags=$(gexec_t 0 60 "grep -m1 '^flags' /proc/cpuinfo")
check "$KERNEL: node 0: the vCPU reports sse2 but neither erms nor fsrm" \
	eval 'grep -qw sse2 <<<"$flags" && ! grep -Eqw "erms|fsrm" <<<"$flags"'

for prog in msg_test dma_test lifetime_test; do
	ksft_run "$KERNEL: node 0 $prog" 0 840 "$prog"
done

# The messages the fm relayed for nodes 0 and 1 (show nodes -j), "A B".
relayed() {
	"$FM" ctl --dir "$SNODE_FM_DIR" show nodes -j 2>>"$LOG/fm-ctl.log" |
		python3 -c '
import json, sys
n = {d["id"]: d for d in json.load(sys.stdin)}
print(n[0]["msgs_relayed"], n[1]["msgs_relayed"], int(n[0]["direct"] and n[1]["direct"]))'
}

# pingpong N NAME: N messages node 0 -> node 1 -> node 0 (msg_test), logs
# LOG/NAME-client and -server; checked at both ends
pingpong() {
	local count=$1 name=$2 server crc src
	gexec_t 1 300 "$KSFT_BIN/msg_test pingpong server 0 $count" >"$LOG/$name-server" 2>&1 &
	server=$!
	gexec_t 0 300 "$KSFT_BIN/msg_test pingpong client 1 $count" >"$LOG/$name-client" 2>&1
	crc=$?
	wait "$server"
	src=$?
	check "$KERNEL: $count messages node 0 -> node 1 -> node 0 ($name), checked at the client" \
		grep -q "client: $count messages checked" "$LOG/$name-client"
	check "$KERNEL: ... and at the server" \
		grep -q "server: $count messages checked" "$LOG/$name-server"
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] || not_ok "$KERNEL: $name exit status (client $crc, server $src)"
}

# Ping-pong: the server on node 1 in the background, the client on node 0,
# over the direct link between the two NICs (decision 0039): the fm relays
# none of the 10000 messages (the guests' own few, e.g. from msg_test's
# fixture, are counted before).
read -r r0 r1 direct < <(relayed)
check "$KERNEL: both NICs took direct links (HELLO_DIRECT)" [ "${direct:-0}" = 1 ]
pingpong 10000 pingpong
read -r a0 a1 _ < <(relayed)
check "$KERNEL: direct: the fm relayed none of the ping-pong (node 0 $r0 -> ${a0:-?}, node 1 $r1 -> ${a1:-?})" \
	[ -n "${a0:-}" ] && [ "$a0" = "$r0" ] && [ "$a1" = "$r1" ]
# with the links ended every message goes through the fm, and back
fmctl direct off
pingpong 200 pingpong-relay
read -r b0 b1 _ < <(relayed)
check "$KERNEL: direct off: the fm relays every message (node 0 +$((${b0:-0} - ${a0:-0})), node 1 +$((${b1:-0} - ${a1:-0})))" \
	[ -n "${b0:-}" ] && [ $((b0 - a0)) -ge 200 ] && [ $((b1 - a1)) -ge 200 ]
fmctl direct on
pingpong 200 pingpong-direct
read -r c0 c1 _ < <(relayed)
check "$KERNEL: direct on again: the fm relays none (node 0 +$((${c0:-0} - ${b0:-0})), node 1 +$((${c1:-0} - ${b1:-0})))" \
	[ -n "${c0:-}" ] && [ "$c0" = "$b0" ] && [ "$c1" = "$b1" ]

# The raw baseline comes from the driver's tracepoints, recorded in a
# private tracefs instance that is gone afterwards (decision 0025).
out=$(gexec_t 0 300 "snode-perf -j ping echo 2 iters 300; ls /sys/kernel/tracing/instances")
echo "$out" >"$LOG/ping-echo"
check "$KERNEL: snode-perf ping echo: driver and raw round trips measured" \
	python3 -c '
import json, sys
r = json.JSONDecoder().raw_decode(sys.stdin.read())[0]
sys.exit(0 if r["driver_poll_rtt"]["n"] == 300 and r["raw_rtt"]["n"] == 300 and
         r["raw_ack"]["n"] == 300 and r["raw_rtt"]["median_us"] > 0 and
         r["ratio_poll"] > 0 else 1)' <<<"$out"
no_perf_instance() { ! grep -q "^snode-perf-" <<<"$out"; }
check "$KERNEL: snode-perf ping echo removed its tracefs instance" no_perf_instance

out=$(gexec_t 0 60 'snodectl -j msg stats; snodectl msg list')
echo "$out" >"$LOG/snodectl"
check "$KERNEL: snodectl msg stats counts the messages sent" \
	python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())["devices"][0]
sys.exit(0 if d["msgs_sent"] >= 10000 and d["msgs_received"] >= 10000 and d["dma_bytes"] > 0 else 1)' <<<"$out"

for node in 0 1; do
	out=$(gexec_t "$node" 60 'rmmod snode && echo unloaded
		echo 1 >/proc/sys/vm/stat_refresh; grep foll_pin /proc/vmstat')
	echo "$out" >"$LOG/rmmod-$node"
	check "$KERNEL: node $node: snode.ko unloads after the tests" \
		grep -q unloaded <<<"$out"
done
check "$KERNEL: node 0: every pinned page was unpinned" \
	awk '/acquired/ { a = $2 } /released/ { r = $2 } END { exit !(a == r && a > 0) }' \
	"$LOG/rmmod-0"
down msg
fi
[ "$PART" != pair ] || finish

# --- allreduce on four nodes ----------------------------------------------------------
export SNODE_VM_UP=$SNODE_VM_UP-4
export SNODE_FM_DIR=$SNODE_VM_UP
vm_up 4-dual-plane --topology "$TOP/tools/emu/topologies/4-dual-plane.topo" || finish
# Each guest bounds its own run (a few seconds when healthy, even under
# KASAN) and, should it hang, prints where snode-perf waits before killing
# it, so that a hang leaves its kernel stacks in the log.
"$VM" exec --all --timeout 420 -- '
insmod /lib/snode/snode.ko || exit 1
snode-perf allreduce nodes 0,1,2,3 size 1M iters 3 & p=$!
(sleep 300; echo "snode-perf still running after 300 s; its threads wait in:"
 for t in /proc/$p/task/*; do echo "${t##*/}: $(cat $t/wchan)"; cat $t/stack; done
 kill -9 $p) & w=$!
wait $p; rc=$?
kill $w 2>/dev/null
echo "snode-perf exit status $rc"
exit $rc' >"$LOG/allreduce" 2>&1
rc=$?
statuses=$(sed -n 's/^\[node\([0-9]*\)\] snode-perf exit status \([0-9]*\)$/\1:\2/p' "$LOG/allreduce" | sort | tr '\n' ' ')
if [ "$rc" -eq 0 ]; then
	ok "$KERNEL: allreduce on 4 nodes ran"
else
	# a VM that died (channel closed) or a hung rank: say which, and
	# what QEMU said
	for node in 0 1 2 3; do
		pid=$(cat "$SNODE_VM_UP/node$node.pid" 2>/dev/null)
		if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
			echo "node$node: QEMU $pid running"
		else
			echo "node$node: QEMU not running"
		fi
		tail -5 "$SNODE_VM_UP/node$node.qemu.log" 2>/dev/null | sed "s/^/node$node qemu: /"
	done >>"$LOG/allreduce"
	statuses="$statuses$(grep -o 'node[0-9]*: exec [a-z ]*' "$LOG/allreduce" | tr '\n' ' ')$(grep -c 'QEMU not running' "$LOG/allreduce") VMs gone "
	not_ok "$KERNEL: allreduce on 4 nodes ran (exec status $rc, node:status ${statuses% }; see ${LOG#"$TOP"/}/allreduce)"
fi
for node in 0 1 2 3; do
	check "$KERNEL: allreduce node $node verified its result" \
		grep -q "^\[node$node\]   result verified" "$LOG/allreduce"
done
sums=$(grep -o 'checksum [0-9.e+]*' "$LOG/allreduce" | sort -u | wc -l)
check "$KERNEL: the four nodes agree on the checksum" [ "$sums" -eq 1 ]

# libsnode's collectives (libsnode/test/coll_test.c): every collective for
# sizes 0, 1, not divisible by 4, one and many steps, every root; bad
# arguments. Then node 3 kills itself inside an allreduce: the others must
# fail with EPIPE or ETIMEDOUT within the timeout, never hang.
COLL_TEST=/usr/lib/snode/libsnode_coll_test
"$VM" exec --all --timeout 300 -- "$COLL_TEST nodes 0,1,2,3; echo \"coll_test exit status \$?\"" \
	>"$LOG/coll" 2>&1
# coll_ran LOG NODE STATUS MIN: NODE's coll_test exited with STATUS after at
# least MIN checks, none of them failed
coll_ran() {
	local n
	n=$(grep -c "^\[node$2\] ok " "$1")
	grep -q "^\[node$2\] coll_test exit status $3\$" "$1" &&
		! grep -q "^\[node$2\] not ok" "$1" && [ "$n" -ge "$4" ]
}
for node in 0 1 2 3; do
	check "$KERNEL: node $node: libsnode collectives and bad arguments checked (coll_test)" \
		coll_ran "$LOG/coll" "$node" 0 100
done
"$VM" exec --all --timeout 300 -- "$COLL_TEST nodes 0,1,2,3 victim 3; echo \"coll_test exit status \$?\"" \
	>"$LOG/coll-victim" 2>&1
check "$KERNEL: node 3 killed itself inside an allreduce" \
	eval 'grep -q "^\[node3\] coll_test exit status 137\$" "$LOG/coll-victim"'
for node in 0 1 2; do
	check "$KERNEL: node $node: its allreduce failed (EPIPE or ETIMEDOUT) in bounded time, then EPIPE" \
		coll_ran "$LOG/coll-victim" "$node" 0 6
done
down 4-node
finish
