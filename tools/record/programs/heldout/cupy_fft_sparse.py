# cupy_fft_sparse: CuPy's cuFFT path (a real 2-D FFT and its inverse) and cuSPARSE path (a CSR matrix times
# a vector).
import cupy as cp
import cupyx.scipy.sparse as sp

a = cp.random.rand(256, 256, dtype=cp.float32)
r = cp.fft.irfft2(cp.fft.rfft2(a), s=a.shape)
n = 4096
m = sp.random(n, n, density=0.01, format="csr", dtype=cp.float32, random_state=1)
v = m @ cp.ones(n, dtype=cp.float32)
print("cupy", cp.__version__, "fft err", float(cp.abs(r - a).max()) < 1e-3, "spmv", round(float(v.sum()) - float(m.sum()), 2))
