#!/usr/bin/env python3
"""Paired ratios: hloref against its peers, decided on a drifting host.

kernel_benchmark's summary divides hloref's median rate by each peer's
median. On a shared host whose speed drifts by up to 2x over seconds (the
Xeon of 2026-11-30: the same oneDNN convolution read 114-172 GFLOP/s in
runs a minute apart), those two medians can come from different phases, and
a ratio within about 20 % of 1.0 cannot be decided from one run.

This script runs kernel_benchmark ROUNDS times, each run short and each
measuring hloref and its peers back to back (within a second), and divides
within each run: every round gives one ratio per (workload, threads, ours,
peer), both rates from the same stretch of time. It prints the median
ratio with its interquartile range and extremes over the rounds.

Pairs: every implementation of ours (hloref, kernel, kernel_fast, ...)
against every peer row of the same workload and thread count (oneDNN,
OpenBLAS, Eigen); with --limit WORKLOAD, also against that limit row's
machine figure at the same thread count (e.g. limit_fma_peak_f32 for a
GEMM's share of the FMA peak, limit_bw_sum_16MiB for a reduction's share
of the sum bandwidth; add the limit to --filter); with --threads=1,2, each
of ours at 2 threads against itself at 1 thread in the same run (the
scaling target).

Usage:
  tools/bench/paired_ratios.py --filter '^(conv_1x1|conv_3x3)' --rounds 15
  tools/bench/paired_ratios.py --filter '^(layernorm|limit_bw_sum_16MiB)' \\
      --limit limit_bw_sum_16MiB --markdown /tmp/ln.md
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PEERS = {"onednn": "oneDNN", "openblas": "OpenBLAS", "eigen": "Eigen"}


def parse_name(name):
    """WORKLOAD/tN/IMPL/... -> (workload, threads, impl), or None."""
    parts = name.split("/")
    if len(parts) < 3 or not parts[1].startswith("t"):
        return None
    try:
        threads = int(parts[1][1:])
    except ValueError:
        return None
    return parts[0], threads, parts[2]


def rate_of(bench):
    for unit in ("GFLOP/s", "GB/s"):
        if unit in bench:
            return float(bench[unit]), unit
    return None, None


def run_once(args, out_path):
    cmd = []
    if args.cores:
        cmd += ["taskset", "-c", args.cores]
    cmd += [
        args.bench,
        f"--threads={args.threads}",
        f"--benchmark_filter={args.filter}",
        f"--benchmark_min_time={args.min_time}",
        # The order within a run shuffled too: no implementation always
        # runs first (after the JIT compile) or last.
        "--benchmark_enable_random_interleaving=true",
        f"--benchmark_out={out_path}",
        "--benchmark_out_format=json",
    ] + args.extra
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"paired_ratios: {' '.join(cmd)} exited with status "
                 f"{proc.returncode}:\n{proc.stderr[-2000:]}")
    # (Google Benchmark leaves the file empty when the filter matched
    # nothing.)
    try:
        with open(out_path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError):
        data = {}
    rates = {}
    units = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        key = parse_name(b["name"])
        rate, unit = rate_of(b)
        if key is None or rate is None or rate <= 0:
            continue
        rates[key] = rate
        units[key[0]] = unit
    return rates, units


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 4:
        return xs[0], xs[-1]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "backends", "cpu",
        "bench", "kernel_benchmark"))
    ap.add_argument("--filter", required=True,
                    help="--benchmark_filter regex (workloads and peers)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--threads", default="1", help="e.g. 1 or 1,2")
    ap.add_argument("--min-time", default="0.1",
                    help="--benchmark_min_time per run (seconds)")
    ap.add_argument("--cores", default="",
                    help="taskset -c list (default: no pinning)")
    ap.add_argument("--limit", action="append", default=[],
                    help="a limit workload to rate ours against (repeatable)")
    ap.add_argument("--markdown", help="also write the table here")
    ap.add_argument("extra", nargs="*",
                    help="more kernel_benchmark flags (after --)")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("paired_ratios: --rounds must be at least 1")
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"paired_ratios: no kernel_benchmark at {args.bench} "
                 "(build it, or pass --bench)")

    ratios = {}  # (workload, threads, ours, against) -> [ratio per round]
    units = {}
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "run.json")
        for r in range(args.rounds):
            rates, u = run_once(args, out_path)
            units.update(u)
            for (w, t, impl), rate in rates.items():
                if impl in PEERS or impl == "machine":
                    continue
                for peer in PEERS:
                    other = rates.get((w, t, peer))
                    if other:
                        ratios.setdefault((w, t, impl, PEERS[peer]),
                                          []).append(rate / other)
                # Scaling: ours at t threads against ours at 1 thread in
                # the same run (with --threads=1,2).
                if t > 1:
                    one = rates.get((w, 1, impl))
                    if one:
                        ratios.setdefault((w, t, impl, "own 1 thread"),
                                          []).append(rate / one)
                for lim in args.limit:
                    other = rates.get((lim, t, "machine"))
                    # (Only a limit in the same unit: a GEMM against the
                    # FMA loop, a reduction against a bandwidth.)
                    if other and u.get(lim) == u.get(w):
                        ratios.setdefault((w, t, impl, lim),
                                          []).append(rate / other)
            print(f"paired_ratios: round {r + 1} of {args.rounds}",
                  file=sys.stderr)
    if not ratios:
        sys.exit("paired_ratios: no pairs: the filter matched no workload "
                 "with both one of ours and a peer (or a --limit row)")

    lines = [
        f"Paired ratios over {args.rounds} runs (each run: ours / peer "
        f"measured back to back; --benchmark_min_time={args.min_time}):",
        "",
        "| workload | thr | ours | against | median | quartiles | min - max | runs |",
        "| --- | --: | --- | --- | --: | --: | --: | --: |",
    ]
    for (w, t, impl, against), xs in sorted(ratios.items()):
        q1, q3 = quartiles(xs)
        lines.append(
            f"| {w} ({units.get(w, '?')}) | {t} | {impl} | {against} | "
            f"{statistics.median(xs):.3f} | {q1:.3f} - {q3:.3f} | "
            f"{min(xs):.3f} - {max(xs):.3f} | {len(xs)} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
