// The custom-call family (seed 001 "CustomCall"): in-process targets and
// the seed's C ABI for targets in user-named shared libraries. The buffer
// conventions are in custom_call.h.
#include "interpreter/ops/custom_call.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "interpreter/custom_call_registry.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/util/status_macros.h"

namespace hloref {
namespace {

// Owns every buffer handed to a library target; deques keep addresses
// stable while buffers are added.
struct CallBuffers {
  std::deque<std::vector<uint8_t>> arrays;
  std::deque<std::vector<void*>> pointer_tables;
};

// Physical position of each row-major element under `shape`'s layout
// (identity for the descending layout).
absl::StatusOr<std::vector<int64_t>> PhysicalPositions(const Shape& shape) {
  const int64_t n = shape.num_elements();
  std::vector<int64_t> positions(static_cast<size_t>(n));
  const Layout layout = shape.LayoutOrDefault();
  if (layout.IsDescending() || shape.rank() <= 1) {
    for (int64_t i = 0; i < n; ++i) positions[i] = i;
    return positions;
  }
  HLOREF_RETURN_IF_ERROR(ValidateLayout(layout, shape.rank()));
  if (n == 0) return positions;
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()), 0);
  int64_t r = 0;
  do {
    positions[r++] = LinearIndex(shape.dimensions(), layout, index);
  } while (NextIndex(shape.dimensions(), absl::MakeSpan(index)));
  return positions;
}

// The buffer for `value` laid out as `shape` (value's dimensions and type;
// shape supplies the layout).
absl::StatusOr<void*> Marshal(const Literal& value, const Shape& shape,
                              CallBuffers& buffers) {
  if (value.shape().IsToken()) return nullptr;
  if (value.shape().IsTuple()) {
    std::vector<void*> table;
    for (int64_t i = 0; i < value.tuple_size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(void* p, Marshal(value.tuple_element(i),
                                               shape.tuple_shapes(i), buffers));
      table.push_back(p);
    }
    buffers.pointer_tables.push_back(std::move(table));
    return buffers.pointer_tables.back().data();
  }
  const size_t bytes = static_cast<size_t>(StorageBytes(value.element_type()));
  absl::Span<const uint8_t> raw = value.raw();
  std::vector<uint8_t> out(raw.size());
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> positions,
                          PhysicalPositions(shape));
  for (size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(out.data() + positions[i] * bytes, raw.data() + i * bytes,
                bytes);
  }
  // Never hand out a null pointer for a zero-size array.
  if (out.empty()) out.resize(1);
  buffers.arrays.push_back(std::move(out));
  return buffers.arrays.back().data();
}

// Zeroed result buffers for `shape`; `addresses` records each array
// buffer's address in leaf order for Unmarshal.
absl::StatusOr<void*> AllocateResult(const Shape& shape, CallBuffers& buffers,
                                     std::vector<const uint8_t*>& addresses) {
  if (shape.IsToken()) {
    addresses.push_back(nullptr);
    return nullptr;
  }
  if (shape.IsTuple()) {
    std::vector<void*> table;
    for (const Shape& element : shape.tuple_shapes()) {
      HLOREF_ASSIGN_OR_RETURN(void* p,
                              AllocateResult(element, buffers, addresses));
      table.push_back(p);
    }
    buffers.pointer_tables.push_back(std::move(table));
    return buffers.pointer_tables.back().data();
  }
  const size_t size = static_cast<size_t>(shape.num_elements()) *
                      static_cast<size_t>(StorageBytes(shape.element_type()));
  buffers.arrays.emplace_back(std::max<size_t>(size, 1), 0);
  addresses.push_back(buffers.arrays.back().data());
  return buffers.arrays.back().data();
}

absl::StatusOr<Literal> Unmarshal(const Shape& shape,
                                  const std::vector<const uint8_t*>& addresses,
                                  size_t& next) {
  if (shape.IsToken()) {
    ++next;
    return Literal::Token();
  }
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      HLOREF_ASSIGN_OR_RETURN(Literal e, Unmarshal(element, addresses, next));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  const uint8_t* src = addresses[next++];
  Shape plain = shape;
  plain.clear_layout();
  Literal value(plain);
  const size_t bytes = static_cast<size_t>(StorageBytes(shape.element_type()));
  absl::Span<uint8_t> raw = value.mutable_raw();
  HLOREF_ASSIGN_OR_RETURN(std::vector<int64_t> positions,
                          PhysicalPositions(shape));
  for (size_t i = 0; i < positions.size(); ++i) {
    std::memcpy(raw.data() + i * bytes, src + positions[i] * bytes, bytes);
  }
  // Re-store element by element so that pred and sub-byte values a target
  // wrote are normalized (pred 0/1, sign-extended sub-byte integers).
  if (IsPred(shape.element_type()) || BitWidth(shape.element_type()) < 8) {
    for (int64_t i = 0; i < value.element_count(); ++i) {
      value.SetRawBits(i, raw[static_cast<size_t>(i)]);
    }
  }
  return value;
}

