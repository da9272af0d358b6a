// A file whose expectation holds on XLA:CPU while XLA:CPU departs from
// the oracle: 1e-20 * 1e-20 = 1e-40 is an f32 subnormal, which XLA:CPU
// flushes to 0 (its flush-to-zero default, the deviation set xla-cpu of
// docs/numerics.md). expect_almost_eq (absolute 1e-3) accepts 0 as well
// as 1e-40; the oracle verdict (multiply: class R, correctly rounded)
// does not, unless flush-to-zero is declared (--deviations=xla-cpu or
// ftz). The optimization barrier keeps XLA from folding the product at
// compile time (without flushing). The expected values are by hand:
// 1e-40 as f32 is 9.99994610e-41 (the nearest subnormal), 3 * 3 = 9.
module @subnormal_product {
  func.func public @main() -> tensor<2xf32> {
    %0 = call @inputs() : () -> tensor<2xf32>
    %1 = call @expected() : () -> tensor<2xf32>
    %2 = stablehlo.optimization_barrier %0 : tensor<2xf32>
    %3 = stablehlo.multiply %2, %2 : tensor<2xf32>
    stablehlo.custom_call @check.expect_almost_eq(%3, %1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    return %3 : tensor<2xf32>
  }
  func.func private @inputs() -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.000000e-20, 3.000000e+00]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
  func.func private @expected() -> tensor<2xf32> {
    %cst = stablehlo.constant dense<[1.000000e-40, 9.000000e+00]> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
}
