// Runs a few golden-style modules on XLA:CPU through the command backend
// tools/backends/xla_jax.py and checks hand-derived results. Exits 77
// (CTest's SKIP_RETURN_CODE) with the reason when the python it uses
// (.venv/bin/python3, made by tools/setup.sh, else python3) cannot import
// jax, so machines without jax skip it cleanly.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/command/command_backend.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::backends {
namespace {

int failures = 0;
int passes = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
  if (ok) ++passes;
}

absl::StatusOr<std::vector<Literal>> RunModule(Backend& backend,
                                               absl::string_view text,
                                               std::vector<Literal> args) {
  auto module = ParseHloModule(text);
  HLOREF_RETURN_IF_ERROR(module.status());
  HLOREF_RETURN_IF_ERROR(VerifyModule(**module));
  HLOREF_ASSIGN_OR_RETURN(auto exe, backend.Compile(**module, {}));
  return exe->Run(args);
}

// Runs `text` and applies `check` to the results, reporting errors.
void Case(Backend& backend, const std::string& name, absl::string_view text,
          std::vector<Literal> args,
          const std::function<bool(const std::vector<Literal>&)>& check) {
  auto out = RunModule(backend, text, std::move(args));
  if (!out.ok()) {
    Check(false, name + ": " + std::string(out.status().message()));
    return;
  }
  Check(check(*out), name);
}

// The project's virtual environment (.venv/ at the repository root, made
// by tools/setup.sh with the pinned jax) when it exists, else python3.
std::string Python() {
  std::string script = HLOREF_XLA_JAX;
  const std::string suffix = "tools/backends/xla_jax.py";
  if (script.size() >= suffix.size() &&
      script.compare(script.size() - suffix.size(), suffix.size(), suffix) ==
          0) {
    std::string venv =
        script.substr(0, script.size() - suffix.size()) + ".venv/bin/python3";
    if (access(venv.c_str(), X_OK) == 0) return venv;
  }
  return "python3";
}

