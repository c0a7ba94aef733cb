#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ofi.sh - the libfabric provider "snode" (ofi/, fi_snode(7)) under
# Debian's own libfabric on two emulated nodes.
#
# Usage: selftests/vm/ofi.sh 6.1|6.12 [all|core|rest|hostile]
#
# Boots two VM nodes with Debian's libfabric-bin staged (snode-vm
# --package) and the provider at /usr/lib/snode/ofi, found through
# FI_PROVIDER_PATH, and checks:
#   - fi_info -p snode lists the provider with its attributes (mr_mode
#     FI_MR_LOCAL: fi_info accepts every mode bit), and an unsupported
#     endpoint type gives -FI_ENODATA (-61)
#   - ofi_test hints: fi_getinfo filtering (each check one test)
#   - ofi_test pair between node 0 and node 1: addresses carried by this
#     script through files in the guests (no IP between them), 500 small
#     messages each way through the endpoints' rings (each side's NIC
#     delivers a few messages meanwhile, or a wake-up a message to node 0,
#     which sleeps when idle), tagged and
#     untagged messages of 0 B to 4 MiB both ways (eager and rendezvous),
#     unexpected messages, fi_write/fi_read/fi_writedata against the
#     peer's registration with bad keys and ranges, the RMA counters on
#     both sides (FI_READ, FI_WRITE, FI_REMOTE_*), node 1 sleeping in
#     fi_cntr_wait while node 0 writes and waits in fi_cq_sread, atomics (node 1's
#     fetch-adds racing node 0's own), a bad destination,
#     and node 1's side dying in the middle of two rendezvous; node 1
#     runs with FI_SNODE_UNEXP_MAX=2048, so its unexpected messages go
#     past the bound and wait in its ring, FI_SNODE_RDV_DMA_MIN=65536,
#     so it pulls with the DMA engine where node 0 uses memcpy(), and
#     FI_SNODE_RDV_CHUNK=4096, so its large sends are pulled while they
#     are copied in many small chunks (node 0's in 64 KiB ones); node 0
#     runs with FI_SNODE_IDLE_WAIT_US=200, so its idle CQ reads sleep;
#     each check of both sides is one test
#   - probes between the two nodes (ofi_test pair): fi_trecvmsg with
#     FI_PEEK, FI_CLAIM and FI_DISCARD on eager and rendezvous messages
#   - a hostile peer: node 1 sends crafted rendezvous announcements and
#     answers (ofi_test hostile, raw libsnode messages) at a real receiver
#     on node 0 (ofi_test victim): it must survive, fail each matching
#     receive with an error entry, log why (FI_LOG_LEVEL=warn), answer the
#     sender, and still receive the good messages behind them; then node 1
#     offers it rings of its own and breaks each: node 0 must drop every
#     one (node 1 sees the control page withdrawn), log why, and read a
#     last, good ring's message intact
#   - Debian's fi_pingpong -e rdm, msg and tagged, within node 0 (its TCP
#     out-of-band exchange over the guest's loopback); msg without rings
#     (FI_SNODE_RING_SIZE=0: NIC messages only)
#   - the ofi round trip and 64 KiB bandwidth, printed next to snode-perf
#     ping's round trip in the same run (numbers only, never asserted)
#   - Debian's fi_pingpong -e rdm tagged between node 0 and node 1, its
#     out-of-band exchange over the snode IP interface (snode0), at 64 B
#     and at 1 MiB (rendezvous), whose messages must go zero copy both
#     ways: fi_pingpong registers its buffer when offered FI_MR_LOCAL and
#     passes its descriptor (decision 0048); each side's counters, printed
#     as its domain closes (FI_SNODE_STATS=1), show it
#   - numbers side by side, never asserted: fi_pingpong's 64 B round trip
#     against snode-perf ping's, its 1 MiB bandwidth against snode-perf
#     dma's engine and memcpy() from a window, as ratios; bookworm's
#     libfabric-bin has no RMA benchmark (fi_info, fi_pingpong and
#     fi_strerror only), so ofi_test's fi_write/fi_read rates stand in
#
# "core" runs what the provider needs of each kernel (fi_info, and
# fi_pingpong between the two nodes); "rest" the other checks (fi_getinfo
# hints, ofi_test pair, fi_pingpong within a node), which exercise the
# provider's own code the same way on both kernels: make check runs 6.12
# whole and 6.1's core, make check-full 6.1's rest too (decision 0023).
# The numbers side by side run only with "all" (the default).
# With OFI_BENCH=1 (make bench, tools/snode-perf/bench.sh) only the
# fi_pingpong runs and the numbers, logs in build/check/ofi-bench-KERNEL.
# OFI_ENV adds provider parameters to every program the suite runs in the
# guests, e.g. OFI_ENV=FI_SNODE_MR_EXPORT=0 for the bounce path alone
# (ofi_test then expects it), to compare with the zero copy of decision
# 0045 on the same machine.
#
# Needs: make all modules-guest selftests ofi (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
PART=${2:-all}
case "$PART" in
all|core) NAME=ofi ;;
rest) NAME=ofi-rest ;;
hostile) NAME=ofi-hostile ;;	# the hostile peer alone, to reproduce
*) echo "usage: $0 6.1|6.12 [all|core|rest|hostile]" >&2; exit 2 ;;
esac
[ -z "${OFI_BENCH:-}" ] || { PART=all; NAME=ofi-bench; }
vm_suite "$NAME" "6.1|6.12" "${1:-}" "[all|core|rest|hostile]"
# part P...: this run includes one of parts P (fi_info, hints, pair, hostile, pp1:
# fi_pingpong within a node, pp2: between two nodes, numbers)
part() {
	local p
	for p in "$@"; do
		if [ -n "${OFI_BENCH:-}" ]; then
			[ "$p" = pp2 ] || [ "$p" = numbers ] && return 0
			continue
		fi
		case "$PART:$p" in
		all:* | core:fi_info | core:pp2 | rest:hints | rest:pair | rest:hostile | rest:pp1 | hostile:hostile) return 0 ;;
		esac
	done
	return 1
}
OFI=/usr/lib/snode/ofi
ENV="FI_PROVIDER_PATH=$OFI ${OFI_ENV:-}"
require "$BUILD/stage/common$OFI/libsnode-fi.so" "$BUILD/stage/common$OFI/ofi_test"

