#include "backends/cpu/cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "backends/codegen/emit_context.h"
#include "backends/codegen/emitter_table.h"
#include "backends/codegen/ir_value.h"
#include "backends/codegen/llvm_types.h"
#include "backends/cpu/cpu_emitters.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/module_emitter.h"
#include "backends/cpu/runtime/collectives.h"
#include "backends/cpu/runtime/custom_call.h"
#include "backends/cpu/runtime/gemm_kernels.h"
#include "backends/cpu/runtime/host.h"
#include "backends/cpu/runtime/run_context.h"
#include "backends/cpu/runtime/thread_pool.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "spec/ir/hlo_printer.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::cpu {

namespace {

using EntryFn = void (*)(RunContext*, void**, void**);

std::mutex stats_mu;
CompileStats stats;

// Code compiled for one module; shared by the executables (and the cache)
// that use it.
// One leaf of a parameter or of the result, as Run hands it to the
// compiled code (worked out once per compilation, not per run).
struct LeafPlan {
  const Shape* shape;  // points into CompiledModule's shapes
  bool array;
  bool is_static;
  // The buffer is the literal's storage order: row-major (UsesStorage-
  // Directly below).
  bool row_major;
  int64_t bytes;  // codegen::ArrayBytes (arrays only)
};

struct CompiledModule {
  std::unique_ptr<JitModule> jit;
  EntryFn entry = nullptr;
  std::vector<Shape> param_shapes;  // entry parameters (with layouts)
  Shape result_shape;               // root shape (with layouts)
  // Depth-first leaves of each parameter and of the result.
  std::vector<std::vector<LeafPlan>> param_leaves;
  std::vector<LeafPlan> result_leaves;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
};

void PlanLeaves(const Shape& shape, std::vector<LeafPlan>* out) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) PlanLeaves(e, out);
    return;
  }
  LeafPlan leaf{&shape, shape.IsArray(), false, false, 0};
  if (leaf.array) {
    leaf.is_static = shape.is_static();
    const Layout layout = shape.LayoutOrDefault();
    leaf.row_major =
        static_cast<int64_t>(layout.minor_to_major.size()) != shape.rank() ||
        layout.IsDescending();
    leaf.bytes = codegen::ArrayBytes(shape);
  }
  out->push_back(leaf);
}

// Every array leaf of a shape gets the descending layout when it has none.
void DefaultLayouts(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& e : *shape->mutable_tuple_shapes()) DefaultLayouts(&e);
  } else if (shape->IsArray() && !shape->has_layout()) {
    shape->set_layout(Layout::Descending(shape->rank()));
  }
}

// CpuBackendOptions::stream_result_min_bytes resolved: the environment,
// else the option, else a quarter of the last-level cache (8 MiB when
// unknown). Results are 64-byte aligned here (UsesStorageDirectly).
int64_t StreamResultMinBytes(const CpuBackendOptions& options) {
  if (const char* env = std::getenv("HLOREF_CPU_STREAM_BYTES");
      env != nullptr && *env != 0) {
    return std::max<int64_t>(0, std::atoll(env));
  }
  if (options.stream_result_min_bytes >= 0) {
    return options.stream_result_min_bytes;
  }
  return gemm::HostLastLevelCacheBytes() / 4;
}

