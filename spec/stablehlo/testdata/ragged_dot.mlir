// ragged_dot in the two forms a reader meets: chlo.ragged_dot (the
// dimension numbers listed) and mhlo.ragged_dot as XLA's HLO -> StableHLO
// conversion prints it (a nested #mhlo.dot). Rows 0-1 of lhs form group 0
// (rhs[0] = [[1], [1]]), row 2 group 1 (rhs[1] = [[10], [100]]); by hand:
// 1 + 2 = 3, 3 + 4 = 7, 5 * 10 + 6 * 100 = 650.
// ARG: f32[3,2] {{1, 2}, {3, 4}, {5, 6}}
// ARG: f32[2,2,1] {{{1}, {1}}, {{10}, {100}}}
// ARG: s64[2] {2, 1}
// EXPECT: f32[3,1] {{3}, {7}, {650}}
// EXPECT: f32[3,1] {{3}, {7}, {650}}
module @ragged {
  func.func public @main(%lhs: tensor<3x2xf32>, %rhs: tensor<2x2x1xf32>, %groups: tensor<2xi64>) -> (tensor<3x1xf32>, tensor<3x1xf32>) {
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %groups) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<3x2xf32>, tensor<2x2x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
    %1 = "mhlo.ragged_dot"(%lhs, %rhs, %groups) <{precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision DEFAULT>], ragged_dot_dimension_numbers = #mhlo.ragged_dot<dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<3x2xf32>, tensor<2x2x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
    return %0, %1 : tensor<3x1xf32>, tensor<3x1xf32>
  }
}
