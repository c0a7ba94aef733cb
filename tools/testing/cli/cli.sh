#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# cli.sh - host tests (TAP) of snodectl's and snode-perf's command line and
# of snode-fm ctl's JSON: options, abbreviations, extra arguments, the one
# device syntax, help at every level, -batch, exit statuses, JSON shapes.
# Runs without a VM or a device: libsnode is pointed at a fake sysfs class
# directory (SNODE_SYSFS) and an empty /dev (SNODE_DEVDIR), and the snode
# netlink family is absent on the host, so commands that reach the kernel
# fail the way they do without snode.ko. The fabric manager is the real one.
#
# Usage: BUILD=build bash tools/testing/cli/cli.sh

set -u
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
SNODECTL=$BUILD/tools/snodectl
PERF=$BUILD/tools/snode-perf
FM=$BUILD/tools/snode-fm
MAN8=$TOP/tools/snodectl/snodectl.8
MAN1=$TOP/tools/snode-perf/snode-perf.1

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
		echo "#   rc=$rc stdout: $(head -c 300 <<<"$out" | tr '\n' '|')"
		echo "#   stderr: $(head -c 300 <<<"$err" | tr '\n' '|')"
		failed=$((failed + 1))
	fi
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

TMP=$(mktemp -d)
fm_pid=
cleanup() {
	[ -n "$fm_pid" ] && kill "$fm_pid" 2>/dev/null && wait "$fm_pid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/class/snode0" "$TMP/class/snode1" "$TMP/none" "$TMP/dev"

# run [-n] CMD...: rc, out, err of CMD with two fake devices (-n: none)
run() {
	local class=$TMP/class
	if [ "$1" = -n ]; then
		class=$TMP/none
		shift
	fi
	out=$(SNODE_SYSFS=$class SNODE_DEVDIR=$TMP/dev "$@" 2>"$TMP/err" </dev/null)
	rc=$?
	err=$(cat "$TMP/err")
}
has() { grep -qF -- "$1" <<<"$2"; }
rc_is() { [ "$rc" -eq "$1" ]; }
json_ok() {	# json_ok PYTHON-EXPR: $out parses and d satisfies the expression
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
sys.exit(0 if eval(sys.argv[2]) else 1)' "$out" "$1" 2>/dev/null
}

for b in "$SNODECTL" "$PERF" "$FM"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make snodectl snode-perf fm)"
		exit 1
	fi
done
have_py=1
command -v python3 >/dev/null || have_py=
# Tests that need the kernel to be absent say why they skip if it is not.
no_kernel=1
[ -d /sys/module/snode ] && no_kernel=

# --- options ------------------------------------------------------------------
run "$SNODECTL"
ok "no arguments: usage on stderr, exit 64" eval 'rc_is 64 && has Usage: "$err" && [ -z "$out" ]'
for v in -V -Version --version -v -Ver; do
	run "$SNODECTL" $v
	ok "snodectl $v prints the version" eval 'rc_is 0 && [[ "$out" =~ ^snodectl\ [0-9]+\.[0-9]+ ]]'
done
for h in -h -help --help help hel; do
	run "$SNODECTL" $h
	ok "snodectl $h: usage on stdout, exit 0" eval 'rc_is 0 && has "Usage: snodectl" "$out" && [ -z "$err" ]'
done
# Every option the help lists works, short and long.
run "$SNODECTL" help
opts=$(grep -o -- '-[A-Za-z]\[[a-z]*\]' <<<"$out" | sort -u)
ok "help lists the options (-V -b -f -h -j -p)" eval '[ "$(wc -l <<<"$opts")" -eq 6 ]'
for o in $opts; do
	short=${o%%\[*}
	long=$short${o#*\[}
	long=${long%\]}
	for form in "$short" "$long" "-$long"; do
		case $short in
		-b) run "$SNODECTL" "$form" /dev/null ;;
		-V) run "$SNODECTL" "$form" ;;
		*) run "$SNODECTL" "$form" help ;;
		esac
		ok "option $form works" eval 'rc_is 0 && ! has unknown "$err"'
	done
