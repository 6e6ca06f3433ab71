# torch_profile: PyTorch profiler (Chrome trace) of a workload's steps, for a scenario's request: {from_trace: ...}.
#   python3 torch_profile.py infer|train OUT.json
# infer: a 4-layer transformer encoder's forward (batch 8, 128 tokens, d_model 512, bf16), one step per request;
# train: the same model's AdamW training step under bf16 autocast. Five profiled steps after two warm-up steps.
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule

mode, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
model = torch.nn.TransformerEncoder(layer, num_layers=4).cuda()
x = torch.randn(8, 128, 512, device="cuda")
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)


def step():
    if mode == "infer":
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            model(x)
    else:
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
    torch.cuda.synchronize()


with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
             schedule=schedule(wait=0, warmup=2, active=5),
             on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
    for _ in range(7):
        step()
        prof.step()
print(mode, "trace written", out)
