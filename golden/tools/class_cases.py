#!/usr/bin/env python3
"""Authoring helper for golden cases (h18): one case per element-type class
for data-movement, control-flow and collective ops, plus corner cases.

Every expected value below is computed here with numpy (or written by hand
in this file) from the semantics of seed 001; hloref is never run. The
script rewrites only the block between the `# >>> class_cases.py` and
`# <<< class_cases.py` markers of each golden/ops/<op>.golden and
golden/errors/<op>.golden it touches, so re-running it is idempotent.
Run: python3 golden/tools/class_cases.py   (needs numpy)
"""
import os
import re
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PROV = "independent computation: numpy in golden/tools/class_cases.py"

# One representative type per class and its numpy dtype.
T = {"pred": ("pred", np.bool_), "signed": ("s32", np.int32),
     "unsigned": ("u32", np.uint32), "float": ("f32", np.float32),
     "complex": ("c64", np.complex64)}


def scal(ty, v):
    if ty == "pred":
        return "true" if v else "false"
    if ty in ("c64", "c128"):
        return "(%s, %s)" % (fnum(v.real), fnum(v.imag))
    if ty[0] in "f":
        return fnum(v)
    return str(int(v))


def fnum(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if np.signbit(v) else "0"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def body(ty, a):
    a = np.asarray(a)
    if a.ndim == 0:
        return scal(ty, a[()])
    return "{" + ", ".join(body(ty, x) for x in a) + "}"


def shape(ty, a):
    a = np.asarray(a)
    return "%s[%s]" % (ty, ",".join(str(d) for d in a.shape))


def layout(a):
    n = np.asarray(a).ndim
    return "{" + ",".join(str(i) for i in reversed(range(n))) + "}" if n else ""


def lit(ty, a):
    """An HLO literal with shape and layout: f32[2]{0} {1, 2}."""
    return "%s%s %s" % (shape(ty, a), layout(a), body(ty, a))


def tuple_lit(parts):
    """parts: list of (ty, array)."""
    shapes = ", ".join(shape(t, a) for t, a in parts)
    return "(%s) (%s)" % (shapes, ", ".join(body(t, a) for t, a in parts))


def case(name, module, args=(), expect=None, prov=PROV, cls=None,
         error=None, note=None, extra=()):
    out = ["case " + name]
    if cls:
        out.append("class: " + cls)
    out.append("provenance: " + prov)
    for e in extra:
        out.append(e)
    if note:
        out.append("note: " + note)
    if error:
        out.append("expect_error: " + error)
    out.append("module:")
    out.extend("  " + l if l else "" for l in module.strip("\n").split("\n"))
    for a in args:
        out.append("arg: " + a)
    if expect is not None:
        out.append("expect: " + expect)
    return "\n".join(out) + "\n"


OUT = {}  # relative path -> list of case texts


def add(path, text):
    OUT.setdefault(path, []).append(text)


# Sample data per class: two vectors a, b of 2 elements with corner values.
def samples(cls):
    if cls == "pred":
        return np.array([True, False]), np.array([True, True])
    if cls == "signed":
        return (np.array([2147483647, -2147483648], np.int32),
                np.array([1, -1], np.int32))
    if cls == "unsigned":
        return (np.array([4294967295, 0], np.uint32),
                np.array([1, 7], np.uint32))
    if cls == "float":
        return (np.array([np.inf, -0.0], np.float32),
                np.array([-np.inf, -0.0], np.float32))
    return (np.array([1 + 2j, -0.5 - 1j], np.complex64),
            np.array([3 - 1j, 0.25 + 0j], np.complex64))


def const(ty, a):
    return "%s constant(%s)" % (shape(ty, a), body(ty, a))


def reducer(ty, cls, name="sum"):
    op = "or" if cls == "pred" else "add"
    return ("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n"
            "  ROOT r = %s[] %s(a, b)\n}\n" % (name, ty, ty, ty, op))


def combine(cls, a, b):
    if cls == "pred":
        return np.logical_or(a, b)
    with np.errstate(all="ignore"):
        return (a + b).astype(a.dtype)


def per_replica(ty, a, b):
    """Instructions making x = a on replica 0 and b on replica 1."""
    return ("  rid = u32[] replica-id()\n  zero = u32[] constant(0)\n"
            "  is0 = pred[] compare(rid, zero), direction=EQ\n"
            "  is0b = pred[%d] broadcast(is0), dimensions={}\n"
            "  a = %s\n  b = %s\n"
            "  x = %s[%d] select(is0b, a, b)\n"
            % (len(a), const(ty, a), const(ty, b), ty, len(a)))


def collectives():
    for cls, (ty, dt) in T.items():
        a, b = samples(cls)
        pr = per_replica(ty, a, b)
        # all-gather: concatenation in replica order.
        add("ops/all-gather.golden", case(
            "%s_two_replicas" % cls,
            "HloModule ag_%s, replica_count=2\n\nENTRY main {\n%s"
            "  ROOT g = %s[4] all-gather(x), replica_groups={}, dimensions={0}\n}"
            % (cls, pr, ty),
            expect=lit(ty, np.concatenate([a, b])),
            note="replica 0 holds a, replica 1 holds b; result a ++ b"))
        # all-reduce.
        s = combine(cls, a, b)
        add("ops/all-reduce.golden", case(
            "%s_two_replicas_sum" % cls,
            "HloModule ar_%s, replica_count=2\n\n%s\nENTRY main {\n%s"
            "  ROOT r = %s[2] all-reduce(x), replica_groups={}, to_apply=sum\n}"
            % (cls, reducer(ty, cls), pr, ty),
            expect=lit(ty, s),
            note="element-wise a + b (or for pred): integer sums wrap, "
                 "inf + -inf = nan, -0 + -0 = -0"))
        # all-to-all then all-gather: replica r gets [a[r], b[r]].
        add("ops/all-to-all.golden", case(
            "%s_two_replicas_gathered" % cls,
            "HloModule a2a_%s, replica_count=2\n\nENTRY main {\n%s"
            "  t = %s[2] all-to-all(x), replica_groups={}, dimensions={0}\n"
            "  ROOT g = %s[4] all-gather(t), replica_groups={}, dimensions={0}\n}"
            % (cls, pr, ty, ty),
            expect=lit(ty, np.array([a[0], b[0], a[1], b[1]], a.dtype)),
            note="split 2 blocks of 1: replica r receives block r of each "
                 "replica, [a[r], b[r]]; gathered in replica order"))
        # reduce-scatter then all-gather: the full sum again.
        add("ops/reduce-scatter.golden", case(
            "%s_two_replicas_gathered" % cls,
            "HloModule rs_%s, replica_count=2\n\n%s\nENTRY main {\n%s"
            "  t = %s[1] reduce-scatter(x), replica_groups={}, dimensions={0}, "
            "to_apply=sum\n"
            "  ROOT g = %s[2] all-gather(t), replica_groups={}, dimensions={0}\n}"
            % (cls, reducer(ty, cls), pr, ty, ty),
            expect=lit(ty, s),
            note="replica r keeps block r of a + b; gathered back"))
        # collective-permute swapping the two replicas.
        add("ops/collective-permute.golden", case(
            "%s_swap_two_replicas" % cls,
            "HloModule cp_%s, replica_count=2\n\nENTRY main {\n%s"
            "  t = %s[2] collective-permute(x), source_target_pairs={{0,1},{1,0}}\n"
            "  ROOT g = %s[4] all-gather(t), replica_groups={}, dimensions={0}\n}"
            % (cls, pr, ty, ty),
            expect=lit(ty, np.concatenate([b, a])),
            note="replica 0 receives b, replica 1 receives a"))
    # collective-permute: a replica that is no target gets zeros.
    a = np.array([5, 6], np.int32)
    b = np.array([7, 8], np.int32)
    add("ops/collective-permute.golden", case(
        "not_a_target_gets_zeros",
        "HloModule cp_zero, replica_count=2\n\nENTRY main {\n%s"
        "  t = s32[2] collective-permute(x), source_target_pairs={{0,1}}\n"
        "  ROOT g = s32[4] all-gather(t), replica_groups={}, dimensions={0}\n}"
        % per_replica("s32", a, b),
        expect=lit("s32", np.array([0, 0, 5, 6], np.int32)),
        prov="hand-derived: seed 001 CollectivePermute (a replica that is not "
             "a target gets zeros)"))
    # all-reduce over singleton groups is the identity; rank 0 operand.
    add("ops/all-reduce.golden", case(
        "singleton_groups_identity_rank0",
        "HloModule ar_single, replica_count=2\n\n%s\nENTRY main {\n"
        "  p = s32[] parameter(0)\n"
        "  ROOT r = s32[] all-reduce(p), replica_groups={{0},{1}}, to_apply=sum\n}"
        % reducer("s32", "signed"),
        args=["s32[] -2147483648"], expect="s32[] -2147483648",
        prov="hand-derived: a group of one replica reduces nothing"))
    add("ops/all-gather.golden", case(
        "zero_size_operand",
        "HloModule ag_zero, replica_count=2\n\nENTRY main {\n"
        "  p = f32[0] parameter(0)\n"
        "  ROOT g = f32[0] all-gather(p), replica_groups={}, dimensions={0}\n}",
        args=["f32[0]{0} {}"], expect="f32[0]{0} {}",
        prov="hand-derived: concatenating two empty arrays"))
    add("ops/reduce-scatter.golden", case(
        "f32_same_args_doubles",
        "HloModule rs_same, replica_count=2\n\n%s\nENTRY main {\n"
        "  p = f32[4] parameter(0)\n"
        "  t = f32[2] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=sum\n"
        "  ROOT g = f32[4] all-gather(t), replica_groups={}, dimensions={0}\n}"
        % reducer("f32", "float"),
        args=["f32[4]{0} {1.5, -0, 3.4028234663852886e+38, nan}"],
        expect="f32[4]{0} {3, -0, inf, nan}",
        prov="hand-derived: every replica holds the same p, so the sum is 2p "
             "(max f32 doubled overflows to inf)"))
    add("ops/all-to-all.golden", case(
        "s32_rank2_split1_concat0",
        "HloModule a2a_r2, replica_count=2\n\nENTRY main {\n"
        "  p = s32[1,4] parameter(0)\n"
        "  t = s32[1,4] all-to-all(p), replica_groups={}, dimensions={1}\n"
        "  ROOT g = s32[2,4] all-gather(t), replica_groups={}, dimensions={0}\n}",
        args=["s32[1,4]{1,0} {{1, 2, 3, 4}}"],
        expect="s32[2,4]{1,0} {{1, 2, 1, 2}, {3, 4, 3, 4}}",
        prov="hand-derived: seed 001 AllToAll (array form, split dimension "
             "1 = concat dimension): every replica holds [1,2,3,4]; replica r "
             "receives block r (columns 2r, 2r+1) of both replicas, "
             "concatenated on dim 1; gathered on dim 0"))
    # Errors.
    add("errors/all-gather.golden", case(
        "dimension_out_of_range",
        "HloModule e\n\nENTRY main {\n  p = f32[2] parameter(0)\n"
        "  ROOT g = f32[4] all-gather(p), replica_groups={}, dimensions={1}\n}",
        error="all-gather.C6",
        prov="hand-derived: seed 001 AllGather: all_gather_dimension is a "
             "dimension of the operand"))
    add("errors/all-reduce.golden", case(
        "reducer_type_mismatch",
        "HloModule e\n\n%s\nENTRY main {\n  p = s32[2] parameter(0)\n"
        "  ROOT r = s32[2] all-reduce(p), replica_groups={}, to_apply=sum\n}"
        % reducer("f32", "float"),
        error="all-reduce.C7",
        prov="hand-derived: seed 001 AllReduce: the computation reduces the "
             "operand's element type"))
    add("errors/all-to-all.golden", case(
        "split_not_divisible",
        "HloModule e, replica_count=2\n\nENTRY main {\n  p = f32[3] parameter(0)\n"
        "  ROOT t = f32[3] all-to-all(p), replica_groups={{0,1}}, dimensions={0}\n}",
        error="all-to-all.C7",
        prov="hand-derived: seed 001 AllToAll: the split dimension's size is "
             "divisible by split_count"))
    add("errors/reduce-scatter.golden", case(
        "not_divisible_by_shards",
        "HloModule e, replica_count=2\n\n%s\nENTRY main {\n  p = f32[3] parameter(0)\n"
        "  ROOT t = f32[1] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=sum\n}"
        % reducer("f32", "float"),
        error="reduce-scatter.C8",
        prov="hand-derived: seed 001 ReduceScatter: the scatter dimension "
             "splits into shard_count blocks"))
    add("errors/collective-permute.golden", case(
        "source_twice",
        "HloModule e, replica_count=3\n\nENTRY main {\n  p = f32[2] parameter(0)\n"
        "  ROOT t = f32[2] collective-permute(p), source_target_pairs={{0,1},{0,2}}\n}",
        error="collective-permute.C5",
        prov="hand-derived: seed 001 CollectivePermute: no two pairs share a "
             "source"))
    add("errors/replica-id.golden", case(
        "result_not_u32",
        "HloModule e\n\nENTRY main {\n  ROOT r = s32[] replica-id()\n}",
        error="module.C10",
        prov="hand-derived: seed 001 ReplicaId returns a U32 scalar; the "
             "stated shape must equal the inferred one"))
    # replica-id with 1 and 4 replicas.
    add("ops/replica-id.golden", case(
        "single_replica_is_zero",
        "HloModule rid1\n\nENTRY main {\n  ROOT r = u32[] replica-id()\n}",
        expect="u32[] 0", prov="hand-derived: seed 001 ReplicaId (one replica)"))
    add("ops/replica-id.golden", case(
        "four_replicas_gathered",
        "HloModule rid4, replica_count=4\n\nENTRY main {\n"
        "  r = u32[] replica-id()\n  rb = u32[1] reshape(r)\n"
        "  ROOT g = u32[4] all-gather(rb), replica_groups={}, dimensions={0}\n}",
        expect="u32[4]{0} {0, 1, 2, 3}",
        prov="hand-derived: seed 001 ReplicaId: replica r answers r"))


def generic_classes():
    """tuple, get-tuple-element, call, map, while, opt-barrier for every
    class."""
    for cls, (ty, dt) in T.items():
        a, b = samples(cls)
        add("ops/tuple.golden", case(
            "%s_pair" % cls,
            "HloModule tup_%s\n\nENTRY main {\n  x = %s[2] parameter(0)\n"
            "  y = %s[2] parameter(1)\n  ROOT t = (%s[2], %s[2]) tuple(x, y)\n}"
            % (cls, ty, ty, ty, ty),
            args=[lit(ty, a), lit(ty, b)],
            expect=tuple_lit([(ty, a), (ty, b)]),
            prov="hand-derived: seed 001 Tuple (values pass unchanged)"))
        add("ops/get-tuple-element.golden", case(
            "%s_element0" % cls,
            "HloModule gte_%s\n\nENTRY main {\n  t = (%s[2], s32[]) parameter(0)\n"
            "  ROOT e = %s[2] get-tuple-element(t), index=0\n}" % (cls, ty, ty),
            args=[tuple_lit([(ty, a), ("s32", np.int32(3))])],
            expect=lit(ty, a), cls=cls,
            prov="hand-derived: seed 001 GetTupleElement"))
        add("ops/call.golden", case(
            "%s_identity_swap" % cls,
            "HloModule call_%s\n\nswap {\n  p = %s[2] parameter(0)\n"
            "  q = %s[2] parameter(1)\n  ROOT t = (%s[2], %s[2]) tuple(q, p)\n}\n\n"
            "ENTRY main {\n  x = %s[2] parameter(0)\n  y = %s[2] parameter(1)\n"
            "  ROOT r = (%s[2], %s[2]) call(x, y), to_apply=swap\n}"
            % ((cls,) + (ty,) * 8),
            args=[lit(ty, a), lit(ty, b)],
            expect=tuple_lit([(ty, b), (ty, a)]),
            prov="hand-derived: seed 001 Call (runs the computation on the "
                 "arguments)"))
        s = combine(cls, a, b)
        add("ops/map.golden", case(
            "%s_add" % cls,
            "HloModule map_%s\n\n%s\nENTRY main {\n  x = %s[2] parameter(0)\n"
            "  y = %s[2] parameter(1)\n  ROOT r = %s[2] map(x, y), dimensions={0}, to_apply=sum\n}"
            % (cls, reducer(ty, cls), ty, ty, ty),
            args=[lit(ty, a), lit(ty, b)], expect=lit(ty, s)))
        # while: swap the two vectors three times (odd: swapped), counting.
        add("ops/while.golden", case(
            "%s_swap_three_times" % cls,
            ("HloModule while_%s\n\ncond {\n  s = (s32[], T[2], T[2]) parameter(0)\n"
             "  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(3)\n"
             "  ROOT c = pred[] compare(i, n), direction=LT\n}\n\n"
             "body {\n  s = (s32[], T[2], T[2]) parameter(0)\n"
             "  i = s32[] get-tuple-element(s), index=0\n"
             "  x = T[2] get-tuple-element(s), index=1\n"
             "  y = T[2] get-tuple-element(s), index=2\n"
             "  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
             "  ROOT t = (s32[], T[2], T[2]) tuple(j, y, x)\n}\n\n"
             "ENTRY main {\n  s = (s32[], T[2], T[2]) parameter(0)\n"
             "  ROOT w = (s32[], T[2], T[2]) while(s), condition=cond, body=body\n}"
             % cls).replace("T[", ty + "["),
            args=[tuple_lit([("s32", np.int32(0)), (ty, a), (ty, b)])],
            expect=tuple_lit([("s32", np.int32(3)), (ty, b), (ty, a)]),
            cls=cls, prov="hand-derived: seed 001 While (body runs while "
                          "cond holds: 3 swaps leave the pair swapped)"))
    add("ops/while.golden", case(
        "zero_iterations",
        "HloModule while0\n\ncond {\n  s = s32[] parameter(0)\n"
        "  z = s32[] constant(0)\n  ROOT c = pred[] compare(s, z), direction=LT\n}\n\n"
        "body {\n  s = s32[] parameter(0)\n  ROOT n = s32[] negate(s)\n}\n\n"
        "ENTRY main {\n  s = s32[] parameter(0)\n"
        "  ROOT w = s32[] while(s), condition=cond, body=body\n}",
        args=["s32[] 5"], expect="s32[] 5",
        prov="hand-derived: seed 001 While: the condition is false at once, "
             "the body never runs"))
    add("ops/while.golden", case(
        "s32_doubling_until_overflow",
        "HloModule while_dbl\n\ncond {\n  s = s32[] parameter(0)\n"
        "  z = s32[] constant(0)\n  ROOT c = pred[] compare(s, z), direction=GT\n}\n\n"
        "body {\n  s = s32[] parameter(0)\n  ROOT d = s32[] add(s, s)\n}\n\n"
        "ENTRY main {\n  s = s32[] parameter(0)\n"
        "  ROOT w = s32[] while(s), condition=cond, body=body\n}",
        args=["s32[] 1"], expect="s32[] -2147483648",
        prov="hand-derived: 1 doubles to 2^30, then 2^31 wraps to INT_MIN "
             "(two's complement), which ends the loop"))
    add("ops/map.golden", case(
        "f32_zero_size",
        "HloModule map_zero\n\n%s\nENTRY main {\n  x = f32[0,3] parameter(0)\n"
        "  ROOT r = f32[0,3] map(x, x), dimensions={0,1}, to_apply=sum\n}"
        % reducer("f32", "float"),
        args=["f32[0,3]{1,0} {}"], expect="f32[0,3]{1,0} {}",
        prov="hand-derived: mapping over no elements"))
    add("ops/call.golden", case(
        "rank0_nested",
        "HloModule call_nested\n\ninner {\n  p = f32[] parameter(0)\n"
        "  ROOT n = f32[] negate(p)\n}\n\nouter {\n  p = f32[] parameter(0)\n"
        "  ROOT c = f32[] call(p), to_apply=inner\n}\n\n"
        "ENTRY main {\n  x = f32[] parameter(0)\n  ROOT r = f32[] call(x), to_apply=outer\n}",
        args=["f32[] 0"], expect="f32[] -0",
        prov="hand-derived: negate(+0) = -0 through two calls"))
    # errors
    add("errors/call.golden", case(
        "argument_count_mismatch",
        "HloModule e\n\nf {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n"
        "ENTRY main {\n  x = f32[] parameter(0)\n"
        "  ROOT r = f32[] call(x, x), to_apply=f\n}",
        error="call.C1",
        prov="hand-derived: seed 001 Call: the arguments match the "
             "computation's parameters"))
    add("errors/tuple.golden", case(
        "stated_shape_differs",
        "HloModule e\n\nENTRY main {\n  x = f32[2] parameter(0)\n"
        "  ROOT t = (f32[2], f32[2]) tuple(x)\n}",
        error="module.C10",
        prov="hand-derived: seed 001 Tuple: the tuple's shape is that of its "
             "elements"))


# ---------------------------------------------------------------- rng
M32 = 0xFFFFFFFF


def rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & M32


def threefry2x32_20(key, ctr):
    """Random123 Threefry-2x32 with 20 rounds (numerics.md 3.7)."""
    ks0, ks1 = key
    ks2 = 0x1BD11BDA ^ ks0 ^ ks1
    ks = [ks0, ks1, ks2]
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    x0 = (ctr[0] + ks0) & M32
    x1 = (ctr[1] + ks1) & M32
    for r in range(20):
        x0 = (x0 + x1) & M32
        x1 = rotl32(x1, rot[r % 8]) ^ x0
        if r % 4 == 3:
            n = r // 4 + 1
            x0 = (x0 + ks[n % 3]) & M32
            x1 = (x1 + ks[(n + 1) % 3] + n) & M32
    return x0, x1


def philox4x32_10(key, ctr):
    """Random123 Philox-4x32 with 10 rounds (numerics.md 3.7)."""
    k0, k1 = key
    x0, x1, x2, x3 = ctr
    for r in range(10):
        p0 = x0 * 0xD2511F53
        p1 = x2 * 0xCD9E8D57
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0, p1 & M32,
                          (p0 >> 32) ^ x3 ^ k1, p0 & M32)
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x0, x1, x2, x3


