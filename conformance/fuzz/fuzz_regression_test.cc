// Every reproducer of the evaluator, command-backend, plugin-backend,
// golden-reader, differential and CPU differential fuzz targets
// (spec/ir/testdata/fuzz_regressions/<target>/),
// fed through the entry its target uses: none may crash, each must be
// refused with a message or accepted, and no invariant may break.
// docs/fuzzing.md lists what each file once did. The text-reader targets'
// reproducers are replayed by spec/fuzz/fuzz_regression_test.cc.
#include "backends/command/fuzz/command_fuzz_entry.h"
#include "backends/plugin/fuzz/plugin_fuzz_entry.h"
#include "conformance/fuzz/conformance_fuzz_entries.h"
#include "conformance/fuzz/cpu_differential_fuzz_entry.h"
#include "gtest/gtest.h"
#include "interpreter/fuzz/evaluator_fuzz_entry.h"
#include "spec/fuzz/fuzz_regression_replay.h"

namespace hloref {
namespace {

TEST(ConformanceFuzzRegression, EvaluatorReproducers) {
  ReplayFuzzReproducers("evaluator", FuzzEvaluateHloText, 0);
}

TEST(ConformanceFuzzRegression, CommandReproducers) {
  ReplayFuzzReproducers("command_results", FuzzCommandResults, 0);
}

TEST(ConformanceFuzzRegression, PluginReproducers) {
  ReplayFuzzReproducers("plugin_results", FuzzPluginResults, 1);
}

TEST(ConformanceFuzzRegression, GoldenReproducers) {
  ReplayFuzzReproducers("golden_case", FuzzGoldenFileText, 0);
}

TEST(ConformanceFuzzRegression, DifferentialReproducers) {
  ReplayFuzzReproducers("differential", FuzzDifferentialCase, 1);
}

TEST(ConformanceFuzzRegression, CpuDifferentialReproducers) {
  ReplayFuzzReproducers("cpu_differential", FuzzCpuDifferentialCase, 0);
}

}  // namespace
}  // namespace hloref