int Main() {
  const std::string python = Python();
  if (std::system(
          (python + " -c 'import jax, ml_dtypes' >/dev/null 2>&1").c_str()) !=
      0) {
    std::printf(
        "SKIP: %s cannot import jax and ml_dtypes; `bash tools/setup.sh` "
        "makes .venv/ with the pinned jax to run XLA:CPU through "
        "tools/backends/xla_jax.py\n",
        python.c_str());
    return 77;
  }
  std::printf("python: %s\n", python.c_str());
  auto backend = CreateCommandBackend(python + " " + HLOREF_XLA_JAX);
  if (!backend.ok()) {
    std::printf("FAIL: %s\n", std::string(backend.status().message()).c_str());
    return 1;
  }
  Backend& b = **backend;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();

  // IEEE add: inf + -inf and NaN + x are NaN; -0 + -0 is -0.
  Case(b, "f32 add with specials", R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT s = f32[4] add(a, b)
})",
       {Literal::CreateR1<float>(PrimitiveType::kF32, {1, inf, nan, -0.0f}),
        Literal::CreateR1<float>(PrimitiveType::kF32, {2, -inf, 1, -0.0f})},
       [](const std::vector<Literal>& r) {
         if (r.size() != 1) return false;
         auto v = r[0].data<float>();
         return v.size() == 4 && v[0] == 3 && std::isnan(v[1]) &&
                std::isnan(v[2]) && v[3] == 0 && std::signbit(v[3]);
       });

  // bf16 travels as a structured .npy dtype: 1.5 * 2 = 3 (0x4040),
  // -0.5 * 0.5 = -0.25 (0xbe80).
  Literal x(Shape::Array(PrimitiveType::kBF16, {2}));
  x.SetRawBits(0, 0x3fc0);  // 1.5
  x.SetRawBits(1, 0xbf00);  // -0.5
  Literal y(Shape::Array(PrimitiveType::kBF16, {2}));
  y.SetRawBits(0, 0x4000);  // 2
  y.SetRawBits(1, 0x3f00);  // 0.5
  Case(b, "bf16 multiply", R"(HloModule m
ENTRY e {
  a = bf16[2] parameter(0)
  b = bf16[2] parameter(1)
  ROOT p = bf16[2] multiply(a, b)
})",
       {x, y}, [](const std::vector<Literal>& r) {
         return r.size() == 1 && r[0].element_type() == PrimitiveType::kBF16 &&
                r[0].GetRawBits(0) == 0x4040 && r[0].GetRawBits(1) == 0xbe80;
       });

  // A tuple root comes back flattened; s32 add wraps.
  Case(b, "tuple root, s32 wrap", R"(HloModule m
ENTRY e {
  a = s32[2] parameter(0)
  one = s32[] constant(1)
  ones = s32[2] broadcast(one), dimensions={}
  s = s32[2] add(a, ones)
  n = s32[2] negate(a)
  ROOT t = (s32[2], s32[2]) tuple(s, n)
})",
       {Literal::CreateR1<int32_t>(PrimitiveType::kS32, {2147483647, -5})},
       [](const std::vector<Literal>& r) {
         return r.size() == 2 && r[0].GetAsInt64(0) == -2147483648LL &&
                r[0].GetAsInt64(1) == -4 && r[1].GetAsInt64(0) == -2147483647 &&
                r[1].GetAsInt64(1) == 5;
       });

  // dot of small integers in f32 is exact: [[1,2,3],[4,5,6]] x
  // [[1,0],[0,1],[1,1]] = [[4,5],[10,11]].
  Case(b, "f32 dot", R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
       {Literal::CreateFromValues<float>(PrimitiveType::kF32, {2, 3},
                                         {1, 2, 3, 4, 5, 6}),
        Literal::CreateFromValues<float>(PrimitiveType::kF32, {3, 2},
                                         {1, 0, 0, 1, 1, 1})},
       [](const std::vector<Literal>& r) {
         if (r.size() != 1) return false;
         auto v = r[0].data<float>();
         return v.size() == 4 && v[0] == 4 && v[1] == 5 && v[2] == 10 &&
                v[3] == 11;
       });

  // pred and a compare: 1 < 2, 2 < 2.
  Case(b, "compare to pred", R"(HloModule m
ENTRY e {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  ROOT c = pred[2] compare(a, b), direction=LT
})",
       {Literal::CreateR1<int32_t>(PrimitiveType::kS32, {1, 2}),
        Literal::CreateR1<int32_t>(PrimitiveType::kS32, {2, 2})},
       [](const std::vector<Literal>& r) {
         return r.size() == 1 && r[0].element_type() == PrimitiveType::kPred &&
                r[0].GetAsInt64(0) == 1 && r[0].GetAsInt64(1) == 0;
       });

  // A custom-call target XLA does not know: unsupported, not failed.
  auto unknown =
      RunModule(b, R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(a), custom_call_target="hloref_no_such_target"
})",
                {Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2})});
  Check(!unknown.ok() &&
            unknown.status().code() == absl::StatusCode::kUnimplemented,
        "unknown custom-call target is unsupported: " +
            std::string(unknown.status().message()));

  // A negative-zero constant reaches XLA as -0 (the command backend prints
  // `-0.0`; XLA's parser reads `-0` as +0): -0 + -0 = -0, sign bit set.
  Case(b, "negative zero constant", R"(HloModule m
ENTRY e {
  a = f32[1] parameter(0)
  z = f32[1] constant({-0})
  ROOT s = f32[1] add(a, z)
})",
       {Literal::CreateR1<float>(PrimitiveType::kF32, {-0.0f})},
       [](const std::vector<Literal>& r) {
         return r.size() == 1 && r[0].GetRawBits(0) == 0x80000000u;
       });

  // 1-bit integers become pred on the StableHLO route: refused, never a
  // pred result judged as u1.
  auto u1 =
      RunModule(b, R"(HloModule m
ENTRY e {
  a = s32[2] parameter(0)
  ROOT c = u1[2] convert(a)
})",
                {Literal::CreateR1<int32_t>(PrimitiveType::kS32, {0, 1})});
  Check(!u1.ok() && u1.status().code() == absl::StatusCode::kUnimplemented,
        "u1 result is unsupported: " + std::string(u1.status().message()));

  // XLA:CPU compiles only fusions it forms; a kInput fusion of the input
  // module is unsupported, a kLoop one runs (select(c, a, b)).
  const char* kFusion = R"(HloModule m
callee {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = pred[2] parameter(2)
  ROOT r = f32[2] select(c, a, b)
}
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = pred[2] parameter(2)
  ROOT f = f32[2] fusion(a, b, c), kind=KIND, calls=callee
})";
  auto fusion_args = [] {
    std::vector<Literal> args;
    args.push_back(Literal::CreateR1<float>(PrimitiveType::kF32, {1, 2}));
    args.push_back(Literal::CreateR1<float>(PrimitiveType::kF32, {3, 4}));
    Literal c(Shape::Array(PrimitiveType::kPred, {2}));
    c.SetRawBits(0, 1);
    c.SetRawBits(1, 0);
    args.push_back(std::move(c));
    return args;
  };
  std::string loop(kFusion), input(kFusion);
  loop.replace(loop.find("KIND"), 4, "kLoop");
  input.replace(input.find("KIND"), 4, "kInput");
  Case(b, "kLoop fusion runs", loop, fusion_args(),
       [](const std::vector<Literal>& r) {
         if (r.size() != 1) return false;
         auto v = r[0].data<float>();
         return v.size() == 2 && v[0] == 1 && v[1] == 4;
       });
  auto in = RunModule(b, input, fusion_args());
  Check(!in.ok() && in.status().code() == absl::StatusCode::kUnimplemented,
        "kInput fusion is unsupported: " + std::string(in.status().message()));

  std::printf("%d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hloref::backends

int main() { return hloref::backends::Main(); }
