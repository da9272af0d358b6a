#include "backends/gpu/gpu_gemm.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/llvm_types.h"
#include "backends/gpu/gpu_emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

using codegen::EmitContext;

bool TensorCoreType(PrimitiveType type) {
  return type == PrimitiveType::kBF16 || type == PrimitiveType::kF16;
}

TensorCoreKind TensorCoreKindFor(absl::string_view arch) {
  return arch == "sm_90a" ? TensorCoreKind::kWgmma : TensorCoreKind::kMmaSync;
}

bool TensorCoreGridFits(int64_t batch, int64_t m, int64_t n) {
  return batch >= 1 && batch <= 65535 && m >= 1 && n >= 1 &&
         (m + kGemmBlockM - 1) / kGemmBlockM <= 65535 &&
         (n + kGemmBlockN - 1) / kGemmBlockN <= (int64_t{1} << 31) - 1;
}

// ---- Host maps (gpu_gemm.h); EmitTensorCoreGemm computes the same.

TileCoord GemmLoadA(int64_t thread, int64_t step) {
  const int64_t e = step * kGemmThreads + thread;
  return {e / kGemmBlockK, e % kGemmBlockK};
}

TileCoord GemmLoadB(int64_t thread, int64_t step) {
  const int64_t e = step * kGemmThreads + thread;
  return {e / kGemmBlockN, e % kGemmBlockN};
}

TileCoord GemmAccumulator(TensorCoreKind kind, int64_t thread, int64_t r) {
  const int64_t warp = thread / 32, lane = thread % 32;
  const int64_t q = r % 4;
  const int64_t row_in = lane / 4 + (q >= 2 ? 8 : 0);
  const int64_t col_in = (lane % 4) * 2 + q % 2;
  if (kind == TensorCoreKind::kWgmma) {
    // m64nNk16's D fragment: warp w holds rows 16w..16w+15; register 4i+q
    // is n block i.
    return {16 * warp + row_in, 8 * (r / 4) + col_in};
  }
  const int64_t wm = warp / kGemmWarpsN, wn = warp % kGemmWarpsN;
  const int64_t mma = r / 4;  // mi * kGemmMmaN + ni
  const int64_t mi = mma / kGemmMmaN, ni = mma % kGemmMmaN;
  return {wm * kGemmWarpM + mi * 16 + row_in,
          wn * kGemmWarpN + ni * 8 + col_in};
}

TileCoord GemmLdmatrixA(TensorCoreKind kind, int64_t warp, int64_t lane,
                        int64_t mi, int64_t ks) {
  // Lanes 0-7 / 8-15 / 16-23 / 24-31 address the rows of the 8x8 matrices
  // a0 (rows 0-7, k 0-7), a1 (rows 8-15, k 0-7), a2 (rows 0-7, k 8-15),
  // a3 (rows 8-15, k 8-15): the m16n8k16 A fragment order.
  const int64_t base = kind == TensorCoreKind::kWgmma
                           ? 16 * warp
                           : (warp / kGemmWarpsN) * kGemmWarpM + mi * 16;
  return {base + lane % 16, ks + (lane / 16) * 8};
}

TileCoord GemmLdmatrixB(int64_t warp, int64_t lane, int64_t nj, int64_t ks) {
  // The B tile is stored transposed ([n][l], l contiguous), so an 8x8
  // matrix of rows n and columns l is the m16n8k16 ".col" B fragment:
  // lanes 0-7 b0 and 8-15 b1 of n block 2nj, lanes 16-31 those of 2nj+1.
  const int64_t n =
      (warp % kGemmWarpsN) * kGemmWarpN + nj * 16 + lane % 8 + (lane / 16) * 8;
  return {ks + ((lane / 8) % 2) * 8, n};
}

TileCoord GemmLdmatrixBTrans(int64_t warp, int64_t lane, int64_t nj,
                             int64_t ks) {
  // Matrices 0..3 (lanes 8j..8j+7): (l 0-7, n 0-7) = b0 of n block 2nj,
  // (l 8-15, n 0-7) = its b1, then the same for n block 2nj + 1; .trans
  // hands thread t the column t / 4 (n) at rows 2 (t % 4), +1 (l).
  return {ks + lane % 8 + ((lane / 8) % 2) * 8,
          (warp % kGemmWarpsN) * kGemmWarpN + nj * 16 + (lane / 16) * 8};
}

TileCoord GemmChunkA(int64_t thread, int64_t step) {
  const int64_t c = step * kGemmThreads + thread;
  return {c / (kGemmBlockK / 8), (c % (kGemmBlockK / 8)) * 8};
}

TileCoord GemmChunkB(int64_t thread, int64_t step) {
  const int64_t c = step * kGemmThreads + thread;
  return {c / (kGemmBlockN / 8), (c % (kGemmBlockN / 8)) * 8};
}

bool GemmDirectA(const GemmIo& io) {
  return io.a_row_major != nullptr && io.k % 8 == 0;
}

bool GemmDirectB(const GemmIo& io, TensorCoreKind kind) {
  return io.b_row_major != nullptr && io.n % 8 == 0 &&
         kind == TensorCoreKind::kMmaSync;
}

int64_t WgmmaBOffset(int64_t l, int64_t j) {
  return ((l / 8) * (kGemmBlockN / 8) + j / 8) * 64 + (j % 8) * 8 + l % 8;
}

