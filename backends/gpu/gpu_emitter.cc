#include "backends/gpu/gpu_emitter.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "backends/codegen/collectives.h"
#include "backends/codegen/computation_emitter.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/fusion.h"
#include "backends/codegen/ir_value.h"
#include "backends/codegen/llvm_types.h"
#include "backends/gpu/gpu_collectives.h"
#include "backends/gpu/gpu_conv.h"
#include "backends/gpu/gpu_device_ops.h"
#include "backends/gpu/gpu_dynamic.h"
#include "backends/gpu/gpu_gemm.h"
#include "backends/gpu/gpu_host_steps.h"
#include "backends/gpu/gpu_rng.h"
#include "backends/gpu/nvptx_target.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "spec/ir/annotation_custom_calls.h"
#include "spec/util/rendezvous.h"
#include "spec/util/status_macros.h"

namespace hloref::gpu {

namespace {

using codegen::ElementGenerator;
using codegen::EmitContext;
using codegen::IrArray;
using codegen::IrIndex;
using codegen::IrValue;

// The value of an entry instruction: buffers (array leaves) in a tree.
struct ValueTree {
  Shape shape;
  int64_t buffer = -1;  // arrays
  // Dynamic arrays: the buffer of their i64 runtime sizes (gpu_dynamic.h).
  int64_t sizes = -1;
  std::vector<ValueTree> elements;
  void CollectBuffers(std::vector<int64_t>* out) const {
    if (shape.IsArray()) out->push_back(buffer);
    if (sizes >= 0) out->push_back(sizes);
    for (const ValueTree& e : elements) e.CollectBuffers(out);
  }
  // Array and token leaves, depth first (tokens with buffer -1): the
  // flattened literals of a result, and their sizes buffers (-1: static).
  void CollectLeaves(std::vector<int64_t>* buffers, std::vector<Shape>* shapes,
                     std::vector<int64_t>* sizes_buffers) const {
    if (shape.IsArray() || shape.IsToken()) {
      buffers->push_back(shape.IsArray() ? buffer : -1);
      shapes->push_back(shape);
      sizes_buffers->push_back(sizes);
    }
    for (const ValueTree& e : elements) {
      e.CollectLeaves(buffers, shapes, sizes_buffers);
    }
  }
};

// The C math library functions the shared emitters may call (every
// parameter and the result of one floating-point type) and their
// libdevice names; the CPU runtime's large-argument fallbacks of the f64
// sin / cos / tan kernels (math_ir.h) map to libdevice's.
std::string LibdeviceName(const llvm::Function& f) {
  static const absl::flat_hash_set<std::string>* const libm =
      new absl::flat_hash_set<std::string>{
          "exp",       "exp2",  "expm1", "log",    "log2",    "log10",
          "log1p",     "sin",   "cos",   "tan",    "sinh",    "cosh",
          "tanh",      "asin",  "acos",  "atan",   "asinh",   "acosh",
          "atanh",     "atan2", "pow",   "hypot",  "fmod",    "remainder",
          "cbrt",      "erf",   "erfc",  "lgamma", "tgamma",  "nextafter",
          "sqrt",      "floor", "ceil",  "trunc",  "round",   "rint",
          "nearbyint", "fabs",  "fmin",  "fmax",   "copysign"};
  const std::string name = f.getName().str();
  if (name == "hloref_cpu_sin_f64") return "__nv_sin";
  if (name == "hloref_cpu_cos_f64") return "__nv_cos";
  if (name == "hloref_cpu_tan_f64") return "__nv_tan";
  if (!libm->contains(name)) return "";
  llvm::FunctionType* t = f.getFunctionType();
  llvm::Type* r = t->getReturnType();
  if (!r->isFloatTy() && !r->isDoubleTy()) return "";
  for (llvm::Type* p : t->params()) {
    if (p != r) return "";
  }
  return absl::StrCat("__nv_", name, r->isFloatTy() ? "f" : "");
}

bool IsKnownExternal(const llvm::Function& f) {
  return f.isIntrinsic() || f.getName().starts_with("__nv_") ||
         !LibdeviceName(f).empty();
}

class GpuModuleEmitter {
 public:
  GpuModuleEmitter(const HloModule& module, const GpuCompileOptions& options)
      : module_(module),
        options_(options),
        llvm_module_(std::make_unique<llvm::Module>(module.name(), context_)),
        b_(context_),
        table_(codegen::DefaultEmitterTable()),
        ctx_(*llvm_module_, b_, table_, [&] {
          codegen::CodegenOptions o;
          o.fuse_elementwise = options.fuse_elementwise;
          return o;
        }()) {}

  absl::StatusOr<GpuProgram> Run() {
    HLOREF_RETURN_IF_ERROR(PrepareModuleForNvptx(*llvm_module_, options_.arch));
    // Complex transcendentals: device code (gpu_device_ops.h).
    ctx_.complex_math = EmitDeviceComplexMath;
    program_.module_name = module_.name();
    program_.arch = options_.arch;
    // Collectives, replica-id and partition-id (gpu_collectives.h): the
    // participants of a replicated module are the threads of the serial
    // entry's block; one participant: the ids are 0.
    program_.replicas = module_.config().replica_count;
    program_.partitions = module_.config().num_partitions;
    program_.participants = program_.replicas * program_.partitions;
    HLOREF_RETURN_IF_ERROR(
        CheckParticipants(program_.replicas, program_.partitions, 1).status());
    GpuCollectiveTarget collectives;
    collectives.replicas = program_.replicas;
    collectives.partitions = program_.partitions;
    collectives.participant = [](EmitContext& c) -> llvm::Value* {
      return c.b().CreateCall(
          llvm::Intrinsic::getDeclaration(
              &c.module(), llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x),
          {});
    };
    // barrier.sync 0 (not bar.sync's .aligned form): every thread of the
    // block, wherever in the program each arrives from.
    collectives.barrier = [](EmitContext& c) {
      c.b().CreateCall(llvm::Intrinsic::getDeclaration(
                           &c.module(), llvm::Intrinsic::nvvm_barrier_sync),
                       {c.b().getInt32(0)});
    };
    RegisterGpuCollectiveEmitters(table_, std::move(collectives));
    const HloComputation& entry = *module_.entry();
    for (const auto& comp : module_.computations()) {
      for (const auto& inst : comp->instructions()) {
        HLOREF_RETURN_IF_ERROR(CheckShape(*inst, inst->shape()));
      }
    }
    if (NeedsSerialEntry(module_)) {
      HLOREF_RETURN_IF_ERROR(EmitSerialEntry(entry));
    } else {
      inlined_ = codegen::ChooseInlinedInstructions(ctx_, entry);
      for (const auto& inst : entry.instructions()) {
        absl::Status s = EmitInstruction(*inst);
        if (!s.ok()) return codegen::InstructionCodegenError(*inst, s);
      }
    }
    const ValueTree& root = values_.at(entry.root());
    root.CollectLeaves(&program_.result_buffers, &program_.result_shapes,
                       &program_.result_sizes_buffers);
    ResolveLibdeviceCalls();
    {
      llvm::raw_string_ostream os(program_.llvm_ir);
      llvm_module_->print(os, nullptr);
    }
    PtxOptions ptx_options;
    ptx_options.arch = options_.arch;
    ptx_options.opt_level = options_.opt_level;
    ptx_options.libdevice_path = options_.libdevice_path;
    HLOREF_ASSIGN_OR_RETURN(PtxResult ptx, EmitPtx(*llvm_module_, ptx_options));
    program_.optimized_ir = std::move(ptx.optimized_ir);
    program_.ptx = std::move(ptx.ptx);
    program_.linked_libdevice = ptx.linked_libdevice;
    return std::move(program_);
  }

 private:
  absl::Status CheckShape(const HloInstruction& inst, const Shape& shape) {
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        HLOREF_RETURN_IF_ERROR(CheckShape(inst, e));
      }
      return absl::OkStatus();
    }
    if (!shape.IsArray() && !shape.IsTuple() && !shape.IsToken()) {
      return codegen::InstructionCodegenError(
          inst, absl::UnimplementedError(absl::StrCat(
                    "the GPU backend does not compile values of shape ",
                    shape.ToString(false))));
    }
    return absl::OkStatus();
  }

  int64_t NewBuffer(GpuBuffer buffer) {
    program_.buffers.push_back(std::move(buffer));
    return static_cast<int64_t>(program_.buffers.size()) - 1;
  }

