# triton_add: a Triton kernel (vector add) compiled and launched once through PyTorch tensors.
import torch
import triton
import triton.language as tl


@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)


n = 1 << 16
x = torch.ones(n, device="cuda")
y = torch.full((n,), 2.0, device="cuda")
o = torch.empty_like(x)
add[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024)
print("triton", triton.__version__, "sum", o.sum().item())
