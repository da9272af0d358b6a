// dot_general (pretty form, with and without batching; generic form with
// #stablehlo.dot) and convolution (compact dim_numbers form). Expected
// values by hand: 2x2 window sums of 1..9 are 12, 16, 24, 28.
// ARG: f32[2,3] {{1, 2, 3}, {4, 5, 6}}
// ARG: f32[3,2] {{1, 0}, {0, 1}, {1, 1}}
// ARG: f32[2,1,2] {{{1, 2}}, {{3, 4}}}
// ARG: f32[2,2,1] {{{5}, {6}}, {{7}, {8}}}
// ARG: f32[1,3,3,1] {{{{1}, {2}, {3}}, {{4}, {5}, {6}}, {{7}, {8}, {9}}}}
// EXPECT: f32[2,2] {{4, 5}, {10, 11}}
// EXPECT: f32[2,1,1] {{{17}}, {{53}}}
// EXPECT: f32[2,1,1] {{{17}}, {{53}}}
// EXPECT: f32[1,2,2,1] {{{{12}, {16}}, {{24}, {28}}}}
module @dot_conv {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %a3: tensor<2x1x2xf32>, %b3: tensor<2x2x1xf32>, %x: tensor<1x3x3x1xf32>) -> (tensor<2x2xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<1x2x2x1xf32>) {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.dot_general %a3, %b3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
    %2 = "stablehlo.dot_general"(%a3, %b3) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}> : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<2x2x1x1xf32>
    %3 = stablehlo.convolution(%x, %one) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
    return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>, tensor<1x2x2x1xf32>
  }
}
