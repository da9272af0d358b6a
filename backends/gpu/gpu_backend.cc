#include "backends/gpu/gpu_backend.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/codegen/ir_value.h"
#include "backends/cpu/runtime/custom_call.h"
#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_control_flow.h"
#include "backends/gpu/gpu_dynamic.h"
#include "backends/gpu/gpu_emitter.h"
#include "backends/gpu/gpu_host_steps.h"
#include "backends/gpu/nvjitlink.h"
#include "backends/gpu/nvptx_target.h"
#include "spec/util/rendezvous.h"
#include "spec/util/status_macros.h"
#include "spec/verifier/verifier.h"

namespace hloref::gpu {

namespace {

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

std::string SafeName(std::string name) {
  for (char& c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.') {
      c = '_';
    }
  }
  return name.empty() ? "module" : name;
}

// A compiled module loaded on the device.
class GpuExecutable : public backends::Executable {
 public:
  GpuExecutable(CudaDriver* driver, GpuProgram program, CuModule module,
                std::vector<CuFunction> functions, bool sync_each_launch)
      : driver_(driver),
        program_(std::move(program)),
        module_(module),
        functions_(std::move(functions)),
        sync_each_launch_(sync_each_launch) {}
  ~GpuExecutable() override {
    for (CuEvent e : events_) {
      if (e != nullptr) driver_->event_destroy(e);
    }
    for (CuDevicePtr p : state_) {
      if (p != 0) driver_->mem_free(p);
    }
    if (stream_ != nullptr) driver_->stream_destroy(stream_);
    if (module_ != nullptr) driver_->module_unload(module_);
  }

  // The executable's stream (a blocking one: it waits for the legacy
  // default stream's synchronous copies) and one completion event per
  // launch, created on the first run.
  absl::Status EnsureStream() {
    if (stream_ == nullptr) {
      HLOREF_RETURN_IF_ERROR(driver_->Check(driver_->stream_create(&stream_, 0),
                                            "cuStreamCreate"));
    }
    while (events_.size() < program_.launches.size()) {
      CuEvent e = nullptr;
      HLOREF_RETURN_IF_ERROR(driver_->Check(
          driver_->event_create(&e, kEventDisableTiming), "cuEventCreate"));
      events_.push_back(e);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Literal>> Run(
      absl::Span<const Literal> args) override {
    return RunOne(args, nullptr);
  }
  absl::StatusOr<std::vector<Literal>> RunWithHost(
      absl::Span<const Literal> args, backends::HostTransfers& host) override {
    return RunOne(args, &host);
  }
  // Every participant of a replicated module on this one device
  // (gpu_collectives.h): participant t's arguments go to slice t of the
  // parameter buffers, its results come from slice t of the result
  // buffers.
  absl::StatusOr<std::vector<std::vector<Literal>>> RunReplicated(
      absl::Span<const std::vector<Literal>> args) override {
    HLOREF_RETURN_IF_ERROR(
        CheckParticipants(program_.replicas, program_.partitions, args.size())
            .status());
    std::vector<std::vector<std::vector<Literal>>> leaves;
    for (int64_t p = 0; p < program_.participants; ++p) {
      leaves.push_back(ArgumentLeaves(args.size() == 1 ? args[0] : args[p]));
    }
    return RunWith(leaves, nullptr);
  }

  absl::StatusOr<std::vector<Literal>> RunOne(absl::Span<const Literal> args,
                                              backends::HostTransfers* host) {
    if (program_.participants > 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the module has replica_count * num_partitions = ",
          program_.participants, " participants: run it with RunReplicated"));
    }
    HLOREF_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> results,
                            RunWith({ArgumentLeaves(args)}, host));
    return std::move(results[0]);
  }

