#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# grammar.sh - host tests (TAP) of the one command-line grammar of snodectl
# and snode-perf (snodectl(8), decision 0040): every command of both tools
# is run without a device (an empty fake sysfs class directory and /dev, as
# cli.sh does) plainly, after "--", with -j, -j -p and -s before the
# object, with an extra argument and with an unknown option, and must exit
# with its documented status each time; whatever a command prints under -j
# must parse as JSON, and a command that succeeds under -j prints exactly
# one JSON document.
#
# Usage: BUILD=build bash tools/testing/cli/grammar.sh

set -u
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${BUILD:-$TOP/build}
SNODECTL=$BUILD/tools/snodectl
PERF=$BUILD/tools/snode-perf

# shellcheck source=tools/testing/cli/tap.sh
. "$TOP/tools/testing/cli/tap.sh"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/none" "$TMP/dev"
cd "$TMP" || exit 1

run() {		# run CMD...: rc, out, err of CMD without any snode device
	out=$(SNODE_SYSFS=$TMP/none SNODE_DEVDIR=$TMP/dev "$@" 2>"$TMP/err" </dev/null)
	rc=$?
	err=$(cat "$TMP/err")
}
rc_is() { [ "$rc" -eq "$1" ]; }
# $out is empty or one JSON document (-j -p: indented over several lines)
json_or_empty() {
	[ -z "$out" ] || python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" 2>/dev/null
}
json_one() {
	[ -n "$out" ] && python3 -c 'import json, sys; json.loads(sys.argv[1])' "$out" 2>/dev/null
}

for b in "$SNODECTL" "$PERF"; do
	if [ ! -x "$b" ]; then
		echo "not ok 1 - $b is not built (make snodectl snode-perf)"
		exit 1
	fi
done
if ! command -v python3 >/dev/null; then
	echo "1..0 # SKIP python3 is needed to parse the JSON"
	exit 0
fi
# Commands that reach the netlink family fail with 1 only while snode.ko is
# not loaded; with it loaded on this host they would run (and may pass).
no_kernel=1
[ -d /sys/module/snode ] && no_kernel=

# a record file (snodectl(8) LINK HISTORY) of one quiet link, two samples
lnk='{"dev":"snode0","port":0,"admin":"up","oper":"up","lanes":4,"max_lanes":4,"speed":25,"crc_errors":0,"replays":0,"recoveries":0,"down_events":0,"tx_bytes":0,"rx_bytes":0,"ber":0,"ber_e18":0,"ber_threshold":0,"ber_threshold_e18":0,"ber_alarm":false,"counters_age":null}'
printf '{"version":1,"time":"2026-11-01T00:00:00Z","unix":1793491200,"host":"h","links":[%s]}\n{"version":1,"time":"2026-11-08T00:00:00Z","unix":1794096000,"host":"h","links":[%s]}\n' \
	"$lnk" "$lnk" >"$TMP/rec.jsonl"

# COMMAND|STATUS|NETLINK: every snodectl command, in the form it takes
# without a device, and its status then (snodectl(8) EXIT STATUS): 0 for a
# list that is empty and a link trend that flags nothing, 1 for a command
# that needs a NIC or the driver, 3 for health's unknown and for link trend
# on a file it cannot read. NETLINK=n:
# the status holds only while snode.ko is not loaded. (link status
# interval S without -s is a usage error, tested below.)
while IFS='|' read -r cmd want nl; do
	if [ "$nl" = n ] && [ -z "$no_kernel" ]; then
		skip "snodectl $cmd: every form" "snode.ko is loaded on this host"
		continue
	fi
	run "$SNODECTL" $cmd
	ok "snodectl $cmd: exit $want, a message when it fails" eval 'rc_is $want && { rc_is 0 || [ -n "$err" ]; }'
	run "$SNODECTL" -- $cmd
	ok "snodectl -- $cmd: exit $want" eval 'rc_is $want'
	run "$SNODECTL" -s $cmd
	ok "snodectl -s $cmd: exit $want" eval 'rc_is $want'
	for j in "-j" "-j -p" "-json -pretty" "--json"; do
		run "$SNODECTL" $j $cmd
		ok "snodectl $j $cmd: exit $want, stdout empty or one JSON document" eval 'rc_is $want && json_or_empty'
	done
	if [ "$want" = 0 ]; then
		run "$SNODECTL" -j $cmd
		ok "snodectl -j $cmd: succeeds with a JSON document" json_one
	fi
	run "$SNODECTL" $cmd extra-word
	ok "snodectl $cmd extra-word: usage error 64, nothing on stdout" eval 'rc_is 64 && [ -z "$out" ] && [ -n "$err" ]'
	run "$SNODECTL" $cmd --bogus-option
	ok "snodectl $cmd --bogus-option: usage error 64" eval 'rc_is 64 && [ -z "$out" ]'
	run "$SNODECTL" -j $cmd --bogus-option
	ok "snodectl -j $cmd --bogus-option: usage error 64, no JSON" eval 'rc_is 64 && [ -z "$out" ]'
