// The generated-case driver (see generator.h): draws from the op's family
// generator, lets the verifier infer the result shape and reject invalid
// draws, fills the arguments, and writes replayable case directories.
#include "conformance/generators/generator.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "conformance/generators/draw.h"
#include "spec/ir/hlo_parser.h"
#include "spec/types/npy.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace gen {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

absl::Span<const PrimitiveType> CandidateTypes() {
  static const std::vector<PrimitiveType>* types = [] {
    auto* v = new std::vector<PrimitiveType>;
    for (PrimitiveType t : AllArrayTypes()) v->push_back(t);
    return v;
  }();
  return *types;
}

PrimitiveType DrawType(Rng& rng) {
  // Half of the draws use the types most programs use, so they get the
  // most coverage; the other half spreads over every element type.
  static constexpr PrimitiveType kCommon[] = {
      PrimitiveType::kF32,  PrimitiveType::kF64, PrimitiveType::kF16,
      PrimitiveType::kBF16, PrimitiveType::kS32, PrimitiveType::kU8,
      PrimitiveType::kPred, PrimitiveType::kC64};
  if (rng.Chance(0.5)) return kCommon[rng.Below(8)];
  return rng.Pick(CandidateTypes());
}

PrimitiveType DrawFloatType(Rng& rng) {
  static const std::vector<PrimitiveType>* types = [] {
    auto* v = new std::vector<PrimitiveType>;
    for (PrimitiveType t : AllArrayTypes()) {
      if (IsFloat(t)) v->push_back(t);
    }
    return v;
  }();
  // Half of the draws use the common types, so they get most coverage.
  if (rng.Chance(0.5)) {
    static constexpr PrimitiveType kCommon[] = {
        PrimitiveType::kF32, PrimitiveType::kF64, PrimitiveType::kF16,
        PrimitiveType::kBF16};
    return kCommon[rng.Below(4)];
  }
  return rng.Pick(absl::Span<const PrimitiveType>(*types));
}

PrimitiveType DrawNumericType(Rng& rng) {
  for (;;) {
    PrimitiveType t = DrawType(rng);
    if (!IsPred(t)) return t;
  }
}

std::vector<int64_t> DrawDims(Rng& rng, int min_rank, int max_rank) {
  const int rank = static_cast<int>(rng.Range(min_rank, max_rank));
  std::vector<int64_t> dims(rank);
  for (int64_t& d : dims) {
    const uint64_t r = rng.Below(20);
    d = r == 0 ? 0
               : (r == 1 ? 7 : (r == 2 ? rng.Range(8, 17) : rng.Range(1, 5)));
  }
  return dims;
}

std::string ShapeText(PrimitiveType type, absl::Span<const int64_t> dims) {
  return absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","),
                      "]");
}

std::string ListText(absl::Span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string BinaryComputation(const std::string& name,
                              const std::string& op_name, PrimitiveType type) {
  const std::string t(PrimitiveTypeName(type));
  return absl::StrCat(name, " {\n  a = ", t, "[] parameter(0)\n  b = ", t,
                      "[] parameter(1)\n  ROOT c = ", t, "[] ", op_name,
                      "(a, b)\n}\n\n");
}

std::vector<int64_t> Permutation(Rng& rng, int64_t n) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(p[i], p[rng.Below(static_cast<uint64_t>(i + 1))]);
  }
  return p;
}

FamilyGenerator GeneratorFor(HloOpcode opcode) {
  switch (GetOpInfo(opcode).family) {
    case OpFamily::kElementwiseUnary:
      return &GenerateElementwiseUnary;
    case OpFamily::kElementwiseBinary:
      return &GenerateElementwiseBinary;
    case OpFamily::kCompareSelect:
      return &GenerateCompareSelect;
    case OpFamily::kConvert:
      return &GenerateConvert;
    case OpFamily::kShape:
      return &GenerateShape;
    case OpFamily::kSlicing:
      return &GenerateSlicing;
    case OpFamily::kConcatPad:
      return &GenerateConcatPad;
    case OpFamily::kDot:
      return &GenerateDot;
    case OpFamily::kConvolution:
      return &GenerateConvolution;
    case OpFamily::kReduce:
      return &GenerateReduce;
    case OpFamily::kGatherScatter:
      return &GenerateGatherScatter;
    case OpFamily::kSort:
      return &GenerateSort;
    case OpFamily::kTupleToken:
      return &GenerateTupleToken;
    case OpFamily::kControlFlow:
      return &GenerateControlFlow;
    case OpFamily::kRng:
      return &GenerateRng;
    case OpFamily::kFft:
      return &GenerateFft;
    case OpFamily::kLinalg:
      return &GenerateLinalg;
    case OpFamily::kBatchNorm:
      return &GenerateBatchNorm;
    default:
      return nullptr;
  }
}

}  // namespace gen

namespace {

constexpr int kMaxAttempts = 96;

std::string ModuleText(const gen::Draw& draw, const std::string& name,
                       const std::string& result_shape) {
  std::string text = absl::StrCat("HloModule ", name, "\n\n", draw.computations,
                                  "ENTRY main {\n");
  for (size_t i = 0; i < draw.params.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ",
                    draw.params[i].shape.ToString(/*print_layout=*/false),
                    " parameter(", i, ")\n");
  }
  absl::StrAppend(&text, draw.prelude, "  ROOT r = ", result_shape, " ",
                  draw.op_text, "\n}\n");
  return text;
}

