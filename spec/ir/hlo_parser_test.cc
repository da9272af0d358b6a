// Tests of the HLO text reader: every opcode round-trips, realistic dumps
// are printed to a fixed point with their key fields read correctly,
// malformed text gives located errors, and mutated text never crashes.
#include "spec/ir/hlo_parser.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spec/ir/hlo_printer.h"

namespace hloref {
namespace {

// Whether this build runs under AddressSanitizer (g++ defines
// __SANITIZE_ADDRESS__, clang has __has_feature): timing bounds scale.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

using ::testing::HasSubstr;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(HLOREF_IR_TESTDATA) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> TestdataFiles() {
  std::vector<std::string> names;
  for (const auto& e :
       std::filesystem::directory_iterator(HLOREF_IR_TESTDATA)) {
    if (e.path().extension() == ".hlo") {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<HloModule> MustParse(absl::string_view text) {
  auto m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  return std::move(*m);
}

const HloInstruction* Find(const HloModule& m, absl::string_view comp,
                           absl::string_view inst) {
  const HloComputation* c = m.FindComputation(comp);
  if (c == nullptr) return nullptr;
  return c->FindInstruction(inst);
}

// ---------------------------------------------------------------------------
// (a) One small module per opcode.

constexpr char kPrefix[] = R"(HloModule op_test

add_c {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

cmp_c {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=LT
}

neg_c {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

wc {
  x = s32[] parameter(0)
  c = s32[] constant(3)
  ROOT lt = pred[] compare(x, c), direction=LT
}

wb {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(x, one)
}

)";

std::string Unary(absl::string_view op, absl::string_view in,
                  absl::string_view out, absl::string_view attrs = "") {
  return absl::StrCat("p = ", in, " parameter(0)\n  ROOT r = ", out, " ", op,
                      "(p)", attrs);
}
std::string Binary(absl::string_view op, absl::string_view in,
                   absl::string_view out) {
  return absl::StrCat("p = ", in, " parameter(0)\n  q = ", in,
                      " parameter(1)\n  ROOT r = ", out, " ", op, "(p, q)");
}

std::map<std::string, std::string> OpcodeCases() {
  std::map<std::string, std::string> c;
  const std::string ra = ", result_accuracy={mode=highest}";
  for (const char* op : {"acos",
                         "acosh",
                         "asin",
                         "asinh",
                         "atanh",
                         "cbrt",
                         "cosh",
                         "cosine",
                         "erf",
                         "exponential",
                         "exponential-minus-one",
                         "log",
                         "log-plus-one",
                         "logistic",
                         "rsqrt",
                         "sine",
                         "sinh",
                         "sqrt",
                         "tan",
                         "tanh"}) {
    c[op] = Unary(op, "f32[4]{0}", "f32[4]{0}", ra);
  }
  for (const char* op : {"abs", "ceil", "floor", "negate", "round-nearest-afz",
                         "round-nearest-even", "sign", "copy"}) {
    c[op] = Unary(op, "f32[4]{0}", "f32[4]{0}");
  }
  for (const char* op : {"not", "popcnt", "count-leading-zeros"}) {
    c[op] = Unary(op, "s32[4]{0}", "s32[4]{0}");
  }
  c["is-finite"] = Unary("is-finite", "f32[4]{0}", "pred[4]{0}");
  c["real"] = Unary("real", "c64[4]{0}", "f32[4]{0}");
  c["imag"] = Unary("imag", "c64[4]{0}", "f32[4]{0}");
  c["bitcast"] = Unary("bitcast", "f32[4]{0}", "f32[2,2]{1,0}");
  c["bitcast-convert"] = Unary("bitcast-convert", "f32[4]{0}", "u32[4]{0}");
  c["convert"] = Unary("convert", "f32[4]{0}", "s32[4]{0}");
  c["reduce-precision"] = Unary("reduce-precision", "f32[4]{0}", "f32[4]{0}",
                                ", exponent_bits=5, mantissa_bits=10");
  for (const char* op : {"add", "atan2", "divide", "maximum", "minimum",
                         "multiply", "power", "remainder", "subtract"}) {
    c[op] = Binary(op, "f32[4]{0}", "f32[4]{0}");
  }
  for (const char* op :
       {"and", "or", "xor", "shift-left", "shift-right-arithmetic",
        "shift-right-logical", "mulhi"}) {
    c[op] = Binary(op, "s32[4]{0}", "s32[4]{0}");
  }
  c["complex"] = Binary("complex", "f32[4]{0}", "c64[4]{0}");
  c["stochastic-convert"] =
      "p = f32[4]{0} parameter(0)\n  q = u32[4]{0} parameter(1)\n"
      "  ROOT r = bf16[4]{0} stochastic-convert(p, q)";
  c["compare"] =
      "p = f32[4]{0} parameter(0)\n  q = f32[4]{0} parameter(1)\n"
      "  ROOT r = pred[4]{0} compare(p, q), direction=GT, type=TOTALORDER";
  c["select"] =
      "s = pred[4]{0} parameter(0)\n  p = f32[4]{0} parameter(1)\n"
      "  q = f32[4]{0} parameter(2)\n  ROOT r = f32[4]{0} select(s, p, q)";
  c["clamp"] =
      "lo = f32[] parameter(0)\n  p = f32[4]{0} parameter(1)\n"
      "  hi = f32[] parameter(2)\n  ROOT r = f32[4]{0} clamp(lo, p, hi)";
  c["broadcast"] =
      Unary("broadcast", "f32[4]{0}", "f32[3,4]{1,0}", ", dimensions={1}");
  c["dynamic-reshape"] =
      "p = f32[4]{0} parameter(0)\n  d = s32[] parameter(1)\n"
      "  ROOT r = f32[<=4]{0} dynamic-reshape(p, d)";
  c["get-dimension-size"] =
      Unary("get-dimension-size", "f32[4]{0}", "s32[]", ", dimensions={0}");
  c["iota"] = "ROOT r = f32[4]{0} iota(), iota_dimension=0";
  c["reshape"] =
      Unary("reshape", "f32[4]{0}", "f32[2,2]{1,0}", ", inferred_dimension=0");
  c["reverse"] = Unary("reverse", "f32[4]{0}", "f32[4]{0}", ", dimensions={0}");
  c["set-dimension-size"] =
      "p = f32[4]{0} parameter(0)\n  n = s32[] parameter(1)\n"
      "  ROOT r = f32[<=4]{0} set-dimension-size(p, n), dimensions={0}";
  c["transpose"] = Unary("transpose", "f32[2,3]{1,0}", "f32[3,2]{1,0}",
                         ", dimensions={1,0}");
  c["dynamic-slice"] =
      "p = f32[4]{0} parameter(0)\n  i = s32[] parameter(1)\n"
      "  ROOT r = f32[2]{0} dynamic-slice(p, i), dynamic_slice_sizes={2}";
  c["dynamic-update-slice"] =
      "p = f32[4]{0} parameter(0)\n  u = f32[2]{0} parameter(1)\n"
      "  i = s32[] parameter(2)\n"
      "  ROOT r = f32[4]{0} dynamic-update-slice(p, u, i)";
  c["slice"] = Unary("slice", "f32[8]{0}", "f32[3]{0}", ", slice={[1:7:2]}");
  c["concatenate"] =
      "p = f32[4]{0} parameter(0)\n  q = f32[2]{0} parameter(1)\n"
      "  ROOT r = f32[6]{0} concatenate(p, q), dimensions={0}";
  c["pad"] =
      "p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[12]{0} pad(p, z), padding=1_2_2";
  c["dot"] =
      "p = f32[5,2,3]{2,1,0} parameter(0)\n  q = f32[5,3,4]{2,1,0} "
      "parameter(1)\n  ROOT r = f32[5,2,4]{2,1,0} dot(p, q), "
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}, operand_precision={high,default}, "
      "algorithm=dot_f32_f32_f32";
  c["ragged-dot"] =
      "p = f32[8,3]{1,0} parameter(0)\n  q = f32[2,3,4]{2,1,0} parameter(1)\n"
      "  g = s32[2]{0} parameter(2)\n  ROOT r = f32[8,4]{1,0} ragged-dot(p, "
      "q, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
      "lhs_ragged_dims={0}, rhs_group_dims={0}";
  c["scaled-dot"] =
      "p = f32[2,3]{1,0} parameter(0)\n  ps = f32[2,3]{1,0} parameter(1)\n"
      "  q = f32[3,4]{1,0} parameter(2)\n  qs = f32[3,4]{1,0} parameter(3)\n"
      "  ROOT r = f32[2,4]{1,0} scaled-dot(p, q, ps, qs), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  c["convolution"] =
      "p = f32[1,4,4,2]{3,2,1,0} parameter(0)\n  k = f32[2,2,1,4]{3,2,1,0} "
      "parameter(1)\n  ROOT r = f32[1,3,3,4]{3,2,1,0} convolution(p, k), "
      "window={size=2x2 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, "
      "feature_group_count=2, batch_group_count=2, convolution_kind=fprop";
  c["map"] = Binary("map", "f32[4]{0}", "f32[4]{0}") +
             ", dimensions={0}, to_apply=add_c";
  c["reduce"] =
      "p = f32[4,2]{1,0} parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[4]{0} reduce(p, z), dimensions={1}, to_apply=add_c";
  c["reduce-window"] =
      "p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[2]{0} reduce-window(p, z), window={size=2 stride=2}, "
      "to_apply=add_c";
  c["scan"] =
      "p = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = (f32[4]{0}, f32[]) scan(p, z), dimensions={0}, "
      "num_carries=1, is_reverse=true, is_associative=true, to_apply=add_c";
  c["select-and-scatter"] =
      "p = f32[4]{0} parameter(0)\n  s = f32[2]{0} parameter(1)\n"
      "  z = f32[] constant(0)\n  ROOT r = f32[4]{0} select-and-scatter(p, s, "
      "z), window={size=2 stride=2}, select=cmp_c, scatter=add_c";
  c["gather"] =
      "t = f32[2,16,8]{2,1,0} parameter(0)\n  i = s32[2,4,1]{2,1,0} "
      "parameter(1)\n  ROOT r = f32[2,4,8]{2,1,0} gather(t, i), "
      "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, "
      "operand_batching_dims={0}, start_indices_batching_dims={0}, "
      "index_vector_dim=2, slice_sizes={1,1,8}, indices_are_sorted=true";
  c["scatter"] =
      "t = f32[2,16,8]{2,1,0} parameter(0)\n  i = s32[2,4,1]{2,1,0} "
      "parameter(1)\n  u = f32[2,4,8]{2,1,0} parameter(2)\n"
      "  ROOT r = f32[2,16,8]{2,1,0} scatter(t, i, u), update_window_dims={2}, "
      "inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
      "input_batching_dims={0}, scatter_indices_batching_dims={0}, "
      "index_vector_dim=2, indices_are_sorted=true, unique_indices=true, "
      "to_apply=add_c";
  c["sort"] = Unary("sort", "f32[4]{0}", "f32[4]{0}",
                    ", dimensions={0}, is_stable=true, to_apply=cmp_c");
  c["topk"] = Unary("topk", "f32[8,4]{1,0}", "(f32[8,2]{1,0}, s32[8,2]{1,0})",
                    ", k=2, largest=false");
  c["call"] = Binary("call", "f32[]", "f32[]") + ", to_apply=add_c";
  c["conditional"] =
      "b = pred[] parameter(0)\n  p = f32[] parameter(1)\n"
      "  ROOT r = f32[] conditional(b, p, p), true_computation=neg_c, "
      "false_computation=neg_c";
  c["fusion"] = Binary("fusion", "f32[]", "f32[]") +
                ", kind=kOutput, output_to_operand_aliasing={{}: (0, {})}, "
                "calls=add_c";
  c["while"] =
      "p = s32[] parameter(0)\n  ROOT r = s32[] while(p), condition=wc, "
      "body=wb";
  c["add-dependency"] =
      "p = f32[4]{0} parameter(0)\n  t = token[] after-all()\n"
      "  ROOT r = f32[4]{0} add-dependency(p, t)";
  c["after-all"] =
      "t = token[] after-all()\n  u = token[] after-all()\n"
      "  ROOT r = token[] after-all(t, u)";
  c["constant"] = "ROOT r = f32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })";
  c["domain"] = Unary("domain", "f32[4]{0}", "f32[4]{0}",
                      ", domain={kind=\"sharding\", entry={maximal device=0}, "
                      "exit={replicated}}");
  c["get-tuple-element"] =
      "p = (f32[4]{0}, s32[]) parameter(0)\n"
      "  ROOT r = s32[] get-tuple-element(p), index=1";
  c["opt-barrier"] =
      Unary("opt-barrier", "(f32[4]{0}, s32[])", "(f32[4]{0}, s32[])");
  c["parameter"] =
      "ROOT r = (f32[4]{0}, s32[]) parameter(0), "
      "parameter_replication={true,false}";
  c["tuple"] = Binary("tuple", "f32[]", "(f32[], f32[])");
  const std::string coll =
      ", channel_id=1, replica_groups={{0,1}}, constrain_layout=true";
  c["all-gather"] =
      Unary("all-gather", "f32[4]{0}", "f32[8]{0}",
            coll + ", dimensions={0}, use_global_device_ids=true");
  c["all-gather-start"] =
      Unary("all-gather-start", "f32[4]{0}", "(f32[4]{0}, f32[8]{0})",
            ", replica_groups=[1,2]<=[2], dimensions={0}");
  c["all-gather-done"] =
      "p = f32[4]{0} parameter(0)\n  s = (f32[4]{0}, f32[8]{0}) "
      "all-gather-start(p), replica_groups={}, dimensions={0}\n"
      "  ROOT r = f32[8]{0} all-gather-done(s)";
  c["all-reduce"] =
      Unary("all-reduce", "f32[4]{0}", "f32[4]{0}",
            coll + ", use_global_device_ids=true, to_apply=add_c");
  c["all-reduce-start"] =
      Unary("all-reduce-start", "f32[4]{0}", "f32[4]{0}",
            ", replica_groups={{0},{1}}, mode=cross_replica, to_apply=add_c");
  c["all-reduce-done"] =
      "p = f32[4]{0} parameter(0)\n  s = f32[4]{0} all-reduce-start(p), "
      "replica_groups={}, to_apply=add_c\n"
      "  ROOT r = f32[4]{0} all-reduce-done(s)";
  c["all-to-all"] =
      Unary("all-to-all", "f32[4]{0}", "f32[4]{0}", coll + ", dimensions={0}");
  c["collective-broadcast"] =
      Unary("collective-broadcast", "f32[4]{0}", "f32[4]{0}",
            ", replica_groups={{0,1}}, has_dynamic_root=true");
  c["collective-permute"] =
      Unary("collective-permute", "f32[4]{0}", "f32[4]{0}",
            ", channel_id=2, source_target_pairs={{0,1},{1,0}}");
  c["collective-permute-start"] =
      Unary("collective-permute-start", "f32[4]{0}",
            "(f32[4]{0}, f32[4]{0}, u32[], u32[])",
            ", source_target_pairs={{0,1}}, slice_sizes={{4}}");
  c["collective-permute-done"] =
      "p = f32[4]{0} parameter(0)\n  s = (f32[4]{0}, f32[4]{0}) "
      "collective-permute-start(p), source_target_pairs={{0,1}}\n"
      "  ROOT r = f32[4]{0} collective-permute-done(s)";
  c["partition-id"] = "ROOT r = u32[] partition-id()";
  c["replica-id"] = "ROOT r = u32[] replica-id()";
  c["ragged-all-to-all"] =
      "a = f32[8]{0} parameter(0)\n  b = f32[8]{0} parameter(1)\n"
      "  c = s32[2]{0} parameter(2)\n  d = s32[2]{0} parameter(3)\n"
      "  e = s32[2]{0} parameter(4)\n  f = s32[2]{0} parameter(5)\n"
      "  ROOT r = f32[8]{0} ragged-all-to-all(a, b, c, d, e, f), "
      "channel_id=9, replica_groups={{0,1}}";
  c["reduce-scatter"] = Unary("reduce-scatter", "f32[8]{0}", "f32[4]{0}",
                              coll + ", dimensions={0}, to_apply=add_c");
  c["rng"] = Binary("rng", "f32[]", "f32[4]{0}") + ", distribution=rng_normal";
  c["rng-bit-generator"] =
      Unary("rng-bit-generator", "u64[2]{0}", "(u64[2]{0}, u32[4]{0})",
            ", algorithm=rng_three_fry");
  c["rng-get-and-update-state"] =
      "ROOT r = u64[2]{0} rng-get-and-update-state(), delta=4096";
  c["fft"] =
      Unary("fft", "c64[8]{0}", "c64[8]{0}", ", fft_type=IFFT, fft_length={8}");
  c["cholesky"] =
      Unary("cholesky", "f32[3,3]{1,0}", "f32[3,3]{1,0}", ", lower=true");
  c["triangular-solve"] =
      "a = f32[3,3]{1,0} parameter(0)\n  b = f32[3,2]{1,0} parameter(1)\n"
      "  ROOT r = f32[3,2]{1,0} triangular-solve(a, b), left_side=true, "
      "lower=true, unit_diagonal=true, transpose_a=TRANSPOSE";
  const std::string bn5 =
      "x = f32[2,3]{1,0} parameter(0)\n  s = f32[3]{0} parameter(1)\n"
      "  m = f32[3]{0} parameter(2)\n  v = f32[3]{0} parameter(3)\n"
      "  g = f32[2,3]{1,0} parameter(4)\n";
  c["batch-norm-grad"] =
      bn5 +
      "  ROOT r = (f32[2,3]{1,0}, f32[3]{0}, f32[3]{0}) batch-norm-grad(x, s, "
      "m, v, g), epsilon=0.001, feature_index=1";
  c["batch-norm-inference"] =
      bn5 +
      "  ROOT r = f32[2,3]{1,0} batch-norm-inference(x, s, m, v, m), "
      "epsilon=0.25, feature_index=1";
  c["batch-norm-training"] =
      "x = f32[2,3]{1,0} parameter(0)\n  s = f32[3]{0} parameter(1)\n"
      "  o = f32[3]{0} parameter(2)\n  ROOT r = (f32[2,3]{1,0}, f32[3]{0}, "
      "f32[3]{0}) batch-norm-training(x, s, o), epsilon=1e-05, "
      "feature_index=1";
  c["infeed"] =
      "t = token[] after-all()\n  ROOT r = ((f32[4]{0}, s32[]), token[]) "
      "infeed(t), infeed_config=\"cfg\"";
  c["outfeed"] =
      "p = f32[4]{0} parameter(0)\n  t = token[] after-all()\n"
      "  ROOT r = token[] outfeed(p, t), outfeed_shape=f32[4]{0}, "
      "outfeed_config=\"o\\\"q\"";
  c["recv"] =
      "t = token[] after-all()\n  ROOT r = (f32[4]{0}, u32[], token[]) "
      "recv(t), channel_id=8, is_host_transfer=true";
  c["recv-done"] =
      "t = token[] after-all()\n  v = (f32[4]{0}, u32[], token[]) recv(t), "
      "channel_id=8\n  ROOT r = (f32[4]{0}, token[]) recv-done(v), "
      "channel_id=8";
  c["send"] =
      "p = f32[4]{0} parameter(0)\n  t = token[] after-all()\n"
      "  ROOT r = (f32[4]{0}, u32[], token[]) send(p, t), channel_id=7, "
      "is_host_transfer=true";
  c["send-done"] =
      "p = f32[4]{0} parameter(0)\n  t = token[] after-all()\n"
      "  v = (f32[4]{0}, u32[], token[]) send(p, t), channel_id=7\n"
      "  ROOT r = token[] send-done(v), channel_id=7";
  c["custom-call"] =
      "p = f32[1,4,2]{2,1,0} parameter(0)\n  ROOT r = f32[1,3,2]{2,1,0} "
      "custom-call(p), window={size=2}, dim_labels=b0f_0io->b0f, "
      "feature_group_count=2, batch_group_count=2, "
      "operand_precision={highest}, padding_type=PADDING_SAME, "
      "custom_call_target=\"my$target\", "
      "operand_layout_constraints={f32[1,4,2]{2,1,0}}, "
      "custom_call_has_side_effect=true, literal=s32[2]{0} {1, 2}, "
      "output_to_operand_aliasing={{}: (0, {})}, schedule=SCHEDULE_LATEST, "
      "api_version=API_VERSION_TYPED_FFI, called_computations={add_c}, "
      "backend_config=\"opaque\"";
  c["async-start"] =
      "p = f32[] parameter(0)\n  ROOT r = ((f32[]), f32[], s32[]) "
      "async-start(p), async_execution_thread=\"t1\", calls=neg_c";
  c["async-update"] =
      "p = f32[] parameter(0)\n  s = ((f32[]), f32[], s32[]) async-start(p), "
      "calls=neg_c\n  ROOT r = ((f32[]), f32[], s32[]) async-update(s)";
  c["async-done"] =
      "p = f32[] parameter(0)\n  s = ((f32[]), f32[], s32[]) async-start(p), "
      "calls=neg_c\n  ROOT r = f32[] async-done(s)";
  c["copy-start"] =
      Unary("copy-start", "f32[4]{0}", "(f32[4]{0:S(1)}, f32[4]{0}, u32[])",
            ", cross_program_prefetch_index=0");
  c["copy-done"] =
      "p = f32[4]{0} parameter(0)\n  s = (f32[4]{0:S(1)}, f32[4]{0}, u32[]) "
      "copy-start(p)\n  ROOT r = f32[4]{0:S(1)} copy-done(s)";
  return c;
}

TEST(HloParserOpcodeTest, EveryOpcodeHasACase) {
  std::map<std::string, std::string> cases = OpcodeCases();
  for (const OpInfo& info : AllOps()) {
    EXPECT_TRUE(cases.contains(std::string(info.name)))
        << "no parser test case for opcode " << info.name;
  }
}

TEST(HloParserOpcodeTest, EveryOpcodeParsesPrintsAndReparses) {
  for (const auto& [op, body] : OpcodeCases()) {
    SCOPED_TRACE(op);
    std::string text = absl::StrCat(kPrefix, "ENTRY e {\n  ", body, "\n}\n");
    auto m = MustParse(text);
    if (m == nullptr) continue;
    const HloInstruction* r = Find(*m, "e", "r");
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(HloOpcodeString(r->opcode()), op);
    EXPECT_EQ(m->entry()->root(), r);
    std::string printed = PrintModule(*m);
    auto m2 = MustParse(printed);
    if (m2 == nullptr) continue;
    EXPECT_EQ(PrintModule(*m2), printed);
    // Every attribute the case writes is printed back (none dropped).
    for (const OpAttrSpec& spec : GetOpInfo(r->opcode()).attributes) {
      std::string needle = absl::StrCat(", ", AttrName(spec.id), "=");
      if (absl::StrContains(text, needle)) {
        EXPECT_THAT(printed, HasSubstr(needle)) << "attribute dropped";
      }
    }
    // The short form round-trips as well.
    std::string short_text = PrintModule(*m, PrintOptions::Short());
    auto m3 = MustParse(short_text);
    if (m3 == nullptr) continue;
    EXPECT_EQ(PrintModule(*m3, PrintOptions::Short()), short_text);
  }
}

TEST(HloParserOpcodeTest, AttributesLandInTheirFields) {
  auto cases = OpcodeCases();
  auto parse_case = [&](const std::string& op) {
    return MustParse(
        absl::StrCat(kPrefix, "ENTRY e {\n  ", cases[op], "\n}\n"));
  };
  {
    auto m = parse_case("dot");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    EXPECT_EQ(a.dot_dimension_numbers.lhs_batch_dimensions,
              std::vector<int64_t>{0});
    EXPECT_EQ(a.dot_dimension_numbers.rhs_contracting_dimensions,
              std::vector<int64_t>{1});
    ASSERT_EQ(a.operand_precision.size(), 2u);
    EXPECT_EQ(a.operand_precision[0], PrecisionConfig::kHigh);
    EXPECT_EQ(a.algorithm, "dot_f32_f32_f32");
  }
  {
    auto m = parse_case("convolution");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    ASSERT_EQ(a.window.dimensions.size(), 2u);
    EXPECT_EQ(a.window.dimensions[1].size, 2);
    EXPECT_EQ(a.feature_group_count, 2);
    const auto& dn = a.convolution_dimension_numbers;
    EXPECT_EQ(dn.input_batch_dimension, 0);
    EXPECT_EQ(dn.input_feature_dimension, 3);
    EXPECT_EQ(dn.input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(dn.kernel_input_feature_dimension, 2);
    EXPECT_EQ(dn.kernel_output_feature_dimension, 3);
  }
  {
    auto m = parse_case("pad");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    ASSERT_EQ(a.padding.dimensions.size(), 1u);
    EXPECT_EQ(a.padding.dimensions[0].edge_padding_low, 1);
    EXPECT_EQ(a.padding.dimensions[0].edge_padding_high, 2);
    EXPECT_EQ(a.padding.dimensions[0].interior_padding, 2);
  }
  {
    auto m = parse_case("slice");
    const SliceConfig& s = Find(*m, "e", "r")->attrs().slice;
    EXPECT_EQ(s.start_indices, std::vector<int64_t>{1});
    EXPECT_EQ(s.limit_indices, std::vector<int64_t>{7});
    EXPECT_EQ(s.strides, std::vector<int64_t>{2});
  }
  {
    auto m = parse_case("scatter");
    const HloInstruction* r = Find(*m, "e", "r");
    EXPECT_EQ(r->attrs().scatter_dimension_numbers.index_vector_dim, 2);
    EXPECT_EQ(r->attrs().scatter_dimension_numbers.input_batching_dims,
              std::vector<int64_t>{0});
    EXPECT_TRUE(r->attrs().unique_indices);
    EXPECT_EQ(r->to_apply(), m->FindComputation("add_c"));
  }
  {
    auto m = parse_case("conditional");
    const HloInstruction* r = Find(*m, "e", "r");
    ASSERT_EQ(r->branch_computations().size(), 2u);
    EXPECT_EQ(r->branch_computations()[0], m->FindComputation("neg_c"));
  }
  {
    auto m = parse_case("while");
    const HloInstruction* r = Find(*m, "e", "r");
    EXPECT_EQ(r->while_condition(), m->FindComputation("wc"));
    EXPECT_EQ(r->while_body(), m->FindComputation("wb"));
  }
  {
    auto m = parse_case("custom-call");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    EXPECT_EQ(a.custom_call_target, "my$target");
    EXPECT_EQ(a.api_version, "API_VERSION_TYPED_FFI");
    EXPECT_EQ(a.schedule, "SCHEDULE_LATEST");
    ASSERT_TRUE(a.literal.has_value());
    EXPECT_EQ(a.literal->GetAsInt64(1), 2);
    EXPECT_EQ(a.backend_config, "opaque");
    EXPECT_TRUE(a.custom_call_has_side_effect);
  }
  {
    auto m = parse_case("outfeed");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    EXPECT_EQ(a.outfeed_config, "o\"q");  // C escape decoded
    EXPECT_EQ(a.outfeed_shape.ToString(), "f32[4]{0}");
  }
  {
    auto m = parse_case("triangular-solve");
    const HloAttributes& a = Find(*m, "e", "r")->attrs();
    EXPECT_EQ(a.transpose_a, TransposeA::kTranspose);
    EXPECT_TRUE(a.left_side && a.lower && a.unit_diagonal);
  }
  {
    auto m = parse_case("batch-norm-training");
    EXPECT_FLOAT_EQ(Find(*m, "e", "r")->attrs().epsilon, 1e-5f);
  }
  {
    auto m = parse_case("collective-permute");
    const auto& pairs = Find(*m, "e", "r")->attrs().source_target_pairs;
    ASSERT_EQ(pairs.size(), 2u);
    EXPECT_EQ(pairs[1], (std::pair<int64_t, int64_t>{1, 0}));
  }
  {
    auto m = parse_case("collective-permute-start");
    EXPECT_EQ(Find(*m, "e", "r")->attrs().slice_sizes_list,
              (std::vector<std::vector<int64_t>>{{4}}));
  }
}

// ---------------------------------------------------------------------------
// (b) Realistic modules.

TEST(HloParserTestdataTest, PrintIsAFixedPoint) {
  std::vector<std::string> files = TestdataFiles();
  ASSERT_GE(files.size(), 12u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    auto m = MustParse(ReadTestdata(f));
    if (m == nullptr) continue;
    std::string p1 = PrintModule(*m);
    auto m2 = MustParse(p1);
    if (m2 == nullptr) continue;
    EXPECT_EQ(PrintModule(*m2), p1);
    std::string s1 = PrintModule(*m, PrintOptions::Short());
    auto m3 = MustParse(s1);
    if (m3 == nullptr) continue;
    EXPECT_EQ(PrintModule(*m3, PrintOptions::Short()), s1);
    // Clone prints identically.
    EXPECT_EQ(PrintModule(*m->Clone()), p1);
  }
}

TEST(HloParserTestdataTest, MlpForwardFields) {
  auto m = MustParse(ReadTestdata("doc_mlp_forward.hlo"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "jit_mlp_forward");
  EXPECT_EQ(m->entry()->name(), "main.25");
  EXPECT_EQ(m->entry()->num_parameters(), 5);
  ASSERT_TRUE(m->config().entry_parameter_layouts.has_value());
  EXPECT_EQ(m->config().entry_parameter_layouts->size(), 5u);
  EXPECT_EQ(m->config().entry_result_layout->ToString(),
            "(f32[8,4]{1,0}, f32[8]{0})");
  const HloInstruction* reduce = Find(*m, "main.25", "reduce.22");
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->to_apply(), m->FindComputation("region_0.18"));
  EXPECT_EQ(reduce->attrs().metadata.source_line, 14);
  EXPECT_EQ(reduce->attrs().metadata.source_file, "mlp.py");
  EXPECT_EQ(reduce->location().line, 25);
  EXPECT_EQ(reduce->location().column, 3);
  const HloInstruction* ninf = Find(*m, "main.25", "constant.15");
  EXPECT_TRUE(std::isinf(ninf->literal().GetAsDouble(0)));
  EXPECT_LT(ninf->literal().GetAsDouble(0), 0);
  EXPECT_EQ(m->entry()->root()->name(), "tuple.24");
}

TEST(HloParserTestdataTest, ConvBlockOldOperandShapes) {
  auto m = MustParse(ReadTestdata("doc_conv_block.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* conv = Find(*m, "conv_block", "conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->operand(1)->name(), "kernel");
  EXPECT_EQ(conv->attrs().window.dimensions[0].padding_low, 1);
  EXPECT_EQ(conv->attrs().metadata.op_type, "Conv2D");
  const HloInstruction* pool = Find(*m, "conv_block", "pool");
  EXPECT_EQ(pool->attrs().window.dimensions[1].stride, 2);
}

TEST(HloParserTestdataTest, ShortFormWhile) {
  auto m = MustParse(ReadTestdata("doc_while_loop_short.hlo"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "main.23");
  const HloInstruction* w = m->entry()->root();
  EXPECT_EQ(w->opcode(), HloOpcode::kWhile);
  EXPECT_EQ(w->while_body()->name(), "region_body.5");
  EXPECT_FALSE(m->entry()->signature_result().has_value());
}

TEST(HloParserTestdataTest, SortAndArgmax) {
  auto m = MustParse(ReadTestdata("doc_sort_pairs.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* sort = m->entry()->root();
  EXPECT_TRUE(sort->attrs().is_stable);
  const HloInstruction* gt = m->FindComputation("compare_desc.3")->root();
  EXPECT_EQ(gt->attrs().direction, ComparisonDirection::kGt);
  EXPECT_EQ(gt->attrs().comparison_type, ComparisonType::kTotalOrder);

  auto a = MustParse(ReadTestdata("doc_argmax_reduce.hlo"));
  ASSERT_NE(a, nullptr);
  const HloComputation* region = a->FindComputation("argmax_region.4");
  // Parameters are indexed by number, not text order.
  EXPECT_EQ(region->parameter(1)->name(), "acc_i");
  EXPECT_EQ(region->parameter(2)->name(), "v");
  EXPECT_EQ(a->entry()->root()->operand_count(), 4);
}

TEST(HloParserTestdataTest, GpuScheduledDump) {
  auto m = MustParse(ReadTestdata("doc_gpu_scheduled.hlo"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->config().is_scheduled);
  EXPECT_EQ(m->config().num_partitions, 2);
  const HloInstruction* fusion = Find(*m, "main.10", "loop_fusion");
  EXPECT_EQ(fusion->attrs().fusion_kind, FusionKind::kLoop);
  EXPECT_EQ(fusion->to_apply()->name(), "fused_computation");
  EXPECT_THAT(fusion->attrs().backend_config,
              HasSubstr("\"fusion_backend_config\":{\"kind\":\"__loop\"}"));
  const HloInstruction* ars = Find(*m, "main.10", "all-reduce-start");
  EXPECT_EQ(ars->attrs().channel_id, 1);
  EXPECT_EQ(ars->attrs().replica_groups.groups,
            (std::vector<std::vector<int64_t>>{{0, 1}}));
  EXPECT_EQ(ars->attrs().replica_groups.iota_text, "[1,2]<=[2]");
  const HloInstruction* a1 = Find(*m, "main.10", "a.1");
  EXPECT_EQ(a1->attrs().raw.at(AttrId::kSharding), "{devices=[2]<=[2]}");
}

TEST(HloParserTestdataTest, AsyncCollectivesAndCopies) {
  auto m = MustParse(ReadTestdata("gpu_async_collectives.hlo"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->config().num_partitions, 4);
  EXPECT_EQ(m->config().frontend_attributes.at("fingerprint_before_lhs"),
            "a1b2c3");
  const HloInstruction* ars = Find(*m, "main.30", "all-reduce-start");
  // [2,2]<=[2,2]T(1,0): iota(4) as [[0,1],[2,3]], transposed: 0,2,1,3.
  EXPECT_EQ(ars->attrs().replica_groups.groups,
            (std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}}));
  const HloInstruction* rss = Find(*m, "main.30", "reduce-scatter-start");
  EXPECT_EQ(rss->opcode(), HloOpcode::kAsyncStart);
  const HloComputation* wrapped = rss->called_computations()[0];
  EXPECT_TRUE(wrapped->is_async_sugar_wrapped());
  EXPECT_EQ(wrapped->root()->opcode(), HloOpcode::kReduceScatter);
  EXPECT_EQ(wrapped->root()->shape().ToString(), "f32[8,128]{1,0}");
  EXPECT_EQ(wrapped->root()->attrs().dimensions, std::vector<int64_t>{0});
  EXPECT_EQ(wrapped->root()->to_apply()->name(), "add.clone");
  EXPECT_EQ(wrapped->num_parameters(), 1);
  EXPECT_EQ(rss->attrs().frontend_attributes.at("_scheduling_group_id"), "1");
  const HloInstruction* rsd = Find(*m, "main.30", "reduce-scatter-done");
  EXPECT_EQ(rsd->opcode(), HloOpcode::kAsyncDone);
  EXPECT_EQ(rsd->called_computations()[0], wrapped);
  const HloInstruction* cs = Find(*m, "main.30", "copy-start");
  EXPECT_EQ(cs->attrs().cross_program_prefetch_index, 0);
  EXPECT_EQ(cs->shape().tuple_shapes(0).layout().memory_space, 1);
  const HloInstruction* cp = Find(*m, "main.30", "cp-start");
  ASSERT_EQ(cp->attrs().control_predecessors.size(), 1u);
  EXPECT_EQ(cp->attrs().control_predecessors[0]->name(), "fusion.7");
  std::string printed = PrintModule(*m);
  EXPECT_THAT(printed, HasSubstr("reduce-scatter-start(%all-gather-done), "
                                 "channel_id=4, replica_groups={{0,1,2,3}}, "
                                 "dimensions={0}, use_global_device_ids=true, "
                                 "to_apply=%add.clone"));
  EXPECT_THAT(printed, HasSubstr("input_output_alias={ {0}: (0, {}, "
                                 "may-alias) }"));
  EXPECT_THAT(printed, Not(HasSubstr("wrapped")));
}

TEST(HloParserTestdataTest, CustomCallAndBranches) {
  auto m = MustParse(ReadTestdata("custom_call_conditional.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* gemm = Find(*m, "branch_0", "gemm");
  EXPECT_EQ(gemm->attrs().custom_call_target, "__cublas$gemm");
  ASSERT_EQ(gemm->attrs().operand_layout_constraints.size(), 2u);
  EXPECT_EQ(gemm->attrs().operand_layout_constraints[1].layout().minor_to_major,
            (std::vector<int64_t>{0, 1}));
  const HloInstruction* ws = Find(*m, "branch_1", "ws");
  EXPECT_EQ(ws->attrs().backend_config, "{\"size\":1024}");
  const HloInstruction* cond = m->entry()->root();
  ASSERT_EQ(cond->branch_computations().size(), 3u);
  EXPECT_EQ(cond->branch_computations()[2]->name(), "branch_2");
  // A quoted backend_config that is a dict prints raw, like XLA.
  EXPECT_THAT(PrintModule(*m), HasSubstr("backend_config={\"size\":1024}"));
}

TEST(HloParserTestdataTest, CompositeAndStackFrames) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto m = ParseHloModule(ReadTestdata("composite_stack_frames.hlo"), options);
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* call = (*m)->entry()->root();
  EXPECT_TRUE(call->attrs().is_composite);
  EXPECT_EQ(call->attrs().frontend_attributes.at("composite.name"), "my.gelu");
  EXPECT_EQ(call->attrs().frontend_attributes.at("composite.attributes"),
            "{approximate = true}");
  EXPECT_EQ(call->attrs().metadata.stack_frame_id, 1);
  EXPECT_EQ((*m)->config().other.at(0).first, "stack_frames");
  EXPECT_THAT((*m)->config().other.at(0).second,
              HasSubstr("2 {file_location_id=2 parent_frame_id=1}"));
  const HloInstruction* t = Find(**m, "my.gelu.impl", "t");
  EXPECT_EQ(t->attrs().raw.at(AttrId::kResultAccuracy),
            "{tolerance={atol=0,rtol=0,ulps=1}}");
  EXPECT_TRUE(warnings.empty());
}

TEST(HloParserTestdataTest, Pre2025AndConstants) {
  auto m = MustParse(ReadTestdata("pre2025_operand_shapes.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* c =
      Find(*m, "cluster_12__XlaCompiledKernel_true__.35", "constant.13");
  const Literal& lit = c->literal();
  EXPECT_EQ(lit.GetAsDouble(0), 1.5);
  EXPECT_TRUE(std::signbit(lit.GetAsDouble(1)));  // -0 keeps its sign
  EXPECT_EQ(lit.GetAsDouble(2), 3.40282e+38f);
  EXPECT_TRUE(std::isnan(lit.GetAsDouble(3)));
  const HloInstruction* pad =
      Find(*m, "cluster_12__XlaCompiledKernel_true__.35", "pad.15");
  EXPECT_EQ(pad->attrs().padding.dimensions[1].interior_padding, 0);
}

TEST(HloParserTestdataTest, ShortFormMisc) {
  auto m = MustParse(ReadTestdata("short_form_misc.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* big = Find(*m, "main.40", "big");
  EXPECT_TRUE(big->literal().is_elided());
  const HloInstruction* c = Find(*m, "main.40", "c");
  // bf16: 0.1 rounds to 0.10009765625; 65504 rounds to 65536.
  EXPECT_EQ(c->literal().GetAsDouble(3), 0.10009765625);
  EXPECT_EQ(c->literal().GetAsDouble(4), 65536.0);
  const HloInstruction* rbg = Find(*m, "main.40", "rbg");
  EXPECT_EQ(rbg->attrs().algorithm, "rng_philox");
  const HloInstruction* g = Find(*m, "main.40", "g");
  EXPECT_EQ(g->attrs().slice_sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(g->attrs().gather_dimension_numbers.index_vector_dim, 1);
}

TEST(HloParserTestdataTest, AsyncSugarAndCompactGte) {
  auto m = MustParse(ReadTestdata("async_sugar_compact.hlo"));
  ASSERT_NE(m, nullptr);
  const HloInstruction* start = Find(*m, "main", "cc-start");
  EXPECT_EQ(start->opcode(), HloOpcode::kAsyncStart);
  const HloInstruction* wrapped = start->called_computations()[0]->root();
  EXPECT_EQ(wrapped->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(wrapped->attrs().custom_call_target, "MyAsyncOp");
  EXPECT_EQ(wrapped->attrs().backend_config, "{\"k\":1}");
  EXPECT_EQ(wrapped->operand_count(), 2);
  EXPECT_EQ(Find(*m, "main", "cc-update")->opcode(), HloOpcode::kAsyncUpdate);
  EXPECT_EQ(Find(*m, "main", "cc-done")->called_computations()[0],
            start->called_computations()[0]);
  const HloInstruction* as = Find(*m, "main", "as");
  EXPECT_EQ(as->attrs().async_execution_thread, "host");
  EXPECT_EQ(as->called_computations()[0]->name(), "wrapped_neg");
  // %s#1 in the body became a get-tuple-element of %s at index 1.
  const HloInstruction* v = Find(*m, "body", "v");
  EXPECT_EQ(v->operand(0)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(v->operand(0)->attrs().index, 1);
  EXPECT_EQ(v->operand(0)->operand(0)->name(), "s");
  std::string printed = PrintModule(*m);
  EXPECT_THAT(printed,
              HasSubstr("custom-call-start(%a, %b), custom_call_target="
                        "\"MyAsyncOp\", api_version=API_VERSION_TYPED_FFI, "
                        "backend_config={\"k\":1}"));
  EXPECT_THAT(printed, HasSubstr("custom-call-done(%cc-update)"));
}

// ---------------------------------------------------------------------------
// Other accepted forms.

TEST(HloParserFormsTest, HeaderlessShapeInferenceAndNesting) {
  auto m = MustParse(R"(
// RUN: hlo-opt %s
ENTRY f {
  p = f32[3]{0} parameter(0)   /* a comment */
  q = f32[3] parameter(1)
  a = add(p, q)
  c = compare(a, p), direction=NE
  t = tuple(a, c)
  g = get-tuple-element(t), index=1
  ROOT n = f32[3] negate(f32[3] multiply(p, q))
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "module_f");
  const HloComputation* f = m->entry();
  EXPECT_EQ(f->FindInstruction("a")->shape().ToString(), "f32[3]{0}");
  // A missing layout defaults to descending.
  EXPECT_EQ(f->FindInstruction("q")->shape().ToString(), "f32[3]{0}");
  EXPECT_EQ(f->FindInstruction("c")->shape().ToString(), "pred[3]{0}");
  EXPECT_EQ(f->FindInstruction("g")->shape().ToString(), "pred[3]{0}");
  const HloInstruction* n = f->root();
  EXPECT_EQ(n->operand(0)->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(f->instruction_count(), 8);
}

TEST(HloParserFormsTest, NoEntryMeansLastAndNoRootMeansLast) {
  auto m = MustParse(R"(HloModule m
a { x = f32[] parameter(0) ROOT y = f32[] negate(x) }
b { x = f32[] parameter(0) y = f32[] negate(x) z = f32[] abs(x) })");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "b");
  EXPECT_EQ(m->entry()->root()->name(), "z");
}

TEST(HloParserFormsTest, LayoutsAndDynamicDims) {
  auto m = MustParse(R"(HloModule m
ENTRY e {
  a = bf16[256,512]{1,0:T(8,128)(2,1)} parameter(0)
  b = s4[64,64]{1,0:T(8,128)E(4)} parameter(1)
  c = u32[]{:S(2)} parameter(2)
  d = f32[<=16,?]{1,0} parameter(3)
  e = f32[4]{0:T(2,*)L(4)SC(0:1024,2048)(1:512)M(8)} parameter(4)
  ROOT t = (bf16[256,512]{1,0:T(8,128)(2,1)}, s4[64,64]{1,0:T(8,128)E(4)}, u32[]{:S(2)}, f32[<=16,?]{1,0}, /*index=4*/f32[4]{0:T(2,*)L(4)SC(0:1024,2048)(1:512)M(8)}) tuple(a, b, c, d, e)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry();
  const Layout& la = e->FindInstruction("a")->shape().layout();
  ASSERT_EQ(la.tiles.size(), 2u);
  EXPECT_EQ(la.tiles[0].dimensions, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(e->FindInstruction("b")->shape().layout().element_size_in_bits, 4);
  EXPECT_EQ(e->FindInstruction("c")->shape().layout().memory_space, 2);
  const Shape& d = e->FindInstruction("d")->shape();
  EXPECT_TRUE(d.is_dynamic_dimension(0));
  EXPECT_EQ(d.dimensions(0), 16);
  EXPECT_TRUE(d.is_unbounded_dimension(1));
  const Layout& le = e->FindInstruction("e")->shape().layout();
  EXPECT_EQ(le.tiles[0].dimensions[1], Tile::kCombineDimension);
  EXPECT_EQ(le.tail_padding_alignment, 4);
  EXPECT_EQ(le.other_fields, "SC(0:1024,2048)(1:512)M(8)");
}

TEST(HloParserFormsTest, UnknownHeaderAttributeWarns) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto m = ParseHloModule(
      "HloModule m, origin_recovery_table={ {\"a\" {1}}: \"b,c\" }, "
      "replica_count=2\nENTRY e { ROOT p = f32[] parameter(0) }",
      options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->config().replica_count, 2);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("origin_recovery_table"));
}

// A raw attribute value starting with '=' is refused where it is written:
// printed back as `name==x` it would read as a comparison (hlo_module_fuzz
// finding 23: `buffer_donor= =.` made a printed module unparsable).
TEST(HloParserFormsTest, RawValueStartingWithEqualsIsRefused) {
  for (const char* text :
       {"HloModule m, buffer_donor= =.\nENTRY e { ROOT p = f32[] "
        "parameter(0) }",
        "HloModule m\nENTRY e { ROOT p = f32[] parameter(0), "
        "new_attribute= =1 }"}) {
    auto m = ParseHloModule(text);
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_THAT(std::string(m.status().message()),
                HasSubstr("cannot start with '='"))
        << m.status();
  }
  // `name=value` with the value right after '=' still parses.
  EXPECT_TRUE(ParseHloModule("HloModule m, buffer_donor={}\nENTRY e { ROOT p "
                             "= f32[] parameter(0) }")
                  .ok());
}

// Older and newer syntax XLA prints (issue 14): `HloModule name:` with a
// colon (older dumps) and buffer shapes `b(f32[2,4])` on custom-calls
// (newer XLA), read as the array shape with a warning.
TEST(HloParserFormsTest, HeaderColonAndBufferShapes) {
  auto colon = ParseHloModule(
      "HloModule old_dump:\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_TRUE(colon.ok()) << colon.status();
  EXPECT_EQ((*colon)->name(), "old_dump");
  auto colon_attrs = ParseHloModule(
      "HloModule old_dump, replica_count=2:\nENTRY e {\n  ROOT p = f32[] "
      "parameter(0)\n}\n");
  ASSERT_TRUE(colon_attrs.ok()) << colon_attrs.status();
  EXPECT_EQ((*colon_attrs)->config().replica_count, 2);

  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto m = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = f32[2,4] parameter(0)\n  ROOT c = "
      "b(f32[2,4]{1,0}) custom-call(b(f32[2,4]{1,0}) p), "
      "custom_call_target=\"foo\"\n}\n",
      options);
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* root = (*m)->entry()->root();
  EXPECT_EQ(root->shape().ToString(false), "f32[2,4]");
  EXPECT_EQ(root->operand(0)->name(), "p");
  ASSERT_FALSE(warnings.empty());
  EXPECT_THAT(warnings[0], HasSubstr("buffer shape"));
}

TEST(HloParserFormsTest, BareScalarForArrayConstantSetsElementZero) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto m = ParseHloModule("ENTRY e { ROOT c = f32[3,3] constant(7) }", options);
  ASSERT_TRUE(m.ok()) << m.status();
  const Literal& lit = (*m)->entry()->root()->literal();
  EXPECT_EQ(lit.GetAsDouble(0), 7.0);
  for (int i = 1; i < 9; ++i) EXPECT_EQ(lit.GetAsDouble(i), 0.0);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("element 0 only"));
}

TEST(HloParserFormsTest, InlineComputationAndExecutionThread) {
  auto m = MustParse(R"(HloModule m
%host_fn (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %n = f32[] negate(%p)
}, execution_thread="host"
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply={ x = f32[] parameter(0) y = f32[] parameter(1) ROOT s = f32[] add(x, y) }
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->FindComputation("host_fn")->execution_thread(), "host");
  EXPECT_EQ(m->entry()->root()->to_apply()->name(), "_");
  std::string printed = PrintModule(*m);
  EXPECT_THAT(printed, HasSubstr("}, execution_thread=\"host\""));
  auto m2 = MustParse(printed);
  ASSERT_NE(m2, nullptr);
  EXPECT_EQ(PrintModule(*m2), printed);
}

// ---------------------------------------------------------------------------
// (c) Errors with line:column.

struct ErrorCase {
  std::string text;
  std::string location;  // "line:col"
  std::string message;   // substring
};

TEST(HloParserErrorTest, LocatedMessages) {
  const std::vector<ErrorCase> cases = {
      {"HloModule m\nENTRY e {\n  ROOT r = f32[] bogus-op(x)\n}", "3:18",
       "unknown opcode 'bogus-op'"},
      {"ENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[] add(a, b)\n}",
       "3:25", "use of undefined instruction 'b'"},
      {"ENTRY e {\n  ROOT r = f32[] tuple-select(x)\n}", "2:18",
       "was removed from HLO"},
      {"ENTRY e {\n  a = f32[] parameter(0)\n  a = f32[] parameter(1)\n}",
       "3:3", "defined twice"},
      {"ENTRY e {\n  ROOT c = s8[] constant(200)\n}", "2:26",
       "out of range for s8"},
      {"ENTRY e {\n  ROOT c = f16[] constant(70000)\n}", "2:27",
       "out of range for f16"},
      {"ENTRY e {\n  ROOT c = s32[2] constant({1, 2, 3})\n}", "2:35",
       "too many elements"},
      {"ENTRY e {\n  ROOT c = s32[3] constant({1, 2})\n}", "2:28",
       "has 3 elements but the literal gives 2"},
      // Refused before the 4 GB of storage are allocated (a fuzzer finding:
      // spec/ir/testdata/fuzz_regressions/literal/huge_shape_short_text).
      // From the '{' on, the text is `{1, 2})\n}`: 9 characters.
      {"ENTRY e {\n  ROOT c = f32[1000000000] constant({1, 2})\n}", "2:37",
       "has more elements than the 9 characters of text that follow"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "negate(p), index=1\n}",
       "3:30", "attribute 'index' is not valid on 'negate'"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = pred[2] "
       "compare(p, p)\n}",
       "3:20", "requires the attribute 'direction'"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = pred[2] "
       "compare(p, p), direction=lt\n}",
       "3:45", "invalid direction 'lt'"},
      {"ENTRY e {\n  p = f32[2]{0,0} parameter(0)\n}", "2:16",
       "is not a new dimension"},
      {"ENTRY e {\n  p = f32[2] parameter(0) /* never closed\n}", "2:27",
       "unterminated /* comment"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = convert(p)\n}", "3:12",
       "cannot be inferred"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
       "reduce(p, p), dimensions={0}, to_apply=nope\n}",
       "3:58", "computation 'nope' is not defined"},
      {"ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[3] "
       "negate(f32[3] p)\n}",
       "3:26", "does not match the shape"},
      {"HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n", "4:1",
       "expected '}' to end the computation"},
      {"HloModule m, is_scheduled=true, is_scheduled=false\nENTRY e { ROOT "
       "p = f32[] parameter(0) }",
       "1:33", "given twice"},
      {"ENTRY e {\n  ROOT c = f32[100000,100000,100000] constant({...})\n}",
       "2:47",
       "needs 4000000000000000 bytes, more than the limit of "
       "17179869184 bytes (raise it with --max-bytes=BYTES)"},
      {"ENTRY e {\n  p = (s32[], f32[]) parameter(0)\n  ROOT r = f32[] "
       "negate(p#2)\n}",
       "3:26", "tuple index 2 is out of range"},
      {"%c (a: f32[]) -> s32[] {\n  ROOT a = f32[] parameter(0)\n}", "3:1",
       "declares result shape s32[]"},
      {"ENTRY e {\n  ROOT r = s32[2] iota(), iota_dimension=\"0\"\n}", "2:42",
       "expected an integer"},
      {"", "1:1", "the module has no computations"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    ParseOptions options;
    options.file_name = "t.hlo";
    options.max_literal_bytes = int64_t{16} << 30;
    auto m = ParseHloModule(c.text, options);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    std::string msg(m.status().message());
    EXPECT_THAT(msg,
                HasSubstr(absl::StrCat("t.hlo:", c.location, ": error: ")));
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_THAT(msg, HasSubstr("near '"));
    auto payload = m.status().GetPayload("hloref.location");
    ASSERT_TRUE(payload.has_value());
    EXPECT_EQ(std::string(*payload), absl::StrCat("t.hlo:", c.location));
  }
}

// Real dumps (issue 16): shapes are not limited, only what the parser
// allocates. The sizes are those of Llama 3.1 405B's embedding
// (128256 x 16384) and a 2^40-element activation; neither allocates.
TEST(HloParserLimitTest, ShapesOfAnySizeParse) {
  auto m = ParseHloModule(
      "HloModule jit_llama, "
      "entry_computation_layout={(bf16[128256,16384]{1,0}, "
      "s32[1,8]{1,0}, f32[1048576,1048576]{1,0})->bf16[1,8,16384]{2,1,0}}\n"
      "ENTRY main.5 {\n"
      "  Arg_0.1 = bf16[128256,16384]{1,0} parameter(0)\n"
      "  Arg_1.2 = s32[1,8]{1,0} parameter(1)\n"
      "  big = f32[1048576,1048576]{1,0} parameter(2)\n"
      "  ROOT g = bf16[1,8,16384]{2,1,0} gather(Arg_0.1, Arg_1.2), "
      "offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, "
      "index_vector_dim=2, slice_sizes={1,16384}\n"
      "}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->get()->entry()->parameter(0)->shape().num_elements(),
            int64_t{128256} * 16384);
  // Beyond 64 bits is still an error.
  auto over = ParseHloModule(
      "ENTRY e {\n  ROOT p = f32[4294967296,4294967296] parameter(0)\n}");
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(std::string(over.status().message()),
              HasSubstr("more elements than fit in a 64-bit integer"));
}

TEST(HloParserLimitTest, LiteralBytesLimitNamesTheFlag) {
  ParseOptions options;
  options.max_literal_bytes = 1000;
  options.limit_flag = "--max-bytes";
  // 16 x 16 f32 = 1024 bytes, elided or not.
  auto m = ParseHloModule(
      "ENTRY e {\n  ROOT c = f32[16,16]{1,0} constant({...})\n}", options);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("2:37: error: a literal of shape f32[16,16] needs 1024 "
                        "bytes, more than the limit of 1000 bytes (raise it "
                        "with --max-bytes=BYTES)"));
  options.max_literal_bytes = 1024;
  m = ParseHloModule("ENTRY e {\n  ROOT c = f32[16,16]{1,0} constant({...})\n}",
                     options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->get()->entry()->root()->literal().is_elided());
}

// An elided constant keeps its location (check and run name it by
// line:column) and, inside a tuple constant, marks every element.
TEST(HloParserLimitTest, ElidedConstantsKeepLocations) {
  auto m = ParseHloModule(
      "HloModule jit_f\n\nENTRY main.4 {\n"
      "  constant.1 = f32[16,16]{1,0} constant({...}), "
      "metadata={op_name=\"jit(f)/jit(main)/mul\" source_file=\"/tmp/f.py\" "
      "source_line=3}\n"
      "  constant.2 = (f32[8]{0}, s32[]) constant({...})\n"
      "  ROOT t = (f32[16,16]{1,0}, (f32[8]{0}, s32[])) tuple(constant.1, "
      "constant.2)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction* c1 = m->get()->entry()->FindInstruction("constant.1");
  EXPECT_TRUE(c1->literal().is_elided());
  EXPECT_EQ(c1->location().line, 4);
  EXPECT_EQ(c1->location().column, 3);
  const HloInstruction* c2 = m->get()->entry()->FindInstruction("constant.2");
  EXPECT_TRUE(c2->literal().is_elided());
  EXPECT_TRUE(c2->literal().tuple_element(0).is_elided());
  EXPECT_TRUE(c2->literal().tuple_element(1).is_elided());
}

TEST(HloParserErrorTest, DeepNestingIsRejectedNotOverflowed) {
  std::string deep = "ENTRY e { ROOT p = ";
  for (int i = 0; i < 100000; ++i) deep += "(";
  deep += "f32[]";
  auto m = ParseHloModule(deep);
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("nesting deeper"));
}

// ---------------------------------------------------------------------------
// (d) Mutations never crash or hang.

TEST(HloParserMutationTest, TruncatedAndMutatedTextNeverCrashes) {
  const auto started = std::chrono::steady_clock::now();
  std::mt19937 rng(20260513);
  ParseOptions options;
  options.max_literal_bytes = 1 << 18;
  int64_t parsed = 0, ok = 0;
  const std::string alphabet = "{}()[],:=%#\"'/*x_-.0123456789<>?!afsTSE\n ";
  for (const std::string& f : TestdataFiles()) {
    const std::string text = ReadTestdata(f);
    ASSERT_FALSE(text.empty());
    // Truncations.
    for (size_t cut = 0; cut < text.size(); cut += 1 + text.size() / 150) {
      auto m = ParseHloModule(absl::string_view(text).substr(0, cut), options);
      ok += m.ok();
      ++parsed;
    }
    // Random mutations.
    for (int trial = 0; trial < 1000; ++trial) {
      std::string t = text;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !t.empty(); ++k) {
        size_t pos = rng() % t.size();
        switch (rng() % 4) {
          case 0:
            t[pos] = alphabet[rng() % alphabet.size()];
            break;
          case 1:
            t.erase(pos, 1 + rng() % 8);
            break;
          case 2: {
            size_t len = std::min<size_t>(1 + rng() % 40, t.size() - pos);
            t.insert(pos, t.substr(pos, len));
            break;
          }
          case 3:
            t[pos] = static_cast<char>(rng() % 256);
            break;
        }
      }
      auto m = ParseHloModule(t, options);
      if (m.ok()) {
        // Whatever parses also prints and re-parses.
        std::string printed = PrintModule(**m);
        auto again = ParseHloModule(printed, options);
        EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
        ++ok;
      } else {
        EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
      }
      ++parsed;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  // About the uninstrumented parser: a quadratic path would take minutes.
  // The ASan + UBSan build (tools/ci/sanitize.sh) runs this loop about 3
  // times slower, 27 s measured on a loaded 2-core machine, so it gets 8
  // times the bound.
  EXPECT_LT(seconds, kUnderAddressSanitizer ? 80.0 : 10.0);
  EXPECT_GT(parsed, 4000);
  EXPECT_GT(ok, 0);
}

// ---------------------------------------------------------------------------
// (e) ParseShape / ParseLiteral.

TEST(ParseShapeTest, Forms) {
  auto s = ParseShape("f32[2, 3] {1, 0}");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->ToString(), "f32[2,3]{1,0}");
  s = ParseShape("(f32[], (s32[4], pred[]), token[])");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->tuple_size(), 3);
  EXPECT_EQ(s->tuple_shapes(1).tuple_shapes(0).dimensions(0), 4);
  EXPECT_FALSE(s->tuple_shapes(1).tuple_shapes(0).has_layout());
  s = ParseShape("()");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tuple_size(), 0);
  EXPECT_FALSE(ParseShape("f32[2]{1}").ok());
  EXPECT_FALSE(ParseShape("f32[-1]").ok());
  EXPECT_FALSE(ParseShape("tuple[]").ok());
  EXPECT_FALSE(ParseShape("f32[2] extra").ok());
  EXPECT_FALSE(ParseShape("f33[2]").ok());
}

// ParseLiteral honours ParseOptions::max_literal_bytes (the fuzz entries
// run with 16 MiB). A scalar for an array sets element 0 only, so this short
// text legitimately names a 100 MB literal: the limit refuses it by name.
TEST(ParseLiteralTest, OptionsLimitTheBytesAllocated) {
  ParseOptions options;
  options.max_literal_bytes = int64_t{1} << 20;
  auto l = ParseLiteral("pred[100000000] 1", options);
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(),
              HasSubstr("needs 100000000 bytes, more than the limit of "
                        "1048576 bytes (raise it with --max-bytes=BYTES)"));
  l = ParseLiteral("pred[1000] 1", options);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->element_count(), 1000);
  // Braces with fewer characters than the shape's elements: refused before
  // any allocation, whatever the limit.
  l = ParseLiteral("f32[1000000000]{0} {1}");
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(),
              HasSubstr("has more elements than the 3 characters of text"));
}

TEST(ParseLiteralTest, IntegersAreRangeChecked) {
  auto l = ParseLiteral("u64[2] {18446744073709551615, 0}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), ~uint64_t{0});
  l = ParseLiteral("s64[] -9223372036854775808");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsInt64(0), std::numeric_limits<int64_t>::min());
  l = ParseLiteral("s4[3] {-8, 7, 0}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsInt64(0), -8);
  EXPECT_FALSE(ParseLiteral("s4[] 8").ok());
  EXPECT_FALSE(ParseLiteral("u4[] 16").ok());
  EXPECT_FALSE(ParseLiteral("u8[] -1").ok());
  EXPECT_FALSE(ParseLiteral("s8[] -129").ok());
  EXPECT_FALSE(ParseLiteral("s32[] 2.0").ok());
  EXPECT_FALSE(ParseLiteral("u64[] 18446744073709551616").ok());
}

TEST(ParseLiteralTest, FloatsRoundAndKeepSpecials) {
  auto l = ParseLiteral("f32[4] {0.1, -0, inf, -nan}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), 0x3DCCCCCDu);  // 0.1f
  EXPECT_EQ(l->GetRawBits(1), 0x80000000u);  // -0 keeps its sign
  EXPECT_EQ(l->GetRawBits(2), 0x7F800000u);
  EXPECT_TRUE(std::isnan(l->GetAsDouble(3)));
  EXPECT_TRUE(std::signbit(l->GetAsDouble(3)));
  // NaN payloads are raw significand bits.
  l = ParseLiteral("f32[2] {nan(0x1), -nan(0x400000)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), 0x7F800001u);
  EXPECT_EQ(l->GetRawBits(1), 0xFFC00000u);
  l = ParseLiteral("f16[] nan(0x3ff)");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), 0x7FFFu);
  EXPECT_FALSE(ParseLiteral("f16[] nan(0x400)").ok());
  // Rounding to the type: f16 1/3 is 0x3555 (0.333251953125).
  l = ParseLiteral("f16[] 0.3333333333");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), 0x3555u);
  EXPECT_FALSE(ParseLiteral("f16[] 65520").ok());
  EXPECT_FALSE(ParseLiteral("f32[] 1e39").ok());
  EXPECT_FALSE(ParseLiteral("f64[] 1e400").ok());
  l = ParseLiteral("f8e4m3fn[2] {448, -0.001953125}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetRawBits(0), 0x7Eu);
  EXPECT_EQ(l->GetRawBits(1), 0x81u);
}

TEST(ParseLiteralTest, PredComplexTuplesAndShapes) {
  auto l = ParseLiteral("pred[3] {true, 0, 1}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsInt64(0), 1);
  EXPECT_EQ(l->GetAsInt64(1), 0);
  EXPECT_FALSE(ParseLiteral("pred[] 2").ok());
  l = ParseLiteral("c64[2] {(1, -2.5), (inf, 0)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsComplex(0), std::complex<double>(1, -2.5));
  EXPECT_TRUE(std::isinf(l->GetAsComplex(1).real()));
  l = ParseLiteral("(f32[], s32[2]) (1.5, {3, 4})");
  ASSERT_TRUE(l.ok()) << l.status();
  ASSERT_EQ(l->tuple_size(), 2);
  EXPECT_EQ(l->tuple_element(1).GetAsInt64(1), 4);
  // Without a layout the braces are the value; with one, the layout.
  l = ParseLiteral("f32[2] {1, 2}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsDouble(1), 2.0);
  l = ParseLiteral("f32[2,1]{0,1} { {1}, {2} }");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->shape().layout().minor_to_major, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(l->GetAsDouble(1), 2.0);
  l = ParseLiteral("f32[1,1,1,2] { { /*i0=0*/ { /*i1=0*/ { 1, 2 } } } }");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsDouble(1), 2.0);
  l = ParseLiteral("f32[0,3] {  }");
  ASSERT_TRUE(l.ok()) << l.status();
  l = ParseLiteral("f32[2,0] { {}, {} }");
  ASSERT_TRUE(l.ok()) << l.status();
  l = ParseLiteral("f32[100] {...}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->is_elided());

  Shape shape = Shape::Array(PrimitiveType::kS32, {2, 2});
  l = ParseLiteralWithShape(shape, "{ {1, 2}, {3, 4} }");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsInt64(2), 3);
  EXPECT_FALSE(ParseLiteralWithShape(shape, "{ {1, 2}, {3} }").ok());
}

TEST(ParseLiteralTest, PrintedLiteralsParseBack) {
  for (const char* text :
       {"f32[3] {0.1, 1e+10, -3.25}", "bf16[2] {0.333984375, -inf}",
        "s8[2,2] { {1, -2}, {3, 127} }", "c128[] (1e-300, -0)",
        "f8e5m2[3] {1, 57344, nan}", "u1[4] {1, 0, 1, 1}"}) {
    SCOPED_TRACE(text);
    auto l = ParseLiteral(text);
    ASSERT_TRUE(l.ok()) << l.status();
    auto again = ParseLiteral(l->ToString());
    ASSERT_TRUE(again.ok()) << again.status() << " " << l->ToString();
    EXPECT_TRUE(again->BitwiseEquals(*l)) << l->ToString();
  }
}

// An attribute the op table does not know (another XLA version's) is kept
// verbatim with a warning and printed back; it never fails the parse.
TEST(HloParserUnknownAttributeTest, KeptVerbatimWithWarning) {
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto m = ParseHloModule(
      "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] "
      "reverse(p), dimensions={0}, future_hint={a=1, b=\"x\"}\n}",
      options);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("3:47"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("unknown attribute 'future_hint'"),
            std::string::npos)
      << warnings[0];
  const HloInstruction* r = (*m)->entry()->root();
  ASSERT_EQ(r->attrs().unknown_attributes.size(), 1u);
  EXPECT_EQ(r->attrs().unknown_attributes[0].first, "future_hint");
  EXPECT_EQ(r->attrs().unknown_attributes[0].second, "{a=1, b=\"x\"}");
  const std::string printed = PrintModule(**m);
  EXPECT_NE(printed.find("future_hint={a=1, b=\"x\"}"), std::string::npos)
      << printed;
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);
}

// Instructions named like element types (`s1`, `u4` are types since
// 2024): the definition and the use both parse.
TEST(HloParserNamesTest, InstructionNamedLikeATypeIsUsableAsOperand) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  s1 = f32[2] negate(x)
  u4 = f32[2] add(s1, x)
  ROOT r = f32[2] multiply(f32[2] u4, s1)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* r = (*module)->entry()->root();
  EXPECT_EQ(r->operand(0)->name(), "u4");
  EXPECT_EQ(r->operand(1)->name(), "s1");
}

// A verbatim layout field whose parentheses hold a quoted ')' prints back
// as one field, so the printed literal parses to the same text
// (literal_fuzz finding 21: the printer split it at the quoted ')').
TEST(ParseLiteralTest, LayoutFieldWithQuotedParenRoundTrips) {
  auto lit = ParseLiteral("f32[2]{0:*(\")\")M(8)} {1, 2}");
  ASSERT_TRUE(lit.ok()) << lit.status();
  const std::string printed = lit->ToString();
  EXPECT_THAT(printed, HasSubstr("*(\")\")")) << printed;
  auto again = ParseLiteral(printed);
  ASSERT_TRUE(again.ok()) << printed << ": " << again.status();
  EXPECT_EQ(again->ToString(), printed);
}

// Bounded dynamic literals read back as the printer writes them (and XLA
// prints them): the runtime sizes in parentheses, then the valid elements.
TEST(ParseLiteralTest, DynamicLiteralRoundTrips) {
  auto lit = ParseLiteral("s32[<=3,2]{1,0}(2,2) {{1, 2}, {3, 4}}");
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_EQ(lit->shape().dimensions(0), 3);
  EXPECT_TRUE(lit->shape().is_dynamic_dimension(0));
  EXPECT_EQ(lit->GetDynamicSize(0), 2);
  EXPECT_EQ(lit->GetDynamicSize(1), 2);
  auto valid = ParseLiteral("s32[2,2]{1,0} {{1, 2}, {3, 4}}");
  ASSERT_TRUE(valid.ok());
  EXPECT_EQ(lit->ToStatic(), *valid);
  // Printed, it parses back to the same runtime sizes and values.
  auto again = ParseLiteral(lit->ToString());
  ASSERT_TRUE(again.ok()) << lit->ToString() << ": " << again.status();
  EXPECT_EQ(again->GetDynamicSize(0), 2);
  EXPECT_EQ(again->ToStatic(), *valid);
  // Sizes beyond a bound, or not one per dimension, are located errors.
  EXPECT_FALSE(ParseLiteral("s32[<=3](4) {1, 2, 3, 4}").ok());
  EXPECT_FALSE(ParseLiteral("s32[<=3,2](2) {{1, 2}, {3, 4}}").ok());
  // A negative runtime size is refused where it is written, before any
  // storage is sized from it (literal_fuzz finding 18: `f32[?]{0}(-5)`
  // asked the allocator for -20 bytes and aborted).
  for (const char* text :
       {"f32[?]{0}(-5)+e32}", "f32[<=3](-1) {}", "f32[?](-5) {1}"}) {
    auto bad = ParseLiteral(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_THAT(std::string(bad.status().message()),
                testing::HasSubstr("is negative"))
        << text << ": " << bad.status();
  }
  // An elided tuple constant gets storage for every element: an unbounded
  // element, nested or not, is refused the same way (literal_fuzz finding
  // 20: `(..., f32[?]){...}` aborted in Shape::num_elements).
  for (const char* text : {"(s4[2], f32[1], f32[?]){...}",
                           "((f32[], (s32[<=2], f32[2,?]))){...}"}) {
    auto bad = ParseLiteral(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_THAT(std::string(bad.status().message()),
                testing::HasSubstr("cannot have the unbounded shape"))
        << text << ": " << bad.status();
  }
  // Bounded elements of an elided tuple still parse.
  EXPECT_TRUE(ParseLiteral("(s32[<=2], f32[2]){...}").ok());
}

// An elided dynamic literal prints with its runtime sizes and parses back
// elided, with the same sizes (literal_fuzz finding 22: the runtime-size
// path dropped the elided mark, so the printed `(2) {...}` came back as an
// ordinary literal of unread storage). Sizes that do not fit the bounds
// are refused for elided literals too, and the bounded storage's size is
// checked.
TEST(ParseLiteralTest, ElidedDynamicLiteralRoundTrips) {
  auto lit = ParseLiteral("f32[<=4,3]{1,0}(2,3) {...}");
  ASSERT_TRUE(lit.ok()) << lit.status();
  EXPECT_TRUE(lit->is_elided());
  EXPECT_EQ(lit->GetDynamicSize(0), 2);
  EXPECT_EQ(lit->ToString(), "f32[<=4,3]{1,0}(2,3) {...}");
  auto again = ParseLiteral(lit->ToString());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->is_elided());
  EXPECT_TRUE(again->BitwiseEquals(*lit));
  // Elided with other runtime sizes: not equal.
  auto other = ParseLiteral("f32[<=4,3]{1,0}(3,3) {...}");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->BitwiseEquals(*lit));
  for (const char* text : {"f32[<=4,3](5,3) {...}", "f32[<=4,3](2,2) {...}"}) {
    auto bad = ParseLiteral(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_THAT(std::string(bad.status().message()),
                testing::HasSubstr("does not fit"))
        << text << ": " << bad.status();
  }
  ParseOptions small;
  small.max_literal_bytes = 1024;
  EXPECT_FALSE(ParseLiteral("f32[<=100000](1) {...}", small).ok());
  EXPECT_FALSE(ParseLiteral("f32[<=100000](1) {7}", small).ok());
}

}  // namespace
}  // namespace hloref
