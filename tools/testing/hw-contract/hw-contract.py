#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hw-contract: the driver, the device model and the hardware document agree.

Reads the rows hw-contract-dump prints (what driver/hw.h and the device
model's snode-nic.h define, see hc.h), the command table of the device
model's admin.c, and the tables of Documentation/hw/snode-nic.rst, and
checks, one TAP line per item:

  - every register, field, status code, opcode and event type the document
    lists has the document's value on both sides, and neither side defines
    one the document does not list;
  - every structure the document lays out (offset/size tables and the
    name(size) lists) has the document's size and field offsets on each
    side that defines it, and the two sides name the fields alike;
  - every admin command's parameters: the words the document names (cdwN)
    are the words each side's parameter struct covers, at the same offsets
    and names on both sides, and the device's command table row has the
    opcode's name, a parameter struct of that size and the document's
    asynchronous flag; results (result0/result1) likewise.

Usage: hw-contract.py DUMP DOC ADMIN_C
  DUMP is hw-contract-dump (run) or a file holding its output.
"""

import os
import re
import subprocess
import sys


def die(msg):
    print("Bail out! " + msg)
    sys.exit(1)


# --- the two sides -----------------------------------------------------------

def read_dump(path):
    """Rows from the dump program (run it) or from a file of its output."""
    sides = {"driver": {}, "device": {}}
    if os.access(path, os.X_OK):
        out = subprocess.run([path], check=True, stdout=subprocess.PIPE,
                             text=True).stdout
    else:
        out = open(path).read()
    if not out.strip():
        die("no rows from " + path)
    for line in out.splitlines():
        side, kind, name, value, extra = line.split()
        sides[side].setdefault(kind, {})[name] = (int(value), int(extra))
    return sides


# --- the document ------------------------------------------------------------

def sections(text):
    """Split the document at its numbered headings: {"3.1": body, "4": body}."""
    out = {}
    heads = list(re.finditer(r"^(\d+(?:\.\d+)?)\.? [^\n]+\n[=-]+\n", text, re.M))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        out[m.group(1)] = text[m.end():end]
    return out


def register_rows(body):
    """Rows of a register table: (offset, name, description joined)."""
    rows = []
    for line in body.split("\n"):
        m = re.match(r"^(0x[0-9a-f]+)\s+([A-Z0-9_]+)\s+(RO|RW|W1C|WO)(?:\s+(.*))?$", line)
        if m:
            rows.append([int(m.group(1), 16), m.group(2), m.group(4) or ""])
        elif rows and rows[-1] and re.match(r"^\s{10,}\S", line):
            rows[-1][2] += " " + line.strip()
        elif rows and line.startswith("="):
            rows.append(None)   # table border: no more continuation
    return [r for r in rows if r]


WORD_ALIASES = {"ep": "endpoint", "src": "source", "dst": "destination",
                "len": "length"}


def words(name):
    out = set()
    for w in re.split(r"[\s_]+", name.lower()):
        if w:
            out.add(WORD_ALIASES.get(w, w))
    return out


def doc_fields(desc):
    """Bit fields named in a register's description: {mask: name}."""
    fields = {}

    def add(hi, lo, name):
        if "reserved" in name.lower():
            return
        fields[((1 << (hi - lo + 1)) - 1) << lo] = name.strip()

    for m in re.finditer(r"(?<![\w\]])\[(\d+):(\d+)\]\s*([A-Za-z][A-Za-z ]*)", desc):
        add(int(m.group(1)), int(m.group(2)), m.group(3))
    for m in re.finditer(r"\b([a-z]+)\[(\d+):(\d+)\]", desc):
        add(int(m.group(2)), int(m.group(3)), m.group(1))
    for m in re.finditer(r"(?<![\w:])\[(\d+)\]\s*([A-Z]\w*)", desc):
        add(int(m.group(1)), int(m.group(1)), m.group(2))
    for m in re.finditer(r"\bbit (\d+) ([A-Z][A-Z_]+)\b", desc):
        add(int(m.group(1)), int(m.group(1)), m.group(2))
    return fields


def layout_table(body):
    """The first offset/size/field table of a section: [(offset, size, name)]."""
    rows = []
    m = re.search(r"^(\s*)offset\s+size\s+field\s*$", body, re.M)
    if not m:
        return rows
    for line in body[m.end():].split("\n"):
        r = re.match(r"^\s*(\d+)\s+(\d+)\s+(\S.*)$", line)
        if r:
            rows.append((int(r.group(1)), int(r.group(2)), r.group(3)))
        elif rows and re.match(r"^\s*=+", line):
            break
    return rows


def name_size_list(text):
    """'valid(1) flags(1) reserved(2) node(4)': [(offset, size, name)]."""
    rows, off = [], 0
    for m in re.finditer(r"([a-z_]+)\((\d+)[,)]", text):
        size = int(m.group(2))
        rows.append((off, size, m.group(1)))
        off += size
    return rows


def op_paragraphs(body):
    """Section 4: {name: (opcode, paragraph)}."""
    ops = {}
    heads = list(re.finditer(r"^(0x[0-9a-f]{2}) ([A-Z_]+)(.*)$", body, re.M))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        ops[m.group(2)] = (int(m.group(1), 16), m.group(3) + body[m.end():end])
    return ops


def read_doc(path):
    text = open(path).read()
    sec = sections(text)
    for s in ("2", "3.1", "3.2", "3.3", "3.4", "4", "8", "9", "10"):
        if s not in sec:
            die("section %s not found in %s" % (s, path))
    doc = {"reg": {}, "field": {}, "status": {}, "op": {}, "event": {},
           "layout": {}, "ops": {}}
    for body in (sec["2"], sec["9"]):
        for off, name, desc in register_rows(body):
            doc["reg"][name] = off
            for mask, fname in doc_fields(desc).items():
                doc["field"].setdefault(name, {})[mask] = fname
    cap = re.search(r"^CAP bits:\n(.*)", sec["2"], re.M | re.S)
    if not cap:
        die("CAP bits table not found")
    for m in re.finditer(r"^(\d+)\s+([A-Z_]+)\s", cap.group(1), re.M):
        doc["field"].setdefault("CAP", {})[1 << int(m.group(1))] = m.group(2)
    for m in re.finditer(r"^(\d+)\s+([A-Z_]+)\b", sec["3.4"], re.M):
        doc["status"][m.group(2)] = int(m.group(1))
    for m in re.finditer(r"^(\d+)\s+([A-Z_]{4,})\s", sec["8"], re.M):
        doc["event"][m.group(2)] = int(m.group(1))

    ops = op_paragraphs(sec["4"])
    for name, (code, para) in ops.items():
        doc["op"][name] = code
        cdws = [int(x) for x in re.findall(r"\bcdw(\d+)\b", para)]
        results = sorted(set(int(x) for x in re.findall(r"\bresult([01])\b", para)))
        doc["ops"][name] = {
            "words": max(cdws) + 1 if cdws else 0,
            "cdws": sorted(set(cdws)),
            "results": results,
            "async": "*asynchronous" in para.lower(),
        }

    lay = doc["layout"]
    lay["admin_cmd"] = layout_table(sec["3.1"])
    lay["admin_cqe"] = layout_table(sec["3.2"])
    lay["event"] = layout_table(sec["3.3"])
    lay["identify"] = layout_table(ops["IDENTIFY"][1])
    lay["port_info"] = layout_table(ops["PORT_QUERY"][1])
    lay["node_topo"] = layout_table(ops["NODE_TOPO"][1])
    lay["topo_name"] = layout_table(ops["TOPO_NAMES"][1])
    lay["msg_slot"] = layout_table(sec["9"])
    lay["dma_desc"] = layout_table(sec["10"])
    lay["att_info"] = name_size_list(ops["ATT_QUERY"][1].split("Out buffer")[1])
    lay["export_info"] = name_size_list(ops["EXPORT_QUERY"][1].split("Out buffer")[1])
    ext = re.search(r"An entry is (.*?):", ops["EXPORT_SET"][1], re.S)
    lay["host_extent"] = name_size_list(ext.group(1)) if ext else []
    dcq = re.search(r"Completion \(16 bytes, DCQ\):(.*?)\n\n", sec["10"], re.S)
    lay["dma_cqe"] = name_size_list(dcq.group(1)) if dcq else []
    st = re.search(r"of u64 counters:(.*?)\.\n", ops["STATS"][1], re.S)
    if st:
        rows, off = [], 0
        for item in st.group(1).split(","):
            item = item.strip()
            m = re.match(r"(\w+)(?:\((\d+)\))?$", item)
            n = int(m.group(2) or 1)
            rows.append((off, 8 * n, m.group(1)))
            off += 8 * n
        lay["hw_stats"] = rows
    ev = {"LINK_STATE": "event_link_state", "LINK_BER": "event_link_ber",
          "NODE_STATE": "event_node_state",
          "ACCESS_VIOLATION": "event_access_violation",
          "WINDOW_REVOKED": "event_window_revoked",
          "THERMAL": "event_thermal", "EQ_OVERFLOW": "event_overflow",
          "FABRIC": "event_fabric"}
    rows = re.findall(r"^(\d+)\s+([A-Z_]{4,})\s+(.*(?:\n {28}.*)*)", sec["8"], re.M)
    for _, name, data in rows:
        if name in ev:
            lay[ev[name]] = name_size_list(" ".join(data.split()))
    for k, v in lay.items():
        if not v:
            die("layout of %s not found in the document" % k)
    return doc


# --- the device's command table ----------------------------------------------

def read_table(path):
    """Rows of snode_admin_ops[]: {opcode macro name: (name, words struct, async)}."""
    text = open(path).read()
    m = re.search(r"snode_admin_ops\[\d*\] = \{(.*?)\n\};", text, re.S)
    if not m:
        die("command table snode_admin_ops not found in " + path)
    rows = {}
    for r in re.finditer(r"\[SNODE_OP_(\w+)\]\s*=\s*\{\s*\"(\w+)\",\s*(\w+),\s*"
                         r"SNODE_WORDS\((\w+)\),\s*([\w|]+)\s*\}", m.group(1)):
        rows[r.group(1)] = {"name": r.group(2), "handler": r.group(3),
                            "struct": r.group(4),
                            "async": "SNODE_CMD_ASYNC" in r.group(5)}
    if len(rows) != m.group(1).count("[SNODE_OP_"):
        die("a row of snode_admin_ops is not in the form this test reads")
    return rows


# --- checks ------------------------------------------------------------------

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, name, problems):
        self.n += 1
        if problems:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for p in problems:
                print("#   " + p)
        else:
            print("ok %d - %s" % (self.n, name))


