// The CPU emitter of dot (dot_general) above the small-shape threshold: a
// buffer emitter calling the packed GEMM runtime (backends/cpu/runtime/
// gemm.h) with the operands' base pointers and, per logical dimension, its
// size and element strides, so any batch / contracting / free placement
// and any layout folds into the runtime's packing. Small dots, dynamic
// shapes and the element types without a GEMM path keep the target-
// independent elemental emitter (backends/codegen/contraction.cc), which
// inlines and fuses: the CPU table wraps it so that it declines exactly
// the dots this emitter takes.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/emitters/emitter_util.h"
#include "backends/cpu/runtime/gemm.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"

namespace hloref::cpu {
namespace {

using codegen::EmitContext;
using codegen::IrValue;

// Below this many multiply-adds (batch * M * N * K) a runtime call (tables,
// packing, a thread-pool round trip) costs more than the inlined elemental
// loop saves; measured in docs/cpu-kernels.md.
constexpr int64_t kMinGemmMacs = 16 * 1024;

bool Has(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t y : v) {
    if (y == x) return true;
  }
  return false;
}

std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Has(batch, d) && !Has(contracting, d)) out.push_back(d);
  }
  return out;
}

// The runtime's view of `inst` with the buffers' strides (lst, rst, ost:
// per logical dimension; empty for the decision alone), or an error when
// the GEMM path does not take it (the elemental emitter then does).
absl::StatusOr<DotDims> PlanGemm(const HloInstruction& inst,
                                 std::vector<int64_t> lst = {},
                                 std::vector<int64_t> rst = {},
                                 std::vector<int64_t> ost = {}) {
  if (inst.opcode() != HloOpcode::kDot || inst.operand_count() != 2) {
    return absl::UnimplementedError("not a two-operand dot");
  }
  const Shape& ls = inst.operand(0)->shape();
  const Shape& rs = inst.operand(1)->shape();
  const Shape& os = inst.shape();
  if (!ls.IsArray() || !rs.IsArray() || !os.IsArray() || !ls.is_static() ||
      !rs.is_static() || !os.is_static()) {
    return absl::UnimplementedError("dynamic or non-array dot");
  }
  if (GemmPathFor(ls.element_type(), rs.element_type(), os.element_type()) ==
      GemmPath::kNone) {
    return absl::UnimplementedError("no GEMM path for these element types");
  }
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  const std::vector<int64_t>& lb = dn.lhs_batch_dimensions;
  const std::vector<int64_t>& rb = dn.rhs_batch_dimensions;
  const std::vector<int64_t>& lc = dn.lhs_contracting_dimensions;
  const std::vector<int64_t>& rc = dn.rhs_contracting_dimensions;
  const int64_t lrank = ls.rank(), rrank = rs.rank();
  auto in_range = [](const std::vector<int64_t>& v, int64_t rank) {
    for (int64_t d : v) {
      if (d < 0 || d >= rank) return false;
    }
    return true;
  };
  if (lb.size() != rb.size() || lc.size() != rc.size() ||
      !in_range(lb, lrank) || !in_range(lc, lrank) || !in_range(rb, rrank) ||
      !in_range(rc, rrank)) {
    return absl::UnimplementedError("malformed dimension numbers");
  }
  const std::vector<int64_t> lf = FreeDims(lrank, lb, lc);
  const std::vector<int64_t> rf = FreeDims(rrank, rb, rc);
  const size_t nb = lb.size(), nlf = lf.size();
  if (os.rank() != static_cast<int64_t>(nb + nlf + rf.size())) {
    return absl::UnimplementedError("result rank does not match");
  }
  lst.resize(lrank, 0);
  rst.resize(rrank, 0);
  ost.resize(os.rank(), 0);
  DotDims d;
  d.lhs_type = ls.element_type();
  d.rhs_type = rs.element_type();
  d.out_type = os.element_type();
  int64_t macs = 1;
  for (size_t j = 0; j < nb; ++j) {
    if (ls.dimensions(lb[j]) != rs.dimensions(rb[j]) ||
        os.dimensions(j) != ls.dimensions(lb[j])) {
      return absl::UnimplementedError("batch sizes differ");
    }
    d.batch.push_back({ls.dimensions(lb[j]), lst[lb[j]], rst[rb[j]],
                       ost[static_cast<int64_t>(j)]});
    macs *= ls.dimensions(lb[j]);
  }
  for (size_t i = 0; i < nlf; ++i) {
    const int64_t o = static_cast<int64_t>(nb + i);
    if (os.dimensions(o) != ls.dimensions(lf[i])) {
      return absl::UnimplementedError("lhs free sizes differ");
    }
    d.m.push_back({ls.dimensions(lf[i]), lst[lf[i]], 0, ost[o]});
    macs *= ls.dimensions(lf[i]);
  }
  for (size_t i = 0; i < rf.size(); ++i) {
    const int64_t o = static_cast<int64_t>(nb + nlf + i);
    if (os.dimensions(o) != rs.dimensions(rf[i])) {
      return absl::UnimplementedError("rhs free sizes differ");
    }
    d.n.push_back({rs.dimensions(rf[i]), 0, rst[rf[i]], ost[o]});
    macs *= rs.dimensions(rf[i]);
  }
  for (size_t j = 0; j < lc.size(); ++j) {
    if (ls.dimensions(lc[j]) != rs.dimensions(rc[j])) {
      return absl::UnimplementedError("contracting sizes differ");
    }
    d.k.push_back({ls.dimensions(lc[j]), lst[lc[j]], rst[rc[j]], 0});
    macs *= ls.dimensions(lc[j]);
  }
  if (macs < kMinGemmMacs) {
    return absl::UnimplementedError("below the GEMM threshold");
  }
  return d;
}

