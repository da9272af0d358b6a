#!/usr/bin/env python3
"""XLA:CPU as an hloref command backend, through jaxlib.

Usage: xla_jax.py [--direct] DIR
       (or `hloref conformance --backend=command:tools/backends/xla_jax.py`)
By default the case runs in a server process that keeps jax loaded (see
"server mode" below); --direct or XLA_JAX_DIRECT=1 runs it in this process.

Speaks the protocol of backends/command/command_backend.h: reads
DIR/module.hlo and DIR/arg_<k>.npy, writes DIR/result_<i>.npy (the root
flattened), exits 0; exits 3 with a message on stderr for "unsupported"
(XLA's parser, the HLO->StableHLO conversion or XLA's compiler refuses the
module as unimplemented; tuple or token parameters), 4 when jax is not
installed, 1 on any other error.

Tested with jax==0.10.2, jaxlib==0.10.2, ml_dtypes==0.6.0, numpy==2.4.6
(Python 3.11): tools/setup.sh installs them into .venv/ at the repository
root, and this script re-runs itself under .venv/bin/python3 when that
exists (HLOREF_XLA_JAX_NO_VENV=1 keeps the calling python).

The route from HLO text to an executable in that jaxlib (jaxlib has no
"compile HLO text" call; its clients compile StableHLO):
  1. jaxlib._hlo.hlo_module_from_text(text)       XLA's own HLO parser
  2. jaxlib._hlo.XlaComputation(module.as_serialized_hlo_module_proto())
  3. jaxlib._jax.mlir.xla_computation_to_mlir_module(computation)
                                                  HLO -> MHLO -> StableHLO
                                                  text (a tuple root becomes
                                                  several results)
  4. client.compile_and_load(mlir_text, DeviceList([cpu0]), CompileOptions())
     with client = jax.extend.backend.get_backend("cpu"); the compiler
     converts StableHLO back to HLO and runs XLA:CPU's pipeline with its
     default options (so XLA:CPU's defaults are what is certified).
  5. executable.execute([jax.device_put(arg, cpu0), ...]) -> list of arrays.
Replicated modules (replica_count = N > 1; the protocol's DIR/p<i>/
arg_<k>.npy and result_<j>.npy per participant): the process makes
_DEVICES CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count,
set before jax loads), step 4 passes DeviceList(devices[:N]) and
CompileOptions with num_replicas=N and a device assignment putting replica
i on devices[i], and step 5 is executable.execute_sharded(arrays), where
each argument is one jax array whose shard on devices[i] is replica i's
value; outputs are split per device and mapped back to replicas by device
id (unmappable results are reported unsupported, never guessed). More than
_DEVICES replicas, or num_partitions > 1 (XLA:CPU compiles partitions only
through the SPMD partitioner, which rewrites the module), are unsupported.
Layouts in the text are dropped at step 3: hloref's .npy values are in
logical row-major order, which is what jax arrays hold, so this is right.

Types NumPy cannot name arrive as one-field structured dtypes
(spec/types/npy.h): e.g. [('bf16', '<u2')] holds the bits; [('s4', '|i1')]
holds the value. ml_dtypes gives the views.
"""

import os
import re
import sys


def _use_project_venv():
    """Re-runs this script under the project's virtual environment
    (.venv/ at the repository root, made by tools/setup.sh with the pinned
    jax) when it exists and this interpreter is another one, so that
    `python3 xla_jax.py` and `command:tools/backends/xla_jax.py` both get
    the pinned jax. HLOREF_XLA_JAX_NO_VENV=1 keeps the current python."""
    if os.environ.get("HLOREF_XLA_JAX_NO_VENV", "") not in ("", "0"):
        return
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.realpath(__file__))))
    venv = os.path.join(root, ".venv")
    python = os.path.join(venv, "bin", "python3")
    if not os.access(python, os.X_OK):
        return
    if os.path.realpath(sys.prefix) == os.path.realpath(venv):
        return
    os.execv(python, [python, os.path.realpath(__file__)] + sys.argv[1:])


if __name__ == "__main__":
    _use_project_venv()

UNSUPPORTED = 3
UNAVAILABLE = 4
_DEVICES = 8  # CPU devices, hence the most participants a module may have


import threading

# The server mode runs cases in threads: a case's messages go to its own
# list instead of the process's stderr.
_sink = threading.local()


