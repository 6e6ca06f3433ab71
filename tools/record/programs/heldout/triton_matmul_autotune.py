# triton_matmul_autotune: a Triton matrix product whose block sizes are chosen by triton.autotune over two
# configurations (each compiled and timed), then checked against torch.matmul.
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BM": 64, "BN": 64, "BK": 32}, num_warps=4),
                          triton.Config({"BM": 128, "BN": 64, "BK": 32}, num_warps=4)], key=["M", "N", "K"])
@triton.jit
def mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


M = N = K = 512
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
mm[lambda meta: (M // meta["BM"], N // meta["BN"])](a, b, c, M, N, K)
print("triton", triton.__version__, "best", mm.best_config, "close", torch.allclose(c, a @ b, atol=0.5, rtol=0.05))