absl::StatusOr<Literal> CallLibraryTarget(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    CustomCallCFunction fn) {
  CallBuffers buffers;
  std::vector<void*> in;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    HLOREF_ASSIGN_OR_RETURN(
        void* p, Marshal(*operands[i], inst.operand(i)->shape(), buffers));
    in.push_back(p);
  }
  std::vector<const uint8_t*> addresses;
  HLOREF_ASSIGN_OR_RETURN(void* out,
                          AllocateResult(inst.shape(), buffers, addresses));
  fn(out, in.empty() ? nullptr : in.data());
  size_t next = 0;
  return Unmarshal(inst.shape(), addresses, next);
}

// CustomCall: calls the user-provided function named by
// custom_call_target. Semantics: seed 001 "CustomCall".
absl::StatusOr<Literal> EvalCustomCallTarget(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  const std::string& target = inst.attrs().custom_call_target;
  const EvaluatorOptions& options = ctx.options();
  // Annotations XLA removes before codegen (Sharding, MoveToHost, ...:
  // spec/ir/annotation_custom_calls.h) are the identity of their operand,
  // whatever a registry or library might export under the same name.
  if (FindAnnotationCustomCall(target) != nullptr) {
    absl::Status identity = CheckAnnotationCustomCall(inst);
    if (!identity.ok()) {
      return absl::Status(identity.code(), absl::StrCat("%", inst.name(), ": ",
                                                        identity.message()));
    }
    Literal result = *operands[0];
    if (result.shape().IsArray() && inst.shape().IsArray() &&
        inst.shape().has_layout()) {
      result.set_layout(inst.shape().layout());
    }
    return result;
  }
  if (options.custom_call_registry != nullptr) {
    if (const CustomCallFunction* fn =
            options.custom_call_registry->Find(target)) {
      absl::StatusOr<Literal> result = (*fn)(inst, operands);
      if (!result.ok()) {
        return absl::Status(
            result.status().code(),
            absl::StrCat("%", inst.name(), ": custom-call target \"", target,
                         "\" failed: ", result.status().message()));
      }
      if (!result->shape().SameDimensions(inst.shape())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "%", inst.name(), ": custom-call target \"", target, "\" returned ",
            result->shape().ToString(false), ", the instruction's shape is ",
            inst.shape().ToString(false)));
      }
      return result;
    }
  }
  for (const std::string& path : options.custom_call_libraries) {
    absl::Status opened = OpenCustomCallLibrary(path);
    if (!opened.ok()) {
      return absl::Status(opened.code(), absl::StrCat("%", inst.name(), ": ",
                                                      opened.message()));
    }
    absl::StatusOr<CustomCallCFunction> fn =
        LookupCustomCallSymbol(path, target);
    if (!fn.ok()) continue;  // not in this library; try the next
    const std::string& api = inst.attrs().api_version;
    if (!api.empty() && api != "API_VERSION_ORIGINAL") {
      return absl::UnimplementedError(absl::StrCat(
          "%", inst.name(), ": custom-call target \"", target, "\" in \"", path,
          "\" uses ", api,
          "; only API_VERSION_ORIGINAL (void target(void* out, void** in)) "
          "can be called from a library"));
    }
    return CallLibraryTarget(inst, operands, *fn);
  }
  std::vector<std::string> registered;
  if (options.custom_call_registry != nullptr) {
    registered = options.custom_call_registry->Names();
  }
  // Unimplemented: the oracle cannot evaluate the op (XLA-internal targets
  // such as __cublas$gemm in optimized dumps land here), so a conformance
  // run reports it as unsupported.
  return absl::UnimplementedError(absl::StrCat(
      "%", inst.name(), ": unknown custom-call target \"", target,
      "\": not registered in-process (registered: ",
      registered.empty() ? "none" : absl::StrJoin(registered, ", "),
      ") and not exported by any custom-call library (searched: ",
      options.custom_call_libraries.empty()
          ? "none; pass one with --custom-call-lib=PATH"
          : absl::StrJoin(options.custom_call_libraries, ", "),
      ")"));
}

}  // namespace

absl::StatusOr<Literal> EvalCustomCall(
    const HloInstruction& inst, absl::Span<const Literal* const> operands,
    EvalContext& ctx) {
  if (inst.opcode() != HloOpcode::kCustomCall) {
    return absl::InternalError(
        absl::StrCat("%", inst.name(), ": ", HloOpcodeString(inst.opcode()),
                     " is not in the custom_call family"));
  }
  return EvalCustomCallTarget(inst, operands, ctx);
}

}  // namespace hloref
