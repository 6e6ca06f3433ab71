#!/usr/bin/env python3
"""Each group's turns on the GPU, from a slice_trace recording (tools/record/programs/slice_trace.sh;
fixtures/hw/*/slice-trace), and from the model's trace of the same configuration.

  slice_trace.py REC_DIR [NVEMU [PROFILE]] [--check|--write README]

REC_DIR holds NAME.pK.tsv.gz, one per process (slice_trace.c's columns: each kernel's blocks' earliest and latest
start and end, and their first two stretches off the SM, in %globaltimer ns). NAME is tsT-... for T us timeslices;
configurations of one process (alone-*) are skipped. A turn is a stretch in which only one group's blocks run, from
its first block's start (or resume) to its last block's end or cut; it begins fresh (a kernel starts) or resumes
(a kernel cut earlier goes on), and ends at a kernel's end or a cut. The switch is the time from one turn's end to
the next one's begin, by how the one ended and the next began. Medians over the turns after the first 50 ms.
Configurations whose kernels were cut more than twice (the recorder keeps two cuts a kernel) get a line of their own:
time on the SM per turn and off per cut, from the blocks' totals, and the share of work done.

With NVEMU, each configuration also runs in the model (scenario: two BE tasks, closed loop, lc_be_timeslice with the
BE slice T, requests of the recording's kernels; PROFILE, default h200; 1 s after 200 ms): its turns run from a
group's first kernel start after its switch-in to its preemption or its last kernel's end (the kernel's end when the
save waits for it: a lock). A recording's header may give the block size (threads; 1024 when absent).
--write puts the tables in README between <!-- slice-trace DIR --> and <!-- /slice-trace DIR --> (DIR: REC_DIR's
name); --check fails when they no longer come out of the recording (and the model).
"""
import glob
import gzip
import os
import re
import subprocess
import sys
import tempfile

import readme_block
from recstat import med

COLS = ["k", "req", "s0", "s1", "e0", "e1", "g0n", "g0f0", "g0f1", "g0t0", "g0t1", "g1n", "g1f0", "g1t1", "gmax",
        "off"]
SKIP_NS = 50_000_000
KINDS = [("cut", "fresh"), ("cut", "resume"), ("kend", "fresh"), ("kend", "resume")]
SAME = {"cut": ("cut",), "kend": ("kend", "last")}  # the switch after a kernel's end, whether its request ran out


def load(path):
    with gzip.open(path, "rt") as f:
        head = dict(zip(*[iter(f.readline()[2:].split())] * 2))
        f.readline()
        return head, [dict(zip(COLS, map(int, line.split("\t")))) for line in f]


def intervals(ks, p):
    """(begin, end, group, begin kind, end kind) of every stretch a kernel's blocks ran; a kernel that ends its
    request ends as 'last' (its group ran out of work), not 'kend'."""
    out = []
    last = {k["req"]: k["k"] for k in ks}
    for k in ks:
        cuts = []
        if k["g0n"]:
            cuts.append((k["g0f0"], k["g0t1"]))
        if k["g1n"]:
            cuts.append((k["g1f0"], k["g1t1"]))
        b, began = k["s0"], "fresh"
        for f, t in cuts:
            out.append((b, f, p, began, "cut"))
            b, began = t, "resume"
        out.append((b, k["e1"], p, began, "last" if last[k["req"]] == k["k"] else "kend"))
    return out


def turns_of(ivs):
    """Consecutive stretches of one group joined: [group, begin, end, begin kind, end kind, kernels ended]."""
    turns = []
    for b, e, p, began, ended in sorted(ivs):
        if not turns or turns[-1][0] != p:
            turns.append([p, b, e, began, ended, e - b, 0])
        t = turns[-1]
        t[2], t[4], t[6] = max(t[2], e), ended, t[6] + (ended != "cut")
    return turns


