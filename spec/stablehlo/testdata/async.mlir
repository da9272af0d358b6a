// mhlo.async_start / async_update / async_done as XLA's HLO -> StableHLO
// conversion prints HLO's async-start (a called computation, the bundle
// typed !mhlo.async_bundle) and copy-start / copy-done (a bundle of
// (T, T, u32[]) calling a function of one copy). By hand: and(x, x) = x,
// copy(x) = x.
// ARG: pred[2] {1, 0}
// EXPECT: pred[2] {1, 0}
// EXPECT: pred[2] {1, 0}
module @async_pred {
  func.func private @wrapped(%arg0: tensor<2xi1> loc("p")) -> tensor<2xi1> attributes {execution_thread = "main"} {
    %0 = stablehlo.and %arg0, %arg0 : tensor<2xi1> loc(#loc2)
    return %0 : tensor<2xi1> loc(#loc)
  } loc(#loc)
  func.func private @copy_(%arg0: tensor<2xi1> loc("s")) -> tensor<2xi1> attributes {execution_thread = "main"} {
    %0 = mhlo.copy %arg0 : tensor<2xi1> loc(#loc1)
    return %0 : tensor<2xi1> loc(#loc1)
  } loc(#loc1)
  func.func @main(%arg0: tensor<2xi1> loc("x")) -> (tensor<2xi1>, tensor<2xi1>) {
    %0 = "mhlo.async_start"(%arg0) <{called_computation = @wrapped, execution_thread = "main"}> {xla_shape = "((pred[2]{0}), pred[2]{0}, s32[])"} : (tensor<2xi1>) -> !mhlo.async_bundle<tuple<tensor<2xi1>>, tensor<2xi1>, tensor<i32>> loc(#loc4)
    %1 = "mhlo.async_update"(%0) {called_computation = @wrapped, execution_thread = "main", xla_shape = "((pred[2]{0}), pred[2]{0}, s32[])"} : (!mhlo.async_bundle<tuple<tensor<2xi1>>, tensor<2xi1>, tensor<i32>>) -> !mhlo.async_bundle<tuple<tensor<2xi1>>, tensor<2xi1>, tensor<i32>> loc(#loc5)
    %2 = "mhlo.async_done"(%1) {called_computation = @wrapped, execution_thread = "main"} : (!mhlo.async_bundle<tuple<tensor<2xi1>>, tensor<2xi1>, tensor<i32>>) -> tensor<2xi1> loc(#loc6)
    %3 = "mhlo.async_start"(%arg0) <{called_computation = @copy_, execution_thread = "main"}> {xla_shape = "(pred[2]{0}, pred[2]{0}, u32[])"} : (tensor<2xi1>) -> !mhlo.async_bundle<tensor<2xi1>, tensor<2xi1>, tensor<ui32>> loc(#loc1)
    %4 = "mhlo.async_done"(%3) {called_computation = @copy_, execution_thread = "main"} : (!mhlo.async_bundle<tensor<2xi1>, tensor<2xi1>, tensor<ui32>>) -> tensor<2xi1> loc(#loc3)
    return %2, %4 : tensor<2xi1>, tensor<2xi1> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("c")
#loc2 = loc("r")
#loc3 = loc("d")
#loc4 = loc("s")
#loc5 = loc("u")
#loc6 = loc("d2")
