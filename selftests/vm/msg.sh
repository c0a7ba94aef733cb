#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# msg.sh - the messaging and DMA suite on an emulated supernode.
#
# Usage: selftests/vm/msg.sh 6.1|6.12
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1, simulated node 2 with an
# echo endpoint and DMA target exports) under the given guest kernel and
# checks, from the host:
#   - msg_test and dma_test on node 0 (each kselftest case is one test)
#   - 10000 messages ping-pong between processes on nodes 0 and 1, content,
#     sequence numbers and order checked on both sides
#   - snode-perf ping against the simulated echo endpoint reports the raw
#     doorbell baseline; snodectl shows the endpoints and counters
#   - snode.ko unloads on both nodes afterwards (nothing pinned or held)
# then boots tools/emu/topologies/4-dual-plane.topo and runs the allreduce
# sample on its four nodes, which must agree on the verified result.
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make modules-guest selftests snode-perf snodectl qemu kernels.

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=${1:-}
case "$KERNEL" in
6.1|6.12) ;;
*) echo "usage: $0 6.1|6.12" >&2; exit 2 ;;
esac

BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
FM=${SNODE_FM:-$BUILD/tools/snode-fm}
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-msg}
export SNODE_FM_DIR=$SNODE_VM_UP
LOG=$BUILD/check/msg-$KERNEL
SELFTESTS=/usr/lib/snode/selftests
mkdir -p "$LOG"

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
	local node=$1 timeout=$2
	shift 2
	"$VM" exec --node "$node" --timeout "$timeout" -- "$*" 2>>"$LOG/exec.err" |
		sed -u 's/^\[node[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}

up() { # up NAME TOPOLOGY
	if ! "$VM" up --topology "$2" --kernel "$KERNEL" >"$LOG/vm-$1.log" 2>&1; then
		not_ok "$KERNEL: snode-vm up $1 (see ${LOG#"$TOP"/}/vm-$1.log)"
		return 1
	fi
	ok "$KERNEL: snode-vm up $1"
}

# The guests' consoles must show no oops, BUG, WARNING or lockdep report.
no_splat() {
	local hits
	hits=$(grep -l -E '\] (BUG:|WARNING:|Oops|Kernel panic|Call Trace:|INFO: task|.*possible circular locking|.*possible recursive locking)' \
		"$SNODE_VM_UP"/node*.log 2>/dev/null)
	check "$KERNEL: no kernel splat on the $1 guests${hits:+ (see $hits)}" [ -z "$hits" ]
}

down() {
	no_splat "$1"
	"$VM" down >>"$LOG/vm.log" 2>&1
	check "$KERNEL: snode-vm down" [ $? -eq 0 ]
}

finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# Re-emit each kselftest case as one TAP line of this suite. The 6.1
# harness leaves the name out of "ok N # SKIP" lines; take it from "RUN".
run_kselftest() {
	local node=$1 prog=$2 line rc name= seen=0
	gexec "$node" 900 "$SELFTESTS/$prog" >"$LOG/$prog.tap" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"#  RUN "*)
			name=${line#\#  RUN }
			name=${name#"${name%%[! ]*}"}
			name=${name% ...} ;;
		"ok "[0-9]*"# SKIP"*)
			skip "$KERNEL: node $node $prog $name" "${line#*# SKIP }"
			seen=1 ;;
		"ok "[0-9]*)
			ok "$KERNEL: node $node $prog $name"
			seen=1 ;;
		"not ok "[0-9]*)
			not_ok "$KERNEL: node $node $prog $name"
			seen=1 ;;
		esac
	done <"$LOG/$prog.tap"
	if [ "$seen" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] &&
		! grep -q '^not ok' "$LOG/$prog.tap"; }; then
		not_ok "$KERNEL: node $node $prog ran (status $rc)"
	fi
}

