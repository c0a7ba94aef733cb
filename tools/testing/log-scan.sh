# SPDX-License-Identifier: GPL-2.0-or-later
#
# log-scan.sh - what counts as a kernel report in a guest console log
# (sourced by run-all.sh; tested by log-scan-test.sh).
#
# A report is an oops, BUG, WARNING, lockdep splat, a stack trace, or the
# debug kernel's KASAN, UBSAN, kmemleak or debugobjects report. KASAN says
# "BUG: KASAN:", DEBUG_LIST/refcount/lockdep say "WARNING:", kmemleak
# reports are copied to the console by snode-kmemleak (guest-init).
#
# One exception: a fault sweep that makes allocations fail on purpose
# (selftests/probe_nth_test.c) writes "snode fault sweep: begin" and
# "snode fault sweep: end" to /dev/kmsg around its faults. Between the two,
# the allocator's own warning about a failed allocation (warn_alloc():
# "vmalloc error:" or "page allocation failure:", its stack up to
# "</TASK>", at most LOG_SCAN_SKIP lines) is the expected consequence of
# the injected fault, not a report. Everything else in the sweep, a KASAN
# or kmemleak report, a WARNING, a stack of any other kind, still counts.

LOG_SCAN_SPLAT='Oops|BUG:|WARNING:|Kernel panic|possible circular locking|possible recursive locking|INFO: possible|inconsistent lock state|general protection fault|Call Trace:|UBSAN:|KASAN:|unreferenced object|ODEBUG:|kernel BUG at'
LOG_SCAN_SKIP=${LOG_SCAN_SKIP:-100}

# log_scan_filter FILE: FILE without the allocation warnings of fault sweeps
log_scan_filter() {
	awk -v max="$LOG_SCAN_SKIP" '
	/snode fault sweep: begin/ { sweep = 1 }
	/snode fault sweep: end/ { sweep = 0 }
	sweep && /vmalloc error:|page allocation failure:/ { skip = max; next }
	skip > 0 { skip--; if (/<\/TASK>/) skip = 0; next }
	{ print }
	' "$1"
}

# log_scan_reports FILE: the lines of FILE that are (part of) a report
log_scan_reports() {
	log_scan_filter "$1" | grep -a -E -- "$LOG_SCAN_SPLAT"
}

# log_scan_first FILE: the first report of FILE with 30 lines after it
log_scan_first() {
	log_scan_filter "$1" | grep -a -E -m1 -A 30 -- "$LOG_SCAN_SPLAT"
}

# log_scan_brief FILE: the first report of FILE in one line: its first line,
# the RIP line and the functions of its stack trace ("a < b < c"), so that
# the failure list at the end of make check, which is what a CI excerpt
# keeps, says where the kernel was.
log_scan_brief() {
	log_scan_filter "$1" | grep -a -E -m1 -A 60 -- "$LOG_SCAN_SPLAT" | awk '
	NR == 1 { sub(/^\[ *[0-9.]+\] */, ""); head = $0; next }
	/RIP: [0-9]+:/ && !rip { rip = $0; sub(/.*RIP: [0-9]+:/, "", rip); sub(/ .*/, "", rip) }
	/<\/TASK>|<\/IRQ>|---\[ end/ { if (nf) exit }
	/^\[ *[0-9.]+\]  +[? ]*[A-Za-z_][A-Za-z0-9_.]*\+0x/ {
		f = $0; sub(/^\[ *[0-9.]+\] +/, "", f); sub(/ .*/, "", f)
		if (f == "?") next
		sub(/\/0x.*/, "", f)
		trace = trace (nf++ ? " < " : "") f
		if (nf >= 12) exit
	}
	END {
		line = head
		if (rip != "") line = line "; RIP " rip
		if (trace != "") line = line "; " trace
		print line
	}'
}
