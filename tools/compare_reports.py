#!/usr/bin/env python3
"""Compares the per-case outcomes and messages of two conformance reports
(report.json of `hloref conformance --report=DIR`). Exits 0 when every case
has the same outcome and message in both, 1 otherwise (listing up to 20
differences). Timings are ignored. Used to check that the CPU backend's
verdicts do not depend on its thread count or on the run."""
import json
import sys


def cases(path):
    with open(path) as f:
        report = json.load(f)
    return {c["id"]: (c["outcome"], c.get("message", "")) for c in report["cases"]}


def main():
    if len(sys.argv) != 3:
        print("usage: compare_reports.py A/report.json B/report.json", file=sys.stderr)
        return 2
    a, b = cases(sys.argv[1]), cases(sys.argv[2])
    diffs = []
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            diffs.append((key, a.get(key), b.get(key)))
    if diffs:
        for key, x, y in diffs[:20]:
            print(f"{key}:\n  A: {x}\n  B: {y}")
        print(f"{len(diffs)} of {len(set(a) | set(b))} cases differ")
        return 1
    print(f"identical verdicts for all {len(a)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