  // Runs with one list of flattened argument leaves per participant and
  // `host` transfers (null: none); one result list per participant.
  absl::StatusOr<std::vector<std::vector<Literal>>> RunWith(
      const std::vector<std::vector<std::vector<Literal>>>& participant_leaves,
      backends::HostTransfers* host) {
    std::lock_guard<std::mutex> lock(mu_);
    HLOREF_RETURN_IF_ERROR(driver_->Check(
        driver_->ctx_set_current(driver_->context), "cuCtxSetCurrent"));
    const int64_t participants = program_.participants;
    // Where participant p's slice of buffer i starts (every buffer holds
    // one slice per participant when there are several).
    auto slice = [&](size_t i, int64_t p) -> int64_t {
      return participants > 1 ? p * ParticipantSliceBytes(program_.buffers[i])
                              : 0;
    };
    struct Buffers {
      CudaDriver* d;
      std::vector<CuDevicePtr> ptrs;
      std::vector<CuDevicePtr> owned;  // freed at the end of the run
      ~Buffers() {
        for (CuDevicePtr p : owned) {
          if (p != 0) d->mem_free(p);
        }
      }
    } buffers{driver_, std::vector<CuDevicePtr>(program_.buffers.size(), 0),
              std::vector<CuDevicePtr>(program_.buffers.size(), 0)};
    state_.resize(program_.buffers.size(), 0);
    for (size_t i = 0; i < program_.buffers.size(); ++i) {
      const GpuBuffer& b = program_.buffers[i];
      if (b.kind == GpuBuffer::Kind::kState) {
        // Module state (rng): allocated and zeroed at the first run, kept.
        if (state_[i] == 0) {
          HLOREF_RETURN_IF_ERROR(driver_->Check(
              driver_->mem_alloc(&state_[i], static_cast<size_t>(b.bytes)),
              absl::StrCat("cuMemAlloc of ", b.bytes, " bytes (state)")));
          const std::vector<uint8_t> zeros(static_cast<size_t>(b.bytes), 0);
          HLOREF_RETURN_IF_ERROR(driver_->Check(
              driver_->memcpy_htod(state_[i], zeros.data(), b.bytes),
              "cuMemcpyHtoD (state)"));
        }
        buffers.ptrs[i] = state_[i];
        continue;
      }
      const int64_t allocated = participants > 1
                                    ? participants * ParticipantSliceBytes(b)
                                    : std::max<int64_t>(b.bytes, 1);
      HLOREF_RETURN_IF_ERROR(driver_->Check(
          driver_->mem_alloc(&buffers.ptrs[i], static_cast<size_t>(allocated)),
          absl::StrCat("cuMemAlloc of ", allocated, " bytes")));
      buffers.owned[i] = buffers.ptrs[i];
      for (int64_t p = 0; p < participants; ++p) {
        const CuDevicePtr at = buffers.ptrs[i] + slice(i, p);
        if (b.kind == GpuBuffer::Kind::kConstant && b.bytes > 0) {
          HLOREF_RETURN_IF_ERROR(
              driver_->Check(driver_->memcpy_htod(at, b.data.data(), b.bytes),
                             "cuMemcpyHtoD (constant)"));
        } else if (b.kind == GpuBuffer::Kind::kParameter ||
                   b.kind == GpuBuffer::Kind::kParameterSizes) {
          HLOREF_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                                  ParameterBytes(b, participant_leaves[p]));
          if (b.bytes > 0) {
            HLOREF_RETURN_IF_ERROR(
                driver_->Check(driver_->memcpy_htod(at, bytes.data(), b.bytes),
                               "cuMemcpyHtoD (argument)"));
          }
        }
      }
    }
    // Every kernel queued on the stream, each followed by its completion
    // event; no synchronisation until all are queued.
    HLOREF_RETURN_IF_ERROR(EnsureStream());
    auto failed = [&](const KernelLaunch& k, CuResult r, const char* how) {
      return absl::InternalError(absl::StrCat("GPU kernel ", k.kernel, " of ",
                                              k.instruction, " failed", how,
                                              ": ", driver_->ErrorString(r)));
    };
    HostStepRun host_run(host);
    // The launches queued since the stream's last synchronisation, in
    // order (a loop runs the same launches again after each branch).
    queued_.clear();
    LaunchWalker walker;
    walker.run = [&](int64_t l) -> absl::Status {
      const KernelLaunch& k = program_.launches[l];
      if (k.kind == KernelKind::kHostStep) {
        return RunHostStep(l, buffers.ptrs, host_run.context(), failed);
      }
      std::vector<CuDevicePtr> values;
      for (int64_t id : k.buffers) values.push_back(buffers.ptrs[id]);
      std::vector<void*> params;
      for (CuDevicePtr& v : values) params.push_back(&v);
      CuResult r = driver_->launch_kernel(
          functions_[l], k.grid[0], k.grid[1], k.grid[2], k.block[0],
          k.block[1], k.block[2], 0, stream_, params.data(), nullptr);
      if (r != 0) return failed(k, r, " to launch");
      if (sync_each_launch_) {
        r = driver_->stream_synchronize(stream_);
        if (r != 0) return failed(k, r, "");
        return absl::OkStatus();
      }
      r = driver_->event_record(events_[l], stream_);
      if (r != 0) return failed(k, r, " (cuEventRecord after it)");
      queued_.push_back(l);
      return absl::OkStatus();
    };
    // A branch's selector (gpu_control_flow.h): the kernels before it
    // finish, then its bytes come to the host.
    walker.read = [&](int64_t id) -> absl::StatusOr<std::vector<uint8_t>> {
      HLOREF_RETURN_IF_ERROR(Synchronise(failed, "before a branch"));
      std::vector<uint8_t> bytes(
          static_cast<size_t>(std::max<int64_t>(program_.buffers[id].bytes, 1)),
          0);
      HLOREF_RETURN_IF_ERROR(
          driver_->Check(driver_->memcpy_dtoh(bytes.data(), buffers.ptrs[id],
                                              program_.buffers[id].bytes),
                         "cuMemcpyDtoH (branch selector)"));
      return bytes;
    };
    HLOREF_RETURN_IF_ERROR(WalkLaunches(program_, walker));
    HLOREF_RETURN_IF_ERROR(Synchronise(failed, "after the last kernel"));
    // Run-time errors the kernels reported (gpu_dynamic.h): the first in
    // participant order.
    if (program_.status_buffer >= 0) {
      for (int64_t p = 0; p < participants; ++p) {
        int32_t word = 0;
        HLOREF_RETURN_IF_ERROR(driver_->Check(
            driver_->memcpy_dtoh(&word,
                                 buffers.ptrs[program_.status_buffer] +
                                     slice(program_.status_buffer, p),
                                 sizeof(word)),
            "cuMemcpyDtoH (status)"));
        absl::Status s = RunStatus(program_, word);
        if (!s.ok() && participants > 1) {
          return absl::Status(
              s.code(), absl::StrCat(ParticipantName(p), ": ", s.message()));
        }
        HLOREF_RETURN_IF_ERROR(s);
      }
    }
    std::vector<std::vector<Literal>> all;
    for (int64_t p = 0; p < participants; ++p) {
      std::vector<Literal> results;
      for (size_t i = 0; i < program_.result_buffers.size(); ++i) {
        const int64_t id = program_.result_buffers[i];
        const Shape& s = program_.result_shapes[i];
        if (id < 0) {  // a token leaf
          results.push_back(Literal::Token());
          continue;
        }
        std::vector<uint8_t> bytes(
            std::max<int64_t>(codegen::ArrayBytes(s), 1));
        if (codegen::ArrayBytes(s) > 0) {
          HLOREF_RETURN_IF_ERROR(driver_->Check(
              driver_->memcpy_dtoh(bytes.data(),
                                   buffers.ptrs[id] + slice(id, p),
                                   codegen::ArrayBytes(s)),
              "cuMemcpyDtoH (result)"));
        }
        std::vector<int64_t> sizes;
        const int64_t sizes_id = i < program_.result_sizes_buffers.size()
                                     ? program_.result_sizes_buffers[i]
                                     : -1;
        if (sizes_id >= 0) {
          sizes.resize(std::max<int64_t>(s.rank(), 1));
          HLOREF_RETURN_IF_ERROR(driver_->Check(
              driver_->memcpy_dtoh(sizes.data(),
                                   buffers.ptrs[sizes_id] + slice(sizes_id, p),
                                   sizes.size() * sizeof(int64_t)),
              "cuMemcpyDtoH (result sizes)"));
        }
        HLOREF_ASSIGN_OR_RETURN(
            Literal leaf, ResultLeaf(s, bytes.data(),
                                     sizes_id >= 0 ? sizes.data() : nullptr));
        results.push_back(std::move(leaf));
      }
      all.push_back(std::move(results));
    }
    return all;
  }

  // "replica 1 partition 0", as the CPU backend names participants.
  std::string ParticipantName(int64_t p) const {
    const int64_t r = p / program_.partitions, q = p % program_.partitions;
    if (program_.partitions == 1) return absl::StrCat("replica ", r);
    if (program_.replicas == 1) return absl::StrCat("partition ", q);
    return absl::StrCat("replica ", r, " partition ", q);
  }

 private:
  // Synchronises the stream; an execution error names the first launch
  // whose completion event was not reached (the stream runs in order).
  template <typename Failed>
  absl::Status Synchronise(const Failed& failed, const std::string& where) {
    CuResult r = driver_->stream_synchronize(stream_);
    std::vector<int64_t> queued;
    queued.swap(queued_);
    if (r == 0) return absl::OkStatus();
    for (int64_t l : queued) {
      if (driver_->event_query(events_[l]) != 0) {
        return failed(program_.launches[l], r,
                      " (the first kernel of the run whose completion "
                      "event was not reached at the stream's "
                      "synchronisation)");
      }
    }
    return driver_->Check(r, absl::StrCat("cuStreamSynchronize ", where));
  }

  // A host step (gpu_host_steps.h): the kernels before it finish, its
  // inputs come to the host, it runs, its outputs go back.
  template <typename Failed>
  absl::Status RunHostStep(size_t l, const std::vector<CuDevicePtr>& ptrs,
                           HostStepContext& context, const Failed& failed) {
    const KernelLaunch& k = program_.launches[l];
    const HostStep& step = program_.host_steps.at(k.host_step);
    HLOREF_RETURN_IF_ERROR(
        Synchronise(failed, absl::StrCat("before ", k.kernel)));
    auto bytes_of = [&](int64_t id) {
      return static_cast<size_t>(program_.buffers[id].bytes);
    };
    std::vector<std::vector<uint8_t>> in, out;
    for (int64_t id : step.inputs) {
      in.emplace_back(bytes_of(id));
      if (!in.back().empty()) {
        HLOREF_RETURN_IF_ERROR(driver_->Check(
            driver_->memcpy_dtoh(in.back().data(), ptrs[id], in.back().size()),
            absl::StrCat("cuMemcpyDtoH (operand of ", k.instruction, ")")));
      }
    }
    for (int64_t id : step.outputs) out.emplace_back(bytes_of(id), 0);
    absl::Status s = step.run(context, in, absl::MakeSpan(out));
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("host step of ", k.instruction,
                                                 ": ", s.message()));
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i].size() != bytes_of(step.outputs[i])) {
        return absl::InternalError(absl::StrCat("host step of ", k.instruction,
                                                " resized output ", i));
      }
      if (out[i].empty()) continue;
      HLOREF_RETURN_IF_ERROR(driver_->Check(
          driver_->memcpy_htod(ptrs[step.outputs[i]], out[i].data(),
                               out[i].size()),
          absl::StrCat("cuMemcpyHtoD (result of ", k.instruction, ")")));
    }
    return absl::OkStatus();
  }

  CudaDriver* driver_;
  GpuProgram program_;
  CuModule module_;
  std::vector<CuFunction> functions_;
  bool sync_each_launch_ = false;
  CuStream stream_ = nullptr;
  std::vector<CuEvent> events_;
  // Launch indices queued since the last synchronisation (RunWith).
  std::vector<int64_t> queued_;
  // Device buffers of GpuBuffer::Kind::kState, by buffer id (0: none yet).
  std::vector<CuDevicePtr> state_;
  std::mutex mu_;
};

