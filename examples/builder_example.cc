// The builder example of the README: builds y = a * x + b with implicit
// broadcasting (scalar a, row vector b added with broadcast_dimensions={1}),
// prints the HLO it lowers to and runs it on the reference interpreter.
#include <cstdio>

#include "interpreter/evaluator.h"
#include "spec/builder/builder.h"
#include "spec/ir/hlo_printer.h"

int main() {
  using namespace hloref;  // NOLINT: an example program
  Builder b("axpb");
  XlaOp a = Parameter(&b, 0, Shape::Scalar(PrimitiveType::kF32), "a");
  XlaOp x = Parameter(&b, 1, Shape(PrimitiveType::kF32, {2, 3}), "x");
  XlaOp bias = ConstantR1<float>(&b, {10, 20, 30});
  Add(Mul(a, x), bias, /*broadcast_dimensions=*/{1});
  absl::StatusOr<std::unique_ptr<HloModule>> module = b.Build();
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", module.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", PrintModule(**module).c_str());

  Literal a_value = Literal::CreateR0<float>(PrimitiveType::kF32, 2);
  Literal x_value = Literal::CreateFromValues<float>(
      PrimitiveType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Evaluator evaluator;
  absl::StatusOr<Literal> result =
      evaluator.Evaluate(**module, {a_value, x_value});
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", result->ToString().c_str());
  // 2 * {{1,2,3},{4,5,6}} + {10,20,30} = {{12,24,36},{18,30,42}}.
  const float expected[] = {12, 24, 36, 18, 30, 42};
  for (int i = 0; i < 6; ++i) {
    if (result->GetAsDouble(i) != expected[i]) {
      std::fprintf(stderr, "element %d is %g, expected %g\n", i,
                   result->GetAsDouble(i), expected[i]);
      return 1;
    }
  }
  return 0;
}
