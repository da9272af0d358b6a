#!/usr/bin/env python3
"""Fills the seed corpora of the libFuzzer targets (docs/fuzzing.md):
  OUT/hlo_module: examples/*.hlo, spec/ir/testdata/*.hlo and the modules of
                  golden/**/*.golden cases (small ones first)
  OUT/literal:    the arg:/expect: literals of the golden cases
  OUT/npy:        every .npy under examples/ (including examples/bad)
  OUT/evaluator:  the same modules as hlo_module (the small ones run fast)
  OUT/golden_case: golden/**/*.golden files, smallest first, and single
                  cases cut out of them
  OUT/command_results: a mode byte, then two result .npy files (pairs of
                  the examples' .npy files) and a stderr text, separated by
                  "=npy=" (backends/command/fuzz/command_fuzz_entry.h)
  OUT/differential, OUT/cpu_differential: 10-byte (op, seed) inputs for
                  every op index < 256
  OUT/plugin_results: fake-plugin scripts (a passing run of one buffer of
                  each element type, failed statuses with messages, null
                  arrays) and run-reply frames as the host writes them
                  (backends/plugin/fuzz/plugin_fuzz_entry.h)
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


def npy_bytes(descr, shape, data):
    """An .npy (version 1.0) file, written by hand (NumPy format spec)."""
    dims = "".join(f"{d}," for d in shape) if len(shape) == 1 else \
        ", ".join(str(d) for d in shape)
    header = (f"{{'descr': '{descr}', 'fortran_order': False, "
              f"'shape': ({dims}), }}")
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
            header.encode() + data)


# Element type names in the order of kTypeNames in
# backends/plugin/fuzz/plugin_fuzz_entry.cc, with their storage bytes.
PLUGIN_TYPES = [("pred", 1), ("s1", 1), ("s2", 1), ("s4", 1), ("s8", 1),
                ("s16", 2), ("s32", 4), ("s64", 8), ("u1", 1), ("u2", 1),
                ("u4", 1), ("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8),
                ("f16", 2), ("bf16", 2), ("f32", 4), ("f64", 8),
                ("f8e5m2", 1), ("f8e4m3fn", 1), ("f8e4m3", 1), ("f8e3m4", 1),
                ("f8e4m3b11fnuz", 1), ("f8e8m0fnu", 1), ("f4e2m1fn", 1),
                ("f6e3m2fn", 1), ("f6e2m3fn", 1), ("c64", 8), ("c128", 16),
                ("token", 0)]


def plugin_seeds():
    """Inputs of FuzzPluginResults: mode byte 0 (fake plugin), compile
    (status, message, executable), run (status, message, count), then per
    buffer type index, rank byte, flags, dims, data; and mode 3 with a run
    reply frame body (plugin_host_replies.h)."""
    seeds = []
    ok_compile = bytes([0, 0, 1])
    for i, (name, size) in enumerate(PLUGIN_TYPES):
        rank, dims = (0, b"") if name == "token" else (2, bytes([2, 3]))
        data = bytes(range(6 * size)) if name != "token" else b""
        seeds.append(bytes([0]) + ok_compile + bytes([0, 0, 1, i, rank, 0]) +
                     dims + data)
    msg = b"cosine is not implemented"
    for status in (3, 4, 5, 6, 7):
        seeds.append(bytes([0]) + ok_compile + bytes([status, 1, len(msg)]) +
                     msg + bytes([0]))
        seeds.append(bytes([0, status, 1, len(msg)]) + msg + bytes([1]))
    seeds.append(bytes([0]) + ok_compile + bytes([0, 0, 31]))  # null array
    seeds.append(bytes([0]) + ok_compile + bytes([0, 0, 240]))  # count -1

    def le(v, n):
        return (v % (1 << (8 * n))).to_bytes(n, "little")

    def string(b):
        return le(len(b), 8) + b
    body = le(0, 4) + string(b"") + le(2, 8) + le(1, 4)
    body += le(1, 4) + string(b"f32") + le(1, 8) + le(1, 4) + le(2, 8)
    body += le(8, 8) + le(1, 4) + string(b"\0\0\x80?\0\0\0@")
    body += le(1, 4) + string(b"token") + le(0, 8) + le(0, 4) + le(0, 8)
    body += le(0, 4) + string(b"")
    seeds.append(bytes([3]) + body)
    seeds.append(bytes([3]) + le(12, 4) + string(msg) + le(0, 8) + le(0, 4))
    return seeds


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
    golden_files = sorted((p.read_bytes() for p in root.glob(
        "golden/**/*.golden")), key=len)
    golden = golden_files[:args.max // 2]
    for text in golden_files[::max(1, len(golden_files) // (args.max // 2))]:
        # One case cut out of each sampled file (the text up to its second
        # `case` line).
        parts = text.split(b"\ncase ")
        golden.append(parts[0] if len(parts) < 3 else
                      parts[0] + b"\ncase " + parts[1])
    small_npy = sorted(npy, key=len)[:8]
    # The run that passes: result_0 f32[2] and result_1 s32[], the root of
    # the command target's module.
    command = [bytes([0]) + npy_bytes("<f4", (2,), b"\0\0\x80?\0\0\0@") +
               b"=npy=" + npy_bytes("<i4", (), b"\7\0\0\0")]
    for mode in (0, 1, 2, 3, 4):
        for i, a in enumerate(small_npy):
            b = small_npy[(i + 1) % len(small_npy)] if small_npy else b""
            command.append(bytes([mode]) + a + b"=npy=" + b + b"=npy==npy=" +
                           b"stderr text from the program\n")
    differential = [bytes([op, 0]) + seed.to_bytes(8, "little")
                    for seed in (0, 1) for op in range(256)]
    for name, blobs in (("hlo_module", hlo), ("literal", lits), ("npy", npy),
                        ("evaluator", hlo), ("golden_case", golden),
                        ("command_results", command),
                        ("differential", differential),
                        ("cpu_differential", differential),
                        ("plugin_results", plugin_seeds())):
        n = write(out / name, blobs, args.max)
        print(f"{out / name}: {n} seeds")


if __name__ == "__main__":
    main()
