// Report writers (see report.h).
#include "conformance/harness/report.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "conformance/generators/generator.h"
#include "spec/types/npy.h"

namespace hloref::conformance {
namespace {

constexpr Outcome kOutcomes[] = {Outcome::kPass, Outcome::kFail,
                                 Outcome::kUnsupported, Outcome::kSkipped,
                                 Outcome::kKnownFailure};

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// JSON has no inf/NaN: they are written as strings.
std::string JsonNumber(double v) {
  if (std::isfinite(v)) return absl::StrFormat("%.17g", v);
  return JsonString(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
}

std::string Xml(absl::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // XML 1.0 forbids most control characters.
        if (c < 0x20 && c != '\n' && c != '\t') {
          out += '?';
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string OutcomeKey(Outcome o) {
  return absl::StrReplaceAll(OutcomeName(o), {{" ", "_"}});
}

std::string CaseDirName(const CaseRecord& r) {
  // "gen/add/17" -> "add_17"
  std::string name = r.id;
  if (name.rfind("gen/", 0) == 0) name = name.substr(4);
  for (char& c : name) {
    if (c == '/' || c == ':') c = '_';
  }
  return name;
}

using Matrix = std::map<std::string, std::map<std::string, Summary>>;

// Single-op cases only: programs are reported in their own section.
Matrix BuildMatrix(const SuiteResult& result) {
  Matrix m;
  for (const CaseRecord& r : result.records) {
    if (IsProgramCase(r)) continue;
    m[r.op][r.type.empty() ? "?" : r.type].Add(r.outcome);
  }
  return m;
}

// Columns: element types in .def order, then golden type classes.
std::vector<std::string> Columns(const Matrix& m) {
  std::set<std::string> seen;
  for (const auto& [op, row] : m) {
    for (const auto& [type, s] : row) seen.insert(type);
  }
  std::vector<std::string> cols;
  for (PrimitiveType t : AllArrayTypes()) {
    std::string name(PrimitiveTypeName(t));
    if (seen.erase(name)) cols.push_back(name);
  }
  for (const std::string& rest : seen) cols.push_back(rest);
  return cols;
}

std::string Count(const Summary& s, Outcome o) {
  return absl::StrCat(s.counts[static_cast<int>(o)]);
}

std::string SummaryJson(const Summary& s) {
  std::vector<std::string> parts;
  for (Outcome o : kOutcomes) {
    parts.push_back(absl::StrCat("\"", OutcomeKey(o), "\": ", Count(s, o)));
  }
  parts.push_back(absl::StrCat("\"total\": ", s.total()));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

}  // namespace

bool IsProgramCase(const CaseRecord& record) {
  return (record.suite == "golden" || record.suite == "programs") &&
         record.id.rfind("programs/", 0) == 0;
}

Summary SummaryOf(const SuiteResult& result, bool programs) {
  Summary s;
  for (const CaseRecord& r : result.records) {
    if (IsProgramCase(r) == programs) s.Add(r.outcome);
  }
  return s;
}

std::string ProgramsSummaryLine(const SuiteResult& result) {
  return absl::StrCat("programs: ", SummaryOf(result, true).ToString());
}

std::string ReportJson(const SuiteResult& result, const ReportMeta& meta) {
  std::string j = absl::StrCat(
      "{\n  \"schema\": \"hloref-conformance-report\",\n  \"schema_version\": ",
      kReportSchemaVersion, ",\n  \"backend\": ", JsonString(meta.backend),
      ",\n  \"suites\": ", JsonString(meta.suites),
      ",\n  \"profile\": ", JsonString(meta.profile),
      ",\n  \"deviations\": {\"declared\": ",
      JsonString(meta.deviations.ToString()), ", \"effects\": [");
  std::vector<std::string> effects;
  for (const std::string& e : meta.deviations.Describe()) {
    effects.push_back(JsonString(e));
  }
  absl::StrAppend(
      &j, absl::StrJoin(effects, ", "), "]},\n  \"seed\": ", meta.seed,
      ",\n  \"count\": ", meta.count, ",\n  \"jobs\": ", meta.jobs,
      ",\n  \"shard\": {\"index\": ", meta.shard_index,
      ", \"total\": ", meta.total_shards,
      "},\n  \"command_line\": ", JsonString(meta.command_line),
      ",\n  \"seconds\": ", JsonNumber(result.seconds), ",\n  \"summary\": {");
  // "summary" counts every case (as before); "single_op_summary" the unit
  // of certification; "programs" the multi-op program cases.
  absl::StrAppend(
      &j, SummaryJson(result.summary).substr(1),
      ",\n  \"single_op_summary\": ", SummaryJson(SummaryOf(result, false)),
      ",\n  \"programs\": {\"summary\": ", SummaryJson(SummaryOf(result, true)),
      ", \"cases\": [");
  std::vector<std::string> program_cases;
  for (const CaseRecord& r : result.records) {
    if (!IsProgramCase(r)) continue;
    program_cases.push_back(absl::StrCat(
        "{\"id\": ", JsonString(r.id), ", \"op\": ", JsonString(r.op),
        ", \"outcome\": ", JsonString(OutcomeKey(r.outcome)), "}"));
  }
  // Ops that have no generated cases by design, with the reason: a
  // reader of the matrix must see them as excluded, not silently missing.
  std::vector<std::string> excluded;
  for (const auto& [op, reason] : ExcludedFromGeneration()) {
    excluded.push_back(
        absl::StrCat("{\"op\": ", JsonString(std::string(HloOpcodeString(op))),
                     ", \"reason\": ", JsonString(reason), "}"));
  }
  absl::StrAppend(&j, absl::StrJoin(program_cases, ", "),
                  "]},\n  \"excluded_from_generation\": [",
                  absl::StrJoin(excluded, ", "), "],\n  \"matrix\": {");
  const Matrix m = BuildMatrix(result);
  std::vector<std::string> rows;
  for (const auto& [op, row] : m) {
    std::vector<std::string> cells;
    for (const auto& [type, s] : row) {
      std::vector<std::string> counts;
      for (Outcome o : kOutcomes) {
        counts.push_back(
            absl::StrCat("\"", OutcomeKey(o), "\": ", Count(s, o)));
      }
      cells.push_back(absl::StrCat(JsonString(type), ": {",
                                   absl::StrJoin(counts, ", "), "}"));
    }
    rows.push_back(absl::StrCat("\n    ", JsonString(op), ": {",
                                absl::StrJoin(cells, ", "), "}"));
  }
  absl::StrAppend(&j, absl::StrJoin(rows, ","), "\n  },\n  \"cases\": [");
  std::vector<std::string> cases;
  for (const CaseRecord& r : result.records) {
    std::string c = absl::StrCat(
        "\n    {\"id\": ", JsonString(r.id),
        ", \"suite\": ", JsonString(r.suite),
        ", \"program\": ", IsProgramCase(r) ? "true" : "false",
        ", \"op\": ", JsonString(r.op), ", \"type\": ", JsonString(r.type),
        ", \"outcome\": ", JsonString(OutcomeKey(r.outcome)),
        ", \"elements\": ", r.elements, ", \"masked\": ", r.masked,
        ", \"max_ulp_distance\": ", JsonNumber(r.max_ulp_distance),
        ", \"worst_margin\": ", JsonNumber(r.worst_margin),
        ", \"seconds\": ", JsonNumber(r.seconds));
    if (!r.message.empty()) {
      absl::StrAppend(&c, ", \"message\": ", JsonString(r.message));
    }
    if (!r.module_text.empty()) {
      absl::StrAppend(&c, ", \"replay\": ",
                      JsonString(absl::StrCat("cases/", CaseDirName(r))));
    }
    if (!r.failures.empty()) {
      std::vector<std::string> fs;
      for (const ElementFailure& f : r.failures) {
        fs.push_back(absl::StrCat(
            "{\"output\": ", f.output, ", \"index\": ", f.index,
            ", \"multi_index\": ", JsonString(f.multi_index), ", \"inputs\": ",
            JsonString(f.inputs), ", \"expected\": ", JsonString(f.expected),
            ", \"got\": ", JsonString(f.got),
            ", \"bound\": ", JsonNumber(f.bound), ", \"ulp_distance\": ",
            JsonNumber(f.ulp_distance), ", \"rule\": ", JsonString(f.rule),
            ", \"why\": ", JsonString(f.why), "}"));
      }
      absl::StrAppend(&c, ", \"failures\": [", absl::StrJoin(fs, ", "), "]");
    }
    cases.push_back(c + "}");
  }
  absl::StrAppend(&j, absl::StrJoin(cases, ","), "\n  ]\n}\n");
  return j;
}

std::string ReportJunit(const SuiteResult& result, const ReportMeta& meta) {
  const Summary& s = result.summary;
  const int64_t failures = s.counts[static_cast<int>(Outcome::kFail)];
  const int64_t skipped = s.counts[static_cast<int>(Outcome::kUnsupported)] +
                          s.counts[static_cast<int>(Outcome::kSkipped)];
  std::string x = absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"",
      Xml(absl::StrCat("hloref conformance on ", meta.backend)), "\" tests=\"",
      s.total(), "\" failures=\"", failures, "\" skipped=\"", skipped,
      "\" time=\"", absl::StrFormat("%.3f", result.seconds), "\">\n");
  std::map<std::string, std::vector<const CaseRecord*>> by_suite;
  // Multi-op programs get their own testsuite.
  for (const CaseRecord& r : result.records) {
    by_suite[IsProgramCase(r) ? "programs" : r.suite].push_back(&r);
  }
  for (const auto& [suite, records] : by_suite) {
    int64_t f = 0, k = 0;
    for (const CaseRecord* r : records) {
      f += r->outcome == Outcome::kFail;
      k += r->outcome == Outcome::kUnsupported ||
           r->outcome == Outcome::kSkipped;
    }
    absl::StrAppend(&x, "  <testsuite name=\"", Xml(suite), "\" tests=\"",
                    records.size(), "\" failures=\"", f, "\" skipped=\"", k,
                    "\">\n");
    absl::StrAppend(&x,
                    "    <properties><property name=\"deviations\" value=\"",
                    Xml(meta.deviations.ToString()),
                    "\"/><property name=\"profile\" value=\"",
                    Xml(meta.profile), "\"/></properties>\n");
    for (const CaseRecord* r : records) {
      absl::StrAppend(&x, "    <testcase classname=\"", Xml(suite), ".",
                      Xml(r->op), "\" name=\"", Xml(r->id), "\" time=\"",
                      absl::StrFormat("%.6f", r->seconds), "\"");
      switch (r->outcome) {
        case Outcome::kPass:
          absl::StrAppend(&x, "/>\n");
          continue;
        case Outcome::kFail: {
          std::string body = r->message;
          for (const ElementFailure& f : r->failures) {
            absl::StrAppend(&body, "\n", f.ToString());
          }
          absl::StrAppend(&x, ">\n      <failure message=\"",
                          Xml(r->message.substr(0, 300)), "\">", Xml(body),
                          "</failure>\n    </testcase>\n");
          continue;
        }
        default:
          absl::StrAppend(
              &x, ">\n      <skipped message=\"",
              Xml(absl::StrCat(OutcomeName(r->outcome), ": ", r->message)),
              "\"/>\n    </testcase>\n");
      }
    }
    absl::StrAppend(&x, "  </testsuite>\n");
  }
  absl::StrAppend(&x, "</testsuites>\n");
  return x;
}

std::string ReportHtml(const SuiteResult& result, const ReportMeta& meta) {
  std::string h = absl::StrCat(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>",
      Xml(absl::StrCat("hloref conformance: ", meta.backend)),
      "</title>\n<style>\nbody{font-family:sans-serif;margin:1em}"
      "table{border-collapse:collapse;font-size:12px}"
      "td,th{border:1px solid #ccc;padding:2px 4px;text-align:center}"
      "th.op{text-align:left}.pass{background:#b6e3b6}"
      ".fail{background:#f4a6a6}.unsupported{background:#e0e0e0}"
      ".skipped{background:#fff2b3}.none{background:#fff}"
      "pre{white-space:pre-wrap;font-size:12px;background:#f6f6f6;"
      "padding:4px}\n</style></head><body>\n<h1>hloref conformance: ",
      Xml(meta.backend), "</h1>\n<p>", Xml(result.summary.ToString()),
      "</p>\n<p>Single-op cases (the unit of certification): ",
      Xml(SummaryOf(result, false).ToString()),
      "</p>\n<p>Multi-op programs: ", Xml(SummaryOf(result, true).ToString()),
      "</p>\n<p>Suites ", Xml(meta.suites), "; profile ", Xml(meta.profile),
      "; seed ", meta.seed, ", ", result.generated_drawn,
      " generated cases; shard ", meta.shard_index, "/", meta.total_shards,
      "; ", absl::StrFormat("%.1f", result.seconds), " s with ", meta.jobs,
      " jobs.</p>\n<p>Report schema version ", kReportSchemaVersion,
      ". Command: <code>", Xml(meta.command_line), "</code></p>\n",
      "<h2>Declared deviations</h2>\n");
  const std::vector<std::string> effects = meta.deviations.Describe();
  if (effects.empty()) {
    absl::StrAppend(&h,
                    "<p>none: every formula of docs/numerics.md 7.3 "
                    "applies as written.</p>\n");
  } else {
    absl::StrAppend(&h, "<ul>\n");
    for (const std::string& e : effects) {
      absl::StrAppend(&h, "<li>", Xml(e), "</li>\n");
    }
    absl::StrAppend(&h, "</ul>\n");
  }
  absl::StrAppend(
      &h,
      "<h2>Op &times; element type</h2>\n<p>Cells: passing/total; colour: "
      "<span class=\"fail\">any fail</span>, <span class=\"pass\">all "
      "judged pass</span>, <span class=\"unsupported\">unsupported</span>, "
      "<span class=\"skipped\">skipped</span>. Multi-op programs are not "
      "counted here (see below). Golden cases are counted "
      "under their type class.</p>\n<table>\n<tr><th class=\"op\">op</th>");
  const Matrix m = BuildMatrix(result);
  const std::vector<std::string> cols = Columns(m);
  for (const std::string& c : cols)
    absl::StrAppend(&h, "<th>", Xml(c), "</th>");
  absl::StrAppend(&h, "</tr>\n");
  for (const auto& [op, row] : m) {
    absl::StrAppend(&h, "<tr><th class=\"op\">", Xml(op), "</th>");
    for (const std::string& c : cols) {
      auto it = row.find(c);
      if (it == row.end()) {
        absl::StrAppend(&h, "<td class=\"none\"></td>");
        continue;
      }
      const Summary& s = it->second;
      auto n = [&](Outcome o) { return s.counts[static_cast<int>(o)]; };
      const char* cls = n(Outcome::kFail) > 0 ? "fail"
                        : n(Outcome::kPass) + n(Outcome::kKnownFailure) > 0
                            ? "pass"
                        : n(Outcome::kUnsupported) > 0 ? "unsupported"
                                                       : "skipped";
      absl::StrAppend(&h, "<td class=\"", cls, "\" title=\"", Xml(s.ToString()),
                      "\">", n(Outcome::kPass), "/", s.total(), "</td>");
    }
    absl::StrAppend(&h, "</tr>\n");
  }
  absl::StrAppend(&h, "</table>\n<h2>Multi-op programs</h2>\n<p>",
                  Xml(SummaryOf(result, true).ToString()),
                  ". Programs are reported here and not in the matrix: "
                  "single-op cases are the unit of certification.</p>\n");
  {
    std::string rows;
    for (const CaseRecord& r : result.records) {
      if (!IsProgramCase(r)) continue;
      const std::string cls = OutcomeKey(r.outcome) == "known_failure"
                                  ? "pass"
                                  : OutcomeKey(r.outcome);
      absl::StrAppend(&rows, "<tr><th class=\"op\">", Xml(r.id), "</th><td>",
                      Xml(r.op), "</td><td class=\"", Xml(cls), "\">",
                      Xml(OutcomeName(r.outcome)), "</td><td>", Xml(r.message),
                      "</td></tr>\n");
    }
    if (rows.empty()) {
      absl::StrAppend(&h, "<p>none run</p>\n");
    } else {
      absl::StrAppend(&h,
                      "<table>\n<tr><th class=\"op\">program</th><th>primary "
                      "op</th><th>outcome</th><th>message</th></tr>\n",
                      rows, "</table>\n");
    }
  }
  absl::StrAppend(&h,
                  "<h2>Ops without generated cases</h2>\n<p>Excluded by "
                  "design (the golden suite covers them):</p>\n<table>\n"
                  "<tr><th class=\"op\">op</th><th>reason</th></tr>\n");
  for (const auto& [op, reason] : ExcludedFromGeneration()) {
    absl::StrAppend(&h, "<tr><th class=\"op\">",
                    Xml(std::string(HloOpcodeString(op))), "</th><td>",
                    Xml(reason), "</td></tr>\n");
  }
  absl::StrAppend(&h, "</table>\n<h2>Failures</h2>\n");
  int64_t shown = 0;
  for (const CaseRecord& r : result.records) {
    if (r.outcome != Outcome::kFail) continue;
    if (++shown > 500) {
      absl::StrAppend(&h, "<p>(more failures in report.json)</p>\n");
      break;
    }
    absl::StrAppend(&h, "<h3>", Xml(r.id), "</h3>\n<p>", Xml(r.message),
                    "</p>\n");
    if (!r.failures.empty()) {
      absl::StrAppend(&h, "<ul>\n");
      for (const ElementFailure& f : r.failures) {
        absl::StrAppend(&h, "<li>", Xml(f.ToString()), "</li>\n");
      }
      absl::StrAppend(&h, "</ul>\n");
    }
    if (!r.module_text.empty()) {
      absl::StrAppend(&h, "<p>Replay: <code>cases/", Xml(CaseDirName(r)),
                      "/README</code> has the command</p>\n<pre>",
                      Xml(r.module_text), "</pre>\n");
    }
  }
  if (shown == 0) absl::StrAppend(&h, "<p>none</p>\n");
  absl::StrAppend(&h, "</body></html>\n");
  return h;
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

absl::Status WriteReportDir(const std::string& dir, const SuiteResult& result,
                            const ReportMeta& meta) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create '", dir, "': ", ec.message()));
  }
  HLOREF_RETURN_IF_ERROR(
      WriteTextFile(dir + "/report.json", ReportJson(result, meta)));
  HLOREF_RETURN_IF_ERROR(
      WriteTextFile(dir + "/report.html", ReportHtml(result, meta)));
  HLOREF_RETURN_IF_ERROR(
      WriteTextFile(dir + "/junit.xml", ReportJunit(result, meta)));
  for (const CaseRecord& r : result.records) {
    if (r.module_text.empty()) continue;
    // The case directory replays the case as the suite judged it
    // (per-participant arguments, host transfers: WriteCaseDir), plus why
    // it failed.
    const std::string case_dir = absl::StrCat(dir, "/cases/", CaseDirName(r));
    HLOREF_ASSIGN_OR_RETURN(GeneratedCase replay, CaseForReplay(r));
    HLOREF_RETURN_IF_ERROR(WriteCaseDir(replay, case_dir));
    std::string failure = absl::StrCat("Case ", r.id, " on ", meta.backend,
                                       ": ", r.message, "\n");
    for (const ElementFailure& f : r.failures) {
      absl::StrAppend(&failure, "  ", f.ToString(), "\n");
    }
    HLOREF_RETURN_IF_ERROR(WriteTextFile(case_dir + "/FAILURE", failure));
  }
  return absl::OkStatus();
}

}  // namespace hloref::conformance