def stats(turns, t0, d_us):
    rows = [(a, b) for a, b in zip(turns, turns[1:]) if a[1] >= t0]
    if not rows:
        return None
    out = {"n": len(rows), "cut": sum(a[4] == "cut" for a, _ in rows) / len(rows)}
    fresh = [a for a, _ in rows if a[3] == "fresh" and a[4] != "last"]
    out["lock"] = sum(a[4] == "kend" for a in fresh) / len(fresh) if fresh else float("nan")
    for began in ("fresh", "resume"):
        out["turn_" + began] = med([(a[2] - a[1]) / 1e3 for a, _ in rows if a[3] == began and a[4] == "cut"])
    for ended, began in KINDS:
        gaps = [(b[1] - a[2]) / 1e3 for a, b in rows if a[4] in SAME[ended] and b[3] == began]
        out["sw_%s_%s" % (ended, began)] = med(gaps)
    span = rows[-1][1][1] - rows[0][0][1]
    out["work"] = sum(a[6] for a, _ in rows) * d_us * 1e3 / span
    return out


def hw_config(paths):
    heads, ivs, many = [], [], False
    for p, path in enumerate(paths):
        head, ks = load(path)
        heads.append(head)
        many = many or any(k["gmax"] > 2 for k in ks)
        ivs += intervals(ks, p)
    if many:
        ks = load(paths[0])[1]
        cut = [k for k in ks if k["gmax"] > 2]
        on = med([((k["e1"] - k["s0"]) - k["off"]) / (k["gmax"] + 1) / 1e3 for k in cut])
        off = med([k["off"] / k["gmax"] / 1e3 for k in cut])
        ends = sorted(e for _, e, _, _, how in ivs if how != "cut")
        ends = [e for e in ends if e >= ends[0] + SKIP_NS]
        work = (len(ends) - 1) * float(heads[0]["d_us"]) * 1e3 / (ends[-1] - ends[0])
        return heads[0], None, (on, off, work)
    turns = turns_of(ivs)
    return heads[0], stats(turns, turns[0][1] + SKIP_NS, float(heads[0]["d_us"])), None


SCENARIO = """name: slice-{name}
gpu: {{profile: {profile}}}
duration: 1s
warmup: 200ms
policy:
  plugin: lc_be_timeslice
  args: {{lc: lc, be: be, be_us: {ts}}}
tasks:
  - name: be
    class: BE
    count: 2
    arrival: {{type: closed}}
    request:
      kernels:
        - {{duration: {d_ns}ns, blocks: {blocks}, repeat: {n}{shape}}}
"""


