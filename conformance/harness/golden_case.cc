// Reader of the golden file format (golden/README.md).
#include "conformance/harness/golden_case.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "spec/util/status_macros.h"

namespace hloref::conformance {
namespace {

// A `key: value` field with its continuation lines.
struct Field {
  std::string key;
  int line = 0;
  std::string first;              // text after `key:` on the key's line
  std::vector<std::string> more;  // indented continuation lines (raw)
  int more_first_line = 0;        // file line of more[0]
};

bool IsNameChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

bool ValidName(absl::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), IsNameChar);
}

// `impl.<op>.<n>` with <op> an HLO op name and <n> a positive integer.
bool ValidImplId(absl::string_view id) {
  if (!absl::ConsumePrefix(&id, "impl.")) return false;
  size_t dot = id.rfind('.');
  if (dot == absl::string_view::npos || dot == 0) return false;
  absl::string_view n = id.substr(dot + 1);
  return !n.empty() && std::all_of(n.begin(), n.end(), absl::ascii_isdigit) &&
         ValidName(id.substr(0, dot));
}

absl::Status Error(const std::string& file, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": ", what));
}

// Value of a one-line field; continuation lines are joined with spaces.
std::string JoinedValue(const Field& f) {
  std::string v(absl::StripAsciiWhitespace(f.first));
  for (const std::string& m : f.more) {
    absl::string_view s = absl::StripAsciiWhitespace(m);
    if (s.empty()) continue;
    if (!v.empty()) v += " ";
    v += std::string(s);
  }
  return v;
}

constexpr absl::string_view kKnownKeys[] = {"op",
                                            "class",
                                            "provenance",
                                            "profile",
                                            "impl",
                                            "compare",
                                            "module",
                                            "arg",
                                            "expect",
                                            "expect_error",
                                            "known_failure",
                                            "note",
                                            "infeed",
                                            "recv",
                                            "expect_outfeed",
                                            "expect_sent",
                                            "custom_call_library"};

// The test libraries `custom_call_library:` may name, with the path the
// build configured (empty: not configured).
struct TestLibrary {
  const char* name;
  const char* path;
};
constexpr TestLibrary kTestLibraries[] = {
    // interpreter/ops/custom_call_test_lib.cc: seed 001's `myfunc`, tuples,
    // layouts, pred.
    {"custom_call_test_lib",
#ifdef HLOREF_CUSTOM_CALL_TESTLIB
     HLOREF_CUSTOM_CALL_TESTLIB
#else
     ""
#endif
    },
    // conformance/harness/golden_custom_call_lib.cc: one target per
    // element-type class the first library lacks.
    {"golden_custom_call_lib",
#ifdef HLOREF_GOLDEN_CUSTOM_CALL_LIB
     HLOREF_GOLDEN_CUSTOM_CALL_LIB
#else
     ""
#endif
    },
};