done
run -n "$SNODECTL" -j link help
ok "-j link help: the usage, no JSON document after it" eval 'rc_is 0 && has Usage: "$out" && ! grep -q "^{" <<<"$out"'
run -n "$SNODECTL" -j help
ok "-j help: no JSON document after the usage" eval 'rc_is 0 && ! grep -q "^{" <<<"$out"'
run "$SNODECTL" -x link
ok "unknown option: exit 64, named" eval 'rc_is 64 && has "\"-x\" is unknown" "$err"'
run "$SNODECTL" --bogus link
ok "unknown long option: exit 64" eval 'rc_is 64'
run "$SNODECTL" -batch
ok "-batch without a file: exit 64" eval 'rc_is 64 && has "needs a value" "$err"'

# --- abbreviations ----------------------------------------------------------------
# iproute2's rule: a prefix of several objects or commands is the first one
# in table order; the wrong device then shows which command ran.
run "$SNODECTL" m list snode9
ok "m is mem, the first of mem, monitor, msg" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
run "$SNODECTL" d show snode9
ok "d is dev, the first of dev, dma" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
run "$SNODECTL" link s snode9 junk
ok "link s is status (no PORT), not show or set" eval 'rc_is 64 && has "unexpected argument \"junk\"" "$err"'
run "$SNODECTL" link t snode9 1 1e-9
ok "link t is threshold: its arguments parse, then no such device" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
run "$SNODECTL" link tr
ok "link tr is trend: it wants a FILE" eval 'rc_is 64 && has "trend" "$err"'
run -n "$SNODECTL" he
ok "he is health (before help): a verdict, not the usage text" eval 'rc_is 3 && has "overall: unknown" "$out" && ! has "Usage:" "$out"'
run "$SNODECTL" link help
ok "link help lists threshold before trend (the order t resolves by)" eval 'rc_is 0 && [ "$(grep -n -e "link threshold" -e "link trend" <<<"$out" | head -1 | grep -c threshold)" = 1 ]'
# bash completion resolves abbreviations as snodectl does
comp() { # comp WORD...: the completions after WORD... and an empty word
	bash -c '. "$1"; shift; COMP_WORDS=("$@" ""); COMP_CWORD=$#; _snodectl_devs() { :; }; _snodectl; printf "%s\n" "${COMPREPLY[@]}"' \
		comp "$TOP/tools/snodectl/snodectl.bash-completion" snodectl "$@"
}
ok "completion: link t DEV PORT offers off (threshold)" eval '[ "$(comp link t snode0 1)" = off ]'
ok "completion: l se DEV PORT offers state, ber-threshold and auto-isolate (set)" eval '[ "$(comp l se snode0 1 | sort | tr "\n" " ")" = "auto-isolate ber-threshold state " ]'
ok "completion: link set DEV PORT auto-isolate offers off, ber, flaps" eval '[ "$(comp link set snode0 1 auto-isolate | sort | tr "\n" " ")" = "ber flaps off " ]'
ok "completion: ... ber BER offers the limit not given yet (flaps)" eval '[ "$(comp link set snode0 1 auto-isolate ber 1e-9)" = flaps ]'
ok "completion: ... flaps offers N/DUR examples" eval 'comp link set snode0 1 auto-isolate flaps | grep -qx 5/60s'
ok "completion: link tr FILE offers trend's options" eval '[ "$(comp link tr x | sort | tr "\n" " ")" = "--max-crc --max-down --max-replays --since -j " ]'
run "$SNODECTL" foo
ok "unknown object: exit 64" eval 'rc_is 64 && has "\"foo\" is unknown" "$err"'
run "$SNODECTL" link foo
ok "unknown command: exit 64, points to link help" eval 'rc_is 64 && has "snodectl link help" "$err"'
run "$SNODECTL" li h
ok "li h is link help" eval 'rc_is 0 && has "Usage: snodectl link status" "$out"'
run "$SNODECTL" l sh help
ok "l sh help is link help" eval 'rc_is 0 && has "Usage: snodectl link" "$out"'
if [ -n "$no_kernel" ]; then
	run "$SNODECTL" link status
	full_rc=$rc full_err=$err
	run "$SNODECTL" l st
	ok "l st runs link status (same result, $rc)" eval '[ "$rc" = "$full_rc" ] && [ "$err" = "$full_err" ] && has "link status:" "$err"'
	run "$SNODECTL" mem list snode0 exports
	full_rc=$rc full_err=$err
	run "$SNODECTL" me l snode0 exp
	ok "me l snode0 exp runs mem list snode0 exports" eval '[ "$rc" = "$full_rc" ] && [ "$err" = "$full_err" ] && rc_is 1'
	run "$SNODECTL" node list
	full_rc=$rc full_err=$err
	run "$SNODECTL" n l
	ok "n l runs node list" eval '[ "$rc" = "$full_rc" ] && [ "$err" = "$full_err" ] && has "node list:" "$err"'
