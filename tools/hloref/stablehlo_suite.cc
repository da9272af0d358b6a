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

std::vector<Literal> Leaves(Literal value) {
  std::vector<Literal> out;
  if (!value.shape().IsTuple()) {
    out.push_back(std::move(value));
    return out;
  }
  for (const Literal& e : value.tuple_elements()) out.push_back(e);
  return out;
}

}  // namespace

int RunStableHloSuite(const std::string& dir, const std::string& backend_name,
                      bool verbose) {
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
  int pass = 0, fail = 0, unsupported = 0, agree = 0, disagree = 0;
  for (const std::string& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ParseOptions options;
    options.file_name = path;
    auto unsupported_or_fail = [&](const absl::Status& s) {
      if (s.code() == absl::StatusCode::kUnimplemented) {
        ++unsupported;
        if (verbose)
          std::printf("UNSUPPORTED %s: %s\n", path.c_str(),
                      std::string(s.message()).c_str());
      } else {
        ++fail;
        std::printf("FAIL %s: %s\n", path.c_str(),
                    std::string(s.message()).c_str());
      }
    };
    auto test = ParseStableHloTestModule(ss.str(), options);
    if (!test.ok()) {
      unsupported_or_fail(test.status());
      continue;
    }
    if (absl::Status v = VerifyModule(*test->module); !v.ok()) {
      unsupported_or_fail(v);
      continue;
    }
    auto backend = backends::CreateBackend(backend_name);
    if (!backend.ok()) {
      unsupported_or_fail(backend.status());
      continue;
    }
    auto exe = (*backend)->Compile(*test->module, backends::CompileOptions());
    if (!exe.ok()) {
      unsupported_or_fail(exe.status());
      continue;
    }
    auto got = (*exe)->Run({});
    if (!got.ok()) {
      unsupported_or_fail(got.status());
      continue;
    }
    Evaluator evaluator;
    auto oracle = evaluator.Evaluate(*test->module, {});
    std::vector<Literal> reference;
    if (oracle.ok()) reference = Leaves(*std::move(oracle));
    const size_t n = test->checks.size();
    if (got->size() != 2 * n) {
      ++fail;
      std::printf("FAIL %s: %zu results for %zu checks\n", path.c_str(),
                  got->size(), n);
      continue;
    }
    std::string verdict, oracle_verdict;
    for (size_t k = 0; k < n && verdict.empty(); ++k) {
      std::string e =
          Judge(test->checks[k].kind, (*got)[2 * k], (*got)[2 * k + 1]);
      if (!e.empty()) {
        verdict = absl::StrCat("line ", test->checks[k].line, " expect_",
                               test->checks[k].kind, ": ", e);
      }
    }
    for (size_t k = 0; k < n && oracle_verdict.empty(); ++k) {
      if (reference.size() != 2 * n) {
        oracle_verdict = oracle.ok() ? "oracle result count differs"
                                     : std::string(oracle.status().message());
        break;
      }
      std::string e =
          Judge(test->checks[k].kind, (*got)[2 * k], reference[2 * k]);
      if (!e.empty()) {
        oracle_verdict = absl::StrCat("line ", test->checks[k].line,
                                      " against the oracle: ", e);
      }
    }
    if (verdict.empty()) {
      ++pass;
    } else {
      ++fail;
      std::printf("FAIL %s: %s\n", path.c_str(), verdict.c_str());
    }
    if (oracle_verdict.empty()) {
      ++agree;
    } else {
      ++disagree;
      std::printf("ORACLE-DIFF %s: %s\n", path.c_str(), oracle_verdict.c_str());
    }
    if (verbose && verdict.empty()) std::printf("PASS %s\n", path.c_str());
  }
  std::printf(
      "stablehlo:%s on %s: pass %d, fail %d, unsupported %d; against the "
      "oracle: agree %d, differ %d\n",
      dir.c_str(), backend_name.c_str(), pass, fail, unsupported, agree,
      disagree);
  return fail > 0 || disagree > 0 ? 1 : 0;
}

}  // namespace hloref::tools
