#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# link-bench.sh - how fast link health reaches an operator (make bench).
#
# Boots tools/emu/topologies/256-sim.topo (one VM, 256 simulated nodes, two
# links) on each guest kernel and measures:
#   - from the host: "snode-fm ctl link down|up 0.1" to the line of
#     "snodectl -j monitor" that reports it, stamped as it arrives on the
#     host through "snode-vm exec" (so it includes the guest's exec channel,
#     named in the result; SNODE_VM_EXEC=serial|virtio picks one to
#     compare, see Documentation/emu/vm.rst), whether or not the ctl
#     process has exited by then; and the same command sent straight to
#     the fm's control socket (what "snode-fm ctl" sends, without starting
#     a process, which alone takes 1-10 ms on a loaded 2-core host); 100
#     faults each way, taking turns, spaced
#     by more than the driver's one-per-second rate limit. The first waits
#     out that limit too: the in-guest part has just faulted the same link,
#     and a notification inside the interval is held by design (decision
#     0006), which once made a single held event the whole "p99". A
#     fault and its repair before them are reported apart: the first
#     event the monitor prints costs ~10 ms of TCG translating that code.
#   - inside the guest, one clock: "snode-perf events" (a fault injected
#     through the NIC to the notification; node and link dump times)
# Then boots tools/emu/topologies/1024-sim.topo (the device's max_nodes,
# 32 racks, two leaf-spine planes) and runs "snode-perf dump": the node
# dump of 1024 nodes with their topology and the 2-link dump, printed
# beside the 20 ms target (issue 12) and a dev-status baseline.
# Results: build/bench/link-<kernel>.txt and .json. A timing never fails;
# the exit status says only whether the benchmark ran.
#
# Usage: selftests/vm/link-bench.sh [6.1|6.12 ...]   (default: both)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SNODE_BUILD:-$TOP/build}
VM=$TOP/tools/emu/vm/snode-vm
FM=${SNODE_FM:-$BUILD/tools/snode-fm}
TOPO=$TOP/tools/emu/topologies/256-sim.topo
TOPO1024=$TOP/tools/emu/topologies/1024-sim.topo
OUT=$BUILD/bench
FAULTS=${LINK_BENCH_FAULTS:-100}
export SNODE_VM_UP=${SNODE_VM_UP:-$BUILD/vm/up-link-bench}
export SNODE_FM_DIR=$SNODE_VM_UP
mkdir -p "$OUT"
rc=0

# Host side: inject faults, time the monitor's lines as they arrive (the
# exec channel prints each line as soon as its newline arrives).
HOST_BENCH='
import json, math, queue, socket, subprocess, sys, threading, time
vm, fm, fmdir, faults, out, chan = sys.argv[1:7]
faults = int(faults)
mon = subprocess.Popen([vm, "exec", "--timeout", "900", "--",
    "snodectl -j monitor count %d 2>&1" % (2 * faults + 2)],
    stdout=subprocess.PIPE, text=True, bufsize=1)
# a line is stamped when it arrives, not when the loop below, waiting for
# the ctl process to exit, gets to it
lines = queue.Queue()
def reader():
    for l in mon.stdout:
        lines.put((time.monotonic(), l))
    lines.put((time.monotonic(), None))
threading.Thread(target=reader, daemon=True).start()
def line():
    t, l = lines.get()
    if l is None:
        sys.exit("monitor ended early")
    return t, l.split("] ", 1)[-1].strip()
# the same command through the fm control socket that snode-fm ctl uses
# (one request: the arguments, each ending in NUL; answer chunks "o", "e",
# then "x0" or "x1"), without starting a process
def ctl_socket(args):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(fmdir + "/ctl.sock")
    s.send(b"".join(a.encode() + bytes(1) for a in args))
    while True:
        m = s.recv(65536)
        if not m:
            sys.exit("the fm closed the control socket without an answer")
        if m[:1] == b"x":
            break
    s.close()
    if m[1:2] != b"0":
        sys.exit("ctl %s failed" % " ".join(args))
def ctl_process(args):
    subprocess.run([fm, "ctl", "--dir", fmdir] + args, check=True,
                   stdout=subprocess.DEVNULL)
def fault(how, state):
    t0 = time.monotonic()
    (ctl_process if how == "process" else ctl_socket)(["link", state, "0.1"])
    while True:
        t, l = line()
        if not l.startswith("{"):
            continue
        e = json.loads(l)
        if e.get("event") == "link-state" and e.get("port") == 1 and e.get("state") == state:
            break
    time.sleep(1.2)
    return (t - t0) * 1e3
