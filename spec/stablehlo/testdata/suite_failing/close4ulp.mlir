// A deliberately wrong expected value (copied from ../suite/ and changed):
// `hloref conformance --suite=stablehlo:` must report this file as a failure.
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
    %cst = stablehlo.constant dense<[1.500000e+00, 0.000000e+00, 1.41421413, 3.000000e+00]> : tensor<4xf32>
    return %cst : tensor<4xf32>
  }
}
