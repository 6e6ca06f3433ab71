#!/usr/bin/env python3
"""What a host-state recording of the PyTorch LC/BE experiment shows, per configuration and host state.

  pytorch_lcbe_host.py RAW_DIR [SKIP_S] [--check|--write README]

RAW_DIR is what torch_lcbe.sh wrote with configurations named NAME@STATES (CONFIG.rK.states, .host or .host.gz,
.lc.json, .beN.json.steps). Each segment drops its first SKIP_S seconds (default 0.1: the state is set ~20 ms into it).
Per segment (t: its start, seconds after the recording's first window): the LC's requests arriving in it (p50/p99
of their latency; medians of wake_us, launch_us, sync_us and cpu_us, torch_lcbe.py's per-request parts; the
involuntary context switches; the CPUs it ended its requests on), each BE's steps/s, and from the host snapshots at
the segment's ends the interrupts/s of the nvidia lines and of the local timer (LOC, every CPU's tick) and the
CPUs' busy share (/proc/stat). Then per run and state the LC's requests of its segments pooled, and each pooled
LC p50 over that of all lc-alone runs' segments pooled, in state D and in the same state. --write puts the
tables in README between <!-- host FOLDER --> and <!-- /host --> (FOLDER: RAW_DIR's name); --check fails when
they no longer come out of the recording.
"""
import gzip
import json
import os
import re
import sys

import readme_block


def pct(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def snapshots(path):
    """[(label, time, lines)] of a CONFIG.host file (or CONFIG.host.gz, as committed)."""
    out, cur = [], None
    if not os.path.exists(path):
        path += ".gz"
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        if line.startswith("=== "):
            f = line.split()
            cur = (f[1], float(f[2]), [])
            out.append(cur)
        elif cur:
            cur[2].append(line.rstrip("\n"))
    return out


def counters(lines):
    """A snapshot's interrupt rows (name -> per-CPU counts) and /proc/stat's cpu line."""
    irq, stat = {}, None
    for l in lines:
        m = re.match(r"\s*([A-Za-z0-9]+):\s+([\d\s]+)(.*)", l)
        if m and not l.startswith("/"):
            desc = m.group(3).strip()
            key = m.group(1) if not m.group(1).isdigit() else "%s %s" % (m.group(1), desc.split()[-1] if desc else "")
            irq[key] = [int(x) for x in m.group(2).split()]
        if re.match(r"cpu\s+\d", l):
            stat = [int(x) for x in l.split()[1:]]
    return irq, stat


def seg_host(a, b, dt):
    """Between two snapshots DT seconds apart: the nvidia lines' and the local timer's interrupts/s (all CPUs)
    and the CPUs' busy share."""
    ia, sa = counters(a)
    ib, sb = counters(b)
    r = {"nvidia/s": sum(sum(ib[k]) - sum(ia.get(k, [0])) for k in ib if "nvidia" in k) / dt,
         "LOC/s": (sum(ib["LOC"]) - sum(ia["LOC"])) / dt}
    d = [y - x for x, y in zip(sa, sb)]
    r["busy"] = 1 - (d[3] + d[4]) / sum(d)
    return r


def summary(raw, skip):
    """The markdown tables of one recording: every segment, then the LC pooled per configuration and state."""
    stems = sorted({f[:-len(".states")] for f in os.listdir(raw) if f.endswith(".states")},
                   key=lambda s: float(open(os.path.join(raw, s + ".window")).read()))
    t0 = float(open(os.path.join(raw, stems[0] + ".window")).read())
    out = ["| run | segment | host | t (s) | LC p50 (us) | LC p99 | wake | launch | sync | LC CPU | LC nivcsw "
           "| LC CPUs | BE steps/s | nvidia irq/s | LOC/s | CPUs busy |", "|" + "---|" * 16]
    pooled, parts, alone = {}, {}, {}
    for stem in stems:
        name = stem.split(".")[0]
        segs = [l.split() for l in open(os.path.join(raw, stem + ".states"))]
        snaps = snapshots(os.path.join(raw, stem + ".host"))
        w0 = float(open(os.path.join(raw, stem + ".window")).read())
        lc = None
        if os.path.exists(os.path.join(raw, stem + ".lc.json")):
            lc = json.load(open(os.path.join(raw, stem + ".lc.json")))
        bes = [[float(l.split()[0]) for l in open(os.path.join(raw, f))] for f in sorted(
            f for f in os.listdir(raw) if re.fullmatch(re.escape(stem) + r"\.be\d+\.json\.steps", f))]
        for k, (st, a, b, _) in enumerate(segs):
            a, b = float(a) + skip, float(b)
            cells = [stem, str(k), st, "%d" % round(a - skip - t0)]
            if lc:
                idx = [j for j in range(lc["requests"]) if a <= w0 + j / lc["rate"] < b]
                lat = [lc["latencies_us"][j] for j in idx]
                pooled.setdefault((stem, st), []).extend(lat)
                for key in PARTS:
                    parts.setdefault((stem, st, key), []).extend(lc[key][j] for j in idx)
                if name == "lc-alone":
                    alone.setdefault(st, []).extend(lat)
                cells += ["%.0f" % pct(lat, 0.5), "%.0f" % pct(lat, 0.99)]
                cells += ["%.0f" % pct([lc[key][j] for j in idx], 0.5) for key in PARTS]
                cells += [str(sum(lc["nivcsw"][j] for j in idx)),
                          ",".join(map(str, sorted({lc["cpu"][j] for j in idx})))]
            else:
                cells += [""] * 8
            cells.append(" / ".join("%.1f" % (sum(1 for t in steps if a <= t < b) / (b - a)) for steps in bes))
            h = seg_host(snaps[k][2], snaps[k + 1][2], snaps[k + 1][1] - snaps[k][1])
            cells += ["%.0f" % h["nvidia/s"], "%.0f" % h["LOC/s"], "%.1f%%" % (100 * h["busy"])]
            out.append("| " + " | ".join(cells) + " |")
    out += ["", "Each run's LC requests pooled over its segments in one host state (medians of the parts; its p50 over "
            "that of every lc-alone run's segments pooled, in state D and in its own state):", "",
            "| run | host | requests | LC p50 (us) | LC p99 | p50 / lc-alone's D | p50 / lc-alone's same state | wake "
            "| launch | sync | LC CPU |", "|" + "---|" * 11]

    def over(lat, st):
        return "%.3f" % (pct(lat, 0.5) / pct(alone[st], 0.5)) if st in alone else ""

    for (stem, st), lat in sorted(pooled.items()):
        out.append("| %s | %s | %d | %.0f | %.0f | %s | %s | %s |" % (
            stem, st, len(lat), pct(lat, 0.5), pct(lat, 0.99), over(lat, "D"), over(lat, st),
            " | ".join("%.0f" % pct(parts[(stem, st, k)], 0.5) for k in PARTS)))
    return "\n".join(out)


PARTS = ("wake_us", "launch_us", "sync_us", "cpu_us")


def main():
    args, readme, write = readme_block.split_mode(sys.argv[1:])
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    raw = args[0].rstrip("/")
    table = summary(raw, float(args[1]) if len(args) == 2 else 0.1)
    readme_block.show(readme, "<!-- host %s -->" % os.path.basename(raw), "<!-- /host -->", table, write, raw)


if __name__ == "__main__":
    main()
