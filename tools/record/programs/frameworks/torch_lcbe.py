# torch_lcbe: one process of the PyTorch LC/BE experiment (torch_lcbe.sh runs them side by side).
#   python3 torch_lcbe.py lc RATE SECONDS SYNC_DIR OUT.json   LC: inference requests at RATE/s (periodic)
#   python3 torch_lcbe.py be SECONDS SYNC_DIR OUT.json        BE: training steps back to back
#   python3 torch_lcbe.py gpu SECONDS SYNC_DIR OUT.json       BE that keeps the GPU busy with little CPU time:
#     batches of 8 bf16 matmuls (4096^3, about 1.6 ms of GPU), waiting for each with short sleeps, then 8 ms
#     asleep (the training loop's GPU duty, about a sixth, without its CPU time); a "step" is one batch
# The model and the steps are torch_profile.py's (a 4-layer transformer encoder, d_model 512, batch 8 x 128
# tokens, bf16 autocast), so its profiler traces are this program's requests. Each process warms up, writes
# SYNC_DIR/ready.PID, and waits for SYNC_DIR/go, which holds the common start (time.time() seconds) of the
# measured window. LC: request i arrives at start + i/RATE; its latency runs from that arrival to the end of
# its torch.cuda.synchronize() (queueing behind a late request included, as the scenario model counts it).
# BE: steps completed inside [start, start + SECONDS]; it goes on training past the window until
# SYNC_DIR/stop appears, so the LC requests meet it for the whole window; step_us: each of those steps' time.
# The LC also records, per request, what tells the host's share from the GPU's: wake_us (arrival to the end of
# its sleep: how late the thread woke), launch_us (wall time of the forward's launches), sync_us (the
# synchronize), cpu_us (the thread's CPU time over launches and synchronize), nvcsw/nivcsw (its voluntary and
# involuntary context switches in the request) and cpu (the CPU it ended on).
import json
import os
import resource
import sys
import time

import torch


def build():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=4).cuda()
    x = torch.randn(8, 128, 512, device="cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def launch():
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            model(x)

    def infer():
        launch()
        torch.cuda.synchronize()

    def train():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()

    infer.launch = launch
    return infer, train


def wait_start(sync):
    open(os.path.join(sync, "ready.%d" % os.getpid()), "w").close()
    go = os.path.join(sync, "go")
    deadline = time.time() + 300
    while not os.path.exists(go):
        if time.time() > deadline:
            sys.exit("no go file in %s" % sync)
        time.sleep(0.005)
    time.sleep(0.01)
    with open(go) as f:
        return float(f.read().strip())


def pct(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def on_cpu():
    with open("/proc/thread-self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def run_lc(rate, seconds, sync, out):
    infer, _ = build()
    for _ in range(20):
        infer()
    start = wait_start(sync)
    lat = []
    diag = {k: [] for k in ("wake_us", "launch_us", "sync_us", "cpu_us", "nvcsw", "nivcsw", "cpu")}
    n = int(rate * seconds)
    for i in range(n):
        arrival = start + i / rate
        now = time.time()
        if now < arrival:
            time.sleep(arrival - now)
        t1, c1, u1 = time.time(), time.thread_time(), resource.getrusage(resource.RUSAGE_THREAD)
        infer.launch()
        t2 = time.time()
        torch.cuda.synchronize()
        t3, c3, u3 = time.time(), time.thread_time(), resource.getrusage(resource.RUSAGE_THREAD)
        lat.append((t3 - arrival) * 1e6)
        for k, v in (("wake_us", (t1 - arrival) * 1e6), ("launch_us", (t2 - t1) * 1e6), ("sync_us", (t3 - t2) * 1e6),
                     ("cpu_us", (c3 - c1) * 1e6)):
            diag[k].append(round(v, 1))
        diag["nvcsw"].append(u3.ru_nvcsw - u1.ru_nvcsw)
        diag["nivcsw"].append(u3.ru_nivcsw - u1.ru_nivcsw)
        diag["cpu"].append(on_cpu())
    res = {"role": "LC", "rate": rate, "seconds": seconds, "requests": n, "p50_us": pct(lat, 0.50),
           "p99_us": pct(lat, 0.99), "mean_us": sum(lat) / len(lat), "latencies_us": [round(x, 1) for x in lat]}
    res.update(diag)
    with open(out, "w") as f:
        json.dump(res, f)
    print("LC %d requests at %g/s: p50 %.0f us p99 %.0f us" % (n, rate, res["p50_us"], res["p99_us"]))


def gpu_busy():
    """One batch of the GPU-only BE: 8 matmuls queued, their end awaited in 0.5 ms sleeps, then 8 ms asleep."""
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)

    def step():
        for _ in range(8):
            torch.matmul(a, b)
        done = torch.cuda.Event()
        done.record()
        while not done.query():
            time.sleep(0.0005)
        time.sleep(0.008)

    return step


def run_be(seconds, sync, out, gpu_only=False):
    train = gpu_busy() if gpu_only else build()[1]
    for _ in range(5):
        train()
    start = wait_start(sync)
    end, stop = start + seconds, os.path.join(sync, "stop")
    done, total, steps = 0, 0, []
    prog = open(out + ".steps", "w")  # each step's end and time as it completes: a BE that never returns still shows
    while True:
        t0 = time.time()
        train()
        total += 1
        t = time.time()
        prog.write("%.6f %.1f\n" % (t, (t - t0) * 1e6))
        prog.flush()
        if start <= t <= end:
            done += 1
            steps.append(round((t - t0) * 1e6, 1))
        if t > end and (os.path.exists(stop) or t > end + 120):
            break
    res = {"role": "BE", "seconds": seconds, "steps_in_window": done, "steps_per_s": done / seconds,
           "steps_total": total, "step_us": steps}
    with open(out, "w") as f:
        json.dump(res, f)
    print("BE %d steps in %g s: %.1f steps/s" % (done, seconds, res["steps_per_s"]))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "lc":
        run_lc(float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 5 and sys.argv[1] in ("be", "gpu"):
        run_be(float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[1] == "gpu")
    else:
        sys.exit(__doc__ or "usage: torch_lcbe.py lc RATE SECONDS SYNC_DIR OUT | be|gpu SECONDS SYNC_DIR OUT")
