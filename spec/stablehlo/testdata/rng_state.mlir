// mhlo.xla.rng_get_and_update_state as XLA's HLO -> StableHLO conversion
// prints it (no signature: the state is u64[2]; the op ends at its loc).
// Each call returns the state and advances it by delta, so the second
// state minus the first is the first call's delta, 4096 (golden/ops/
// rng-get-and-update-state.golden, the same module in HLO). The order of
// the two calls is the text order (StableHLO has no control edges).
// EXPECT: u64[1] {4096}
module @rng_state_diff attributes {mhlo.cross_program_prefetches = [], mhlo.input_output_alias = [], mhlo.is_dynamic = false, mhlo.use_auto_spmd_partitioning = false} {
  func.func @main() -> tensor<1xui64> {
    %0 = mhlo.xla.rng_get_and_update_state {delta = 4096 : i64} loc(#loc1)
    %1 = mhlo.xla.rng_get_and_update_state {delta = 7 : i64} loc(#loc2)
    %2 = stablehlo.subtract %1, %0 : tensor<2xui64> loc(#loc3)
    %3 = stablehlo.slice %2 [0:1] : (tensor<2xui64>) -> tensor<1xui64> loc(#loc4)
    return %3 : tensor<1xui64> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("first")
#loc2 = loc("second")
#loc3 = loc("d")
#loc4 = loc("lo")
