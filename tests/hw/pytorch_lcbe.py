#!/usr/bin/env python3
"""The PyTorch LC/BE table: hardware (torch_lcbe.sh's recordings) next to the model run from the same
programs' profiler traces (request.from_trace).

  pytorch_lcbe.py NVEMU FIXTURE_DIR WORKDIR [--profile P]            check: the README's model column comes out again
  pytorch_lcbe.py NVEMU FIXTURE_DIR WORKDIR [--profile P] --write    (re)write the table in FIXTURE_DIR/README.md

--profile: the GPU profile the model runs on, the recording's board (default h200).

FIXTURE_DIR holds raw/ (the first device run: CONFIG.lc.json, CONFIG.beN.json, infer.json.gz, train.json.gz),
raw-r2a/, raw-r2b/ and raw-r4/ (repeats on other boards: CONFIG.rK.*, torch_lcbe.sh with NVEMU_LCBE_CONFIGS) and
README.md,
whose table sits between the <!-- table --> and <!-- /table --> lines. A configuration's hardware value is the
mean of its runs (each run shown beside it). Each configuration becomes a scenario: the LC task's request is one
inference step (periodic arrivals at the recorded rate), each BE task's one training step (closed loop), under the
recorded policy. Three model columns: the traces as recorded; with cpu_scale (each program's step time measured
alone without the profiler, the mean of its runs alone, over its profiled step's CPU time: the profiler's own CPU
cost taken out); and with cpu_scale and the LC's cpu_spread (the log-space standard deviation of the LC's
latencies alone, every run's pooled: its CPU time's variation from request to request). Every parameter comes
from the runs alone (lc-alone, be-alone); the configurations with both programs are held out. A BE that the
hardware livelocked (0 steps/s: GPreempt's 1 us slices with two BE groups) has no ratio; its row is within when
the model's BE is below 2% of its own BE alone too.
"""
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys

import readme_block

STEP = "ProfilerStep#4"  # a steady-state step (#2 and #3 still carry the profiler's start-up)
# name, policy plugin (None: libcuda's own timeslice), LC tasks, BE tasks
CONFIGS = [
    ("lc-alone", None, 1, 0),
    ("be-alone", None, 0, 1),
    ("native-1be", None, 1, 1),
    ("native-2be", None, 1, 2),
    ("lcbe200-1be", "lc_be_timeslice", 1, 1),
    ("lcbe200-2be", "lc_be_timeslice", 1, 2),
    ("gpreempt-1be", "gpreempt", 1, 1),
    ("gpreempt-2be", "gpreempt", 1, 2),
]


# the recordings: raw/ (first call, files CONFIG.*) and the repeats raw-r2a/, raw-r2b/, raw-r4/ (CONFIG.rK.*,
# torch_lcbe.sh with NVEMU_LCBE_CONFIGS), each on another board; each run of a configuration is one entry, the
# hardware value of a row is their mean
RAW_SETS = ("raw", "raw-r2a", "raw-r2b", "raw-r4")
LIVELOCK = 0.02  # a BE task below 2% of its throughput alone is livelocked (the runner's warning, scenarios/README.md)


def be_steps(raw, stem, i, secs):
    """Steps/s of BE process i in the window; None when unknown. A BE killed for not returning (GPreempt's
    1 us slices with two BE groups livelock) counts the steps its .steps file shows in the window, and 0 when
    it never got past its warm-up (no .steps file)."""
    js = os.path.join(raw, "%s.be%d.json" % (stem, i))
    if os.path.exists(js):
        return json.load(open(js))["steps_per_s"]
    if not os.path.exists(os.path.join(raw, stem + ".killed")):
        return None
    steps = js + ".steps"
    if not os.path.exists(steps):
        return 0.0
    start = float(open(os.path.join(raw, stem + ".window")).read())
    return sum(1 for l in open(steps) if start <= float(l.split()[0]) <= start + secs) / secs


