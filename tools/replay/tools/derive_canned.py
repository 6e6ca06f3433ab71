#!/usr/bin/env python3
"""Derives a GPU profile's `canned:` entries from hardware recordings (fixtures/hw/*).

  derive_canned.py [--report] CMD[,CMD...] TRACE...

For each control CMD it prints YAML canned entries from the recorded calls: one entry when every call had
the same input, else one entry per distinct input (`in:`), each with the first recorded output, or with the
recorded status when the driver refused it. With --report it
prints instead, per control, the output bytes that differ between calls with the same input (candidates for
the control row's volatile ranges) and the recorded statuses. The profile is then what the emulator answers
from; the recording is read here, once, never at answer time.
"""
import gzip
import os
import sys


def hexrun(b):
    """Hex in the profile blob grammar: runs of 8+ equal bytes as HH*N, trailing zeros dropped."""
    while b and b[-1] == 0:
        b = b[:-1]
    out, i, lit = [], 0, ""
    while i < len(b):
        j = i
        while j < len(b) and b[j] == b[i]:
            j += 1
        if j - i >= 8:
            if lit:
                out.append(lit)
                lit = ""
            out.append("%02x*%d" % (b[i], j - i))
        else:
            lit += b[i:j].hex()
        i = j
    if lit:
        out.append(lit)
    s = " ".join(out) if out else "00"
    return s


def calls(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        for n, line in enumerate(f, 1):
            if " CTRL " not in line:
                continue
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if "pout" not in kv:
                continue
            yield n, int(kv["cmd"], 16), int(kv["status"], 16), bytes.fromhex(kv.get("pin", "")), \
                bytes.fromhex(kv["pout"])


def main():
    args = sys.argv[1:]
    report = args and args[0] == "--report"
    if report:
        args = args[1:]
    cmds = [int(c, 16) for c in args[0].split(",")]
    traces = args[1:]
    seen = {c: [] for c in cmds}
    for t in traces:
        for n, cmd, st, pin, pout in calls(t):
            if cmd in seen:
                seen[cmd].append((os.path.basename(t), n, st, pin, pout))
    for cmd in cmds:
        rows = seen[cmd]
        if report:
            sts = sorted({r[2] for r in rows})
            var = set()
            by_in = {}
            for r in rows:
                by_in.setdefault(r[3], []).append(r[4])
            for outs in by_in.values():
                for o in outs[1:]:
                    var |= {i for i in range(min(len(o), len(outs[0]))) if o[i] != outs[0][i]}
            rng, start = [], None
            for i in sorted(var) + [None]:
                if start is not None and (i is None or i != prev + 1):
                    rng.append("%d+%d" % (start, prev + 1 - start))
                    start = None
                if i is not None and start is None:
                    start = i
                prev = i
            print("0x%08x calls %d inputs %d sizes %s statuses %s varying %s" % (
                cmd, len(rows), len(by_in), sorted({len(r[4]) for r in rows}), [hex(s) for s in sts], rng))
            continue
        distinct_in = {r[3] for r in rows}
        first = {}
        for r in rows:
            key = r[3] if len(distinct_in) > 1 else b""
            first.setdefault(key, r)
        for key, r in first.items():
            print("  - cmd: 0x%x" % cmd)
            print('    source: "%s line %d"' % (r[0], r[1]))
            if key:
                print("    in: %s" % hexrun(key))
            print("    size: %d" % len(r[4]))
            if r[2]:
                print("    status: 0x%x" % r[2])
                print("    out: 00")
            else:
                print("    out: %s" % hexrun(r[4]))


if __name__ == "__main__":
    main()
