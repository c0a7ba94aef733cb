#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz.sh - snode-fuzz on both VM nodes of an emulated supernode while the
# host injects random fabric faults.
#
# Usage: selftests/vm/fuzz.sh 6.1|6.12|debug DURATION [SEED]
#   DURATION: seconds, or Nm / Nh. SEED: default $SNODE_FUZZ_SEED, else
#   random (printed). SNODE_FUZZ_THREADS (default 4) chaos threads per node.
#
# Boots tools/emu/topologies/mem-sim.topo (VM nodes 0 and 1, simulated
# nodes 2-4, dual-plane) under the given guest kernel, loads snode.ko, gives
# /dev/snode0 to group snode (as udev/60-snode.rules does) and runs
#   snode-fuzz --seed SEED --duration DURATION --peer <other VM node>
#              --sim 2:0:0x5100:0x200000 --user 1000:900
# on both nodes at once: a member of group snode, without CAP_NET_ADMIN.
# Meanwhile the host draws faults from a bash RANDOM stream seeded with SEED
# and sends them with `snode-fm ctl`: link flap, BER, lane loss, link reset,
# both links of a sim node down, sim node kill and rejoin, isolation of a
# VM node and rejoin. The fault schedule is in build/check/fuzz-KERNEL/faults.log.
#
# TAP lines: per node the fuzzer's verdict (with the call count and calls
# per second), that the data path was exercised, no kernel splat on the
# console, and that snode.ko unloads; plus that every fault command was
# accepted. On a failure the fuzzer prints the seed and the last calls of
# every thread; the reproduce line is at the end of this script's output.

set -u

. "$(dirname "$0")/lib.sh"
vm_suite fuzz "6.1|6.12|debug" "${1:-}" "DURATION [SEED]"
DURATION=${2:-}
SEED=${3:-${SNODE_FUZZ_SEED:-}}
case "$DURATION" in
*h) DUR_S=$((${DURATION%h} * 3600)) ;;
*m) DUR_S=$((${DURATION%m} * 60)) ;;
*s) DUR_S=${DURATION%s} ;;
[0-9]*) DUR_S=$DURATION ;;
*) echo "usage: $0 6.1|6.12|debug DURATION [SEED]" >&2; exit 2 ;;
esac
[ -n "$SEED" ] || SEED=$(( (RANDOM << 15 | RANDOM) % 1000000000 ))
THREADS=${SNODE_FUZZ_THREADS:-4}
HANG=90