  ValueTree NewTemps(const Shape& shape) {
    ValueTree v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        v.elements.push_back(NewTemps(e));
      }
    } else if (shape.IsArray()) {
      GpuBuffer buffer;
      buffer.kind = GpuBuffer::Kind::kTemp;
      buffer.shape = shape;
      buffer.bytes = codegen::ArrayBytes(shape);
      v.buffer = NewBuffer(std::move(buffer));
      if (!shape.is_static()) {
        GpuBuffer sizes;
        sizes.kind = GpuBuffer::Kind::kTemp;
        sizes.shape =
            Shape(PrimitiveType::kS64, {std::max<int64_t>(shape.rank(), 1)});
        sizes.bytes = SizesBytes(shape);
        v.sizes = NewBuffer(std::move(sizes));
      }
    }
    return v;
  }

  // Bytes of a dynamic array's runtime sizes (i64 per dimension).
  static int64_t SizesBytes(const Shape& shape) {
    return std::max<int64_t>(shape.rank(), 1) * 8;
  }

  ValueTree ParameterTree(const Shape& shape, int64_t parameter,
                          int64_t* leaf) {
    ValueTree v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) {
        v.elements.push_back(ParameterTree(e, parameter, leaf));
      }
    } else if (shape.IsArray()) {
      GpuBuffer buffer;
      buffer.kind = GpuBuffer::Kind::kParameter;
      buffer.parameter = parameter;
      buffer.leaf = (*leaf)++;
      buffer.shape = shape;
      buffer.bytes = codegen::ArrayBytes(shape);
      const GpuBuffer sizes_of = buffer;
      v.buffer = NewBuffer(std::move(buffer));
      if (!shape.is_static()) {
        GpuBuffer sizes = sizes_of;
        sizes.kind = GpuBuffer::Kind::kParameterSizes;
        sizes.bytes = SizesBytes(shape);
        v.sizes = NewBuffer(std::move(sizes));
      }
    } else if (shape.IsToken()) {
      ++*leaf;  // a leaf of the flattened argument, with no buffer
    }
    return v;
  }

  absl::StatusOr<ValueTree> ConstantTree(const Literal& literal,
                                         const Shape& shape) {
    ValueTree v;
    v.shape = shape;
    if (shape.IsTuple()) {
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        HLOREF_ASSIGN_OR_RETURN(
            ValueTree e,
            ConstantTree(literal.tuple_element(i), shape.tuple_shapes(i)));
        v.elements.push_back(std::move(e));
      }
      return v;
    }
    if (!shape.IsArray()) return v;
    if (literal.is_elided()) {
      return absl::InvalidArgumentError(
          "the constant's value is elided ({...}); it cannot be compiled");
    }
    GpuBuffer buffer;
    buffer.kind = GpuBuffer::Kind::kConstant;
    buffer.shape = shape;
    buffer.bytes = codegen::ArrayBytes(shape);
    buffer.data.resize(std::max<int64_t>(buffer.bytes, 1));
    codegen::LiteralToPhysical(literal, shape, buffer.data.data());
    v.buffer = NewBuffer(std::move(buffer));
    return v;
  }

  // ---------------------------------------------------------------------
  // Kernels.

  llvm::Value* Sreg(llvm::Intrinsic::ID id) {
    llvm::Function* f = llvm::Intrinsic::getDeclaration(llvm_module_.get(), id);
    return b_.CreateCall(f, {});
  }
  llvm::Value* Sreg64(llvm::Intrinsic::ID id) {
    return b_.CreateZExt(Sreg(id), b_.getInt64Ty());
  }

  // Non-inlined instructions whose values the kernel of `inst` reads
  // (through inlined producers), in first-use order.
  void CollectInputs(const HloInstruction& inst,
                     std::vector<const HloInstruction*>* out,
                     absl::flat_hash_set<const HloInstruction*>* seen) {
    for (const HloInstruction* op : inst.operands()) {
      if (!seen->insert(op).second) continue;
      if (inlined_.contains(op)) {
        CollectInputs(*op, out, seen);
      } else {
        out->push_back(op);
      }
    }
  }

  IrValue ToIrValue(const ValueTree& v,
                    const absl::flat_hash_map<int64_t, llvm::Value*>& args) {
    IrValue out;
    out.shape = v.shape;
    if (v.shape.IsArray()) out.array = IrArray(args.at(v.buffer), v.shape);
    if (v.sizes >= 0) out.sizes = args.at(v.sizes);
    for (const ValueTree& e : v.elements) {
      out.elements.push_back(ToIrValue(e, args));
    }
    return out;
  }

  // "k<launch>_<kind>_<name>", with what PTX names cannot hold replaced.
  std::string KernelName(absl::string_view kind, absl::string_view name) {
    std::string out =
        absl::StrCat("k", program_.launches.size(), "_", kind, "_", name);
    for (char& c : out) {
      if (!isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    }
    return out;
  }

  // Creates kernel `name` with one pointer argument per buffer of
  // `distinct` (noalias; readonly unless in `outputs`) and launch bound
  // `max_threads`; sets kernel_args_ and the function state and leaves the
  // builder in its entry block.
  llvm::Function* NewKernel(const std::string& name,
                            const std::vector<int64_t>& distinct,
                            const absl::flat_hash_set<int64_t>& outputs,
                            int64_t max_threads) {
    std::vector<llvm::Type*> params(distinct.size(), b_.getPtrTy());
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    llvm::Function* f = llvm::Function::Create(
        fty, llvm::GlobalValue::ExternalLinkage, name, *llvm_module_);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    kernel_args_.clear();
    for (size_t i = 0; i < distinct.size(); ++i) {
      llvm::Argument* a = f->getArg(static_cast<unsigned>(i));
      a->setName(absl::StrCat("b", distinct[i]));
      // Buffers never overlap (every result has its own), and a kernel
      // never writes what it reads.
      a->addAttr(llvm::Attribute::NoAlias);
      if (!outputs.contains(distinct[i])) {
        a->addAttr(llvm::Attribute::ReadOnly);
      }
      kernel_args_[distinct[i]] = a;
    }
    // Kernel entry and launch bound (facts doc 2.3: metadata, not
    // attributes).
    llvm::NamedMDNode* annotations =
        llvm_module_->getOrInsertNamedMetadata("nvvm.annotations");
    auto md = [&](const char* key, int32_t v) {
      llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(f),
                               llvm::MDString::get(context_, key),
                               llvm::ConstantAsMetadata::get(b_.getInt32(v))};
      annotations->addOperand(llvm::MDNode::get(context_, ops));
    };
    md("kernel", 1);
    md("maxntidx", static_cast<int32_t>(max_threads));
    kernel_state_ = EmitContext::FunctionState();
    kernel_state_.function = f;
    kernel_state_.run_context =
        llvm::ConstantPointerNull::get(llvm::PointerType::get(context_, 0));
    ctx_.set_function_state(&kernel_state_);
    ctx_.set_run_context(kernel_state_.run_context);
    b_.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", f));
    return f;
  }

  // Starts kernel `name` taking the buffers of `inputs` (read only) and
  // `output` (written); leaves the builder in its entry block with
  // kernel_values_ set. `max_threads` is its block size (launch bound).
  absl::StatusOr<llvm::Function*> BeginKernel(
      const HloInstruction& inst, absl::string_view kind,
      const std::vector<const HloInstruction*>& inputs, const ValueTree& output,
      int64_t max_threads, KernelLaunch* launch,
      absl::Span<const int64_t> extra_outputs = {}) {
    std::vector<int64_t> buffers;
    for (const HloInstruction* in : inputs) {
      values_.at(in).CollectBuffers(&buffers);
    }
    const size_t num_inputs = buffers.size();
    output.CollectBuffers(&buffers);
    buffers.insert(buffers.end(), extra_outputs.begin(), extra_outputs.end());
    // One argument per distinct buffer.
    std::vector<int64_t> distinct;
    absl::flat_hash_set<int64_t> seen;
    for (int64_t id : buffers) {
      if (seen.insert(id).second) distinct.push_back(id);
    }
    absl::flat_hash_set<int64_t> outputs(buffers.begin() + num_inputs,
                                         buffers.end());
    llvm::Function* f = NewKernel(KernelName(kind, inst.name()), distinct,
                                  outputs, max_threads);
    if (slice_by_participant_) {
      // Thread t works on participant t's slice of every buffer.
      llvm::Value* me = Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
      for (auto& [id, arg] : kernel_args_) {
        const GpuBuffer& buffer = program_.buffers[id];
        if (buffer.kind == GpuBuffer::Kind::kState) continue;
        arg = b_.CreateInBoundsGEP(
            b_.getInt8Ty(), arg,
            {b_.CreateMul(me, b_.getInt64(ParticipantSliceBytes(buffer)))},
            absl::StrCat("b", id, ".mine"));
      }
    }
    const absl::flat_hash_map<int64_t, llvm::Value*> args = kernel_args_;
    kernel_values_.clear();
    for (const HloInstruction* in : inputs) {
      kernel_values_[in] = ToIrValue(values_.at(in), args);
    }
    kernel_output_ = ToIrValue(output, args);
    launch->kernel = f->getName().str();
    launch->instruction = inst.ToString();
    launch->buffers = distinct;
    return f;
  }

  absl::Status EndKernel(const HloInstruction& inst, KernelLaunch launch) {
    b_.CreateRetVoid();
    ctx_.set_function_state(nullptr);
    // Calls into anything but libdevice and intrinsics: the instruction
    // needs the CPU runtime.
    for (const llvm::Function& f : *llvm_module_) {
      if (f.isDeclaration() && !f.use_empty() && !IsKnownExternal(f)) {
        return absl::UnimplementedError(
            absl::StrCat("the GPU backend has no device implementation of ",
                         f.getName().str(), ", which ",
                         HloOpcodeString(inst.opcode()), " calls on the CPU"));
      }
    }
    program_.launches.push_back(std::move(launch));
    return absl::OkStatus();
  }

  absl::StatusOr<ElementGenerator> GeneratorOf(const HloInstruction& inst) {
    if (inlined_.contains(&inst)) return ElementalGenerator(inst);
    auto it = kernel_values_.find(&inst);
    if (it == kernel_values_.end() || !it->second.IsArray()) {
      return absl::InternalError(
          absl::StrCat("no array value for ", inst.name()));
    }
    IrArray array = it->second.array;
    EmitContext* ctx = &ctx_;
    return ElementGenerator(
        [array, ctx](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
          return array.EmitRead(*ctx, index);
        });
  }

  absl::StatusOr<std::vector<ElementGenerator>> OperandGenerators(
      const HloInstruction& inst) {
    std::vector<ElementGenerator> operands;
    for (const HloInstruction* op : inst.operands()) {
      HLOREF_ASSIGN_OR_RETURN(ElementGenerator g, GeneratorOf(*op));
      operands.push_back(std::move(g));
    }
    return operands;
  }

  absl::StatusOr<ElementGenerator> ElementalGenerator(
      const HloInstruction& inst) {
    HLOREF_ASSIGN_OR_RETURN(std::vector<ElementGenerator> operands,
                            OperandGenerators(inst));
    if (inst.opcode() == HloOpcode::kFusion) {
      return FusionGenerator(inst, operands);
    }
    return table_.Elemental(inst.opcode())(ctx_, inst, operands);
  }

  const HloComputation* FusedComputation(const HloInstruction& inst) {
    if (inst.to_apply() != nullptr) return inst.to_apply();
    if (!inst.called_computations().empty()) {
      return inst.called_computations()[0];
    }
    return nullptr;
  }

  // Whether a fusion's computation is element-wise all through.
  bool ElementalFusion(const HloInstruction& inst) {
    const HloComputation* fused = FusedComputation(inst);
    if (fused == nullptr || !inst.shape().IsArray()) return false;
    for (const auto& fi : fused->instructions()) {
      if (fi->opcode() == HloOpcode::kParameter) continue;
      if (fi->opcode() == HloOpcode::kConstant) {
        if (!fi->shape().IsArray()) return false;
        continue;
      }
      if (!codegen::CanEmitElementally(ctx_, *fi)) return false;
    }
    return true;
  }

  // The generator of a fusion's root from its operands' generators; the
  // fused constants become constant globals of the module.
  absl::StatusOr<ElementGenerator> FusionGenerator(
      const HloInstruction& inst, absl::Span<const ElementGenerator> operands) {
    const HloComputation* fused = FusedComputation(inst);
    absl::flat_hash_map<const HloInstruction*, ElementGenerator> gens;
    EmitContext* ctx = &ctx_;
    for (const auto& fi : fused->instructions()) {
      const HloInstruction* i = fi.get();
      if (i->opcode() == HloOpcode::kParameter) {
        gens[i] = operands[i->parameter_number()];
        continue;
      }
      if (i->opcode() == HloOpcode::kConstant) {
        if (i->literal().is_elided()) {
          return absl::InvalidArgumentError(
              "a fused constant's value is elided ({...})");
        }
        std::vector<uint8_t> bytes(
            std::max<int64_t>(codegen::ArrayBytes(i->shape()), 1));
        codegen::LiteralToPhysical(i->literal(), i->shape(), bytes.data());
        llvm::Constant* init = llvm::ConstantDataArray::get(
            context_, llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
        auto* g = new llvm::GlobalVariable(
            *llvm_module_, init->getType(), /*isConstant=*/true,
            llvm::GlobalValue::PrivateLinkage, init, "constant");
        g->setAlignment(llvm::Align(16));
        IrArray a(g, i->shape());
        gens[i] = [a, ctx](const IrIndex& idx) -> absl::StatusOr<llvm::Value*> {
          return a.EmitRead(*ctx, idx);
        };
        continue;
      }
      std::vector<ElementGenerator> ops;
      for (const HloInstruction* op : i->operands()) ops.push_back(gens.at(op));
      absl::StatusOr<ElementGenerator> g =
          table_.Elemental(i->opcode())(ctx_, *i, ops);
      if (!g.ok()) return codegen::InstructionCodegenError(*i, g.status());
      gens[i] = *std::move(g);
    }
    return gens.at(fused->root());
  }

  // The logical index of linear physical position `linear` of `shape`
  // (i32 arithmetic when the shape has fewer than 2^31 elements).
  IrIndex Delinearize(llvm::Value* linear, const Shape& shape) {
    const int64_t rank = shape.rank();
    IrIndex index(rank, nullptr);
    std::vector<int64_t> m2m = shape.LayoutOrDefault().minor_to_major;
    if (static_cast<int64_t>(m2m.size()) != rank) {
      m2m = Layout::Descending(rank).minor_to_major;
    }
    const bool narrow = shape.num_elements() < (int64_t{1} << 31);
    llvm::Type* t = narrow ? b_.getInt32Ty() : b_.getInt64Ty();
    llvm::Value* rest = b_.CreateTrunc(linear, t);
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t dim = m2m[k];
      const int64_t size = shape.dimensions(dim);
      llvm::Value* size_v = llvm::ConstantInt::get(t, size);
      llvm::Value* i = k + 1 == rank ? rest : b_.CreateURem(rest, size_v);
      index[dim] = b_.CreateZExt(i, b_.getInt64Ty());
      if (k + 1 < rank) rest = b_.CreateUDiv(rest, size_v);
    }
    return index;
  }

  // Grid-stride loop over [0, n): body(i64 i).
  absl::Status GridStride(
      llvm::Value* n, const std::function<absl::Status(llvm::Value*)>& body) {
    llvm::Value* block = Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
    llvm::Value* start = b_.CreateAdd(
        b_.CreateMul(Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                     block),
        Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
    llvm::Value* stride = b_.CreateMul(
        Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), block);
    return ctx_.EmitForLoop("grid", start, n, stride, body);
  }

  absl::Status EmitElementwiseKernel(const HloInstruction& inst,
                                     const ValueTree& out) {
    std::vector<const HloInstruction*> inputs;
    absl::flat_hash_set<const HloInstruction*> seen;
    CollectInputs(inst, &inputs, &seen);
    KernelLaunch launch;
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Function * f,
        BeginKernel(inst, "loop", inputs, out, kBlockSize, &launch));
    (void)f;
    HLOREF_ASSIGN_OR_RETURN(ElementGenerator gen, ElementalGenerator(inst));
    const IrArray o = kernel_output_.array;
    const int64_t n = inst.shape().num_elements();
    HLOREF_RETURN_IF_ERROR(
        GridStride(ctx_.I64(n), [&](llvm::Value* i) -> absl::Status {
          IrIndex index = Delinearize(i, inst.shape());
          HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, gen(index));
          o.EmitWrite(ctx_, index, v);
          return absl::OkStatus();
        }));
    launch.kind = KernelKind::kElementwise;
    launch.elements = n;
    launch.block[0] = kBlockSize;
    launch.grid[0] = std::clamp<int64_t>((n + kBlockSize - 1) / kBlockSize, 1,
                                         kMaxElementwiseBlocks);
    return EndKernel(inst, std::move(launch));
  }

  // One device thread runs `body` (given the kernel's operand values and
  // its output value).
  absl::Status EmitSerialKernel(
      const HloInstruction& inst, const ValueTree& out,
      const std::function<absl::Status(absl::Span<const IrValue>,
                                       const IrValue&)>& body) {
    std::vector<const HloInstruction*> inputs;
    for (const HloInstruction* op : inst.operands()) {
      if (inlined_.contains(op)) {
        return absl::InternalError("an inlined operand of a serial kernel");
      }
      if (std::find(inputs.begin(), inputs.end(), op) == inputs.end()) {
        inputs.push_back(op);
      }
    }
    KernelLaunch launch;
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Function * f,
        BeginKernel(inst, "serial", inputs, out, 1, &launch));
    (void)f;
    std::vector<IrValue> operands;
    for (const HloInstruction* op : inst.operands()) {
      operands.push_back(kernel_values_.at(op));
    }
    llvm::Value* first = b_.CreateICmpEQ(
        b_.CreateOr(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x),
                    Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x)),
        b_.getInt32(0));
    HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
        first, [&]() { return body(operands, kernel_output_); }, "serial"));
    launch.kind = KernelKind::kSerial;
    launch.elements = 1;
    return EndKernel(inst, std::move(launch));
  }

  // A grid-stride kernel of gpu_device_ops.cc over its work items.
  absl::Status EmitDeviceKernel(const HloInstruction& inst,
                                const ValueTree& out,
                                const DeviceKernel& device) {
    std::vector<const HloInstruction*> inputs;
    for (const HloInstruction* op : inst.operands()) {
      if (inlined_.contains(op)) {
        return absl::InternalError("an inlined operand of a device kernel");
      }
      if (std::find(inputs.begin(), inputs.end(), op) == inputs.end()) {
        inputs.push_back(op);
      }
    }
    KernelLaunch launch;
    const bool row_blocks = device.rows > 0;
    const int64_t threads = row_blocks ? device.threads_per_block : kBlockSize;
    // Row blocks with global scratch (gpu_device_ops.h): fewer blocks when
    // the scratch of one per row would pass kMaxKernelScratchBytes (the
    // rows grid-stride over the blocks).
    int64_t blocks = std::min<int64_t>(device.rows, kMaxElementwiseBlocks);
    std::vector<int64_t> scratch;
    if (row_blocks && device.scratch_bytes_per_block > 0) {
      blocks = std::clamp<int64_t>(
          kMaxKernelScratchBytes / device.scratch_bytes_per_block, 1, blocks);
      GpuBuffer buffer;
      buffer.kind = GpuBuffer::Kind::kTemp;
      buffer.bytes = blocks * device.scratch_bytes_per_block;
      buffer.shape = Shape(PrimitiveType::kU8, {buffer.bytes});
      scratch.push_back(NewBuffer(std::move(buffer)));
    }
    HLOREF_ASSIGN_OR_RETURN(
        llvm::Function * f,
        BeginKernel(inst, device.name, inputs, out, threads, &launch, scratch));
    (void)f;
    std::vector<IrValue> operands;
    for (const HloInstruction* op : inst.operands()) {
      operands.push_back(kernel_values_.at(op));
    }
    DeviceLoops loops;
    loops.for_each = [this](llvm::Value* n, const DeviceLoops::Body& body) {
      return GridStride(n, body);
    };
    loops.once = [this](const std::function<absl::Status()>& body) {
      llvm::Value* first = b_.CreateICmpEQ(
          b_.CreateOr(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x),
                      Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x)),
          b_.getInt32(0));
      return ctx_.EmitIf(first, body, "once");
    };
    loops.threads = threads;
    loops.thread = [this]() {
      return Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    };
    loops.barrier = [this]() {
      b_.CreateCall(llvm::Intrinsic::getDeclaration(
                        llvm_module_.get(), llvm::Intrinsic::nvvm_barrier0),
                    {});
    };
    loops.shared_array = [this](llvm::Type* type, int64_t count,
                                const char* name) -> llvm::Value* {
      auto* t = llvm::ArrayType::get(type, std::max<int64_t>(count, 1));
      auto* g = new llvm::GlobalVariable(
          *llvm_module_, t, false, llvm::GlobalValue::InternalLinkage,
          llvm::UndefValue::get(t), name, nullptr,
          llvm::GlobalValue::NotThreadLocal, 3);
      g->setAlignment(llvm::Align(16));
      return g;
    };
    if (!scratch.empty()) {
      llvm::Value* base = kernel_args_.at(scratch[0]);
      const int64_t per_block = device.scratch_bytes_per_block;
      auto next = std::make_shared<int64_t>(0);
      loops.block_scratch = [this, base, per_block, next](
                                llvm::Type* type, int64_t count,
                                const char* name) -> llvm::Value* {
        const int64_t offset = *next;
        const int64_t bytes = static_cast<int64_t>(
            llvm_module_->getDataLayout().getTypeAllocSize(type) *
            std::max<int64_t>(count, 1));
        *next += (bytes + 15) / 16 * 16;
        if (*next > per_block) return nullptr;  // a planning error
        llvm::Value* block_base =
            b_.CreateMul(Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                         b_.getInt64(per_block));
        return b_.CreateInBoundsGEP(
            b_.getInt8Ty(), base,
            {b_.CreateAdd(block_base, b_.getInt64(offset))}, name);
      };
    }
    loops.for_each_row = [this](llvm::Value* n, const DeviceLoops::Body& body) {
      // Uniform in the block: every thread of a block runs the same rows.
      return ctx_.EmitForLoop(
          "row", Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), n,
          Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), body);
    };
    HLOREF_RETURN_IF_ERROR(device.body(ctx_, operands, kernel_output_, loops));
    if (row_blocks) {
      launch.kind = KernelKind::kRowBlocks;
      launch.rows = device.rows;
      launch.columns = device.work_items;
      launch.block[0] = threads;
      launch.grid[0] = blocks;
      return EndKernel(inst, std::move(launch));
    }
    launch.kind = KernelKind::kElementwise;
    launch.elements = device.work_items;
    launch.block[0] = kBlockSize;
    launch.grid[0] =
        std::clamp<int64_t>((device.work_items + kBlockSize - 1) / kBlockSize,
                            1, kMaxElementwiseBlocks);
    return EndKernel(inst, std::move(launch));
  }

  // ---------------------------------------------------------------------
  // Reductions (gpu_reduction.cc) and dot (gpu_dot.cc).
 public:
  struct ReduceShape {
    bool row = true;
    int64_t batch = 1, rows = 1, columns = 1;  // see KernelKind
    // The operand's dimensions of each group, physically minor to major:
    // kept major ([batch] or the row kernel's rows), reduced, kept minor
    // (the column kernel's columns); dimensions of size 1 are in none.
    std::vector<int64_t> a_dims, r_dims, b_dims;
  };
  // Sets index[d] for the dimensions `dims` (minor to major) of `shape`
  // from their linear position `linear` (i64) among them; i32 arithmetic
  // when their product is below 2^31.
  void FillIndex(IrIndex& index, llvm::Value* linear,
                 const std::vector<int64_t>& dims, const Shape& shape);
  // The operand index with the size-1 dimensions set to 0, the rest unset.
  IrIndex UnitIndex(const Shape& shape);

 private:
  std::optional<ReduceShape> NormalizeReduce(const HloInstruction& inst);
  absl::Status EmitRowReduceKernel(const HloInstruction& inst,
                                   const ValueTree& out, const ReduceShape& rs);
  absl::Status EmitColumnReduceKernel(const HloInstruction& inst,
                                      const ValueTree& out,
                                      const ReduceShape& rs);
  // The GEMM kernels (gpu_gemm.h) of a dot or convolution; the GemmIo
  // callbacks are made inside the kernel (they use its generators).
  using GemmIoMaker = std::function<absl::StatusOr<GemmIo>(
      const std::vector<ElementGenerator>& operands, const IrArray& out)>;
  // `tensor_core`: the mma.sync / wgmma kernel (bf16 / f16), else FFMA.
  absl::Status EmitGemmKernel(const HloInstruction& inst, const ValueTree& out,
                              const GemmIoMaker& make_io, bool tensor_core);
  GemmIoMaker DotGemmIo(const HloInstruction& inst, int64_t batch, int64_t m,
                        int64_t n, int64_t k);
  GemmIoMaker ConvGemmIo(const HloInstruction& inst,
                         const ConvGemmShape& shape);
  bool CanonicalDot(const HloInstruction& inst, int64_t* batch, int64_t* m,
                    int64_t* n, int64_t* k);
  // Warp and block helpers of the reduction kernels.
  std::vector<llvm::Value*> ToWords(llvm::Value* v);
  llvm::Value* FromWords(absl::Span<llvm::Value* const> words, llvm::Type* t);
  int64_t WordsOf(llvm::Type* t);
  absl::StatusOr<llvm::Value*> Combine(const HloInstruction& reduce,
                                       llvm::Value* a, llvm::Value* b);
  struct Partial {
    llvm::Value* value;
    llvm::Value* valid;  // i1
  };
  absl::StatusOr<Partial> WarpReduce(const HloInstruction& reduce, Partial p);
  llvm::GlobalVariable* SharedArray(absl::string_view name, int64_t words);

  // ---------------------------------------------------------------------

  absl::Status EmitInstruction(const HloInstruction& inst) {
    if (inlined_.contains(&inst)) return absl::OkStatus();
    switch (inst.opcode()) {
      case HloOpcode::kParameter: {
        // A called computation's parameters are set by its caller
        // (EmitComputation).
        if (values_.contains(&inst)) return absl::OkStatus();
        int64_t leaf = 0;
        values_[&inst] =
            ParameterTree(inst.shape(), inst.parameter_number(), &leaf);
        return absl::OkStatus();
      }
      case HloOpcode::kConstant: {
        HLOREF_ASSIGN_OR_RETURN(ValueTree v,
                                ConstantTree(inst.literal(), inst.shape()));
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kTuple: {
        ValueTree v;
        v.shape = inst.shape();
        for (const HloInstruction* op : inst.operands()) {
          v.elements.push_back(values_.at(op));
        }
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kGetTupleElement: {
        ValueTree e =
            values_.at(inst.operand(0)).elements.at(inst.attrs().index);
        values_[&inst] = std::move(e);
        return absl::OkStatus();
      }
      case HloOpcode::kAfterAll: {
        ValueTree token;
        token.shape = inst.shape();
        values_[&inst] = std::move(token);
        return absl::OkStatus();
      }
      case HloOpcode::kAddDependency:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDomain:
      case HloOpcode::kAsyncUpdate: {
        ValueTree e = values_.at(inst.operand(0));
        values_[&inst] = std::move(e);
        return absl::OkStatus();
      }
      // Host-driven control flow (gpu_control_flow.h).
      case HloOpcode::kWhile:
        return EmitWhile(inst);
      case HloOpcode::kConditional:
        return EmitConditional(inst);
      case HloOpcode::kCall: {
        // Inlined: the callee's instructions become kernels of this
        // sequence, reading the operands' buffers.
        if (inst.to_apply() == nullptr) {
          return absl::InvalidArgumentError("call without a computation");
        }
        HLOREF_ASSIGN_OR_RETURN(
            ValueTree v,
            EmitComputation(*inst.to_apply(), OperandValues(inst)));
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kAsyncStart:
        return EmitAsyncStart(inst);
      case HloOpcode::kCopyStart: {
        // (destination, source, context): the copy is the operand's value
        // itself (no buffer is ever written twice within a run of its
        // computation), the context a zero.
        if (!inst.shape().IsTuple() || inst.shape().tuple_size() < 2) {
          return absl::InvalidArgumentError(
              absl::StrCat("copy-start of shape ", inst.shape().ToString(),
                           ", expected (destination, source, context...)"));
        }
        ValueTree v;
        v.shape = inst.shape();
        for (int64_t i = 0; i < inst.shape().tuple_size(); ++i) {
          if (i < 2) {
            v.elements.push_back(values_.at(inst.operand(0)));
            continue;
          }
          HLOREF_ASSIGN_OR_RETURN(ValueTree z,
                                  ZeroConstants(inst.shape().tuple_shapes(i)));
          v.elements.push_back(std::move(z));
        }
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      case HloOpcode::kAsyncDone:
      case HloOpcode::kCopyDone: {
        // async-start holds (operands, result, context), copy-start
        // (destination, source, context): the result is element 1 / 0.
        const size_t e = inst.opcode() == HloOpcode::kAsyncDone ? 1 : 0;
        const ValueTree& start = values_.at(inst.operand(0));
        if (start.elements.size() <= e) {
          return absl::InvalidArgumentError(absl::StrCat(
              HloOpcodeString(inst.opcode()), " of a value of shape ",
              start.shape.ToString(), ", expected a tuple"));
        }
        ValueTree v = start.elements[e];
        values_[&inst] = std::move(v);
        return absl::OkStatus();
      }
      default:
        break;
    }
    // Bitcasts and reshapes that only reinterpret a buffer alias it.
    if ((inst.opcode() == HloOpcode::kBitcast ||
         inst.opcode() == HloOpcode::kReshape) &&
        inst.shape().IsArray() && inst.operand(0)->shape().IsArray() &&
        !inlined_.contains(inst.operand(0)) &&
        RowMajorReinterpretation(inst.operand(0)->shape(), inst.shape())) {
      ValueTree v;
      v.shape = inst.shape();
      v.buffer = values_.at(inst.operand(0)).buffer;
      values_[&inst] = v;
      return absl::OkStatus();
    }
    ValueTree out = NewTemps(inst.shape());
    values_[&inst] = out;
    const bool elemental =
        inst.shape().IsArray() &&
        (inst.opcode() == HloOpcode::kFusion
             ? ElementalFusion(inst)
             : static_cast<bool>(table_.Elemental(inst.opcode())) &&
                   codegen::CanEmitElementally(ctx_, inst));
    if (elemental) {
      if (options_.specialised_kernels) {
        if (inst.opcode() == HloOpcode::kReduce) {
          if (std::optional<ReduceShape> rs = NormalizeReduce(inst)) {
            return rs->row ? EmitRowReduceKernel(inst, out, *rs)
                           : EmitColumnReduceKernel(inst, out, *rs);
          }
        }
        int64_t batch, m, n, k;
        if (inst.opcode() == HloOpcode::kDot &&
            CanonicalDot(inst, &batch, &m, &n, &k)) {
          // bf16 / f16 on the tensor cores (gpu_gemm.h), f32 / f64 FFMA.
          const bool tc = TensorCoreType(inst.shape().element_type()) &&
                          TensorCoreGridFits(batch, m, n);
          return EmitGemmKernel(inst, out, DotGemmIo(inst, batch, m, n, k), tc);
        }
        if (inst.opcode() == HloOpcode::kConvolution) {
          // Implicit GEMM (gpu_conv.h) where it applies.
          std::string why;
          if (std::optional<ConvGemmShape> s = ConvolutionAsGemm(inst, &why)) {
            const bool tc = TensorCoreType(inst.shape().element_type()) &&
                            TensorCoreGridFits(s->groups, s->m, s->n);
            if (tc || FfmaGridFits(s->groups, s->m, s->n)) {
              return EmitGemmKernel(inst, out, ConvGemmIo(inst, *s), tc);
            }
          }
        }
      }
      return EmitElementwiseKernel(inst, out);
    }
    for (const HloInstruction* op : inst.operands()) {
      if (inlined_.contains(op)) {
        return absl::InternalError(
            "fusion inlined a producer into a non-elemental consumer");
      }
    }
    // Host-staged instructions (gpu_host_steps.h), annotation
    // custom-calls (a device copy), rng (gpu_rng.h).
    HLOREF_ASSIGN_OR_RETURN(std::optional<HostStep> step, PlanHostStep(inst));
    if (step.has_value()) return AddHostStep(inst, out, *std::move(step));
    if (IsAnnotationCustomCall(inst)) {
      HLOREF_RETURN_IF_ERROR(CheckAnnotationCustomCall(inst));
      return EmitSerialKernel(
          inst, out, [&](absl::Span<const IrValue> ops, const IrValue& o) {
            return ctx_.EmitCopyValue(ops[0], o);
          });
    }
    if (inst.opcode() == HloOpcode::kRng ||
        inst.opcode() == HloOpcode::kRngGetAndUpdateState) {
      return EmitRng(inst, out);
    }
    // Device implementations of what the CPU backend's runtime computes
    // (gpu_device_ops.h).
    HLOREF_ASSIGN_OR_RETURN(std::optional<DeviceKernel> device,
                            PlanDeviceKernel(inst));
    if (device.has_value()) return EmitDeviceKernel(inst, out, *device);
    if (const codegen::BufferEmitter& e = table_.Buffer(inst.opcode())) {
      return EmitSerialKernel(
          inst, out,
          [&](absl::Span<const IrValue> operands, const IrValue& output) {
            return e(ctx_, inst, operands, output);
          });
    }
    if (inst.opcode() == HloOpcode::kFusion) {
      const HloComputation* callee = FusedComputation(inst);
      if (callee == nullptr) {
        return absl::InvalidArgumentError("fusion without a computation");
      }
      return EmitSerialKernel(
          inst, out,
          [&](absl::Span<const IrValue> operands, const IrValue& output) {
            return ctx_.EmitCallComputation(*callee, operands, output);
          });
    }
    if (inst.shape().IsArray() && table_.Elemental(inst.opcode())) {
      // The elemental emitter refused: its reason (it emits no code when
      // asked with placeholder generators, as fusion's CanEmitElementally).
      const std::vector<ElementGenerator> placeholders(
          inst.operand_count(),
          [](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
            return absl::InternalError("placeholder generator called");
          });
      absl::StatusOr<ElementGenerator> g =
          table_.Elemental(inst.opcode())(ctx_, inst, placeholders);
      if (!g.ok()) return g.status();
    }
    return absl::UnimplementedError(
        absl::StrCat("the GPU backend does not compile ",
                     HloOpcodeString(inst.opcode()), " yet"));
  }

  // A host step (gpu_host_steps.h) between the launches before and after.
  absl::Status AddHostStep(const HloInstruction& inst, const ValueTree& out,
                           HostStep step) {
    if (!step.run) return absl::OkStatus();  // nothing to do
    for (const HloInstruction* op : inst.operands()) {
      values_.at(op).CollectBuffers(&step.inputs);
    }
    out.CollectBuffers(&step.outputs);
    KernelLaunch launch;
    launch.kind = KernelKind::kHostStep;
    launch.kernel = absl::StrCat("host_step", program_.host_steps.size(), "_",
                                 HloOpcodeString(inst.opcode()));
    launch.instruction = inst.ToString();
    launch.host_step = static_cast<int64_t>(program_.host_steps.size());
    program_.host_steps.push_back(std::move(step));
    program_.launches.push_back(std::move(launch));
    return absl::OkStatus();
  }

  // rng and rng-get-and-update-state (gpu_rng.h) on the module's state
  // buffer, which persists between runs.
  absl::Status EmitRng(const HloInstruction& inst, const ValueTree& out) {
    if (rng_state_ < 0) {
      GpuBuffer s;
      s.kind = GpuBuffer::Kind::kState;
      s.shape = RngStateShape();
      s.bytes = codegen::ArrayBytes(s.shape);
      rng_state_ = NewBuffer(std::move(s));
    }
    ValueTree state;
    state.shape = RngStateShape();
    state.buffer = rng_state_;
    ValueTree both;  // the kernels' outputs: the result, the state
    both.shape = Shape::Tuple({inst.shape(), state.shape});
    both.elements = {out, state};
    const HloInstruction* i = &inst;
    if (inst.opcode() == HloOpcode::kRngGetAndUpdateState) {
      if (!inst.shape().IsArray() ||
          inst.shape().element_type() != PrimitiveType::kU64 ||
          inst.shape().num_elements() != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("rng-get-and-update-state result ",
                         inst.shape().ToString(), ", expected u64[2]"));
      }
      DeviceKernel k;
      k.name = "rng_state";
      k.work_items = 1;
      k.body = [i](EmitContext& ctx, absl::Span<const IrValue>,
                   const IrValue& o, const DeviceLoops& loops) {
        return EmitRngStateUpdate(ctx, o.elements[1].array, i->attrs().delta,
                                  &o.elements[0].array, loops);
      };
      return EmitDeviceKernel(inst, both, k);
    }
    HLOREF_RETURN_IF_ERROR(CheckRng(inst));
    // The draws read S; the next kernel on the stream advances it.
    DeviceKernel draws;
    draws.name = "rng";
    draws.work_items = inst.shape().num_elements();
    draws.body = [i](EmitContext& ctx, absl::Span<const IrValue> ops,
                     const IrValue& o, const DeviceLoops& loops) {
      return EmitRngDraws(ctx, *i, ops[0].array, ops[1].array,
                          o.elements[1].array, o.elements[0].array, loops);
    };
    HLOREF_RETURN_IF_ERROR(EmitDeviceKernel(inst, both, draws));
    DeviceKernel advance;
    advance.name = "rng_advance";
    advance.work_items = 1;
    advance.body = [i](EmitContext& ctx, absl::Span<const IrValue>,
                       const IrValue& o, const DeviceLoops& loops) {
      return EmitRngStateUpdate(ctx, o.array, RngStateAdvance(*i), nullptr,
                                loops);
    };
    return EmitDeviceKernel(inst, state, advance);
  }

  // ---------------------------------------------------------------------
  // Host-driven control flow (gpu_control_flow.h).

  std::vector<ValueTree> OperandValues(const HloInstruction& inst) {
    std::vector<ValueTree> out;
    for (const HloInstruction* op : inst.operands()) {
      out.push_back(values_.at(op));
    }
    return out;
  }

  // Emits the kernels of `comp` (a while body or condition, a branch, a
  // callee) into the launch sequence, its parameters being `params`;
  // returns its root's value. Each emission has its own values and fusion
  // decisions, so a computation called from several places is emitted
  // once per call site (its buffers are its own at each).
  absl::StatusOr<ValueTree> EmitComputation(const HloComputation& comp,
                                            std::vector<ValueTree> params) {
    if (static_cast<int64_t>(params.size()) != comp.num_parameters()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "computation ", comp.name(), " takes ", comp.num_parameters(),
          " parameters, called with ", params.size()));
    }
    absl::flat_hash_map<const HloInstruction*, ValueTree> outer_values;
    absl::flat_hash_set<const HloInstruction*> outer_inlined;
    outer_values.swap(values_);
    outer_inlined.swap(inlined_);
    for (int64_t i = 0; i < comp.num_parameters(); ++i) {
      values_[comp.parameter(i)] = std::move(params[i]);
    }
    inlined_ = codegen::ChooseInlinedInstructions(ctx_, comp);
    absl::Status status = absl::OkStatus();
    for (const auto& inst : comp.instructions()) {
      status = EmitInstruction(*inst);
      if (!status.ok()) {
        status = codegen::InstructionCodegenError(*inst, status);
        break;
      }
    }
    ValueTree root;
    if (status.ok()) root = values_.at(comp.root());
    values_.swap(outer_values);
    inlined_.swap(outer_inlined);
    HLOREF_RETURN_IF_ERROR(status);
    return root;
  }

  // Zero constants of `shape`'s array leaves (async / copy contexts).
  absl::StatusOr<ValueTree> ZeroConstants(const Shape& shape) {
    return ConstantTree(Literal(shape), shape);
  }

  // async-start: ((operands...), the wrapped computation's result,
  // context...) with the operands' own buffers, the result computed by the
  // wrapped computation's kernels here, zero contexts.
  absl::Status EmitAsyncStart(const HloInstruction& inst) {
    const Shape& shape = inst.shape();
    if (!shape.IsTuple() || shape.tuple_size() < 2 ||
        inst.called_computations().empty() ||
        !shape.tuple_shapes(0).IsTuple() ||
        shape.tuple_shapes(0).tuple_size() != inst.operand_count()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "async-start of shape ", shape.ToString(),
          ", expected ((operands...), result, context...) and a computation"));
    }
    ValueTree v;
    v.shape = shape;
    ValueTree held;
    held.shape = shape.tuple_shapes(0);
    held.elements = OperandValues(inst);
    v.elements.push_back(std::move(held));
    HLOREF_ASSIGN_OR_RETURN(
        ValueTree result,
        EmitComputation(*inst.called_computations()[0], OperandValues(inst)));
    v.elements.push_back(std::move(result));
    for (int64_t i = 2; i < shape.tuple_size(); ++i) {
      HLOREF_ASSIGN_OR_RETURN(ValueTree z,
                              ZeroConstants(shape.tuple_shapes(i)));
      v.elements.push_back(std::move(z));
    }
    values_[&inst] = std::move(v);
    return absl::OkStatus();
  }

  // A copied array leaf: buffer `from` read as `from_shape`, written to
  // `to` as `to_shape` (the same dimensions and type; layouts may differ).
  struct LeafCopy {
    int64_t from = -1, to = -1;
    Shape from_shape, to_shape;
  };

  static absl::Status CollectCopies(const ValueTree& from, const ValueTree& to,
                                    std::vector<LeafCopy>* out) {
    if (from.shape.IsArray() != to.shape.IsArray() ||
        from.elements.size() != to.elements.size()) {
      return absl::InternalError(
          absl::StrCat("copying a value of shape ", from.shape.ToString(),
                       " to one of shape ", to.shape.ToString()));
    }
    if (from.shape.IsArray()) {
      if (from.shape.dimensions() != to.shape.dimensions() ||
          from.shape.element_type() != to.shape.element_type()) {
        return absl::InternalError(
            absl::StrCat("copying an array of shape ", from.shape.ToString(),
                         " to one of shape ", to.shape.ToString()));
      }
      if (from.buffer != to.buffer) {
        out->push_back({from.buffer, to.buffer, from.shape, to.shape});
      }
    }
    for (size_t i = 0; i < from.elements.size(); ++i) {
      HLOREF_RETURN_IF_ERROR(
          CollectCopies(from.elements[i], to.elements[i], out));
    }
    return absl::OkStatus();
  }

  // One kernel copying every leaf of `copies` (sources and destinations
  // disjoint), each by a grid-stride loop over its elements.
  absl::Status EmitCopyKernel(const HloInstruction& inst,
                              absl::string_view kind,
                              const std::vector<LeafCopy>& copies) {
    std::vector<int64_t> distinct;
    absl::flat_hash_set<int64_t> seen, outputs;
    for (const LeafCopy& c : copies) {
      if (seen.insert(c.from).second) distinct.push_back(c.from);
    }
    for (const LeafCopy& c : copies) {
      if (!seen.insert(c.to).second) {
        return absl::InternalError("a copy kernel writes a buffer it reads");
      }
      distinct.push_back(c.to);
      outputs.insert(c.to);
    }
    llvm::Function* f =
        NewKernel(KernelName(kind, inst.name()), distinct, outputs, kBlockSize);
    int64_t most = 0;
    for (const LeafCopy& c : copies) {
      const IrArray from(kernel_args_.at(c.from), c.from_shape);
      const IrArray to(kernel_args_.at(c.to), c.to_shape);
      const int64_t n = c.to_shape.num_elements();
      most = std::max(most, n);
      HLOREF_RETURN_IF_ERROR(
          GridStride(ctx_.I64(n), [&](llvm::Value* i) -> absl::Status {
            IrIndex index = Delinearize(i, c.to_shape);
            to.EmitWrite(ctx_, index, from.EmitRead(ctx_, index));
            return absl::OkStatus();
          }));
    }
    KernelLaunch launch;
    launch.kernel = f->getName().str();
    launch.instruction = inst.ToString();
    launch.buffers = distinct;
    launch.kind = KernelKind::kElementwise;
    launch.elements = most;
    launch.block[0] = kBlockSize;
    launch.grid[0] = std::clamp<int64_t>((most + kBlockSize - 1) / kBlockSize,
                                         1, kMaxElementwiseBlocks);
    return EndKernel(inst, std::move(launch));
  }

  // Copies the value `from` into the buffers of `to` (leaves already in
  // place are skipped). A source that is also a destination (a while body
  // returning its state's elements in another order) is first copied to
  // a temporary, so no kernel reads what another copy overwrites.
  absl::Status EmitCopies(const HloInstruction& inst, absl::string_view kind,
                          const ValueTree& from, const ValueTree& to) {
    std::vector<LeafCopy> copies;
    HLOREF_RETURN_IF_ERROR(CollectCopies(from, to, &copies));
    if (copies.empty()) return absl::OkStatus();
    absl::flat_hash_set<int64_t> destinations;
    for (const LeafCopy& c : copies) destinations.insert(c.to);
    absl::flat_hash_map<int64_t, int64_t> staged_as;
    std::vector<LeafCopy> staging;
    for (LeafCopy& c : copies) {
      if (!destinations.contains(c.from)) continue;
      auto [it, fresh] = staged_as.try_emplace(c.from, -1);
      if (fresh) {
        ValueTree t = NewTemps(c.from_shape);
        it->second = t.buffer;
        staging.push_back({c.from, t.buffer, c.from_shape, c.from_shape});
      }
      c.from = it->second;
    }
    if (!staging.empty()) {
      HLOREF_RETURN_IF_ERROR(
          EmitCopyKernel(inst, absl::StrCat(kind, "_stage"), staging));
    }
    return EmitCopyKernel(inst, kind, copies);
  }

  KernelLaunch ControlStep(const HloInstruction& inst, KernelKind kind,
                           absl::string_view what) {
    KernelLaunch k;
    k.kind = kind;
    k.kernel = KernelName(what, inst.name());
    k.instruction = inst.ToString();
    return k;
  }

  // while: the state gets its own buffers (the init value is copied in);
  // per iteration the condition's kernels, a branch on its predicate, the
  // body's kernels reading the state, the body's result copied into the
  // state and a jump back to the condition.
  absl::Status EmitWhile(const HloInstruction& inst) {
    if (inst.while_condition() == nullptr || inst.while_body() == nullptr) {
      return absl::InvalidArgumentError("while without a condition or body");
    }
    ValueTree state = NewTemps(inst.shape());
    values_[&inst] = state;
    HLOREF_RETURN_IF_ERROR(
        EmitCopies(inst, "while_init", values_.at(inst.operand(0)), state));
    const int64_t condition = static_cast<int64_t>(program_.launches.size());
    HLOREF_ASSIGN_OR_RETURN(ValueTree pred,
                            EmitComputation(*inst.while_condition(), {state}));
    if (!pred.shape.IsArray() || pred.shape.num_elements() != 1 ||
        pred.shape.element_type() != PrimitiveType::kPred) {
      return absl::InvalidArgumentError(
          absl::StrCat("the while condition returns ", pred.shape.ToString(),
                       ", expected pred[]"));
    }
    const size_t branch = program_.launches.size();
    KernelLaunch step = ControlStep(inst, KernelKind::kBranch, "while_branch");
    step.selector = pred.buffer;
    program_.launches.push_back(std::move(step));
    HLOREF_ASSIGN_OR_RETURN(ValueTree next,
                            EmitComputation(*inst.while_body(), {state}));
    HLOREF_RETURN_IF_ERROR(EmitCopies(inst, "while_next", next, state));
    KernelLaunch back = ControlStep(inst, KernelKind::kJump, "while_back");
    back.targets = {condition};
    program_.launches.push_back(std::move(back));
    program_.launches[branch].targets = {
        static_cast<int64_t>(branch) + 1,
        static_cast<int64_t>(program_.launches.size())};
    return absl::OkStatus();
  }

  // conditional: a branch on the selector (pred: true -> 0; index: out
  // of range -> the last), each branch's kernels reading its operand, its
  // result copied into the conditional's buffers, a jump to the end.
  absl::Status EmitConditional(const HloInstruction& inst) {
    absl::Span<HloComputation* const> branches = inst.branch_computations();
    const HloInstruction* selector = inst.operand(0);
    if (branches.empty() ||
        inst.operand_count() != static_cast<int64_t>(branches.size()) + 1 ||
        !selector->shape().IsArray() || selector->shape().num_elements() != 1) {
      return absl::InvalidArgumentError(
          "conditional needs a scalar selector and one operand per branch");
    }
    ValueTree out = NewTemps(inst.shape());
    values_[&inst] = out;
    const size_t branch = program_.launches.size();
    KernelLaunch step = ControlStep(inst, KernelKind::kBranch, "cond_branch");
    step.selector = values_.at(selector).buffer;
    program_.launches.push_back(std::move(step));
    std::vector<int64_t> starts, jumps;
    for (size_t i = 0; i < branches.size(); ++i) {
      starts.push_back(static_cast<int64_t>(program_.launches.size()));
      HLOREF_ASSIGN_OR_RETURN(
          ValueTree result,
          EmitComputation(*branches[i], {values_.at(inst.operand(i + 1))}));
      HLOREF_RETURN_IF_ERROR(
          EmitCopies(inst, absl::StrCat("cond_result", i), result, out));
      if (i + 1 < branches.size()) {
        jumps.push_back(static_cast<int64_t>(program_.launches.size()));
        program_.launches.push_back(
            ControlStep(inst, KernelKind::kJump, "cond_end"));
      }
    }
    const int64_t end = static_cast<int64_t>(program_.launches.size());
    for (int64_t j : jumps) program_.launches[j].targets = {end};
    program_.launches[branch].targets = std::move(starts);
    return absl::OkStatus();
  }

  // The one case left for the serial entry (the whole entry computation
  // in one device thread through the shared computation emitter): a module
  // with a bounded dynamic shape anywhere but in the parameters, tuples
  // and get-tuple-elements of its entry (which only name buffers), where
  // the shared computation emitter applies codegen's dynamic shape rules
  // (gpu_dynamic.h). while, conditional, call, async and copy-start run as
  // kernel sequences with host-driven control flow (gpu_control_flow.h).
  static bool NeedsSerialEntry(const HloModule& module) {
    const HloComputation& entry = *module.entry();
    // Replicated modules: one thread per participant (gpu_collectives.h).
    if (module.config().replica_count * module.config().num_partitions > 1) {
      return true;
    }
    const absl::Span<const HloOpcode> collectives =
        codegen::CollectiveFamilyOpcodes();
    for (const auto& comp : module.computations()) {
      for (const auto& inst : comp->instructions()) {
        // Collectives report run-time errors (their groups) through the
        // serial entry's status buffer.
        if (std::find(collectives.begin(), collectives.end(), inst->opcode()) !=
            collectives.end()) {
          return true;
        }
        const bool names_buffers =
            comp.get() == &entry &&
            (inst->opcode() == HloOpcode::kParameter ||
             inst->opcode() == HloOpcode::kTuple ||
             inst->opcode() == HloOpcode::kGetTupleElement);
        if (names_buffers) continue;
        if (inst->opcode() == HloOpcode::kSetDimensionSize ||
            inst->opcode() == HloOpcode::kDynamicReshape ||
            HasDynamicLeaf(inst->shape())) {
          return true;
        }
        for (const HloInstruction* op : inst->operands()) {
          if (HasDynamicLeaf(op->shape())) return true;
        }
      }
    }
    return false;
  }

  absl::Status EmitSerialEntry(const HloComputation& entry) {
    std::vector<const HloInstruction*> params;
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      const HloInstruction* p = entry.parameter(i);
      int64_t leaf = 0;
      values_[p] = ParameterTree(p->shape(), i, &leaf);
      params.push_back(p);
    }
    ValueTree out = NewTemps(entry.root()->shape());
    // Run-time errors of the shared emitters (codegen's dynamic shape
    // rules) go to the status buffer: the first one is kept.
    GpuBuffer status;
    status.kind = GpuBuffer::Kind::kConstant;
    status.shape = Shape::Scalar(PrimitiveType::kS32);
    status.bytes = 4;
    status.data.assign(4, 0);
    program_.status_buffer = NewBuffer(std::move(status));
    const int64_t status_buffer = program_.status_buffer;
    KernelLaunch launch;
    // One thread per participant (gpu_collectives.h), each on its slice.
    const int64_t threads = program_.participants;
    slice_by_participant_ = threads > 1;
    absl::StatusOr<llvm::Function*> f =
        BeginKernel(*entry.root(), "entry_serial", params, out, threads,
                    &launch, {status_buffer});
    slice_by_participant_ = false;
    HLOREF_RETURN_IF_ERROR(f.status());
    // The status buffer is the run context the shared computation emitter
    // passes to every function it calls (nothing else reads it on the
    // GPU: heap_alloc and parallel_for are unset).
    kernel_state_.run_context = kernel_args_.at(status_buffer);
    ctx_.set_run_context(kernel_state_.run_context);
    ctx_.report_error_code = [this](EmitContext& c, absl::StatusCode code,
                                    const std::string& message) {
      program_.run_errors.push_back(
          {static_cast<int32_t>(code), std::string(message)});
      const int32_t id = static_cast<int32_t>(program_.run_errors.size());
      codegen::IRBuilder& b = c.b();
      llvm::Value* status_ptr = c.run_context();
      llvm::Value* unset = b.CreateICmpEQ(
          b.CreateLoad(b.getInt32Ty(), status_ptr), b.getInt32(0));
      absl::Status s = c.EmitIf(unset, [&]() {
        b.CreateStore(b.getInt32(id), status_ptr);
        return absl::OkStatus();
      });
      (void)s;  // the body cannot fail
    };
    std::vector<IrValue> operands;
    for (const HloInstruction* p : params) {
      operands.push_back(kernel_values_.at(p));
    }
    // Thread t < participants of block 0 (the launch has exactly those;
    // the guard keeps a larger launch correct).
    llvm::Value* first = b_.CreateAnd(
        b_.CreateICmpEQ(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                        b_.getInt32(0)),
        b_.CreateICmpULT(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x),
                         b_.getInt32(static_cast<int32_t>(threads))));
    absl::Status emitted = ctx_.EmitIf(
        first,
        [&]() {
          return ctx_.EmitCallComputation(entry, operands, kernel_output_);
        },
        "serial");
    ctx_.report_error_code = nullptr;
    HLOREF_RETURN_IF_ERROR(emitted);
    launch.kind = KernelKind::kSerial;
    launch.elements = 1;
    launch.block[0] = threads;
    launch.instruction =
        absl::StrCat("the entry computation ", entry.name(),
                     threads > 1 ? absl::StrCat(" (run serially by each of ",
                                                threads, " participants)")
                                 : std::string(" (run serially)"));
    HLOREF_RETURN_IF_ERROR(EndKernel(*entry.root(), std::move(launch)));
    values_[entry.root()] = out;
    return absl::OkStatus();
  }

  static bool RowMajorReinterpretation(const Shape& from, const Shape& to) {
    if (codegen::ArrayBytes(from) != codegen::ArrayBytes(to)) return false;
    if (StorageBytes(from.element_type()) != StorageBytes(to.element_type())) {
      return false;
    }
    auto descending = [](const Shape& s) {
      Layout l = s.LayoutOrDefault();
      return static_cast<int64_t>(l.minor_to_major.size()) != s.rank() ||
             l.IsDescending();
    };
    return descending(from) && descending(to);
  }

  // Renames the C math library calls to libdevice's functions.
  void ResolveLibdeviceCalls() {
    std::vector<llvm::Function*> declarations;
    for (llvm::Function& f : *llvm_module_) {
      if (f.isDeclaration() && !f.isIntrinsic()) declarations.push_back(&f);
    }
    for (llvm::Function* f : declarations) {
      const std::string target = LibdeviceName(*f);
      if (target.empty()) continue;
      if (llvm::Function* existing = llvm_module_->getFunction(target)) {
        f->replaceAllUsesWith(existing);
        f->eraseFromParent();
      } else {
        f->setName(target);
      }
    }
  }

  const HloModule& module_;
  GpuCompileOptions options_;
  llvm::LLVMContext context_;
  std::unique_ptr<llvm::Module> llvm_module_;
  codegen::IRBuilder b_;
  codegen::EmitterTable table_;
  EmitContext ctx_;
  GpuProgram program_;
  absl::flat_hash_map<const HloInstruction*, ValueTree> values_;
  absl::flat_hash_set<const HloInstruction*> inlined_;
  EmitContext::FunctionState kernel_state_;
  absl::flat_hash_map<const HloInstruction*, IrValue> kernel_values_;
  IrValue kernel_output_;
  int64_t rng_state_ = -1;  // the rng state buffer, once used
  // BeginKernel offsets every buffer by the thread's participant slice
  // (the serial entry of a replicated module).
  bool slice_by_participant_ = false;
  // The current kernel's argument of each buffer.
  absl::flat_hash_map<int64_t, llvm::Value*> kernel_args_;
};

