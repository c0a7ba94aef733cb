#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# diag.sh - the operator's diagnostics (issue 12 item 7, decision 0028) on
# an emulated supernode, driven from the host through snode-fm ctl.
#
# Usage: selftests/vm/diag.sh 6.1|6.12
#
# Boots tools/emu/topologies/4-dual-plane-sim.topo (node 0 a guest, nodes
# 1-3 simulated, each with a scratch export 0 under key 0x5100) and checks:
#   - diag bundle: a tar.gz with a MANIFEST, the netlink tables, debugfs
#     registers and queues, the module's sysfs, snode's log lines and the
#     versions; an import held under a distinctive key while it runs: no
#     file of the bundle holds that key (hex or decimal) unless
#     --with-keys, and then it does (so the grep can fail); -j; a missing
#     -o and a missing directory are refused and leave no file; without
#     debugfs the MANIFEST says it was skipped and why
#   - diag coherence: PASS on nodes 1-3 of a healthy fabric (text and -j),
#     messages passed between nodes 1,2 and 2,3; FAIL naming the
#     revocation when node 1's export is withdrawn (snode-fm ctl sim
#     unexport) while it runs; FAIL on a wrong key; FAIL for a node the
#     fabric manager killed (node kill), which passes again once it joins;
#     a node the NIC does not know and a malformed list are refused
#   - snode-perf link: each link measured with the other down, its own
#     counters carrying the copies, saved as a baseline; a rerun against it
#     passes; a baseline far above what the links do fails, naming the
#     port; a malformed baseline is refused with its line number; a link
#     that is down is refused, one named alone is measured alone; killed
#     (SIGTERM) while it holds the other link down, it brings it back up
#     and fails; both links are up afterwards
# Every check prints one TAP line; the exit status is 1 if any failed.
#
# Needs: make all modules-guest selftests (and the kernels).

set -u

. "$(dirname "$0")/lib.sh"
vm_suite diag "6.1|6.12" "${1:-}"
TOPO=$TOP/tools/emu/topologies/4-dual-plane-sim.topo
# a key no other number in a bundle is likely to spell, and its decimal
KEY=5eedc0ffee123457
KEY_DEC=$(printf '%d' 0x$KEY)

finish_hook() {
	gexec 0 "dmesg" >"$LOG/dmesg" 2>&1
}

require "$BUILD/stage/common/usr/bin/snodectl" "$BUILD/stage/common/usr/bin/snode-perf" \
	"$BUILD/stage/common$KSFT_BIN/link_stream"

vm_up 4-dual-plane-sim --topology "$TOPO" || finish

gexec 0 "insmod /lib/snode/snode.ko" >>"$LOG/insmod" 2>&1
check "$KERNEL: insmod snode.ko" [ $? -eq 0 ]
check "$KERNEL: both links up" until_ok 30 links_are up up

# --- diag bundle -----------------------------------------------------------------
fmctl sim export 1 1 0 64K 0x$KEY rw
gexec 0 "rm -f /tmp/hold.*; $KSFT_BIN/link_stream 1 1 0x$KEY 65536 60 /tmp/hold.ready >/tmp/hold.out 2>&1 &
	for i in \$(seq 100); do test -f /tmp/hold.ready && exit 0; sleep 0.1; done; exit 1" >/dev/null
check "$KERNEL: bundle: an import held under key $KEY" [ $? -eq 0 ]
out=$(gexec 0 "snodectl mem list imports")
check "$KERNEL: bundle: root's mem list shows that key (the data holds it)" grep -qi "$KEY" <<<"$out"

# bundle_grep OPTS: make a bundle, unpack it, list the files holding the key
bundle_grep() {
	gexec 0 "rm -rf /tmp/b /tmp/b.tar.gz && mkdir /tmp/b &&
		snodectl -j diag bundle -o /tmp/b.tar.gz $1 >/tmp/b.json 2>/tmp/b.err &&
		tar -xzf /tmp/b.tar.gz -C /tmp/b && echo unpacked &&
		grep -rliE '$KEY|$KEY_DEC' /tmp/b | sed 's|.*/||' | sort | tr '\n' ' '; echo"
}
out=$(bundle_grep "")
echo "$out" >"$LOG/bundle-grep.txt"
check "$KERNEL: bundle: made and unpacked" grep -q '^unpacked' <<<"$out"
check "$KERNEL: bundle: unpacked, and no file holds the key, hex or decimal ($(sed -n 2p <<<"$out"))" eval \
	'grep -q "^unpacked" <<<"$out" && [ -z "$(sed -n 2p <<<"$out" | tr -d " ")" ]'