else
	skip "abbreviated commands reach the kernel the same way" "snode.ko is loaded on this host"
fi

# --- extra arguments are rejected before anything runs --------------------------
while IFS= read -r cmd; do
	run -n "$SNODECTL" $cmd
	ok "extra argument rejected: $cmd" eval 'rc_is 64 && [ -z "$out" ] && (has unexpected "$err" || has "unknown argument" "$err")'
done <<'EOF2'
dev show snode0 extra
node list snode0 extra
link status snode0 extra
link show snode0 1 extra
link show snode0/1 extra
link set snode0 1 state up extra
link set snode0 1 auto-isolate off extra
link set snode0 1 auto-isolate ber 1e-9 flaps 5/60s extra
link reset snode0 1 extra
link clear snode0 1 extra
link threshold snode0 1 1e-9 extra
link diag snode0 extra
link diag --record f snode0 extra
link trend f extra
mem list snode0 exports extra
msg list snode0 endpoints extra
msg stats snode0 extra
dma list snode0 extra
dma list snode0 endpoints
health snode0 extra
monitor count 1 extra
help extra
EOF2
run -n "$SNODECTL" dev show snode0 snode1
ok "two devices rejected" eval 'rc_is 64'
run -n "$SNODECTL" link show snode0 300
ok "bad port: exit 64" eval 'rc_is 64 && has "bad port" "$err"'
run -n "$SNODECTL" link set snode0 1 state sideways
ok "bad state: exit 64" eval 'rc_is 64'
run -n "$SNODECTL" link threshold snode0 1 2
ok "BER above 1: exit 64" eval 'rc_is 64 && has "bad BER" "$err"'
while IFS=: read -r args want; do
	run -n "$SNODECTL" link set snode0 1 auto-isolate $args
	ok "link set auto-isolate $args: one-line error, exit 64" eval 'rc_is 64 && [ -z "$out" ] && [ "$(wc -l <<<"$err")" = 1 ] && has "$want" "$err"'
done <<'EOF2'
:wants off, or ber BER and/or flaps N/DUR
flaps:bad flaps ""
flaps 5:bad flaps "5"
flaps 0/60s:bad flaps "0/60s"
flaps 65/60s:bad flaps "65/60s"
flaps 5/2d:bad flaps "5/2d"
ber 2:bad BER "2"
ber 0:wants a rate above 0
ber 1e-9 ber 1e-8:unexpected argument "ber"
EOF2
run -n "$SNODECTL" monitor count x
ok "monitor count x: exit 64" eval 'rc_is 64'

# --- one device syntax ------------------------------------------------------------
while IFS=: read -r cmd want; do
	for form in "snode9" "dev snode9" "/dev/snode9" "9"; do
		run "$SNODECTL" $cmd $form
		ok "$cmd $form: no such device, exit $want" eval 'rc_is $want && has "no device \"" "$err"'
	done
	run "$SNODECTL" $cmd snode1
	ok "$cmd snode1: the device is found" eval '! has "no device" "$err" && ! rc_is 64'
	run "$SNODECTL" $cmd dev
	ok "$cmd dev: needs a name, exit 64" eval 'rc_is 64'
done <<'EOF2'
dev show:1
node list:1
link status:1
link diag:1
mem list:1
msg list:1
msg stats:1
dma list:1
health:3
EOF2
for form in "snode9 1" "snode9/1" "dev snode9 1"; do
	run "$SNODECTL" link show $form
	ok "link show $form: no such device" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
done
run "$SNODECTL" mem list snode0 snode1
ok "mem list with two devices: exit 64" eval 'rc_is 64 && has "more than one device" "$err"'

# --- help at every level --------------------------------------------------------
while read -r obj verbs; do
	run -n "$SNODECTL" $obj help
	ok "$obj help: usage on stdout, exit 0" eval 'rc_is 0 && has "Usage: snodectl" "$out" && has " $obj" "$out" && [ -z "$err" ]'
	for v in $verbs; do
		run -n "$SNODECTL" $obj $v help
		ok "$obj $v help: usage, exit 0" eval 'rc_is 0 && has "Usage: snodectl $obj" "$out" && has " $v" "$out" && [ -z "$err" ]'
	done
