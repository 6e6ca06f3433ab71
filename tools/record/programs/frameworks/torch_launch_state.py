# torch_launch_state: where the PyTorch LC's launch time goes next to a busy group. One LC process and four BE
# processes live through the whole run; the BEs are switched on and off in phases, so every phase is measured by
# the same LC process (same CPU placement, same allocator state), in rounds whose order rotates, so the host's
# drift over minutes falls on every phase alike.
#   python3 torch_launch_state.py run OUTDIR LIBTIMESLICE [ROUNDS] [SECONDS]   the experiment (defaults 8, 3)
#   python3 torch_launch_state.py lc SYNC OUT.json                            (started by run)
#   python3 torch_launch_state.py be gpu|train NAME SYNC OUT.json              (started by run)
# Phases (one letter each, SECONDS long): A every BE paused; G the GPU-only BE (torch_lcbe.py's gpu step) with
# its group's timeslice 1 us (GPreempt's BE slice); N the same BE with libcuda's own timeslice; T the training BE
# (torch_lcbe.py's be step) at 1 us, as in gpreempt-1be; U the training BE with libcuda's slice. The LC's group
# has a 1 s timeslice throughout (LIBTIMESLICE, LD_PRELOAD, as under GPreempt); a paused BE keeps its group and
# sleeps. The LC makes 50 requests/s, periodic, each request one variant in turn:
#   fwd       the inference forward of torch_lcbe.py (108 launches), then torch.cuda.synchronize();
#   fwd-held  the same behind a 10 ms spin kernel of its own (torch.cuda._sleep), launched first and not timed, so
#             none of the forward's kernels runs while it launches them;
#   ops       108 launches of a one-element add_ (ATen's smallest launch path), then the synchronize;
#   ops-held  the same behind the spin kernel;
#   meta      the forward on a copy of the model on the meta device: the module code and the dispatcher, no
#             CUDA call at all (no synchronize).
# After each request, a probe: a fixed Python loop (the host CPU's speed in the LC's own thread, now).
# Per request (lc.json, "requests"): arrival, variant, launch_us (wall time of the launches), launch_cpu_us (the
# thread's CPU time over them), sync_us, probe_us and probe_cpu_us, the CPU it ran on, nivcsw. Per BE
# (NAME.json.steps): each step's end (time.time()) and its time in us. OUTDIR/phases.tsv: round, letter, start,
# end (time.time()), the /proc/stat cpu line at the start; env.txt, host.txt, clocks.csv (nvidia-smi every
# 100 ms), tsg.log (every timeslice decision and the driver's status).
import json
import os
import resource
import subprocess
import sys
import time

import torch

import torch_lcbe

PHASES = "AGNTU"
BES = {"G": ("gpu", "g1", 1), "N": ("gpu", "gn", None), "T": ("train", "t1", 1), "U": ("train", "tn", None)}
VARIANTS = ["fwd", "fwd-held", "ops", "ops-held", "meta"]
HOLD_CYCLES = 20_000_000  # ~10 ms at the H200's 1980 MHz SM clock: longer than the forward's launches
N_OPS = 108
PROBE_N = 10_000


def probe():
    t, c = time.perf_counter(), time.thread_time()
    s = 0
    for i in range(PROBE_N):
        s += i
    return (time.perf_counter() - t) * 1e6, (time.thread_time() - c) * 1e6


def meta_forward():
    """The LC's forward on the meta device, or None when this PyTorch cannot run it there."""
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=4).to("meta")
    x = torch.empty(8, 128, 512, device="meta")

    def fwd():
        with torch.no_grad():
            model(x)
    try:
        fwd()
    except Exception as e:  # the variant is left out, and why is recorded
        return None, repr(e)[:300]
    return fwd, None


def run_lc(sync, out):
    infer, _ = torch_lcbe.build()
    small = torch.zeros(1, device="cuda")
    meta, meta_err = meta_forward()

    def ops():
        for _ in range(N_OPS):
            small.add_(1)
    work = {"fwd": infer.launch, "ops": ops}
    for _ in range(20):
        infer()
        ops()
        torch.cuda._sleep(1000)
        torch.cuda.synchronize()
        if meta:
            meta()
    start = torch_lcbe.wait_start(sync)
    stop = os.path.join(sync, "stop")
    reqs, i = [], 0
    while not os.path.exists(stop):
        arrival = start + i * 0.02
        v = VARIANTS[i % len(VARIANTS)]
        i += 1
        now = time.time()
        if now < arrival:
            time.sleep(arrival - now)
        if v == "meta" and not meta:
            continue
        if v.endswith("-held"):
            torch.cuda._sleep(HOLD_CYCLES)
        u1 = resource.getrusage(resource.RUSAGE_THREAD)
        t1, c1 = time.perf_counter(), time.thread_time()
        (meta if v == "meta" else work[v.split("-")[0]])()
        t2, c2 = time.perf_counter(), time.thread_time()
        if v != "meta":
            torch.cuda.synchronize()
        t3 = time.perf_counter()
        u3 = resource.getrusage(resource.RUSAGE_THREAD)
        pw, pc = probe()
        reqs.append({"arrival": round(arrival, 6), "variant": v, "launch_us": round((t2 - t1) * 1e6, 1),
                     "launch_cpu_us": round((c2 - c1) * 1e6, 1), "sync_us": round((t3 - t2) * 1e6, 1),
                     "probe_us": round(pw, 1), "probe_cpu_us": round(pc, 1), "cpu": torch_lcbe.on_cpu(),
                     "nivcsw": u3.ru_nivcsw - u1.ru_nivcsw})
    with open(out, "w") as f:
        json.dump({"start": start, "hold_cycles": HOLD_CYCLES, "n_ops": N_OPS, "probe_n": PROBE_N,
                   "meta_error": meta_err, "requests": reqs}, f)
    print("LC %d requests" % len(reqs))