absl::StatusOr<std::shared_ptr<CompiledModule>> CompileModule(
    const HloModule& module, const CpuBackendOptions& options) {
  ModuleEmitOptions emit_options;
  emit_options.fuse_elementwise = options.fuse_elementwise;
  emit_options.stream_result_min_bytes = StreamResultMinBytes(options);
  emit_options.row_group_block_bytes = options.row_group_block_bytes;
  emit_options.serial_outline_min_work = options.serial_outline_min_work;
  HLOREF_ASSIGN_OR_RETURN(EmittedModule emitted,
                          EmitModuleForCpu(module, emit_options));
  JitOptions jit_options;
  jit_options.opt_level = options.opt_level;
  jit_options.dump_dir = options.dump_dir;
  if (!options.dump_dir.empty()) {
    static std::atomic<int64_t> counter{0};
    std::string name = module.name();
    for (char& c : name) {
      if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
          c != '.') {
        c = '_';
      }
    }
    jit_options.dump_name = absl::StrCat(name, ".", counter++);
  }
  auto compiled = std::make_shared<CompiledModule>();
  HLOREF_ASSIGN_OR_RETURN(
      compiled->jit,
      JitModule::Compile(std::move(emitted.module), std::move(emitted.context),
                         jit_options));
  HLOREF_ASSIGN_OR_RETURN(void* address, compiled->jit->Lookup("hloref_entry"));
  compiled->entry = reinterpret_cast<EntryFn>(address);
  for (int64_t i = 0; i < module.entry()->num_parameters(); ++i) {
    Shape s = module.entry()->parameter(i)->shape();
    DefaultLayouts(&s);
    compiled->param_shapes.push_back(std::move(s));
  }
  compiled->result_shape = module.entry()->root()->shape();
  DefaultLayouts(&compiled->result_shape);
  // (param_shapes no longer grows: the plans' pointers stay valid.)
  for (const Shape& s : compiled->param_shapes) {
    compiled->param_leaves.emplace_back();
    PlanLeaves(s, &compiled->param_leaves.back());
  }
  PlanLeaves(compiled->result_shape, &compiled->result_leaves);
  compiled->replica_count = module.config().replica_count;
  compiled->num_partitions = module.config().num_partitions;
  return compiled;
}

// 64-byte aligned byte buffers.
struct AlignedBuffer {
  explicit AlignedBuffer(int64_t bytes)
      : data(static_cast<uint8_t*>(std::aligned_alloc(
            64, (std::max<int64_t>(bytes, 1) + 63) / 64 * 64))) {}
  ~AlignedBuffer() { std::free(data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& o) noexcept : data(o.data) { o.data = nullptr; }
  uint8_t* data;
};

// Whether a literal's storage (`data`, `bytes` long) is exactly the buffer
// compiled code expects for an array leaf: a Literal holds its elements
// row-major over the bounds, StorageBytes each (spec/types/literal.h),
// which is the buffer when the layout lists the dimensions major to minor
// (codegen/ir_value.h); the address must be 64-byte aligned (what a
// Literal's storage is: streamed results are compiled as 64-byte aligned,
// CpuBackendOptions::stream_result_min_bytes) and the array non-empty (an
// empty vector may have no address).
bool UsesStorageDirectly(const LeafPlan& leaf, const uint8_t* data,
                         size_t bytes) {
  return leaf.row_major && data != nullptr && bytes != 0 &&
         reinterpret_cast<uintptr_t>(data) % 64 == 0 &&
         static_cast<int64_t>(bytes) == leaf.bytes;
}

void CollectLiteralLeaves(const Literal& lit,
                          absl::InlinedVector<const Literal*, 8>* out) {
  if (lit.shape().IsTuple()) {
    for (const Literal& e : lit.tuple_elements()) CollectLiteralLeaves(e, out);
  } else {
    out->push_back(&lit);
  }
}

class CpuExecutable : public backends::Executable {
 public:
  CpuExecutable(std::shared_ptr<CompiledModule> compiled, int threads,
                bool fast_math = false)
      : compiled_(std::move(compiled)),
        threads_(threads),
        fast_math_(fast_math) {}

  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    RunContext ctx;
    return RunOne(args, ctx);
  }

  absl::StatusOr<std::vector<Literal>> RunWithHost(
      absl::Span<const Literal> args, backends::HostTransfers& host) override {
    RunContext ctx;
    ctx.host = &host;
    return RunOne(args, ctx);
  }

  absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args) override;

  absl::StatusOr<std::vector<Literal>> RunOne(absl::Span<const Literal> args,
                                              RunContext& ctx) {
    const CompiledModule& m = *compiled_;
    ctx.scratch = &scratch_;
    if (args.size() != m.param_shapes.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the module takes ", m.param_shapes.size(),
                       " arguments, got ", args.size()));
    }
    // Generated code only reads parameter buffers and only writes result
    // buffers (buffer assignment never places a temporary in either), so
    // an argument leaf whose storage already is the buffer the code
    // expects is passed by pointer, and result leaves are written straight
    // into the storage of the literals returned (UsesStorageDirectly);
    // the other leaves go through copies.
    std::vector<AlignedBuffer> buffers;
    absl::InlinedVector<void*, 16> params, results;
    // Runtime sizes of dynamic leaves: appended after the buffers
    // (codegen/ir_value.h ABI).
    // (Moving an inner vector keeps its data pointer, so growth is safe.)
    std::vector<std::vector<int64_t>> sizes;
    absl::InlinedVector<void*, 4> param_sizes, result_sizes;
    std::vector<std::unique_ptr<Literal>> converted;
    absl::InlinedVector<const Literal*, 8> leaves;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::vector<LeafPlan>& plans = m.param_leaves[i];
      leaves.clear();
      CollectLiteralLeaves(args[i], &leaves);
      if (plans.size() != leaves.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "argument ", i, " has shape ", args[i].shape().ToString(),
            ", the parameter is ", m.param_shapes[i].ToString()));
      }
      for (size_t l = 0; l < plans.size(); ++l) {
        const LeafPlan& plan = plans[l];
        if (!plan.array) continue;
        const Shape& s = *plan.shape;
        const Literal* leaf = leaves[l];
        // A dynamic parameter also takes a static array within its bounds
        // (as the oracle: Literal::ToBoundedDynamic).
        if (!plan.is_static && leaf->shape().IsArray() &&
            !leaf->shape().SameDimensions(s)) {
          absl::StatusOr<Literal> bounded = Literal::ToBoundedDynamic(*leaf, s);
          if (!bounded.ok()) {
            return absl::InvalidArgumentError(absl::StrCat(
                "argument ", i, " has shape ", args[i].shape().ToString(),
                ", the parameter is ", m.param_shapes[i].ToString(), ": ",
                bounded.status().message()));
          }
          converted.push_back(std::make_unique<Literal>(*std::move(bounded)));
          leaf = converted.back().get();
        }
        const Literal& lit = *leaf;
        if (!lit.shape().IsArray() || lit.element_type() != s.element_type() ||
            !lit.shape().SameDimensions(s) ||
            (plan.is_static && lit.HasPadding())) {
          return absl::InvalidArgumentError(absl::StrCat(
              "argument ", i, " has shape ", args[i].shape().ToString(),
              ", the parameter is ", m.param_shapes[i].ToString()));
        }
        const uint8_t* storage = lit.raw().data();
        if (UsesStorageDirectly(plan, storage, lit.raw().size())) {
          // Read only (see above): the const_cast never leads to a write.
          params.push_back(const_cast<uint8_t*>(storage));
        } else {
          buffers.emplace_back(plan.bytes);
          codegen::LiteralToPhysical(lit, s, buffers.back().data);
          params.push_back(buffers.back().data);
        }
        if (!plan.is_static) {
          sizes.emplace_back(lit.dynamic_sizes().begin(),
                             lit.dynamic_sizes().end());
          param_sizes.push_back(sizes.back().data());
        }
      }
    }
    params.insert(params.end(), param_sizes.begin(), param_sizes.end());
    const std::vector<LeafPlan>& result_leaves = m.result_leaves;
    // The result literals first (reserved: their storage must not move
    // once the compiled code has its address), then their buffers.
    std::vector<Literal> out;
    out.reserve(result_leaves.size());
    absl::InlinedVector<uint8_t*, 8> copy_from(result_leaves.size(), nullptr);
    absl::InlinedVector<int64_t*, 8> result_dims(result_leaves.size(), nullptr);
    for (size_t i = 0; i < result_leaves.size(); ++i) {
      const LeafPlan& plan = result_leaves[i];
      const Shape& s = *plan.shape;
      if (s.IsToken()) {
        out.push_back(Literal::Token());
        continue;
      }
      // A static array result is written whole by the compiled code (or
      // replaced by PhysicalToLiteral below): no zero fill first, which
      // would be one more pass over the result's memory.
      out.push_back(plan.array && plan.is_static ? Literal::Uninitialized(s)
                                                 : Literal(s));
      if (!plan.array) continue;
      uint8_t* storage = out.back().mutable_raw().data();
      if (UsesStorageDirectly(plan, storage, out.back().raw().size())) {
        results.push_back(storage);
      } else {
        buffers.emplace_back(plan.bytes);
        copy_from[i] = buffers.back().data;
        results.push_back(buffers.back().data);
      }
      if (!plan.is_static) {
        sizes.emplace_back(s.dimensions().begin(), s.dimensions().end());
        result_dims[i] = sizes.back().data();
        result_sizes.push_back(sizes.back().data());
      }
    }
    results.insert(results.end(), result_sizes.begin(), result_sizes.end());
    if (params.empty()) params.push_back(nullptr);
    if (results.empty()) results.push_back(nullptr);
    PoolLease pool(*this);
    ctx.pool = pool.get();
    ctx.fast_math = fast_math_;
    if (ctx.rng_state == nullptr) ctx.rng_state = rng_state_;
    m.entry(&ctx, params.data(), results.data());
    // Device send values nobody received die with the run.
    ReleaseDeviceChannels(&ctx);
    if (ctx.failed()) return ctx.error();
    for (size_t i = 0; i < result_leaves.size(); ++i) {
      const Shape& s = *result_leaves[i].shape;
      if (!result_leaves[i].array) continue;
      Literal& lit = out[i];
      if (copy_from[i] != nullptr) {
        lit = codegen::PhysicalToLiteral(copy_from[i], s);
      }
      if (result_dims[i] != nullptr) {
        for (int64_t d = 0; d < s.rank(); ++d) {
          if (!s.is_dynamic_dimension(d)) continue;
          const int64_t size = result_dims[i][d];
          if (size < 0 || size > s.dimensions(d)) {
            return absl::InternalError(absl::StrCat("runtime size ", size,
                                                    " of result dimension ", d,
                                                    " lies outside its bound"));
          }
          lit.SetDynamicSize(d, size);
        }
      }
    }
    return out;
  }

  // rng / rng-get-and-update-state: this executable's generator state
  // {seed, S.low, S.high} (the oracle's default seed 0), carried over
  // between runs; replicated runs give each participant a copy offset by
  // (replica << 32 | partition) in the high word and leave this one.
  uint64_t rng_state_[3] = {0, 0, 0};

 private:
  // A worker pool for one run, taken from the executable's idle pools
  // (or made) and given back after the run, so repeated runs do not start
  // threads; concurrent runs (replicated participants) each get their own.
  class PoolLease {
   public:
    explicit PoolLease(const CpuExecutable& e) : e_(e) {
      if (e_.threads_ <= 1) return;
      std::lock_guard<std::mutex> lock(e_.pools_mu_);
      if (!e_.idle_pools_.empty()) {
        pool_ = std::move(e_.idle_pools_.back());
        e_.idle_pools_.pop_back();
      }
      if (pool_ == nullptr) pool_ = std::make_unique<ThreadPool>(e_.threads_);
    }
    ~PoolLease() {
      if (pool_ == nullptr) return;
      std::lock_guard<std::mutex> lock(e_.pools_mu_);
      e_.idle_pools_.push_back(std::move(pool_));
    }
    PoolLease(const PoolLease&) = delete;
    PoolLease& operator=(const PoolLease&) = delete;
    ThreadPool* get() const { return pool_.get(); }

   private:
    const CpuExecutable& e_;
    std::unique_ptr<ThreadPool> pool_;
  };

  std::shared_ptr<CompiledModule> compiled_;
  int threads_;
  bool fast_math_;  // CpuBackendOptions::fast
  mutable std::mutex pools_mu_;
  mutable std::vector<std::unique_ptr<ThreadPool>> idle_pools_;
  // Large temporaries kept between runs (run_context.h).
  ScratchCache scratch_;
};

