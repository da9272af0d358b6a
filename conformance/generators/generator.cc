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
#include "spec/util/status_macros.h"
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
    // Sizes that are no multiple of a vector width or tile, for compiled
    // backends' loop tails (rank <= 2 keeps the element count small).
    if (r == 3 && rank <= 2) {
      constexpr int64_t kOdd[] = {17, 31, 65, 127};
      d = kOdd[rng.Below(4)];
    }
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
  if (FamilyGenerator misc = MiscGeneratorFor(opcode)) return misc;
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
    case OpFamily::kHostIo:
      return &GenerateHostIo;
    case OpFamily::kAsync:
      return &GenerateAsync;
    case OpFamily::kCustomCall:
      return &GenerateCustomCall;
    case OpFamily::kCollectives:
      return &GenerateCollectives;
    default:
      return nullptr;
  }
}

}  // namespace gen

namespace {

constexpr int kMaxAttempts = 96;

std::string ModuleText(const gen::Draw& draw, const std::string& name,
                       const std::string& result_shape,
                       bool print_layouts = false) {
  // The header states the participants only when there are several, so
  // single-participant modules keep the plain header they always had.
  std::string header = absl::StrCat("HloModule ", name);
  if (draw.replica_count != 1 || draw.partition_count != 1) {
    absl::StrAppend(&header, ", replica_count=", draw.replica_count,
                    ", num_partitions=", draw.partition_count);
  }
  std::string text =
      absl::StrCat(header, "\n\n", draw.computations, "ENTRY main {\n");
  for (size_t i = 0; i < draw.params.size(); ++i) {
    // A case about `parameter` declares its root parameter on the ROOT line.
    if (draw.op_text == absl::StrCat("parameter(", i, ")")) continue;
    absl::StrAppend(&text, "  p", i, " = ",
                    draw.params[i].shape.ToString(print_layouts),
                    " parameter(", i, ")\n");
  }
  absl::StrAppend(&text, draw.prelude, "  ROOT r = ", result_shape, " ",
                  draw.op_text, "\n}\n");
  return text;
}

// Whether any instruction of `module` exchanges values with the host:
// infeed, outfeed, or send/recv (and their -done halves) marked
// is_host_transfer=true.
bool UsesHost(const HloModule& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      switch (inst->opcode()) {
        case HloOpcode::kInfeed:
        case HloOpcode::kOutfeed:
          return true;
        case HloOpcode::kSend:
        case HloOpcode::kSendDone:
        case HloOpcode::kRecv:
        case HloOpcode::kRecvDone:
          if (inst->attrs().is_host_transfer) return true;
          break;
        default:
          break;
      }
    }
  }
  return false;
}

