#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
peer-link.py - an snode-nic faces an untrusted peer on its direct link
(Documentation/decisions/0039-direct-delivery.md).

Starts snode-fm on a two-node fabric and QEMU (CPUs stopped, no guest) as
node 0, and plays node 1's device itself: HELLO with SNODE_FM_HELLO_DIRECT,
heartbeats, and the direct link to node 0 the fm hands out. Over that link
it checks that the NIC answers a message (NO_ENDPOINT: the guest opened
none), refuses one for another node (INVALID_FIELD) and one from a node the
fm made unreachable (UNREACHABLE), ignores a reply to no message, and
closes the link, without leaking its fd or dying, on every kind of
malformed packet; "snode-fm ctl direct off|on" ends and remakes the link.

Usage: peer-link.py QEMU FIRMWARE_DIR SNODE_FM      Prints TAP.
"""

import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

QEMU, FW, FM = sys.argv[1:4]

HDR = struct.Struct("=HHIII")           # type, flags, len, seq, status
HELLO = struct.Struct("=HHIII IIII")    # + version, node, pid, features
MSG = struct.Struct("=HHIII IIHHHHQQ48s")
PEER = struct.Struct("=HHIII II")       # + node, op
T_HELLO, T_HEARTBEAT, T_MSG_DELIVER, T_PEER = 1, 2, 13, 17
F_REPLY = 1
PEER_ATTACH, PEER_DETACH = 1, 2
ST_INVALID_FIELD, ST_UNREACHABLE, ST_NO_ENDPOINT = 2, 8, 16
assert MSG.size == 96 and PEER.size == 24 and HELLO.size == 32

n = 0
fails = 0


def ok(cond, what):
    global n, fails
    n += 1
    if not cond:
        fails += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what), flush=True)
    return cond


class Node1:
    """node 1's device: the fm connection, heartbeats, the link to node 0"""

    def __init__(self, path):
        self.fm = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.fm.connect(path)
        self.link = None
        self.attaches = self.detaches = self.bad_fds = 0
        self.next_hb = 0.0
        self.seq = 0

    def hello(self):
        self.fm.send(HELLO.pack(T_HELLO, 0, HELLO.size, 1, 0, 1, 1,
                                os.getpid(), 1))
        return self.pump(5, lambda p: p[0] == T_HELLO)

    def pump(self, secs, until=None):
        """read the fm for up to secs, heartbeating; True once until(hdr)"""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= self.next_hb:
                self.fm.send(HDR.pack(T_HEARTBEAT, 0, HDR.size, 0, 0))
                self.next_hb = now + 0.1
            if not select.select([self.fm], [], [], 0.05)[0]:
                continue
            data, fds, _, _ = socket.recv_fds(self.fm, 65536, 4)
            if not data:
                raise SystemExit("the fm closed node 1's connection")
            h = HDR.unpack_from(data)
            if h[0] == T_PEER and len(data) == PEER.size:
                node, op = struct.unpack_from("=II", data, HDR.size)
                if op == PEER_ATTACH and len(fds) == 1 and node == 0:
                    if self.link:
                        self.link.close()
                    self.link = socket.socket(fileno=fds[0])
                    self.attaches += 1
                    fds = []
                elif op == PEER_DETACH and not fds and node == 0:
                    self.detaches += 1
                elif node == 1 and not fds and op in (PEER_ATTACH, PEER_DETACH):
                    pass    # our own loopback: no fd either way
                else:
                    self.bad_fds += 1
            for fd in fds:
                os.close(fd)
            if until and until(h):
                return True
        return False

    def send_msg(self, dst_node=0, dst_ep=0, length=4):
        self.seq += 1
        self.link.send(MSG.pack(T_MSG_DELIVER, 0, MSG.size, self.seq, 0,
                                1, dst_node, 0, dst_ep, length, 0, 0, 0,
                                b"ping"))
        return self.seq

    def answer(self, secs=3):
        """the next packet on the link (heartbeating meanwhile), b'' at EOF"""
        end = time.monotonic() + secs
        while time.monotonic() < end:
            self.pump(0.05)
            if select.select([self.link], [], [], 0.05)[0]:
                return self.link.recv(4096)
        return None


