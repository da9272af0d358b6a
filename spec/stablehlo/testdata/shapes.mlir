// Data movement ops in their pretty forms. Expected values derived by hand
// (dynamic_slice / dynamic_update_slice clamp their start indices).
// ARG: f32[2,3] {{1, 2, 3}, {4, 5, 6}}
// EXPECT: f32[3,2] {{1, 2}, {3, 4}, {5, 6}}
// EXPECT: f32[3,2] {{1, 4}, {2, 5}, {3, 6}}
// EXPECT: f32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{1, 2, 3}, {4, 5, 6}}}
// EXPECT: f32[2,6] {{1, 2, 3, 1, 2, 3}, {4, 5, 6, 4, 5, 6}}
// EXPECT: f32[2,2] {{2, 3}, {5, 6}}
// EXPECT: f32[2,2] {{1, 3}, {4, 6}}
// EXPECT: f32[3,6] {{0, 1, 0, 2, 0, 3}, {0, 4, 0, 5, 0, 6}, {0, 0, 0, 0, 0, 0}}
// EXPECT: s32[2,3] {{0, 1, 2}, {0, 1, 2}}
// EXPECT: f32[2,3] {{3, 2, 1}, {6, 5, 4}}
// EXPECT: f32[1,2] {{5, 6}}
// EXPECT: f32[2,3] {{1, 9, 8}, {4, 5, 6}}
module @shapes {
  func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x6xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
    %3 = stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
    %4 = stablehlo.slice %arg0 [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %5 = stablehlo.slice %arg0 [0:2:1, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.pad %arg0, %cst, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
    %7 = stablehlo.iota dim = 1 : tensor<2x3xi32>
    %8 = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %9 = stablehlo.dynamic_slice %arg0, %c1, %c5, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
    %upd = stablehlo.constant dense<[[9.000000e+00, 8.000000e+00]]> : tensor<1x2xf32>
    %10 = stablehlo.dynamic_update_slice %arg0, %upd, %c0, %c2 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<2x6xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<3x6xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>
  }
}
