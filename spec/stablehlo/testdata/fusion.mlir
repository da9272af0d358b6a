// mhlo.fusion as XLA's HLO -> StableHLO conversion prints HLO's fusion
// (the fused computation as a region, fusion_kind, output_operand_aliasing).
// By hand: x * x + y = 1 + 10, 4 + 20, 9 - 3.
// ARG: f32[3] {1, -2, 3}
// ARG: f32[3] {10, 20, -3}
// EXPECT: f32[3] {11, 24, 6}
module @fusion {
  func.func @main(%x: tensor<3xf32> loc("x"), %y: tensor<3xf32> loc("y")) -> tensor<3xf32> {
    %0 = "mhlo.fusion"(%x, %y) <{fusion_kind = #mhlo<fusion_kind kLoop>}> ({
    ^bb0(%a: tensor<3xf32> loc("f"), %b: tensor<3xf32> loc("f")):
      %1 = stablehlo.multiply %a, %a : tensor<3xf32> loc(#loc2)
      %2 = stablehlo.add %1, %b : tensor<3xf32> loc(#loc2)
      mhlo.return %2 : tensor<3xf32> loc(#loc)
    }) {output_operand_aliasing = []} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc(#loc2)
    return %0 : tensor<3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("r")
