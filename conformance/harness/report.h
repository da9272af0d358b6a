// Conformance reports: JSON (machine-readable, versioned schema), JUnit XML
// (one testcase per case) and one self-contained HTML page with the op x
// element-type matrix coloured by pass / fail / unsupported / skipped, the
// declared deviations and every failure's explanation. Failing generated
// cases are written beside them as replayable directories.
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
