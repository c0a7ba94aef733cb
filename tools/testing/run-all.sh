#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-all.sh - run every snode test suite and count the results.
#
# Each suite is a command that prints TAP lines ("ok N - name",
# "not ok N - name", "ok N - name # SKIP reason"). A suite that exits
# non-zero without reporting a failure counts as one failure of its own, so
# a crashed suite can never look green. After the suites, every guest console
# log written during this run is scanned for kernel oopses, BUGs, WARNINGs,
# lockdep splats and the debug kernel's KASAN, UBSAN, kmemleak and
# debugobjects reports; any hit is a failure and its report is printed.
#
# The *-debug suites run on the debug kernel (make kernels-debug); the ones
# in FULL_ONLY run only with --full (make check-full), see
# Documentation/driver/testing.rst.
#
# Usage: tools/testing/run-all.sh [--full] [SUITE...]   (default: all suites)
# The last line is "N passed, N failed, N skipped"; exit status 1 if any
# test failed.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LOGDIR=$TOP/build/check
mkdir -p "$LOGDIR"
STAMP=$LOGDIR/.start
touch "$STAMP"
rm -f "$LOGDIR/summary"

# name: command (run from $TOP). Scripts run through bash so that a lost
# executable bit cannot turn a suite into "Permission denied".
SUITES=(
	"fm-unit:make -s --no-print-directory fm-test"
	"cli-unit:make -s --no-print-directory cli-test"
	"install:bash tools/testing/install-test.sh"
	"paths:bash tools/testing/paths-test.sh"
	"dkms:bash tools/testing/dkms-test.sh"
	"deb:bash tools/testing/deb-test.sh 6.12"
	"deb-build:bash tools/testing/deb-build-test.sh"
	"deb-bookworm:bash tools/testing/deb-chroot-test.sh bookworm"
	"deb-trixie:bash tools/testing/deb-chroot-test.sh trixie"
	"adt:bash tools/testing/adt-test.sh host"
	"adt-clean:bash tools/testing/adt-test.sh clean"
	"libsnode:make -s --no-print-directory libsnode-test"
	"ofi-host:make -s --no-print-directory ofi-check"
	"lint:bash tools/testing/lint-suite.sh"
	"log-scan:bash tools/testing/log-scan-test.sh"
	"hw-contract:make -s --no-print-directory hw-contract"
	"ksft-host:bash selftests/ksft-host.sh"
	"emu-6.1:bash selftests/emu/emu.sh 6.1"
	"core-6.1:bash selftests/vm/core.sh 6.1"
	"mem-6.1:bash selftests/vm/mem.sh 6.1"
	"link-6.1:bash selftests/vm/link.sh 6.1"
	"devlink-6.1:bash selftests/vm/devlink.sh 6.1"
	"ops-6.1:bash selftests/vm/ops.sh 6.1"
	"diag-6.1:bash selftests/vm/diag.sh 6.1"
	"msg-6.1:bash selftests/vm/msg.sh 6.1"
	"net-6.1:bash selftests/vm/net.sh 6.1 pair"
	"net-three-6.1:bash selftests/vm/net.sh 6.1 three"
	"ofi-6.1:bash selftests/vm/ofi.sh 6.1 core"
	"mpi-6.1:bash selftests/vm/mpi.sh 6.1 core"
	"ofi-rest-6.1:bash selftests/vm/ofi.sh 6.1 rest"
	"mpi-rest-6.1:bash selftests/vm/mpi.sh 6.1 rest"
	"fuzz-6.1:bash selftests/vm/fuzz.sh 6.1 120 4242"
	"emu-6.12:bash selftests/emu/emu.sh 6.12"
	"core-6.12:bash selftests/vm/core.sh 6.12"
	"mem-6.12:bash selftests/vm/mem.sh 6.12"
	"link-6.12:bash selftests/vm/link.sh 6.12"
	"devlink-6.12:bash selftests/vm/devlink.sh 6.12"
	"ops-6.12:bash selftests/vm/ops.sh 6.12"
	"diag-6.12:bash selftests/vm/diag.sh 6.12"
	"msg-6.12:bash selftests/vm/msg.sh 6.12"
	"net-6.12:bash selftests/vm/net.sh 6.12"
	"ofi-6.12:bash selftests/vm/ofi.sh 6.12"
	"mpi-6.12:bash selftests/vm/mpi.sh 6.12"
	"mpi-hpcc-6.12:bash selftests/vm/mpi.sh 6.12 hpcc"
	"fuzz-6.12:bash selftests/vm/fuzz.sh 6.12 120 4242"
	"campaign-6.12:bash selftests/vm/campaign.sh 6.12"
	"core-debug:bash selftests/vm/core.sh debug"
	"mem-debug:bash selftests/vm/mem.sh debug"
	"link-debug:bash selftests/vm/link.sh debug"
	"devlink-debug:bash selftests/vm/devlink.sh debug"
	"msg-debug:bash selftests/vm/msg.sh debug pair"
	"msg4-debug:bash selftests/vm/msg.sh debug four"
	"fail-nth-debug:bash selftests/vm/fail-nth.sh debug"
	"probe-nth-debug:bash selftests/vm/fail-nth.sh debug probe"
	"fuzz-debug:bash selftests/vm/fuzz.sh debug 120 4242"
)
# Suites left out of "make check" for its time budget, run by --full
# (Documentation/decisions/0023-what-make-check-runs.md): the 6.1 copies
# of suites whose code does not depend on the kernel version, which 6.12
# runs: ops, diag and msg (stop 36's addendum: no driver code of theirs is
# built differently for 6.1; map.c's is, so mem stays on both) and devlink
# (its compat header is compiled for 6.1 by every build, run in
# check-full); core, mem, link and net run on both (net-6.1 is back in
# make check, addendum of 0023); of ofi and mpi,
# make check runs 6.1's core part, 0023's addendum of stop 24), emu-6.12
# (emu-6.1 runs), fuzz on the stock kernels (fuzz-debug runs the same
# seed under the sanitizers), and the slow debug suites; the
# debug kernel still runs core, msg's two-node part (the lifetime tests),
# fail-nth and fuzz (probe-nth, the probe's sweep, is check-full's).
# net-three-6.1 is net.sh's three-node part (a peer that stops draining
# its ring), which net-6.12 runs in make check with the pair part.
# devlink-debug only loads the driver and skips: the
# debug kernel has no CONFIG_NET_DEVLINK. mpi-hpcc-6.12, Debian's hpcc as
# a 4-rank job (about 280 s), is check-full's only, as are deb-build (a
# second package build, about 75 s, with the profile that needs no
# linux-source; deb builds the packages make check installs) and
# adt and adt-clean (the autopkgtests on an overlay of the host, 1.5 to 3
# min, and in a clean bookworm with every dependency from the archive,
# about 4 min; make check's deb suite checks the same device access in an
# emulated node and install runs install-test.sh), and deb-bookworm and
# deb-trixie (the package built from source in a clean chroot of each,
# build dependencies from the archive, about 5 min each).
FULL_ONLY=(deb-build deb-bookworm deb-trixie adt adt-clean devlink-6.1 ops-6.1 diag-6.1 msg-6.1 net-three-6.1 ofi-rest-6.1 mpi-rest-6.1 fuzz-6.1
	emu-6.12 fuzz-6.12 mpi-hpcc-6.12
	mem-debug link-debug msg4-debug devlink-debug probe-nth-debug)

