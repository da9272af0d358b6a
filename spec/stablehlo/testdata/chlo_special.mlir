// The chlo ops of special functions as JAX lowers them (jax 0.10.2,
// `jax.jit(f).lower(...).as_text()` of lax.lgamma, digamma, erf_inv,
// bessel_i1e, zeta, polygamma and nextafter), at points whose values hold
// by definition: lgamma = +inf at the poles 0, -0 and at +-inf; digamma:
// NaN at the poles, +inf at +inf, NaN at -inf; erf_inv(+-1) = +-inf,
// erf_inv(+-0) = +-0; i1e(+-0) = +-0 and i1e(+-inf) = +-0 (e^-|x| I1(x)
// -> 0); zeta(1, q) = +inf, zeta(x < 1, q) = NaN, zeta at the poles q =
// -2: +inf for even x, NaN for odd x; polygamma of n not a natural number
// is NaN; next_after: the f32 neighbour toward y (1 + 2^-23, 0.5 + 2^-24,
// 2 - 2^-22, 3 - 2^-22). Interior values: docs/stablehlo.md (scipy and
// XLA:CPU comparisons).
// ARG: f32[4] {0, -0, inf, -inf}
// ARG: f32[4] {1, -1, 0, -0}
// ARG: f32[4] {1, 0.5, 2, 3}
// ARG: f32[4] {3, 3, -2, -2}
// ARG: f32[4] {0.5, -1, 1.5, -2}
// EXPECT: f32[4] {inf, inf, inf, inf}
// EXPECT: f32[4] {nan, nan, inf, nan}
// EXPECT: f32[4] {inf, -inf, 0, -0}
// EXPECT: f32[4] {0, -0, 0, -0}
// EXPECT: f32[4] {inf, nan, inf, nan}
// EXPECT: f32[4] {nan, nan, nan, nan}
// EXPECT: f32[4] {1.00000012, 0.50000006, 1.99999988, 2.99999976}
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}) {
    %0 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
    %2 = chlo.erf_inv %arg1 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
    %4 = chlo.zeta %arg2, %arg3 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %5 = chlo.polygamma %arg4, %arg3 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %6 = chlo.next_after %arg2, %arg3 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

