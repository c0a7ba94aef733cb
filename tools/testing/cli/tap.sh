# SPDX-License-Identifier: GPL-2.0-or-later
#
# tap.sh - the TAP helpers of the cli-unit scripts (cli.sh, grammar.sh),
# sourced by them. A check that runs a command through run() shows the
# command's status and output ($rc, $out, $err) when it fails.

n=0
failed=0
ok() {		# ok NAME COMMAND...: one test, passes if the command does
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "#   rc=${rc:-} stdout: $(head -c 300 <<<"${out:-}" | tr '\n' '|')"
		echo "#   stderr: $(head -c 300 <<<"${err:-}" | tr '\n' '|')"
		failed=$((failed + 1))
	fi
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}