vm_up ofi --nodes 2 --package libfabric-bin || finish
for node in 0 1; do
	gexec_t "$node" 60 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

# TAP lines of ours from ofi_test's "ok - X" / "not ok - X" lines
relay() {	# relay PREFIX FILE
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) ok "$1${line#ok - }" ;;
		"not ok - "*) not_ok "$1${line#not ok - }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$2"
}

if part fi_info; then
# --- fi_info ------------------------------------------------------------------
gexec 0 "$ENV fi_info -p snode" >"$LOG/fi_info" 2>&1
rc=$?
check "$KERNEL: fi_info -p snode succeeds" [ "$rc" -eq 0 ]
for want in "provider: snode" "fabric: snode-fabric0" "domain: snode0" \
	"version: 0.1" "type: FI_EP_RDM"; do
	check "$KERNEL: fi_info -p snode shows '$want'" grep -q -- "$want" "$LOG/fi_info"
done
gexec 0 "$ENV fi_info -p snode -v" >"$LOG/fi_info-v" 2>&1
for want in "addr_format: FI_ADDR_STR" "threading: FI_THREAD_SAFE" \
	"caps: .*FI_MSG" "caps: .*FI_TAGGED" "data_progress: FI_PROGRESS_MANUAL" \
	"max_msg_size: 16777216" "cq_data_size: 8" "mem_tag_format: 0x[fF]{16}" \
	"mr_mode: \[ FI_MR_LOCAL \]"; do
	check "$KERNEL: fi_info -p snode -v shows '$want'" grep -Eq -- "$want" "$LOG/fi_info-v"
