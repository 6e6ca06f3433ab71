# torch_share: one of two processes sharing a GPU at once (no MPS): 1.5 s of matrix products.
import os
import time

import torch

a = torch.randn(2048, 2048, device="cuda")
t0 = time.time()
n = 0
while time.time() - t0 < 1.5:
    a = torch.tanh(a @ a)
    n += 1
torch.cuda.synchronize()
print("pid", os.getpid(), "products", n)