passed=0
failed=0
skipped=0
failures=()
times=()
# make check passes the time it started (SNODE_CHECK_T0, before the build),
# so that the table at the end shows the build's share of the budget
T0=${SNODE_CHECK_T0:-$(date +%s)}
SUITES_T0=$(date +%s)

want() {	# want SUITE: selected on the command line, or none was
	[ ${#SELECTED[@]} -eq 0 ] && return 0
	local s
	for s in "${SELECTED[@]}"; do
		[ "$s" = "$1" ] && return 0
	done
	return 1
}

full=
if [ "${1:-}" = --full ]; then
	full=1
	shift
fi
SELECTED=("$@")

full_only() {
	local s
	for s in "${FULL_ONLY[@]}"; do
		[ "$s" = "$1" ] && return 0
	done
	return 1
}

# cpu_ticks: "BUSY TOTAL" jiffies of all host CPUs so far (/proc/stat)
cpu_ticks() {
	local cpu user nice sys idle iowait irq softirq steal rest
	read -r cpu user nice sys idle iowait irq softirq steal rest </proc/stat
	echo "$((user + nice + sys + irq + softirq + steal)) $((user + nice + sys + idle + iowait + irq + softirq + steal))"
}

# start_suite NAME CMD: run CMD in the background, its output in
# build/check/NAME.log; collect_suite reads it when it ends
declare -A SUITE_T0=() SUITE_B0=() SUITE_T0C=() PID_OF=() NAME_OF=()
start_suite() {
	local name=$1 cmd=$2 b0 t0c
	read -r b0 t0c < <(cpu_ticks)
	SUITE_T0[$name]=$SECONDS SUITE_B0[$name]=$b0 SUITE_T0C[$name]=$t0c
	echo "=== $name: started: $cmd"
	# its own name: the VM suites keep their supernode's directory and
	# logs under it (selftests/vm/lib.sh), so no later suite overwrites
	# the consoles scanned below, and two suites running at once never
	# share a supernode. setsid: its own process group, which an
	# interrupted run stops whole.
	# shellcheck disable=SC2016 # expanded by the inner bash
	setsid bash -c 'cd "$1" && export SNODE_CHECK_SUITE="$2" && eval "$3"' \
		run-all "$TOP" "$name" "$cmd" >"$LOGDIR/$name.log" 2>&1 </dev/null &
	PID_OF[$name]=$!
	NAME_OF[$!]=$name
}

# collect_suite NAME RC: count the TAP lines of a suite that ended
collect_suite() {
	local name=$1 rc=$2 log=$LOGDIR/$1.log line
	local s_pass=0 s_fail=0 s_skip=0 b1 t1c
	local t0=${SUITE_T0[$name]} b0=${SUITE_B0[$name]} t0c=${SUITE_T0C[$name]}
	unset "NAME_OF[${PID_OF[$name]}]" "PID_OF[$name]"
	while IFS= read -r line; do
		case "$line" in
		"not ok "[0-9]*)
			s_fail=$((s_fail + 1))
			failures+=("$name: $line")
			echo "  $line" ;;
		"ok "[0-9]*"# SKIP"* | "ok "[0-9]*"# skip"*)
			s_skip=$((s_skip + 1))
			echo "  $line" ;;
		"ok "[0-9]*)
			s_pass=$((s_pass + 1))
			echo "  $line" ;;
		esac
	done < <(sed -e 's/^\[node[0-9]*\] //' -e 's/^[[:space:]]*//' "$log")
	if [ "$rc" -ne 0 ] && [ "$s_fail" -eq 0 ]; then
		s_fail=1
		failures+=("$name: exited with status $rc without reporting a failed test (see $log)")
		echo "  not ok - $name exited with status $rc (see $log)"
	fi
	if [ $((s_pass + s_fail + s_skip)) -eq 0 ]; then
		failures+=("$name: reported no tests (see $log)")
		s_fail=1
		echo "  not ok - $name reported no tests (see $log)"
	fi
	# the host's CPUs busy during the suite (whatever ran beside it
	# included): a low share is time spent waiting (sleeps, timeouts), the
	# first place to look for a faster run
	read -r b1 t1c < <(cpu_ticks)
	local secs=$((SECONDS - t0)) busy=$(((b1 - b0) * 100 / (t1c - t0c > 0 ? t1c - t0c : 1)))
	echo "=== $name: $s_pass passed, $s_fail failed, $s_skip skipped ($secs s, host CPUs $busy % busy)"
	times+=("$(printf '%-18s %5d s %4d %% %5d tests' "$name" "$secs" "$busy" $((s_pass + s_fail + s_skip)))")
	passed=$((passed + s_pass))
	failed=$((failed + s_fail))
	skipped=$((skipped + s_skip))
}

