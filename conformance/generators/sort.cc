// Generator of sort (seed 001 Sort): one or two operands along any
// dimension, a total-order comparator on the keys (TOTALORDER for floats,
// so NaN and -0 have a defined place) and is_stable=true, so every
// conforming implementation produces the same permutation. topk likewise.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conformance/generators/draw.h"

namespace hloref::conformance::gen {

namespace {

// topk along the last dimension: k from 0 to the dimension's size, largest
// or smallest, stable (ties keep index order) so the indices are defined.
absl::StatusOr<Draw> GenerateTopK(Rng& rng) {
  Draw d;
  const PrimitiveType t = DrawType(rng);
  // Complex numbers have no order (the verifier accepts complex topk but
  // the oracle refuses it as unsupported).
  if (IsComplex(t)) return absl::InvalidArgumentError("complex keys");
  const std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t k = rng.Range(0, dims.back());
  // Without is_stable the order of tied keys (hence their indices) is the
  // implementation's choice: such cases get distinct keys, so the
  // bit-exact policy still holds.
  const bool stable = rng.Chance(0.8);
  // Distinct keys need a type that holds every linear index exactly.
  const bool holds_indices =
      t == PrimitiveType::kF32 || t == PrimitiveType::kF64 ||
      ((IsSignedInt(t) || IsUnsignedInt(t)) && BitWidth(t) >= 16);
  if (!stable && !holds_indices) {
    return absl::InvalidArgumentError("unstable topk needs distinct keys");
  }
  d.params.push_back({Shape(t, dims), (!stable || rng.Chance(0.3))
                                          ? Fill::kUnique
                                          : Fill::kGeneral});
  d.op_text = absl::StrCat("topk(p0), k=", k,
                           ", largest=", rng.Chance(0.5) ? "true" : "false",
                           stable ? ", is_stable=true" : "");
  return d;
}

}  // namespace

absl::StatusOr<Draw> GenerateSort(HloOpcode op, Rng& rng) {
  if (op == HloOpcode::kTopK) return GenerateTopK(rng);
  if (op != HloOpcode::kSort) return absl::UnimplementedError("no generator");
  Draw d;
  const PrimitiveType key = DrawType(rng);
  if (IsComplex(key)) return absl::InvalidArgumentError("complex keys");
  const std::vector<int64_t> dims = DrawDims(rng, 1, 3);
  const int64_t dim = rng.Below(dims.size());
  const bool pair = rng.Chance(0.4);
  const PrimitiveType value = DrawType(rng);
  d.params.push_back(
      {Shape(key, dims), rng.Chance(0.3) ? Fill::kUnique : Fill::kGeneral});
  if (pair) d.params.push_back({Shape(value, dims), Fill::kGeneral});
  const std::string kt(PrimitiveTypeName(key));
  const std::string vt(PrimitiveTypeName(value));
  std::string cmp = absl::StrCat(
      "less {\n  a = ", kt, "[] parameter(0)\n  b = ", kt, "[] parameter(1)\n");
  if (pair) {
    absl::StrAppend(&cmp, "  c = ", vt, "[] parameter(2)\n  e = ", vt,
                    "[] parameter(3)\n");
  }
  absl::StrAppend(&cmp, "  ROOT lt = pred[] compare(a, b), direction=LT",
                  IsFloat(key) ? ", type=TOTALORDER" : "", "\n}\n\n");
  d.computations = cmp;
  d.op_text = absl::StrCat("sort(", pair ? "p0, p1" : "p0", "), dimensions={",
                           dim, "}, is_stable=true, to_apply=less");
  return d;
}

}  // namespace hloref::conformance::gen
