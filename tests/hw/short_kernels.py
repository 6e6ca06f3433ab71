#!/usr/bin/env python3
"""The short-kernel switch table: what a 200 us slice costs two BE groups of short kernels, hardware vs model.

  short_kernels.py NVEMU FIXTURE_DIR SCENARIO_DIR WORKDIR

FIXTURE_DIR holds rN/NAME/results.json (`nvemu scenario run --hw` of SCENARIO_DIR/NAME.yaml, repeated). Each
k-ts200-REST scenario has a k-ts2048-REST twin that differs only in the BE slice. The switch cost shows in
the ratio of their BE requests/s (200 us over 2048 us), which divides out what each kernel costs; the table
gives that ratio and the absolute requests/s, hardware (median of the repeats) and model (the emulator run
with the recording's seed). Prints a Markdown table; exits 1 when a scenario has no recording or the
emulator cannot run it.
"""
import json
import os
import statistics
import subprocess
import sys


def hw_rps(fixture, name):
    vals = []
    for r in sorted(os.listdir(fixture)):
        p = os.path.join(fixture, r, name, "results.json")
        if r.startswith("r") and os.path.isfile(p):
            with open(p) as f:
                d = json.load(f)
            vals.append((d["seed"], sum(t["throughput_rps"] for t in d["tasks"] if t["class"] == "BE")))
    return vals


def model_rps(nvemu, scen, work, name, seed):
    out = os.path.join(work, name)
    rc = subprocess.run([nvemu, "scenario", "run", os.path.join(scen, name + ".yaml"), "--quiet",
                         "--seed", str(seed), "--out", out], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    if rc > 1:
        sys.exit(f"{name}: the emulator could not run it (exit {rc})")
    with open(os.path.join(out, "results.json")) as f:
        d = json.load(f)
    return sum(t["throughput_rps"] for t in d["tasks"] if t["class"] == "BE")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    nvemu, fixture, scen, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    names = sorted(n[len("k-ts200-"):-len(".yaml")] for n in os.listdir(scen) if n.startswith("k-ts200-"))
    print("| BE requests | hw 200 us | hw 2048 us | hw ratio | model 200 us | model 2048 us | model ratio |"
          " model/hw (ratio) |")
    print("|---|---|---|---|---|---|---|---|")
    for rest in names:
        row = []
        for ts in ("200", "2048"):
            name = f"k-ts{ts}-{rest}"
            rec = hw_rps(fixture, name)
            if not rec:
                sys.exit(f"{name}: no recording in {fixture}")
            row.append((statistics.median(v for _, v in rec), model_rps(nvemu, scen, work, name, rec[0][0])))
        (h200, m200), (h2048, m2048) = row
        hr, mr = h200 / h2048, m200 / m2048
        print(f"| {rest} | {h200:.1f} | {h2048:.1f} | {hr:.3f} | {m200:.1f} | {m2048:.1f} | {mr:.3f} | {mr / hr:.2f} |")


if __name__ == "__main__":
    main()