done
gexec 0 "$ENV fi_info -p snode -t FI_EP_MSG; echo status \$?" >"$LOG/fi_info-msg" 2>&1
check "$KERNEL: fi_info -p snode -t FI_EP_MSG: -FI_ENODATA" \
	grep -q -- "-61" "$LOG/fi_info-msg"
gexec 0 "$ENV fi_info -p snode -c FI_RMA; echo status \$?" >"$LOG/fi_info-rma" 2>&1
check "$KERNEL: fi_info -p snode -c FI_RMA: offered" \
	grep -q "^status 0$" "$LOG/fi_info-rma"
gexec 0 "$ENV fi_info -p snode -c FI_ATOMIC; echo status \$?" >"$LOG/fi_info-atomic" 2>&1
check "$KERNEL: fi_info -p snode -c FI_ATOMIC: offered" \
	grep -q "^status 0$" "$LOG/fi_info-atomic"
fi

# --- fi_getinfo hints ---------------------------------------------------------
if part hints; then
gexec 0 "$ENV $OFI/ofi_test hints" >"$LOG/hints" 2>&1
rc=$?
relay "$KERNEL: hints: " "$LOG/hints"
[ "$rc" -eq 0 ] || grep -q "^not ok" "$LOG/hints" ||
	not_ok "$KERNEL: ofi_test hints exit status $rc"
fi

# --- two nodes ------------------------------------------------------------------
# Each side runs in the background of its guest; this script carries the
# addresses, since a guest's exec agent runs one command at a time.
if part pair; then
for node in 0 1; do
	role=$([ "$node" -eq 0 ] && echo a || echo b)
	gexec "$node" "rm -rf /tmp/ofi; mkdir -p /tmp/ofi
		($ENV $([ "$node" -eq 1 ] && echo FI_SNODE_UNEXP_MAX=2048 FI_SNODE_RDV_DMA_MIN=65536 FI_SNODE_RDV_CHUNK=4096 || echo FI_SNODE_IDLE_WAIT_US=200) $OFI/ofi_test pair $role /tmp/ofi 100 >/tmp/ofi/out 2>&1
		 echo \$? >/tmp/ofi/rc) </dev/null >/dev/null 2>&1 &" >>"$LOG/exec" 2>&1
done
addr_a= addr_b=
for _ in $(seq 60); do
	[ -n "$addr_a" ] || addr_a=$(gexec 0 "cat /tmp/ofi/a.addr 2>/dev/null")
	[ -n "$addr_b" ] || addr_b=$(gexec 1 "cat /tmp/ofi/b.addr 2>/dev/null")
	[ -n "$addr_a" ] && [ -n "$addr_b" ] && break
	sleep 1
done
check "$KERNEL: both sides published an address ($addr_a, $addr_b)" \
	bash -c '[ -n "$1" ] && [ -n "$2" ]' _ "$addr_a" "$addr_b"
gexec 0 "echo '$addr_b' >/tmp/ofi/peer.tmp && mv /tmp/ofi/peer.tmp /tmp/ofi/peer.addr" >>"$LOG/exec" 2>&1
gexec 1 "echo '$addr_a' >/tmp/ofi/peer.tmp && mv /tmp/ofi/peer.tmp /tmp/ofi/peer.addr" >>"$LOG/exec" 2>&1
rc_a= rc_b=
for _ in $(seq 600); do
	[ -n "$rc_a" ] || rc_a=$(gexec 0 "cat /tmp/ofi/rc 2>/dev/null")
	[ -n "$rc_b" ] || rc_b=$(gexec 1 "cat /tmp/ofi/rc 2>/dev/null")
	[ -n "$rc_a" ] && [ -n "$rc_b" ] && break
	sleep 1