def fmctl(rundir, *args):
    return subprocess.run([FM, "ctl", "--dir", rundir] + list(args),
                          capture_output=True, text=True, timeout=60)


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    rundir = tempfile.mkdtemp(prefix="snode-peer-link.")
    topo = os.path.join(rundir, "peer.topo")
    with open(topo, "w") as f:
        f.write("fabric 5\ndefaults pool 16M ports 1\nswitch s0\n"
                "node 0-1\nlink 0-1.0 s0\n")
    if subprocess.run([FM, "run", "--topology", topo, "--dir", rundir]).returncode:
        ok(False, "snode-fm run")
        return
    qemu = subprocess.Popen([QEMU, "-M", "q35", "-accel", "tcg", "-nodefaults",
                             "-display", "none", "-S", "-L", FW, "-monitor", "none",
                             "-device", "pcie-root-port,id=rp1,chassis=1,slot=1",
                             "-device", "snode-nic,bus=rp1,fm=%s/fm.sock,node=0" % rundir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        run(rundir, qemu)
    finally:
        qemu.terminate()
        try:
            qemu.wait(10)
        except subprocess.TimeoutExpired:
            qemu.kill()
        try:
            with open(os.path.join(rundir, "fm.pid")) as f:
                os.kill(int(f.read()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        subprocess.run(["rm", "-rf", rundir])


def run(rundir, qemu):
    if not ok(fmctl(rundir, "wait-attached", "0", "timeout", "60000").returncode == 0,
              "QEMU's snode-nic attaches as node 0"):
        return
    d = Node1(os.path.join(rundir, "fm.sock"))
    if not ok(d.hello() and d.pump(5, lambda h: d.link is not None),
              "node 1 (HELLO_DIRECT) gets a direct link to node 0"):
        return

    def reply_is(seq, status):
        r = d.answer()
        return (r is not None and len(r) == HDR.size and
                HDR.unpack(r) == (T_MSG_DELIVER, F_REPLY, HDR.size, seq, status))

    seq = d.send_msg()
    ok(reply_is(seq, ST_NO_ENDPOINT),
       "a message over the link is answered by node 0's NIC (NO_ENDPOINT: no guest)")
    # counted once the NIC answered: it took its end by then
    fds_linked = fd_count(qemu.pid)
    seq = d.send_msg(dst_node=7)
    ok(reply_is(seq, ST_INVALID_FIELD), "a message for another node: INVALID_FIELD")
    d.link.send(HDR.pack(T_MSG_DELIVER, F_REPLY, HDR.size, 999, 0))
    seq = d.send_msg()
    ok(reply_is(seq, ST_NO_ENDPOINT),
       "a reply to no message is dropped, the link stays up")
    d.link.send(HDR.pack(T_MSG_DELIVER, F_REPLY, HDR.size, 1, 0x10000))
    seq = d.send_msg()
    ok(reply_is(seq, ST_NO_ENDPOINT),
       "a stray reply with a status above 16 bits: dropped, the link stays up")

    fmctl(rundir, "link", "down", "1.0")
    seq = d.send_msg()
    ok(reply_is(seq, ST_UNREACHABLE),
       "node 1 cut off by the fm (link down): its message is refused, UNREACHABLE")
    fmctl(rundir, "link", "up", "1.0")
    seq = d.send_msg()
    ok(reply_is(seq, ST_NO_ENDPOINT), "link up again: delivered (NO_ENDPOINT)")

    ok(fmctl(rundir, "direct", "off").returncode == 0 and
       d.pump(3, lambda h: d.detaches == 1) and d.answer() == b"",
       "ctl direct off: DETACH, and node 0's NIC closes its end")
    ok(fd_count(qemu.pid) == fds_linked - 1, "... and keeps no fd of it")

    bad = [
        (b"xyz", "3 bytes"),
        (MSG.pack(T_MSG_DELIVER, 0, MSG.size, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, b"")[:-1],
         "a message one byte short (hdr.len says 96)"),
        (MSG.pack(12, 0, MSG.size, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, b""),
         "a MSG_SEND (only the fm takes those)"),
        (MSG.pack(T_MSG_DELIVER, 2, MSG.size, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, b""),
         "unknown flags"),
        (MSG.pack(T_MSG_DELIVER, F_REPLY, MSG.size, 1, 0, 1, 0, 0, 0, 4, 0, 0, 0, b""),
         "a reply with a payload"),
        (PEER.pack(T_PEER, 0, PEER.size, 1, 0, 0, PEER_ATTACH), "a PEER packet"),
    ]
    for i, (pkt, what) in enumerate(bad):
        before = d.attaches
        if not (fmctl(rundir, "direct", "on").returncode == 0 and
                d.pump(3, lambda h: d.attaches == before + 1)):
            ok(False, "ctl direct on: a new link (before: %s)" % what)
            continue
        d.link.send(pkt)
        ok(d.answer() == b"", "%s on the link: node 0's NIC closes it" % what)
        fmctl(rundir, "direct", "off")
        d.pump(3, lambda h: d.detaches == i + 2)
    ok(d.bad_fds == 0, "every ATTACH carried one fd, no DETACH any")
    ok(qemu.poll() is None and fd_count(qemu.pid) == fds_linked - 1,
       "QEMU survives them all and keeps no fd of the closed links")
    out = fmctl(rundir, "show", "nodes", "-j")
    nodes = {x["id"]: x for x in json.loads(out.stdout or "[]")}
    ok(nodes.get(0, {}).get("attached") is True and nodes[0].get("direct") is True,
       "node 0 is still attached, and takes direct links")


main()
print("1..%d" % n)
sys.exit(1 if fails else 0)