gexec 0 "cd /tmp/b/snode-diag-* && ls -1 && echo ---- && cat MANIFEST" >"$LOG/bundle-manifest.txt"
man=$(cat "$LOG/bundle-manifest.txt")
for f in MANIFEST versions.txt dev.json link-status.json link-snode0-0.json link-snode0-1.json node.json mem.json \
	msg.json stats.json health.json debugfs.txt sysfs-module.txt dmesg.txt errors.log; do
	check "$KERNEL: bundle: holds $f" grep -qx "$f" <<<"$man"
done
check "$KERNEL: bundle: MANIFEST: every command ok" eval '! grep -Eq "(failed|partial):" <<<"$man"'
check "$KERNEL: bundle: MANIFEST says keys redacted, mem.json and debugfs.txt had keys taken out" eval \
	'grep -q "^# keys: redacted" <<<"$man" &&
	 grep -Eq "^mem.json .* ok [0-9]+ bytes, keys redacted" <<<"$man" &&
	 grep -Eq "^debugfs.txt .* ok [0-9]+ bytes, keys redacted" <<<"$man"'
out=$(gexec 0 "cd /tmp/b/snode-diag-* && grep -c REDACTED mem.json; grep -c '^==> .*/regs <==' debugfs.txt;
	grep -c '^==> .*/queues <==' debugfs.txt; grep -c 'snode' dmesg.txt; grep -c '^module snode' versions.txt;
	grep -c 'hw 0x' versions.txt" | tr '\n' ' ')
check "$KERNEL: bundle: the import's key REDACTED in mem.json; debugfs regs and queues; dmesg and versions lines ($out)" \
	pycheck 'v = [int(x) for x in sys.argv[1].split()]
sys.exit(0 if len(v) == 6 and all(x >= 1 for x in v) else 1)' "$out"
out=$(gexec 0 "cd /tmp/b/snode-diag-* && cat mem.json")
check "$KERNEL: bundle: mem.json is the JSON of mem list, the import listed" pycheck '
d = json.loads(sys.argv[1])
imps = [i for x in d["devices"] for i in x["imports"]]
print(imps, file=sys.stderr)
sys.exit(0 if any(i["node"] == 1 and i["export_id"] == 1 and i["key"] == "REDACTED" for i in imps) else 1)' "$out"
out=$(gexec 0 "cat /tmp/b.json")
check "$KERNEL: bundle -j: file, keys false, redacted > 0" pycheck '
d = json.loads(sys.argv[1])
sys.exit(0 if d["file"] == "/tmp/b.tar.gz" and d["keys"] is False and d["redacted"] > 0 and d["files"] >= 14 else 1)' "$out"
out=$(bundle_grep "--with-keys")
echo "$out" >"$LOG/bundle-grep-keys.txt"
check "$KERNEL: bundle --with-keys: the key is in mem.json and debugfs.txt ($(sed -n 2p <<<"$out"))" eval \
	'grep -q "^unpacked" <<<"$out" && sed -n 2p <<<"$out" | grep -q "debugfs.txt" &&
	 sed -n 2p <<<"$out" | grep -q "mem.json"'
out=$(gexec 0 "rm -f /tmp/x.tar.gz; snodectl diag bundle 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: bundle without output: usage error 64 ($out)" eval \
	'grep -q "rc=64" <<<"$out" && grep -q "output FILE.tar.gz is required" <<<"$out"'
out=$(gexec 0 "snodectl diag bundle -o /nonexistent/x.tar.gz 2>&1; echo rc=\$?; ls /nonexistent 2>&1 | wc -l" | tr '\n' ' ')
check "$KERNEL: bundle into a missing directory: refused, exit 1 ($out)" eval \
	'grep -q "rc=1" <<<"$out" && grep -q "/nonexistent: no such directory" <<<"$out"'
out=$(gexec 0 "umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug && rm -rf /tmp/c /tmp/c.tgz && mkdir /tmp/c &&
	snodectl diag bundle -o /tmp/c.tgz >/dev/null && tar -xzf /tmp/c.tgz -C /tmp/c &&
	cat /tmp/c/snode-diag-*/MANIFEST; ls /tmp/c/snode-diag-*/debugfs.txt 2>&1;
	mount -t debugfs debugfs /sys/kernel/debug")
echo "$out" >"$LOG/bundle-nodebugfs.txt"
check "$KERNEL: bundle without debugfs: MANIFEST says skipped and why, no debugfs.txt, the rest ok" eval \
	'grep -q "^debugfs.txt .* skipped: debugfs not mounted" <<<"$out" && grep -q "debugfs.txt: No such file" <<<"$out" &&
	 grep -Eq "^mem.json .* ok [0-9]+ bytes" <<<"$out"'
gexec 0 "kill \$(pidof link_stream) 2>/dev/null; true" >/dev/null

# --- diag coherence ----------------------------------------------------------------
st=$(gexec 0 "snodectl -j diag coherence --key 0x5100 --nodes 1-3 >/tmp/coh.json 2>/tmp/coh.err; echo \$?")
out=$(gexec 0 "cat /tmp/coh.json")
gexec 0 "cat /tmp/coh.err" >"$LOG/coherence-healthy.err"
echo "$out" >"$LOG/coherence-healthy.json"
check "$KERNEL: coherence: PASS on nodes 1-3 of a healthy fabric (exit $st)" pycheck '
d = json.loads(sys.argv[1])
n = d["nodes"]
print(n, file=sys.stderr)
sys.exit(0 if sys.argv[2] == "0" and d["verdict"] == "PASS" and [x["node"] for x in n] == [1, 2, 3] and
         all(x["verdict"] == "pass" and x["rounds"] >= 1 and x["tickets"] >= 8192 and
             x["rw_words"] > 0 and x["seqlock_reads"] > 0 for x in n) else 1)' "$out" "$st"
check "$KERNEL: coherence: messages passed between nodes 1,2 and 2,3" pycheck '
d = json.loads(sys.argv[1]); p = d["pairs"]
print(p, file=sys.stderr)
sys.exit(0 if [x["nodes"] for x in p] == [[1, 2], [2, 3]] and d["pairs_failed"] == 0 and
         all(x["verdict"] == "pass" and x["messages"] >= 4096 and x["observed"] >= 2 and
             x["reason"] is None for x in p) else 1)' "$out"
out=$(gexec 0 "snodectl diag coh --key 0x5100 --nodes 2; echo rc=\$?")
check "$KERNEL: coherence text: node 2 pass, coherence: PASS" eval \
	'grep -q "^node 2 pass" <<<"$out" && grep -q "^coherence: PASS" <<<"$out" && grep -q "rc=0" <<<"$out"'
# a window withdrawn under the check
gexec 0 "rm -f /tmp/coh.*; (snodectl -j diag coherence --key 0x5100 --nodes 1 --duration 20 >/tmp/coh.json 2>/tmp/coh.err; echo \$? >/tmp/coh.rc) &" >/dev/null
sleep 4
fmctl sim unexport 1 0
check "$KERNEL: coherence under an unexport: finished" until_ok 40 gexec 0 "test -f /tmp/coh.rc"
st=$(gexec 0 "cat /tmp/coh.rc")
out=$(gexec 0 "cat /tmp/coh.json")
echo "$out" >"$LOG/coherence-unexport.json"
check "$KERNEL: coherence under an unexport: FAIL, exit 1, the reason names the revocation ($st)" pycheck '
d = json.loads(sys.argv[1]); n = d["nodes"][0]
print(n, file=sys.stderr)
sys.exit(0 if sys.argv[2] == "1" and d["verdict"] == "FAIL" and n["verdict"] == "FAIL" and
         n["reason"].startswith("window revoked (unexport") else 1)' "$out" "$st"
fmctl sim export 1 0 0 64K 0x5100 rw
out=$(gexec 0 "snodectl diag coherence --key 0x5101 --nodes 1 2>&1; echo rc=\$?")
echo "$out" >"$LOG/coherence-badkey.txt"
check "$KERNEL: coherence with a wrong key: FAIL, cannot import" eval \
	'grep -q "^node 1 FAIL .*cannot import its scratch export 0" <<<"$out" && grep -q "^coherence: FAIL" <<<"$out" &&
	 grep -q "rc=1" <<<"$out"'
out=$(gexec 0 "snodectl diag coherence --key 0x5100 --nodes 1 2>&1; echo rc=\$?")
check "$KERNEL: coherence: node 1 passes again once re-exported" eval \
	'grep -q "^node 1 pass" <<<"$out" && grep -q "rc=0" <<<"$out"'
# a node the fabric manager killed: failed without an import, the others pass
fmctl node kill 3
# node3_is STATE: snode0 sees node 3 in STATE (the text line also carries
# its rack, plane, switch and hops before the state, so read the JSON)
node3_is() {
	local j
	j=$(gexec 0 "snodectl -j node list snode0")
	pycheck '
n = [x for x in json.loads(sys.argv[1])["nodes"] if x["node"] == 3]
sys.exit(0 if len(n) == 1 and n[0]["state"] == sys.argv[2] else 1)' "$j" "$1"
}
check "$KERNEL: coherence: node 3 killed (snode-fm ctl node kill)" until_ok 30 eval '! node3_is up'
out=$(gexec 0 "snodectl diag coherence --key 0x5100 --nodes 2,3 2>&1; echo rc=\$?")
echo "$out" >"$LOG/coherence-killed.txt"
check "$KERNEL: coherence: the killed node FAILs as the NIC sees it, node 2 passes, no pair" eval \
	'grep -Eq "^node 3 FAIL .*: the NIC sees it (dead|unreachable)" <<<"$out" && grep -q "^node 2 pass" <<<"$out" &&
	 ! grep -q "^nodes " <<<"$out" && grep -q "^coherence: FAIL" <<<"$out" && grep -q "rc=1" <<<"$out"'
fmctl node join 3
check "$KERNEL: coherence: node 3 back (snode-fm ctl node join)" until_ok 30 node3_is up
out=$(gexec 0 "snodectl diag coherence --key 0x5100 --nodes 1,9 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: coherence: an unknown node refused before any check ($out)" eval \
	'grep -q "unknown node 9" <<<"$out" && grep -q "rc=1" <<<"$out" && ! grep -Eq "coherence: (PASS|FAIL)" <<<"$out"'
out=$(gexec 0 "snodectl diag coherence --key 0x5100 --nodes 1,,2 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: coherence: a malformed --nodes is a usage error ($out)" eval \
	'grep -q "bad --nodes" <<<"$out" && grep -q "rc=64" <<<"$out"'

# --- snode-perf link ---------------------------------------------------------------
H=snode:v1:1:0:0000000000005100
st=$(gexec 0 "rm -f /tmp/base; snode-perf -j link handle $H seconds 1 save /tmp/base >/tmp/pl.json 2>/tmp/pl.err; echo \$?")
out=$(gexec 0 "cat /tmp/pl.json")
echo "$out" >"$LOG/perf-link.json"
check "$KERNEL: perf link: both links measured, each carried its copies alone, pass (exit $st)" pycheck '
d = json.loads(sys.argv[1]); l = d["links"]
print(l, file=sys.stderr)
sys.exit(0 if sys.argv[2] == "0" and d["verdict"] == "pass" and [x["port"] for x in l] == [0, 1] and
         all(x["steered"] and x["bytes"] > 0 and x["link_bytes"] >= x["bytes"] and
             x["other_links_bytes"] <= x["bytes"] // 10 and x["mbs"] > 0 and
             x["line_mbs"] == 4 * 100 * 1000 / 8 and 0 < x["line_ratio"] < 1 for x in l) else 1)' "$out" "$st"
base=$(gexec 0 "cat /tmp/base")
echo "$base" >"$LOG/perf-link.base"
check "$KERNEL: perf link save: a baseline line per link" eval \
	'[ "$(grep -Ec "^snode0 [01] [0-9.]+$" <<<"$base")" = 2 ]'
check "$KERNEL: perf link: both links up after it" until_ok 20 links_are up up
st=$(gexec 0 "snode-perf link handle $H seconds 1 baseline /tmp/base tolerance 99 >/tmp/pl.txt 2>&1; echo \$?")
out=$(gexec 0 "cat /tmp/pl.txt")
echo "$out" >"$LOG/perf-link-rerun.txt"
check "$KERNEL: perf link against its own baseline (tolerance 99%: TCG timings vary): PASS (exit $st)" eval \
	'[ "$st" = 0 ] && grep -q "^link: PASS" <<<"$out"'
gexec 0 "awk '/^snode/ { print \$1, \$2, \$3 * 1000; next } { print }' /tmp/base >/tmp/base.high" >/dev/null
st=$(gexec 0 "snode-perf -j link handle $H seconds 1 baseline /tmp/base.high >/tmp/pl.json 2>/tmp/pl.err; echo \$?")
out=$(gexec 0 "cat /tmp/pl.json")
echo "$out" >"$LOG/perf-link-high.json"
check "$KERNEL: perf link against a baseline 1000x above: fail, each port below it (exit $st)" pycheck '
d = json.loads(sys.argv[1]); l = d["links"]
sys.exit(0 if sys.argv[2] == "1" and d["verdict"] == "fail" and len(l) == 2 and
         all(x["verdict"] == "fail" and "below the baseline" in x["reason"] and
             x["baseline_ratio"] < 0.1 for x in l) else 1)' "$out" "$st"
out=$(gexec 0 "printf 'snode0 0 10\nsnode0 x 10\n' >/tmp/base.bad; snode-perf link handle $H baseline /tmp/base.bad 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: perf link: a malformed baseline refused with its line ($out)" eval \
	'grep -q "base.bad: line 2: malformed" <<<"$out" && grep -q "rc=1" <<<"$out"'
gexec 0 "snodectl link set snode0 1 state down" >/dev/null
until_ok 20 links_are up down
out=$(gexec 0 "snode-perf link handle $H ports 1 2>&1; echo rc=\$?" | tr '\n' ' ')
check "$KERNEL: perf link ports 1 with link 1 down: refused ($out)" eval \
	'grep -q "port 1 is not up; bring it up first" <<<"$out" && grep -q "rc=1" <<<"$out"'
gexec 0 "snodectl link set snode0 1 state up" >/dev/null
check "$KERNEL: perf link: link 1 up again" until_ok 20 links_are up up
st=$(gexec 0 "snode-perf -j link handle $H ports 1 seconds 1 >/tmp/pl.json 2>/tmp/pl.err; echo \$?")
out=$(gexec 0 "cat /tmp/pl.json")
check "$KERNEL: perf link ports 1: that link alone, steered (exit $st)" pycheck '
d = json.loads(sys.argv[1]); l = d["links"]
sys.exit(0 if sys.argv[2] == "0" and [x["port"] for x in l] == [1] and l[0]["steered"] else 1)' "$out" "$st"
# SIGTERM while link 1 is down for port 0's measurement: it comes back
gexec 0 "rm -f /tmp/pt.*; (snode-perf link handle $H seconds 30 >/tmp/pt.out 2>&1; echo \$? >/tmp/pt.rc) &
	sleep 5; kill -TERM \$(pidof snode-perf)" >/dev/null
check "$KERNEL: perf link under SIGTERM: it stops" until_ok 40 gexec 0 "test -f /tmp/pt.rc"
out=$(gexec 0 "cat /tmp/pt.rc /tmp/pt.out" | tr '\n' ' ')
echo "$out" >"$LOG/perf-link-sigterm.txt"
check "$KERNEL: perf link under SIGTERM: exit 1, the link it measured failed, link: FAIL ($out)" eval \
	'[ "${out%% *}" = 1 ] && grep -Eq "  0 .* FAIL: (interrupted|copies failed)" <<<"$out" && grep -q "link: FAIL" <<<"$out"'
check "$KERNEL: perf link: both links up at the end" until_ok 20 links_are up up

finish
