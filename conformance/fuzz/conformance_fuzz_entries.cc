#include "conformance/fuzz/conformance_fuzz_entries.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/interpreter/interpreter_backend.h"
#include "conformance/generators/generator.h"
#include "conformance/harness/golden_case.h"
#include "conformance/harness/runner.h"
#include "conformance/harness/suite.h"
#include "spec/ir/hlo_parser.h"

namespace hloref {

FuzzOutcome FuzzGoldenFileText(absl::string_view bytes) {
  constexpr absl::string_view kFile = "ops/fuzz.golden";
  FuzzOutcome out;
  absl::StatusOr<std::vector<conformance::GoldenCase>> cases =
      conformance::ParseGoldenFile(bytes, std::string(kFile),
                                   conformance::CaseKind::kOp, "add");
  if (!cases.ok()) {
    out.status = cases.status();
    if (!absl::StrContains(cases.status().message(),
                           absl::StrCat(kFile, ":"))) {
      out.violation = absl::StrCat("an error that does not name file:line: ",
                                   cases.status().ToString());
    }
    return out;
  }
  const int64_t lines = std::count(bytes.begin(), bytes.end(), '\n') + 1;
  std::set<std::string> names;
  ParseOptions parse_options;
  parse_options.max_literal_bytes = kFuzzMaxBytes;
  for (const conformance::GoldenCase& c : *cases) {
    if (c.file != kFile || c.line < 1 || c.line > lines || c.name.empty() ||
        c.ops.empty() || !names.insert(c.name).second) {
      out.violation =
          absl::StrCat("a bad case: file '", c.file, "' line ", c.line, " of ",
                       lines, " name '", c.name, "' ops ", c.ops.size());
      return out;
    }
    // Not checked: whether these parse (the runner reports that, with the
    // case); only that the parser survives what the reader hands it.
    (void)ParseHloModule(c.module_text, parse_options);
    for (const std::string& arg : c.args) {
      (void)ParseLiteral(arg, parse_options);
    }
    for (const std::string& expect : c.expects) {
      (void)ParseLiteral(expect, parse_options);
    }
  }
  return out;
}

FuzzOutcome FuzzDifferentialCaseOn(absl::string_view bytes,
                                   backends::Backend& backend,
                                   absl::string_view against) {
  FuzzOutcome out;
  static const std::vector<HloOpcode>* const ops =
      new std::vector<HloOpcode>(conformance::GeneratedOps());
  if (ops->empty()) {
    out.violation = "no generated ops";
    return out;
  }
  auto byte = [&](size_t i) -> uint64_t {
    return i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0;
  };
  const HloOpcode opcode = (*ops)[(byte(0) | byte(1) << 8) % ops->size()];
  uint64_t seed = 0;
  for (size_t i = 0; i < 8; ++i) seed |= byte(2 + i) << (8 * i);

  absl::StatusOr<conformance::GeneratedCase> c =
      conformance::GenerateCase(opcode, seed);
  if (!c.ok()) {
    out.status = c.status();
    if (c.status().message().empty()) {
      out.violation = "a generator error without a message";
    }
    return out;
  }

  conformance::SuiteOptions options;
  conformance::CaseRecord record =
      conformance::RunGeneratedCase(*c, backend, options);
  const bool finding = record.outcome == conformance::Outcome::kFail ||
                       record.outcome == conformance::Outcome::kKnownFailure;
  if (finding) {
    out.violation =
        absl::StrCat(c->id, " (", PrimitiveTypeName(c->type), ") ",
                     conformance::OutcomeName(record.outcome), ": ", against,
                     " against the oracle at 1 thread: ", record.message,
                     "\n--- module:\n", c->module_text);
  } else if (record.outcome != conformance::Outcome::kPass) {
    out.status = absl::UnavailableError(
        absl::StrCat(c->id, " ", conformance::OutcomeName(record.outcome), ": ",
                     record.message));
  }
  return out;
}

FuzzOutcome FuzzDifferentialCase(absl::string_view bytes) {
  EvaluatorOptions backend_options;
  backend_options.threads = 4;
  absl::StatusOr<std::unique_ptr<backends::Backend>> backend =
      backends::CreateInterpreterBackend(backend_options);
  if (!backend.ok()) {
    FuzzOutcome out;
    out.status = backend.status();
    out.violation =
        absl::StrCat("no interpreter backend: ", backend.status().ToString());
    return out;
  }
  return FuzzDifferentialCaseOn(bytes, **backend,
                                "the interpreter at 4 threads");
}

}  // namespace hloref