// `<channel_id>: <literal>` (recv:, expect_sent:). The channel id is a
// non-negative decimal integer.
absl::Status ParseChannelValue(
    const std::string& file, int line, absl::string_view key,
    absl::string_view value,
    std::vector<std::pair<int64_t, std::string>>* out) {
  size_t colon = value.find(':');
  absl::string_view id = absl::StripAsciiWhitespace(value.substr(0, colon));
  int64_t channel = 0;
  if (colon == absl::string_view::npos || id.empty() ||
      !std::all_of(id.begin(), id.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(id, &channel)) {
    return Error(file, line,
                 absl::StrCat("'", key, ":' needs '<channel_id>: <literal>' ",
                              "(a non-negative integer, a colon, the value), ",
                              "got '", value.substr(0, 40), "'"));
  }
  absl::string_view literal =
      absl::StripAsciiWhitespace(value.substr(colon + 1));
  if (literal.empty()) {
    return Error(
        file, line,
        absl::StrCat("'", key, ":' channel ", channel, " has no literal"));
  }
  out->emplace_back(channel, std::string(literal));
  return absl::OkStatus();
}

absl::StatusOr<GoldenCase> BuildCase(const std::string& file, int line,
                                     const std::string& name, CaseKind kind,
                                     const std::string& default_op,
                                     const std::vector<Field>& fields) {
  GoldenCase c;
  c.file = file;
  c.line = line;
  c.name = name;
  c.kind = kind;
  if (!default_op.empty()) c.ops.push_back(default_op);
  bool has_module = false, has_provenance = false;
  std::set<std::string> seen_single;
  for (const Field& f : fields) {
    const bool repeatable = f.key == "arg" || f.key == "expect" ||
                            f.key == "impl" || f.key == "infeed" ||
                            f.key == "recv" || f.key == "expect_outfeed" ||
                            f.key == "expect_sent";
    if (!repeatable && !seen_single.insert(f.key).second) {
      return Error(
          file, f.line,
          absl::StrCat("field '", f.key, "' given twice in case '", name, "'"));
    }
    std::string value = JoinedValue(f);
    if (f.key == "module") {
      if (!absl::StripAsciiWhitespace(f.first).empty()) {
        return Error(file, f.line,
                     "'module:' must be alone on its line; the module text "
                     "follows on indented lines");
      }
      if (f.more.empty()) {
        return Error(file, f.line, "empty module");
      }
      // Newlines first, so parser locations are this file's lines.
      c.module_text = std::string(f.more_first_line - 1, '\n');
      for (const std::string& m : f.more)
        absl::StrAppend(&c.module_text, m, "\n");
      has_module = true;
    } else if (f.key == "arg") {
      if (value.empty()) return Error(file, f.line, "empty 'arg:'");
      c.args.push_back(value);
    } else if (f.key == "expect") {
      if (value.empty()) return Error(file, f.line, "empty 'expect:'");
      c.expects.push_back(value);
    } else if (f.key == "infeed") {
      if (value.empty()) return Error(file, f.line, "empty 'infeed:'");
      c.infeed.push_back(value);
    } else if (f.key == "expect_outfeed") {
      if (value.empty()) return Error(file, f.line, "empty 'expect_outfeed:'");
      c.expect_outfeed.push_back(value);
    } else if (f.key == "recv") {
      HLOREF_RETURN_IF_ERROR(
          ParseChannelValue(file, f.line, f.key, value, &c.recv));
    } else if (f.key == "expect_sent") {
      HLOREF_RETURN_IF_ERROR(
          ParseChannelValue(file, f.line, f.key, value, &c.expect_sent));
    } else if (f.key == "custom_call_library") {
      auto known = CustomCallTestLibraries();
      if (std::find(known.begin(), known.end(), value) == known.end()) {
        return Error(file, f.line,
                     absl::StrCat("custom_call_library '", value,
                                  "' is not a test library shipped with "
                                  "hloref (",
                                  absl::StrJoin(known, ", "),
                                  "); golden files name a library, never a "
                                  "path"));
      }
      c.custom_call_library = value;
    } else if (f.key == "op") {
      if (kind == CaseKind::kOp || kind == CaseKind::kError) {
        return Error(file, f.line,
                     "'op:' is implied by the file name in ops/ and errors/");
      }
      for (absl::string_view op : absl::StrSplit(value, ',')) {
        op = absl::StripAsciiWhitespace(op);
        if (!ValidName(op)) {
          return Error(file, f.line, absl::StrCat("bad op name '", op, "'"));
        }
        c.ops.emplace_back(op);
      }
    } else if (f.key == "class") {
      static const std::set<std::string> kClasses = {
          "pred", "signed", "unsigned", "float", "complex"};
      if (!kClasses.count(value)) {
        return Error(file, f.line,
                     absl::StrCat("class '", value,
                                  "' is not pred, signed, unsigned, float or "
                                  "complex"));
      }
      c.type_class = value;
    } else if (f.key == "provenance") {
      if (!(absl::StartsWith(value, "seed example ") ||
            value == "hand-derived" ||
            absl::StartsWith(value, "hand-derived:") ||
            absl::StartsWith(value, "independent computation: "))) {
        return Error(file, f.line,
                     absl::StrCat("provenance '", value,
                                  "' must be \"seed example <section>\", "
                                  "\"hand-derived\" or \"independent "
                                  "computation: <how>\""));
      }
      c.provenance = value;
      has_provenance = true;
    } else if (f.key == "profile") {
      if (value == "xla") {
        c.profile = CaseProfile::kXla;
      } else if (value == "portable") {
        c.profile = CaseProfile::kPortable;
      } else if (value == "any") {
        c.profile = CaseProfile::kAny;
      } else {
        return Error(
            file, f.line,
            absl::StrCat("profile '", value, "' is not xla, portable or any"));
      }
    } else if (f.key == "impl") {
      for (absl::string_view id : absl::StrSplit(value, ',')) {
        id = absl::StripAsciiWhitespace(id);
        if (!ValidImplId(id)) {
          return Error(file, f.line,
                       absl::StrCat("'", id, "' is not an impl.<op>.<n> ID"));
        }
        c.impl_ids.emplace_back(id);
      }
    } else if (f.key == "compare") {
      for (absl::string_view one : absl::StrSplit(value, ';')) {
        auto spec = ParseCompareSpec(one);
        if (!spec.ok()) return Error(file, f.line, spec.status().message());
        c.compare.push_back(*spec);
      }
    } else if (f.key == "expect_error") {
      c.expect_error = value;
    } else if (f.key == "known_failure") {
      if (value.empty()) {
        return Error(file, f.line, "'known_failure:' needs a reason");
      }
      c.known_failure = value;
    } else if (f.key == "note") {
      c.note = value;
    }
  }
  auto missing = [&](absl::string_view what) {
    return Error(file, line,
                 absl::StrCat("case '", name, "' has no '", what, ":'"));
  };
  if (!has_module) return missing("module");
  if (!has_provenance) return missing("provenance");
  if (c.ops.empty()) return missing("op");
  if (kind == CaseKind::kError) {
    if (c.expect_error.empty()) return missing("expect_error");
    if (!c.expects.empty() || !c.args.empty() || c.HasHostTransfers() ||
        !c.custom_call_library.empty()) {
      return Error(file, line,
                   absl::StrCat("error case '", name,
                                "' must not have 'arg:', 'expect:', host "
                                "transfers or 'custom_call_library:' (it is "
                                "never run)"));
    }
    if (c.expect_error != "parse" &&
        !(absl::StrContains(c.expect_error, ".C") &&
          ValidName(c.expect_error))) {
      return Error(file, line,
                   absl::StrCat("expect_error '", c.expect_error,
                                "' is not a rule ID <op>.C<n> (or 'parse')"));
    }
  } else {
    if (!c.expect_error.empty()) {
      return Error(file, line,
                   "'expect_error:' belongs in golden/errors/ only");
    }
    if (c.expects.empty()) return missing("expect");
    if (c.compare.empty()) c.compare.push_back(CompareSpec{});
  }
  // Implementation-defined elements must say which profile they assume.
  if (!c.impl_ids.empty() && c.profile == CaseProfile::kAny) {
    return Error(file, line,
                 absl::StrCat("case '", name,
                              "' names impl IDs but no 'profile:' (xla or "
                              "portable)"));
  }
  return c;
}

}  // namespace