namespace {

// Marks the loop whose header block is `header` "do not unroll" (the k
// loop: its body already holds 32 masked loads and 16 or 2 MMAs).
void DisableUnrollOf(llvm::Function& f, llvm::StringRef header) {
  llvm::LLVMContext& c = f.getContext();
  for (llvm::BasicBlock& bb : f) {
    auto* br = llvm::dyn_cast_or_null<llvm::BranchInst>(bb.getTerminator());
    if (br == nullptr || !br->isUnconditional() ||
        br->getSuccessor(0)->getName() != header) {
      continue;
    }
    llvm::Metadata* disable[] = {
        llvm::MDString::get(c, "llvm.loop.unroll.disable")};
    llvm::TempMDTuple temp = llvm::MDNode::getTemporary(c, {});
    llvm::Metadata* ops[] = {temp.get(), llvm::MDNode::get(c, disable)};
    llvm::MDNode* loop = llvm::MDNode::getDistinct(c, ops);
    loop->replaceOperandWith(0, loop);
    br->setMetadata(llvm::LLVMContext::MD_loop, loop);
  }
}

class GemmEmitter {
 public:
  GemmEmitter(EmitContext& ctx, llvm::Function& f, const GemmIo& io,
              TensorCoreKind kind)
      : ctx_(ctx), b_(ctx.b()), m_(ctx.module()), f_(f), io_(io), kind_(kind) {}

