# cupy_ops: CuPy start-up, an elementwise kernel and a reduction.
import cupy as cp

print("cupy", cp.__version__, cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
x = cp.arange(1 << 20, dtype=cp.float32)
y = cp.sin(x) * 2.0 + 1.0
print("sum", float(y.sum()), "max", float(y.max()))
