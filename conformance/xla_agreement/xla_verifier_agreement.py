#!/usr/bin/env python3
"""Agreement with XLA's verifier (issue 14): a differential test of
acceptance.

Generated modules (conformance/generators/, through xla_agreement_cases
generate) and systematic mutations of them (operand counts, operand and
result shapes and element types, attributes, dimension numbers) go both to
hloref's parser + verifier (xla_agreement_cases verify) and to XLA's, on
the route of tools/backends/xla_jax.py: jaxlib's hlo_module_from_text (XLA's
HLO parser), HLO -> StableHLO (whose MLIR verifier checks every op), and
XLA:CPU's compile (which converts back to HLO and runs HloVerifier first in
its pipeline). XLA accepts a module when all three succeed.

Each module gets one verdict per side: accept or reject; on XLA's side also
"unsupported" (the compiler does not implement something: not a verdict on
validity) and "crash" (XLA aborted the process). Modules with an
unsupported or crash verdict are counted but not compared. A disagreement
is (op, mutation, direction) with direction
  hloref-only   hloref accepts, XLA rejects
  xla-only      XLA accepts, hloref rejects
and must be listed (with the reason) in
conformance/reports/xla_verifier_agreement.md as `OP:MUTATION:DIRECTION`
in backquotes
(`*` matches any op or mutation). Exits 1 on an unlisted disagreement, 77
when jax cannot be imported (the test is optional without .venv/).

Usage: xla_verifier_agreement.py --cases BUILD/conformance/xla_agreement_cases
         [--per-op N] [--seed S] [--show N] [--dump DIR] [--summary FILE]
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KNOWN = os.path.join(ROOT, "conformance", "reports",
                     "xla_verifier_agreement.md")
MARKER = "#### "
_DEVICES = 8

# --- XLA's side (runs in a worker process: XLA aborts on some modules) ----


def looks_unimplemented(message):
    # The StableHLO parser's boilerplate on any failure mentions an
    # "unsupported plugin": not a verdict.
    m = re.sub(r"failed to parse using stablehlo.*", "", message.lower())
    if "mhlo.unknown" in m:
        return True  # an HLO op with no StableHLO form: the route's limit
    return ("unimplemented" in m or "not implemented" in m or
            "not supported" in m or "unsupported" in m or
            "no registered implementation" in m or
            "failed to legalize" in m or "invalid xla primitivetype" in m)


def worker():
    """Reads records on stdin, writes one JSON verdict per line."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (
            flags + f" --xla_force_host_platform_device_count={_DEVICES}"
        ).strip()
    import numpy as np
    import jax
    import jax.extend.backend as jax_backend
    import jaxlib._hlo as xla_hlo
    import jaxlib._jax as xla_jax
    jax.config.update("jax_enable_x64", True)
    client = jax_backend.get_backend("cpu")
    devices = client.local_devices()

    def judge(text):
        header = text.lstrip().split("\n", 1)[0]
        counts = {}
        for key in ("replica_count", "num_partitions"):
            m = re.search(key + r"=(\d+)", header)
            counts[key] = int(m.group(1)) if m else 1
        if counts["num_partitions"] > 1 or counts["replica_count"] > _DEVICES:
            return "unsupported", "partitions or more than 8 replicas"
        # XLA:CPU aborts on these (see tools/backends/xla_jax.py): no
        # verdict on validity can come from it.
        m = re.search(r"\b(f6e2m3fn|f6e3m2fn|[su]1)\[", text)
        if m:
            return "unsupported", f"XLA:CPU cannot run {m.group(1)}"
        if re.search(r"\s(send|recv)\(", text):
            return "unsupported", "XLA:CPU does not implement send/recv"
        try:
            module = xla_hlo.hlo_module_from_text(text)
        except Exception as e:
            return "reject", "parser: " + " ".join(str(e).split())
        try:
            computation = xla_hlo.XlaComputation(
                module.as_serialized_hlo_module_proto())
            mlir = xla_jax.mlir.xla_computation_to_mlir_module(computation)
        except Exception as e:
            msg = " ".join(str(e).split())
            kind = "unsupported" if looks_unimplemented(msg) else "reject"
            return kind, "HLO->StableHLO: " + msg
        options = xla_jax.CompileOptions()
        n = counts["replica_count"]
        use = tuple(devices[:n])
        if n > 1:
            options.num_replicas = n
            options.num_partitions = 1
            build = options.executable_build_options
            build.num_replicas = n
            build.num_partitions = 1
            build.device_assignment = xla_jax.DeviceAssignment.create(
                np.array([[dv.id] for dv in use], dtype=np.int32))
        try:
            client.compile_and_load(mlir, xla_jax.DeviceList(use), options)
        except Exception as e:
            msg = " ".join(str(e).split())
            kind = "unsupported" if looks_unimplemented(msg) else "reject"
            if (re.search(r"\brng-bit-generator\(", text) and
                    "Expected instruction to have shape equal to" in msg and
                    " call(" in msg):
                # XLA's verifier accepted the input; XLA:CPU's
                # RngBitGeneratorExpander then returns a 2-/3-word state for
                # a longer one and the verifier refuses that rewrite: an
                # XLA:CPU limit, not a verdict on the module
                # (spec/impl_defined.md impl.rng-bit-generator.3).
                kind = "unsupported"
            return kind, "compile: " + msg
        return "accept", ""

    for rid, text in read_records(sys.stdin):
        verdict, message = judge(text)
        sys.stdout.write(json.dumps({"id": rid, "verdict": verdict,
                                     "message": message[:600]}) + "\n")
        sys.stdout.flush()
    return 0


