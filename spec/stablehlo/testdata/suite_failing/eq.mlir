// A deliberately wrong expected value (copied from ../suite/ and changed):
// `hloref conformance --suite=stablehlo:` must report this file as a failure.
func.func @main() {
  %a = stablehlo.constant dense<[1, 2, 127]> : tensor<3xi8>
  %b = stablehlo.constant dense<[10, -20, 1]> : tensor<3xi8>
  %0 = stablehlo.add %a, %b : tensor<3xi8>
  %want = stablehlo.constant dense<[11, -18, 127]> : tensor<3xi8>
  check.expect_eq %0, %want : tensor<3xi8>
  %p = stablehlo.compare LT, %a, %b, SIGNED : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi1>
  check.expect_eq_const %p, dense<[true, false, false]> : tensor<3xi1>
  func.return
}
