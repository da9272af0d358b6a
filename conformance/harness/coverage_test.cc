// Cross-checks the coverage page's table of accepted element-type classes
// (AcceptedClasses) against the verifier: for every op a one-instruction
// module can exercise, VerifyModule must accept an operand of each class the
// table lists and reject every class it does not.
#include "conformance/harness/coverage.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_parser.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

// Module bodies; $T is the element type under test. The root is the op.
struct Template {
  const char* op;
  const char* body;
};

constexpr const char* kUnary = "p = $T[2] parameter(0)\n ROOT r = $T[2] $OP(p)";
constexpr const char* kBinary =
    "p = $T[2] parameter(0)\n ROOT r = $T[2] $OP(p, p)";

const std::vector<Template>& Templates() {
  static const auto* t = new std::vector<Template>{
      {"compare",
       "p = $T[2] parameter(0)\n"
       " ROOT r = pred[2] compare(p, p), direction=EQ"},
      {"select",
       "p = $T[2] parameter(0)\n c = pred[2] parameter(1)\n"
       " ROOT r = $T[2] select(c, p, p)"},
      {"clamp", "p = $T[2] parameter(0)\n ROOT r = $T[2] clamp(p, p, p)"},
      {"convert", kUnary},
      {"bitcast-convert", kUnary},
      {"reduce-precision",
       "p = $T[2] parameter(0)\n ROOT r = $T[2] "
       "reduce-precision(p), exponent_bits=5, "
       "mantissa_bits=10"},
      {"broadcast",
       "p = $T[2] parameter(0)\n"
       " ROOT r = $T[3,2] broadcast(p), dimensions={1}"},
      {"reshape", "p = $T[2] parameter(0)\n ROOT r = $T[2,1] reshape(p)"},
      {"transpose",
       "p = $T[2,3] parameter(0)\n"
       " ROOT r = $T[3,2] transpose(p), dimensions={1,0}"},
      {"reverse",
       "p = $T[2] parameter(0)\n"
       " ROOT r = $T[2] reverse(p), dimensions={0}"},
      {"slice",
       "p = $T[2] parameter(0)\n"
       " ROOT r = $T[1] slice(p), slice={[0:1]}"},
      {"concatenate",
       "p = $T[2] parameter(0)\n"
       " ROOT r = $T[4] concatenate(p, p), dimensions={0}"},
      {"pad",
       "p = $T[2] parameter(0)\n z = $T[] parameter(1)\n"
       " ROOT r = $T[4] pad(p, z), padding=1_1"},
      {"dynamic-slice",
       "p = $T[2] parameter(0)\n i = s32[] parameter(1)\n"
       " ROOT r = $T[1] dynamic-slice(p, i), "
       "dynamic_slice_sizes={1}"},
      {"dynamic-update-slice",
       "p = $T[2] parameter(0)\n u = $T[1] parameter(1)\n"
       " i = s32[] parameter(2)\n"
       " ROOT r = $T[2] dynamic-update-slice(p, u, i)"},
      {"get-dimension-size",
       "p = $T[2] parameter(0)\n"
       " ROOT r = s32[] get-dimension-size(p), "
       "dimensions={0}"},
      {"iota", "ROOT r = $T[4] iota(), iota_dimension=0"},
      {"dot",
       "p = $T[2,2] parameter(0)\n ROOT r = $T[2,2] dot(p, p), "
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"convolution",
       "p = $T[1,2,1] parameter(0)\n k = $T[1,1,1] "
       "parameter(1)\n ROOT r = $T[1,2,1] convolution(p, k), "
       "window={size=1}, dim_labels=b0f_0io->b0f"},
      {"cholesky",
       "p = $T[2,2] parameter(0)\n"
       " ROOT r = $T[2,2] cholesky(p), lower=true"},
      {"triangular-solve",
       "p = $T[2,2] parameter(0)\n ROOT r = $T[2,2] triangular-solve(p, p), "
       "left_side=true, lower=true, transpose_a=NO_TRANSPOSE"},
      {"fft",
       "p = $T[4] parameter(0)\n ROOT r = c64[3] fft(p), "
       "fft_type=RFFT, fft_length={4}"},
      {"fft",
       "p = $T[4] parameter(0)\n ROOT r = $T[4] fft(p), "
       "fft_type=FFT, fft_length={4}"},
      {"batch-norm-inference",
       "p = $T[2,2] parameter(0)\n v = $T[2] parameter(1)\n"
       " ROOT r = $T[2,2] batch-norm-inference(p, v, v, v, v), "
       "epsilon=0.001, feature_index=1"},
      {"batch-norm-training",
       "p = $T[2,2] parameter(0)\n v = $T[2] parameter(1)\n"
       " ROOT r = ($T[2,2], $T[2], $T[2]) batch-norm-training(p, v, v), "
       "epsilon=0.001, feature_index=1"},
      {"replica-id", "ROOT r = $T[] replica-id()"},
      {"rng-bit-generator",
       "s = $T[2] parameter(0)\n ROOT r = ($T[2], u32[4]) "
       "rng-bit-generator(s), algorithm=rng_default"},
  };
  return *t;
}