// -------------------------------------------------------------------------
// Reductions in XLA's shape (facts doc 1.3) and the tiled dot.

void AddAnnotation(llvm::Module& m, llvm::Function* f, const char* key,
                   int32_t v) {
  llvm::LLVMContext& c = m.getContext();
  llvm::NamedMDNode* annotations =
      m.getOrInsertNamedMetadata("nvvm.annotations");
  llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(f),
                           llvm::MDString::get(c, key),
                           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                               llvm::Type::getInt32Ty(c), v))};
  annotations->addOperand(llvm::MDNode::get(c, ops));
}

std::optional<GpuModuleEmitter::ReduceShape> GpuModuleEmitter::NormalizeReduce(
    const HloInstruction& inst) {
  if (inst.operand_count() != 2 || !inst.shape().IsArray() ||
      inst.to_apply() == nullptr) {
    return std::nullopt;
  }
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  if (in.num_elements() == 0 || in.num_elements() >= (int64_t{1} << 31)) {
    return std::nullopt;
  }
  llvm::Type* ct = codegen::ComputeType(context_, in.element_type());
  if (WordsOf(ct) == 0 ||
      codegen::ComputeType(context_, out.element_type()) != ct) {
    return std::nullopt;
  }
  const int64_t rank = in.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : inst.attrs().dimensions) {
    if (d < 0 || d >= rank) return std::nullopt;
    reduced[d] = true;
  }
  std::vector<int64_t> m2m = in.LayoutOrDefault().minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != rank) {
    m2m = Layout::Descending(rank).minor_to_major;
  }
  // Physical order, major to minor, without dimensions of size 1: kept
  // dimensions, then the reduced ones, then kept ones ([A][R][B]).
  std::vector<int64_t> kept_order;
  std::vector<int64_t> a_dims, r_dims, b_dims;  // major to minor here
  int64_t a = 1, r = 1, w = 1;
  int phase = 0;  // 0: in A, 1: in R, 2: in B
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    const int64_t d = *it;
    const int64_t size = in.dimensions(d);
    if (size == 1) continue;
    if (reduced[d]) {
      if (phase == 2) return std::nullopt;
      phase = 1;
      r *= size;
      r_dims.push_back(d);
    } else {
      if (phase == 1) phase = 2;
      (phase == 0 ? a : w) *= size;
      (phase == 0 ? a_dims : b_dims).push_back(d);
      kept_order.push_back(d);
    }
  }
  std::reverse(a_dims.begin(), a_dims.end());
  std::reverse(r_dims.begin(), r_dims.end());
  std::reverse(b_dims.begin(), b_dims.end());
  // The result's dimensions are the kept ones in order; its physical
  // order must follow the operand's.
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) kept.push_back(d);
  }
  if (static_cast<int64_t>(kept.size()) != out.rank()) return std::nullopt;
  std::vector<int64_t> om2m = out.LayoutOrDefault().minor_to_major;
  if (static_cast<int64_t>(om2m.size()) != out.rank()) {
    om2m = Layout::Descending(out.rank()).minor_to_major;
  }
  std::vector<int64_t> out_order;
  for (auto it = om2m.rbegin(); it != om2m.rend(); ++it) {
    if (out.dimensions(*it) == 1) continue;
    out_order.push_back(kept[*it]);
  }
  if (out_order != kept_order) return std::nullopt;
  ReduceShape rs;
  rs.a_dims = std::move(a_dims);
  rs.r_dims = std::move(r_dims);
  rs.b_dims = std::move(b_dims);
  if (w == 1) {
    // XLA takes the tiled row emitter from about 32 columns on.
    if (r < 16) return std::nullopt;
    rs.row = true;
    rs.rows = a;
    rs.columns = r;
    return rs;
  }
  if (r < 16 || a > 65535) return std::nullopt;
  rs.row = false;
  rs.batch = a;
  rs.rows = r;
  rs.columns = w;
  return rs;
}

