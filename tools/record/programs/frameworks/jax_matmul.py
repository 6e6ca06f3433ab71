# jax_matmul: JAX start-up on the GPU and one jit-compiled matrix product, run twice (compile, then cached).
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
f = jax.jit(lambda a, b: jnp.tanh(a @ b))
a = jnp.ones((512, 512), jnp.float32)
b = jnp.full((512, 512), 0.001, jnp.float32)
for _ in range(2):
    r = f(a, b).block_until_ready()
print("sum", float(r.sum()))