def die(code, message):
    out = getattr(_sink, "messages", None)
    if out is not None:
        out.append(message.rstrip())
    else:
        sys.stderr.write(message.rstrip() + "\n")
    sys.exit(code)


# Quiet XLA's informational log lines, so stderr carries only our message.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

_STRUCTURED = {}
_BY_DTYPE = {}


def load_libraries():
    """Imports jax and friends (about a second: the server mode pays it
    once) and builds the structured-dtype tables."""
    global np, ml_dtypes, jax, jax_backend, xla_hlo, xla_jax
    global _STRUCTURED, _BY_DTYPE
    # Replicated modules run one participant per CPU device: XLA:CPU makes
    # several host devices only when told before jax initialises.
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (
            flags + f" --xla_force_host_platform_device_count={_DEVICES}"
        ).strip()
    try:
        import numpy as np
        import ml_dtypes
        import jax
        import jax.extend.backend as jax_backend
        import jaxlib._hlo as xla_hlo
        import jaxlib._jax as xla_jax
    except Exception as e:  # pragma: no cover - depends on the machine
        die(UNAVAILABLE, f"xla_jax.py: cannot import jax/jaxlib/ml_dtypes: {e}")

    # hloref type name -> (ml_dtypes type, storage kind in hloref's .npy):
    # "bits" = the field holds the encoding (view), "value" = the field holds
    # the integer value (astype).
    _STRUCTURED = {
        "bf16": (ml_dtypes.bfloat16, "bits"),
        "f8e5m2": (ml_dtypes.float8_e5m2, "bits"),
        "f8e4m3fn": (ml_dtypes.float8_e4m3fn, "bits"),
        "f8e4m3b11fnuz": (ml_dtypes.float8_e4m3b11fnuz, "bits"),
        "f8e5m2fnuz": (ml_dtypes.float8_e5m2fnuz, "bits"),
        "f8e4m3fnuz": (ml_dtypes.float8_e4m3fnuz, "bits"),
        "f8e4m3": (ml_dtypes.float8_e4m3, "bits"),
        "f8e3m4": (ml_dtypes.float8_e3m4, "bits"),
        "f4e2m1fn": (ml_dtypes.float4_e2m1fn, "bits"),
        "f8e8m0fnu": (ml_dtypes.float8_e8m0fnu, "bits"),
        "f6e3m2fn": (ml_dtypes.float6_e3m2fn, "bits"),
        "f6e2m3fn": (ml_dtypes.float6_e2m3fn, "bits"),
        "s4": (ml_dtypes.int4, "value"),
        "u4": (ml_dtypes.uint4, "value"),
        "s2": (ml_dtypes.int2, "value"),
        "u2": (ml_dtypes.uint2, "value"),
        "s1": (ml_dtypes.int1, "value"),
        "u1": (ml_dtypes.uint1, "value"),
    }
    _BY_DTYPE = {np.dtype(t): (name, kind) for name, (t, kind) in _STRUCTURED.items()}


def load_arg(path):
    a = np.load(path, allow_pickle=False)
    if a.dtype.names is None:
        return a
    if len(a.dtype.names) != 1:
        die(1, f"{path}: unexpected structured dtype {a.dtype}")
    name = a.dtype.names[0]
    if name == "token":
        die(UNSUPPORTED, "token parameters are not supported by xla_jax.py")
    if name not in _STRUCTURED:
        die(UNSUPPORTED, f"{path}: element type {name} is not supported by xla_jax.py")
    t, kind = _STRUCTURED[name]
    field = np.require(a[name], requirements="C")
    if kind == "bits":
        return field.view(t)
    return field.astype(t)


def save_result(path, a):
    a = np.asarray(a)
    info = _BY_DTYPE.get(a.dtype)
    if info is None:
        # Not np.ascontiguousarray: it turns a rank-0 array into shape (1,).
        np.save(path, np.require(a, requirements="C"), allow_pickle=False)
        return
    name, kind = info
    if kind == "bits":
        storage = np.dtype("<u1") if a.dtype.itemsize == 1 else np.dtype("<u2")
        field = a.view(storage)
    else:
        storage = np.dtype("|i1") if name.startswith("s") else np.dtype("|u1")
        field = a.astype(storage)
    out = np.empty(a.shape, dtype=[(name, storage)])
    out[name] = field
    np.save(path, out, allow_pickle=False)


