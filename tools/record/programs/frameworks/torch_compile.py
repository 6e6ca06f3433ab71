# torch_compile: a function compiled by torch.compile (Inductor, Triton kernels), called three times.
import torch


@torch.compile
def f(a, b):
    return torch.relu(a @ b + 1.0).sum(dim=1)


a = torch.randn(256, 256, device="cuda")
b = torch.randn(256, 256, device="cuda")
for _ in range(3):
    r = f(a, b)
torch.cuda.synchronize()
print("compiled, sum", round(r.sum().item(), 2))