done <<'EOF2'
dev show
dma list
health show
link status show set reset clear threshold diag trend
mem list
monitor events
msg list stats
node list
EOF2

# --- -batch -------------------------------------------------------------------------
B=$TMP/batch
printf '# a comment\n\nhelp\nlink status snode9\ndev help\n' >"$B"
run "$SNODECTL" -batch "$B"
ok "batch: stops at the failing line, names FILE:LINE" eval 'rc_is 1 && has "$B:4: no device" "$err" && has "Usage: snodectl [" "$out" && ! has "snodectl dev show" "$out"'
run "$SNODECTL" -force -batch "$B"
ok "batch -force: runs on, exit status of the failure" eval 'rc_is 1 && has "$B:4:" "$err" && has "snodectl dev show" "$out"'
run "$SNODECTL" -f -b "$B"
ok "batch: -f -b abbreviations" eval 'rc_is 1 && has "snodectl dev show" "$out"'
printf 'link foo\nhelp\n' >"$B"
run "$SNODECTL" -batch "$B"
ok "batch: a usage error exits 64 with the line" eval 'rc_is 64 && has "$B:1: link: unknown command" "$err" && [ -z "$out" ]'
printf 'help\nlink "status\n' >"$B"
run "$SNODECTL" -batch "$B"
ok "batch: an unclosed quote is a usage error on its line" eval 'rc_is 64 && has "$B:2:" "$err"'
out=$(printf 'dev help\n' | SNODE_SYSFS=$TMP/none "$SNODECTL" -batch - 2>/dev/null)
rc=$?
err=
ok "batch: - reads stdin" eval 'rc_is 0 && has "snodectl dev show" "$out"'
run "$SNODECTL" -batch "$TMP/missing"
ok "batch: a missing file fails, exit 1" eval 'rc_is 1 && has missing "$err"'
run "$SNODECTL" -batch "$B" link status
ok "batch: a command as well is a usage error" eval 'rc_is 64'
printf 'help\n' >"$B"
run "$SNODECTL" -batch "$B"
ok "batch: all lines fine, exit 0" eval 'rc_is 0'

# --- health: 0 ok / 1 warning / 2 critical / 3 unknown, 64 usage -----------------------
run -n "$SNODECTL" health
ok "health without devices: unknown, exit 3" eval 'rc_is 3 && has "overall: unknown" "$out"'
run -n "$SNODECTL" health bogus
ok "health bogus: usage error, exit 64" eval 'rc_is 64'
if [ -n "$no_kernel" ]; then
	run "$SNODECTL" health
	ok "health of unreadable NICs: unknown, exit 3" eval 'rc_is 3 && has "snode0:" "$out" && has "snode1:" "$out" && has "overall: unknown" "$out"'
	run "$SNODECTL" health snode1
	ok "health snode1: only that NIC" eval 'rc_is 3 && has "snode1:" "$out" && ! has "snode0:" "$out"'
	if [ -n "$have_py" ]; then
		run "$SNODECTL" -j health
		ok "-j health: JSON devices[{dev, verdict}], verdict" json_ok \
			'd["verdict"] == "unknown" and [x["dev"] for x in d["devices"]] == ["snode0", "snode1"] and all(x["verdict"] == "unknown" for x in d["devices"])'
		one=$out
		run "$SNODECTL" -j -p health
		ok "-j -p health: indented, the same document" eval '[ "$(wc -l <<<"$out")" -gt 3 ] && python3 -c "import json,sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))" "$out" "$one"'
	else
		skip "-j health JSON shape" "python3 not installed"
		skip "-j -p health" "python3 not installed"
	fi
	run "$SNODECTL" -j link status
	ok "-j on a failed command: nothing on stdout" eval 'rc_is 1 && [ -z "$out" ]'
else
	for t in "health unknown" "health snode1" "-j health" "-j -p health" "-j failed"; do
		skip "$t" "snode.ko is loaded on this host"
	done
fi
if [ -n "$have_py" ]; then
	run -n "$SNODECTL" -j health
	ok "-j health without devices: empty devices, unknown" json_ok 'd == {"devices": [], "common_causes": [], "verdict": "unknown"}'
	printf 'health\nhealth\n' >"$B"
	run -n "$SNODECTL" -j -force -batch "$B"
	ok "-j -batch: one JSON document per command" eval 'rc_is 3 && [ "$(wc -l <<<"$out")" -eq 2 ] && while read -r l; do python3 -c "import json,sys; json.loads(sys.argv[1])" "$l" || exit 1; done <<<"$out"'
