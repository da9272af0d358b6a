#!/usr/bin/env python3
"""The CPU backend's reductions and the fusions around them next to oneDNN,
Eigen, XLA:CPU (jaxlib) and the machine's bandwidth references, in one run
of this script on one pinned core (issue 15, "reduce").

One round:
  1. backends/cpu/bench/kernel_benchmark --threads=1 on the reduce family
     (row / column sum and max of 4096x1024 f32 and bf16, argmax over
     50,000, layer norm 4096x768, softmax 4096x1024, 2x2 max pool of
     1x256x256x64 NHWC) with its peers (oneDNN, Eigen) and the limits
     (limit_bw_sum_16MiB: an AVX-512 sum over a 16 MiB array, the size of
     the reductions' input; limit_bw_copy_16MiB: memcpy of 16 MiB, read and
     write counted), all in that one process; --dump_hlo writes the exact
     HLO modules it compiled;
  2. XLA:CPU on the same modules in a worker process pinned to the same
     core (tools/bench/modules_vs_xla.py --xla-worker: compile_and_load,
     then warm execute + block_until_ready timed like Google Benchmark's
     repetitions).
Rounds alternate (hloref process, XLA process, ...) and every figure is the
median over all repetitions of all rounds, so both sides see about the
same machine load. Rates are GB/s of the workload's bytes (the input read
once; fusions: plus the output written once), by wall time and by process
CPU time (the one to read when the machine is shared); x PEER = hloref
rate / PEER rate (above 1: hloref faster); % sum and % copy = hloref rate
over the sum / copy bandwidth reference of the same process.

With --threads=T (default 1) every side runs T threads pinned to the same
T cores (--cores, default the last T this process may use); with more
than one thread read the wall-time table (process CPU time then adds the
threads' times, and oneDNN's OpenMP threads spin while they wait).

Usage: .venv/bin/python3 tools/bench/reduce_vs_xla.py [--build DIR]
         [--core N | --threads T [--cores A,B]] [--rounds 2]
         [--repetitions 3] [--min-time 0.2] [--filter REGEX]
         [--markdown OUT.md] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FILTER = "^(limit_bw_(sum|copy)_|reduce_|argmax|layernorm|softmax|maxpool)"
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def run_bench(args, dump_dir, samples):
    bench = os.path.join(args.build, "backends", "cpu", "bench",
                         "kernel_benchmark")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = ["taskset", "-c", args.cores, bench, f"--threads={args.threads}",
               f"--dump_hlo={dump_dir}", f"--benchmark_filter={args.filter}",
               f"--benchmark_repetitions={args.repetitions}",
               f"--benchmark_min_time={args.min_time}",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
        if args.quick:
            cmd.append("--quick")
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            sys.exit(f"kernel_benchmark failed ({p.returncode}):\n{p.stderr[-2000:]}")
        with open(out) as f:
            data = json.load(f)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        workload, _, impl = b["name"].split("/")[:3]
        s = samples.setdefault((workload, impl), {"wall": [], "cpu": []})
        s["wall"].append(b["real_time"] * UNIT[b["time_unit"]])
        s["cpu"].append(b["cpu_time"] * UNIT[b["time_unit"]])


def run_xla(args, paths, samples):
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "modules_vs_xla.py"),
         "--xla-worker", "--cores", args.cores,
         "--min-time", str(args.min_time),
         "--repetitions", str(args.repetitions),
         "--modules", ",".join(paths)],
        check=True, capture_output=True, text=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    for name, r in res.items():
        if "error" in r:
            print(f"XLA:CPU {name}: {r['error']}", file=sys.stderr)
            continue
        # The worker reports the median of its repetitions; one sample per
        # round.
        s = samples.setdefault((name, "xla"), {"wall": [], "cpu": []})
        s["wall"].append(r["run_s"])
        s["cpu"].append(r["cpu_s"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--core", type=int,
                    default=sorted(os.sched_getaffinity(0))[-1],
                    help="the core of a 1-thread run")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of hloref, the peers and XLA:CPU, pinned "
                    "to --cores")
    ap.add_argument("--cores",
                    help="comma-separated cores (default: --core with 1 "
                    "thread, the last THREADS cores of this process's "
                    "affinity otherwise)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--filter", default=DEFAULT_FILTER)
    ap.add_argument("--markdown")
    ap.add_argument("--quick", action="store_true",
                    help="tiny shapes (checks the script, no timing claims)")
    args = ap.parse_args()
    if args.cores is None:
        if args.threads == 1:
            args.cores = str(args.core)
        else:
            avail = sorted(os.sched_getaffinity(0))
            if len(avail) < args.threads:
                sys.exit(f"{args.threads} threads need {args.threads} cores; "
                         f"this process may use {len(avail)}")
            args.cores = ",".join(map(str, avail[-args.threads:]))
    elif len(args.cores.split(",")) != args.threads:
        sys.exit(f"--cores={args.cores} does not name {args.threads} cores")
    import re
    pattern = re.compile(args.filter)
    samples = {}
    with tempfile.TemporaryDirectory() as dump:
        for _ in range(args.rounds):
            run_bench(args, dump, samples)
            manifest = {}
            with open(os.path.join(dump, "manifest.tsv")) as f:
                for line in f:
                    name, unit, work = line.rstrip("\n").split("\t")
                    manifest[name] = (unit, float(work))
            names = [n for n in manifest if pattern.search(n)]
            run_xla(args, [os.path.join(dump, n + ".hlo") for n in names],
                    samples)
    limits = {}
    for (w, impl), s in samples.items():
        if w.startswith("limit_bw_"):
            limits[w] = s
    lim_bytes = {}
    for w in limits:
        # limit_bw_sum_16MiB reads 16 MiB; limit_bw_copy_16MiB moves 32 MiB.
        size = 8 << 10 if w.endswith("8KiB") else 16 << 20
        lim_bytes[w] = 2 * size if "_copy_" in w else size

    def rate(work, s, clock):
        t = median(s[clock]) if s else None
        return work / t * 1e-9 if t else None

    def fmt(x, f="{:.2f}"):
        return "-" if x is None else f.format(x)

    out = []
    for clock in ("wall", "cpu"):
        sum_l = next((rate(lim_bytes[w], limits[w], clock) for w in limits
                      if "_sum_" in w), None)
        copy_l = next((rate(lim_bytes[w], limits[w], clock) for w in limits
                       if "_copy_" in w), None)
        out.append(f"\n{args.threads} thread(s), core(s) {args.cores}, "
                   f"rated by "
                   f"{'wall time' if clock == 'wall' else 'process CPU time'};"
                   f" sum reference {fmt(sum_l, '{:.1f}')} GB/s, copy "
                   f"reference {fmt(copy_l, '{:.1f}')} GB/s\n")
        out.append("| workload (GB/s) | hloref | oneDNN | Eigen | XLA:CPU | "
                   "x oneDNN | x Eigen | x XLA | % sum | % copy |")
        out.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for name, (unit, work) in manifest.items():
            if name not in names:
                continue
            r = {impl: rate(work, samples.get((name, impl)), clock)
                 for impl in ("hloref", "onednn", "eigen", "xla")}
            h = r["hloref"]
            ratio = {k: (h / v if h and v else None) for k, v in r.items()}
            out.append(
                f"| {name} | {fmt(r['hloref'])} | {fmt(r['onednn'])} | "
                f"{fmt(r['eigen'])} | {fmt(r['xla'])} | "
                f"{fmt(ratio['onednn'], '{:.3f}')} | "
                f"{fmt(ratio['eigen'], '{:.3f}')} | "
                f"{fmt(ratio['xla'], '{:.3f}')} | "
                f"{fmt(100 * h / sum_l if h and sum_l else None, '{:.0f}%')} | "
                f"{fmt(100 * h / copy_l if h and copy_l else None, '{:.0f}%')} |")
    text = "\n".join(out) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