done <<'EOF'
dev show|0|
dev set snode0 temp-max 60|1|
node list|1|n
node show node 1|1|
link status|1|n
link show snode0 1|1|
link set snode0 1 state up|1|
link reset snode0 1|1|
link clear snode0 1|1|
link threshold snode0 1 1e-9|1|
link diag|1|n
link diag record rec2.jsonl|1|n
link trend rec.jsonl|0|
link trend rec.jsonl since 7d max-crc 5|0|
link trend rec.jsonl --since 7d --max-crc 5|0|
link trend missing.jsonl|3|
mem list|0|
mem list exports|0|
msg list|0|
msg stats|0|
dma list|0|
health|3|
health baseline /nonexistent|3|
monitor count 1 timeout 1|1|n
monitor events count 1|1|n
sensor baseline record base.jsonl|1|
diag bundle output x.tar.gz|1|
diag bundle -o x.tar.gz with-keys|1|
diag coherence key 1|1|
diag coherence --key 1 --nodes 1-3|1|
EOF

# The empty lists: the documents themselves.
run "$SNODECTL" -j dev show
ok "-j dev show without a NIC: {\"devices\": []}, exit 0, the hint on stderr" eval 'rc_is 0 && python3 -c "import json,sys; sys.exit(json.loads(sys.argv[1]) != {\"devices\": []})" "$out" && grep -q "no snode devices" <<<"$err"'
run "$SNODECTL" dev show
ok "dev show without a NIC: no text, exit 0 (as -j), the hint on stderr" eval 'rc_is 0 && [ -z "$out" ] && grep -q "no snode devices" <<<"$err"'
run "$SNODECTL" -j health
ok "-j health without a NIC: the same devices [] and its verdict, exit 3" eval 'rc_is 3 && python3 -c "import json,sys; sys.exit(json.loads(sys.argv[1])[\"devices\"] != [])" "$out"'