void GpuModuleEmitter::FillIndex(IrIndex& index, llvm::Value* linear,
                                 const std::vector<int64_t>& dims,
                                 const Shape& shape) {
  int64_t product = 1;
  for (int64_t d : dims) product *= shape.dimensions(d);
  llvm::Type* t =
      product < (int64_t{1} << 31) ? b_.getInt32Ty() : b_.getInt64Ty();
  llvm::Value* rest = b_.CreateTrunc(linear, t);
  for (size_t k = 0; k < dims.size(); ++k) {
    llvm::Value* size = llvm::ConstantInt::get(t, shape.dimensions(dims[k]));
    llvm::Value* i = k + 1 == dims.size() ? rest : b_.CreateURem(rest, size);
    index[dims[k]] = b_.CreateZExt(i, b_.getInt64Ty());
    if (k + 1 < dims.size()) rest = b_.CreateUDiv(rest, size);
  }
}

IrIndex GpuModuleEmitter::UnitIndex(const Shape& shape) {
  IrIndex index(shape.rank(), nullptr);
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) == 1) index[d] = ctx_.I64(0);
  }
  return index;
}

int64_t GpuModuleEmitter::WordsOf(llvm::Type* t) {
  if (t->isFloatTy()) return 1;
  if (t->isDoubleTy()) return 2;
  if (t->isIntegerTy()) {
    const unsigned bits = t->getIntegerBitWidth();
    return bits <= 32 ? 1 : bits <= 64 ? 2 : 0;
  }
  return 0;
}

