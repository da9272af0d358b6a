#!/usr/bin/env python3
"""The CPU backend against XLA:CPU and the oracle on realistic modules
(tools/bench/modules/*.hlo: MLP, attention, multi-head attention, conv
block, sum/mean, layer norm, top-k, sort), measured in one run of this
script on the same machine.

Per module and thread count it reports:
  - hloref: compile time (Backend::Compile, HLO -> machine code) and the
    median warm run, from backends/cpu/bench/kernel_benchmark --module
    (CpuBackendOptions.threads = T, pinned with taskset to T cores);
  - XLA:CPU through the venv's jaxlib (the route of tools/bench/cpu_vs_xla.py
    and tools/backends/xla_jax.py: HLO text -> XlaComputation -> StableHLO
    -> client.compile_and_load): compile time of compile_and_load and the
    warm execute + block_until_ready timed as kernel_benchmark times
    hloref (the median over repetitions of a batch of runs lasting at
    least --min-time, per run), in a worker process whose
    affinity is set to the same T cores *before* jax is imported, so
    XLA:CPU's thread pool has T threads;
  - the oracle (one thread only): wall time of `hloref run MODULE ARGS`
    minus that of `hloref check MODULE` (process start, parse, verify), so
    it still includes printing the result as text;
  - x XLA = XLA warm time / hloref warm time (above 1: hloref faster) and
    x oracle = oracle time / hloref warm time;
  - with 1 thread also the process CPU time per warm run of both sides and
    their ratio (x XLA cpu): on a shared machine a run that gets only part
    of its core keeps its CPU time while its wall time stretches, so this
    ratio is the one to read when the load is high (with 2 threads CPU
    time adds up idle spinning of both pools, so it is not reported).
Modules run one at a time, hloref then XLA:CPU back to back (each in its
own process), so both sides of a ratio see about the same machine load.

With --rounds N (N > 1) each module's pair of runs is repeated N times,
alternating, and the table reports each side's best round (the smallest
per-round median: the run least disturbed by the host's other tenants)
and x XLA as the ratio of the two best rounds, plus the median and range
of the N per-round ratios ("paired"). On a host whose speed drifts by
tens of percent over minutes, the single-round ratio of a memory-bound
module swings around 1.0 by that much; the best rounds and the paired
ratios do not (session 29: decode_attention read 0.99x in one round while
hloref alone ran 30 % faster a minute later).

Usage: .venv/bin/python3 tools/bench/modules_vs_xla.py [--build DIR]
         [--threads 1,2] [--repetitions N] [--rounds N] [--markdown OUT.md]
         [--no-oracle] [--modules a.hlo,b.hlo]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES_DIR = os.path.join(ROOT, "tools", "bench", "modules")


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def random_args(shapes_dtypes, seed=12345):
    import numpy as np
    rng = np.random.default_rng(seed)
    args = []
    for dims, dtype in shapes_dtypes:
        if np.issubdtype(dtype, np.floating):
            args.append(rng.uniform(-1, 1, size=dims).astype(dtype))
        elif dtype == np.bool_:
            args.append(rng.integers(0, 2, size=dims).astype(dtype))
        else:
            # Indices and positions in [0, 64), as kernel_benchmark
            # --module gives hloref.
            args.append(rng.integers(0, 64, size=dims).astype(dtype))
    return args


# ------------------------------------------------------------ XLA worker
def xla_worker(cores, paths, min_seconds, repetitions):
    """Runs in its own process: affinity first, then jax."""
    os.sched_setaffinity(0, set(cores))
    import jax
    import jax.extend.backend as jax_backend
    import jaxlib._hlo as xla_hlo
    import jaxlib._jax as xla_jax
    client = jax_backend.get_backend("cpu")
    device = client.local_devices()[0]
    results = {}
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            with open(path) as f:
                text = f.read()
            module = xla_hlo.hlo_module_from_text(text)
            computation = xla_hlo.XlaComputation(
                module.as_serialized_hlo_module_proto())
            mlir = xla_jax.mlir.xla_computation_to_mlir_module(computation)
            t0 = time.perf_counter()
            executable = client.compile_and_load(
                mlir, xla_jax.DeviceList((device,)), xla_jax.CompileOptions())
            compile_s = time.perf_counter() - t0
            shape = computation.program_shape()
            host = random_args([(p.dimensions(), p.numpy_dtype())
                                for p in shape.parameter_shapes()])
            args = [jax.device_put(a, device) for a in host]

            def run():
                for o in executable.execute(args):
                    o.block_until_ready()

            for _ in range(3):
                run()
            # As kernel_benchmark times hloref (Google Benchmark
            # repetitions): `repetitions` batches of back-to-back runs of
            # at least min_seconds each; a sample is a batch's time per
            # run (so time lost to other processes counts on both sides),
            # the result the median sample.
            samples, cpu_samples = [], []
            for _ in range(repetitions):
                count = 0
                t = time.perf_counter()
                c = time.process_time()
                while time.perf_counter() - t < min_seconds or count < 10:
                    run()
                    count += 1
                cpu_samples.append((time.process_time() - c) / count)
                samples.append((time.perf_counter() - t) / count)
            results[name] = {"compile_s": compile_s, "run_s": median(samples),
                             "cpu_s": median(cpu_samples)}
        except Exception as e:  # a module XLA:CPU does not take
            results[name] = {"error": str(e)[:200]}
    print(json.dumps(results))


def run_xla(cores, paths, min_seconds, repetitions):
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--xla-worker",
         "--cores", ",".join(map(str, cores)), "--min-time", str(min_seconds),
         "--repetitions", str(repetitions),
         "--modules", ",".join(paths)],
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------- hloref
def run_hloref(build, cores, threads, paths, repetitions, min_seconds):
    """One kernel_benchmark process per module, so that a module the CPU
    backend crashes on is reported as such and the others still run."""
    bench = os.path.join(build, "backends", "cpu", "bench", "kernel_benchmark")
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    res = {}
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.json")
            cmd = ["taskset", "-c", ",".join(map(str, cores)), bench,
                   f"--threads={threads}", f"--benchmark_out={out}",
                   "--benchmark_out_format=json",
                   f"--benchmark_min_time={min_seconds}",
                   f"--benchmark_repetitions={repetitions}",
                   f"--module={path}"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0 or not os.path.exists(out):
                res[name] = {"error": f"kernel_benchmark exit status {p.returncode}"}
                continue
            with open(out) as f:
                data = json.load(f)
        times, cpu_times, compile_s, error = [], [], float("nan"), None
        for b in data["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            if b.get("error_occurred"):
                error = b.get("error_message", "error")[:200]
                continue
            times.append(b["real_time"] * unit[b["time_unit"]])
            # MeasureProcessCPUTime: the process's CPU time per iteration.
            cpu_times.append(b["cpu_time"] * unit[b["time_unit"]])
            compile_s = b.get("compile_ms", float("nan")) * 1e-3
        if error or not times:
            res[name] = {"error": error or "no timing"}
        else:
            res[name] = {"run_s": median(times), "cpu_s": median(cpu_times),
                         "compile_s": compile_s}
    return res


# ----------------------------------------------------------------- oracle
def run_oracle(build, core, path, timeout):
    """Wall time of `hloref run` minus `hloref check`; None on error."""
    import numpy as np
    hloref = os.path.join(build, "tools", "hloref")
    pin = ["taskset", "-c", str(core)]
    # Parameter shapes from hloref's own canonical text of the entry.
    try:
        text = subprocess.run([hloref, "check", path], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return None, str(e)[:120]
    try:
        shapes = parse_entry_params(text)
    except KeyError as e:
        return None, f"no .npy argument of type {e} for the oracle run"
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, a in enumerate(random_args(shapes)):
            f = os.path.join(tmp, f"arg{i}.npy")
            np.save(f, a)
            files.append(f)

        def wall(cmd):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=timeout)
            return time.perf_counter() - t

        try:
            base = min(wall(pin + [hloref, "check", path]) for _ in range(3))
            run = wall(pin + [hloref, "run", path] + files)
        except (OSError, subprocess.CalledProcessError,
                subprocess.TimeoutExpired) as e:
            return None, str(e)[:120]
        return max(run - base, 0.0), None


def parse_entry_params(text):
    """[(dims, numpy dtype)] of the entry's parameters, from
    `hloref check`'s canonical text (parameter(i) instructions of ENTRY)."""
    import re
    import numpy as np
    types = {"f32": np.float32, "f64": np.float64, "s32": np.int32,
             "s64": np.int64, "s8": np.int8, "u8": np.uint8,
             "pred": np.bool_, "f16": np.float16}
    entry = text[text.index("ENTRY"):]
    params = {}
    for m in re.finditer(r"= (\w+)\[([0-9,]*)\](?:\{[0-9,]*\})? parameter\((\d+)\)", entry):
        dims = [int(d) for d in m.group(2).split(",") if d]
        params[int(m.group(3))] = (dims, types[m.group(1)])
    return [params[i] for i in sorted(params)]