absl::string_view CaseProfileName(CaseProfile profile) {
  switch (profile) {
    case CaseProfile::kAny:
      return "any";
    case CaseProfile::kXla:
      return "xla";
    case CaseProfile::kPortable:
      return "portable";
  }
  return "?";
}

absl::StatusOr<std::vector<GoldenCase>> ParseGoldenFile(
    absl::string_view text, const std::string& file, CaseKind kind,
    const std::string& default_op) {
  std::vector<GoldenCase> cases;
  std::set<std::string> names;
  std::string name;
  int case_line = 0;
  std::vector<Field> fields;
  auto flush = [&]() -> absl::Status {
    if (name.empty()) return absl::OkStatus();
    HLOREF_ASSIGN_OR_RETURN(GoldenCase c, BuildCase(file, case_line, name, kind,
                                                    default_op, fields));
    cases.push_back(std::move(c));
    fields.clear();
    name.clear();
    return absl::OkStatus();
  };
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const int lineno = static_cast<int>(i) + 1;
    absl::string_view raw = lines[i];
    absl::ConsumeSuffix(&raw, "\r");
    if (absl::StripAsciiWhitespace(raw).empty()) continue;
    if (raw[0] == '#') continue;
    if (raw[0] == ' ' || raw[0] == '\t') {
      if (fields.empty()) {
        return Error(file, lineno,
                     "indented line outside a field (continuation lines "
                     "belong to the field above)");
      }
      Field& f = fields.back();
      if (f.more.empty()) f.more_first_line = lineno;
      f.more.emplace_back(raw);
      continue;
    }
    if (absl::StartsWith(raw, "case ") || raw == "case") {
      HLOREF_RETURN_IF_ERROR(flush());
      name = std::string(absl::StripAsciiWhitespace(raw.substr(4)));
      case_line = lineno;
      if (!ValidName(name)) {
        return Error(file, lineno,
                     absl::StrCat("bad case name '", name,
                                  "' (letters, digits, '_', '.', '-')"));
      }
      if (!names.insert(name).second) {
        return Error(file, lineno,
                     absl::StrCat("case '", name, "' defined twice"));
      }
      continue;
    }
    size_t colon = raw.find(':');
    std::string key(colon == absl::string_view::npos ? raw
                                                     : raw.substr(0, colon));
    if (colon == absl::string_view::npos ||
        std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) ==
            std::end(kKnownKeys)) {
      return Error(file, lineno,
                   absl::StrCat("expected 'case <name>' or a field "
                                "(",
                                absl::StrJoin(kKnownKeys, ", "), "), got '",
                                raw.substr(0, 40), "'"));
    }
    if (name.empty()) {
      return Error(file, lineno,
                   absl::StrCat("field '", key, "' before the first 'case'"));
    }
    Field f;
    f.key = key;
    f.line = lineno;
    f.first = std::string(raw.substr(colon + 1));
    fields.push_back(std::move(f));
  }
  HLOREF_RETURN_IF_ERROR(flush());
  if (cases.empty()) {
    return Error(file, 1, "no cases in file");
  }
  return cases;
}

