#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ksft-host.sh - host test of the kselftest plumbing, no VM: the installed
# collection's layout (make kselftest-install), run_kselftest.sh's verdicts,
# output and exit status under every shell it must run in (sh, and busybox
# sh as in the guests), and lib.sh's ksft_report, which turns that output
# into the VM suites' TAP lines.
#
# Usage: selftests/ksft-host.sh      Prints TAP; exit status 1 if any failed.

set -u

. "$(dirname "$0")/vm/lib.sh"
KERNEL=host
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LOG=$WORK

# --- make kselftest-install ------------------------------------------------------
INST=$WORK/inst
make -s -C "$TOP" kselftest-install INSTALL_PATH="$INST" >"$WORK/install.log" 2>&1
check "kselftest-install: make kselftest-install INSTALL_PATH=DIR" [ $? -eq 0 ]
want_list=$(printf 'snode:%s\n' core_test dma_test fail_nth_test lifetime_test \
	mem_test msg_test netlink_test probe_nth_test)
check "kselftest-install: kselftest-list.txt lists the eight tests" \
	[ "$(cat "$INST/kselftest-list.txt" 2>/dev/null)" = "$want_list" ]
missing=
for f in run_kselftest.sh snode/config snode/settings snode/campaign_traffic \
	snode/link_stream snode/mem_peer ${want_list//snode:/snode/}; do
	[ -e "$INST/$f" ] || missing="$missing $f"
done
check "kselftest-install: runner, tests, helpers, config and settings installed${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
check "kselftest-install: run_kselftest.sh -l prints the list" \
	[ "$("$INST/run_kselftest.sh" -l)" = "$want_list" ]

# The Debian package builds the collection against the harness of its
# release's linux-source (debian/rules): 6.1's on bookworm, as the tree
# does, 6.12's on trixie, whose test record differs (snode_test.h).
H612=$TOP/build/linux-source-6.12/tools/testing/selftests
if [ -f "$H612/kselftest_harness.h" ]; then
	make -s -C "$TOP" kselftest-install BUILD="$WORK/build-6.12" KSELFTEST_DIR="$H612" \
		LINUX_SOURCE_STAMP_6_1="$H612/kselftest_harness.h" \
		INSTALL_PATH="$WORK/inst-6.12" >"$WORK/install-6.12.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || grep -E 'error|warning' "$WORK/install-6.12.log" | head -n 20 | sed 's/^/# /'
	check "kselftest-install: the collection builds against 6.12's harness (trixie's linux-source)" \
		test $rc -eq 0 -a -x "$WORK/inst-6.12/snode/fail_nth_test"
else
	skip "kselftest-install: the collection builds against 6.12's harness" "no $H612/kselftest_harness.h (make linux-source)"
fi

# --- run_kselftest.sh on a collection of fake tests ----------------------------------
F=$WORK/fake
mkdir -p "$F/snode"
cp "$TOP/selftests/run_kselftest.sh" "$F/"
printf 'snode:%s\n' pass fail skip slow harn >"$F/kselftest-list.txt"
printf '# a comment\ntimeout=2\n' >"$F/snode/settings"
printf '#!/bin/sh\necho "args: $*"\necho to-stderr >&2\n' >"$F/snode/pass"
printf '#!/bin/sh\nexit 3\n' >"$F/snode/fail"
printf '#!/bin/sh\nexit 4\n' >"$F/snode/skip"
printf '#!/bin/sh\nexec sleep 20\n' >"$F/snode/slow"
cat >"$F/snode/harn" <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..3"
echo "#  RUN           f.one ..."
echo "ok 1 f.one"
echo "#  RUN           f.two ..."
echo "ok 2 # SKIP no thing"
echo "#  RUN           f.three ..."
[ -z "${CRASH:-}" ] || kill -SEGV $$
if [ -n "${FAIL:-}" ]; then echo "not ok 3 f.three"; exit 1; fi
echo "ok 3 f.three"
EOF
chmod +x "$F"/snode/*

shells=(sh)
if command -v busybox >/dev/null; then
	shells+=("busybox sh")
else
	skip "run_kselftest.sh under busybox sh" "no busybox on this host"
fi
for shell in "${shells[@]}"; do
	out=$(KSELFTEST_PASS_ARGS="a b" $shell "$F/run_kselftest.sh" 2>&1)
	rc=$?
	echo "$out" >"$WORK/out"
	check "$shell: header and plan" grep -qx '1..5' "$WORK/out"
	check "$shell: exit 0 -> ok, output indented, KSELFTEST_PASS_ARGS passed" \
		bash -c 'grep -qx "ok 1 selftests: snode: pass" "$1" &&
			grep -qx "# args: a b" "$1" && grep -qx "# to-stderr" "$1"' _ "$WORK/out"
	check "$shell: exit 3 -> not ok, exit=3" grep -qx 'not ok 2 selftests: snode: fail # exit=3' "$WORK/out"
	check "$shell: exit 4 -> ok, marked SKIP" grep -qx 'ok 3 selftests: snode: skip # SKIP' "$WORK/out"
	check "$shell: settings timeout=2 -> not ok, TIMEOUT 2 seconds" \
		grep -qx 'not ok 4 selftests: snode: slow # TIMEOUT 2 seconds' "$WORK/out"
	check "$shell: totals line" grep -qx '# Totals: pass:2 fail:2 xfail:0 xpass:0 skip:1 error:0' "$WORK/out"
	check "$shell: exit status 1 when a test failed" [ "$rc" -eq 1 ]
	$shell "$F/run_kselftest.sh" -f -S snode:slow >/dev/null 2>&1
	check "$shell: -f: exit status 0 despite a failure" [ $? -eq 0 ]
	$shell "$F/run_kselftest.sh" -t snode:pass -t snode:skip >"$WORK/out" 2>&1
	rc=$?
	check "$shell: -t runs only the named tests, exit 0" \
		bash -c '[ "$2" -eq 0 ] && [ "$(grep -c "^ok" "$1")" -eq 2 ]' _ "$WORK/out" "$rc"
	$shell "$F/run_kselftest.sh" -t snode:nope >/dev/null 2>&1
	check "$shell: -t of an unknown test: exit 1" [ $? -eq 1 ]
	$shell "$F/run_kselftest.sh" -t snode:slow -o 1 >"$WORK/out" 2>&1
	check "$shell: -o 1 overrides the settings timeout" grep -q 'TIMEOUT 1 seconds' "$WORK/out"
done

# --- ksft_report: the runner's output as the suites' TAP lines ------------------------
# report VARS... : the output of ksft_report for harn run with VARS
report() {
	(
		n=0 failed=0
		env "$@" sh "$F/run_kselftest.sh" -t snode:harn >"$WORK/harn.tap" 2>&1
		ksft_report "r: harn" "$WORK/harn.tap" $?
	) | sed -E 's/^(not )?ok [0-9]+ - //; s/ \(see [^)]*\)//; s/; see [^)]*\)/)/'
}
out=$(report)
check "ksft_report: one line per case, named from RUN, skip kept" \
	[ "$out" = "$(printf 'r: harn f.one\nr: harn f.two # SKIP no thing\nr: harn f.three')" ]
out=$(report FAIL=1)
check "ksft_report: a failed case is a failure and the only one" \
	[ "$out" = "$(printf 'r: harn f.one\nr: harn f.two # SKIP no thing\nr: harn f.three')" ]
out=$( (n=0 failed=0; FAIL=1 sh "$F/run_kselftest.sh" -t snode:harn >"$WORK/harn.tap" 2>&1
	ksft_report "r: harn" "$WORK/harn.tap" $?) | grep -c '^not ok')
check "ksft_report: ... reported as not ok ($out)" [ "$out" = 1 ]
out=$( (n=0 failed=0; CRASH=1 sh "$F/run_kselftest.sh" -t snode:harn >"$WORK/harn.tap" 2>&1
	ksft_report "r: harn" "$WORK/harn.tap" $?) | grep '^not ok')
check "ksft_report: a test that crashes before its last result is a failure" \
	grep -q 'r: harn ran (status 1, runner: not ok 1 selftests: snode: harn # exit=139' <<<"$out"
: >"$WORK/harn.tap"
out=$( (n=0 failed=0; ksft_report "r: harn" "$WORK/harn.tap" 255) | grep -c '^not ok')
check "ksft_report: no output at all is a failure" [ "$out" = 1 ]
printf '# selftests: snode: t\n# TAP version 13\n# 1..0 # SKIP no device\nok 1 selftests: snode: t # SKIP\n' >"$WORK/harn.tap"
out=$( (n=0 failed=0; ksft_report "r: t" "$WORK/harn.tap" 0) )
check "ksft_report: a test that skips as a whole is one skip" \
	[ "$out" = "ok 1 - r: t # SKIP no device" ]

plan_exit