def norm_member(name):
    name = name.lower()
    if name.startswith("rsvd") or name.startswith("reserved"):
        return "reserved"
    return name


def check_values(tap, kind, doc_vals, sides, label):
    """kind rows (reg/status/op/event): document value on both sides."""
    for side in ("driver", "device"):
        got = {k: v for k, (v, _) in sides[side].get(kind, {}).items()}
        problems = []
        for name, val in sorted(doc_vals.items(), key=lambda x: x[1]):
            if name not in got:
                problems.append("%s %s (0x%x in the document) is not defined" %
                                (label, name, val))
            elif got[name] != val:
                problems.append("%s %s is 0x%x, the document says 0x%x" %
                                (label, name, got[name], val))
        for name in sorted(set(got) - set(doc_vals)):
            problems.append("%s %s = 0x%x is not in the document" %
                            (label, name, got[name]))
        tap.check("%s: every %s matches the document (%d)" %
                  (side, label, len(doc_vals)), problems)


def check_fields(tap, doc, sides):
    for side in ("driver", "device"):
        got = {}
        for key, (mask, _) in sides[side].get("field", {}).items():
            reg, fname = key.split(".", 1)
            got.setdefault(reg, {})[mask] = fname
        problems = []
        for reg in sorted(set(doc["field"]) | set(got)):
            want, have = doc["field"].get(reg, {}), got.get(reg, {})
            for mask, dname in sorted(want.items()):
                if mask not in have:
                    problems.append("%s: field %r (mask 0x%x) is not defined" %
                                    (reg, dname, mask))
                elif not words(have[mask]) & words(dname):
                    problems.append("%s: mask 0x%x is %s, the document calls it %r" %
                                    (reg, mask, have[mask], dname))
            for mask, fname in sorted(have.items()):
                if mask not in want:
                    problems.append("%s.%s: mask 0x%x is not a field in the document" %
                                    (reg, fname, mask))
        n = sum(len(v) for v in doc["field"].values())
        tap.check("%s: every register field matches the document (%d)" % (side, n),
                  problems)