else
	skip "-j health without devices" "python3 not installed"
	skip "-j -batch" "python3 not installed"
fi

# --- link diag --record and link trend ---------------------------------------------
# diag needs the netlink family, absent here: its arguments and its failure
# are tested; trend reads crafted record files (the unit tests hold what
# diag writes and what trend reads together).
R=$TMP/rec.jsonl
run -n "$SNODECTL" link diag --record
ok "link diag --record without a file: exit 64" eval 'rc_is 64 && has "needs a value" "$err"'
run -n "$SNODECTL" link diag --record "$R" --record "$R"
ok "link diag --record twice: exit 64" eval 'rc_is 64 && has "given twice" "$err"'
run -n "$SNODECTL" link diag --bogus
ok "link diag --bogus: exit 64" eval 'rc_is 64 && has "\"--bogus\" is unknown" "$err"'
run -n "$SNODECTL" link diag --record "$R" snode9
ok "link diag --record FILE snode9: no such device, no file" eval 'rc_is 1 && has "no device" "$err" && [ ! -e "$R" ]'
if [ -n "$no_kernel" ]; then
	run "$SNODECTL" link diag --record "$R"
	ok "link diag --record without snode.ko: exit 1, says so, no file" eval 'rc_is 1 && has "link diag:" "$err" && [ ! -e "$R" ]'
else
	skip "link diag --record without snode.ko" "snode.ko is loaded on this host"
fi

# lnk DEV PORT CRC REPLAYS DOWN BER_E18 THRESHOLD_E18: one link of a record
lnk() {
	printf '{"dev":"%s","port":%s,"admin":"up","oper":"up","lanes":4,"max_lanes":4,"speed":25,"crc_errors":%s,"replays":%s,"recoveries":0,"down_events":%s,"tx_bytes":0,"rx_bytes":0,"ber":0,"ber_e18":%s,"ber_threshold":0,"ber_threshold_e18":%s,"ber_alarm":false,"counters_age":null}' "$@"
}
# rec UNIX HOST LINK...: one record line
rec() {
	local t=$1 h=$2 l
	shift 2
	l=$(IFS=,; echo "$*")
	printf '{"version":1,"time":"%s","unix":%s,"host":"%s","links":[%s]}\n' \
		"$(date -u -d "@$t" +%Y-%m-%dT%H:%M:%SZ)" "$t" "$h" "$l"
}
W=604800
t0=1793491200
{
	# snode0/0 quiet; snode0/1: 7 crc errors in the first week, 93 in the
	# second (rising); snode1/0 cleared in between, BER 2e-12 over its
	# 1e-12 threshold at the end (past-threshold)
	rec $t0 a "$(lnk snode0 0 0 0 0 0 0)" "$(lnk snode0 1 0 0 0 0 0)" "$(lnk snode1 0 50 50 0 0 1000000)"
	rec $((t0 + W)) a "$(lnk snode0 0 0 0 0 0 0)" "$(lnk snode0 1 7 7 0 1000 0)" "$(lnk snode1 0 60 60 0 0 1000000)"
	rec $((t0 + 2 * W)) a "$(lnk snode0 0 0 0 0 0 0)" "$(lnk snode0 1 100 100 1 3000 0)" "$(lnk snode1 0 4 4 0 2000000 1000000)"
} >"$R"
run -n "$SNODECTL" link trend "$R"
ok "link trend: a line per link, flagged ones marked, exit 1" eval 'rc_is 1 && [ "$(grep -c "^a snode" <<<"$out")" -eq 3 ] && has "2 of 3 links flagged" "$out"'
ok "link trend: snode0/1 is rising in crc_errors" eval 'grep "^a snode0/1:" <<<"$out" | grep -q "rising crc_errors replays"'
ok "link trend: snode1/0 is past its BER threshold" eval 'grep "^a snode1/0:" <<<"$out" | grep -q "past-threshold ber"'
ok "link trend: snode0/0 is not flagged, 3 samples over 14 days" eval 'grep "^a snode0/0:" <<<"$out" | grep -q "samples 3 window 14.0d$"'
if [ -n "$have_py" ]; then
	run -n "$SNODECTL" -j link trend "$R"
	ok "-j link trend: links[{host, dev, port, rates, slope, flags}], since, flagged" json_ok \
		'set(d) == {"links", "since", "flagged"} and d["since"] is None and d["flagged"] == 2 and [(x["dev"], x["port"]) for x in d["links"]] == [("snode0", 0), ("snode0", 1), ("snode1", 0)] and all(set(x) == {"host", "dev", "port", "crc_errors_per_hour", "replays_per_hour", "down_events_per_day", "ber", "ber_threshold", "ber_slope_per_day", "samples", "first", "last", "window", "rising", "past_threshold", "flagged"} for x in d["links"])'
	ok "-j link trend: counter reset counted from 0 (10 + 0 + 4 crc in 14 days)" json_ok \
		'abs(d["links"][2]["crc_errors_per_hour"] - 14 / (14 * 24)) < 1e-12 and d["links"][2]["past_threshold"] == ["ber"] and d["links"][2]["ber"] == 2e-12'
	ok "-j link trend: rising and slope of snode0/1" json_ok \
		'd["links"][1]["rising"] == ["crc_errors", "replays"] and d["links"][1]["ber_slope_per_day"] > 0 and d["links"][1]["window"] == 1209600 and d["links"][1]["flagged"] is True'
	run -n "$SNODECTL" link trend "$R" -j --since 8d
	ok "link trend FILE -j --since 8d: the last two records, -j after the command" json_ok \
		'd["since"] == 691200 and all(x["samples"] == 2 and x["rising"] == [] for x in d["links"])'