def load_runs(fix, name, nbe):
    """Every recorded run of a configuration: [(set/stem, {lc_p50, lc_p99, rate, latencies, be_steps})]."""
    runs = []
    for rs in RAW_SETS:
        raw = os.path.join(fix, rs)
        if not os.path.isdir(raw):
            continue
        stems = sorted({f[:-len(".lc.json")] for f in os.listdir(raw) if f.endswith(".lc.json")} |
                       {f[:-len(".be1.json")] for f in os.listdir(raw) if f.endswith(".be1.json")} |
                       {f[:-len(".killed")] for f in os.listdir(raw) if f.endswith(".killed")})
        for stem in stems:
            if stem != name and not re.fullmatch(re.escape(name) + r"\.r[0-9]+", stem):
                continue
            out = {}
            lc = os.path.join(raw, stem + ".lc.json")
            if os.path.exists(lc):
                d = json.load(open(lc))
                out.update(lc_p50=d["p50_us"], lc_p99=d["p99_us"], rate=d["rate"], latencies=d["latencies_us"])
            if nbe:
                bes = [be_steps(raw, stem, i + 1, 8.0) for i in range(nbe)]
                if all(b is not None for b in bes):
                    out["be_steps"] = sum(bes) / nbe
            if out:
                runs.append(("%s/%s" % (rs, stem), out))
    return runs


def mean_of(runs, key):
    vals = [r[key] for _, r in runs if key in r]
    return (sum(vals) / len(vals), vals) if vals else (None, [])


def lc_spread(runs):
    """The log-normal sigma of the LC's latency alone (maximum likelihood: the sd of the logs), over the
    latencies of every lc-alone run pooled. The training runs alone record no per-step times before raw-r2b,
    so the BE gets no spread."""
    lat = [v for _, r in runs for v in r["latencies"]]
    logs = [math.log(v) for v in lat]
    mean = sum(logs) / len(logs)
    return math.sqrt(sum((v - mean) ** 2 for v in logs) / len(logs))


def step_cpu_us(trace):
    for e in json.load(open(trace))["traceEvents"]:
        if e.get("cat") == "user_annotation" and e.get("name") == STEP:
            return float(e["dur"])
    sys.exit("%s: no %s" % (trace, STEP))


def scenario(name, policy, nlc, nbe, rate, scale, spread=None, profile="h200"):
    def req(trace, s, sp=None):
        extra = ", cpu_scale: %.4f" % s if s else ""
        extra += ", cpu_spread: %.4f" % sp if sp else ""
        return "{from_trace: %s, iteration: '%s'%s}" % (trace, STEP, extra)

    y = ["name: pytorch-%s" % name, "duration: 8s", "warmup: 500ms", "baseline: false", "gpu: {profile: %s}" % profile]
    if policy:
        y += ["policy:", "  plugin: %s" % policy, "  args: {lc: lc, be: be}"]
    y.append("tasks:")
    if nlc:
        y += ["  - name: lc", "    class: LC", "    arrival: {type: periodic, rate: %g}" % rate,
              "    request: %s" % req("infer.json", scale and scale[0], spread)]
    if nbe:
        y += ["  - name: be", "    class: BE", "    count: %d" % nbe, "    arrival: {type: closed}",
              "    request: %s" % req("train.json", scale and scale[1])]
    return "\n".join(y) + "\n"


