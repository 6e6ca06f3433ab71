# torch_graphs: a small MLP's forward captured once as a CUDA graph and replayed ten times.
import torch

torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 16)).cuda()
x = torch.randn(32, 256, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        m(x)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = m(x)
for _ in range(10):
    g.replay()
torch.cuda.synchronize()
print("graph replayed, sum", round(y.sum().item(), 4))