// A value for `hloref run` (an ARG, --infeed=, --recv=C:): arrays as .npy
// files; tuples (and tokens), which .npy cannot hold, as literal text files.
absl::StatusOr<std::string> WriteValueFile(const Literal& value,
                                           const std::string& stem) {
  if (value.shape().IsArray()) {
    const std::string path = stem + ".npy";
    HLOREF_RETURN_IF_ERROR(WriteNpyFile(value, path));
    return path;
  }
  const std::string path = stem + ".txt";
  std::ofstream out(path);
  out << value.ToString() << "\n";
  if (!out) {
    return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  }
  return path;
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

// Gives every array parameter of rank >= 2 and an array result of rank >= 2
// a random permutation layout, for a quarter of the seeds; false (nothing
// changed) for the other seeds and for ops whose meaning depends on the
// layout (bitcast) or whose shapes travel through other channels (host
// I/O, parameter cases, custom-call).
bool DrawLayouts(HloOpcode opcode, uint64_t seed, gen::Draw* draw,
                 Shape* result) {
  switch (opcode) {
    case HloOpcode::kBitcast:
    case HloOpcode::kParameter:
    case HloOpcode::kCustomCall:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return false;
    default:
      break;
  }
  gen::Rng rng(seed * 0xA24BAED4963EE407ull + 0x9FB21C651E98DF25ull +
               static_cast<uint64_t>(opcode));
  if (rng.Below(4) != 0) return false;
  bool changed = false;
  auto permute = [&](Shape* s) {
    if (!s->IsArray() || s->rank() < 2) return;
    std::vector<int64_t> m2m(s->rank());
    for (int64_t i = 0; i < s->rank(); ++i) m2m[i] = i;
    for (int64_t i = s->rank() - 1; i > 0; --i) {
      std::swap(m2m[i], m2m[rng.Below(static_cast<uint64_t>(i) + 1)]);
    }
    Layout layout;
    layout.minor_to_major = m2m;
    s->set_layout(layout);
    changed = true;
  };
  for (gen::ParamSpec& p : draw->params) permute(&p.shape);
  permute(result);
  return changed;
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
    // A quarter of the cases give the entry's parameters and result
    // random non-default layouts (drawn from their own stream, so the draw
    // itself does not change): compiled backends must honour them.
    const bool layouts = DrawLayouts(opcode, seed, &*draw, &result);
    GeneratedCase c;
    c.module_text = ModuleText(*draw, module_name, result.ToString(layouts),
                               layouts);
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
    c.replica_count = draw->replica_count;
    c.partition_count = draw->partition_count;
    // Participant i's arguments: the fixed values where the draw gives
    // them, else values drawn from the specs.
    auto draw_args = [&](int64_t participant) {
      std::vector<Literal> args;
      for (size_t k = 0; k < draw->params.size(); ++k) {
        auto fixed =
            draw->fixed_values.find({participant, static_cast<int64_t>(k)});
        args.push_back(fixed != draw->fixed_values.end()
                           ? fixed->second
                           : gen::MakeValues(draw->params[k], rng));
      }
      return args;
    };
    c.args = draw_args(0);
    if (draw->per_participant_args && c.replicated()) {
      // Participant 0 keeps the values drawn above (c.args, which reports
      // and replays show); the others draw their own from the same specs,
      // so a collective combines values that differ per participant.
      c.participant_args.push_back(c.args);
      for (int64_t i = 1; i < c.replica_count * c.partition_count; ++i) {
        c.participant_args.push_back(draw_args(i));
      }
    }
    for (const gen::ParamSpec& p : draw->infeed) {
      c.host.infeed.push_back(gen::MakeValues(p, rng));
    }
    for (const auto& [channel, specs] : draw->recv) {
      for (const gen::ParamSpec& p : specs) {
        c.host.recv[channel].push_back(gen::MakeValues(p, rng));
      }
    }
    c.uses_host =
        UsesHost(*c.module) || !draw->infeed.empty() || !draw->recv.empty();
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
  std::string replay = "hloref run";
  if (c.replicated()) {
    // num_partitions comes from the module header; --replicas restates
    // the header's replica_count (hloref run checks they agree).
    absl::StrAppend(&replay, " --replicas=", c.replica_count);
  }
  for (size_t i = 0; i < c.host.infeed.size(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(
        std::string path,
        WriteValueFile(c.host.infeed[i], absl::StrCat(dir, "/infeed_", i)));
    absl::StrAppend(&replay, " --infeed=", path);
  }
  for (const auto& [channel, values] : c.host.recv) {
    for (size_t i = 0; i < values.size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(
          std::string path,
          WriteValueFile(values[i],
                         absl::StrCat(dir, "/recv_", channel, "_", i)));
      absl::StrAppend(&replay, " --recv=", channel, ":", path);
    }
  }
  absl::StrAppend(&replay, " ", dir, "/module.hlo");
  for (size_t k = 0; k < c.args.size(); ++k) {
    HLOREF_ASSIGN_OR_RETURN(
        std::string path,
        WriteValueFile(c.args[k], absl::StrCat(dir, "/arg_", k)));
    absl::StrAppend(&replay, " ", path);
  }
  // Per-participant arguments: DIR/p<i>/arg_<k>.npy for participant i
  // (replica i / partitions, partition i % partitions).
  for (size_t i = 0; i < c.participant_args.size(); ++i) {
    const std::string sub = absl::StrCat(dir, "/p", i);
    std::filesystem::create_directories(sub, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot create '", sub, "': ", ec.message()));
    }
    for (size_t k = 0; k < c.participant_args[i].size(); ++k) {
      HLOREF_RETURN_IF_ERROR(WriteValueFile(c.participant_args[i][k],
                                            absl::StrCat(sub, "/arg_", k))
                                 .status());
    }
  }
  std::ofstream(dir + "/module.hlo") << c.module_text;
  std::ofstream readme(dir + "/README");
  readme << "Generated case " << c.id << " (op " << HloOpcodeString(c.opcode)
         << ", seed " << c.seed << ").\n";
  if (c.replicated()) {
    readme << "Participants: " << c.replica_count << " replica(s) x "
           << c.partition_count
           << " partition(s) (module header); participant i is replica i / "
           << c.partition_count << ", partition i % " << c.partition_count
           << ".\n";
  }
  readme << "Replay on the oracle:\n  " << replay << "\n";
  if (!c.participant_args.empty()) {
    readme << "Every participant has its own arguments: p<i>/arg_<k>.npy "
              "for participant i\n(arg_<k>.npy above are participant 0's). "
              "Replay with every participant's own\nvalues, as the suite "
              "judged the case:\n  hloref run --replicas="
           << c.replica_count << " --participant-args=" << dir << " " << dir
           << "/module.hlo\n";
  }
  if (c.uses_host) {
    readme << "Host transfers: infeed_<i> / recv_<channel>_<i> are queued "
              "in order with\n--infeed= / --recv=CHANNEL:; outfeed values "
              "and host-transfer sends are\nprinted after the result and "
              "compared with the oracle's by the suite.\n";
  }
  if (!readme) {
    return absl::InternalError(absl::StrCat("cannot write in '", dir, "'"));
  }
  return absl::OkStatus();
}

}  // namespace hloref::conformance
