// A deliberately wrong expected value (copied from ../suite/ and changed):
// `hloref conformance --suite=stablehlo:` must report this file as a failure.
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[0.1], [0.2]]> : tensor<2x1xf32>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %0, dense<[[0.5], [1.102]]> : tensor<2x1xf32>
  func.return
}
