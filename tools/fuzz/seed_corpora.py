#!/usr/bin/env python3
"""Fills the seed corpora of the libFuzzer targets (docs/fuzzing.md):
  OUT/hlo_module: examples/*.hlo, spec/ir/testdata/*.hlo and the modules of
                  golden/**/*.golden cases (small ones first)
  OUT/literal:    the arg:/expect: literals of the golden cases
  OUT/npy:        every .npy under examples/ (including examples/bad)
Usage: tools/fuzz/seed_corpora.py OUT [--max N] (N files per corpus at most,
default 60). The corpora are generated, not committed.
"""
import argparse
import hashlib
from pathlib import Path

root = Path(__file__).resolve().parents[2]


def golden_cases():
    for path in sorted(root.glob("golden/**/*.golden")):
        module, literals, in_module = [], [], False
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("case "):
                if module:
                    yield "\n".join(module), literals
                module, literals, in_module = [], [], False
            elif line.startswith("module:"):
                in_module = True
            elif in_module and (line.startswith("  ") or not line.strip()):
                module.append(line[2:])
            else:
                in_module = False
                for key in ("arg:", "expect:"):
                    if line.startswith(key):
                        literals.append(line[len(key):].strip())
        if module:
            yield "\n".join(module), literals


def write(out_dir, blobs, limit):
    out_dir.mkdir(parents=True, exist_ok=True)
    seen = set()
    for blob in blobs:
        digest = hashlib.sha1(blob).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        (out_dir / digest).write_bytes(blob)
        if len(seen) >= limit:
            break
    return len(seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--max", type=int, default=60)
    args = ap.parse_args()
    out = Path(args.out)
    hlo, lits = [], []
    for p in list(root.glob("examples/*.hlo")) + list(
            root.glob("spec/ir/testdata/*.hlo")):
        hlo.append(p.read_bytes())
    for module, literals in golden_cases():
        hlo.append(module.encode())
        lits.extend(l.encode() for l in literals)
    npy = [p.read_bytes() for p in root.glob("examples/**/*.npy")]
    # Spread the module seeds: the smallest, then every k-th of the rest.
    hlo.sort(key=len)
    half = args.max // 2
    step = max(1, (len(hlo) - half) // max(1, half))
    hlo = hlo[:half] + hlo[half::step]
    lits.sort(key=len)
    step = max(1, len(lits) // args.max)
    lits = lits[::step]
    for name, blobs in (("hlo_module", hlo), ("literal", lits), ("npy", npy)):
        n = write(out / name, blobs, args.max)
        print(f"{out / name}: {n} seeds")


if __name__ == "__main__":
    main()
