#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mem.sh - the global memory suite on an emulated supernode.
#
# Usage: selftests/vm/mem.sh 6.1|6.12|debug
#
# Boots tools/emu/topologies/mem-sim.topo (VM nodes 0 and 1, simulated
# exporters 2-4) under the given guest kernel and checks, from the host:
#   - mem_test of the kselftest collection on both nodes at once, run by
#     run_kselftest.sh with SNODE_PEER set (its peer tests pair them up)
#   - revocation by every cause, each ending in SIGBUS (or the zero page)
#     in the importer and the right reason on its file descriptor:
#     exporter node killed, all its links down, node isolated (sim nodes,
#     fault injection through snode-fm ctl), exporter process killed,
#     exporter NIC reset, importer NIC unbound; re-importing works once
#     the cause is gone
#   - rmmod is refused while an import is open
#   - the driver's tracepoints through Debian's trace-cmd and perf (staged
#     by snode-vm --package): node 0 maps an export of node 1 under
#     trace-cmd record, then under perf trace, node 1's exporter is killed,
#     and each report shows the window's life in order: ATT_SET submitted
#     and completed, the fault that maps the window, the device's
#     WINDOW_REVOKED event, the revocation with the epoch the importer's
#     fd reports, SIGBUS faults on the revoked window
#   - tools/emu/topologies/256-sim.topo: one VM imports from 256 nodes and
#     checks their memory, then the ATT is full and the next import fails
#     with ENOSPC
#   - nothing leaked: the pool is whole, no import, export or ATT entry is
#     left, the module unloads
# Every check prints one TAP line; the exit status is 1 if any failed.
# SNODE_MEM_PARTS (default "kselftest fabric vms unbind trace leak scale") runs
# a subset, for development.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite mem "6.1|6.12|debug" "${1:-}"
TOPO=$TOP/tools/emu/topologies/mem-sim.topo
TOPO_SCALE=$TOP/tools/emu/topologies/256-sim.topo
PEER=$KSFT_BIN/mem_peer
KEY=0x5100
PARTS=" ${SNODE_MEM_PARTS:-kselftest fabric vms unbind trace leak scale} "

want() { [[ "$PARTS" == *" $1 "* ]]; }

# Wait until a guest file holds a line matching PATTERN (seconds).
wait_line() { # wait_line NODE FILE PATTERN SECONDS
	local i
	for ((i = 0; i < $4 * 2; i++)); do
		gexec "$1" "grep -q '$3' $2" && return 0
		sleep 0.5
	done
	return 1
}

require "$BUILD/stage/common$PEER"
# mem_test's import_read_only_store_violation and aperture_hole_violation
# store into the aperture through /dev/mem, which the kernel allows on a
# range a driver holds only with iomem=relaxed (decision 0022).
export SNODE_VM_APPEND="${SNODE_VM_APPEND:+$SNODE_VM_APPEND }iomem=relaxed"
# trace-cmd and perf come from Debian's archive (the trace part)
pkgs=${SNODE_VM_PACKAGES:-}
want trace && pkgs="${pkgs:+$pkgs }trace-cmd linux-perf"
SNODE_VM_PACKAGES="$pkgs" vm_up mem-sim --topology "$TOPO" --mem 768 || finish
for node in 0 1; do
	gexec "$node" "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
	check "$KERNEL: node $node: insmod snode.ko" [ $? -eq 0 ]
done

# --- mem_test on both nodes, paired ---------------------------------------------
if want kselftest; then
	ksft_exec 0 1800 mem_test SNODE_PEER=1 &
	pid0=$!
	ksft_exec 1 1800 mem_test SNODE_PEER=0 &
	pid1=$!
	wait "$pid0"; rc0=$?
	wait "$pid1"; rc1=$?
	ksft_report "$KERNEL: node 0 mem_test" "$LOG/mem_test-node0.tap" "$rc0"
	ksft_report "$KERNEL: node 1 mem_test" "$LOG/mem_test-node1.tap" "$rc1"