  absl::Status Emit() {
    i16_ = b_.getInt16Ty();
    i32_ = b_.getInt32Ty();
    i64_ = b_.getInt64Ty();
    f32_ = b_.getFloatTy();
    tid_ = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    warp_ = b_.CreateLShr(tid_, b_.getInt32(5));
    lane_ = b_.CreateAnd(tid_, b_.getInt32(31));
    block_row_ = b_.CreateMul(
        b_.CreateZExt(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y), i64_),
        ctx_.I64(kGemmBlockM));
    block_col_ = b_.CreateMul(
        b_.CreateZExt(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), i64_),
        ctx_.I64(kGemmBlockN));
    batch_ =
        b_.CreateZExt(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z), i64_);
    direct_a_ = GemmDirectA(io_);
    direct_b_ = GemmDirectB(io_, kind_);
    // cp.async operands are double buffered: the copy of the next k tile
    // runs while the MMAs read this one.
    a_size_ = kGemmBlockM * kGemmPitch;
    b_size_ = kind_ == TensorCoreKind::kWgmma ? kGemmBlockK * kGemmBlockN
              : direct_b_                     ? kGemmBlockK * kGemmPitchB
                                              : kGemmBlockN * kGemmPitch;
    a_smem_ = Shared("gemm_a", a_size_ * (direct_a_ ? 2 : 1));
    b_smem_ = Shared("gemm_b", b_size_ * (direct_b_ ? 2 : 1));
    a_tile_ = a_smem_;
    b_tile_ = b_smem_;
    acc_ = ctx_.EntryAlloca(f32_, kGemmAccumulators, "acc");
    slot_ = ctx_.EntryAlloca(i16_, 1, "load");
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      b_.CreateStore(llvm::ConstantFP::get(f32_, 0.0), Acc(r));
    }
    // Stage 0 gets k tile 0 before the loop.
    CopyTiles(ctx_.I64(0), a_smem_, b_smem_);
    HLOREF_RETURN_IF_ERROR(ctx_.EmitForLoop(
        "gemm_k", ctx_.I64(0), ctx_.I64(io_.k), ctx_.I64(kGemmBlockK),
        [&](llvm::Value* kt) -> absl::Status {
          if (direct_a_ || direct_b_) {
            // Stage (kt / 32) % 2 holds this tile; the other one receives
            // the next (all zero-filled past k), then this tile's group is
            // waited for (at most the newest group stays in flight).
            llvm::Value* stage = b_.CreateTrunc(
                b_.CreateAnd(b_.CreateUDiv(kt, ctx_.I64(kGemmBlockK)),
                             ctx_.I64(1)),
                i32_);
            llvm::Value* other = b_.CreateXor(stage, I32(1));
            auto at = [&](llvm::GlobalVariable* g, int64_t size,
                          llvm::Value* st) -> llvm::Value* {
              return b_.CreateInBoundsGEP(i16_, g,
                                          {b_.CreateMul(st, I32(size))});
            };
            a_tile_ = direct_a_ ? at(a_smem_, a_size_, stage) : a_smem_;
            b_tile_ = direct_b_ ? at(b_smem_, b_size_, stage) : b_smem_;
            CopyTiles(b_.CreateAdd(kt, ctx_.I64(kGemmBlockK)),
                      direct_a_ ? at(a_smem_, a_size_, other) : a_smem_,
                      direct_b_ ? at(b_smem_, b_size_, other) : b_smem_);
            b_.CreateCall(llvm::Intrinsic::getDeclaration(
                              &m_, llvm::Intrinsic::nvvm_cp_async_wait_group),
                          {I32(1)});
          }
          HLOREF_RETURN_IF_ERROR(LoadTiles(kt));
          if (kind_ == TensorCoreKind::kWgmma) {
            // The tiles were written through the generic proxy; wgmma
            // reads B through the async proxy.
            Asm("fence.proxy.async.shared::cta;");
          }
          Barrier();
          if (kind_ == TensorCoreKind::kWgmma) {
            EmitWgmmaStep();
          } else {
            for (int64_t ks = 0; ks < kGemmBlockK; ks += 16) EmitMmaStep(ks);
          }
          Barrier();
          return absl::OkStatus();
        }));
    DisableUnrollOf(f_, "gemm_k.header");
    if (direct_a_ || direct_b_) {
      // The last (all zero-fill) copy lands before the block may exit.
      b_.CreateCall(llvm::Intrinsic::getDeclaration(
                        &m_, llvm::Intrinsic::nvvm_cp_async_wait_group),
                    {I32(0)});
    }
    return Epilogue();
  }

 private:
  llvm::Value* Sreg(llvm::Intrinsic::ID id) {
    return b_.CreateCall(llvm::Intrinsic::getDeclaration(&m_, id), {});
  }
  void Barrier() {
    b_.CreateCall(
        llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::nvvm_barrier0),
        {});
  }
  void Asm(const std::string& text) {
    auto* t = llvm::FunctionType::get(b_.getVoidTy(), false);
    b_.CreateCall(llvm::InlineAsm::get(t, text, "~{memory}", true), {});
  }
  llvm::GlobalVariable* Shared(const char* name, int64_t elements) {
    auto* t = llvm::ArrayType::get(i16_, elements);
    auto* g = new llvm::GlobalVariable(m_, t, false,
                                       llvm::GlobalValue::InternalLinkage,
                                       llvm::UndefValue::get(t), name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, 3);
    g->setAlignment(llvm::Align(128));
    return g;
  }
  llvm::Value* Element(llvm::Value* tile, llvm::Value* offset) {
    return b_.CreateInBoundsGEP(i16_, tile, {offset});
  }
  llvm::Value* Acc(int64_t r) {
    return b_.CreateConstInBoundsGEP1_32(f32_, acc_, static_cast<unsigned>(r));
  }
  llvm::Value* I32(int64_t v) { return b_.getInt32(static_cast<int32_t>(v)); }

  // One masked element of an operand into the slot as its 16-bit pattern
  // (zero outside the operand: +0.0 in both types).
  absl::Status LoadElement(
      llvm::Value* in_range,
      const std::function<absl::StatusOr<llvm::Value*>()>& load) {
    b_.CreateStore(b_.getInt16(0), slot_);
    HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
        in_range,
        [&]() -> absl::Status {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, load());
          llvm::Value* bits = codegen::EmitComputeToStorage(ctx_, io_.type, v);
          if (bits->getType() != i16_) bits = b_.CreateBitCast(bits, i16_);
          b_.CreateStore(bits, slot_);
          return absl::OkStatus();
        },
        "gemm_load"));
    return absl::OkStatus();
  }

  // One 16-byte cp.async.cg of `in_range` ? 16 : 0 bytes (zero-filled)
  // from element `linear` of the row-major operand at `base` to `dst`.
  void CopyChunk(llvm::Value* base, llvm::Value* linear, llvm::Value* in_range,
                 llvm::Value* dst) {
    llvm::Function* cp = llvm::Intrinsic::getDeclaration(
        &m_, llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s);
    llvm::FunctionType* ft = cp->getFunctionType();
    // Out-of-range chunks copy nothing from the operand's first element.
    llvm::Value* src = b_.CreateInBoundsGEP(
        i16_, base, {b_.CreateSelect(in_range, linear, ctx_.I64(0))});
    auto cast = [&](llvm::Value* p, llvm::Type* t) {
      return p->getType() == t ? p : b_.CreateAddrSpaceCast(p, t);
    };
    b_.CreateCall(
        cp, {cast(dst, ft->getParamType(0)), cast(src, ft->getParamType(1)),
             b_.CreateSelect(in_range, I32(16), I32(0))});
  }

  // The k tile at `kt` of A ([row][l], pitch 40) and B (mma.sync:
  // transposed [j][l], pitch 40, or with cp.async [l][j], pitch 136;
  // wgmma: core matrices, WgmmaBOffset).
  // The cp.async part of k tile `kt` (A and / or B) into `a_dst` /
  // `b_dst`, as one commit group.
  void CopyTiles(llvm::Value* kt, llvm::Value* a_dst, llvm::Value* b_dst) {
    if (!direct_a_ && !direct_b_) return;
    if (direct_a_) {
      for (int64_t s = 0; s < kGemmChunksPerThread; ++s) {
        // GemmChunkA: c = s * threads + t; row = c / 4, l = (c % 4) * 8.
        llvm::Value* c = b_.CreateAdd(I32(s * kGemmThreads), tid_);
        llvm::Value* row = b_.CreateUDiv(c, I32(kGemmBlockK / 8));
        llvm::Value* l =
            b_.CreateMul(b_.CreateURem(c, I32(kGemmBlockK / 8)), I32(8));
        llvm::Value* grow = b_.CreateAdd(block_row_, b_.CreateZExt(row, i64_));
        llvm::Value* gl = b_.CreateAdd(kt, b_.CreateZExt(l, i64_));
        llvm::Value* linear = b_.CreateAdd(
            b_.CreateMul(
                b_.CreateAdd(b_.CreateMul(batch_, ctx_.I64(io_.m)), grow),
                ctx_.I64(io_.k)),
            gl);
        CopyChunk(io_.a_row_major, linear,
                  b_.CreateAnd(b_.CreateICmpULT(grow, ctx_.I64(io_.m)),
                               b_.CreateICmpULT(gl, ctx_.I64(io_.k))),
                  Element(a_dst,
                          b_.CreateAdd(b_.CreateMul(row, I32(kGemmPitch)), l)));
      }
    }
    if (direct_b_) {
      for (int64_t s = 0; s < kGemmChunksPerThread; ++s) {
        // GemmChunkB: c = s * threads + t; l = c / 16, j = (c % 16) * 8.
        llvm::Value* c = b_.CreateAdd(I32(s * kGemmThreads), tid_);
        llvm::Value* l = b_.CreateUDiv(c, I32(kGemmBlockN / 8));
        llvm::Value* j =
            b_.CreateMul(b_.CreateURem(c, I32(kGemmBlockN / 8)), I32(8));
        llvm::Value* gl = b_.CreateAdd(kt, b_.CreateZExt(l, i64_));
        llvm::Value* gcol = b_.CreateAdd(block_col_, b_.CreateZExt(j, i64_));
        llvm::Value* linear = b_.CreateAdd(
            b_.CreateMul(
                b_.CreateAdd(b_.CreateMul(batch_, ctx_.I64(io_.k)), gl),
                ctx_.I64(io_.n)),
            gcol);
        CopyChunk(
            io_.b_row_major, linear,
            b_.CreateAnd(b_.CreateICmpULT(gl, ctx_.I64(io_.k)),
                         b_.CreateICmpULT(gcol, ctx_.I64(io_.n))),
            Element(b_dst, b_.CreateAdd(b_.CreateMul(l, I32(kGemmPitchB)), j)));
      }
    }
    b_.CreateCall(llvm::Intrinsic::getDeclaration(
        &m_, llvm::Intrinsic::nvvm_cp_async_commit_group));
  }

  // The generator-loaded operands of k tile `kt` into their tiles.
  absl::Status LoadTiles(llvm::Value* kt) {
    for (int64_t s = 0; !direct_a_ && s < kGemmLoadsPerThread; ++s) {
      // GemmLoadA: e = s * threads + t; row = e / 32, l = e % 32.
      llvm::Value* e = b_.CreateAdd(I32(s * kGemmThreads), tid_);
      llvm::Value* row = b_.CreateUDiv(e, I32(kGemmBlockK));
      llvm::Value* l = b_.CreateURem(e, I32(kGemmBlockK));
      llvm::Value* grow = b_.CreateAdd(block_row_, b_.CreateZExt(row, i64_));
      llvm::Value* gl = b_.CreateAdd(kt, b_.CreateZExt(l, i64_));
      HLOREF_RETURN_IF_ERROR(
          LoadElement(b_.CreateAnd(b_.CreateICmpULT(grow, ctx_.I64(io_.m)),
                                   b_.CreateICmpULT(gl, ctx_.I64(io_.k))),
                      [&]() { return io_.load_a(batch_, grow, gl); }));
      b_.CreateStore(
          b_.CreateLoad(i16_, slot_),
          Element(a_tile_,
                  b_.CreateAdd(b_.CreateMul(row, I32(kGemmPitch)), l)));
    }
    for (int64_t s = 0; !direct_b_ && s < kGemmLoadsPerThread; ++s) {
      // GemmLoadB: e = s * threads + t; l = e / kGemmBlockN, j = e %
      // kGemmBlockN.
      llvm::Value* e = b_.CreateAdd(I32(s * kGemmThreads), tid_);
      llvm::Value* l = b_.CreateUDiv(e, I32(kGemmBlockN));
      llvm::Value* j = b_.CreateURem(e, I32(kGemmBlockN));
      llvm::Value* gl = b_.CreateAdd(kt, b_.CreateZExt(l, i64_));
      llvm::Value* gcol = b_.CreateAdd(block_col_, b_.CreateZExt(j, i64_));
      HLOREF_RETURN_IF_ERROR(
          LoadElement(b_.CreateAnd(b_.CreateICmpULT(gl, ctx_.I64(io_.k)),
                                   b_.CreateICmpULT(gcol, ctx_.I64(io_.n))),
                      [&]() { return io_.load_b(batch_, gl, gcol); }));
      llvm::Value* offset;
      if (kind_ == TensorCoreKind::kWgmma) {
        // WgmmaBOffset(l, j).
        offset = b_.CreateAdd(
            b_.CreateMul(b_.CreateAdd(b_.CreateMul(b_.CreateLShr(l, I32(3)),
                                                   I32(kGemmBlockN / 8)),
                                      b_.CreateLShr(j, I32(3))),
                         I32(64)),
            b_.CreateAdd(b_.CreateMul(b_.CreateAnd(j, I32(7)), I32(8)),
                         b_.CreateAnd(l, I32(7))));
      } else {
        offset = b_.CreateAdd(b_.CreateMul(j, I32(kGemmPitch)), l);
      }
      b_.CreateStore(b_.CreateLoad(i16_, slot_), Element(b_tile_, offset));
    }
    return absl::OkStatus();
  }

  // ldmatrix.x4 of the 8-element rows starting at tile[row][col] (pitch
  // 40) of each lane: four i32 registers.
  std::vector<llvm::Value*> Ldmatrix(llvm::Value* tile, llvm::Value* row,
                                     llvm::Value* col, bool trans = false,
                                     int64_t pitch = kGemmPitch) {
    llvm::Value* p =
        Element(tile, b_.CreateAdd(b_.CreateMul(row, I32(pitch)), col));
    const llvm::Intrinsic::ID id =
        trans ? llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
              : llvm::Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16;
    // Overloaded on the (shared) pointer type in LLVM 19.
    llvm::Function* ld =
        llvm::Intrinsic::isOverloaded(id)
            ? llvm::Intrinsic::getDeclaration(&m_, id, {p->getType()})
            : llvm::Intrinsic::getDeclaration(&m_, id);
    llvm::Value* r = b_.CreateCall(ld, {p});
    std::vector<llvm::Value*> regs;
    for (unsigned i = 0; i < 4; ++i)
      regs.push_back(b_.CreateExtractValue(r, i));
    return regs;
  }

  // GemmLdmatrixA's address for this lane.
  std::vector<llvm::Value*> LoadA(llvm::Value* base_row, int64_t ks) {
    llvm::Value* row = b_.CreateAdd(base_row, b_.CreateAnd(lane_, I32(15)));
    llvm::Value* col = b_.CreateAdd(
        I32(ks), b_.CreateMul(b_.CreateLShr(lane_, I32(4)), I32(8)));
    return Ldmatrix(a_tile_, row, col);
  }

  // 16 of k: kGemmMmaM x kGemmMmaN mma.sync.m16n8k16 per warp.
  void EmitMmaStep(int64_t ks) {
    llvm::Value* wm = b_.CreateUDiv(warp_, I32(kGemmWarpsN));
    llvm::Value* wn = b_.CreateURem(warp_, I32(kGemmWarpsN));
    std::vector<std::vector<llvm::Value*>> a(kGemmMmaM), bf(kGemmMmaN);
    for (int64_t mi = 0; mi < kGemmMmaM; ++mi) {
      a[mi] = LoadA(
          b_.CreateAdd(b_.CreateMul(wm, I32(kGemmWarpM)), I32(mi * 16)), ks);
    }
    for (int64_t nj = 0; direct_b_ && nj < kGemmMmaN / 2; ++nj) {
      // GemmLdmatrixBTrans: the [l][j] tile.
      llvm::Value* l = b_.CreateAdd(
          b_.CreateAdd(I32(ks), b_.CreateAnd(lane_, I32(7))),
          b_.CreateMul(b_.CreateAnd(b_.CreateLShr(lane_, I32(3)), I32(1)),
                       I32(8)));
      llvm::Value* n = b_.CreateAdd(
          b_.CreateAdd(b_.CreateMul(wn, I32(kGemmWarpN)), I32(nj * 16)),
          b_.CreateMul(b_.CreateLShr(lane_, I32(4)), I32(8)));
      std::vector<llvm::Value*> r =
          Ldmatrix(b_tile_, l, n, /*trans=*/true, kGemmPitchB);
      bf[2 * nj] = {r[0], r[1]};
      bf[2 * nj + 1] = {r[2], r[3]};
    }
    for (int64_t nj = 0; !direct_b_ && nj < kGemmMmaN / 2; ++nj) {
      // GemmLdmatrixB.
      llvm::Value* n = b_.CreateAdd(
          b_.CreateAdd(b_.CreateMul(wn, I32(kGemmWarpN)), I32(nj * 16)),
          b_.CreateAdd(b_.CreateAnd(lane_, I32(7)),
                       b_.CreateMul(b_.CreateLShr(lane_, I32(4)), I32(8))));
      llvm::Value* l = b_.CreateAdd(
          I32(ks),
          b_.CreateMul(b_.CreateAnd(b_.CreateLShr(lane_, I32(3)), I32(1)),
                       I32(8)));
      std::vector<llvm::Value*> r = Ldmatrix(b_tile_, n, l);
      bf[2 * nj] = {r[0], r[1]};
      bf[2 * nj + 1] = {r[2], r[3]};
    }
    llvm::Function* mma = llvm::Intrinsic::getDeclaration(
        &m_, io_.type == PrimitiveType::kBF16
                 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                 : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32);
    llvm::FunctionType* ft = mma->getFunctionType();
    for (int64_t mi = 0; mi < kGemmMmaM; ++mi) {
      for (int64_t ni = 0; ni < kGemmMmaN; ++ni) {
        const int64_t base = (mi * kGemmMmaN + ni) * 4;
        std::vector<llvm::Value*> args;
        for (llvm::Value* v : a[mi]) args.push_back(v);
        for (llvm::Value* v : bf[ni]) args.push_back(v);
        for (int64_t q = 0; q < 4; ++q) {
          args.push_back(b_.CreateLoad(f32_, Acc(base + q)));
        }
        // f16 fragments are <2 x half>, bf16 ones i32: same bits.
        for (size_t i = 0; i < args.size(); ++i) {
          llvm::Type* want = ft->getParamType(static_cast<unsigned>(i));
          if (args[i]->getType() != want) {
            args[i] = b_.CreateBitCast(args[i], want);
          }
        }
        llvm::Value* d = b_.CreateCall(mma, args);
        for (unsigned q = 0; q < 4; ++q) {
          b_.CreateStore(b_.CreateExtractValue(d, q), Acc(base + q));
        }
      }
    }
  }

  // The 64-bit shared-memory matrix descriptor of the B tile from k
  // offset `ks`: start address >> 4 (bits 0-13), leading byte offset >> 4
  // (16-29), stride byte offset >> 4 (32-45), base offset 0, no swizzle
  // (bits 62-63 = 0).
  llvm::Value* BDescriptor(int64_t ks) {
    llvm::Value* addr = b_.CreatePtrToInt(b_smem_, i64_);
    addr = b_.CreateAdd(addr, ctx_.I64((ks / 8) * kWgmmaLeadingBytes));
    llvm::Value* start =
        b_.CreateLShr(b_.CreateAnd(addr, ctx_.I64(0x3FFFF)), ctx_.I64(4));
    const uint64_t fixed =
        (static_cast<uint64_t>(kWgmmaLeadingBytes >> 4) << 16) |
        (static_cast<uint64_t>(kWgmmaStrideBytes >> 4) << 32);
    return b_.CreateOr(start, b_.getInt64(fixed));
  }

  // The k tile on wgmma: both k16 halves in one asm statement, waited for
  // before it ends (LLVM sees the accumulators defined when it returns;
  // nothing may copy them while the MMA is in flight).
  void EmitWgmmaStep() {
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> arg_types;
    for (int64_t ks = 0; ks < kGemmBlockK; ks += 16) {
      std::vector<llvm::Value*> a = LoadA(b_.CreateMul(warp_, I32(16)), ks);
      for (llvm::Value* v : a) args.push_back(v);
    }
    for (int64_t ks = 0; ks < kGemmBlockK; ks += 16) {
      args.push_back(BDescriptor(ks));
    }
    args.push_back(b_.getInt32(1));  // scale-d: D = A * B + D
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      args.push_back(b_.CreateLoad(f32_, Acc(r)));
    }
    for (llvm::Value* v : args) arg_types.push_back(v->getType());
    // Operands (R = kGemmAccumulators): $0..$R-1 accumulators (out),
    // $R..$R+7 A of the two halves, $R+8, $R+9 B descriptors, $R+10 scale-d
    // (as CUTLASS passes it: a
    // predicate set from a register), then the tied accumulator inputs.
    const char* type = io_.type == PrimitiveType::kBF16 ? "bf16" : "f16";
    std::string text = absl::StrCat("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $",
                                    kGemmAccumulators + 10,
                                    ", 0;\n\twgmma.fence.sync.aligned;\n");
    std::string d = "{";
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      absl::StrAppend(&d, r == 0 ? "" : ", ", "$", r);
    }
    d += "}";
    for (int64_t h = 0; h < 2; ++h) {
      const int64_t a0 = kGemmAccumulators + 4 * h;
      absl::StrAppend(&text, "\twgmma.mma_async.sync.aligned.m64n", kGemmBlockN,
                      "k16.f32.", type, ".", type, " ", d, ", {$", a0, ", $",
                      a0 + 1, ", $", a0 + 2, ", $", a0 + 3, "}, $",
                      kGemmAccumulators + 8 + h, ", p, 1, 1, 0;\n");
    }
    text += "\twgmma.commit_group.sync.aligned;\n";
    text += "\twgmma.wait_group.sync.aligned 0;\n}";
    std::string constraints;
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      absl::StrAppend(&constraints, r == 0 ? "" : ",", "=f");
    }
    for (int i = 0; i < 8; ++i) constraints += ",r";
    constraints += ",l,l,r";
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      absl::StrAppend(&constraints, ",", r);
    }
    constraints += ",~{memory}";
    std::vector<llvm::Type*> outs(kGemmAccumulators, f32_);
    auto* ret = llvm::StructType::get(b_.getContext(), outs);
    auto* ft = llvm::FunctionType::get(ret, arg_types, false);
    llvm::Value* r =
        b_.CreateCall(llvm::InlineAsm::get(ft, text, constraints, true), args);
    for (unsigned i = 0; i < kGemmAccumulators; ++i) {
      b_.CreateStore(b_.CreateExtractValue(r, i), Acc(i));
    }
  }

  // Each accumulator to its output element (GemmAccumulator), rounded once.
  absl::Status Epilogue() {
    llvm::Value* q_row = b_.CreateLShr(lane_, I32(2));
    llvm::Value* q_col = b_.CreateMul(b_.CreateAnd(lane_, I32(3)), I32(2));
    llvm::Value* row_base;
    llvm::Value* col_base;
    if (kind_ == TensorCoreKind::kWgmma) {
      row_base = b_.CreateMul(warp_, I32(16));
      col_base = I32(0);
    } else {
      row_base =
          b_.CreateMul(b_.CreateUDiv(warp_, I32(kGemmWarpsN)), I32(kGemmWarpM));
      col_base =
          b_.CreateMul(b_.CreateURem(warp_, I32(kGemmWarpsN)), I32(kGemmWarpN));
    }
    for (int64_t r = 0; r < kGemmAccumulators; ++r) {
      const int64_t q = r % 4;
      int64_t row_off, col_off;
      if (kind_ == TensorCoreKind::kWgmma) {
        row_off = q >= 2 ? 8 : 0;
        col_off = 8 * (r / 4) + q % 2;
      } else {
        const int64_t mi = (r / 4) / kGemmMmaN, ni = (r / 4) % kGemmMmaN;
        row_off = mi * 16 + (q >= 2 ? 8 : 0);
        col_off = ni * 8 + q % 2;
      }
      llvm::Value* row =
          b_.CreateAdd(b_.CreateAdd(row_base, q_row), I32(row_off));
      llvm::Value* col =
          b_.CreateAdd(b_.CreateAdd(col_base, q_col), I32(col_off));
      llvm::Value* grow = b_.CreateAdd(block_row_, b_.CreateZExt(row, i64_));
      llvm::Value* gcol = b_.CreateAdd(block_col_, b_.CreateZExt(col, i64_));
      HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
          b_.CreateAnd(b_.CreateICmpULT(grow, ctx_.I64(io_.m)),
                       b_.CreateICmpULT(gcol, ctx_.I64(io_.n))),
          [&]() -> absl::Status {
            llvm::Value* v = codegen::EmitRoundToType(
                ctx_, io_.type, b_.CreateLoad(f32_, Acc(r)));
            return io_.store(batch_, grow, gcol, v);
          },
          "gemm_store"));
    }
    return absl::OkStatus();
  }

  EmitContext& ctx_;
  codegen::IRBuilder& b_;
  llvm::Module& m_;
  llvm::Function& f_;
  const GemmIo& io_;
  TensorCoreKind kind_;
  llvm::Type *i16_ = nullptr, *i32_ = nullptr, *i64_ = nullptr, *f32_ = nullptr;
  llvm::Value *tid_ = nullptr, *warp_ = nullptr, *lane_ = nullptr;
  llvm::Value *block_row_ = nullptr, *block_col_ = nullptr, *batch_ = nullptr;
  // The shared arrays and the tiles the current k tile reads.
  llvm::GlobalVariable *a_smem_ = nullptr, *b_smem_ = nullptr;
  llvm::Value *a_tile_ = nullptr, *b_tile_ = nullptr;
  int64_t a_size_ = 0, b_size_ = 0;
  llvm::Value *acc_ = nullptr, *slot_ = nullptr;
  bool direct_a_ = false, direct_b_ = false;
};

}  // namespace

