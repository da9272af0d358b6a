// hloref's own file in StableHLO's test-data format: @main calls @inputs
// and @expected and checks with custom_call @check.expect_close. Expected
// values by hand (|x|; sqrt(2) as f32 is 1.41421354).
module @abs_close {
  func.func public @main() -> tensor<4xf32> {
    %0 = call @inputs() : () -> tensor<4xf32>
    %1 = call @expected() : () -> tensor<4xf32>
    %2 = stablehlo.abs %0 : tensor<4xf32>
    %3 = stablehlo.multiply %2, %2 : tensor<4xf32>
    %4 = stablehlo.sqrt %3 : tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%4, %1) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    return %4 : tensor<4xf32>
  }
  func.func private @inputs() -> (tensor<4xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[-1.500000e+00, 0.000000e+00, 1.41421354, -3.000000e+00]> : tensor<4xf32>
    return %cst : tensor<4xf32>
  }
  func.func private @expected() -> (tensor<4xf32> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<[1.500000e+00, 0.000000e+00, 1.41421354, 3.000000e+00]> : tensor<4xf32>
    return %cst : tensor<4xf32>
  }
}