# ------------------------------------------------------------------- main
def best_round(best, new):
    """The round with the smaller run time (errors only when no round ran);
    CPU time from that same round."""
    if "run_s" not in new:
        return best if best else new
    if "run_s" not in best or new["run_s"] < best["run_s"]:
        return new
    return best


def fmt_ms(x):
    if x is None or x != x:
        return "-"
    ms = x * 1e3
    return f"{ms:.3f}" if ms >= 1 else f"{ms:.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--markdown")
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--oracle-timeout", type=float, default=300)
    ap.add_argument("--modules")
    ap.add_argument("--xla-worker", action="store_true")
    ap.add_argument("--cores")
    args = ap.parse_args()
    paths = (args.modules.split(",") if args.modules
             else sorted(glob.glob(os.path.join(MODULES_DIR, "*.hlo"))))
    if args.xla_worker:
        xla_worker([int(c) for c in args.cores.split(",")], paths,
                   args.min_time, args.repetitions)
        return 0
    available = sorted(os.sched_getaffinity(0))
    names = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    oracle = {}
    if not args.no_oracle:
        for p, n in zip(paths, names):
            t, err = run_oracle(args.build, available[0], p, args.oracle_timeout)
            oracle[n] = t
            if err:
                print(f"oracle {n}: {err}", file=sys.stderr)
    paired = args.rounds > 1
    header = ("| module | threads | hloref compile ms | XLA compile ms | "
              "hloref warm ms | XLA warm ms | oracle ms | x XLA | "
              "hloref cpu ms | XLA cpu ms | x XLA cpu | x oracle |")
    rule = "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    if paired:
        header += " x XLA paired median (min - max) |"
        rule += "--:|"
    lines = [header, rule]
    for t in [int(x) for x in args.threads.split(",")]:
        if t > len(available):
            print(f"skipping {t} threads: only {len(available)} cores",
                  file=sys.stderr)
            continue
        cores = available[:t]
        for p, n in zip(paths, names):
            # Back to back, so both sides see about the same load; with
            # --rounds, alternated and each side's best round kept.
            o, x, ratios = {}, {}, []
            for _ in range(max(args.rounds, 1)):
                o1 = run_hloref(args.build, cores, t, [p], args.repetitions,
                                args.min_time).get(n, {})
                x1 = run_xla(cores, [p], args.min_time,
                             args.repetitions).get(n, {})
                if o1.get("run_s") and x1.get("run_s"):
                    ratios.append(x1["run_s"] / o1["run_s"])
                o, x = best_round(o, o1), best_round(x, x1)
            orc = oracle.get(n) if t == 1 else None
            run_o, run_x = o.get("run_s"), x.get("run_s")
            cpu_o = o.get("cpu_s") if t == 1 else None
            cpu_x = x.get("cpu_s") if t == 1 else None
            ratio_x = f"{run_x / run_o:.3f}" if run_o and run_x else "-"
            ratio_c = f"{cpu_x / cpu_o:.3f}" if cpu_o and cpu_x else "-"
            ratio_o = f"{orc / run_o:.1f}" if run_o and orc else "-"
            note = ""
            if "error" in o:
                note += f" (hloref: {o['error']})"
            if "error" in x:
                note += f" (XLA: {x['error']})"
            lines.append(
                f"| {n}{note} | {t} | {fmt_ms(o.get('compile_s'))} | "
                f"{fmt_ms(x.get('compile_s'))} | {fmt_ms(run_o)} | "
                f"{fmt_ms(run_x)} | {fmt_ms(orc)} | {ratio_x} | "
                f"{fmt_ms(cpu_o)} | {fmt_ms(cpu_x)} | {ratio_c} | {ratio_o} |"
                + (f" {median(ratios):.3f} ({min(ratios):.3f} - "
                   f"{max(ratios):.3f}) |" if paired and ratios else
                   (" - |" if paired else "")))
            print(lines[-1], file=sys.stderr, flush=True)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