// Representative element types of each class, in TypeClassBit order; a
// class is accepted when any of its types is.
const std::vector<std::vector<const char*>> kTypes = {{"pred"},
                                                      {"s8", "s32", "s64"},
                                                      {"u8", "u32", "u64"},
                                                      {"f16", "f32", "f64"},
                                                      {"c64", "c128"}};

// OK when the verifier accepts the module; otherwise its message.
absl::Status Accepts(const std::string& op, const std::string& body,
                     const char* type) {
  std::string text = absl::StrCat(
      "HloModule m\n\nENTRY e {\n ",
      absl::StrReplaceAll(body, {{"$T", type}, {"$OP", op}}), "\n}\n");
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  // VerifyModule rather than InferShape alone: it also checks the written
  // result shape (module.C10), which is how replica-id rejects s32[].
  return VerifyModule(**module);
}

void CheckOp(const std::string& op, const std::vector<std::string>& bodies) {
  const unsigned table = AcceptedClasses(op);
  unsigned verifier = 0;
  std::string rejections;
  for (size_t cls = 0; cls < kTypes.size(); ++cls) {
    for (const char* type : kTypes[cls]) {
      for (const std::string& body : bodies) {
        absl::Status s = Accepts(op, body, type);
        if (s.ok()) {
          verifier |= 1u << cls;
        } else {
          absl::StrAppend(&rejections, "\n  ", type, ": ", s.message());
        }
      }
    }
  }
  EXPECT_EQ(table, verifier)
      << op << ": table has classes 0x" << std::hex << table
      << ", the verifier accepts 0x" << verifier << rejections;
}

TEST(AcceptedClasses, ElementwiseOpsMatchTheVerifier) {
  const char* unary[] = {"abs",
                         "cbrt",
                         "ceil",
                         "cosine",
                         "count-leading-zeros",
                         "erf",
                         "exponential",
                         "exponential-minus-one",
                         "floor",
                         "imag",
                         "is-finite",
                         "log",
                         "log-plus-one",
                         "logistic",
                         "negate",
                         "not",
                         "popcnt",
                         "real",
                         "round-nearest-afz",
                         "round-nearest-even",
                         "rsqrt",
                         "sign",
                         "sine",
                         "sqrt",
                         "tan",
                         "tanh",
                         "acos",
                         "sinh"};
  // abs/real/imag of complex give the component type, is-finite pred.
  const std::vector<std::string> unary_bodies = {
      kUnary, "p = $T[2] parameter(0)\n ROOT r = f32[2] $OP(p)",
      "p = $T[2] parameter(0)\n ROOT r = f64[2] $OP(p)",
      "p = $T[2] parameter(0)\n ROOT r = pred[2] $OP(p)"};
  for (const char* op : unary) CheckOp(op, unary_bodies);
  const char* binary[] = {"add",
                          "and",
                          "atan2",
                          "divide",
                          "maximum",
                          "minimum",
                          "multiply",
                          "or",
                          "power",
                          "remainder",
                          "shift-left",
                          "shift-right-arithmetic",
                          "shift-right-logical",
                          "subtract",
                          "xor",
                          "mulhi"};
  for (const char* op : binary) CheckOp(op, {kBinary});
  // complex takes real operands and makes a complex result.
  CheckOp("complex",
          {"p = $T[2] parameter(0)\n ROOT r = c64[2] complex(p, p)"});
}

TEST(AcceptedClasses, OtherOpsMatchTheVerifier) {
  std::vector<std::string> ops;
  for (const Template& t : Templates()) {
    if (ops.empty() || ops.back() != t.op) ops.push_back(t.op);
  }
  for (const std::string& op : ops) {
    std::vector<std::string> bodies;
    for (const Template& t : Templates()) {
      if (op == t.op) bodies.push_back(t.body);
    }
    CheckOp(op, bodies);
  }
}

TEST(AcceptedClasses, UnknownOpAndSeedMembership) {
  EXPECT_EQ(AcceptedClasses("no-such-op"), 0u);
  EXPECT_TRUE(IsSeed001Op("dot"));
  EXPECT_TRUE(IsSeed001Op("rng-bit-generator"));
  EXPECT_FALSE(IsSeed001Op("acos"));
  EXPECT_FALSE(IsSeed001Op("fusion"));
}

}  // namespace
}  // namespace hloref::conformance
