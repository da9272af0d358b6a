#!/usr/bin/env python3
"""High-precision references for interpreter/enclosure_test.cc (mpmath, 80
significant digits; independent of the oracle). Run with any python3 that
has mpmath and paste the printed constants into the test:

    python3 interpreter/testdata/enclosure_refs.py
"""
import mpmath

mpmath.mp.dps = 80


def show(name, x):
    print(f"{name} = {mpmath.nstr(x, 25)}")


# Test F32ExpWithinItsBudget: exp(1) in f32, budget 8 ulp of f32
# (compare_policy.def), ulp_f32(e) = 2^-22 (e in [2, 4)).
e = mpmath.e
show("exp1", e)
show("exp1_lo", e - 8 * mpmath.mpf(2) ** -22)
show("exp1_hi", e + 8 * mpmath.mpf(2) ** -22)

# Test Bf16ChainContainsExact: log(x*x + 1) for the bf16 inputs.
for x in ["0.5", "1.5", "-2.25", "3"]:
    v = mpmath.mpf(x)
    show(f"log(x^2+1) x={x}", mpmath.log(v * v + 1))

# Test F32SoftmaxContainsExact: softmax of {1, 2, 3, 0.5}.
xs = [mpmath.mpf(v) for v in ["1", "2", "3", "0.5"]]
m = max(xs)
ex = [mpmath.exp(v - m) for v in xs]
s = sum(ex)
for v, t in zip(xs, ex):
    show(f"softmax x={v}", t / s)

# Test PowerAndTan: 1.5^(1.5 + 1) and tan(1).
show("pow(1.5, 2.5)", mpmath.mpf("1.5") ** mpmath.mpf("2.5"))
show("tan(1)", mpmath.tan(1))
