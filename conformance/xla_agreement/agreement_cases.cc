// Helper of the XLA verifier agreement test
// (conformance/xla_agreement/xla_verifier_agreement.py): the two things it
// needs from hloref in C++.
//
//   xla_agreement_cases generate PER_OP [BASE_SEED]
//     prints PER_OP generated modules of every op that has a generator
//     (conformance/generators/, seeds BASE_SEED, BASE_SEED+1, ...) as
//     records "#### <op> <seed>\n<module text>".
//   xla_agreement_cases verify < RECORDS
//     reads records ("#### <id>\n<module text>") and prints one line per
//     record: "<id>\tok" when hloref's parser and verifier accept it, else
//     "<id>\treject\t<the error's first line>".
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "conformance/generators/generator.h"
#include "spec/ir/hlo_parser.h"
#include "spec/ir/opcode.h"
#include "spec/verifier/verifier.h"

namespace hloref::conformance {
namespace {

constexpr char kMarker[] = "#### ";

// The generator's module text with topk's is_stable left out, as hloref's
// printer leaves it out: XLA (jaxlib 0.10.2) has no such attribute on topk
// and refuses the whole module for it, which says nothing of the verifier
// rules compared here. hloref reads the text either way.
std::string AsXlaReads(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (std::string& line : lines) {
    if (!absl::StrContains(line, " topk(")) continue;
    line = absl::StrReplaceAll(
        line, {{", is_stable=true", ""}, {", is_stable=false", ""}});
  }
  return absl::StrJoin(lines, "\n");
}

int Generate(int64_t per_op, uint64_t base) {
  for (HloOpcode op : GeneratedOps()) {
    for (int64_t k = 0; k < per_op; ++k) {
      const uint64_t seed = base + static_cast<uint64_t>(k);
      auto c = GenerateCase(op, seed);
      if (!c.ok()) continue;  // no valid draw: nothing to compare
      std::printf("%s%s %llu\n%s\n", kMarker,
                  std::string(HloOpcodeString(op)).c_str(),
                  static_cast<unsigned long long>(seed),
                  AsXlaReads(c->module_text).c_str());
    }
  }
  return 0;
}

std::string FirstLine(absl::string_view message) {
  std::string line(message.substr(0, message.find('\n')));
  for (char& ch : line) {
    if (ch == '\t') ch = ' ';
  }
  return line;
}

void Judge(const std::string& id, const std::string& text) {
  if (id.empty()) return;
  std::vector<std::string> warnings;
  ParseOptions options;
  options.warnings = &warnings;
  auto module = ParseHloModule(text, options);
  if (!module.ok()) {
    std::printf("%s\treject\t%s\n", id.c_str(),
                FirstLine(module.status().message()).c_str());
    return;
  }
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    std::printf("%s\treject\t%s\n", id.c_str(),
                FirstLine(status.message()).c_str());
    return;
  }
  std::printf("%s\tok\n", id.c_str());
}

int Verify() {
  std::string input((std::istreambuf_iterator<char>(std::cin)),
                    std::istreambuf_iterator<char>());
  std::string id, text;
  for (absl::string_view line : absl::StrSplit(input, '\n')) {
    if (absl::StartsWith(line, kMarker)) {
      Judge(id, text);
      id = std::string(line.substr(sizeof(kMarker) - 1));
      text.clear();
    } else {
      text.append(line.data(), line.size());
      text.push_back('\n');
    }
  }
  Judge(id, text);
  return 0;
}

int Main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "generate" && (argc == 3 || argc == 4)) {
    int64_t per_op = 0;
    uint64_t base = 1;
    if (!absl::SimpleAtoi(argv[2], &per_op) ||
        (argc == 4 && !absl::SimpleAtoi(argv[3], &base))) {
      std::fprintf(stderr, "xla_agreement_cases: bad number\n");
      return 2;
    }
    return Generate(per_op, base);
  }
  if (mode == "verify" && argc == 2) return Verify();
  std::fprintf(stderr,
               "usage: xla_agreement_cases generate PER_OP [BASE_SEED]\n"
               "       xla_agreement_cases verify < RECORDS\n");
  return 2;
}

}  // namespace
}  // namespace hloref::conformance

int main(int argc, char** argv) {
  return hloref::conformance::Main(argc, argv);
}
