#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""driver-layering.py - the file-level call graph of driver/ and its cycles.

The rule (issue 33; Documentation/driver/snode.rst, "Layers"):

  module     main.c: module init and exit, and the one table that names
             every feature, front end and listener (struct snode_driver).
             It may call anything; nothing calls it.
  core       pci.c core.c queue.c fs.c: bring-up, reset, the admin and
             event queues, event dispatch, the anonymous-inode helpers.
             The core calls no feature and no front end directly; it
             reaches them only through the tables main.c hands it
             (struct snode_feature_ops, struct snode_listener_ops).
  features   everything else that is not a front end (mem*, export,
             import*, map, hostmem, dma*, msg, ep*, net*, link*, hwmon).
             A feature may call the core; one feature reaches another only
             through the core's API or a header the core owns. The files
             of one feature (FEATURE below: one private header, as mem.h
             for mem*, export, import*, map, hostmem) call each other.
  front ends cdev.c (ioctl dispatch), netlink.c and nl_*.c (the netlink
             family), debugfs.c, sysfs.c, devlink.c: they may call any
             feature's API and the core; nothing but the core's tables
             calls them.

Edges are taken from the built objects (nm: a symbol one object defines
and another leaves undefined), so only real calls and data references
count, not comments or inline helpers in headers. The script prints the
cycles between rooms (a feature's files, the netlink family's files, or a
file of its own: the files inside one room may call each other), each edge
inside one with the symbols that make it, and every edge the rule above
forbids.

With --check (make lint) it exits 1 on a cycle, on a forbidden edge that
driver-layering.allow does not list, and on a listed edge that no longer
exists (remove it from the list: the list only shrinks). Each line of the
list is "from.c -> to.c: why it is still there".

Usage: driver-layering.py [--check] [OBJDIR]
       (default OBJDIR: build/mod/6.12/driver after make modules-guest)
"""
import os
import subprocess
import sys

MODULE = {"main"}
CORE = {"pci", "core", "queue", "fs"}
FRONT = {"cdev", "netlink", "debugfs", "sysfs", "devlink"}
# Files of one feature (one private header) call each other freely.
FEATURE = {
    "mem": "mem", "mem_list": "mem", "export": "mem", "import": "mem",
    "import_att": "mem", "map": "mem", "hostmem": "mem",
    "msg": "msg", "ep": "msg", "ep_kernel": "msg",
    "dma": "dma", "dma_queue": "dma",
    "link": "link", "link_util": "link", "link_iso": "link",
    "link_node": "link",
    "net": "net", "net_ctrl": "net", "net_ring": "net", "net_stats": "net",
}


def unit(f):
    """The room a file belongs to: its feature, the netlink family, or itself."""
    if f == "netlink" or f.startswith("nl_"):
        return "netlink"
    return FEATURE.get(f, f)


def layer(f):
    if f in MODULE:
        return "module"
    if f in CORE:
        return "core"
    if f in FRONT or f.startswith("nl_"):
        return "front"
    return "feature"


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undef = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undef.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    return defined, undef


def tarjan(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    top = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    objdir = args[0] if args else os.path.join(top, "build/mod/6.12/driver")
    srcdir = os.path.join(top, "driver")
    # snode.mod.c is modpost's, left in driver/ by an in-tree build
    files = sorted(f[:-2] for f in os.listdir(srcdir)
                   if f.endswith(".c") and not f.endswith(".mod.c"))
    missing = [f for f in files
               if not os.path.exists(os.path.join(objdir, f + ".o"))]
    if missing:
        print("driver-layering: no object for %s in %s (make modules-guest)"
              % (", ".join(missing), objdir), file=sys.stderr)
        return 2
    defs, undefs = {}, {}
    owner = {}
    for f in files:
        defs[f], undefs[f] = symbols(os.path.join(objdir, f + ".o"))
        for s in defs[f]:
            owner[s] = f
    via = {}
    for f in files:
        for s in undefs[f]:
            g = owner.get(s)
            if g and g != f:
                via.setdefault((f, g), set()).add(s)
    edges = {}
    for (f, g) in via:
        if unit(f) != unit(g):
            edges.setdefault(unit(f), set()).add(unit(g))

    bad = 0
    units = sorted({unit(f) for f in files})
    sccs = [c for c in tarjan(units, edges) if len(c) > 1]
    print("# %d files in %d rooms, %d edges, %d cycle(s) between rooms"
          % (len(files), len(units), len(via), len(sccs)))
    for i, comp in enumerate(sccs, 1):
        bad = 1
        print("cycle %d: %d rooms: %s" % (i, len(comp), " ".join(comp)))
        for (f, g), syms in sorted(via.items()):
            if unit(f) in comp and unit(g) in comp and unit(f) != unit(g):
                print("  %s.c -> %s.c: %s" % (f, g, " ".join(sorted(syms))))
    forbidden = []
    for (f, g), syms in sorted(via.items()):
        lf, lg = layer(f), layer(g)
        if lg == "module":
            forbidden.append((f, g, syms, "calls the module"))
        elif lf == "core" and lg not in ("core", "module"):
            forbidden.append((f, g, syms, "core calls a " + lg))
        elif lf == "feature" and lg == "front":
            forbidden.append((f, g, syms, "feature calls a front end"))
        elif lf == "feature" and lg == "feature" and \
                FEATURE.get(f, f) != FEATURE.get(g, g):
            forbidden.append((f, g, syms, "feature calls another feature"))
    allowed = read_allow(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "driver-layering.allow"))
    print("# %d edge(s) the layering rule forbids, %d of them allowed"
          % (len(forbidden), sum((f, g) in allowed
                                 for f, g, _, _ in forbidden)))
    for f, g, syms, why in forbidden:
        mark = "allowed" if (f, g) in allowed else "NEW"
        print("  %s %s.c -> %s.c (%s): %s" % (mark, f, g, why,
                                            " ".join(sorted(syms))))
        if (f, g) not in allowed:
            bad = 1
    gone = sorted(set(allowed) - {(f, g) for f, g, _, _ in forbidden})
    for f, g in gone:
        print("  stale: %s.c -> %s.c is listed but is no forbidden edge "
              "any more: drop it from driver-layering.allow" % (f, g))
        bad = 1
    return bad if check else 0


def read_allow(path):
    """The edges still allowed: "from.c -> to.c: reason" a line."""
    allowed = {}
    with open(path) as fp:
        for n, line in enumerate(fp, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            edge, sep, why = line.partition(":")
            a, arrow, b = edge.partition("->")
            if not sep or not arrow or not why.strip():
                sys.exit("%s:%d: want \"from.c -> to.c: reason\"" % (path, n))
            allowed[(a.strip()[:-2], b.strip()[:-2])] = why.strip()
    return allowed


if __name__ == "__main__":
    sys.exit(main())