std::vector<llvm::Value*> GpuModuleEmitter::ToWords(llvm::Value* v) {
  llvm::Type* t = v->getType();
  llvm::Type* i32 = b_.getInt32Ty();
  if (t->isFloatTy()) return {b_.CreateBitCast(v, i32)};
  if (t->isDoubleTy()) v = b_.CreateBitCast(v, b_.getInt64Ty());
  if (v->getType()->getIntegerBitWidth() <= 32) return {b_.CreateZExt(v, i32)};
  llvm::Value* wide = b_.CreateZExt(v, b_.getInt64Ty());
  return {b_.CreateTrunc(wide, i32),
          b_.CreateTrunc(b_.CreateLShr(wide, 32), i32)};
}

llvm::Value* GpuModuleEmitter::FromWords(absl::Span<llvm::Value* const> words,
                                         llvm::Type* t) {
  if (t->isFloatTy()) return b_.CreateBitCast(words[0], t);
  if (words.size() == 1) return b_.CreateTrunc(words[0], t);
  llvm::Value* wide =
      b_.CreateOr(b_.CreateZExt(words[0], b_.getInt64Ty()),
                  b_.CreateShl(b_.CreateZExt(words[1], b_.getInt64Ty()), 32));
  if (t->isDoubleTy()) return b_.CreateBitCast(wide, t);
  return b_.CreateTrunc(wide, t);
}

