// `hloref conformance --backend=NAME --suite=golden`: run the golden suite
// on the interpreter or any registered backend (backends/registry.h) and
// print a summary (pass / fail / unsupported / skipped / known failure),
// optionally writing a report directory.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "backends/registry.h"
#include "conformance/harness/golden_case.h"
#include "conformance/harness/runner.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kConformanceHelp[] =
    R"(Usage: hloref conformance [options]

Runs a conformance suite on a backend and prints a summary with pass,
fail, unsupported, skipped and known-failure counts. Every failure is
printed with its case, output index, element index, expected and actual
values and the comparison rule.

Options:
  --backend=NAME          backend to certify: interpreter (default),
                          plugin:PATH.so (a library with the C ABI of
                          backends/plugin/hloref_plugin.h) or
                          command:PROGRAM (the out-of-process protocol of
                          backends/command/command_backend.h, e.g.
                          command:tools/backends/xla_jax.py for XLA:CPU)
  --timeout=SECONDS       command backends: kill a run after this long
                          (default 300)
  --keep-files            command backends: keep each run's exchange
                          directory (printed in failure messages)
  --suite=NAME            suite to run; only `golden` today
  --ops=OP[,OP...]        only cases about these ops (HLO names)
  --profile=case|xla|portable
                          case (default): each case runs under its own
                          profile (xla for `any`); xla or portable: one
                          profile, cases pinned to the other are skipped
  --golden-dir=DIR        the golden suite (default: the source tree's)
  --report=DIR            write DIR/results.tsv (one line per case) and
                          DIR/summary.md
  --verbose               also list unsupported and skipped cases
  --help                  show this text

Exit status: 0 no failures, 1 a case failed or the suite does not load,
2 usage error.
)";

// Tab-separated fields must not contain tabs or newlines.
std::string Flat(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

}  // namespace

