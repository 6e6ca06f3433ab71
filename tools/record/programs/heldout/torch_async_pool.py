# torch_async_pool: PyTorch with the cudaMallocAsync allocator backend (PYTORCH_CUDA_ALLOC_CONF is set by the
# recording script) running products for about six seconds, long enough for nvidia-smi to list it as a
# compute process.
import time

import torch

a = torch.randn(2048, 2048, device="cuda")
t0, n = time.time(), 0
while time.time() - t0 < 6.0:
    a = torch.tanh(a @ a)
    torch.cuda.synchronize()
    n += 1
print("allocator", torch.cuda.get_allocator_backend(), "products", n)
