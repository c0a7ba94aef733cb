#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# exec-stream.py - host test of snode-vm's exec client: the guest's output
# arrives in arbitrary pieces, and whatever the cut the client must print
# the same lines as when the whole reply arrives at once, and end with the
# command's status. Runs the client's own code (EXEC_CLIENT in snode-vm)
# against a socket that replays the pieces. Prints TAP.
#
# Usage: tools/emu/vm/tests/exec-stream.py

import io
import os
import random
import re
import sys
import types

VM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "snode-vm")
code = re.search(r"^EXEC_CLIENT='\n(.*?)^'$", open(VM).read(), re.S | re.M).group(1)


def run(pieces, tok):
    """Run the client over a reply cut into @pieces: (stdout, status)."""
    class Sock:
        def connect(self, path): pass
        def sendall(self, data): pass
        def settimeout(self, t): pass
        def recv(self, n): return pieces.pop(0) if pieces else b""

    out = io.BytesIO()
    fake = types.SimpleNamespace(socket=lambda *a: Sock(), AF_UNIX=0,
                                 SOCK_STREAM=0, timeout=TimeoutError)
    saved = sys.argv, sys.stdout, sys.stderr
    sys.argv = ["exec", "sock", "3", tok, "script", "60"]
    sys.stdout = types.SimpleNamespace(buffer=out)
    sys.stderr = io.StringIO()
    status = None
    try:
        exec(code.replace("import os, socket, sys, time",
                          "import os, sys, time"),
             {"__name__": "exec_client", "socket": fake})
    except SystemExit as e:
        status = e.code
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
    return out.getvalue(), status


def expected(output):
    """The lines of a command's output, as the client prints them."""
    body = output[:-1] if output.endswith(b"\n") else output
    return b"".join(b"[node3] " + l + b"\n" for l in body.split(b"\n")) if body else b""


outputs = [b"", b"\n", b"a", b"a\n", b"a\n\n", b"a\nb", b"a\nb\n",
           b"\n\na\n\n\nb\n", b"x" * 100 + b"\n" + b"y" * 5,
           b"SNODE-EXEC-END 1-2 0\n", b"\nSNODE-EXEC-END\n"]
rng = random.Random(20261203)
n = 0
fails = 0
for output in outputs:
    tok = "77-%d" % n
    reply = output + ("\nSNODE-EXEC-END %s 5\n" % tok).encode()
    bad = None
    for trial in range(300):
        cuts = sorted(rng.sample(range(1, len(reply)),
                                 min(len(reply) - 1, rng.randint(0, 8))))
        pieces = [reply[a:b] for a, b in zip([0] + cuts, cuts + [len(reply)])]
        got, status = run(list(pieces), tok)
        if got != expected(output) or status != 5:
            bad = (pieces, got, status)
            break
    n += 1
    if bad is None:
        print("ok %d - exec client: output %r in any pieces" % (n, output[:24]))
    else:
        fails += 1
        print("not ok %d - exec client: output %r cut as %r printed %r, status %r"
              % (n, output[:24], bad[0], bad[1], bad[2]))
# A line is printed as soon as its newline arrives, not when more follows.
got, status = run([b"first\n"], "9-9")
n += 1
if got == b"[node3] first\n":
    print("ok %d - exec client: a complete line is printed at once" % n)
else:
    fails += 1
    print("not ok %d - exec client: after 'first\\n' alone it printed %r" % (n, got))
print("1..%d" % n)
sys.exit(1 if fails else 0)