done
gexec 0 "cat /tmp/ofi/out" >"$LOG/pair-a" 2>&1
gexec 1 "cat /tmp/ofi/out" >"$LOG/pair-b" 2>&1
relay "$KERNEL: node 0 (a): " "$LOG/pair-a"
relay "$KERNEL: node 1 (b): " "$LOG/pair-b"
check "$KERNEL: ofi_test pair finished, exit status 0 on both (a ${rc_a:-none}, b ${rc_b:-none})" \
	[ "${rc_a:-x}${rc_b:-x}" = 00 ]
fi

# --- a hostile peer --------------------------------------------------------------
if part hostile; then
gexec 0 "rm -rf /tmp/hos; mkdir -p /tmp/hos
	($ENV FI_LOG_LEVEL=warn $OFI/ofi_test victim /tmp/hos >/tmp/hos/out 2>&1
	 echo \$? >/tmp/hos/rc) </dev/null >/dev/null 2>&1 &" >>"$LOG/exec" 2>&1
addr_v=
for _ in $(seq 60); do
	addr_v=$(gexec 0 "cat /tmp/hos/a.addr 2>/dev/null")
	[ -n "$addr_v" ] && break
	sleep 1
done
check "$KERNEL: hostile peer: the victim published its address ($addr_v)" [ -n "$addr_v" ]
gexec 1 "rm -rf /tmp/hos; mkdir -p /tmp/hos; echo '$addr_v' >/tmp/hos/peer.addr" >>"$LOG/exec" 2>&1
gexec_t 1 120 "${OFI_ENV:-} $OFI/ofi_test hostile /tmp/hos" >"$LOG/hostile" 2>&1
rc_h=$?
rc_v=
for _ in $(seq 60); do
	rc_v=$(gexec 0 "cat /tmp/hos/rc 2>/dev/null")
	[ -n "$rc_v" ] && break
	sleep 1
done
gexec 0 "cat /tmp/hos/out" >"$LOG/victim" 2>&1
relay "$KERNEL: node 0 (victim): " "$LOG/victim"
relay "$KERNEL: node 1 (hostile): " "$LOG/hostile"
check "$KERNEL: hostile peer: the victim survived and exited 0 (${rc_v:-no exit status: crashed or hung}), the hostile side exited 0 ($rc_h)" \
	bash -c '[ "$1" = 0 ] && [ "$2" = 0 ]' _ "${rc_v:-x}" "$rc_h"
check "$KERNEL: hostile peer: the victim logged why it dropped the malformed RTS (FI_LOG_LEVEL=warn)" \
	grep -q "malformed" "$LOG/victim"
check "$KERNEL: hostile peer: the victim logged why it dropped each bad ring (FI_LOG_LEVEL=warn: 6 lines)" \
	bash -c '[ "$(grep -c "ring of node .*; dropped" "$1")" -eq 6 ]' _ "$LOG/victim"
fi

# --- Debian's fi_pingpong within one node ----------------------------------------
if part pp1; then
# Its out-of-band exchange is a TCP socket: over the guest's loopback, the
# server and the client on node 0, the data through the NIC to its own
# node. Between two nodes it runs below, over the snode IP interface.
gexec 0 "ip link set lo up" >>"$LOG/exec" 2>&1
# msg mode without rings (FI_SNODE_RING_SIZE=0): every message a NIC
# message, the path a peer that refuses rings gets
for mode in msg tagged; do
	rings=
	[ "$mode" = tagged ] || rings="FI_SNODE_RING_SIZE=0"
	gexec_t 0 240 "$ENV $rings; export FI_PROVIDER_PATH FI_SNODE_RING_SIZE
		(fi_pingpong -p snode -e rdm -m $mode -I 10 -S 64 >/tmp/pp-server 2>&1; echo status \$? >>/tmp/pp-server) &
		sleep 2
		fi_pingpong -p snode -e rdm -m $mode -I 10 -S 64 127.0.0.1; echo status \$?
		sleep 1; cat /tmp/pp-server" >"$LOG/pingpong-$mode" 2>&1
	check "$KERNEL: fi_pingpong -p snode -e rdm -m $mode -S 64${rings:+ ($rings)}: 10 round trips, client and server exit 0" \
		bash -c "[ \$(grep -c -E '^64 +10 +=10 ' '$LOG/pingpong-$mode') -eq 2 ] &&
			[ \$(grep -c '^status 0\$' '$LOG/pingpong-$mode') -eq 2 ]"
	grep -m1 -E '^64 +10' "$LOG/pingpong-$mode" | sed "s/^/# fi_pingpong $mode /"