absl::Status EmitGemmDot(EmitContext& ctx, const HloInstruction& inst,
                         absl::Span<const IrValue> operands,
                         const IrValue& output) {
  if (operands.size() != 2 || !operands[0].IsArray() ||
      !operands[1].IsArray() || !output.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", inst.name(), ": dot operands are not arrays"));
  }
  absl::StatusOr<DotDims> dims =
      PlanGemm(inst, Strides(operands[0].array), Strides(operands[1].array),
               Strides(output.array));
  if (!dims.ok()) {
    return absl::InternalError(
        absl::StrCat("%", inst.name(), ": dot reached the GEMM emitter but ",
                     dims.status().message()));
  }
  llvm::Type* ptr = ctx.PtrType();
  llvm::FunctionType* type = llvm::FunctionType::get(
      ctx.b().getVoidTy(), {ptr, ptr, ptr, ptr, ptr}, false);
  llvm::Function* f = ctx.GetRuntimeFunction("hloref_cpu_dot", type);
  ctx.b().CreateCall(
      f, {ctx.run_context(), ConstI64Array(ctx, EncodeDotDims(*dims)),
          operands[0].array.base(), operands[1].array.base(),
          output.array.base()});
  return absl::OkStatus();
}

}  // namespace

void RegisterCpuDotEmitters(codegen::EmitterTable& table) {
  codegen::ElementalEmitter elemental = table.Elemental(HloOpcode::kDot);
  table.SetElemental(
      HloOpcode::kDot,
      [elemental](EmitContext& ctx, const HloInstruction& inst,
                  absl::Span<const codegen::ElementGenerator> operands)
          -> absl::StatusOr<codegen::ElementGenerator> {
        if (PlanGemm(inst).ok()) {
          return absl::UnimplementedError(
              "dot above the GEMM threshold: the buffer emitter calls the "
              "GEMM runtime");
        }
        if (!elemental) return absl::UnimplementedError("no dot emitter");
        return elemental(ctx, inst, operands);
      });
  table.SetBuffer(HloOpcode::kDot, EmitGemmDot);
}

}  // namespace hloref::cpu