# make check's time (decision 0023, stop 36's addendum): the budget a cold
# run should keep (README's promise, shown in the table at the end), and a
# hard limit past which the suites not yet run are not started but count
# as failures, so that a slow CI machine ends with a verdict saying why
# instead of being killed at its 90 minutes. Only the default set of make
# check is held to them; check-full and named suites run whole.
BUDGET_MIN=${SNODE_CHECK_BUDGET_MIN:-60}
LIMIT_MIN=${SNODE_CHECK_LIMIT_MIN:-80}
# Two suites at a time (SNODE_CHECK_JOBS, default 2; 1 runs them one after
# the other): a VM suite keeps the host's two CPUs about half busy, the rest
# is guests waiting (decision 0049). The longest start first (EST_S, the
# seconds each took on the idle machine, rounded; a suite missing from it
# counts as 60), so that no long suite is left to run alone at the end.
# Suites of one class never run at once: the host suites build and install
# in the checkout and its build/ (make, dpkg, dkms, chroots of build/deb).
JOBS=${SNODE_CHECK_JOBS:-2}
case "$JOBS" in
'' | *[!0-9]* | 0) echo "run-all.sh: SNODE_CHECK_JOBS: a number of suites from 1, not '$JOBS'" >&2; exit 2 ;;
esac
declare -A EST_S=(
	[campaign-6.12]=330 [ops-6.12]=230 [deb]=200 [net-6.12]=200
	[fuzz-debug]=190 [mem-6.12]=170 [mem-6.1]=170 [msg-debug]=155
	[core-debug]=150 [mpi-6.12]=150 [net-6.1]=150 [link-6.12]=120
	[fail-nth-debug]=110 [ofi-6.12]=100 [msg-6.12]=100 [link-6.1]=100
	[emu-6.1]=100 [lint]=100 [mpi-6.1]=90 [core-6.12]=80 [core-6.1]=80
	[ofi-6.1]=60 [diag-6.12]=60 [cli-unit]=50 [dkms]=50 [devlink-6.12]=45
	[install]=30 [ksft-host]=30 [libsnode]=20 [ofi-host]=20 [fm-unit]=10
	[paths]=10 [hw-contract]=10 [log-scan]=5
	# check-full's
	[deb-bookworm]=300 [deb-trixie]=300 [mpi-hpcc-6.12]=280 [adt-clean]=240
	[probe-nth-debug]=200 [adt]=150 [msg4-debug]=100 [deb-build]=75
)
suite_class() {	# suite_class NAME: suites of one class take turns
	case "$1" in
	*-6.1 | *-6.12 | *-debug) echo "vm-$1" ;;
	*) echo host ;;
	esac
}

