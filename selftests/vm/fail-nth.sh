#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fail-nth.sh - the fail-nth sweeps on the debug kernel: of the snode ioctls
# (selftests/fail_nth_test.c, suite fail-nth-debug) or of the driver's probe
# (selftests/probe_nth_test.c, suite probe-nth-debug, every 8th fault point:
# about 150 s on an idle machine, an hour for all of them).
#
# Usage: selftests/vm/fail-nth.sh debug [ioctls|probe]
#
# Boots one VM with one NIC on a fabric (snode-vm up --nodes 1) under the
# debug kernel, loads snode.ko, runs fail_nth_test of the kselftest
# collection through run_kselftest.sh (each operation, each fault: one test
# here; or probe_nth_test, one test), then unloads the module and takes the VM down,
# which scans for leaks (kmemleak) first. Every check prints one TAP line;
# the exit status is 1 if any failed. On a kernel without fault injection
# the test binary reports SKIP, so only the debug kernel is accepted.
#
# Needs: make all modules-debug selftests (and the debug kernel).

set -u

. "$(dirname "$0")/lib.sh"
case "${2:-ioctls}" in
ioctls) vm_suite fail-nth debug "${1:-}" "[ioctls|probe]" ;;
probe) vm_suite probe-nth debug "${1:-}" "[ioctls|probe]" ;;
*) echo "usage: $0 debug [ioctls|probe]" >&2; exit 2 ;;
esac
DOWN_TAP="kmemleak clean"

require
vm_up "--nodes 1" --nodes 1 || finish

gexec 0 "insmod /lib/snode/snode.ko" >"$LOG/insmod" 2>&1
check "$KERNEL: insmod snode.ko" [ $? -eq 0 ]

# Each kselftest case is one test here.
if [ "${2:-ioctls}" = probe ]; then
	ksft_run "$KERNEL: probe_nth_test" 0 1800 probe_nth_test PROBE_NTH_STRIDE=8
else
	ksft_run "$KERNEL: fail_nth_test" 0 2940 fail_nth_test
fi

# Nothing the sweep did may keep the module from going away.
gexec 0 "rmmod snode && ! grep -qw snode /proc/modules" >>"$LOG/insmod" 2>&1
check "$KERNEL: rmmod snode after the sweep" [ $? -eq 0 ]

finish
