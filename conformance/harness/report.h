// Conformance reports: JSON (machine-readable, versioned schema), JUnit XML
// (one testcase per case) and one self-contained HTML page with the op x
// element-type matrix coloured by pass / fail / unsupported / skipped, the
// declared deviations and every failure's explanation. Failing generated
// cases are written beside them as replayable directories.
//
// Single-op cases are the unit of certification: the op x type matrix and
// the "single-op" summary count only them. Multi-op programs (golden cases
// from golden/programs/, ids "programs/...") are reported separately with
// their own summary: the JSON's "programs" object, the JUnit testsuite
// "programs" and the HTML section "Multi-op programs".
#ifndef HLOREF_CONFORMANCE_HARNESS_REPORT_H_
#define HLOREF_CONFORMANCE_HARNESS_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "conformance/harness/suite.h"

namespace hloref::conformance {

// The JSON report's schema version; bump on any incompatible change.
inline constexpr int kReportSchemaVersion = 1;

struct ReportMeta {
  std::string backend;
  std::string suites;   // "golden,generated"
  std::string profile;  // "case", "xla", "portable"
  Deviations deviations;
  uint64_t seed = 0;
  int64_t count = 0;
  int jobs = 1;
  int shard_index = 0, total_shards = 1;
  std::string command_line;
};

// A multi-op program case: a golden case of golden/programs/ or a random
// program judged by its enclosures (SuiteOptions::programs).
bool IsProgramCase(const CaseRecord& record);
// The outcome counts of the program cases (programs = true) or of every
// other case (the single-op cases).
Summary SummaryOf(const SuiteResult& result, bool programs);
// "programs: pass 4, fail 0, unsupported 0, skipped 0, known failure 0 (4
// cases)", for the command line's summary.
std::string ProgramsSummaryLine(const SuiteResult& result);

std::string ReportJson(const SuiteResult& result, const ReportMeta& meta);
std::string ReportJunit(const SuiteResult& result, const ReportMeta& meta);
std::string ReportHtml(const SuiteResult& result, const ReportMeta& meta);

// Writes DIR/report.json, DIR/report.html, DIR/junit.xml and, for each
// failing generated case, DIR/cases/<op>_<seed>/ (module.hlo, arg_k.npy,
// README with the replay command).
absl::Status WriteReportDir(const std::string& dir, const SuiteResult& result,
                            const ReportMeta& meta);
absl::Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace hloref::conformance

#endif  // HLOREF_CONFORMANCE_HARNESS_REPORT_H_