else
	for t in "-j link trend" "-j reset" "-j rising" "-j --since"; do skip "$t" "python3 not installed"; done
fi
run -n "$SNODECTL" link trend "$R" --since 1d
ok "link trend --since 1d: one sample a link, no rates, only the BER judged" eval 'rc_is 1 && has "crc - replays - down -" "$out" && has "1 of 3 links flagged" "$out"'
run -n "$SNODECTL" link trend "$R" --max-crc 1000 --max-replays 1000 --since 8d
ok "link trend --max-crc N: the limits are options" eval 'rc_is 1 && has "1 of 3 links flagged" "$out"'
run -n "$SNODECTL" link trend "$R" --max-crc 0.001 --since 8d
ok "link trend --max-crc 0.001: past-threshold crc_errors" eval 'rc_is 1 && grep "^a snode0/1:" <<<"$out" | grep -q "past-threshold crc_errors"'
head -1 "$R" | sed 's/,{"dev":"snode0","port":1[^}]*}//; s/,{"dev":"snode1[^}]*}//' >"$TMP/quiet.jsonl"
rec $((t0 + W)) a "$(lnk snode0 0 0 0 0 0 0)" >>"$TMP/quiet.jsonl"
run -n "$SNODECTL" link trend "$TMP/quiet.jsonl"
ok "link trend: nothing flagged, exit 0" eval 'rc_is 0 && has "0 of 1 links flagged" "$out"'
{ cat "$TMP/quiet.jsonl"; rec $t0 b "$(lnk snode0 0 0 0 0 0 0)"; } >"$TMP/merged.jsonl"
run -n "$SNODECTL" link trend "$TMP/merged.jsonl"
ok "link trend: the same link of two hosts is two links" eval 'rc_is 0 && has "a snode0/0:" "$out" && has "b snode0/0:" "$out"'
out=$(SNODE_SYSFS=$TMP/none "$SNODECTL" link trend - <"$TMP/merged.jsonl" 2>"$TMP/err")
rc=$? err=$(cat "$TMP/err")
ok "link trend -: reads standard input" eval 'rc_is 0 && has "b snode0/0:" "$out" && [ -z "$err" ]'

# bad input: FILE:LINE and exit 64
while IFS='|' read -r what line msg; do
	{ head -1 "$TMP/quiet.jsonl"; printf '%s\n' "$line"; } >"$TMP/bad.jsonl"
	run -n "$SNODECTL" link trend "$TMP/bad.jsonl"
	ok "link trend: $what: exit 64, \"$msg\"" eval 'rc_is 64 && [ "$err" = "snodectl: $TMP/bad.jsonl:2: $msg" ] && [ -z "$out" ]'
