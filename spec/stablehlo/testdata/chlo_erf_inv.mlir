// chlo.erf_inv (as jax.random.normal and jax.scipy.special.erfinv emit it)
// at points whose value is exact by definition: erf_inv(0) = 0,
// erf_inv(+-1) = +-inf, erf_inv(-0) = -0; bf16 goes
// through the f32 polynomial. (Interior values agree with XLA:CPU within
// 2 ulp, docs/stablehlo.md.)
// ARG: f32[4] {0, 1, -1, -0}
// EXPECT: f32[4] {0, inf, -inf, -0}
// EXPECT: bf16[2] {inf, 0}
module @erf_inv {
  func.func public @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xbf16>) {
    %0 = chlo.erf_inv %x : tensor<4xf32> -> tensor<4xf32>
    %b = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xbf16>
    %1 = chlo.erf_inv %b : tensor<2xbf16> -> tensor<2xbf16>
    return %0, %1 : tensor<4xf32>, tensor<2xbf16>
  }
}
