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

# Test Atan2RemainderReducePrecisionMap: atan2(1, 2) (f32, budget 4 ulp,
# ulp_f32 in [0.25, 0.5) = 2^-25) and atan2(1 + 2^-23, 2) (the upper end
# of the enclosure of the f32 sum 1 + 2^-30), atan2(-1, -2).
show("atan2(1, 2)", mpmath.atan2(1, 2))
show("atan2(1 + 2^-23, 2)", mpmath.atan2(1 + mpmath.mpf(2) ** -23, 2))
show("atan2(-1, -2)", mpmath.atan2(-1, -2))
# Test ReduceMultiply: prod(1.1f, 1.3f, 0.7f, 1.9f) of the f32 values and
# the bound gamma_4(2^-24) |P| (f32: 4 roundings, the init 1 included).
import struct


def f32(v):
    return mpmath.mpf(struct.unpack("f", struct.pack("f", float(v)))[0])


fs = [f32(v) for v in ["1.1", "1.3", "0.7", "1.9"]]
p = fs[0] * fs[1] * fs[2] * fs[3]
u = mpmath.mpf(2) ** -24
g = 4 * u / (1 - 4 * u)
show("prod", p)
show("prod_lo", p - g * p)
show("prod_hi", p + g * p)

# Test BatchNormTrainingStatisticsAndOutput: x = 1, 2, 3, 4 (one feature),
# scale 1, offset 0, epsilon 0: mean 2.5, variance 1.25 (1/N), outputs
# (x - 2.5) / sqrt(1.25); with Bessel's variance 5/3 (a wrong result).
for x in [1, 2, 3, 4]:
    d = x - mpmath.mpf("2.5")
    show(f"bn x={x}", d / mpmath.sqrt(mpmath.mpf("1.25")))
    show(f"bn bessel x={x}", d / mpmath.sqrt(mpmath.mpf(5) / 3))

# Test BatchNormGradByHand: x = 1, 2, 3, 4, mean 2.5, variance 1.25,
# scale 1, epsilon 0, dy = 1, 0, 0, 0: r = 1/sqrt(1.25), grad_offset 1,
# grad_scale -1.5 r, grad_operand (r / 4)(4 dy - sum dy - (x - mu) r^2
# sum dy (x - mu)) = r (0.3, -0.4, -0.1, 0.2).
r = 1 / mpmath.sqrt(mpmath.mpf("1.25"))
show("bn grad_scale", -mpmath.mpf("1.5") * r)
xs = [1, 2, 3, 4]
dy = [1, 0, 0, 0]
sdy = sum(dy)
sdyx = sum(d * (x - mpmath.mpf("2.5")) for d, x in zip(dy, xs))
for x, d in zip(xs, dy):
    show(f"bn grad_operand x={x}",
         r / 4 * (4 * d - sdy - (x - mpmath.mpf("2.5")) * r * r * sdyx))

# Test ReduceWindowMultiplyOfPositiveData: window products of adjacent
# pairs of the f32 values of 1.1, 1.3, 0.7, 1.9.
for i in range(3):
    show(f"window product {i}", fs[i] * fs[i + 1])
