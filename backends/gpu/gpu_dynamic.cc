#include "backends/gpu/gpu_dynamic.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "backends/codegen/ir_value.h"

namespace hloref::gpu {

std::vector<std::vector<Literal>> ArgumentLeaves(
    absl::Span<const Literal> args) {
  std::vector<std::vector<Literal>> leaves;
  leaves.reserve(args.size());
  for (const Literal& a : args) {
    leaves.push_back(backends::FlattenLiteral(Literal(a)));
  }
  return leaves;
}

absl::StatusOr<std::vector<uint8_t>> ParameterBytes(
    const GpuBuffer& b, const std::vector<std::vector<Literal>>& leaves) {
  if (b.parameter < 0 || b.parameter >= static_cast<int64_t>(leaves.size()) ||
      b.leaf < 0 ||
      b.leaf >= static_cast<int64_t>(leaves[b.parameter].size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes more arguments than the ", leaves.size(), " given"));
  }
  const Literal* lit = &leaves[b.parameter][b.leaf];
  Literal bounded;
  if (!b.shape.is_static() && lit->shape().IsArray() &&
      !lit->shape().SameDimensions(b.shape)) {
    absl::StatusOr<Literal> converted =
        Literal::ToBoundedDynamic(*lit, b.shape);
    if (!converted.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", b.parameter, " leaf ", b.leaf, " has shape ",
          lit->shape().ToString(), ", the module expects ", b.shape.ToString(),
          ": ", converted.status().message()));
    }
    bounded = *std::move(converted);
    lit = &bounded;
  }
  if (!lit->shape().IsArray() || !lit->shape().SameDimensions(b.shape) ||
      lit->shape().element_type() != b.shape.element_type() ||
      (b.shape.is_static() && lit->HasPadding())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", b.parameter, " leaf ", b.leaf, " has shape ",
        lit->shape().ToString(), ", the module expects ", b.shape.ToString()));
  }
  if (b.kind == GpuBuffer::Kind::kParameterSizes) {
    absl::Span<const int64_t> sizes = lit->dynamic_sizes();
    std::vector<uint8_t> bytes(std::max<size_t>(sizes.size(), 1) *
                               sizeof(int64_t));
    if (!sizes.empty()) {
      std::memcpy(bytes.data(), sizes.data(), sizes.size() * sizeof(int64_t));
    }
    return bytes;
  }
  std::vector<uint8_t> bytes(std::max<int64_t>(b.bytes, 1));
  codegen::LiteralToPhysical(*lit, b.shape, bytes.data());
  return bytes;
}

absl::Status RunStatus(const GpuProgram& program, int32_t status_word) {
  if (status_word == 0) return absl::OkStatus();
  if (status_word < 0 ||
      status_word > static_cast<int32_t>(program.run_errors.size())) {
    return absl::InternalError(
        absl::StrCat("the GPU program's status buffer holds ", status_word,
                     ", which names none of its ", program.run_errors.size(),
                     " run-time errors"));
  }
  const GpuProgram::RunError& e = program.run_errors[status_word - 1];
  const bool known =
      e.code > 0 &&
      e.code <= static_cast<int32_t>(absl::StatusCode::kUnauthenticated);
  return absl::Status(known ? static_cast<absl::StatusCode>(e.code)
                            : absl::StatusCode::kInternal,
                      e.message);
}

absl::StatusOr<Literal> ResultLeaf(const Shape& s, const uint8_t* bytes,
                                   const int64_t* sizes) {
  Literal lit = codegen::PhysicalToLiteral(bytes, s);
  if (sizes == nullptr) return lit;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (!s.is_dynamic_dimension(d)) continue;
    if (sizes[d] < 0 || sizes[d] > s.dimensions(d)) {
      return absl::InternalError(
          absl::StrCat("runtime size ", sizes[d], " of result dimension ", d,
                       " lies outside its bound ", s.dimensions(d)));
    }
    lit.SetDynamicSize(d, sizes[d]);
  }
  return lit;
}

bool HasDynamicLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (HasDynamicLeaf(e)) return true;
    }
    return false;
  }
  return shape.IsArray() && !shape.is_static();
}

}  // namespace hloref::gpu
