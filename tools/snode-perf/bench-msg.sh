#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The message and DMA half of make bench, on one guest kernel.
#
# Boots selftests/vm/msg.topo (VM nodes 0 and 1, simulated node 2 with an
# echo endpoint and a 32M read-write export) and runs "snode-perf ping echo
# 2" on node 0 (the driver's round trip against the raw doorbell round
# trip, same run), "snode-perf notify", "snode-perf dma" against the
# simulated node's export (copies up to 32M, the export's size), "snode-perf
# dma" on node 1 through a window onto its own pool (up to 64M), and
# "snode-perf ping client 1" against a server on node 1, both sleeping; then
# notify and that ping again, over the NICs' direct links and through the
# fabric manager ("snode-fm ctl direct on|off", decision 0039), alternating
# twice in the same boot (direct-*.json, relay-*.json). Then
# boots 4-dual-plane.topo and runs libsnode's allreduce, bcast, alltoall
# and barrier (snode-perf) on its four nodes, each against memcpy() into a
# window by every rank at once, and snode-perf mem on node 0 alone. Results
# go to build/bench/msg-KERNEL/; a summary of the ratios ends the output.
# Timings never fail the run.
#
# Usage: tools/snode-perf/bench-msg.sh 6.1|6.12 [direct]
#   direct: only the direct-links-against-relay comparison (one boot)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
FM=${SNODE_FM:-$BUILD/tools/snode-fm}
KERNEL=${1:-6.1}
PART=${2:-all}
case $PART in all|direct) ;; *) echo "usage: $0 6.1|6.12 [direct]" >&2; exit 2 ;; esac
OUT=$BUILD/bench/msg-$KERNEL
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-bench-msg}
mkdir -p "$OUT"
rc=0

run() { # run NODE NAME ARGS: snode-perf ARGS, text to OUT/NAME.txt, JSON to OUT/NAME.json
	local node=$1 name=$2
	shift 2
	"$VM" exec --node "$node" --timeout 1200 -- "snode-perf -o /tmp/$name.json $*" |
		sed 's/^\[node[0-9]*\] //' | tee "$OUT/$name.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	"$VM" exec --node "$node" -- "cat /tmp/$name.json" |
		sed 's/^\[node[0-9]*\] //' >"$OUT/$name.json"
}

echo "== messages and DMA on Debian $KERNEL (TCG; ratios matter, absolute numbers do not)"
"$VM" down >/dev/null 2>&1
if "$VM" up --topology "$TOP/selftests/vm/msg.topo" --kernel "$KERNEL" \
	--mem 1024 >"$OUT/vm.log" 2>&1; then
	"$VM" exec --all -- "insmod /lib/snode/snode.ko" >/dev/null
	if [ "$PART" = all ]; then
		run 0 ping-echo "ping echo 2 iters 2000"
		run 0 notify "notify iters 1000"
		run 0 dma-sim "dma handle snode:v1:2:0:0000000000005100 max 32M"
		# copies up to 64M: node 1 exports from its pool and imports that
		run 1 dma-self "dma max 64M"
		# sleeping receivers: busy-polling vCPUs starve the emulator's threads
		"$VM" exec --node 1 --timeout 1200 -- "snode-perf ping server mode sleep" >/dev/null &
		run 0 ping-vm "ping client 1 iters 5000 mode sleep"
		wait
	fi
	# the fm off the message path and on it, A/B/A/B in this boot, so that
	# the host's load drifting hits both
	for round in 1 2; do
		for path in direct relay; do
			"$FM" ctl --dir "$SNODE_VM_UP" direct \
				"$([ $path = direct ] && echo on || echo off)" >/dev/null
			run 0 "$path-notify-$round" "notify iters 500"
			"$VM" exec --node 1 --timeout 1200 -- "snode-perf ping server mode sleep" >/dev/null &
			run 0 "$path-ping-$round" "ping client 1 iters 2000 mode sleep"
			wait
		done
	done
	"$FM" ctl --dir "$SNODE_VM_UP" direct on >/dev/null
else
	echo "bench: snode-vm up failed (see $OUT/vm.log)"
	rc=1
fi
"$VM" down >/dev/null 2>&1