bool FfmaGridFits(int64_t batch, int64_t m, int64_t n) {
  return batch >= 1 && batch <= 65535 && m >= 1 && n >= 1 &&
         (m + kDotTile - 1) / kDotTile <= 65535 &&
         (n + kDotTile - 1) / kDotTile <= (int64_t{1} << 31) - 1;
}

absl::Status EmitFfmaGemm(EmitContext& ctx, llvm::Function& f, const GemmIo& io,
                          KernelLaunch* launch) {
  if (!FfmaGridFits(io.batch, io.m, io.n) || io.k < 1) {
    return absl::InternalError("FFMA GEMM outside its grid limits");
  }
  codegen::IRBuilder& b = ctx.b();
  llvm::Module& m = ctx.module();
  auto sreg = [&](llvm::Intrinsic::ID id) -> llvm::Value* {
    return b.CreateCall(llvm::Intrinsic::getDeclaration(&m, id), {});
  };
  llvm::Type* acc_t =
      io.type == PrimitiveType::kF64 ? b.getDoubleTy() : b.getFloatTy();
  constexpr int64_t kPitch = kDotTile + 1;
  auto* tile_t = llvm::ArrayType::get(acc_t, kDotTile * kPitch);
  auto make_tile = [&](const char* name) {
    auto* g = new llvm::GlobalVariable(
        m, tile_t, false, llvm::GlobalValue::InternalLinkage,
        llvm::UndefValue::get(tile_t), name, nullptr,
        llvm::GlobalValue::NotThreadLocal, 3);
    g->setAlignment(llvm::Align(16));
    return g;
  };
  llvm::GlobalVariable* a_tile = make_tile("dot_a");
  llvm::GlobalVariable* b_tile = make_tile("dot_b");
  auto at = [&](llvm::GlobalVariable* tile, llvm::Value* y, llvm::Value* x) {
    llvm::Value* i = b.CreateAdd(b.CreateMul(y, b.getInt32(kPitch)), x);
    return b.CreateInBoundsGEP(tile_t, tile, {b.getInt32(0), i});
  };
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* tx = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* ty = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y);
  llvm::Value* row = b.CreateZExt(
      b.CreateAdd(b.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y),
                              b.getInt32(kDotTile)),
                  ty),
      i64);
  llvm::Value* col = b.CreateZExt(
      b.CreateAdd(b.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                              b.getInt32(kDotTile)),
                  tx),
      i64);
  llvm::Value* batch =
      b.CreateZExt(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z), i64);
  llvm::Value* acc_slot = ctx.EntryAlloca(acc_t, 1, "acc");
  llvm::Value* load_slot = ctx.EntryAlloca(acc_t, 1, "load");
  b.CreateStore(llvm::ConstantFP::get(acc_t, 0.0), acc_slot);
  llvm::Function* barrier =
      llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::nvvm_barrier0);
  llvm::Function* fma =
      llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::fma, {acc_t});
  auto to_acc = [&](llvm::Value* v) {
    return v->getType() == acc_t ? v : b.CreateFPExt(v, acc_t);
  };
  // Loads one element into `tile`[y][x] (zero outside the operand).
  auto load_tile =
      [&](llvm::GlobalVariable* tile, llvm::Value* in_range,
          const std::function<absl::StatusOr<llvm::Value*>()>& load,
          llvm::Value* y, llvm::Value* x) -> absl::Status {
    b.CreateStore(llvm::ConstantFP::get(acc_t, 0.0), load_slot);
    HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
        in_range,
        [&]() -> absl::Status {
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, load());
          b.CreateStore(to_acc(v), load_slot);
          return absl::OkStatus();
        },
        "load"));
    b.CreateStore(b.CreateLoad(acc_t, load_slot), at(tile, y, x));
    return absl::OkStatus();
  };
  HLOREF_RETURN_IF_ERROR(ctx.EmitForLoop(
      "k_tile", ctx.I64(0), ctx.I64(io.k), ctx.I64(kDotTile),
      [&](llvm::Value* kt) -> absl::Status {
        llvm::Value* a_k = b.CreateAdd(kt, b.CreateZExt(tx, i64));
        llvm::Value* b_k = b.CreateAdd(kt, b.CreateZExt(ty, i64));
        HLOREF_RETURN_IF_ERROR(load_tile(
            a_tile,
            b.CreateAnd(b.CreateICmpULT(row, ctx.I64(io.m)),
                        b.CreateICmpULT(a_k, ctx.I64(io.k))),
            [&]() { return io.load_a(batch, row, a_k); }, ty, tx));
        HLOREF_RETURN_IF_ERROR(load_tile(
            b_tile,
            b.CreateAnd(b.CreateICmpULT(b_k, ctx.I64(io.k)),
                        b.CreateICmpULT(col, ctx.I64(io.n))),
            [&]() { return io.load_b(batch, b_k, col); }, ty, tx));
        b.CreateCall(barrier, {});
        llvm::Value* acc = b.CreateLoad(acc_t, acc_slot);
        for (int64_t kk = 0; kk < kDotTile; ++kk) {
          llvm::Value* av = b.CreateLoad(acc_t, at(a_tile, ty, b.getInt32(kk)));
          llvm::Value* bv = b.CreateLoad(acc_t, at(b_tile, b.getInt32(kk), tx));
          acc = b.CreateCall(fma, {av, bv, acc});
        }
        b.CreateStore(acc, acc_slot);
        b.CreateCall(barrier, {});
        return absl::OkStatus();
      }));
  // LLVM fully unrolls short constant k loops; with 16 FFMAs per tile
  // already unrolled that ran the f64 kernel out of registers (255 and
  // 52 bytes of spills for k = 50), so the tile loop stays a loop.
  DisableUnrollOf(f, "k_tile.header");
  HLOREF_RETURN_IF_ERROR(ctx.EmitIf(
      b.CreateAnd(b.CreateICmpULT(row, ctx.I64(io.m)),
                  b.CreateICmpULT(col, ctx.I64(io.n))),
      [&]() -> absl::Status {
        llvm::Value* v = codegen::EmitRoundToType(
            ctx, io.type, b.CreateLoad(acc_t, acc_slot));
        return io.store(batch, row, col, v);
      },
      "store"));
  launch->kind = KernelKind::kDot;
  launch->m = io.m;
  launch->n = io.n;
  launch->k = io.k;
  launch->batch = io.batch;
  launch->block[0] = kDotTile;
  launch->block[1] = kDotTile;
  launch->block[2] = 1;
  launch->grid[0] = (io.n + kDotTile - 1) / kDotTile;
  launch->grid[1] = (io.m + kDotTile - 1) / kDotTile;
  launch->grid[2] = io.batch;
  return absl::OkStatus();
}