def read_records(stream):
    rid, lines = None, []
    for line in stream:
        if line.startswith(MARKER):
            if rid is not None:
                yield rid, "".join(lines)
            rid, lines = line[len(MARKER):].rstrip("\n"), []
        else:
            lines.append(line)
    if rid is not None:
        yield rid, "".join(lines)


def write_records(records):
    return "".join(f"{MARKER}{rid}\n{text.rstrip()}\n" for rid, text in records)


def xla_verdicts(records):
    """{id: (verdict, message)}; a worker that dies marks the module it was
    on as "crash" and a new worker goes on with the rest."""
    out = {}
    pending = list(records)
    while pending:
        proc = subprocess.Popen(
            [sys.executable, os.path.realpath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        # Feed in a thread: the worker's output pipe must keep draining.
        import threading

        def feed(p=proc, data=write_records(pending)):
            try:
                p.stdin.write(data)
                p.stdin.close()
            except (BrokenPipeError, OSError):
                pass

        t = threading.Thread(target=feed)
        t.start()
        done = 0
        for line in proc.stdout:
            v = json.loads(line)
            out[v["id"]] = (v["verdict"], v["message"])
            done += 1
        proc.wait()
        t.join()
        if done < len(pending):
            rid = pending[done][0]
            out[rid] = ("crash", f"XLA aborted (exit {proc.returncode})")
            done += 1
        pending = pending[done:]
    return out


# --- mutations -------------------------------------------------------------

_INSTR = re.compile(r"^(\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*)(.*)$")


def split_top(s, sep=","):
    """Splits s at top-level separators (outside (), {}, [] and quotes)."""
    parts, depth, cur, quote = [], 0, [], False
    for ch in s:
        if ch == '"':
            quote = not quote
        if not quote:
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            elif ch == sep and depth == 0:
                parts.append("".join(cur))
                cur = []
                continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_instruction(line):
    """(prefix, shape, opcode, operands, attributes) or None."""
    m = _INSTR.match(line)
    if not m:
        return None
    prefix, rest = m.group(1), m.group(2)
    # The shape: a tuple "(...)" or "type[dims]{layout}" / "token[]" etc.
    depth, i = 0, 0
    if rest.startswith("("):
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                break
        i += 1
    else:
        m2 = re.match(r"[\w]+\[[^\]]*\](\{[^}]*\})?", rest)
        if not m2:
            return None
        i = m2.end()
    shape, rest = rest[:i], rest[i:].lstrip()
    m3 = re.match(r"([\w\-]+)\(", rest)
    if not m3:
        return None
    opcode = m3.group(1)
    depth = 0
    for j in range(m3.end() - 1, len(rest)):
        depth += rest[j] == "("
        depth -= rest[j] == ")"
        if depth == 0:
            break
    inner = rest[m3.end():j]
    operands = [o.strip() for o in split_top(inner)] if inner.strip() else []
    tail = rest[j + 1:]
    attrs = [a.strip() for a in split_top(tail)][1:] if tail.strip() else []
    return prefix, shape, opcode, operands, attrs


def format_instruction(prefix, shape, opcode, operands, attrs):
    s = f"{prefix}{shape} {opcode}({', '.join(operands)})"
    if attrs:
        s += ", " + ", ".join(attrs)
    return s


_OTHER_TYPE = {"f32": "s32", "s32": "f32", "pred": "s32", "f64": "f32",
               "f16": "f32", "bf16": "f32", "s64": "s32", "u32": "s32",
               "u8": "s8", "s8": "u8", "c64": "f32", "c128": "f64",
               "u64": "u32", "s16": "s32", "u16": "u32"}


def mutate_shape(shape, kind):
    """The array shape `shape` changed by kind, or None."""
    m = re.match(r"^(\w+)\[([^\]]*)\](\{[^}]*\})?$", shape)
    if not m:
        return None
    ty, dims = m.group(1), [d for d in m.group(2).split(",") if d.strip()]
    if kind == "type":
        other = _OTHER_TYPE.get(ty, "f32")
        return f"{other}[{','.join(dims)}]"
    if any("<=" in d or "?" in d for d in dims):
        return None
    if kind == "dim+1":
        if not dims:
            return None
        dims = [str(int(dims[0]) + 1)] + dims[1:]
    elif kind == "rank-1":
        if not dims:
            return None
        dims = dims[:-1]
    elif kind == "rank+1":
        dims = dims + ["2"]
    return f"{ty}[{','.join(dims)}]"


def mutate_attr(attr, kind):
    """The attribute changed by kind, or None."""
    name, eq, value = attr.partition("=")
    if not eq:
        return None
    name = name.strip()
    if kind == "drop":
        return ""
    nums = list(re.finditer(r"-?\d+", value))
    if kind == "empty" and value.startswith("{") and value != "{}":
        return f"{name}={{}}"
    if kind == "num+1" and nums:
        m = nums[-1]
        return f"{name}={value[:m.start()]}{int(m.group()) + 1}{value[m.end():]}"
    if kind == "num+7" and nums:
        m = nums[0]
        return f"{name}={value[:m.start()]}{int(m.group()) + 7}{value[m.end():]}"
    if kind == "neg" and nums:
        m = nums[0]
        return f"{name}={value[:m.start()]}-1{value[m.end():]}"
    if kind == "swap" and name == "dim_labels":
        # b01f_01io->b01f: swap the first two labels of the lhs.
        return f"{name}={value[1]}{value[0]}{value[2:]}"
    if kind == "enum" and re.fullmatch(r"[A-Za-z_]+", value):
        return f"{name}=BOGUS"
    return None


def mutations(opname, text):
    """Yields (mutation name, module text) for the instruction of op
    `opname` (the first one with that opcode)."""
    lines = text.split("\n")
    target = None
    for k, line in enumerate(lines):
        p = parse_instruction(line)
        if p and p[2] == opname:
            target = k
            break
    if target is None:
        return
    prefix, shape, opcode, operands, attrs = parse_instruction(lines[target])
    params = {}
    for k, line in enumerate(lines):
        p = parse_instruction(line)
        if p and p[2] == "parameter":
            name = p[0].strip().split("=")[0].split()[-1].lstrip("%")
            params[name] = (k, p)

    def with_line(new_line, k=target):
        out = list(lines)
        out[k] = new_line
        return "\n".join(out)

    def instr(shape=shape, operands=operands, attrs=attrs):
        return format_instruction(prefix, shape, opcode, operands, attrs)

    if operands:
        yield "operand-drop", with_line(instr(operands=operands[:-1]))
        yield "operand-dup", with_line(instr(operands=operands + operands[:1]))
    if len(operands) > 1 and operands[0] != operands[-1]:
        yield "operand-swap", with_line(instr(operands=operands[::-1]))
    for kind in ("dim+1", "rank-1", "rank+1", "type"):
        s = mutate_shape(shape, kind)
        if s is not None:
            yield f"result-{kind}", with_line(instr(shape=s))
    # The first operand's shape, through its parameter.
    first = operands[0].split()[-1].lstrip("%") if operands else None
    if first in params:
        k, p = params[first]
        for kind in ("dim+1", "rank-1", "type"):
            s = mutate_shape(p[1], kind)
            if s is not None:
                yield f"operand-{kind}", with_line(
                    format_instruction(p[0], s, p[2], p[3], p[4]), k)
    for a, attr in enumerate(attrs):
        name = attr.partition("=")[0].strip()
        if name in ("metadata", "frontend_attributes", "backend_config",
                    "sharding", "to_apply", "calls", "body", "condition",
                    "branch_computations", "true_computation",
                    "false_computation", "called_computations"):
            continue
        for kind in ("drop", "empty", "num+1", "num+7", "neg", "swap",
                     "enum"):
            new = mutate_attr(attr, kind)
            if new is None:
                continue
            rest = attrs[:a] + ([new] if new else []) + attrs[a + 1:]
            yield f"attr-{name}-{kind}", with_line(instr(attrs=rest))


# --- the comparison --------------------------------------------------------


def load_known(path):
    known = []
    if not os.path.exists(path):
        return known
    with open(path) as f:
        text = f.read()
    return re.findall(r"`([^`:\s]+):([^`:\s]+):(hloref-only|xla-only)`",
                      text)


def is_known(known, op, mutation, direction):
    for kop, kmut, kdir in known:
        if kdir != direction:
            continue
        if kop not in ("*", op):
            continue
        if kmut == "*" or kmut == mutation or (
                kmut.endswith("*") and mutation.startswith(kmut[:-1])):
            return True
    return False


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--cases", help="the xla_agreement_cases binary")
    ap.add_argument("--per-op", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=2,
                    help="example modules printed per unlisted class")
    ap.add_argument("--dump", help="write every disagreement to DIR")
    ap.add_argument("--summary", help="write the figures to FILE (markdown)")
    ap.add_argument("--known", default=KNOWN)
    args = ap.parse_args(argv[1:])
    if args.worker:
        return worker()
    try:
        import jax  # noqa: F401
        import ml_dtypes  # noqa: F401
    except Exception as e:
        print(f"SKIP: {sys.executable} cannot import jax ({e}); "
              "`bash tools/setup.sh` makes .venv/ with it")
        return 77
    if not args.cases:
        ap.error("--cases is required")

    gen = subprocess.run([args.cases, "generate", str(args.per_op),
                          str(args.seed)], capture_output=True, text=True,
                         check=True).stdout
    records = []  # (id, op, mutation, text)
    for rid, text in read_records(gen.splitlines(keepends=True)):
        op = rid.split()[0]
        records.append((rid + " base", op, "base", text))
        for name, mutated in mutations(op, text):
            records.append((f"{rid} {name}", op, name, mutated))
    # Identical texts (a mutation that changed nothing) count once.
    seen, unique = set(), []
    for r in records:
        if r[3] in seen:
            continue
        seen.add(r[3])
        unique.append(r)
    records = unique

    data = write_records((r[0], r[3]) for r in records)
    ours = {}
    out = subprocess.run([args.cases, "verify"], input=data,
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        rid, verdict, *msg = line.split("\t")
        ours[rid] = ("accept" if verdict == "ok" else "reject",
                     msg[0] if msg else "")
    theirs = xla_verdicts([(r[0], r[3]) for r in records])

    known = load_known(args.known)
    figures = collections.Counter()
    classes = collections.defaultdict(list)
    for rid, op, mutation, text in records:
        h, h_msg = ours[rid]
        x, x_msg = theirs[rid]
        figures["modules"] += 1
        figures["base" if mutation == "base" else "mutated"] += 1
        if x in ("unsupported", "crash"):
            figures[f"xla {x}"] += 1
            continue
        figures["compared"] += 1
        if h == x:
            figures[f"agree ({h})"] += 1
            continue
        direction = "hloref-only" if h == "accept" else "xla-only"
        figures["disagree"] += 1
        classes[(op, mutation, direction)].append((rid, text, h_msg, x_msg))

    unlisted = {k: v for k, v in classes.items()
                if not is_known(known, *k)}
    print("XLA verifier agreement: " + ", ".join(
        f"{k} {figures[k]}" for k in ("modules", "base", "mutated",
                                      "compared", "agree (accept)",
                                      "agree (reject)", "disagree",
                                      "xla unsupported", "xla crash")))
    by_direction = collections.Counter()
    for (op, mutation, direction), items in sorted(classes.items()):
        by_direction[direction] += len(items)
        mark = "UNLISTED" if (op, mutation, direction) in unlisted else "listed"
        print(f"  {mark} {op}:{mutation}:{direction}  {len(items)} module(s)"
              f"  e.g. {items[0][0]}")
    print(f"disagreements by direction: {dict(by_direction)}; "
          f"classes {len(classes)}, unlisted {len(unlisted)}")
    for key, items in sorted(unlisted.items()):
        for rid, text, h_msg, x_msg in items[:args.show]:
            print(f"\n--- {':'.join(key)} ({rid})\n{text.rstrip()}\n"
                  f"hloref: {h_msg or 'accepts'}\nXLA: {x_msg or 'accepts'}")
    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        with open(os.path.join(args.dump, "disagreements.txt"), "w") as f:
            for key, items in sorted(classes.items()):
                for rid, text, h_msg, x_msg in items:
                    f.write(f"--- {':'.join(key)} ({rid})\n{text.rstrip()}\n"
                            f"hloref: {h_msg or 'accepts'}\n"
                            f"XLA: {x_msg or 'accepts'}\n\n")
        with open(os.path.join(args.dump, "xla_other.txt"), "w") as f:
            for rid, op, mutation, text in records:
                x, x_msg = theirs[rid]
                if x in ("unsupported", "crash"):
                    f.write(f"--- {rid}: {x}: {x_msg}\n")
    if args.summary:
        with open(args.summary, "w") as f:
            f.write("| figure | count |\n| --- | --- |\n")
            for k, v in figures.items():
                f.write(f"| {k} | {v} |\n")
            f.write("\n| class | modules |\n| --- | --- |\n")
            for key, items in sorted(classes.items()):
                f.write(f"| `{':'.join(key)}` | {len(items)} |\n")
    ok = not unlisted
    print(f"{figures['compared'] - figures['disagree'] + sum(len(v) for k, v in classes.items() if k not in unlisted)} passed, "
          f"{sum(len(v) for v in unlisted.values())} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
