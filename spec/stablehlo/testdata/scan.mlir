// mhlo.scan in the pretty form XLA's HLO -> StableHLO conversion prints
// for HLO's scan (`mhlo.scan(%x) inits (%c) dimension=0 attributes {...}
// { ^bb0(...): ... } : (...) -> (...)`): a running sum from 10, forward
// and reverse. By hand: forward 10+1, +2, +3, +4 = 11, 13, 16, 20 (carry
// 20); reverse from the end 10+4, +3, +2, +1 = 14, 17, 19, 20, stored at
// positions 3, 2, 1, 0 (carry 20).
// ARG: s32[4] {1, 2, 3, 4}
// ARG: s32[] 10
// EXPECT: s32[4] {11, 13, 16, 20}
// EXPECT: s32[] 20
// EXPECT: s32[4] {20, 19, 17, 14}
// EXPECT: s32[] 20
module @scan attributes {mhlo.cross_program_prefetches = [], mhlo.is_dynamic = false} {
  func.func @main(%arg0: tensor<4xi32> loc("x"), %arg1: tensor<i32> loc("z")) -> (tensor<4xi32>, tensor<i32>, tensor<4xi32>, tensor<i32>) {
    %0:2 = mhlo.scan(%arg0) inits (%arg1) dimension=0  attributes {is_associative = false, is_reverse = false} {
    ^bb0(%input: tensor<i32> loc("r"), %carry: tensor<i32> loc("r")):
      %2 = stablehlo.add %input, %carry : tensor<i32> loc(#loc3)
      mhlo.return %2, %2 : tensor<i32>, tensor<i32> loc(#loc)
    } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>) loc(#loc3)
    %1:2 = mhlo.scan(%arg0) inits (%arg1) dimension=0  attributes {is_associative = false, is_reverse = true} {
    ^bb0(%input: tensor<i32>, %carry: tensor<i32>):
      %2 = stablehlo.add %input, %carry : tensor<i32>
      mhlo.return %2, %2 : tensor<i32>, tensor<i32>
    } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
    return %0#0, %0#1, %1#0, %1#1 : tensor<4xi32>, tensor<i32>, tensor<4xi32>, tensor<i32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc("a")