def looks_unimplemented(message):
    m = message.lower()
    return ("unimplemented" in m or "not implemented" in m or
            "not supported" in m or "unsupported" in m or
            "no registered implementation" in m or
            # XLA:CPU 0.10.2 cannot lower some ops on narrow float types
            # ("failed to legalize operation 'math.tan' ...").
            "failed to legalize" in m or
            "invalid xla primitivetype" in m)


def run_case(d):
    """Runs the case in directory d; returns 0 or exits through die()."""
    jax.config.update("jax_enable_x64", True)  # keep 64-bit types 64-bit
    with open(os.path.join(d, "module.hlo")) as f:
        text = f.read()

    def read_args(where):
        out = []
        k = 0
        while os.path.exists(os.path.join(where, f"arg_{k}.npy")):
            out.append(load_arg(os.path.join(where, f"arg_{k}.npy")))
            k += 1
        return out

    # Replicas run one per CPU device (the protocol's DIR/p<i>/ files).
    header = text.lstrip().split("\n", 1)[0]
    counts = {}
    for key in ("replica_count", "num_partitions"):
        m = re.search(key + r"=(\d+)", header)
        counts[key] = int(m.group(1)) if m else 1
    replicas, partitions = counts["replica_count"], counts["num_partitions"]
    if partitions > 1:
        # XLA:CPU compiles num_partitions > 1 only with SPMD partitioning
        # on ("num_partitions=2 but SPMD partitioning not enabled"), and the
        # SPMD partitioner rewrites the module as a single-program sharded
        # one (it refuses partition-id as ambiguous): an MPMD module, one
        # program per partition, has no route here.
        die(UNSUPPORTED, f"the module asks for num_partitions={partitions}; "
            "XLA:CPU runs several partitions only through SPMD partitioning, "
            "which does not run a partitioned module as written")
    participants = replicas
    if participants > _DEVICES:
        die(UNSUPPORTED, f"the module has {participants} replicas; "
            f"xla_jax.py runs at most {_DEVICES} (one per CPU device)")
    if participants > 1:
        if not os.path.isdir(os.path.join(d, "p0")):
            die(UNSUPPORTED, f"the module has {participants} replicas but "
                "the caller passed no per-participant DIR/p<i>/ directories")
        per_participant = [read_args(os.path.join(d, f"p{i}"))
                           for i in range(participants)]
        if any(len(a) != len(per_participant[0]) for a in per_participant):
            die(1, "participants have different numbers of arguments")
        args = per_participant[0]
    else:
        args = read_args(d)

    # XLA:CPU 0.10.2 aborts the process (llvm_util.cc "unsupported type",
    # literal.cc "Unhandled primitive type") on the f6 types: refuse them
    # up front so they are reported as unsupported, not as a crash.
    m = re.search(r"\b(f6e2m3fn|f6e3m2fn)\[", text)
    if m:
        die(UNSUPPORTED, f"XLA:CPU {jax.__version__} does not support {m.group(1)}")

    # 1-bit integers cannot travel the StableHLO route: MLIR's i1 is
    # StableHLO's boolean, so s1/u1 values come back as pred (or compares
    # producing ui1 fail to verify). Refuse them rather than let a pred
    # result be judged as an s1/u1 one.
    m = re.search(r"\b([su]1)\[", text)
    if m:
        die(UNSUPPORTED, f"element type {m.group(1)} cannot go through HLO -> "
            "StableHLO (1-bit integers become pred there)")

    # Seed 001 (RngUniform): "The CPU and GPU backends currently only
    # support F64, F32, F16, BF16, S64, U64, S32 and U32". XLA:CPU 0.10.2
    # aborts on the others (rng_expander.cc "Check failed: primitive_type
    # == F16 || ..."), so refuse them as the documented limitation.
    for m in re.finditer(r"=\s*(\w+)\[[^\]]*\](?:\{[^}]*\})?\s+rng\(", text):
        if m.group(1) not in ("f64", "f32", "f16", "bf16", "s64", "u64",
                              "s32", "u32"):
            die(UNSUPPORTED, f"rng of {m.group(1)}: XLA:CPU supports only "
                "F64, F32, F16, BF16, S64, U64, S32 and U32 (seed 001)")

    # XLA:CPU 0.10.2 does not implement send/recv ("HLO opcode `send` is not
    # supported by XLA:CPU ThunkEmitter"), and some send/recv modules
    # (tuple payloads with zero-size parts) segfault before it says so.
    m = re.search(r"\s(send|recv)\(", text)
    if m:
        die(UNSUPPORTED, f"XLA:CPU {jax.__version__} does not implement "
            f"{m.group(1)}")

    # A dynamic result (`f32[<=3,4]`) comes back as the bound-shaped array.
    # When only the major-most dimension is dynamic its valid elements are
    # the leading ones in either layout (padded or compact), which the
    # comparator reads (it ignores the padding); any other dynamic
    # dimension would scramble them, so refuse it.
    entry = text[text.find("ENTRY"):] if "ENTRY" in text else text
    root = re.search(r"^\s*ROOT\s+\S+\s*=\s*(.*?)\s[\w-]+\(", entry,
                     re.MULTILINE)
    if root and "<=" in root.group(1):
        shape_text = root.group(1)
        dims = re.match(r"\w+\[([^\]]*)\]", shape_text)
        if (dims is None or any("<=" in x
                                for x in dims.group(1).split(",")[1:])):
            die(UNSUPPORTED, f"the result shape {shape_text} has a dynamic "
                "dimension other than the first: xla_jax.py returns static "
                "arrays only")

    # XLA:CPU compiles only the fusions its own pipeline forms: kind=kInput
    # is "Unsupported fusion kind", kind=kOutput is taken as a dot fusion
    # ("Dot fusion supports only `add` root instruction"), kCustom needs a
    # backend config. Only kLoop fusions of the input module can run.
    m = re.search(r"\bfusion\(.*kind=(kInput|kOutput|kCustom)\b", text)
    if m:
        die(UNSUPPORTED, f"XLA:CPU does not compile a {m.group(1)} fusion it "
            "did not form itself (only kLoop fusions of the input run)")

    try:
        module = xla_hlo.hlo_module_from_text(text)
    except Exception as e:
        die(UNSUPPORTED, f"XLA's HLO parser rejects the module: {e}")
    try:
        computation = xla_hlo.XlaComputation(module.as_serialized_hlo_module_proto())
        shape = computation.program_shape()
        for i, p in enumerate(shape.parameter_shapes()):
            if p.is_tuple() or p.is_token():
                die(UNSUPPORTED, f"parameter {i} is {p}: xla_jax.py passes arrays only")
        mlir = xla_jax.mlir.xla_computation_to_mlir_module(computation)
    except SystemExit:
        raise
    except Exception as e:
        die(UNSUPPORTED, f"HLO -> StableHLO conversion failed: {e}")

    client = jax_backend.get_backend("cpu")
    device = client.local_devices()[0]
    options = xla_jax.CompileOptions()
    devices = (device,)
    if participants > 1:
        devices = tuple(client.local_devices()[:participants])
        if len(devices) != participants:
            die(UNSUPPORTED, f"{participants} replicas but only "
                f"{len(devices)} CPU devices")
        # Replica i runs on devices[i]; results are mapped back by device id.
        options.num_replicas = replicas
        options.num_partitions = 1
        build = options.executable_build_options
        build.num_replicas = replicas
        build.num_partitions = 1
        build.device_assignment = xla_jax.DeviceAssignment.create(
            np.array([[dv.id] for dv in devices], dtype=np.int32))
    try:
        executable = client.compile_and_load(
            mlir, xla_jax.DeviceList(devices), options)
    except Exception as e:
        if "layout" in str(e) and re.search(r"\bbitcast\(", text):
            # Step 3 drops layouts (StableHLO has none), so a bitcast whose
            # meaning depends on them cannot travel this route.
            die(UNSUPPORTED, "a layout-dependent bitcast cannot go through "
                f"HLO -> StableHLO (layouts are dropped): {e}")
        if "async" in str(e) and re.search(r"\basync-start\(", text):
            # XLA's parser and verifier accept the generic async-start form;
            # the MHLO -> HLO half of the route rebuilds it with the
            # output wrapped in a tuple ("The async-done expects the shape
            # of output to match the async shape at index {1}
            # ((pred[2]{0}) vs pred[2]{0})"): a route limitation.
            die(UNSUPPORTED, "async ops do not survive HLO -> MHLO -> HLO "
                f"(route limitation): {e}")
        if ("Expected instruction to have shape equal to" in str(e) and
                re.search(r"\brng-bit-generator\(", text)):
            # XLA's RngBitGeneratorExpander returns a 2-word (THREE_FRY) or
            # 3-word (PHILOX) state whatever the input's length, and XLA's
            # verifier then refuses its own rewrite: longer states, which
            # XLA's verifier accepts on input, do not compile on XLA:CPU
            # (spec/impl_defined.md impl.rng-bit-generator.3).
            die(UNSUPPORTED, "XLA:CPU does not expand an rng-bit-generator "
                f"state longer than its algorithm reads: {e}")
        if "fusion" in str(e) and re.search(r"\bfusion\(", text):
            # e.g. XLA's own simplifier empties a zero-size fused
            # computation and its verifier then rejects the fusion's unused
            # parameters: pre-fused input is outside what XLA:CPU accepts.
            die(UNSUPPORTED, "XLA:CPU rejects the input module's fusion "
                f"(pre-fused input): {e}")
        die(UNSUPPORTED if looks_unimplemented(str(e)) else 1,
            f"XLA:CPU compilation failed: {e}")
    # Which flattened results are tokens: they have no array to convert and
    # travel as the protocol's token .npy ([('token', '|u1')], shape ()).
    result_shape = shape.result_shape()
    leaves = []

    def flatten(s):
        if s.is_tuple():
            for t in s.tuple_shapes():
                flatten(t)
        else:
            leaves.append(s)

    flatten(result_shape)
    # execute_sharded segfaults on a wrong argument count: check it first.
    if len(args) != len(shape.parameter_shapes()):
        die(1, f"{len(args)} arguments for "
            f"{len(shape.parameter_shapes())} parameters")
    if participants > 1:
        return run_replicated(d, executable, devices, per_participant, leaves)
    try:
        buffers = [jax.device_put(a, device) for a in args]
        results = executable.execute(buffers)
        values = []
        for i, r in enumerate(results):
            if i < len(leaves) and leaves[i].is_token():
                values.append(None)
            else:
                values.append(np.asarray(r))
    except Exception as e:
        die(1, f"XLA:CPU execution failed: {e}")
    write_results(d, values)
    return 0


