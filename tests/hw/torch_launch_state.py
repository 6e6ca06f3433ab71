#!/usr/bin/env python3
"""What a torch_launch_state recording shows (tools/record/programs/frameworks/torch_launch_state.py).

  torch_launch_state.py RAW_DIR [--check|--write README]

RAW_DIR holds lc.json[.gz] (one record per LC request), phases.tsv (each phase's round, letter, window and /proc/stat
cpu line at its ends) and NAME.json.steps[.gz] of each BE. A request belongs to the phase its arrival falls in; the
first SETTLE_S of a phase are left out (a BE switched off finishes its step then). Per phase and variant: the
requests, the medians of the launches' wall and thread CPU time, of the synchronize and of the probe's CPU time,
and the launches' median over that of phase A in the same round (the mean of the rounds' ratios, and their range).
Then per phase: the steps/s of the BE it runs, and the share of CPU time the host took from the guest (steal).
--write puts the tables in README between <!-- launch-state --> and <!-- /launch-state -->; --check fails when they
no longer come out of the recording.
"""
import csv
import gzip
import json
import os
import sys

import readme_block
from recstat import med

PHASES = {"A": "alone (every BE paused)", "G": "GPU-only BE, 1 us", "N": "GPU-only BE, libcuda's slice",
          "T": "training BE, 1 us", "U": "training BE, libcuda's slice"}
BE_OF = {"G": "g1", "N": "gn", "T": "t1", "U": "tn"}
VARIANTS = ["fwd", "fwd-held", "ops", "ops-held", "meta"]
SETTLE_S = 0.2


def opened(path):
    """PATH, or PATH.gz read as text (the fixtures keep the large files gzipped)."""
    return open(path) if os.path.exists(path) else gzip.open(path + ".gz", "rt")


def load(raw):
    lc = json.load(opened(os.path.join(raw, "lc.json")))
    phases = list(csv.DictReader(open(os.path.join(raw, "phases.tsv")), delimiter="\t"))
    for p in phases:
        p["start"], p["end"], p["round"] = float(p["start"]), float(p["end"]), int(p["round"])
    reqs = {}
    for q in lc["requests"]:
        for p in phases:
            if p["start"] + SETTLE_S <= q["arrival"] < p["end"]:
                reqs.setdefault((p["phase"], p["round"], q["variant"]), []).append(q)
                break
    steps = {}
    for letter, name in BE_OF.items():
        path = os.path.join(raw, name + ".json.steps")
        if os.path.exists(path) or os.path.exists(path + ".gz"):
            steps[letter] = [float(line.split()[0]) for line in opened(path)]
    return lc, phases, reqs, steps


def pearson(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def steal_share(p):
    """The steal column's share of all CPU time between the phase's two /proc/stat cpu lines."""
    a = [int(x) for x in p["stat_start"].split()[1:]]
    b = [int(x) for x in p["stat_end"].split()[1:]]
    d = [y - x for x, y in zip(a, b)]
    total = sum(d[:8])
    return d[7] / total if total else 0.0


def tables(raw):
    lc, phases, reqs, steps = load(raw)
    rounds = sorted({p["round"] for p in phases})
    letters = [x for x in PHASES if any(p["phase"] == x for p in phases)]
    out = ["%d rounds of %d phases, %.0f s each (first %.1f s of each left out); spin kernel %d cycles, %d adds, "
           "probe %d iterations%s." % (len(rounds), len(letters), phases[0]["end"] - phases[0]["start"], SETTLE_S,
                                      lc["hold_cycles"], lc["n_ops"], lc["probe_n"],
                                      "; meta variant not run: " + lc["meta_error"] if lc.get("meta_error") else ""),
           "",
           "| phase | variant | requests | launches (us) | launches, CPU (us) | / phase A's, same round: mean "
           "[range] | per launch vs A (us) | sync (us) | probe CPU (us) | probe / A's |",
           "|---" * 10 + "|"]
    for x in letters:
        for v in VARIANTS:
            pooled = [q for r in rounds for q in reqs.get((x, r, v), [])]
            if not pooled:
                continue
            ratios, pratios = [], []
            for r in rounds:
                here, base = reqs.get((x, r, v), []), reqs.get(("A", r, v), [])
                if here and base:
                    ratios.append(med([q["launch_us"] for q in here]) / med([q["launch_us"] for q in base]))
                    pratios.append(med([q["probe_cpu_us"] for q in here]) / med([q["probe_cpu_us"] for q in base]))
            base_all = [q for r in rounds for q in reqs.get(("A", r, v), [])]
            n_launch = lc["n_ops"] if v.startswith("ops") else 108
            per = (med([q["launch_us"] for q in pooled]) - med([q["launch_us"] for q in base_all])) / n_launch
            out.append("| %s | %s | %d | %.0f | %.0f | %s | %s | %.0f | %.0f | %s |" % (
                x, v, len(pooled), med([q["launch_us"] for q in pooled]), med([q["launch_cpu_us"] for q in pooled]),
                "%.3f [%.2f-%.2f]" % (sum(ratios) / len(ratios), min(ratios), max(ratios)) if ratios else "",
                "%+.2f" % per if v != "meta" else "", med([q["sync_us"] for q in pooled]),
                med([q["probe_cpu_us"] for q in pooled]),
                "%.3f" % (sum(pratios) / len(pratios)) if pratios else ""))
    out += ["", "Per round (fwd): the forward's launches and the probe over phase A's of the same round, and how "
            "the two move together over the rounds (Pearson r of the ratios); phase A's own per-round medians span "
            "launches %.0f-%.0f us, probe %.0f-%.0f us." % tuple(f(med([q[k] for q in reqs.get(("A", r, "fwd"), [])])
                                                      for r in rounds) for k in ("launch_us", "probe_cpu_us")
                                                    for f in (min, max)), "",
            "| phase | launches / A's, per round | probe / A's, per round | r |", "|---|---|---|---|"]
    for x in letters[1:]:
        lr, pr = [], []
        for r in rounds:
            here, base = reqs.get((x, r, "fwd"), []), reqs.get(("A", r, "fwd"), [])
            if here and base:
                lr.append(med([q["launch_us"] for q in here]) / med([q["launch_us"] for q in base]))
                pr.append(med([q["probe_cpu_us"] for q in here]) / med([q["probe_cpu_us"] for q in base]))
        out.append("| %s | %s | %s | %.2f |" % (x, " ".join("%.2f" % v for v in lr), " ".join("%.2f" % v for v in pr),
                                               pearson(lr, pr)))
    out += ["", "| phase | what runs beside the LC | BE steps/s in its phase | steal (share of CPU time) |",
            "|---|---|---|---|"]
    for x in letters:
        ps = [p for p in phases if p["phase"] == x]
        secs = sum(p["end"] - p["start"] for p in ps)
        n = sum(1 for t in steps.get(x, []) for p in ps if p["start"] <= t < p["end"])
        out.append("| %s | %s | %s | %.2f%% |" % (x, PHASES[x], "%.1f" % (n / secs) if x in BE_OF else "",
                                                  100 * sum(steal_share(p) for p in ps) / len(ps)))
    return "\n".join(out)


def main():
    args, readme, write = readme_block.split_mode(sys.argv[1:])
    if len(args) != 1:
        sys.exit(__doc__)
    readme_block.show(readme, "<!-- launch-state -->", "<!-- /launch-state -->", tables(args[0]), write, args[0])


if __name__ == "__main__":
    main()