fi

# --- revocation by the fabric -----------------------------------------------------
# hold_start NODE ARGS...: mem_peer hold in the background on NODE
hold_start() {
	local node=$1
	shift
	gexec "$node" "rm -f /tmp/hold.log; $PEER hold $* >/tmp/hold.log 2>&1 </dev/null & echo \$! >/tmp/hold.pid"
	wait_line "$node" /tmp/hold.log '^mapped\|^error' 30 &&
		gexec "$node" "grep -q '^mapped' /tmp/hold.log"
}

# hold_result NODE REASON LOAD STORE NAME: the holder saw the revocation
hold_result() {
	local node=$1 reason=$2 load=$3 store=$4 name=$5 out
	wait_line "$node" /tmp/hold.log '^store\|^timeout\|^error' 70
	out=$(gexec "$node" "cat /tmp/hold.log")
	echo "$name: $out" >>"$LOG/hold.log"
	check "$KERNEL: $name: fd reports reason $reason" \
		grep -q "^revoked reason $reason state 2" <<<"$out"
	check "$KERNEL: $name: poll woke with POLLPRI and POLLERR" \
		grep -q "pri 1 err 1$" <<<"$out"
	check "$KERNEL: $name: load through the old mapping: $load" \
		grep -q "^load $load" <<<"$out"
	check "$KERNEL: $name: store through the old mapping: $store" \
		grep -q "^store $store" <<<"$out"
}

# revoke_case NAME SIMNODE REASON LOAD FLAGS "FAULT..." "RESTORE..."
revoke_case() {
	local name=$1 sim=$2 reason=$3 load=$4 flags=$5 fault=$6 restore=$7 c
	if ! hold_start 0 "$sim 0 $KEY 2M rw $flags 60"; then
		not_ok "$KERNEL: $name: import from node $sim and map it"
		return
	fi
	ok "$KERNEL: $name: import from node $sim and map it"
	while read -r c; do
		[ -n "$c" ] && eval "fmctl $c"
	done <<<"$fault"
	hold_result 0 "$reason" "$load" sigbus "$name"
	while read -r c; do
		[ -n "$c" ] && eval "fmctl $c"
	done <<<"$restore"
	# the node is back: wait for the fabric to say so, then import again
	local i out=
	for ((i = 0; i < 20; i++)); do
		out=$(gexec 0 "$PEER check $sim 0 $KEY 2M" 2>&1)
		grep -q "^pattern ok" <<<"$out" && break
		sleep 0.5
	done
	check "$KERNEL: $name: import again after recovery ($out)" \
		grep -q "^pattern ok" <<<"$out"
}

if want fabric; then
revoke_case "node kill" 2 3 sigbus "" "node kill 2" "node join 2"
revoke_case "node kill, zero page" 2 3 "ok zero" zero "node kill 2" "node join 2"
revoke_case "all links down" 3 4 sigbus "" "link down 3.0
link down 3.1" "link up 3.0
link up 3.1"
revoke_case "node isolate" 4 4 sigbus "" "node isolate 4" "node join 4"

# one link down is not a revocation: the other plane carries the traffic
if hold_start 0 "3 0 $KEY 2M rw 3"; then
	fmctl link down 3.0
	wait_line 0 /tmp/hold.log '^timeout\|^revoked' 10
	check "$KERNEL: one link down: the window survives" \
		gexec 0 "grep -q '^timeout' /tmp/hold.log"
	fmctl link up 3.0
else
	not_ok "$KERNEL: one link down: import from node 3"
fi
fi

# --- revocation between the two VMs --------------------------------------------
# exporter_start: mem_peer export on node 0 (first allocation: pool 0)
exporter_start() {
	gexec 0 "rm -f /tmp/exp.log; $PEER export 0xe5 2M rw >/tmp/exp.log 2>&1 </dev/null & echo \$! >/tmp/exp.pid"
	wait_line 0 /tmp/exp.log '^export\|^error' 30 &&
		gexec 0 "grep -q '^export node 0 id 0 ' /tmp/exp.log"
}

