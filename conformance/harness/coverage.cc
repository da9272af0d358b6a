// Coverage page and seed checklist of the golden suite (see coverage.h).
#include "conformance/harness/coverage.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "conformance/harness/runner.h"

namespace hloref::conformance {
namespace {

struct OpRow {
  const char* name;
  const char* family;
  const char* section;
};

// Every op of the registry, in ops.def order (grouped by family).
constexpr OpRow kOps[] = {
#define HLOREF_OP(e, text, min_ops, max_ops, family, section, attrs) \
  {text, #family, section},
#include "spec/ops.def"
#undef HLOREF_OP
};

constexpr const char* kClasses[] = {"pred", "signed", "unsigned", "float",
                                    "complex"};

constexpr unsigned P = kClassPred, S = kClassSigned, U = kClassUnsigned,
                   F = kClassFloat, C = kClassComplex, ALL = kClassAll;

struct Accepts {
  const char* op;
  unsigned classes;
};

// Which element-type classes each op accepts, from the rules of seed 001 and
// docs/hlo-text-format.md as the verifier states them (spec/verifier/*.cc:
// the `accepted` sets of the element-wise families, compare.C4, convert's
// complex rule, linalg's C1, fft's and batch norm's
// float rules). coverage_test.cc checks every op it can build a one-
// instruction module for against InferShape, class by class. Ops not listed
// accept every class.
constexpr Accepts kAccepts[] = {
    {"abs", S | F | C},
    {"acos", F | C},
    {"acosh", F | C},
    {"asin", F | C},
    {"asinh", F | C},
    {"atanh", F | C},
    {"cbrt", F},
    {"ceil", F},
    {"cosh", F | C},
    {"cosine", F | C},
    {"count-leading-zeros", S | U},
    {"erf", F},
    {"exponential", F | C},
    {"exponential-minus-one", F | C},
    {"floor", F},
    {"imag", F | C},
    {"is-finite", F},
    {"log", F | C},
    {"log-plus-one", F | C},
    {"logistic", F | C},
    {"negate", S | U | F | C},
    {"not", P | S | U},
    {"popcnt", S | U},
    {"real", F | C},
    {"round-nearest-afz", F},
    {"round-nearest-even", F},
    {"rsqrt", F | C},
    {"sign", S | F | C},
    {"sine", F | C},
    {"sinh", F | C},
    {"sqrt", F | C},
    {"tan", F | C},
    {"tanh", F | C},
    {"and", P | S | U},
    {"atan2", F},
    {"complex", F},
    {"divide", S | U | F | C},
    {"maximum", P | S | U | F},
    {"minimum", P | S | U | F},
    {"mulhi", S | U},
    {"or", P | S | U},
    {"power", S | U | F | C},
    {"remainder", S | U | F},
    {"shift-left", S | U},
    {"shift-right-arithmetic", S | U},
    {"shift-right-logical", S | U},
    {"subtract", S | U | F | C},
    {"xor", P | S | U},
    {"reduce-precision", F},
    {"stochastic-convert", F},
    // XLA's dot accepts pred (or of ands).
    {"dot", ALL},
    // clamp orders its operands: no complex.
    {"clamp", P | S | U | F},
    {"iota", S | U | F | C},
    {"ragged-dot", S | U | F | C},
    {"scaled-dot", F},
    // XLA's convolution accepts pred as well (issue 14, impl.convolution.1).
    {"convolution", ALL},
    {"topk", S | U | F},
    // The first operand is the branch index (s32) or the predicate.
    {"conditional", P | S},
    // Token-only and id ops: their one class is that of the result.
    {"after-all", 0},
    {"add-dependency", ALL},
    {"replica-id", U},
    {"partition-id", U},
    // The state is a u64 array (rng-bit-generator.C1).
    {"rng-bit-generator", U},
    {"rng-get-and-update-state", U},
    {"rng", S | U | F},
    {"fft", F | C},
    {"cholesky", F | C},
    {"triangular-solve", F | C},
    {"batch-norm-grad", F},
    {"batch-norm-inference", F},
    {"batch-norm-training", F},
};

struct Counts {
  std::map<std::string, int> by_class;  // "" = class unknown
  int runs = 0;
  int programs = 0;
  int errors = 0;
};

}  // namespace

unsigned AcceptedClasses(absl::string_view op) {
  bool known = false;
  for (const OpRow& row : kOps) known |= op == row.name;
  if (!known) return 0;
  for (const Accepts& a : kAccepts) {
    if (op == a.op) return a.classes;
  }
  return ALL;
}

bool IsSeed001Op(absl::string_view op) {
  for (const OpRow& row : kOps) {
    if (op == row.name) {
      return !absl::StartsWith(row.section, "text-format");
    }
  }
  return false;
}

std::string CoverageMarkdown(const std::vector<GoldenCase>& cases) {
  std::map<std::string, Counts> counts;
  for (const GoldenCase& c : cases) {
    switch (c.kind) {
      case CaseKind::kError:
        ++counts[c.op()].errors;
        break;
      case CaseKind::kProgram:
        for (const std::string& op : c.ops) ++counts[op].programs;
        break;
      case CaseKind::kOp:
      case CaseKind::kRegression: {
        Counts& k = counts[c.op()];
        ++k.runs;
        ++k.by_class[CaseTypeClass(c)];
        break;
      }
    }
  }
  int total_runs = 0, total_errors = 0, total_programs = 0;
  for (const GoldenCase& c : cases) {
    total_errors += c.kind == CaseKind::kError;
    total_programs += c.kind == CaseKind::kProgram;
    total_runs += c.kind == CaseKind::kOp || c.kind == CaseKind::kRegression;
  }
  std::string out;
  absl::StrAppend(
      &out,
      "# Golden suite coverage\n\n"
      "Generated by `golden_coverage` (conformance/coverage_main.cc) from "
      "golden/ and spec/ops.def; do not edit by hand. Regenerate with\n"
      "`build/conformance/golden_coverage --write` after adding cases "
      "(ctest `golden.coverage_up_to_date` fails while it is stale).\n\n",
      "Cases: ", total_runs, " op cases, ", total_programs, " programs, ",
      total_errors,
      " error cases.\n\n"
      "Cells count op cases (golden/ops/ and golden/regressions/) by the "
      "element-type class of the op's first operand (or `class:`). "
      "`progs` counts multi-op programs using the op, `errors` the "
      "ill-formed modules of golden/errors/. `n/a` marks a class the op "
      "does not accept (AcceptedClasses in conformance/harness/coverage.cc, "
      "checked against the verifier). Ops of seed 001 are in bold. Flags: "
      "`<3` fewer than 3 op cases, `no-err` no error case, `gap:<classes>` "
      "accepted classes without a case.\n\n"
      "| op | family | pred | signed | unsigned | float | complex | other | "
      "progs | errors | flags |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  int flagged = 0, seed_flagged = 0, seed_ops = 0;
  std::vector<std::string> seed_flagged_names;
  std::set<std::string> known;
  for (const OpRow& row : kOps) {
    known.insert(row.name);
    const Counts& k = counts[row.name];
    const unsigned accepted = AcceptedClasses(row.name);
    std::vector<std::string> cells;
    std::vector<std::string> gaps;
    int classified = 0;
    for (size_t i = 0; i < std::size(kClasses); ++i) {
      const char* cls = kClasses[i];
      auto it = k.by_class.find(cls);
      int n = it == k.by_class.end() ? 0 : it->second;
      classified += n;
      const bool allowed = (accepted >> i) & 1u;
      if (n == 0 && !allowed) {
        cells.push_back("n/a");
      } else {
        cells.push_back(n == 0 ? "·" : absl::StrCat(n));
        if (n == 0) gaps.push_back(cls);
      }
    }
    int other = k.runs - classified;
    std::vector<std::string> flags;
    if (k.runs < 3) flags.push_back("<3");
    if (k.errors == 0) flags.push_back("no-err");
    if (!gaps.empty()) flags.push_back("gap:" + absl::StrJoin(gaps, ","));
    const bool seed = IsSeed001Op(row.name);
    seed_ops += seed;
    if (!flags.empty()) {
      ++flagged;
      if (seed) {
        ++seed_flagged;
        seed_flagged_names.push_back(row.name);
      }
    }
    absl::string_view family = row.family;
    absl::ConsumePrefix(&family, "k");
    absl::StrAppend(
        &out, "| ",
        seed ? absl::StrCat("**", row.name, "**") : std::string(row.name),
        " | ", family, " | ", absl::StrJoin(cells, " | "), " | ",
        other == 0 ? "·" : absl::StrCat(other), " | ",
        k.programs == 0 ? "·" : absl::StrCat(k.programs), " | ",
        k.errors == 0 ? "·" : absl::StrCat(k.errors), " | ",
        absl::StrJoin(flags, " "), " |\n");
  }
  absl::StrAppend(&out, "\n", flagged, " of ", std::size(kOps),
                  " ops are flagged; ", seed_flagged, " of the ", seed_ops,
                  " ops of seed 001", seed_flagged == 0 ? "." : ": ",
                  absl::StrJoin(seed_flagged_names, ", "), "\n");
  std::vector<std::string> unknown;
  for (const auto& [op, k] : counts) {
    if (!known.count(op)) unknown.push_back(op);
  }
  if (!unknown.empty()) {
    absl::StrAppend(&out, "\nCases name ops that are not in spec/ops.def: ",
                    absl::StrJoin(unknown, ", "), "\n");
  }
  return out;
}

std::vector<ChecklistItem> ParseChecklist(absl::string_view readme) {
  std::vector<ChecklistItem> items;
  std::vector<absl::string_view> lines = absl::StrSplit(readme, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::string_view line = absl::StripLeadingAsciiWhitespace(lines[i]);
    ChecklistItem item;
    if (absl::ConsumePrefix(&line, "- [x] ") ||
        absl::ConsumePrefix(&line, "- [X] ")) {
      item.ticked = true;
    } else if (!absl::ConsumePrefix(&line, "- [ ] ")) {
      continue;
    }
    item.line = static_cast<int>(i) + 1;
    item.text = std::string(line);
    // Case ids are written in backquotes: `ops/clamp.golden:name`.
    std::vector<absl::string_view> parts = absl::StrSplit(line, '`');
    for (size_t p = 1; p < parts.size(); p += 2) {
      if (absl::StrContains(parts[p], ".golden:")) {
        item.case_ids.emplace_back(parts[p]);
      } else if (absl::StartsWith(parts[p], "test:")) {
        item.test_ids.emplace_back(parts[p].substr(5));
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::vector<std::string> CheckChecklist(const std::vector<ChecklistItem>& items,
                                        const std::vector<GoldenCase>& cases) {
  std::set<std::string> ids;
  for (const GoldenCase& c : cases) ids.insert(c.Id());
  std::vector<std::string> problems;
  for (const ChecklistItem& item : items) {
    bool all_exist = !item.case_ids.empty();
    for (const std::string& id : item.case_ids) {
      if (!ids.count(id)) {
        all_exist = false;
        if (item.ticked) {
          problems.push_back(absl::StrCat("README.md:", item.line,
                                          ": ticked item names case `", id,
                                          "` which does not exist"));
        }
      }
    }
    if (item.ticked && item.case_ids.empty() && item.test_ids.empty()) {
      problems.push_back(
          absl::StrCat("README.md:", item.line, ": ticked item names no case"));
    }
    // (Items naming unit tests are checked by golden_test, which can see
    // the test sources.)
    if (!item.ticked && all_exist) {
      problems.push_back(absl::StrCat("README.md:", item.line,
                                      ": all cases of this item exist; tick "
                                      "it"));
    }
  }
  return problems;
}

}  // namespace hloref::conformance
