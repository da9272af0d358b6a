// `hloref conformance --suite=stablehlo:DIR`: StableHLO's test-data format
// (.mlir files whose @main checks values with check.expect_eq /
// expect_almost_eq / expect_close) run on a backend.
#include "tools/hloref/stablehlo_suite.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/registry.h"
#include "conformance/compare/comparator.h"
#include "conformance/diff/diff.h"
#include "conformance/diff/slice.h"
#include "interpreter/evaluator.h"
#include "spec/stablehlo/stablehlo_reader.h"
#include "spec/verifier/verifier.h"

namespace hloref::tools {
namespace {

// The float element `i` as an integer that orders like the value, so the
// difference of two is their ULP distance (IEEE-like sign-magnitude
// encodings: f64, f32, f16, bf16, the f8 types with a sign bit).
int64_t OrderedBits(const Literal& x, int64_t i) {
  const PrimitiveType t = x.shape().element_type();
  const int bytes = StorageBytes(t);
  const int width = BitWidth(t);
  uint64_t bits = 0;
  std::memcpy(&bits, x.raw().data() + i * bytes, bytes);
  if (width < 64) bits &= (uint64_t{1} << width) - 1;
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

// StableHLO's check semantics for one element; empty when it holds.
std::string JudgeElement(const std::string& kind, const Literal& got,
                         const Literal& want, int64_t i) {
  const PrimitiveType t = got.shape().element_type();
  auto show = [&] {
    return absl::StrCat("element ", i, ": got ", got.ElementToString(i),
                        ", expected ", want.ElementToString(i));
  };
  if (IsFloat(t)) {
    const double a = got.GetAsDouble(i), b = want.GetAsDouble(i);
    if (std::isnan(a) && std::isnan(b)) return "";
    if (kind == "eq")
      return a == b && std::signbit(a) == std::signbit(b) ? "" : show();
    if (a == b) return "";
    if (kind == "almost_eq") return std::fabs(a - b) <= 1e-3 ? "" : show();
    // close: at most 3 ULP apart.
    const int64_t d = OrderedBits(got, i) - OrderedBits(want, i);
    return std::llabs(d) <= 3 ? "" : show() + absl::StrCat(" (", d, " ULP)");
  }
  if (IsComplex(t)) {
    const auto a = got.GetAsComplex(i), b = want.GetAsComplex(i);
    if (a == b) return "";
    if (kind == "eq") return show();
    // almost_eq: each part within 1e-3; close: each part within 3 ULP of
    // the component type, measured as 3 * epsilon relative to the larger.
    const double eps = t == PrimitiveType::kC64 ? 0x1p-23 : 0x1p-52;
    auto near = [&](double x, double y) {
      if (std::isnan(x) && std::isnan(y)) return true;
      if (kind == "almost_eq") return std::fabs(x - y) <= 1e-3;
      return std::fabs(x - y) <= 3 * eps * std::max(std::fabs(x), std::fabs(y));
    };
    return near(a.real(), b.real()) && near(a.imag(), b.imag()) ? "" : show();
  }
  return got.ElementToString(i) == want.ElementToString(i) ? "" : show();
}

std::string Judge(const std::string& kind, const Literal& got,
                  const Literal& want) {
  if (got.ShapeString() != want.ShapeString()) {
    return absl::StrCat("shape ", got.ShapeString(), ", expected ",
                        want.ShapeString());
  }
  if (got.shape().IsTuple()) return "a tuple value is not checked";
  for (int64_t i = 0; i < got.element_count(); ++i) {
    std::string e = JudgeElement(kind, got, want, i);
    if (!e.empty()) return e;
  }
  return "";
}

// The oracle's verdict on check `k`: empty when the backend's checked
// value `got` agrees with the oracle (see stablehlo_suite.h); else why.
// `note` gets the whole value's comparison when agreement is found only
// per instruction.
std::string JudgeAgainstOracle(const HloModule& module, size_t k,
                               const Literal& got, backends::Backend& backend,
                               const StableHloSuiteOptions& options,
                               std::string* note) {
  const HloInstruction* root = module.entry()->root();
  if (root->opcode() != HloOpcode::kTuple ||
      static_cast<size_t>(root->operand_count()) <= 2 * k) {
    return "the converted module does not return the checked values";
  }
  const HloInstruction* checked = root->operand(static_cast<int64_t>(2 * k));
  // The checked value as the output of a module of its own: the comparator
  // takes the error class of the op at the root (conformance/compare).
  absl::StatusOr<conformance::EntrySlice> slice = conformance::SliceEntry(
      module, *checked, {}, absl::StrCat("checked_", k));
  if (!slice.ok()) {
    return absl::StrCat("cannot isolate the checked value: ",
                        slice.status().message());
  }
  EvaluatorOptions eval_options;
  eval_options.profile = Profile::kXla;
  eval_options.compute_error_data = true;
  Evaluator evaluator(eval_options);
  absl::StatusOr<EvalResult> oracle = evaluator.Run(*slice->module, {});
  if (!oracle.ok()) {
    return absl::StrCat("the oracle cannot evaluate the checked value: ",
                        oracle.status().message());
  }
  conformance::CompareConfig config;
  config.profile = options.profile;
  config.deviations = options.deviations;
  std::vector<Literal> values;
  values.push_back(got);
  conformance::ComparisonResult cmp = conformance::CompareToOracle(
      *slice->module, {}, *oracle, nullptr, values, config);
  if (cmp.ok) return "";
  if (!cmp.structure_error.empty()) return cmp.structure_error;
  // numerics.md decision 7: a value computed by several instructions is
  // judged per instruction, each fed the oracle's operands.
  conformance::DiffOptions diff_options;
  diff_options.profile = options.profile;
  diff_options.deviations = options.deviations;
  absl::StatusOr<conformance::DiffResult> diff =
      conformance::DiffModule(*slice->module, {}, backend, diff_options);
  if (!diff.ok()) {
    return absl::StrCat(cmp.Summary(), " (per-instruction judgement failed: ",
                        diff.status().message(), ")");
  }
  if (diff->first_departure >= 0) {
    const conformance::InstructionVerdict& v =
        diff->instructions[diff->first_departure];
    return absl::StrCat(cmp.Summary(), "; per instruction, %",
                        v.QualifiedName(), " (", HloOpcodeString(v.opcode),
                        ") departs from the oracle when fed the oracle's "
                        "operands: ",
                        v.message);
  }
  for (const conformance::InstructionVerdict& v : diff->instructions) {
    if (v.outcome != conformance::Outcome::kPass) {
      // An instruction the backend cannot run alone: no per-instruction
      // verdict, so the whole value's comparison stands.
      return absl::StrCat(cmp.Summary(), " (instruction %", v.name, " is ",
                          conformance::OutcomeName(v.outcome),
                          " in isolation: ", v.message, ")");
    }
  }
  *note = cmp.Summary();
  return "";
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20) {
      out += absl::StrCat("\\u00", c < 0x10 ? "0" : "",
                          absl::Hex(static_cast<int>(c)));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

StableHloFileResult JudgeStableHloFile(const std::string& path,
                                       const std::string& text,
                                       backends::Backend& backend,
                                       const StableHloSuiteOptions& options) {
  using Outcome = StableHloFileResult::Outcome;
  StableHloFileResult r;
  r.path = path;
  auto refused = [&](const absl::Status& s) {
    r.outcome = s.code() == absl::StatusCode::kUnimplemented
                    ? Outcome::kUnsupported
                    : Outcome::kFail;
    r.message = std::string(s.message());
    return r;
  };
  ParseOptions parse_options;
  parse_options.file_name = path;
  auto test = ParseStableHloTestModule(text, parse_options);
  if (!test.ok()) return refused(test.status());
  if (absl::Status v = VerifyModule(*test->module); !v.ok()) return refused(v);
  if (absl::Status s = backends::SupportsModule(backend, *test->module);
      !s.ok()) {
    return refused(s);
  }
  auto exe = backend.Compile(*test->module, backends::CompileOptions());
  if (!exe.ok()) return refused(exe.status());
  auto got = (*exe)->Run({});
  if (!got.ok()) return refused(got.status());
  const size_t n = test->checks.size();
  if (got->size() != 2 * n) {
    r.outcome = Outcome::kFail;
    r.message = absl::StrCat(got->size(), " results for ", n, " checks");
    return r;
  }
  r.outcome = Outcome::kPass;
  for (size_t k = 0; k < n; ++k) {
    std::string e =
        Judge(test->checks[k].kind, (*got)[2 * k], (*got)[2 * k + 1]);
    if (!e.empty()) {
      r.outcome = Outcome::kFail;
      r.message = absl::StrCat("line ", test->checks[k].line, " expect_",
                               test->checks[k].kind, ": ", e);
      break;
    }
  }
  r.oracle_judged = true;
  r.oracle_agrees = true;
  for (size_t k = 0; k < n; ++k) {
    std::string note;
    std::string e = JudgeAgainstOracle(*test->module, k, (*got)[2 * k], backend,
                                       options, &note);
    if (!e.empty()) {
      r.oracle_agrees = false;
      r.oracle_message = absl::StrCat("line ", test->checks[k].line, ": ", e);
      break;
    }
    if (!note.empty() && r.per_instruction_note.empty()) {
      r.per_instruction_note =
          absl::StrCat("line ", test->checks[k].line, ": ", note);
    }
  }
  return r;
}

int RunStableHloSuite(const std::string& dir,
                      const StableHloSuiteOptions& options) {
  using Outcome = StableHloFileResult::Outcome;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".mlir") files.push_back(e.path().string());
  }
  if (ec) {
    std::fprintf(stderr, "hloref conformance: cannot read %s: %s\n",
                 dir.c_str(), ec.message().c_str());
    return 1;
  }
  std::sort(files.begin(), files.end());
  auto backend = backends::CreateBackend(options.backend_name);
  if (!backend.ok()) {
    std::fprintf(stderr, "hloref conformance: %s\n",
                 std::string(backend.status().message()).c_str());
    return 1;
  }
  int pass = 0, fail = 0, unsupported = 0, agree = 0, disagree = 0,
      per_instruction = 0;
  std::vector<StableHloFileResult> results;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    StableHloFileResult r =
        JudgeStableHloFile(path, ss.str(), **backend, options);
    const char* p = path.c_str();
    switch (r.outcome) {
      case Outcome::kPass:
        ++pass;
        if (options.verbose) std::printf("PASS %s\n", p);
        break;
      case Outcome::kFail:
        ++fail;
        std::printf("FAIL %s: %s\n", p, r.message.c_str());
        break;
      case Outcome::kUnsupported:
        ++unsupported;
        if (options.verbose)
          std::printf("UNSUPPORTED %s: %s\n", p, r.message.c_str());
        break;
    }
    if (r.oracle_judged && r.oracle_agrees) {
      ++agree;
      if (!r.per_instruction_note.empty()) {
        ++per_instruction;
        std::printf(
            "ORACLE-PER-INSTRUCTION %s: %s; every instruction agrees with "
            "the oracle when fed the oracle's operands (numerics.md "
            "decision 7)\n",
            p, r.per_instruction_note.c_str());
      }
    } else if (r.oracle_judged) {
      ++disagree;
      std::printf("ORACLE-DIFF %s: %s\n", p, r.oracle_message.c_str());
    }
    results.push_back(std::move(r));
  }
  std::printf(
      "stablehlo:%s on %s: pass %d, fail %d, unsupported %d; against the "
      "oracle: agree %d (per instruction %d), differ %d\n",
      dir.c_str(), options.backend_name.c_str(), pass, fail, unsupported, agree,
      per_instruction, disagree);
  if (!options.report_dir.empty()) {
    std::string json = absl::StrCat(
        "{\n  \"suite\": ", JsonString("stablehlo:" + dir),
        ",\n  \"backend\": ", JsonString(options.backend_name),
        ",\n  \"deviations\": ", JsonString(options.deviations.ToString()),
        ",\n  \"profile\": ",
        JsonString(options.profile == Profile::kXla ? "xla" : "portable"),
        ",\n  \"summary\": {\"pass\": ", pass, ", \"fail\": ", fail,
        ", \"unsupported\": ", unsupported, ", \"oracle_agree\": ", agree,
        ", \"oracle_agree_per_instruction\": ", per_instruction,
        ", \"oracle_differ\": ", disagree, "},\n  \"files\": [");
    for (size_t i = 0; i < results.size(); ++i) {
      const StableHloFileResult& r = results[i];
      const char* verdict = r.outcome == Outcome::kPass   ? "pass"
                            : r.outcome == Outcome::kFail ? "fail"
                                                          : "unsupported";
      const char* oracle = !r.oracle_judged   ? "not judged"
                           : !r.oracle_agrees ? "differ"
                           : r.per_instruction_note.empty()
                               ? "agree"
                               : "agree per instruction";
      absl::StrAppend(
          &json, i == 0 ? "\n" : ",\n", "    {\"file\": ", JsonString(r.path),
          ", \"verdict\": ", JsonString(verdict),
          ", \"message\": ", JsonString(r.message),
          ", \"oracle\": ", JsonString(oracle), ", \"oracle_message\": ",
          JsonString(r.oracle_agrees ? r.per_instruction_note
                                     : r.oracle_message),
          "}");
    }
    absl::StrAppend(&json, "\n  ]\n}\n");
    std::error_code mk;
    std::filesystem::create_directories(options.report_dir, mk);
    const std::string out = options.report_dir + "/report.json";
    std::ofstream f(out, std::ios::binary);
    f << json;
    if (!f) {
      std::fprintf(stderr, "hloref conformance: cannot write %s\n",
                   out.c_str());
      return 1;
    }
    std::printf("report: %s\n", out.c_str());
  }
  return fail > 0 || disagree > 0 ? 1 : 0;
}

}  // namespace hloref::tools