if ! want vms; then
	:
elif exporter_start && hold_start 1 "0 0 0xe5 2M rw 60"; then
	ok "$KERNEL: exporter reset: node 1 maps node 0's export"
	gexec 0 "echo 1 >/sys/class/snode/snode0/device/reset"
	hold_result 1 2 sigbus sigbus "exporter reset"
	out=$(gexec 1 "$PEER check 0 0 0xe5 2M" 2>&1)
	check "$KERNEL: exporter reset: the export is restored ($out)" \
		grep -q "^pattern ok" <<<"$out"

	hold_start 1 "0 0 0xe5 2M rw 60"
	gexec 0 "kill -KILL \$(cat /tmp/exp.pid)"
	hold_result 1 1 sigbus sigbus "exporter killed"
else
	not_ok "$KERNEL: exporter reset: node 1 maps node 0's export"
fi

# --- the importer's own NIC goes away ---------------------------------------------
bdf1=$(gexec 1 "basename \$(readlink /sys/class/snode/snode0/device)")
if ! want unbind; then
	:
elif hold_start 1 "2 0 $KEY 2M rw 60"; then
	ok "$KERNEL: unbind: node 1 maps node 2's export"
	out=$(gexec 1 "rmmod snode 2>&1; lsmod | grep -c '^snode '")
	check "$KERNEL: rmmod is refused while an import is open" \
		grep -q "^1$" <<<"$out"
	gexec 1 "echo $bdf1 >/sys/bus/pci/drivers/snode/unbind"
	hold_result 1 6 sigbus sigbus "importer unbind"
	# the old snode0 goes once its last import is closed
	gexec 1 "while kill -0 \$(cat /tmp/hold.pid) 2>/dev/null; do sleep 0.1; done"
	gexec 1 "echo $bdf1 >/sys/bus/pci/drivers/snode/bind"
	out=$(gexec 1 "$PEER check 2 0 $KEY 2M" 2>&1)
	check "$KERNEL: unbind: import again after bind ($out)" \
		grep -q "^pattern ok" <<<"$out"
else
	not_ok "$KERNEL: unbind: node 1 maps node 2's export"
fi

# --- the tracepoints through trace-cmd and perf --------------------------------
# The example of Documentation/driver/snode.rst ("Tracing"), command for
# command: node 1 exports, node 0 maps the export under TOOL (its command
# line before the mapping program), node 1's exporter is killed; then the
# report. Output and report go to $LOG/trace-TOOL.*.
TRACE_KEY=0x7ace
# trace_window NAME "TOOL..." "REPORT...": one window's life; the report's
# text on stdout, the mapping program's output in $LOG/trace-NAME.hold
trace_window() {
	local name=$1 tool=$2 report=$3 id
	gexec 1 "cd $KSFT_BIN && rm -f /tmp/texp.log && { ./mem_peer export $TRACE_KEY 2M rw >/tmp/texp.log 2>&1 </dev/null & echo \$! >/tmp/texp.pid; }"
	wait_line 1 /tmp/texp.log '^export\|^error' 30
	id=$(gexec 1 "sed -n 's/^export node 1 id \([0-9]*\) .*/\1/p' /tmp/texp.log")
	if [ -z "$id" ]; then
		echo "$name: node 1 did not export" >&2
		return 1
	fi
	gexec 0 "cd $KSFT_BIN && rm -f /tmp/thold.log && { $tool -- ./mem_peer hold 1 $id $TRACE_KEY 2M rw 60 >/tmp/thold.log 2>&1 </dev/null & echo \$! >/tmp/ttool.pid; }"
	if ! wait_line 0 /tmp/thold.log '^mapped\|^error' 60; then
		echo "$name: node 0 did not map the window" >&2
		gexec 0 "cat /tmp/thold.log" >&2
		return 1
	fi
	gexec 1 "kill -KILL \$(cat /tmp/texp.pid)"
	# the tool ends with its program, after writing what it recorded
	gexec 0 "for i in \$(seq 300); do kill -0 \$(cat /tmp/ttool.pid) 2>/dev/null || break; sleep 0.1; done"
	gexec 0 "cat /tmp/thold.log" >"$LOG/trace-$name.hold"
	gexec 0 "$report" >"$LOG/trace-$name.report" 2>&1
	cat "$LOG/trace-$name.report"
}

