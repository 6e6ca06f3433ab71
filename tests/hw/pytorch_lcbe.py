#!/usr/bin/env python3
"""The PyTorch LC/BE table: hardware (torch_lcbe.sh's recordings) next to the model run from the same
programs' profiler traces (request.from_trace).

  pytorch_lcbe.py NVEMU FIXTURE_DIR WORKDIR            check: the README's model column comes out again
  pytorch_lcbe.py NVEMU FIXTURE_DIR WORKDIR --write    (re)write the table in FIXTURE_DIR/README.md

FIXTURE_DIR holds raw/ (what the device run brought back: CONFIG.lc.json, CONFIG.beN.json, infer.json.gz,
train.json.gz) and README.md, whose table sits between the <!-- table --> and <!-- /table --> lines. Each
configuration becomes a scenario: the LC task's request is one inference step (periodic arrivals at the
recorded rate), each BE task's one training step (closed loop), under the recorded policy. Three model
columns: the traces as recorded; with cpu_scale (each program's step time measured alone without the
profiler over its profiled step's CPU time: the profiler's own CPU cost taken out); and with cpu_scale and
the LC's cpu_spread (the log-space standard deviation of the LC's latencies alone: its CPU time's variation
from request to request). Every parameter comes from the two runs alone (lc-alone, be-alone); the
configurations with both programs are held out.
"""
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys

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


def load_hw(raw, name, nbe):
    """LC p50/p99 (us) and mean BE steps/s of a recorded configuration, or None when it was not recorded."""
    out = {}
    lc = os.path.join(raw, name + ".lc.json")
    if os.path.exists(lc):
        d = json.load(open(lc))
        out["lc_p50"], out["lc_p99"], out["rate"] = d["p50_us"], d["p99_us"], d["rate"]
    bes = [os.path.join(raw, "%s.be%d.json" % (name, i + 1)) for i in range(nbe)]
    if nbe:
        if not all(os.path.exists(b) for b in bes):
            return None
        out["be_steps"] = sum(json.load(open(b))["steps_per_s"] for b in bes) / nbe
    return out if out else None


def lc_spread(raw):
    """The log-normal sigma of the LC's latency alone (maximum likelihood: the sd of the logs). The training
    run alone records only its steps/s, not each step's time, so the BE gets no spread."""
    lat = json.load(open(os.path.join(raw, "lc-alone.lc.json")))["latencies_us"]
    logs = [math.log(v) for v in lat]
    mean = sum(logs) / len(logs)
    return math.sqrt(sum((v - mean) ** 2 for v in logs) / len(logs))


def step_cpu_us(trace):
    for e in json.load(open(trace))["traceEvents"]:
        if e.get("cat") == "user_annotation" and e.get("name") == STEP:
            return float(e["dur"])
    sys.exit("%s: no %s" % (trace, STEP))


def scenario(name, policy, nlc, nbe, rate, scale, spread=None):
    def req(trace, s, sp=None):
        extra = ", cpu_scale: %.4f" % s if s else ""
        extra += ", cpu_spread: %.4f" % sp if sp else ""
        return "{from_trace: %s, iteration: '%s'%s}" % (trace, STEP, extra)

    y = ["name: pytorch-%s" % name, "duration: 8s", "warmup: 500ms", "baseline: false", "gpu: {profile: h200}"]
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
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "--write"):
        sys.exit(__doc__)
    nvemu, fix, work = sys.argv[1:4]
    write = len(sys.argv) == 5
    raw = os.path.join(fix, "raw")
    os.makedirs(work, exist_ok=True)
    for t in ("infer", "train"):
        with gzip.open(os.path.join(raw, t + ".json.gz")) as src, open(os.path.join(work, t + ".json"), "wb") as dst:
            dst.write(src.read())
    lc_alone, be_alone = load_hw(raw, "lc-alone", 0), load_hw(raw, "be-alone", 1)
    # unprofiled step time alone over the profiled step's CPU time
    scale = (lc_alone["lc_p50"] / step_cpu_us(os.path.join(work, "infer.json")),
             1e6 / be_alone["be_steps"] / step_cpu_us(os.path.join(work, "train.json")))
    spread = lc_spread(raw)
    rows = []
    for name, policy, nlc, nbe in CONFIGS:
        hw = load_hw(raw, name, nbe)
        if hw is None:
            continue
        rate = lc_alone["rate"]
        asis = run_model(nvemu, work, name, scenario(name, policy, nlc, nbe, rate, None))
        cal = run_model(nvemu, work, name + "-scaled", scenario(name, policy, nlc, nbe, rate, scale))
        spr = run_model(nvemu, work, name + "-spread", scenario(name, policy, nlc, nbe, rate, scale, spread))
        for key, label in (("lc_p50", "LC p50 (us)"), ("lc_p99", "LC p99 (us)"), ("be_steps", "BE steps/s")):
            if key in hw:
                rows.append((name, label, FITTED.get((name, label), "held out"), hw[key], asis[key], cal[key],
                             spr[key]))
    lines = ["cpu_scale: inference %.4f, training %.4f (%s); cpu_spread (LC): %.4f" % (scale[0], scale[1], STEP,
                                                                                      spread), "",
             "| configuration | metric | fitted on | hardware | model, trace as recorded | ratio | model, cpu_scale "
             "| ratio | model, cpu_scale + cpu_spread | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, label, fit, h, a, c, p in rows:
        lines.append("| %s | %s | %s | %s | %s | %.2f | %s | %.2f | %s | %.2f |" % (
            name, label, fit, fmt(h), fmt(a), a / h, fmt(c), c / h, fmt(p), p / h))
    lines.append("")
    for col, what in ((5, "cpu_scale"), (6, "cpu_scale + cpu_spread")):
        within = [r for r in rows if abs(r[col] / r[3] - 1) <= 0.15]
        held = [r for r in rows if r[2] == "held out"]
        lines.append("Model with %s within 15%% of the hardware: %d of %d metrics (held out: %d of %d)." % (
            what, len(within), len(rows), sum(1 for r in within if r[2] == "held out"), len(held)))
    table = "\n".join(lines)
    print(table)
    readme = os.path.join(fix, "README.md")
    text = open(readme).read()
    pat = re.compile(r"(<!-- table -->\n)(.*?)(\n?<!-- /table -->)", re.S)
    if not pat.search(text):
        sys.exit("%s has no <!-- table --> ... <!-- /table --> block" % readme)
    if write:
        with open(readme, "w") as f:
            f.write(pat.sub(lambda m: m.group(1) + table + "\n<!-- /table -->", text))
        return
    old = pat.search(text).group(2)
    if old.strip() != table.strip():
        print("the model's numbers differ from %s's table (rerun with --write after a model change):" % readme)
        for a, b in zip(old.strip().splitlines(), table.strip().splitlines()):
            if a != b:
                print("  README: %s\n  now:    %s" % (a, b))
        sys.exit(1)
    print("ok: the table's model columns come out again")


if __name__ == "__main__":
    main()
