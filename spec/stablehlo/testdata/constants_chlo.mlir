// Constants (hex blob: 1.0f is bytes 00 00 80 3F, 2.0f is 00 00 00 40;
// hex element 0x7F800000 is +inf; bf16 0x3FC0 is 1.5; splats; bool;
// complex) and chlo ops (broadcast_add, top_k, erf(0) = 0, atan(0) = 0),
// with location info. Expected values by hand.
// EXPECT: f32[2] {1, 2}
// EXPECT: f32[2] {inf, -1.5}
// EXPECT: pred[2] {1, 0}
// EXPECT: c64[2] {(1, -2), (1, -2)}
// EXPECT: u8[2,2] {{1, 2}, {3, 4}}
// EXPECT: bf16[] 1.5
// EXPECT: f32[2,3] {{11, 22, 33}, {14, 25, 36}}
// EXPECT: f32[2] {5, 4}
// EXPECT: s32[2] {4, 2}
// EXPECT: f32[1] {0}
// EXPECT: f32[1] {0}
#loc1 = loc("x.py":3:4)
module @constants_chlo attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xcomplex<f32>>, tensor<2x2xui8>, tensor<bf16>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1xf32>, tensor<1xf32>) {
    %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32> loc(#loc1)
    %1 = stablehlo.constant dense<[0x7F800000, -1.500000e+00]> : tensor<2xf32> loc("y.py":1:1)
    %2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %3 = stablehlo.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<2xcomplex<f32>>
    %4 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui8>
    %5 = stablehlo.constant dense<0x3FC0> : tensor<bf16>
    %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %b = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
    %6 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %v = stablehlo.constant dense<[3.0, 1.0, 4.0, 1.0, 5.0]> : tensor<5xf32>
    %values, %indices = chlo.top_k(%v, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi32>)
    %z = stablehlo.constant dense<0.0> : tensor<1xf32>
    %7 = chlo.erf %z : tensor<1xf32> -> tensor<1xf32>
    %8 = chlo.atan %z : tensor<1xf32> -> tensor<1xf32>
    return %0, %1, %2, %3, %4, %5, %6, %values, %indices, %7, %8 : tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xcomplex<f32>>, tensor<2x2xui8>, tensor<bf16>, tensor<2x3xf32>, tensor<2xf32>, tensor<2xi32>, tensor<1xf32>, tensor<1xf32>
  } loc(#loc1)
} loc(#loc1)