# trace_stage FORMAT EPOCH < REPORT: how far the report follows a window's
# life, 0 to 6 (the stages below). FORMAT is trace-cmd (trace-cmd report:
# "snode0 att 0 reason 1 ...") or perf (perf trace: "att: 0, reason: 1",
# fields that are zero left out).
trace_stage() {
	awk -v fmt="$1" -v epoch="$2" '
	# the value of FIELD in this line, "0" when perf left it out
	function field(f,   m) {
		if (fmt == "perf") {
			if (match($0, "[(, ]" f ": -?[0-9]+"))
				return substr($0, RSTART + length(f) + 3, RLENGTH - length(f) - 3)
			return "0"
		}
		if (match($0, " " f " [-0-9a-fx]+"))
			return substr($0, RSTART + length(f) + 2, RLENGTH - length(f) - 2)
		return ""
	}
	function num(v,   i, r) {
		if (v !~ /^0x/)
			return v + 0
		for (i = 3; i <= length(v); i++)
			r = r * 16 + index("0123456789abcdef", tolower(substr(v, i, 1))) - 1
		return r
	}
	function is(ev) { return index($0, (fmt == "perf" ? "snode:" : " ") ev (fmt == "perf" ? "(" : ":")) > 0 }
	# 1: ATT_SET (0x10) submitted by the mapping program
	stage == 0 && is("snode_admin_cmd") && index($0, "mem_peer") && num(field("opcode")) == 16 {
		cid = field("cid"); stage = 1; next
	}
	# 2: its completion, status 0, err 0
	stage == 1 && is("snode_admin_cpl") && num(field("opcode")) == 16 && field("cid") == cid {
		if (num(field("status")) != 0 || num(field("err")) != 0)
			exit
		stage = 2; next
	}
	# 3: the fault that maps the active window: VM_FAULT_NOPAGE (0x100)
	stage == 2 && is("snode_window_fault") && num(field("active")) == 1 {
		if (num(field(fmt == "perf" ? "ret" : "vm_fault")) != 256 || num(field("pgoff")) != 0)
			exit
		att = field("att"); stage = 3; next
	}
	# 4: the device reports the revocation: SNODE_EV_WINDOW_REVOKED (5)
	stage == 3 && is("snode_event") && num(field("type")) == 5 { stage = 4; next }
	# 5: the window revoked: reason 1 (the exporter unexported), the fd epoch
	stage == 4 && is("snode_window_revoke") && field("att") == att {
		if (num(field("reason")) != 1 || field("epoch") != epoch)
			exit
		stage = 5; next
	}
	# 6: an access to the revoked window: VM_FAULT_SIGBUS (0x2)
	stage == 5 && is("snode_window_fault") && field("att") == att &&
	    num(field("active")) == 0 && num(field(fmt == "perf" ? "ret" : "vm_fault")) == 2 {
		stage = 6; exit
	}
	END { print stage + 0 }'
}

# trace_checks NAME FORMAT REPORT: one TAP line per stage of trace_stage,
# against the epoch the importer's fd reported
trace_checks() {
	local name=$1 st trace_epoch
	trace_epoch=$(sed -n 's/^revoked reason 1 state 2 epoch \([0-9]*\) .*/\1/p' "$LOG/trace-$name.hold")
	st=$(trace_stage "$2" "$trace_epoch" <<<"$3")
	check "$KERNEL: $name: ATT_SET submitted by the mapping program" [ "$st" -ge 1 ]
	check "$KERNEL: $name: ATT_SET completed with status 0, err 0" [ "$st" -ge 2 ]
	check "$KERNEL: $name: a fault maps the active window (VM_FAULT_NOPAGE)" [ "$st" -ge 3 ]
	check "$KERNEL: $name: the device's WINDOW_REVOKED event" [ "$st" -ge 4 ]
	check "$KERNEL: $name: revoked, reason 1, the fd's epoch ${trace_epoch:-?}" [ "$st" -ge 5 ]
	check "$KERNEL: $name: the revoked window faults with SIGBUS" [ "$st" -ge 6 ]
}