class GpuBackend : public backends::Backend {
 public:
  explicit GpuBackend(GpuBackendOptions options)
      : options_(std::move(options)) {}

  std::string name() const override { return "gpu"; }

  absl::Status Supports(const HloInstruction&) const override {
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<backends::Executable>> Compile(
      const HloModule& module,
      const backends::CompileOptions& compile_options) override {
    VerifyOptions verify;
    verify.max_elements = std::numeric_limits<int64_t>::max();
    HLOREF_RETURN_IF_ERROR(VerifyModule(module, verify));
    // custom-call targets are called on the host (gpu_host_steps.h), from
    // the CPU backend's library list.
    for (const std::string& library : compile_options.custom_call_libraries) {
      HLOREF_RETURN_IF_ERROR(cpu::AddCustomCallLibrary(library));
    }
    absl::StatusOr<CudaDriver*> driver = GetCudaDriver();
    if (!driver.ok() && options_.dump_dir.empty()) return driver.status();
    GpuCompileOptions compile;
    compile.arch = options_.arch;
    if (compile.arch.empty()) {
      compile.arch = "sm_90";
      if (driver.ok()) {
        std::string device_arch = absl::StrCat("sm_", (*driver)->compute_major,
                                               (*driver)->compute_minor);
        if (CheckArch(device_arch).ok()) compile.arch = device_arch;
      }
    }
    compile.opt_level = options_.opt_level;
    compile.fuse_elementwise = options_.fuse_elementwise;
    compile.specialised_kernels = options_.specialised_kernels;
    HLOREF_ASSIGN_OR_RETURN(GpuProgram program,
                            CompileModuleToPtx(module, compile));
    absl::StatusOr<CubinResult> cubin =
        CompilePtxToCubin(program.ptx, compile.arch);
    if (!options_.dump_dir.empty()) {
      HLOREF_RETURN_IF_ERROR(
          WriteGpuDump(options_.dump_dir, program,
                       cubin.ok() ? cubin->info_log
                                  : std::string(cubin.status().message())));
    }
    if (!driver.ok()) return driver.status();
    CudaDriver* d = *driver;
    // The cubin when it is for this device and the driver loads CUDA 13
    // cubins; else the PTX, JIT-compiled by the driver.
    const bool exact = (compile.arch == absl::StrCat("sm_", d->compute_major,
                                                     d->compute_minor) ||
                        compile.arch == absl::StrCat("sm_", d->compute_major,
                                                     d->compute_minor, "a")) &&
                       d->LoadsCuda13Cubins();
    if (exact && !cubin.ok()) return cubin.status();
    CuModule cu_module = nullptr;
    HLOREF_RETURN_IF_ERROR(d->Check(
        d->module_load_data(
            &cu_module, exact ? static_cast<const void*>(cubin->cubin.data())
                              : program.ptx.c_str()),
        absl::StrCat("cuModuleLoadData (", compile.arch, " ",
                     exact ? "cubin" : "PTX", ")")));
    std::vector<CuFunction> functions;
    for (const KernelLaunch& k : program.launches) {
      CuFunction f = nullptr;
      if (k.kind == KernelKind::kHostStep || k.kind == KernelKind::kBranch ||
          k.kind == KernelKind::kJump) {  // not a kernel
        functions.push_back(nullptr);
        continue;
      }
      absl::Status s =
          d->Check(d->module_get_function(&f, cu_module, k.kernel.c_str()),
                   absl::StrCat("cuModuleGetFunction(", k.kernel, ") for ",
                                k.instruction));
      if (!s.ok()) {
        d->module_unload(cu_module);
        return s;
      }
      functions.push_back(f);
    }
    const char* sync_env = std::getenv("HLOREF_GPU_SYNC_EACH_LAUNCH");
    const bool sync_each_launch =
        options_.sync_each_launch ||
        (sync_env != nullptr && std::string(sync_env) == "1");
    return std::unique_ptr<backends::Executable>(
        new GpuExecutable(d, std::move(program), cu_module,
                          std::move(functions), sync_each_launch));
  }

 private:
  GpuBackendOptions options_;
};

}  // namespace