TOPO=$TOP/tools/emu/topologies/mem-sim.topo
FUZZ=/usr/bin/snode-fuzz
rm -f "$LOG"/*.out "$LOG"/*.blocked "$LOG/faults.log"
# the verdicts below include the consoles; down is not a test of its own
DOWN_TAP=
finish_hook() {
	echo "# seed $SEED; reproduce: make fuzz KERNEL=$KERNEL SEED=$SEED DURATION=$DURATION"
}

echo "# snode-fuzz on $KERNEL: seed $SEED, duration $DUR_S s, $THREADS threads per node"

REQUIRE_QUIET=1 require "$BUILD/stage/common$FUZZ"
VM_UP_QUIET=1 vm_up mem-sim --topology "$TOPO" --mem 768 || finish
for node in 0 1; do
	gexec "$node" "insmod /lib/snode/snode.ko && chgrp snode /dev/snode0 && chmod 0660 /dev/snode0" \
		>>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

# --- the fuzzers -------------------------------------------------------------
for node in 0 1; do
	peer=$((1 - node))
	GEXEC_TIMEOUT=$((DUR_S + 2 * HANG + 120)) gexec "$node" \
		"$FUZZ --seed $SEED --duration $DUR_S --threads $THREADS --peer $peer --sim 2:0:0x5100:0x200000 --hang $HANG --user 1000:900" \
		>"$LOG/node$node.out" 2>&1 &
	eval "fuzz$node=\$!"
done

# --- fault injection, seeded -------------------------------------------------
RANDOM=$SEED
nfault=0
badfault=0
fmctl() {
	echo "$(date +%T) $*" >>"$LOG/faults.log"
	nfault=$((nfault + 1))
	if ! "$FM" ctl --dir "$SNODE_FM_DIR" "$@" >>"$LOG/faults.log" 2>&1; then
		badfault=$((badfault + 1))
		echo "  (rejected)" >>"$LOG/faults.log"
	fi
}
running() { kill -0 "$fuzz0" 2>/dev/null || kill -0 "$fuzz1" 2>/dev/null; }
nap() { sleep "$(( $1 / 1000 )).$(printf '%03d' $(( $1 % 1000 )))"; }

links=(0.0 0.1 1.0 1.1 2.0 2.1 3.0 3.1 4.0 4.1)
bers=(1e-9 1e-7 1e-6 1e-5)
end=$((SECONDS + DUR_S))
sleep 5
while running && [ "$SECONDS" -lt "$end" ]; do
	l=${links[RANDOM % ${#links[@]}]}
	case $((RANDOM % 8)) in
	0) fmctl link flap "$l" count $((1 + RANDOM % 3)) period $((200 + RANDOM % 800)) ;;
	1) fmctl link ber "$l" "${bers[RANDOM % ${#bers[@]}]}"
	   nap $((500 + RANDOM % 3000))
	   fmctl link ber "$l" 0 ;;
	2) fmctl link lanes "$l" $((1 + RANDOM % 3))
	   nap $((500 + RANDOM % 2000))
	   fmctl link lanes "$l" max ;;
	3) fmctl link reset "$l" ;;
	4) s=$((2 + RANDOM % 3))
	   fmctl link down "$s.0"; fmctl link down "$s.1"
	   nap $((500 + RANDOM % 2000))
	   fmctl link up "$s.0"; fmctl link up "$s.1" ;;
	5) s=$((2 + RANDOM % 3))
	   fmctl node kill "$s"
	   nap $((1000 + RANDOM % 2000))
	   fmctl node join "$s" ;;
	6) v=$((RANDOM % 2))
	   fmctl node isolate "$v"
	   nap $((500 + RANDOM % 2500))
	   fmctl node join "$v" ;;
	*) ;;	# a quiet period
	esac
	nap $((1000 + RANDOM % 4000))
done
# leave the fabric whole
for l in "${links[@]}"; do
	"$FM" ctl --dir "$SNODE_FM_DIR" link up "$l" >/dev/null 2>&1
	"$FM" ctl --dir "$SNODE_FM_DIR" link ber "$l" 0 >/dev/null 2>&1
done
wait "$fuzz0"; rc0=$?
wait "$fuzz1"; rc1=$?
check "$KERNEL: $nfault fault commands sent, all accepted ($badfault rejected)" [ "$badfault" -eq 0 ]

# --- verdicts ------------------------------------------------------------------
splat='Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace:|list_del corruption|possible circular locking|INFO: possible|KASAN|UBSAN|kmemleak'
for node in 0 1; do
	out=$LOG/node$node.out
	rc=rc$node
	sed 's/^/# node'"$node"': /' "$out" | grep -E 'FAIL|seed|calls|data:' | head -n 60
	summary=$(grep -m1 'calls/s' "$out")
	if [ "${!rc}" -eq 0 ] && grep -q '^snode-fuzz: PASS' "$out"; then
		ok "$KERNEL: node $node: snode-fuzz passed (${summary#snode-fuzz: })"
	else
		not_ok "$KERNEL: node $node: snode-fuzz (status ${!rc}; $(grep -m1 'FAIL:' "$out" || echo 'no verdict: the guest died or the run hung'); see ${out#"$TOP"/})"
	fi
	data=$(grep -m1 '^snode-fuzz: data:' "$out")
	pages=$(sed -n 's/.* rounds, \([0-9]*\) pages verified.*/\1/p' <<<"$data")
	check "$KERNEL: node $node: data verified through the windows (${data#snode-fuzz: data: })" \
		[ "${pages:-0}" -gt 0 ]
	con=$SNODE_VM_UP/node$node.log
	hit=$(grep -a -E -m3 -- "$splat" "$con" 2>/dev/null)
	if [ -n "$hit" ]; then
		# the first line of the report, then its head
		first=$(grep -a -E -m1 -- 'corruption|BUG|Oops|WARNING|KASAN|UBSAN|general protection' "$con" ||
			head -n1 <<<"$hit")
		grep -a -F -A14 -m1 -- "$first" "$con" | sed 's/^/# node'"$node"' console: /'
		hit=$first
		not_ok "$KERNEL: node $node: no kernel splat on the console ($(head -n1 <<<"$hit"))"
	else
		ok "$KERNEL: node $node: no kernel splat on the console"
	fi
done
# A hang: the blocked tasks' kernel stacks (sysrq w), after the splat
# verdicts above since the dump itself prints call traces.
for node in 0 1; do
	grep -q 'FAIL: .*hang:' "$LOG/node$node.out" || continue
	gexec "$node" "echo w >/proc/sysrq-trigger; sleep 1; dmesg | tail -n 200" \
		>"$LOG/node$node.blocked" 2>&1
	echo "# node$node: blocked tasks after the hang (${LOG#"$TOP"/}/node$node.blocked):"
	grep -a -E -A24 'task:' "$LOG/node$node.blocked" | head -n 80 | sed 's/^/# node'"$node"' blocked: /'
done
for node in 0 1; do
	gexec "$node" "rmmod snode" >>"$LOG/rmmod" 2>&1
	check "$KERNEL: node $node: snode.ko unloads cleanly" [ $? -eq 0 ]
done
finish