def write_results(d, values):
    for i, v in enumerate(values):
        path = os.path.join(d, f"result_{i}.npy")
        if v is None:
            np.save(path, np.zeros((), dtype=[("token", "|u1")]),
                    allow_pickle=False)
        else:
            save_result(path, v)


def run_replicated(d, executable, devices, per_participant, leaves):
    """Runs replica i on devices[i] with per_participant[i]; writes
    d/p<i>/result_<j>.npy. Each argument travels as one jax array whose
    per-device shards are the participants' values (a "replicated" sharding
    whose shards differ: execute_sharded passes each device its own shard,
    which is all the executable sees)."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    participant_of = {dv.id: i for i, dv in enumerate(devices)}
    order = list(executable.local_devices())
    if sorted(dv.id for dv in order) != sorted(participant_of):
        die(UNSUPPORTED, "the executable's devices "
            f"{[dv.id for dv in order]} are not the replicas' devices "
            f"{sorted(participant_of)}: results cannot be mapped")
    try:
        sharding = NamedSharding(Mesh(np.array(order), ("r",)),
                                 PartitionSpec())
        arrays = []
        for k in range(len(per_participant[0])):
            values = [per_participant[participant_of[dv.id]][k] for dv in order]
            shape = values[0].shape
            if any(v.shape != shape or v.dtype != values[0].dtype
                   for v in values):
                die(UNSUPPORTED, f"argument {k} differs in shape or type "
                    "between participants")
            shards = [jax.device_put(v, dv) for v, dv in zip(values, order)]
            arrays.append(jax.make_array_from_single_device_arrays(
                shape, sharding, shards))
        outputs = executable.execute_sharded(arrays)
        per_output = outputs.disassemble_into_single_device_arrays()
    except SystemExit:
        raise
    except Exception as e:
        die(1, f"XLA:CPU execution failed: {e}")
    if len(per_output) != len(leaves):
        die(UNSUPPORTED, f"{len(per_output)} outputs for {len(leaves)} "
            "result leaves: results cannot be mapped")
    results = [[None] * len(leaves) for _ in devices]
    for j, shards in enumerate(per_output):
        seen = set()
        for shard in shards:
            dev = list(shard.devices())[0].id if hasattr(shard, "devices") \
                else shard.device.id
            if dev not in participant_of or dev in seen:
                die(UNSUPPORTED, f"output {j} came back from device {dev}: "
                    "results cannot be mapped to replicas")
            seen.add(dev)
            if not leaves[j].is_token():
                results[participant_of[dev]][j] = np.asarray(shard)
        if len(seen) != len(devices):
            die(UNSUPPORTED, f"output {j} came back from {len(seen)} devices "
                f"for {len(devices)} replicas")
    for i, values in enumerate(results):
        write_results(os.path.join(d, f"p{i}"), values)
    return 0


# --- server mode -----------------------------------------------------------
# Importing jax costs about a second, most of a small case's time. The
# first call starts a server (this script with --serve, detached) that
# keeps jax loaded and runs cases for clients over a Unix socket; later
# calls only connect. A case that kills the server (XLA aborts on some
# modules) is rerun in the client's own process, so the exit status or
# signal hloref sees is the same as without the server. XLA_JAX_DIRECT=1
# (or --direct) skips the server.

_IDLE_S = 120         # the server exits after this long without a case
_MAX_CASES = 400      # and after this many cases (bounds memory growth)


def socket_path():
    import hashlib
    # The script's mtime is part of the key: an edited script gets a new
    # server instead of the one still running the old code; so are the
    # environment variables that change XLA's behaviour (the server keeps
    # the environment of the client that started it).
    me = os.path.realpath(__file__)
    env = " ".join(f"{k}={os.environ.get(k, '')}" for k in
                   ("XLA_FLAGS", "TF_CPP_MIN_LOG_LEVEL", "JAX_PLATFORMS"))
    key = hashlib.sha1(
        f"{me} {os.stat(me).st_mtime_ns} {sys.version} {env}".encode())
    base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return os.path.join(base, f"hloref_xla_jax_{os.getuid()}_"
                        f"{key.hexdigest()[:12]}.sock")


def run_captured(d):
    """run_case(d) with its messages captured: (exit code, stderr text)."""
    _sink.messages = []
    try:
        code = run_case(d)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except Exception as e:  # a bug here must not take the server down
        _sink.messages.append(f"xla_jax.py: {type(e).__name__}: {e}")
        code = 1
    text = "\n".join(_sink.messages)
    _sink.messages = None
    return code, text


def serve(path):
    import fcntl
    import json
    import socket
    lock = open(path + ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server owns the socket
    load_libraries()
    if os.path.exists(path):
        os.unlink(path)  # stale: its server is gone (we hold the lock)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    listener.settimeout(_IDLE_S)
    served = 0
    active = []

    def handle(conn):
        with conn:
            f = conn.makefile("rwb")
            request = json.loads(f.readline())
            code, text = run_captured(request["dir"])
            f.write((json.dumps({"code": code, "stderr": text}) + "\n").encode())
            f.flush()

    try:
        while served < _MAX_CASES:
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                break
            served += 1
            t = threading.Thread(target=handle, args=(conn,))
            t.start()
            active.append(t)
    finally:
        listener.close()
        if os.path.exists(path):
            os.unlink(path)
        fcntl.flock(lock, fcntl.LOCK_UN)  # a new server may start now
        for t in active:
            t.join()
    return 0


def run_through_server(d):
    """The case's (code, stderr) from the server, or None when no server
    answered (not started, or it died during the case)."""
    import json
    import socket
    import subprocess
    import time
    path = socket_path()
    deadline = time.monotonic() + 60
    started = False
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                return None
            if not started:
                subprocess.Popen(
                    [sys.executable, os.path.realpath(__file__), "--serve",
                     path], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True, close_fds=True)
                started = True
            time.sleep(0.1)
    try:
        with s:
            f = s.makefile("rwb")
            f.write((json.dumps({"dir": os.path.abspath(d)}) + "\n").encode())
            f.flush()
            line = f.readline()
    except OSError:
        line = b""  # reset by a dying server
    if not line:
        return None  # the server died (an XLA abort): rerun here
    reply = json.loads(line)
    return reply["code"], reply["stderr"]


def main(argv):
    if len(argv) == 3 and argv[1] == "--serve":
        return serve(argv[2])
    direct = len(argv) == 3 and argv[1] == "--direct"
    if len(argv) != 2 and not direct:
        die(1, "usage: xla_jax.py [--direct] DIR")
    d = argv[-1]
    if not direct and os.environ.get("XLA_JAX_DIRECT", "") in ("", "0"):
        answer = run_through_server(d)
        if answer is not None:
            code, text = answer
            if text:
                sys.stderr.write(text + "\n")
            return code
    load_libraries()
    return run_case(d)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
