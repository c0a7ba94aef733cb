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

# shellcheck source=tools/testing/cli/tap.sh
. "$TOP/tools/testing/cli/tap.sh"

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
ok "help lists the options (-V -b -f -h -j -p -s)" eval '[ "$(wc -l <<<"$opts")" -eq 7 ]'
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
ok "completion: l se DEV PORT offers state, ber-threshold, util-threshold and auto-isolate (set)" eval '[ "$(comp l se snode0 1 | sort | tr "\n" " ")" = "auto-isolate ber-threshold state util-threshold " ]'
ok "completion: link set DEV PORT util-threshold offers percentages" eval 'comp link set snode0 1 util-threshold | grep -qx 80'
ok "completion: link status offers the keyword interval" eval '[ "$(comp link status | sort | tr "\n" " ")" = "interval " ]'
ok "completion: -s link status interval offers seconds" eval 'comp -s link status interval | grep -qx 2'
ok "completion: link status -s --interval (the old spelling) offers seconds" eval 'comp link status -s --interval | grep -qx 2'
ok "completion: link status -s offers interval after it" eval 'comp link status -s | grep -qx -- interval'
ok "completion: link set DEV PORT auto-isolate offers off, ber, flaps" eval '[ "$(comp link set snode0 1 auto-isolate | sort | tr "\n" " ")" = "ber flaps off " ]'
ok "completion: ... ber BER offers the limit not given yet (flaps)" eval '[ "$(comp link set snode0 1 auto-isolate ber 1e-9)" = flaps ]'
ok "completion: ... flaps offers N/DUR examples" eval 'comp link set snode0 1 auto-isolate flaps | grep -qx 5/60s'
ok "completion: link tr FILE offers trend's keywords" eval '[ "$(comp link tr x | sort | tr "\n" " ")" = "max-crc max-down max-replays since " ]'
ok "completion: link trend FILE since DUR offers the keywords again" eval 'comp link trend x since 7d | grep -qx max-crc'
ok "completion: dev se DEV offers the limits (set)" eval '[ "$(comp dev se snode0 | sort | tr "\n" " ")" = "power-max temp-crit temp-max " ]'
ok "completion: dev set DEV temp-max C offers the limits not given yet" eval '[ "$(comp dev set snode0 temp-max 70 | sort | tr "\n" " ")" = "power-max temp-crit " ]'
ok "completion: dev set DEV temp-max offers no word for the value" eval '[ -z "$(comp dev set snode0 temp-max)" ]'
ok "completion: sensor offers baseline, sensor baseline offers record" eval '[ "$(comp sensor | sort | tr "\n" " ")" = "baseline help " ] && [ "$(comp s b)" = record ]'
ok "completion: sensor baseline record FILE offers load; load offers labels" eval '[ "$(comp sensor baseline record x)" = load ] && comp sensor baseline record x load | grep -qx idle'
ok "completion: health offers baseline" eval 'comp health | grep -qx -- baseline && comp health snode0 | grep -qx -- baseline'
ok "completion: diag offers bundle and coherence" eval '[ "$(comp diag | sort | tr "\n" " ")" = "bundle coherence help " ]'
ok "completion: di b (diag bundle) offers output and with-keys" eval '[ "$(comp di b | sort | tr "\n" " ")" = "output with-keys " ]'
ok "completion: diag bundle output and -o complete a file name" eval '(cd "$TOP" && comp diag bundle output) | grep -qx Makefile && (cd "$TOP" && comp diag bundle -o) | grep -qx Makefile'
ok "completion: diag coherence key K offers the other keywords" eval '[ "$(comp diag coherence key 5 | sort | tr "\n" " ")" = "duration export key nodes size " ]'
ok "completion: diag coherence --key K (the old spelling) as well" eval '[ "$(comp diag coherence --key 5 | sort | tr "\n" " ")" = "duration export key nodes size " ]'
ok "completion: diag coherence nodes takes a value (no completions)" eval '[ -z "$(comp diag coherence nodes)" ] && [ -z "$(comp diag coherence --nodes)" ]'
ok "completion: the first word offers -batch, -force and -s" eval 'comp | grep -qx -- -batch && comp | grep -qx -- -force && comp | grep -qx -- -s'
ok "completion: monitor offers events; monitor events offers count and timeout" eval 'comp monitor | grep -qx events && [ "$(comp monitor events | sort | tr "\n" " ")" = "count timeout " ] && [ -z "$(comp monitor count)" ]'
ok "completion: -batch completes a file name" eval '(cd "$TOP" && comp -batch) | grep -qx Makefile'
ok "completion: mem list DEV exports is not taken for a keyword" eval 'comp mem list | grep -qx exports'
ok "completion: node offers list and show" eval '[ "$(comp node | sort | tr "\n" " ")" = "help list show " ]'
ok "completion: node show offers node; node show DEV offers node; after node none" eval '[ "$(comp node show)" = node ] && [ "$(comp no sh snode0)" = node ] && [ -z "$(comp node show snode0 node)" ]'
ok "completion: d is still dev" eval '[ "$(comp d)" = show ] || [ "$(comp d | head -1)" = show ]'
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

