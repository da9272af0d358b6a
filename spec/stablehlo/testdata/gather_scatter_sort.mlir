// gather, scatter (add) and sort (two operands) in the generic form JAX
// prints. Expected by hand: rows 2 and 0; 2+... scatter adds 1+3 at index
// 1 and 2 at index 3; keys 3,1,2 sorted carry values 10,20,30.
// ARG: f32[3,2] {{1, 2}, {3, 4}, {5, 6}}
// EXPECT: f32[2,2] {{5, 6}, {1, 2}}
// EXPECT: f32[4] {0, 4, 0, 2}
// EXPECT: s32[3] {1, 2, 3}
// EXPECT: s32[3] {20, 30, 10}
module @gather_scatter_sort {
  func.func public @main(%t: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>) {
    %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
    %0 = "stablehlo.gather"(%t, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
    %z = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %si = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
    %u = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
    %1 = "stablehlo.scatter"(%z, %si, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<4xf32>
    %k = stablehlo.constant dense<[3, 1, 2]> : tensor<3xi32>
    %v = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
    %2:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>, %r: tensor<i32>, %s: tensor<i32>):
      %lt = stablehlo.compare  LT, %p, %q,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
    return %0, %1, %2#0, %2#1 : tensor<2x2xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>
  }
}
