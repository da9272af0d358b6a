// Shape-taking ops whose result type is static (as shape-polymorphic
// exports specialise to): dynamic_reshape, dynamic_broadcast_in_dim and
// dynamic_iota are reshape, broadcast and iota. By hand: x = {{1, 2, 3},
// {4, 5, 6}} reshaped row-major to 3x2; v = {7, 8} broadcast along
// dimension 0 of 2x3; iota along dimension 1 of 2x3.
// ARG: s32[2,3] {{1, 2, 3}, {4, 5, 6}}
// ARG: s32[2] {7, 8}
// EXPECT: s32[3,2] {{1, 2}, {3, 4}, {5, 6}}
// EXPECT: s32[2,3] {{7, 7, 7}, {8, 8, 8}}
// EXPECT: s32[2,3] {{0, 1, 2}, {0, 1, 2}}
module @dynamic_static {
  func.func public @main(%x: tensor<2x3xi32>, %v: tensor<2xi32>) -> (tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
    %s = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
    %t = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %0 = stablehlo.dynamic_reshape %x, %s : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<3x2xi32>
    %1 = stablehlo.dynamic_broadcast_in_dim %v, %t, dims = [0] : (tensor<2xi32>, tensor<2xi64>) -> tensor<2x3xi32>
    %2 = stablehlo.dynamic_iota %t, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
    return %0, %1, %2 : tensor<3x2xi32>, tensor<2x3xi32>, tensor<2x3xi32>
  }
}
