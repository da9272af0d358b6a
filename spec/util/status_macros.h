// Status propagation macros shaped like Abseil's later ones (Debian's
// Abseil 20220623 has none), plus HLOREF_CHECK for broken invariants.
#ifndef HLOREF_SPEC_UTIL_STATUS_MACROS_H_
#define HLOREF_SPEC_UTIL_STATUS_MACROS_H_

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HLOREF_STATUS_CONCAT_INNER_(a, b) a##b
#define HLOREF_STATUS_CONCAT_(a, b) HLOREF_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define HLOREF_RETURN_IF_ERROR(expr)                  \
  do {                                                \
    ::absl::Status hloref_status_ = (expr);           \
    if (!hloref_status_.ok()) return hloref_status_;  \
  } while (0)

// `lhs = value` of the StatusOr `rexpr`, or returns its error.
#define HLOREF_ASSIGN_OR_RETURN(lhs, rexpr)                                  \
  HLOREF_ASSIGN_OR_RETURN_IMPL_(                                             \
      HLOREF_STATUS_CONCAT_(hloref_statusor_, __LINE__), lhs, rexpr)
#define HLOREF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

// Aborts with file:line for a broken internal invariant (never for input).
#define HLOREF_CHECK(cond)                                               \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: internal invariant failed: %s\n",     \
                   __FILE__, __LINE__, #cond);                           \
      std::abort();                                                      \
    }                                                                    \
  } while (0)

#endif  // HLOREF_SPEC_UTIL_STATUS_MACROS_H_