int RunConformance(int argc, char** argv) {
  auto cl = CommandLine::Parse(argc, argv, 2,
                               {{"backend", true},
                                {"suite", true},
                                {"ops", true},
                                {"profile", true},
                                {"golden-dir", true},
                                {"report", true},
                                {"timeout", true},
                                {"keep-files", false},
                                {"verbose", false},
                                {"help", false}});
  if (!cl.ok()) {
    std::fprintf(stderr, "hloref conformance: %s\n",
                 std::string(cl.status().message()).c_str());
    return 2;
  }
  if (cl->Has("help")) {
    std::fputs(kConformanceHelp, stdout);
    return 0;
  }
  if (!cl->positional().empty()) {
    std::fprintf(stderr, "hloref conformance: unexpected argument '%s'\n",
                 cl->positional()[0].c_str());
    return 2;
  }
  std::string backend = cl->Get("backend").value_or("interpreter");
  // The interpreter runs in-process through the runner's own path (which
  // also gives don't-care masks); any other name comes from the registry.
  std::unique_ptr<backends::Backend> backend_impl;
  if (backend != "interpreter") {
    auto created = backends::CreateBackend(backend);
    if (!created.ok()) {
      std::fprintf(stderr, "hloref conformance: %s\n",
                   std::string(created.status().message()).c_str());
      return created.status().code() == absl::StatusCode::kInvalidArgument ? 2
                                                                           : 1;
    }
    backend_impl = *std::move(created);
  }
  backends::CompileOptions compile_options;
  compile_options.keep_files = cl->Has("keep-files");
  if (auto t = cl->Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*t, &seconds) || !(seconds > 0)) {
      std::fprintf(stderr,
                   "hloref conformance: --timeout must be a positive number "
                   "of seconds, got '%s'\n",
                   t->c_str());
      return 2;
    }
    compile_options.timeout = absl::Seconds(seconds);
  }
  std::string suite = cl->Get("suite").value_or("golden");
  if (suite != "golden") {
    std::fprintf(stderr,
                 "hloref conformance: unknown suite '%s' (available: "
                 "golden)\n",
                 suite.c_str());
    return 2;
  }
  std::string profile = cl->Get("profile").value_or("case");
  if (profile != "case" && profile != "xla" && profile != "portable") {
    std::fprintf(stderr,
                 "hloref conformance: --profile must be case, xla or "
                 "portable, got '%s'\n",
                 profile.c_str());
    return 2;
  }
  std::set<std::string> ops;
  if (auto list = cl->Get("ops")) {
    for (absl::string_view op : absl::StrSplit(*list, ',')) {
      op = absl::StripAsciiWhitespace(op);
      if (!op.empty()) ops.emplace(op);
    }
  }
  const std::string dir =
      cl->Get("golden-dir").value_or(conformance::DefaultGoldenDir());
  auto cases = conformance::LoadGoldenSuite(dir);
  if (!cases.ok()) {
    std::fprintf(stderr, "hloref conformance: %s\n",
                 std::string(cases.status().message()).c_str());
    return 1;
  }
  const bool verbose = cl->Has("verbose");

  conformance::Summary summary;
  std::map<std::string, conformance::Summary> per_op;
  std::string tsv = "case\top\tkind\toutcome\tmessage\n";
  std::set<std::string> seen_ops;
  for (const conformance::GoldenCase& c : *cases) {
    if (!ops.empty()) {
      bool wanted = false;
      for (const std::string& op : c.ops) wanted |= ops.count(op) > 0;
      if (!wanted) continue;
    }
    for (const std::string& op : c.ops) seen_ops.insert(op);
    conformance::RunOptions options;
    options.backend = backend_impl.get();
    options.compile_options = compile_options;
    if (profile == "portable" ||
        (profile == "case" &&
         c.profile == conformance::CaseProfile::kPortable)) {
      options.profile = Profile::kPortable;
    }
    conformance::CaseResult r = conformance::RunGoldenCase(c, options);
    summary.Add(r.outcome);
    per_op[c.op()].Add(r.outcome);
    absl::string_view name = conformance::OutcomeName(r.outcome);
    if (r.outcome == conformance::Outcome::kFail ||
        r.outcome == conformance::Outcome::kKnownFailure ||
        (verbose && r.outcome != conformance::Outcome::kPass)) {
      std::printf("%s: %s\n", std::string(name).c_str(), r.message.c_str());
    }
    absl::StrAppend(&tsv, c.Id(), "\t", c.op(), "\t",
                    c.kind == conformance::CaseKind::kError ? "error" : "run",
                    "\t", name, "\t", Flat(r.message), "\n");
  }
  for (const std::string& op : ops) {
    if (!seen_ops.count(op)) {
      std::fprintf(stderr, "hloref conformance: no golden case for op '%s'\n",
                   op.c_str());
    }
  }
  const std::string line =
      absl::StrCat("golden suite on ", backend, ": ", summary.ToString());
  std::printf("%s\n", line.c_str());

  if (auto report = cl->Get("report")) {
    std::error_code ec;
    std::filesystem::create_directories(*report, ec);
    if (ec) {
      std::fprintf(stderr, "hloref conformance: cannot create '%s': %s\n",
                   report->c_str(), ec.message().c_str());
      return 1;
    }
    std::string md = absl::StrCat(
        "# Conformance summary\n\n", line,
        "\n\n| op | pass | fail | unsupported | skipped | known failure |\n"
        "| --- | --- | --- | --- | --- | --- |\n");
    for (const auto& [op, s] : per_op) {
      absl::StrAppend(&md, "| ", op);
      for (int64_t n : s.counts) absl::StrAppend(&md, " | ", n);
      absl::StrAppend(&md, " |\n");
    }
    std::ofstream(*report + "/results.tsv") << tsv;
    std::ofstream out(*report + "/summary.md");
    out << md;
    if (!out) {
      std::fprintf(stderr,
                   "hloref conformance: cannot write the report in "
                   "'%s'\n",
                   report->c_str());
      return 1;
    }
    std::printf("report: %s/summary.md, %s/results.tsv\n", report->c_str(),
                report->c_str());
  }
  return summary.counts[static_cast<int>(conformance::Outcome::kFail)] > 0 ? 1
                                                                           : 0;
}

}  // namespace hloref::tools
