// `hloref conformance --suite=stablehlo:DIR`: every .mlir file of DIR in
// StableHLO's test-data format (@main checks values with check.expect_eq /
// expect_almost_eq / expect_close, or custom_call @check.expect_*) runs on
// the backend without its checks; each checked value is judged against
// the file's expected value with StableHLO's semantics (eq: exact, NaN
// equals NaN; almost_eq: absolute 1e-3; close: at most 3 ULP) and,
// separately, against the oracle's value with the same rule.
#ifndef HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_
#define HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_

#include <string>

namespace hloref::tools {

// Prints one line per failing file and a summary; returns the exit code
// (0: no failure and no disagreement with the oracle, 1 otherwise).
int RunStableHloSuite(const std::string& dir, const std::string& backend_name,
                      bool verbose);

}  // namespace hloref::tools

#endif  // HLOREF_TOOLS_HLOREF_STABLEHLO_SUITE_H_
