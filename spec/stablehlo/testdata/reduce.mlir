// reduce (the `applies` form and the region form, variadic argmax as JAX
// prints it) and reduce_window (generic form). Expected values by hand.
// ARG: f32[2,3] {{1, 5, 3}, {4, 2, 6}}
// EXPECT: f32[2] {9, 12}
// EXPECT: f32[3] {4, 5, 6}
// EXPECT: f32[2] {5, 6}
// EXPECT: s32[2] {1, 2}
// EXPECT: f32[2,2] {{6, 8}, {6, 8}}
module @reduce {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2x2xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %ninf) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }
    %iota = stablehlo.iota dim = 1 : tensor<2x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:2 = stablehlo.reduce(%arg0 init: %ninf), (%iota init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %g = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %v = stablehlo.select %g, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %i = stablehlo.select %g, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %v, %i : tensor<f32>, tensor<i32>
    }
    %3 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
    return %0, %1, %2#0, %2#1, %3 : tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2x2xf32>
  }
}