# Global options: before the object; -- ends them; -V takes nothing more.
run "$SNODECTL" -V extra
ok "snodectl -V extra: usage error 64" eval 'rc_is 64 && [ -z "$out" ]'
run "$SNODECTL" -- -V
ok "snodectl -- -V: after --, -V is an object, and unknown" eval 'rc_is 64 && grep -q "object \"-V\" is unknown" <<<"$err"'
run "$SNODECTL" --
ok "snodectl -- alone: the usage, exit 64" eval 'rc_is 64 && grep -q Usage: <<<"$err"'
run "$SNODECTL" -j -- help
ok "snodectl -j -- help: the usage, exit 0" eval 'rc_is 0 && grep -q "Usage: snodectl" <<<"$out"'
run "$SNODECTL" -s link status interval 0
ok "snodectl -s link status interval 0: the keyword's value is checked (64)" eval 'rc_is 64 && grep -q "bad interval" <<<"$err"'
run "$SNODECTL" link status interval 2
ok "link status interval 2 without -s: 64, says -s" eval 'rc_is 64 && grep -q "interval goes with -s" <<<"$err"'
run "$SNODECTL" link trend rec.jsonl -j
ok "link trend FILE -j: -j among the keywords, JSON" eval 'rc_is 0 && json_one'
run "$SNODECTL" link trend rec.jsonl since
ok "link trend FILE since: the keyword needs a value (64)" eval 'rc_is 64 && grep -q "\"since\" needs a value" <<<"$err"'
run "$SNODECTL" link trend rec.jsonl si x
ok "link trend FILE si x: an abbreviated keyword, its value checked (64)" eval 'rc_is 64 && grep -q "bad si \"x\"" <<<"$err"'
run "$SNODECTL" link trend rec.jsonl max 1
ok "link trend FILE max 1: a prefix of three keywords is ambiguous (64)" eval 'rc_is 64 && grep -q "ambiguous" <<<"$err"'
run "$SNODECTL" -j health baseline
ok "health baseline without FILE: 64, no JSON" eval 'rc_is 64 && [ -z "$out" ]'
printf 'dev show\nlink trend rec.jsonl -j\ndev show\n' >"$TMP/batch"
run "$SNODECTL" -force -batch "$TMP/batch"
ok "-batch: -j after one line's command holds for that line only" eval 'rc_is 0 && [ "$(grep -c "^{" <<<"$out")" = 1 ]'

# --- snode-perf: the same rules ------------------------------------------------------
# BENCHMARK ARGS: the least each benchmark takes; without a device each
# exits 1 after its arguments parsed, and 64 for a bad one whether or not
# there is a device.
while IFS= read -r cmd; do
	run "$PERF" $cmd
	ok "snode-perf $cmd: no device, exit 1, says so" eval 'rc_is 1 && grep -q "no snode device" <<<"$err"'
	run "$PERF" -- $cmd
	ok "snode-perf -- $cmd: exit 1" eval 'rc_is 1'
	for j in "-j" "-j -p"; do
		run "$PERF" $j $cmd
		ok "snode-perf $j $cmd: exit 1, no JSON half written" eval 'rc_is 1 && json_or_empty'
	done
	run "$PERF" -s $cmd
	ok "snode-perf -s $cmd: -s is no option of snode-perf (64)" eval 'rc_is 64 && [ -z "$out" ]'
	run "$PERF" $cmd extra-word
	ok "snode-perf $cmd extra-word: usage error 64 before the device is looked for" eval 'rc_is 64 && ! grep -q "no snode device" <<<"$err"'
	run "$PERF" $cmd bogus 1
	ok "snode-perf $cmd bogus 1: usage error 64" eval 'rc_is 64 && ! grep -q "no snode device" <<<"$err"'
done <<'EOF'
allreduce nodes 0,1
alltoall nodes 0,1
barrier nodes 0,1
bcast nodes 0,1
dma handle snode:v1:1:0:5100
dump
events
link handle snode:v1:1:0:5100
mem
notify
ping client 1
ping server
EOF
while IFS='|' read -r cmd want; do
	run "$PERF" $cmd
	ok "snode-perf $cmd: usage error 64 without a device ($want)" eval 'rc_is 64 && grep -q -- "$want" <<<"$err"'
done <<'EOF2'
mem size 3|bad size "3"
mem handle nope|"nope" is not a handle
mem si 5000|bad size "5000"
dma stream 1 by foo|bad stream "by foo"
dma by load|"by" is for a stream
dump count 0|count '0'
ping client 1 size 1|size 4 to
allreduce nodes 0|Usage: snode-perf allreduce
EOF2
run "$PERF" me si 5000
ok "snode-perf me si 5000: benchmark and keyword abbreviated (the size is checked)" eval 'rc_is 64 && grep -q "bad size" <<<"$err"'
run "$PERF" a --help
ok "snode-perf a: the first benchmark in table order (allreduce), as snodectl" eval 'rc_is 0 && grep -q "Usage: snode-perf allreduce" <<<"$out"'
run "$PERF" -V extra
ok "snode-perf -V extra: usage error 64" eval 'rc_is 64 && [ -z "$out" ]'

echo "1..$n"
[ "$failed" -eq 0 ]