# --- node show: one node, usage errors before any device is looked up ----------
run -n "$SNODECTL" node show snode9 node
ok "node show DEV node: needs an id" eval 'rc_is 64 && has "needs a node id" "$err"'
run -n "$SNODECTL" node show snode9 node 1x
ok "node show DEV node 1x: not a node id" eval 'rc_is 64 && has "\"1x\" is not a node id" "$err"'
run -n "$SNODECTL" node show snode9 node 4294967296
ok "node show: an id past 32 bits is refused" eval 'rc_is 64 && has "is not a node id" "$err"'
run -n "$SNODECTL" node show node 1 node 2
ok "node show: two node ids refused" eval 'rc_is 64 && has "more than one node" "$err"'
run -n "$SNODECTL" node show node 1 snode9 junk
ok "node show: an extra argument refused" eval 'rc_is 64 && has "unexpected argument \"junk\"" "$err"'
run -n "$SNODECTL" node show node 3 snode9
ok "node show node ID DEV: device after the id, then no such device" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
run -n "$SNODECTL" no sh snode9 n 3
ok "no sh DEV n ID: abbreviations, then no such device" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'

# --- extra arguments are rejected before anything runs --------------------------
while IFS= read -r cmd; do
	run -n "$SNODECTL" $cmd
	ok "extra argument rejected: $cmd" eval 'rc_is 64 && [ -z "$out" ] && (has unexpected "$err" || has "unknown argument" "$err")'
done <<'EOF2'
dev show snode0 extra
node list snode0 extra
link status snode0 extra
link status -s snode0 extra
link status -s --interval 2 snode0 extra
link set snode0 1 util-threshold 80 extra
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
while IFS=: read -r args want; do
	run -n "$SNODECTL" link $args
	ok "link $args: one-line error, exit 64" eval 'rc_is 64 && [ -z "$out" ] && [ "$(wc -l <<<"$err")" = 1 ] && has "$want" "$err"'
done <<'EOF2'
set snode0 1 util-threshold 0:bad util-threshold "0"
set snode0 1 util-threshold 101:bad util-threshold "101"
set snode0 1 util-threshold 8o:bad util-threshold "8o"
set snode0 1 util-threshold:bad util-threshold ""
status -s --interval 0:bad interval "0"
status -s --interval 61:bad interval "61"
status -s --interval x:bad interval "x"
status --interval 2:--interval goes with -s
status -s --interval:needs a value
EOF2

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
ok "snode-perf help lists eleven benchmarks, dump, link and the collectives among them" eval '[ "$(wc -w <<<"$benches")" -eq 11 ] && grep -qx dump <<<"$benches" && grep -qx link <<<"$benches" && [ "$(grep -cx -e allreduce -e alltoall -e barrier -e bcast <<<"$benches")" -eq 4 ]'
for b in $benches; do
	run -n "$PERF" "$b" help
	ok "snode-perf $b help: without a device, exit 0" eval 'rc_is 0 && has "Usage: snode-perf $b" "$out"'
	# four letters tell every benchmark apart ("allr", "allt")
	run -n "$PERF" -j "${b:0:4}" --help
	ok "snode-perf -j ${b:0:4} --help: abbreviated, exit 0" eval 'rc_is 0 && has "Usage: snode-perf $b" "$out"'
