# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib.sh - what the selftests/vm suites share, sourced by each of them:
#   - TAP output: ok, not_ok, skip, check, plan_exit
#   - the suite's setup: vm_suite checks the kernel argument and sets TOP,
#     BUILD, VM, FM, LOG and the supernode's own state directory
#   - the prerequisites line (require), booting and stopping the supernode
#     (vm_up, vm_down, finish)
#   - guest commands (gexec, gexec_t) and fabric manager commands (fmctl)
#   - the kselftest collection (make kselftest-install, staged into every
#     guest at $KSFT_DIR): ksft_run runs one of its tests in a guest through
#     run_kselftest.sh, as on a host with a real NIC, and re-emits each
#     test case as one TAP line of the suite (ksft_exec + ksft_report)
#
# Usage, at the top of a suite:
#   . "$(dirname "$0")/lib.sh"
#   vm_suite NAME "6.1|6.12|debug" "${1:-}" [USAGE-TAIL]

# shellcheck shell=bash disable=SC2034

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
FM=${SNODE_FM:-$BUILD/tools/snode-fm}
# INSTALL_PATH of the kselftest collection in the guests (selftests/selftests.mk)
KSFT_DIR=/usr/lib/snode/selftests
# the collection's directory: its tests and their helper programs
KSFT_BIN=$KSFT_DIR/snode
# The fabric manager declares a node dead after 1 s without a heartbeat
# (snode-fm's default). A QEMU whose main loop a loaded host starves for
# longer (a KASAN kernel under TCG is the usual victim) would lose its
# fabric for the rest of the suite; no suite tests that timing itself.
# A suite may ask for more (campaign.sh); the user's value wins over both.
SNODE_FM_DEAD_MS_USER=${SNODE_FM_DEAD_MS:-}
export SNODE_FM_DEAD_MS=${SNODE_FM_DEAD_MS:-3000}

n=0
failed=0

