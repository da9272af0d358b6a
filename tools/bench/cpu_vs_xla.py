#!/usr/bin/env python3
"""The CPU backend against XLA:CPU (jaxlib) on the example modules and a
200-instruction element-wise chain, measured in one run of this script.

For each module it runs build/tools/cpu_benchmark (the CPU backend's warm
run and x_oracle, one thread) and then times XLA:CPU's warm run of the same
module on the same machine: compiled once through jaxlib (HLO text ->
XlaComputation -> StableHLO -> client.compile_and_load, the route of
tools/backends/xla_jax.py), arguments placed on the device once, then
executable.execute(...) + block_until_ready repeated. It prints per module
the two median times and x_xla = XLA:CPU time / CPU backend time (above 1:
the CPU backend is faster).

Usage: .venv/bin/python3 tools/bench/cpu_vs_xla.py [BUILD_DIR]
The whole script (both compilers) is pinned to one core, so thread pools
do not decide the ratio: the CPU backend runs with one thread, XLA:CPU's
pool shares the one core.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = {
    "BM_WhileLoop": "while_loop.hlo",
    "BM_MlpForward": "mlp_forward.hlo",
    "BM_Elementwise": "elementwise.hlo",
    "BM_SortPairs": "sort_pairs.hlo",
    "BM_ReduceChain": "reduce_chain.hlo",
    "BM_DiffFusion": "diff_fusion.hlo",
}


def chain_module(with_max=True):
    # The same text as cpu_benchmark.cc's ChainModule().
    ops = ["add", "multiply", "subtract", "maximum"][:4 if with_max else 3]
    lines = ["HloModule chain", "ENTRY e {", "  x0 = f32[16384] parameter(0)",
             "  y = f32[16384] parameter(1)"]
    for i in range(1, 201):
        lines.append(("  ROOT " if i == 200 else "  ") +
                     f"x{i} = f32[16384] {ops[i % len(ops)]}(x{i - 1}, y)")
    lines.append("}")
    return "\n".join(lines) + "\n"


def xla_time(text, min_seconds=0.5):
    import jax
    import jax.extend.backend as jax_backend
    import jaxlib._hlo as xla_hlo
    import jaxlib._jax as xla_jax
    module = xla_hlo.hlo_module_from_text(text)
    computation = xla_hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = xla_jax.mlir.xla_computation_to_mlir_module(computation)
    client = jax_backend.get_backend("cpu")
    device = client.local_devices()[0]
    executable = client.compile_and_load(
        mlir, xla_jax.DeviceList((device,)), xla_jax.CompileOptions())
    shape = computation.program_shape()
    rng = np.random.default_rng(12345)
    args = []
    for p in shape.parameter_shapes():
        dims = p.dimensions()
        dtype = p.numpy_dtype()
        if dtype == np.float32:
            a = rng.uniform(-1, 1, size=dims).astype(np.float32)
        else:
            a = np.zeros(dims, dtype=dtype)
        args.append(jax.device_put(a, device))

    def run():
        out = executable.execute(args)
        for o in out:
            o.block_until_ready()

    for _ in range(3):
        run()
    samples = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_seconds or len(samples) < 20:
        t = time.perf_counter()
        run()
        samples.append(time.perf_counter() - t)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    # Both sides on one core: cpu_benchmark runs the CPU backend with one
    # thread; XLA:CPU's thread pool is confined to the same core.
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    print(f"pinned to core {core}: both compilers run on one core")
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    bench = os.path.join(build, "tools", "cpu_benchmark")
    out = subprocess.run([bench, "--benchmark_format=json",
                          "--benchmark_min_time=0.2"],
                         check=True, capture_output=True, text=True).stdout
    rows = {b["name"]: b for b in json.loads(out)["benchmarks"]}
    modules = {"BM_Chain200": chain_module(),
               "BM_Chain200NoMax": chain_module(with_max=False)}
    for name, f in EXAMPLES.items():
        with open(os.path.join(ROOT, "examples", f)) as fh:
            modules[name] = fh.read()
    print(f"{'module':<16} {'cpu backend':>12} {'XLA:CPU':>12} {'x_xla':>8} {'x_oracle':>9}")
    for name, text in modules.items():
        row = rows.get(name)
        if row is None:
            print(f"{name:<16} (not in cpu_benchmark output)")
            continue
        ours = row["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[row["time_unit"]]
        try:
            theirs = xla_time(text)
        except Exception as e:  # a module XLA:CPU does not take
            print(f"{name:<16} {ours * 1e6:>10.2f}us   XLA:CPU: {str(e)[:60]}")
            continue
        print(f"{name:<16} {ours * 1e6:>10.2f}us {theirs * 1e6:>10.2f}us "
              f"{theirs / ours:>8.2f} {row.get('x_oracle', 0):>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
