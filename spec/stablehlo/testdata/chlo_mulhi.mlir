// chlo.mulhi: the high N bits of the 2N-bit product, HLO's mulhi. By
// hand: 2^30 * 4 = 2^32 -> 1; -1 * 1 = -1 -> the high word of 64-bit -1
// is -1; 3 * 5 = 15 -> 0; (2^32 - 1)^2 = 2^64 - 2^33 + 1 -> 2^32 - 2 =
// 4294967294; 2^31 * 2 = 2^32 -> 1.
// ARG: s32[3] {1073741824, -1, 3}
// ARG: s32[3] {4, 1, 5}
// ARG: u32[2] {4294967295, 2147483648}
// ARG: u32[2] {4294967295, 2}
// EXPECT: s32[3] {1, -1, 0}
// EXPECT: u32[2] {4294967294, 1}
module @mulhi {
  func.func public @main(%a: tensor<3xi32>, %b: tensor<3xi32>, %c: tensor<2xui32>, %d: tensor<2xui32>) -> (tensor<3xi32>, tensor<2xui32>) {
    %0 = chlo.mulhi %a, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
    %1 = "chlo.mulhi"(%c, %d) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    return %0, %1 : tensor<3xi32>, tensor<2xui32>
  }
}
