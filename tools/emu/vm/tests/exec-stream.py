#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# exec-stream.py - host test of snode-vm's exec client: the guest's output
# arrives in arbitrary pieces, and whatever the cut the client must print
# the same lines as when the whole reply arrives at once, and end with the
# command's status. What an abandoned earlier command left on the channel
# (the virtio port keeps it for the next reader) comes before this
# command's begin line and must not be printed. Runs the client's own code
# (EXEC_CLIENT in snode-vm) over a channel that replays the pieces; both
# transports (UART socket, virtio FIFOs) hand the client such a channel.
# Prints TAP.
#
# Usage: tools/emu/vm/tests/exec-stream.py

import io
import os
import random
import re
import sys
import time

VM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "snode-vm")
code = re.search(r"^EXEC_CLIENT='\n(.*?)^'$", open(VM).read(), re.S | re.M).group(1)
client = {"__name__": "exec_client"}
exec(code, client)
client = client["client"]


def run(pieces, tok):
    """Run the client over a reply cut into @pieces: (stdout, status, request)."""
    sent = []

    def recv(left):
        return pieces.pop(0) if pieces else b""

    out = io.BytesIO()
    saved = sys.stderr
    sys.stderr = io.StringIO()
    try:
        status = client(sent.append, recv, "3", tok, "c2NyaXB0", time.time() + 60, out)
    finally:
        sys.stderr = saved
    return out.getvalue(), status, b"".join(sent)


def expected(output):
    """The lines of a command's output, as the client prints them."""
    body = output[:-1] if output.endswith(b"\n") else output
    return b"".join(b"[node3] " + l + b"\n" for l in body.split(b"\n")) if body else b""


outputs = [b"", b"\n", b"a", b"a\n", b"a\n\n", b"a\nb", b"a\nb\n",
           b"\n\na\n\n\nb\n", b"x" * 100 + b"\n" + b"y" * 5,
           b"SNODE-EXEC-END 1-2 0\n", b"\nSNODE-EXEC-END\n",
           b"SNODE-EXEC-BEGIN 1-2\n"]
# left over from earlier commands, before this one's begin line
stale = [b"", b"late output\n", b"half a line",
         b"\nSNODE-EXEC-END 1-1 0\nSNODE-EXEC-BEGIN 1-2\nold\n\nSNODE-EXEC-END 1-2 4\n"]
rng = random.Random(20261203)
n = 0
fails = 0
for output in outputs:
    for before in stale:
        tok = "77-%d" % n
        reply = (before + ("SNODE-EXEC-BEGIN %s\n" % tok).encode() + output +
                 ("\nSNODE-EXEC-END %s 5\n" % tok).encode())
        bad = None
        for trial in range(200):
            cuts = sorted(rng.sample(range(1, len(reply)),
                                     min(len(reply) - 1, rng.randint(0, 8))))
            pieces = [reply[a:b] for a, b in zip([0] + cuts, cuts + [len(reply)])]
            got, status, req = run(list(pieces), tok)
            if got != expected(output) or status != 5 or req != ("%s c2NyaXB0\n" % tok).encode():
                bad = (pieces, got, status)
                break
        n += 1
        if bad is None:
            print("ok %d - exec client: output %r after %r in any pieces"
                  % (n, output[:24], before[:16]))
        else:
            fails += 1
            print("not ok %d - exec client: output %r cut as %r printed %r, status %r"
                  % (n, output[:24], bad[0], bad[1], bad[2]))
# A line is printed as soon as its newline arrives, not when more follows.
got, status, _ = run([b"SNODE-EXEC-BEGIN 9-9\nfirst\n"], "9-9")
n += 1
if got == b"[node3] first\n":
    print("ok %d - exec client: a complete line is printed at once" % n)
else:
    fails += 1
    print("not ok %d - exec client: after 'first\\n' alone it printed %r" % (n, got))
# Nothing of this command's output may be printed before its begin line.
got, status, _ = run([b"first\n", b""], "9-9")
n += 1
if got == b"" and status == 125:
    print("ok %d - exec client: output without this command's begin line is not printed" % n)
else:
    fails += 1
    print("not ok %d - exec client: without a begin line it printed %r, status %r" % (n, got, status))
print("1..%d" % n)
sys.exit(1 if fails else 0)
