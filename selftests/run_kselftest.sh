#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run_kselftest.sh - run the installed snode kselftest collection.
#
# Installed by "make kselftest-install INSTALL_PATH=DIR" next to
# kselftest-list.txt and the collection's directory (DIR/snode/). It takes
# the options of the kernel's tools/testing/selftests/run_kselftest.sh and
# behaves as it does: one "COLLECTION:TEST" a line in kselftest-list.txt;
# each test runs in its collection's directory with the timeout of that
# directory's "settings" file (default 45 s) and the arguments in
# $KSELFTEST_<TEST>_ARGS (TEST upper-cased, other characters as "_"); its
# output is indented by "# " under a "# selftests: COLLECTION: TEST" line
# and followed by the verdict:
#   ok N selftests: C: T                 exit 0
#   ok N selftests: C: T # SKIP          exit 4 (KSFT_SKIP)
#   not ok N selftests: C: T # TIMEOUT S seconds
#   not ok N selftests: C: T # exit=RC
# then "# Totals: ...". Exit status 1 if a test failed (unless -f), else 0.
# POSIX sh: it runs under busybox in the emulated nodes.

BASE_DIR=$(cd "$(dirname "$0")" && pwd -P)
LIST=$BASE_DIR/kselftest-list.txt
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
default_timeout=45

usage() {
	cat <<EOF
Usage: $0 [OPTIONS]
  -s | --summary		Print summary with detailed log in output.log (conflict with -p)
  -p | --per-test-log		Print test log in /tmp with each test name (conflict with -s)
  -t | --test COLLECTION:TEST	Run TEST from COLLECTION
  -S | --skip COLLECTION:TEST	Skip TEST from COLLECTION
  -c | --collection COLLECTION	Run all tests from COLLECTION
  -l | --list			List the available collection:test entries
  -d | --dry-run		Don't actually run any tests
  -f | --no-error-on-fail	Don't exit with an error just because tests failed
  -n | --netns			Run each test in namespace
  -h | --help			Show this usage info
  -o | --override-timeout	Number of seconds after which we timeout
EOF
	exit "$1"
}

if [ -r "$LIST" ]; then
	available=$(cat "$LIST")
else
	echo "$0: Could not find list of tests to run ($LIST)" >&2
	available=
fi

tests=
skips=
collections=
dryrun=
error_on_fail=1
netns=
override=
summary=
per_test=
while [ $# -gt 0 ]; do
	case "$1" in
	-s | --summary) summary=1; shift ;;
	-p | --per-test-log) per_test=1; shift ;;
	-t | --test) [ $# -ge 2 ] || usage 1; tests="$tests $2"; shift 2 ;;
	-S | --skip) [ $# -ge 2 ] || usage 1; skips="$skips $2"; shift 2 ;;
	-c | --collection) [ $# -ge 2 ] || usage 1; collections="$collections $2"; shift 2 ;;
	-l | --list) [ -z "$available" ] || echo "$available"; exit 0 ;;
	-d | --dry-run) dryrun=1; shift ;;
	-f | --no-error-on-fail) error_on_fail=; shift ;;
	-n | --netns) netns=1; shift ;;
	-o | --override-timeout) [ $# -ge 2 ] || usage 1; override=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	*) usage 1 ;;
	esac
done
if [ -n "$summary" ] && [ -n "$per_test" ]; then
	usage 1
fi
case "$override" in
*[!0-9]*) echo "$0: --override-timeout takes seconds" >&2; exit 1 ;;
esac

# The selection: the named collections' tests and the named tests, or all;
# less the skipped ones.
for c in $collections; do
	found=$(echo "$available" | grep "^$c:")
	if [ -z "$found" ]; then
		echo "No such collection '$c'" >&2
		exit 1
	fi
	tests="$tests $found"
done
if [ -n "$tests" ]; then
	for t in $tests; do
		if ! echo "$available" | grep -Fqx "$t"; then
			echo "No such test '$t'" >&2
			exit 1
		fi
	done
	# shellcheck disable=SC2086
	available=$(printf '%s\n' $tests)
