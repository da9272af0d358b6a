#include "conformance/fuzz/cpu_differential_fuzz_entry.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_backend.h"
#include "conformance/fuzz/conformance_fuzz_entries.h"

namespace hloref {

FuzzOutcome FuzzCpuDifferentialCase(absl::string_view bytes) {
  // One backend for the process: its JIT and compile cache are reused from
  // input to input, as in a conformance run (a fresh LLJIT per input would
  // be most of the time).
  static absl::StatusOr<std::unique_ptr<backends::Backend>>* const backend =
      [] {
        cpu::CpuBackendOptions options;
        options.threads = 2;
        return new absl::StatusOr<std::unique_ptr<backends::Backend>>(
            cpu::CreateCpuBackend(options));
      }();
  if (!backend->ok()) {
    FuzzOutcome out;
    out.status = backend->status();
    out.violation =
        absl::StrCat("no CPU backend: ", backend->status().ToString());
    return out;
  }
  return FuzzDifferentialCaseOn(bytes, ***backend,
                                "the CPU backend (-O2, 2 threads)");
}

}  // namespace hloref