absl::StatusOr<std::vector<std::vector<Literal>>> CpuExecutable::RunReplicated(
    absl::Span<const std::vector<Literal>> args) {
  return RunReplicatedParticipants(
      compiled_->replica_count, compiled_->num_partitions, args,
      [this](absl::Span<const Literal> a, RunContext& ctx) {
        uint64_t state[3] = {
            rng_state_[0], rng_state_[1],
            rng_state_[2] + ((static_cast<uint64_t>(ctx.replica_id) << 32) |
                             static_cast<uint64_t>(ctx.partition_id))};
        ctx.rng_state = state;
        return RunOne(a, ctx);
      });
}

class CpuBackend : public backends::Backend {
 public:
  explicit CpuBackend(CpuBackendOptions options)
      : options_(std::move(options)) {}

  std::string name() const override { return "cpu"; }

  absl::Status Supports(const HloInstruction&) const override {
    // What compiles is only known when the emitters see the instruction;
    // Compile answers Unimplemented for the rest.
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& compile_options) override {
    // Valid whatever its sizes (the CPU backend's own limits are checked
    // when it emits the module, as Unimplemented).
    VerifyOptions verify;
    verify.max_elements = std::numeric_limits<int64_t>::max();
    HLOREF_RETURN_IF_ERROR(VerifyModule(module, verify));
    for (const std::string& library : compile_options.custom_call_libraries) {
      HLOREF_RETURN_IF_ERROR(AddCustomCallLibrary(library));
    }
    std::string key;
    if (options_.compile_cache) {
      PrintOptions print;
      print.print_metadata = false;
      key = PrintModule(module, print);
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        cache_order_.splice(cache_order_.begin(), cache_order_,
                            it->second.second);
        std::lock_guard<std::mutex> l(stats_mu);
        ++stats.cache_hits;
        return std::unique_ptr<backends::Executable>(
            new CpuExecutable(it->second.first, threads(), options_.fast));
      }
    }
    auto start = std::chrono::steady_clock::now();
    HLOREF_ASSIGN_OR_RETURN(std::shared_ptr<CompiledModule> compiled,
                            CompileModule(module, options_));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    {
      std::lock_guard<std::mutex> l(stats_mu);
      ++stats.modules_compiled;
      stats.total_compile_seconds += seconds;
      stats.compile_seconds.push_back(seconds);
    }
    if (options_.compile_cache) {
      std::lock_guard<std::mutex> lock(cache_mu_);
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        cache_order_.push_front(key);
        cache_.emplace(key, std::make_pair(compiled, cache_order_.begin()));
        // Least recently used out: every entry holds a JIT session and its
        // code (a few hundred KiB), and a suite of 20,000 distinct modules
        // kept them all (7-9 GiB resident in `hloref conformance`).
        while (cache_.size() >
               std::max<size_t>(options_.compile_cache_entries, 1)) {
          cache_.erase(cache_order_.back());
          cache_order_.pop_back();
        }
      }
    }
    return std::unique_ptr<backends::Executable>(
        new CpuExecutable(std::move(compiled), threads(), options_.fast));
  }

 private:
  int threads() const {
    if (options_.threads > 0) return options_.threads;
    unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
  }
  CpuBackendOptions options_;
  // The compile cache: canonical text -> code, most recently used first.
  std::mutex cache_mu_;
  std::list<std::string> cache_order_;
  std::map<std::string, std::pair<std::shared_ptr<CompiledModule>,
                                  std::list<std::string>::iterator>>
      cache_;
};

}  // namespace