while "monitoring" not in line()[1]:
    pass
time.sleep(1.2)
# The first fault after the monitor starts runs the guest code of its
# path (the monitor printing a link event, the threaded IRQ) for the first
# time, so TCG translates it: about 10 ms more. It is timed and reported
# as the first fault, apart from the steady state below.
first = [fault("socket", "down"), fault("socket", "up")]
lat = {"process": [], "socket": []}
# the two ways take turns, a fault (down) and its repair (up) each
for i in range(2 * faults):
    how = "process" if i % 4 < 2 else "socket"
    lat[how].append(fault(how, "down" if i % 2 == 0 else "up"))
mon.wait(timeout=60)
def stats(v):
    s = sorted(v)
    return {"faults": len(s), "min_ms": s[0], "median_ms": s[len(s) // 2],
            "p90_ms": s[math.ceil(len(s) * 0.9) - 1],
            "p99_ms": s[math.ceil(len(s) * 0.99) - 1], "mean_ms": sum(s) / len(s)}
r = stats(lat["process"])
r["exec_channel"] = chan
r["socket"] = stats(lat["socket"])
r["first_ms"] = first
r["samples_ms"] = lat
json.dump(r, open(out, "w"), indent=2)
print("host: snode-fm ctl -> snodectl monitor line (ms): min %.1f median %.1f p90 %.1f p99 %.1f mean %.1f (%d faults, %s exec channel)"
      % (r["min_ms"], r["median_ms"], r["p90_ms"], r["p99_ms"], r["mean_ms"], r["faults"], chan))
q = r["socket"]
print("host: the same command through the fm control socket, no ctl process (ms): min %.1f median %.1f p90 %.1f p99 %.1f mean %.1f (%d faults)"
      % (q["min_ms"], q["median_ms"], q["p90_ms"], q["p99_ms"], q["mean_ms"], q["faults"]))
print("host: the first fault and its repair after the monitor started, apart (ms): %.1f %.1f"
      % tuple(first))
'

[ $# -gt 0 ] || set -- 6.1 6.12
for kernel in "$@"; do
	echo "== link health on Debian $kernel (TCG, 2 vCPUs; 256 simulated nodes)"
	"$VM" down >/dev/null 2>&1
	if ! "$VM" up --topology "$TOPO" --kernel "$kernel" \
		>"$OUT/link-vm-$kernel.log" 2>&1; then
		echo "bench: snode-vm up failed (see $OUT/link-vm-$kernel.log)"
		rc=1
		continue
	fi
	"$VM" exec --timeout 600 -- "insmod /lib/snode/snode.ko &&
		snode-perf -o /tmp/events.json events count 20" |
		sed 's/^\[node[0-9]*\] //' >"$OUT/link-$kernel.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	python3 -c "$HOST_BENCH" "$VM" "$FM" "$SNODE_FM_DIR" "$FAULTS" \
		"$OUT/link-host-$kernel.json" \
		"$(cat "$SNODE_VM_UP/exec-channel" 2>/dev/null || echo unknown)" \
		>>"$OUT/link-$kernel.txt" || rc=1
	cat "$OUT/link-$kernel.txt"
	"$VM" exec -- "cat /tmp/events.json" | sed 's/^\[node[0-9]*\] //' \
		>"$OUT/link-$kernel.json"
	"$VM" down >/dev/null 2>&1

	echo "== fabric view of 1024 nodes x 2 links on Debian $kernel (target 20 ms)"
	if ! "$VM" up --topology "$TOPO1024" --kernel "$kernel" \
		>"$OUT/dump-vm-$kernel.log" 2>&1; then
		echo "bench: snode-vm up 1024-sim failed (see $OUT/dump-vm-$kernel.log)"
		rc=1
		continue
	fi
	# the fm attaches the guest and tells it of 1023 nodes; wait for them
	"$VM" exec --timeout 600 -- "insmod /lib/snode/snode.ko &&
		for i in \$(seq 60); do [ \$(snodectl node list | grep -c ' up ') = 1023 ] && break; sleep 1; done;
		snode-perf -o /tmp/dump.json dump count 50" |
		sed 's/^\[node[0-9]*\] //' >"$OUT/dump-$kernel.txt"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	cat "$OUT/dump-$kernel.txt"
	"$VM" exec -- "cat /tmp/dump.json" | sed 's/^\[node[0-9]*\] //' \
		>"$OUT/dump-$kernel.json"
	"$VM" down >/dev/null 2>&1
done
exit $rc