def model_config(nvemu, profile, name, ts, head, work):
    """The model's turn statistics of a configuration, and for kernels cut more than twice their time on the SM per
    turn and off per cut (medians over kernels), as hw_config's."""
    smem = int(head["smem"]) // 1024
    threads = int(head.get("threads", 1024))
    shape = (", shared_kb: %d" % smem if smem else "") + (", threads: %d" % threads if threads != 1024 else "")
    text = SCENARIO.format(name=name, profile=profile, ts=ts, d_ns=int(round(float(head["d_us"]) * 1000)),
                           blocks=head["blocks"], n=head["nkernel"], shape=shape)
    yaml = os.path.join(work, name + ".yaml")
    with open(yaml, "w") as f:
        f.write(text)
    out = os.path.join(work, name)
    subprocess.run([nvemu, "scenario", "run", yaml, "--quiet", "--csv", "--out", out, "--seed", "1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ivs, running, saving, segs = [], {}, {}, {}

    def end(run, t, tsg, how):
        b, began, kid = run
        ivs.append((b, t, tsg, began, how))
        segs[kid].append((b, t))

    with open(os.path.join(out, "trace.csv")) as f:
        f.readline()
        for line in f:
            c = line.split(",")
            t, kind, tsg = int(c[1]), c[2], c[6]
            if kind == "kernel_start":
                kid = c[8]
                running[tsg] = (t, "resume" if kid in segs else "fresh", kid)
                segs.setdefault(kid, [])
            elif kind == "kernel_done" and tsg in running:
                end(running.pop(tsg), t, tsg, "last")
            elif kind == "preempt_req" and tsg in running:
                saving[tsg] = (running.pop(tsg), t)  # a cut, unless the save waits for the kernel's end (a lock)
            elif kind == "kernel_done" and tsg in saving:
                end(saving.pop(tsg)[0], t, tsg, "last")
            elif kind == "preempt_done" and tsg in saving:
                run, t_req = saving.pop(tsg)
                end(run, t_req, tsg, "cut")
    cut = [v for v in segs.values() if len(v) > 3 and v[0][0] >= 400_000_000]
    on = med([sum(e - b for b, e in v) / len(v) / 1e3 for v in cut])
    off = med([(v[-1][1] - v[0][0] - sum(e - b for b, e in v)) / (len(v) - 1) / 1e3 for v in cut])
    st = stats(turns_of(ivs), 400_000_000, float(head["d_us"]))
    return st, (on, off, st["work"] if st else float("nan"))


def fmt(x):
    return "-" if x is None or x != x else "%.0f" % x


def summary(rec, nvemu, profile):
    names = sorted({os.path.basename(p).split(".p")[0] for p in glob.glob(rec + "/ts*.p*.tsv.gz")},
                   key=lambda n: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", n)])
    rows, long_rows = [], []
    work = tempfile.mkdtemp(prefix="slice-trace-") if nvemu else None
    for name in names:
        paths = sorted(glob.glob("%s/%s.p*.tsv.gz" % (rec, name)))
        if len(paths) < 2:
            continue
        head, hw, long = hw_config(paths)
        ts = int(re.match(r"ts(\d+)", name).group(1))
        model, model_long = model_config(nvemu, profile, name, ts, head, work) if nvemu else (None, None)
        if long:
            longs = [long] + ([model_long] if nvemu else [])
            long_rows.append("| %s | %s | %s | %s |" % (name, " / ".join(fmt(x[0]) for x in longs),
                                                        " / ".join(fmt(x[1]) for x in longs),
                                                        " / ".join("%.2f" % x[2] for x in longs)))
            continue
        sides = [hw] + ([model] if nvemu else [])
        cells = []
        for key in ["cut", "lock", "turn_fresh", "turn_resume"] + ["sw_%s_%s" % k for k in KINDS] + ["work"]:
            f = (lambda v: "-" if v != v else "%.2f" % v) if key in ("cut", "lock", "work") else fmt
            cells.append(" / ".join(f(s[key]) if s and not (key == "lock" and i) else "-"
                                    for i, s in enumerate(sides)))
        rows.append("| %s | %s |" % (name, " | ".join(cells)))
    who = "hw / model" if nvemu else "hw"
    out = ["Turns (%s; us, medians): share ending in a cut; of the fresh turns that did not run out of work, the "
           "share ending at a kernel's end (a lock: hardware only, the model has none); a turn that ends in a cut by "
           "how it began; the switch by how the turn before ended and the next began; the GPU's share of work done "
           "(kernels ended x their length alone, over the time)." % who, "",
           "| config | cut share | fresh locked | turn fresh | turn resumed | cut -> fresh | cut -> resumed "
           "| kernel end -> fresh | kernel end -> resumed | work share |",
           "|---|---|---|---|---|---|---|---|---|---|"] + rows
    if long_rows:
        out += ["", "Kernels cut more than twice (%s): on the SM per turn, off per cut (us, medians over kernels); the "
                "GPU's share of work done." % who, "",
                "| config | on per turn | off per cut | work share |", "|---|---|---|---|"] + long_rows
    return "\n".join(out)


def main():
    args, readme, write = readme_block.split_mode(sys.argv[1:])
    if len(args) not in (1, 2, 3):
        sys.exit(__doc__)
    table = summary(args[0].rstrip("/"), args[1] if len(args) >= 2 else None, args[2] if len(args) == 3 else "h200")
    tag = os.path.basename(args[0].rstrip("/"))
    readme_block.show(readme, "<!-- slice-trace %s -->" % tag, "<!-- /slice-trace %s -->" % tag, table, write, args[0])


if __name__ == "__main__":
    main()
