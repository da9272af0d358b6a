#!/usr/bin/env python3
"""Writes the bf16 modules of examples/enclosure/ as JAX lowers them
(jax 0.10.2, `jax.jit(f).lower(...).as_text(dialect="hlo")`): a layer norm
with f32 statistics, attention, an MLP with gelu, and a layer norm with
every element-wise op in bf16. Run with the repository's .venv:

    .venv/bin/python3 examples/enclosure/generate.py
"""
import os
import jax, jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

def layer_norm(x, g, b):
    m = jnp.mean(x.astype(jnp.float32), axis=-1, keepdims=True)
    v = jnp.mean(jnp.square(x.astype(jnp.float32) - m), axis=-1, keepdims=True)
    y = (x.astype(jnp.float32) - m) * jax.lax.rsqrt(v + 1e-5)
    return (y.astype(jnp.bfloat16) * g + b)

def attention(q, k, v):
    s = jnp.einsum('hqd,hkd->hqk', q, k, preferred_element_type=jnp.float32) / np.float32(np.sqrt(q.shape[-1]))
    p = jax.nn.softmax(s, axis=-1).astype(jnp.bfloat16)
    return jnp.einsum('hqk,hkd->hqd', p, v, preferred_element_type=jnp.float32).astype(jnp.bfloat16)

def mlp(x, w1, b1, w2, b2):
    h = jnp.dot(x, w1, preferred_element_type=jnp.float32) + b1.astype(jnp.float32)
    h = jax.nn.gelu(h, approximate=True).astype(jnp.bfloat16)
    return (jnp.dot(h, w2, preferred_element_type=jnp.float32) + b2.astype(jnp.float32)).astype(jnp.bfloat16)

bf = jnp.bfloat16
S = jax.ShapeDtypeStruct
mods = {
 'layer_norm_bf16': (layer_norm, [S((16, 64), bf), S((64,), bf), S((64,), bf)]),
 'attention_bf16': (attention, [S((2, 8, 16), bf), S((2, 8, 16), bf), S((2, 8, 16), bf)]),
 'mlp_bf16': (mlp, [S((8, 32), bf), S((32, 64), bf), S((64,), bf), S((64, 32), bf), S((32,), bf)]),
}
for name, (f, args) in mods.items():
    txt = jax.jit(f).lower(*args).as_text(dialect='hlo')
    open(os.path.join(HERE, f'{name}.hlo'), 'w').write(txt)
    print(name, len(txt))

def layer_norm_pure(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    d = x - m
    v = jnp.mean(d * d, axis=-1, keepdims=True)
    return d * jax.lax.rsqrt(v + bf(1e-3)) * g + b
txt = jax.jit(layer_norm_pure).lower(S((64, 256), bf), S((256,), bf), S((256,), bf)).as_text(dialect='hlo')
open(os.path.join(HERE, 'layer_norm_elementwise_bf16.hlo'), 'w').write(txt)
