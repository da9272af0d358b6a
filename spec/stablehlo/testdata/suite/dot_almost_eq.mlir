// hloref's own file: check.expect_almost_eq_const (absolute 1e-3). By hand:
// [1 2; 3 4] x [0.1; 0.2] = [0.5; 1.1] (f32 rounding is far below 1e-3).
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[[0.1], [0.2]]> : tensor<2x1xf32>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  check.expect_almost_eq_const %0, dense<[[0.5], [1.1]]> : tensor<2x1xf32>
  func.return
}
