# jax_mlp_grad: a jit-compiled training step (value_and_grad of an MLP's squared loss, plain SGD) run three
# times, with JAX's memory preallocation off (the allocator grows on demand instead).
import os

os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
import jax
import jax.numpy as jnp


def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)


@jax.jit
def step(p, x, y):
    v, g = jax.value_and_grad(loss)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), v


k = jax.random.split(jax.random.PRNGKey(0), 3)
p = {"w1": jax.random.normal(k[0], (64, 128)) * 0.1, "b1": jnp.zeros(128), "w2": jax.random.normal(k[1], (128, 1)) * 0.1}
x = jax.random.normal(k[2], (256, 64))
y = jnp.sum(x, axis=1, keepdims=True)
for _ in range(3):
    p, v = step(p, x, y)
print("jax", jax.__version__, "loss", float(v))