done <<EOF2
not JSON|garbage|not a JSON object (unexpected character)
a cut-short line|{"version":1,"unix":|the JSON object is cut short (a partial write?)
an empty line||an empty line (one record a line)
two records on a line|{"version":1,"unix":1,"host":"a","links":[]} {}|text after the JSON object at column 46
not an object|[1]|not a JSON object
no version|{"unix":1}|no format "version" (not a snodectl link diag record?)
version 2|{"version":2,"unix":1}|format version 2 is unknown (this snodectl reads version 1)
no unix time|{"version":1,"unix":"x"}|"unix" missing or not a whole number
no links|{"version":1,"unix":$((t0 + 1)),"host":"a"}|"links" missing or not an array
a negative counter|$(rec $((t0 + 1)) a "$(lnk snode0 0 -1 0 0 0 0)")|link 0: "crc_errors" missing or not a whole number >= 0
a bad port|$(rec $((t0 + 1)) a "$(lnk snode0 256 0 0 0 0 0)")|link 0: port 256 is not 0..255
the same time again|$(rec $t0 a "$(lnk snode0 0 0 0 0 0 0)")|time $t0 of a snode0/0 is not after line 1's ($t0)
time going back|$(rec $((t0 - 1)) a "$(lnk snode0 0 0 0 0 0 0)")|time $((t0 - 1)) of a snode0/0 is not after line 1's ($t0)
EOF2
run -n "$SNODECTL" link trend "$TMP/missing.jsonl"
ok "link trend: a missing file is unknown, exit 3" eval 'rc_is 3 && has "cannot open" "$err"'
: >"$TMP/empty.jsonl"
run -n "$SNODECTL" link trend "$TMP/empty.jsonl"
ok "link trend: an empty file has no samples, exit 3" eval 'rc_is 3 && has "no samples" "$err"'
run -n "$SNODECTL" link trend
ok "link trend without a file: exit 64" eval 'rc_is 64 && has "missing the record file" "$err"'
for bad in 0d 7x -7d 1.5d d; do
	run -n "$SNODECTL" link trend "$R" --since "$bad"
	ok "link trend --since $bad: exit 64" eval 'rc_is 64 && has "bad --since" "$err"'
done
run -n "$SNODECTL" link trend "$R" --max-down x
ok "link trend --max-down x: exit 64" eval 'rc_is 64 && has "bad --max-down" "$err"'
for good in 90m 24h 7d 2w 3600; do
	run -n "$SNODECTL" link trend "$R" --since "$good"
	ok "link trend --since $good is taken" eval 'rc_is 1 || rc_is 0'
done

# --- snode-perf ---------------------------------------------------------------------
for h in --help -h -help help; do
	run -n "$PERF" $h
	ok "snode-perf $h: usage on stdout, exit 0" eval 'rc_is 0 && has "Usage: snode-perf" "$out" && [ -z "$err" ]'
done
run -n "$PERF" help
benches=$(sed -n '/^BENCHMARK/,$p' <<<"$out" | awk 'NR > 1 { print $1 }')
ok "snode-perf help lists seven benchmarks, dump among them" eval '[ "$(wc -w <<<"$benches")" -eq 7 ] && grep -qx dump <<<"$benches"'
for b in $benches; do
	run -n "$PERF" "$b" help
	ok "snode-perf $b help: without a device, exit 0" eval 'rc_is 0 && has "Usage: snode-perf $b" "$out"'
	run -n "$PERF" -j "${b:0:2}" --help
	ok "snode-perf -j ${b:0:2} --help: abbreviated, exit 0" eval 'rc_is 0 && has "Usage: snode-perf $b" "$out"'
done
run -n "$PERF"
ok "snode-perf without a benchmark: exit 64" eval 'rc_is 64 && has Usage: "$err"'
run -n "$PERF" frobnicate
ok "snode-perf unknown benchmark: exit 64" eval 'rc_is 64 && has "unknown benchmark" "$err"'
run -n "$PERF" -x mem
ok "snode-perf unknown option: exit 64" eval 'rc_is 64'
run -n "$PERF" -o
ok "snode-perf -o without a file: exit 64" eval 'rc_is 64'
run -n "$PERF" --version
ok "snode-perf --version" eval 'rc_is 0 && [[ "$out" =~ ^snode-perf\ [0-9] ]]'
run -n "$PERF" mem
ok "snode-perf mem without a device: exit 1, says so" eval 'rc_is 1 && has "no snode device" "$err"'

# --- snode-fm ctl show: JSON through the print path ---------------------------------
if [ -n "$have_py" ]; then
	mkdir -p "$TMP/fm"
	"$FM" run --topology "$TOP/tools/emu/topologies/mem-sim.topo" --dir "$TMP/fm" \
		--foreground >"$TMP/fm.log" 2>&1 &
	fm_pid=$!
	for _ in $(seq 50); do
		[ -S "$TMP/fm/ctl.sock" ] && break
		sleep 0.1
	done
	"$FM" ctl --dir "$TMP/fm" sim export 3 3 0 4096 77 rw nodes 0,2 >/dev/null 2>&1
	while IFS='|' read -r what expr; do
		run "$FM" ctl --dir "$TMP/fm" show $what -j
		ok "snode-fm ctl show $what -j: $expr" json_ok "$expr"
		json=$out
		run "$FM" ctl --dir "$TMP/fm" show $what
		ok "snode-fm ctl show $what: one text line per JSON entry" eval \
			'[ "$(grep -c . <<<"$out")" -eq "$(python3 -c "import json,sys; print(len(json.loads(sys.argv[1])))" "$json")" ]'
	done <<'EOF2'
links|isinstance(d, list) and len(d) == 10 and all(set(x) >= {"id", "a", "b", "admin", "oper", "lanes", "max_lanes", "speed", "ber", "crc_errors", "tx_bytes"} for x in d)
nodes|[x["id"] for x in d] == [0, 1, 2, 3, 4] and [x["sim"] for x in d] == [False, False, True, True, True] and all(isinstance(x["attached"], bool) for x in d)
exports|{(x["node"], x["id"]): x["nodes"] for x in d} == {(2, 0): "all", (3, 0): "all", (3, 3): [0, 2], (4, 0): "all"} and d[2]["key"] == 77 and d[2]["perm"] == "rw"
grants|d == []
EOF2
	run "$FM" ctl --dir "$TMP/fm" show nodes from 0 -j
	ok "snode-fm ctl show nodes from 0 -j: view and route_port of the others" json_ok \
		'"view" not in d[0] and all("view" in x and isinstance(x["route_port"], int) for x in d[1:])'
else
	skip "snode-fm ctl JSON" "python3 not installed"
fi

# --- the man pages document what the help lists ------------------------------------------
run -n "$SNODECTL" help
objs=$(sed -n 's/.*OBJECT := { \(.*\) }.*/\1/p' <<<"$out" | tr -d '|')
ok "snodectl help lists the objects" eval '[ "$(wc -w <<<"$objs")" -eq 8 ]'
for o in $objs; do
	ok "snodectl(8) has a section for $o" grep -q "^\.SS \"\?$o\b" "$MAN8"
done
for o in $opts; do
	long=${o%%\[*}${o#*\[}
	long=${long%\]}
	ok "snodectl(8) documents $long under OPTIONS" eval 'sed -n "/^\.SH OPTIONS/,/^\.SH COMMANDS/p" "$MAN8" | grep -qF -- "\\-${long#-}"'
done
for s in ENVIRONMENT FILES "EXIT STATUS" "JSON"; do
	ok "snodectl(8) has $s" grep -q "^\.SH \"\?$s" "$MAN8"
done
# every key of the record format and of link trend -j is documented
hist=$(sed -n '/^\.SH "\?LINK HISTORY/,/^\.SH "\?EXIT/p' "$MAN8")
for k in version time unix host links dev port admin oper lanes max_lanes speed \
	crc_errors replays recoveries down_events tx_bytes rx_bytes ber ber_e18 \
	ber_threshold ber_threshold_e18 ber_alarm counters_age; do
	ok "snodectl(8) LINK HISTORY documents the record key $k" grep -qw -- "$k" <<<"$hist"
done
if [ -n "$have_py" ]; then
	run -n "$SNODECTL" -j link trend "$R"
	tkeys=$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(" ".join(sorted(set(d) | set(d["links"][0]))))' "$out")
	jsec=$(sed -n '/^\.SH JSON/,/^\.SH EXAMPLES/p' "$MAN8" | sed -n '/^\.B link trend$/,/^\.TP$/p')
	for k in $tkeys; do
		ok "snodectl(8) JSON documents link trend's key $k" grep -qw -- "$k" <<<"$jsec"
	done
else
	skip "snodectl(8) JSON documents link trend's keys" "python3 not installed"
fi
for b in $benches; do
	ok "snode-perf(1) has a section for $b" grep -q "^\.SS \"\?$b\b" "$MAN1"
done

echo "1..$n"
[ "$failed" -eq 0 ]