# the suites to run, longest first (a stable sort: ties keep the table's order)
queue=()
while IFS=$'\t' read -r _ _ name; do
	queue+=("$name")
done < <(i=0
	for entry in "${SUITES[@]}"; do
		name=${entry%%:*}
		i=$((i + 1))
		want "$name" || continue
		# named on the command line, a suite runs; in the default set only with --full
		if [ ${#SELECTED[@]} -eq 0 ] && [ -z "$full" ] && full_only "$name"; then
			echo "=== $name: not in make check (make check-full runs it)" >&2
			continue
		fi
		printf '%d\t%d\t%s\n' "${EST_S[$name]:-60}" "$i" "$name"
	done | sort -t$'\t' -k1,1nr -k2,2n)
declare -A CMD_OF=()
for entry in "${SUITES[@]}"; do
	CMD_OF[${entry%%:*}]=${entry#*:}
done

# an interrupted run stops its suites (each is a process group of its own)
stop_suites() {
	local p
	for p in "${PID_OF[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	exit 130
}
trap stop_suites INT TERM

class_busy() {	# class_busy CLASS: a running suite has it
	local r
	for r in "${!PID_OF[@]}"; do
		[ "$(suite_class "$r")" = "$1" ] && return 0
	done
	return 1
}

over_limit=
while [ ${#queue[@]} -gt 0 ] || [ ${#PID_OF[@]} -gt 0 ]; do
	# start what fits: the first queued suite whose class is free
	while [ ${#PID_OF[@]} -lt "$JOBS" ] && [ ${#queue[@]} -gt 0 ]; do
		pick=-1
		for i in "${!queue[@]}"; do
			class_busy "$(suite_class "${queue[$i]}")" || { pick=$i; break; }
		done
		[ "$pick" -ge 0 ] || break
		name=${queue[$pick]}
		unset "queue[$pick]"
		queue=("${queue[@]}")
		if [ ${#SELECTED[@]} -eq 0 ] && [ -z "$full" ] &&
			[ $(($(date +%s) - T0)) -gt $((LIMIT_MIN * 60)) ]; then
			over_limit+=" $name"
			failed=$((failed + 1))
			echo "  not ok - $name not run: make check passed its ${LIMIT_MIN}-minute limit"
			continue
		fi
		start_suite "$name" "${CMD_OF[$name]}"
	done
	[ ${#PID_OF[@]} -gt 0 ] || continue
	done_pid=
	wait -n -p done_pid "${PID_OF[@]}"
	rc=$?
	# a signal ended the wait, not a suite
	if [ -z "${done_pid:-}" ] || [ -z "${NAME_OF[$done_pid]:-}" ]; then
		continue
	fi
	collect_suite "${NAME_OF[$done_pid]}" "$rc"
done
trap - INT TERM
if [ -n "$over_limit" ]; then
	failures+=("make check took more than ${LIMIT_MIN} minutes (SNODE_CHECK_LIMIT_MIN; budget ${BUDGET_MIN}): not run:$over_limit")
fi

# Guest kernel logs of this run: no oops, BUG, WARNING or lockdep splat, and
# (debug kernel) no KASAN, UBSAN, kmemleak or debugobjects report; what
# counts as one is in log-scan.sh.
. "$TOP/tools/testing/log-scan.sh"
nlogs=0
nbad=0
while IFS= read -r -d '' f; do
	nlogs=$((nlogs + 1))
	n=$(log_scan_reports "$f" | wc -l)
	[ "$n" -eq 0 ] && continue
	nbad=$((nbad + 1))
	failures+=("guest kernel log $f: $(log_scan_brief "$f")")
	# the first report of each log, whole enough to act on
	echo "--- report in $f (first of $n matching lines):"
	log_scan_first "$f" | sed 's/^/  | /'
done < <(find "$TOP/build/vm" -name '*.log' -newer "$STAMP" -print0 2>/dev/null)
if [ "$nbad" -gt 0 ]; then
	failed=$((failed + 1))
	echo "not ok - guest kernel logs clean"
elif [ "$nlogs" -gt 0 ]; then
	passed=$((passed + 1))
	echo "ok - guest kernel logs clean ($nlogs logs)"
fi

# the time table: where make check's minutes go (decision 0023)
now=$(date +%s)
echo
echo "Suite times (seconds, host CPUs busy, tests), longest first:"
printf '  %s\n' "${times[@]}" | sort -k2,2nr
sum=0
for t in "${times[@]}"; do
	read -r _ secs _ <<<"$t"
	sum=$((sum + secs))
done
echo "suites: $sum s of suite time in $((now - SUITES_T0)) s, $JOBS at a time"
# the build's steps of this make check (Makefile: STEP)
if [ -n "${SNODE_CHECK_T0:-}" ] && [ -s "$LOGDIR/build-steps" ]; then
	echo "Build steps (seconds, CPU seconds):"
	awk -v t0="$T0" '$1 >= t0 { printf "  %-18s %5d s %5d s CPU\n", $2, $3, $4 }' "$LOGDIR/build-steps"
fi
echo "build $((SUITES_T0 - T0)) s + suites $((now - SUITES_T0)) s = $((now - T0)) s ($(((now - T0 + 30) / 60)) min)"
if [ ${#SELECTED[@]} -eq 0 ] && [ -z "$full" ]; then
	used=$(((now - T0) * 100 / (BUDGET_MIN * 60)))
	if [ "$used" -gt 100 ]; then
		echo "budget ${BUDGET_MIN} min: ${used} % used, OVER by $((used - 100)) % (limit ${LIMIT_MIN} min)"
	else
		echo "budget ${BUDGET_MIN} min: ${used} % used (limit ${LIMIT_MIN} min)"
	fi
fi
if [ ${#failures[@]} -gt 0 ]; then
	echo
	echo "Failures:"
	printf '  %s\n' "${failures[@]}"
fi
if [ $((passed + failed)) -eq 0 ]; then
	# Nothing ran: an unknown suite name, or a broken suite table.
	failed=1
	echo "not ok - no test ran (suites: ${SELECTED[*]:-all})"
fi
echo "$passed passed, $failed failed, $skipped skipped" | tee "$LOGDIR/summary"
[ "$failed" -eq 0 ]
