// hloref's own file in StableHLO's interpret-test style: check ops of the
// check dialect (expect_eq between values, expect_eq_const with a dense
// attribute). Expected values by hand, including s8 wrap-around.
func.func @main() {
  %a = stablehlo.constant dense<[1, 2, 127]> : tensor<3xi8>
  %b = stablehlo.constant dense<[10, -20, 1]> : tensor<3xi8>
  %0 = stablehlo.add %a, %b : tensor<3xi8>
  %want = stablehlo.constant dense<[11, -18, -128]> : tensor<3xi8>
  check.expect_eq %0, %want : tensor<3xi8>
  %p = stablehlo.compare LT, %a, %b, SIGNED : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi1>
  check.expect_eq_const %p, dense<[true, false, false]> : tensor<3xi1>
  func.return
}
