// The runtime side of ahead-of-time compiled modules (backends/cpu/aot.h):
// runs an entry function with a fresh RunContext.
#include <string>
#include <thread>

#include "backends/cpu/runtime/run_context.h"
#include "backends/cpu/runtime/thread_pool.h"

namespace {
thread_local std::string last_error;
}  // namespace

extern "C" {

int hloref_aot_run(void (*entry)(hloref::cpu::RunContext*, void**, void**),
                   void** params, void** results) {
  hloref::cpu::RunContext ctx;
  unsigned n = std::thread::hardware_concurrency();
  std::unique_ptr<hloref::cpu::ThreadPool> pool;
  if (n > 1) {
    pool = std::make_unique<hloref::cpu::ThreadPool>(static_cast<int>(n));
    ctx.pool = pool.get();
  }
  entry(&ctx, params, results);
  if (ctx.failed()) {
    last_error = std::string(ctx.error().message());
    return 1;
  }
  return 0;
}

const char* hloref_aot_last_error(void) { return last_error.c_str(); }

}  // extern "C"