absl::StatusOr<llvm::Value*> GpuModuleEmitter::Combine(
    const HloInstruction& reduce, llvm::Value* a, llvm::Value* b) {
  HLOREF_ASSIGN_OR_RETURN(
      std::vector<llvm::Value*> r,
      ctx_.EmitCallScalarComputation(*reduce.to_apply(), {a, b}));
  if (r.size() != 1) {
    return absl::InternalError("a reducer with more than one result");
  }
  return r[0];
}

// Shuffle-down tree over the 32 lanes of a warp (offsets 16, 8, 4, 2, 1,
// 64-bit values as two 32-bit shuffles); lane 0 ends with the warp's
// combination of the valid partials. Every lane of the warp must run it.
absl::StatusOr<GpuModuleEmitter::Partial> GpuModuleEmitter::WarpReduce(
    const HloInstruction& reduce, Partial p) {
  llvm::Function* shfl = llvm::Intrinsic::getDeclaration(
      llvm_module_.get(), llvm::Intrinsic::nvvm_shfl_sync_down_i32);
  llvm::Value* lane = b_.CreateAnd(
      Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), b_.getInt32(31));
  llvm::Type* t = p.value->getType();
  for (int offset = 16; offset >= 1; offset /= 2) {
    std::vector<llvm::Value*> words = ToWords(p.value);
    for (llvm::Value*& w : words) {
      w = b_.CreateCall(
          shfl, {b_.getInt32(-1), w, b_.getInt32(offset), b_.getInt32(31)});
    }
    llvm::Value* other_valid = b_.CreateCall(
        shfl, {b_.getInt32(-1), b_.CreateZExt(p.valid, b_.getInt32Ty()),
               b_.getInt32(offset), b_.getInt32(31)});
    other_valid =
        b_.CreateAnd(b_.CreateICmpNE(other_valid, b_.getInt32(0)),
                     b_.CreateICmpULT(b_.CreateAdd(lane, b_.getInt32(offset)),
                                      b_.getInt32(32)));
    llvm::Value* other = FromWords(words, t);
    HLOREF_ASSIGN_OR_RETURN(llvm::Value * both,
                            Combine(reduce, p.value, other));
    p.value = b_.CreateSelect(other_valid,
                              b_.CreateSelect(p.valid, both, other), p.value);
    p.valid = b_.CreateOr(p.valid, other_valid);
  }
  return p;
}