done
fi

# --- Debian's fi_pingpong between two nodes, its exchange over snode0 ----------
if part pp2; then
IF='$(ls /sys/class/snode/snode0/device/net)'
for node in 0 1; do
	gexec "$node" "ip link set dev $IF up && ip addr add 10.78.0.$((node + 1))/24 dev $IF" >>"$LOG/exec" 2>&1
done
# pingpong2 SIZE ITERS: one fi_pingpong -m tagged run, server on node 1;
# both sides' output in $LOG/pingpong-2nodes-SIZE, with each side's
# counters (FI_SNODE_STATS=1: a "snode_stats:" line as its domain closes)
pingpong2() {
	local size=$1 iters=$2 out=$LOG/pingpong-2nodes-$1
	gexec_t 1 600 "export $ENV FI_SNODE_STATS=1
		(fi_pingpong -p snode -e rdm -m tagged -I $iters -S $size >/tmp/pp2-server 2>&1; echo status \$? >>/tmp/pp2-server) &" >>"$LOG/exec" 2>&1
	sleep 2
	gexec_t 0 600 "export $ENV FI_SNODE_STATS=1
		fi_pingpong -p snode -e rdm -m tagged -I $iters -S $size 10.78.0.2; echo status \$?" >"$out" 2>&1
	sleep 1
	gexec 1 "cat /tmp/pp2-server" >>"$out" 2>&1
}
# the size column as fi_pingpong prints it (64, 1m)
pp_ok() {	# pp_ok FILE SIZESTR ITERS: both sides ran every round trip
	[ "$(grep -c -E "^$2 +$3 +=$3 " "$1")" -eq 2 ] &&
		[ "$(grep -c '^status 0$' "$1")" -eq 2 ]
}
# pp_zc FILE ITERS: on both sides, every message went zero copy (decisions
# 0045, 0048): sent from the registered buffer and pulled from the peer's,
# at least ITERS each way, and not one byte copied into a bounce region;
# with OFI_ENV=FI_SNODE_MR_EXPORT=0 the opposite: every one through it
pp_zc() {
	local off=0
	case "${OFI_ENV:-}" in *FI_SNODE_MR_EXPORT=0*) off=1 ;; esac
	awk -v n="$2" -v off="$off" '/^snode_stats: / {
		seen++
		for (i = 1; i < NF; i++) v[$i] = $(i + 1) + 0
		if (off && (v["zc_sends"] + v["zc_pulls"] != 0 || v["bounce_copies"] < n))
			bad = 1
		if (!off && (v["zc_sends"] < n || v["zc_pulls"] < n || v["bounce_bytes"] != 0))
			bad = 1
	} END { exit !(seen == 2 && !bad) }' "$1"
}
# make bench: enough round trips that the rings' set-up (ring.c, in the
# first ones) does not count (fi_pingpong prints 1000 as "1k"); make
# check: a short run
PP_SMALL=${OFI_BENCH:+1000}
PP_SMALL=${PP_SMALL:-10}
pingpong2 64 "$PP_SMALL"
pingpong2 1048576 20
if [ -z "${OFI_BENCH:-}" ]; then
	check "$KERNEL: fi_pingpong -p snode -e rdm -m tagged between node 0 and node 1 (out of band over snode0): client and server exit 0" \
		pp_ok "$LOG/pingpong-2nodes-64" 64 10
	check "$KERNEL: fi_pingpong -S 1048576 (rendezvous) between node 0 and node 1: 20 round trips, client and server exit 0" \
		pp_ok "$LOG/pingpong-2nodes-1048576" 1m 20
	check "$KERNEL: fi_pingpong -S 1048576: both sides sent from their registered buffer and pulled from the peer's, no bounce copy (FI_MR_LOCAL, decision 0048; FI_SNODE_STATS counters)" \
		pp_zc "$LOG/pingpong-2nodes-1048576" 20