def run_be(mode, name, sync, out):
    step = torch_lcbe.gpu_busy() if mode == "gpu" else torch_lcbe.build()[1]
    for _ in range(5):
        step()
    torch_lcbe.wait_start(sync)
    on, stop = os.path.join(sync, "run." + name), os.path.join(sync, "stop")
    n = 0
    with open(out + ".steps", "w") as prog:
        while not os.path.exists(stop):
            if not os.path.exists(on):
                time.sleep(0.01)
                continue
            t0 = time.time()
            step()
            t = time.time()
            prog.write("%.6f %.1f\n" % (t, (t - t0) * 1e6))
            prog.flush()
            n += 1
    print("BE %s %d steps" % (name, n))


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


def stat_cpu():
    with open("/proc/stat") as f:
        return f.readline().strip()


def run(outdir, lib, rounds, secs):
    os.makedirs(outdir, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    sync = os.path.join(outdir, "sync")
    os.makedirs(sync, exist_ok=True)
    with open(os.path.join(outdir, "env.txt"), "w") as f:
        f.write(sh("date -u; nproc; nvidia-smi --query-gpu=name,uuid,serial,driver_version,clocks.sm,clocks.max.sm "
                   "--format=csv 2>&1; nvidia-smi -q 2>&1 | grep -i -E 'serial|uuid' "))
        f.write("torch %s\n" % torch.__version__)  # no CUDA context here: the orchestrator holds no channel group
    with open(os.path.join(outdir, "host.txt"), "w") as f:
        f.write(sh("uname -a; lscpu 2>&1; cat /sys/devices/system/cpu/cpuidle/current_driver 2>&1; "
                   "cat /proc/sys/kernel/sched_autogroup_enabled 2>&1"))
    clocks = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu",
                               "--format=csv,noheader", "-lms", "100"],
                              stdout=open(os.path.join(outdir, "clocks.csv"), "w"), stderr=subprocess.STDOUT)
    procs = []

    def spawn(args, log, us):
        env = dict(os.environ)
        if us is not None:
            env.update(LD_PRELOAD=lib, NVEMU_TSG_TIMESLICE_US=str(us), NVEMU_TSG_LOG=os.path.join(outdir, "tsg.log"))
        procs.append(subprocess.Popen([sys.executable, os.path.join(here, "torch_launch_state.py")] + args, env=env,
                                      stdout=open(os.path.join(outdir, log), "w"), stderr=subprocess.STDOUT))
    for mode, name, us in BES.values():
        spawn(["be", mode, name, sync, os.path.join(outdir, name + ".json")], name + ".log", us)
    spawn(["lc", sync, os.path.join(outdir, "lc.json")], "lc.log", 1000000)
    t = time.time()
    while sum(n.startswith("ready.") for n in os.listdir(sync)) < len(procs) and time.time() < t + 150:
        if any(p.poll() is not None for p in procs):
            break
        time.sleep(0.1)
    ready = sum(n.startswith("ready.") for n in os.listdir(sync))
    print("ready: %d of %d after %.0f s" % (ready, len(procs), time.time() - t), flush=True)
    if ready < len(procs):  # a process died or hung in its warm-up: no phase would mean what it says
        for p in procs:
            p.kill()
            p.wait()
        clocks.terminate()
        clocks.wait()
        sys.exit("not every process got ready: see the logs in " + outdir)
    start = time.time() + 0.5
    with open(os.path.join(sync, "go.tmp"), "w") as f:
        f.write("%.6f\n" % start)
    os.rename(os.path.join(sync, "go.tmp"), os.path.join(sync, "go"))
    with open(os.path.join(outdir, "phases.tsv"), "w") as ph:
        ph.write("round\tphase\tstart\tend\tstat_start\tstat_end\n")
        for r in range(rounds):
            for k in range(len(PHASES)):
                letter = PHASES[(k + r) % len(PHASES)]
                a = start + (r * len(PHASES) + k) * secs
                if letter in BES:
                    open(os.path.join(sync, "run." + BES[letter][1]), "w").close()
                time.sleep(max(0.0, a - time.time()))
                s0 = stat_cpu()
                time.sleep(max(0.0, a + secs - time.time()))
                if letter in BES:
                    os.unlink(os.path.join(sync, "run." + BES[letter][1]))
                ph.write("%d\t%s\t%.6f\t%.6f\t%s\t%s\n" % (r, letter, a, a + secs, s0, stat_cpu()))
                ph.flush()
    open(os.path.join(sync, "stop"), "w").close()
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    clocks.terminate()
    clocks.wait()
    for n in os.listdir(sync):
        os.unlink(os.path.join(sync, n))
    os.rmdir(sync)
    print("done: " + " ".join(str(p.returncode) for p in procs), flush=True)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) in (3, 4, 5) and a[0] == "run":
        run(a[1], a[2], int(a[3]) if len(a) > 3 else 8, float(a[4]) if len(a) > 4 else 3.0)
    elif len(a) == 3 and a[0] == "lc":
        run_lc(a[1], a[2])
    elif len(a) == 5 and a[0] == "be" and a[1] in ("gpu", "train"):
        run_be(a[1], a[2], a[3], a[4])
    else:
        sys.exit("usage: torch_launch_state.py run OUTDIR LIBTIMESLICE [ROUNDS] [SECONDS] | lc SYNC OUT | "
                 "be gpu|train NAME SYNC OUT")
