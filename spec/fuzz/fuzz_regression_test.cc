// Every reproducer the fuzzers found (spec/ir/testdata/fuzz_regressions/
// <target>/), fed through the entry its target uses (spec/fuzz/
// fuzz_entries.h): none may crash (ASan/UBSan in the fuzz build, a signal
// here), each must be refused with a message or accepted, and no invariant
// (round trip, reader agreement) may break. docs/fuzzing.md lists what each
// file once did.
#include "gtest/gtest.h"
#include "spec/fuzz/fuzz_entries.h"
#include "spec/fuzz/fuzz_regression_replay.h"

namespace hloref {
namespace {

TEST(FuzzRegression, HloModuleReproducers) {
  ReplayFuzzReproducers("hlo_module", FuzzHloModuleText, 1);
}

TEST(FuzzRegression, LiteralReproducers) {
  ReplayFuzzReproducers("literal", FuzzLiteralText, 2);
}

TEST(FuzzRegression, NpyReproducers) {
  ReplayFuzzReproducers("npy", FuzzNpyBytes, 1);
}

}  // namespace
}  // namespace hloref