done
run -n "$PERF" al --help
ok "snode-perf al is allreduce, the first in table order (as snodectl's m is mem)" eval 'rc_is 0 && has "Usage: snode-perf allreduce" "$out"'
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

# --- diag and snode-perf link: arguments checked before anything runs ------------------
while IFS='|' read -r args want code; do
	run -n "$SNODECTL" diag $args
	ok "diag $args: exit $code, says \"$want\"" eval 'rc_is $code && [ -z "$out" ] && [ "$(wc -l <<<"$err")" = 1 ] && has "$want" "$err"'
done <<'EOF2'
bundle|output FILE.tar.gz is required|64
bundle -o|option "-o" needs a value|64
bundle -o a.tgz -o b.tgz|-o given twice|64
bundle -o a.tgz extra|unexpected argument "extra"|64
bundle --bogus|--bogus|64
bundle -o /nonexistent/dir/x.tgz|/nonexistent/dir: no such directory for the bundle|1
coherence|key KEY is required|64
coherence --key zz|bad --key "zz"|64
coherence --key 1 --nodes 1,,2|bad --nodes "1,,2": want NODE|64
coherence --key 1 --nodes 2,2|a node given twice|64
coherence --key 1 --nodes 5-3|bad --nodes "5-3"|64
coherence --key 1 --size 1000|bad --size "1000"|64
coherence --key 1 --size 2G|bad --size "2G"|64
coherence --key 1 --duration 0|bad --duration "0"|64
coherence --key 1 --export -1|bad --export "-1"|64
coherence --key 1 snode0 extra|unexpected argument "extra"|64
coherence --key 1|no snode devices|1
frob|unknown command "frob"|64
EOF2
run -n "$SNODECTL" diag bundle -o ""
ok "diag bundle -o \"\": exit 64, needs a file name" eval 'rc_is 64 && has "-o needs a file name" "$err"'
run -n "$SNODECTL" diag help
ok "diag help: both commands" eval 'rc_is 0 && has "snodectl diag bundle output FILE.tar.gz" "$out" && has "snodectl diag coherence key KEY" "$out"'
run -n "$SNODECTL" diag bundle -o "$TMP/x.tar.gz"
ok "diag bundle without a device: exit 1, no file left" eval 'rc_is 1 && has "no snode devices" "$err" && [ ! -e "$TMP/x.tar.gz" ] && [ ! -e "$TMP/x.tar.gz.tmp" ]'
run "$SNODECTL" diag coherence --key 1 snode9
ok "diag coherence snode9: no such device" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'
while IFS='|' read -r args want; do
	run "$PERF" link $args
	ok "snode-perf link $args: exit 64, says \"$want\"" eval 'rc_is 64 && has "$want" "$err"'
done <<'EOF2'
|handle HANDLE is required
handle|"handle" needs a value
handle nope|"nope" is not a handle
handle snode:v1:1:0:5100 ports 0,0|bad ports "0,0"
handle snode:v1:1:0:5100 ports 99|bad ports "99"
handle snode:v1:1:0:5100 ports a|bad ports "a"
handle snode:v1:1:0:5100 seconds 0|bad seconds "0"
handle snode:v1:1:0:5100 seconds 61|bad seconds "61"
handle snode:v1:1:0:5100 tolerance 100|bad tolerance "100"
handle snode:v1:1:0:5100 tolerance -1|bad tolerance "-1"
handle snode:v1:1:0:5100 frob 1|unknown argument "frob"
EOF2

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

