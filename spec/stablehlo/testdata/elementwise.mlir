// Element-wise ops in their pretty forms. Expected values derived by hand.
// ARG: f32[4] {1, -2, 3, 4}
// ARG: f32[4] {2, 5, -1, 0.5}
// ARG: s32[4] {12, -7, 5, 0}
// EXPECT: f32[4] {3, 3, 2, 4.5}
// EXPECT: f32[4] {-1, -7, 4, 3.5}
// EXPECT: f32[4] {2, -10, -3, 2}
// EXPECT: f32[4] {0.5, -0.4, -3, 8}
// EXPECT: f32[4] {2, 5, 3, 4}
// EXPECT: f32[4] {-1, 2, -3, -4}
// EXPECT: f32[4] {2, 5, 3, 4}
// EXPECT: f32[4] {1, 0, 2.5, 2.5}
// EXPECT: s32[4] {12, 7, 5, 0}
// EXPECT: s32[4] {96, -56, 40, 0}
// EXPECT: s32[4] {0, -1, 2, 0}
// EXPECT: s32[4] {1, -2, 3, 4}
// EXPECT: pred[4] {0, 0, 1, 1}
module @elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<4xf32>, %arg2: tensor<4xi32>) -> (tensor<4xf32> {jax.result_info = "[0]"}, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
    %5 = stablehlo.negate %arg0 : tensor<4xf32>
    %6 = stablehlo.abs %arg2 : tensor<4xi32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.shift_left %arg2, %7 : tensor<4xi32>
    %9 = stablehlo.remainder %arg2, %7 : tensor<4xi32>
    %10 = stablehlo.compare  GT, %arg0, %arg1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %11 = stablehlo.select %10, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %12 = stablehlo.clamp %cst, %arg0, %cst_0 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    return %0, %1, %2, %3, %4, %5, %11, %12, %6, %8, %9, %13, %10 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>
  }
}
