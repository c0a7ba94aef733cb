#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ofi.sh - the libfabric provider "snode" (ofi/, fi_snode(7)) under
# Debian's own libfabric on two emulated nodes.
#
# Usage: selftests/vm/ofi.sh 6.1|6.12
#
# Boots two VM nodes with Debian's libfabric-bin staged (snode-vm
# --package) and the provider at /usr/lib/snode/ofi, found through
# FI_PROVIDER_PATH, and checks:
#   - fi_info -p snode lists the provider with its attributes, and an
#     unsupported endpoint type gives -FI_ENODATA (-61)
#   - ofi_test hints: fi_getinfo filtering (each check one test)
#   - ofi_test pair between node 0 and node 1: addresses carried by this
#     script through files in the guests (no IP between them), tagged and
#     untagged messages of 0 to 64 KiB both ways, unexpected messages, a
#     bad destination; each check of both sides is one test
#   - Debian's fi_pingpong -e rdm, msg and tagged, within node 0 (its TCP
#     out-of-band exchange over the guest's loopback)
#   - the ofi round trip and 64 KiB bandwidth, printed next to snode-perf
#     ping's round trip in the same run (numbers only, never asserted)
#   - Debian's fi_pingpong -e rdm tagged between node 0 and node 1, its
#     out-of-band exchange over the snode IP interface (snode0)
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite ofi "6.1|6.12" "${1:-}"
OFI=/usr/lib/snode/ofi
ENV="FI_PROVIDER_PATH=$OFI"
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
	"max_msg_size: 16777216" "cq_data_size: 8" "mem_tag_format: 0x[fF]{16}"; do
	check "$KERNEL: fi_info -p snode -v shows '$want'" grep -Eq -- "$want" "$LOG/fi_info-v"
done
gexec 0 "$ENV fi_info -p snode -t FI_EP_MSG; echo status \$?" >"$LOG/fi_info-msg" 2>&1
check "$KERNEL: fi_info -p snode -t FI_EP_MSG: -FI_ENODATA" \
	grep -q -- "-61" "$LOG/fi_info-msg"
gexec 0 "$ENV fi_info -p snode -c FI_RMA; echo status \$?" >"$LOG/fi_info-rma" 2>&1
check "$KERNEL: fi_info -p snode -c FI_RMA: -FI_ENODATA" \
	grep -q -- "-61" "$LOG/fi_info-rma"

# --- fi_getinfo hints ---------------------------------------------------------
gexec 0 "$ENV $OFI/ofi_test hints" >"$LOG/hints" 2>&1
rc=$?
relay "$KERNEL: hints: " "$LOG/hints"
[ "$rc" -eq 0 ] || grep -q "^not ok" "$LOG/hints" ||
	not_ok "$KERNEL: ofi_test hints exit status $rc"

# --- two nodes ------------------------------------------------------------------
# Each side runs in the background of its guest; this script carries the
# addresses, since a guest's exec agent runs one command at a time.
for node in 0 1; do
	role=$([ "$node" -eq 0 ] && echo a || echo b)
	gexec "$node" "rm -rf /tmp/ofi; mkdir -p /tmp/ofi
		($ENV $OFI/ofi_test pair $role /tmp/ofi 100 >/tmp/ofi/out 2>&1
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
for _ in $(seq 300); do
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

# --- Debian's fi_pingpong within one node ----------------------------------------
# Its out-of-band exchange is a TCP socket: over the guest's loopback, the
# server and the client on node 0, the data through the NIC to its own
# node. Between two nodes it runs below, over the snode IP interface.
gexec 0 "ip link set lo up" >>"$LOG/exec" 2>&1
for mode in msg tagged; do
	gexec_t 0 240 "$ENV; export FI_PROVIDER_PATH
		(fi_pingpong -p snode -e rdm -m $mode -I 10 -S 64 >/tmp/pp-server 2>&1; echo status \$? >>/tmp/pp-server) &
		sleep 2
		fi_pingpong -p snode -e rdm -m $mode -I 10 -S 64 127.0.0.1; echo status \$?
		sleep 1; cat /tmp/pp-server" >"$LOG/pingpong-$mode" 2>&1
	check "$KERNEL: fi_pingpong -p snode -e rdm -m $mode -S 64: 10 round trips, client and server exit 0" \
		bash -c "[ \$(grep -c -E '^64 +10 +=10 ' '$LOG/pingpong-$mode') -eq 2 ] &&
			[ \$(grep -c '^status 0\$' '$LOG/pingpong-$mode') -eq 2 ]"
	grep -m1 -E '^64 +10' "$LOG/pingpong-$mode" | sed "s/^/# fi_pingpong $mode /"
done

# --- Debian's fi_pingpong between two nodes, its exchange over snode0 ----------
IF='$(ls /sys/class/snode/snode0/device/net)'
for node in 0 1; do
	gexec "$node" "ip link set dev $IF up && ip addr add 10.78.0.$((node + 1))/24 dev $IF" >>"$LOG/exec" 2>&1
done
gexec_t 1 240 "$ENV; export FI_PROVIDER_PATH
	(fi_pingpong -p snode -e rdm -m tagged -I 10 -S 64 >/tmp/pp2-server 2>&1; echo status \$? >>/tmp/pp2-server) &" >>"$LOG/exec" 2>&1
sleep 2
gexec_t 0 240 "$ENV; export FI_PROVIDER_PATH
	fi_pingpong -p snode -e rdm -m tagged -I 10 -S 64 10.78.0.2; echo status \$?" >"$LOG/pingpong-2nodes" 2>&1
sleep 1
gexec 1 "cat /tmp/pp2-server" >>"$LOG/pingpong-2nodes" 2>&1
check "$KERNEL: fi_pingpong -p snode -e rdm -m tagged between node 0 and node 1 (out of band over snode0): client and server exit 0" \
	bash -c "[ \$(grep -c -E '^64 +10 +=10 ' '$LOG/pingpong-2nodes') -eq 2 ] &&
		[ \$(grep -c '^status 0\$' '$LOG/pingpong-2nodes') -eq 2 ]"
grep -m1 -E '^64 +10' "$LOG/pingpong-2nodes" | sed "s/^/# fi_pingpong 2 nodes /"

# --- numbers, side by side -----------------------------------------------------------
gexec_t 1 120 "snode-perf ping server </dev/null >/tmp/perf-server 2>&1 &" >>"$LOG/exec" 2>&1
sleep 1
gexec_t 0 120 "snode-perf ping client 1 iters 100" >"$LOG/perf-ping" 2>&1
check "$KERNEL: snode-perf ping client 1 iters 100 ran" [ $? -eq 0 ]
echo "# snode-perf ping (same run):"
sed 's/^/#   /' "$LOG/perf-ping"
grep -h '^# ofi ' "$LOG/pair-a" | sed 's/^/#   /'

finish
