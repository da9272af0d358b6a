#!/usr/bin/env python3
"""Writes the HLO text of one decoding step of a decoder-only transformer
in XLA's dump style (issue 16's oracle benchmarks): a while loop over the
layers carrying the stacked weights and a bf16 KV cache, which every layer
updates with dynamic-update-slice at the current position; RMS-free
layer norm, multi-head attention over the cache with a causal mask,
a SiLU MLP, bf16 weights and activations fed to f32-accumulating dots,
and the logits against the (tied) embedding.

Parameters: tok s32[], pos s32[], embed bf16[V,D], wqkv bf16[L,D,3D],
wo bf16[L,D,D], w1 bf16[L,D,F], w2 bf16[L,F,D], ln1 f32[L,D],
ln2 f32[L,D], lnf f32[D], cache bf16[L,2,T,D]. Result: (logits f32[1,V],
cache bf16[L,2,T,D]).

Usage: gen_decoder.py --layers L --model D --heads H --ffn F --vocab V
                      --context T [-o OUT.hlo]
  small (checked in as decode_step.hlo): 4 256 4 1024 4096 256
  1B-class (Llama 3.2 1B widths, no GQA): 16 2048 32 8192 128256 1024
"""
import argparse
import sys


def generate(L, D, H, F, V, T):
    hd = D // H
    assert hd * H == D
    out = []
    w = out.append
    state = (f"(s32[], s32[], f32[1,{D}], bf16[{L},{D},{3*D}], "
             f"bf16[{L},{D},{D}], bf16[{L},{D},{F}], bf16[{L},{F},{D}], "
             f"f32[{L},{D}], f32[{L},{D}], bf16[{L},2,{T},{D}])")
    w(f"HloModule decode_step_L{L}_D{D}, entry_computation_layout="
      f"{{(s32[], s32[], bf16[{V},{D}]{{1,0}}, bf16[{L},{D},{3*D}]{{2,1,0}}, "
      f"bf16[{L},{D},{D}]{{2,1,0}}, bf16[{L},{D},{F}]{{2,1,0}}, "
      f"bf16[{L},{F},{D}]{{2,1,0}}, f32[{L},{D}]{{1,0}}, f32[{L},{D}]{{1,0}}, "
      f"f32[{D}]{{0}}, bf16[{L},2,{T},{D}]{{3,2,1,0}})->(f32[1,{V}]{{1,0}}, "
      f"bf16[{L},2,{T},{D}]{{3,2,1,0}})}}\n")
    w("%region_add.1 (a.1: f32[], b.1: f32[]) -> f32[] {\n"
      "  %a.1 = f32[] parameter(0)\n  %b.1 = f32[] parameter(1)\n"
      "  ROOT %add.1 = f32[] add(f32[] %a.1, f32[] %b.1)\n}\n\n")
    w("%region_max.2 (a.2: f32[], b.2: f32[]) -> f32[] {\n"
      "  %a.2 = f32[] parameter(0)\n  %b.2 = f32[] parameter(1)\n"
      "  ROOT %maximum.2 = f32[] maximum(f32[] %a.2, f32[] %b.2)\n}\n\n")

    def layer_norm(p, x, scale_1d, n):
        # y = (x - mean) * rsqrt(var + 1e-5) * scale, over the last dim.
        return [
            f"  %{p}zero = f32[] constant(0)",
            f"  %{p}sum = f32[1]{{0}} reduce(f32[1,{n}]{{1,0}} %{x}, f32[] %{p}zero), dimensions={{1}}, to_apply=%region_add.1",
            f"  %{p}n = f32[] constant({n})",
            f"  %{p}nb = f32[1]{{0}} broadcast(f32[] %{p}n), dimensions={{}}",
            f"  %{p}mean = f32[1]{{0}} divide(f32[1]{{0}} %{p}sum, f32[1]{{0}} %{p}nb)",
            f"  %{p}meanb = f32[1,{n}]{{1,0}} broadcast(f32[1]{{0}} %{p}mean), dimensions={{0}}",
            f"  %{p}xc = f32[1,{n}]{{1,0}} subtract(f32[1,{n}]{{1,0}} %{x}, f32[1,{n}]{{1,0}} %{p}meanb)",
            f"  %{p}sq = f32[1,{n}]{{1,0}} multiply(f32[1,{n}]{{1,0}} %{p}xc, f32[1,{n}]{{1,0}} %{p}xc)",
            f"  %{p}sqs = f32[1]{{0}} reduce(f32[1,{n}]{{1,0}} %{p}sq, f32[] %{p}zero), dimensions={{1}}, to_apply=%region_add.1",
            f"  %{p}var = f32[1]{{0}} divide(f32[1]{{0}} %{p}sqs, f32[1]{{0}} %{p}nb)",
            f"  %{p}eps = f32[] constant(1e-05)",
            f"  %{p}epsb = f32[1]{{0}} broadcast(f32[] %{p}eps), dimensions={{}}",
            f"  %{p}ve = f32[1]{{0}} add(f32[1]{{0}} %{p}var, f32[1]{{0}} %{p}epsb)",
            f"  %{p}rs = f32[1]{{0}} rsqrt(f32[1]{{0}} %{p}ve)",
            f"  %{p}rsb = f32[1,{n}]{{1,0}} broadcast(f32[1]{{0}} %{p}rs), dimensions={{0}}",
            f"  %{p}xn = f32[1,{n}]{{1,0}} multiply(f32[1,{n}]{{1,0}} %{p}xc, f32[1,{n}]{{1,0}} %{p}rsb)",
            f"  %{p}sb = f32[1,{n}]{{1,0}} broadcast(f32[{n}]{{0}} %{scale_1d}), dimensions={{1}}",
            f"  %{p}y = f32[1,{n}]{{1,0}} multiply(f32[1,{n}]{{1,0}} %{p}xn, f32[1,{n}]{{1,0}} %{p}sb)",
        ], f"{p}y"

    # ---- condition
    w(f"%cond.3 (p.3: {state}) -> pred[] {{\n"
      f"  %p.3 = {state} parameter(0)\n"
      f"  %i.3 = s32[] get-tuple-element({state} %p.3), index=0\n"
      f"  %n.3 = s32[] constant({L})\n"
      f"  ROOT %lt.3 = pred[] compare(s32[] %i.3, s32[] %n.3), direction=LT\n}}\n\n")
    # ---- body: one layer
    b = []
    a = b.append
    a(f"%body.4 (p.4: {state}) -> {state} {{")
    a(f"  %p.4 = {state} parameter(0)")
    names = ["i", "pos", "x", "wqkv", "wo", "w1", "w2", "ln1", "ln2", "cache"]
    shapes = ["s32[]", "s32[]", f"f32[1,{D}]{{1,0}}", f"bf16[{L},{D},{3*D}]{{2,1,0}}",
              f"bf16[{L},{D},{D}]{{2,1,0}}", f"bf16[{L},{D},{F}]{{2,1,0}}",
              f"bf16[{L},{F},{D}]{{2,1,0}}", f"f32[{L},{D}]{{1,0}}",
              f"f32[{L},{D}]{{1,0}}", f"bf16[{L},2,{T},{D}]{{3,2,1,0}}"]
    for k, (nm, sh) in enumerate(zip(names, shapes)):
        a(f"  %{nm} = {sh} get-tuple-element({state} %p.4), index={k}")
    a("  %z = s32[] constant(0)")
    a("  %one = s32[] constant(1)")

    def layer_slice(nm, dims):
        full = ",".join(str(d) for d in dims)
        lay = ",".join(str(i) for i in range(len(dims), -1, -1))
        sizes = ",".join(["1"] + [str(d) for d in dims])
        idx = ", ".join(["s32[] %i"] + ["s32[] %z"] * len(dims))
        ty = "f32" if nm.startswith("ln") else "bf16"
        a(f"  %{nm}.s = {ty}[1,{full}]{{{lay}}} dynamic-slice({ty}[{L},{full}] %{nm}, {idx}), dynamic_slice_sizes={{{sizes}}}")
        lay2 = ",".join(str(i) for i in range(len(dims) - 1, -1, -1))
        a(f"  %{nm}.l = {ty}[{full}]{{{lay2}}} reshape({ty}[1,{full}] %{nm}.s)")

    layer_slice("wqkv", [D, 3 * D])
    layer_slice("wo", [D, D])
    layer_slice("w1", [D, F])
    layer_slice("w2", [F, D])
    layer_slice("ln1", [D])
    layer_slice("ln2", [D])
    lines, h = layer_norm("n1.", "x", "ln1.l", D)
    b.extend(lines)
    a(f"  %hb = bf16[1,{D}]{{1,0}} convert(f32[1,{D}]{{1,0}} %{h})")
    a(f"  %qkv = f32[1,{3*D}]{{1,0}} dot(bf16[1,{D}]{{1,0}} %hb, bf16[{D},{3*D}]{{1,0}} %wqkv.l), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
    for nm, lo in (("q", 0), ("k", D), ("v", 2 * D)):
        a(f"  %{nm} = f32[1,{D}]{{1,0}} slice(f32[1,{3*D}]{{1,0}} %qkv), slice={{[0:1], [{lo}:{lo + D}]}}")
    for nm, j in (("k", 0), ("v", 1)):
        a(f"  %{nm}b = bf16[1,{D}]{{1,0}} convert(f32[1,{D}]{{1,0}} %{nm})")
        a(f"  %{nm}r = bf16[1,1,1,{D}]{{3,2,1,0}} reshape(bf16[1,{D}]{{1,0}} %{nm}b)")
    a("  %c1 = s32[] constant(1)")
    a(f"  %cache1 = bf16[{L},2,{T},{D}]{{3,2,1,0}} dynamic-update-slice(bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache, bf16[1,1,1,{D}]{{3,2,1,0}} %kr, s32[] %i, s32[] %z, s32[] %pos, s32[] %z)")
    a(f"  %cache2 = bf16[{L},2,{T},{D}]{{3,2,1,0}} dynamic-update-slice(bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache1, bf16[1,1,1,{D}]{{3,2,1,0}} %vr, s32[] %i, s32[] %c1, s32[] %pos, s32[] %z)")
    for nm, j in (("K", "z"), ("V", "c1")):
        a(f"  %{nm}s = bf16[1,1,{T},{D}]{{3,2,1,0}} dynamic-slice(bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache2, s32[] %i, s32[] %{j}, s32[] %z, s32[] %z), dynamic_slice_sizes={{1,1,{T},{D}}}")
        a(f"  %{nm}h = bf16[{T},{H},{hd}]{{2,1,0}} reshape(bf16[1,1,{T},{D}]{{3,2,1,0}} %{nm}s)")
    a(f"  %qh = f32[{H},{hd}]{{1,0}} reshape(f32[1,{D}]{{1,0}} %q)")
    a(f"  %qhb = bf16[{H},{hd}]{{1,0}} convert(f32[{H},{hd}]{{1,0}} %qh)")
    a(f"  %scores = f32[{H},{T}]{{1,0}} dot(bf16[{H},{hd}]{{1,0}} %qhb, bf16[{T},{H},{hd}]{{2,1,0}} %Kh), lhs_batch_dims={{0}}, lhs_contracting_dims={{1}}, rhs_batch_dims={{1}}, rhs_contracting_dims={{2}}")
    a(f"  %scale = f32[] constant({1.0 / hd ** 0.5!r})")
    a(f"  %scaleb = f32[{H},{T}]{{1,0}} broadcast(f32[] %scale), dimensions={{}}")
    a(f"  %ss = f32[{H},{T}]{{1,0}} multiply(f32[{H},{T}]{{1,0}} %scores, f32[{H},{T}]{{1,0}} %scaleb)")
    a(f"  %iota = s32[{H},{T}]{{1,0}} iota(), iota_dimension=1")
    a(f"  %posb = s32[{H},{T}]{{1,0}} broadcast(s32[] %pos), dimensions={{}}")
    a(f"  %mask = pred[{H},{T}]{{1,0}} compare(s32[{H},{T}]{{1,0}} %iota, s32[{H},{T}]{{1,0}} %posb), direction=LE")
    a("  %ninf = f32[] constant(-inf)")
    a(f"  %ninfb = f32[{H},{T}]{{1,0}} broadcast(f32[] %ninf), dimensions={{}}")
    a(f"  %sm = f32[{H},{T}]{{1,0}} select(pred[{H},{T}]{{1,0}} %mask, f32[{H},{T}]{{1,0}} %ss, f32[{H},{T}]{{1,0}} %ninfb)")
    a(f"  %mx = f32[{H}]{{0}} reduce(f32[{H},{T}]{{1,0}} %sm, f32[] %ninf), dimensions={{1}}, to_apply=%region_max.2")
    a(f"  %mxb = f32[{H},{T}]{{1,0}} broadcast(f32[{H}]{{0}} %mx), dimensions={{0}}")
    a(f"  %sh = f32[{H},{T}]{{1,0}} subtract(f32[{H},{T}]{{1,0}} %sm, f32[{H},{T}]{{1,0}} %mxb)")
    a(f"  %ex = f32[{H},{T}]{{1,0}} exponential(f32[{H},{T}]{{1,0}} %sh)")
    a("  %z0 = f32[] constant(0)")
    a(f"  %den = f32[{H}]{{0}} reduce(f32[{H},{T}]{{1,0}} %ex, f32[] %z0), dimensions={{1}}, to_apply=%region_add.1")
    a(f"  %denb = f32[{H},{T}]{{1,0}} broadcast(f32[{H}]{{0}} %den), dimensions={{0}}")
    a(f"  %pr = f32[{H},{T}]{{1,0}} divide(f32[{H},{T}]{{1,0}} %ex, f32[{H},{T}]{{1,0}} %denb)")
    a(f"  %prb = bf16[{H},{T}]{{1,0}} convert(f32[{H},{T}]{{1,0}} %pr)")
    a(f"  %ctx = f32[{H},{hd}]{{1,0}} dot(bf16[{H},{T}]{{1,0}} %prb, bf16[{T},{H},{hd}]{{2,1,0}} %Vh), lhs_batch_dims={{0}}, lhs_contracting_dims={{1}}, rhs_batch_dims={{1}}, rhs_contracting_dims={{0}}")
    a(f"  %ctxr = f32[1,{D}]{{1,0}} reshape(f32[{H},{hd}]{{1,0}} %ctx)")
    a(f"  %ctxb = bf16[1,{D}]{{1,0}} convert(f32[1,{D}]{{1,0}} %ctxr)")
    a(f"  %attn = f32[1,{D}]{{1,0}} dot(bf16[1,{D}]{{1,0}} %ctxb, bf16[{D},{D}]{{1,0}} %wo.l), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
    a(f"  %x1 = f32[1,{D}]{{1,0}} add(f32[1,{D}]{{1,0}} %x, f32[1,{D}]{{1,0}} %attn)")
    lines, h2 = layer_norm("n2.", "x1", "ln2.l", D)
    b.extend(lines)
    a(f"  %h2b = bf16[1,{D}]{{1,0}} convert(f32[1,{D}]{{1,0}} %{h2})")
    a(f"  %up = f32[1,{F}]{{1,0}} dot(bf16[1,{D}]{{1,0}} %h2b, bf16[{D},{F}]{{1,0}} %w1.l), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
    a(f"  %sg = f32[1,{F}]{{1,0}} logistic(f32[1,{F}]{{1,0}} %up)")
    a(f"  %act = f32[1,{F}]{{1,0}} multiply(f32[1,{F}]{{1,0}} %up, f32[1,{F}]{{1,0}} %sg)")
    a(f"  %actb = bf16[1,{F}]{{1,0}} convert(f32[1,{F}]{{1,0}} %act)")
    a(f"  %down = f32[1,{D}]{{1,0}} dot(bf16[1,{F}]{{1,0}} %actb, bf16[{F},{D}]{{1,0}} %w2.l), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
    a(f"  %x2 = f32[1,{D}]{{1,0}} add(f32[1,{D}]{{1,0}} %x1, f32[1,{D}]{{1,0}} %down)")
    a("  %i1 = s32[] add(s32[] %i, s32[] %one)")
    a(f"  ROOT %t.4 = {state} tuple(s32[] %i1, s32[] %pos, f32[1,{D}]{{1,0}} %x2, "
      f"bf16[{L},{D},{3*D}]{{2,1,0}} %wqkv, bf16[{L},{D},{D}]{{2,1,0}} %wo, "
      f"bf16[{L},{D},{F}]{{2,1,0}} %w1, bf16[{L},{F},{D}]{{2,1,0}} %w2, "
      f"f32[{L},{D}]{{1,0}} %ln1, f32[{L},{D}]{{1,0}} %ln2, "
      f"bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache2)")
    a("}\n")
    w("\n".join(b) + "\n")
    # ---- entry
    e = []
    a = e.append
    a("ENTRY %main.5 {")
    a("  %tok = s32[] parameter(0)")
    a("  %pos.5 = s32[] parameter(1)")
    a(f"  %embed = bf16[{V},{D}]{{1,0}} parameter(2)")
    a(f"  %wqkv.5 = bf16[{L},{D},{3*D}]{{2,1,0}} parameter(3)")
    a(f"  %wo.5 = bf16[{L},{D},{D}]{{2,1,0}} parameter(4)")
    a(f"  %w1.5 = bf16[{L},{D},{F}]{{2,1,0}} parameter(5)")
    a(f"  %w2.5 = bf16[{L},{F},{D}]{{2,1,0}} parameter(6)")
    a(f"  %ln1.5 = f32[{L},{D}]{{1,0}} parameter(7)")
    a(f"  %ln2.5 = f32[{L},{D}]{{1,0}} parameter(8)")
    a(f"  %lnf = f32[{D}]{{0}} parameter(9)")
    a(f"  %cache.5 = bf16[{L},2,{T},{D}]{{3,2,1,0}} parameter(10)")
    a("  %z.5 = s32[] constant(0)")
    a(f"  %row = bf16[1,{D}]{{1,0}} dynamic-slice(bf16[{V},{D}]{{1,0}} %embed, s32[] %tok, s32[] %z.5), dynamic_slice_sizes={{1,{D}}}")
    a(f"  %x0 = f32[1,{D}]{{1,0}} convert(bf16[1,{D}]{{1,0}} %row)")
    a(f"  %init = {state} tuple(s32[] %z.5, s32[] %pos.5, f32[1,{D}]{{1,0}} %x0, "
      f"bf16[{L},{D},{3*D}]{{2,1,0}} %wqkv.5, bf16[{L},{D},{D}]{{2,1,0}} %wo.5, "
      f"bf16[{L},{D},{F}]{{2,1,0}} %w1.5, bf16[{L},{F},{D}]{{2,1,0}} %w2.5, "
      f"f32[{L},{D}]{{1,0}} %ln1.5, f32[{L},{D}]{{1,0}} %ln2.5, "
      f"bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache.5)")
    a(f"  %loop = {state} while({state} %init), condition=%cond.3, body=%body.4")
    a(f"  %xf = f32[1,{D}]{{1,0}} get-tuple-element({state} %loop), index=2")
    a(f"  %cache.out = bf16[{L},2,{T},{D}]{{3,2,1,0}} get-tuple-element({state} %loop), index=9")
    lines, hf = layer_norm("nf.", "xf", "lnf", D)
    e.extend(lines)
    a(f"  %hfb = bf16[1,{D}]{{1,0}} convert(f32[1,{D}]{{1,0}} %{hf})")
    a(f"  %logits = f32[1,{V}]{{1,0}} dot(bf16[1,{D}]{{1,0}} %hfb, bf16[{V},{D}]{{1,0}} %embed), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}")
    a(f"  ROOT %out = (f32[1,{V}]{{1,0}}, bf16[{L},2,{T},{D}]{{3,2,1,0}}) tuple(f32[1,{V}]{{1,0}} %logits, bf16[{L},2,{T},{D}]{{3,2,1,0}} %cache.out)")
    a("}")
    w("\n".join(e) + "\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("-o", "--out")
    a = ap.parse_args()
    text = generate(a.layers, a.model, a.heads, a.ffn, a.vocab, a.context)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