def run_model(nvemu, work, name, text):
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(work, name + ".out")
    r = subprocess.run([nvemu, "scenario", "run", path, "--quiet", "--out", out], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("%s: nvemu exited %d\n%s" % (name, r.returncode, r.stderr))
    res = json.load(open(os.path.join(out, "results.json")))
    shutil.rmtree(out)  # the trace and report of 16 runs would take hundreds of MB
    m = {}
    for t in res["tasks"]:
        if t["name"] == "lc":
            m["lc_p50"], m["lc_p99"] = t["latency_us"]["p50"], t["latency_us"]["p99"]
        elif t["name"] == "be":
            m["be_steps"] = t["throughput_rps"] / t["replicas"]
    return m


# what the runs alone gave the model; every other row is a prediction
FITTED = {("lc-alone", "LC p50 (us)"): "cpu_scale", ("lc-alone", "LC p99 (us)"): "cpu_spread",
          ("be-alone", "BE steps/s"): "cpu_scale"}


def fmt(v):
    return "%.1f" % v if v < 1000 else "%.0f" % v


def main():
    args = sys.argv[1:]
    profile = "h200"
    if "--profile" in args:
        i = args.index("--profile")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        profile = args[i + 1]
        del args[i:i + 2]
    if len(args) not in (3, 4) or (len(args) == 4 and args[3] != "--write"):
        sys.exit(__doc__)
    nvemu, fix, work = args[:3]
    write = len(args) == 4
    raw = os.path.join(fix, "raw")
    os.makedirs(work, exist_ok=True)
    for t in ("infer", "train"):
        with gzip.open(os.path.join(raw, t + ".json.gz")) as src, open(os.path.join(work, t + ".json"), "wb") as dst:
            dst.write(src.read())
    lc_runs, be_runs = load_runs(fix, "lc-alone", 0), load_runs(fix, "be-alone", 1)
    lc_p50_alone, _ = mean_of(lc_runs, "lc_p50")
    be_alone, _ = mean_of(be_runs, "be_steps")
    rate = lc_runs[0][1]["rate"]
    # unprofiled step time alone (mean of the runs alone) over the profiled step's CPU time
    scale = (lc_p50_alone / step_cpu_us(os.path.join(work, "infer.json")),
             1e6 / be_alone / step_cpu_us(os.path.join(work, "train.json")))
    spread = lc_spread(lc_runs)
    rows = []
    model_be_alone = {}
    for name, policy, nlc, nbe in CONFIGS:
        runs = lc_runs if name == "lc-alone" else be_runs if name == "be-alone" else load_runs(fix, name, nbe)
        if not runs:
            continue
        asis = run_model(nvemu, work, name, scenario(name, policy, nlc, nbe, rate, None, profile=profile))
        cal = run_model(nvemu, work, name + "-scaled", scenario(name, policy, nlc, nbe, rate, scale, profile=profile))
        spr = run_model(nvemu, work, name + "-spread",
                        scenario(name, policy, nlc, nbe, rate, scale, spread, profile=profile))
        if name == "be-alone":
            model_be_alone = {"asis": asis["be_steps"], "cal": cal["be_steps"], "spr": spr["be_steps"]}
        for key, label in (("lc_p50", "LC p50 (us)"), ("lc_p99", "LC p99 (us)"), ("be_steps", "BE steps/s")):
            h, vals = mean_of(runs, key)
            if h is not None:
                rows.append((name, label, FITTED.get((name, label), "held out"), h, asis[key], cal[key],
                             spr[key], vals))
    # a row whose hardware BE is livelocked (0 steps/s) has no ratio: it is within when the model's BE is
    # livelocked too (below LIVELOCK of the model's own BE alone)
    def ratio(r, col):
        if r[3] > 0:
            return r[col] / r[3]
        return None

    def within(r, col):
        if r[3] > 0:
            return abs(r[col] / r[3] - 1) <= 0.15
        return r[col] < LIVELOCK * model_be_alone[("asis", "cal", "spr")[col - 4]]

    def rfmt(r, col):
        q = ratio(r, col)
        return "%.2f" % q if q is not None else ("livelock" if within(r, col) else "not livelocked")

    lines = ["cpu_scale: inference %.4f, training %.4f (%s); cpu_spread (LC): %.4f. Fitted on the runs alone: LC p50 "
             "%s us (mean of %d runs), BE %s steps/s (mean of %d runs), the LC's %d latencies alone pooled." % (
                 scale[0], scale[1], STEP, spread, fmt(lc_p50_alone), len(lc_runs), fmt(be_alone), len(be_runs),
                 sum(len(r["latencies"]) for _, r in lc_runs)), "",
             "| configuration | metric | fitted on | hardware (mean) | runs | model, trace as recorded | ratio "
             "| model, cpu_scale | ratio | model, cpu_scale + cpu_spread | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        name, label, fit, h, a, c, p, vals = r
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, label, fit, fmt(h), " / ".join(fmt(v) for v in vals), fmt(a), rfmt(r, 4), fmt(c), rfmt(r, 5),
            fmt(p), rfmt(r, 6)))
    lines.append("")
    reps = ["%s %s %s" % (r[0], r[1], " / ".join("%+.1f%%" % (100 * (v / r[7][0] - 1)) for v in r[7][1:]))
            for r in rows if len(r[7]) > 1]
    if reps:
        lines.append("The hardware's own spread, each later run over the first (other boards; runs in the order of "
                     "RAW_SETS): " + "; ".join(reps) + ".")
        lines.append("")
    for col, what in ((5, "cpu_scale"), (6, "cpu_scale + cpu_spread")):
        ok = [r for r in rows if within(r, col)]
        held = [r for r in rows if r[2] == "held out"]
        lines.append("Model with %s within 15%% of the hardware (livelock rows: both livelocked): %d of %d metrics "
                     "(held out: %d of %d)." % (what, len(ok), len(rows), sum(1 for r in ok if r[2] == "held out"),
                                                 len(held)))
    table = "\n".join(lines)
    print(table)
    readme_block.sync(os.path.join(fix, "README.md"), "<!-- table -->", "<!-- /table -->", table, write, "the model")


if __name__ == "__main__":
    main()
