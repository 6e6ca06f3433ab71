#!/usr/bin/env python3
"""What a host-state recording of the PyTorch LC/BE experiment shows, per configuration and host state.

  pytorch_lcbe_host.py RAW_DIR [SKIP_S]

RAW_DIR is what torch_lcbe.sh wrote with configurations named NAME@STATES (CONFIG.rK.states, .host or .host.gz,
.lc.json, .beN.json.steps). Each segment drops its first SKIP_S seconds (default 0.1: the state is set ~20 ms into it).
Per segment: the LC's requests arriving in it (p50/p99 of their latency, medians of wake_us, launch_us, sync_us,
cpu_us, involuntary context switches, the CPUs it ran on), the BE's steps/s, and from the host snapshots at the
segment's ends: interrupts/s of the nvidia lines and of the local timer (LOC), rescheduling (RES) and
function-call (CAL) IPIs, every cpuidle state's entries/s summed over the CPUs, and the CPUs' busy share
(/proc/stat). Then per configuration and state the LC's requests of every segment pooled, and each pooled LC p50
over lc-alone's in the same state.
"""
import gzip
import json
import os
import re
import sys


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
    """interrupt rows (name -> per-CPU counts), cpuidle (state -> usage summed over CPUs), /proc/stat cpu."""
    irq, idle, stat = {}, {}, None
    for l in lines:
        m = re.match(r"\s*([A-Za-z0-9]+):\s+([\d\s]+)(.*)", l)
        if m and not l.startswith("/") and not l.startswith("cpu"):
            counts = [int(x) for x in m.group(2).split()]
            desc = m.group(3).strip()
            key = m.group(1) if not m.group(1).isdigit() else "%s %s" % (m.group(1), desc.split()[-1] if desc else "")
            irq[key] = counts
        m = re.match(r"/sys/devices/system/cpu/cpu\d+/cpuidle/(state\d+)/usage:(\d+)", l)
        if m:
            idle[m.group(1)] = idle.get(m.group(1), 0) + int(m.group(2))
        if re.match(r"cpu\s+\d", l):
            stat = [int(x) for x in l.split()[1:]]
    return irq, idle, stat


def seg_host(a, b, dt):
    ia, da, sa = counters(a)
    ib, db, sb = counters(b)
    nv = [sum(ib[k]) - sum(ia.get(k, [0])) for k in ib if "nvidia" in k]
    nv_cpu = [0] * len(next(iter(ib.values()), []))
    for k in ib:
        if "nvidia" in k:
            for c, (x, y) in enumerate(zip(ia.get(k, [0] * len(ib[k])), ib[k])):
                nv_cpu[c] += y - x
    r = {"nvidia/s": sum(nv) / dt, "nvidia cpus": {c: round(v / dt) for c, v in enumerate(nv_cpu) if v}}
    for k in ("LOC", "RES", "CAL"):
        if k in ia and k in ib:
            r[k + "/s"] = (sum(ib[k]) - sum(ia[k])) / dt
    r["idle/s"] = {k: round((db[k] - da.get(k, 0)) / dt) for k in sorted(db)}
    if sa and sb:
        d = [y - x for x, y in zip(sa, sb)]
        idle_j = d[3] + d[4]
        r["busy"] = 1 - idle_j / sum(d) if sum(d) else float("nan")
        r["steal"] = d[7] / sum(d) if len(d) > 7 and sum(d) else 0.0
    return r


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    raw = sys.argv[1]
    skip = float(sys.argv[2]) if len(sys.argv) == 3 else 0.1
    stems = sorted({f[:-len(".states")] for f in os.listdir(raw) if f.endswith(".states")},
                   key=lambda s: os.path.getmtime(os.path.join(raw, s + ".states")))
    pooled, parts = {}, {}
    for stem in stems:
        name = stem.split(".")[0]
        segs = [l.split() for l in open(os.path.join(raw, stem + ".states"))]
        snaps = snapshots(os.path.join(raw, stem + ".host"))
        lc = None
        if os.path.exists(os.path.join(raw, stem + ".lc.json")):
            lc = json.load(open(os.path.join(raw, stem + ".lc.json")))
            w0 = float(segs[0][1])
        bes = []
        i = 1
        while os.path.exists(os.path.join(raw, "%s.be%d.json.steps" % (stem, i))):
            bes.append([float(l.split()[0]) for l in open(os.path.join(raw, "%s.be%d.json.steps" % (stem, i)))])
            i += 1
        print("%s (%s)" % (stem, "".join(s[0] for s in segs)))
        for k, (st, a, b, _) in enumerate(segs):
            a, b = float(a) + skip, float(b)
            line = "  %d %s" % (k, st)
            if lc:
                idx = [j for j in range(lc["requests"]) if a <= w0 + j / lc["rate"] < b]
                lat = [lc["latencies_us"][j] for j in idx]
                pooled.setdefault((name, st), []).extend(lat)
                for key in ("wake_us", "launch_us", "sync_us", "cpu_us"):
                    if key in lc:
                        parts.setdefault((name, st, key), []).extend(lc[key][j] for j in idx)
                med = lambda key: pct([lc[key][j] for j in idx], 0.5) if key in lc else float("nan")
                cpus = sorted({lc["cpu"][j] for j in idx}) if "cpu" in lc else []
                line += " LC n %d p50 %.0f p99 %.0f | wake %.0f launch %.0f sync %.0f cpu %.0f nivcsw %d cpus %s" % (
                    len(lat), pct(lat, 0.5), pct(lat, 0.99), med("wake_us"), med("launch_us"), med("sync_us"),
                    med("cpu_us"), sum(lc["nivcsw"][j] for j in idx) if "nivcsw" in lc else -1,
                    ",".join(map(str, cpus)))
            for n, steps in enumerate(bes):
                line += " | BE%d %.1f steps/s" % (n + 1, sum(1 for t in steps if a <= t < b) / (b - a))
            if k + 1 < len(snaps):
                h = seg_host(snaps[k][2], snaps[k + 1][2], snaps[k + 1][1] - snaps[k][1])
                line += " | nvidia %.0f/s %s LOC %.0f RES %.0f CAL %.0f idle %s busy %.1f%% steal %.1f%%" % (
                    h["nvidia/s"], h["nvidia cpus"], h.get("LOC/s", -1), h.get("RES/s", -1), h.get("CAL/s", -1),
                    h["idle/s"], 100 * h.get("busy", float("nan")), 100 * h.get("steal", float("nan")))
            print(line)
    print("\nLC pooled over segments (p50 / p99 us; p50 over lc-alone's in the same state; medians of the parts)")
    for (name, st), lat in sorted(pooled.items()):
        base = pooled.get(("lc-alone", st))
        med = " ".join("%s %.0f" % (k[:-3], pct(parts[(name, st, k)], 0.5)) for k in
                       ("wake_us", "launch_us", "sync_us", "cpu_us") if (name, st, k) in parts)
        print("  %-14s %s n %4d p50 %5.0f p99 %5.0f  x%.3f | %s" % (
            name, st, len(lat), pct(lat, 0.5), pct(lat, 0.99),
            pct(lat, 0.5) / pct(base, 0.5) if base else float("nan"), med))


if __name__ == "__main__":
    main()