CpuBackendOptions& DefaultCpuBackendOptions() {
  static CpuBackendOptions* options = new CpuBackendOptions;
  return *options;
}

CpuBackendOptions ApplyEnvironment(CpuBackendOptions options) {
  options.opt_level = OptLevelFromEnvironment(options.opt_level);
  if (const char* t = std::getenv("HLOREF_CPU_THREADS")) {
    int n = std::atoi(t);
    if (n > 0) options.threads = n;
  }
  if (const char* d = std::getenv("HLOREF_CPU_DUMP")) {
    if (d[0] != '\0') options.dump_dir = d;
  }
  if (const char* f = std::getenv("HLOREF_CPU_FAST")) {
    options.fast = f[0] == '1';
  }
  return options;
}

absl::StatusOr<std::unique_ptr<backends::Backend>> CreateCpuBackend(
    CpuBackendOptions options) {
  return std::unique_ptr<backends::Backend>(
      new CpuBackend(ApplyEnvironment(std::move(options))));
}

CompileStats GetCompileStats() {
  std::lock_guard<std::mutex> l(stats_mu);
  return stats;
}

std::string CompileStatsSummary() {
  CompileStats s = GetCompileStats();
  if (s.compile_seconds.empty()) return "";
  std::vector<double> v = s.compile_seconds;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(q * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)] * 1e3;
  };
  return absl::StrFormat(
      "%d modules compiled in %.1f s (median %.1f ms, p99 %.1f ms, max %.1f "
      "ms); %d compile-cache hits",
      s.modules_compiled, s.total_compile_seconds, at(0.5), at(0.99),
      v.back() * 1e3, s.cache_hits);
}

}  // namespace hloref::cpu