# --- TAP ---------------------------------------------------------------------
# each TAP line's share of the suite's time goes to $LOG/times ("SECONDS
# N NAME": the seconds since the line before it), to find the slow checks:
#   sort -rn build/check/*/times | head
t_last=${EPOCHREALTIME/./}
t_mark() {
	local now=${EPOCHREALTIME/./}
	[ -n "${LOG:-}" ] && [ -d "$LOG" ] &&
		printf '%d.%03d %d %s\n' $(((now - t_last) / 1000000)) \
			$(((now - t_last) / 1000 % 1000)) "$n" "$1" >>"$LOG/times"
	t_last=$now
}
ok() { n=$((n + 1)); t_mark "$*"; echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); t_mark "$*"; echo "not ok $n - $*"; }
skip() { n=$((n + 1)); t_mark "$1"; echo "ok $n - $1 # SKIP $2"; }
check() { # check NAME COMMAND...: one TAP line from the command's status
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
plan_exit() { # the plan line; exit 1 if any test failed
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# vm_suite NAME KERNELS KERNEL [USAGE-TAIL]: KERNEL must be one of KERNELS
# ("6.1|6.12|debug"); logs go to build/check/NAME-KERNEL, the supernode
# runs in build/vm/NAME-KERNEL (or $SNODE_VM_UP), so other suites'
# supernodes are left alone. Under run-all.sh the suite's own name
# (SNODE_CHECK_SUITE) replaces NAME-KERNEL: two suites that run parts of
# one script (net-6.1 and net-three-6.1) then never share a directory, and
# the later one cannot wipe the earlier one's console logs before they are
# read (snode-vm up starts from an empty directory).
vm_suite() {
	local name=$1 kernels=$2 tail=${4:+ $4} id
	KERNEL=$3
	if [ -z "$KERNEL" ] || [[ "|$kernels|" != *"|$KERNEL|"* ]]; then
		echo "usage: $0 $kernels$tail" >&2
		exit 2
	fi
	id=${SNODE_CHECK_SUITE:-$name-$KERNEL}
	LOG=$BUILD/check/$id
	mkdir -p "$LOG"
	rm -f "$LOG/times"
	export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/$id}
	export SNODE_FM_DIR=$SNODE_VM_UP
}

# require FILE...: QEMU, the fabric manager, snode.ko, the kselftest
# collection and FILE... are built; one TAP line ("prerequisites present")
# unless REQUIRE_QUIET is set. A missing one ends the suite.
require() {
	local f missing=
	for f in "$BUILD/qemu/qemu-system-x86_64" "$FM" \
		"$BUILD/stage/k$KERNEL/lib/snode/snode.ko" \
		"$BUILD/stage/common$KSFT_DIR/run_kselftest.sh" "$@"; do
		[ -e "$f" ] || missing="$missing ${f#"$TOP"/}"
	done
	if [ -n "$missing" ]; then
		not_ok "$KERNEL: prerequisites present (missing:$missing; run make all modules-guest selftests)"
		plan_exit
	fi
	[ -n "${REQUIRE_QUIET:-}" ] || ok "$KERNEL: prerequisites present"
}

# --- the supernode -------------------------------------------------------------
vm_down() { "$VM" down >>"$LOG/vm.log" 2>&1; }

# vm_up LABEL ARGS...: a fresh supernode under $KERNEL (snode-vm up ARGS);
# one TAP line unless VM_UP_QUIET is set and it came up.
vm_up() {
	local label=$1 t0=$SECONDS
	shift
	vm_down
	if ! "$VM" up --kernel "$KERNEL" "$@" >>"$LOG/vm.log" 2>&1; then
		not_ok "$KERNEL: snode-vm up $label (see ${LOG#"$TOP"/}/vm.log)"
		return 1
	fi
	[ -n "${VM_UP_QUIET:-}" ] || ok "$KERNEL: snode-vm up $label ($((SECONDS - t0)) s)"
}

# finish: the suite's finish_hook if it has one, then take the supernode
# down, one TAP line for that unless DOWN_TAP is empty (on the debug kernel
# down fails when a guest leaked: kmemleak), the plan, the exit status.
finish() {
	if declare -F finish_hook >/dev/null; then
		finish_hook
	fi
	local rc
	vm_down
	rc=$?
	if [ -n "${DOWN_TAP-x}" ]; then
		check "$KERNEL: snode-vm down${DOWN_TAP:+, $DOWN_TAP} (see ${LOG#"$TOP"/}/vm.log)" [ "$rc" -eq 0 ]
	fi
	plan_exit
}

# --- commands ---------------------------------------------------------------------
# gexec_t NODE TIMEOUT COMMAND...: run COMMAND on the guest carrying fabric
# node NODE; its output without the "[nodeN] " prefix on stdout; its status.
gexec_t() {
	local node=$1 t=$2
	shift 2
	"$VM" exec --node "$node" --timeout "$t" -- "$*" 2>>"$LOG/exec.err" |
		sed -u 's/^\[node[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
# gexec NODE COMMAND...: the same within $GEXEC_TIMEOUT (default 120) s
gexec() {
	local node=$1
	shift
	gexec_t "$node" "${GEXEC_TIMEOUT:-120}" "$@"
}

# fmctl ARGS...: snode-fm ctl on this supernode, output to fm-ctl.log
fmctl() {
	"$FM" ctl --dir "$SNODE_FM_DIR" "$@" >>"$LOG/fm-ctl.log" 2>&1
}

# pycheck PYTHON [ARG...]: a python predicate (json and sys imported) over
# the ARGs, JSON texts in sys.argv[1:]; its exit status
pycheck() {
	python3 -c "import json, sys
$1" "${@:2}" 2>>"$LOG/py.err"
}

# until_ok SECONDS COMMAND...: COMMAND succeeds within SECONDS
until_ok() {
	local t=$1 i
	shift
	for ((i = 0; i < t * 2; i++)); do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}

# links_are STATE0 STATE1: snodectl's oper state of snode0's ports 0 and 1
# on node 0
links_are() {
	local j
	j=$(gexec 0 "snodectl -j link status snode0")
	pycheck '
l = {x["port"]: x["state"] for x in json.loads(sys.argv[1])["links"]}
sys.exit(0 if l == {0: sys.argv[2], 1: sys.argv[3]} else 1)' "$j" "$1" "$2"
}

# --- the kselftest collection --------------------------------------------------
# ksft_exec NODE TIMEOUT TEST [VAR=VALUE...]: run_kselftest.sh -t snode:TEST
# on NODE with the environment given; output in $LOG/TEST-nodeNODE.tap;
# the runner's status. TIMEOUT is the runner's (-o); the guest command gets
# a minute more, so that the runner reports a hang itself.
ksft_exec() {
	local node=$1 t=$2 test=$3
	shift 3
	gexec_t "$node" $((t + 60)) \
		"$* $KSFT_DIR/run_kselftest.sh -o $t -t snode:$test" \
		>"$LOG/$test-node$node.tap" 2>&1
}

# ksft_report LABEL TAPFILE STATUS: each test case in the output of
# run_kselftest.sh as one TAP line "LABEL CASE". The runner indents the
# program's own TAP by "# "; its own "ok/not ok N selftests: snode: TEST"
# line is the verdict on the program. The program not running, ending
# without a result on a case (crash, timeout) or the runner failing without
# a failed case is one failure more.
ksft_report() {
	local label=$1 tap=$2 rc=$3 line name='' seen=0 top='' where
	where="see ${tap#"$TOP"/}"
	while IFS= read -r line; do
		case "$line" in
		"# "*) line=${line#\# } ;;
		"ok "[0-9]* | "not ok "[0-9]*) top=$line; continue ;;
		*) continue ;;
		esac
		# The 6.1 harness leaves the name out of "ok N # SKIP" lines;
		# take it from "RUN".
		case "$line" in
		"#  RUN "*)
			name=${line#\#  RUN }
			name=${name#"${name%%[! ]*}"}
			name=${name% ...} ;;
		"ok "[0-9]*"# SKIP"*)
			skip "$label ${name:-$(ksft_case "$line")}" "${line#*# SKIP }"
			seen=1 ;;
		"ok "[0-9]*)
			ok "$label ${name:-$(ksft_case "$line")}"
			seen=1 ;;
		"not ok "[0-9]*)
			not_ok "$label ${name:-$(ksft_case "$line")} ($where)"
			seen=1 ;;
		"1..0 # SKIP"*)
			skip "$label" "${line#1..0 # SKIP }"
			seen=1 ;;
		esac
	done <"$tap"
	if [ "$seen" -eq 0 ] || [ -z "$top" ] ||
		{ { [ "$rc" -ne 0 ] || [[ "$top" == "not ok"* ]]; } &&
		! grep -q '^# not ok' "$tap"; }; then
		not_ok "$label ran (status $rc${top:+, runner: $top}; $where)"
	fi
}
ksft_case() { # the case's name in an "ok N NAME [# SKIP ...]" line
	local c=${1#ok }
	c=${c#not ok }
	c=${c#* }
	echo "${c%% # *}"
}

# ksft_run LABEL NODE TIMEOUT TEST [VAR=VALUE...]: ksft_exec and ksft_report
ksft_run() {
	local label=$1 node=$2 test=$4 rc
	shift
	ksft_exec "$@"
	rc=$?
	ksft_report "$label" "$LOG/$test-node$node.tap" "$rc"
}