# Known-answer tests of Random123 (kat_vectors): counter 0, key 0.
assert threefry2x32_20((0, 0), (0, 0)) == (0x6B200159, 0x99BA4EFE)
assert philox4x32_10((0, 0), (0, 0, 0, 0)) == (
    0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
assert threefry2x32_20((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2) == (
    0x1CB996FC, 0xBB002BE7)
assert philox4x32_10((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4) == (
    0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)

M64 = (1 << 64) - 1


def split64(v):
    return v & M32, v >> 32


def threefry_u32(key, c, n):
    """Rank-1 u32[n] output (split dimension 0): returns (bits, new c)."""
    half = (n + 1) // 2
    out = []
    for i in range(half):
        out.extend(threefry2x32_20(split64(key), split64((c + i) & M64)))
    return out[:n], (c + half) & M64


def threefry_u64(key, c, n):
    out = []
    for i in range(n):
        w0, w1 = threefry2x32_20(split64(key), split64((c + i) & M64))
        out.append(w0 | w1 << 32)
    return out, (c + n) & M64


def philox_u32(key, lo, hi, n):
    blocks = (n + 3) // 4
    out = []
    for j in range(blocks):
        c = ((hi << 64) | lo) + j
        c &= (1 << 128) - 1
        words = [(c >> (32 * w)) & M32 for w in range(4)]
        out.extend(philox4x32_10(split64(key), words))
    c = (((hi << 64) | lo) + blocks) & ((1 << 128) - 1)
    return out[:n], c & M64, c >> 64


def rng_cases():
    prov = ("independent computation: Threefry-2x32-20 / Philox-4x32-10 "
            "written in python from the Random123 paper and numerics.md "
            "3.7 (golden/tools/class_cases.py, checked against Random123's "
            "known-answer vectors)")
    tf = "impl: impl.rng-bit-generator.2"
    key, c = 0x0123456789ABCDEF, 0x42
    bits, nc = threefry_u32(key, c, 4)
    def mod(name, st, out, alg):
        return ("HloModule %s\n\nENTRY main {\n  s = %s parameter(0)\n"
                "  ROOT r = (%s, %s) rng-bit-generator(s), algorithm=%s\n}"
                % (name, st, st, out, alg))
    add("ops/rng-bit-generator.golden", case(
        "three_fry_u32_4", mod("tf4", "u64[2]", "u32[4]", "rng_three_fry"),
        args=["u64[2]{0} {%d, %d}" % (key, c)],
        expect="(u64[2], u32[4]) ({%d, %d}, {%s})" % (
            key, nc, ", ".join(map(str, bits))),
        prov=prov, extra=["profile: xla", tf],
        note="split dimension 0 (even): counters c, c+1 give words at "
             "positions (0,1), (2,3); new state [key, c+2]"))
    bits, nc = threefry_u32(key, M64, 3)
    add("ops/rng-bit-generator.golden", case(
        "three_fry_u32_odd_counter_wraps",
        mod("tf3", "u64[2]", "u32[3]", "rng_three_fry"),
        args=["u64[2]{0} {%d, %d}" % (key, M64)],
        expect="(u64[2], u32[3]) ({%d, %d}, {%s})" % (
            key, nc, ", ".join(map(str, bits))),
        prov=prov, extra=["profile: xla", tf],
        note="odd size 3: half shape 2 (counters 2^64-1 and 0, wrapping), "
             "sliced to 3; new counter 1"))
    bits, nc = threefry_u64(key, 7, 2)
    add("ops/rng-bit-generator.golden", case(
        "three_fry_u64_2", mod("tf64", "u64[2]", "u64[2]", "rng_three_fry"),
        args=["u64[2]{0} {%d, 7}" % key],
        expect="(u64[2], u64[2]) ({%d, %d}, {%s})" % (
            key, nc, ", ".join(map(str, bits))),
        prov=prov, extra=["profile: xla", tf],
        note="64-bit outputs: one counter per element, word0 | word1 << 32"))
    bits, nlo, nhi = philox_u32(key, M64 - 1, 5, 6)
    add("ops/rng-bit-generator.golden", case(
        "philox_u32_6_state3_carry",
        mod("ph6", "u64[3]", "u32[6]", "rng_philox"),
        args=["u64[3]{0} {%d, %d, 5}" % (key, M64 - 1)],
        expect="(u64[3], u32[6]) ({%d, %d, %d}, {%s})" % (
            key, nlo, nhi, ", ".join(map(str, bits))),
        prov=prov, extra=["profile: xla", tf],
        note="two blocks: counters (2^64-2, 5) and (2^64-1, 5); new counter "
             "(0, 6): the 128-bit add carries into the high word"))
    bits, nlo, nhi = philox_u32(key, 9, key, 4)
    add("ops/rng-bit-generator.golden", case(
        "default_is_philox_state2",
        mod("phd", "u64[2]", "u32[4]", "rng_default"),
        args=["u64[2]{0} {%d, 9}" % key],
        expect="(u64[2], u32[4]) ({%d, %d}, {%s})" % (
            key, nlo, ", ".join(map(str, bits))),
        prov=prov,
        extra=["profile: xla",
               "impl: impl.rng-bit-generator.1, impl.rng-bit-generator.2"],
        note="u64[2] state: counter low = state[1], high = state[0] (the "
             "key); only the low counter word is written back"))
    # Longer states (impl.rng-bit-generator.3): the algorithm reads the
    # leading words; the others come back unchanged.
    extra_word = 0xDEADBEEFCAFEF00D
    bits, nc = threefry_u32(key, c, 4)
    add("ops/rng-bit-generator.golden", case(
        "three_fry_state3_extra_word_kept",
        mod("tfx", "u64[3]", "u32[4]", "rng_three_fry"),
        args=["u64[3]{0} {%d, %d, %d}" % (key, c, extra_word)],
        expect="(u64[3], u32[4]) ({%d, %d, %d}, {%s})" % (
            key, nc, extra_word, ", ".join(map(str, bits))),
        prov=prov,
        extra=["profile: xla",
               "impl: impl.rng-bit-generator.2, impl.rng-bit-generator.3"],
        note="THREE_FRY reads state[0] (key) and state[1] (counter) only, "
             "as XLA's RngBitGeneratorExpander: the bits are those of "
             "three_fry_u32_4; state[2] comes back unchanged"))
    bits, nlo, nhi = philox_u32(key, M64 - 1, 5, 6)
    add("ops/rng-bit-generator.golden", case(
        "philox_state4_extra_word_kept",
        mod("phx", "u64[4]", "u32[6]", "rng_philox"),
        args=["u64[4]{0} {%d, %d, 5, %d}" % (key, M64 - 1, extra_word)],
        expect="(u64[4], u32[6]) ({%d, %d, %d, %d}, {%s})" % (
            key, nlo, nhi, extra_word, ", ".join(map(str, bits))),
        prov=prov,
        extra=["profile: xla",
               "impl: impl.rng-bit-generator.2, impl.rng-bit-generator.3"],
        note="PHILOX reads state[0] (key) and state[1..2] (counter) as for "
             "u64[3] (philox_u32_6_state3_carry's bits); state[3] comes back "
             "unchanged"))
    add("errors/rng-bit-generator.golden", case(
        "state_size_1",
        "HloModule e\n\nENTRY main {\n  s = u64[1] parameter(0)\n"
        "  ROOT r = (u64[1], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry\n}",
        error="rng-bit-generator.C2",
        prov="hand-derived: every algorithm reads a key word and a counter "
             "word (XLA's expander slices state[1], which a u64[1] lacks)"))
    add("errors/rng-bit-generator.golden", case(
        "state_not_u64",
        "HloModule e\n\nENTRY main {\n  s = u32[2] parameter(0)\n"
        "  ROOT r = (u32[2], u32[4]) rng-bit-generator(s), algorithm=rng_philox\n}",
        error="rng-bit-generator.C1",
        prov="hand-derived: seed 001 RngBitGenerator: the state is u64"))


# ------------------------------------------- linalg, fft, batch norm, conv
def hand(rule):
    return "hand-derived: " + rule


def simple(name, ty_args, out_ty, inst, args, expect_lit):
    """A one-instruction module: parameters p0.. and ROOT r = inst."""
    lines = ["  p%d = %s parameter(%d)" % (i, t, i)
             for i, t in enumerate(ty_args)]
    return ("HloModule %s\n\nENTRY main {\n%s\n  ROOT r = %s %s\n}"
            % (name, "\n".join(lines), out_ty, inst))


def linalg_cases():
    A = np.array([[4, 2], [2, 5]], np.float32)
    add("ops/cholesky.golden", case(
        "f32_lower_2x2",
        simple("chol", ["f32[2,2]"], "f32[2,2]", "cholesky(p0), lower=true", 0, 0),
        args=[lit("f32", A)], expect=lit("f32", np.array([[2, 0], [1, 2]], np.float32)),
        prov=hand("L = [[2,0],[1,2]], L L^T = [[4,2],[2,5]]; upper triangle 0"),
        extra=["profile: xla", "impl: impl.cholesky.1"]))
    add("ops/cholesky.golden", case(
        "f32_upper_reads_upper_triangle",
        simple("cholu", ["f32[2,2]"], "f32[2,2]", "cholesky(p0), lower=false", 0, 0),
        args=[lit("f32", np.array([[4, 2], [99, 5]], np.float32))],
        expect=lit("f32", np.array([[2, 1], [0, 2]], np.float32)),
        prov=hand("U = [[2,1],[0,2]], U^T U = [[4,2],[2,5]]; only the upper "
                  "triangle of a is read (99 ignored)"),
        extra=["profile: xla", "impl: impl.cholesky.1"]))
    Ac = np.array([[4, 2 - 2j], [2 + 2j, 6]], np.complex64)
    add("ops/cholesky.golden", case(
        "c64_hermitian_lower",
        simple("cholc", ["c64[2,2]"], "c64[2,2]", "cholesky(p0), lower=true", 0, 0),
        args=[lit("c64", Ac)],
        expect=lit("c64", np.array([[2, 0], [1 + 1j, 2]], np.complex64)),
        prov=hand("L = [[2,0],[1+i,2]]: L L^H = [[4, 2-2i],[2+2i, 2+4]]"),
        extra=["profile: xla", "impl: impl.cholesky.1"]))
    add("ops/cholesky.golden", case(
        "f32_not_positive_definite_batch_nan",
        simple("choln", ["f32[2,2,2]"], "f32[2,2,2]", "cholesky(p0), lower=true", 0, 0),
        args=[lit("f32", np.array([[[-1, 0], [0, 1]], [[9, 0], [0, 1]]], np.float32))],
        expect=lit("f32", np.array([[[np.nan] * 2] * 2, [[3, 0], [0, 1]]], np.float32)),
        prov=hand("numerics.md 3.9: the non-HPD batch element is all NaN, "
                  "the other is factored (sqrt 9 = 3)"),
        extra=["profile: xla", "impl: impl.cholesky.1, impl.cholesky.2"]))
    add("errors/cholesky.golden", case(
        "not_square",
        simple("e", ["f32[2,3]"], "f32[2,3]", "cholesky(p0), lower=true", 0, 0),
        error="cholesky.C1", prov=hand("seed 001 Cholesky: square matrices")))
    add("errors/cholesky.golden", case(
        "integer_operand",
        simple("e", ["s32[2,2]"], "s32[2,2]", "cholesky(p0), lower=true", 0, 0),
        error="cholesky.C1", prov=hand("seed 001 Cholesky: floating point")))
    ts = "triangular-solve(p0, p1), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s"
    def tri(name, ty, a, b, x, left, lower, unit, tr, note, impl=None):
        ash = shape(ty, a)
        bsh = shape(ty, b)
        add("ops/triangular-solve.golden", case(
            name, simple(name, [ash, bsh], bsh, ts % (left, lower, unit, tr), 0, 0),
            args=[lit(ty, a), lit(ty, b)], expect=lit(ty, x),
            prov=hand(note)))
    tri("f32_left_lower", "f32", np.array([[2, 7], [1, 4]], np.float32),
        np.array([[2], [9]], np.float32), np.array([[1], [2]], np.float32),
        "true", "true", "false", "NO_TRANSPOSE",
        "a x = b: x0 = 2/2 = 1, x1 = (9 - 1)/4 = 2 (upper 7 not read)")
    tri("f32_left_lower_transpose", "f32", np.array([[2, 0], [1, 4]], np.float32),
        np.array([[4], [8]], np.float32), np.array([[1], [2]], np.float32),
        "true", "true", "false", "TRANSPOSE",
        "a^T x = b, a^T = [[2,1],[0,4]]: x1 = 2, x0 = (4 - 2)/2 = 1")
    tri("f32_right_lower", "f32", np.array([[2, 0], [1, 4]], np.float32),
        np.array([[4, 8]], np.float32), np.array([[1, 2]], np.float32),
        "false", "true", "false", "NO_TRANSPOSE",
        "x a = b: [2x0 + x1, 4x1] = [4, 8]: x1 = 2, x0 = 1")
    tri("f32_unit_diagonal", "f32", np.array([[9, 0], [3, 9]], np.float32),
        np.array([[1], [5]], np.float32), np.array([[1], [2]], np.float32),
        "true", "true", "true", "NO_TRANSPOSE",
        "unit_diagonal: a read as [[1,0],[3,1]]: x0 = 1, x1 = 5 - 3 = 2")
    tri("c64_upper_adjoint", "c64", np.array([[1j, 0], [1, 1]], np.complex64).T.copy(),
        np.array([[1 - 1j], [3 + 1j]], np.complex64),
        np.array([[1 + 1j], [2]], np.complex64),
        "true", "false", "false", "ADJOINT",
        "a = [[i,1],[0,1]] upper, a^H = [[-i,0],[1,1]]; a^H x = b: "
        "-i x0 = 1 - i gives x0 = 1 + i, x0 + x1 = 3 + i gives x1 = 2")
    add("errors/triangular-solve.golden", case(
        "b_type_differs",
        simple("e", ["f32[2,2]", "f64[2,1]"], "f64[2,1]",
               ts % ("true", "true", "false", "NO_TRANSPOSE"), 0, 0),
        error="triangular-solve.C2",
        prov=hand("seed 001 TriangularSolve: b has a's type")))


def fft_bn_conv_cases():
    x = np.array([1, 2, 3, 4], np.complex64)
    X = np.fft.fft(x).astype(np.complex64)
    add("ops/fft.golden", case(
        "c64_fft_4", simple("fft", ["c64[4]"], "c64[4]",
                            "fft(p0), fft_type=FFT, fft_length={4}", 0, 0),
        args=[lit("c64", x)], expect=lit("c64", X),
        prov="independent computation: numpy.fft.fft (exact: "
             "[10, -2+2i, -2, -2-2i])"))
    add("ops/fft.golden", case(
        "c64_ifft_4", simple("ifft", ["c64[4]"], "c64[4]",
                             "fft(p0), fft_type=IFFT, fft_length={4}", 0, 0),
        args=[lit("c64", X)], expect=lit("c64", x),
        prov="independent computation: numpy.fft.ifft (scaled by 1/4)"))
    xr = np.array([1, 2, 3, 4], np.float32)
    add("ops/fft.golden", case(
        "f32_rfft_4", simple("rfft", ["f32[4]"], "c64[3]",
                             "fft(p0), fft_type=RFFT, fft_length={4}", 0, 0),
        args=[lit("f32", xr)],
        expect=lit("c64", np.fft.rfft(xr).astype(np.complex64)),
        prov="independent computation: numpy.fft.rfft"))
    add("ops/fft.golden", case(
        "c64_irfft_4", simple("irfft", ["c64[3]"], "f32[4]",
                              "fft(p0), fft_type=IRFFT, fft_length={4}", 0, 0),
        args=[lit("c64", np.fft.rfft(xr).astype(np.complex64))],
        expect=lit("f32", xr),
        prov="independent computation: numpy.fft.irfft"))
    x2 = np.array([[1, 0], [0, 0]], np.complex64)
    add("ops/fft.golden", case(
        "c64_fft_2d_impulse", simple("fft2", ["c64[2,2]"], "c64[2,2]",
                                     "fft(p0), fft_type=FFT, fft_length={2,2}", 0, 0),
        args=[lit("c64", x2)], expect=lit("c64", np.ones((2, 2), np.complex64)),
        prov=hand("the transform of an impulse at 0 is all ones")))
    add("errors/fft.golden", case(
        "fft_of_real_operand",
        simple("e", ["f32[4]"], "c64[4]", "fft(p0), fft_type=FFT, fft_length={4}", 0, 0),
        error="fft.C3", prov=hand("seed 001 Fft: FFT takes a complex operand")))
    # batch norm: x = [0,0,2,2] in one feature: mean 1, var 1, eps 3 so
    # rsqrt(var + eps) = 1/2 exactly.
    xb = np.array([[0], [0], [2], [2]], np.float32)
    add("ops/batch-norm-training.golden", case(
        "f32_one_feature",
        simple("bnt", ["f32[4,1]", "f32[1]", "f32[1]"], "(f32[4,1], f32[1], f32[1])",
               "batch-norm-training(p0, p1, p2), epsilon=3, feature_index=1", 0, 0),
        args=[lit("f32", xb), "f32[1]{0} {2}", "f32[1]{0} {0.5}"],
        expect="(f32[4,1], f32[1], f32[1]) ({{-0.5}, {-0.5}, {1.5}, {1.5}}, {1}, {1})",
        prov=hand("mean 1, biased variance 1, (x - 1) / sqrt(1 + 3) * 2 + 0.5")))
    add("ops/batch-norm-training.golden", case(
        "f32_two_features_dim0",
        simple("bnt0", ["f32[2,2]", "f32[2]", "f32[2]"], "(f32[2,2], f32[2], f32[2])",
               "batch-norm-training(p0, p1, p2), epsilon=0, feature_index=0", 0, 0),
        args=["f32[2,2]{1,0} {{1, 3}, {-5, -5}}", "f32[2]{0} {1, 1}",
              "f32[2]{0} {0, 7}"],
        expect="(f32[2,2], f32[2], f32[2]) ({{-1, 1}, {nan, nan}}, {2, -5}, {1, 0})",
        prov=hand("feature 0 = row {1,3}: mean 2, var 1 -> {-1, 1}; feature 1 "
                  "= row {-5,-5}: var 0 and epsilon 0, so (x - mean) / "
                  "sqrt(0) = 0/0 = nan, plus offset 7 stays nan"),
        note="row 1 probes 0/0"))
    add("ops/batch-norm-inference.golden", case(
        "f32_two_features",
        simple("bni", ["f32[2,2]", "f32[2]", "f32[2]", "f32[2]", "f32[2]"], "f32[2,2]",
               "batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.25, feature_index=1", 0, 0),
        args=["f32[2,2]{1,0} {{3, 5}, {-1, 1}}", "f32[2]{0} {2, 3}",
              "f32[2]{0} {1, 0}", "f32[2]{0} {1, 1}", "f32[2]{0} {3.75, 3.75}"],
        expect="f32[2,2]{1,0} {{3, 6}, {-1, 0}}",
        prov=hand("(x - 1) / sqrt(3.75 + 0.25) * scale + offset, scale {2,3}, "
                  "offset {1,0}")))
    add("ops/batch-norm-inference.golden", case(
        "f32_inf_and_nan",
        simple("bnin", ["f32[3,1]", "f32[1]", "f32[1]", "f32[1]", "f32[1]"], "f32[3,1]",
               "batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0, feature_index=1", 0, 0),
        args=["f32[3,1]{1,0} {{inf}, {nan}, {-inf}}", "f32[1]{0} {1}",
              "f32[1]{0} {0}", "f32[1]{0} {0}", "f32[1]{0} {1}"],
        expect="f32[3,1]{1,0} {{inf}, {nan}, {-inf}}",
        prov=hand("mean 0, variance 1, scale 1: the identity keeps inf and nan")))
    add("ops/batch-norm-inference.golden", case(
        "f32_zero_size_batch",
        simple("bniz", ["f32[0,2]", "f32[2]", "f32[2]", "f32[2]", "f32[2]"], "f32[0,2]",
               "batch-norm-inference(p0, p1, p2, p3, p4), epsilon=1, feature_index=1", 0, 0),
        args=["f32[0,2]{1,0} {}", "f32[2]{0} {1, 1}", "f32[2]{0} {0, 0}",
              "f32[2]{0} {0, 0}", "f32[2]{0} {0, 0}"],
        expect="f32[0,2]{1,0} {}", prov=hand("no elements")))
    # grad: x = [0,0,2,2], mean 1, var 1, eps 3 (rsqrt 1/2), scale 2.
    for name, gy in (("f32_grad_symmetric", [1, 0, 0, 1]),
                     ("f32_grad_one_hot", [1, 0, 0, 0]),
                     ("f32_grad_last", [0, 0, 0, 4])):
        xv = np.array([0, 0, 2, 2], np.float64)
        g = np.array(gy, np.float64)
        r, n, sc = 0.5, 4, 2.0
        gscale = np.sum(g * (xv - 1) * r)
        goff = np.sum(g)
        gx = sc * r / n * (n * g - goff - (xv - 1) * r * r * np.sum(g * (xv - 1)))
        add("ops/batch-norm-grad.golden", case(
            name,
            simple("bng", ["f32[4,1]", "f32[1]", "f32[1]", "f32[1]", "f32[4,1]"],
                   "(f32[4,1], f32[1], f32[1])",
                   "batch-norm-grad(p0, p1, p2, p3, p4), epsilon=3, feature_index=1", 0, 0),
            args=[lit("f32", xb), "f32[1]{0} {2}", "f32[1]{0} {1}", "f32[1]{0} {1}",
                  lit("f32", np.array(gy, np.float32).reshape(4, 1))],
            expect=tuple_lit([("f32", gx.astype(np.float32).reshape(4, 1)),
                              ("f32", np.array([gscale], np.float32)),
                              ("f32", np.array([goff], np.float32))]),
            prov="independent computation: numpy (float64) of seed 001 "
                 "BatchNormGrad's formulas; every value is a short dyadic"))
    for op, rule in (("batch-norm-training", "batch-norm-training.C1"),
                     ("batch-norm-inference", "batch-norm-inference.C1"),
                     ("batch-norm-grad", "batch-norm-grad.C1")):
        n = {"batch-norm-training": 3}.get(op, 5)
        out = "(s32[2,2], s32[2], s32[2])" if op != "batch-norm-inference" else "s32[2,2]"
        add("errors/%s.golden" % op, case(
            "integer_operand",
            simple("e", ["s32[2,2]"] + ["s32[2]"] * (n - 2) + (["s32[2,2]"] if op == "batch-norm-grad" else ["s32[2]"]),
                   out, "%s(%s), epsilon=1, feature_index=1"
                   % (op, ", ".join("p%d" % i for i in range(n))), 0, 0),
            error=rule, prov=hand("seed 001 BatchNorm*: floating-point operand")))


def wrap(cls, v):
    dt = T[cls][1]
    if cls in ("signed", "unsigned"):
        bits = 32
        v = int(v) % (1 << bits)
        if cls == "signed" and v >= 1 << 31:
            v -= 1 << bits
    return dt(v)


def conv_sas_dot_scatter_cases():
    # 1-D convolution, b0f x 0io -> b0f, window 2 (cross-correlation).
    data = {"signed": ([2147483647, 1, 2, 3], [1, 1]),
            "unsigned": ([0, 1, 2, 3], [1, 4294967295]),
            "float": ([1, 2, np.inf, 4], [1, -1]),
            "complex": ([1j, 1, 0, 2], [1j, 1])}
    for cls, (x, k) in data.items():
        ty = T[cls][0]
        out = []
        for i in range(3):
            with np.errstate(all="ignore"):
                if cls in ("signed", "unsigned"):
                    out.append(wrap(cls, x[i] * k[0] + x[i + 1] * k[1]))
                else:
                    dt = T[cls][1]
                    out.append(dt(dt(x[i]) * dt(k[0]) + dt(x[i + 1]) * dt(k[1])))
        xs = np.array(x, T[cls][1]).reshape(1, 4, 1)
        ks = np.array(k, T[cls][1]).reshape(2, 1, 1)
        add("ops/convolution.golden", case(
            "%s_1d_window2" % cls,
            simple("conv_%s" % cls, [shape(ty, xs), shape(ty, ks)], "%s[1,3,1]" % ty,
                   "convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f", 0, 0),
            args=[lit(ty, xs), lit(ty, ks)],
            expect=lit(ty, np.array(out, T[cls][1]).reshape(1, 3, 1)),
            prov="independent computation: numpy, out[i] = x[i] k[0] + "
                 "x[i+1] k[1] (no kernel flip; integers wrap; inf - inf = nan)"))
    # pred operands (impl.convolution.1): x[b=0][w][f], k[w][i][o=0].
    xp = np.array([[1, 1], [1, 0], [0, 0], [1, 0]], bool).reshape(1, 4, 2)
    kp = np.array([[1, 1], [0, 1]], bool).reshape(2, 2, 1)
    for ty, out in (("pred", [True, True, False]), ("s32", [2, 1, 0]),
                    ("f32", [2, 1, 0])):
        dt = {"pred": bool, "s32": np.int32, "f32": np.float32}[ty]
        add("ops/convolution.golden", case(
            "pred_operands_%s_result" % ty,
            simple("conv_pred_%s" % ty, ["pred[1,4,2]", "pred[2,2,1]"],
                   "%s[1,3,1]" % ty,
                   "convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f", 0, 0),
            args=[lit("pred", xp), lit("pred", kp)],
            expect=lit(ty, np.array(out, dt).reshape(1, 3, 1)),
            cls="pred", extra=["profile: xla", "impl: impl.convolution.1"],
            prov=hand("out[i] over w in {0,1}, f in {0,1} of x[i+w][f] AND "
                      "k[w][f]: the true products are (w0,f0),(w0,f1) for "
                      "i=0; (w0,f0) for i=1; none for i=2. A pred result "
                      "ORs them (true, true, false: two true products give "
                      "true, not their sum mod 2), a numeric result counts "
                      "them (2, 1, 0); the same values from XLA:CPU "
                      "(jaxlib 0.10.2)")))
    add("ops/convolution.golden", case(
        "pred_operands_256_products",
        simple("conv_pred_256", ["pred[1,1,256]", "pred[1,256,1]"],
               "(pred[1,1,1], s8[1,1,1], s32[1,1,1])",
               "tuple(a, b, c)", 0, 0).replace(
            "  ROOT r",
            "  a = pred[1,1,1] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f\n"
            "  b = s8[1,1,1] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f\n"
            "  c = s32[1,1,1] convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f\n"
            "  ROOT r"),
        args=[lit("pred", np.ones((1, 1, 256), bool)),
              lit("pred", np.ones((1, 256, 1), bool))],
        expect="(pred[1,1,1], s8[1,1,1], s32[1,1,1]) ({{{true}}}, {{{0}}}, {{{256}}})",
        cls="pred", extra=["profile: xla", "impl: impl.convolution.1"],
        prov=hand("256 true products: pred result true (OR, no wrap), s8 "
                  "result 256 mod 256 = 0, s32 result 256; the same values "
                  "from XLA:CPU (jaxlib 0.10.2)")))
    add("ops/convolution.golden", case(
        "f32_pad_stride",
        simple("conv_ps", ["f32[1,4,1]", "f32[2,1,1]"], "f32[1,3,1]",
               "convolution(p0, p1), window={size=2 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f", 0, 0),
        args=["f32[1,4,1]{2,1,0} {{{1}, {2}, {3}, {4}}}",
              "f32[2,1,1]{2,1,0} {{{1}}, {{-1}}}"],
        expect="f32[1,3,1]{2,1,0} {{{-1}, {-1}, {4}}}",
        prov=hand("padded input [0,1,2,3,4,0], windows at 0, 2, 4: "
                  "0-1, 2-3, 4-0")))
    add("ops/convolution.golden", case(
        "f32_feature_groups",
        simple("conv_fg", ["f32[1,2,2]", "f32[1,1,2]"], "f32[1,2,2]",
               "convolution(p0, p1), window={size=1}, dim_labels=b0f_0io->b0f, feature_group_count=2", 0, 0),
        args=["f32[1,2,2]{2,1,0} {{{1, 2}, {3, 4}}}", "f32[1,1,2]{2,1,0} {{{10, 100}}}"],
        expect="f32[1,2,2]{2,1,0} {{{10, 200}, {30, 400}}}",
        prov=hand("feature_group_count 2: output feature o sees input feature "
                  "o only, times k[o]")))
    add("ops/convolution.golden", case(
        "f32_zero_size_batch",
        simple("conv_z", ["f32[0,4,1]", "f32[2,1,1]"], "f32[0,3,1]",
               "convolution(p0, p1), window={size=2}, dim_labels=b0f_0io->b0f", 0, 0),
        args=["f32[0,4,1]{2,1,0} {}", "f32[2,1,1]{2,1,0} {{{1}}, {{1}}}"],
        expect="f32[0,3,1]{2,1,0} {}", prov=hand("empty batch")))
    # select-and-scatter: window 2 stride 2 (disjoint) and the seed's overlap.
    sas = {"pred": ([False, True, True, True], [True, False], [False, True, False, False]),
           "signed": ([1, 5, 3, 3], [2147483647, 1], [0, 2147483647, 1, 0]),
           "unsigned": ([7, 2, 0, 4294967295], [5, 6], [5, 0, 0, 6]),
           "float": ([-np.inf, -0.0, 2, np.inf], [1.5, -2], [0, 1.5, 0, -2])}
    for cls, (x, src, out) in sas.items():
        ty = T[cls][0]
        cmp = "direction=GE" + (", type=UNSIGNED" if cls == "pred" else "")
        add("ops/select-and-scatter.golden", case(
            "%s_disjoint_windows" % cls,
            ("HloModule sas_%s\n\nge {\n  a = T[] parameter(0)\n  b = T[] parameter(1)\n"
             "  ROOT c = pred[] compare(a, b), %s\n}\n\n%s\n"
             "ENTRY main {\n  x = T[4] parameter(0)\n  s = T[2] parameter(1)\n"
             "  z = T[] constant(%s)\n"
             "  ROOT r = T[4] select-and-scatter(x, s, z), window={size=2 stride=2}, "
             "select=ge, scatter=sum\n}" % (cls, cmp, reducer(ty, cls),
                                           scal(ty, T[cls][1](0)))).replace("T[", ty + "["),
            args=[lit(ty, np.array(x, T[cls][1])), lit(ty, np.array(src, T[cls][1]))],
            expect=lit(ty, np.array(out, T[cls][1])),
            prov=hand("seed 001 SelectAndScatter: GE selects the first maximum "
                      "of each window (ties keep the earlier element); the "
                      "source value is added to init 0 there")))
    ty = "c64"
    add("ops/select-and-scatter.golden", case(
        "complex_select_by_real_part",
        "HloModule sas_c\n\nge {\n  a = c64[] parameter(0)\n  b = c64[] parameter(1)\n"
        "  ra = f32[] real(a)\n  rb = f32[] real(b)\n"
        "  ROOT c = pred[] compare(ra, rb), direction=GE\n}\n\n%s\n"
        "ENTRY main {\n  x = c64[4] parameter(0)\n  s = c64[2] parameter(1)\n"
        "  z = c64[] constant((0, 0))\n"
        "  ROOT r = c64[4] select-and-scatter(x, s, z), window={size=2 stride=2}, "
        "select=ge, scatter=sum\n}" % reducer("c64", "complex"),
        args=["c64[4]{0} {(1, 9), (2, 0), (5, 0), (-1, 100)}",
              "c64[2]{0} {(1, 1), (0, -2)}"],
        expect="c64[4]{0} {(0, 0), (1, 1), (0, -2), (0, 0)}",
        prov=hand("the select computation compares real parts")))
    add("ops/select-and-scatter.golden", case(
        "seed_overlapping_windows",
        "HloModule sas_seed\n\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n%s\n"
        "ENTRY main {\n  x = f32[3] parameter(0)\n  s = f32[2] parameter(1)\n"
        "  z = f32[] constant(0)\n"
        "  ROOT r = f32[3] select-and-scatter(x, s, z), window={size=2 stride=1}, "
        "select=ge, scatter=sum\n}" % reducer("f32", "float"),
        args=["f32[3]{0} {1, 9, 2}", "f32[2]{0} {2, 6}"],
        expect="f32[3]{0} {0, 8, 0}",
        prov="seed example 001 SelectAndScatter (figure: overlapping windows "
             "select 9 twice, 2 + 6 = 8; data chosen to match)"))
    # dot per class.
    dots = {"signed": ([[2147483647, 1]], [[1], [1]], [[-2147483648]]),
            "unsigned": ([[4294967295, 2]], [[2], [3]], [[4]]),
            "complex": ([[1 + 1j, 2]], [[1 - 1j], [1j]], [[2 + 2j]]),
            "float": ([[np.inf, 1]], [[0], [1]], [[np.nan]])}
    notes = {"signed": "INT_MAX + 1 wraps to INT_MIN",
             "unsigned": "2 (2^32 - 1) + 6 = 4 mod 2^32",
             "complex": "(1+i)(1-i) + 2i = 2 + 2i",
             "float": "inf * 0 = nan"}
    for cls, (l, r_, o) in dots.items():
        ty, dt = T[cls]
        add("ops/dot.golden", case(
            "%s_1x2_by_2x1" % cls,
            simple("dot_%s" % cls, ["%s[1,2]" % ty, "%s[2,1]" % ty], "%s[1,1]" % ty,
                   "dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}", 0, 0),
            args=[lit(ty, np.array(l, dt)), lit(ty, np.array(r_, dt))],
            expect=lit(ty, np.array(o, dt)), prov=hand(notes[cls])))
    add("ops/dot.golden", case(
        "f32_zero_size_contraction",
        simple("dot_z", ["f32[2,0]", "f32[0,3]"], "f32[2,3]",
               "dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}", 0, 0),
        args=["f32[2,0]{1,0} {{}, {}}", "f32[0,3]{1,0} {}"],
        expect="f32[2,3]{1,0} {{0, 0, 0}, {0, 0, 0}}",
        prov=hand("an empty sum is +0")))
    add("ops/dot.golden", case(
        "f32_vector_to_rank0",
        simple("dot_v", ["f32[3]", "f32[3]"], "f32[]",
               "dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}", 0, 0),
        args=["f32[3]{0} {1, -2, 0.5}", "f32[3]{0} {4, 0.25, -8}"],
        expect="f32[] -0.5", prov=hand("4 - 0.5 - 4 = -0.5 (every step exact)")))
    # scatter (add at duplicate-free indices) per class.
    sc = {"pred": ([False, False, True], [True, False], [True, False, True]),
          "unsigned": ([4294967295, 5, 6], [1, 2], [0, 7, 6]),
          "float": ([1, -0.0, 3], [np.inf, -0.0], [np.inf, -0.0, 3]),
          "complex": ([1j, 0, 1], [1, 2j], [1 + 1j, 2j, 1])}
    for cls, (x, u, o) in sc.items():
        ty, dt = T[cls]
        add("ops/scatter.golden", case(
            "%s_add_two_rows" % cls,
            ("HloModule scatter_%s\n\n%s\nENTRY main {\n  x = T[3] parameter(0)\n"
             "  i = s32[2,1] parameter(1)\n  u = T[2] parameter(2)\n"
             "  ROOT s = T[3] scatter(x, i, u), update_window_dims={}, "
             "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
             "index_vector_dim=1, to_apply=sum\n}" % (cls, reducer(ty, cls))).replace("T[", ty + "["),
            args=[lit(ty, np.array(x, dt)), "s32[2,1]{1,0} {{0}, {1}}",
                  lit(ty, np.array(u, dt))],
            expect=lit(ty, np.array(o, dt)),
            prov=hand("x[0] += u[0], x[1] += u[1] (or for pred; u32 wraps; "
                      "-0 + -0 = -0)")))
    add("errors/select-and-scatter.golden", case(
        "source_shape_wrong",
        "HloModule e\n\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
        "  ROOT c = pred[] compare(a, b), direction=GE\n}\n\n%s\n"
        "ENTRY main {\n  x = f32[4] parameter(0)\n  s = f32[2] parameter(1)\n"
        "  z = f32[] constant(0)\n"
        "  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=2 stride=2}, "
        "select=sum, scatter=sum\n}" % reducer("f32", "float"),
        error="select-and-scatter.C4",
        prov=hand("seed 001 SelectAndScatter: select returns PRED")))


def structure_cases():
    """One case per accepted class for the data-movement ops of seed 001:
    a = sample a, b = sample b (corner values of the class)."""
    for cls, (ty, dt) in T.items():
        a, b = samples(cls)
        A, B = lit(ty, a), lit(ty, b)
        v = "%s[2]" % ty
        def one(op, out, inst, args, exp, note, params=(v,)):
            add("ops/%s.golden" % op, case(
                "%s_classes_%s" % (cls, op.replace("-", "_")),
                simple("%s_%s" % (op.replace("-", "_"), cls), list(params), out,
                       inst, 0, 0),
                args=args, expect=exp, cls=cls,
                prov=hand(note)))
        one("broadcast", "%s[2,2]" % ty, "broadcast(p0), dimensions={1}", [A],
            lit(ty, np.stack([a, a])), "seed 001 BroadcastInDim: rows repeat the operand")
        one("reshape", "%s[1,2]" % ty, "reshape(p0)", [A], lit(ty, a.reshape(1, 2)),
            "seed 001 Reshape keeps row-major order")
        one("transpose", "%s[2,1]" % ty, "transpose(p0), dimensions={1,0}",
            [lit(ty, a.reshape(1, 2))], lit(ty, a.reshape(2, 1)),
            "seed 001 Transpose", params=("%s[1,2]" % ty,))
        one("reverse", v, "reverse(p0), dimensions={0}", [A], lit(ty, a[::-1]),
            "seed 001 Rev")
        one("slice", "%s[1]" % ty, "slice(p0), slice={[1:2]}", [A], lit(ty, a[1:]),
            "seed 001 Slice")
        one("concatenate", "%s[4]" % ty, "concatenate(p0, p1), dimensions={0}",
            [A, B], lit(ty, np.concatenate([a, b])), "seed 001 Concatenate",
            params=(v, v))
        one("pad", "%s[4]" % ty, "pad(p0, p1), padding=1_0_1",
            [A, lit(ty, b[0])], lit(ty, np.array([b[0], a[0], b[0], a[1]], dt)),
            "seed 001 Pad: low 1, interior 1 with the padding value b[0]",
            params=(v, "%s[]" % ty))
        one("dynamic-slice", "%s[1]" % ty, "dynamic-slice(p0, p1), dynamic_slice_sizes={1}",
            [A, "s32[] 5"], lit(ty, a[1:]),
            "seed 001 DynamicSlice: start 5 clamps to 2 - 1 = 1",
            params=(v, "s32[]"))
        one("dynamic-update-slice", v, "dynamic-update-slice(p0, p1, p2)",
            [A, lit(ty, b[:1]), "s32[] -3"], lit(ty, np.array([b[0], a[1]], dt)),
            "seed 001 DynamicUpdateSlice: start -3 clamps to 0",
            params=(v, "%s[1]" % ty, "s32[]"))
        one("gather", v, "gather(p0, p1), offset_dims={}, collapsed_slice_dims={0}, "
            "start_index_map={0}, index_vector_dim=1, slice_sizes={1}",
            [A, "s32[2,1]{1,0} {{1}, {0}}"], lit(ty, a[::-1]),
            "seed 001 Gather: one element per index row", params=(v, "s32[2,1]"))
        one("select", v, "select(p0, p1, p2)",
            ["pred[2]{0} {true, false}", A, B], lit(ty, np.array([a[0], b[1]], dt)),
            "seed 001 Select", params=("pred[2]", v, v))
        one("get-dimension-size", "s32[]", "get-dimension-size(p0), dimensions={0}",
            [A], "s32[] 2", "seed 001 GetDimensionSize of a static size")
        if cls != "pred":
            zero = np.zeros(4, dt)
            io = np.arange(4).astype(dt)
            add("ops/iota.golden", case(
                "%s_classes_iota" % cls,
                "HloModule iota_%s\n\nENTRY main {\n  ROOT r = %s[4] iota(), iota_dimension=0\n}"
                % (cls, ty), expect=lit(ty, io),
                prov=hand("seed 001 Iota: 0, 1, 2, 3 in the element type")))
        red = combine(cls, np.array([a[0]]), np.array([a[1]]))
        add("ops/reduce.golden", case(
            "%s_classes_reduce" % cls,
            "HloModule red_%s\n\n%s\nENTRY main {\n  x = %s parameter(0)\n"
            "  z = %s[] parameter(1)\n  ROOT r = %s[] reduce(x, z), dimensions={0}, to_apply=sum\n}"
            % (cls, reducer(ty, cls), v, ty, ty),
            args=[A, lit(ty, np.zeros((), dt))], expect=lit(ty, red[0]), cls=cls,
            prov=hand("seed 001 Reduce: init 0 (false) + a0 + a1, integer sums "
                      "wrap, inf + -0 = inf")))
        add("ops/reduce-window.golden", case(
            "%s_classes_reduce_window" % cls,
            "HloModule rw_%s\n\n%s\nENTRY main {\n  x = %s parameter(0)\n"
            "  z = %s[] parameter(1)\n  ROOT r = %s[1] reduce-window(x, z), window={size=2}, to_apply=sum\n}"
            % (cls, reducer(ty, cls), v, ty, ty),
            args=[A, lit(ty, np.zeros((), dt))], expect=lit(ty, red), cls=cls,
            prov=hand("seed 001 ReduceWindow: one window of size 2")))
        if cls == "complex":
            cmp = ("  ra = f32[] real(a)\n  rb = f32[] real(b)\n"
                   "  ROOT c = pred[] compare(ra, rb), direction=LT\n")
            srt = np.array(sorted(a, key=lambda z: z.real), dt)
        else:
            cmp = "  ROOT c = pred[] compare(a, b), direction=LT\n"
            srt = np.sort(a)
        add("ops/sort.golden", case(
            "%s_classes_sort" % cls,
            "HloModule sort_%s\n\nlt {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n%s}\n\n"
            "ENTRY main {\n  x = %s parameter(0)\n"
            "  ROOT r = %s sort(x), dimensions={0}, is_stable=true, to_apply=lt\n}"
            % (cls, ty, ty, cmp, v, v),
            args=[A], expect=lit(ty, srt), cls=cls,
            prov=hand("seed 001 Sort ascending by the comparator (complex: by "
                      "real part; pred: false < true)")))


def small_gap_cases():
    add("ops/dot.golden", case(
        "pred_or_of_ands",
        simple("dot_pred", ["pred[2,2]", "pred[2,1]"], "pred[2,1]",
               "dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}", 0, 0),
        args=["pred[2,2]{1,0} {{true, false}, {false, true}}",
              "pred[2,1]{1,0} {{true}, {false}}"],
        expect="pred[2,1]{1,0} {{true}, {false}}",
        prov=hand("pred dot: sum = or, product = and: row 0 (t&t)|(f&f), "
                  "row 1 (f&t)|(t&f)")))
    add("ops/clamp.golden", case(
        "pred_bounds",
        simple("clamp_pred", ["pred[3]", "pred[3]", "pred[3]"], "pred[3]",
               "clamp(p0, p1, p2)", 0, 0),
        args=["pred[3]{0} {false, true, false}", "pred[3]{0} {true, false, false}",
              "pred[3]{0} {true, true, false}"],
        expect="pred[3]{0} {true, true, false}",
        prov=hand("seed 001 Clamp: min(max(x, lo), hi) with false < true")))
    add("ops/conditional.golden", case(
        "s32_index_middle_of_three",
        "HloModule cond3\n\nb0 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n\n"
        "b1 {\n  p = f32[] parameter(0)\n  ROOT a = f32[] add(p, p)\n}\n\n"
        "b2 {\n  p = f32[] parameter(0)\n  ROOT c = f32[] copy(p)\n}\n\n"
        "ENTRY main {\n  i = s32[] parameter(0)\n  x = f32[] parameter(1)\n"
        "  ROOT r = f32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}\n}",
        args=["s32[] 1", "f32[] 1.5"], expect="f32[] 3",
        prov=hand("seed 001 Conditional: branch 1 doubles 1.5")))
    add("ops/batch-norm-training.golden", case(
        "f32_two_rows_var4",
        simple("bnt2", ["f32[2,1]", "f32[1]", "f32[1]"], "(f32[2,1], f32[1], f32[1])",
               "batch-norm-training(p0, p1, p2), epsilon=0, feature_index=1", 0, 0),
        args=["f32[2,1]{1,0} {{-1}, {3}}", "f32[1]{0} {1}", "f32[1]{0} {0}"],
        expect="(f32[2,1], f32[1], f32[1]) ({{-1}, {1}}, {1}, {4})",
        prov=hand("mean 1, biased variance ((-2)^2 + 2^2)/2 = 4, (x-1)/2")))


def main():
    generic_classes()
    collectives()
    rng_cases()
    linalg_cases()
    fft_bn_conv_cases()
    conv_sas_dot_scatter_cases()
    structure_cases()
    small_gap_cases()
    for rel, texts in OUT.items():
        path = os.path.join(ROOT, rel)
        old = open(path).read() if os.path.exists(path) else (
            "# Golden cases for `%s`. Format: golden/README.md.\n"
            % os.path.basename(rel)[:-7] if rel.startswith("ops/") else
            "# Ill-formed modules using `%s` and the rule the verifier must "
            "report.\n" % os.path.basename(rel)[:-7])
        old = re.sub(r"\n# >>> class_cases.py.*# <<< class_cases.py\n", "\n",
                     old, flags=re.S)
        block = ("\n# >>> class_cases.py (generated by golden/tools/"
                 "class_cases.py; edit there)\n\n" + "\n".join(texts) +
                 "\n# <<< class_cases.py\n")
        with open(path, "w") as f:
            f.write(old.rstrip("\n") + "\n" + block)
    print("wrote", sum(len(t) for t in OUT.values()), "cases in",
          len(OUT), "files")


if __name__ == "__main__":
    main()