fi
for s in $skips; do
	available=$(echo "$available" | grep -Fvx "$s")
done

# Where the tests' own output goes: fd 4.
if [ -n "$summary" ]; then
	: >"$BASE_DIR/output.log"
	exec 4>>"$BASE_DIR/output.log"
else
	exec 4>&1
fi

npass=0
nfail=0
nskip=0

# run_one COLLECTION TEST NUM
run_one() {
	col=$1
	test=$2
	num=$3
	hdr="selftests: $col: $test"

	timeout=$default_timeout
	if [ -r "$BASE_DIR/$col/settings" ]; then
		while IFS='=' read -r key value; do
			case "$key" in
			timeout) timeout=$value ;;
			esac
		done <"$BASE_DIR/$col/settings"
	fi
	[ -z "$override" ] || timeout=$override
	argsvar=KSELFTEST_$(printf '%s' "$test" | tr -c '[:alnum:]_' '_' |
		tr '[:lower:]' '[:upper:]')_ARGS
	args=
	eval "args=\${$argsvar:-}"

	echo "# $hdr"
	if [ ! -e "$BASE_DIR/$col/$test" ]; then
		echo "# Warning: file $test is missing!"
		echo "not ok $num $hdr"
		nfail=$((nfail + 1))
		return
	fi
	if [ ! -x "$BASE_DIR/$col/$test" ]; then
		echo "# Warning: file $test is not executable"
		echo "not ok $num $hdr"
		nfail=$((nfail + 1))
		return
	fi
	if [ -n "$dryrun" ]; then
		echo "# dry run: cd $col && timeout $timeout ./$test $args"
		echo "ok $num $hdr # SKIP dry run"
		nskip=$((nskip + 1))
		return
	fi
	if [ -n "$per_test" ]; then
		: >"/tmp/$test"
		exec 4>>"/tmp/$test"
	fi
	wrap=
	command -v timeout >/dev/null 2>&1 && wrap="timeout $timeout"
	[ -z "$netns" ] || wrap="unshare -n $wrap"
	[ ! -w /dev/kmsg ] || echo "kselftest: Running tests in $col: $test" >/dev/kmsg
	start=$(date +%s)
	# the test's status leaves through fd 3, its output through sed
	# shellcheck disable=SC2086
	rc=$( { { (cd "$BASE_DIR/$col" && exec $wrap "./$test" $args) 2>&1
		echo $? >&3; } | sed -e 's/^/# /' >&4; } 3>&1)
	took=$(($(date +%s) - start))

	if [ "$rc" -eq "$KSFT_PASS" ]; then
		echo "ok $num $hdr"
		npass=$((npass + 1))
	elif [ "$rc" -eq "$KSFT_SKIP" ]; then
		echo "ok $num $hdr # SKIP"
		nskip=$((nskip + 1))
	elif [ -n "$wrap" ] && { [ "$rc" -eq 124 ] ||
		{ [ "$took" -ge "$timeout" ] && [ "$rc" -gt 128 ]; }; }; then
		# GNU timeout exits 124; busybox's leaves the killed test's status
		echo "#"
		echo "not ok $num $hdr # TIMEOUT $timeout seconds"
		nfail=$((nfail + 1))
	else
		echo "not ok $num $hdr # exit=$rc"
		nfail=$((nfail + 1))
	fi
	[ -z "$per_test" ] || exec 4>&1
}

total=$(echo "$available" | grep -c .)
echo "TAP version 13"
echo "1..$total"
num=0
for entry in $available; do
	num=$((num + 1))
	run_one "${entry%%:*}" "${entry#*:}" "$num"
done
echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"

if [ -n "$error_on_fail" ] && [ "$nfail" -ne 0 ]; then
	exit "$KSFT_FAIL"
fi
exit "$KSFT_PASS"