// Probes whether the op's generator exists and does not refuse the op.
bool GeneratorAccepts(HloOpcode opcode) {
  gen::FamilyGenerator g = gen::GeneratorFor(opcode);
  if (g == nullptr) return false;
  gen::Rng rng(1);
  auto d = g(opcode, rng);
  return d.ok() || d.status().code() != absl::StatusCode::kUnimplemented;
}

}  // namespace

std::vector<HloOpcode> GeneratedOps() {
  static const std::vector<HloOpcode>* ops = [] {
    auto* v = new std::vector<HloOpcode>;
    for (const OpInfo& info : AllOps()) {
      if (GeneratorAccepts(info.opcode)) v->push_back(info.opcode);
    }
    return v;
  }();
  return *ops;
}

bool HasGenerator(HloOpcode opcode) {
  for (HloOpcode op : GeneratedOps()) {
    if (op == opcode) return true;
  }
  return false;
}

absl::StatusOr<GeneratedCase> GenerateCase(HloOpcode opcode, uint64_t seed) {
  gen::FamilyGenerator g = gen::GeneratorFor(opcode);
  const std::string op_name(HloOpcodeString(opcode));
  if (g == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("no case generator for op '", op_name, "' (family ",
                     OpFamilyName(GetOpInfo(opcode).family), ")"));
  }
  const std::string module_name = absl::StrCat(
      "gen_", absl::StrReplaceAll(op_name, {{"-", "_"}}), "_", seed);
  std::string last_error = "no draw";
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    gen::Rng rng((seed * 0x9E3779B97F4A7C15ull) ^
                 ((static_cast<uint64_t>(opcode) + 1) << 40) ^
                 (static_cast<uint64_t>(attempt) * 0xD1B54A32D192ED03ull));
    absl::StatusOr<gen::Draw> draw = g(opcode, rng);
    if (!draw.ok()) {
      if (draw.status().code() == absl::StatusCode::kUnimplemented) {
        return draw.status();
      }
      last_error = std::string(draw.status().message());
      continue;
    }
    Shape result;
    if (draw->result_shape.has_value()) {
      result = *draw->result_shape;
    } else {
      // A placeholder result of the operands' element type: InferShape
      // keeps the stated element type where the text may choose it (dot's
      // preferred element type).
      const PrimitiveType placeholder =
          draw->params.empty() ? PrimitiveType::kF32
                               : draw->params[0].shape.element_type();
      auto probe = ParseHloModule(
          ModuleText(*draw, module_name,
                     absl::StrCat(PrimitiveTypeName(placeholder), "[]")));
      if (!probe.ok()) {
        last_error = std::string(probe.status().message());
        continue;
      }
      auto inferred = InferShape(*(*probe)->entry()->root());
      if (!inferred.ok()) {
        last_error = std::string(inferred.status().message());
        continue;
      }
      result = *inferred;
    }
    GeneratedCase c;
    c.module_text =
        ModuleText(*draw, module_name, result.ToString(/*print_layout=*/false));
    auto module = ParseHloModule(c.module_text);
    if (!module.ok()) {
      last_error = std::string(module.status().message());
      continue;
    }
    if (absl::Status v = VerifyModule(**module); !v.ok()) {
      last_error = std::string(v.message());
      continue;
    }
    c.module = std::shared_ptr<const HloModule>(std::move(*module));
    for (const gen::ParamSpec& p : draw->params) {
      c.args.push_back(gen::MakeValues(p, rng));
    }
    c.opcode = opcode;
    c.seed = seed;
    c.id = absl::StrCat("gen/", op_name, "/", seed);
    c.type = draw->type;
    if (c.type == PrimitiveType::kInvalid) {
      if (!draw->params.empty()) {
        c.type = draw->params[0].shape.element_type();
      } else {
        c.type = result.IsTuple() && result.tuple_size() > 0
                     ? result.tuple_shapes(0).element_type()
                     : result.element_type();
      }
    }
    return c;
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no valid draw for '", op_name, "' seed ", seed, " in ",
                   kMaxAttempts, " attempts (last: ", last_error, ")"));
}

absl::Status WriteCaseDir(const GeneratedCase& c, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create '", dir, "': ", ec.message()));
  }
  std::string replay = absl::StrCat("hloref run ", dir, "/module.hlo");
  for (size_t k = 0; k < c.args.size(); ++k) {
    HLOREF_RETURN_IF_ERROR(
        WriteNpyFile(c.args[k], absl::StrCat(dir, "/arg_", k, ".npy")));
    absl::StrAppend(&replay, " ", dir, "/arg_", k, ".npy");
  }
  std::ofstream(dir + "/module.hlo") << c.module_text;
  std::ofstream readme(dir + "/README");
  readme << "Generated case " << c.id << " (op " << HloOpcodeString(c.opcode)
         << ", seed " << c.seed << ").\nReplay on the oracle:\n  " << replay
         << "\n";
  if (!readme) {
    return absl::InternalError(absl::StrCat("cannot write in '", dir, "'"));
  }
  return absl::OkStatus();
}

}  // namespace hloref::conformance