# --- dev set, sensor baseline record, health --baseline ----------------------------------
# snode0 has a hwmon directory in the fake class directory, snode1 none
HW=$TMP/class/snode0/device/hwmon/hwmon7
mkdir -p "$HW"
hw_reset() {
	echo 85000 >"$HW/temp1_max"; echo 100000 >"$HW/temp1_crit"
	echo 25000000 >"$HW/power1_max"; echo 45000 >"$HW/temp1_input"
	echo 12000000 >"$HW/power1_input"
}
hw_is() { [ "$(cat "$HW/temp1_max" "$HW/temp1_crit" "$HW/power1_max" | tr '\n' ' ')" = "$1 " ]; }
hw_reset
run "$SNODECTL" dev set
ok "dev set without a NIC: exit 64, asks which" eval 'rc_is 64 && has "which NIC" "$err"'
run "$SNODECTL" dev set snode0
ok "dev set DEV alone: exit 64, nothing to set" eval 'rc_is 64 && has "nothing to set" "$err"'
for bad in "temp-max 200:150 C" "temp-max -56:-55 to 150 C" "temp-crit 1.2345:at most three decimals" \
	   "power-max 0:above 0, at most 1000 W" "power-max 1001:at most 1000 W" "temp-max hot:is not a number" \
	   "power-max -5:is not a number" "temp-max:needs a value in degrees Celsius" "fan 3:unknown argument \"fan\""; do
	run "$SNODECTL" dev set snode0 ${bad%%:*}
	ok "dev set snode0 ${bad%%:*}: exit 64 (${bad#*:}), nothing written" eval 'rc_is 64 && has "${bad#*:}" "$err" && hw_is "85000 100000 25000000"'
done
run "$SNODECTL" dev set snode0 temp-max 70 temp-max 71
ok "dev set: a limit given twice: exit 64, nothing written" eval 'rc_is 64 && has "temp-max given twice" "$err" && hw_is "85000 100000 25000000"'
run "$SNODECTL" dev set snode0 temp-max 110
ok "dev set: temp-max above the temp-crit in force: exit 64, nothing written" eval 'rc_is 64 && has "temp-max 110.0 C would be above temp-crit 100.0 C" "$err" && hw_is "85000 100000 25000000"'
run "$SNODECTL" dev set snode0 temp-crit 60 power-max 30
ok "dev set: temp-crit below the temp-max in force: exit 64, nothing written" eval 'rc_is 64 && has "temp-max 85.0 C would be above temp-crit 60.0 C" "$err" && hw_is "85000 100000 25000000"'
run "$SNODECTL" dev set snode0 temp-max 110 temp-crit 120 power-max 30.5
ok "dev set: both temperatures and the power: written in hwmon units" eval 'rc_is 0 && hw_is "110000 120000 30500000" && has "snode0: temp-max 110.0 C temp-crit 120.0 C power-max 30.500 W" "$out"'
run "$SNODECTL" -j dev set snode0 temp-max 87.5
if [ -n "$have_py" ]; then
	ok "dev set -j: the limits in force, in m°C and µW" eval 'rc_is 0 && json_ok "d == {\"dev\": \"snode0\", \"temp_max\": 87500, \"temp_crit\": 120000, \"power_max\": 30500000}"'
fi
hw_reset
# a file that reads a number and that nobody, root included, may write
ro=/proc/sys/kernel/ngroups_max
if [ -r "$ro" ] && [ "$(stat -L -c %a "$ro")" = 444 ]; then
	rm "$HW/power1_max" && ln -s "$ro" "$HW/power1_max"
	run "$SNODECTL" dev set snode0 temp-max 60 power-max 20
	ok "dev set: a limit that cannot be written: exit 1, the other one is not written either" eval 'rc_is 1 && has "cannot write power-max" "$err" && [ "$(cat "$HW/temp1_max")" = 85000 ]'
	rm "$HW/power1_max"
else
	skip "dev set: a limit that cannot be written" "no read-only $ro to stand for it"
fi
hw_reset
# A write refused half way (as by a NIC being reset): a file-size limit of 7
# bytes lets "60000\n" through and cuts "20000000\n" short; the temp-max
# already written must be put back.
if [ -n "$have_py" ]; then
	# (its output through pipes: the limit holds for regular files only)
	run python3 -c 'import resource, signal, subprocess, sys
def limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (7, 7))
p = subprocess.run(sys.argv[1:], preexec_fn=limit, capture_output=True)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)' "$SNODECTL" dev set snode0 temp-max 60 power-max 20
	ok "dev set: the second write fails: exit 1, says which and why, the first is restored" eval 'rc_is 1 && has "writing power-max failed: Input/output error" "$err" && [ "$(cat "$HW/temp1_max")" = 85000 ]'