llvm::GlobalVariable* GpuModuleEmitter::SharedArray(absl::string_view name,
                                                    int64_t words) {
  auto* type = llvm::ArrayType::get(b_.getInt32Ty(), words);
  auto* g = new llvm::GlobalVariable(
      *llvm_module_, type, /*isConstant=*/false,
      llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(type),
      std::string(name), nullptr, llvm::GlobalValue::NotThreadLocal,
      /*AddressSpace=*/3);
  g->setAlignment(llvm::Align(16));
  return g;
}

absl::Status GpuModuleEmitter::EmitRowReduceKernel(const HloInstruction& inst,
                                                   const ValueTree& out,
                                                   const ReduceShape& rs) {
  std::vector<const HloInstruction*> inputs;
  absl::flat_hash_set<const HloInstruction*> seen;
  CollectInputs(inst, &inputs, &seen);
  KernelLaunch launch;
  HLOREF_ASSIGN_OR_RETURN(
      llvm::Function * f,
      BeginKernel(inst, "row_reduce", inputs, out, kBlockSize, &launch));
  (void)f;
  HLOREF_ASSIGN_OR_RETURN(std::vector<ElementGenerator> gens,
                          OperandGenerators(inst));
  const Shape& in = inst.operand(0)->shape();
  llvm::Type* t = codegen::ComputeType(context_, in.element_type());
  const int64_t words = WordsOf(t);
  const int64_t warps = kBlockSize / 32;
  llvm::GlobalVariable* smem = SharedArray("row_partials", warps * (words + 1));
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* lane = b_.CreateAnd(tid, b_.getInt32(31));
  llvm::Value* warp = b_.CreateLShr(tid, b_.getInt32(5));
  llvm::Value* acc_slot = ctx_.EntryAlloca(t, 1, "acc");
  llvm::Value* valid_slot = ctx_.EntryAlloca(b_.getInt1Ty(), 1, "valid");
  auto smem_word = [&](llvm::Value* slot, int64_t word) {
    llvm::Value* i = b_.CreateAdd(b_.CreateMul(slot, b_.getInt32(words + 1)),
                                  b_.getInt32(word));
    return b_.CreateInBoundsGEP(smem->getValueType(), smem,
                                {b_.getInt32(0), i});
  };
  llvm::Function* barrier = llvm::Intrinsic::getDeclaration(
      llvm_module_.get(), llvm::Intrinsic::nvvm_barrier0);
  HLOREF_RETURN_IF_ERROR(ctx_.EmitForLoop(
      "row", Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
      ctx_.I64(rs.rows), Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
      [&](llvm::Value* row) -> absl::Status {
        b_.CreateStore(b_.getFalse(), valid_slot);
        b_.CreateStore(llvm::Constant::getNullValue(t), acc_slot);
        // The kept dimensions once per row, the reduced ones per element
        // (no division at all for one reduced dimension).
        IrIndex row_index = UnitIndex(in);
        FillIndex(row_index, row, rs.a_dims, in);
        // Per-thread partials over a strided slice of the row (adjacent
        // threads read adjacent elements).
        HLOREF_RETURN_IF_ERROR(ctx_.EmitForLoop(
            "column", b_.CreateZExt(tid, b_.getInt64Ty()), ctx_.I64(rs.columns),
            ctx_.I64(kBlockSize), [&](llvm::Value* c) -> absl::Status {
              IrIndex index = row_index;
              FillIndex(index, c, rs.r_dims, in);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, gens[0](index));
              llvm::Value* acc = b_.CreateLoad(t, acc_slot);
              llvm::Value* valid = b_.CreateLoad(b_.getInt1Ty(), valid_slot);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * both,
                                      Combine(inst, acc, v));
              b_.CreateStore(b_.CreateSelect(valid, both, v), acc_slot);
              b_.CreateStore(b_.getTrue(), valid_slot);
              return absl::OkStatus();
            }));
        Partial p{b_.CreateLoad(t, acc_slot),
                  b_.CreateLoad(b_.getInt1Ty(), valid_slot)};
        HLOREF_ASSIGN_OR_RETURN(p, WarpReduce(inst, p));
        HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
            b_.CreateICmpEQ(lane, b_.getInt32(0)),
            [&]() -> absl::Status {
              std::vector<llvm::Value*> w = ToWords(p.value);
              for (int64_t i = 0; i < words; ++i) {
                b_.CreateStore(w[i], smem_word(warp, i));
              }
              b_.CreateStore(b_.CreateZExt(p.valid, i32),
                             smem_word(warp, words));
              return absl::OkStatus();
            },
            "warp_leader"));
        b_.CreateCall(barrier, {});
        HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
            b_.CreateICmpEQ(warp, b_.getInt32(0)),
            [&]() -> absl::Status {
              llvm::Value* in_range =
                  b_.CreateICmpULT(lane, b_.getInt32(warps));
              llvm::Value* slot =
                  b_.CreateSelect(in_range, lane, b_.getInt32(0));
              std::vector<llvm::Value*> w;
              for (int64_t i = 0; i < words; ++i) {
                w.push_back(b_.CreateLoad(i32, smem_word(slot, i)));
              }
              llvm::Value* valid = b_.CreateAnd(
                  in_range,
                  b_.CreateICmpNE(b_.CreateLoad(i32, smem_word(slot, words)),
                                  b_.getInt32(0)));
              Partial q{FromWords(w, t), valid};
              HLOREF_ASSIGN_OR_RETURN(q, WarpReduce(inst, q));
              return ctx_.EmitIf(
                  b_.CreateICmpEQ(lane, b_.getInt32(0)),
                  [&]() -> absl::Status {
                    HLOREF_ASSIGN_OR_RETURN(llvm::Value * init, gens[1]({}));
                    HLOREF_ASSIGN_OR_RETURN(llvm::Value * all,
                                            Combine(inst, init, q.value));
                    llvm::Value* result = b_.CreateSelect(q.valid, all, init);
                    kernel_output_.array.EmitWrite(
                        ctx_, Delinearize(row, inst.shape()), result);
                    return absl::OkStatus();
                  },
                  "write");
            },
            "warp0"));
        // The partials are reused by the next row.
        b_.CreateCall(barrier, {});
        return absl::OkStatus();
      }));
  launch.kind = KernelKind::kRowReduce;
  launch.rows = rs.rows;
  launch.columns = rs.columns;
  launch.block[0] = kBlockSize;
  launch.grid[0] = std::clamp<int64_t>(rs.rows, 1, kMaxElementwiseBlocks);
  return EndKernel(inst, std::move(launch));
}

