#!/usr/bin/env python3
"""bf16 layer norm, attention and MLP where XLA:CPU keeps excess precision.

XLA:CPU (jaxlib 0.10.2) computes bf16 element-wise ops in f32 and rounds
each result back to bf16 (FloatNormalization), except where the program
itself converts that bf16 result to f32: with xla_allow_excess_precision
(the default) the rounding to bf16 is then dropped and the f32 value is
used. These modules, lowered by JAX as XLA dumps them, put a bf16 op in
front of each such upcast (`x - mean` and `d * d` of the layer norm, the
scaled scores of attention, the bias add of the MLP), so XLA's outputs
differ from the per-op oracle's; docs/enclosures.md has the figures.

    .venv/bin/python3 examples/enclosure/xla_cpu/generate.py --modules
        writes the .hlo files next to this script (needs jax)
    .venv/bin/python3 examples/enclosure/xla_cpu/generate.py --args DIR
        writes DIR/<module>/arg_<k>.npy (needs numpy and ml_dtypes):
        well-conditioned arguments from a fixed seed, chosen so that no
        output is near zero (the bias of the layer norm in [2, 3), the
        values of attention in [0.5, 1.5), the second MLP weights in
        [0, 0.25) and its bias in [1, 2)); outputs near zero after
        cancellation would be unjudged (too wide), not passed.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> list of (shape, low, high) per parameter
ARGS = {
    "layer_norm_bf16": [((64, 256), -1, 1), ((256,), 0.5, 1), ((256,), 2, 3)],
    "attention_bf16": [((4, 64, 32), -1, 1), ((4, 64, 32), -1, 1),
                       ((4, 64, 32), 0.5, 1.5)],
    "mlp_bf16": [((64, 128), -1, 1), ((128, 256), -1, 1), ((256,), -1, 1),
                 ((256, 128), 0, 0.25), ((128,), 1, 2)],
}


def write_modules():
    import jax
    import jax.numpy as jnp
    import numpy as np

    bf = jnp.bfloat16
    f32 = jnp.float32

    def layer_norm_bf16(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)  # f32 sum, bf16 mean
        d = x - m  # bf16, upcast below: kept in f32
        v = jnp.mean(d * d, axis=-1, keepdims=True)  # bf16 square kept
        y = d.astype(f32) * jax.lax.rsqrt(v.astype(f32) + 1e-5)
        return (y * g.astype(f32) + b.astype(f32)).astype(bf)

    def attention_bf16(q, k, v):
        scale = bf(1 / np.sqrt(q.shape[-1]))
        s = jnp.einsum("hqd,hkd->hqk", q, k,
                       preferred_element_type=f32).astype(bf) * scale
        p = jax.nn.softmax(s.astype(f32), axis=-1).astype(bf)
        return jnp.einsum("hqk,hkd->hqd", p, v,
                          preferred_element_type=f32).astype(bf)

    def mlp_bf16(x, w1, b1, w2, b2):
        h = jnp.dot(x, w1, preferred_element_type=f32).astype(bf) + b1
        h = jax.nn.gelu(h.astype(f32), approximate=True).astype(bf)
        return jnp.dot(h, w2, preferred_element_type=f32).astype(bf) + b2

    funcs = {"layer_norm_bf16": layer_norm_bf16,
             "attention_bf16": attention_bf16, "mlp_bf16": mlp_bf16}
    for name, f in funcs.items():
        shapes = [jax.ShapeDtypeStruct(s, bf) for s, _, _ in ARGS[name]]
        text = jax.jit(f).lower(*shapes).as_text(dialect="hlo")
        with open(os.path.join(HERE, f"{name}.hlo"), "w") as out:
            out.write(text)


def write_args(root):
    import ml_dtypes
    import numpy as np

    rng = np.random.default_rng(20)
    for name, params in ARGS.items():
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for k, (shape, lo, hi) in enumerate(params):
            a = rng.uniform(lo, hi, shape).astype(ml_dtypes.bfloat16)
            # hloref's .npy form of bf16: a one-field structured dtype
            # holding the bits (spec/types/npy.h).
            s = np.zeros(shape, dtype=[("bf16", "<u2")])
            s["bf16"] = a.view(np.uint16)
            np.save(os.path.join(d, f"arg_{k}.npy"), s)


def main(argv):
    if argv[1:] == ["--modules"]:
        write_modules()
    elif len(argv) == 3 and argv[1] == "--args":
        write_args(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
