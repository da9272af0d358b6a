// `hloref convert IN.mlir [-o OUT.hlo]`: StableHLO to HLO text.
#include <cstdio>
#include <fstream>
#include <string>

#include "spec/ir/hlo_parser.h"
#include "spec/ir/hlo_printer.h"
#include "spec/stablehlo/stablehlo_reader.h"
#include "spec/verifier/verifier.h"
#include "tools/hloref/command_line.h"
#include "tools/hloref/module_loader.h"
#include "tools/hloref/subcommands.h"

namespace hloref::tools {
namespace {

constexpr char kConvertHelp[] =
    R"(Usage: hloref convert [options] IN.mlir [-o OUT.hlo]

Reads a StableHLO module (textual MLIR as jax.jit(f).lower(...).as_text(),
jax.export or PyTorch/XLA print it), converts it to HLO (the mapping is in
docs/stablehlo.md), verifies it and prints the canonical HLO text to
stdout or OUT.hlo. Errors are located in IN.mlir (LINE:COL); ops without
an HLO counterpart (quantized types, unbounded dynamic shapes) are
refused with "not supported: why" and exit status 1.

Options:
  -o, --output=FILE  write the HLO text to FILE
  --raw              print the converter's HLO text as generated (before
                     the HLO parser and verifier)
  --no-verify        parse and print only
  --help             show this text
)";

}  // namespace

int RunConvert(int argc, char** argv) {
  // `-o FILE` is accepted as a spelling of --output=FILE.
  std::vector<std::string> args(argv, argv + argc);
  for (std::string& a : args) {
    if (a == "-o") a = "--output";
  }
  std::vector<char*> ptrs;
  for (std::string& a : args) ptrs.push_back(a.data());
  auto cl = CommandLine::Parse(static_cast<int>(ptrs.size()), ptrs.data(), 2,
                               {{"output", true},
                                {"raw", false},
                                {"no-verify", false},
                                {"help", false}});
  if (!cl.ok()) {
    std::fprintf(stderr, "hloref convert: %s\n", cl.status().message().data());
    return 2;
  }
  if (cl->Has("help")) {
    std::fputs(kConvertHelp, stdout);
    return 0;
  }
  if (cl->positional().size() != 1) {
    std::fprintf(stderr, "hloref convert: expected one input file\n\n%s",
                 kConvertHelp);
    return 2;
  }
  const std::string& path = cl->positional()[0];
  std::string text;
  if (cl->Has("raw")) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "hloref convert: cannot open %s\n", path.c_str());
      return 1;
    }
    std::string mlir((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    auto hlo = StableHloToHloText(mlir, path);
    if (!hlo.ok()) {
      std::fprintf(stderr, "%s\n", std::string(hlo.status().message()).c_str());
      return 1;
    }
    text = *hlo;
  } else {
    std::vector<std::string> warnings;
    ParseOptions options;
    options.warnings = &warnings;
    auto module = LoadModuleFile(path, options);
    for (const std::string& w : warnings)
      std::fprintf(stderr, "%s\n", w.c_str());
    if (!module.ok()) {
      std::fprintf(stderr, "%s\n",
                   std::string(module.status().message()).c_str());
      return 1;
    }
    if (!cl->Has("no-verify")) {
      absl::Status status = VerifyModule(**module);
      if (!status.ok()) {
        std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
        return 1;
      }
    }
    text = PrintModule(**module);
  }
  if (auto out = cl->Get("output")) {
    std::ofstream f(*out, std::ios::binary);
    f << text;
    if (!f) {
      std::fprintf(stderr, "hloref convert: cannot write %s\n", out->c_str());
      return 1;
    }
    return 0;
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace hloref::tools
