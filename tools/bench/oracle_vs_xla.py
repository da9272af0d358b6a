#!/usr/bin/env python3
"""The oracle (hloref's interpreter) against XLA:CPU on realistic modules
(issue 16): per module, the oracle's wall time and peak RSS for
`hloref run MODULE ARGS --print=none` (/usr/bin/time -v), whose wall time
minus that of `hloref check MODULE` (process start, parse, verify; the
fastest of seven of each for runs under a second) is the oracle's time:
reading the .npy arguments and the evaluation, and
XLA:CPU's warm run of the same HLO text through the venv's jaxlib (the
route of tools/bench/modules_vs_xla.py: HLO text -> XlaComputation ->
StableHLO -> compile_and_load; median of batches of back-to-back runs),
both pinned to the same cores in the same run of this script, and the
ratio oracle / XLA.

Arguments are drawn once per module by the XLA worker (floats uniform in
[-1, 1), integer scalars 1: in range for the positions and tokens the
modules index with) and written as .npy for hloref (bf16 as the one-field
structured dtype README describes).

Usage: .venv/bin/python3 tools/bench/oracle_vs_xla.py [--build DIR]
         [--hloref PATH] [--cores 1] [--threads 1] [--modules a.hlo,...]
         [--min-time 1.0] [--repetitions 3] [--markdown OUT.md]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODULES = (
    sorted(glob.glob(os.path.join(ROOT, "tools", "bench", "oracle_modules", "*.hlo"))) +
    [os.path.join(ROOT, "tools", "bench", "modules", m) for m in
     ("attention_block.hlo", "multi_head_attention.hlo", "layer_norm.hlo",
      "conv_block.hlo", "topk.hlo", "sort.hlo")])


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def write_npy(path, array):
    import numpy as np
    import ml_dtypes
    if array.dtype == ml_dtypes.bfloat16:
        structured = np.empty(array.shape, dtype=[("bf16", "<u2")])
        structured["bf16"] = array.view(np.uint16)
        np.save(path, structured)
    else:
        np.save(path, array)


def xla_worker(cores, path, arg_dir, min_seconds, repetitions):
    """Own process: affinity first, then jax. Writes the arguments to
    arg_dir and prints the warm-run figures as JSON."""
    os.sched_setaffinity(0, set(cores))
    import numpy as np
    import jax
    import jax.extend.backend as jax_backend
    import jaxlib._hlo as xla_hlo
    import jaxlib._jax as xla_jax
    client = jax_backend.get_backend("cpu")
    device = client.local_devices()[0]
    with open(path) as f:
        text = f.read()
    module = xla_hlo.hlo_module_from_text(text)
    computation = xla_hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    shape = computation.program_shape()
    rng = np.random.default_rng(12345)
    host = []
    for i, p in enumerate(shape.parameter_shapes()):
        dtype = p.numpy_dtype()
        dims = p.dimensions()
        if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16":
            a = rng.uniform(-1, 1, size=dims).astype(np.float32).astype(dtype)
        else:
            a = np.ones(dims, dtype=dtype)
        host.append(a)
        write_npy(os.path.join(arg_dir, f"arg{i:03d}.npy"), a)
    result = {"args": len(host),
              "arg_bytes": int(sum(a.nbytes for a in host))}
    try:
        mlir = xla_jax.mlir.xla_computation_to_mlir_module(computation)
        t0 = time.perf_counter()
        executable = client.compile_and_load(
            mlir, xla_jax.DeviceList((device,)), xla_jax.CompileOptions())
        result["compile_s"] = time.perf_counter() - t0
        args = [jax.device_put(a, device) for a in host]

        def run():
            for o in executable.execute(args):
                o.block_until_ready()

        for _ in range(2):
            run()
        samples = []
        for _ in range(repetitions):
            count = 0
            t = time.perf_counter()
            while time.perf_counter() - t < min_seconds or count < 3:
                run()
                count += 1
            samples.append((time.perf_counter() - t) / count)
        result["run_s"] = median(samples)
    except Exception as e:  # a module XLA:CPU does not take
        result["error"] = str(e)[:200]
    print(json.dumps(result))


def run_oracle(hloref, cores, threads, path, arg_dir, extra):
    args = sorted(glob.glob(os.path.join(arg_dir, "arg*.npy")))
    pin = ["taskset", "-c", ",".join(map(str, cores))]
    cmd = ["/usr/bin/time", "-v"] + pin + [hloref, "run", path] + args + extra
    if threads is not None:
        cmd.append(f"--threads={threads}")
    # Process start, parse and verify, timed alone through the same
    # wrapper: subtracted so that the evaluation (with reading the
    # arguments) is what is compared. A run under a second is a few
    # milliseconds of work in a process start several times longer, so it
    # is repeated and the fastest run and the fastest check are taken.
    check = ["/usr/bin/time", "-v"] + pin + [hloref, "check", path]

    def timed(c):
        t = time.perf_counter()
        p = subprocess.run(c, capture_output=True, text=True)
        return time.perf_counter() - t, p

    first, p = timed(cmd)
    runs = [first]
    base = [timed(check)[0]]
    reps = 7 if first < 1.0 and p.returncode == 0 else 1
    for _ in range(reps - 1):
        runs.append(timed(cmd)[0])
        base.append(timed(check)[0])
    if reps == 1:
        base += [timed(check)[0] for _ in range(2)]
    wall = min(runs) - min(base)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    out = {"wall_s": wall, "rss_mib": int(rss.group(1)) / 1024 if rss else None,
           "rc": p.returncode}
    if p.returncode != 0:
        out["error"] = [l for l in p.stderr.splitlines()
                        if "hloref" in l and "progress" not in l][-1:]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--hloref", help="hloref binary (default BUILD/tools/hloref)")
    ap.add_argument("--cores", default="1")
    ap.add_argument("--threads", type=int, default=1,
                    help="oracle --threads (-1: do not pass the flag)")
    ap.add_argument("--modules")
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--no-print-flag", action="store_true",
                    help="for binaries without --print=none (stdout is "
                         "discarded either way)")
    ap.add_argument("--markdown")
    ap.add_argument("--xla-worker", action="store_true")
    ap.add_argument("--arg-dir")
    a = ap.parse_args()
    cores = [int(c) for c in a.cores.split(",")]
    if a.xla_worker:
        xla_worker(cores, a.modules, a.arg_dir, a.min_time, a.repetitions)
        return
    hloref = a.hloref or os.path.join(a.build, "tools", "hloref")
    paths = a.modules.split(",") if a.modules else DEFAULT_MODULES
    extra = [] if a.no_print_flag else ["--print=none", "--no-progress"]
    threads = None if a.threads < 0 else a.threads
    rows = []
    print(f"cores {a.cores}, oracle threads {a.threads}, {hloref}", flush=True)
    print(f"{'module':28} {'args MiB':>9} {'XLA warm':>10} {'oracle':>9} "
          f"{'x XLA':>8} {'oracle RSS MiB':>15}", flush=True)
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        with tempfile.TemporaryDirectory(dir=os.environ.get("ORACLE_BENCH_TMP")) as tmp:
            w = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--xla-worker",
                 "--cores", a.cores, "--modules", path, "--arg-dir", tmp,
                 "--min-time", str(a.min_time),
                 "--repetitions", str(a.repetitions)],
                capture_output=True, text=True)
            if w.returncode != 0:
                print(f"{name:28} XLA worker failed: {w.stderr[-300:]}")
                continue
            xla = json.loads(w.stdout.strip().splitlines()[-1])
            orc = run_oracle(hloref, cores, threads, path, tmp, extra)
        xs = xla.get("run_s")
        ratio = orc["wall_s"] / xs if xs and orc["rc"] == 0 else None
        rows.append((name, xla, orc, ratio))
        print(f"{name:28} {xla['arg_bytes'] / 2**20:9.1f} "
              f"{(xs * 1e3 if xs else float('nan')):8.2f}ms "
              f"{orc['wall_s']:8.2f}s "
              f"{(f'{ratio:7.1f}x' if ratio else '    n/a')} "
              f"{(orc['rss_mib'] or 0):15.0f}"
              f"{'' if orc['rc'] == 0 else '  FAILED ' + str(orc.get('error'))}"
              f"{'' if 'error' not in xla else '  XLA: ' + xla['error']}",
              flush=True)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| module | args MiB | XLA:CPU warm | oracle wall | "
                    "oracle / XLA | oracle peak RSS MiB |\n|---|---|---|---|---|---|\n")
            for name, xla, orc, ratio in rows:
                f.write(f"| {name} | {xla['arg_bytes'] / 2**20:.1f} | "
                        f"{xla.get('run_s', float('nan')) * 1e3:.2f} ms | "
                        f"{orc['wall_s']:.2f} s | "
                        f"{f'{ratio:.1f}x' if ratio else 'n/a'} | "
                        f"{orc['rss_mib'] or 0:.0f} |\n")


if __name__ == "__main__":
    main()