# libsnode's collectives on four nodes; each rank also measures memcpy()
# into a window with every rank copying at once (same CPU share); then
# snode-perf mem on node 0 alone, the window memcpy of the same boot.
if [ "$PART" = all ]; then
	run4() { # run4 NAME ARGS: snode-perf ARGS on all four, node 0's JSON to OUT/NAME.json
		local name=$1
		shift
		"$VM" exec --all --timeout 1200 -- "snode-perf -o /tmp/$name.json $*" |
			tee "$OUT/$name.txt"
		[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
		"$VM" exec --node 0 -- "cat /tmp/$name.json" |
			sed 's/^\[node[0-9]*\] //' >"$OUT/$name.json"
	}
	if "$VM" up --topology "$TOP/tools/emu/topologies/4-dual-plane.topo" \
		--kernel "$KERNEL" >"$OUT/vm4.log" 2>&1; then
		"$VM" exec --all -- "insmod /lib/snode/snode.ko" >/dev/null
		run4 allreduce "allreduce nodes 0,1,2,3 size 4M iters 5"
		run4 bcast "bcast nodes 0,1,2,3 size 4M iters 5"
		run4 alltoall "alltoall nodes 0,1,2,3 size 4M iters 5"
		run4 barrier "barrier nodes 0,1,2,3 iters 200"
		run 0 mem4 "mem size 64M bw-size 4M cycles 3"
	else
		echo "bench: snode-vm up of 4 nodes failed (see $OUT/vm4.log)"
		rc=1
	fi
	"$VM" down >/dev/null 2>&1
fi

python3 - "$OUT" "$PART" <<'PY' || true
import json, os, sys
out, part = sys.argv[1], sys.argv[2]
def load(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        return None
p = load("ping-echo")
if p and "raw_rtt" in p:
    print("message round trip / raw doorbell round trip (median): "
          "sleeping receiver %.2fx, polling %.2fx (target <= 3x)"
          % (p["ratio_sleep"], p["ratio_poll"]))
# direct links against the relay (decision 0039): medians, p99 and minima
# of both rounds, pooled by taking the mean of the two rounds' values (the
# minimum is the one least touched by a loaded host)
def pooled(path, name, key, field):
    v = [load("%s-%s-%d" % (path, name, r)) for r in (1, 2)]
    v = [x[key][field] for x in v if x and key in x]
    return sum(v) / len(v) if v else None
rows = [("doorbell ring-to-wake (notify)", "notify", "doorbell_wake"),
        ("eventfd wake, same runs (notify)", "notify", "eventfd_wake"),
        ("VM-to-VM ping half round trip", "ping", "half_rtt")]
for label, name, key in rows:
    d = [pooled("direct", name, key, f) for f in ("median_us", "p99_us", "min_us")]
    r = [pooled("relay", name, key, f) for f in ("median_us", "p99_us", "min_us")]
    if None in d or None in r:
        print("%s: no result" % label)
        continue
    print("%s: direct %.0f us median / %.0f p99 / %.0f min, through the fm "
          "%.0f / %.0f / %.0f; direct/relay %.2fx median, %.2fx p99, %.2fx min; "
          "p99/median direct %.1fx, relay %.1fx"
          % (label, d[0], d[1], d[2], r[0], r[1], r[2], d[0] / r[0],
             d[1] / r[1], d[2] / r[2], d[1] / d[0], r[1] / r[0]))
for path in ("direct", "relay"):
    db = pooled(path, "notify", "doorbell_wake", "median_us")
    ev = pooled(path, "notify", "eventfd_wake", "median_us")
    if db and ev:
        print("doorbell ring-to-wake / eventfd (median), %s: %.2fx (target <= 1.5x)"
              % (path, db / ev))
if part != "all":
    sys.exit(0)
d = load("dma-self")
if d and d["rows"]:
    big = d["rows"][-1]
    print("DMA / memcpy through the window at %d MiB: to %.2fx, from %.2fx (target >= 1x)"
          % (big["size"] >> 20, big["ratio_to"], big["ratio_from"]))
m = load("mem4")
for name in ("allreduce", "bcast", "alltoall"):
    c = load(name)
    if not c or not c.get("verified"):
        print("%s: no verified result" % name)
        continue
    line = ("library %s, 4 nodes, %d MiB: busbw %.3f GB/s; / memcpy into a window "
            "by every rank at once (%.3f GB/s) %.2fx"
            % (name, c["size"] >> 20, c["busbw_GBps"], c["memcpy_GBps"], c["ratio"]))
    if m and "memcpy_to" in m:
        alone = m["memcpy_to"]["remote"] / 1000
        line += "; / node 0 alone (%.3f GB/s) %.2fx" % (alone, c["busbw_GBps"] / alone)
    if name == "allreduce":
        line += " (target >= 0.5x)"
    print(line)
b = load("barrier")
if b:
    print("library barrier, 4 nodes: %.1f us" % b["time_us"])
PY
exit $rc