if want trace; then
	gexec 0 "command -v trace-cmd && command -v perf || exit 2
		test -d /sys/kernel/tracing/events/snode || exit 3" >/dev/null
	case $? in
	0)	out=$(trace_window trace-cmd \
			"trace-cmd record -e snode -o /tmp/t.dat" \
			"trace-cmd report -i /tmp/t.dat")
		trace_checks trace-cmd trace-cmd "$out"
		# -a: the revocation happens in the event queue's IRQ thread, not
		# in the traced program; --sort-events: -a's per-CPU buffers in
		# time order
		out=$(trace_window perf \
			"perf trace -a --sort-events -e 'snode:*' -o /tmp/p.txt" \
			"cat /tmp/p.txt")
		trace_checks perf perf "$out" ;;
	2)	skip "$KERNEL: trace-cmd and perf trace show a window's life" \
			"trace-cmd or perf is not staged in the guest" ;;
	3)	skip "$KERNEL: trace-cmd and perf trace show a window's life" \
			"this kernel has no snode events in tracefs" ;;
	*)	not_ok "$KERNEL: trace-cmd and perf trace: node 0 answers" ;;
	esac
fi

# --- nothing leaked ------------------------------------------------------------------
splat='WARNING:|BUG:|Call Trace:|Oops|possible circular locking|INFO: possible'
for node in $(want leak && echo 0 1); do
	out=$(gexec "$node" "dmesg" 2>&1)
	check "$KERNEL: node $node: no kernel splat in dmesg" \
		bash -c '! grep -Eq "$1" <<<"$2"' _ "$splat" "$out"
	out=$(gexec "$node" "$PEER stat" 2>&1)
	check "$KERNEL: node $node: pool whole, no import, export or ATT entry ($out)" \
		awk '$1 == "pool" && $2 == $4 && $6 == 0 && $8 == 0 && $10 == 0 { ok = 1 } END { exit !ok }' <<<"$out"
	gexec "$node" "rmmod snode" >>"$LOG/rmmod" 2>&1
	check "$KERNEL: node $node: rmmod snode" [ $? -eq 0 ]
done

# --- scale: 256 exporters ---------------------------------------------------------------
# One process imports from every node: it needs the whole ATT, beyond the
# default per-file cap (Documentation/decisions/0008-permission-model.md).
if want scale && vm_up 256-sim --topology "$TOPO_SCALE" --mem 768; then
	gexec 0 "insmod /lib/snode/snode.ko max_imports=0" >>"$LOG/insmod" 2>&1
	check "$KERNEL: 256-sim: insmod snode.ko" [ $? -eq 0 ]
	out=$(GEXEC_TIMEOUT=600 gexec 0 "$PEER scale 1 256 0 $KEY 64K" 2>&1)
	echo "$out" >"$LOG/scale.log"
	check "$KERNEL: 256-sim: imports from 256 nodes show their memory" \
		grep -q "^scale 256 ok" <<<"$out"
	check "$KERNEL: 256-sim: the next import fails with ENOSPC" \
		grep -q "^full ENOSPC" <<<"$out"
	out=$(gexec 0 "$PEER stat" 2>&1)
	check "$KERNEL: 256-sim: every entry released ($out)" \
		awk '$1 == "pool" && $6 == 0 && $10 == 0 { ok = 1 } END { exit !ok }' <<<"$out"
	gexec 0 "rmmod snode" >>"$LOG/rmmod" 2>&1
	check "$KERNEL: 256-sim: rmmod snode" [ $? -eq 0 ]
fi

finish
