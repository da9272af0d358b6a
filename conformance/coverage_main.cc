// golden_coverage: writes or checks golden/COVERAGE.md (see
// conformance/harness/coverage.h).
//   golden_coverage [--root=DIR] --write   regenerate DIR/COVERAGE.md
//   golden_coverage [--root=DIR] --check   exit 1 if it is stale or the
//                                          README checklist is inconsistent
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "conformance/harness/coverage.h"
#include "conformance/harness/golden_case.h"

namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = hloref::conformance::DefaultGoldenDir();
  bool write = false, check = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--root=", 7) == 0) {
      root = argv[i] + 7;
    } else if (std::strcmp(argv[i], "--write") == 0) {
      write = true;
    } else if (std::strcmp(argv[i], "--check") == 0) {
      check = true;
    } else {
      std::fprintf(stderr,
                   "usage: golden_coverage [--root=DIR] --write|--check\n");
      return 2;
    }
  }
  if (write == check) {
    std::fprintf(stderr,
                 "golden_coverage: give exactly one of --write, --check\n");
    return 2;
  }
  auto cases = hloref::conformance::LoadGoldenSuite(root);
  if (!cases.ok()) {
    std::fprintf(stderr, "golden_coverage: %s\n",
                 std::string(cases.status().message()).c_str());
    return 1;
  }
  const std::string page = hloref::conformance::CoverageMarkdown(*cases);
  const std::string path = root + "/COVERAGE.md";
  int rc = 0;
  std::string readme;
  if (ReadFile(root + "/README.md", &readme)) {
    auto problems = hloref::conformance::CheckChecklist(
        hloref::conformance::ParseChecklist(readme), *cases);
    for (const std::string& p : problems) {
      std::fprintf(stderr, "golden/%s\n", p.c_str());
      rc = 1;
    }
  }
  if (write) {
    std::ofstream out(path, std::ios::binary);
    out << page;
    if (!out) {
      std::fprintf(stderr, "golden_coverage: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("wrote %s (%zu cases)\n", path.c_str(), cases->size());
    return rc;
  }
  std::string current;
  if (!ReadFile(path, &current) || current != page) {
    std::fprintf(stderr,
                 "golden_coverage: %s is stale; run golden_coverage --write\n",
                 path.c_str());
    return 1;
  }
  return rc;
}