else
	skip "dev set: the second write fails" "no python3 to set a file-size limit"
fi
hw_reset
run "$SNODECTL" dev set snode1 temp-max 60
ok "dev set on a NIC without hwmon: exit 1, says it has no sensors" eval 'rc_is 1 && has "snode1 has no sensors" "$err"'
run "$SNODECTL" dev set snode9 temp-max 60
ok "dev set on no such NIC: exit 1" eval 'rc_is 1 && has "no device \"snode9\"" "$err"'

run "$SNODECTL" sensor baseline record
ok "sensor baseline record without FILE: exit 64" eval 'rc_is 64 && has "missing the baseline FILE" "$err"'
run "$SNODECTL" sensor baseline record "$TMP/b.jsonl" load "a b"
ok "sensor baseline record: a bad load label: exit 64, no file" eval 'rc_is 64 && has "load \"a b\"" "$err" && [ ! -e "$TMP/b.jsonl" ]'
run "$SNODECTL" sensor baseline record "$TMP/b.jsonl" load idle load busy
ok "sensor baseline record: load twice: exit 64" eval 'rc_is 64 && has "load given twice" "$err"'
run "$SNODECTL" sensor baseline record "$TMP/b.jsonl" snode0 junk
ok "sensor baseline record: an extra argument: exit 64" eval 'rc_is 64 && has "unexpected argument \"junk\"" "$err"'
run "$SNODECTL" sensor baseline record "$TMP/b.jsonl" snode1
ok "sensor baseline record on a NIC without sensors: exit 1, no file" eval 'rc_is 1 && has "snode1 has no temperature and power sensors" "$err" && [ ! -e "$TMP/b.jsonl" ]'
if [ -n "$no_kernel" ]; then
	run "$SNODECTL" sensor baseline record "$TMP/b.jsonl" snode0
	ok "sensor baseline record without snode.ko: exit 1, no file" eval 'rc_is 1 && [ ! -e "$TMP/b.jsonl" ]'
else
	skip "sensor baseline record without snode.ko" "snode.ko is loaded on this host"
fi
run "$SNODECTL" sensor help
ok "sensor help: the usage" eval 'rc_is 0 && has "Usage: snodectl sensor baseline record FILE" "$out"'

printf '%s\n' '{"version":1,"serial":"S","temp_mC":45000,"power_uW":12000000}' \
	'{"version":1,"serial":"S","temp_mC":"hot","power_uW":12000000}' >"$TMP/bad.jsonl"
run "$SNODECTL" -j health --baseline "$TMP/bad.jsonl"
ok "health --baseline with a malformed line: exit 64, FILE:LINE and the field, no report" eval 'rc_is 64 && has "bad.jsonl:2: field \"temp_mC\"" "$err" && [ -z "$out" ]'
run "$SNODECTL" health snode0 --baseline "$TMP/nonexistent.jsonl"
ok "health --baseline with a file that cannot be read: exit 3" eval 'rc_is 3 && has "cannot read baseline" "$err"'
run "$SNODECTL" health --baseline
ok "health --baseline without FILE: exit 64" eval 'rc_is 64 && has "needs a value" "$err"'
run "$SNODECTL" health --baseline "$TMP/bad.jsonl" --baseline "$TMP/bad.jsonl"
ok "health --baseline twice: exit 64" eval 'rc_is 64 && has "given twice" "$err"'

# --- the man pages document what the help lists ------------------------------------------
run -n "$SNODECTL" help
objs=$(sed -n 's/.*OBJECT := { \(.*\) }.*/\1/p' <<<"$out" | tr -d '|')
ok "snodectl help lists the objects" eval '[ "$(wc -w <<<"$objs")" -eq 10 ]'
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
	# a section may document several ("allreduce, bcast, alltoall, barrier")
	ok "snode-perf(1) has a section for $b" grep -Eq "^\.SS \"?([a-z]+, )*$b\b" "$MAN1"
done

echo "1..$n"
[ "$failed" -eq 0 ]
