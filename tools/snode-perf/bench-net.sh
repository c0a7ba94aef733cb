#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The IP-over-the-fabric part of make bench, on one guest kernel.
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1) with iperf3 staged from
# Debian, puts addresses on the snode interfaces, and measures in the same
# run: the DMA engine's bandwidth ("snode-perf dma" on node 0 through a
# window onto its own pool, up to 4M copies), iperf3 TCP throughput node 0
# -> node 1 at MTU 9000, 65521 (the largest: one frame fills a ring slot)
# and 1500, iperf3 over loopback on node 0 (what TCP does at all in such a
# guest), ping's round trip over the interface and snode-perf ping's
# round trip between the same nodes. Results go to build/bench/net-KERNEL/;
# the ratios end the output. Timings never fail the run.
#
# Usage: tools/snode-perf/bench-net.sh 6.1|6.12

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
KERNEL=${1:-6.1}
OUT=$BUILD/bench/net-$KERNEL
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-bench-net}
mkdir -p "$OUT"
rc=0

gx() { # gx NODE COMMAND: run on NODE, output without the node prefix
	local node=$1
	shift
	"$VM" exec --node "$node" --timeout 600 -- "$*" | sed 's/^\[node[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
IF='$(ls /sys/class/snode/snode0/device/net)'

echo "== IP over the fabric on Debian $KERNEL (TCG; ratios matter, absolute numbers do not)"
"$VM" down >/dev/null 2>&1
if ! SNODE_VM_PACKAGES="iperf3 ethtool" "$VM" up --topology "$TOP/selftests/vm/msg.topo" \
	--kernel "$KERNEL" --mem 1024 >"$OUT/vm.log" 2>&1; then
	echo "bench: snode-vm up failed (see $OUT/vm.log)"
	exit 1
fi
for n in 0 1; do
	gx "$n" "insmod /lib/snode/snode.ko && ip link set dev $IF up &&
		ip addr add 10.77.0.$((n + 1))/24 dev $IF" >/dev/null || rc=1
done
gx 0 "snode-perf -o /tmp/dma.json dma max 4M" | tee "$OUT/dma.txt"
gx 0 "cat /tmp/dma.json" >"$OUT/dma.json"
gx 1 "iperf3 -s -D" >/dev/null
sleep 1
MTUS="9000 65521 1500"
for mtu in $MTUS; do
	gx 0 "ip link set dev $IF mtu $mtu" && gx 1 "ip link set dev $IF mtu $mtu"
	gx 0 "iperf3 -c 10.77.0.2 -t 10 -J" >"$OUT/iperf3-$mtu.json" || rc=1
	# which path the frames took (decision 0031): ring or messages
	gx 0 "ethtool -S $IF" >"$OUT/ethtool-$mtu.txt"
done
# the guests' own TCP ceiling under TCG: iperf3 over loopback on node 0
gx 0 "iperf3 -s -D -p 5202 && sleep 1 && iperf3 -c 127.0.0.1 -p 5202 -t 10 -J" \
	>"$OUT/iperf3-lo.json" || rc=1
gx 0 "ping -c 200 -i 0.02 -q 10.77.0.2" | tee "$OUT/ping.txt"
"$VM" exec --node 1 --timeout 600 -- "snode-perf ping server mode sleep" >/dev/null &
gx 0 "snode-perf -o /tmp/ping.json ping client 1 iters 500 mode sleep" >"$OUT/snode-ping.txt"
gx 0 "cat /tmp/ping.json" >"$OUT/snode-ping.json"
wait
gx 0 "ip -s link show dev $IF" >"$OUT/link-0.txt"
"$VM" down >/dev/null 2>&1

python3 - "$OUT" $MTUS <<'PY' || true
import json, os, re, sys
out = sys.argv[1]
mtus = [int(m) for m in sys.argv[2:]]
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except (OSError, ValueError):
        return None
d = load("dma.json")
dma = d["rows"][-1]["dma_to"] if d and d.get("rows") else None
def frames(mtu):
    try:
        st = dict((k.strip(), v.strip()) for k, v in
                  (l.split(":", 1) for l in open(os.path.join(out, "ethtool-%d.txt" % mtu))
                   if ":" in l))
        return "tx frames so far: %s ring, %s messages" % (
            st["tx_ring_frames"], st["tx_msg_frames"])
    except (OSError, KeyError, ValueError):
        return "frame paths unknown"
for mtu in mtus:
    j = load("iperf3-%d.json" % mtu)
    if not j or "end" not in j:
        print("iperf3 at MTU %d: no result" % mtu)
        continue
    mbs = j["end"]["sum_received"]["bits_per_second"] / 8e6
    line = "iperf3 TCP over snode0 at MTU %d: %.2f MB/s" % (mtu, mbs)
    if dma:
        line += ", %.4fx the DMA engine's %.0f MB/s (target 0.5x)" % (mbs / dma, dma)
    print(line + "; " + frames(mtu))
j = load("iperf3-lo.json")
if j and "end" in j:
    lo = j["end"]["sum_received"]["bits_per_second"] / 8e6
    line = "iperf3 TCP over loopback on node 0 (the stack's own ceiling): %.2f MB/s" % lo
    if dma:
        line += ", %.4fx the DMA engine" % (lo / dma)
    j = load("iperf3-9000.json")
    if j and "end" in j:
        line += "; snode0 at MTU 9000 is %.3fx of it" % (
            j["end"]["sum_received"]["bits_per_second"] / 8e6 / lo)
    print(line)
try:
    txt = open(os.path.join(out, "ping.txt")).read()
    m = re.search(r"= [\d.]+/([\d.]+)/([\d.]+)", txt)
    p = load("snode-ping.json")
    if m and p:
        rtt = float(m.group(1)) * 1000
        perf = p["rtt"]["median_us"]
        print("ping over snode0, mean rtt %.0f us; snode-perf ping median rtt %.0f us: %.2fx"
              % (rtt, perf, rtt / perf))
except OSError:
    pass
PY
exit $rc