# --- prerequisites -------------------------------------------------------------
missing=
for f in "$BUILD/qemu/qemu-system-x86_64" "$FM" \
	"$BUILD/stage/k$KERNEL/lib/snode/snode.ko" \
	"$BUILD/stage/common$SELFTESTS/msg_test" \
	"$BUILD/stage/common$SELFTESTS/dma_test" \
	"$BUILD/stage/common/usr/bin/snode-perf" \
	"$BUILD/stage/common/usr/bin/snodectl"; do
	[ -e "$f" ] || missing="$missing ${f#"$TOP"/}"
done
if [ -n "$missing" ]; then
	not_ok "$KERNEL: prerequisites present (missing:$missing; run make check-build)"
	finish
fi
ok "$KERNEL: prerequisites present"

# --- two VM nodes and a simulated one --------------------------------------------
"$VM" down >/dev/null 2>&1
up msg "$TOP/selftests/vm/msg.topo" || finish
for node in 0 1; do
	gexec "$node" 60 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

run_kselftest 0 msg_test
run_kselftest 0 dma_test

# Ping-pong: the server on node 1 in the background, the client on node 0.
gexec 1 300 "$SELFTESTS/msg_test pingpong server 0 10000" >"$LOG/pingpong-server" 2>&1 &
server=$!
gexec 0 300 "$SELFTESTS/msg_test pingpong client 1 10000" >"$LOG/pingpong-client" 2>&1
crc=$?
wait "$server"
src=$?
check "$KERNEL: 10000 messages node 0 -> node 1 -> node 0, checked at the client" \
	grep -q "client: 10000 messages checked" "$LOG/pingpong-client"
check "$KERNEL: ... and at the server" \
	grep -q "server: 10000 messages checked" "$LOG/pingpong-server"
[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] || not_ok "$KERNEL: ping-pong exit status (client $crc, server $src)"

out=$(gexec 0 300 "snode-perf -j ping echo 2 iters 300")
echo "$out" >"$LOG/ping-echo.json"
check "$KERNEL: snode-perf ping echo: driver and raw round trips measured" \
	python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
sys.exit(0 if r["driver_poll_rtt"]["n"] == 300 and r["raw_rtt"]["n"] == 300 and r["ratio_poll"] > 0 else 1)' <<<"$out"

out=$(gexec 0 60 'snodectl -j msg stats; snodectl msg list')
echo "$out" >"$LOG/snodectl"
check "$KERNEL: snodectl msg stats counts the messages sent" \
	python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())["devices"][0]
sys.exit(0 if d["msgs_sent"] >= 10000 and d["msgs_received"] >= 10000 and d["dma_bytes"] > 0 else 1)' <<<"$out"

for node in 0 1; do
	out=$(gexec "$node" 60 'rmmod snode && echo unloaded
		echo 1 >/proc/sys/vm/stat_refresh; grep foll_pin /proc/vmstat')
	echo "$out" >"$LOG/rmmod-$node"
	check "$KERNEL: node $node: snode.ko unloads after the tests" \
		grep -q unloaded <<<"$out"
done
check "$KERNEL: node 0: every pinned page was unpinned" \
	awk '/acquired/ { a = $2 } /released/ { r = $2 } END { exit !(a == r && a > 0) }' \
	"$LOG/rmmod-0"
down msg

# --- allreduce on four nodes ----------------------------------------------------------
export SNODE_VM_UP=$SNODE_VM_UP-4
export SNODE_FM_DIR=$SNODE_VM_UP
"$VM" down >/dev/null 2>&1
up 4-dual-plane "$TOP/tools/emu/topologies/4-dual-plane.topo" || finish
"$VM" exec --all --timeout 600 -- \
	"insmod /lib/snode/snode.ko && snode-perf allreduce nodes 0,1,2,3 size 1M iters 3" \
	>"$LOG/allreduce" 2>&1
check "$KERNEL: allreduce on 4 nodes ran" [ $? -eq 0 ]
for node in 0 1 2 3; do
	check "$KERNEL: allreduce node $node verified its result" \
		grep -q "^\[node$node\]   result verified" "$LOG/allreduce"
done
sums=$(grep -o 'checksum [0-9.e+]*' "$LOG/allreduce" | sort -u | wc -l)
check "$KERNEL: the four nodes agree on the checksum" [ "$sums" -eq 1 ]
down 4-node
finish