GpuBackendOptions& DefaultGpuBackendOptions() {
  static GpuBackendOptions* options = new GpuBackendOptions();
  return *options;
}

absl::StatusOr<std::unique_ptr<backends::Backend>> CreateGpuBackend(
    GpuBackendOptions options) {
  if (!options.arch.empty()) HLOREF_RETURN_IF_ERROR(CheckArch(options.arch));
  return std::unique_ptr<backends::Backend>(new GpuBackend(std::move(options)));
}

absl::Status WriteGpuDump(const std::string& dir, const GpuProgram& program,
                          const std::string& resources) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat(
        "cannot create --gpu-dump directory ", dir, ": ", ec.message()));
  }
  static std::mutex mu;
  static int64_t counter = 0;
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu);
    id = counter++;
  }
  const std::string base =
      absl::StrCat(dir, "/", SafeName(program.module_name), ".", id);
  HLOREF_RETURN_IF_ERROR(WriteFile(base + ".ll", program.llvm_ir));
  HLOREF_RETURN_IF_ERROR(WriteFile(base + ".opt.ll", program.optimized_ir));
  HLOREF_RETURN_IF_ERROR(WriteFile(base + ".ptx", program.ptx));
  std::string launches;
  for (const KernelLaunch& k : program.launches) {
    absl::StrAppend(&launches, k.kernel, " grid(", k.grid[0], ",", k.grid[1],
                    ",", k.grid[2], ") block(", k.block[0], ",", k.block[1],
                    ",", k.block[2], ")  ", k.instruction, "\n");
  }
  return WriteFile(
      base + ".resources.txt",
      absl::StrCat("arch ", program.arch, "\n", launches,
                   "\n--- ptxas (nvJitLink -verbose)\n", resources, "\n"));
}

}  // namespace hloref::gpu
