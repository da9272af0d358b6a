#!/usr/bin/env python3
"""Round trip of hloref's StableHLO reader against XLA's own conversion.

Usage: roundtrip.py HLOREF GOLDEN_DIR [--limit=N] [--verbose] [--keep=DIR]

For every case module of GOLDEN_DIR/ops/*.golden and GOLDEN_DIR/programs/
*.golden (with array arguments): XLA's HLO parser reads the module and
jaxlib converts it to StableHLO text (jaxlib._hlo.hlo_module_from_text ->
XlaComputation -> jaxlib._jax.mlir.xla_computation_to_mlir_module, the
route of tools/backends/xla_jax.py); then `HLOREF run` evaluates the
original .hlo and the converted .mlir (read back by spec/stablehlo/) on
the oracle with the case's arguments, and the printed results must be
identical. Prints one line per non-equal module and a summary
  roundtrip: modules M, xla-converted C, read back R, equal E, differ D,
  reader errors F, oracle errors on both O
Exit status: 0 when no module differs and at most --max-reader-errors
(default 0) converted modules are refused by the reader (F: mostly the
mhlo.* ops XLA keeps for HLO ops StableHLO lacks, e.g. mhlo.scan, async
bundles), 1 otherwise, 77 when jax is not importable (ctest's skip code).
Known XLA-side differences (KNOWN below) are counted as equal-by-reason.
"""

import os
import re
import subprocess
import sys
import tempfile


def _use_project_venv():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    venv = os.path.join(root, ".venv", "bin", "python3")
    if (os.path.exists(venv) and os.path.realpath(sys.executable) !=
            os.path.realpath(venv) and not os.environ.get("HLOREF_RT_NO_VENV")):
        os.environ["HLOREF_RT_NO_VENV"] = "1"
        os.execv(venv, [venv] + sys.argv)


# Differences that come from XLA's conversion, not from the reader.
KNOWN = {
    # The module writes -0 as the integer token `-0`, which XLA's HLO parser
    # reads as +0 (hlo_printer.h, print_negative_zero_as_decimal); hloref
    # keeps the sign, so the StableHLO XLA prints holds +0.
    "constant/float_literal",
}


def read_cases(path):
    """Yields (name, module_text, [arg literal texts]) of a .golden file."""
    cases = []
    cur = None
    key = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or not line.strip():
                continue
            if line[0] in " \t":
                if cur is not None and key is not None:
                    cur[key][-1] += "\n" + line
                continue
            if line.startswith("case "):
                cur = {"name": line[5:].strip(), "module": [], "arg": [],
                       "other": []}
                cases.append(cur)
                key = None
                continue
            k, _, v = line.partition(":")
            if cur is None:
                continue
            key = k if k in ("module", "arg") else "other"
            cur[key].append(v.strip())
            if k not in ("module", "arg"):
                cur["other"][-1] = k
    for c in cases:
        if len(c["module"]) != 1:
            continue
        yield c["name"], c["module"][0], c["arg"], c["other"]


def main(argv):
    _use_project_venv()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import jaxlib._hlo as xla_hlo
        import jaxlib._jax as xla_jax
    except Exception as e:  # pragma: no cover
        print(f"SKIP: no jax ({e})")
        return 77
    hloref, golden = argv[1], argv[2]
    limit = None
    max_reader_errors = 0
    verbose = False
    keep = None
    for a in argv[3:]:
        if a.startswith("--limit="):
            limit = int(a.split("=", 1)[1])
        elif a.startswith("--max-reader-errors="):
            max_reader_errors = int(a.split("=", 1)[1])
        elif a == "--verbose":
            verbose = True
        elif a.startswith("--keep="):
            keep = a.split("=", 1)[1]
            os.makedirs(keep, exist_ok=True)
    files = []
    for sub in ("ops", "programs"):
        d = os.path.join(golden, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                      if f.endswith(".golden")]
    counts = dict(modules=0, converted=0, read=0, equal=0, differ=0,
                  reader_errors=0, oracle_errors=0, known=0)
    failures = []
    tmp = tempfile.mkdtemp(prefix="hloref_rt_")
    for path in files:
        for name, module, args, other in read_cases(path):
            # Host I/O, replicated and custom-call cases need more than
            # `run` with arguments: left out.
            if any(k in ("infeed", "recv", "expect_outfeed", "expect_sent",
                         "custom_call_library") for k in other):
                continue
            if "replica_count" in module or "num_partitions" in module:
                continue
            # XLA's conversion flattens tuple parameters into several.
            if any(a.lstrip().startswith("(") for a in args):
                continue
            if limit is not None and counts["modules"] >= limit:
                break
            counts["modules"] += 1
            case_id = f"{os.path.basename(path)[:-7]}/{name}"
            try:
                m = xla_hlo.hlo_module_from_text(module)
                comp = xla_hlo.XlaComputation(
                    m.as_serialized_hlo_module_proto())
                mlir = xla_jax.mlir.xla_computation_to_mlir_module(comp)
            except Exception:
                continue
            counts["converted"] += 1
            base = os.path.join(tmp, "m")
            with open(base + ".hlo", "w") as f:
                f.write(module)
            with open(base + ".mlir", "w") as f:
                f.write(mlir)
            runs = []
            for ext in (".hlo", ".mlir"):
                p = subprocess.run([hloref, "run", base + ext] + args,
                                   capture_output=True, text=True,
                                   timeout=120)
                runs.append(p)
            a, b = runs
            if a.returncode != 0 and b.returncode != 0:
                counts["oracle_errors"] += 1
                continue
            if b.returncode != 0 and a.returncode == 0:
                first = b.stderr.strip().splitlines()[0] if b.stderr else ""
                if "error" in first and ("not supported" in first or
                                         "the HLO this op" in first or
                                         ".mlir:" in first):
                    counts["reader_errors"] += 1
                    failures.append(f"READER {case_id}: {first}")
                else:
                    counts["read"] += 1
                    counts["differ"] += 1
                    failures.append(f"DIFFER {case_id}: hlo ok, mlir: "
                                    f"{first}")
                if keep:
                    with open(os.path.join(keep, case_id.replace("/", "__")
                                           + ".mlir"), "w") as f:
                        f.write(mlir)
                continue
            counts["read"] += 1
            # Layouts do not survive XLA's conversion (StableHLO has none):
            # compare shapes and values, not the {minor_to_major} suffix.
            def values(out):
                return re.sub(r"\]\{[0-9,]*\}", "]", out)
            if a.returncode == b.returncode and values(a.stdout) == values(
                    b.stdout):
                counts["equal"] += 1
            elif case_id in KNOWN:
                counts["known"] += 1
            else:
                counts["differ"] += 1
                failures.append(f"DIFFER {case_id}: hlo rc {a.returncode} "
                                f"{a.stdout.strip()[:200]!r} vs mlir rc "
                                f"{b.returncode} {b.stdout.strip()[:200]!r}"
                                f" {b.stderr.strip()[:200]!r}")
                if keep:
                    with open(os.path.join(keep, case_id.replace("/", "__")
                                           + ".mlir"), "w") as f:
                        f.write(mlir)
    for line in failures if verbose else failures[:40]:
        print(line)
    print("roundtrip: modules {modules}, xla-converted {converted}, read back "
          "{read}, equal {equal}, differ {differ}, reader errors "
          "{reader_errors}, known XLA differences {known}, oracle errors on both "
          "{oracle_errors}".format(
              **counts))
    return (0 if counts["differ"] == 0 and
            counts["reader_errors"] <= max_reader_errors else 1)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