def merge_reserved(rows):
    """Adjacent reserved fields are one: reserved(3) reserved(4) == rsvd[7]."""
    out = []
    for off, size, name in sorted(rows):
        if out and norm_member(name) == "reserved" and out[-1][2] == "reserved" \
                and out[-1][0] + out[-1][1] == off:
            out[-1] = (out[-1][0], out[-1][1] + size, "reserved")
        else:
            out.append((off, size, norm_member(name)))
    return out


def check_layouts(tap, doc, sides):
    for struct, rows in sorted(doc["layout"].items()):
        rows = merge_reserved(rows)
        want_size = rows[-1][0] + rows[-1][1]
        members = {}
        problems = []
        defined = []
        for side in ("driver", "device"):
            size = sides[side].get("size", {}).get(struct)
            if size is None:
                continue
            defined.append(side)
            mem = []
            for key, (off, sz) in sides[side].get("member", {}).items():
                s, m = key.split(".", 1)
                if s == struct:
                    mem.append((off, sz, m))
            mem = {o: (sz, m) for o, sz, m in merge_reserved(mem)}
            members[side] = mem
            if size[0] != want_size:
                problems.append("%s: sizeof is %d, the document says %d" %
                                (side, size[0], want_size))
            doc_offs = {(o, s) for o, s, _ in rows}
            have_offs = {(o, s) for o, (s, _) in mem.items()}
            for o, s in sorted(doc_offs - have_offs):
                problems.append("%s: no member at offset %d size %d (%s)" %
                                (side, o, s, [n for oo, ss, n in rows if oo == o][0]))
            for o, s in sorted(have_offs - doc_offs):
                problems.append("%s: member %s at offset %d size %d is not in the document" %
                                (side, mem[o][1], o, s))
        if not defined:
            problems.append("neither side defines it")
        if len(members) == 2:
            for off in sorted(set(members["driver"]) & set(members["device"])):
                a, b = members["driver"][off][1], members["device"][off][1]
                if a != b:
                    problems.append("offset %d: the driver calls it %s, the device %s" %
                                    (off, a, b))
        note = "" if len(defined) == 2 else " (only the %s defines it)" % " and ".join(defined)
        tap.check("struct %s: size and offsets match the document on both sides%s"
                  % (struct, note) if len(defined) == 2 else
                  "struct %s: size and offsets match the document%s" % (struct, note),
                  problems)