absl::StatusOr<std::vector<GoldenCase>> LoadGoldenSuite(
    const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(
        absl::StrCat("golden suite directory '", root, "' not found"));
  }
  struct Dir {
    const char* name;
    CaseKind kind;
    bool stem_is_op;
  };
  const Dir kDirs[] = {{"ops", CaseKind::kOp, true},
                       {"programs", CaseKind::kProgram, false},
                       {"errors", CaseKind::kError, true},
                       {"regressions", CaseKind::kRegression, false}};
  std::vector<GoldenCase> all;
  for (const Dir& d : kDirs) {
    fs::path dir = fs::path(root) / d.name;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".golden") {
        files.push_back(entry.path());
      }
    }
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot list '", dir.string(), "': ", ec.message()));
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& path : files) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        return absl::NotFoundError(
            absl::StrCat("cannot open '", path.string(), "'"));
      }
      std::stringstream ss;
      ss << in.rdbuf();
      std::string rel = absl::StrCat(d.name, "/", path.filename().string());
      std::string stem = d.stem_is_op ? path.stem().string() : std::string();
      HLOREF_ASSIGN_OR_RETURN(std::vector<GoldenCase> cases,
                              ParseGoldenFile(ss.str(), rel, d.kind, stem));
      for (GoldenCase& c : cases) all.push_back(std::move(c));
    }
  }
  return all;
}

std::vector<std::string> CustomCallTestLibraries() {
  std::vector<std::string> names;
  for (const TestLibrary& lib : kTestLibraries) names.emplace_back(lib.name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::string> CustomCallTestLibraryPath(absl::string_view name) {
  for (const TestLibrary& lib : kTestLibraries) {
    if (name != lib.name) continue;
    if (lib.path[0] == '\0') {
      return absl::FailedPreconditionError(
          absl::StrCat("custom-call test library '", name,
                       "' was not configured in this build"));
    }
    return std::string(lib.path);
  }
  return absl::NotFoundError(
      absl::StrCat("no custom-call test library named '", name, "' (",
                   absl::StrJoin(CustomCallTestLibraries(), ", "), ")"));
}

std::string DefaultGoldenDir() {
#ifdef HLOREF_GOLDEN_DIR
  return HLOREF_GOLDEN_DIR;
#else
  return "golden";
#endif
}

}  // namespace hloref::conformance