fi
grep -h '^snode_stats: ' "$LOG/pingpong-2nodes-1048576" | sed "s/^/# fi_pingpong 1 MiB /"
grep -m1 -E "^64 " "$LOG/pingpong-2nodes-64" | sed "s/^/# fi_pingpong 2 nodes /"
grep -m1 -E "^1m +20" "$LOG/pingpong-2nodes-1048576" | sed "s/^/# fi_pingpong 2 nodes /"
fi

# --- numbers, side by side ----------------------------------------------------------
part numbers || finish
gexec_t 1 120 "snode-perf ping server </dev/null >/tmp/perf-server 2>&1 &" >>"$LOG/exec" 2>&1
sleep 1
gexec_t 0 120 "snode-perf -o /tmp/ping.json ping client 1 iters 100" >"$LOG/perf-ping" 2>&1
check "$KERNEL: snode-perf ping client 1 iters 100 ran" [ $? -eq 0 ]
gexec 0 "cat /tmp/ping.json" >"$LOG/perf-ping.json" 2>&1
gexec_t 0 600 "snode-perf -o /tmp/dma.json dma max 1M" >"$LOG/perf-dma" 2>&1
check "$KERNEL: snode-perf dma max 1M ran" [ $? -eq 0 ]
gexec 0 "cat /tmp/dma.json" >"$LOG/perf-dma.json" 2>&1
gexec 0 "ls /usr/bin/fi_*" >"$LOG/fi-tools" 2>&1
echo "# libfabric-bin's tools: $(tr '\n' ' ' <"$LOG/fi-tools") (no RMA benchmark: ofi_test's fi_write/fi_read rates below)"
echo "# snode-perf ping (same run):"
sed 's/^/#   /' "$LOG/perf-ping"
[ -n "${OFI_BENCH:-}" ] || grep -h '^# ofi ' "$LOG/pair-a" | sed 's/^/#   /'
# fi_pingpong: usec/xfer is half a round trip, MB/sec counts both ways
pycheck '
ping = json.load(open(sys.argv[1]))
dma = json.load(open(sys.argv[2]))
def pp(path, size):
    for line in open(path):
        f = line.split()
        if len(f) >= 7 and f[0] == size and f[2].startswith("="):
            return float(f[5]), float(f[6])
    return None
small = pp(sys.argv[3], "64")
big = pp(sys.argv[4], "1m")
rtt = ping["rtt"]["median_us"]
row = [r for r in dma["rows"] if r["size"] == 1 << 20][0]
if small:
    print("# ofi latency: fi_pingpong 64 B round trip %.0f us, snode-perf ping %.0f us: %.2fx (target <= 0.5x, issue 26)"
          % (2 * small[1], rtt, 2 * small[1] / rtt))
if big:
    print("# ofi bandwidth: fi_pingpong 1 MiB %.1f MB/s, DMA engine from a window %.1f MB/s: %.2fx; memcpy() from a window %.1f MB/s: %.2fx (target >= 0.9x, issue 26)"
          % (big[0], row["dma_from"], big[0] / row["dma_from"], row["memcpy_from"], big[0] / row["memcpy_from"]))
' "$LOG/perf-ping.json" "$LOG/perf-dma.json" "$LOG/pingpong-2nodes-64" \
	"$LOG/pingpong-2nodes-1048576" || echo "# no ratios (see ${LOG#"$TOP"/}/py.err)"

finish
