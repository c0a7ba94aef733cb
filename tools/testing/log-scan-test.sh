#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# log-scan-test.sh - host tests of log-scan.sh, the guest console log
# scanner of run-all.sh: console excerpts in the shape the 6.12 kernel
# prints them, each with the number of report lines it must yield. TAP.

set -u
shopt -s lastpipe	# expect counts in this shell, at the end of a pipe
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tools/testing/log-scan.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0
failed=0

# expect NAME COUNT: the log on stdin yields COUNT report lines
expect() {
	local got
	cat >"$T/log"
	got=$(log_scan_reports "$T/log" | wc -l)
	n=$((n + 1))
	if [ "$got" -eq "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1 (expected $2 report lines, got $got)"
		log_scan_reports "$T/log" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}

# warn_alloc()'s report, as vmalloc prints it
warn_alloc() {
	cat <<'W'
[   41.1] probe_nth_test: vmalloc error: size 8192, failed to allocated page array size 2, mode:0xdc0(GFP_KERNEL|__GFP_ZERO), nodemask=(null),cpuset=/,mems_allowed=0
[   41.1] CPU: 1 UID: 0 PID: 231 Comm: probe_nth_test Not tainted 6.12.118 #1
[   41.1] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   41.1] Call Trace:
[   41.1]  <TASK>
[   41.1]  dump_stack_lvl+0x5d/0x80
[   41.1]  warn_alloc+0x164/0x1e0
[   41.1]  __vmalloc_node_range_noprof+0x2b1/0x9b0
[   41.1]  gen_pool_add_owner+0x4f/0x130
[   41.1]  snode_mem_init+0x1a2/0x3c0 [snode]
[   41.1]  </TASK>
[   41.1] Mem-Info:
[   41.1] active_anon:1021 inactive_anon:0 isolated_anon:0
W
}

printf '[    1.0] snode 0000:01:00.0: snode0: node 0\n[    2.0] ok\n' |
	expect "a clean log has no report" 0

{ echo "[   40.0] snode fault sweep: begin"; warn_alloc; echo "[   60.0] snode fault sweep: end"; } |
	expect "an allocation warning inside a fault sweep is not a report" 0

warn_alloc | expect "the same warning outside a sweep is one (its stack)" 1

{ echo "[   40.0] snode fault sweep: begin"; warn_alloc; echo "[   60.0] snode fault sweep: end"; warn_alloc; } |
	expect "a warning after the sweep ended counts again" 1

{
	echo "[   40.0] snode fault sweep: begin"
	warn_alloc
	echo "[   42.0] BUG: KASAN: slab-use-after-free in snode_mem_fini+0x31/0x90 [snode]"
	echo "[   42.0] Call Trace:"
	echo "[   60.0] snode fault sweep: end"
} | expect "a KASAN report inside the sweep still counts" 2

{
	echo "[   40.0] snode fault sweep: begin"
	echo "[   41.0] WARNING: CPU: 0 PID: 231 at driver/core.c:99 snode_probe+0x10/0x20 [snode]"
	echo "[   41.0] unreferenced object 0xffff888004a1c000 (size 64):"
} | expect "a WARNING and a kmemleak report inside an unfinished sweep count" 2

{
	echo "[   40.0] snode fault sweep: begin"
	echo "[   41.0] probe_nth_test: page allocation failure: order:0, mode:0x400cc0(GFP_KERNEL_ACCOUNT)"
	for i in $(seq 1 "$LOG_SCAN_SKIP"); do echo "[   41.0]  frame_$i+0x1/0x2"; done
	echo "[   41.0] Call Trace:"
} | expect "a warning without an end of stack hides at most LOG_SCAN_SKIP lines" 1

# brief NAME EXPECTED: log_scan_brief of the log on stdin is EXPECTED
brief() {
	local got
	cat >"$T/log"
	got=$(log_scan_brief "$T/log")
	n=$((n + 1))
	if [ "$got" = "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "#   expected: $2"
		echo "#   got:      $got"
		failed=$((failed + 1))
	fi
}

{
	echo "[   14.0] snode: link 0 up"
	echo "[   14.1] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
	echo "[   14.1] CPU: 1 UID: 0 PID: 231 Comm: core_test Not tainted 6.12.57+deb13-amd64 #1"
	echo "[   14.1] RIP: 0010:snode_admin_exec+0x12/0x40 [snode]"
	echo "[   14.1] Code: 00 00 cc"
	echo "[   14.1] Call Trace:"
	echo "[   14.1]  <TASK>"
	echo "[   14.1]  ? die+0x33/0x90"
	echo "[   14.1]  snode_echo+0x5d/0x80 [snode]"
	echo "[   14.1]  snode_ioctl+0x1d/0x90 [snode]"
	echo "[   14.1]  __x64_sys_ioctl+0x94/0xd0"
	echo "[   14.1]  </TASK>"
	echo "[   14.1]  unrelated+0x1/0x2"
} | brief "an oops in one line: its head, RIP and the functions of its stack" \
	"Oops: int3: 0000 [#1] PREEMPT SMP NOPTI; RIP snode_admin_exec+0x12/0x40; snode_echo+0x5d < snode_ioctl+0x1d < __x64_sys_ioctl+0x94"

echo "[   41.0] WARNING: CPU: 0 PID: 231 at driver/core.c:99 snode_probe+0x10/0x20 [snode]" |
	brief "a report without RIP or stack is its first line" \
	"WARNING: CPU: 0 PID: 231 at driver/core.c:99 snode_probe+0x10/0x20 [snode]"

echo "1..$n"
[ "$failed" -eq 0 ]