def check_commands(tap, doc, sides, table):
    dev_words = {k: v for k, (v, _) in sides["device"].get("words", {}).items()}
    for name, d in sorted(doc["ops"].items(), key=lambda x: doc["op"][x[0]]):
        problems = []
        params = {}
        for side in ("driver", "device"):
            p = {}
            for key, (off, sz) in sides[side].get("cmd", {}).items():
                op, m = key.split(".", 1)
                if op == name:
                    p[off] = (sz, m)
            params[side] = p
            covered = set()
            for off, (sz, m) in p.items():
                if off < 20 or off + sz > 64 or sz % 4:
                    problems.append("%s: %s at offset %d size %d is not in cdw[]" %
                                    (side, m, off, sz))
                for w in range(sz // 4):
                    covered.add((off - 20) // 4 + w)
            if covered != set(range(len(covered))):
                problems.append("%s: parameter words %s are not cdw0 onwards" %
                                (side, sorted(covered)))
            if len(covered) != d["words"]:
                problems.append("%s: %d parameter words, the document names %d (cdw%s)" %
                                (side, len(covered), d["words"],
                                 ", cdw".join(map(str, d["cdws"]))))
        if params["driver"] != params["device"]:
            problems.append("driver and device parameters differ: %s vs %s" %
                            (sorted(params["driver"].items()),
                             sorted(params["device"].items())))
        row = table.get(name)
        if not row:
            problems.append("device: no command table row")
        else:
            if row["name"] != name:
                problems.append("device: the table row names it %s" % row["name"])
            words = dev_words.get(row["struct"])
            if words is None:
                problems.append("device: table row uses %s, unknown to the test" %
                                row["struct"])
            elif words != d["words"]:
                problems.append("device: table row's %s has %d words, the document %d" %
                                (row["struct"], words, d["words"]))
            if row["async"] != d["async"]:
                problems.append("device: table row async=%s, the document says %s" %
                                (row["async"], d["async"]))
        for side in ("driver", "device"):
            res = set()
            for key, (off, sz) in sides[side].get("res", {}).items():
                op, m = key.split(".", 1)
                if op == name:
                    for w in range(sz // 4):
                        res.add((off - 4) // 4 + w)
            if sorted(res) != d["results"]:
                problems.append("%s: result words %s, the document names %s" %
                                (side, sorted(res), d["results"]))
        tap.check("command %s: parameters, results and table row match the document"
                  % name, problems)
    for name in sorted(set(table) - set(doc["ops"])):
        tap.check("command table row %s is in the document" % name,
                  ["not in section 4"])


def main():
    if len(sys.argv) != 4:
        die("usage: hw-contract.py DUMP DOC ADMIN_C")
    sides = read_dump(sys.argv[1])
    doc = read_doc(sys.argv[2])
    table = read_table(sys.argv[3])
    tap = Tap()
    print("TAP version 13")
    check_values(tap, "reg", doc["reg"], sides, "register")
    check_fields(tap, doc, sides)
    check_values(tap, "status", doc["status"], sides, "status code")
    check_values(tap, "op", doc["op"], sides, "opcode")
    check_values(tap, "event", doc["event"], sides, "event type")
    check_layouts(tap, doc, sides)
    check_commands(tap, doc, sides, table)
    print("1..%d" % tap.n)
    print("# %d passed, %d failed" % (tap.n - tap.failed, tap.failed))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
