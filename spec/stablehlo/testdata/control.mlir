// while (its regions use %n and %scale from outside), if and case (generic
// forms, out-of-range index runs the last branch), call of a private
// function. Expected by hand: acc = 2 * (0 + 1 + 2 + 3) = 12.
// ARG: s32[] 4
// ARG: s32[] 2
// EXPECT: s32[] 4
// EXPECT: s32[] 12
// EXPECT: s32[] 12
// EXPECT: s32[] 20
// EXPECT: s32[] 30
// EXPECT: s32[] 8
module @control {
  func.func public @main(%n: tensor<i32>, %scale: tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c0, %iterArg_0 = %c0) : tensor<i32>, tensor<i32>
    cond {
      %lt = stablehlo.compare  LT, %iterArg, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %iterArg, %c1 : tensor<i32>
      %t = stablehlo.multiply %iterArg, %scale : tensor<i32>
      %acc = stablehlo.add %iterArg_0, %t : tensor<i32>
      stablehlo.return %next, %acc : tensor<i32>, tensor<i32>
    }
    %p = stablehlo.compare  GT, %0#0, %c0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = "stablehlo.if"(%p) ({
      stablehlo.return %0#1 : tensor<i32>
    }, {
      stablehlo.return %c0 : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %c7 = stablehlo.constant dense<7> : tensor<i32>
    %2 = "stablehlo.case"(%c1) ({
      %k = stablehlo.constant dense<10> : tensor<i32>
      stablehlo.return %k : tensor<i32>
    }, {
      %k = stablehlo.constant dense<20> : tensor<i32>
      stablehlo.return %k : tensor<i32>
    }, {
      %k = stablehlo.constant dense<30> : tensor<i32>
      stablehlo.return %k : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %3 = "stablehlo.case"(%c7) ({
      %k = stablehlo.constant dense<10> : tensor<i32>
      stablehlo.return %k : tensor<i32>
    }, {
      %k = stablehlo.constant dense<30> : tensor<i32>
      stablehlo.return %k : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %4 = func.call @double(%n) : (tensor<i32>) -> tensor<i32>
    return %0#0, %0#1, %1, %2, %3, %4 : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  }
  func.func private @double(%x: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.add %x, %x : tensor<i32>
    return %0 : tensor<i32>
  }
}