absl::Status GpuModuleEmitter::EmitColumnReduceKernel(
    const HloInstruction& inst, const ValueTree& out, const ReduceShape& rs) {
  std::vector<const HloInstruction*> inputs;
  absl::flat_hash_set<const HloInstruction*> seen;
  CollectInputs(inst, &inputs, &seen);
  KernelLaunch launch;
  HLOREF_ASSIGN_OR_RETURN(
      llvm::Function * f,
      BeginKernel(inst, "column_reduce", inputs, out, 32, &launch));
  AddAnnotation(*llvm_module_, f, "maxntidy", 32);
  HLOREF_ASSIGN_OR_RETURN(std::vector<ElementGenerator> gens,
                          OperandGenerators(inst));
  const Shape& in = inst.operand(0)->shape();
  llvm::Type* t = codegen::ComputeType(context_, in.element_type());
  const int64_t words = WordsOf(t);
  // 32 x 33 words per plane (one padding column against bank conflicts).
  constexpr int64_t kPitch = 33;
  llvm::GlobalVariable* smem =
      SharedArray("column_tile", (words + 1) * 32 * kPitch);
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Value* tx = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* ty = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y);
  llvm::Value* tile_x = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* batch = Sreg64(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y);
  auto tile_word = [&](llvm::Value* y, llvm::Value* x, int64_t plane) {
    llvm::Value* i =
        b_.CreateAdd(b_.CreateAdd(b_.CreateMul(y, b_.getInt32(kPitch)), x),
                     b_.getInt32(plane * 32 * kPitch));
    return b_.CreateInBoundsGEP(smem->getValueType(), smem,
                                {b_.getInt32(0), i});
  };
  llvm::Value* acc_slot = ctx_.EntryAlloca(t, 1, "acc");
  llvm::Value* valid_slot = ctx_.EntryAlloca(b_.getInt1Ty(), 1, "valid");
  b_.CreateStore(b_.getFalse(), valid_slot);
  b_.CreateStore(llvm::Constant::getNullValue(t), acc_slot);
  llvm::Value* column = b_.CreateZExt(
      b_.CreateAdd(b_.CreateMul(tile_x, b_.getInt32(32)), tx), i64);
  HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
      b_.CreateICmpULT(column, ctx_.I64(rs.columns)),
      [&]() -> absl::Status {
        // Kept dimensions once, the reduced ones per element.
        IrIndex fixed = UnitIndex(in);
        FillIndex(fixed, batch, rs.a_dims, in);
        FillIndex(fixed, column, rs.b_dims, in);
        return ctx_.EmitForLoop(
            "h", b_.CreateZExt(ty, i64), ctx_.I64(rs.rows), ctx_.I64(32),
            [&](llvm::Value* h) -> absl::Status {
              IrIndex index = fixed;
              FillIndex(index, h, rs.r_dims, in);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * v, gens[0](index));
              llvm::Value* acc = b_.CreateLoad(t, acc_slot);
              llvm::Value* valid = b_.CreateLoad(b_.getInt1Ty(), valid_slot);
              HLOREF_ASSIGN_OR_RETURN(llvm::Value * both,
                                      Combine(inst, acc, v));
              b_.CreateStore(b_.CreateSelect(valid, both, v), acc_slot);
              b_.CreateStore(b_.getTrue(), valid_slot);
              return absl::OkStatus();
            });
      },
      "column_in_range"));
  // Transpose through shared memory: thread (x, y) leaves the partial of
  // column x, row-slice y at [y][x] and picks up [x][y], so warp y holds
  // the 32 partials of column y in its lanes.
  {
    std::vector<llvm::Value*> w = ToWords(b_.CreateLoad(t, acc_slot));
    for (int64_t i = 0; i < words; ++i) {
      b_.CreateStore(w[i], tile_word(ty, tx, i));
    }
    b_.CreateStore(
        b_.CreateZExt(b_.CreateLoad(b_.getInt1Ty(), valid_slot), i32),
        tile_word(ty, tx, words));
  }
  b_.CreateCall(llvm::Intrinsic::getDeclaration(llvm_module_.get(),
                                                llvm::Intrinsic::nvvm_barrier0),
                {});
  std::vector<llvm::Value*> w;
  for (int64_t i = 0; i < words; ++i) {
    w.push_back(b_.CreateLoad(i32, tile_word(tx, ty, i)));
  }
  Partial p{FromWords(w, t),
            b_.CreateICmpNE(b_.CreateLoad(i32, tile_word(tx, ty, words)),
                            b_.getInt32(0))};
  HLOREF_ASSIGN_OR_RETURN(p, WarpReduce(inst, p));
  llvm::Value* out_column = b_.CreateZExt(
      b_.CreateAdd(b_.CreateMul(tile_x, b_.getInt32(32)), ty), i64);
  HLOREF_RETURN_IF_ERROR(ctx_.EmitIf(
      b_.CreateAnd(b_.CreateICmpEQ(tx, b_.getInt32(0)),
                   b_.CreateICmpULT(out_column, ctx_.I64(rs.columns))),
      [&]() -> absl::Status {
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * init, gens[1]({}));
        HLOREF_ASSIGN_OR_RETURN(llvm::Value * all,
                                Combine(inst, init, p.value));
        llvm::Value* result = b_.CreateSelect(p.valid, all, init);
        llvm::Value* linear =
            b_.CreateAdd(b_.CreateMul(batch, ctx_.I64(rs.columns)), out_column);
        kernel_output_.array.EmitWrite(ctx_, Delinearize(linear, inst.shape()),
                                       result);
        return absl::OkStatus();
      },
      "write"));
  launch.kind = KernelKind::kColumnReduce;
  launch.batch = rs.batch;
  launch.rows = rs.rows;
  launch.columns = rs.columns;
  launch.block[0] = 32;
  launch.block[1] = 32;
  launch.grid[0] = (rs.columns + 31) / 32;
  launch.grid[1] = rs.batch;
  return EndKernel(inst, std::move(launch));
}

bool GpuModuleEmitter::CanonicalDot(const HloInstruction& inst, int64_t* batch,
                                    int64_t* m, int64_t* n, int64_t* k) {
  if (inst.operand_count() != 2 || !inst.attrs().algorithm.empty()) {
    return false;
  }
  const Shape& ls = inst.operand(0)->shape();
  const Shape& rs = inst.operand(1)->shape();
  const Shape& os = inst.shape();
  const PrimitiveType t = os.element_type();
  if (ls.element_type() != t || rs.element_type() != t ||
      (t != PrimitiveType::kF32 && t != PrimitiveType::kF64 &&
       t != PrimitiveType::kF16 && t != PrimitiveType::kBF16)) {
    return false;
  }
  const DotDimensionNumbers& dn = inst.attrs().dot_dimension_numbers;
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  if (ls.rank() != nb + 2 || rs.rank() != nb + 2 || os.rank() != nb + 2) {
    return false;
  }
  for (int64_t i = 0; i < nb; ++i) {
    if (dn.lhs_batch_dimensions[i] != i || dn.rhs_batch_dimensions[i] != i) {
      return false;
    }
  }
  if (dn.lhs_contracting_dimensions != std::vector<int64_t>{nb + 1} ||
      dn.rhs_contracting_dimensions != std::vector<int64_t>{nb}) {
    return false;
  }
  *batch = 1;
  for (int64_t i = 0; i < nb; ++i) *batch *= os.dimensions(i);
  *m = ls.dimensions(nb);
  *k = ls.dimensions(nb + 1);
  *n = rs.dimensions(nb + 1);
  return *batch >= 1 && *batch <= 65535 && *m >= 1 && *n >= 1 && *k >= 1 &&
         (*m + kDotTile - 1) / kDotTile <= 65535 &&
         os.num_elements() < (int64_t{1} << 31);
}

absl::Status GpuModuleEmitter::EmitGemmKernel(const HloInstruction& inst,
                                              const ValueTree& out,
                                              const GemmIoMaker& make_io,
                                              bool tensor_core) {
  std::vector<const HloInstruction*> inputs;
  absl::flat_hash_set<const HloInstruction*> seen;
  CollectInputs(inst, &inputs, &seen);
  const TensorCoreKind kind = TensorCoreKindFor(options_.arch);
  const char* name =
      !tensor_core ? (inst.opcode() == HloOpcode::kDot ? "dot" : "conv_gemm")
      : kind == TensorCoreKind::kWgmma ? "wgmma"
                                       : "mma";
  KernelLaunch launch;
  HLOREF_ASSIGN_OR_RETURN(
      llvm::Function * f,
      BeginKernel(inst, name, inputs, out,
                  tensor_core ? kGemmThreads : kDotTile, &launch));
  if (!tensor_core) AddAnnotation(*llvm_module_, f, "maxntidy", kDotTile);
  HLOREF_ASSIGN_OR_RETURN(std::vector<ElementGenerator> gens,
                          OperandGenerators(inst));
  HLOREF_ASSIGN_OR_RETURN(GemmIo io, make_io(gens, kernel_output_.array));
  if (tensor_core) {
    HLOREF_RETURN_IF_ERROR(EmitTensorCoreGemm(ctx_, *f, io, kind, &launch));
  } else {
    HLOREF_RETURN_IF_ERROR(EmitFfmaGemm(ctx_, *f, io, &launch));
  }
  return EndKernel(inst, std::move(launch));
}

GpuModuleEmitter::GemmIoMaker GpuModuleEmitter::DotGemmIo(
    const HloInstruction& inst, int64_t batch, int64_t m, int64_t n,
    int64_t k) {
  return [this, &inst, batch, m, n, k](
             const std::vector<ElementGenerator>& gens,
             const IrArray& out) -> absl::StatusOr<GemmIo> {
    // [b.., m, k] x [b.., k, n] (CanonicalDot): the batch index is the
    // linear GEMM batch, row-major over the batch dimensions.
    const Shape shape = inst.shape();
    EmitContext* ctx = &ctx_;
    auto index = [shape, ctx](llvm::Value* b, llvm::Value* i, llvm::Value* j) {
      const int64_t nb = shape.rank() - 2;
      IrIndex idx(nb + 2, nullptr);
      llvm::Value* rest = b;
      for (int64_t d = nb - 1; d >= 0; --d) {
        const int64_t size = shape.dimensions(d);
        idx[d] = d == 0 ? rest : ctx->b().CreateURem(rest, ctx->I64(size));
        if (d > 0) rest = ctx->b().CreateUDiv(rest, ctx->I64(size));
      }
      idx[nb] = i;
      idx[nb + 1] = j;
      return idx;
    };
    GemmIo io;
    io.type = shape.element_type();
    io.batch = batch;
    io.m = m;
    io.n = n;
    io.k = k;
    ElementGenerator a = gens[0], bg = gens[1];
    io.load_a = [a, index](llvm::Value* b, llvm::Value* i, llvm::Value* l) {
      return a(index(b, i, l));
    };
    io.load_b = [bg, index](llvm::Value* b, llvm::Value* l, llvm::Value* j) {
      return bg(index(b, l, j));
    };
    io.store = [out, index, ctx](llvm::Value* b, llvm::Value* i, llvm::Value* j,
                                 llvm::Value* v) {
      out.EmitWrite(*ctx, index(b, i, j), v);
      return absl::OkStatus();
    };
    // Operands read straight from a row-major buffer (not fused) may be
    // copied with cp.async by the tensor-core kernels.
    auto row_major = [this](const HloInstruction* op) -> llvm::Value* {
      if (inlined_.contains(op)) return nullptr;
      auto it = kernel_values_.find(op);
      if (it == kernel_values_.end() || !it->second.IsArray()) return nullptr;
      const Layout l = op->shape().LayoutOrDefault();
      const bool descending =
          static_cast<int64_t>(l.minor_to_major.size()) != op->shape().rank() ||
          l.IsDescending();
      return descending ? it->second.array.base() : nullptr;
    };
    io.a_row_major = row_major(inst.operand(0));
    io.b_row_major = row_major(inst.operand(1));
    return io;
  };
}

GpuModuleEmitter::GemmIoMaker GpuModuleEmitter::ConvGemmIo(
    const HloInstruction& inst, const ConvGemmShape& shape) {
  return [this, &inst, shape](const std::vector<ElementGenerator>& gens,
                              const IrArray& out) -> absl::StatusOr<GemmIo> {
    return ConvolutionGemmIo(ctx_, inst, shape, gens[0], gens[1], out);
  };
}

}  // namespace

absl::StatusOr<GpuProgram> CompileModuleToPtx(
    const HloModule& module, const GpuCompileOptions& options) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError("the module has no entry computation");
  }
  GpuModuleEmitter emitter(module, options);
  return emitter.Run();
}

}  // namespace hloref::gpu
