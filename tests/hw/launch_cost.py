#!/usr/bin/env python3
"""What a launch_cost recording shows (tools/record/programs/launch_cost.sh; fixtures/hw/*/launch-cost).

  launch_cost.py RAW_DIR [--check|--write README]

RAW_DIR holds CONFIG.rK.tsv (one line per LC request, launch_cost.c's columns) and run.txt (the runs in the order
they ran). Per run, in that order: each variant's median over its requests of the request's median launch
(cuLaunchKernel's wall time, launches 2..N), the first launch of a request (after ~20 ms idle, all variants), the
launch loop's thread CPU time per launch of the back-to-back tiny variant, the synchronize and the LC latency (p50,
variants 0 and 1), the CPU probe. Then per configuration: the same pooled over its runs, and each variant's median
launch over that of the alone run of the same round (the mean of the rounds' ratios, and their range).
--write puts the tables in README between <!-- launch-cost --> and <!-- /launch-cost -->; --check fails when they no
longer come out of the recording.
"""
import csv
import os
import re
import sys

import readme_block
from recstat import med

CONFIGS = ["alone", "lc1s", "gpreempt-idle", "native", "gpreempt", "lcbe200"]
VARIANTS = ["tiny", "5 us", "tiny, 25 us gaps", "5 us, 25 us gaps"]


def load(raw):
    runs = []
    for line in open(os.path.join(raw, "run.txt")):
        m = re.match(r"(\S+)\.(r\d+): rc 0", line)
        if m:
            rows = list(csv.DictReader(open(os.path.join(raw, "%s.%s.tsv" % m.groups())), delimiter="\t"))
            runs.append((m.group(1), m.group(2), rows))
    return runs


def col(rows, key, variant=None):
    return [float(r[key]) for r in rows if variant is None or int(r["variant"]) == variant]


def summary(raw):
    runs = load(raw)
    out = ["| run | launch p50 (us): " + " | ".join(VARIANTS) + " | first launch (us) | loop CPU / launch, tiny (us)"
           " | sync (us), tiny | sync, 5 us | LC p50 (us), tiny | LC p50, 5 us | probe (us) |",
           "|---" * 13 + "|"]
    for cfg, rnd, rows in runs:
        n_launch = 108
        cells = ["%.2f" % med(col(rows, "launch_p50_us", v)) for v in range(4)]
        cells += ["%.1f" % med(col(rows, "first_us")), "%.2f" % (med(col(rows, "loop_cpu_us", 0)) / n_launch)]
        cells += ["%.0f" % med(col(rows, "sync_us", v)) for v in (0, 1)]
        cells += ["%.0f" % med(col(rows, "lat_us", v)) for v in (0, 1)]
        cells += ["%.1f" % med(col(rows, "probe_us"))]
        out.append("| %s.%s | %s |" % (cfg, rnd, " | ".join(cells)))
    alone = {rnd: rows for cfg, rnd, rows in runs if cfg == "alone"}
    out += ["", "| configuration | requests | launch p50 (us): " + " | ".join(VARIANTS) +
            " | launch / alone's (same round), mean [range]: " + " | ".join(VARIANTS) +
            " | first launch (us) | sync (us), tiny | sync, 5 us | LC p50 (us), tiny | LC p50, 5 us |",
            "|---" * 16 + "|"]
    for cfg in CONFIGS:
        mine = [(rnd, rows) for c, rnd, rows in runs if c == cfg]
        if not mine:
            continue
        pooled = [r for _, rows in mine for r in rows]
        cells = [str(len(pooled))] + ["%.2f" % med(col(pooled, "launch_p50_us", v)) for v in range(4)]
        for v in range(4):
            ratios = [med(col(rows, "launch_p50_us", v)) / med(col(alone[rnd], "launch_p50_us", v))
                      for rnd, rows in mine if rnd in alone]
            cells.append("%.3f [%.2f-%.2f]" % (sum(ratios) / len(ratios), min(ratios), max(ratios)))
        cells += ["%.1f" % med(col(pooled, "first_us"))]
        cells += ["%.0f" % med(col(pooled, "sync_us", v)) for v in (0, 1)]
        cells += ["%.0f" % med(col(pooled, "lat_us", v)) for v in (0, 1)]
        out.append("| %s | %s |" % (cfg, " | ".join(cells)))
    return "\n".join(out)


def main():
    args, readme, write = readme_block.split_mode(sys.argv[1:])
    if len(args) != 1:
        sys.exit(__doc__)
    table = summary(args[0].rstrip("/"))
    readme_block.show(readme, "<!-- launch-cost -->", "<!-- /launch-cost -->", table, write, args[0])


if __name__ == "__main__":
    main()