absl::Status EmitTensorCoreGemm(EmitContext& ctx, llvm::Function& f,
                                const GemmIo& io, TensorCoreKind kind,
                                KernelLaunch* launch) {
  if (!TensorCoreType(io.type)) {
    return absl::InternalError(
        absl::StrCat("tensor-core GEMM of ", PrimitiveTypeName(io.type)));
  }
  if (!TensorCoreGridFits(io.batch, io.m, io.n) || io.k < 1) {
    return absl::InternalError("tensor-core GEMM outside its grid limits");
  }
  GemmEmitter emitter(ctx, f, io, kind);
  HLOREF_RETURN_IF_ERROR(emitter.Emit());
  launch->kind = kind == TensorCoreKind::kWgmma ? KernelKind::kWgmmaGemm
                                                : KernelKind::kMmaGemm;
  launch->batch = io.batch;
  launch->m = io.m;
  launch->n = io.n;
  launch->k = io.k;
  launch->block[0] = kGemmThreads;
  launch->block[1] = launch->block[2] = 1;
  launch->grid[0] = (io.n + kGemmBlockN - 1) / kGemmBlockN;
  launch->grid[1] = (io.m + kGemmBlockM - 1) / kGemmBlockM;
  launch->grid[2] = io.batch;
  return absl::OkStatus();
}

}  // namespace hloref::gpu
